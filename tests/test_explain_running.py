"""`kubeberth explain` and /metrics against a running `kubeberth run --embedded` process.

A scheduled, an unschedulable and a preempting pod, each explained by a separate `kubeberth
explain` process through the scheduler's HTTP server; pods without a record (another scheduler's,
bound in the input, unknown); an unschedulable pod still explained after more pods than the store
keeps have finished; /metrics parsed with prometheus_client's parser after the same known
workload; Ctrl-C of a running scheduler.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeberth.testing import make_node, make_pod
from prometheus_client.parser import text_string_to_metric_families

FILLERS = 8


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _explain(url: str, pod: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubeberth", "explain", pod, "--server", url, *extra],
        capture_output=True, text=True, timeout=60,
    )


def _wait(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`kubeberth run --embedded` on a small known cluster; yields its HTTP address."""
    tmp = tmp_path_factory.mktemp("run-embedded")
    # Preemption victims terminate gracefully in the embedded cluster: a short grace period keeps the test quick.
    low = make_pod("low", "1500m", priority=0, nodeName="n1", terminationGracePeriodSeconds=1)
    low["status"] = {"phase": "Running"}
    objects = [
        make_node("n1", cpu="2"),
        make_node("n2", cpu="1"),
        low,
        make_pod("vip", "2", priority=1000, schedulerName="kubeberth"),  # fits nowhere until `low` leaves n1
        make_pod("huge", "64", schedulerName="kubeberth"),  # never fits; attempted before the fillers
        # More pods finish after huge's attempt than the store keeps (KUBEBERTH_DECISION_RECORDS=3).
        *[make_pod(f"filler-{i}", "10m", schedulerName="kubeberth") for i in range(FILLERS)],
        make_pod("fits", "500m", schedulerName="kubeberth"),
        make_pod("plain", "100m"),  # no schedulerName: default-scheduler's, scheduled as simulate does
        make_pod("foreign", "100m", schedulerName="other-scheduler"),  # left alone
        make_pod("pinned", "100m", nodeName="n2"),  # bound in the input
    ]
    cluster = tmp / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(objects))
    port = _free_port()
    log = open(tmp / "kubeberth.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubeberth", "run", "--embedded", f"--cluster={cluster}",
         f"--healthz-bind-address=127.0.0.1:{port}", "--log-level=INFO"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "KUBEBERTH_DECISION_RECORDS": "3"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        def bound() -> bool:
            assert proc.poll() is None, (tmp / "kubeberth.log").read_text()[-3000:]
            out = _explain(url, "default/vip", "--json")
            return out.returncode == 0 and json.loads(out.stdout)["result"] == "Scheduled"

        _wait(bound, 60, "vip to be scheduled after preempting low")
        _wait(lambda: "Scheduled default/plain" in (tmp / "kubeberth.log").read_text(), 30, "plain to be scheduled")
        log.flush()
        text = (tmp / "kubeberth.log").read_text()
        assert "1 pending pod(s) of other schedulers left alone (other-scheduler: 1)" in text
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_explain_a_scheduled_pod(running: str) -> None:
    out = _explain(running, "default/fits")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "  Result:      Scheduled on n2" in text
    # n1 is full: vip is nominated there (kube-scheduler counts nominated pods of higher priority).
    assert "Filter: nodes rejected, per plugin and reason\n  NodeResourcesFit: 1\n        1 × Insufficient cpu\n" in text
    assert "Binding: Bound to n2 in " in text
    assert "Trace:       not sampled (or tracing off)" in text  # no OTEL_* variables set


def test_explain_an_unschedulable_pod(running: str) -> None:
    out = _explain(running, "default/huge")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1] == "  Result:      Unschedulable"
    assert lines[2].startswith("  FailedScheduling: 0/2 nodes are available: 2 Insufficient cpu.")
    rejected = next(line for line in lines if "× Insufficient cpu (" in line)
    assert rejected.strip().startswith("2 × Insufficient cpu (") and "n1" in rejected and "n2" in rejected


def test_explain_a_preempting_pod(running: str) -> None:
    out = _explain(running, "default/vip")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "  Result:      Scheduled on n1" in text
    assert "  Attempt:     2 " in text
    earlier = next(line for line in text.splitlines() if line.startswith("  Earlier:"))
    assert earlier.startswith("  Earlier:     attempt 1 Unschedulable: 0/2 nodes are available: 2 Insufficient cpu.")
    assert "; preempted default/low to make room on n1" in earlier
    record = json.loads(_explain(running, "default/vip", "--json").stdout)
    assert record["earlier_attempts"][0]["preemption"]["victims"] == ["default/low"]


def test_explain_a_pod_the_scheduler_never_saw(running: str) -> None:
    out = _explain(running, "default/ghost")
    assert out.returncode == 2
    assert out.stderr == "error: explain: pod default/ghost does not exist in the cluster\n"


def test_explain_a_pod_of_another_scheduler(running: str) -> None:
    out = _explain(running, "default/foreign")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "pod default/foreign is not ours: its spec.schedulerName is other-scheduler (this scheduler runs kubeberth); "
        "it is Pending for it\n"
    )
    answer = json.loads(_explain(running, "default/foreign", "--json").stdout)
    assert answer["state"] == "other-scheduler" and answer["scheduler_name"] == "other-scheduler"


def test_explain_a_pod_bound_without_a_decision(running: str) -> None:
    out = _explain(running, "default/pinned")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("pod default/pinned is bound to n2 with no decision recorded here")
    assert out.stdout.count("\n") == 1


def test_explain_a_pending_pod_after_more_pods_finished_than_kept(running: str) -> None:
    # huge was attempted before FILLERS pods bound; the store keeps 3 finished pods, and huge still.
    assert _explain(running, "default/filler-0").stdout.startswith("pod default/filler-0 is bound to n")
    out = _explain(running, "default/huge", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "Unschedulable"


def test_a_pod_without_scheduler_name_is_scheduled(running: str) -> None:
    record = json.loads(_explain(running, "default/plain", "--json").stdout)
    assert record["result"] == "Scheduled" and record["profile"] == "kubeberth"


def test_metrics_of_the_running_scheduler(running: str) -> None:
    with urllib.request.urlopen(f"{running}/metrics", timeout=10) as resp:
        families = {f.name: f for f in text_string_to_metric_families(resp.read().decode())}

    def value(family: str, sample: str, **labels: str) -> float:
        return next(
            s.value for s in families[family].samples
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
        )

    attempts = "scheduler_schedule_attempts"
    # vip, fits, plain and the fillers
    assert value(attempts, f"{attempts}_total", result="scheduled", profile="kubeberth") == 3 + FILLERS
    assert value(attempts, f"{attempts}_total", result="unschedulable", profile="kubeberth") >= 2  # vip once, huge
    assert value("scheduler_preemption_victims", "scheduler_preemption_victims_count") == 1
    assert value("scheduler_pending_pods", "scheduler_pending_pods", queue="unschedulable") == 1  # huge
    assert [s.labels["id"] for s in families["kubeberth_generation_info"].samples][0].startswith("g")
    with urllib.request.urlopen(f"{running}/debug/generation", timeout=10) as resp:
        generation = json.loads(resp.read())
    assert [s.labels["id"] for s in families["kubeberth_generation_info"].samples] == [generation["id"]]


def test_cluster_manifest_is_valid(tmp_path: Path) -> None:
    """The builders' objects round-trip through YAML as the manifests `run --embedded` reads."""
    doc = yaml.safe_dump_all([make_node("n1", cpu="2"), make_pod("p", "1")])
    assert [o["kind"] for o in yaml.safe_load_all(doc)] == ["Node", "Pod"]


@pytest.mark.parametrize("signals", [1, 2])
def test_ctrl_c_stops_a_running_scheduler_cleanly(tmp_path: Path, signals: int) -> None:
    """SIGINT (Ctrl-C) is SIGTERM for `run`: a clean shutdown, exit 0, no traceback; a second one
    during the shutdown changes nothing."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([make_node("n1", cpu="2"), make_pod("p", "100m")]))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubeberth", "run", "--embedded", f"--cluster={cluster}",
         f"--healthz-bind-address=127.0.0.1:{port}", "-v", "2", "--pods-per-second=50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        def ready() -> bool:
            assert proc.poll() is None
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
                    return resp.status == 200
            except OSError:
                return False

        _wait(ready, 60, "the scheduler to be ready")
        time.sleep(0.5)  # pods are being created and bound
        for _ in range(signals):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert "received SIGINT: shutting down" in err and "kubeberth stopped" in err
    assert out == ""

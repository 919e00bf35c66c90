"""`kubeberth explain` and /metrics against a running `kubeberth run --embedded` process.

A scheduled, an unschedulable and a preempting pod, each explained by a separate `kubeberth
explain` process through the scheduler's HTTP server; /metrics parsed with prometheus_client's
parser after the same known workload.
"""

from __future__ import annotations

import json
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
        make_pod("fits", "500m", schedulerName="kubeberth"),
        make_pod("huge", "64", schedulerName="kubeberth"),  # never fits
    ]
    cluster = tmp / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(objects))
    port = _free_port()
    log = open(tmp / "kubeberth.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubeberth", "run", "--embedded", f"--cluster={cluster}",
         f"--healthz-bind-address=127.0.0.1:{port}", "--log-level=INFO"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        def bound() -> bool:
            assert proc.poll() is None, (tmp / "kubeberth.log").read_text()[-3000:]
            out = _explain(url, "default/vip", "--json")
            return out.returncode == 0 and json.loads(out.stdout)["result"] == "Scheduled"

        _wait(bound, 60, "vip to be scheduled after preempting low")
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
    assert out.stderr.startswith(f"error: explain: {running}/debug/decisions/default/ghost: 404 no decision recorded for pod default/ghost")
    assert out.stderr.count("\n") == 1


def test_metrics_of_the_running_scheduler(running: str) -> None:
    with urllib.request.urlopen(f"{running}/metrics", timeout=10) as resp:
        families = {f.name: f for f in text_string_to_metric_families(resp.read().decode())}

    def value(family: str, sample: str, **labels: str) -> float:
        return next(
            s.value for s in families[family].samples
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
        )

    attempts = "scheduler_schedule_attempts"
    assert value(attempts, f"{attempts}_total", result="scheduled", profile="kubeberth") == 2  # vip and fits
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

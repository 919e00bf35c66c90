"""`kubeberth simulate` end to end: the real framework, queue and binding path on the embedded cluster."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from kubeberth.apps.simulate import format_summary, generate_cluster, load_manifests, simulate
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod

FIXTURES = Path(__file__).parent / "fixtures"
CLUSTER = FIXTURES / "cluster.yaml"
CLUSTER_LIST = FIXTURES / "cluster-list.yaml"
PENDING = {"default/web-1", "default/web-2", "default/web-3", "prod/api-1"}
OUTCOMES = ("already_bound", "scheduled", "unschedulable", "gated", "errored", "skipped", "preempted", "pending_other")


def run_cli(*args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")}
    proc = subprocess.run(
        [sys.executable, "-m", "kubeberth", "simulate", *args, "--json"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_accounted(summary: dict[str, Any]) -> None:
    """Every input pod ends in exactly one bucket, and none is left pending."""
    assert summary["pods"] == sum(summary[k] for k in OUTCOMES), {k: summary[k] for k in ("pods", *OUTCOMES)}
    assert summary["pending_other"] == 0
    assert sum(summary["unschedulable_reasons"].values()) == summary["unschedulable"]
    assert sum(summary["error_reasons"].values()) == summary["errored"]


def only_reason(reasons: dict[str, int], fit_error: str, count: int = 1) -> None:
    """One unschedulable message: kube-scheduler's FitError text, then any PostFilter note verbatim.

    With DefaultPreemption enabled kube-scheduler appends e.g. ` preemption: 0/3 nodes are
    available: 3 No preemption victims found for incoming pod.`; the filter part must match exactly.
    """
    assert len(reasons) == 1, reasons
    message, n = next(iter(reasons.items()))
    assert n == count
    assert message.startswith(fit_error), message
    rest = message[len(fit_error):]
    assert rest == "" or rest.startswith(" preemption: "), message
    assert not message.endswith(".."), message


# ---- generated clusters ---------------------------------------------------------------------
def test_generated_500_nodes_2000_pods_accounts_for_every_pod() -> None:
    out = run_cli("--nodes", "500", "--pods", "2000", "--seed", "7")
    assert (out["nodes"], out["pods"]) == (500, 2000)
    assert_accounted(out)
    assert out["already_bound"] == 0
    assert out["scheduled"] > 1500  # a roomy cluster: most pods fit
    assert out["pods_per_second"] > 0
    assert out["attempts"] >= out["scheduled"]


def test_same_seed_same_placements() -> None:
    a = run_cli("--nodes", "60", "--pods", "300", "--seed", "11", "--placements")
    b = run_cli("--nodes", "60", "--pods", "300", "--seed", "11", "--placements")
    c = run_cli("--nodes", "60", "--pods", "300", "--seed", "12", "--placements")
    assert len(a["placements"]) == a["scheduled"] > 0
    assert a["placements"] == b["placements"]
    assert {k: a[k] for k in OUTCOMES} == {k: b[k] for k in OUTCOMES}
    assert a["unschedulable_reasons"] == b["unschedulable_reasons"]
    assert a["placements"] != c["placements"]  # the seed drives the cluster and tie-breaking


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_cluster_in_process(seed: int) -> None:
    objects = generate_cluster(40, 200, seed)
    assert sum(o["kind"] == "Node" for o in objects) == 40
    assert sum(o["kind"] == "Pod" for o in objects) == 200
    result = simulate(build_generation(), objects, seed=seed)
    assert_accounted(result.summary)
    # Placements honour capacity: no node is over-committed on cpu or memory.
    util = result.summary["utilization"]
    assert util["cpu"]["max"] <= 1.0 and util["memory"]["max"] <= 1.0
    assert len(result.placements) == result.summary["scheduled"]


def test_generated_cluster_is_deterministic_and_varied() -> None:
    assert generate_cluster(30, 50, 5) == generate_cluster(30, 50, 5)
    assert generate_cluster(30, 50, 5) != generate_cluster(30, 50, 6)
    objects = generate_cluster(60, 400, 1)
    nodes = [o for o in objects if o["kind"] == "Node"]
    pods = [o for o in objects if o["kind"] == "Pod"]
    assert len({n["metadata"]["labels"]["node.kubernetes.io/instance-type"] for n in nodes}) > 1
    assert len({n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes}) == 3
    assert any(n["spec"].get("taints") for n in nodes)
    assert any("nodeSelector" in p["spec"] for p in pods)
    assert any("affinity" in p["spec"] for p in pods)
    assert any("tolerations" in p["spec"] for p in pods)


# ---- manifests ------------------------------------------------------------------------------
def run_manifest(path: Path, **kwargs: Any):  # noqa: ANN201
    return simulate(build_generation(**kwargs), load_manifests(path), seed=0)


@pytest.mark.parametrize("path", [CLUSTER, CLUSTER_LIST], ids=["stream", "kubectl-list"])
def test_manifest_cluster(path: Path) -> None:
    result = run_manifest(path)
    s = result.summary
    assert_accounted(s)
    assert (s["nodes"], s["pods"], s["already_bound"]) == (3, 8, 2)
    assert (s["scheduled"], s["unschedulable"], s["gated"], s["errored"]) == (4, 1, 1, 0)
    # Pods with nodeName stay where they are; the others are placed by the scheduler.
    assert result.placements["default/bound-1"] == "node-b"
    assert result.placements["prod/bound-2"] == "node-c"
    assert set(result.placements) >= PENDING
    assert "default/huge" not in result.placements and "default/gated" not in result.placements
    only_reason(s["unschedulable_reasons"], "0/3 nodes are available: 3 Insufficient cpu.")
    assert result.backend.bind_count == 4  # only the pending pods went through Bind


def test_stream_and_list_are_the_same_cluster() -> None:
    stream = load_manifests(CLUSTER)
    listed = load_manifests(CLUSTER_LIST)
    key = lambda o: (o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"])  # noqa: E731
    assert sorted(map(key, stream)) == sorted(map(key, listed))
    a, b = run_manifest(CLUSTER).summary, run_manifest(CLUSTER_LIST).summary
    for field in (*OUTCOMES, "nodes", "pods", "unschedulable_reasons", "utilization"):
        assert a[field] == b[field], field


def test_already_bound_pods_consume_capacity() -> None:
    objects = [
        make_node("n1", cpu="2", memory="4Gi"),
        make_node("n2", cpu="2", memory="4Gi"),
        make_pod("full", "2", "1Gi", nodeName="n1"),
        make_pod("a", "1", "256Mi"),
        make_pod("b", "1", "256Mi"),
        make_pod("c", "1", "256Mi"),
    ]
    result = simulate(build_generation(), objects, seed=0)
    assert result.placements == {"default/full": "n1", "default/a": "n2", "default/b": "n2"}
    only_reason(result.summary["unschedulable_reasons"], "0/2 nodes are available: 2 Insufficient cpu.")
    assert_accounted(result.summary)


def test_impossible_pod_message() -> None:
    objects = [make_node(f"n{i}", cpu="4", memory="8Gi") for i in range(3)]
    objects.append(make_pod("huge", "5", "1Gi"))
    objects.append(make_pod("fits", "1", "1Gi"))
    s = simulate(build_generation(), objects, seed=0).summary
    only_reason(s["unschedulable_reasons"], "0/3 nodes are available: 3 Insufficient cpu.")
    assert (s["scheduled"], s["unschedulable"]) == (1, 1)
    assert "1 × 0/3 nodes are available: 3 Insufficient cpu." in format_summary(s)


def test_unschedulable_pod_gets_event_and_condition() -> None:
    objects = [make_node("n0", cpu="1"), make_pod("huge", "2")]
    result = simulate(build_generation(), objects, seed=0)
    events = [e for e in result.backend.events if e["reason"] == "FailedScheduling"]
    assert [e["regarding"] for e in events] == ["default/huge"]
    message = events[0]["note"]
    only_reason({message: 1}, "0/1 nodes are available: 1 Insufficient cpu.")
    assert result.summary["unschedulable_reasons"] == {message: 1}
    pod = result.backend.get("Pod", "default/huge")
    cond = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert (cond["status"], cond["reason"], cond["message"]) == ("False", "Unschedulable", message)


def test_gated_pod_is_counted_and_never_attempted() -> None:
    result = run_manifest(CLUSTER)
    assert result.summary["gated"] == 1
    attempted = {r.pod for r in result.scheduler.records}
    assert "default/gated" not in attempted
    assert "default/huge" in attempted
    assert result.backend.get("Pod", "default/gated")["spec"].get("nodeName") is None


def test_no_nodes_at_all() -> None:
    s = simulate(build_generation(), [make_pod("p", "1")], seed=0).summary
    assert s["nodes"] == 0
    assert s["unschedulable_reasons"] == {"0/0 nodes are available: no nodes available to schedule pods.": 1}
    assert_accounted(s)


# ---- plugins changing the outcome -----------------------------------------------------------
def test_dropin_filter_changes_placements() -> None:
    without = run_manifest(CLUSTER)
    with_team = run_manifest(
        CLUSTER, config_path=FIXTURES / "team-a-config.yaml", plugins_dir=FIXTURES / "plugins"
    )
    assert "TeamA" in with_team.summary["plugins"]["filter"]
    placed_without = {without.placements[p] for p in PENDING}
    placed_with = {with_team.placements[p] for p in PENDING}
    assert placed_with == {"node-a"}
    assert placed_without != {"node-a"}  # least-allocated spreads them without the plugin
    # Each node is rejected by the first filter that rejects it: NodeResourcesFit runs before TeamA.
    only_reason(with_team.summary["unschedulable_reasons"], "0/3 nodes are available: 3 Insufficient cpu.")
    assert_accounted(with_team.summary)


def test_dropin_filter_via_cli(tmp_path: Path) -> None:
    out = run_cli(
        "--cluster", str(CLUSTER), "--placements",
        "--config", str(FIXTURES / "team-a-config.yaml"), "--plugins-dir", str(FIXTURES / "plugins"),
    )
    assert {out["placements"][p] for p in PENDING} == {"node-a"}


def test_plugin_raising_in_filter_marks_pods_errored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "boom.py").write_text(textwrap.dedent("""\
        from kubeberth import hookimpl


        class Boom:
            name = "Boom"

            @hookimpl
            def filter(self, pod, nodes):
                if pod.namespace == "prod":
                    raise RuntimeError("kaboom")
                return None
        """))
    (tmp_path / "config.yaml").write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: Boom}]
        """))
    caplog.set_level(logging.ERROR)
    result = run_manifest(CLUSTER, config_path=tmp_path / "config.yaml", plugins_dir=folder)
    s = result.summary
    assert_accounted(s)
    assert s["errored"] == 1  # prod/api-1 (prod/bound-2 is already placed)
    assert s["error_reasons"] == {'running "Boom" filter plugin: plugin Boom raised RuntimeError: kaboom': 1}
    assert "prod/api-1" not in result.placements
    assert s["scheduled"] == 3  # everyone else still scheduled: the run finished
    assert {"default/web-1", "default/web-2", "default/web-3"} <= set(result.placements)
    tracebacks = [r for r in caplog.records if r.exc_info and "Boom" in r.getMessage()]
    assert tracebacks and "kaboom" in str(tracebacks[0].exc_info[1])
    assert "pods that failed with plugin errors:" in format_summary(s)


def test_score_plugin_weight_changes_placements(tmp_path: Path) -> None:
    """A score plugin preferring the last node, weighted high, pulls every pod there."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "prefer_c.py").write_text(textwrap.dedent("""\
        import numpy as np

        from kubeberth import hookimpl


        class PreferC:
            name = "PreferC"

            @hookimpl
            def score(self, nodes):
                return np.array([100 if n == "node-c" else 0 for n in nodes.names])
        """))
    (tmp_path / "config.yaml").write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            score:
              enabled: [{name: PreferC, weight: 50}]
        """))
    result = run_manifest(CLUSTER, config_path=tmp_path / "config.yaml", plugins_dir=folder)
    assert {result.placements[p] for p in PENDING} == {"node-c"}


def test_dropin_filter_reasons_in_the_message() -> None:
    objects = [
        make_node("small-a", cpu="1", labels={"team": "a"}),
        make_node("big-b", cpu="16", labels={"team": "b"}),
        make_node("big-none", cpu="16"),
        make_pod("p", "2"),
    ]
    gen = build_generation(config_path=FIXTURES / "team-a-config.yaml", plugins_dir=FIXTURES / "plugins")
    s = simulate(gen, objects, seed=0).summary
    only_reason(
        s["unschedulable_reasons"], "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) are not for team a."
    )
    assert simulate(build_generation(), objects, seed=0).summary["scheduled"] == 1


def test_plugin_reading_an_extended_resource_no_node_has(tmp_path: Path) -> None:
    """A GPU filter's first read of a resource the cluster has never seen is zeros, not an error."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "gpu_fit.py").write_text(textwrap.dedent("""\
        from kubeberth import FilterResult, hookimpl


        class GpuFit:
            name = "GpuFit"

            @hookimpl
            def filter(self, pod, nodes):
                want = int(pod.labels.get("gpus", "0"))
                free = nodes.allocatable("nvidia.com/gpu") - nodes.requested("nvidia.com/gpu")
                return FilterResult.reject_where(free < want, "Insufficient nvidia.com/gpu")
        """))
    (tmp_path / "config.yaml").write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: GpuFit}]
        """))
    gen = build_generation(config_path=tmp_path / "config.yaml", plugins_dir=folder)
    objects = [make_node("cpu-0"), make_node("cpu-1"), make_pod("plain", "1"),
               make_pod("wants-gpu", "1", labels={"gpus": "1"})]
    result = simulate(gen, objects, seed=0)
    s = result.summary
    assert [r.result for r in result.scheduler.records if r.pod == "default/plain"] == ["Scheduled"]
    assert (s["scheduled"], s["unschedulable"], s["errored"]) == (1, 1, 0), s
    assert not any(r.error_plugin for r in result.scheduler.records)

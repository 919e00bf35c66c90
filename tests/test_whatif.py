"""`kubeberth simulate` as a what-if tool: faithful to what a real cluster does (other schedulers'
pods, graceful termination of victims, priority classes, missing objects) and output a user can act
on (victims, unschedulable pods, placements, explain for every kind of pod, --compare)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kubeberth.apps.dump import DUMP_COMMAND, check_references
from kubeberth.apps.simulate import load_manifests, pod_story, simulate
from kubeberth.apps.whatif import compare
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod

FIXTURES = Path(__file__).parent / "fixtures"
WHATIF = FIXTURES / "whatif-cluster.yaml"
MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")}
    return subprocess.run([sys.executable, "-m", "kubeberth", "simulate", *args], capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.fixture(scope="module")
def whatif() -> Any:
    return simulate(build_generation(), load_manifests(WHATIF), seed=0, keep_history=True)


# ---- faithful to a real cluster -------------------------------------------------------------
def test_pods_for_other_schedulers_stay_pending(whatif: Any) -> None:
    s = whatif.summary
    assert s["pending_other"] == 1
    assert s["pending_other_pods"] == [{"pod": "default/custom", "scheduler_name": "my-custom-scheduler"}]
    assert "default/custom" not in whatif.placements
    assert s["scheduler_names"] == ["default-scheduler", "kubeberth"]
    # Every pod is in exactly one bucket.
    buckets = ("already_bound", "scheduled", "unschedulable", "gated", "errored", "preempted", "pending_other")
    assert sum(s[k] for k in buckets) == s["pods"] == 7, {k: s[k] for k in buckets}


def test_scheduler_names_choose_what_is_simulated() -> None:
    objects = [make_node("n", cpu="4"), make_pod("mine", "1", schedulerName="team-a"),
               make_pod("theirs", "1", schedulerName="team-b"), make_pod("default", "1")]
    r = simulate(build_generation(), objects, scheduler_names=["team-a"])
    assert set(r.placements) == {"default/mine"}
    assert [o["pod"] for o in r.summary["pending_other_pods"]] == ["default/default", "default/theirs"]
    r = simulate(build_generation(), objects, scheduler_names=["team-a", "team-b", "default-scheduler"])
    assert set(r.placements) == {"default/mine", "default/theirs", "default/default"}


def test_victims_terminate_gracefully_and_keep_their_node_busy(whatif: Any) -> None:
    # vip (priority 1000 from its PriorityClass) preempts low1 on n1. While low1 terminates, n1
    # holds low1 and vip's nomination, so `small` goes to n2, as kube-scheduler would put it.
    assert whatif.summary["victims"] == [{"pod": "default/low1", "preemptor": "default/vip", "node": "n1"}]
    assert whatif.placements["default/vip"] == "n1"
    assert whatif.placements["default/small"] == "n2"
    assert whatif.summary["preempted"] == 1
    assert "default/low1" not in {f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in whatif.backend.pods()}
    assert whatif.scheduler.clock.now() >= 30  # removal waited the default grace period on the virtual clock
    assert whatif.inputs["default/vip"]["spec"]["priority"] == 1000  # as admitted, for explain and the report


def test_embedded_graceful_deletion_on_its_clock() -> None:
    now = [100.0]
    pod = make_pod("victim", "1", nodeName="n", terminationGracePeriodSeconds=10)
    cluster = EmbeddedCluster([make_node("n"), pod], clock=lambda: now[0])
    events: list[Any] = []
    cluster.start(events.append)
    info = PodInfo.from_dict(cluster.get("Pod", "default/victim"))
    cluster.patch_pod_condition(info, {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                                       "message": "kubeberth: preempting to accommodate a higher priority pod"})
    assert cluster.delete_pod(info, "preempted").ok
    live = cluster.get("Pod", "default/victim")
    assert live["metadata"]["deletionGracePeriodSeconds"] == 10
    assert live["metadata"]["deletionTimestamp"].endswith("Z")
    assert [c["type"] for c in live["status"]["conditions"]] == ["DisruptionTarget"]
    assert cluster.next_timer() == 110.0
    assert cluster.fire_timers(109.9) == 0 and cluster.get("Pod", "default/victim") is not None
    assert cluster.fire_timers(110.0) == 1 and cluster.get("Pod", "default/victim") is None
    assert events[-1].type == "DELETED"
    # A pod that is not bound (or has no grace period) goes at once, as the API server does it.
    unbound = cluster.apply(make_pod("pending", "1"))
    assert cluster.delete_pod(PodInfo.from_dict(unbound), "x").ok and cluster.get("Pod", "default/pending") is None


def test_priority_class_name_is_resolved_like_admission() -> None:
    pcs = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000,
            "preemptionPolicy": "Never"},
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "normal"}, "value": 7,
            "globalDefault": True}]
    pods = [make_pod("a", priorityClassName="high"), make_pod("b"), make_pod("c", priority=3, priorityClassName="high"),
            make_pod("d", priorityClassName="system-node-critical")]
    cluster = EmbeddedCluster([*pods, *pcs])  # classes after pods in the file: still resolved
    spec = {k: cluster.get("Pod", f"default/{k}")["spec"] for k in "abcd"}
    assert (spec["a"]["priority"], spec["a"]["preemptionPolicy"]) == (1000, "Never")
    assert (spec["b"]["priority"], spec["b"]["priorityClassName"]) == (7, "normal")
    assert spec["c"]["priority"] == 3  # spec.priority given: kept
    assert spec["d"]["priority"] == 2000001000


def test_missing_objects_are_named_once(caplog: pytest.LogCaptureFixture) -> None:
    objects = [make_node("n"), make_pod("p1", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]),
               make_pod("p2", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]),
               make_pod("p3", priorityClassName="gold"),
               {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "fast", "namespace": "default"},
                "spec": {"storageClassName": "ssd"}},
               make_pod("p4", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "fast"}}])]
    assert check_references(objects) == {
        "PersistentVolumeClaim": ["default/data"], "PriorityClass": ["gold"], "StorageClass": ["ssd"],
    }
    with caplog.at_level(logging.WARNING, logger="kubeberth.simulate"):
        simulate(build_generation(), objects)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == "kubeberth.simulate"]
    assert len(warnings) == 1, warnings
    assert "1 PersistentVolumeClaim (default/data)" in warnings[0] and DUMP_COMMAND in warnings[0]
    assert check_references(load_manifests(FIXTURES / "cluster.yaml")) == {}


def test_dump_command_in_the_readme() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert DUMP_COMMAND in readme


# ---- output a user can act on ---------------------------------------------------------------
def test_json_names_victims_and_unschedulable_pods() -> None:
    proc = cli("--cluster", str(WHATIF), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["victims"] == [{"pod": "default/low1", "preemptor": "default/vip", "node": "n1"}]
    assert [u["pod"] for u in out["unschedulable_pods"]] == ["default/vol"]
    assert out["unschedulable_pods"][0]["message"].startswith(
        '0/2 nodes are available: persistentvolumeclaim "data" not found.')
    assert out["gated_pods"] == [{"pod": "default/gated", "gates": ["wait"], "plugin": "SchedulingGates",
                                  "message": "waiting for scheduling gates: [wait]"}]
    assert "persistentvolumeclaim" in proc.stderr.lower() and len(proc.stderr.splitlines()) == 1


def test_human_output_names_victims_and_placements_without_json() -> None:
    proc = cli("--cluster", str(WHATIF), "--placements")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "    default/low1 ← default/vip on n1" in lines
    assert any(line.startswith("  pending for other schedulers") and "1 my-custom-scheduler" in line for line in lines)
    table = lines[lines.index(next(line for line in lines if line.startswith("POD "))):]
    assert [line.split() for line in table] == [["POD", "NODE"], ["default/low2", "n2"], ["default/small", "n2"],
                                                 ["default/vip", "n1"]]


@pytest.mark.parametrize(("pod", "state", "says"), [
    ("default/gated", "gated", "schedulingGates wait: never attempted"),
    ("default/low1", "preempted", "preempted by default/vip on node n1"),
    ("default/custom", "other-scheduler", "schedulerName 'my-custom-scheduler' is not simulated"),
    ("default/low2", "already-bound", "bound to node n2 in the input"),
    ("default/vol", "unschedulable", 'persistentvolumeclaim "data" not found'),
])
def test_explain_says_what_kind_of_pod_it_is(whatif: Any, pod: str, state: str, says: str) -> None:
    story = pod_story(whatif, pod)
    assert story["state"] == state
    assert says in story["detail"]


def test_explain_a_preemptor_shows_the_preemption_and_every_cycle() -> None:
    proc = cli("--cluster", str(WHATIF), "--explain", "default/vip")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.splitlines()[0] == "Pod default/vip: Scheduled"
    assert "Cycles (2):" in out
    assert "    1. attempt 1: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu." in out
    assert "[preempted default/low1 on n1]" in out
    assert "    2. attempt 2: Scheduled on n1" in out
    assert "Preemption (DefaultPreemption): 2 candidate node(s), nominated n1, 1 victim(s): default/low1" in out
    proc = cli("--cluster", str(WHATIF), "--explain", "default/vip", "--json")
    record = json.loads(proc.stdout)
    assert (record["state"], record["result"], record["node"]) == ("scheduled", "Scheduled", "n1")
    assert [c["result"] for c in record["cycles"]] == ["Unschedulable", "Scheduled"]
    assert record["cycles"][0]["preemption"]["victims"] == ["default/low1"]


def test_explain_a_pod_that_does_not_exist() -> None:
    proc = cli("--cluster", str(WHATIF), "--explain", "default/vipp")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        "error: --explain: pod 'default/vipp' does not exist in the simulated cluster; did you mean default/vip?")


# ---- --compare ------------------------------------------------------------------------------
def test_compare_two_configurations(tmp_path: Path) -> None:
    config = tmp_path / "b.yaml"
    config.write_text(MOST_ALLOCATED)
    args = ("--nodes", "30", "--pods", "150", "--seed", "4", "--compare", str(config), "--json")
    first, again = cli(*args), cli(*args)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)

    def without_timings(run: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in run.items() if k not in ("seconds", "pods_per_second", "cpu_seconds")}

    second = json.loads(again.stdout)
    assert second["comparison"] == out["comparison"]  # same seed: the same answer
    assert without_timings(second["before"]) == without_timings(out["before"])
    assert without_timings(second["after"]) == without_timings(out["after"])
    diff = out["comparison"]
    assert diff["moved"], "packing moves pods"
    # Packing (MostAllocated) uses fewer nodes and spreads utilisation wider than the default.
    assert diff["metrics"]["after"]["nodes_used"] < diff["metrics"]["before"]["nodes_used"]
    assert diff["metrics"]["after"]["cpu_stdev"] > diff["metrics"]["before"]["cpu_stdev"]
    assert set(diff["per_zone"]) == {"zone-a", "zone-b", "zone-c"}
    assert len(diff["per_node"]) == 30
    human = cli(*args[:-1])
    assert f"pods on another node: {len(diff['moved'])}" in human.stdout
    assert "per zone (cpu, memory, pods requested/allocatable):" in human.stdout
    assert "  per node, largest changes first (" in human.stdout


def test_compare_finds_newly_unschedulable_and_newly_placed(tmp_path: Path) -> None:
    strict = tmp_path / "strict.py"
    strict.write_text(
        "from kubeberth import FilterResult, hookimpl\n"
        "class NoBig:\n"
        "    name = 'NoBig'\n"
        "    @hookimpl\n"
        "    def filter(self, pod, nodes):\n"
        "        import numpy as np\n"
        "        if pod.labels.get('size') == 'big':\n"
        "            return FilterResult.reject_where(np.ones(len(nodes.rows), bool), 'no big pods here')\n"
    )
    config = tmp_path / "b.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- schedulerName: kubeberth\n  plugins:\n    multiPoint:\n      enabled: [{name: NoBig}]\n")
    objects = [make_node("n1", cpu="4"), make_pod("big", "1", labels={"size": "big"}), make_pod("small", "1")]
    a = simulate(build_generation(), objects)
    b = simulate(build_generation(config, tmp_path), objects)
    diff = compare(a, b)
    assert [m["pod"] for m in diff["newly_unschedulable"]] == ["default/big"]
    assert diff["newly_unschedulable"][0]["message"].startswith("0/1 nodes are available: 1 no big pods here.")
    assert compare(b, a)["newly_placed"] == [{"pod": "default/big", "after": "n1",
                                              "message": diff["newly_unschedulable"][0]["message"]}]

"""DefaultPreemption: victim selection, node choice, PDBs, eligibility, messages, state restore."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from kubeberth import (
    Code,
    CycleState,
    Diagnosis,
    FilterScope,
    PermitResult,
    PostFilterResult,
    Status,
    hookimpl,
)
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.default_preemption import (
    PDB,
    Candidate,
    DefaultPreemption,
    filter_pods_with_pdb_violation,
    pick_one_node_for_preemption,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import make_node, make_pod

PLUGINS = ["PrioritySort", "NodeResourcesFit", "VolumeRestrictions", "VolumeBinding", "DefaultPreemption", "DefaultBinder"]


def framework(args: dict[str, Any] | None = None, plugins: list[str] = PLUGINS):
    profile: dict[str, Any] = {
        "schedulerName": "kubeberth",
        "plugins": {"multiPoint": {"enabled": [{"name": n} for n in plugins], "disabled": [{"name": "*"}]}},
    }
    if args:
        profile["pluginConfig"] = [{"name": "DefaultPreemption", "args": args}]
    config = parse_configuration({"profiles": [profile]})
    return build_generation(config=config).default_profile


class FakeHandle(FrameworkHandle):
    """The runtime's Handle over a real framework and cache, recording preemption's writes."""

    def __init__(self, fw: Any, cluster: ClusterState) -> None:
        super().__init__(fw, EmbeddedCluster(), cluster, lambda: 0.0, {})
        self.nominations: list[tuple[str, str | None]] = []
        self.deleted: list[str] = []

    def nominate(self, pod: PodInfo, node_name: str | None) -> None:
        self.cluster.nominate(pod, node_name)
        self.nominations.append((pod.name, node_name))

    def delete_victim(
        self, victim: PodInfo, preemptor: PodInfo, node_name: str = "", *, pod_group: dict[str, Any] | None = None
    ) -> Status:
        self.deleted.append(victim.name)
        return Status.success()


def pod(name: str, cpu: str, priority: int = 0, node: str = "", start: str | None = None, **kw: Any) -> PodInfo:
    spec: dict[str, Any] = {"priority": priority}
    if node:
        spec["nodeName"] = node
    spec.update(kw.pop("spec", {}))
    raw = make_pod(name, cpu, uid=name, labels=kw.pop("labels", None), **spec)
    if node:
        raw["status"] = {"phase": "Running"}
    if start:
        raw["status"]["startTime"] = start
    return PodInfo.from_dict(raw)


def setup(nodes: list[dict[str, Any]], pods: list[PodInfo], objects: list[tuple[str, dict[str, Any]]] = ()) -> ClusterState:
    cluster = ClusterState()
    for n in nodes:
        cluster.upsert_node(n)
    for kind, obj in objects:
        cluster.upsert_object(kind, obj)
    for p in pods:
        cluster.upsert_pod(p)
    return cluster


def attempt(
    cluster: ClusterState,
    preemptor: PodInfo,
    plugin: DefaultPreemption | None = None,
    args: dict[str, Any] | None = None,
    plugins: list[str] = PLUGINS,
):
    """Run a scheduling attempt's filters (building the Diagnosis) and then post_filter."""
    fw = framework(args, plugins)
    plugin = plugin or fw.plugins["DefaultPreemption"]
    handle = FakeHandle(fw, cluster)
    table = cluster.table
    rows = table.ordered_rows()
    state = CycleState()
    diagnosis = Diagnosis(num_all_nodes=len(rows))
    status, _ = fw.run_pre_filter(state, preemptor, table.view(rows), cluster, handle, None)
    if not status.ok:
        diagnosis.add(status.plugin, status.message, rows, status.code)
    else:
        feasible = fw.run_filters(state, preemptor, table.view(rows), cluster, handle, diagnosis)
        assert not feasible.any(), "test setup: the pod must not fit anywhere"
    result = plugin.post_filter(state, preemptor, cluster, handle, diagnosis)
    return result, handle


def snapshot(cluster: ClusterState) -> Any:
    table = cluster.table
    return (
        table.requested.copy(),
        {row: list(pods) for row, pods in cluster.pods_on.items()},
        dict(cluster.placement),
        [c.copy() for c in cluster.label_counts.counts],
    )


def assert_same(a: Any, b: Any) -> None:
    assert np.array_equal(a[0], b[0])
    assert a[1] == b[1] and a[2] == b[2]
    assert all(np.array_equal(x, y) for x, y in zip(a[3], b[3], strict=True))


# ---- end to end through the plugin ----------------------------------------------------------
def test_preempts_lower_priority_pod_and_nominates() -> None:
    cluster = setup([make_node("n1", cpu="4")], [pod("low", "3", 0, "n1")])
    before = snapshot(cluster)
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert isinstance(result, PostFilterResult) and result.nominated_node == "n1"
    assert handle.deleted == ["low"]
    assert handle.nominations == [("high", "n1")]
    assert cluster.nominated["n1"]["high"].name == "high"
    assert_same(before, snapshot(cluster))  # the dry run left the cache exactly as it was


def test_reprieves_most_important_victims_first() -> None:
    pods = [pod("p1", "1", 1, "n1"), pod("p2", "1", 2, "n1"), pod("p3", "2", 3, "n1")]
    cluster = setup([make_node("n1", cpu="4")], pods)
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert result.nominated_node == "n1"
    assert sorted(handle.deleted) == ["p1", "p2"]  # p3 (highest) reprieved; then neither p2 nor p1 fit


def test_equal_or_higher_priority_pods_are_never_victims() -> None:
    cluster = setup([make_node("n1", cpu="4"), make_node("n2", cpu="4")], [pod("a", "3", 10, "n1"), pod("b", "3", 20, "n2")])
    result, handle = attempt(cluster, pod("high", "2", 10))
    # kube-scheduler's result for "preemption cannot help": no node, and clear any nomination
    assert isinstance(result, PostFilterResult) and result.nominated_node == ""
    assert result.status.code == Code.UNSCHEDULABLE
    assert result.status.reasons == ("preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",)
    assert handle.deleted == [] and handle.nominations == []


def test_message_mixes_not_helpful_and_filter_reasons() -> None:
    pv = {
        "metadata": {"name": "pv"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["mixed", "full"]}
            ]}]}},
        },
    }
    pvc = {
        "metadata": {"name": "c", "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
        "spec": {"volumeName": "pv"},
    }
    nodes = [make_node("mixed", cpu="4"), make_node("full", cpu="4"), make_node("far1", cpu="8"), make_node("far2", cpu="8")]
    # mixed: even without its low-priority pod, the high-priority one leaves too little cpu.
    pods = [pod("lowm", "1", 0, "mixed"), pod("vipm", "2500m", 100, "mixed"), pod("vip", "4", 100, "full")]
    cluster = setup(nodes, pods, [("PersistentVolume", pv), ("PersistentVolumeClaim", pvc)])
    preemptor = pod("high", "2", 10, spec={"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]})
    result, handle = attempt(cluster, preemptor)
    assert isinstance(result, PostFilterResult) and result.nominated_node == ""
    assert result.status.reasons == (
        "preemption: 0/4 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.",
    )


def test_preemption_policy_never() -> None:
    cluster = setup([make_node("n1", cpu="4")], [pod("low", "3", 0, "n1")])
    result, handle = attempt(cluster, pod("high", "2", 10, spec={"preemptionPolicy": "Never"}))
    assert result.reasons == ("preemption: not eligible due to preemptionPolicy=Never.",)
    assert handle.deleted == []


def test_not_eligible_while_victims_on_nominated_node_terminate() -> None:
    low = make_pod("low", "3", uid="low", nodeName="n1", priority=0)
    low["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    low["status"] = {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}
    ]}
    cluster = setup([make_node("n1", cpu="4")], [PodInfo.from_dict(low)])
    high = make_pod("high", "2", uid="high", priority=10)
    high["status"]["nominatedNodeName"] = "n1"
    result, handle = attempt(cluster, PodInfo.from_dict(high))
    assert result.reasons == ("preemption: not eligible due to a terminating pod on the nominated node.",)


def test_terminating_pod_not_deleted_by_preemption_does_not_block() -> None:
    low = make_pod("low", "3", uid="low", nodeName="n1", priority=0)
    low["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    cluster = setup([make_node("n1", cpu="4")], [PodInfo.from_dict(low)])
    high = make_pod("high", "2", uid="high", priority=10)
    high["status"]["nominatedNodeName"] = "n1"
    result, handle = attempt(cluster, PodInfo.from_dict(high))
    assert isinstance(result, PostFilterResult) and result.nominated_node == "n1"
    assert handle.deleted == []  # already terminating: no second delete


def test_prefers_node_without_pdb_violation() -> None:
    pdb = {
        "metadata": {"name": "pdb", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}},
        "status": {"disruptionsAllowed": 0},
    }
    cluster = setup(
        [make_node("n1", cpu="4"), make_node("n2", cpu="4")],
        [pod("db", "3", 0, "n1", labels={"app": "db"}), pod("web", "3", 5, "n2", labels={"app": "web"})],
        [("PodDisruptionBudget", pdb)],
    )
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert result.nominated_node == "n2"  # higher-priority victim, but no PDB violation
    assert handle.deleted == ["web"]


def test_pdb_violating_victims_are_reprieved_first() -> None:
    pdb = {
        "metadata": {"name": "pdb", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}},
        "status": {"disruptionsAllowed": 0},
    }
    pods = [pod("protected", "1", 1, "n1", labels={"app": "db"}), pod("other", "1", 2, "n1", labels={"app": "x"})]
    nodes = [make_node("n1", cpu="3")]
    result, handle = attempt(setup(nodes, pods, [("PodDisruptionBudget", pdb)]), pod("high", "2", 10))
    assert handle.deleted == ["other"]
    result, handle = attempt(setup(nodes, [pod("protected", "1", 1, "n1"), pod("other", "1", 2, "n1")]), pod("high", "2", 10))
    assert handle.deleted == ["protected"]  # without the PDB the higher-priority pod is reprieved first


def test_picks_node_with_lowest_priority_victims() -> None:
    cluster = setup(
        [make_node("n1", cpu="4"), make_node("n2", cpu="4"), make_node("n3", cpu="4")],
        [pod("a", "3", 5, "n1"), pod("b", "3", 1, "n2"), pod("c", "3", 3, "n3")],
    )
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert result.nominated_node == "n2" and handle.deleted == ["b"]


def test_clears_lower_priority_nominations_on_chosen_node() -> None:
    cluster = setup([make_node("n1", cpu="4")], [pod("low", "3", 0, "n1")])
    waiting = pod("mid", "1", 5)
    cluster.nominate(waiting, "n1")
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert result.nominated_node == "n1"
    assert ("mid", None) in handle.nominations
    assert "mid" not in cluster.nominated.get("n1", {})


def test_nominated_higher_priority_pods_count_on_their_node() -> None:
    cluster = setup([make_node("n1", cpu="4"), make_node("n2", cpu="4")], [pod("low1", "3", 0, "n1"), pod("low2", "3", 0, "n2")])
    cluster.nominate(pod("vip", "3", 50), "n1")  # n1's room is promised to a higher-priority pod
    before = snapshot(cluster)
    result, handle = attempt(cluster, pod("high", "2", 10))
    assert result.nominated_node == "n2" and handle.deleted == ["low2"]
    assert_same(before, snapshot(cluster))


def test_read_write_once_pod_conflict_is_resolved_by_preempting_its_user() -> None:
    claim = {"metadata": {"name": "db", "namespace": "default"}, "spec": {"accessModes": ["ReadWriteOncePod"]}}
    vol = {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "db"}}]}
    cluster = setup(
        [make_node("n1", cpu="4"), make_node("n2", cpu="4")],
        [pod("user", "1", 0, "n2", spec=vol), pod("other", "1", 0, "n1")],
        [("PersistentVolumeClaim", claim)],
    )
    # The claim is bound-less here: VolumeBinding would reject it, so give it a bound PV.
    claim["spec"]["volumeName"] = "pv"
    claim["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    cluster.upsert_object("PersistentVolume", {"metadata": {"name": "pv"}, "spec": {}})
    result, handle = attempt(cluster, pod("high", "1", 10, spec=vol))
    assert result.nominated_node == "n2" and handle.deleted == ["user"]


def test_dry_run_stops_after_enough_candidates_from_offset() -> None:
    nodes = [make_node(f"n{i}", cpu="4") for i in range(6)]
    pods = [pod(f"low{i}", "3", 0, f"n{i}") for i in range(6)]
    fw = framework({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1})
    plugin = fw.plugins["DefaultPreemption"]
    plugin.offset_rand = lambda n: 4
    cluster = setup(nodes, pods)
    order = [cluster.table.names[r] for r in cluster.table.ordered_rows().tolist()]
    result, handle = attempt(cluster, pod("high", "2", 10), plugin=plugin)
    assert result.nominated_node == order[4]


WITH_POD_AFFINITY = [*PLUGINS, "InterPodAffinity", "PodTopologySpread"]
HOST = "kubernetes.io/hostname"


def test_anti_affinity_to_a_victim_is_resolved_by_preempting_it() -> None:
    # Node-by-node path: InterPodAffinity must see the victim gone (kube-scheduler's RemovePod).
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOST}]}}
    nodes = [make_node("n1", cpu="4", labels={HOST: "n1"}), make_node("n2", cpu="4", labels={HOST: "n2"})]
    pods = [pod("db", "1", 0, "n1", labels={"app": "db"}), pod("vip", "4", 100, "n2")]
    cluster = setup(nodes, pods)
    before = snapshot(cluster)
    result, handle = attempt(cluster, pod("high", "1", 10, spec={"affinity": anti}), plugins=WITH_POD_AFFINITY)
    assert isinstance(result, PostFilterResult) and result.nominated_node == "n1"
    assert handle.deleted == ["db"]
    assert_same(before, snapshot(cluster))


def test_topology_spread_sees_victims_gone_and_back() -> None:
    # z1 holds two matching low-priority pods, z2 none: the pod (also matching) fits z1 only once
    # skew allows it; reprieve must count re-added victims again.
    zone = "topology.kubernetes.io/zone"
    nodes = [make_node("a", cpu="2", labels={zone: "z1"}), make_node("b", cpu="1", labels={zone: "z2"})]
    pods = [pod("w1", "1", 0, "a", labels={"app": "w"}), pod("w2", "1", 0, "a", labels={"app": "w"}),
            pod("big", "1", 50, "b")]
    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "DoNotSchedule",
                                             "labelSelector": {"matchLabels": {"app": "w"}}}]}
    cluster = setup(nodes, pods)
    result, handle = attempt(cluster, pod("high", "1", 10, labels={"app": "w"}, spec=spread), plugins=WITH_POD_AFFINITY)
    assert isinstance(result, PostFilterResult) and result.nominated_node == "a"
    assert sorted(handle.deleted) == ["w1", "w2"]  # with one w back, z1 would have 2 vs z2 0: skew 2 > 1


@pytest.mark.parametrize("seed", range(6))
def test_batch_and_node_by_node_paths_agree(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    def build() -> tuple[ClusterState, PodInfo]:
        rng = random.Random(seed)
        nodes, pods = [], []
        for i in range(40):  # every node full: its cpu is used up by 500m / 1000m pods
            cores = rng.choice([2, 4])
            nodes.append(make_node(f"n{i}", cpu=str(cores), pods=rng.choice([4, 110])))
            left, j = cores * 1000, 0
            while left:
                size = rng.choice([500, 1000]) if left >= 1000 else 500
                left -= size
                j += 1
                pods.append(pod(f"p{i}-{j}", f"{size}m", rng.randint(0, 6), f"n{i}",
                                start=f"2024-01-01T00:{rng.randint(0, 59):02d}:00Z", labels={"app": rng.choice("ab")}))
        pdb = {"metadata": {"name": "pdb", "namespace": "default"}, "spec": {"selector": {"matchLabels": {"app": "a"}}},
               "status": {"disruptionsAllowed": 1}}
        cluster = setup(nodes, pods, [("PodDisruptionBudget", pdb)])
        cluster.nominate(pod("nom", "1", 9), "n3")
        return cluster, pod("high", rng.choice(["1", "2", "3"]), 5)

    outcomes = []
    for node_by_node in (False, True):  # batch, then forced node by node
        cluster, preemptor = build()
        fw = framework({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 7})
        if node_by_node:  # as if every filter could read any pod: no batch evaluation
            fw.capabilities.update({n: replace(c, filter_scope=FilterScope.CLUSTER) for n, c in fw.capabilities.items()})
        plugin = fw.plugins["DefaultPreemption"]
        plugin.offset_rand = lambda n: n // 3
        before = snapshot(cluster)
        result, handle = attempt(cluster, preemptor, plugin=plugin)
        assert_same(before, snapshot(cluster))
        outcomes.append((getattr(result, "nominated_node", None), handle.deleted, getattr(result, "reasons", None)))
    assert outcomes[0] == outcomes[1]


# ---- pure logic -------------------------------------------------------------------------------
def victims(*prios: int, start: str | None = None) -> list[PodInfo]:
    return [pod(f"v{i}-{p}", "1", p, "n", start=start) for i, p in enumerate(prios)]


@pytest.mark.parametrize(
    ("candidates", "expected"),
    [
        ([Candidate("a", victims(1), 1), Candidate("b", victims(5), 0)], "b"),  # fewest PDB violations
        ([Candidate("a", victims(5, 1), 0), Candidate("b", victims(4, 4), 0)], "b"),  # lowest highest priority
        ([Candidate("a", victims(4, 3), 0), Candidate("b", victims(4, 1), 0)], "b"),  # smallest priority sum
        ([Candidate("a", victims(4, 1, 1), 0), Candidate("b", victims(4, 2), 0)], "b"),  # shifted sum: 3 victims cost more
        ([Candidate("a", victims(-5, -5), 0), Candidate("b", victims(-5), 0)], "b"),  # negative prios: shifted sum
        ([Candidate("a", victims(5, -(2**31)), 0), Candidate("b", victims(5), 0)], "b"),  # equal shifted sums: fewer victims
        (
            [
                Candidate("a", victims(3, start="2024-01-01T00:00:00Z"), 0),
                Candidate("b", victims(3, start="2024-06-01T00:00:00Z"), 0),
            ],
            "b",
        ),  # latest start time of the highest-priority victims
        ([Candidate("a", victims(3), 0), Candidate("b", victims(3), 0)], "a"),  # full tie: first
    ],
)
def test_pick_one_node_for_preemption(candidates: list[Candidate], expected: str) -> None:
    assert pick_one_node_for_preemption(candidates).node == expected


def test_pick_one_node_empty() -> None:
    assert pick_one_node_for_preemption([]) is None


def make_pdb(selector: dict[str, Any] | None, allowed: int, namespace: str = "default", disrupted: tuple[str, ...] = ()) -> PDB:
    return PDB.from_dict({
        "metadata": {"name": "x", "namespace": namespace},
        "spec": {"selector": selector} if selector is not None else {},
        "status": {"disruptionsAllowed": allowed, "disruptedPods": {n: "t" for n in disrupted}},
    })


@pytest.mark.parametrize(
    ("pdbs", "violating"),
    [
        ([make_pdb({"matchLabels": {"app": "a"}}, 1)], ["p2"]),  # budget of one: the second eviction violates
        ([make_pdb({"matchLabels": {"app": "a"}}, 2)], []),
        ([make_pdb({"matchLabels": {"app": "a"}}, 0, namespace="other")], []),
        ([make_pdb({}, 0)], []),  # empty selector matches nothing
        ([make_pdb(None, 0)], []),
        ([make_pdb({"matchLabels": {"app": "a"}}, 0, disrupted=("p1",))], ["p2"]),  # already disrupted: not counted
        ([make_pdb({"matchExpressions": [{"key": "app", "operator": "Exists"}]}, 0)], ["p1", "p2"]),
    ],
)
def test_filter_pods_with_pdb_violation(pdbs: list[PDB], violating: list[str]) -> None:
    pods = [pod("p1", "1", 0, "n", labels={"app": "a"}), pod("p2", "1", 0, "n", labels={"app": "a"}), pod("bare", "1", 0, "n")]
    got_v, got_ok = filter_pods_with_pdb_violation(pods, pdbs)
    assert [p.name for p in got_v] == violating
    assert [p.name for p in got_ok] == [p.name for p in pods if p.name not in violating]


@pytest.mark.parametrize(
    ("nodes", "pct", "absolute", "expected"),
    [(10, 10, 100, 10), (1000, 10, 100, 100), (1000, 40, 100, 400), (1000, 0, 50, 50), (10, 0, 5, 5), (5000, 10, 100, 500)],
)
def test_calculate_num_candidates(nodes: int, pct: int, absolute: int, expected: int) -> None:
    plugin = DefaultPreemption(DefaultPreemption.Args(minCandidateNodesPercentage=pct, minCandidateNodesAbsolute=absolute))
    assert plugin.calculate_num_candidates(nodes) == expected


def test_args_validation() -> None:
    assert DefaultPreemption.Args().minCandidateNodesPercentage == 10
    assert DefaultPreemption.Args().minCandidateNodesAbsolute == 100
    for bad in ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}, {"minCandidateNodesPercentage": 101}):
        with pytest.raises(ValueError):
            DefaultPreemption.Args.model_validate(bad)


# ---- async preemption through the scheduler ---------------------------------------------------
def test_async_preemption_holds_the_preemptor_until_its_victims_are_preempted() -> None:
    import threading

    from kubeberth.builtin_plugins.default_preemption.plugin import preempt_pod
    from kubeberth.testing import SchedulerTester

    release = threading.Event()
    with SchedulerTester(["NodeResourcesFit", "DefaultPreemption"],
                         objects=[make_node("n1", cpu="2"), make_pod("low", cpu="2", nodeName="n1", priority=1)]) as t:
        plugin = t.plugin("DefaultPreemption")
        assert plugin.async_preemption  # SchedulerAsyncPreemption is on by default (beta in v1.37)

        def blocked(victim: PodInfo, preemptor: PodInfo, node: str, handle: Any) -> Any:
            assert release.wait(timeout=30)
            return preempt_pod(victim, preemptor, node, handle)

        plugin.preempt_pod = blocked
        t.add(make_pod("vip", cpu="2", priority=100))
        assert t.step()  # the vip's cycle: nominated to n1, its victim's preemption started
        entry = next(e for e in t.scheduler.queue.entries.values() if e.pod.name == "vip")
        assert t.pod("default/vip")["status"]["nominatedNodeName"] == "n1"
        assert t.scheduler.in_flight == 1 and t.node_of("default/low") == "n1"
        # A move request now sends the pod to backoffQ only through PreEnqueue, which holds it.
        t.scheduler.queue.move_for_event("Node/Update", lambda *a: True)
        assert (entry.where, entry.gating_plugin) == ("gated", "DefaultPreemption")
        assert entry.last_message == "waiting for the preemption for this pod to be finished"
        release.set()
        t.settle()
        assert t.node_of("default/vip") == "n1"


class _HoldLow:
    """Holds the pod named low at Permit."""

    name = "HoldLow"

    @hookimpl
    def permit(self, pod: Any) -> PermitResult | None:
        return PermitResult.wait(600) if pod.name == "low" else None


def test_a_victim_preempted_at_permit_by_an_earlier_attempt_is_not_deleted() -> None:
    """A preemptor's retry may choose again the victim its earlier attempt preempted at Permit, while that victim's
    binding cycle has not reported back; when the retry's preemption runs after the report, the victim is back in
    the queue: it is preempted again in memory, never deleted (kube-scheduler deletes only a pod not held at Permit)."""
    import threading
    import time

    from kubeberth.builtin_plugins.default_preemption.plugin import preempt_pod
    from kubeberth.testing import SchedulerTester

    release = threading.Event()
    with SchedulerTester([_HoldLow, "NodeResourcesFit", "DefaultPreemption"],
                         objects=[make_node("n1", cpu="2"), make_pod("low", cpu="2", priority=1)]) as t:
        plugin = t.plugin("DefaultPreemption")
        assert t.step() and [w.pod.name for w in t.scheduler.waiting_pods.values()] == ["low"]
        held = next(iter(t.scheduler.waiting_pods.values()))

        def blocked(victim: PodInfo, preemptor: PodInfo, node: str, handle: Any) -> Any:
            assert release.wait(timeout=30)
            return preempt_pod(victim, preemptor, node, handle)

        plugin.preempt_pod = blocked
        t.add(make_pod("vip", cpu="2", priority=100))
        assert t.step()  # the retry's cycle chose low; its preemption waits for the release
        assert held.preempt("DefaultPreemption", "preempted")  # the earlier attempt's, in memory
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # low's binding cycle reports back: no longer held, nor on n1
            t.step()
            if not t.scheduler.waiting_pods and held.pod.uid not in t.cluster.placement:
                break
            time.sleep(0.01)
        assert not t.scheduler.waiting_pods
        release.set()
        t.settle()
        assert t.node_of("default/low") is None  # still there, pending
        assert t.node_of("default/vip") == "n1"


def test_a_dry_run_that_only_errs_is_an_error() -> None:
    # kube-scheduler: a node where the pod fits without evicting anyone is an error for that node,
    # and a dry run with errors and no candidate fails the attempt with an Error, not a FitError.
    cluster = setup([make_node("n1", cpu="4")], [pod("low", "1", 0, "n1")])
    fw = framework()
    preemptor = pod("high", "1", 10)
    diagnosis = Diagnosis(num_all_nodes=1)
    diagnosis.add("NodeResourcesFit", "Insufficient cpu", np.asarray([0], dtype=np.int64), Code.UNSCHEDULABLE)
    result = fw.plugins["DefaultPreemption"].post_filter(CycleState(), preemptor, cluster, FakeHandle(fw, cluster), diagnosis)
    assert isinstance(result, Status) and result.code == Code.ERROR
    assert result.reasons == ('preemption: expected at least one victim pod on node "n1"',)

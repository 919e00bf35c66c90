"""GangScheduling: kube-scheduler's gangscheduling_test cases, and gangs through the whole loop."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kubeberth import Code, PermitResult, Status
from kubeberth.api.features import FeatureGates
from kubeberth.api.placement import PlacementProgress, PodGroupInfo
from kubeberth.apps.cli import main
from kubeberth.apps.simulate import load_manifests, pod_story, simulate
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.gang_scheduling import PERMIT_TIMEOUT_SECONDS, GangScheduling
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.scheduling.waiting_pods import WaitingPod
from kubeberth.testing import cluster_of, make_node, make_pod, make_pod_group
from kubeberth.testing.tester import SchedulerTester
from upstream_unported import UNPORTED

UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


# ---- upstream's fixtures (st.MakePodGroup / st.MakePod) ----------------------------------------
def pod_group(name: str, min_count: int | None = None, *, workload: tuple[str, str] | None = None,
              parent: str | None = None) -> dict[str, Any]:
    group = make_pod_group(name, min_count, namespace="ns1", workload=workload)
    if parent is not None:
        group["spec"]["parentCompositePodGroupName"] = parent
    return group


def member(name: str, group: str | None = None) -> dict[str, Any]:
    extra = {"schedulingGroup": {"podGroupName": group}} if group else {}
    return make_pod(name, namespace="ns1", uid=name, **extra)


gangPodGroup1 = pod_group("pg1", 3, workload=("t1", "gang-wl"))
gangPodGroup2 = pod_group("pg2", 4, workload=("t2", "gang-wl"))
basicPodGroup = pod_group("pg3", workload=("1", "basic-wl"))
p1, p2, p3 = member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")
p4, p5 = member("p4", "pg2"), member("p5", "pg2")
basicPolicyPod = member("basic-pod", "pg3")
nonGangPod = member("non-gang")
pg1 = pod_group("pg1-cpg", 1, parent="cpg-sub1")
pg2 = pod_group("pg2-cpg", 1, parent="cpg-sub1")
pg3 = pod_group("pg3-cpg", 1, parent="cpg-sub1")
pg4 = pod_group("pg4-cpg", parent="cpg-sub2")
pg5 = pod_group("pg5-cpg", 1, parent="cpg-sub2")
pg6 = pod_group("pg6-cpg", 1, parent="cpg-sub3")
pg7 = pod_group("pg7-cpg", 1, parent="cpg-sub3")
p1CPG, p2CPG = member("p1-cpg", "pg1-cpg"), member("p2-cpg", "pg2-cpg")
p4CPG, p6CPG = member("p4-cpg", "pg4-cpg"), member("p6-cpg", "pg6-cpg")
pgBasic1 = pod_group("pg-basic-1", 2, parent="cpg-basic-root")
pgBasic2 = pod_group("pg-basic-2", 2, parent="cpg-basic-root")
p1_1, p1_2, p2_1 = member("p1_1", "pg-basic-1"), member("p1_2", "pg-basic-1"), member("p2_1", "pg-basic-2")
ALL_CPG_GROUPS = [pg1, pg2, pg3, pg4, pg5, pg6, pg7]


@dataclass
class FlowCase:
    name: str
    pod: dict[str, Any]
    initialPodGroups: list[dict[str, Any]]
    initialPods: list[dict[str, Any]] = field(default_factory=list)
    podsWaitingOnPermit: list[dict[str, Any]] = field(default_factory=list)
    wantPreEnqueueStatus: Status | None = None
    wantPermitStatus: Status | None = None
    wantActivatedPods: list[dict[str, Any]] = field(default_factory=list)
    wantAllowedPods: list[str] = field(default_factory=list)


WAIT_MESSAGE = "waiting for minCount pods from a gang to be scheduled"
FLOW_CASES = [
    FlowCase("TestGangSchedulingFlow/non-gang pod succeeds immediately (CPG=false)", nonGangPod,
             [gangPodGroup1, gangPodGroup2, basicPodGroup]),
    FlowCase("TestGangSchedulingFlow/basic policy pod succeeds immediately (CPG=false)", basicPolicyPod,
             [gangPodGroup1, gangPodGroup2, basicPodGroup]),
    FlowCase("TestGangSchedulingFlow/gang pod fails PreEnqueue when pod group is not yet created (CPG=false)", p1,
             [], initialPods=[p2, p3, p4, p5],
             wantPreEnqueueStatus=Status(UNRESOLVABLE,
                                         ('waiting for pods\'s pod group "pg1" to appear in scheduling queue',))),
    FlowCase("TestGangSchedulingFlow/gang pod fails PreEnqueue when quorum is not met (CPG=false)", p1,
             [gangPodGroup1, gangPodGroup2], initialPods=[p2, p4, p5],
             wantPreEnqueueStatus=Status(UNRESOLVABLE,
                                         ("waiting for minCount pods from a gang to appear in scheduling queue",))),
    FlowCase("TestGangSchedulingFlow/gang pod passes PreEnqueue, but waits at Permit (CPG=false)", p1,
             [gangPodGroup1, gangPodGroup2], initialPods=[p2, p3, p4, p5], podsWaitingOnPermit=[p2, p4, p5],
             wantActivatedPods=[p3], wantPermitStatus=Status(Code.WAIT, (WAIT_MESSAGE,))),
    FlowCase("TestGangSchedulingFlow/final gang pod arrives at Permit and allows all waiting pods from a gang "
             "(CPG=false)", p1,
             [gangPodGroup1, gangPodGroup2], initialPods=[p2, p3, p4, p5], podsWaitingOnPermit=[p2, p3, p4, p5],
             wantAllowedPods=["p1", "p2", "p3"]),
    FlowCase("TestGangSchedulingFlow/CPG Hierarchical Stage 1: No pods, tree not ready (CPG=false)", p1CPG,
             ALL_CPG_GROUPS),
    FlowCase("TestGangSchedulingFlow/CPG Hierarchical Stage 2: Add p6 (CPG=false)", p6CPG, ALL_CPG_GROUPS,
             initialPods=[p1CPG, p2CPG]),
    FlowCase("TestGangSchedulingFlow/CPG Hierarchical Stage 3: Add p4 (CPG=false)", p4CPG, ALL_CPG_GROUPS,
             initialPods=[p1CPG, p2CPG, p6CPG]),
    FlowCase("TestGangSchedulingFlow/CPG Basic With Gang Stage 1: pg1 ready, root ready (CPG=false)", p2_1,
             [pgBasic1, pgBasic2], initialPods=[p1_1, p1_2],
             wantPreEnqueueStatus=Status(UNRESOLVABLE,
                                         ("waiting for minCount pods from a gang to appear in scheduling queue",))),
    FlowCase("TestGangSchedulingFlow/CPG Permit Wait: Hierarchical gang waits at permit if gang isn't fully "
             "scheduled (CPG=false)", p4CPG, ALL_CPG_GROUPS, initialPods=[p1CPG, p2CPG, p6CPG]),
]


def _status(result: PermitResult | Status | None) -> Status | None:
    if isinstance(result, PermitResult):
        return result.status
    return result


def _same(got: Status | None, want: Status | None) -> bool:
    if want is None:
        return got is None or got.ok
    return got is not None and (got.code, got.reasons) == (want.code, want.reasons)


@pytest.mark.parametrize("tc", FLOW_CASES, ids=lambda tc: tc.name)
def test_gang_scheduling_flow(tc: FlowCase) -> None:
    """Upstream's TestGangSchedulingFlow: PreEnqueue, then Permit with other members assumed and waiting."""
    cluster = cluster_of(make_node("some-node"), *tc.initialPodGroups)
    for obj in [*tc.initialPods, tc.pod]:
        cluster.upsert_pod(PodInfo.from_dict(obj))
    activated: list[str] = []
    waiting: dict[str, WaitingPod] = {}
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    handle = FrameworkHandle(fw, EmbeddedCluster(), cluster, lambda: 0.0, waiting, None, activated.extend)
    pl = GangScheduling()

    pod = PodInfo.from_dict(tc.pod)
    got = pl.pre_enqueue(pod=pod, handle=handle)
    assert _same(got, tc.wantPreEnqueueStatus), got
    if got is not None and not got.ok:
        return
    # Other pods have already hit Permit and are waiting.
    for obj in tc.podsWaitingOnPermit:
        other = PodInfo.from_dict(obj)
        cluster.assume(other, "some-node")
        result = pl.permit(pod=other, handle=handle)
        assert isinstance(result, PermitResult) and result.status.code == Code.WAIT, f"{other.name}: {result}"
        assert result.timeout == PERMIT_TIMEOUT_SECONDS
        waiting[other.uid] = WaitingPod(other, {pl.name: result.timeout}, lambda: 0.0, virtual=True)
    activated.clear()
    cluster.assume(pod, "some-node")
    got_permit = _status(pl.permit(pod=pod, handle=handle))
    assert _same(got_permit, tc.wantPermitStatus), got_permit
    assert activated == [p["metadata"]["uid"] for p in tc.wantActivatedPods]
    for uid, wp in waiting.items():
        assert wp.done == (uid in tc.wantAllowedPods), uid
        if wp.done:
            assert wp.wait().ok


# ---- through the scheduling loop ---------------------------------------------------------------
def gang(name: str, size: int, min_count: int, cpu: str) -> list[dict[str, Any]]:
    return [make_pod_group(name, min_count)] + [
        make_pod(f"{name}-{i}", cpu, schedulingGroup={"podGroupName": name}) for i in range(size)
    ]


@pytest.fixture
def tester():
    with SchedulerTester(["NodeResourcesFit", "GangScheduling"], objects=[make_node("n1", cpu="4")]) as t:
        yield t


def test_a_gang_that_fits_binds_together(tester: SchedulerTester) -> None:
    placed = tester.schedule(*gang("fits", 3, 3, "1"))
    assert placed == {"fits-0": "n1", "fits-1": "n1", "fits-2": "n1"}
    # The first members waited at Permit until the third was assumed.
    waits = [r.result for r in tester.records("fits-0")]
    assert waits == ["Scheduled"]


def test_a_gang_that_cannot_fit_binds_none_and_is_released_at_the_timeout(tester: SchedulerTester) -> None:
    placed = tester.schedule(*gang("big", 3, 3, "1500m"))  # two of three fit on 4 cpus
    assert placed == {"big-0": None, "big-1": None, "big-2": None}
    assert tester.clock.now() >= PERMIT_TIMEOUT_SECONDS
    timeouts = [m for i in range(3) for m in tester.events(f"big-{i}", "FailedScheduling")
                if m == "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."]
    assert len(timeouts) >= 2
    # Nothing is held any more: no waiting pods, no assumed reservations, the node is empty.
    assert tester.scheduler.waiting_pods == {}
    assert tester.cluster.assumed == set()
    assert tester.cluster.node_pods(tester.cluster.table.row_of["n1"]) == {}


def test_members_wait_in_pre_enqueue_until_the_group_and_min_count_exist(tester: SchedulerTester) -> None:
    first = [make_pod(f"late-{i}", "1", schedulingGroup={"podGroupName": "late"}) for i in range(2)]
    assert tester.schedule(*first) == {"late-0": None, "late-1": None}
    assert tester.scheduler.held_pods()["gated"] == ["default/late-0", "default/late-1"]
    assert tester.schedule(make_pod_group("late", 3)) == {}
    assert tester.scheduler.held_pods()["gated"] == ["default/late-0", "default/late-1"]
    # The third member completes the gang: all three are let in and bind together.
    assert tester.schedule(make_pod("late-2", "1", schedulingGroup={"podGroupName": "late"})) == {"late-2": "n1"}
    assert tester.node_of("late-0") == tester.node_of("late-1") == "n1"


def test_lowering_min_count_lets_gated_members_in(tester: SchedulerTester) -> None:
    tester.schedule(make_pod_group("shrink", 3), *[
        make_pod(f"shrink-{i}", "1", schedulingGroup={"podGroupName": "shrink"}) for i in range(2)])
    assert tester.node_of("shrink-0") is None
    tester.schedule(make_pod_group("shrink", 2))
    assert tester.node_of("shrink-0") == tester.node_of("shrink-1") == "n1"


def test_simulate_gangs_all_or_nothing() -> None:
    """config/examples/gang-cluster.yaml: `trainer` binds whole; one member of `big` waits at Permit,
    is released at the timeout, and none of `big` binds."""
    examples = Path(__file__).resolve().parents[2] / "config" / "examples"
    generation = build_generation(examples / "gang.yaml")
    assert "GangScheduling" in generation.default_profile.enabled("permit")
    result = simulate(generation, load_manifests(examples / "gang-cluster.yaml"))
    assert result.placements == {f"default/trainer-{i}": "gpu-1" for i in range(3)}
    summary = result.summary
    assert (summary["scheduled"], summary["unschedulable"]) == (3, 3)
    assert summary["unschedulable_reasons"]["0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."] == 1
    assert result.scheduler.clock.now() >= PERMIT_TIMEOUT_SECONDS
    assert result.scheduler.waiting_pods == {} and result.scheduler.cluster.assumed == set()


# ---- queueing hints: upstream's Test_isSchedulableAfter* (CompositePodGroup off) -----------------
def hint_pod(name: str = "", group: str | None = None, namespace: str | None = None, node: str = "") -> PodInfo:
    """st.MakePod(): no namespace given means the same (default) namespace for every object."""
    extra: dict[str, Any] = {"schedulingGroup": {"podGroupName": group}} if group else {}
    if node:
        extra["nodeName"] = node
    return PodInfo.from_dict(make_pod(name, namespace=namespace or "default", **extra))


def hint_group(name: str, min_count: int | None = None, namespace: str | None = None,
               parent: str | None = None) -> dict[str, Any]:
    group = make_pod_group(name, min_count, namespace=namespace or "default")
    if parent is not None:
        group["spec"]["parentCompositePodGroupName"] = parent
    return group


POD_ADDED = [
    ("Test_isSchedulableAfterPodAdded/add a newPod which matches the pod's scheduling group (CPG=false)",
     hint_pod("p", "pg"), hint_pod(group="pg"), True),
    ("Test_isSchedulableAfterPodAdded/add a newPod with NodeName set which matches the pod's scheduling group "
     "(CPG=false)", hint_pod("p", "pg"), hint_pod(group="pg", node="node1"), True),
    ("Test_isSchedulableAfterPodAdded/add a newPod which doesn't match the pod's namespace (CPG=false)",
     hint_pod("p", "pg"), hint_pod(group="pg", namespace="foo"), False),
    ("Test_isSchedulableAfterPodAdded/add a newPod which doesn't match the pod's pod group name (CPG=false)",
     hint_pod("p", "pg1"), hint_pod(group="pg2"), False),
    ("Test_isSchedulableAfterPodAdded/add a newPod which belongs to a different scheduling group but matches the "
     "root CPG (CPG=false)", hint_pod("p1", "pg1"), hint_pod("p2", "pg2"), False),
    ("Test_isSchedulableAfterPodAdded/add a newPod which belongs to a different scheduling group and does not "
     "match the root CPG (CPG=false)", hint_pod("p1", "pg1"), hint_pod("p2", "pg2"), False),
]


@pytest.mark.parametrize(("name", "pod", "new_pod", "queue"), POD_ADDED, ids=[c[0] for c in POD_ADDED])
def test_is_schedulable_after_pod_added(name: str, pod: PodInfo, new_pod: PodInfo, queue: bool) -> None:
    assert GangScheduling().is_schedulable_after_pod_added(pod, None, new_pod) is queue


GROUP_ADDED = [
    ("Test_isSchedulableAfterPodGroupAdded/add a pod group which matches the pod's pod group name (CPG=false)",
     hint_pod("p", "pg"), hint_group("pg", 1), True),
    ("Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group name "
     "(CPG=false)", hint_pod("p", "pg1"), hint_group("pg2", 1), False),
    ("Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group namespace "
     "(CPG=false)", hint_pod("p", "pg", namespace="ns1"), hint_group("pg", 1, namespace="ns2"), False),
    ("Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group but "
     "matches the root CPG (CPG=false)", hint_pod("p", "pg1"), hint_group("pg2", 1, parent="cpg-root"), False),
    ("Test_isSchedulableAfterPodGroupAdded/add a pod group which doesn't match the pod's scheduling group and "
     "doesn't match the root CPG (CPG=false)", hint_pod("p", "pg1"), hint_group("pg2", 1, parent="cpg-root2"), False),
]


@pytest.mark.parametrize(("name", "pod", "group", "queue"), GROUP_ADDED, ids=[c[0] for c in GROUP_ADDED])
def test_is_schedulable_after_pod_group_added(name: str, pod: PodInfo, group: dict[str, Any], queue: bool) -> None:
    assert GangScheduling().is_schedulable_after_pod_group_added(pod, None, group) is queue


GROUP_UPDATED = [
    ("Test_isSchedulableAfterPodGroupUpdated/minCount decreased matches target pod (CPG=false)",
     hint_pod("p", "pg", namespace="ns1"), hint_group("pg", 4, namespace="ns1"), hint_group("pg", 3, namespace="ns1"),
     True),
    ("Test_isSchedulableAfterPodGroupUpdated/update Basic policy (CPG=false)",
     hint_pod("p", "pg", namespace="ns1"), hint_group("pg", namespace="ns1"), hint_group("pg", namespace="ns1"), False),
    ("Test_isSchedulableAfterPodGroupUpdated/minCount increased matches target pod (CPG=false)",
     hint_pod("p", "pg", namespace="ns1"), hint_group("pg", 3, namespace="ns1"), hint_group("pg", 4, namespace="ns1"),
     False),
    ("Test_isSchedulableAfterPodGroupUpdated/minCount unchanged matches target pod (CPG=false)",
     hint_pod("p", "pg", namespace="ns1"), hint_group("pg", 3, namespace="ns1"), hint_group("pg", 3, namespace="ns1"),
     False),
    ("Test_isSchedulableAfterPodGroupUpdated/minCount decreased but pod group name doesn't match target pod "
     "(CPG=false)", hint_pod("p", "pg-other", namespace="ns1"), hint_group("pg", 4, namespace="ns1"),
     hint_group("pg", 3, namespace="ns1"), False),
    ("Test_isSchedulableAfterPodGroupUpdated/minCount decreased but pod group namespace doesn't match target pod "
     "(CPG=false)", hint_pod("p", "pg", namespace="ns-other"), hint_group("pg", 4, namespace="ns1"),
     hint_group("pg", 3, namespace="ns1"), False),
    ("Test_isSchedulableAfterPodGroupUpdated/pod without a scheduling group is skipped (CPG=false)",
     hint_pod("p", namespace="ns1"), hint_group("pg", 4, namespace="ns1"), hint_group("pg", 3, namespace="ns1"),
     False),
]


@pytest.mark.parametrize(("name", "pod", "old", "new", "queue"), GROUP_UPDATED, ids=[c[0] for c in GROUP_UPDATED])
def test_is_schedulable_after_pod_group_updated(
    name: str, pod: PodInfo, old: dict[str, Any], new: dict[str, Any], queue: bool
) -> None:
    assert GangScheduling().is_schedulable_after_pod_group_updated(pod, old, new) is queue


def test_hints_decide_which_gated_members_are_checked_again(tester: SchedulerTester) -> None:
    """Through the loop: raising one group's minCount, or a member of another group arriving,
    does not re-run PreEnqueue for a gated member; its own group's new member does."""
    tester.schedule(make_pod_group("a", 2), make_pod("a-0", "1", schedulingGroup={"podGroupName": "a"}))
    checks: list[str] = []
    queue = tester.scheduler.queue
    real = queue.pre_enqueue

    def counting(pod: PodInfo) -> Status:
        checks.append(pod.name)
        return real(pod)

    queue.pre_enqueue = counting
    tester.schedule(make_pod_group("a", 3))  # minCount raised: skipped
    tester.schedule(make_pod_group("b", 2), make_pod("b-0", "1", schedulingGroup={"podGroupName": "b"}))
    assert "a-0" not in checks and "b-0" in checks
    tester.schedule(make_pod("a-1", "1", schedulingGroup={"podGroupName": "a"}))
    assert checks.count("a-0") == 1
    assert tester.scheduler.held_pods()["gated"] == ["default/a-0", "default/a-1", "default/b-0"]


def test_simulate_explains_a_member_held_in_pre_enqueue() -> None:
    examples = Path(__file__).resolve().parents[2] / "config" / "examples"
    objects = [make_node("n1", cpu="4"), make_pod_group("g", 3), make_pod("g-0", "1", schedulingGroup={"podGroupName": "g"})]
    result = simulate(build_generation(examples / "gang.yaml"), objects)
    assert result.summary["gated_pods"] == [{
        "pod": "default/g-0", "gates": [], "plugin": "GangScheduling",
        "message": "waiting for minCount pods from a gang to appear in scheduling queue",
    }]
    story = pod_story(result, "default/g-0")
    assert story["state"] == "gated"
    assert story["detail"].startswith("GangScheduling PreEnqueue: waiting for minCount pods from a gang")


def test_generic_workload_gate_adds_gang_scheduling_to_the_default_profile() -> None:
    """kube-scheduler's applyFeatureGates: GenericWorkload appends GangScheduling (multiPoint)."""
    on = build_generation(feature_gates=FeatureGates.parse("GenericWorkload=true")).default_profile
    # DefaultPreemption is a PreEnqueue plugin too (async preemption), after DynamicResources (inserted
    # before it) and before the appended GangScheduling
    assert on.enabled("pre_enqueue") == ["SchedulingGates", "DynamicResources", "DefaultPreemption", "GangScheduling"]
    assert on.enabled("permit") == ["GangScheduling"]
    off = build_generation().default_profile
    assert "GangScheduling" not in off.enabled("pre_enqueue") + off.enabled("permit")


def test_simulate_with_the_gate_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    cluster = Path(__file__).resolve().parents[2] / "config" / "examples" / "gang-cluster.yaml"
    code = main(["simulate", "--feature-gates=GenericWorkload=true", f"--cluster={cluster}", "--json", "--placements"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["placements"] == {f"default/trainer-{i}": "gpu-1" for i in range(3)}
    assert out["unschedulable"] == 3


# ---- PlacementFeasible: upstream's TestPlacementFeasible ----------------------------------------
# Codes per step: S(uccess), W(ait), U(nschedulable). The isCPG=true rows group a CompositePodGroup
# (tests/upstream_unported.py lists them); the CompositePodGroup gate does not change a PodGroup's.
_CODES = {"S": Code.SUCCESS, "W": Code.WAIT, "U": Code.UNSCHEDULABLE}
PLACEMENT_FEASIBLE = [
    # name, isCPG, minCount, childrenCount, unscheduledPods, podStatuses, expectedStatuses, initialScheduledCount
    ("TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=false)",
     False, 2, 2, ['p1', 'p2'], "SS", "WS", 0),
    ("TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=false, cpgFeatureGate=true)",
     False, 2, 2, ['p1', 'p2'], "SS", "WS", 0),
    ("TestPlacementFeasible/All pods succeed, minCount met at end (isCPG=true, cpgFeatureGate=true)",
     True, 2, 2, ['p1', 'p2'], "SS", "WS", 0),
    ("TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)",
     False, 3, 3, ['p1', 'p2', 'p3'], "U", "U", 0),
    ("TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)",
     False, 3, 3, ['p1', 'p2', 'p3'], "U", "U", 0),
    ("TestPlacementFeasible/First pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)",
     True, 3, 3, ['p1', 'p2', 'p3'], "U", "U", 0),
    ("TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)",
     False, 2, 2, ['p1', 'p2'], "SU", "WU", 0),
    ("TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)",
     False, 2, 2, ['p1', 'p2'], "SU", "WU", 0),
    ("TestPlacementFeasible/Second pod fails, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)",
     True, 2, 2, ['p1', 'p2'], "SU", "WU", 0),
    ("TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=false)",
     False, 0, 1, ['p1'], "U", "U", 0),
    ("TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=false)",
     True, 0, 1, ['p1'], "U", "U", 0),
    ("TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=false, cpgFeatureGate=true)",
     False, 0, 1, ['p1'], "U", "U", 0),
    ("TestPlacementFeasible/Non-gang pod group with 0 scheduled pods fails (isCPG=true, cpgFeatureGate=true)",
     True, 0, 1, ['p1'], "U", "U", 0),
    ("TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=false)",
     False, 0, 1, ['p1'], "S", "S", 0),
    ("TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=false)",
     True, 0, 1, ['p1'], "S", "S", 0),
    ("TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=false, cpgFeatureGate=true)",
     False, 0, 1, ['p1'], "S", "S", 0),
    ("TestPlacementFeasible/Non-gang pod group with succeeds once 1 pod is scheduled (isCPG=true, cpgFeatureGate=true)",
     True, 0, 1, ['p1'], "S", "S", 0),
    ("TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=false)",
     False, 0, 1, ['p1'], "U", "S", 1),
    ("TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=false)",
     True, 0, 1, ['p1'], "U", "S", 1),
    ("TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=false, cpgFeatureGate=true)",
     False, 0, 1, ['p1'], "U", "S", 1),
    ("TestPlacementFeasible/Non-gang pod group with 1 initially scheduled pod succeeds (isCPG=true, cpgFeatureGate=true)",
     True, 0, 1, ['p1'], "U", "S", 1),
    ("TestPlacementFeasible/More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=false)",
     False, 2, 3, ['p1', 'p2', 'p3'], "SSS", "WSS", 0),
    ("TestPlacementFeasible/More than minCount pods, all succeed (isCPG=false, cpgFeatureGate=true)",
     False, 2, 3, ['p1', 'p2', 'p3'], "SSS", "WSS", 0),
    ("TestPlacementFeasible/More than minCount pods, all succeed (isCPG=true, cpgFeatureGate=true)",
     True, 2, 3, ['p1', 'p2', 'p3'], "SSS", "WSS", 0),
    ("TestPlacementFeasible/More than minCount pods, first fails (isCPG=false, cpgFeatureGate=false)",
     False, 2, 3, ['p1', 'p2', 'p3'], "USS", "WWS", 0),
    ("TestPlacementFeasible/More than minCount pods, first fails (isCPG=false, cpgFeatureGate=true)",
     False, 2, 3, ['p1', 'p2', 'p3'], "USS", "WWS", 0),
    ("TestPlacementFeasible/More than minCount pods, first fails (isCPG=true, cpgFeatureGate=true)",
     True, 2, 3, ['p1', 'p2', 'p3'], "USS", "WWS", 0),
    ("TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=false)",
     False, 2, 3, ['p1', 'p2', 'p3'], "UU", "WU", 0),
    ("TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=false, cpgFeatureGate=true)",
     False, 2, 3, ['p1', 'p2', 'p3'], "UU", "WU", 0),
    ("TestPlacementFeasible/More than minCount pods, minCount not satisfiable (isCPG=true, cpgFeatureGate=true)",
     True, 2, 3, ['p1', 'p2', 'p3'], "UU", "WU", 0),
    ("TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=false)",
     False, 3, 2, ['p1', 'p2'], "SS", "WS", 1),
    ("TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=false, cpgFeatureGate=true)",
     False, 3, 2, ['p1', 'p2'], "SS", "WS", 1),
    ("TestPlacementFeasible/1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met (isCPG=true, cpgFeatureGate=true)",
     True, 3, 2, ['p1', 'p2'], "SS", "WS", 1),
    ("TestPlacementFeasible/minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=false)",
     False, 2, 1, ['p1'], "U", "S", 2),
    ("TestPlacementFeasible/minCount already met by scheduled pods (isCPG=false, cpgFeatureGate=true)",
     False, 2, 1, ['p1'], "U", "S", 2),
    ("TestPlacementFeasible/minCount already met by scheduled pods (isCPG=true, cpgFeatureGate=true)",
     True, 2, 1, ['p1'], "U", "S", 2),
    ("TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=false)",
     False, 3, 2, ['p1', 'p2'], "U", "U", 1),
    ("TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=false, cpgFeatureGate=true)",
     False, 3, 2, ['p1', 'p2'], "U", "U", 1),
    ("TestPlacementFeasible/1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining (isCPG=true, cpgFeatureGate=true)",
     True, 3, 2, ['p1', 'p2'], "U", "U", 1),
    ("TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=false)",
     False, 4, 2, ['p1', 'p2'], "S", "U", 1),
    ("TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=false, cpgFeatureGate=true)",
     False, 4, 2, ['p1', 'p2'], "S", "U", 1),
    ("TestPlacementFeasible/1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining (isCPG=true, cpgFeatureGate=true)",
     True, 4, 2, ['p1', 'p2'], "S", "U", 1),
]


@pytest.mark.parametrize(
    ("name", "is_cpg", "min_count", "children_count", "unscheduled", "pod_statuses", "expected", "initial"),
    [pytest.param(*c, id=c[0], marks=[pytest.mark.skip(reason=UNPORTED[c[0]])] if c[0] in UNPORTED else [])
     for c in PLACEMENT_FEASIBLE],
)
def test_placement_feasible(name: str, is_cpg: bool, min_count: int, children_count: int, unscheduled: list[str],
                            pod_statuses: str, expected: str, initial: int) -> None:
    """After each member a pod group cycle tries, minCount is met (Success), still reachable (Wait)
    or out of reach (Unschedulable); basic groups (minCount 0 here) need one member placed."""
    group = make_pod_group("test-pg", min_count or None)
    group["spec"]["parentCompositePodGroupName"] = "cpg-root"
    info = PodGroupInfo("default", "test-pg", group, tuple(PodInfo.from_dict(make_pod(n)) for n in unscheduled))
    pl = GangScheduling()
    scheduled = initial
    for i, code in enumerate(pod_statuses):
        if code == "S":
            scheduled += 1
        got = pl.placement_feasible(pod_group=info, progress=PlacementProgress(children_count - (i + 1), scheduled))
        assert (Code.SUCCESS if got is None else got.code) == _CODES[expected[i]], f"step {i}: {got}"

"""The pod group scheduling cycle (GenericWorkload): a PodGroup's pending members are tried together,
all or nothing, as kube-scheduler v1.37's scheduleOnePodGroup does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubeberth import Status, hookimpl
from kubeberth.api.features import FeatureGates
from kubeberth.api.placement import Placement, PodGroupInfo
from kubeberth.apps.simulate import load_manifests, simulate
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod, make_pod_group
from kubeberth.testing.tester import SchedulerTester

GATES = "GenericWorkload=true"
TAS = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"


def gang(name: str, size: int, min_count: int | None, cpu: str, **extra: Any) -> list[dict[str, Any]]:
    return [make_pod_group(name, min_count)] + [
        make_pod(f"{name}-{i}", cpu, schedulingGroup={"podGroupName": name}, **extra) for i in range(size)
    ]


@pytest.fixture
def tester():
    with SchedulerTester(["NodeResourcesFit", "GangScheduling"], objects=[make_node("n1", cpu="4")],
                         feature_gates=GATES) as t:
        yield t


def test_a_gang_that_fits_binds_in_one_cycle(tester: SchedulerTester) -> None:
    assert tester.schedule(*gang("fits", 3, 3, "1")) == {"fits-0": "n1", "fits-1": "n1", "fits-2": "n1"}
    assert [r.result for i in range(3) for r in tester.records(f"fits-{i}")] == ["Scheduled"] * 3
    assert tester.clock.now() < 1  # nobody waited at Permit for the others


def test_a_gang_that_cannot_fit_binds_none_and_holds_nothing(tester: SchedulerTester) -> None:
    """Two 1500m members fit on 4 cpus, the third does not: the group gives up at once, with no
    reservation left behind and no Permit timeout to wait for. (The group backs off as one entity,
    whatever event comes, and is retried once its backoff ends, as upstream.)"""
    assert tester.schedule(*gang("big", 3, 3, "1500m")) == {"big-0": None, "big-1": None, "big-2": None}
    # The members that were placed carry the group's status behind kube-scheduler's errPodGroupUnschedulable.
    for placed in ("big-0", "big-1"):
        assert set(tester.events(placed, "FailedScheduling")) == {
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"}
    assert set(tester.events("big-2", "FailedScheduling")) == {"0/1 nodes are available: 1 Insufficient cpu."}
    assert tester.clock.now() < 60  # one backoff, no 5 minute Permit timeout
    assert tester.cluster.assumed == set() and tester.scheduler.waiting_pods == {}
    assert tester.cluster.node_pods(tester.cluster.table.row_of["n1"]) == {}
    # Room for the gang: a new node lets the whole group in, and it binds together.
    assert tester.schedule(make_node("n2", cpu="4")) == {}
    assert {tester.node_of(f"big-{i}") for i in range(3)} <= {"n1", "n2"}
    assert all(tester.node_of(f"big-{i}") for i in range(3))


def test_the_cycle_stops_once_min_count_is_out_of_reach(tester: SchedulerTester) -> None:
    """The first member fails: the two left cannot make minCount 3, so they are not tried."""
    tester.schedule(*gang("wide", 3, 3, "5"))
    assert set(tester.events("wide-0", "FailedScheduling")) == {"0/1 nodes are available: 1 Insufficient cpu."}
    assert set(tester.events("wide-1", "FailedScheduling")) == {"minCount (3) cannot be satisfied: 0 scheduled, 2 remaining"}
    assert {r.evaluated_nodes for r in tester.records("wide-1")} == {0}


def test_more_members_than_min_count_bind_those_that_fit(tester: SchedulerTester) -> None:
    placed = tester.schedule(*gang("extra", 3, 2, "1500m"))
    assert sorted(n for n in placed.values() if n) == ["n1", "n1"]
    left = next(p for p, n in placed.items() if n is None)
    assert tester.events(left, "FailedScheduling") == ["0/1 nodes are available: 1 Insufficient cpu."]


def test_a_basic_group_needs_one_member_placed(tester: SchedulerTester) -> None:
    assert tester.schedule(*gang("basic", 2, None, "3")) == {"basic-0": "n1", "basic-1": None}
    assert tester.schedule(*gang("none", 1, None, "9")) == {"none-0": None}
    assert set(tester.events("none-0", "FailedScheduling")) == {"0/1 nodes are available: 1 Insufficient cpu."}


def test_a_late_member_of_a_bound_gang_is_scheduled_alone(tester: SchedulerTester) -> None:
    tester.schedule(*gang("late", 2, 2, "1"))
    assert tester.schedule(make_pod("late-9", "1", schedulingGroup={"podGroupName": "late"})) == {"late-9": "n1"}


def test_without_the_gate_members_go_pod_by_pod_through_permit() -> None:
    with SchedulerTester(["NodeResourcesFit", "GangScheduling"], objects=[make_node("n1", cpu="4")]) as t:
        assert t.schedule(*gang("big", 3, 3, "1500m")) == {"big-0": None, "big-1": None, "big-2": None}
        assert t.clock.now() >= 300  # held at Permit until the timeout


# ---- placements (TopologyAwareWorkloadScheduling) ------------------------------------------------
class ZonePlacements:
    """A placement_generate plugin: one placement per `zone` label value."""

    name = "ZonePlacements"

    @hookimpl
    def placement_generate(self, pod_group: PodGroupInfo, placement: Placement, handle: Any) -> list[Placement]:
        table = handle.cluster.table
        zones: dict[str, list[str]] = {}
        for node in placement.nodes:
            zone = table.labels_of(table.row_of[node]).get("zone")
            if zone:
                zones.setdefault(zone, []).append(node)
        return [Placement(z, tuple(nodes)) for z, nodes in sorted(zones.items())]


class RefuseAll:
    name = "RefuseAll"

    @hookimpl
    def placement_generate(self, pod_group: PodGroupInfo, placement: Placement) -> Status:
        return Status.unschedulable("no zone will do")


def zones() -> list[dict[str, Any]]:
    return [make_node("a1", cpu="2", labels={"zone": "a"}),
            make_node("b1", cpu="2", labels={"zone": "b"}), make_node("b2", cpu="2", labels={"zone": "b"})]


def test_the_placement_that_places_more_members_wins() -> None:
    """Zone a fits 2 of 4 members, zone b all 4: both meet minCount 2, PodGroupPodsCount prefers b."""
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", ZonePlacements, ("PodGroupPodsCount", 1)],
                         objects=zones(), feature_gates=TAS) as t:
        placed = t.schedule(*gang("g", 4, 2, "1"))
        assert sorted(placed.values()) == ["b1", "b1", "b2", "b2"]


def test_a_group_no_placement_fits_reports_the_first_placement() -> None:
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", ZonePlacements, ("PodGroupPodsCount", 1)],
                         objects=zones(), feature_gates=TAS) as t:
        assert set(t.schedule(*gang("g", 5, 5, "1")).values()) == {None}
        # kube-scheduler's texts, nested as it nests them: the placement failure wraps the first placement's
        # status, and a placed member wraps the group's.
        assert set(t.events("g-0", "FailedScheduling")) == {
            "pod group is unschedulable, pod group is unschedulable, 0/2 placements are available, first placement "
            "status: minCount (5) cannot be satisfied: 2 scheduled, 2 remaining"
        }
        assert set(t.events("g-3", "FailedScheduling")) == {
            "pod group is unschedulable, 0/2 placements are available, first placement status: minCount (5) cannot be "
            "satisfied: 2 scheduled, 2 remaining"
        }
        # The member that found no node on the first placement (zone a, 2 cpus) keeps its own fit error.
        assert set(t.events("g-2", "FailedScheduling")) == {"0/1 nodes are available: 1 Insufficient cpu."}


def test_a_placement_generator_may_refuse() -> None:
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", RefuseAll], objects=zones(), feature_gates=TAS) as t:
        assert t.schedule(*gang("g", 2, 2, "1")) == {"g-0": None, "g-1": None}
        assert set(t.events("g-0", "FailedScheduling")) == {"no zone will do"}
        assert t.cluster.assumed == set()


def test_an_out_of_range_placement_score_is_an_error() -> None:
    """An out-of-range placement score fails the group's attempt with kube-scheduler's message."""

    class TooHigh:
        name = "TooHigh"

        @hookimpl
        def placement_score(self, pod_group: PodGroupInfo, placement: Any) -> int:
            return 101

    with SchedulerTester(["NodeResourcesFit", "GangScheduling", ZonePlacements, TooHigh], objects=zones(),
                         feature_gates=TAS, max_errors_per_pod=1) as t:
        t.schedule(*gang("g", 2, 2, "1"))
        message = t.events("g-0", "FailedScheduling")[0]
        assert message.startswith('applying score defaultWeights on PlacementScore plugins: plugin "TooHigh" returns '
                                  "an invalid score 101")
        assert t.records("g-0")[-1].result == "Error"
        assert t.cluster.assumed == set()


def test_the_default_profile_keeps_a_gang_in_one_zone_and_prefers_the_roomier_one() -> None:
    """The gate's default profile: TopologyPlacementGenerator offers one placement per zone for a
    PodGroup with a topology constraint, PodGroupPodsCount picks the zone that places all members.
    A late member then only gets the zone the others are in."""
    group = make_pod_group("g", 2)
    group["spec"]["schedulingConstraints"] = {"topology": [{"key": "zone"}]}
    members = [make_pod(f"g-{i}", "1", schedulingGroup={"podGroupName": "g"}) for i in range(4)]
    with SchedulerTester(default_plugins=True, objects=zones(), feature_gates=TAS) as t:
        assert t.framework.enabled("placement_generate") == ["TopologyPlacementGenerator"]
        placed = t.schedule(group, *members)
        assert sorted(placed.values()) == ["b1", "b1", "b2", "b2"]
        # Zone b is full now; zone a has room, but the group's pods are in b.
        late = make_pod("g-9", "1", schedulingGroup={"podGroupName": "g"})
        assert t.schedule(late) == {"g-9": None}
        # Its own fit error, over zone b's two nodes only.
        assert set(t.events("g-9", "FailedScheduling")) == {"0/2 nodes are available: 2 Insufficient cpu."}


def test_the_pod_group_condition_follows_the_attempts(tester: SchedulerTester) -> None:
    """PodGroupInitiallyScheduled: False/Unschedulable with the group's message while it cannot fit,
    True/Scheduled once it is scheduled, and not turned back to False by a later member."""

    def condition() -> dict[str, Any]:
        found = tester.scheduler.backend.get("PodGroup", "default/big")
        conditions = (found.get("status") or {}).get("conditions") or []
        assert [c["type"] for c in conditions] == ["PodGroupInitiallyScheduled"]
        return {k: conditions[0][k] for k in ("status", "reason", "message")}

    tester.schedule(*gang("big", 3, 3, "1500m"))
    assert condition() == {"status": "False", "reason": "Unschedulable",
                           "message": "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"}
    tester.schedule(make_node("n2", cpu="4"))
    assert condition() == {"status": "True", "reason": "Scheduled", "message": ""}
    assert tester.schedule(make_pod("big-9", "9", schedulingGroup={"podGroupName": "big"})) == {"big-9": None}
    assert condition()["status"] == "True"


def test_a_member_whose_pod_group_is_unknown_is_scheduled_on_its_own() -> None:
    """No GangScheduling in the profile: the scheduler does not keep PodGroups, and a member of a
    group it does not know is scheduled as a pod of its own."""
    with SchedulerTester(["NodeResourcesFit"], objects=[make_node("n1", cpu="4")], feature_gates=GATES) as t:
        assert t.schedule(make_pod("lone-0", "1", schedulingGroup={"podGroupName": "lone"})) == {"lone-0": "n1"}


def test_the_zones_example_keeps_the_gang_in_the_roomier_zone() -> None:
    """config/examples/gang-zones-cluster.yaml (docs/gang-scheduling.md): all six ranks in zone b
    with TopologyAwareWorkloadScheduling; without it they spread over both zones."""
    examples = Path(__file__).resolve().parents[1] / "config" / "examples"
    objects = load_manifests(examples / "gang-zones-cluster.yaml")
    on = simulate(build_generation(feature_gates=FeatureGates.parse(TAS)), objects)
    assert set(on.placements.values()) == {"b-1", "b-2"} and len(on.placements) == 6
    off = simulate(build_generation(feature_gates=FeatureGates.parse(GATES)), objects)
    assert "a-1" in off.placements.values() and len(off.placements) == 6


@pytest.mark.parametrize(("change", "message"), [
    ({"priority": 5},
     "all pods in a single pod group should have the same priority as the pod group's priority, got 5 and 0"),
    ({"preemptionPolicy": "Never"},
     "all pods in a single pod group should have the same preemption policy, got Never and PreemptLowerPriority"),
])
def test_a_group_whose_pods_disagree_is_an_error_for_every_member(change: dict[str, Any], message: str) -> None:
    """validatePodGroup: one member with another priority or preemption policy fails the whole
    group's attempt before any member is tried; the PodGroup's condition says SchedulerError."""
    objects = gang("mixed", 3, 3, "1")
    objects[-1]["spec"].update(change)
    with SchedulerTester(["NodeResourcesFit", "GangScheduling"], objects=[make_node("n1", cpu="4")],
                         feature_gates=GATES, max_errors_per_pod=1) as t:
        assert set(t.schedule(*objects).values()) == {None}
        for i in range(3):
            assert t.events(f"mixed-{i}", "FailedScheduling") == [message]
            assert [r.result for r in t.records(f"mixed-{i}")] == ["Error"]
        found = t.scheduler.backend.get("PodGroup", "default/mixed")
        condition = found["status"]["conditions"][0]
        assert (condition["status"], condition["reason"], condition["message"]) == ("False", "SchedulerError", message)


# ---- PodGroupCycleState ------------------------------------------------------------------------------
class GroupStateUser:
    """Per-pod PreFilter writing into the pod group's cycle state (state.pod_group_cycle), PodGroupPostFilter
    reading it (and running the group's algorithm again), PreBind looking for it."""

    name = "GroupStateUser"

    def __init__(self) -> None:
        self.post_filter_saw: list[tuple[str, list[str], list[str]]] = []
        self.pre_bind_saw: list[object] = []

    @hookimpl
    def pre_filter(self, state: Any, pod: Any) -> None:
        if state.pod_group_cycle is not None:
            state.pod_group_cycle.setdefault("members", []).append(pod.name)

    @hookimpl
    def pod_group_post_filter(self, state: Any, pod_group: PodGroupInfo, schedule: Any) -> Status:
        before = sorted(state.get("members", []))
        schedule()  # on a fresh PodGroupCycleState, as upstream's pgSchedulingFunc (NewCycleState)
        self.post_filter_saw.append((type(state).__name__, before, sorted(state.get("members", []))))
        return Status.unschedulable("nothing to preempt")

    @hookimpl
    def pre_bind(self, state: Any, pod: Any) -> None:
        self.pre_bind_saw.append(state.pod_group_cycle)


def test_the_group_post_filter_reads_what_its_members_prefilter_wrote() -> None:
    """TestPodGroupCycleStatePreserved in small: the members' PreFilter writes into the PodGroupCycleState the
    group's PodGroupPostFilter is given; its schedule() does not write into it."""
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", GroupStateUser], objects=[make_node("n1", cpu="4")],
                         feature_gates=GATES) as t:
        assert t.schedule(*gang("big", 3, 3, "1500m")) == {"big-0": None, "big-1": None, "big-2": None}
        saw = t.plugin("GroupStateUser").post_filter_saw
        assert saw and saw[0] == ("PodGroupCycleState", ["big-0", "big-1", "big-2"], ["big-0", "big-1", "big-2"])


def test_a_member_goes_to_binding_without_the_group_cycle_state() -> None:
    """SetPodGroupSchedulingCycle(nil) before the binding cycle: PreBind sees no pod group cycle."""
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", GroupStateUser], objects=[make_node("n1", cpu="4")],
                         feature_gates=GATES) as t:
        assert t.schedule(*gang("fits", 2, 2, "1")) == {"fits-0": "n1", "fits-1": "n1"}
        assert t.plugin("GroupStateUser").pre_bind_saw == [None, None]

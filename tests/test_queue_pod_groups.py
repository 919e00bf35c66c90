"""SchedulingQueue under GenericWorkload: a PodGroup's parked pods are one entity for cluster events (kube-scheduler's
moveEntitiesToActiveOrBackoffQueue / isEntityWorthRequeuing), and the pods a successful group attempt left
unscheduled go straight back to activeQ (its requeue of the group's remaining pods on success).

The scenario is TestPodGroupScheduling's "gang schedules with workload-aware preemption": the member rejected by
NodeResourcesFit is worth retrying when a victim goes, the members DefaultPreemption held at PreEnqueue while the
victims went are not by themselves (its hint for an assigned pod's deletion is Skip)."""

from __future__ import annotations

from typing import Any

from kubeberth import Code, Status
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.queue import SchedulingQueue
from kubeberth.testing import make_pod

FIT, PREEMPTION = "NodeResourcesFit", "DefaultPreemption"


class Preempting:
    """DefaultPreemption's PreEnqueue: holds the group's pods while its preemption runs."""

    def __init__(self) -> None:
        self.running = True

    def __call__(self, pod: PodInfo) -> Status:
        if self.running and pod.pod_group:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for preemption",), PREEMPTION)
        return Status.success()


def member(name: str) -> PodInfo:
    return PodInfo.from_dict(make_pod(name, uid=name, schedulingGroup={"podGroupName": "pg"}))


def interested(pod: PodInfo, plugin: str, event: str, old: Any, new: Any) -> bool:
    """NodeResourcesFit's hint for a deleted assigned pod says Queue; DefaultPreemption's says Skip."""
    return plugin == FIT


def registered(pod: PodInfo, plugin: str, event: str) -> bool:
    return event == "Pod/Delete"


def parked(group_entities: bool) -> tuple[SchedulingQueue, Preempting]:
    """p1 rejected by NodeResourcesFit in the group's attempt; p2 and p3 held by DefaultPreemption's PreEnqueue.
    The event comes after p1's backoff."""
    gate = Preempting()
    now = [1000.0]
    q = SchedulingQueue(lambda p: 0, gate, lambda: now[0], group_entities=group_entities)
    q.registered = registered
    gate.running = False
    q.add(member("p1"))
    entry = q.pop()
    assert entry is not None
    q.requeue_unschedulable(entry, frozenset({FIT}), "0/1 nodes are available: 1 Insufficient cpu.")
    gate.running = True
    q.add(member("p2"))
    q.add(member("p3"))
    assert [q.entries[n].where for n in ("p1", "p2", "p3")] == ["unschedulable", "gated", "gated"]
    now[0] += 60
    return q, gate


def test_a_victims_deletion_moves_the_whole_group_once_its_preemption_is_over() -> None:
    q, gate = parked(group_entities=True)
    gate.running = False
    assert q.move_for_event("Pod/Delete", interested) == 3
    assert {n: q.entries[n].where for n in ("p1", "p2", "p3")} == {"p1": "active", "p2": "active", "p3": "active"}


def test_a_group_still_held_by_its_preemption_stays_parked_whole() -> None:
    """requeueEntityWithQueueingStrategy: a member still gated keeps the entity gated; p1 is not tried alone."""
    q, _gate = parked(group_entities=True)
    assert q.move_for_event("Pod/Delete", interested) == 0
    assert [q.entries[n].where for n in ("p1", "p2", "p3")] == ["unschedulable", "gated", "gated"]


def test_without_generic_workload_each_pod_is_its_own_entity() -> None:
    """The held members' only rejecting plugin is DefaultPreemption, whose hint is Skip: they stay gated."""
    q, gate = parked(group_entities=False)
    gate.running = False
    assert q.move_for_event("Pod/Delete", interested) == 1
    assert [q.entries[n].where for n in ("p1", "p2", "p3")] == ["active", "gated", "gated"]


def test_a_member_left_by_a_successful_group_attempt_goes_back_to_active_with_its_timestamp() -> None:
    now = [1000.0]
    q = SchedulingQueue(lambda p: 0, lambda p: Status.success(), lambda: now[0], group_entities=True)
    q.add(member("p4"))
    entry = q.pop()
    assert entry is not None
    stamp = entry.timestamp
    now[0] += 5
    q.requeue_unschedulable(entry, frozenset({FIT}), "0/1 nodes are available: 1 Insufficient cpu.")
    assert entry.where == "unschedulable" and entry.timestamp == stamp + 5
    q.requeue_remaining(entry, stamp)
    assert (entry.where, entry.timestamp, entry.unschedulable_count, entry.backoff_until) == ("active", stamp, 0, 0.0)
    again = q.pop()
    assert again is entry


def scheduling_gates(pod: PodInfo) -> Status:
    if pod.scheduling_gates:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates",), "SchedulingGates")
    return Status.success()


def test_a_gated_member_holds_its_whole_group_until_it_is_ungated() -> None:
    """queueing_test.go's "Single gated pod blocks gang group from being scheduled until pod is ungated": p1 waits for
    its scheduling gate; p2 and p3 pass PreEnqueue but are held with it (the group is gated while any pod is); once
    p1 is ungated the three go to activeQ."""
    q = SchedulingQueue(lambda p: 0, scheduling_gates, lambda: 1000.0, group_entities=True)
    gated = PodInfo.from_dict(make_pod("p1", uid="p1", schedulingGroup={"podGroupName": "pg"},
                                       schedulingGates=[{"name": "foo-gate"}]))
    q.add(gated)
    q.add(member("p2"))
    q.add(member("p3"))
    assert [(q.entries[n].where, q.entries[n].gating_plugin) for n in ("p1", "p2", "p3")] == [
        ("gated", "SchedulingGates")] * 3
    assert q.pop() is None
    q.update(member("p1"))
    assert [q.entries[n].where for n in ("p1", "p2", "p3")] == ["active"] * 3


def test_without_generic_workload_a_gated_pod_holds_only_itself() -> None:
    q = SchedulingQueue(lambda p: 0, scheduling_gates, lambda: 1000.0)
    q.add(PodInfo.from_dict(make_pod("p1", uid="p1", schedulingGroup={"podGroupName": "pg"},
                                     schedulingGates=[{"name": "foo-gate"}])))
    q.add(member("p2"))
    assert [q.entries[n].where for n in ("p1", "p2")] == ["gated", "active"]


def test_deleting_the_gated_member_lets_the_group_go() -> None:
    q = SchedulingQueue(lambda p: 0, scheduling_gates, lambda: 1000.0, group_entities=True)
    q.add(PodInfo.from_dict(make_pod("p1", uid="p1", schedulingGroup={"podGroupName": "pg"},
                                     schedulingGates=[{"name": "foo-gate"}])))
    q.add(member("p2"))
    assert q.entries["p2"].where == "gated"
    q.delete("p1")
    assert q.entries["p2"].where == "active"


def test_the_pods_of_a_deleted_pod_group_wait_for_it_again() -> None:
    """queueing_test.go's "gang is partially scheduled, then pod group is deleted, unschedulable pods end up in
    incompletePodGroupPods": the member left unschedulable goes back through PreEnqueue, which holds it until its
    PodGroup exists (GangScheduling's "waiting for pods's pod group ... to appear")."""
    groups = {"pg"}

    def gang(pod: PodInfo) -> Status:
        if pod.pod_group and pod.pod_group not in groups:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for its pod group",), "GangScheduling")
        return Status.success()

    q = SchedulingQueue(lambda p: 0, gang, lambda: 1000.0, group_entities=True)
    q.add(member("p3"))
    entry = q.pop()
    assert entry is not None
    q.requeue_unschedulable(entry, frozenset({FIT}), "0/1 nodes are available: 1 Insufficient cpu.")
    groups.clear()
    group = {"metadata": {"namespace": "default", "name": "pg"}}
    q.move_for_event("PodGroup/Delete", lambda *_: False, old=group)
    assert (entry.where, entry.gating_plugin) == ("gated", "GangScheduling")



def test_a_rejected_group_backs_off_as_one_entity_whatever_the_events() -> None:
    """TestAddAttemptedPodGroupIfNeeded's "pod group scheduling result is Unschedulable, and pod group backing off": the
    members of a rejected group attempt go to backoffQ (not the unschedulable pool), one backoff for the group (its
    UnschedulableCount), in the error backoffQ (the entity's own rejecting plugins are none): a PodGroup update does
    not move them and SchedulerPopFromBackoffQ does not pop them before the backoff ends (TestPodGroupPostFilterIteration)."""
    now = [1000.0]
    q = SchedulingQueue(lambda p: 0, lambda p: Status.success(), lambda: now[0], initial_backoff=100,
                        max_backoff=100, pop_from_backoff=True, group_entities=True)
    q.add(member("high-1"))
    q.add(member("high-2"))
    one, two = q.pop(), q.pop()
    assert one is not None and two is not None
    q.requeue_rejected_group([(one, frozenset(), "pod group is unschedulable"),
                              (two, frozenset({FIT}), "0/1 nodes are available: 1 Insufficient cpu.")])
    assert [(e.where, e.unschedulable_count) for e in (one, two)] == [("backoff", 1), ("backoff", 1)]
    assert one.backoff_until == two.backoff_until > now[0] + 99
    assert q.move_for_event("PodGroup/Update", lambda *_: True) == 0
    assert q.pop() is None
    now[0] = two.backoff_until
    assert {q.pop(), q.pop()} == {one, two}
    q.requeue_rejected_group([(one, frozenset(), "again"), (two, frozenset({FIT}), "again")])
    assert [e.unschedulable_count for e in (one, two)] == [2, 2]


def test_a_rejected_group_held_at_pre_enqueue_waits_out_its_backoff_once_let_in() -> None:
    """requeueEntityWithQueueingStrategy: a group a PreEnqueue plugin held after its rejected attempt goes to backoffQ,
    not activeQ, when the plugin lets it in while the group still backs off."""
    now = [1000.0]
    gate = Preempting()
    q = SchedulingQueue(lambda p: 0, gate, lambda: now[0], group_entities=True)
    q.registered = registered
    gate.running = False
    q.add(member("p1"))
    q.add(member("p2"))
    p1, p2 = q.pop(), q.pop()
    assert p1 is not None and p2 is not None
    gate.running = True
    q.requeue_rejected_group([(p1, frozenset({FIT}), "no room"), (p2, frozenset(), "pod group is unschedulable")])
    assert [e.where for e in (p1, p2)] == ["gated", "gated"]
    gate.running = False
    assert q.move_for_event("Pod/Delete", interested) == 2
    assert [e.where for e in (p1, p2)] == ["backoff", "backoff"]
    now[0] = p1.backoff_until
    assert {q.pop(), q.pop()} == {p1, p2}

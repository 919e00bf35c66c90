"""SchedulingQueue: activeQ order, backoff, the unschedulable pool, event moves, flush, gates."""

from __future__ import annotations

import pytest
from kubeberth import Code, Status
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.queue import MAX_IN_UNSCHEDULABLE_SECONDS, SchedulingQueue
from kubeberth.testing import make_pod


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def priority_sort(pod: PodInfo) -> tuple[int, float]:
    """PrioritySort's key: higher priority first, then earlier queue entry."""
    return (-pod.priority, pod.queue_timestamp)


def gates(pod: PodInfo) -> Status:
    if pod.scheduling_gates:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("gated",))
    return Status.success()


def pod(name: str, priority: int = 0, **spec) -> PodInfo:
    return PodInfo.from_dict(make_pod(name, uid=name, priority=priority, **spec))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def q(clock: FakeClock) -> SchedulingQueue:
    return SchedulingQueue(priority_sort, gates, clock)


def drain(q: SchedulingQueue) -> list[str]:
    out = []
    while (e := q.pop()) is not None:
        out.append(e.pod.name)
    return out


def test_active_order_priority_then_time(q: SchedulingQueue, clock: FakeClock) -> None:
    for name, prio in [("low-early", 0), ("high-late", 10), ("mid", 5), ("low-late", 0), ("high-later", 10)]:
        q.add(pod(name, prio))
        clock.t += 1
    assert drain(q) == ["high-late", "high-later", "mid", "low-early", "low-late"]


def test_same_key_pops_in_insertion_order(clock: FakeClock) -> None:
    q = SchedulingQueue(lambda p: 0, gates, clock)
    for name in "abcde":
        q.add(pod(name))
    assert drain(q) == list("abcde")


def test_pop_marks_inflight_and_counts_attempts(q: SchedulingQueue) -> None:
    q.add(pod("a"))
    e = q.pop()
    assert e is not None and e.where == "inflight" and e.attempts == 1
    assert q.pop() is None
    assert q.counts()["inflight"] == 1
    q.add(e.pod)  # an update while in flight does not duplicate it
    assert q.pop() is None


def test_backoff_doubles_to_cap(q: SchedulingQueue) -> None:
    assert [q.backoff_duration(n) for n in range(1, 8)] == [1, 2, 4, 8, 10, 10, 10]


def test_backoff_custom(clock: FakeClock) -> None:
    q = SchedulingQueue(priority_sort, gates, clock, initial_backoff=0.5, max_backoff=3)
    assert [q.backoff_duration(n) for n in range(1, 6)] == [0.5, 1, 2, 3, 3]


def test_error_goes_to_backoff_with_growing_wait(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    waits = []
    for _ in range(6):
        e = q.pop()
        assert e is not None
        start = clock.t
        q.requeue_error(e, "boom")
        assert e.where == "backoff" and e.last_message == "boom"
        assert q.pop() is None  # still backing off
        expiry = q.next_backoff_expiry()
        assert expiry is not None
        clock.t = expiry - 0.001
        assert q.pop() is None
        clock.t = expiry
        waits.append(round(expiry - start, 6))
    assert waits == [1, 2, 4, 8, 10, 10]
    assert q.entries["a"].errors == 6


def test_backoff_queue_ordered_by_expiry(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a", 10))
    q.add(pod("b", 0))
    a, b = q.pop(), q.pop()
    a.consecutive_errors = 2  # its third error in a row: 4s backoff
    q.requeue_error(a, "x")
    q.requeue_error(b, "x")  # 1s backoff
    clock.t += 1
    assert drain(q) == []  # at its backoff time it still backs off (isEntityBackingoff: not before now)
    clock.t += 0.001
    assert drain(q) == ["b"]
    clock.t += 3
    assert drain(q) == ["a"]


def test_unschedulable_waits_for_event(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    e = q.pop()
    q.requeue_unschedulable(e, frozenset({"NodeResourcesFit"}), "0/1 nodes are available")
    assert e.where == "unschedulable"
    clock.t += 60
    assert q.pop() is None  # no event, no flush: stays put


def test_move_on_relevant_events_only(q: SchedulingQueue, clock: FakeClock) -> None:
    wants = {"Fit": {"Node/Add", "Pod/Delete"}, "Affinity": {"Node/Update"}}
    seen: list[tuple[str, str]] = []

    def interested(pod: object, plugin: str, event: str, *_changed: object) -> bool:
        seen.append((plugin, event))
        return event in wants[plugin]

    for name, plugins in [("fit", {"Fit"}), ("aff", {"Affinity"}), ("both", {"Fit", "Affinity"})]:
        q.add(pod(name))
        e = q.pop()
        q.requeue_unschedulable(e, frozenset(plugins), "no")
    clock.t += 20  # past any backoff
    assert q.move_for_event("Pod/Add", interested) == 0
    assert drain(q) == []
    assert q.move_for_event("Node/Update", interested) == 2
    assert sorted(drain(q)) == ["aff", "both"]
    assert q.entries["fit"].where == "unschedulable"
    assert q.move_for_event("Node/Add", interested) == 1
    assert drain(q) == ["fit"]
    assert ("Fit", "Pod/Add") in seen


def test_an_event_looks_only_at_parked_pods_in_queue_order(clock: FakeClock) -> None:
    """Pods waiting in activeQ or backoffQ are not asked about a cluster event (kube-scheduler walks
    its unschedulable pool only); the parked ones are looked at, and moved, in the order they were
    first queued, whatever order they were parked in."""
    q = SchedulingQueue(lambda p: 0, gates, clock)  # one key: ties pop in the order they were moved
    asked: list[str] = []

    def interested(pod: PodInfo, *_rest: object) -> bool:
        asked.append(pod.name)
        return True

    for name in ("a", "b", "c", "d", "e"):
        q.add(pod(name))
    popped = {e.pod.name: e for e in (q.pop(), q.pop(), q.pop())}  # a, b, c in flight; d, e active
    for name in ("c", "a"):  # parked out of order
        q.requeue_unschedulable(popped[name], frozenset({"Fit"}), "no")
    q.requeue_error(popped["b"], "boom")  # backing off
    clock.t += 20
    assert q.move_for_event("Node/Add", interested) == 2
    assert asked == ["a", "c"]
    q.done("a")
    asked.clear()
    assert q.move_for_event("Node/Add", interested) == 0 and asked == []
    assert drain(q) == ["d", "e", "c", "b"]


def test_unschedulable_without_plugins_moves_on_any_event(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    q.requeue_unschedulable(q.pop(), frozenset(), "no")
    clock.t += 20
    assert q.move_for_event("PersistentVolume/Add", lambda *_: False) == 1
    assert drain(q) == ["a"]


def test_moved_pod_still_backing_off_goes_to_backoff(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    e = q.pop()
    q.requeue_unschedulable(e, frozenset({"Fit"}), "no")
    clock.t += 0.5
    assert q.move_for_event("Node/Add", lambda *_: True) == 1
    assert e.where == "backoff"
    assert q.pop() is None
    clock.t += 0.501
    assert drain(q) == ["a"]


def test_requeued_by_names_the_event_that_moved_the_pod(q: SchedulingQueue, clock: FakeClock) -> None:
    """The event (its metric label) that moved a pod out of the unschedulable pool stays on the entry until it
    is popped, through backoffQ; a first attempt, and a pod moved back by a failure, have none."""
    q.add(pod("a"))
    q.add(pod("b"))
    a, b = q.pop(), q.pop()
    assert a is not None and b is not None and a.requeued_by == "" == b.requeued_by
    q.requeue_unschedulable(a, frozenset({"Fit"}), "no")
    q.requeue_unschedulable(b, frozenset({"Affinity"}), "no")
    assert a.requeued_by == ""
    q.move_for_event("Node/UpdateNodeLabel", lambda _p, plugin, *_: plugin == "Fit")
    assert a.where == "backoff" and a.requeued_by == "NodeUpdateNodeLabel" and b.requeued_by == ""
    q.move_for_event("Pod/Delete", lambda *_: True)
    assert b.requeued_by == "AssignedPodDelete" and a.requeued_by == "NodeUpdateNodeLabel"
    q.flush_unschedulable(max_age=0)
    clock.t += 1.001
    assert {e.pod.name: e.requeued_by for e in (q.pop(), q.pop()) if e is not None} == {
        "a": "NodeUpdateNodeLabel", "b": "AssignedPodDelete"}


def test_move_during_cycle_sends_to_backoff(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    e = q.pop()
    q.move_for_event("Node/Add", lambda *_: True)  # happens while "a" is being scheduled
    q.requeue_unschedulable(e, frozenset({"Fit"}), "no")
    assert e.where == "backoff"
    clock.t += 1.001
    assert drain(q) == ["a"]


def test_periodic_flush(q: SchedulingQueue, clock: FakeClock) -> None:
    assert MAX_IN_UNSCHEDULABLE_SECONDS == 300
    q.add(pod("old"))
    q.requeue_unschedulable(q.pop(), frozenset({"Fit"}), "no")
    clock.t += 100
    q.add(pod("young"))
    q.requeue_unschedulable(q.pop(), frozenset({"Fit"}), "no")
    clock.t += 199
    q.flush_unschedulable()
    assert drain(q) == []
    clock.t += 2  # "old" has now waited 301s, "young" 201s
    q.flush_unschedulable()
    assert drain(q) == ["old"]
    assert q.entries["young"].where == "unschedulable"


def test_gated_pods_wait_until_gates_removed(q: SchedulingQueue, clock: FakeClock) -> None:
    gated = pod("g", schedulingGates=[{"name": "example.com/wait"}])
    q.add(gated)
    q.add(pod("free"))
    assert q.entries["g"].where == "gated" and q.entries["g"].gated
    assert q.entries["g"].last_message == "gated"
    assert drain(q) == ["free"]
    q.move_for_event("Node/Add", lambda *_: True)
    q.flush_unschedulable(max_age=0)
    assert q.pop() is None  # neither events nor flushes release a gated pod
    q.update(pod("g", schedulingGates=[{"name": "example.com/wait"}]))
    assert q.pop() is None
    q.update(pod("g"))
    e = q.pop()
    assert e is not None and e.pod.name == "g" and not e.gated


def test_update_of_unschedulable_pod_retries(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    q.requeue_unschedulable(q.pop(), frozenset({"Fit"}), "no")
    clock.t += 5
    q.update(pod("a", priority=3))
    e = q.pop()
    assert e is not None and e.pod.priority == 3


def test_update_of_unschedulable_pod_asks_its_rejecting_plugins(q: SchedulingQueue, clock: FakeClock) -> None:
    """kube-scheduler's isPodWorthRequeuing for the pod's own update: it is retried only when a plugin
    that rejected it registered one of the update's TargetPod events (and its hint agrees)."""
    wants = {"TaintToleration": {"TargetPod/UpdatePodToleration"}}

    def interested(pod: object, plugin: str, event: str, *_changed: object) -> bool:
        return event in wants.get(plugin, set())

    q.add(pod("a"))
    q.requeue_unschedulable(q.pop(), frozenset({"TaintToleration"}), "no")
    clock.t += 20  # past any backoff
    q.update(pod("a", priority=3), interested, None, ["TargetPod/UpdatePodLabel"])
    assert q.pop() is None and q.entries["a"].where == "unschedulable"
    assert q.entries["a"].pod.priority == 3  # the update is kept
    q.update(pod("a", priority=4), interested, None, ["TargetPod/UpdatePodLabel", "TargetPod/UpdatePodToleration"])
    e = q.pop()
    assert e is not None and e.pod.priority == 4


@pytest.mark.parametrize(("registered", "admitted"), [((), False), (("TargetPod/UpdatePodSchedulingGatesEliminated",), True)])
def test_update_of_gated_pod_asks_its_gating_plugin(clock: FakeClock, registered: tuple[str, ...],
                                                    admitted: bool) -> None:
    """kube-scheduler's PriorityQueue.Update for a gated pod (its gating plugin is one of its PendingPlugins): PreEnqueue
    runs again only when the gating plugin registered an event of the update (isPodWorthRequeuing); a plugin with no
    event keeps the pod gated even once its gates are gone (plugins_test.go TestPreEnqueuePluginEventsToRegister)."""
    calls = []

    def gating(p: PodInfo) -> Status:
        calls.append(p.name)
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("gated",), "Gates") if p.scheduling_gates else Status()

    def interested(_pod: object, plugin: str, event: str, *_changed: object) -> bool:
        return plugin == "Gates" and event in registered

    q = SchedulingQueue(priority_sort, gating, clock)
    q.add(pod("g", schedulingGates=[{"name": "wait"}]))
    assert q.entries["g"].where == "gated" and q.entries["g"].gating_plugin == "Gates"
    q.update(pod("g", priority=2, schedulingGates=[{"name": "wait"}]), interested, None, ["TargetPod/Update"])
    assert calls == ["g"]  # an event it did not register: PreEnqueue is not run again
    q.update(pod("g"), interested, None, ["TargetPod/UpdatePodSchedulingGatesEliminated"])
    assert calls == ["g", "g"] if admitted else calls == ["g"]
    e = q.pop()
    assert (e is not None and e.pod.name == "g" and e.requeued_by == "TargetPodUpdatePodSchedulingGatesEliminated") \
        if admitted else (e is None and q.entries["g"].where == "gated" and q.entries["g"].pod.priority == 0)


def test_delete_and_done(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    q.add(pod("b"))
    q.delete("a")
    assert drain(q) == ["b"]
    q.done("b")
    assert len(q) == 0
    # a stale entry requeued after deletion is dropped
    q.add(pod("c"))
    e = q.pop()
    q.delete("c")
    q.requeue_error(e, "x")
    q.requeue_unschedulable(e, frozenset(), "x")
    clock.t += 20
    assert q.pop() is None and len(q) == 0


def test_resort_with_new_key(q: SchedulingQueue, clock: FakeClock) -> None:
    for name, prio in [("a", 1), ("b", 2), ("c", 3)]:
        q.add(pod(name, prio))
    q.resort(lambda p: p.priority, gates)  # lowest priority first now
    assert drain(q) == ["a", "b", "c"]


def test_counts(q: SchedulingQueue, clock: FakeClock) -> None:
    q.add(pod("a"))
    q.add(pod("b"))
    q.add(pod("g", schedulingGates=[{"name": "x"}]))
    q.requeue_unschedulable(q.pop(), frozenset(), "no")
    counts = q.counts()
    assert counts["active"] == 1 and counts["unschedulable"] == 1 and counts["gated"] == 1
    assert q.has_active()


def _queue_with_one_pod_per_place(pop_from_backoff: bool) -> SchedulingQueue:
    """TestPriorityQueue_Pop's queue: mpp in activeQ, hpp in backoffQ (rejected by "plugin"), hpp2
    in the error backoffQ, up in the unschedulable pool; both backoffs still running."""
    clock = FakeClock()
    q = SchedulingQueue(priority_sort, gates, clock, pop_from_backoff=pop_from_backoff)
    for name, priority in [("hpp", 1000), ("hpp2", 1000), ("up", 0)]:
        q.add(pod(name, priority))
    hpp, hpp2, up = q.pop(), q.pop(), q.pop()
    assert hpp is not None and hpp2 is not None and up is not None
    q.requeue_unschedulable(up, frozenset({"plugin"}), "")
    q.move_for_event("Node/Add", lambda p, *_: p.name == "hpp")  # an event during hpp's cycle sends it to backoffQ
    q.requeue_unschedulable(hpp, frozenset({"plugin"}), "")
    q.requeue_error(hpp2, "")
    q.add(pod("mpp", 500))
    assert (hpp.where, hpp2.where, up.where) == ("backoff", "backoff", "unschedulable")
    return q


@pytest.mark.parametrize(
    ("pop_from_backoff", "want"),
    [
        pytest.param(True, ["mpp", "hpp"], id="individual pod, PopFromBackoffQ enabled, pops from both activeQ and backoffQ"),
        pytest.param(False, ["mpp"], id="individual pod, PopFromBackoffQ disabled, pops only from activeQ"),
    ],
)
def test_priority_queue_pop(pop_from_backoff: bool, want: list[str]) -> None:
    """kube-scheduler TestPriorityQueue_Pop (individual-pod cases; GenericWorkload plays no part
    for single pods): with activeQ empty, SchedulerPopFromBackoffQ pops backoffQ's head, never a
    pod backing off after an error, nor an unschedulable one."""
    q = _queue_with_one_pod_per_place(pop_from_backoff)
    assert drain(q) == want


def test_pop_from_backoff_q_orders_same_expiry_by_active_q(clock: FakeClock) -> None:
    """lessBackoffCompletedWithPriority: under SchedulerPopFromBackoffQ, pods whose backoff ends
    together pop from backoffQ in activeQ's order (priority first), not in arrival order."""
    q = SchedulingQueue(priority_sort, gates, clock, pop_from_backoff=True)
    q.add(pod("low", 0))
    q.add(pod("high", 10))
    high, low = q.pop(), q.pop()
    assert high is not None and low is not None
    q.move_for_event("Node/Add", lambda *_: True)  # an event while they are in flight: both to backoffQ
    q.requeue_unschedulable(low, frozenset({"plugin"}), "")
    q.requeue_unschedulable(high, frozenset({"plugin"}), "")
    assert low.backoff_until == high.backoff_until > clock.t
    assert drain(q) == ["high", "low"]


def test_pop_from_backoff_q_skips_stale_backoff_items(clock: FakeClock) -> None:
    """A pod activated out of backoffQ and back in the error backoffQ is not popped early through
    the backoffQ item it left behind."""
    q = SchedulingQueue(priority_sort, gates, clock, pop_from_backoff=True)
    q.add(pod("a"))
    a = q.pop()
    assert a is not None
    q.move_for_event("Node/Add", lambda *_: True)  # an event while it is in flight: to backoffQ
    q.requeue_unschedulable(a, frozenset({"plugin"}), "")
    q.activate(["a"])
    assert q.pop() is a
    q.requeue_error(a, "boom")
    assert a.where == "backoff" and q.pop() is None
    clock.t = a.backoff_until
    assert q.pop() is a


def test_released_gated_pod_still_backing_off_goes_to_backoff(clock: FakeClock) -> None:
    """kube-scheduler's requeuePodWithQueueingStrategy: a pod rejected, then held by a PreEnqueue plugin on its way
    back, and released by an event its gating plugin registered while its backoff runs, waits in backoffQ (not
    activeQ); once the backoff is over it is popped."""
    gate = {"on": False}

    def pre_enqueue(p: PodInfo) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("held",), "Gates") if gate["on"] else Status()

    q = SchedulingQueue(priority_sort, pre_enqueue, clock)
    q.add(pod("r"))
    e = q.pop()
    assert e is not None
    q.requeue_unschedulable(e, frozenset({"NodeResourcesFit"}), "no room")
    assert q.entries["r"].where == "unschedulable" and q.entries["r"].backoff_until > clock()
    gate["on"] = True
    q.move_for_event("Node/Add", lambda *_: True)
    assert q.entries["r"].where == "gated"
    gate["on"] = False
    q.move_for_event("Pod/Delete", lambda *_: True, registered=lambda *_: True)
    assert q.entries["r"].where == "backoff"
    clock.t += 20
    e = q.pop()
    assert e is not None and e.pod.name == "r"

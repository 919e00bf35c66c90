"""The events received while pods are in flight (kube-scheduler's inFlightPods / inFlightEvents): a pod that comes
back rejected is retried only when one of them interests a plugin that rejected it. Scenarios from v1.37.2
backend/queue/scheduling_queue_test.go Test_InFlightPods (its single-pod cases; kubeberth has no PendingPlugins, and
its pod groups are queued member by member)."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Status
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.in_flight import InFlightEvents
from kubeberth.scheduling.queue import QueuedPod, SchedulingQueue
from kubeberth.testing import make_pod

PV_ADD, PVC_ADD, NODE_ADD, CSI_NODE_UPDATE, POD_ADD = (
    "PersistentVolume/Add", "PersistentVolumeClaim/Add", "Node/Add", "CSINode/Update", "Pod/Add")

# Each scenario: its upstream name, the hints (event -> {plugin: Queue?}), the actions ("pop", pod), ("event", event),
# ("requeue", pod, rejecting plugins), and the pods wanted in flight, the recorded events, and where the pods are.
SCENARIOS: list[tuple[str, dict[str, dict[str, bool]], list[tuple[Any, ...]], list[str], list[str], dict[str, str]]] = [
    ("Pod and interested events are registered in inFlightPods/inFlightEvents",
     {PV_ADD: {"fooPlugin1": True}},
     [("event", PVC_ADD), ("pop", "pod1"), ("event", PV_ADD)],
     ["pod1"], [PV_ADD], {"pod1": "inflight"}),
    ("Pod, registered in inFlightPods, is enqueued back to backoffQ",
     {e: {"fooPlugin1": True} for e in (PV_ADD, NODE_ADD, PVC_ADD)},
     [("event", PVC_ADD), ("pop", "pod1"), ("event", PV_ADD), ("pop", "pod2"), ("event", NODE_ADD),
      ("requeue", "pod1", ())],
     ["pod2"], [NODE_ADD], {"pod1": "backoff", "pod2": "inflight"}),
    ("All Pods registered in inFlightPods are enqueued back to activeQ",
     {e: {"fooPlugin1": True} for e in (PV_ADD, NODE_ADD, PVC_ADD, CSI_NODE_UPDATE)},
     [("event", PVC_ADD), ("pop", "pod1"), ("event", PV_ADD), ("pop", "pod2"), ("event", NODE_ADD),
      ("requeue", "pod1", ()), ("event", CSI_NODE_UPDATE), ("requeue", "pod2", ())],
     [], [], {"pod1": "backoff", "pod2": "backoff"}),
    ("One intermediate Pod registered in inFlightPods is enqueued back to activeQ",
     {e: {"fooPlugin1": True} for e in (PV_ADD, NODE_ADD, POD_ADD)},
     [("event", PVC_ADD), ("pop", "pod1"), ("event", PV_ADD), ("pop", "pod2"), ("event", NODE_ADD), ("pop", "pod3"),
      ("event", POD_ADD), ("requeue", "pod2", ())],
     ["pod1", "pod3"], [PV_ADD, NODE_ADD, POD_ADD], {"pod1": "inflight", "pod2": "backoff", "pod3": "inflight"}),
    ("events before popping Pod are ignored when Pod is enqueued back to queue",
     {POD_ADD: {"fooPlugin1": False}, PVC_ADD: {"fooPlugin1": True}},
     [("event", PVC_ADD), ("pop", "pod1"), ("event", POD_ADD), ("requeue", "pod1", ("fooPlugin1",))],
     [], [], {"pod1": "unschedulable"}),
    ("pod is enqueued to unschedulable pod pool if no events that can make the pod schedulable",
     {POD_ADD: {"fooPlugin1": True}},
     [("pop", "pod1"), ("event", NODE_ADD), ("requeue", "pod1", ("fooPlugin1",))],
     [], [], {"pod1": "unschedulable"}),
    ("pod is enqueued to unschedulable pod pool because the failed plugin has a hint fn but it returns Skip",
     {POD_ADD: {"fooPlugin1": False}},
     [("pop", "pod1"), ("event", POD_ADD), ("requeue", "pod1", ("fooPlugin1",))],
     [], [], {"pod1": "unschedulable"}),
    ("pod is enqueued to backoffQ because the failed plugin has a hint fn and it returns Queue",
     {POD_ADD: {"fooPlugin1": True}},
     [("pop", "pod1"), ("event", POD_ADD), ("requeue", "pod1", ("fooPlugin1",))],
     [], [], {"pod1": "backoff"}),
    ("a concurrent event received while some other pod was in flight, before this pod was popped, is ignored",
     {NODE_ADD: {"fooPlugin1": True}, POD_ADD: {"fooPlugin1": False}},
     [("pop", "pod1"), ("event", NODE_ADD), ("pop", "pod2"), ("event", POD_ADD), ("requeue", "pod2", ("fooPlugin1",)),
      ("requeue", "pod1", ("fooPlugin1",))],
     [], [], {"pod1": "backoff", "pod2": "unschedulable"}),
]


def _queue(hints: dict[str, dict[str, bool]]) -> tuple[SchedulingQueue, dict[str, QueuedPod], Any]:
    def interested(_pod: PodInfo, plugin: str, event: str, _old: Any, _new: Any) -> bool:
        return hints.get(event, {}).get(plugin, False)

    q = SchedulingQueue(lambda p: p.queue_timestamp, lambda _p: Status(), lambda: 1000.0)
    return q, {}, interested


@pytest.mark.parametrize(("hints", "actions", "pods", "events", "where"), [s[1:] for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])
def test_in_flight_pods(hints: dict[str, dict[str, bool]], actions: list[tuple[Any, ...]], pods: list[str],
                        events: list[str], where: dict[str, str]) -> None:
    q, popped, interested = _queue(hints)
    for name in sorted({a[1] for a in actions if a[0] == "pop"}):
        q.add(PodInfo.from_dict(make_pod(name, uid=name)))
    for action in actions:
        if action[0] == "pop":
            entry = q.pop()
            assert entry is not None and entry.pod.name == action[1]
            popped[action[1]] = entry
        elif action[0] == "event":
            q.move_for_event(action[1], interested)
        else:
            q.requeue_unschedulable(popped[action[1]], frozenset(action[2]), "rejected")
    assert q.in_flight.pods() == pods
    assert [e.event for e in q.in_flight.events()] == events
    assert {name: q.entries[name].where for name in where} == where


def test_a_pods_own_update_and_activation_count_for_it_alone() -> None:
    """addEventsIfPodInFlight (Update) and EventForceActivate (Activate) are about the in-flight pod itself: another
    pod in flight meanwhile does not see them. A wildcard activation retries the pod whatever rejected it."""
    labels = {"TargetPod/UpdatePodLabel": {"fooPlugin1": True}}
    q, _, interested = _queue(labels)
    for name in ("a", "b", "c"):
        q.add(PodInfo.from_dict(make_pod(name, uid=name)))
    a, b, c = q.pop(), q.pop(), q.pop()
    assert a is not None and b is not None and c is not None
    updated = PodInfo.from_dict(make_pod("a", uid="a", labels={"x": "y"}))
    q.update(updated, interested, a.pod, ["TargetPod/UpdatePodLabel"])
    q.activate(["b"])
    for entry in (c, b, a):
        q.requeue_unschedulable(entry, frozenset({"fooPlugin1"}), "rejected")
    assert (a.where, b.where, c.where) == ("backoff", "backoff", "unschedulable")
    assert q.entries["a"].pod is updated and len(q.in_flight) == 0


def test_events_are_kept_only_while_pods_are_in_flight() -> None:
    """unlockedDone trims the events before the oldest remaining pod; none are kept with no pod in flight, and a
    pod popped twice keeps its first place (the cleanup still happens once it is done)."""
    log = InFlightEvents()
    assert not log.record("Node/Add", None, None, None)
    log.popped("p1")
    log.record("PersistentVolume/Add", None, None, None)
    log.popped("p2")
    log.popped("p1")  # popped again by a bug: its place is kept
    log.record("Node/Add", None, None, None)
    assert [e.event for e in log.since("p1")] == ["PersistentVolume/Add", "Node/Add"]
    assert [e.event for e in log.since("p2")] == ["Node/Add"]
    log.done("p1")
    assert len(log) == 1 and [e.event for e in log.since("p2")] == ["Node/Add"]
    log.popped("p3")
    log.record("CSINode/Update", None, None, None)
    log.done("p3")
    assert len(log) == 2  # p2 still needs both
    log.done("p2")
    assert len(log) == 0 and log.pods() == [] and list(log.since("p2")) == []

"""The cluster events a scheduling queue receives while pods are in flight (popped, not yet done).

kube-scheduler's activeQueue keeps them in one shared list (inFlightEvents) in which each popped pod has its
place (inFlightPods): a pod that comes back rejected is retried only if an event received after its place is one
a plugin that rejected it registered and whose queueing hint says Queue (determineSchedulingHintForInFlightPod).
The list is trimmed as pods finish: the events before the oldest in-flight pod's place concern no pod any more.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, NamedTuple

# interested(pod, plugin, event, old, new): the plugin's registration and queueing hint (see SchedulingQueue)
Interest = Callable[[Any, str, str, Any, Any], bool]


class InFlightEvent(NamedTuple):
    """kube-scheduler's clusterEvent: the event, its objects, and how to ask a plugin about it (None for a
    wildcard event, such as ForceActivate, worth a retry whatever rejected the pod); `target`: the uid of the one
    pod it is about (the pod's own update or activation, recorded only while that pod is in flight), else "".
    A tuple: one is made per event while any pod is in flight."""

    event: str
    old: Any
    new: Any
    interested: Interest | None
    target: str = ""


class InFlightEvents:
    """activeQueue's inFlightPods and inFlightEvents: a pod's place is the number of events recorded before it was
    popped (an absolute position, so trimming the front moves no place)."""

    def __init__(self) -> None:
        self._places: OrderedDict[str, int] = OrderedDict()  # uid -> place, in pop order (so in place order)
        self._events: deque[InFlightEvent] = deque()
        self._base = 0  # the absolute position of _events[0]

    def __len__(self) -> int:
        return len(self._events)

    def pods(self) -> list[str]:
        """listInFlightPods: the uids in flight, in pop order."""
        return list(self._places)

    def events(self) -> list[InFlightEvent]:
        """listInFlightEvents: the events kept."""
        return list(self._events)

    def popped(self, uid: str) -> None:
        """unlockedMoveEntityToInFlight: the pod's place is after every event recorded so far (kept if it is
        already in flight)."""
        if uid not in self._places:
            self._places[uid] = self._base + len(self._events)

    def record(self, event: str, old: Any, new: Any, interested: Interest | None, target: str = "") -> bool:
        """addEventIfAnyInFlight (or, with `target`, addEventsIfPodInFlight): keep the event while a pod (that
        pod) is in flight; returns whether it was kept."""
        if not self._places or (target and target not in self._places):
            return False
        self._events.append(InFlightEvent(event, old, new, interested, target))
        return True

    def since(self, uid: str) -> Iterator[InFlightEvent]:
        """clusterEventsForPod: the events recorded after the pod's place that concern it (none when it is not
        in flight)."""
        place = self._places.get(uid)
        if place is None:
            return iter(())
        return (e for e in islice(self._events, place - self._base, None) if not e.target or e.target == uid)

    def done(self, uid: str) -> None:
        """unlockedDone: the pod leaves; the events before the oldest remaining place are dropped."""
        if self._places.pop(uid, None) is None:
            return
        if not self._places:
            self._events.clear()
            self._base = 0
            return
        first = next(iter(self._places.values()))
        while self._base < first:
            self._events.popleft()
            self._base += 1

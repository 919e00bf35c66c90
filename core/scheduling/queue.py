"""SchedulingQueue: activeQ, backoffQ and the unschedulable pool, as kube-scheduler keeps them.

Touched only by the scheduling thread. activeQ is ordered by the profile's queue_sort key;
backoffQ by backoff expiry (two heaps, as kube-scheduler's backoffQueue: pods rejected by plugins,
and pods that came back after an error); unschedulable pods wait for a cluster event one of the
plugins that rejected them cares about, or for the periodic flush.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cache.podinfo import PodInfo

MAX_IN_UNSCHEDULABLE_SECONDS = 300.0  # kube-scheduler's podMaxInUnschedulablePodsDuration
BACKOFF_WINDOW_SECONDS = 1.0  # kube-scheduler's backoffQOrderingWindowDuration
# kube-scheduler's queue_incoming_pods_total event labels for the queue's own moves.
POD_ADD = "UnscheduledPodAdd"
POD_UPDATE = "UnscheduledPodUpdate"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"
_WAITING = frozenset({"active", "backoff", "unschedulable", "gated"})
_PARKED = frozenset({"unschedulable", "gated"})  # the places a cluster event can move a pod out of


def event_label(event: str) -> str:
    """kube-scheduler's ClusterEvent.Label(): Node/Add -> NodeAdd, Node/UpdateNodeLabel ->
    NodeUpdateNodeLabel; a placed pod's Pod/Delete -> AssignedPodDelete (its AssignedPod resource)."""
    if event.startswith("Pod/"):
        return "AssignedPod" + event[4:]
    return event.replace("/", "", 1)


@dataclass(eq=False)
class QueuedPod:
    pod: PodInfo
    attempts: int = 0
    timestamp: float = 0.0  # when it (re)entered the queue
    backoff_until: float = 0.0
    unschedulable_plugins: frozenset[str] = frozenset()
    gated: bool = False
    gating_plugin: str = ""  # the PreEnqueue plugin that holds a gated pod
    last_message: str = ""
    move_seq_at_pop: int = 0
    errors: int = 0
    # kube-scheduler's UnschedulableCount and ConsecutiveErrorsCount: the backoff's exponent (the
    # errors' while the last attempts erred, else the unschedulable results'), not the pops.
    unschedulable_count: int = 0
    consecutive_errors: int = 0
    after_error: bool = False  # the last attempt ended in an error (kube-scheduler's error backoffQ)
    heap_seq: int = -1  # the seq of its current activeQ/backoffQ heap item (older ones are stale)
    where: str = ""  # active | backoff | unschedulable | gated | inflight
    extra: dict[str, Any] = field(default_factory=dict)
    since: float = 0.0  # when it entered `where`
    order: int = 0  # its place in `entries` (insertion order), kept while its uid stays queued
    waited: dict[str, float] = field(default_factory=dict)  # seconds per queue since the last pop
    # The event (kube-scheduler's label) that last moved it out of the unschedulable pool or gating,
    # since the last pop: why it is being retried ("" when it never waited there).
    requeued_by: str = ""


class SchedulingQueue:
    def __init__(
        self,
        sort_key: Callable[[PodInfo], Any],
        pre_enqueue: Callable[[PodInfo], Any],
        clock: Callable[[], float],
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        pop_from_backoff: bool = False,
    ) -> None:
        """`pop_from_backoff`: the SchedulerPopFromBackoffQ feature gate (see `pop`)."""
        self.sort_key = sort_key
        self.pre_enqueue = pre_enqueue
        self.clock = clock
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.entries: dict[str, QueuedPod] = {}
        # The unschedulable and gated entries, so a cluster event looks at those only (kube-scheduler
        # walks its unschedulablePods, not activeQ or backoffQ); iterated in `entries` order.
        self._parked: dict[str, QueuedPod] = {}
        self._order = itertools.count()
        self._active: list[tuple[Any, int, QueuedPod]] = []
        self.pop_from_backoff = pop_from_backoff
        # backoffQ: (expiry, activeQ key under SchedulerPopFromBackoffQ else None, seq, entry);
        # the error backoffQ: (expiry, seq, entry). kube-scheduler's entityBackoffQ / entityErrorBackoffQ.
        self._backoff: list[tuple[float, Any, int, QueuedPod]] = []
        self._error_backoff: list[tuple[float, int, QueuedPod]] = []
        self._seq = itertools.count()
        self.move_seq = 0  # bumped by every move request (kube-scheduler's moveRequestCycle)
        # Called as on_incoming(queue, event) on every arrival: kube-scheduler's
        # scheduler_queue_incoming_pods_total{queue,event}. None costs nothing.
        self.on_incoming: Callable[[str, str], None] | None = None
        self._event = POD_ADD  # the label of the move in progress
        # Did `plugin` register for `event` (its requeue_on, no hint)? Set by the scheduler.
        self.registered: Callable[[PodInfo, str, str], bool] = lambda pod, plugin, event: True

    def _arrive(self, entry: QueuedPod, where: str) -> None:
        """Move `entry` to `where`, accounting the time spent where it was (for traces)."""
        previous = entry.where
        if previous == where:
            return
        now = self.clock()
        if previous in _WAITING:
            entry.waited[previous] = entry.waited.get(previous, 0.0) + (now - entry.since)
        entry.where = where
        entry.since = now
        if previous in _PARKED:
            self._parked.pop(entry.pod.uid, None)
            entry.requeued_by = self._event
        if where in _PARKED:
            self._parked[entry.pod.uid] = entry
        if self.on_incoming is not None and where in _WAITING:
            self.on_incoming("unschedulable" if where == "gated" else where, self._event)

    # ---- sizes -------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        out = {"active": 0, "backoff": 0, "unschedulable": 0, "gated": 0, "inflight": 0}
        for e in self.entries.values():
            out[e.where] = out.get(e.where, 0) + 1
        return out

    def has_active(self) -> bool:
        return any(e.where == "active" for _, _, e in self._active)

    def __len__(self) -> int:
        return len(self.entries)

    # ---- adding ------------------------------------------------------------------------
    def add(self, pod: PodInfo) -> None:
        """A new pending pod (or an updated one); gated pods are held until pre_enqueue passes."""
        self._event = POD_ADD
        entry = self.entries.get(pod.uid)
        if entry is None:
            entry = QueuedPod(pod, timestamp=self.clock())
            self._insert(entry)
        else:
            entry.pod = pod
            if entry.where in ("active", "backoff", "inflight"):
                return
        pod.queue_timestamp = entry.timestamp
        self._enqueue_checked(entry)

    def _enqueue_checked(self, entry: QueuedPod, backoff: bool = False) -> None:
        """PreEnqueue, then activeQ (or backoffQ): kube-scheduler runs PreEnqueue on every move
        into activeQ or backoffQ (SchedulerPopFromBackoffQ), not when backoff ends."""
        status = self.pre_enqueue(entry.pod)
        if not status.ok:
            entry.gated = True
            entry.gating_plugin = status.plugin or ""
            entry.last_message = status.message
            if entry.where != "gated":
                self._arrive(entry, "gated")
            return
        entry.gated = False
        entry.gating_plugin = ""
        if backoff:
            self._push_backoff(entry)
        else:
            self._push_active(entry)

    def _push_active(self, entry: QueuedPod) -> None:
        self._arrive(entry, "active")
        entry.pod.queue_timestamp = entry.timestamp
        entry.heap_seq = next(self._seq)
        heapq.heappush(self._active, (self.sort_key(entry.pod), entry.heap_seq, entry))

    def _push_backoff(self, entry: QueuedPod) -> None:
        """kube-scheduler's backoffQueue.add: a pod with no rejecting plugin (it came back after an
        error) goes to the error backoffQ, which is never popped before its backoff ends. Under
        SchedulerPopFromBackoffQ, pods with the same expiry are ordered as activeQ orders them
        (lessBackoffCompletedWithPriority)."""
        self._arrive(entry, "backoff")
        entry.heap_seq = next(self._seq)
        entry.pod.queue_timestamp = entry.timestamp  # activeQ's order within a window: the refreshed timestamp
        if entry.after_error or not entry.unschedulable_plugins:
            heapq.heappush(self._error_backoff, (entry.backoff_until, entry.heap_seq, entry))
            return
        key = self.sort_key(entry.pod) if self.pop_from_backoff else None
        heapq.heappush(self._backoff, (entry.backoff_until, key, entry.heap_seq, entry))

    def backoff_duration(self, count: int) -> float:
        """calculateBackoffDuration: initial * 2^(count-1), capped at the maximum; none for count 0."""
        if count <= 0:
            return 0.0
        duration = self.initial_backoff
        for _ in range(1, count):
            duration *= 2
            if duration > self.max_backoff:
                return self.max_backoff
        return min(duration, self.max_backoff)

    def backoff_time(self, entry: QueuedPod) -> float | None:
        """kube-scheduler's getBackoffTime: the pod's timestamp (when it came back) plus the backoff
        of its count, the consecutive errors when the last attempt erred, else the unschedulable
        results; None (no backoff) with a zero maximum or before any attempt. Under
        SchedulerPopFromBackoffQ aligned down to the 1 s ordering window (alignToWindow)."""
        count = entry.consecutive_errors if entry.consecutive_errors > 0 else entry.unschedulable_count
        if self.max_backoff <= 0 or count == 0:
            return None
        expiry = entry.timestamp + self.backoff_duration(count)
        return self._align(expiry) if self.pop_from_backoff else expiry

    @staticmethod
    def _align(t: float) -> float:
        return math.floor(t / BACKOFF_WINDOW_SECONDS) * BACKOFF_WINDOW_SECONDS

    def _backoff_until(self, entry: QueuedPod) -> float:
        """When the pod stops backing off (isEntityBackingoff: while its backoff time is not before
        the current window, or, without SchedulerPopFromBackoffQ, not before now): the window after
        its aligned backoff time, so the pods of one window complete together and pop in activeQ's
        order; the first instant after its backoff time without the gate."""
        expiry = self.backoff_time(entry)
        if expiry is None:
            return 0.0
        if self.pop_from_backoff:
            return expiry + BACKOFF_WINDOW_SECONDS
        return math.nextafter(expiry, math.inf)

    def add_backoff(self, entry: QueuedPod) -> None:
        """kube-scheduler's backoffQueue.add: `entry` (its timestamp and counts set) waits in
        backoffQ, or the error backoffQ, until its backoff time has passed."""
        self._insert(entry)
        entry.backoff_until = self._backoff_until(entry)
        self._push_backoff(entry)

    # ---- popping -----------------------------------------------------------------------
    def pop(self) -> QueuedPod | None:
        """kube-scheduler's activeQueue.pop: the head of activeQ; when activeQ is empty and
        SchedulerPopFromBackoffQ is on, the head of backoffQ although it is still backing off
        (the earliest expiry; never a pod of the error backoffQ), as the queue would otherwise
        sit idle."""
        self.flush_backoff()
        while self._active:
            _, seq, entry = heapq.heappop(self._active)
            if self._current(entry, "active", seq):
                return self._to_inflight(entry)
        if self.pop_from_backoff:
            return self._pop_backoff()
        return None

    def _pop_backoff(self) -> QueuedPod | None:
        """kube-scheduler's backoffQueue.popBackoff: the head of backoffQ, not of the error one."""
        while self._backoff:
            item = heapq.heappop(self._backoff)
            entry = item[-1]
            if self._current(entry, "backoff", item[-2]):
                self._event = POP_FROM_BACKOFF_Q
                self._arrive(entry, "active")
                return self._to_inflight(entry)
        return None

    def _current(self, entry: QueuedPod, where: str, seq: int) -> bool:
        """Is this heap item (`seq`) still the pod's place, not a stale copy left behind by a move?"""
        return entry.where == where and entry.heap_seq == seq and self.entries.get(entry.pod.uid) is entry

    def _to_inflight(self, entry: QueuedPod) -> QueuedPod:
        self._arrive(entry, "inflight")
        entry.attempts += 1
        entry.move_seq_at_pop = self.move_seq
        return entry

    def pop_members(self, uids: Iterable[str]) -> list[QueuedPod]:
        """Take these pods (a PodGroup's other members) out of the queue with the one just popped:
        kube-scheduler queues a group's pods as one entity under GenericWorkload, so they are tried
        together. Gated and in-flight ones stay where they are."""
        taken = []
        for uid in uids:
            entry = self.entries.get(uid)
            if entry is not None and entry.where in ("active", "backoff", "unschedulable"):
                self._arrive(entry, "inflight")
                entry.attempts += 1
                entry.move_seq_at_pop = self.move_seq
                taken.append(entry)
        return taken

    def flush_backoff(self) -> list[QueuedPod]:
        """kube-scheduler's flushBackoffQCompleted (popAllBackoffCompleted): both backoff heaps,
        earliest first; returns the pods moved to activeQ, in order."""
        now = self.clock()
        moved = []
        while (heap := self._earliest_heap()) is not None and heap[0][0] <= now:
            item = heapq.heappop(heap)
            if self._current(item[-1], "backoff", item[-2]):
                entry = item[-1]
                self._event = BACKOFF_COMPLETE
                self._push_active(entry)
                moved.append(entry)
        return moved

    def _earliest_heap(self) -> list[Any] | None:
        """The backoff heap whose head expires first (None when both are empty)."""
        heaps = [h for h in (self._backoff, self._error_backoff) if h]
        return min(heaps, key=lambda h: h[0][0]) if heaps else None

    def next_backoff_expiry(self) -> float | None:
        """The earliest expiry of either backoff heap (the loop sleeps until then)."""
        heads = [self._head_expiry(h) for h in (self._backoff, self._error_backoff)]
        expiries = [e for e in heads if e is not None]
        return min(expiries) if expiries else None

    def _head_expiry(self, heap: list[Any]) -> float | None:
        """The expiry of the first current pod of `heap`, dropping stale items on the way."""
        while heap:
            if self._current(heap[0][-1], "backoff", heap[0][-2]):
                return float(heap[0][0])
            heapq.heappop(heap)
        return None

    # ---- after a cycle -----------------------------------------------------------------
    def requeue_unschedulable(self, entry: QueuedPod, plugins: frozenset[str], message: str) -> None:
        """kube-scheduler's AddUnschedulableIfNotPresent: backoffQ if a move happened meanwhile."""
        if self.entries.get(entry.pod.uid) is not entry:
            return
        now = self.clock()
        entry.unschedulable_plugins = plugins
        entry.after_error = False
        entry.last_message = message
        entry.timestamp = now
        if plugins:  # rejected by plugins: the error, if any, is gone
            entry.unschedulable_count += 1
            entry.consecutive_errors = 0
        else:  # no plugin to blame: kube-scheduler counts it as an error
            entry.consecutive_errors += 1
        entry.backoff_until = self._backoff_until(entry)
        self._event = ATTEMPT_FAILURE
        if self.move_seq != entry.move_seq_at_pop:
            self._enqueue_checked(entry, backoff=True)
        else:
            self._arrive(entry, "unschedulable")

    def requeue_error(self, entry: QueuedPod, message: str) -> None:
        if self.entries.get(entry.pod.uid) is not entry:
            return
        entry.errors += 1
        entry.consecutive_errors += 1
        entry.after_error = True
        entry.last_message = message
        entry.timestamp = self.clock()  # kube-scheduler refreshes it for every pod that comes back
        entry.backoff_until = self._backoff_until(entry)
        self._event = ATTEMPT_FAILURE
        self._push_backoff(entry)

    def done(self, uid: str) -> None:
        self.entries.pop(uid, None)
        self._parked.pop(uid, None)

    def delete(self, uid: str) -> None:
        self.entries.pop(uid, None)
        self._parked.pop(uid, None)

    def _insert(self, entry: QueuedPod) -> None:
        """Put `entry` in `entries`; a uid already there keeps its place (as a dict key does)."""
        uid = entry.pod.uid
        held = self.entries.get(uid)
        entry.order = held.order if held is not None else next(self._order)
        if held is not None and held is not entry:
            self._parked.pop(uid, None)
        if entry.where in _PARKED:
            self._parked[uid] = entry
        self.entries[uid] = entry

    def _parked_entries(self) -> list[QueuedPod]:
        return sorted(self._parked.values(), key=lambda e: e.order)

    # ---- cluster events ----------------------------------------------------------------
    def move_for_event(
        self,
        event: str,
        interested: Callable[[PodInfo, str, str, Any, Any], bool],
        skip: str = "",
        old: Any = None,
        new: Any = None,
        registered: Callable[[PodInfo, str, str], bool] | None = None,
    ) -> int:
        """Move unschedulable pods that a plugin that rejected them registered for `event`.

        Gated pods whose PreEnqueue plugin registered for `event` are checked again, as
        kube-scheduler does for a gated pod (e.g. a new gang member lets the others in).
        `interested(pod, plugin, event, old, new)`: the plugin's declared interest in its pod's
        profile (its queueing hint sees the changed object, `old` and `new`); `skip`: the uid of
        a pod the event is about, left where it is; `registered(pod, plugin, event)`: the plugin's
        `requeue_on` alone, without its hint (default: the queue's `registered`)."""
        registered = registered or self.registered
        self.move_seq += 1
        moved = 0
        self._event = event_label(event)
        for entry in self._parked_entries():
            if entry.pod.uid == skip:
                continue
            if entry.where == "gated":
                # kube-scheduler: only events the gating plugin registered for, then the hints of
                # every plugin that rejected the pod (the gating one included) decide.
                gating = entry.gating_plugin
                if gating and registered(entry.pod, gating, event) and any(
                    interested(entry.pod, p, event, old, new) for p in entry.unschedulable_plugins | {gating}
                ):
                    self._enqueue_checked(entry)
                    moved += entry.where == "active"
                continue
            if entry.where != "unschedulable":
                continue
            plugins = entry.unschedulable_plugins
            if not plugins or any(interested(entry.pod, p, event, old, new) for p in plugins):
                self._move(entry)
                moved += 1
        return moved

    def activate(self, uids: list[str]) -> None:
        """kube-scheduler's Activate: move these pods from backoff or the unschedulable pool to
        activeQ at once; gated pods go through PreEnqueue again (in-flight pods stay)."""
        self._event = "ForceActivate"
        for uid in uids:
            entry = self.entries.get(uid)
            if entry is None:
                continue
            if entry.where == "backoff":
                self._push_active(entry)
            elif entry.where in ("unschedulable", "gated"):
                self._enqueue_checked(entry)

    def _move(self, entry: QueuedPod) -> None:
        self._enqueue_checked(entry, backoff=entry.backoff_until > self.clock())

    def flush_unschedulable(self, max_age: float = MAX_IN_UNSCHEDULABLE_SECONDS) -> None:
        now = self.clock()
        self._event = UNSCHEDULABLE_TIMEOUT
        for entry in self._parked_entries():
            if entry.where == "unschedulable" and now - entry.timestamp >= max_age:
                self._move(entry)

    def update(
        self,
        pod: PodInfo,
        interested: Callable[[PodInfo, str, str, Any, Any], bool] | None = None,
        old: PodInfo | None = None,
        events: Sequence[str] = (),
    ) -> None:
        """A pending pod changed: re-run pre_enqueue for gated pods; retry an unschedulable one when
        it has no rejecting plugin, or one of them registered an event of the update (`events`,
        TargetPod/...) and its hint agrees (kube-scheduler's isPodWorthRequeuing). Without
        `interested` every update retries the pod."""
        entry = self.entries.get(pod.uid)
        if entry is None:
            self.add(pod)
            return
        entry.pod = pod
        self._event = POD_UPDATE
        if entry.where == "gated":
            self._enqueue_checked(entry)
        elif entry.where == "unschedulable":
            plugins = entry.unschedulable_plugins
            if interested is None or not plugins:
                self._move(entry)
                return
            for event in events:
                if any(interested(pod, p, event, old, pod) for p in plugins):
                    self._event = event.replace("/", "", 1)
                    self._move(entry)
                    return

    def resort(self, sort_key: Callable[[PodInfo], Any], pre_enqueue: Callable[[PodInfo], Any]) -> None:
        """A new generation may bring a different queue_sort: rebuild the active heap (and
        backoffQ, ordered by it within an expiry under SchedulerPopFromBackoffQ)."""
        self.sort_key, self.pre_enqueue = sort_key, pre_enqueue
        active = [e for _, seq, e in self._active if self._current(e, "active", seq)]
        self._active = []
        for e in active:
            self._push_active(e)
        if self.pop_from_backoff:
            backoff = [item[-1] for item in self._backoff if self._current(item[-1], "backoff", item[-2])]
            self._backoff = []
            for e in backoff:
                self._push_backoff(e)

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
from functools import lru_cache
from typing import Any

from ..api.status import Code, Status
from ..cache.podinfo import PodInfo
from .in_flight import InFlightEvents

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


@lru_cache(maxsize=1024)  # a few dozen event names, one call per cluster event
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
    group_held: bool = False  # gated because another pod of its PodGroup is (the group is one entity)
    # Back from an attempt of its PodGroup that did not succeed: it backs off as part of the group entity,
    # whose own rejecting plugins are none (kube-scheduler's QueuedPodGroupInfo), so in the error backoffQ.
    group_attempt: bool = False


class SchedulingQueue:
    def __init__(
        self,
        sort_key: Callable[[PodInfo], Any],
        pre_enqueue: Callable[[PodInfo], Any],
        clock: Callable[[], float],
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        pop_from_backoff: bool = False,
        group_entities: bool = False,
    ) -> None:
        """`pop_from_backoff`: the SchedulerPopFromBackoffQ feature gate (see `pop`); `group_entities`: the
        GenericWorkload gate (see `move_for_event`)."""
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
        # GenericWorkload: a PodGroup's parked pods are moved by cluster events as one entity (see move_for_event).
        self.group_entities = group_entities
        self._gated_groups: dict[tuple[str, str], set[str]] = {}  # uids of each PodGroup's gated pods (may be stale)
        # backoffQ: (expiry, activeQ key under SchedulerPopFromBackoffQ else None, seq, entry);
        # the error backoffQ: (expiry, seq, entry). kube-scheduler's entityBackoffQ / entityErrorBackoffQ.
        self._backoff: list[tuple[float, Any, int, QueuedPod]] = []
        self._error_backoff: list[tuple[float, int, QueuedPod]] = []
        self._seq = itertools.count()
        self.move_seq = 0  # bumped by every move request (kube-scheduler's moveRequestCycle)
        # The events received while pods are in flight, asked about when one comes back rejected.
        self.in_flight = InFlightEvents()
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
        if where == "inflight":
            self.in_flight.popped(entry.pod.uid)
        elif previous == "inflight":
            self.in_flight.done(entry.pod.uid)
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
        key = _group_key(entry) if self.group_entities else None
        held_by = self._gated_sibling(entry, key) if status.ok and key is not None else None
        if held_by is not None:  # runPreEnqueuePlugins: a pod group is gated while any of its pods is
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (held_by.last_message,), held_by.gating_plugin)
        if not status.ok:
            entry.gated = True
            entry.group_held = held_by is not None
            entry.gating_plugin = status.plugin or ""
            entry.last_message = status.message
            if entry.where != "gated":
                self._arrive(entry, "gated")
            if key is not None:
                self._gated_groups.setdefault(key, set()).add(entry.pod.uid)
            return
        released = entry.gated and not entry.group_held
        entry.gated = entry.group_held = False
        entry.gating_plugin = ""
        if backoff:
            self._push_backoff(entry)
        else:
            self._push_active(entry)
        if released and key is not None:
            self._release_group(key)

    def _gated_sibling(self, entry: QueuedPod, key: tuple[str, str]) -> QueuedPod | None:
        """Another pod of the group gated by a PreEnqueue plugin of its own (not only held for the group)."""
        for uid in self._gated_groups.get(key, ()):
            other = self.entries.get(uid)
            if other is not None and other is not entry and other.where == "gated" and not other.group_held:
                return other
        return None

    def _release_group(self, key: tuple[str, str]) -> None:
        """A pod of the group passed PreEnqueue (or left): the pods held for the group try again."""
        uids = self._gated_groups.get(key, set())
        for uid in list(uids):
            other = self.entries.get(uid)
            if other is None or other.where != "gated":
                uids.discard(uid)
            elif other.group_held:
                self._move(other)
        if not uids:
            self._gated_groups.pop(key, None)

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
        if entry.after_error or not entry.unschedulable_plugins or entry.group_attempt:
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
        """kube-scheduler's AddUnschedulableIfNotPresent: backoffQ if an event received while the pod was in flight
        may make it schedulable (determineSchedulingHintForInFlightPod), else the unschedulable pool. A pod no
        plugin rejected goes to backoffQ if any move happened meanwhile."""
        if self.entries.get(entry.pod.uid) is not entry:
            return
        now = self.clock()
        entry.unschedulable_plugins = plugins
        entry.after_error = entry.group_attempt = False
        entry.last_message = message
        entry.timestamp = now
        if plugins:  # rejected by plugins: the error, if any, is gone
            entry.unschedulable_count += 1
            entry.consecutive_errors = 0
        else:  # no plugin to blame: kube-scheduler counts it as an error
            entry.consecutive_errors += 1
        entry.backoff_until = self._backoff_until(entry)
        self._event = ATTEMPT_FAILURE
        if self._worth_requeuing_in_flight(entry, plugins):
            self._enqueue_checked(entry, backoff=True)
        else:
            self._arrive(entry, "unschedulable")

    def _worth_requeuing_in_flight(self, entry: QueuedPod, plugins: frozenset[str]) -> bool:
        """determineSchedulingHintForInFlightPod: does an event received since the pod was popped interest a plugin
        that rejected it, its queueing hint saying Queue (isPodWorthRequeuing)? A wildcard event is worth it."""
        if not plugins:
            return self.move_seq != entry.move_seq_at_pop
        pod = entry.pod
        for e in self.in_flight.since(pod.uid):
            if e.interested is None or any(e.interested(pod, p, e.event, e.old, e.new) for p in plugins):
                return True
        return False

    def requeue_remaining(self, entry: QueuedPod, timestamp: float) -> None:
        """A pod group's pod left unscheduled by a successful attempt of its group (kube-scheduler's requeue of the
        group's remaining pods on success): to activeQ without backoff, its counts reset, its timestamp kept."""
        if self.entries.get(entry.pod.uid) is not entry or entry.where not in ("unschedulable", "backoff"):
            return
        entry.unschedulable_count = entry.consecutive_errors = 0
        entry.backoff_until = 0.0
        entry.timestamp = timestamp
        self._enqueue_checked(entry)

    def requeue_rejected_group(self, members: Sequence[tuple[QueuedPod, frozenset[str], str]]) -> None:
        """kube-scheduler's AddAttemptedPodGroupIfNeeded after a rejected attempt of a PodGroup: its pods
        (`members`: each with the plugins that rejected it and its message) go back as one entity, whose
        UnschedulableCount (one more than its members') and timestamp (now) give one backoff. The entity
        goes to backoffQ while backing off, else to activeQ, never to the unschedulable pool (a PreEnqueue
        plugin may still hold it): cluster events do not move it. Its own rejecting plugins are none, so it
        waits in the error backoffQ, which SchedulerPopFromBackoffQ does not pop early."""
        live = [(e, p, m) for e, p, m in members if self.entries.get(e.pod.uid) is e]
        if not live:
            return
        now = self.clock()
        count = max(e.unschedulable_count for e, _, _ in live) + 1
        self._event = ATTEMPT_FAILURE
        for entry, plugins, message in live:
            entry.unschedulable_plugins, entry.last_message = plugins, message
            entry.after_error, entry.group_attempt = False, True
            entry.unschedulable_count, entry.consecutive_errors = count, 0
            entry.timestamp = now
            entry.backoff_until = self._backoff_until(entry)
            self._enqueue_checked(entry, backoff=entry.backoff_until > now)

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
        self.in_flight.done(uid)

    def delete(self, uid: str) -> None:
        entry = self.entries.pop(uid, None)
        self._parked.pop(uid, None)
        self.in_flight.done(uid)
        if entry is not None and entry.where == "gated" and not entry.group_held and (key := _group_key(entry)):
            self._release_group(key)

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
        if self.group_entities and event == "PodGroup/Delete" and isinstance(old, dict):
            self._group_deleted(old)
        if not self._parked:  # nothing parked (a start's initial list, a drain): only the in-flight record
            self.in_flight.record(event, old, new, interested)
            return 0
        parked = self._parked_entries()
        groups = self._parked_groups(parked, skip) if self.group_entities else {}
        for members in groups.values():
            if self._group_worth_moving(members, event, interested, old, new, registered):
                moved += self._move_group(members)
        for entry in parked:
            if entry.pod.uid == skip or _group_key(entry) in groups:
                continue
            if entry.where == "gated":
                # kube-scheduler: only events the gating plugin registered for, then the hints of
                # every plugin that rejected the pod (the gating one included) decide.
                gating = entry.gating_plugin
                if gating and registered(entry.pod, gating, event) and any(
                    interested(entry.pod, p, event, old, new) for p in entry.unschedulable_plugins | {gating}
                ):
                    # requeuePodWithQueueingStrategy: a pod still backing off goes to backoffQ
                    self._enqueue_checked(entry, backoff=entry.backoff_until > self.clock())
                    moved += entry.where in ("active", "backoff")
                continue
            if entry.where != "unschedulable":
                continue
            plugins = entry.unschedulable_plugins
            if not plugins or any(interested(entry.pod, p, event, old, new) for p in plugins):
                self._move(entry)
                moved += 1
        self.in_flight.record(event, old, new, interested)  # addEventIfAnyInFlight
        return moved

    def _group_deleted(self, group: dict[str, Any]) -> None:
        """A PodGroup went: its queued pods go through PreEnqueue again, where they wait for it to come back
        (kube-scheduler moves them to incompletePodGroupPods); in-flight ones are left to their cycle."""
        meta = group.get("metadata") or {}
        key = (meta.get("namespace") or "", meta.get("name") or "")
        for entry in [e for e in self.entries.values() if _group_key(e) == key]:
            if entry.where in ("active", "backoff", "unschedulable") and not self.pre_enqueue(entry.pod).ok:
                self._enqueue_checked(entry)

    def _parked_groups(self, parked: list[QueuedPod], skip: str) -> dict[tuple[str, str], list[QueuedPod]]:
        """The parked members of each PodGroup (GenericWorkload: kube-scheduler queues a group's pods as one
        entity), `skip` left out."""
        groups: dict[tuple[str, str], list[QueuedPod]] = {}
        for entry in parked:
            key = _group_key(entry)
            if key is not None and entry.pod.uid != skip:
                groups.setdefault(key, []).append(entry)
        return groups

    @staticmethod
    def _group_worth_moving(
        members: list[QueuedPod], event: str, interested: Callable[[PodInfo, str, str, Any, Any], bool],
        old: Any, new: Any, registered: Callable[[PodInfo, str, str], bool],
    ) -> bool:
        """kube-scheduler's moveEntitiesToActiveOrBackoffQueue for a pod group entity: a gated entity only for an
        event its gating plugin registered for; then worth it when any member is (isEntityWorthRequeuing), a member
        being worth it when it has no rejecting plugin or one of them (its gating plugin included) says Queue."""
        gated = [m for m in members if m.where == "gated"]
        if gated and not any(m.gating_plugin and registered(m.pod, m.gating_plugin, event) for m in gated):
            return False
        for m in members:
            rejectors = m.unschedulable_plugins | ({m.gating_plugin} if m.where == "gated" and m.gating_plugin else set())
            if not rejectors or any(interested(m.pod, p, event, old, new) for p in rejectors):
                return True
        return False

    def _move_group(self, members: list[QueuedPod]) -> int:
        """requeueEntityWithQueueingStrategy for a pod group: PreEnqueue again for the gated members; if one is
        still gated the entity stays gated (the others wait where they are), else every member moves, to backoffQ
        while the entity still backs off (after a rejected attempt of the group), else to activeQ."""
        for m in members:
            if m.where == "gated":
                self._move(m)
        if not any(m.where == "gated" for m in members):
            for m in members:
                if m.where == "unschedulable":
                    self._move(m)
        return sum(m.where not in _PARKED for m in members)

    def activate(self, uids: list[str]) -> None:
        """kube-scheduler's Activate: move these pods from backoff or the unschedulable pool to
        activeQ at once; gated pods go through PreEnqueue again; an in-flight pod is retried if it comes back
        rejected."""
        self._event = "ForceActivate"
        for uid in uids:
            entry = self.entries.get(uid)
            if entry is None:
                continue
            if entry.where == "backoff":
                self._push_active(entry)
            elif entry.where in ("unschedulable", "gated"):
                self._enqueue_checked(entry)
            elif entry.where == "inflight":  # retried if it comes back rejected (EventForceActivate)
                self.in_flight.record("ForceActivate", None, entry.pod, None, target=uid)

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
        """A pending pod changed (kube-scheduler's PriorityQueue.Update for a pod in unschedulablePods):
        a gated or unschedulable pod is retried when it has no rejecting plugin, or one of them (for
        a gated pod its gating PreEnqueue plugin too, upstream's PendingPlugins) registered an event
        of the update (`events`, TargetPod/...) and its hint agrees (isPodWorthRequeuing); a gated
        pod goes through PreEnqueue again, so a gating plugin that registered no event keeps it
        gated whatever the update. Without `interested` every update retries the pod. An in-flight pod's update is
        recorded for it (addEventsIfPodInFlight), asked about if it comes back rejected."""
        entry = self.entries.get(pod.uid)
        if entry is None:
            self.add(pod)
            return
        entry.pod = pod
        self._event = POD_UPDATE
        if entry.where == "inflight" and interested is not None:  # addEventsIfPodInFlight
            for event in events:
                self.in_flight.record(event, old, pod, interested, target=pod.uid)
        if entry.where not in _PARKED:
            return
        gated = entry.where == "gated"
        plugins = entry.unschedulable_plugins | ({entry.gating_plugin} if gated and entry.gating_plugin else set())
        if interested is not None and plugins:
            worth = next((e for e in events if any(interested(pod, p, e, old, pod) for p in plugins)), None)
            if worth is None:
                return
            self._event = worth.replace("/", "", 1)
        if gated:
            self._enqueue_checked(entry, backoff=entry.backoff_until > self.clock())
        else:
            self._move(entry)

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


def _group_key(entry: QueuedPod) -> tuple[str, str] | None:
    """(namespace, PodGroup) of a pod that names one."""
    pod = entry.pod
    return (pod.namespace, pod.pod_group) if pod.pod_group else None

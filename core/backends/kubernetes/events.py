"""The event recorder: events.k8s.io/v1 Scheduled / FailedScheduling / Preempted, written by writer
threads of their own over a client of their own, deduplicated into series and rate limited per
(pod, reason) like client-go's recorder.

kube-scheduler builds two clientsets from one kubeconfig (cmd/kube-scheduler/app/options
createClients): the scheduler's and the event broadcaster's, each with its own token bucket of
clientConnection qps/burst. Events therefore never wait behind binds or status writes, and binds
never wait behind events; this recorder does the same with its own RawClient (own urllib3 pool,
own TokenBucket). client-go's broadcaster (tools/events) writes each event from a goroutine of its
own; here sixteen writer threads share the work, each pod's events always on the same thread (its
series state lives there, and a pod's events keep their order). Many, not one: a writer waits a
round trip per event, and with kube-apiserver answering in ~50 ms (a loaded 2-core machine) two
writers managed ~30 events/s and Scheduled events trailed their binds by 7 s at 30 pods/s; with
eight they trail by 0.2-1.5 s (p99) at 40 pods/s, the token bucket being the limit again. Sixteen,
as many as the binding workers: when round trips are slow rather than the token bucket short (an
API server answering in 0.7 s under a 50,000-pod burst, docs/reliability.md row 12), binds go at
16 per round trip and eight writers wrote events at half that rate, so the backlog grew by one
event for every two pods bound until the queue was full.

The queue is bounded (QUEUE_SIZE in all). Warnings (FailedScheduling: why a pod waits, the event
an operator looks for) are written before Normal ones (Scheduled: the pod's nodeName says as much),
and a Warning that finds its queue full takes the place of the oldest queued Normal event, which
is dropped; only a queue of nothing but Warnings drops a Warning.

Every event handed to `record` ends up counted exactly once, so the stop summary adds up:
emitted = created (a new Event) + aggregated (a recurrence carried by a series patch) + dropped
(queue full, a write given up, still queued or unreported when the shutdown flush ran out).
"""

from __future__ import annotations

import logging
import queue as queue_mod
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

from ...cache.podinfo import PodInfo
from ..base import ObjectRef
from .client import RawClient, WriteStats, best_effort_write, micro_time

log = logging.getLogger(__name__)

Item = tuple[PodInfo | ObjectRef, str, str, str, float]  # about a pod, or another object (the Lease)


@dataclass
class EventSeries:
    """One reported event and how often it recurred since (events.k8s.io `series`)."""

    name: str
    namespace: str
    count: int
    reported: int
    first: float
    last_flush: float
    tokens: float


class _Backlog(queue_mod.Queue[Item]):
    """A writer's bounded queue: Warning events first, then Normal ones, each oldest first."""

    def _init(self, maxsize: int) -> None:
        self.warnings: deque[Item] = deque()
        self.normal: deque[Item] = deque()

    def _qsize(self) -> int:
        return len(self.warnings) + len(self.normal)

    def _put(self, item: Item) -> None:
        (self.warnings if item[1] == "Warning" else self.normal).append(item)

    def _get(self) -> Item:
        return self.warnings.popleft() if self.warnings else self.normal.popleft()

    def displace(self, item: Item) -> bool:
        """The queue is full: queue Warning `item` in place of the oldest Normal event (dropped);
        False (nothing queued) when `item` is not a Warning or no Normal event is queued."""
        with self.mutex:
            if item[1] != "Warning" or not self.normal:
                return False
            self.normal.popleft()  # one out, one in: unfinished_tasks stays right
            self.warnings.append(item)
            self.not_empty.notify()
            return True


@dataclass
class _Shard:
    """One writer thread's queue and the series of the pods it writes for."""

    pending: _Backlog
    series: dict[tuple[str, str, str, str], EventSeries] = field(default_factory=dict)
    dirty: set[tuple[str, str, str, str]] = field(default_factory=set)
    last_sweep: float = 0.0
    thread: threading.Thread | None = None


class EventRecorder:
    """Queues events from the scheduling loop and binding workers (never blocking them) and writes
    them from `workers` background threads through `raw`, the event client."""

    EVENT_BURST = 25  # per (pod, reason) like client-go's spam filter
    EVENT_REFILL_SECONDS = 300.0
    SERIES_FLUSH_SECONDS = 30.0
    SERIES_FORGET_SECONDS = 600.0
    SWEEP_SECONDS = 1.0
    QUEUE_SIZE = 10000

    def __init__(self, raw: RawClient, stats: WriteStats, host: str, workers: int = 16) -> None:
        self.raw = raw
        self.stats = stats
        self.host = host
        self._shards = [_Shard(_Backlog(maxsize=max(1, self.QUEUE_SIZE // workers))) for _ in range(workers)]
        self._give_up = threading.Event()  # closing: a failed write is not retried
        self._deadline: float | None = None  # monotonic; set by close()
        self._lock = threading.Lock()

    # ---- the producers' side ------------------------------------------------------------
    def record(self, pod: PodInfo | ObjectRef, event_type: str, reason: str, message: str) -> None:
        self.stats.add("events_emitted")
        if self._deadline is not None:
            self.stats.add("events_dropped")
            return
        shard = self._shards[hash(pod.uid) % len(self._shards)]
        item = (pod, event_type, reason, message, time.time())
        try:
            shard.pending.put_nowait(item)
        except queue_mod.Full:
            shard.pending.displace(item)  # a Warning displaces a Normal event; either way one is dropped
            self.stats.add("events_dropped")

    # ---- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        self._deadline = None
        self._give_up.clear()
        for i, shard in enumerate(self._shards):
            if shard.thread is None or not shard.thread.is_alive():
                shard.thread = threading.Thread(target=self._run, args=(shard,), name=f"kubeberth-events-{i}",
                                                daemon=True)
                shard.thread.start()

    def idle(self) -> bool:
        """Nothing queued and nothing being written."""
        return all(s.pending.unfinished_tasks == 0 for s in self._shards)

    def backlog(self) -> int:
        """Events queued and not yet written (at most QUEUE_SIZE)."""
        return sum(s.pending.qsize() for s in self._shards)

    def close(self, timeout: float) -> None:
        """Accept no more events; the writers send what is queued for up to `timeout` seconds
        (a failed write is given up at once), then count the rest as dropped and exit."""
        with self._lock:
            if self._deadline is None:
                self._deadline = time.monotonic() + max(0.0, timeout)
        self._give_up.set()

    def join(self, grace: float = 2.0) -> bool:
        """Wait for the writers to exit (close() first); returns whether they all did. Whatever is
        left in a queue then (a writer still busy `grace` seconds past the deadline, an event
        recorded while close() ran) is counted as dropped."""
        end = (self._deadline or time.monotonic()) + grace
        for shard in self._shards:
            if shard.thread is not None:
                shard.thread.join(max(0.0, end - time.monotonic()))
        for shard in self._shards:
            self._drop_queued(shard)
        return not any(s.thread is not None and s.thread.is_alive() for s in self._shards)

    def _past_deadline(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    # ---- the writer threads ------------------------------------------------------------------
    def _run(self, shard: _Shard) -> None:
        """A writer thread's body: until closed and its queue is written (or the deadline passed)."""
        while True:
            if self._past_deadline():
                self._drop_queued(shard)
                self._drop_unreported(shard)
                return
            try:
                item = shard.pending.get(timeout=0.2 if self._deadline is not None else self.SWEEP_SECONDS)
            except queue_mod.Empty:
                if self._deadline is not None:
                    self._flush_series(shard, force=True)
                    self._drop_unreported(shard)
                    return
                self._flush_series(shard, force=False)
                continue
            try:
                self._write_event(shard, *item)
            except Exception:  # noqa: BLE001 - events are best effort
                log.exception("writing an event failed")
                self.stats.add("events_dropped")
            finally:
                shard.pending.task_done()
            if time.monotonic() - shard.last_sweep >= self.SWEEP_SECONDS:
                self._flush_series(shard, force=False)

    def _drop_queued(self, shard: _Shard) -> None:
        dropped = 0
        while True:
            try:
                shard.pending.get_nowait()
            except queue_mod.Empty:
                break
            shard.pending.task_done()
            dropped += 1
        if dropped:
            self.stats.add("events_dropped", dropped)
            log.warning("%d queued events were not written before the shutdown deadline", dropped)

    def _drop_unreported(self, shard: _Shard) -> None:
        """Recurrences no series patch carried: counted as dropped (the writer is exiting)."""
        lost = sum(shard.series[k].count - shard.series[k].reported for k in shard.dirty if k in shard.series)
        shard.dirty.clear()
        if lost:
            self.stats.add("events_dropped", lost)

    def _write(self, method: str, path: str, body: object, content_type: str | None = None,
               attempts: int = 6) -> bool:
        timeout: tuple[float, float] = (5.0, 15.0)
        if self._deadline is not None:  # the shutdown flush: no request outlives its deadline
            left = max(0.1, self._deadline - time.monotonic())
            timeout = (min(5.0, left), min(15.0, left))
        return best_effort_write(self.raw, self.stats, self._give_up, method, path, body, content_type, attempts,
                                 timeout=timeout)

    def _write_event(self, shard: _Shard, pod: PodInfo | ObjectRef, event_type: str, reason: str, message: str,
                     when: float) -> None:
        key = (pod.uid, event_type, reason, message)
        series = shard.series.get(key)
        now = time.time()
        if series is not None and now - series.first < self.SERIES_FORGET_SECONDS:
            series.tokens = min(self.EVENT_BURST, series.tokens + (now - series.last_flush) / self.EVENT_REFILL_SECONDS)
            series.count += 1
            shard.dirty.add(key)
            if now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1:
                self._patch_series(shard, key, series)
            return
        if series is not None:
            self._forget(shard, key)
        self._expire(shard, now)
        if len(shard.series) > 20000 // len(self._shards):
            for k in [k for k, s in shard.series.items() if now - s.first >= self.SERIES_FORGET_SECONDS]:
                self._forget(shard, k)
        name = f"{pod.name}.{uuid.uuid4().hex[:16]}"
        if self._write("POST", f"/apis/events.k8s.io/v1/namespaces/{pod.namespace}/events",
                       self._event_body(pod, name, event_type, reason, message, when)):
            self.stats.add("events_created")
            shard.series[key] = EventSeries(name, pod.namespace, 1, 1, now, now, self.EVENT_BURST - 1)
        else:
            self.stats.add("events_dropped")

    def _event_body(self, pod: PodInfo | ObjectRef, name: str, event_type: str, reason: str, message: str,
                    when: float) -> dict[str, object]:
        if isinstance(pod, ObjectRef):
            return self._object_event_body(pod, name, event_type, reason, message, when)
        controller = pod.scheduler_name or "kubeberth"
        return {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": pod.namespace},
            "eventTime": micro_time(when),
            "reportingController": controller,
            "reportingInstance": f"{controller}-{self.host}"[:128],
            "action": {"Scheduled": "Binding", "Preempted": "Preempting"}.get(reason, "Scheduling"),
            "reason": reason,
            "regarding": {"apiVersion": "v1", "kind": "Pod", "namespace": pod.namespace, "name": pod.name,
                          "uid": pod.uid},
            "note": message[:1024],
            "type": event_type,
        }

    def _object_event_body(self, ref: ObjectRef, name: str, event_type: str, reason: str, message: str,
                           when: float) -> dict[str, object]:
        """An event about the scheduler itself, regarding its Lease (plugin timeouts, rollbacks)."""
        return {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": ref.namespace},
            "eventTime": micro_time(when),
            "reportingController": "kubeberth",
            "reportingInstance": f"kubeberth-{self.host}"[:128],
            "action": ref.action,
            "reason": reason,
            "regarding": ref.regarding(),
            "note": message[:1024],
            "type": event_type,
        }

    def _expire(self, shard: _Shard, now: float) -> None:
        """Forget the series past SERIES_FORGET_SECONDS whose recurrences were all reported. The
        dict holds them in the order they began, so this looks at the expired ones and one more;
        without it a series stayed until the cap (20,000) was reached, half an hour of pods at
        10 a second, and a scheduler's memory grew that long (one series a pod: its Scheduled
        event). A dirty one waits for its series patch."""
        expired = []
        for key, series in shard.series.items():
            if now - series.first < self.SERIES_FORGET_SECONDS:
                break
            if key not in shard.dirty:
                expired.append(key)
        for key in expired:
            del shard.series[key]

    def _forget(self, shard: _Shard, key: tuple[str, str, str, str]) -> None:
        series = shard.series.pop(key)
        if key in shard.dirty:
            shard.dirty.discard(key)
            self.stats.add("events_dropped", series.count - series.reported)

    def _patch_series(self, shard: _Shard, key: tuple[str, str, str, str], series: EventSeries) -> None:
        series.tokens -= 1
        series.last_flush = time.time()
        count = series.count
        body = {"series": {"count": count, "lastObservedTime": micro_time()}}
        path = f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events/{series.name}"
        if self._write("PATCH", path, body, "application/merge-patch+json", attempts=1):
            self.stats.add("event_series_updates")
            self.stats.add("events_aggregated", count - series.reported)
            series.reported = count
            shard.dirty.discard(key)

    def _flush_series(self, shard: _Shard, force: bool) -> None:
        now = time.time()
        shard.last_sweep = time.monotonic()
        for key in list(shard.dirty):
            series = shard.series.get(key)
            if series is None:
                shard.dirty.discard(key)
                continue
            if self._past_deadline():
                return
            if force or (now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1):
                self._patch_series(shard, key, series)

"""The event recorder: events.k8s.io/v1 Scheduled / FailedScheduling / Preempted from a background
thread, deduplicated into series and rate limited per (pod, reason) like client-go's recorder."""

from __future__ import annotations

import logging
import queue as queue_mod
import threading
import time
import uuid
from dataclasses import dataclass

from ...cache.podinfo import PodInfo
from .client import RawClient, WriteStats, best_effort_write, micro_time

log = logging.getLogger(__name__)


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


class EventRecorder:
    """Queues events from the scheduling loop (never blocking it) and writes them in the background."""

    EVENT_BURST = 25  # per (pod, reason) like client-go's spam filter
    EVENT_REFILL_SECONDS = 300.0
    SERIES_FLUSH_SECONDS = 30.0
    SERIES_FORGET_SECONDS = 600.0

    def __init__(self, raw: RawClient, stats: WriteStats, stopping: threading.Event, host: str) -> None:
        self.raw = raw
        self.stats = stats
        self.stopping = stopping
        self.host = host
        self.pending: queue_mod.Queue[tuple[PodInfo, str, str, str, float]] = queue_mod.Queue(maxsize=10000)
        self._series: dict[tuple[str, str, str, str], EventSeries] = {}

    def record(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        try:
            self.pending.put_nowait((pod, event_type, reason, message, time.time()))
        except queue_mod.Full:
            self.stats.add("events_dropped")

    def run(self) -> None:
        """The writer thread's body: until the backend stops and nothing is left to write."""
        while True:
            try:
                item = self.pending.get(timeout=1.0)
            except queue_mod.Empty:
                if self.stopping.is_set():
                    return
                self._flush_series(force=False)
                continue
            try:
                self._write_event(*item)
            except Exception:  # noqa: BLE001 - events are best effort
                log.exception("writing an event failed")
            finally:
                self.pending.task_done()

    def _write(self, method: str, path: str, body: object, content_type: str | None = None,
               attempts: int = 6) -> bool:
        return best_effort_write(self.raw, self.stats, self.stopping, method, path, body, content_type, attempts)

    def _write_event(self, pod: PodInfo, event_type: str, reason: str, message: str, when: float) -> None:
        key = (pod.uid, event_type, reason, message)
        series = self._series.get(key)
        now = time.time()
        if series is not None and now - series.first < self.SERIES_FORGET_SECONDS:
            series.tokens = min(self.EVENT_BURST, series.tokens + (now - series.last_flush) / self.EVENT_REFILL_SECONDS)
            series.count += 1
            if now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1:
                self._patch_series(series)
            return
        if len(self._series) > 20000:
            self._series = {k: s for k, s in self._series.items() if now - s.first < self.SERIES_FORGET_SECONDS}
        controller = pod.scheduler_name or "kubeberth"
        name = f"{pod.name}.{uuid.uuid4().hex[:16]}"
        body = {
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
        if self._write("POST", f"/apis/events.k8s.io/v1/namespaces/{pod.namespace}/events", body):
            self.stats.add("events_created")
            self._series[key] = EventSeries(name, pod.namespace, 1, 1, now, now, self.EVENT_BURST - 1)

    def _patch_series(self, series: EventSeries) -> None:
        series.tokens -= 1
        series.last_flush = time.time()
        series.reported = series.count
        body = {"series": {"count": series.count, "lastObservedTime": micro_time()}}
        path = f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events/{series.name}"
        if self._write("PATCH", path, body, "application/merge-patch+json", attempts=1):
            self.stats.add("event_series_updates")

    def _flush_series(self, force: bool) -> None:
        now = time.time()
        for series in list(self._series.values()):
            due = force or (now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1)
            if series.count > series.reported and due:
                self._patch_series(series)

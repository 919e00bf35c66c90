"""kube-scheduler's Prometheus metrics, from kubeberth's cycle records.

Names, labels and buckets are those of kube-scheduler v1.37 (pkg/scheduler/metrics/metrics.go),
so existing kube-scheduler dashboards and alerts work unchanged; kubeberth adds
kubeberth_generation_info, kubeberth_reloads_total and kubeberth_plugin_errors_total.

Every metric lives in the scheduler's own CollectorRegistry (several schedulers may share a test
process). Observation happens after a cycle, from the CycleRecord; label children are resolved
once and cached, and per-plugin durations are sampled on 10% of cycles as kube-scheduler does.
Queue sizes are read at scrape time, so they cost the loop nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ..runtime.records import CycleRecord

PLUGIN_METRICS_SAMPLE_PERCENT = 10  # kube-scheduler's pluginMetricsSamplePercent
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Go's metrics.ExponentialBuckets(start, factor, count).
def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    return [start * factor**i for i in range(count)]


# record.result -> kube-scheduler's result label
RESULTS = {"Scheduled": "scheduled", "Unschedulable": "unschedulable", "Error": "error"}
# Status code names -> kube-scheduler's Code.String()
STATUS = {
    "SUCCESS": "Success",
    "ERROR": "Error",
    "UNSCHEDULABLE": "Unschedulable",
    "UNSCHEDULABLE_AND_UNRESOLVABLE": "UnschedulableAndUnresolvable",
    "WAIT": "Wait",
    "SKIP": "Skip",
    "PENDING": "Pending",
}
QUEUES = ("active", "backoff", "unschedulable", "gated")


def status_label(code: str | None) -> str:
    return STATUS.get(code or "SUCCESS", code or "Success")


class SchedulerMetrics:
    """The scheduler_* and kubeberth_* metrics of one scheduler process."""

    def __init__(self, registry: CollectorRegistry | None = None, sample_percent: int = PLUGIN_METRICS_SAMPLE_PERCENT) -> None:
        disable_created_metrics()  # kube-scheduler exposes no *_created series
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self.sample_percent = sample_percent
        r = self.registry
        self.schedule_attempts = Counter(
            "scheduler_schedule_attempts",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, "
            "while 'error' means an internal scheduler problem.",
            ["result", "profile"],
            registry=r,
        )
        self.attempt_duration = Histogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ["result", "profile"],
            buckets=exponential_buckets(0.001, 2, 15),
            registry=r,
        )
        self.algorithm_duration = Histogram(
            "scheduler_scheduling_algorithm_duration_seconds",
            "Scheduling algorithm latency in seconds",
            buckets=exponential_buckets(0.001, 2, 15),
            registry=r,
        )
        self.incoming_pods = Counter(
            "scheduler_queue_incoming_pods",
            "Number of pods added to scheduling queues by event and queue type.",
            ["queue", "event"],
            registry=r,
        )
        self.extension_point_duration = Histogram(
            "scheduler_framework_extension_point_duration_seconds",
            "Latency for running all plugins of a specific extension point.",
            ["extension_point", "status", "profile"],
            buckets=exponential_buckets(0.0001, 2, 12),
            registry=r,
        )
        self.plugin_duration = Histogram(
            "scheduler_plugin_execution_duration_seconds",
            "Duration for running a plugin at a specific extension point.",
            ["plugin", "extension_point", "status"],
            buckets=exponential_buckets(0.00001, 1.5, 20),
            registry=r,
        )
        self.sli_duration = Histogram(
            "scheduler_pod_scheduling_sli_duration_seconds",
            "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might "
            "involve multiple scheduling attempts.",
            ["attempts"],
            buckets=exponential_buckets(0.01, 2, 20),
            registry=r,
        )
        self.scheduling_attempts = Histogram(
            "scheduler_pod_scheduling_attempts",
            "Number of attempts to successfully schedule a pod.",
            buckets=exponential_buckets(1, 2, 5),
            registry=r,
        )
        self.preemption_attempts = Counter(
            "scheduler_preemption_attempts", "Total preemption attempts in the cluster till now", registry=r
        )
        self.preemption_victims = Histogram(
            "scheduler_preemption_victims",
            "Number of selected preemption victims for preemption initiated by a single pod",
            buckets=exponential_buckets(1, 2, 7),
            registry=r,
        )
        self.generation_info = Gauge(
            "kubeberth_generation_info", "The framework generation in use (value 1), by generation id.", ["id"], registry=r
        )
        self.reloads = Counter(
            "kubeberth_reloads", "Generation reloads by result (success, failed, rolled_back).", ["result"], registry=r
        )
        self.plugin_errors = Counter(
            "kubeberth_plugin_errors", "Scheduling attempts that ended in a plugin error, by plugin.", ["plugin"], registry=r
        )
        self._pending = _PendingPods()
        r.register(self._pending)
        self._children: dict[tuple[Any, ...], Any] = {}
        self._generation: str | None = None
        self._random = random.Random()

    # ---- wiring ----------------------------------------------------------------------
    def watch_queue(self, counts: Callable[[], Iterable[str]]) -> None:
        """Read scheduler_pending_pods at scrape time from `counts()` (each queued pod's `where`)."""
        self._pending.source = counts

    def on_incoming(self, queue: str, event: str) -> None:
        """SchedulingQueue.on_incoming: one pod arrived in `queue` because of `event`."""
        key = ("in", queue, event)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self.incoming_pods.labels(queue, event)
        child.inc()

    def set_generation(self, generation_id: str) -> None:
        if generation_id == self._generation:
            return
        if self._generation is not None:
            self.generation_info.remove(self._generation)
        self.generation_info.labels(generation_id).set(1)
        self._generation = generation_id

    def reloaded(self, result: str) -> None:
        self.reloads.labels(result).inc()

    def exposition(self) -> tuple[int, str, bytes]:
        """The /metrics route."""
        return 200, CONTENT_TYPE, generate_latest(self.registry)

    # ---- observation -----------------------------------------------------------------
    def _child(self, metric: Any, *labels: str) -> Any:
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def cycle_done(self, record: CycleRecord) -> None:
        """After the scheduling cycle: failures are counted now, successes once bound."""
        if record.generation != self._generation:
            self.set_generation(record.generation)
        profile = record.profile
        if record.end_ns:
            self.algorithm_duration.observe((record.end_ns - record.start_ns) / 1e9)
        if record.result != "Scheduled":
            result = RESULTS.get(record.result, "error")
            seconds = (record.end_ns - record.start_ns) / 1e9
            self._child(self.schedule_attempts, result, profile).inc()
            self._child(self.attempt_duration, result, profile).observe(seconds)
            if result == "error":
                self._child(self.plugin_errors, _failing_plugin(record)).inc()
        # Extension points: the sum of their plugin calls (filters run in chunks).
        # A plugin's Skip does not make the point skipped: the point reports its first failure.
        points: dict[str, list[Any]] = {}
        for point, _plugin, start, end, extra in record.steps:
            code = extra.get("code")
            acc = points.get(point)
            if acc is None:
                points[point] = [end - start, None if code == "SKIP" else code]
            else:
                acc[0] += end - start
                if code and code not in ("SUCCESS", "SKIP") and acc[1] in (None, "SUCCESS"):
                    acc[1] = code
        for point, (ns, code) in points.items():
            if point == "Filter":
                status = "Success" if record.feasible_nodes or record.result == "Scheduled" else "Unschedulable"
            else:
                status = status_label(code)
            self._child(self.extension_point_duration, point, status, profile).observe(ns / 1e9)
        if "PostFilter" in points:
            self.preemption_attempts.inc()
            pre = record.preemption
            if pre and pre.get("victims"):
                self.preemption_victims.observe(len(pre["victims"]))
        if self._random.randrange(100) < self.sample_percent:
            for point, plugin, start, end, extra in record.steps:
                if plugin:
                    code = extra.get("code")
                    if point == "Filter":
                        status = "Unschedulable" if extra.get("rejected") else "Success"
                    else:
                        status = status_label(code)
                    self._child(self.plugin_duration, plugin, point, status).observe((end - start) / 1e9)

    def binding_done(self, record: CycleRecord) -> None:
        """After the binding cycle: the attempt's result, its SLI and the binding extension points."""
        binding = record.binding or {}
        profile = record.profile
        for point, start, end, code in binding.get("steps", ()):
            if point != "WaitOnPermit":
                self._child(self.extension_point_duration, point, status_label(code), profile).observe((end - start) / 1e9)
        end_ns = binding.get("end_ns") or record.end_ns
        seconds = (end_ns - record.start_ns) / 1e9
        if binding.get("result") == "Bound":
            self._child(self.schedule_attempts, "scheduled", profile).inc()
            self._child(self.attempt_duration, "scheduled", profile).observe(seconds)
            self.scheduling_attempts.observe(record.attempt)
            label = "15+" if record.attempt >= 15 else str(record.attempt)
            first = record.first_attempt_ns or record.start_ns
            self._child(self.sli_duration, label).observe((end_ns - first) / 1e9)
        else:
            result = "error" if binding.get("result") == "Error" else "unschedulable"
            self._child(self.schedule_attempts, result, profile).inc()
            self._child(self.attempt_duration, result, profile).observe(seconds)
            if result == "error" and binding.get("plugin"):
                self._child(self.plugin_errors, binding["plugin"]).inc()


def _failing_plugin(record: CycleRecord) -> str:
    """The plugin whose Error ended the attempt ('unknown' when the error came from elsewhere)."""
    if record.error_plugin:
        return record.error_plugin
    for _point, plugin, _s, _e, extra in reversed(record.steps):
        if plugin and extra.get("code") == "ERROR":
            return plugin
    return "unknown"


class _PendingPods(Collector):
    """scheduler_pending_pods{queue}, counted from the queue at scrape time."""

    def __init__(self) -> None:
        self.source: Callable[[], Iterable[str]] | None = None

    def describe(self) -> list[GaugeMetricFamily]:
        return [self._family()]

    def collect(self) -> list[GaugeMetricFamily]:
        counts = dict.fromkeys(QUEUES, 0)
        if self.source is not None:
            for where in self.source():
                if where in counts:
                    counts[where] += 1
        family = self._family()
        for queue, value in counts.items():
            family.add_metric([queue], value)
        return [family]

    @staticmethod
    def _family() -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means "
            "number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler "
            "attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never "
            "attempted to schedule because they are gated.",
            labels=["queue"],
        )

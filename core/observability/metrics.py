"""kube-scheduler's Prometheus metrics, from kubeberth's cycle records.

Names, labels and buckets are those of kube-scheduler v1.37 (pkg/scheduler/metrics/metrics.go),
so existing kube-scheduler dashboards and alerts work unchanged; kubeberth adds
kubeberth_generation_info, kubeberth_reloads_total and kubeberth_plugin_errors_total.

Observation happens on the loop thread after each cycle, from its CycleRecord, into plain
per-label-set counts (a bisect and two additions per histogram sample); prometheus_client turns
them into metric families when /metrics is scraped. prometheus_client's own Histogram takes a lock
and walks every bucket per sample, which made metrics cost ~6% of a cycle; this costs ~1%.
Per-plugin durations are sampled on 10% of cycles, as kube-scheduler samples them, and queue sizes
are read at scrape time, as are the cache sizes, the unschedulable pods per rejecting plugin and
the leader election status. Every scheduler has its own CollectorRegistry, which also carries
prometheus_client's process_* and python_* collectors and the API client's rest_client_* metrics
(kubeberth.backends.kubernetes.client_metrics, shared by every RawClient of the process).

The families' plain counts are in metric_families.py, kube-scheduler's definitions in metric_specs.py,
the scrape-time gauges in scrape.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ..api.metrics import REGISTRY as PLUGIN_REGISTRY
from ..runtime.records import CycleRecord
from . import metric_specs as specs
from .metric_families import CounterFamily, HistogramFamily, exponential_buckets
from .scrape import (
    CACHE_TYPES,
    QUEUES,
    batch_families,
    cache_size,
    leader_status,
    pending_pods,
    unschedulable_pods,
    write_families,
)

if TYPE_CHECKING:
    from ..scheduling.watchdog import Hang

__all__ = [
    "CACHE_TYPES",
    "CONTENT_TYPE",
    "PLUGIN_METRICS_SAMPLE_PERCENT",
    "QUEUES",
    "RESULTS",
    "STATUS",
    "SchedulerMetrics",
    "exponential_buckets",
    "status_label",
]

_Histogram = HistogramFamily  # the name core/apps/extender.py imports

PLUGIN_METRICS_SAMPLE_PERCENT = 10  # kube-scheduler's pluginMetricsSamplePercent
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

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
_EVALUATED = frozenset({"PreFilter", "Filter", "PreScore", "Score"})  # scheduler_plugin_evaluation_total


def status_label(code: str | None) -> str:
    return STATUS.get(code or "SUCCESS", code or "Success")


class SchedulerMetrics(Collector):
    """The scheduler_* and kubeberth_* metrics of one scheduler process."""

    def __init__(self, registry: CollectorRegistry | None = None, sample_percent: int = PLUGIN_METRICS_SAMPLE_PERCENT) -> None:
        self.sample_percent = sample_percent
        self.schedule_attempts = CounterFamily(*specs.SCHEDULE_ATTEMPTS)
        self.attempt_duration = HistogramFamily(*specs.ATTEMPT_DURATION)
        self.algorithm_duration = HistogramFamily(*specs.ALGORITHM_DURATION)
        self.incoming_pods = CounterFamily(*specs.INCOMING_PODS)
        self.extension_point_duration = HistogramFamily(*specs.EXTENSION_POINT_DURATION)
        self.plugin_duration = HistogramFamily(*specs.PLUGIN_DURATION)
        self.sli_duration = HistogramFamily(*specs.SLI_DURATION)
        self.scheduling_attempts = HistogramFamily(*specs.SCHEDULING_ATTEMPTS)
        self.preemption_attempts = CounterFamily(*specs.PREEMPTION_ATTEMPTS)
        self.preemption_victims = HistogramFamily(*specs.PREEMPTION_VICTIMS)
        # GenericWorkload: a pod group's preemption (PodGroupPostFilter), by its status code.
        self.workload_preemption_attempts = CounterFamily(*specs.WORKLOAD_PREEMPTION_ATTEMPTS)
        self.workload_preemption_victims = HistogramFamily(*specs.WORKLOAD_PREEMPTION_VICTIMS)
        self.reloads = CounterFamily(*specs.RELOADS)
        self.plugin_errors = CounterFamily(*specs.PLUGIN_ERRORS)
        self.plugin_timeouts = CounterFamily(*specs.PLUGIN_TIMEOUTS)
        self.memory_growth_exceeded = CounterFamily(*specs.MEMORY_GROWTH_EXCEEDED)
        self.permit_wait = HistogramFamily(*specs.PERMIT_WAIT)
        self.event_handling = HistogramFamily(*specs.EVENT_HANDLING)
        self.plugin_evaluations = CounterFamily(*specs.PLUGIN_EVALUATIONS)
        self.generation: str | None = None
        self._queue: Callable[[], Iterable[str]] | None = None
        self._batches: Callable[[], Mapping[str, Any]] | None = None
        self._unschedulable: Callable[[], Iterable[Any]] | None = None
        self._profile_of: Callable[[Any], str] = lambda pod: str(pod.scheduler_name)
        self._cache: Callable[[], tuple[int, int, int]] | None = None
        self._leases: dict[str, Callable[[], bool]] = {}
        self._writes: Callable[[], Mapping[str, int]] | None = None
        self._event_backlog: Callable[[], int] | None = None
        self._random = random.Random()
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self.registry.register(self)
        # prometheus_client's process_* (Linux /proc), python_info and python_gc_* families.
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)

    # ---- wiring ----------------------------------------------------------------------
    def watch_queue(self, wheres: Callable[[], Iterable[str]]) -> None:
        """Read scheduler_pending_pods at scrape time from `wheres()` (each queued pod's queue)."""
        self._queue = wheres

    def watch_batches(self, counters: Callable[[], Mapping[str, Any]]) -> None:
        """Read the opportunistic-batching counters at scrape time: profile -> BatchCounters."""
        self._batches = counters

    def watch_unschedulable(self, entries: Callable[[], Iterable[Any]], profile_of: Callable[[Any], str]) -> None:
        """Read scheduler_unschedulable_pods at scrape time from the queue's entries (each with
        `where`, `unschedulable_plugins`, `gating_plugin` and `pod`); profile_of(pod) names its profile."""
        self._unschedulable = entries
        self._profile_of = profile_of

    def watch_cache(self, sizes: Callable[[], tuple[int, int, int]]) -> None:
        """Read scheduler_cache_size at scrape time: sizes() -> (nodes, pods, assumed pods)."""
        self._cache = sizes

    def watch_leader(self, name: str, is_leader: Callable[[], bool]) -> None:
        """leader_election_master_status{name}: 1 while is_leader() (client-go's leaderelection)."""
        self._leases[name] = is_leader

    def watch_writes(self, counts: Callable[[], Mapping[str, int]], event_backlog: Callable[[], int]) -> None:
        """kubeberth_api_writes_total{kind} from counts() and kubeberth_event_queue_depth from
        event_backlog(), read at scrape time (an API backend's write counters and event recorder)."""
        self._writes = counts
        self._event_backlog = event_backlog

    def event_handled(self, event: str, seconds: float) -> None:
        """The loop applied one cluster event (kube-scheduler's EventHandlingLatency)."""
        self.event_handling.observe((event,), seconds)

    def on_incoming(self, queue: str, event: str) -> None:
        """SchedulingQueue.on_incoming: one pod arrived in `queue` because of `event`."""
        values = self.incoming_pods.values
        key = (queue, event)
        values[key] = values.get(key, 0.0) + 1.0

    def set_generation(self, generation_id: str) -> None:
        self.generation = generation_id

    def plugin_timed_out(self, hang: Hang) -> None:
        """The plugin watchdog found a cycle past its bound (a Scheduler timeout observer)."""
        self.plugin_timeouts.inc((hang.plugin, hang.extension_point))

    def reloaded(self, result: str) -> None:
        self.reloads.inc((result,))

    def memory_exceeded(self, action: str) -> None:
        """The memory guard found a generation past its growth bound (memory_guard.py)."""
        self.memory_growth_exceeded.inc((action,))

    def registries(self) -> list[CollectorRegistry]:
        """Everything /metrics serves (observability/exposition.py negotiates its format)."""
        return [self.registry, PLUGIN_REGISTRY]

    def exposition(self) -> tuple[int, str, bytes]:
        """/metrics in the text format 0.0.4."""
        return 200, CONTENT_TYPE, b"".join(generate_latest(r) for r in self.registries())

    # ---- observation -----------------------------------------------------------------
    def cycle_done(self, record: CycleRecord) -> None:
        """After the scheduling cycle: failures are counted now, successes once bound."""
        if record.generation != self.generation:
            self.generation = record.generation
        profile = record.profile
        seconds = (record.end_ns - record.start_ns) / 1e9 if record.end_ns else 0.0
        self.algorithm_duration.observe((), seconds)
        if record.result != "Scheduled":
            result = RESULTS.get(record.result, "error")
            self.schedule_attempts.inc((result, profile))
            self.attempt_duration.observe((result, profile), seconds)
            if result == "error":
                self.plugin_errors.inc((_failing_plugin(record),))
        points = self._extension_points(record, profile)
        observe = self.extension_point_duration.observe
        for point, (ns, code) in points.items():
            if point == "Filter":
                status = "Success" if record.feasible_nodes or record.result == "Scheduled" else "Unschedulable"
            else:
                status = STATUS.get(code or "SUCCESS", "Success")
            observe((point, status, profile), ns / 1e9)
        if "PostFilter" in points or "PodGroupPostFilter" in points:
            self._preemption(record, points)
        if self._random.randrange(100) < self.sample_percent:
            self._plugin_durations(record)

    def _extension_points(self, record: CycleRecord, profile: str) -> dict[str, list[Any]]:
        """Per extension point, the sum of its plugin calls (filters run in chunks) and its status code;
        counts scheduler_plugin_evaluation_total on the way. A plugin's Skip does not make the point
        skipped: the point reports its first failure."""
        points: dict[str, list[Any]] = {}
        evaluations = self.plugin_evaluations.values
        for point, plugin, start, end, extra in record.steps:
            acc = points.get(point)
            code = extra.get("code")
            if plugin and point in _EVALUATED:
                # kube-scheduler's instrumented plugins: PreFilter/PreScore once unless skipped,
                # Filter/Score once per node (Filter chunks carry their node count).
                if point == "Filter":
                    n = extra.get("nodes", 0)
                elif point == "Score":
                    n = record.feasible_nodes
                else:
                    n = 0 if code == "SKIP" else 1
                if n:
                    key = (plugin, point, profile)
                    evaluations[key] = evaluations.get(key, 0.0) + n
            if acc is None:
                points[point] = [end - start, None if code == "SKIP" else code]
            else:
                acc[0] += end - start
                if code and code != "SUCCESS" and code != "SKIP" and acc[1] in (None, "SUCCESS"):
                    acc[1] = code
        return points

    def _preemption(self, record: CycleRecord, points: dict[str, list[Any]]) -> None:
        """PostFilter ran: a preemption attempt and its victims; PodGroupPostFilter: a workload's."""
        if "PostFilter" in points:
            self.preemption_attempts.inc()
            pre = record.preemption
            if pre and pre.get("victims"):
                self.preemption_victims.observe((), len(pre["victims"]))
        if "PodGroupPostFilter" in points:
            for point, _plugin, _start, _end, extra in record.steps:
                if point == "PodGroupPostFilter":
                    self.workload_preemption_attempts.inc((status_label(extra.get("code")),))
            pre = record.preemption
            if pre and pre.get("pod_group") and pre.get("victims"):
                self.workload_preemption_victims.observe((), len(pre["victims"]))

    def _plugin_durations(self, record: CycleRecord) -> None:
        """A sampled cycle: each plugin call's duration by plugin, extension point and status."""
        plugin_observe = self.plugin_duration.observe
        for point, plugin, start, end, extra in record.steps:
            if plugin:
                code = extra.get("code")
                if point == "Filter" and code != "ERROR":
                    status = "Unschedulable" if extra.get("rejected") else "Success"
                else:
                    status = status_label(code)
                plugin_observe((plugin, point, status), (end - start) / 1e9)

    def binding_done(self, record: CycleRecord) -> None:
        """After the binding cycle: the attempt's result, its SLI and the binding extension points."""
        binding = record.binding or {}
        profile = record.profile
        observe = self.extension_point_duration.observe
        for point, start, end, code in binding.get("steps", ()):
            if point != "WaitOnPermit":
                observe((point, STATUS.get(code, code), profile), (end - start) / 1e9)
            else:  # only pods that waited have the step, as kube-scheduler's WaitOnPermit observes
                self.permit_wait.observe((STATUS.get(code, code),), (end - start) / 1e9)
        end_ns = binding.get("end_ns") or record.end_ns
        seconds = (end_ns - record.start_ns) / 1e9
        if binding.get("result") == "Bound":
            self.schedule_attempts.inc(("scheduled", profile))
            self.attempt_duration.observe(("scheduled", profile), seconds)
            self.scheduling_attempts.observe((), record.attempt)
            label = "15+" if record.attempt >= 15 else str(record.attempt)
            first = record.first_attempt_ns or record.start_ns
            self.sli_duration.observe((label,), (end_ns - first) / 1e9)
        else:
            result = "error" if binding.get("result") == "Error" else "unschedulable"
            self.schedule_attempts.inc((result, profile))
            self.attempt_duration.observe((result, profile), seconds)
            if result == "error" and binding.get("plugin"):
                self.plugin_errors.inc((binding["plugin"],))

    # ---- exposition (prometheus_client Collector) ------------------------------------
    def collect(self) -> Iterator[Metric]:
        for metric in (
            self.schedule_attempts,
            self.attempt_duration,
            self.algorithm_duration,
            self.incoming_pods,
            self.extension_point_duration,
            self.plugin_duration,
            self.sli_duration,
            self.scheduling_attempts,
            self.preemption_attempts,
            self.preemption_victims,
            self.workload_preemption_attempts,
            self.workload_preemption_victims,
            self.reloads,
            self.plugin_errors,
            self.plugin_timeouts,
            self.memory_growth_exceeded,
            self.permit_wait,
            self.event_handling,
            self.plugin_evaluations,
        ):
            yield metric.family()
        yield pending_pods(self._queue)
        yield unschedulable_pods(self._unschedulable, self._profile_of)
        yield cache_size(self._cache)
        yield leader_status(self._leases)
        yield from write_families(self._writes, self._event_backlog)
        yield from batch_families(self._batches)
        info = GaugeMetricFamily(
            "kubeberth_generation_info", "The framework generation in use (value 1), by generation id.", labels=["id"]
        )
        if self.generation is not None:
            info.add_metric([self.generation], 1)
        yield info


def _failing_plugin(record: CycleRecord) -> str:
    """The plugin whose Error ended the attempt ('unknown' when the error came from elsewhere)."""
    if record.error_plugin:
        return record.error_plugin
    for _point, plugin, _s, _e, extra in reversed(record.steps):
        if plugin and extra.get("code") == "ERROR":
            return plugin
    return "unknown"

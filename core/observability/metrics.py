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
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from ..api.metrics import REGISTRY as PLUGIN_REGISTRY
from ..runtime.records import CycleRecord

PLUGIN_METRICS_SAMPLE_PERCENT = 10  # kube-scheduler's pluginMetricsSamplePercent
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """Go's metrics.ExponentialBuckets(start, factor, count)."""
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
_EVALUATED = frozenset({"PreFilter", "Filter", "PreScore", "Score"})  # scheduler_plugin_evaluation_total
CACHE_TYPES = ("nodes", "pods", "assumed_pods")
_WAITING = frozenset(QUEUES)  # queue places whose pods count in scheduler_unschedulable_pods


def status_label(code: str | None) -> str:
    return STATUS.get(code or "SUCCESS", code or "Success")


class _Counter:
    """A counter family: label values -> value."""

    __slots__ = ("name", "help", "labels", "values")

    def __init__(self, name: str, help: str, labels: tuple[str, ...] = ()) -> None:  # noqa: A002
        self.name, self.help, self.labels = name, help, labels
        self.values: dict[tuple[str, ...], float] = {} if labels else {(): 0.0}

    def inc(self, key: tuple[str, ...] = (), amount: float = 1.0) -> None:
        self.values[key] = self.values.get(key, 0.0) + amount

    def family(self) -> Metric:
        family = CounterMetricFamily(self.name, self.help, labels=self.labels)
        for key, value in list(self.values.items()):
            family.add_metric(list(key), value)
        return family


class _Histogram:
    """A histogram family: label values -> [per-bucket counts (last: +Inf), sum]."""

    __slots__ = ("name", "help", "labels", "bounds", "series")

    def __init__(self, name: str, help: str, labels: tuple[str, ...], bounds: list[float]) -> None:  # noqa: A002
        self.name, self.help, self.labels, self.bounds = name, help, labels, bounds
        self.series: dict[tuple[str, ...], list[Any]] = {}

    def observe(self, key: tuple[str, ...], value: float) -> None:
        s = self.series.get(key)
        if s is None:
            s = self.series[key] = [[0] * (len(self.bounds) + 1), 0.0]
        s[0][bisect_left(self.bounds, value)] += 1  # first bucket whose upper bound is >= value
        s[1] += value

    def family(self) -> Metric:
        family = HistogramMetricFamily(self.name, self.help, labels=self.labels)
        for key, (counts, total) in list(self.series.items()):
            cumulative, running = [], 0
            for bound, count in zip([*self.bounds, float("inf")], list(counts), strict=True):
                running += count
                cumulative.append((_le(bound), running))
            family.add_metric(list(key), cumulative, total)
        return family


def _le(bound: float) -> str:
    return floatToGoString(bound)


class SchedulerMetrics(Collector):
    """The scheduler_* and kubeberth_* metrics of one scheduler process."""

    def __init__(self, registry: CollectorRegistry | None = None, sample_percent: int = PLUGIN_METRICS_SAMPLE_PERCENT) -> None:
        self.sample_percent = sample_percent
        self.schedule_attempts = _Counter(
            "scheduler_schedule_attempts",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, "
            "while 'error' means an internal scheduler problem.",
            ("result", "profile"),
        )
        self.attempt_duration = _Histogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ("result", "profile"),
            exponential_buckets(0.001, 2, 15),
        )
        self.algorithm_duration = _Histogram(
            "scheduler_scheduling_algorithm_duration_seconds",
            "Scheduling algorithm latency in seconds",
            (),
            exponential_buckets(0.001, 2, 15),
        )
        self.incoming_pods = _Counter(
            "scheduler_queue_incoming_pods",
            "Number of pods added to scheduling queues by event and queue type.",
            ("queue", "event"),
        )
        self.extension_point_duration = _Histogram(
            "scheduler_framework_extension_point_duration_seconds",
            "Latency for running all plugins of a specific extension point.",
            ("extension_point", "status", "profile"),
            exponential_buckets(0.0001, 2, 12),
        )
        self.plugin_duration = _Histogram(
            "scheduler_plugin_execution_duration_seconds",
            "Duration for running a plugin at a specific extension point.",
            ("plugin", "extension_point", "status"),
            exponential_buckets(0.00001, 1.5, 20),
        )
        self.sli_duration = _Histogram(
            "scheduler_pod_scheduling_sli_duration_seconds",
            "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might "
            "involve multiple scheduling attempts.",
            ("attempts",),
            exponential_buckets(0.01, 2, 20),
        )
        self.scheduling_attempts = _Histogram(
            "scheduler_pod_scheduling_attempts",
            "Number of attempts to successfully schedule a pod.",
            (),
            exponential_buckets(1, 2, 5),
        )
        self.preemption_attempts = _Counter(
            "scheduler_preemption_attempts", "Total preemption attempts in the cluster till now"
        )
        self.preemption_victims = _Histogram(
            "scheduler_preemption_victims",
            "Number of selected preemption victims for preemption initiated by a single pod",
            (),
            exponential_buckets(1, 2, 7),
        )
        # GenericWorkload: a pod group's preemption (PodGroupPostFilter), by its status code.
        self.workload_preemption_attempts = _Counter(
            "scheduler_workload_preemption_attempts",
            "Total preemption attempts initiated by workload (including pod groups) in the cluster till now.",
            ("result",),
        )
        self.workload_preemption_victims = _Histogram(
            "scheduler_workload_preemption_victims",
            "Number of pod preemption victims caused by workload preemption.",
            (),
            exponential_buckets(1, 2, 11),
        )
        self.reloads = _Counter(
            "kubeberth_reloads", "Generation reloads by result (success, failed, rolled_back).", ("result",)
        )
        self.plugin_errors = _Counter(
            "kubeberth_plugin_errors", "Scheduling attempts that ended in a plugin error, by plugin.", ("plugin",)
        )
        self.permit_wait = _Histogram(
            "scheduler_permit_wait_duration_seconds",
            "Duration of waiting on permit.",
            ("result",),
            exponential_buckets(0.001, 2, 15),
        )
        self.event_handling = _Histogram(
            "scheduler_event_handling_duration_seconds",
            "Event handling latency in seconds.",
            ("event",),
            exponential_buckets(0.0001, 2, 12),
        )
        self.plugin_evaluations = _Counter(
            "scheduler_plugin_evaluation_total",
            "Number of attempts to schedule pods by each plugin and the extension point (available only in "
            "PreFilter, Filter, PreScore, and Score).",
            ("plugin", "extension_point", "profile"),
        )
        self.generation: str | None = None
        self._queue: Callable[[], Iterable[str]] | None = None
        self._batches: Callable[[], Mapping[str, Any]] | None = None
        self._unschedulable: Callable[[], Iterable[Any]] | None = None
        self._profile_of: Callable[[Any], str] = lambda pod: str(pod.scheduler_name)
        self._cache: Callable[[], tuple[int, int, int]] | None = None
        self._leases: dict[str, Callable[[], bool]] = {}
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

    def reloaded(self, result: str) -> None:
        self.reloads.inc((result,))

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
        # Extension points: the sum of their plugin calls (filters run in chunks). A plugin's Skip
        # does not make the point skipped: the point reports its first failure.
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
        observe = self.extension_point_duration.observe
        for point, (ns, code) in points.items():
            if point == "Filter":
                status = "Success" if record.feasible_nodes or record.result == "Scheduled" else "Unschedulable"
            else:
                status = STATUS.get(code or "SUCCESS", "Success")
            observe((point, status, profile), ns / 1e9)
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
        if self._random.randrange(100) < self.sample_percent:
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
            self.permit_wait,
            self.event_handling,
            self.plugin_evaluations,
        ):
            yield metric.family()
        yield self._pending_pods()
        yield self._unschedulable_pods()
        yield self._cache_size()
        yield self._leader_status()
        yield from self._batch_families()
        info = GaugeMetricFamily(
            "kubeberth_generation_info", "The framework generation in use (value 1), by generation id.", labels=["id"]
        )
        if self.generation is not None:
            info.add_metric([self.generation], 1)
        yield info

    def _batch_families(self) -> Iterator[Metric]:
        """kube-scheduler's opportunistic batching counters (framework/runtime/batch.go)."""
        attempts = CounterMetricFamily(
            "scheduler_batch_attempts", "Counts of results when we attempt to use batching.", labels=["profile", "result"]
        )
        flushed = CounterMetricFamily(
            "scheduler_batch_cache_flushed", "Counts of cache flushes by reason.", labels=["profile", "reason"]
        )
        rescores = CounterMetricFamily(
            "scheduler_batch_rescore_attempts", "Counts of rescore attempts during opportunistic batching.",
            labels=["profile"],
        )
        for profile, counters in sorted((self._batches() if self._batches is not None else {}).items()):
            for attempt, value in sorted(list(counters.attempts.items()), key=lambda kv: kv[0].value):
                attempts.add_metric([profile, attempt.value], value)
            for reason, value in sorted(list(counters.flushes.items()), key=lambda kv: kv[0].value):
                flushed.add_metric([profile, reason.value], value)
            rescores.add_metric([profile], counters.rescores)
        yield attempts
        yield flushed
        yield rescores

    def _pending_pods(self) -> Metric:
        counts = dict.fromkeys(QUEUES, 0)
        if self._queue is not None:
            for where in self._queue():
                if where in counts:
                    counts[where] += 1
        family = GaugeMetricFamily(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means "
            "number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler "
            "attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never "
            "attempted to schedule because they are gated.",
            labels=["queue"],
        )
        for queue, value in counts.items():
            family.add_metric([queue], value)
        return family


    def _unschedulable_pods(self) -> Metric:
        """kube-scheduler's unschedulableReasons gauge: each waiting pod counts once for every plugin
        that rejected it (its PreEnqueue plugin while gated), until it is popped or deleted."""
        counts: dict[tuple[str, str], int] = {}
        for entry in self._unschedulable() if self._unschedulable is not None else ():
            where = entry.where
            if where not in _WAITING:
                continue
            plugins: Iterable[str] = entry.unschedulable_plugins
            if where == "gated" and entry.gating_plugin:
                plugins = {*plugins, entry.gating_plugin}
            profile = self._profile_of(entry.pod) if plugins else ""
            for plugin in plugins:
                key = (plugin, profile)
                counts[key] = counts.get(key, 0) + 1
        family = GaugeMetricFamily(
            "scheduler_unschedulable_pods",
            "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all "
            "plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.",
            labels=["plugin", "profile"],
        )
        for (plugin, profile), value in sorted(counts.items()):
            family.add_metric([plugin, profile], value)
        return family

    def _cache_size(self) -> Metric:
        family = GaugeMetricFamily(
            "scheduler_cache_size",
            "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
            labels=["type"],
        )
        if self._cache is not None:
            for kind, value in zip(CACHE_TYPES, self._cache(), strict=True):
                family.add_metric([kind], value)
        return family

    def _leader_status(self) -> Metric:
        family = GaugeMetricFamily(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
            "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
            labels=["name"],
        )
        for name, is_leader in sorted(self._leases.items()):
            family.add_metric([name], 1 if is_leader() else 0)
        return family


def _failing_plugin(record: CycleRecord) -> str:
    """The plugin whose Error ended the attempt ('unknown' when the error came from elsewhere)."""
    if record.error_plugin:
        return record.error_plugin
    for _point, plugin, _s, _e, extra in reversed(record.steps):
        if plugin and extra.get("code") == "ERROR":
            return plugin
    return "unknown"

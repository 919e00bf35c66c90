"""kube-scheduler v1.37's metric definitions (pkg/scheduler/metrics/metrics.go): name, help, labels
and, for histograms, buckets; kubeberth's own kubeberth_* families too. SchedulerMetrics builds its
families from these."""

from __future__ import annotations

from .metric_families import exponential_buckets

CounterSpec = tuple[str, str, tuple[str, ...]]  # name, help, labels
HistogramSpec = tuple[str, str, tuple[str, ...], list[float]]  # name, help, labels, bucket upper bounds

SCHEDULE_ATTEMPTS: CounterSpec = (
    "scheduler_schedule_attempts",
    "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, "
    "while 'error' means an internal scheduler problem.",
    ("result", "profile"),
)

ATTEMPT_DURATION: HistogramSpec = (
    "scheduler_scheduling_attempt_duration_seconds",
    "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
    ("result", "profile"),
    exponential_buckets(0.001, 2, 15),
)

ALGORITHM_DURATION: HistogramSpec = (
    "scheduler_scheduling_algorithm_duration_seconds",
    "Scheduling algorithm latency in seconds",
    (),
    exponential_buckets(0.001, 2, 15),
)

INCOMING_PODS: CounterSpec = (
    "scheduler_queue_incoming_pods",
    "Number of pods added to scheduling queues by event and queue type.",
    ("queue", "event"),
)

EXTENSION_POINT_DURATION: HistogramSpec = (
    "scheduler_framework_extension_point_duration_seconds",
    "Latency for running all plugins of a specific extension point.",
    ("extension_point", "status", "profile"),
    exponential_buckets(0.0001, 2, 12),
)

PLUGIN_DURATION: HistogramSpec = (
    "scheduler_plugin_execution_duration_seconds",
    "Duration for running a plugin at a specific extension point.",
    ("plugin", "extension_point", "status"),
    exponential_buckets(0.00001, 1.5, 20),
)

SLI_DURATION: HistogramSpec = (
    "scheduler_pod_scheduling_sli_duration_seconds",
    "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might "
    "involve multiple scheduling attempts.",
    ("attempts",),
    exponential_buckets(0.01, 2, 20),
)

SCHEDULING_ATTEMPTS: HistogramSpec = (
    "scheduler_pod_scheduling_attempts",
    "Number of attempts to successfully schedule a pod.",
    (),
    exponential_buckets(1, 2, 5),
)

PREEMPTION_ATTEMPTS: CounterSpec = (
    "scheduler_preemption_attempts",
    "Total preemption attempts in the cluster till now",
    (),
)

PREEMPTION_VICTIMS: HistogramSpec = (
    "scheduler_preemption_victims",
    "Number of selected preemption victims for preemption initiated by a single pod",
    (),
    exponential_buckets(1, 2, 7),
)

# GenericWorkload: a pod group's preemption (PodGroupPostFilter), by its status code.
WORKLOAD_PREEMPTION_ATTEMPTS: CounterSpec = (
    "scheduler_workload_preemption_attempts",
    "Total preemption attempts initiated by workload (including pod groups) in the cluster till now.",
    ("result",),
)

WORKLOAD_PREEMPTION_VICTIMS: HistogramSpec = (
    "scheduler_workload_preemption_victims",
    "Number of pod preemption victims caused by workload preemption.",
    (),
    exponential_buckets(1, 2, 11),
)

RELOADS: CounterSpec = (
    "kubeberth_reloads", "Generation reloads by result (success, failed, rolled_back).", ("result",),
)

PLUGIN_ERRORS: CounterSpec = (
    "kubeberth_plugin_errors", "Scheduling attempts that ended in a plugin error, by plugin.", ("plugin",),
)

PLUGIN_TIMEOUTS: CounterSpec = (
    "kubeberth_plugin_timeouts",
    "Scheduling cycles the plugin watchdog found running past its bound, by plugin and extension point.",
    ("plugin", "extension_point"),
)

MEMORY_GROWTH_EXCEEDED: CounterSpec = (
    "kubeberth_memory_growth_exceeded",
    "Generations under which the process's RSS grew past KUBEBERTH_ROLLBACK_MAX_MEMORY_GROWTH_MB, by what was "
    "done: rolled_back (a reloaded generation on probation) or reported (the startup generation, probation over).",
    ("action",),
)

PERMIT_WAIT: HistogramSpec = (
    "scheduler_permit_wait_duration_seconds",
    "Duration of waiting on permit.",
    ("result",),
    exponential_buckets(0.001, 2, 15),
)

EVENT_HANDLING: HistogramSpec = (
    "scheduler_event_handling_duration_seconds",
    "Event handling latency in seconds.",
    ("event",),
    exponential_buckets(0.0001, 2, 12),
)

PLUGIN_EVALUATIONS: CounterSpec = (
    "scheduler_plugin_evaluation_total",
    "Number of attempts to schedule pods by each plugin and the extension point (available only in "
    "PreFilter, Filter, PreScore, and Score).",
    ("plugin", "extension_point", "profile"),
)

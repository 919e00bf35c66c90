"""The metric families read at scrape time (kube-scheduler's gauges): pending pods per queue,
unschedulable pods per rejecting plugin, cache sizes, leader election status, and the
opportunistic-batching counters."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

QUEUES = ("active", "backoff", "unschedulable", "gated")
CACHE_TYPES = ("nodes", "pods", "assumed_pods")
_WAITING = frozenset(QUEUES)  # queue places whose pods count in scheduler_unschedulable_pods


def batch_families(batches: Callable[[], Mapping[str, Any]] | None) -> Iterator[Metric]:
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
    for profile, counters in sorted((batches() if batches is not None else {}).items()):
        for attempt, value in sorted(list(counters.attempts.items()), key=lambda kv: kv[0].value):
            attempts.add_metric([profile, attempt.value], value)
        for reason, value in sorted(list(counters.flushes.items()), key=lambda kv: kv[0].value):
            flushed.add_metric([profile, reason.value], value)
        rescores.add_metric([profile], counters.rescores)
    yield attempts
    yield flushed
    yield rescores

def pending_pods(wheres: Callable[[], Iterable[str]] | None) -> Metric:
    """scheduler_pending_pods by queue, from each queued pod's place."""
    counts = dict.fromkeys(QUEUES, 0)
    if wheres is not None:
        for where in wheres():
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

def unschedulable_pods(entries: Callable[[], Iterable[Any]] | None, profile_of: Callable[[Any], str]) -> Metric:
    """kube-scheduler's unschedulableReasons gauge: each waiting pod counts once for every plugin
    that rejected it (its PreEnqueue plugin while gated), until it is popped or deleted."""
    counts: dict[tuple[str, str], int] = {}
    for entry in entries() if entries is not None else ():
        where = entry.where
        if where not in _WAITING:
            continue
        plugins: Iterable[str] = entry.unschedulable_plugins
        if where == "gated" and entry.gating_plugin:
            plugins = {*plugins, entry.gating_plugin}
        profile = profile_of(entry.pod) if plugins else ""
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

def cache_size(sizes: Callable[[], tuple[int, int, int]] | None) -> Metric:
    """scheduler_cache_size: nodes, pods and assumed pods."""
    family = GaugeMetricFamily(
        "scheduler_cache_size",
        "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
        labels=["type"],
    )
    if sizes is not None:
        for kind, value in zip(CACHE_TYPES, sizes(), strict=True):
            family.add_metric([kind], value)
    return family

def write_families(counts: Callable[[], Mapping[str, int]] | None,
                   backlog: Callable[[], int] | None) -> Iterator[Metric]:
    """The API writes' counters (kubeberth_api_writes_total{kind}: binds, events emitted, created,
    aggregated into series, dropped, status patches, errors) and the event recorder's backlog."""
    writes = CounterMetricFamily(
        "kubeberth_api_writes",
        "API writes and events by kind: binds, bind_conflicts, events_emitted (handed to the recorder), "
        "events_created, events_aggregated (carried by a series patch), events_dropped (queue full, write "
        "given up, shutdown), event_series_updates, status_patches, write_errors.",
        labels=["kind"],
    )
    for kind, value in sorted((counts() if counts is not None else {}).items()):
        writes.add_metric([kind], value)
    yield writes
    depth = GaugeMetricFamily(
        "kubeberth_event_queue_depth",
        "Events queued for the event recorder's writers and not written yet (bounded; past the bound "
        "an event is dropped and counted).",
    )
    if backlog is not None:
        depth.add_metric([], backlog())
    yield depth


def leader_status(leases: Mapping[str, Callable[[], bool]]) -> Metric:
    """leader_election_master_status per lease name."""
    family = GaugeMetricFamily(
        "leader_election_master_status",
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
        "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
        labels=["name"],
    )
    for name, is_leader in sorted(leases.items()):
        family.add_metric([name], 1 if is_leader() else 0)
    return family

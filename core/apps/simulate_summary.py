"""What `kubeberth simulate` reports of a run: the summary, its text form, per-node usage, the
placements table and the progress bar."""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..backends.embedded import EmbeddedCluster
    from ..runtime.generation import Generation
    from ..scheduling.scheduler import Scheduler


def node_usage(scheduler: Scheduler) -> list[dict[str, Any]]:
    """Per node (in name order): zone and requested/allocatable of cpu, memory and pods."""
    table = scheduler.cluster.table
    zone_ids, zones = table.label_values("topology.kubernetes.io/zone") if len(table) else (None, [])
    cols = {r: table.resource_index[r] for r in ("cpu", "memory", "pods")}
    out = []
    for row in table.ordered_rows().tolist():
        entry: dict[str, Any] = {"node": table.names[row]}
        zid = int(zone_ids[row]) if zone_ids is not None else -1
        entry["zone"] = zones[zid] if 0 <= zid < len(zones) else ""
        entry["requested"], entry["allocatable"] = {}, {}
        for resource, col in cols.items():
            alloc = float(table.allocatable[row, col])
            used = float(table.requested[row, col])
            entry[resource] = round(used / alloc, 4) if alloc > 0 else 0.0
            entry["requested"][resource] = used
            entry["allocatable"][resource] = alloc
        entry["pod_count"] = int(table.requested[row, cols["pods"]])
        out.append(entry)
    return sorted(out, key=lambda e: e["node"])


def summarize(
    generation: Generation, scheduler: Scheduler, backend: EmbeddedCluster, total_pods: int, already_bound: int, elapsed: float
) -> dict[str, Any]:
    """The run's summary (`kubeberth simulate --json`): outcomes by bucket, throughput, why pods stayed
    pending, pods per node and requested/allocatable per resource."""
    queue = scheduler.queue
    counts = queue.counts()
    reasons, unschedulable_pods = _unschedulable(scheduler)
    errors: Counter[str] = Counter(e.last_message for e in scheduler.failed.values())
    gated = [e for e in queue.entries.values() if e.where == "gated"]
    table = scheduler.cluster.table
    rows = table.ordered_rows()
    per_node = Counter(scheduler.cluster.table.names[r] for r in scheduler.cluster.placement.values())
    pods_per_node = [per_node.get(table.names[r], 0) for r in rows.tolist()]
    util = _utilization(table, rows)
    scheduled = scheduler.stats.scheduled
    remaining_pods = len(backend.pods())
    preempted = total_pods - remaining_pods
    return {
        "nodes": len(table),
        "pods": total_pods,
        "already_bound": already_bound,
        "scheduled": scheduled,
        "unschedulable": sum(reasons.values()),
        "gated": len(gated),
        "errored": sum(errors.values()),
        "skipped": len(scheduler.skipped_pods),  # malformed: cannot be parsed (one warning each)
        "preempted": preempted,
        "still_queued": counts.get("active", 0) + counts.get("backoff", 0) + counts.get("inflight", 0),
        "attempts": scheduler.stats.attempts,
        "preemptions": scheduler.stats.preemptions,
        "seconds": round(elapsed, 3),
        "pods_per_second": round(scheduled / elapsed, 1) if elapsed > 0 else 0.0,
        "unschedulable_reasons": dict(reasons.most_common()),
        "unschedulable_pods": sorted(unschedulable_pods, key=lambda u: u["pod"]),
        "gated_pods": sorted(
            (
                {"pod": e.pod.key, "gates": list(e.pod.scheduling_gates), "plugin": e.gating_plugin,
                 "message": e.last_message}
                for e in gated
            ),
            key=lambda g: g["pod"],
        ),
        "errored_pods": sorted(
            ({"pod": e.pod.key, "message": e.last_message} for e in scheduler.failed.values()), key=lambda g: g["pod"]
        ),
        "error_reasons": dict(errors.most_common()),
        "generation": generation.id,
        "profile": generation.default_profile.profile,
        "plugins": {p: generation.default_profile.enabled(p) for p in ("filter", "score") },
        "pods_per_node": {
            "min": min(pods_per_node, default=0),
            "max": max(pods_per_node, default=0),
            "mean": round(statistics.fmean(pods_per_node), 2) if pods_per_node else 0.0,
        },
        "utilization": util,
    }


def _unschedulable(scheduler: Scheduler) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Pods that failed their last attempt and stay pending, counted by message and listed."""
    reasons: Counter[str] = Counter()
    unschedulable_pods = []
    for entry in scheduler.queue.entries.values():
        # A gang the simulation gave up on (see Scheduler.run_until_settled) may have members
        # queued for another try: they failed their last attempt and stay pending.
        retried = entry.where in ("active", "backoff") and entry.attempts and entry.last_message
        if entry.where == "unschedulable" or retried:
            reasons[entry.last_message] += 1
            unschedulable_pods.append({"pod": entry.pod.key, "message": entry.last_message, "attempts": entry.attempts})
    return reasons, unschedulable_pods


def _utilization(table: Any, rows: np.ndarray) -> dict[str, Any]:
    """requested/allocatable of cpu and memory over the nodes: mean, min, max and stdev."""
    util: dict[str, Any] = {}
    for resource in ("cpu", "memory"):
        col = table.resource_index[resource]
        alloc = table.allocatable[rows, col].astype(float)
        used = table.requested[rows, col].astype(float)
        frac = np.divide(used, alloc, out=np.zeros_like(used), where=alloc > 0)
        util[resource] = {
            "mean": round(float(frac.mean()), 4) if len(frac) else 0.0,
            "min": round(float(frac.min()), 4) if len(frac) else 0.0,
            "max": round(float(frac.max()), 4) if len(frac) else 0.0,
            "stdev": round(float(frac.std()), 4) if len(frac) else 0.0,
        }
    return util


def format_summary(summary: dict[str, Any]) -> str:
    """Human-readable placement summary."""
    lines = [
        f"kubeberth simulate — generation {summary['generation']}, profile {summary['profile']}",
        f"  nodes: {summary['nodes']}   pods: {summary['pods']} ({summary['already_bound']} already bound)",
        f"  scheduled: {summary['scheduled']}   unschedulable: {summary['unschedulable']}   gated: {summary['gated']}"
        f"   errored: {summary['errored']}{_retried(summary)}   preempted: {summary['preempted']}"
        f"   pending_other: {summary.get('pending_other', 0)}"
        + (f"   skipped (malformed): {summary['skipped']}" if summary.get("skipped") else ""),
        f"  throughput: {summary['pods_per_second']} pods/s ({summary['attempts']} attempts in {summary['seconds']} s)",
        f"  pods per node: min {summary['pods_per_node']['min']}, mean {summary['pods_per_node']['mean']},"
        f" max {summary['pods_per_node']['max']}",
    ]
    for resource, u in summary["utilization"].items():
        lines.append(
            f"  {resource} requested/allocatable: mean {u['mean']:.1%}, min {u['min']:.1%}, max {u['max']:.1%},"
            f" stdev {u['stdev']:.1%}"
        )
    if summary["unschedulable_reasons"]:
        lines.append("  unschedulable pods:")
        for message, count in summary["unschedulable_reasons"].items():
            lines.append(f"    {count:6d} × {message}")
    if summary["error_reasons"]:
        lines.append("  pods that failed with plugin errors:")
        for message, count in summary["error_reasons"].items():
            lines.append(f"    {count:6d} × {message}")
    if summary.get("victims"):
        lines.append("  preemption victims (victim ← preemptor, node):")
        for v in summary["victims"]:
            lines.append(f"    {v['pod']} ← {v['preemptor']} on {v['node']}")
    other = summary.get("pending_other_pods") or []
    if other:
        by_name = Counter(o["scheduler_name"] for o in other)
        lines.append(
            "  pending for other schedulers (not simulated; --scheduler-names adds them): "
            + ", ".join(f"{n} {name}" for name, n in sorted(by_name.items()))
        )
    return "\n".join(lines)


def _retried(summary: dict[str, Any]) -> str:
    attempts = summary.get("error_attempts", 0)
    return f" ({attempts} failed attempts)" if attempts else ""


def format_placements(placements: dict[str, str]) -> str:
    """`--placements` without --json: one `POD NODE` line per placed pod, sorted."""
    width = max((len(k) for k in placements), default=3)
    rows = [f"{'POD':<{width}}  NODE"] + [f"{k:<{width}}  {placements[k]}" for k in sorted(placements)]
    return "\n".join(rows)


def progress_printer(stream: Any = sys.stderr) -> Callable[[int, int], None]:
    """A one-line progress bar for long runs on a terminal."""

    def show(done: int, total: int) -> None:
        if total <= 0:
            return
        width = 30
        filled = int(width * min(done, total) / total)
        stream.write(f"\r  scheduling [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show

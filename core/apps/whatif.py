"""`kubeberth simulate --compare B.yaml`: the same cluster and pods under two configurations (or
two plugin folders), and what changes between them.

Both runs use the same objects and seed, so the difference is the configuration's alone. The
comparison is plain data (JSON-ready) so the terminal, `--json` and the HTML report show one thing.
"""

from __future__ import annotations

import statistics
from typing import Any

from ..observability.divergence import DivergenceReport, format_divergences
from .simulate import SimulationResult, node_usage

RESOURCES = ("cpu", "memory", "pods")
MOVES_SHOWN = 20
NODES_SHOWN = 10


def _unschedulable(result: SimulationResult) -> dict[str, str]:
    return {u["pod"]: u["message"] for u in result.summary.get("unschedulable_pods", ())}


def spread_metrics(usage: list[dict[str, Any]]) -> dict[str, Any]:
    """Packing vs spreading: nodes used, and the stdev/mean of cpu and memory utilisation."""
    out: dict[str, Any] = {"nodes": len(usage), "nodes_used": sum(1 for u in usage if u["pod_count"] > 0)}
    for resource in ("cpu", "memory"):
        values = [u[resource] for u in usage]
        out[f"{resource}_mean"] = round(statistics.fmean(values), 4) if values else 0.0
        out[f"{resource}_stdev"] = round(statistics.pstdev(values), 4) if values else 0.0
    return out


def zone_usage(usage: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per zone (nodes without a zone label under ""): requested/allocatable of each resource."""
    acc: dict[str, dict[str, list[float]]] = {}
    for u in usage:
        z = acc.setdefault(u["zone"], {r: [0.0, 0.0] for r in RESOURCES})
        for r in RESOURCES:
            z[r][0] += u["requested"][r]
            z[r][1] += u["allocatable"][r]
    return {
        zone: {r: round(used / alloc, 4) if alloc > 0 else 0.0 for r, (used, alloc) in z.items()}
        for zone, z in sorted(acc.items())
    }


def divergence_report(
    a: SimulationResult, b: SimulationResult, labels: tuple[str, str] = ("before", "after")
) -> dict[str, Any]:
    """The pods placed or found unschedulable by both runs, in the divergence report shadow
    generations use too (kubeberth.observability.divergence): moved, newly_unschedulable,
    newly_placed (each sorted by pod), counts and agreement."""
    pa, pb = a.placements, b.placements
    ua, ub = _unschedulable(a), _unschedulable(b)
    report = DivergenceReport(labels)
    for pod in sorted((pa.keys() | ua.keys()) & (pb.keys() | ub.keys())):
        before, after = pa.get(pod), pb.get(pod)
        report.add(pod, before, after, ub.get(pod, "") if after is None else ua.get(pod, ""))
    return report.as_dict()


def compare(a: SimulationResult, b: SimulationResult, labels: tuple[str, str] = ("before", "after")) -> dict[str, Any]:
    """What changes from run `a` to run `b` of the same cluster: placements, (un)schedulable pods,
    utilisation per node and zone, spread/packing metrics."""
    divergences = divergence_report(a, b, labels)
    usage_a, usage_b = node_usage(a.scheduler), node_usage(b.scheduler)
    by_node_b = {u["node"]: u for u in usage_b}
    per_node = [
        {
            "node": u["node"],
            "zone": u["zone"],
            "before": {r: u[r] for r in RESOURCES},
            "after": {r: by_node_b[u["node"]][r] for r in RESOURCES} if u["node"] in by_node_b else None,
        }
        for u in usage_a
    ]
    za, zb = zone_usage(usage_a), zone_usage(usage_b)
    per_zone = {z: {"before": za.get(z), "after": zb.get(z)} for z in sorted(za.keys() | zb.keys())}
    totals = ("scheduled", "unschedulable", "preempted", "pending_other", "gated", "errored")
    return {
        "labels": {"before": labels[0], "after": labels[1]},
        "generations": {"before": a.summary["generation"], "after": b.summary["generation"]},
        "totals": {k: {"before": a.summary.get(k, 0), "after": b.summary.get(k, 0)} for k in totals},
        **{k: v for k, v in divergences.items() if k != "labels"},
        "per_node": per_node,
        "per_zone": per_zone,
        "metrics": {"before": spread_metrics(usage_a), "after": spread_metrics(usage_b)},
    }


def format_comparison(diff: dict[str, Any]) -> str:
    """The comparison for a terminal: totals, metrics, per-zone utilisation, then the pods that changed."""
    before, after = diff["labels"]["before"], diff["labels"]["after"]
    lines = [f"kubeberth simulate --compare: {before} (generation {diff['generations']['before']})"
             f" → {after} (generation {diff['generations']['after']})"]
    lines.append("  " + "   ".join(f"{k}: {v['before']} → {v['after']}" for k, v in diff["totals"].items()))
    ma, mb = diff["metrics"]["before"], diff["metrics"]["after"]
    lines.append(f"  nodes used: {ma['nodes_used']} → {mb['nodes_used']} of {ma['nodes']}")
    for r in ("cpu", "memory"):
        lines.append(
            f"  {r} utilisation: mean {ma[f'{r}_mean']:.1%} → {mb[f'{r}_mean']:.1%},"
            f" stdev {ma[f'{r}_stdev']:.1%} → {mb[f'{r}_stdev']:.1%}"
        )
    if diff["per_zone"]:
        lines.append("  per zone (cpu, memory, pods requested/allocatable):")
        for zone, v in diff["per_zone"].items():
            b, a = v["before"] or {}, v["after"] or {}
            cells = ", ".join(f"{r} {b.get(r, 0):.1%} → {a.get(r, 0):.1%}" for r in RESOURCES)
            lines.append(f"    {zone or '(no zone)'}: {cells}")
    changed = [n for n in diff["per_node"] if n["after"] and n["after"] != n["before"]]
    if changed:
        changed.sort(key=lambda n: (-max(abs(n["after"][r] - n["before"][r]) for r in RESOURCES), n["node"]))
        lines.append(f"  per node, largest changes first ({len(changed)} of {len(diff['per_node'])} nodes changed):")
        for n in changed[:NODES_SHOWN]:
            b, a = n["before"], n["after"]
            cells = ", ".join(f"{r} {b[r]:.1%} → {a[r]:.1%}" for r in RESOURCES)
            lines.append(f"    {n['node']} ({n['zone'] or 'no zone'}): {cells}")
        if len(changed) > NODES_SHOWN:
            lines.append(f"    ... and {len(changed) - NODES_SHOWN} more (--json lists all)")
    lines += format_divergences(diff, MOVES_SHOWN)
    return "\n".join(lines)

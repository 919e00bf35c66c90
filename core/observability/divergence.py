"""One divergence report for two sets of decisions on the same pods: `simulate --compare` (two
runs of the same cluster) and a shadow generation (the live decision and the candidate's, pod by
pod, on the same node table).

A pod's two decisions are a node or None (unschedulable). They agree when they are the same;
otherwise the pod is *moved* (two different nodes), *newly unschedulable* (the second decision
found no node) or *newly placed* (only the second found one). Each entry is plain data:

    {"pod": "ns/name", "before": "node-1", "after": "node-2"}                  moved
    {"pod": "ns/name", "before": "node-1", "message": "0/3 nodes are ..."}     newly_unschedulable
    {"pod": "ns/name", "after": "node-2", "message": "0/3 nodes are ..."}      newly_placed

with an optional "detail" (a shadow's explain-style difference: the nodes one side rejects and
the other accepts, with the rejecting plugin and reason, and the score deltas of the top nodes).
"before" is the first decision (the first run, the live generation), "after" the second (the
compared run, the shadow); `labels` names them. The report is JSON-ready; `format_divergences`
renders it for a terminal.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

KINDS = ("moved", "newly_unschedulable", "newly_placed")
AGREE = "agree"
SHOWN = 20  # entries per kind a terminal shows


def kind_of(before: str | None, after: str | None) -> str:
    """agree, moved, newly_unschedulable or newly_placed (None: no node, unschedulable)."""
    if before == after:
        return AGREE
    if before is None:
        return "newly_placed"
    if after is None:
        return "newly_unschedulable"
    return "moved"


def entry(pod: str, before: str | None, after: str | None, message: str = "", detail: dict[str, Any] | None = None) -> dict[str, Any]:
    """One pod's divergence in the shared format; `message` is the unschedulable side's reason."""
    kind = kind_of(before, after)
    out: dict[str, Any]
    if kind == "moved":
        out = {"pod": pod, "before": before, "after": after}
    elif kind == "newly_unschedulable":
        out = {"pod": pod, "before": before, "message": message}
    elif kind == "newly_placed":
        out = {"pod": pod, "after": after, "message": message}
    else:
        out = {"pod": pod, "before": before, "after": after}
    if detail:
        out["detail"] = detail
    return out


class DivergenceReport:
    """Pods decided twice, counted by kind; the divergences kept (all, or the last `keep` per kind),
    and how often each (plugin, reason) made the second decision reject the first one's node."""

    def __init__(self, labels: tuple[str, str] = ("before", "after"), keep: int | None = None) -> None:
        self.labels = labels
        self.keep = keep
        self.pods = 0
        self.counts: Counter[str] = Counter()
        self.entries: dict[str, deque[dict[str, Any]]] = {k: deque(maxlen=keep) for k in KINDS}
        self.causes: Counter[tuple[str, str, str]] = Counter()  # (side, plugin, reason) -> pods

    def add(
        self, pod: str, before: str | None, after: str | None, message: str = "", detail: dict[str, Any] | None = None
    ) -> str:
        """Count one pod's two decisions; returns its kind."""
        kind = kind_of(before, after)
        self.pods += 1
        self.counts[kind] += 1
        if kind != AGREE:
            self.entries[kind].append(entry(pod, before, after, message, detail))
            for side, plugin, reason in _causes(detail):
                self.causes[(side, plugin, reason)] += 1
        return kind

    @property
    def agreed(self) -> int:
        return self.counts[AGREE]

    def agreement(self) -> float | None:
        """The share of pods whose two decisions agree (None before any pod)."""
        return round(self.agreed / self.pods, 6) if self.pods else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "labels": {"before": self.labels[0], "after": self.labels[1]},
            "pods": self.pods,
            "agreed": self.agreed,
            "agreement": self.agreement(),
            "counts": {k: self.counts[k] for k in KINDS},
            **{k: list(self.entries[k]) for k in KINDS},
            "top_causes": [
                {"side": side, "plugin": plugin, "reason": reason, "pods": n}
                for (side, plugin, reason), n in self.causes.most_common(10)
            ],
        }


def _causes(detail: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """The distinct (side, plugin, reason) of a divergence's feasibility differences."""
    if not detail:
        return []
    found: set[tuple[str, str, str]] = set()
    for side in ("after_rejects", "before_rejects"):
        for group in (detail.get("feasibility") or {}).get(side, ()):
            found.add((side.removesuffix("_rejects"), group["plugin"], group["reason"]))
    return sorted(found)


def format_divergences(report: dict[str, Any], shown: int = SHOWN, indent: str = "  ") -> list[str]:
    """The pods that changed, for a terminal: counts, then each kind's entries (`shown` of each)."""
    counts = {k: len(report[k]) for k in KINDS} if "counts" not in report else report["counts"]
    lines = [
        f"{indent}pods on another node: {counts['moved']}   newly unschedulable: {counts['newly_unschedulable']}"
        f"   newly placed: {counts['newly_placed']}"
    ]
    labels = report.get("labels") or {"before": "before", "after": "after"}
    for m in report["moved"][:shown]:
        lines.append(f"{indent}  {m['pod']}: {m['before']} → {m['after']}")
        lines += _detail_lines(m, indent + "    ", labels)
    if counts["moved"] > min(shown, len(report["moved"])):
        lines.append(f"{indent}  ... and {counts['moved'] - min(shown, len(report['moved']))} more (--json lists them)")
    for m in report["newly_unschedulable"][:shown]:
        lines.append(f"{indent}  {m['pod']}: {m['before']} → unschedulable: {m['message']}")
        lines += _detail_lines(m, indent + "    ", labels)
    for m in report["newly_placed"][:shown]:
        lines.append(f"{indent}  {m['pod']}: unschedulable → {m['after']}")
        lines += _detail_lines(m, indent + "    ", labels)
    return lines


def _detail_lines(m: dict[str, Any], indent: str, labels: dict[str, str]) -> list[str]:
    detail = m.get("detail")
    if not detail:
        return []
    lines = []
    feasibility = detail.get("feasibility") or {}
    for side, verb in (("after_rejects", f"{labels['after']} rejects"), ("before_rejects", f"{labels['before']} rejects")):
        for group in feasibility.get(side, ()):
            nodes = ", ".join(group["nodes"])
            more = f" (+{group['count'] - len(group['nodes'])})" if group["count"] > len(group["nodes"]) else ""
            lines.append(f"{indent}{verb} {group['count']} node(s) the other accepts: {group['plugin']}: "
                         f"{group['reason']} [{nodes}{more}]")
    for s in detail.get("scores", ())[:3]:
        b = "-" if s["before"] is None else f"{s['before']:g}"
        a = "-" if s["after"] is None else f"{s['after']:g}"
        lines.append(f"{indent}score {s['node']}: {b} → {a}")
    if detail.get("error"):
        lines.append(f"{indent}error: {detail['error']}")
    return lines

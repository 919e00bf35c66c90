"""Candidates and how one is chosen (kube-scheduler's pickOneNodeForPreemption and MoreImportantPod)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from kubeberth import MemoKey, PodInfo

NOT_HELPFUL = "Preemption is not helpful for scheduling"
_INT32_SHIFT = 2**31  # priorities are shifted to be non-negative before summing
_START_TIME: MemoKey[float] = MemoKey("DefaultPreemption.start_time")


@dataclass(slots=True)
class Candidate:
    """A node where evicting `victims` (most important first) lets the pod fit."""

    node: str
    victims: list[PodInfo]
    num_pdb_violations: int


def start_time(pod: PodInfo) -> float:
    """status.startTime; a pod that has not started counts as starting now (the latest)."""
    return pod.cached(_START_TIME, _parse_start_time)


def _parse_start_time(pod: PodInfo) -> float:
    raw = (pod.raw.get("status") or {}).get("startTime")
    if raw:
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(str(raw).replace("Z", "+00:00")).timestamp()
    return math.inf


def importance_key(pod: PodInfo) -> tuple[int, float]:
    """Sort key, most important first: higher priority, then earlier start (util.MoreImportantPod)."""
    return (-pod.priority, start_time(pod))


def pick_one_node_for_preemption(candidates: list[Candidate]) -> Candidate | None:
    """kube-scheduler's pickOneNodeForPreemption: each criterion only breaks the previous one's ties."""
    if not candidates:
        return None

    def earliest_top_start(c: Candidate) -> float:
        top = max(v.priority for v in c.victims)
        return min(start_time(v) for v in c.victims if v.priority == top)

    criteria: list[Callable[[Candidate], float]] = [
        lambda c: -c.num_pdb_violations,
        lambda c: -c.victims[0].priority,
        lambda c: -sum(v.priority + _INT32_SHIFT for v in c.victims),
        lambda c: -len(c.victims),
        earliest_top_start,
    ]
    remaining = candidates
    for score in criteria:
        scores = [score(c) for c in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores, strict=True) if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]


def fit_error_message(num_all_nodes: int, statuses: dict[str, tuple[str, ...]]) -> str:
    """FitError text over the dry run's node statuses; nodes not evaluated are 'not helpful'."""
    counts: dict[str, int] = {}
    for reasons in statuses.values():
        for reason in reasons:
            counts[reason] = counts.get(reason, 0) + 1
    absent = num_all_nodes - len(statuses)
    if absent > 0:
        counts[NOT_HELPFUL] = counts.get(NOT_HELPFUL, 0) + absent
    msg = f"0/{num_all_nodes} nodes are available:"
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    if histogram:
        msg += f" {', '.join(histogram)}."
    return msg

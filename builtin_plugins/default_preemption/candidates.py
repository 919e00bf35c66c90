"""Candidates and how one is chosen (kube-scheduler's pickOneNodeForPreemption and MoreImportantPod)."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from datetime import datetime

from kubeberth import MemoKey, PodInfo

NOT_HELPFUL = "Preemption is not helpful for scheduling"
_INT32_SHIFT = 2**31  # priorities are shifted to be non-negative before summing
_START_TIME: MemoKey[float] = MemoKey("DefaultPreemption.start_time")
_IMPORTANCE: MemoKey[tuple[int, float]] = MemoKey("DefaultPreemption.importance")


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
    key = pod.memo.get(_IMPORTANCE)  # PodInfo.cached inlined: sorts call this per victim
    if key is None:
        key = pod.memo[_IMPORTANCE] = (-pod.priority, start_time(pod))
    return key


def pick_one_node_for_preemption(candidates: list[Candidate]) -> Candidate | None:
    """kube-scheduler's pickOneNodeForPreemption: each criterion only breaks the previous one's ties
    (fewest PDB violations, lowest top victim priority, lowest priority sum, fewest victims, latest
    earliest start among the top-priority victims), the first candidate winning full ties: a
    lexicographic max over one rank tuple per candidate."""
    if not candidates:
        return None

    def rank(c: Candidate) -> tuple[int, int, int, int, float]:
        victims = c.victims
        return (
            -c.num_pdb_violations,
            -victims[0].priority,
            -sum(v.priority + _INT32_SHIFT for v in victims),
            -len(victims),
            min(importance_key(v) for v in victims)[1],  # the highest priority's earliest start
        )

    return max(candidates, key=rank)


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

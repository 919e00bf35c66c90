"""Candidates and how one is chosen (kube-scheduler's pickOneNodeForPreemption and MoreImportantPod)."""

from __future__ import annotations

import contextlib
import functools
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubeberth import MemoKey, NodeInfo, PodView

NOT_HELPFUL = "Preemption is not helpful for scheduling"
_INT32_SHIFT = 2**31  # priorities are shifted to be non-negative before summing
_RFC3339 = re.compile(r"(?P<whole>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(?P<fraction>\d+))?(?P<zone>[Zz]|[+-]\d\d:\d\d)$")
_START_TIME: MemoKey[float] = MemoKey("DefaultPreemption.start_time")
_IMPORTANCE: MemoKey[tuple[int, float]] = MemoKey("DefaultPreemption.importance")
_priority = operator.attrgetter("priority")


IsEligibleVictim = Callable[[NodeInfo, Any, PodView], bool]
"""(node, victim, preemptor) -> may `victim`, on `node`, be preempted by `preemptor`? Asked only about victims of
lower priority than the preemptor, in addition to that rule (kube-scheduler's IsEligiblePodFunc). The victim is
a PodView; under GenericWorkload it is a `Victim` (victims.py: a pod, or a whole PodGroup disrupted together),
asked once per node it has pods on and eligible only if every answer is yes."""

MoreImportantVictim = Callable[[Any, Any], bool]
"""(a, b) -> is `a` more important than `b`, so `b` is considered for preemption first? Victims are reprieved
most important first (kube-scheduler's MoreImportantVictimFunc). PodView objects; under GenericWorkload,
`Victim` objects (victims.py)."""


def victim_sort_key(
    more_important: MoreImportantVictim | None, default: Callable[[Any], Any] | None = None
) -> Callable[[Any], Any]:
    """A sort key putting the most important victim first: `default` (importance_key), or `more_important`
    as a comparison."""
    if more_important is None:
        return importance_key if default is None else default

    def compare(a: Any, b: Any) -> int:
        return -1 if more_important(a, b) else (1 if more_important(b, a) else 0)

    return functools.cmp_to_key(compare)


@dataclass(slots=True)
class Candidate:
    """A node where evicting `victims` (most important first) lets the pod fit."""

    node: str
    victims: list[PodView]
    num_pdb_violations: int


def start_time(pod: PodView) -> float:
    """status.startTime in nanoseconds since the epoch (an int); a pod that has not started counts as
    starting now, later than any start (math.inf)."""
    return pod.cached(_START_TIME, _parse_start_time)


def _parse_start_time(pod: PodView) -> float:
    """RFC 3339 with its fraction kept to the nanosecond, as Go's time.Parse keeps it (datetime stops at
    microseconds, which would tie pods started a few nanoseconds apart)."""
    raw = (pod.raw.get("status") or {}).get("startTime")
    if raw:
        m = _RFC3339.match(str(raw))
        if m:
            with contextlib.suppress(ValueError):
                whole = datetime.fromisoformat(m["whole"] + m["zone"].upper().replace("Z", "+00:00"))
                fraction = int((m["fraction"] or "0")[:9].ljust(9, "0"))
                return int(whole.timestamp()) * 1_000_000_000 + fraction
    return math.inf


def importance_key(pod: PodView) -> tuple[int, float]:
    """Sort key, most important first: higher priority, then earlier start (util.MoreImportantPod)."""
    key = pod.memo.get(_IMPORTANCE)  # PodView.cached inlined: sorts call this per victim
    if key is None:
        key = pod.memo[_IMPORTANCE] = (-pod.priority, start_time(pod))
    return key


def pick_one_node_for_preemption(candidates: list[Candidate]) -> Candidate | None:
    """kube-scheduler's pickOneNodeForPreemption: each criterion only breaks the previous one's ties
    (fewest PDB violations, lowest top victim priority, lowest priority sum, fewest victims, latest
    earliest start among the top-priority victims), the first candidate winning full ties.

    As upstream, criterion by criterion over the candidates still tied: a later (costlier) one is
    computed only for those."""
    if not candidates:
        return None
    tied = candidates
    for criterion in range(5):
        if criterion == 0:
            scores: list[float] = [-c.num_pdb_violations for c in tied]
        elif criterion == 1:
            scores = [-c.victims[0].priority for c in tied]  # victims are most important first
        elif criterion == 2:
            scores = [-(sum(map(_priority, c.victims)) + _INT32_SHIFT * len(c.victims)) for c in tied]
        elif criterion == 3:
            scores = [-len(c.victims) for c in tied]
        else:  # GetEarliestPodStartTime: the earliest start among the highest-priority victims; later wins
            scores = [min([v.memo.get(_IMPORTANCE) or importance_key(v) for v in c.victims])[1] for c in tied]
        best = max(scores)
        if min(scores) != best:
            tied = [c for c, s in zip(tied, scores, strict=True) if s == best]
            if len(tied) == 1:
                break
    return tied[0]


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

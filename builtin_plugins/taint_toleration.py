"""TaintToleration: NoSchedule/NoExecute taints filter; untolerated PreferNoSchedule taints score.

Batch form: each distinct interned taint set among the candidates is checked once against the
pod's tolerations and the answer broadcast to the rows carrying that set.
"""

from __future__ import annotations

import numpy as np
from kubeberth import Code, FilterResult, NodeView, PodInfo, hookimpl

from ._selectors import default_normalize_score, first_untolerated

_FILTER_KEY = "TaintToleration.filter"
_SCORE_KEY = "TaintToleration.score"


def _reason(taint_key: str, taint_value: str) -> str:
    return f"node(s) had untolerated taint {{{taint_key}: {taint_value}}}"


class TaintToleration:
    name = "TaintToleration"

    @hookimpl
    def filter(self, pod: PodInfo, nodes: NodeView) -> FilterResult:
        table = nodes.table
        set_ids = table.taint_set[nodes.rows]
        distinct = np.unique(set_ids)
        memo: dict[int, str | None] = pod.memo.setdefault(f"{_FILTER_KEY}.{id(table)}", {})
        rejected: dict[str, np.ndarray] = {}
        for set_id in distinct.tolist():
            if set_id not in memo:
                taint = first_untolerated(table.taint_sets.values[set_id], pod.tolerations)
                memo[set_id] = None if taint is None else _reason(taint.key, taint.value)
            reason = memo[set_id]
            if reason is not None:
                hit = set_ids == set_id
                rejected[reason] = rejected[reason] | hit if reason in rejected else hit
        return FilterResult.from_rejections(len(nodes), rejected, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @hookimpl
    def score(self, pod: PodInfo, nodes: NodeView) -> np.ndarray:
        """Count of PreferNoSchedule taints not tolerated by tolerations with that (or no) effect."""
        table = nodes.table
        tolerations = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
        memo: dict[int, int] = pod.memo.setdefault(f"{_SCORE_KEY}.{id(table)}", {})
        sets = table.taint_sets.values
        for set_id in range(len(memo), len(sets)):
            memo[set_id] = sum(
                1
                for taint in sets[set_id]
                if taint.effect == "PreferNoSchedule"
                and not any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)
            )
        per_set = np.fromiter((memo[i] for i in range(len(sets))), dtype=np.int64, count=len(sets))
        return nodes.broadcast_taint_sets(per_set)

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return default_normalize_score(scores, reverse=True)

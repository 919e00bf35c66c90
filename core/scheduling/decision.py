"""What a decision record keeps of a scheduling cycle's choice: the rejected nodes per plugin and
reason (the FitError's detail) and the top-scoring candidates (selectHost's field)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..cache.nodetable import NodeTable
from ..runtime.framework import REJECTED_NODES_RECORDED, TOP_SCORES_RECORDED, Framework
from ..runtime.records import CycleRecord, Diagnosis
from .incremental import CachedScores


def record_rejected_nodes(record: CycleRecord, diagnosis: Diagnosis, names: Sequence[str | None]) -> None:
    """The decision record's rejected nodes, per plugin and reason, up to REJECTED_NODES_RECORDED each."""
    for plugin, reason, rows, _code in diagnosis.rejections:
        kept = record.rejected_nodes.setdefault(plugin, {}).setdefault(reason, [])
        room = REJECTED_NODES_RECORDED - len(kept)
        if room > 0:
            kept.extend(names[r] or "" for r in rows[:room].tolist())


def record_top_scores(
    record: CycleRecord,
    fw: Framework,
    table: NodeTable,
    rows: np.ndarray,
    total: np.ndarray,
    per_plugin: Mapping[str, np.ndarray],
    ties: np.ndarray,
    pick: int,
) -> None:
    """The record's score ties and top scores, each node's total and weighted plugin scores."""
    record.score_ties = len(ties)
    top = _recorded_top(total, ties, pick, TOP_SCORES_RECORDED)
    top_rows = rows[top].tolist()
    weights = fw.score_weight_map
    columns = [(p, _at(per_plugin, p, top).tolist(), weights.get(p, 1)) for p in per_plugin]
    record.top_scores = [
        {
            "node": table.names[row],
            "total": t,
            "plugins": {p: values[j] * w for p, values, w in columns},
        }
        for j, (row, t) in enumerate(zip(top_rows, total[top].tolist(), strict=True))
    ]


def _at(per_plugin: Mapping[str, np.ndarray], plugin: str, positions: np.ndarray) -> np.ndarray:
    """One plugin's scores at `positions` (cached scores are read there only)."""
    if isinstance(per_plugin, CachedScores):
        return per_plugin.take(plugin, positions)
    return per_plugin[plugin][positions]


def _recorded_top(total: np.ndarray, ties: np.ndarray, pick: int, k: int) -> np.ndarray:
    """The `k` candidates whose scores a record keeps: the chosen one first, then the best others
    by score (candidate order among equals). With `k` or more tied at the best score, the others are
    the first tied ones; the record's score_ties says how many there were (selectHost's choice)."""
    first = ties[:k] if len(ties) >= k else _top_indices(total, k)
    if first.size and first[0] == pick:  # the usual case: one best node, or the first tied one picked
        return first
    return np.array([pick, *[i for i in first.tolist() if i != pick][: k - 1]], dtype=np.intp)


def _top_indices(total: np.ndarray, k: int) -> np.ndarray:
    """np.argsort(-total, kind="stable")[:k] without sorting every candidate."""
    n = total.shape[0]
    if n <= 4 * k:
        return np.argsort(-total, kind="stable")[:k]
    kth = np.partition(total, n - k)[n - k]  # the k-th largest value
    # Fewer than k are above it; of those equal to it (often thousands) the first ones fill up.
    above = np.flatnonzero(total > kth)
    candidates = np.concatenate([above, np.flatnonzero(total == kth)[: k - len(above)]])
    return candidates[np.argsort(-total[candidates], kind="stable")]

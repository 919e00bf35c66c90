"""What a decision record keeps of a scheduling cycle's choice: the rejected nodes per plugin and
reason (the FitError's detail) and the top-scoring candidates (selectHost's field)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cache.nodetable import NodeTable
from ..runtime.framework import REJECTED_NODES_RECORDED, TOP_SCORES_RECORDED, Framework
from ..runtime.records import CycleRecord, Diagnosis


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
    per_plugin: dict[str, np.ndarray],
    ties: np.ndarray,
    pick: int,
) -> None:
    """The record's score ties and top scores, each node's total and weighted plugin scores."""
    record.score_ties = len(ties)
    top = _recorded_top(total, ties, pick, TOP_SCORES_RECORDED)
    top_rows = rows[top].tolist()
    weights = fw.score_weight_map
    columns = [(p, s[top].tolist(), weights.get(p, 1)) for p, s in per_plugin.items()]
    record.top_scores = [
        {
            "node": table.names[row],
            "total": t,
            "plugins": {p: values[j] * w for p, values, w in columns},
        }
        for j, (row, t) in enumerate(zip(top_rows, total[top].tolist(), strict=True))
    ]


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
    candidates = np.flatnonzero(total >= kth)  # ascending indices: ties keep their order
    return candidates[np.argsort(-total[candidates], kind="stable")[:k]]

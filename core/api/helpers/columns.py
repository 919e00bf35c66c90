"""Columnar label evaluation: selectors over append-only lists of label sets, in batch form.

Selectors are evaluated column-wise over append-only lists of label dicts — the NodeTable's
interned label sets (nodes) and PodLabelCounts' (namespace, labels) groups (placed pods) — so the
cost of a cycle follows the number of distinct selectors and keys, not nodes x pods. Columns and
per-selector masks are memoised per source list and extended incrementally as new sets/groups are
interned.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from .selectors import _INT_RE, LabelSelector, Requirement

if TYPE_CHECKING:
    from ..views import ClusterView, NodeTableView

__all__ = ["LabelColumns", "ValueColumn", "group_columns", "matching_pod_counts", "node_columns"]

_MASK_CACHE_LIMIT = 4096


class ValueColumn:
    """One label key's values over a LabelColumns source: `ids[i]` indexes `values` (-1: label missing)."""

    __slots__ = ("ids", "values", "index", "ints")

    def __init__(self) -> None:
        self.ids = np.zeros(0, dtype=np.int32)
        self.values: list[str] = []
        self.index: dict[str, int] = {}
        self.ints = np.zeros(0, dtype=np.float64)

    def int_values(self) -> np.ndarray:
        if self.ints.shape[0] < len(self.values):
            extra = [float(v) if _INT_RE.match(v) else math.nan for v in self.values[self.ints.shape[0] :]]
            self.ints = np.concatenate([self.ints, np.asarray(extra, dtype=np.float64)])
        return self.ints


class LabelColumns:
    """Per-key value columns over an append-only list of items that carry labels.

    `items` is the live list (label sets of a NodeTable, groups of a PodLabelCounts); entries are
    never changed once appended, so a column only has to be extended for new items.
    """

    def __init__(
        self,
        items: Sequence[Any],
        labels_of: Callable[[Any], Mapping[str, str]],
        namespace_of: Callable[[Any], str] | None = None,
    ) -> None:
        self.items = items
        self.labels_of = labels_of
        self.namespace_of = namespace_of
        self._columns: dict[str, ValueColumn] = {}
        self._namespaces = ValueColumn()
        self._masks: dict[LabelSelector, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.items)

    def _extend(self, col: ValueColumn, getter: Callable[[Any], str | None]) -> ValueColumn:
        n = len(self.items)
        done = col.ids.shape[0]
        if done < n:
            new = np.empty(n - done, dtype=np.int32)
            index, values = col.index, col.values
            for j in range(done, n):
                value = getter(self.items[j])
                if value is None:
                    new[j - done] = -1
                    continue
                found = index.get(value)
                if found is None:
                    found = index[value] = len(values)
                    values.append(value)
                new[j - done] = found
            col.ids = np.concatenate([col.ids, new])
        return col

    def column(self, key: str) -> ValueColumn:
        col = self._columns.get(key)
        if col is None:
            col = self._columns[key] = ValueColumn()
        labels_of = self.labels_of
        return self._extend(col, lambda item: labels_of(item).get(key))

    def namespaces(self) -> ValueColumn:
        assert self.namespace_of is not None
        return self._extend(self._namespaces, self.namespace_of)

    def requirement_mask(self, req: Requirement) -> np.ndarray:
        col = self.column(req.key)
        ids = col.ids
        if req.op in ("In", "NotIn"):
            wanted = [col.index[v] for v in req.values if v in col.index]
            if not wanted:
                hit = np.zeros(ids.shape[0], dtype=bool)
            elif len(wanted) == 1:
                hit = ids == wanted[0]
            else:
                hit = np.isin(ids, wanted)
            return hit if req.op == "In" else ~hit
        if req.op == "Exists":
            return ids >= 0
        if req.op == "DoesNotExist":
            return ids < 0
        ints = col.int_values()
        vals = np.full(ids.shape[0], math.nan)
        present = ids >= 0
        vals[present] = ints[ids[present]]
        bound = float(int(req.values[0]))
        with np.errstate(invalid="ignore"):
            return vals > bound if req.op == "Gt" else vals < bound

    def mask(self, selector: LabelSelector) -> np.ndarray:
        """Which items the selector matches (bool per item); memoised per selector."""
        n = len(self.items)
        cached = self._masks.get(selector)
        if cached is not None and cached.shape[0] == n:
            return cached
        if selector.nothing:
            out = np.zeros(n, dtype=bool)
        else:
            out = np.ones(n, dtype=bool)
            for req in selector.requirements:
                out &= self.requirement_mask(req)
        if len(self._masks) >= _MASK_CACHE_LIMIT:
            self._masks.clear()
        self._masks[selector] = out
        return out

    def namespace_mask(self, names: Iterable[str]) -> np.ndarray:
        col = self.namespaces()
        wanted = [col.index[n] for n in names if n in col.index]
        if not wanted:
            return np.zeros(col.ids.shape[0], dtype=bool)
        return np.isin(col.ids, wanted)


_node_columns: weakref.WeakKeyDictionary[NodeTableView, LabelColumns] = weakref.WeakKeyDictionary()
_group_columns: weakref.WeakKeyDictionary[Any, LabelColumns] = weakref.WeakKeyDictionary()


def node_columns(table: NodeTableView) -> LabelColumns:
    """Columns over a NodeTable's interned label sets (index = label set id)."""
    found = _node_columns.get(table)
    if found is None:
        found = _node_columns[table] = LabelColumns(table.label_sets.values, lambda labels: labels)
    return found


def group_columns(cluster: ClusterView) -> LabelColumns:
    """Columns over the placed-pod (namespace, labels) groups of cluster.label_counts."""
    counts = cluster.label_counts
    found = _group_columns.get(counts)
    if found is None:
        found = _group_columns[counts] = LabelColumns(counts.groups, itemgetter(1), itemgetter(0))
    return found


def matching_pod_counts(
    cluster: ClusterView, selector: LabelSelector, namespaces: np.ndarray | None = None
) -> np.ndarray:
    """Placed pods matching `selector` per table row (length = table capacity).

    `namespaces` is a bool mask over groups restricting the pods' namespaces (None = any).
    """
    cols = group_columns(cluster)
    counts = cluster.label_counts
    mask = cols.mask(selector)
    if namespaces is not None:
        mask = mask & namespaces
    if not mask.any():
        return np.zeros(cluster.table.capacity, dtype=np.int64)
    totals = np.asarray(counts.totals[: mask.shape[0]])
    gids = np.flatnonzero(mask & (totals > 0))
    return counts.per_node(gids.tolist()).astype(np.int64)


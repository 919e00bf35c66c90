"""Per node, the pods a preemptor may evict (those of lower priority), kept across preemption attempts.

A dry run reads the same few hundred nodes attempt after attempt, and between two attempts only the
nodes that gained or lost a pod change: `NodeTableView.row_version[row]` moves with every pod placed on
or taken off the row, so an entry is reused only while the row's version and the preemptor's
priority are the ones it was built for. What an entry holds is what the dry run derives per node
(the pods, their request vectors and sums, their order by importance), computed on first use.
The entries live in the table's own cache (`NodeTableView.cached`), dropped when nodes change.
"""

from __future__ import annotations

import numpy as np
from kubeberth import ClusterView, PodView

from .candidates import importance_key

_KEY = "DefaultPreemption.lower_priority_pods"


class LowerPods:
    """The pods on one node with priority below `priority`, in the node's pod order."""

    __slots__ = ("version", "priority", "pods", "_matrix", "_total", "_order", "_by_importance")

    def __init__(self, version: int, priority: int, pods: list[PodView]) -> None:
        self.version = version
        self.priority = priority
        self.pods = pods
        self._matrix: np.ndarray | None = None
        self._total: np.ndarray | None = None
        self._order: list[int] | None = None
        self._by_importance: tuple[list[PodView], np.ndarray] | None = None

    def requests(self, cluster: ClusterView) -> tuple[np.ndarray, np.ndarray]:
        """The pods' request vectors, one row per pod (columns as `table.resources`), and their sums
        (what the node frees when every pod is gone)."""
        table = cluster.table
        matrix, total = self._matrix, self._total
        if matrix is None or total is None or matrix.shape[1] != len(table.resources):
            vectors = [table.request_vector(p) for p in self.pods]
            width = len(table.resources)
            if any(v.shape[0] != width for v in vectors):  # a pod added a resource column meanwhile
                vectors = [table.request_vector(p) for p in self.pods]
            matrix = self._matrix = np.concatenate(vectors).reshape(len(vectors), width)
            total = self._total = matrix.sum(axis=0)
        return matrix, total

    def importance_order(self) -> list[int]:
        """Positions in `pods`, most important first (importance_key; a stable sort)."""
        if self._order is None:
            keys = [importance_key(p) for p in self.pods]
            self._order = sorted(range(len(keys)), key=keys.__getitem__)
        return self._order


    def by_importance(self, cluster: ClusterView) -> tuple[list[PodView], np.ndarray]:
        """The pods most important first, and their request vectors in that order."""
        matrix, _total = self.requests(cluster)
        found = self._by_importance
        if found is None or found[1].shape[1] != matrix.shape[1]:
            order = self.importance_order()
            found = self._by_importance = ([self.pods[k] for k in order], matrix[order])
        return found


def lower_priority_pods(cluster: ClusterView, rows: list[int], priority: int) -> list[LowerPods]:
    """Each row's LowerPods for a preemptor of `priority`, reused while the row is unchanged."""
    table = cluster.table
    entries: dict[int, LowerPods] = table.cached(_KEY, dict)
    versions = table.row_version[np.asarray(rows, dtype=np.int64)].tolist() if rows else []
    out = []
    for row, version in zip(rows, versions, strict=True):
        entry = entries.get(row)
        if entry is None or entry.version != version or entry.priority != priority:
            pods = [p for p in cluster.node_pods(row).values() if p.priority < priority]
            entry = entries[row] = LowerPods(version, priority, pods)
        out.append(entry)
    return out

"""Topology domains and placed-pod change tracking: the well-known topology labels, per-domain sums,
the live rows of a NodeTable, and a version that moves whenever placements change (so plugins
know their pre-filter data went stale, e.g. when preemption re-runs filters)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..views import ClusterView, NodeTableView, PodView

__all__ = [
    "HOSTNAME_LABEL",
    "ZONE_LABEL",
    "PodChangeCounter",
    "alive_rows",
    "domain_sums",
    "pod_state_version",
]

HOSTNAME_LABEL = "kubernetes.io/hostname"
ZONE_LABEL = "topology.kubernetes.io/zone"


class PodChangeCounter:
    """A PodIndex that only counts placements and removals, to detect a changed pod state.

    Plugins keep pre-filter data in CycleState; when preemption re-runs filters after changing
    placements, the counter tells them their data is stale and must be recomputed.
    """

    def __init__(self, _cluster: ClusterView | None = None) -> None:
        self.version = 0

    def pod_added(self, pod: PodView, row: int) -> None:
        self.version += 1

    def pod_removed(self, pod: PodView, row: int) -> None:
        self.version += 1


def pod_state_version(cluster: ClusterView) -> tuple[int, int]:
    counter = cluster.index("helpers.pod_changes", PodChangeCounter)
    return counter.version, cluster.table.version


def domain_sums(ids: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Sum `weights` per domain id (ids >= 0), as an int64 array of length `size`."""
    keep = ids >= 0
    if not keep.any():
        return np.zeros(size, dtype=np.int64)
    return np.bincount(ids[keep], weights=weights[keep], minlength=size).astype(np.int64)


def alive_rows(table: NodeTableView) -> np.ndarray:
    """Live rows in row order; cached until node membership changes (callers must not mutate)."""
    return table.cached("helpers.alive_rows", lambda: _readonly(np.flatnonzero(table.alive[: table.size])))


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr

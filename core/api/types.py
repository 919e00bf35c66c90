"""Types a plugin receives besides the pod and the node table: per-cycle state and the per-node view."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import Taint

MAX_NODE_SCORE = 100
"""The highest score a score plugin may give a node after normalization (kube-scheduler's MaxNodeScore)."""


class CycleState(dict):
    """Data shared by all plugins within one scheduling cycle (keyed by plugin-chosen strings)."""

    def __init__(self) -> None:
        super().__init__()
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()


class NodeInfo:
    """One node as the per-node hook forms see it (built on demand; the slow path)."""

    __slots__ = ("row", "name", "labels", "taints", "unschedulable", "allocatable", "requested", "pods", "raw")

    def __init__(self, cluster: ClusterState, row: int) -> None:
        table = cluster.table
        self.row = row
        self.name: str = table.names[row] or ""
        self.labels: dict[str, str] = table.labels_of(row)
        self.taints: tuple[Taint, ...] = table.taints_of(row)
        self.unschedulable = bool(table.unschedulable[row])
        self.allocatable = dict(zip(table.resources, table.allocatable[row].tolist(), strict=True))
        self.requested = dict(zip(table.resources, table.requested[row].tolist(), strict=True))
        self.pods = list(cluster.node_pods(row).values())
        self.raw = table.raw[row]

"""Types a plugin receives besides the pod and the node table: per-cycle state and the per-node view."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..objects import Node

if TYPE_CHECKING:
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import Taint

MAX_NODE_SCORE = 100
"""The highest score a score plugin may give a node after normalization (kube-scheduler's MaxNodeScore)."""


class CycleState(dict):
    """Data shared by all plugins within one scheduling cycle (keyed by plugin-chosen strings)."""

    # Set by the binding cycle's pre-flights (kube-scheduler's SkipPreBindPlugins and
    # ParallelPreBindPlugins); class-level empty defaults keep a cycle that never gets there free.
    skip_pre_bind: frozenset[str] | set[str] = frozenset()
    parallel_pre_bind: frozenset[str] | set[str] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        self.skip_filter: set[str] = set()
        self.skip_score: set[str] = set()
        self.narrowed_by: set[str] = set()  # PreFilter plugins whose PreFilterResult narrowed the nodes

    def narrowed_reason(self) -> str:
        """kube-scheduler's status for the nodes a PreFilterResult left out: `didn't satisfy plugin(s) [A B]`."""
        return f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(self.narrowed_by))}]"


class NodeInfo:
    """One node as the per-node hook forms (`filter_node`, `score_node`) see it; built per call,
    so the slow path — prefer the batch hooks and NodeView for anything run on many nodes.

    name           the node's name
    labels         its labels (a missing label is simply absent: `labels.get(key)` is None)
    taints         its taints, as Taint(key, value, effect)
    unschedulable  spec.unschedulable
    allocatable    {resource: amount} in base units: cpu millicores, memory bytes, pods as a count
    requested      {resource: amount} summed over the pods placed (bound or assumed) on it, same units
    pods           the PodInfos placed on it
    raw            the Node JSON as the API server sent it (typed: kubeberth.api.objects.Node)
    row            its NodeTable row

        def score_node(self, node: NodeInfo) -> int:
            free = node.allocatable["cpu"] - node.requested["cpu"]   # millicores
            return min(100, free // 100)
    """

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
        self.raw: Node = cast(Node, table.raw[row] or {})

"""Types a plugin receives besides the pod and the node table: per-cycle state and the per-node view."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, cast

from ..objects import Node

if TYPE_CHECKING:
    from ..cache.nodetable import Taint
    from .views import ClusterView

MAX_NODE_SCORE = 100
"""The highest score a score plugin may give a node after normalization (kube-scheduler's MaxNodeScore)."""


class PreBindCancellation:
    """kube-scheduler's podInPreBind: a pod's PreBind that preemption may cancel while it runs.

    The binding cycle registers one for a pod whose PreBind has work (a pre-flight said Success)
    and puts it on the cycle state; preemption cancels it instead of deleting a victim that is
    still in PreBind. Once PreBind has finished (mark_prebound) it can no longer be cancelled,
    and a cancelled pod is never bound. Thread-safe."""

    __slots__ = ("_event", "_lock", "_finished", "reason")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._finished = False
        self.reason = ""

    def cancel(self, reason: str) -> bool:
        """CancelPod: False when PreBind already finished (the pod goes on to Bind)."""
        with self._lock:
            if self._finished:
                return False
            if not self._event.is_set():
                self.reason = reason
                self._event.set()
            return True

    def mark_prebound(self) -> bool:
        """MarkPrebound: False when cancelled (the pod must not be bound)."""
        with self._lock:
            if self._event.is_set():
                return False
            self._finished = True
            return True

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Block up to `seconds`; True as soon as the PreBind is cancelled."""
        return self._event.wait(seconds)


class PodGroupCycleState(dict[str, Any]):
    """kube-scheduler's PodGroupCycleState: data shared by the plugins of one pod group's scheduling
    cycle (keyed by plugin-chosen strings). The group's placement_generate and pod_group_post_filter
    plugins get it as their `state`; its members' per-pod plugins reach it as `state.pod_group_cycle`
    (e.g. a PreFilter writes what the group's PodGroupPostFilter reads). One per attempt of the group;
    PodGroupPostFilter's `schedule()` runs the group's algorithm again on a fresh one, as upstream's."""


class CycleState(dict[str, Any]):
    """Data shared by all plugins within one scheduling cycle (keyed by plugin-chosen strings)."""

    # The pod group cycle's state while this pod is scheduled as a member of its group (kube-scheduler's
    # GetPodGroupSchedulingCycle; None, as IsPodGroupSchedulingCycle false, outside one and once the pod
    # goes on to Reserve, Permit and binding for real).
    pod_group_cycle: PodGroupCycleState | None = None

    # Set by the binding cycle's pre-flights (kube-scheduler's SkipPreBindPlugins and
    # ParallelPreBindPlugins); class-level empty defaults keep a cycle that never gets there free.
    skip_pre_bind: frozenset[str] | set[str] = frozenset()
    parallel_pre_bind: frozenset[str] | set[str] = frozenset()
    # Set by the binding cycle while a PreBind with work runs (kube-scheduler's PodsInPreBind).
    pre_bind_cancellation: PreBindCancellation | None = None

    def pre_bind_cancelled(self) -> str:
        """Why this pod's PreBind was cancelled (it was preempted while in PreBind), or "".
        A PreBind plugin that waits should return Status.error(reason) once it is set."""
        c = self.pre_bind_cancellation
        return c.reason if c is not None and c.cancelled else ""

    def sleep_in_pre_bind(self, seconds: float) -> str:
        """Sleep up to `seconds` in a PreBind that polls (volumes, claims), waking early when the
        pod's PreBind is cancelled: returns the cancellation's reason, or "" when the time passed."""
        c = self.pre_bind_cancellation
        if c is None:
            if seconds > 0:
                time.sleep(seconds)
            return ""
        return c.reason if c.wait(seconds) else ""

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

    def __init__(self, cluster: ClusterView, row: int) -> None:
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

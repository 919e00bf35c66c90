"""NodeUnschedulable: keeps pods off cordoned nodes (spec.unschedulable) unless they tolerate it.

The toleration check is per pod (memoised); the node side is the table's `unschedulable` column,
so the filter is a single gather over the candidate rows.
"""

from __future__ import annotations

from typing import Any

from kubeberth import Code, FilterResult, FilterScope, MemoKey, NodeView, PodView, hookimpl, is_pod
from kubeberth.api.signing import TOLERATIONS_SIGNER, SignFragment, tolerations_signer

ERR_REASON = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_MEMO_KEY: MemoKey[bool] = MemoKey("NodeUnschedulable.tolerates")


def tolerates_unschedulable(pod: PodView) -> bool:
    found = _MEMO_KEY.get(pod)
    if found is None:
        found = any(t.tolerates(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule") for t in pod.tolerations)
        _MEMO_KEY.set(pod, found)
    return found


class NodeUnschedulable:
    name = "NodeUnschedulable"
    filter_scope = FilterScope.NODE
    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/UpdateNodeTaint": "is_schedulable_after_node_change",  # a taint changed, or uncordoned
        "TargetPod/UpdatePodToleration": "is_schedulable_after_target_pod_toleration_change",
    }
    requeue_on = frozenset(queueing_hints)  # EventsToRegister: exactly the hinted events

    def is_schedulable_after_target_pod_toleration_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterTargetPodTolerationChange: the pod now tolerates the unschedulable taint."""
        if not is_pod(new) or (old is not None and not is_pod(old)):
            raise TypeError(f"expected pods, got {type(old).__name__} and {type(new).__name__}")
        return tolerates_unschedulable(new)

    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: a schedulable node was added, or a node was uncordoned."""
        now_cordoned = bool((new.get("spec") or {}).get("unschedulable"))
        if old is None:
            return not now_cordoned
        return bool((old.get("spec") or {}).get("unschedulable")) and not now_cordoned

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's NodeUnschedulable.SignPod: the pod's tolerations."""
        return [SignFragment(TOLERATIONS_SIGNER, tolerations_signer(pod))]

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        cordoned = nodes.table.unschedulable[nodes.rows]
        if not cordoned.any() or tolerates_unschedulable(pod):
            return None
        return FilterResult.reject_where(cordoned, ERR_REASON, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

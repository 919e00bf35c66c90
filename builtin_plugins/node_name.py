"""NodeName: a pod that names its node (spec.nodeName) may only go there.

PodView.node_name is empty for pending pods, so the requested name is read from the raw spec;
the filter compares row numbers, not strings.
"""

from __future__ import annotations

import numpy as np
from kubeberth import (
    Code,
    FilterResult,
    FilterScope,
    NodeView,
    PodView,
    PreFilterResult,
    PreFilterState,
    hookimpl,
)
from kubeberth.api.signing import NODE_NAME_SIGNER, SignFragment

ERR_REASON = "node(s) didn't match the requested node name"


def requested_node_name(pod: PodView) -> str:
    return (pod.raw.get("spec") or {}).get("nodeName") or ""


class NodeName:
    name = "NodeName"
    filter_scope = FilterScope.NODE
    # EventsToRegister: a node added, no hint (the pod is retried with backoff, "the same as Queue").
    requeue_on = frozenset({"Node/Add"})
    pre_filter_state = PreFilterState.NO_POD_DATA  # the PreFilter result depends on the pod alone

    @hookimpl
    def pre_filter(self, pod: PodView) -> PreFilterResult | None:
        """A pod that names its node (an assigned pod being resized, a static assignment) is evaluated
        there only: other nodes are unresolvable, so never preemption targets."""
        wanted = requested_node_name(pod)
        return PreFilterResult(node_names=frozenset((wanted,))) if wanted else None

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's NodeName.SignPod: spec.nodeName."""
        return [SignFragment(NODE_NAME_SIGNER, requested_node_name(pod))]

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        wanted = requested_node_name(pod)
        if not wanted:
            return None
        row = nodes.table.row_of.get(wanted)
        mismatch = np.ones(len(nodes), dtype=bool) if row is None else nodes.rows != row
        return FilterResult.reject_where(mismatch, ERR_REASON, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

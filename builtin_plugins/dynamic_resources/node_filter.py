"""The per-node masks of DynamicResources' Filter (kube-scheduler's dynamicresources.go Filter and
filterExtendedResources): which variant of the extended-resource claim each node needs, and where the
pod's allocated claims are not available."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from kubeberth import ClusterView, Code, FilterResult, NodeView, Rejection

from .extended import REASON_CANNOT_FIT, REASON_STALE_CLAIM, claim_requests, split_nodes
from .state import StateData, requires_optional_node_operations

REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"  # the node feature a skipNodeOperations result needs


class ExtendedSplit:
    """filterExtendedResources' outcome over the candidate nodes: nodes that cannot get the extended
    resources at all, the variant group of each node, and nodes left with nothing to do."""

    __slots__ = ("rejected", "rejections", "group_of", "groups", "idle")

    def __init__(self, n: int) -> None:
        self.rejected = np.zeros(n, dtype=bool)
        self.rejections: list[Rejection] = []
        self.group_of = np.zeros(n, dtype=np.int64)
        self.groups: list[frozenset[str]] = [frozenset()]
        self.idle = np.zeros(n, dtype=bool)


def split_extended(st: StateData, nodes: NodeView, cluster: ClusterView) -> ExtendedSplit | FilterResult:
    """DRA-backed extended resources: which nodes cannot get them at all, and which variant of the
    pod's extended-resource claim each node needs (a FilterResult when no node can pass)."""
    n = len(nodes)
    split = ExtendedSplit(n)
    ext = st.extended
    if ext is not None:
        ext_claim = st.claims[ext.index]
        if claim_requests(ext_claim):  # left by an earlier attempt: PostFilter deletes it
            return FilterResult(np.zeros(n, dtype=bool), [
                Rejection(REASON_STALE_CLAIM, np.ones(n, dtype=bool), Code.UNSCHEDULABLE_AND_UNRESOLVABLE)])
        cannot_fit, split.group_of, split.groups = split_nodes(ext.requests, nodes, cluster.devices.device_class_for)
        if cannot_fit.any():
            split.rejected |= cannot_fit
            split.rejections.append(Rejection(REASON_CANNOT_FIT, cannot_fit, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
        if (ext_claim.get("status") or {}).get("allocation") is not None:
            split.groups = [frozenset()] * len(split.groups)  # allocated already: nothing to add per node
    user_claims = ext.index if ext is not None else len(st.claims)
    # Nodes where the device plugin serves every extended resource and the pod has no claim of
    # its own: nothing left to do.
    if ext is not None and user_claims == 0:
        for g, served in enumerate(split.groups):
            if not served:
                split.idle |= split.group_of == g
    return split


def _lacks_optional_node_operations(nodes: NodeView, miss: np.ndarray) -> None:
    raw = nodes.table.raw
    for i, row in enumerate(nodes.rows.tolist()):
        declared = ((raw[row] or {}).get("status") or {}).get("declaredFeatures") or ()
        if OPTIONAL_NODE_OPERATIONS not in declared:
            miss[i] = True


def unavailable_nodes(
    st: StateData, nodes: NodeView, binding_blocked: Callable[[dict[str, Any]], bool] | None
) -> np.ndarray:
    """Allocated claims: nodes outside their allocation's node selector, nodes lacking a feature the
    allocation needs, and (anywhere) allocations whose device binding failed or timed out
    (`binding_blocked`, None without binding conditions). Records the claims in st.unavailable."""
    n = len(nodes)
    unavailable = np.zeros(n, dtype=bool)
    for index, selector in enumerate(st.available_on):
        claim = st.claims[index]
        if (claim.get("status") or {}).get("allocation") is None:
            continue
        miss = ~selector.row_mask(nodes.table, nodes.rows) if selector is not None else np.zeros(n, dtype=bool)
        if requires_optional_node_operations(claim):
            _lacks_optional_node_operations(nodes, miss)
        if binding_blocked is not None and binding_blocked(claim):
            miss[:] = True
        if miss.any():
            st.unavailable.add(index)
            unavailable |= miss
    return unavailable


def filter_result(
    split: ExtendedSplit, failed: dict[str, np.ndarray], unavailable: np.ndarray
) -> FilterResult | None:
    """The nodes rejected for the extended resources, by the allocator (per reason) and for claims
    not available there, in that order; None when every node passes."""
    rejected, rejections = split.rejected, split.rejections
    for reason, mask in failed.items():
        mask &= ~rejected
        rejected |= mask
        rejections.append(Rejection(reason, mask, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    rest = unavailable & ~rejected & ~split.idle
    if rest.any():
        rejected |= rest
        rejections.append(Rejection(REASON_NOT_AVAILABLE, rest, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    if not rejected.any():
        return None
    return FilterResult(~rejected, rejections)

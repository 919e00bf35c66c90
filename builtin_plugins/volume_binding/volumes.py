"""Claims and volumes as VolumeBinding reads them: the reasons it reports, the annotations the
PV controller and provisioners read, and the few getters over raw PersistentVolume(Claim)s
(pkg/volume/util and storage helpers). Selector matching is kubeberth.api.helpers' (one engine)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubeberth.api.helpers import (
    NodeSelector,
    QuantityError,
    annotations_of,
    int_value,
    node_selector_terms,
    spec_of,
)

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_MIGRATED_PLUGINS",
    "ANN_SELECTED_NODE",
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_UNBOUND_IMMEDIATE",
    "NOT_SUPPORTED_PROVISIONER",
    "claim_request",
    "is_fully_bound",
    "pv_capacity",
    "pv_node_affinity_matches",
    "pv_node_selector",
    "storage_bytes",
    "topology_terms_match",
]

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


def pv_node_selector(pv: Mapping[str, Any]) -> NodeSelector | None:
    """The PV's required node affinity, parsed; None when it has none (it fits everywhere)."""
    required = (spec_of(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return None
    return node_selector_terms(required.get("nodeSelectorTerms") or [])


def pv_node_affinity_matches(pv: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: a PV without required node affinity fits everywhere; otherwise its
    nodeSelectorTerms must match the node's labels (the node known by its labels only, so
    matchFields on metadata.name see "")."""
    selector = pv_node_selector(pv)
    return selector is None or selector.matches(labels, "")


def topology_terms_match(terms: list[dict[str, Any]] | None, labels: Mapping[str, str]) -> bool:
    """StorageClass.allowedTopologies: empty admits everything; a term needs all its label values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        if all(e.get("key") in labels and labels[e["key"]] in (e.get("values") or ()) for e in exprs):
            return True
    return False


def storage_bytes(value: Any) -> int:
    """A storage quantity in bytes; absent or unparsable counts as 0."""
    if value is None:
        return 0
    try:
        return int_value(value)
    except QuantityError:
        return 0


def claim_request(pvc: Mapping[str, Any]) -> int:
    """The claim's spec.resources.requests.storage in bytes."""
    return storage_bytes(((spec_of(pvc).get("resources") or {}).get("requests") or {}).get("storage"))


def pv_capacity(pv: Mapping[str, Any]) -> int:
    """The volume's spec.capacity.storage in bytes."""
    return storage_bytes((spec_of(pv).get("capacity") or {}).get("storage"))


def is_fully_bound(pvc: Mapping[str, Any]) -> bool:
    """Bound = volumeName set and the bind-completed annotation (or, for hand-made objects, phase Bound)."""
    if not spec_of(pvc).get("volumeName"):
        return False
    return ANN_BIND_COMPLETED in annotations_of(pvc) or (pvc.get("status") or {}).get("phase") == "Bound"


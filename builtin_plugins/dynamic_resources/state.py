"""DynamicResources' cycle state (kube-scheduler's stateData in dynamicresources.go) and the claim
reads its extension points share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubeberth import ClusterView, NodeSelector
from kubeberth.api.dra import SelectorCache

from .allocator import Allocator, AllocatorFeatures, DeviceContexts
from .binding import BindingFailed, claim_ready_for_binding
from .extended import ExtendedResources

STATE_KEY = "DynamicResources"


@dataclass
class StateData:
    """stateData: the pod's claims and what Filter found per node."""

    claims: list[dict[str, Any]]
    available_on: list[NodeSelector | None]  # per claim: its allocation's node selector
    to_allocate: list[int]  # indices of claims the scheduler allocates
    allocator: Allocator | None = None
    node_allocations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    extended: ExtendedResources | None = None  # DRA-backed extended resources: the last claim
    taken: Any = None  # the allocated state (devices, shares, capacity) when PreFilter ran
    allocators: dict[frozenset[str], Allocator | None] = field(default_factory=dict)  # per extended variant
    unavailable: set[int] = field(default_factory=set)
    allocations: dict[int, dict[str, Any]] = field(default_factory=dict)  # set in Reserve
    bindings: list[dict[str, Any]] = field(default_factory=list)  # per claim: whom PreBind reserves it for


def new_allocator(
    st: StateData,
    claims: list[dict[str, Any]],
    cluster: ClusterView,
    features: AllocatorFeatures,
    selectors: SelectorCache,
    contexts: DeviceContexts,
) -> Allocator:
    """The structured allocator over `claims`, with the devices taken when PreFilter ran."""
    devices = cluster.devices
    taken = st.taken
    assert taken is not None
    return Allocator(claims, taken.devices, lambda name: cluster.get_object("DeviceClass", name), selectors,
                     contexts, devices.all_slices, features, shared=taken.shared, capacity=taken.capacity)


def claim_status(claim: dict[str, Any]) -> dict[str, Any]:
    return claim.get("status") or {}


def binding_settled(claim: dict[str, Any]) -> bool:
    """An observed claim whose devices' binding conditions are all met."""
    try:
        return claim_ready_for_binding(claim)
    except BindingFailed:
        return False


def requires_optional_node_operations(claim: dict[str, Any]) -> bool:
    """allocationResultRequiresDRAOptionalNodeOperations."""
    allocation = claim_status(claim).get("allocation") or {}
    return any(r.get("skipNodeOperations") for r in (allocation.get("devices") or {}).get("results") or ())


def without_nulls(value: Any) -> Any:
    """A status as apimachinery's Semantic.DeepEqual compares it: an absent field equals null."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value

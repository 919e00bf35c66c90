"""What DynamicResources writes (kube-scheduler's dynamicresources.go Reserve, Unreserve, PostFilter and
PreBind): the in-flight allocation held in the cache, the claim deallocated when it keeps the pod from
fitting anywhere, and the claims' status (allocation, reservedFor) written through the Handle."""

from __future__ import annotations

import copy
from typing import Any

from kubeberth import ClusterView, Code, Handle, PodView, Status

from .allocator import kobj
from .binding import bind_claim, has_binding_conditions, wait_for_binding
from .claims import FINALIZER, reserved_for_pod
from .extended import (
    claim_requests,
    create_extended_claim,
    delete_claim,
    is_special_claim_name,
    patch_pod_extended_resource_claim_status,
)
from .state import StateData, binding_settled


def post_filter(st: StateData, pod: PodView, handle: Handle) -> Status:
    """PostFilter: deallocate an allocated claim no other pod uses that keeps the pod from fitting (or
    delete a stale extended-resource claim); the next attempt starts anew."""
    ext = st.extended
    ext_claim = st.claims[ext.index] if ext is not None else None
    stale = ext_claim is not None and not is_special_claim_name(str(ext_claim["metadata"].get("name", "")))
    for index in sorted(st.unavailable):
        if ext is not None and index == ext.index:
            if stale:
                break
            continue
        claim = st.claims[index]
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
            fresh = copy.deepcopy(claim)
            status = fresh.setdefault("status", {})
            for key in ("reservedFor", "allocation", "devices"):
                status.pop(key, None)
            written = handle.update_object("ResourceClaim", fresh, subresource="status")
            if not written.ok:
                return Status.error(written.message)
            return Status.unschedulable("deallocation of ResourceClaim completed")
    if stale and ext_claim is not None:
        # The extended-resource claim of an earlier attempt: delete it, the next one starts anew.
        error = delete_claim(handle, ext_claim)
        if error:
            return Status.error(error)
        return Status.unschedulable("deletion of ResourceClaim completed")
    return Status(Code.UNSCHEDULABLE)


def reserve(st: StateData, pod: PodView, node_name: str, cluster: ClusterView, binding_conditions: bool) -> Status | None:
    """Reserve: hold the node's allocations in the cache (cluster.devices) until PreBind writes them."""
    ext = st.extended
    node_claim = ext.for_node(node_name) if ext is not None else None
    if ext is not None:
        ext.chosen = node_claim
    # The claims allocated on this node: the extended-resource claim only where DRA serves some.
    targets = [i for i in st.to_allocate if ext is None or i != ext.index or node_claim is not None]
    allocations = st.node_allocations.get(node_name)
    if not allocations:
        if ext is not None and all(i == ext.index for i in st.to_allocate):
            return None  # the device plugin serves the extended resources: nothing to allocate
        return Status.error("claim allocation not found for node")
    if len(allocations) != len(targets):
        return Status.error(
            f"internal error, have {len(allocations)} allocations, {len(targets)} claims to allocate, want {len(targets)} claims"
        )
    for index, allocation in zip(targets, allocations, strict=True):
        # One allocation object shared by the in-flight claim and PreBind (upstream's pointer):
        # the allocationTimestamp PreBind adds shows in both.
        allocation = copy.deepcopy(allocation)
        extended = ext is not None and index == ext.index and node_claim is not None
        claim = copy.deepcopy(node_claim[0] if extended and node_claim is not None else st.claims[index])
        meta = claim.setdefault("metadata", {})
        finalizers = meta.setdefault("finalizers", [])
        if FINALIZER not in finalizers:
            finalizers.append(FINALIZER)
        claim.setdefault("status", {})["allocation"] = allocation
        st.allocations[index] = allocation
        # Devices with binding conditions stay in flight until they are met (PreBind's success)
        # or Unreserve, as upstream keeps the allocation until PreBind returns.
        settled = binding_settled if binding_conditions and has_binding_conditions([claim]) else None
        cluster.devices.assume_allocation(str(meta.get("uid") or ""), kobj(claim), claim, pod.uid, settled,
                                          created_for=pod.uid if extended else "")
    return None


def unreserve(st: StateData, pod: PodView, cluster: ClusterView, handle: Handle) -> None:
    """Unreserve: release the holds and the pod's reservations; delete a created extended-resource claim."""
    ext = st.extended
    for index, claim in enumerate(st.claims):
        if ext is not None and index == ext.index:
            continue
        cluster.devices.release(str((claim.get("metadata") or {}).get("uid") or ""), pod.uid)
        if (claim.get("status") or {}).get("allocation") is not None and reserved_for_pod(claim, pod):
            fresh = handle.get_object("ResourceClaim", kobj(claim))
            if fresh is None:
                continue
            status = fresh.setdefault("status", {})
            status["reservedFor"] = [r for r in status.get("reservedFor") or () if r.get("uid") != pod.uid]
            handle.update_object("ResourceClaim", fresh, subresource="status")  # retried on the next attempt
    if ext is not None:
        # unreserveExtendedResourceClaim: drop the hold; a claim PreBind created goes again.
        cluster.devices.release(ext.initial_uid, pod.uid)
        claim = st.claims[ext.index]
        if not is_special_claim_name(str((claim.get("metadata") or {}).get("name", ""))):
            delete_claim(handle, claim)  # logged upstream; PostFilter retries on the next attempt
    st.allocations.clear()


def pre_bind(
    st: StateData, state: Any, pod: PodView, handle: Handle, workload_claims: bool, binding_conditions: bool,
    binding_timeout: float,
) -> Status | None:
    """PreBind: write each claim's allocation and reservation (creating the extended-resource claim), then
    wait for the devices' binding conditions."""
    ext = st.extended
    for index, claim in enumerate(st.claims):
        if reserved_for_pod(claim, pod, workload_claims):
            continue
        allocation = st.allocations.get(index)
        extended = ext is not None and index == ext.index
        if extended:
            if allocation is None and not claim_requests(claim):
                continue  # the device plugin serves the extended resources
            if is_special_claim_name(str((claim.get("metadata") or {}).get("name", ""))):
                if ext is None or ext.chosen is None:
                    return Status.error("extended resource claim not found for node")
                created, error = create_extended_claim(handle, ext.chosen[0])
                if created is None:
                    return Status.error(error)
                # Unreserve deletes the created claim from now on.
                st.claims[index] = claim = created
        written, error = bind_claim(handle, claim, allocation, st.bindings[index], binding_conditions)
        if error:
            return Status.error(error)
        # Unreserve works with the written claim (its reservation).
        st.claims[index] = written or claim
        if extended and ext is not None:
            error = patch_pod_extended_resource_claim_status(
                handle, pod, st.claims[index], ext.chosen[1] if ext.chosen is not None else [])
            if error:
                return Status.error(error)
    if not binding_conditions or not has_binding_conditions(st.claims):
        return None
    error = wait_for_binding(handle, st.claims, binding_timeout,
                             cancellation=getattr(state, "pre_bind_cancellation", None))
    return Status.error(error) if error else None

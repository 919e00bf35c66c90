"""DynamicResources' PreFilter checks (kube-scheduler's dynamicresources.go PreFilter and
validateDeviceClass): which claims the scheduler allocates, where allocated ones are available, and
that every request names an existing device class."""

from __future__ import annotations

from typing import Any

from kubeberth import ClusterView, DeviceStateView, NodeSelector, Status

from .allocator import kobj
from .extended import ExtendedResources


def check_class(cluster: ClusterView, class_name: str, request: str) -> Status | None:
    """validateDeviceClass."""
    if not class_name:
        return Status.error(f"request {request}: unsupported request type")
    if cluster.get_object("DeviceClass", class_name) is None:
        return Status.unschedulable(f"request {request}: device class {class_name} does not exist", unresolvable=True)
    return None


def check_requests(claim: dict[str, Any], cluster: ClusterView, prioritized_list: bool) -> Status | None:
    """Every request of an unallocated claim is of a known type and names existing device classes."""
    for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        rname = str(request.get("name", ""))
        if request.get("exactly") is not None:
            status = check_class(cluster, request["exactly"].get("deviceClassName") or "", rname)
        elif request.get("firstAvailable"):
            if not prioritized_list:
                return Status.unschedulable(
                    f"resource claim {kobj(claim)}, request {rname}: has subrequests, but the DRAPrioritizedList feature is disabled",
                    unresolvable=True,
                )
            status = None
            for sub in request["firstAvailable"]:
                status = check_class(cluster, sub.get("deviceClassName") or "", f"{rname}/{sub.get('name', '')}")
                if status is not None:
                    break
        else:
            status = Status.unschedulable(
                f"resource claim {kobj(claim)}, request {rname}: unknown request type", unresolvable=True
            )
        if status is not None:
            return status
    return None


def claims_to_allocate(
    claims: list[dict[str, Any]],
    extended: ExtendedResources | None,
    devices: DeviceStateView,
    cluster: ClusterView,
    prioritized_list: bool,
) -> tuple[list[NodeSelector | None], list[int]] | Status:
    """Per claim, its allocation's node selector (None: unallocated, or anywhere), and the indices of
    the claims the scheduler allocates; a Status when one cannot be allocated now."""
    available_on: list[NodeSelector | None] = []
    to_allocate: list[int] = []
    for index, claim in enumerate(claims):
        # resourceclaim.CanBeReserved puts no limit on sharing in v1.37 ("resourceclaim in use"
        # never happens): the API server refuses a reservedFor past its maximum size.
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation is not None:
            selector = allocation.get("nodeSelector")
            available_on.append(NodeSelector.parse(selector) if selector is not None else None)
            continue
        available_on.append(None)
        to_allocate.append(index)
        uid = str((claim.get("metadata") or {}).get("uid") or "")
        if devices.pending_allocation(uid) is not None:
            return Status.unschedulable(
                f"resource claim {kobj(claim)} is in the process of being allocated", unresolvable=True
            )
        if extended is not None and index == extended.index:
            continue  # its requests come per node (Filter validates a claim from an earlier attempt)
        status = check_requests(claim, cluster, prioritized_list)
        if status is not None:
            return status
    return available_on, to_allocate

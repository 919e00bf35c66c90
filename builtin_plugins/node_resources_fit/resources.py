"""Resource names and node-level fit checks (k8s.io/kubernetes/pkg/apis/core/v1/helper's resource
name semantics; fit.go's isFit, haveAnyRequestedResourcesIncreased and shouldDelegateResourceToDRA,
which the queueing hints use on a Node object outside the table)."""

from __future__ import annotations

from typing import Any

from kubeberth import DeviceStateView, PodView
from kubeberth.api.device_counts import DEVICE_CLASS_RESOURCE_PREFIX
from kubeberth.api.helpers import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, int_value, milli_value


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource(name: str) -> bool:
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource(name: str) -> bool:
    """Domain-qualified, not kubernetes.io (e.g. nvidia.com/gpu): the only kind that can be ignored."""
    return not is_native_resource(name) and not name.startswith("requests.")


def is_scalar_resource(name: str) -> bool:
    """Resources kept in NodeInfo.ScalarResources: extended, hugepages, prefixed native, attachable volumes."""
    return (
        is_extended_resource(name)
        or name.startswith("hugepages-")
        or is_prefixed_native_resource(name)
        or name.startswith("attachable-volumes-")
    )


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: a name a DeviceClass may serve."""
    return is_extended_resource(name) or name.startswith(DEVICE_CLASS_RESOURCE_PREFIX)


def _native(name: str) -> bool:
    return name in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


def delegated_to_dra(name: str, allocatable: int, devices: DeviceStateView | None) -> bool:
    """shouldDelegateResourceToDRA: no device plugin advertises the resource on the node
    (allocatable 0) and a DeviceClass serves it, so DynamicResources allocates it instead."""
    return allocatable <= 0 and devices is not None and devices.device_class_for(name) is not None


def requests_dra_extended_resource(pod: PodView, devices: DeviceStateView | None) -> bool:
    """Whether the pod requests a scalar resource a DeviceClass serves (SignPod's check)."""
    if devices is None or not devices.has_extended_resource_classes():
        return False
    return any(value and not _native(name) and devices.device_class_for(name) is not None
               for name, value in pod.requests.items())


def is_resize_deferred(pod: PodView) -> bool:
    """resource.IsPodResizeDeferred: the kubelet deferred the pod's in-place resize."""
    for condition in (pod.raw.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "PodResizePending":
            return condition.get("reason") == "Deferred"
    return False


def node_allocatable(node: dict[str, Any]) -> dict[str, int]:
    """A Node object's status.allocatable in the request units (cpu in millicores)."""
    out = {}
    for name, quantity in ((node.get("status") or {}).get("allocatable") or {}).items():
        out[name] = milli_value(quantity) if name == CPU else int_value(quantity)
    return out


def is_fit(pod: PodView, node: dict[str, Any] | None, devices: DeviceStateView | None = None) -> bool:
    """isFit: the pod fits the node with nothing else on it (Fits on a fresh NodeInfo); with
    `devices` (DRAExtendedResource), a resource a DeviceClass serves and the node does not
    advertise is left to DRA."""
    if node is None:
        return False
    allocatable = node_allocatable(node)
    if allocatable.get(PODS, 0) < 1:
        return False
    for name, value in pod.requests.items():
        if value <= 0 or value <= allocatable.get(name, 0):
            continue
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE):
            return False
        if is_scalar_resource(name) and not delegated_to_dra(name, allocatable.get(name, 0), devices):
            return False
    return True


def have_any_requested_resources_increased(pod: PodView, original: dict[str, Any], modified: dict[str, Any],
                                           devices: DeviceStateView | None = None) -> bool:
    """haveAnyRequestedResourcesIncreased: more pods allowed, or more of a resource the pod
    requests; with `devices` (DRAExtendedResource), any requested resource the modified node
    leaves to DRA counts as increased."""
    before, after = node_allocatable(original), node_allocatable(modified)
    if after.get(PODS, 0) > before.get(PODS, 0):
        return True
    for name, value in pod.requests.items():
        if value <= 0 or not (name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource(name)):
            continue
        if after.get(name, 0) > before.get(name, 0):
            return True
        if is_scalar_resource(name) and delegated_to_dra(name, after.get(name, 0), devices):
            return True
    return False

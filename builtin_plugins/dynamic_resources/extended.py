"""Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): kube-scheduler's
extendeddynamicresources.go.

A pod asking for an extended resource (`example.com/gpu: 2`, or the implicit
`deviceclass.resource.kubernetes.io/<class>`) that a DeviceClass serves gets its devices from DRA
on nodes that do not advertise the resource in `status.allocatable` (no device plugin):

- PreFilter finds the pod's claim from an earlier cycle (annotated
  `resource.kubernetes.io/extended-resource-claim: "true"`, controlled by the pod) or builds one in
  memory, named `<extended-resources>`, with no requests yet;
- Filter decides per node which resources DRA serves (allocatable 0 and a class exists) and which
  the device plugin does, and allocates a node-specific copy of that claim whose requests
  `create_requests_and_mappings` builds from the containers; a claim left from an earlier cycle
  rejects every node, so PostFilter deletes it and the pod is tried anew;
- PreBind creates the claim (generateName `<pod>-extended-resources-`), writes its allocation and
  reservation like any claim, and records the request mappings in the pod's
  `status.extendedResourceClaimStatus`; Unreserve deletes a claim it created.
"""

from __future__ import annotations

import contextlib
import copy
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from kubeberth import Handle, NodeView, PodView
from kubeberth.api.helpers import QuantityError, parse_quantity
from kubeberth.api.metrics import REGISTRY
from prometheus_client.core import CounterMetricFamily

from .claims import FINALIZER

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "REASON_CANNOT_FIT",
    "REASON_STALE_CLAIM",
    "SPECIAL_CLAIM_NAME",
    "ExtendedResources",
    "claim_requests",
    "create_extended_claim",
    "create_requests_and_mappings",
    "delete_claim",
    "find_extended_resource_claim",
    "has_device_class_mapped_extended_resource",
    "is_dra_extended_resource_name",
    "is_special_claim_name",
    "new_extended_resource_claim",
    "patch_pod_extended_resource_claim_status",
    "split_nodes",
]

SPECIAL_CLAIM_NAME = "<extended-resources>"  # specialClaimInMemName: never a valid object name
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix
REASON_STALE_CLAIM = "cannot schedule extended resource claim"
REASON_CANNOT_FIT = "cannot fit resource"
_CONFLICT_RETRIES = 5  # retry.DefaultRetry.Steps

Resolver = Callable[[str], "dict[str, Any] | None"]


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource (domain-qualified, outside
    kubernetes.io, not `requests.*`) or an implicit `deviceclass.resource.kubernetes.io/<class>`."""
    if name.startswith(DEVICE_CLASS_RESOURCE_PREFIX):
        return True
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def has_device_class_mapped_extended_resource(requests: Mapping[str, int], resolve: Resolver) -> bool:
    """hasDeviceClassMappedExtendedResource: a non-zero request for a resource some class serves."""
    for name, value in requests.items():
        # "/" first: cpu, memory, pods and the like have none (the common case costs a membership test).
        if "/" in name and value and is_dra_extended_resource_name(name) and resolve(name) is not None:
            return True
    return False


def is_special_claim_name(name: str) -> bool:
    return name == SPECIAL_CLAIM_NAME


def find_extended_resource_claim(pod: PodView, claims: list[dict[str, Any]]) -> dict[str, Any] | None:
    """findExtendedResourceClaim: the annotated claim whose controller is this pod (name and uid)."""
    for claim in claims:
        meta = claim.get("metadata") or {}
        if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for ref in meta.get("ownerReferences") or ():
            if ref.get("name") == pod.name and ref.get("controller") and ref.get("uid") == pod.uid:
                return claim
    return None


def new_extended_resource_claim(pod: PodView) -> dict[str, Any]:
    """The in-memory claim of PreFilter: no requests yet, a temporary uid (what in-flight
    allocations are keyed by until PreBind creates the claim)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "namespace": pod.namespace,
            "name": SPECIAL_CLAIM_NAME,
            "uid": str(uuid.uuid4()),
            "generateName": f"{pod.name}-extended-resources-",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}],
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        },
        "spec": {},
    }


def claim_requests(claim: dict[str, Any]) -> list[dict[str, Any]]:
    """The claim's device requests (none for the in-memory claim before Filter)."""
    return list(((claim.get("spec") or {}).get("devices") or {}).get("requests") or ())


# ---- createRequestsAndMappings -----------------------------------------------------------
def _container_requests(container: dict[str, Any]) -> dict[str, Any]:
    """The container's requests as the API server defaults them (a limit alone is the request)."""
    resources = container.get("resources") or {}
    merged = dict(resources.get("limits") or {})
    merged.update(resources.get("requests") or {})
    return merged


def _as_int64(quantity: Any) -> int | None:
    """resource.Quantity.AsInt64: the value when it is a whole number, else None."""
    try:
        value = parse_quantity(quantity)
    except (QuantityError, ValueError, TypeError):
        return None
    if value != value.to_integral_value() or not -(1 << 63) <= value < (1 << 63):
        return None
    return int(value)


def _request_and_mappings(index: int, container: dict[str, Any], resource: str, class_name: str,
                          reusable: list[dict[str, Any] | None]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """createResourceRequestAndMappings: the container's device request for `resource` (None when
    requests it may reuse — longer-lived containers' — cover it) and its mappings."""
    creqs = _container_requests(container)
    if resource not in creqs:
        return None, []
    count = _as_int64(creqs[resource])
    if not count:
        return None, []
    name = str(container.get("name", ""))
    mappings: list[dict[str, Any]] = []
    total = 0
    for request in reusable:
        if request is not None:
            total += request["exactly"]["count"]
            mappings.append({"containerName": name, "resourceName": resource, "requestName": request["name"]})
            if total >= count:
                return None, mappings
    ridx = sorted(creqs).index(resource)
    request_name = f"container-{index}-request-{ridx}"
    request = {"name": request_name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                                 "count": count - total}}
    mappings.append({"containerName": name, "resourceName": resource, "requestName": request_name})
    return request, mappings


def create_requests_and_mappings(pod: Mapping[str, Any], extended_resources: Mapping[str, int],
                                 resolve: Resolver) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """createRequestsAndMappings: the device requests (sorted by name) and container mappings for
    the resources DRA serves on a node. Containers are the init containers then the regular ones
    (`container-<i>-request-<j>`: i indexes that list, j the resource among the container's sorted
    requests); a non-sidecar init container first reuses the requests of longer-lived containers
    after it, and of the init containers' own requests only the largest is kept, the others mapped to it."""
    spec = pod.get("spec") or {}
    init = list(spec.get("initContainers") or ())
    containers = init + list(spec.get("containers") or ())
    long_lived: list[int] = []
    short_lived: list[int] = []
    for i, container in enumerate(containers):
        if i < len(init) and container.get("restartPolicy") != "Always":
            short_lived.append(i)
        else:
            long_lived.append(i)
    requests: list[dict[str, Any]] = []
    mappings: list[dict[str, Any]] = []
    for resource in sorted(extended_resources):
        device_class = resolve(resource)
        if device_class is None:
            continue
        class_name = str((device_class.get("metadata") or {}).get("name", ""))
        long_requests: list[dict[str, Any] | None] = [None] * len(containers)
        long_mappings: list[dict[str, Any]] = []
        for i in long_lived:
            request, found = _request_and_mappings(i, containers[i], resource, class_name, [])
            long_requests[i] = request
            long_mappings.extend(found)
        largest: dict[str, Any] | None = None
        short_names: set[str] = set()
        short_mappings: list[dict[str, Any]] = []
        for i in short_lived:
            request, found = _request_and_mappings(i, containers[i], resource, class_name, long_requests[i:])
            if request is not None:
                short_names.add(request["name"])
                if largest is None or largest["exactly"]["count"] < request["exactly"]["count"]:
                    largest = request
            short_mappings.extend(found)
        if largest is not None and len(short_names) > 1:
            short_names.discard(largest["name"])
            for mapping in short_mappings:
                if mapping["requestName"] in short_names:
                    mapping["requestName"] = largest["name"]
        if largest is not None:
            requests.append(largest)
        requests.extend(r for r in long_requests if r is not None)
        mappings.extend(long_mappings)
        mappings.extend(short_mappings)
    requests.sort(key=lambda r: r["name"])
    return requests, mappings


# ---- per-node split (filterExtendedResources) ---------------------------------------------
def _advertises(node: dict[str, Any] | None, resource: str) -> bool:
    status = (node or {}).get("status") or {}
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    return resource in allocatable


def split_nodes(requests: Mapping[str, int], nodes: NodeView,
                resolve: Resolver) -> tuple[np.ndarray, np.ndarray, list[frozenset[str]]]:
    """filterExtendedResources' node checks, for every candidate at once: (nodes that neither
    advertise nor can get from DRA some requested extended resource, each node's group index,
    the groups: the set of resources DRA serves there). A resource goes to DRA on a node whose
    allocatable for it is 0 when a DeviceClass serves it; else the device plugin (NodeResourcesFit)."""
    n = len(nodes)
    cannot_fit = np.zeros(n, dtype=bool)
    by_dra: list[tuple[str, np.ndarray]] = []
    for name in sorted(requests):
        if not requests[name] or not is_dra_extended_resource_name(name):
            continue
        zero = nodes.allocatable(name) == 0
        if resolve(name) is not None:
            if zero.any():
                by_dra.append((name, zero))
            continue
        raw = nodes.table.raw
        for i in np.flatnonzero(zero).tolist():
            if not _advertises(raw[int(nodes.rows[i])], name):
                cannot_fit[i] = True
    if not by_dra:
        return cannot_fit, np.zeros(n, dtype=np.int64), [frozenset()]
    code = np.zeros(n, dtype=np.int64)
    for bit, (_, mask) in enumerate(by_dra):
        code |= mask.astype(np.int64) << bit
    codes, group_of = np.unique(code, return_inverse=True)
    groups = [frozenset(name for bit, (name, _) in enumerate(by_dra) if int(c) >> bit & 1) for c in codes.tolist()]
    return cannot_fit, group_of.astype(np.int64), groups


@dataclass
class ExtendedResources:
    """The pod's DRA-backed extended resources in one cycle (draExtendedResource plus the special
    claim's bookkeeping): the claim found or built in PreFilter sits at `index` in the pod's claims."""

    index: int
    initial_uid: str  # the uid in-flight allocations are keyed by (getInitialExtendedResourceClaimUID)
    requests: dict[str, int]  # the pod's scalar requests (podScalarResources)
    # DRA-served resources -> (the node-specific claim, the container mappings); built once per set.
    variants: dict[frozenset[str], tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=dict)
    node_variant: dict[str, frozenset[str]] = field(default_factory=dict)  # set in Filter, per node
    chosen: tuple[dict[str, Any], list[dict[str, Any]]] | None = None  # set in Reserve, used in PreBind

    def variant(self, pod: PodView, template: dict[str, Any], served: frozenset[str],
                resolve: Resolver) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The node-specific claim (a copy of `template` with requests) for the resources DRA serves."""
        found = self.variants.get(served)
        if found is None:
            requests, mappings = create_requests_and_mappings(
                pod.raw, {name: self.requests[name] for name in served}, resolve)
            claim = copy.deepcopy(template)
            claim.setdefault("spec", {}).setdefault("devices", {})["requests"] = requests
            found = self.variants[served] = (claim, mappings)
        return found

    def for_node(self, node_name: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The node-specific claim Filter prepared for `node_name`; None when the device plugin
        serves everything there."""
        served = self.node_variant.get(node_name)
        return self.variants.get(served) if served else None


# ---- dynamic_resource_allocation_resourceclaim_creates_total ------------------------------
_CREATES: Counter[str] = Counter()  # status ("success" | "failure") -> claims created for pods
_CREATES_LOCK = threading.Lock()  # PreBind runs on binding workers


class _CreatesCollector:
    """kube-scheduler's resourceclaim metric (k8s.io/dynamic-resource-allocation/resourceclaim/metrics)
    for the claims PreBind creates: labels status, admin_access ("false"), owner_api_group ("")
    and owner_api_kind ("Pod")."""

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "dynamic_resource_allocation_resourceclaim_creates",
            "Number of ResourceClaims creation requests, categorized by creation status, admin access, and owning "
            "API group and kind (either Pod or scheduling.k8s.io/PodGroup)",
            labels=["status", "admin_access", "owner_api_group", "owner_api_kind"],
        )
        # The module as imported now: after an entry-point rescan re-imports it, the collector
        # registered first reports the new module's counts.
        module = sys.modules[__name__]
        with module._CREATES_LOCK:
            counts = dict(module._CREATES)
        for status, value in sorted(counts.items()):
            family.add_metric([status, "false", "", "Pod"], value)
        yield family


with contextlib.suppress(ValueError):  # re-imported: the first collector stays registered
    REGISTRY.register(_CreatesCollector())


def _count_create(status: str) -> None:
    with _CREATES_LOCK:
        _CREATES[status] += 1


# ---- API writes (PreBind, Unreserve, PostFilter) -------------------------------------------
def _kobj(claim: dict[str, Any]) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def create_extended_claim(handle: Handle, claim: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """createExtendedResourceClaimInAPI: create the node-specific claim under its generateName
    (name, uid and allocation cleared); (the created claim, '') or (None, the error text)."""
    claim = copy.deepcopy(claim)
    meta = claim.setdefault("metadata", {})
    meta["name"] = ""
    meta.pop("uid", None)
    (claim.get("status") or {}).pop("allocation", None)
    if not claim.get("status"):
        claim.pop("status", None)
    status, created = handle.create_object("ResourceClaim", claim)
    if not status.ok or created is None:
        _count_create("failure")
        return None, f"create claim for extended resources {_kobj(claim)}: {status.message}"
    _count_create("success")
    return created, ""


def patch_pod_extended_resource_claim_status(handle: Handle, pod: PodView, claim: dict[str, Any],
                                             mappings: list[dict[str, Any]]) -> str:
    """patchPodExtendedResourceClaimStatus: record the claim and the request mappings in the pod's
    status; '' or the error text."""
    if not mappings:
        return f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus"
    patch = {"status": {"extendedResourceClaimStatus": {
        "requestMappings": copy.deepcopy(mappings),
        "resourceClaimName": (claim.get("metadata") or {}).get("name", ""),
    }}}
    status = handle.patch_object("Pod", f"{pod.namespace}/{pod.name}", patch, subresource="status")
    if not status.ok:
        return f"update pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus: {status.message}"
    return ""


def delete_claim(handle: Handle, claim: dict[str, Any]) -> str:
    """deleteClaim: drop the delete-protection finalizer (retrying on conflicts), then delete the
    claim; a claim already gone is fine. '' or the error text."""
    key = _kobj(claim)
    current: dict[str, Any] | None = copy.deepcopy(claim)
    last = ""
    for attempt in range(_CONFLICT_RETRIES):
        if attempt:
            current = handle.get_object("ResourceClaim", key)
            if current is None:
                return f"get resourceclaim {key}: not found"
        assert current is not None
        meta = current.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or ())
        if FINALIZER in finalizers:
            finalizers.remove(FINALIZER)
        meta["finalizers"] = finalizers
        written = handle.update_object("ResourceClaim", current)
        if written.ok:
            last = ""
            break
        last = f"update resourceclaim {key}: {written.message}"
        if "the object has been modified" not in written.message and "Conflict" not in written.message:
            return last
    if last:
        return last
    deleted = handle.delete_object("ResourceClaim", key)
    return "" if deleted.ok else deleted.message

"""NodeResourcesFit: rejects nodes without room for the pod's requests; scores by allocation.

Filter is one vectorised comparison of the pod's non-zero requests against every candidate row's
(allocatable - requested). Scoring follows kube-scheduler's resourceAllocationScorer with the
LeastAllocated, MostAllocated or RequestedToCapacityRatio strategy, in Go's integer arithmetic.
The scorer and the resource-name helpers are shared with NodeResourcesBalancedAllocation.

Extended resources backed by DRA (DRAExtendedResource): a requested extended resource that a
DeviceClass serves (its `extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`)
is left to DynamicResources on nodes whose allocatable for it is 0, and scored there from the
devices the class matches in the node's ResourceSlices (`kubeberth.api.device_counts`). None of
it runs while the cluster has no DeviceClass, and only rejected rows or scored DRA-backed
resources look at it otherwise.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, Literal

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterState,
    Code,
    DeviceState,
    FeatureGates,
    FilterResult,
    FilterScope,
    MemoKey,
    NodeTable,
    NodeView,
    PodInfo,
    PreFilterState,
    Rejection,
    ScoreScope,
    Status,
    hookimpl,
)
from kubeberth.api.device_counts import DEVICE_CLASS_RESOURCE_PREFIX, device_totals
from kubeberth.api.helpers import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, StrictArgs, int_value, milli_value
from kubeberth.api.signing import RESOURCES_SIGNER, SignFragment, resources_signer
from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
MAX_CUSTOM_PRIORITY_SCORE = 10  # shape scores are 0..10, scaled by MaxNodeScore / 10
MAX_UTILIZATION = 100

_PREFILTER_KEY = "PreFilterNodeResourcesFit"
_PRESCORE_KEY = "PreScoreNodeResourcesFit"

DraResources = list[tuple[int, dict[str, Any]]]
"""Scored resources a DeviceClass serves: (index in the scorer's resources, the DeviceClass)."""


# ---- resource names (k8s.io/kubernetes/pkg/apis/core/v1/helper semantics) -------------------
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


def delegated_to_dra(name: str, allocatable: int, devices: DeviceState | None) -> bool:
    """shouldDelegateResourceToDRA: no device plugin advertises the resource on the node
    (allocatable 0) and a DeviceClass serves it, so DynamicResources allocates it instead."""
    return allocatable <= 0 and devices is not None and devices.device_class_for(name) is not None


def requests_dra_extended_resource(pod: PodInfo, devices: DeviceState | None) -> bool:
    """Whether the pod requests a scalar resource a DeviceClass serves (SignPod's check)."""
    if devices is None or not devices.has_extended_resource_classes():
        return False
    return any(value and not _native(name) and devices.device_class_for(name) is not None
               for name, value in pod.requests.items())


def is_resize_deferred(pod: PodInfo) -> bool:
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


def is_fit(pod: PodInfo, node: dict[str, Any] | None, devices: DeviceState | None = None) -> bool:
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


def have_any_requested_resources_increased(pod: PodInfo, original: dict[str, Any], modified: dict[str, Any],
                                           devices: DeviceState | None = None) -> bool:
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


# ---- args ------------------------------------------------------------------------------------
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def qualified_name_error(value: str) -> str | None:
    """metav1validation.ValidateLabelName (a qualified name), or None when valid."""
    parts = value.split("/")
    if len(parts) > 2:
        return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return "prefix part must be a lowercase RFC 1123 subdomain"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_PART.match(name):
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
    return None


def _invalid(path: str, message: str) -> PydanticCustomError:
    return PydanticCustomError("invalid_args", "{path}: {message}", {"path": path, "message": message})


class ResourceSpec(StrictArgs):
    name: str
    weight: int = 0  # 0 (unset) defaults to 1, as kube-scheduler's v1 defaulting does


class UtilizationShapePoint(StrictArgs):
    utilization: int
    score: int


class RequestedToCapacityRatioParam(StrictArgs):
    shape: list[UtilizationShapePoint] = Field(default_factory=list)


class ScoringStrategy(StrictArgs):
    type: Literal["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]
    resources: list[ResourceSpec] = Field(default_factory=list)
    requestedToCapacityRatio: RequestedToCapacityRatioParam | None = None


def default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name=CPU, weight=1), ResourceSpec(name=MEMORY, weight=1)]


def validate_shape(shape: list[UtilizationShapePoint], path: str) -> None:
    if not shape:
        raise _invalid(path, "at least one point must be specified")
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            raise _invalid(f"{path}[{i}].utilization", "values must be sorted in increasing order")
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= MAX_UTILIZATION:
            raise _invalid(f"{path}[{i}].utilization", f"not in valid range [0, {MAX_UTILIZATION}]")
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            raise _invalid(f"{path}[{i}].score", f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")


class NodeResourcesFitArgs(StrictArgs):
    """kube-scheduler's NodeResourcesFitArgs, defaulted and validated the same way."""

    apiVersion: str | None = None
    kind: str | None = None
    ignoredResources: list[str] = Field(default_factory=list)
    ignoredResourceGroups: list[str] = Field(default_factory=list)
    scoringStrategy: ScoringStrategy | None = None

    @model_validator(mode="after")
    def _default_and_validate(self) -> NodeResourcesFitArgs:
        for i, res in enumerate(self.ignoredResources):
            err = qualified_name_error(res)
            if err:
                raise _invalid(f"ignoredResources[{i}]", f"{res!r}: {err}")
        for i, group in enumerate(self.ignoredResourceGroups):
            if "/" in group:
                raise _invalid(f"ignoredResourceGroups[{i}]", f"{group!r}: resource group name can't contain '/'")
            err = qualified_name_error(group)
            if err:
                raise _invalid(f"ignoredResourceGroups[{i}]", f"{group!r}: {err}")
        if self.scoringStrategy is None:
            self.scoringStrategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=default_resources())
        strategy = self.scoringStrategy
        if not strategy.resources:
            strategy.resources = default_resources()
        for i, res in enumerate(strategy.resources):
            if res.weight == 0:
                res.weight = 1
            if not 0 < res.weight <= MAX_NODE_SCORE:
                raise _invalid(
                    f"scoringStrategy.resources[{i}].weight",
                    f"resource weight of {res.name} not in valid range (0, {MAX_NODE_SCORE}]",
                )
        if strategy.requestedToCapacityRatio is not None:
            validate_shape(strategy.requestedToCapacityRatio.shape, "scoringStrategy.shape")
        elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
            raise _invalid("scoringStrategy.requestedToCapacityRatio", "required for type RequestedToCapacityRatio")
        return self


# ---- scoring ---------------------------------------------------------------------------------
def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on int64."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def broken_linear_table(shape: list[tuple[int, int]]) -> np.ndarray:
    """helper.BuildBrokenLinearFunction evaluated at every utilization 0..100 (a lookup table)."""
    out = np.zeros(MAX_UTILIZATION + 1, dtype=np.int64)
    for p in range(MAX_UTILIZATION + 1):
        value = shape[-1][1]
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    value = shape[0][1]
                else:
                    pu, ps = shape[i - 1]
                    value = ps + go_div((score - ps) * (p - pu), util - pu)
                break
        out[p] = value
    return out


class ResourceAllocationScorer:
    """kube-scheduler's resourceAllocationScorer over a NodeView: allocatable/requested per resource.

    `use_requested=False` (NodeResourcesFit) scores cpu/memory with the non-zero requests
    (100m / 200Mi for containers without requests); BalancedAllocation uses the real requests.
    """

    def __init__(self, resources: list[tuple[str, int]], use_requested: bool) -> None:
        self.names = [name for name, _ in resources]
        self.weights = np.asarray([weight for _, weight in resources], dtype=np.int64)
        self.use_requested = use_requested
        self._may_be_dra = any(is_dra_extended_resource_name(n) for n in self.names)
        self._dra_seen: tuple[DeviceState | None, int, DraResources | None] = (None, -1, None)

    def dra_resources(self, devices: DeviceState) -> DraResources | None:
        """getDRAPreScoredParams: the scored resources a DeviceClass serves, as (index, class);
        None when there are none (the common case, answered without a lookup while the cluster
        has no DeviceClass or the scored resources are all native)."""
        if not self._may_be_dra or not devices.has_extended_resource_classes():
            return None
        seen_devices, seen_version, seen = self._dra_seen
        if seen_devices is devices and seen_version == devices.classes_version:
            return seen
        found = [(i, cls) for i, name in enumerate(self.names)
                 if is_dra_extended_resource_name(name) and (cls := devices.device_class_for(name)) is not None]
        result = found or None
        self._dra_seen = (devices, devices.classes_version, result)
        return result

    def pod_requests(self, pod: PodInfo) -> list[int]:
        out = []
        for name in self.names:
            if not self.use_requested and name == CPU:
                out.append(pod.nonzero_cpu)
            elif not self.use_requested and name == MEMORY:
                out.append(pod.nonzero_memory)
            else:
                out.append(int(pod.requests.get(name, 0)))
        return out

    def allocatable_requested(
        self, table: NodeTable, rows: np.ndarray, pod_requests: list[int],
        dra: DraResources | None = None, cluster: ClusterState | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(allocatable, requested incl. the pod) as (nodes, resources) int64; allocatable 0 = skip.

        `dra` (from `dra_resources`, with `cluster`): on rows whose allocatable for such a resource
        is 0, its allocatable and requested are the class's devices there and those allocated
        (calculateDRAExtendedResourceAllocatableRequest)."""
        alloc, req = self._from_table(table, rows, pod_requests)
        if dra is not None and cluster is not None:
            for i, device_class in dra:
                if pod_requests[i] == 0:
                    continue  # a scalar resource the pod does not request is not scored
                at = np.flatnonzero(alloc[:, i] == 0)
                if not len(at):
                    continue
                capacity, allocated = device_totals(cluster, device_class, rows[at])
                alloc[at, i] = capacity
                req[at, i] = np.where(capacity > 0, allocated + pod_requests[i], 0)
        return alloc, req

    def allocatable_allocated(self, cluster: ClusterState, node: str, name: str,
                              dra: DraResources | None = None) -> tuple[int, int]:
        """calculateResourceAllocatableRequest: one resource's (allocatable, allocated) on one node,
        the per-resource read `allocatable_requested` does for every row at once (a slow path,
        for explanations and tests)."""
        table = cluster.table
        row = table.row_of[node]
        col = table.resource_index.get(name)
        if name in (CPU, MEMORY):
            assert col is not None
            used = table.requested[row, col] if self.use_requested else table.nonzero_requested[row, 0 if name == CPU else 1]
            return int(table.allocatable[row, col]), int(used)
        if name == EPHEMERAL_STORAGE:
            assert col is not None
            return int(table.allocatable[row, col]), int(table.requested[row, col])
        if not is_scalar_resource(name):
            return 0, 0
        allocatable = int(table.allocatable[row, col]) if col is not None else 0
        served = [cls for i, cls in dra or () if self.names[i] == name]
        if allocatable == 0 and served:
            capacity, allocated = device_totals(cluster, served[0], np.asarray([row], dtype=np.int64))
            if capacity[0] > 0:
                return int(capacity[0]), int(allocated[0])
        if name in node_allocatable(table.raw[row] or {}):
            return allocatable, int(table.requested[row, col]) if col is not None else 0
        return 0, 0

    def _from_table(self, table: NodeTable, rows: np.ndarray, pod_requests: list[int]) -> tuple[np.ndarray, np.ndarray]:
        index = table.resource_index
        # Per scored resource: (allocatable column, source of the requested amount, its column);
        # source "r" = table.requested, "z" = table.nonzero_requested, None = not scored.
        picks: list[tuple[int, str | None, int]] = []
        for name, pod_req in zip(self.names, pod_requests, strict=True):
            if name in (CPU, MEMORY):
                col = index[name]
                picks.append((col, "r", col) if self.use_requested else (col, "z", 0 if name == CPU else 1))
            elif name == EPHEMERAL_STORAGE or (is_scalar_resource(name) and pod_req != 0 and name in index):
                col = index[name]
                picks.append((col, "r", col))
            else:  # scalar the pod does not request, unknown or non-scalar (e.g. pods): not scored
                picks.append((-1, None, -1))
        # One contiguous row gather per source matrix, then column picks (no 2-D fancy indexing).
        sources = {src for _, src, _ in picks}
        alloc_all = table.allocatable.take(rows, axis=0)
        gathered = {
            "r": table.requested.take(rows, axis=0) if "r" in sources else None,
            "z": table.nonzero_requested.take(rows, axis=0) if "z" in sources else None,
        }
        if None not in sources and len(sources) == 1:
            src = sources.pop()
            alloc = alloc_all[:, [c for c, _, _ in picks]]
            req = gathered[src][:, [c for _, _, c in picks]]  # type: ignore[index]
            req += np.asarray(pod_requests, dtype=np.int64)
            return alloc, req
        n = rows.shape[0]
        alloc = np.zeros((n, len(self.names)), dtype=np.int64)
        req = np.zeros((n, len(self.names)), dtype=np.int64)
        for i, ((col, src, rcol), pod_req) in enumerate(zip(picks, pod_requests, strict=True)):
            if src is None:
                continue
            alloc[:, i] = alloc_all[:, col]
            req[:, i] = gathered[src][:, rcol] + pod_req  # type: ignore[index]
        return alloc, req


def least_allocated(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray) -> np.ndarray:
    if alloc.all():  # common case: every scored resource is allocatable on every node
        # floor((alloc - req) * 100 / alloc) is negative exactly when req > alloc, which scores 0
        per = np.maximum((alloc - req) * MAX_NODE_SCORE // alloc, 0)
        return (per * weights).sum(axis=1) // int(weights.sum())
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    per = np.where(req > alloc, 0, (alloc - req) * MAX_NODE_SCORE // safe)
    return _weighted_floor(per, valid, weights)


def most_allocated(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray) -> np.ndarray:
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    per = np.minimum(req, alloc) * MAX_NODE_SCORE // safe
    return _weighted_floor(per, valid, weights)


def _weighted_floor(per: np.ndarray, valid: np.ndarray, weights: np.ndarray) -> np.ndarray:
    w = np.where(valid, weights, 0)
    total = (per * w).sum(axis=1)
    wsum = w.sum(axis=1)
    return np.where(wsum > 0, total // np.maximum(wsum, 1), 0)


def requested_to_capacity_ratio(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray, lut: np.ndarray) -> np.ndarray:
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    util = np.where(req > alloc, MAX_UTILIZATION, req * MAX_UTILIZATION // safe)
    per = lut[np.clip(util, 0, MAX_UTILIZATION)]
    counted = valid & (per > 0)
    w = np.where(counted, weights, 0)
    total = (per * w).sum(axis=1)
    wsum = w.sum(axis=1)
    # math.Round(total / wsum) for non-negative values: round half up
    return np.where(wsum > 0, (2 * total + wsum) // np.maximum(2 * wsum, 1), 0)


# ---- the plugin ------------------------------------------------------------------------------
_FitRequest = tuple[np.ndarray, np.ndarray, list[str], np.ndarray]
SIGN_REFUSED_FOR_DRA = "signature disabled when dra extended resources are used in the cluster"


class NodeResourcesFit:
    name = "NodeResourcesFit"
    score_scope = ScoreScope.NODE  # raw score: the pod and this node's row only
    filter_scope = FilterScope.NODE_RESOURCES
    pre_filter_state = PreFilterState.NO_POD_DATA
    Args = NodeResourcesFitArgs

    def __init__(self, args: NodeResourcesFitArgs | None = None, feature_gates: FeatureGates | None = None) -> None:
        self.args = args if args is not None else NodeResourcesFitArgs()
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.enable_in_place_pod_vertical_scaling = gates.enabled("InPlacePodVerticalScaling")
        self.enable_dra_extended_resource = gates.enabled("DRAExtendedResource")
        # A bound pod whose resize the kubelet deferred asks only for what it adds to its node.
        self.enable_deferred_resize = gates.enabled("InPlacePodVerticalScalingSchedulerPreemption")
        self._request_key: MemoKey[tuple[NodeTable, _FitRequest]] = MemoKey("NodeResourcesFit.request")  # per instance
        strategy = self.args.scoringStrategy
        assert strategy is not None  # defaulted by the args model
        self.ignored = frozenset(self.args.ignoredResources)
        self.ignored_groups = frozenset(self.args.ignoredResourceGroups)
        self.strategy = strategy.type
        self.scorer = ResourceAllocationScorer([(r.name, r.weight) for r in strategy.resources], use_requested=False)
        self.lut: np.ndarray | None = None
        self._by_requests: weakref.WeakKeyDictionary[NodeTable, dict[frozenset, Any]] = weakref.WeakKeyDictionary()
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            assert strategy.requestedToCapacityRatio is not None
            scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
            self.lut = broken_linear_table(
                [(p.utilization, p.score * scale) for p in strategy.requestedToCapacityRatio.shape]
            )

    @property
    def requeue_on(self) -> frozenset[str]:
        """EventsToRegister: a placed pod deleted, a node added or updated (allocatable); with
        InPlacePodVerticalScaling a placed pod scaled down (`Pod/Update`); with DRAExtendedResource
        a DeviceClass added or updated; the pending pod's own scale-down (and, under
        InPlacePodVerticalScalingSchedulerPreemption, scale-up)."""
        events = {"Pod/Delete", "Node/Add", "Node/Update"}
        if self.enable_dra_extended_resource:
            events |= {"DeviceClass/Add", "DeviceClass/Update"}
        if self.enable_in_place_pod_vertical_scaling:
            events |= {"Pod/Update", "TargetPod/UpdatePodScaleDown"}
        if self.enable_deferred_resize:
            events.add("TargetPod/UpdatePodScaleUp")
        return frozenset(events)

    @property
    def queueing_hints(self) -> dict[str, str]:
        hints = {
            "Pod/Delete": "is_schedulable_after_assigned_pod_delete",
            "Pod/Update": "is_schedulable_after_assigned_pod_scale_down",
            "Node/Add": "is_schedulable_after_node_change",
            "Node/Update": "is_schedulable_after_node_change",
        }
        if self.enable_dra_extended_resource:
            hints["DeviceClass/Add"] = "is_schedulable_after_device_class_event"
            hints["DeviceClass/Update"] = "is_schedulable_after_device_class_event"
        if self.enable_deferred_resize:
            hints["TargetPod/UpdatePodScaleUp"] = "is_schedulable_after_target_pod_scale_up"
        return hints

    def is_schedulable_after_device_class_event(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterDeviceClassEvent: a class added that serves an extended resource the
        pod requests (implicitly by its name, or by extendedResourceName), or updated to serve one
        under a new extendedResourceName."""
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            raise TypeError(f"expected DeviceClasses, got {type(old).__name__} and {type(new).__name__}")
        explicit = (new.get("spec") or {}).get("extendedResourceName")
        if old is not None:
            if ((old.get("spec") or {}).get("extendedResourceName") or "") == (explicit or ""):
                return False
        elif DEVICE_CLASS_RESOURCE_PREFIX + str((new.get("metadata") or {}).get("name") or "") in pod.requests:
            return True  # the implicit name: only on Add, a class is never renamed
        return explicit is not None and explicit in pod.requests

    def is_schedulable_after_target_pod_scale_up(self, pod: PodInfo, old: PodInfo, new: PodInfo) -> bool:
        """isSchedulableAfterTargetPodScaleUp: only a deferred resize may now need preemption to fit
        (the pending pod's own scale-down always retries it: isSchedulableAfterTargetPodScaleDown)."""
        return is_resize_deferred(pod)

    def is_schedulable_after_assigned_pod_delete(self, pod: PodInfo, old: PodInfo, new: Any = None) -> bool:
        """isSchedulableAfterAssignedPodDelete: a placed (or nominated) pod gone frees resources; for a
        deferred resize only on its own node."""
        if not isinstance(old, PodInfo):
            raise TypeError(f"expected a pod, got {type(old).__name__}")
        if not old.node_name and not old.nominated_node_name:
            return False
        deferred_elsewhere = self.enable_deferred_resize and is_resize_deferred(pod) and old.node_name != pod.node_name
        return not deferred_elsewhere

    def is_schedulable_after_node_change(self, pod: PodInfo, old: Any, new: Any, cluster: ClusterState | None) -> bool:
        """isSchedulableAfterNodeChange: a node the pod fits, added or with more of what it requests
        (a resource left to DRA on it counts as more)."""
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            raise TypeError(f"expected nodes, got {type(old).__name__} and {type(new).__name__}")
        name = (new.get("metadata") or {}).get("name")
        if self.enable_deferred_resize and is_resize_deferred(pod) and name != pod.node_name:
            return False
        devices = cluster.devices if cluster is not None and self.enable_dra_extended_resource else None
        if not is_fit(pod, new, devices):
            return False
        return old is None or have_any_requested_resources_increased(pod, old, new, devices)

    def is_schedulable_after_assigned_pod_scale_down(self, pod: PodInfo, old: PodInfo, new: PodInfo) -> bool:
        """isSchedulableAfterAssignedPodScaleDown: a placed pod gave back some of a resource the pod
        requests (haveEnoughRelevantResourcesDecreased)."""
        if not isinstance(old, PodInfo) or not isinstance(new, PodInfo):
            raise TypeError(f"expected pods, got {type(old).__name__} and {type(new).__name__}")
        if not new.node_name:
            return False
        if self.enable_deferred_resize and is_resize_deferred(pod) and new.node_name != pod.node_name:
            return False
        return any(value and old.requests.get(name, 0) > new.requests.get(name, 0)
                   for name, value in pod.requests.items()
                   if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource(name))

    # ---- filter ----------------------------------------------------------------------------
    def _ignored(self, name: str) -> bool:
        if not is_extended_resource(name):
            return False
        return name in self.ignored or (bool(self.ignored_groups) and name.split("/", 1)[0] in self.ignored_groups)

    def _fit_request(self, pod: PodInfo, table: NodeTable) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
        """(columns, requested amounts, reasons, can-be-unresolvable) for the pod's non-zero requests; memoised."""
        key = self._request_key
        cached = key.get(pod)
        if cached is not None and cached[0] is table:
            return cached[1]
        # Pods of one workload share their requests: reuse the answer per distinct request set
        # (columns are only ever appended, so a computed answer stays valid for the table).
        shared = self._by_requests.get(table)
        if shared is None:
            shared = self._by_requests[table] = {}
        req_key = frozenset(pod.requests.items())
        result = shared.get(req_key)
        if result is not None:
            key.set(pod, (table, result))
            return result
        want = table.request_vector(pod)
        order = {PODS: 0, CPU: 1, MEMORY: 2, EPHEMERAL_STORAGE: 3}
        cols = [int(c) for c in np.flatnonzero(want) if not self._ignored(table.resources[c])]
        cols.sort(key=lambda c: (order.get(table.resources[c], 4), table.resources[c]))
        names = [table.resources[c] for c in cols]
        reasons = ["Too many pods" if r == PODS else f"Insufficient {r}" for r in names]
        resolvable_only = np.asarray([r == PODS for r in names], dtype=bool)
        result = (np.asarray(cols, dtype=np.int64), want[cols].copy(), reasons, ~resolvable_only)
        if len(shared) >= 4096:
            shared.clear()
        shared[req_key] = result
        key.set(pod, (table, result))
        return result

    @hookimpl
    def sign_pod(self, pod: PodInfo, cluster: ClusterState | None) -> list[SignFragment] | Status:
        """kube-scheduler's Fit.SignPod: the pod's requests and overheads; a pod requesting an
        extended resource a DeviceClass serves is not signed (DRA allocates it per pod)."""
        if self.enable_dra_extended_resource and cluster is not None and requests_dra_extended_resource(pod, cluster.devices):
            return Status.unschedulable(SIGN_REFUSED_FOR_DRA)
        return [SignFragment(RESOURCES_SIGNER, resources_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodInfo, nodes: NodeView) -> None:
        state[_PREFILTER_KEY] = self._fit_request(pod, nodes.table)

    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> FilterResult | None:
        table = nodes.table
        cols, want, reasons, may_be_unresolvable = state.get(_PREFILTER_KEY) or self._fit_request(pod, table)
        if cols.shape[0] == 0:
            return None
        rows = nodes.rows
        # Gather whole rows first (one contiguous take each), then pick the requested columns:
        # several times faster than 2-D fancy indexing on (rows, cols).
        alloc = table.allocatable.take(rows, axis=0)[:, cols]
        free = alloc - table.requested.take(rows, axis=0)[:, cols]
        if self.enable_deferred_resize and pod.node_name and cluster is not None:
            short = self._deferred_delta(pod, nodes, cluster, cols, want) > free
        else:
            short = want > free
        if not short.any():
            return None
        if self.enable_dra_extended_resource and cluster is not None and cluster.devices.has_extended_resource_classes():
            # shouldDelegateResourceToDRA: a resource a DeviceClass serves is DRA's on rows without it.
            devices = cluster.devices
            for j, col in enumerate(cols.tolist()):
                name = table.resources[col]
                if not _native(name) and short[:, j].any() and devices.device_class_for(name) is not None:
                    short[:, j] &= alloc[:, j] > 0
            if not short.any():
                return None
        # A request larger than the whole node cannot be fixed by preemption (kube >= 1.30).
        node_unresolvable = (short & (want > alloc) & may_be_unresolvable).any(axis=1)
        rejections = []
        for j, reason in enumerate(reasons):
            hit = short[:, j]
            if not hit.any():
                continue
            unres = hit & node_unresolvable
            if unres.any():
                rejections.append(Rejection(reason, unres, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
            res = hit & ~node_unresolvable
            if res.any():
                rejections.append(Rejection(reason, res, Code.UNSCHEDULABLE))
        return FilterResult(~short.any(axis=1), rejections)

    @staticmethod
    def _deferred_delta(
        pod: PodInfo, nodes: NodeView, cluster: ClusterState, cols: np.ndarray, want: np.ndarray
    ) -> np.ndarray:
        """adjustDeltasToAccomodateCacheDiscrepancy: on its own node, a bound pod (a deferred
        resize) already holds what the cache counts for it, so it needs only the growth (the
        pod count is checked as for any pod, as fitsRequest does)."""
        delta = np.broadcast_to(want, (len(nodes), want.shape[0]))
        row = nodes.table.row_of.get(pod.node_name)
        cached = cluster.node_pods(row).get(pod.uid) if row is not None else None
        at = np.flatnonzero(nodes.rows == row) if cached is not None else ()
        if len(at):
            table = nodes.table
            grown = np.maximum(want - table.request_vector(cached)[cols], 0)
            grown[cols == table.resource_index[PODS]] = 1
            delta = delta.copy()
            delta[at[0]] = grown
        return delta

    # ---- score -----------------------------------------------------------------------------
    def _score_requests(self, pod: PodInfo, cluster: ClusterState) -> tuple[list[int], DraResources | None]:
        dra = self.scorer.dra_resources(cluster.devices) if self.enable_dra_extended_resource else None
        return self.scorer.pod_requests(pod), dra

    @hookimpl
    def pre_score(self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState) -> Status | None:
        state[_PRESCORE_KEY] = self._score_requests(pod, cluster)
        return None

    @hookimpl
    def score(self, state: dict[str, Any], pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> np.ndarray:
        found = state.get(_PRESCORE_KEY)
        pod_requests, dra = found if found is not None else self._score_requests(pod, cluster)
        alloc, req = self.scorer.allocatable_requested(nodes.table, nodes.rows, pod_requests, dra, cluster)
        weights = self.scorer.weights
        if self.strategy == LEAST_ALLOCATED:
            return least_allocated(alloc, req, weights)
        if self.strategy == MOST_ALLOCATED:
            return most_allocated(alloc, req, weights)
        assert self.lut is not None
        return requested_to_capacity_ratio(alloc, req, weights, self.lut)

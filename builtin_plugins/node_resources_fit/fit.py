"""NodeResourcesFit (fit.go): rejects nodes without room for the pod's requests; scores by
allocation with the configured strategy.

Filter is one vectorised comparison of the pod's non-zero requests against every candidate row's
(allocatable - requested); PreFilter memoises the request columns per pod and per request set.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    Code,
    FeatureGates,
    FilterResult,
    FilterScope,
    Handle,
    MemoKey,
    NodeTableView,
    NodeView,
    PodView,
    PreFilterState,
    Rejection,
    ScoreScope,
    Status,
    hookimpl,
    is_pod,
)
from kubeberth.api.device_counts import DEVICE_CLASS_RESOURCE_PREFIX
from kubeberth.api.helpers import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, shape_table
from kubeberth.api.placement import PodGroupAssignments, PodGroupInfo
from kubeberth.api.signing import RESOURCES_SIGNER, SignFragment, resources_signer

from .args import LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, NodeResourcesFitArgs
from .least_allocated import least_allocated
from .most_allocated import most_allocated
from .requested_to_capacity_ratio import requested_to_capacity_ratio
from .resource_allocation import DraResources, ResourceAllocationScorer
from .resources import (
    _native,
    have_any_requested_resources_increased,
    is_extended_resource,
    is_fit,
    is_resize_deferred,
    is_scalar_resource,
    requests_dra_extended_resource,
)

_PREFILTER_KEY = "PreFilterNodeResourcesFit"
_PRESCORE_KEY = "PreScoreNodeResourcesFit"

_FitRequest = tuple[np.ndarray, np.ndarray, list[str], np.ndarray]
SIGN_REFUSED_FOR_DRA = "signature disabled when dra extended resources are used in the cluster"


class NodeResourcesFit:
    """Filter: requests against free capacity per row; Score: the args' scoring strategy."""

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
        self._request_key: MemoKey[tuple[NodeTableView, _FitRequest]] = MemoKey("NodeResourcesFit.request")  # per instance
        strategy = self.args.scoringStrategy
        assert strategy is not None  # defaulted by the args model
        self.ignored = frozenset(self.args.ignoredResources)
        self.ignored_groups = frozenset(self.args.ignoredResourceGroups)
        self.strategy = strategy.type
        self.scorer = ResourceAllocationScorer([(r.name, r.weight) for r in strategy.resources], use_requested=False)
        self.lut: np.ndarray | None = None
        self._by_requests: weakref.WeakKeyDictionary[NodeTableView, dict[frozenset, Any]] = weakref.WeakKeyDictionary()
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            assert strategy.requestedToCapacityRatio is not None
            self.lut = shape_table(strategy.requestedToCapacityRatio.shape)

    @property
    def requeue_on(self) -> frozenset[str]:
        """EventsToRegister: a placed pod deleted, a node added or updated (allocatable); with
        InPlacePodVerticalScaling a placed pod scaled down (`Pod/UpdatePodScaleDown`); with DRAExtendedResource
        a DeviceClass added or updated; the pending pod's own scale-down (and, under
        InPlacePodVerticalScalingSchedulerPreemption, scale-up)."""
        events = {"Pod/Delete", "Node/Add", "Node/UpdateNodeAllocatable"}
        if self.enable_dra_extended_resource:
            events |= {"DeviceClass/Add", "DeviceClass/Update"}
        if self.enable_in_place_pod_vertical_scaling:
            events |= {"Pod/UpdatePodScaleDown", "TargetPod/UpdatePodScaleDown"}
        if self.enable_deferred_resize:
            events.add("TargetPod/UpdatePodScaleUp")
        return frozenset(events)

    @property
    def queueing_hints(self) -> dict[str, str]:
        hints = {
            "Pod/Delete": "is_schedulable_after_assigned_pod_delete",
            "Pod/UpdatePodScaleDown": "is_schedulable_after_assigned_pod_scale_down",
            "Node/Add": "is_schedulable_after_node_change",
            "Node/UpdateNodeAllocatable": "is_schedulable_after_node_change",
        }
        if self.enable_dra_extended_resource:
            hints["DeviceClass/Add"] = "is_schedulable_after_device_class_event"
            hints["DeviceClass/Update"] = "is_schedulable_after_device_class_event"
        if self.enable_deferred_resize:
            hints["TargetPod/UpdatePodScaleUp"] = "is_schedulable_after_target_pod_scale_up"
        return hints

    def is_schedulable_after_device_class_event(self, pod: PodView, old: Any, new: Any) -> bool:
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

    def is_schedulable_after_target_pod_scale_up(self, pod: PodView, old: PodView, new: PodView) -> bool:
        """isSchedulableAfterTargetPodScaleUp: only a deferred resize may now need preemption to fit
        (the pending pod's own scale-down always retries it: isSchedulableAfterTargetPodScaleDown)."""
        return is_resize_deferred(pod)

    def is_schedulable_after_assigned_pod_delete(self, pod: PodView, old: PodView, new: Any = None) -> bool:
        """isSchedulableAfterAssignedPodDelete: a placed (or nominated) pod gone frees resources; for a
        deferred resize only on its own node."""
        if not is_pod(old):
            raise TypeError(f"expected a pod, got {type(old).__name__}")
        if not old.node_name and not old.nominated_node_name:
            return False
        deferred_elsewhere = self.enable_deferred_resize and is_resize_deferred(pod) and old.node_name != pod.node_name
        return not deferred_elsewhere

    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any, cluster: ClusterView | None) -> bool:
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

    def is_schedulable_after_assigned_pod_scale_down(self, pod: PodView, old: PodView, new: PodView) -> bool:
        """isSchedulableAfterAssignedPodScaleDown: a placed pod gave back some of a resource the pod
        requests (haveEnoughRelevantResourcesDecreased)."""
        if not is_pod(old) or not is_pod(new):
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

    def _fit_request(self, pod: PodView, table: NodeTableView) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
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
        cols = [c for c in np.flatnonzero(want).tolist() if not self._ignored(table.resources[c])]
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
    def sign_pod(self, pod: PodView, cluster: ClusterView | None) -> list[SignFragment] | Status:
        """kube-scheduler's Fit.SignPod: the pod's requests and overheads; a pod requesting an
        extended resource a DeviceClass serves is not signed (DRA allocates it per pod)."""
        if self.enable_dra_extended_resource and cluster is not None and requests_dra_extended_resource(pod, cluster.devices):
            return Status.unschedulable(SIGN_REFUSED_FOR_DRA)
        return [SignFragment(RESOURCES_SIGNER, resources_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView) -> None:
        state[_PREFILTER_KEY] = self._fit_request(pod, nodes.table)

    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | None:
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
        return FilterResult(np.asarray(~short.any(axis=1)), rejections)

    @staticmethod
    def _deferred_delta(
        pod: PodView, nodes: NodeView, cluster: ClusterView, cols: np.ndarray, want: np.ndarray
    ) -> np.ndarray:
        """adjustDeltasToAccomodateCacheDiscrepancy: on its own node, a bound pod (a deferred
        resize) already holds what the cache counts for it, so it needs only the growth (the
        pod count is checked as for any pod, as fitsRequest does)."""
        delta = np.broadcast_to(want, (len(nodes), want.shape[0]))
        row = nodes.table.row_of.get(pod.node_name)
        cached = cluster.node_pods(row).get(pod.uid) if row is not None else None
        at = np.flatnonzero(nodes.rows == row) if cached is not None else np.zeros(0, dtype=np.int64)
        if cached is not None and len(at):
            table = nodes.table
            grown = np.maximum(want - table.request_vector(cached)[cols], 0)
            grown[cols == table.resource_index[PODS]] = 1
            delta = delta.copy()
            delta[at[0]] = grown
        return delta

    # ---- score -----------------------------------------------------------------------------
    def _score_requests(self, pod: PodView, cluster: ClusterView) -> tuple[list[int], DraResources | None]:
        dra = self.scorer.dra_resources(cluster.devices) if self.enable_dra_extended_resource else None
        return self.scorer.pod_requests(pod), dra

    @hookimpl
    def pre_score(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        state[_PRESCORE_KEY] = self._score_requests(pod, cluster)
        return None

    @hookimpl
    def score(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> np.ndarray:
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

    @hookimpl
    def placement_score(self, pod_group: PodGroupInfo, placement: PodGroupAssignments, handle: Handle) -> int:
        """Fit.ScorePlacement (resourceAllocationScorer.scorePlacement, MostAllocated whatever the scoring
        strategy, as kube-scheduler builds its placement scorer under TopologyAwareWorkloadScheduling): the
        members this placement places plus what is requested on all of its nodes, against their allocatable
        summed, per scored resource (non-zero requests, a scalar resource only where the members ask for it)."""
        table = handle.cluster.table
        group = np.zeros(len(self.scorer.names), dtype=np.int64)
        for assigned in placement.proposed_assignments:
            group += np.asarray(self.scorer.pod_requests(assigned.pod), dtype=np.int64)
        nodes = placement.placement.nodes if placement.placement is not None else ()
        rows = np.asarray([table.row_of[n] for n in nodes if n in table.row_of], dtype=np.int64)
        alloc, req = self.scorer.allocatable_requested(table, rows, group.tolist())
        counted = alloc != 0  # calculateNodeAllocatableRequest: a node without the resource adds nothing
        allocated = np.where(counted, req - group, 0).sum(axis=0)
        allocatable = np.where(counted, alloc, 0).sum(axis=0)
        return int(most_allocated(allocatable[None, :], (group + allocated)[None, :], self.scorer.weights)[0])

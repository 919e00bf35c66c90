"""DynamicResources: kube-scheduler's DRA plugin with structured parameters (resource.k8s.io/v1).

PreFilter resolves the pod's ResourceClaims (claim templates through the generated claim named in
`status.resourceClaimStatuses`), checks their device classes and prepares an allocator over the
cluster's ResourceSlices and the devices already taken (claims in the cache and allocations in
flight). Filter allocates per node: nodes without a ResourceSlice of their own share one
computation, so a 5,000-node cluster costs one allocation plus one per node that publishes devices.
Allocated claims only admit the nodes of their allocation's node selector. Reserve holds the
chosen allocation in the cache (`cluster.devices`), so the next pod cannot take the same devices
before the claim's status comes back; PreBind writes `status.allocation` and `status.reservedFor`
(the status subresource, through the Handle); Unreserve releases both. PostFilter deallocates an
allocated claim that no other pod uses when it is the reason the pod fits nowhere. Score prefers
nodes where earlier `firstAvailable` subrequests were chosen.

Extended resources backed by DRA (DRAExtendedResource, see extended.py): a pod asking for an
extended resource a DeviceClass serves gets one more claim, built in memory in PreFilter, given
per-node requests in Filter where the node does not advertise the resource, allocated with the
pod's other claims, and created in the API in PreBind with the pod's
`status.extendedResourceClaimStatus`.

Pods without `spec.resourceClaims` and without DRA-backed extended resources return Skip from
PreFilter and cost nothing else.

Module map: state.py the cycle state, prefilter.py PreFilter's checks, node_filter.py Filter's per-node
masks (filtering.py runs the allocator over the nodes), reservation.py Reserve/Unreserve/PostFilter/PreBind.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    Code,
    FeatureGates,
    FilterResult,
    FilterScope,
    Handle,
    NodeView,
    PodView,
    PreBindPreFlightResult,
    PreFilterState,
    ScoreScope,
    Status,
    StrictArgs,
    is_pod,
)
from kubeberth.api.dra import SelectorCache
from kubeberth.api.hookspecs import hookimpl
from pydantic import field_validator

from . import reservation
from .allocator import AllocationError, Allocator, AllocatorFeatures, DeviceContexts, FilterTimedOut
from .binding import BindingFailed, claim_ready_for_binding, claim_timed_out, parse_duration
from .claims import ClaimLookupError, bind_to, pod_claim_entries, pod_claims, pod_has_claims
from .extended import (
    ExtendedResources,
    find_extended_resource_claim,
    has_device_class_mapped_extended_resource,
    new_extended_resource_claim,
)
from .filtering import allocate_nodes
from .node_filter import ExtendedSplit, filter_result, split_extended, unavailable_nodes
from .prefilter import claims_to_allocate
from .state import STATE_KEY, StateData, claim_status, new_allocator, without_nulls

__all__ = ["DynamicResources", "compute_score"]

FIRST_AVAILABLE_MAX = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
FILTER_TIMEOUT_DEFAULT = "10s"  # DynamicResourcesFilterTimeoutDefault
BINDING_TIMEOUT_DEFAULT = "600s"  # DynamicResourcesBindingTimeoutDefault


_SKIP_PRE_BIND = PreBindPreFlightResult(Status.skip(), allow_parallel=True)  # read-only: returned for most pods


class DynamicResources:
    """Allocates devices for a pod's ResourceClaims per node, and writes the allocation back."""

    name = "DynamicResources"
    # A node's verdict and score depend on devices other claims hold, anywhere (a node-independent
    # slice serves many nodes): not node-local, so incremental cycles never reuse them. Pods without
    # claims skip Filter and Score, so this costs them nothing. Placed pods hold no devices (claims
    # do): preemption may reuse PreFilter's state as is.
    filter_scope = FilterScope.CLUSTER
    score_scope = ScoreScope.CLUSTER
    pre_filter_state = PreFilterState.NO_POD_DATA
    # EventsToRegister: node labels (topology), any claim change, classes and slices appearing or
    # changing, and the pod's own update naming its generated claims in its status.
    requeue_on = frozenset({
        "Node/Add", "Node/UpdateNodeLabel", "Node/UpdateNodeAllocatable", "ResourceClaim/Add", "ResourceClaim/Update", "ResourceClaim/Delete",
        "DeviceClass/Add", "DeviceClass/Update", "ResourceSlice/Add", "ResourceSlice/Update",
        "TargetPod/UpdatePodGeneratedResourceClaim",
    })
    queueing_hints = {
        "ResourceClaim/Add": "is_schedulable_after_claim_change",
        "ResourceClaim/Update": "is_schedulable_after_claim_change",
        "ResourceClaim/Delete": "is_schedulable_after_claim_change",
        "TargetPod/UpdatePodGeneratedResourceClaim": "is_schedulable_after_target_pod_update",
    }

    class Args(StrictArgs):
        """DynamicResourcesArgs (kubescheduler.config.k8s.io/v1): Go durations such as "10s"."""

        filterTimeout: str | None = None
        bindingTimeout: str | None = None

        @field_validator("filterTimeout", "bindingTimeout")
        @classmethod
        def _duration(cls, value: str | None) -> str | None:
            if value is not None:
                parse_duration(value)
            return value

    def __init__(self, args: Args | None = None, feature_gates: FeatureGates | None = None) -> None:
        gates = feature_gates if feature_gates is not None else FeatureGates()
        args = args or self.Args()
        self.enabled = gates.enabled("DynamicResourceAllocation")
        self.extended_resources = gates.enabled("DRAExtendedResource")
        self.workload_claims = gates.enabled("DRAWorkloadResourceClaims")  # PodGroup claims
        self.prioritized_list = gates.enabled("DRAPrioritizedList")
        # Binding conditions need the claim's device status (AllocatorFeatures' DeviceBindingAndStatus).
        self.binding_conditions = gates.enabled("DRADeviceBindingConditions") and gates.enabled(
            "DRAResourceClaimDeviceStatus"
        )
        self.features = AllocatorFeatures(
            admin_access=gates.enabled("DRAAdminAccess"),
            device_taints=gates.enabled("DRADeviceTaints"),
            binding_conditions=self.binding_conditions,
            partitionable_devices=gates.enabled("DRAPartitionableDevices"),
            consumable_capacity=gates.enabled("DRAConsumableCapacity"),
            fractional_capacity_range=gates.enabled("DRAFractionalCapacityRange"),
        )
        # ValidateDynamicResourcesArgs and SetDefaults_DynamicResourcesArgs.
        filter_gate = gates.enabled("DRASchedulerFilterTimeout")
        if args.filterTimeout is not None and not filter_gate:
            raise ValueError("filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled")
        if args.bindingTimeout is not None and not self.binding_conditions:
            raise ValueError(
                "bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"
            )
        self.filter_timeout = parse_duration(args.filterTimeout or FILTER_TIMEOUT_DEFAULT) if filter_gate else 0.0
        if self.filter_timeout < 0:
            raise ValueError(f'filterTimeout: Invalid value: "{args.filterTimeout}": must be zero or positive')
        self.binding_timeout = parse_duration(args.bindingTimeout or BINDING_TIMEOUT_DEFAULT)
        if args.bindingTimeout is not None and self.binding_timeout < 1:
            raise ValueError(f'bindingTimeout: Invalid value: "{args.bindingTimeout}": must be at least 1 second')
        self.selectors = SelectorCache()
        self.contexts = DeviceContexts(self.selectors)

    # ---- queueing hints ----------------------------------------------------------------
    def is_schedulable_after_claim_change(
        self, pod: PodView, old: dict[str, Any] | None, new: dict[str, Any] | None, cluster: ClusterView | None
    ) -> bool:
        """isSchedulableAfterClaimChange: a claim the pod uses appeared or changed its status, or
        any claim gave its devices back (deallocated, or deleted while allocated)."""
        if new is None:
            if old is None:
                return True  # a deletion whose last state is unknown: play it safe
            if not isinstance(old, dict):
                raise TypeError(f"unexpected object in is_schedulable_after_claim_change: {type(old).__name__}")
            return bool(claim_status(old).get("allocation"))
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            wrong = new if not isinstance(new, dict) else old
            raise TypeError(f"unexpected object in is_schedulable_after_claim_change: {type(wrong).__name__}")
        if cluster is None:
            return True
        try:
            claims = pod_claims(pod, cluster, self.workload_claims)
        except ClaimLookupError:
            return False  # the pod still misses a claim: this change cannot be enough
        if old is not None and claim_status(old).get("allocation") and not claim_status(new).get("allocation"):
            return True  # deallocated: its devices may fit the pod
        uid = (new.get("metadata") or {}).get("uid")
        if not any((c.get("metadata") or {}).get("uid") == uid for c in claims):
            return False  # not a claim of this pod
        if old is None:
            return True
        return without_nulls(claim_status(old)) != without_nulls(claim_status(new))  # the driver adding a finalizer: no

    def is_schedulable_after_target_pod_update(
        self, pod: PodView, old: Any, new: Any, cluster: ClusterView | None
    ) -> bool:
        """isSchedulableAfterTargetPodUpdate: the pod's update (its generated claims' names) left it
        with every claim it needs."""
        if not is_pod(new):
            raise TypeError(f"unexpected object in is_schedulable_after_target_pod_update: {type(new).__name__}")
        if cluster is None:
            return True
        try:
            pod_claims(new, cluster, self.workload_claims)
        except ClaimLookupError:
            return False
        return True

    # ---- SignPod -----------------------------------------------------------------------
    @hookimpl
    def sign_pod(self, pod: PodView) -> Status | None:
        """kube-scheduler's DynamicResources.SignPod: pods with claims are never batched."""
        if pod_has_claims(pod):
            return Status.unschedulable("pods with dra resource claims are not signable")
        return None

    # ---- PreEnqueue --------------------------------------------------------------------
    @hookimpl
    def pre_enqueue(self, pod: PodView, handle: Handle) -> Status | None:
        """The pod's claims exist, are not being deleted and (generated ones) belong to it; else
        the pod waits, gated, for a ResourceClaim event (or its own update) to let it in."""
        if not self.enabled or not pod_has_claims(pod):
            return None
        try:
            pod_claims(pod, handle.cluster, self.workload_claims)
        except ClaimLookupError as exc:
            return Status.unschedulable(str(exc), unresolvable=True)
        return None

    # ---- PreFilter ---------------------------------------------------------------------
    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        if not self.enabled:
            return Status.skip()
        has_claims = pod_has_claims(pod)
        devices = cluster.devices
        # Cheap for pods without DRA-backed extended resources: no class at all, or a glance at
        # the pod's few requests.
        wants_extended = (self.extended_resources and devices.has_extended_resource_classes()
                          and has_device_class_mapped_extended_resource(pod.requests, devices.device_class_for))
        if not has_claims and not wants_extended:
            return Status.skip()
        try:
            entries = pod_claim_entries(pod, cluster, self.workload_claims) if has_claims else []
        except ClaimLookupError as exc:
            return Status.unschedulable(str(exc), unresolvable=True)
        claims = [c for _, c in entries]
        extended: ExtendedResources | None = None
        if wants_extended:
            # preFilterExtendedResources: the claim left by an earlier attempt, else a new one in memory.
            found = find_extended_resource_claim(pod, cluster.list_objects("ResourceClaim"))
            ext_claim = found if found is not None else new_extended_resource_claim(pod)
            extended = ExtendedResources(len(claims), str(ext_claim["metadata"].get("uid") or ""), dict(pod.requests))
            claims.append(ext_claim)
        if not claims:
            return Status.skip()
        pod_group = None
        if self.workload_claims and pod.pod_group:
            pod_group = cluster.get_object("PodGroup", f"{pod.namespace}/{pod.pod_group}")
            if pod_group is None:
                return Status.unschedulable(f'podgroup.scheduling.k8s.io "{pod.pod_group}" not found', unresolvable=True)
        bindings = [bind_to(pod, pod_group, pod_claim) for pod_claim, _ in entries]
        if extended is not None:
            bindings.append({"resource": "pods", "name": pod.name, "uid": pod.uid})  # always the pod
        checked = claims_to_allocate(claims, extended, devices, cluster, self.prioritized_list)
        if isinstance(checked, Status):
            return checked
        available_on, to_allocate = checked
        st = StateData(claims, available_on, to_allocate, bindings=bindings, extended=extended)
        if to_allocate:
            st.taken = devices.allocated_state(self.features.consumable_capacity)
            if extended is None:
                st.allocator = self._allocator(st, [claims[i] for i in to_allocate], cluster)
        state[STATE_KEY] = st
        return None

    def _allocator(self, st: StateData, claims: list[dict[str, Any]], cluster: ClusterView) -> Allocator:
        return new_allocator(st, claims, cluster, self.features, self.selectors, self.contexts)

    # ---- Filter ------------------------------------------------------------------------
    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | Status | None:
        st: StateData | None = state.get(STATE_KEY)
        if st is None:
            return None
        split = split_extended(st, nodes, cluster)
        if isinstance(split, FilterResult):
            return split
        unavailable = unavailable_nodes(st, nodes, self._binding_blocked if self.binding_conditions else None)
        failed: dict[str, np.ndarray] = {}
        if st.to_allocate:
            try:
                self._allocate(st, pod, nodes, cluster, split, failed)
            except FilterTimedOut as exc:
                # Timeouts may be transient: Error, so the pod retries through backoff.
                return Status.error(f"node {exc}: timed out trying to allocate devices")
            except AllocationError as exc:
                return Status.error(str(exc))
        return filter_result(split, failed, unavailable)

    def _allocate(
        self, st: StateData, pod: PodView, nodes: NodeView, cluster: ClusterView, split: ExtendedSplit,
        failed: dict[str, np.ndarray],
    ) -> None:
        """Allocate per group of nodes needing the same extended-resource claim variant; reasons to `failed`."""
        names = nodes.names
        ext = st.extended
        for g, served in enumerate(split.groups):
            members = (split.group_of == g) & ~split.rejected & ~split.idle
            if not members.any():
                continue
            allocator = self._allocator_for(st, pod, served, cluster)
            if ext is not None:
                for i in np.flatnonzero(members).tolist():
                    ext.node_variant[names[i]] = served
            if allocator is None:  # nothing left to allocate on these nodes
                continue
            allocate_nodes(allocator, members, nodes, cluster.devices, self.filter_timeout,
                           st.node_allocations, failed)

    def _allocator_for(self, st: StateData, pod: PodView, served: frozenset[str], cluster: ClusterView) -> Allocator | None:
        """The allocator over the claims to allocate on nodes where DRA serves the extended
        resources `served`: the pod's claims with the node-specific extended-resource claim. Where
        the device plugin serves them all, that claim is left out (upstream hands the allocator its
        empty in-memory claim there, and then fails in Reserve)."""
        if st.allocator is not None:
            return st.allocator
        if served in st.allocators:
            return st.allocators[served]
        ext = st.extended
        assert ext is not None
        claims = []
        for index in st.to_allocate:
            if index != ext.index:
                claims.append(st.claims[index])
            elif served:
                claims.append(ext.variant(pod, st.claims[index], served, cluster.devices.device_class_for)[0])
        allocator = st.allocators[served] = self._allocator(st, claims, cluster) if claims else None
        return allocator

    def _binding_blocked(self, claim: dict[str, Any]) -> bool:
        """An allocated claim whose device binding failed, or is not ready and timed out."""
        try:
            ready = claim_ready_for_binding(claim)
        except BindingFailed:
            return True
        return not ready and claim_timed_out(claim, self.binding_timeout)

    # ---- PostFilter --------------------------------------------------------------------
    @hookimpl
    def post_filter(self, state: dict[str, Any], pod: PodView, handle: Handle) -> Status:
        st: StateData | None = state.get(STATE_KEY)
        if st is None or not st.claims:
            return Status(Code.UNSCHEDULABLE)
        return reservation.post_filter(st, pod, handle)

    # ---- Score -------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: dict[str, Any]) -> Status | None:
        """Pods without claims skip Score and NormalizeScore (upstream scores them 0 per node)."""
        st: StateData | None = state.get(STATE_KEY)
        return Status.skip() if st is None or not st.claims else None

    @hookimpl
    def score(self, state: dict[str, Any], nodes: NodeView) -> np.ndarray | Status:
        st: StateData | None = state.get(STATE_KEY)
        out = np.zeros(len(nodes), dtype=np.int64)
        if st is None or not st.claims:
            return out
        # The extended-resource claim (last, exact requests only) adds nothing to the score.
        claims = st.claims[: st.extended.index] if st.extended is not None else st.claims
        for i, name in enumerate(nodes.names):
            allocations = st.node_allocations.get(name)
            if allocations is not None:
                try:
                    out[i] = compute_score(claims, allocations)
                except ValueError as exc:
                    return Status.error(str(exc))
        return out

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        """helper.DefaultNormalizeScore(MaxNodeScore, reverse=false)."""
        top = int(scores.max()) if scores.size else 0
        if top == 0:
            return scores
        return (100 * scores) // top

    # ---- Reserve / Unreserve -----------------------------------------------------------
    @hookimpl
    def reserve(self, state: dict[str, Any], pod: PodView, node_name: str, cluster: ClusterView) -> Status | None:
        st: StateData | None = state.get(STATE_KEY)
        if st is None or not st.to_allocate:
            return None
        return reservation.reserve(st, pod, node_name, cluster, self.binding_conditions)

    @hookimpl
    def unreserve(self, state: dict[str, Any], pod: PodView, cluster: ClusterView, handle: Handle) -> None:
        st: StateData | None = state.get(STATE_KEY)
        if st is None:
            return
        reservation.unreserve(st, pod, cluster, handle)

    # ---- PreBind -----------------------------------------------------------------------
    @hookimpl
    def pre_bind_pre_flight(self, state: dict[str, Any]) -> PreBindPreFlightResult:
        """kube-scheduler's PreBindPreFlight: Skip for a pod without claims (no nominatedNodeName
        write for it), Success when PreBind has claims to write."""
        st: StateData | None = state.get(STATE_KEY)
        if not self.enabled or st is None or not st.claims:
            return _SKIP_PRE_BIND
        return PreBindPreFlightResult(allow_parallel=True)

    @hookimpl
    def pre_bind(self, state: dict[str, Any], pod: PodView, handle: Handle) -> Status | None:
        st: StateData | None = state.get(STATE_KEY)
        if st is None:
            return None
        return reservation.pre_bind(
            st, state, pod, handle, self.workload_claims, self.binding_conditions, self.binding_timeout
        )


def compute_score(claims: list[dict[str, Any]], allocations: list[dict[str, Any]]) -> int:
    """computeScore: for every chosen firstAvailable subrequest, 8 minus its position."""
    score = 0
    pending = 0
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation is None:
            if pending >= len(allocations):
                raise ValueError(
                    f"number of allocations {len(allocations)} is smaller than number of claims needing allocation"
                )
            allocation = allocations[pending]
            pending += 1
        chosen = {r.get("request") for r in ((allocation.get("devices") or {}).get("results") or ()) if "/" in str(r.get("request", ""))}
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            if request.get("exactly") is not None:
                continue
            for i, sub in enumerate(request.get("firstAvailable") or ()):
                if f"{request.get('name')}/{sub.get('name')}" in chosen:
                    score += FIRST_AVAILABLE_MAX - i
    return score

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
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from kubeberth import (
    ClusterState,
    Code,
    FeatureGates,
    FilterResult,
    FilterScope,
    Handle,
    NodeSelector,
    NodeView,
    PodInfo,
    PreBindPreFlightResult,
    PreFilterState,
    Rejection,
    ScoreScope,
    Status,
    StrictArgs,
)
from kubeberth.api.dra import SelectorCache
from kubeberth.api.hookspecs import hookimpl
from pydantic import field_validator

from .allocator import (
    AllocationError,
    Allocator,
    AllocatorFeatures,
    DeviceContexts,
    FilterTimedOut,
    kobj,
)
from .binding import (
    BindingFailed,
    bind_claim,
    claim_ready_for_binding,
    claim_timed_out,
    has_binding_conditions,
    parse_duration,
    wait_for_binding,
)
from .claims import (
    FINALIZER,
    ClaimLookupError,
    bind_to,
    pod_claim_entries,
    pod_claims,
    pod_has_claims,
    reserved_for_pod,
)
from .extended import (
    REASON_CANNOT_FIT,
    REASON_STALE_CLAIM,
    ExtendedResources,
    claim_requests,
    create_extended_claim,
    delete_claim,
    find_extended_resource_claim,
    has_device_class_mapped_extended_resource,
    is_special_claim_name,
    new_extended_resource_claim,
    patch_pod_extended_resource_claim_status,
    split_nodes,
)
from .filtering import allocate_nodes

__all__ = ["DynamicResources"]

STATE_KEY = "DynamicResources"
FIRST_AVAILABLE_MAX = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"  # the node feature a skipNodeOperations result needs
FILTER_TIMEOUT_DEFAULT = "10s"  # DynamicResourcesFilterTimeoutDefault
BINDING_TIMEOUT_DEFAULT = "600s"  # DynamicResourcesBindingTimeoutDefault


_SKIP_PRE_BIND = PreBindPreFlightResult(Status.skip(), allow_parallel=True)  # read-only: returned for most pods


@dataclass
class _State:
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


def _binding_settled(claim: dict[str, Any]) -> bool:
    """An observed claim whose devices' binding conditions are all met."""
    try:
        return claim_ready_for_binding(claim)
    except BindingFailed:
        return False


def _requires_optional_node_operations(claim: dict[str, Any]) -> bool:
    """allocationResultRequiresDRAOptionalNodeOperations."""
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return any(r.get("skipNodeOperations") for r in (allocation.get("devices") or {}).get("results") or ())


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
        "Node/Add", "Node/Update", "ResourceClaim/Add", "ResourceClaim/Update", "ResourceClaim/Delete",
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
        self, pod: PodInfo, old: dict[str, Any] | None, new: dict[str, Any] | None, cluster: ClusterState | None
    ) -> bool:
        """isSchedulableAfterClaimChange: a claim the pod uses appeared or changed its status, or
        any claim gave its devices back (deallocated, or deleted while allocated)."""
        if new is None:
            if old is None:
                return True  # a deletion whose last state is unknown: play it safe
            if not isinstance(old, dict):
                raise TypeError(f"unexpected object in is_schedulable_after_claim_change: {type(old).__name__}")
            return bool(_status(old).get("allocation"))
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            wrong = new if not isinstance(new, dict) else old
            raise TypeError(f"unexpected object in is_schedulable_after_claim_change: {type(wrong).__name__}")
        if cluster is None:
            return True
        try:
            claims = pod_claims(pod, cluster, self.workload_claims)
        except ClaimLookupError:
            return False  # the pod still misses a claim: this change cannot be enough
        if old is not None and _status(old).get("allocation") and not _status(new).get("allocation"):
            return True  # deallocated: its devices may fit the pod
        uid = (new.get("metadata") or {}).get("uid")
        if not any((c.get("metadata") or {}).get("uid") == uid for c in claims):
            return False  # not a claim of this pod
        if old is None:
            return True
        return _without_nulls(_status(old)) != _without_nulls(_status(new))  # the driver adding a finalizer: no

    def is_schedulable_after_target_pod_update(
        self, pod: PodInfo, old: Any, new: Any, cluster: ClusterState | None
    ) -> bool:
        """isSchedulableAfterTargetPodUpdate: the pod's update (its generated claims' names) left it
        with every claim it needs."""
        if not isinstance(new, PodInfo):
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
    def sign_pod(self, pod: PodInfo) -> Status | None:
        """kube-scheduler's DynamicResources.SignPod: pods with claims are never batched."""
        if pod_has_claims(pod):
            return Status.unschedulable("pods with dra resource claims are not signable")
        return None

    # ---- PreEnqueue --------------------------------------------------------------------
    @hookimpl
    def pre_enqueue(self, pod: PodInfo, handle: Handle) -> Status | None:
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
    def pre_filter(self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState) -> Status | None:
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
            for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
                rname = str(request.get("name", ""))
                if request.get("exactly") is not None:
                    status = self._check_class(cluster, request["exactly"].get("deviceClassName") or "", rname)
                elif request.get("firstAvailable"):
                    if not self.prioritized_list:
                        return Status.unschedulable(
                            f"resource claim {kobj(claim)}, request {rname}: has subrequests, but the DRAPrioritizedList feature is disabled",
                            unresolvable=True,
                        )
                    status = None
                    for sub in request["firstAvailable"]:
                        status = self._check_class(cluster, sub.get("deviceClassName") or "", f"{rname}/{sub.get('name', '')}")
                        if status is not None:
                            break
                else:
                    status = Status.unschedulable(
                        f"resource claim {kobj(claim)}, request {rname}: unknown request type", unresolvable=True
                    )
                if status is not None:
                    return status
        st = _State(claims, available_on, to_allocate, bindings=bindings, extended=extended)
        if to_allocate:
            st.taken = devices.allocated_state(self.features.consumable_capacity)
            if extended is None:
                st.allocator = self._allocator(st, [claims[i] for i in to_allocate], cluster)
        state[STATE_KEY] = st
        return None

    def _allocator(self, st: _State, claims: list[dict[str, Any]], cluster: ClusterState) -> Allocator:
        devices = cluster.devices
        taken = st.taken
        assert taken is not None
        return Allocator(claims, taken.devices, lambda name: cluster.get_object("DeviceClass", name), self.selectors,
                         self.contexts, devices.all_slices, self.features, shared=taken.shared, capacity=taken.capacity)

    @staticmethod
    def _check_class(cluster: ClusterState, class_name: str, request: str) -> Status | None:
        """validateDeviceClass."""
        if not class_name:
            return Status.error(f"request {request}: unsupported request type")
        if cluster.get_object("DeviceClass", class_name) is None:
            return Status.unschedulable(f"request {request}: device class {class_name} does not exist", unresolvable=True)
        return None

    # ---- Filter ------------------------------------------------------------------------
    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> FilterResult | Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return None
        table = nodes.table
        n = len(nodes)
        # DRA-backed extended resources (filterExtendedResources): which nodes cannot get them at
        # all, and which variant of the pod's extended-resource claim each node needs.
        rejected = np.zeros(n, dtype=bool)
        rejections: list[Rejection] = []
        group_of = np.zeros(n, dtype=np.int64)
        groups: list[frozenset[str]] = [frozenset()]
        ext = st.extended
        if ext is not None:
            ext_claim = st.claims[ext.index]
            if claim_requests(ext_claim):  # left by an earlier attempt: PostFilter deletes it
                return FilterResult(np.zeros(n, dtype=bool), [
                    Rejection(REASON_STALE_CLAIM, np.ones(n, dtype=bool), Code.UNSCHEDULABLE_AND_UNRESOLVABLE)])
            cannot_fit, group_of, groups = split_nodes(ext.requests, nodes, cluster.devices.device_class_for)
            if cannot_fit.any():
                rejected |= cannot_fit
                rejections.append(Rejection(REASON_CANNOT_FIT, cannot_fit, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
            if (ext_claim.get("status") or {}).get("allocation") is not None:
                groups = [frozenset()] * len(groups)  # allocated already: nothing to add per node
        user_claims = ext.index if ext is not None else len(st.claims)
        # Nodes where the device plugin serves every extended resource and the pod has no claim of
        # its own: nothing left to do.
        idle = np.zeros(n, dtype=bool)
        if ext is not None and user_claims == 0:
            for g, served in enumerate(groups):
                if not served:
                    idle |= group_of == g
        # Allocated claims: nodes outside their allocation's node selector, nodes lacking a feature
        # the allocation needs, and (anywhere) allocations whose device binding failed or timed out.
        unavailable = np.zeros(n, dtype=bool)
        for index, selector in enumerate(st.available_on):
            claim = st.claims[index]
            if (claim.get("status") or {}).get("allocation") is None:
                continue
            miss = ~selector.row_mask(table, nodes.rows) if selector is not None else np.zeros(n, dtype=bool)
            if _requires_optional_node_operations(claim):
                raw = table.raw
                for i, row in enumerate(nodes.rows.tolist()):
                    declared = ((raw[row] or {}).get("status") or {}).get("declaredFeatures") or ()
                    if OPTIONAL_NODE_OPERATIONS not in declared:
                        miss[i] = True
            if self.binding_conditions and self._binding_blocked(claim):
                miss[:] = True
            if miss.any():
                st.unavailable.add(index)
                unavailable |= miss
        failed: dict[str, np.ndarray] = {}
        if st.to_allocate:
            names = nodes.names
            try:
                for g, served in enumerate(groups):
                    members = (group_of == g) & ~rejected & ~idle
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
            except FilterTimedOut as exc:
                # Timeouts may be transient: Error, so the pod retries through backoff.
                return Status.error(f"node {exc}: timed out trying to allocate devices")
            except AllocationError as exc:
                return Status.error(str(exc))
        for reason, mask in failed.items():
            mask &= ~rejected
            rejected |= mask
            rejections.append(Rejection(reason, mask, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
        rest = unavailable & ~rejected & ~idle
        if rest.any():
            rejected |= rest
            rejections.append(Rejection(REASON_NOT_AVAILABLE, rest, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
        if not rejected.any():
            return None
        return FilterResult(~rejected, rejections)

    def _allocator_for(self, st: _State, pod: PodInfo, served: frozenset[str], cluster: ClusterState) -> Allocator | None:
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
    def post_filter(self, state: dict[str, Any], pod: PodInfo, handle: Handle) -> Status:
        st: _State | None = state.get(STATE_KEY)
        if st is None or not st.claims:
            return Status(Code.UNSCHEDULABLE)
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

    # ---- Score -------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: dict[str, Any]) -> Status | None:
        """Pods without claims skip Score and NormalizeScore (upstream scores them 0 per node)."""
        st: _State | None = state.get(STATE_KEY)
        return Status.skip() if st is None or not st.claims else None

    @hookimpl
    def score(self, state: dict[str, Any], nodes: NodeView) -> np.ndarray | Status:
        st: _State | None = state.get(STATE_KEY)
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
    def reserve(self, state: dict[str, Any], pod: PodInfo, node_name: str, cluster: ClusterState) -> Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None or not st.to_allocate:
            return None
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
            settled = _binding_settled if self.binding_conditions and has_binding_conditions([claim]) else None
            cluster.devices.assume_allocation(str(meta.get("uid") or ""), kobj(claim), claim, pod.uid, settled,
                                              created_for=pod.uid if extended else "")
        return None

    @hookimpl
    def unreserve(self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState, handle: Handle) -> None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return
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

    # ---- PreBind -----------------------------------------------------------------------
    @hookimpl
    def pre_bind_pre_flight(self, state: dict[str, Any]) -> PreBindPreFlightResult:
        """kube-scheduler's PreBindPreFlight: Skip for a pod without claims (no nominatedNodeName
        write for it), Success when PreBind has claims to write."""
        st: _State | None = state.get(STATE_KEY)
        if not self.enabled or st is None or not st.claims:
            return _SKIP_PRE_BIND
        return PreBindPreFlightResult(allow_parallel=True)

    @hookimpl
    def pre_bind(self, state: dict[str, Any], pod: PodInfo, handle: Handle) -> Status | None:
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            return None
        ext = st.extended
        for index, claim in enumerate(st.claims):
            if reserved_for_pod(claim, pod, self.workload_claims):
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
            written, error = bind_claim(handle, claim, allocation, st.bindings[index], self.binding_conditions)
            if error:
                return Status.error(error)
            # Unreserve works with the written claim (its reservation).
            st.claims[index] = written or claim
            if extended and ext is not None:
                error = patch_pod_extended_resource_claim_status(
                    handle, pod, st.claims[index], ext.chosen[1] if ext.chosen is not None else [])
                if error:
                    return Status.error(error)
        if not self.binding_conditions or not has_binding_conditions(st.claims):
            return None
        error = wait_for_binding(handle, st.claims, self.binding_timeout,
                                 cancellation=getattr(state, "pre_bind_cancellation", None))
        return Status.error(error) if error else None


def _status(claim: dict[str, Any]) -> dict[str, Any]:
    return claim.get("status") or {}


def _without_nulls(value: Any) -> Any:
    """A status as apimachinery's Semantic.DeepEqual compares it: an absent field equals null."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


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

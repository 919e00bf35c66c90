"""The VolumeBinding plugin (volume_binding.go): PreFilter sorts the pod's claims, Filter runs
the binder once per distinct label set (or per pinned node) and broadcasts, PreScore/Score rank by
storage capacity, Reserve assumes the chosen PVs, PreBind binds them through the Handle."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterView,
    Code,
    CycleState,
    FeatureGates,
    FilterResult,
    FilterScope,
    Handle,
    NodeView,
    PodView,
    PreBindPreFlightResult,
    PreFilterState,
    Rejection,
    ScoreScope,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import (
    MAX_CUSTOM_PRIORITY_SCORE,
    UtilizationShapePoint,
    annotations_of,
    claim_class,
    meta_of,
    object_key,
    spec_of,
    validate_shape,
)
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .assume_cache import assumed_index
from .binder import bind_pod_volumes, node_volumes, volume_limit
from .csi_translation import migration_topology_key
from .scorer import DEFAULT_SHAPE, capacity_scorer, score_node_volumes
from .state import _NO_CLAIMS, _SKIP_PRE_BIND, _STATE_KEY, _owned_by_pod, _State, pod_claims
from .volumes import (
    ANN_MIGRATED_PLUGINS,
    ANN_SELECTED_NODE,
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
    is_fully_bound,
)

__all__ = ["VolumeBinding"]


def _as_objects(old: Any, new: Any) -> tuple[Any, Any]:
    """util.As: a hint handed something other than API objects fails (the pod is then retried)."""
    if not isinstance(new, Mapping) or (old is not None and not isinstance(old, Mapping)):
        raise TypeError(f"expected API objects, got {type(old).__name__} and {type(new).__name__}")
    return old, new


class VolumeBinding:
    """Filters nodes by the pod's claims; reserves and (via the backend) binds the chosen PVs."""

    name = "VolumeBinding"
    filter_scope = FilterScope.NODE
    pre_filter_state = PreFilterState.NO_POD_DATA
    # Scores read the PVs other pods' cycles assumed: CLUSTER. PreScore skips pods without claims to
    # bind or provision, so they keep incremental cycles.
    score_scope = ScoreScope.CLUSTER

    class Args(BaseModel):
        """VolumeBindingArgs (kubescheduler.config.k8s.io/v1); an empty `shape` is defaulted (when
        StorageCapacityScoring is on) by the plugin, which knows the gates."""

        model_config = ConfigDict(extra="forbid")
        bindTimeoutSeconds: int = Field(default=600, ge=0)
        shape: list[UtilizationShapePoint] | None = None

        @model_validator(mode="after")
        def _validate_shape(self) -> VolumeBinding.Args:
            if self.shape:
                validate_shape(self.shape, "shape")
            return self

    # EventsToRegister: the hinted events, PVs added or updated and nodes added or relabelled (no hint).
    queueing_hints = {
        "StorageClass/Add": "is_schedulable_after_storage_class_change",
        "StorageClass/Update": "is_schedulable_after_storage_class_change",
        "PersistentVolumeClaim/Add": "is_schedulable_after_claim_change",
        "PersistentVolumeClaim/Update": "is_schedulable_after_claim_change",
        "CSINode/Add": "is_schedulable_after_csinode_change",
        "CSINode/Update": "is_schedulable_after_csinode_change",
        "CSIDriver/Update": "is_schedulable_after_csidriver_change",
        "CSIStorageCapacity/Add": "is_schedulable_after_capacity_change",
        "CSIStorageCapacity/Update": "is_schedulable_after_capacity_change",
    }
    requeue_on = frozenset({*queueing_hints, "PersistentVolume/Add", "PersistentVolume/Update", "Node/Add",
                            "Node/UpdateNodeLabel"})

    def __init__(self, args: Args | None = None, feature_gates: FeatureGates | None = None) -> None:
        self.args = args or self.Args()
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.scorer: Callable[[dict[str, list[int]]], int] | None = None
        if gates.enabled("StorageCapacityScoring"):
            # SetDefaults_VolumeBindingArgs: no shape -> prefer the emptiest fit (0% -> 10, 100% -> 0).
            shape = self.args.shape or DEFAULT_SHAPE
            scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
            self.scorer = capacity_scorer([(p.utilization, p.score * scale) for p in shape])
        elif self.args.shape is not None:
            raise ValueError("shape: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring")

    # ---- queueing hints -----------------------------------------------------------------
    def is_schedulable_after_csinode_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """A new CSINode, or a change of its migrated-plugins annotation (in-tree PVs translate through it)."""
        old, new = _as_objects(old, new)
        if old is None:
            return True
        key = ANN_MIGRATED_PLUGINS
        return annotations_of(old).get(key) != annotations_of(new).get(key)

    def is_schedulable_after_claim_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """A claim the pod uses (by name, in its namespace) was created or updated."""
        _, new = _as_objects(old, new)
        if pod.namespace != (meta_of(new).get("namespace") or "default"):
            return False
        name = meta_of(new).get("name")
        return any(claim == name for claim, _ in pod_claims(pod))

    def is_schedulable_after_storage_class_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """A new StorageClass, or a change of allowedTopologies (volumeBindingMode is immutable)."""
        old, new = _as_objects(old, new)
        return old is None or (old.get("allowedTopologies") or None) != (new.get("allowedTopologies") or None)

    def is_schedulable_after_capacity_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """A new CSIStorageCapacity, or a larger volume limit (maximumVolumeSize, else capacity)."""
        old, new = _as_objects(old, new)
        if old is None:
            return True
        old_limit, new_limit = volume_limit(old), volume_limit(new)
        return new_limit is not None and (old_limit is None or new_limit > old_limit)

    def is_schedulable_after_csidriver_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """A CSI driver the pod's inline CSI volumes use stopped publishing storage capacity."""
        old, new = _as_objects(old, new)
        name = meta_of(new).get("name")
        for v in (pod.raw.get("spec") or {}).get("volumes") or ():
            if v.get("csi") is None or (v["csi"] or {}).get("driver") != name:
                continue
            if spec_of(old).get("storageCapacity") is True and spec_of(new).get("storageCapacity") is not True:
                return True
        return False

    # ---- pre_filter --------------------------------------------------------------------
    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's VolumeBinding.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        claims = pod_claims(pod)
        if not claims:
            state[_STATE_KEY] = _NO_CLAIMS  # upstream's empty stateData: PreBindPreFlight then skips
            return Status.skip()
        unresolvable = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        seen: set[str] = set()
        bound: list[dict[str, Any]] = []
        delay: list[dict[str, Any]] = []
        immediate = False
        for claim, ephemeral in claims:
            if claim in seen:
                continue
            seen.add(claim)
            pvc = cluster.get_object("PersistentVolumeClaim", f"{pod.namespace}/{claim}")
            if pvc is None:
                if ephemeral:
                    msg = f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{claim}"'
                else:
                    msg = f'persistentvolumeclaim "{claim}" not found'
                return Status(unresolvable, (msg,))
            if (pvc.get("status") or {}).get("phase") == "Lost":
                volume = spec_of(pvc).get("volumeName", "")
                return Status(
                    unresolvable, (f'persistentvolumeclaim "{claim}" bound to non-existent persistentvolume "{volume}"',)
                )
            if meta_of(pvc).get("deletionTimestamp"):
                return Status(unresolvable, (f'persistentvolumeclaim "{claim}" is being deleted',))
            if ephemeral and not _owned_by_pod(pvc, pod):
                return Status(
                    unresolvable,
                    (f"PVC {pod.namespace}/{claim} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)",),
                )
            if is_fully_bound(pvc):
                bound.append(pvc)
            elif spec_of(pvc).get("volumeName") or not self._delay_binding(pvc, cluster):
                immediate = True  # immediate claims and pre-bound claims are the PV controller's
            else:
                delay.append(pvc)
        if immediate:
            return Status(unresolvable, (ERR_UNBOUND_IMMEDIATE,))
        pinned = frozenset(
            a for c in delay if (a := annotations_of(c).get(ANN_SELECTED_NODE)) is not None
        )
        per_node = any(
            (pv := cluster.get_object("PersistentVolume", spec_of(c).get("volumeName", ""))) is not None
            and migration_topology_key(pv) is not None
            for c in bound
        )
        state[_STATE_KEY] = _State(bound, delay, pinned, per_node=per_node)
        return None

    @staticmethod
    def _delay_binding(pvc: dict[str, Any], cluster: ClusterView) -> bool:
        name = claim_class(pvc)
        if not name:
            return False
        storage_class = cluster.get_object("StorageClass", name)
        return storage_class is not None and storage_class.get("volumeBindingMode") == "WaitForFirstConsumer"

    # ---- filter ------------------------------------------------------------------------
    @hookimpl
    def filter(
        self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView
    ) -> FilterResult | None:
        st: _State | None = state.get(_STATE_KEY)
        if st is None or (not st.bound and not st.delay):
            return None
        table = nodes.table
        set_of_node = table.label_set[nodes.rows]
        pinned_nodes = np.full(len(nodes), st.per_node, dtype=bool)
        if st.pinned and not st.per_node:
            names = np.asarray(nodes.names, dtype=object)
            pinned_nodes = np.isin(names, list(st.pinned))
        reasons_by_key: dict[str, np.ndarray] = {}

        def add(mask: np.ndarray, reasons: tuple[str, ...]) -> None:
            for reason in reasons:
                current = reasons_by_key.get(reason)
                reasons_by_key[reason] = mask if current is None else current | mask

        # Nodes not named by any selected-node annotation: one evaluation per label set.
        general = ~pinned_nodes
        if general.any():
            set_ids = np.unique(set_of_node[general])
            per_set: dict[str, np.ndarray] = {}
            for set_id in set_ids.tolist():
                result = node_volumes(st, cluster, set_id, None)
                for reason in result.reasons:
                    arr = per_set.setdefault(reason, np.zeros(len(table.label_sets), dtype=bool))
                    arr[set_id] = True
            for reason, arr in per_set.items():
                add(nodes.broadcast_label_sets(arr) & general, (reason,))
        # Nodes named by an annotation (at most a handful): evaluated one by one.
        for i in np.flatnonzero(pinned_nodes).tolist():
            result = node_volumes(st, cluster, int(set_of_node[i]), nodes.names[i])
            mask = np.zeros(len(nodes), dtype=bool)
            mask[i] = True
            add(mask, result.reasons)
        if not reasons_by_key:
            return None
        rejected = np.zeros(len(nodes), dtype=bool)
        rejections = []
        for reason in (ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT, ERR_REASON_NOT_ENOUGH_SPACE, ERR_REASON_PV_NOT_EXIST):
            hit = reasons_by_key.get(reason)
            if hit is not None and hit.any():
                rejected |= hit
                rejections.append(Rejection(reason, hit, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
        return FilterResult(~rejected, rejections)

    # ---- pre_score / score ---------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: dict[str, Any]) -> Status | None:
        """Skip unless StorageCapacityScoring is on and the pod has claims to bind or provision:
        kube-scheduler scores every other pod 0 on every node, which decides nothing."""
        st: _State | None = state.get(_STATE_KEY)
        if self.scorer is None or st is None or not st.delay:
            return Status.skip()
        return None

    @hookimpl
    def score(self, state: dict[str, Any], nodes: NodeView, cluster: ClusterView) -> np.ndarray:
        st: _State | None = state.get(_STATE_KEY)
        out = np.zeros(len(nodes), dtype=np.int64)
        scorer = self.scorer
        if st is None or scorer is None or not len(nodes):
            return out
        set_of_node = nodes.table.label_set[nodes.rows]
        pinned = np.full(len(nodes), st.per_node, dtype=bool)
        if st.pinned and not st.per_node:
            pinned = np.isin(np.asarray(nodes.names, dtype=object), list(st.pinned))
        general = ~pinned
        if general.any():
            set_ids = np.unique(set_of_node[general])
            per_set = np.zeros(len(nodes.table.label_sets), dtype=np.int64)
            for set_id in set_ids.tolist():
                per_set[set_id] = score_node_volumes(node_volumes(st, cluster, set_id, None), scorer)
            out[general] = nodes.broadcast_label_sets(per_set)[general]
        for i in np.flatnonzero(pinned).tolist():
            out[i] = score_node_volumes(node_volumes(st, cluster, int(set_of_node[i]), nodes.names[i]), scorer)
        return out

    # ---- reserve / unreserve / pre_bind ------------------------------------------------
    @hookimpl
    def reserve(self, state: dict[str, Any], pod: PodView, node_name: str, cluster: ClusterView) -> Status | None:
        st: _State | None = state.get(_STATE_KEY)
        if st is None or not st.delay:
            if st is not None and not st.all_bound:
                st.all_bound = True
            return None
        row = cluster.table.row_of.get(node_name)
        if row is None:
            return Status.error(f"node {node_name!r} disappeared before volumes were reserved")
        set_id = int(cluster.table.label_set[row])
        result = node_volumes(st, cluster, set_id, node_name if st.per_node or node_name in st.pinned else None)
        if result.reasons:
            return Status(Code.UNSCHEDULABLE, result.reasons)
        assumed = assumed_index(cluster)
        assignments = []
        for pvc, pv in result.bindings:
            pv_name = meta_of(pv).get("name", "")
            if assumed.claim_of(pv) is None:
                assumed.pvs[pv_name] = (object_key(pvc), pod.uid)
            # The PV as the cache saw it: BindPodVolumes writes that version (an optimistic update), so
            # a PV changed meanwhile (e.g. bound by the PV controller) fails the binding, as upstream.
            item = {"claim": object_key(pvc), "pv": pv_name, "node": node_name}
            if meta_of(pv).get("resourceVersion"):
                item["pv_version"] = meta_of(pv)["resourceVersion"]
            assignments.append(item)
        for pvc in result.provisions:
            assignments.append({"claim": object_key(pvc), "pv": None, "node": node_name})
        st.assignments = assignments
        st.all_bound = False
        st.node = node_name
        return None

    @hookimpl
    def unreserve(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> None:
        st: _State | None = state.get(_STATE_KEY)
        if st is not None and (st.assignments or st.node is not None):
            st.assignments = []
            st.node = None
        assumed_index(cluster).release(pod.uid)

    @hookimpl
    def pre_bind_pre_flight(self, state: dict[str, Any], node_name: str) -> PreBindPreFlightResult:
        """kube-scheduler's PreBindPreFlight: Skip when every claim is bound (or the pod has none),
        so no nominatedNodeName is written for it; Success when Reserve assumed volumes on the node."""
        st: _State | None = state.get(_STATE_KEY)
        if st is None:
            return PreBindPreFlightResult(Status.error("not found"), allow_parallel=True)
        if st.all_bound:
            return _SKIP_PRE_BIND
        if st.node != node_name:
            return PreBindPreFlightResult(Status.error(f'no pod volume found for node "{node_name}"'), allow_parallel=True)
        return PreBindPreFlightResult(allow_parallel=True)

    @hookimpl
    def pre_bind(self, state: CycleState, pod: PodView, handle: Handle) -> Status | None:
        """BindPodVolumes: the API updates, then wait (polling every second, up to
        bindTimeoutSeconds) until the PV controller has bound every claim and the provisioner has
        provisioned every claim to provision; a binding undone meanwhile fails the pod's binding."""
        st: _State | None = state.get(_STATE_KEY)
        if st is None or st.all_bound or not st.assignments:
            return None
        problem = bind_pod_volumes(handle, pod, st.assignments, self.args.bindTimeoutSeconds, state.pre_bind_cancellation)
        return Status(Code.ERROR, (problem,), self.name) if problem else None

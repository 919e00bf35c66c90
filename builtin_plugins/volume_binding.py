"""VolumeBinding: a pod's PersistentVolumeClaims decide which nodes it may use.

- Bound claims: the PV's spec.nodeAffinity must admit the node.
- Unbound claims of a WaitForFirstConsumer class: a matching Available PV admitted by the node is
  chosen (smallest that fits), else the class must be able to provision there (a provisioner other
  than kubernetes.io/no-provisioner, and allowedTopologies admitting the node).
- Unbound claims of an Immediate class are the PV controller's job: the pod waits.

Every decision depends on node labels only (PV node affinity is matched against labels, as
kube-scheduler's CheckNodeAffinity does), so it is computed once per distinct label set and
broadcast. Claims carrying the selected-node annotation are pinned to that node by name.

With StorageCapacityScoring (beta, on by default in v1.37) a claim to provision whose CSI driver
publishes storage capacity needs a CSIStorageCapacity object that admits the node and holds the
claim (kube-scheduler's hasEnoughCapacity), and PreScore/Score prefer nodes by how full the chosen
PVs, or the provisioning pools, would be (scorer.go, along the args' `shape`). Scores are computed
once per label set like the verdicts; a pod without delay-binding claims skips PreScore.

reserve assumes the chosen PVs (kept in a cluster index, so another pod in the same loop cannot take
the same PV, even across generation swaps) and unreserve releases them. pre_bind writes through the
Handle, as kube-scheduler's BindPodVolumes does: the chosen PV's claimRef (`update_object`, guarded
by its resourceVersion), or the selected-node annotation on a claim to provision (`patch_object`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterState,
    Code,
    CycleState,
    FeatureGates,
    FilterResult,
    FilterScope,
    Handle,
    MemoKey,
    NodeView,
    PodInfo,
    PreBindCancellation,
    PreBindPreFlightResult,
    PreFilterState,
    Rejection,
    ScoreScope,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import QuantityError, int_value
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .node_resources_fit import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    UtilizationShapePoint,
    broken_linear_table,
    validate_shape,
)

_CLAIMS: MemoKey[list[tuple[str, bool]]] = MemoKey("volume_binding.claims")

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
ANN_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
_STATE_KEY = "VolumeBinding"
BIND_POLL_SECONDS = 1.0  # BindPodVolumes polls its bindings every second
_INDEX_KEY = "VolumeBinding.assumed"


# ---- label / node selector helpers (labels only) ------------------------------------------
def requirement_matches(req: dict[str, Any], labels: dict[str, str]) -> bool:
    """One NodeSelectorRequirement / LabelSelectorRequirement against labels; invalid -> False."""
    key = req.get("key", "")
    op = req.get("operator", "")
    values = req.get("values") or []
    present = key in labels
    if op == "In":
        return bool(values) and present and labels[key] in values
    if op == "NotIn":
        return bool(values) and (not present or labels[key] not in values)
    if op == "Exists":
        return not values and present
    if op == "DoesNotExist":
        return not values and not present
    if op in ("Gt", "Lt"):
        if len(values) != 1 or not present:
            return False
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def node_selector_terms_match(terms: Iterable[dict[str, Any]], labels: dict[str, str], node_name: str = "") -> bool:
    """v1 NodeSelectorTerms (ORed); an empty term matches nothing. matchFields sees metadata.name."""
    fields = {"metadata.name": node_name}
    for term in terms:
        exprs = term.get("matchExpressions") or []
        field_exprs = term.get("matchFields") or []
        if not exprs and not field_exprs:
            continue
        if all(requirement_matches(r, labels) for r in exprs) and all(
            r.get("key") == "metadata.name" and requirement_matches(r, fields) for r in field_exprs
        ):
            return True
    return False


def pv_node_affinity_matches(pv: dict[str, Any], labels: dict[str, str]) -> bool:
    """CheckNodeAffinity: a PV without required node affinity fits everywhere."""
    required = (((pv.get("spec") or {}).get("nodeAffinity")) or {}).get("required")
    if required is None:
        return True
    return node_selector_terms_match(required.get("nodeSelectorTerms") or [], labels)


# In-tree sources whose CSI migration is on in v1.37 (binder.go's isCSIMigrationOnForPlugin): plugin
# name, and the CSI topology key csi-translation-lib rewrites the PV's zone to (None: topology kept).
_MIGRATED_SOURCES: dict[str, tuple[str, str | None]] = {
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "topology.ebs.csi.aws.com/zone"),
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "topology.gke.io/zone"),
    "azureDisk": ("kubernetes.io/azure-disk", None),
    "cinder": ("kubernetes.io/cinder", "topology.cinder.csi.openstack.org/zone"),
    "portworxVolume": ("kubernetes.io/portworx-volume", None),
}
_ZONE_GA, _REGION_GA = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
_ZONE_BETA, _REGION_BETA = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"


def migration_topology_key(pv: dict[str, Any]) -> tuple[str, str] | None:
    """(in-tree plugin, CSI topology key) for a PV whose node affinity CSI migration rewrites, else None."""
    spec = _spec(pv)
    for source, (plugin, key) in _MIGRATED_SOURCES.items():
        if spec.get(source) is not None:
            return (plugin, key) if key is not None else None
    return None


def migrated_plugins(csi_node: dict[str, Any] | None) -> frozenset[str]:
    """isPluginMigratedToCSIOnNode's set: the CSINode's migrated-plugins annotation, split on commas."""
    value = ((_meta(csi_node).get("annotations") or {}).get(ANN_MIGRATED_PLUGINS) or "") if csi_node else ""
    return frozenset(value.split(",")) if value else frozenset()


def _affinity_keys(terms: list[dict[str, Any]]) -> set[str]:
    return {r.get("key") for t in terms for r in t.get("matchExpressions") or ()}


def translate_topology(pv: dict[str, Any], csi_key: str) -> dict[str, Any]:
    """csi-translation-lib's translateTopologyFromInTreeToCSI: the PV with its zone requirement
    rewritten to the CSI driver's key (taken from its zone label when it has no node affinity), and a
    beta region requirement rewritten to the GA label."""
    pv = {**pv, "spec": dict(_spec(pv))}
    required = ((pv["spec"].get("nodeAffinity") or {}).get("required")) or {}
    terms = [dict(t, matchExpressions=[dict(r) for r in t.get("matchExpressions") or ()])
             for t in required.get("nodeSelectorTerms") or ()]
    labels = _meta(pv).get("labels") or {}
    keys = _affinity_keys(terms)
    if _ZONE_GA in keys or (_ZONE_BETA not in keys and (_ZONE_GA in labels or _ZONE_BETA not in labels)):
        zone_key, region_key = _ZONE_GA, _REGION_GA
    else:
        zone_key, region_key = _ZONE_BETA, _REGION_BETA
    if any(r.get("key") == zone_key and r.get("values") for t in terms for r in t["matchExpressions"]):
        for t in terms:
            for r in t["matchExpressions"]:
                if r.get("key") == zone_key:
                    r["key"] = csi_key
    elif zone_key in labels:
        zones = sorted({z.strip() for z in labels[zone_key].split("__") if z.strip()})
        if zones:
            terms = terms or [{"matchExpressions": []}]
            for t in terms:
                t["matchExpressions"].append({"key": csi_key, "operator": "In", "values": zones})
    if region_key == _REGION_BETA:
        for t in terms:
            for r in t["matchExpressions"]:
                if r.get("key") == _REGION_BETA:
                    r["key"] = _REGION_GA
    if terms:
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    return pv


def pv_admits_node(pv: dict[str, Any], labels: dict[str, str], migrated: frozenset[str]) -> bool:
    """CheckNodeAffinity after tryTranslatePVToCSI: a PV of an in-tree plugin the node's CSINode says
    is migrated is matched by its CSI driver's topology."""
    translation = migration_topology_key(pv) if migrated else None
    if translation is not None and translation[0] in migrated:
        pv = translate_topology(pv, translation[1])
    return pv_node_affinity_matches(pv, labels)


def topology_terms_match(terms: list[dict[str, Any]] | None, labels: dict[str, str]) -> bool:
    """StorageClass.allowedTopologies: empty admits everything; a term needs all its label values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        if all(e.get("key") in labels and labels[e["key"]] in (e.get("values") or ()) for e in exprs):
            return True
    return False


def label_selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """metav1.LabelSelector; None matches everything here (callers treat None as 'no selector')."""
    if selector is None:
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    return all(requirement_matches(r, labels) for r in selector.get("matchExpressions") or ())


# ---- object accessors -----------------------------------------------------------------------
def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") or {}


def claim_class(pvc: dict[str, Any]) -> str:
    beta = (_meta(pvc).get("annotations") or {}).get(ANN_BETA_CLASS)
    return beta if beta is not None else (_spec(pvc).get("storageClassName") or "")


def pv_class(pv: dict[str, Any]) -> str:
    beta = (_meta(pv).get("annotations") or {}).get(ANN_BETA_CLASS)
    return beta if beta is not None else (_spec(pv).get("storageClassName") or "")


def _storage(value: Any) -> int:
    if value is None:
        return 0
    try:
        return int_value(value)
    except QuantityError:
        return 0


def claim_request(pvc: dict[str, Any]) -> int:
    return _storage(((_spec(pvc).get("resources") or {}).get("requests") or {}).get("storage"))


def pv_capacity(pv: dict[str, Any]) -> int:
    return _storage((_spec(pv).get("capacity") or {}).get("storage"))


def is_fully_bound(pvc: dict[str, Any]) -> bool:
    """Bound = volumeName set and the bind-completed annotation (or, for hand-made objects, phase Bound)."""
    if not _spec(pvc).get("volumeName"):
        return False
    annotations = _meta(pvc).get("annotations") or {}
    return ANN_BIND_COMPLETED in annotations or (pvc.get("status") or {}).get("phase") == "Bound"


def _claim_key(pvc: dict[str, Any]) -> str:
    meta = _meta(pvc)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


# ---- assumed PVs (shared by every cycle through the cluster cache) ------------------------
class AssumedVolumes:
    """PV name -> (claim key, pod uid) for PVs reserved for a claim but not yet bound in the cache.

    Registered as a cluster index so it outlives plugin instances; it ignores pod placement.
    """

    def __init__(self, cluster: ClusterState | None = None) -> None:
        self.pvs: dict[str, tuple[str, str]] = {}

    def pod_added(self, pod: PodInfo, row: int) -> None:
        pass

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        pass

    def claim_of(self, pv: dict[str, Any]) -> str | None:
        """The claim the PV is (assumed) bound to, dropping assumptions the cache has caught up with."""
        name = _meta(pv).get("name", "")
        ref = _spec(pv).get("claimRef")
        entry = self.pvs.get(name)
        if entry is not None:
            if ref:
                del self.pvs[name]  # the informer now shows the binding
            else:
                return entry[0]
        if ref:
            return f"{ref.get('namespace') or 'default'}/{ref.get('name')}"
        return None

    def release(self, pod_uid: str) -> None:
        for name in [n for n, (_c, uid) in self.pvs.items() if uid == pod_uid]:
            del self.pvs[name]


def assumed_index(cluster: ClusterState) -> AssumedVolumes:
    return cluster.index(_INDEX_KEY, AssumedVolumes)  # type: ignore[return-value]


# ---- per-cycle state ----------------------------------------------------------------------
@dataclass
class NodeVolumes:
    """FindPodVolumes for one label set (or one pinned node): reasons, or the chosen bindings."""

    reasons: tuple[str, ...]
    bindings: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    provisions: list[dict[str, Any]] = field(default_factory=list)
    # The CSIStorageCapacity chosen per claim to provision (None: capacity not tracked), in order.
    capacities: list[dict[str, Any] | None] = field(default_factory=list)
    score: int | None = None  # the StorageCapacityScoring score, once computed


@dataclass
class _State:
    bound: list[dict[str, Any]]
    delay: list[dict[str, Any]]
    pinned: frozenset[str]  # selected-node annotations of the delay claims
    # A bound PV that CSI migration may translate: its node affinity depends on each node's CSINode,
    # so every node is evaluated by name (rare: in-tree zonal PVs only).
    per_node: bool = False
    results: dict[tuple[int, str | None], NodeVolumes] = field(default_factory=dict)
    pvs_by_class: dict[str, list[dict[str, Any]]] | None = None
    all_bound: bool = True
    assignments: list[dict[str, Any]] = field(default_factory=list)
    # The node Reserve assumed the volumes on (kube-scheduler's podVolumesByNode key PreBind reads).
    node: str | None = None


_NO_CLAIMS = _State([], [], frozenset())  # a pod without PVCs (never written to: see reserve/unreserve)
VolumeBindingState = _State  # kube-scheduler's stateData, for tests that build one
_SKIP_PRE_BIND = PreBindPreFlightResult(Status.skip(), allow_parallel=True)  # read-only: returned for most pods
STATE_KEY = _STATE_KEY


def _as_objects(old: Any, new: Any) -> tuple[Any, Any]:
    """util.As: a hint handed something other than API objects fails (the pod is then retried)."""
    if not isinstance(new, Mapping) or (old is not None and not isinstance(old, Mapping)):
        raise TypeError(f"expected API objects, got {type(old).__name__} and {type(new).__name__}")
    return old, new


def _volume_limit(capacity: dict[str, Any]) -> int | None:
    """volumeLimit: maximumVolumeSize when set (it is more precise), else capacity."""
    value = capacity.get("maximumVolumeSize")
    if value is None:
        value = capacity.get("capacity")
    return None if value is None else _storage(value)


def has_enough_capacity(
    cluster: ClusterState, provisioner: str, pvc: dict[str, Any], storage_class: dict[str, Any], labels: dict[str, str]
) -> tuple[bool, dict[str, Any] | None]:
    """hasEnoughCapacity: a claim with a storage request, provisioned by a CSI driver that publishes
    storage capacity, needs a CSIStorageCapacity of its class, big enough, admitting the node."""
    requests = (_spec(pvc).get("resources") or {}).get("requests") or {}
    if "storage" not in requests:
        return True, None
    driver = cluster.get_object("CSIDriver", provisioner)
    if driver is None or _spec(driver).get("storageCapacity") is not True:
        return True, None
    size = _storage(requests["storage"])
    class_name = _meta(storage_class).get("name")
    for capacity in cluster.list_objects("CSIStorageCapacity"):
        if capacity.get("storageClassName") != class_name:
            continue
        limit = _volume_limit(capacity)
        if limit is None or limit < size:
            continue
        topology = capacity.get("nodeTopology")
        if topology is not None and label_selector_matches(topology, labels):
            return True, capacity
    return False, None


def capacity_scorer(shape: list[tuple[int, int]]) -> Callable[[dict[str, list[int]]], int]:
    """buildScorerFunction over a helper.FunctionShape ((utilization, score 0..MaxNodeScore) points):
    each storage class ([requested, capacity]) scores its utilization along the shape; the node's
    score is the classes' rounded mean."""
    table = broken_linear_table(shape)

    def score(classes: dict[str, list[int]]) -> int:
        if not classes:
            return 0
        total = 0
        for requested, capacity in classes.values():
            if capacity == 0 or requested > capacity:
                total += int(table[MAX_UTILIZATION])
            else:
                total += int(table[requested * MAX_UTILIZATION // capacity])
        return (2 * total + len(classes)) // (2 * len(classes))  # math.Round of the mean (total >= 0)

    return score


def _pod_claims(pod: PodInfo) -> list[tuple[str, bool]]:
    """(claim name, is generic ephemeral) per volume that uses a claim (memoised)."""
    cached = _CLAIMS.get(pod)
    if cached is None:
        cached = []
        for v in ((pod.raw.get("spec") or {}).get("volumes")) or ():
            if v.get("persistentVolumeClaim") is not None:
                cached.append(((v["persistentVolumeClaim"] or {}).get("claimName", ""), False))
            elif v.get("ephemeral") is not None:
                cached.append((f"{pod.name}-{v.get('name', '')}", True))
        _CLAIMS.set(pod, cached)
    return cached


def _owned_by_pod(pvc: dict[str, Any], pod: PodInfo) -> bool:
    """metav1.IsControlledBy against the pod object's own uid (PodInfo.uid falls back to the pod's key)."""
    uid = _meta(pod.raw).get("uid") or ""
    for ref in _meta(pvc).get("ownerReferences") or ():
        if ref.get("controller") and (ref.get("uid") or "") == uid:
            return True
    return False


DEFAULT_SHAPE = [
    UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
    UtilizationShapePoint(utilization=MAX_UTILIZATION, score=0),
]


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
        bindTimeoutSeconds: int = Field(600, ge=0)
        shape: list[UtilizationShapePoint] | None = None

        @model_validator(mode="after")
        def _validate_shape(self) -> VolumeBinding.Args:
            if self.shape:
                validate_shape(self.shape, "shape")
            return self

    # EventsToRegister's hinted events; every other event still retries the pod (requeue_on unset).
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
    def is_schedulable_after_csinode_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """A new CSINode, or a change of its migrated-plugins annotation (in-tree PVs translate through it)."""
        old, new = _as_objects(old, new)
        if old is None:
            return True
        key = ANN_MIGRATED_PLUGINS
        return (_meta(old).get("annotations") or {}).get(key) != (_meta(new).get("annotations") or {}).get(key)

    def is_schedulable_after_claim_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """A claim the pod uses (by name, in its namespace) was created or updated."""
        _, new = _as_objects(old, new)
        if pod.namespace != (_meta(new).get("namespace") or "default"):
            return False
        name = _meta(new).get("name")
        return any(claim == name for claim, _ in _pod_claims(pod))

    def is_schedulable_after_storage_class_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """A new StorageClass, or a change of allowedTopologies (volumeBindingMode is immutable)."""
        old, new = _as_objects(old, new)
        return old is None or (old.get("allowedTopologies") or None) != (new.get("allowedTopologies") or None)

    def is_schedulable_after_capacity_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """A new CSIStorageCapacity, or a larger volume limit (maximumVolumeSize, else capacity)."""
        old, new = _as_objects(old, new)
        if old is None:
            return True
        old_limit, new_limit = _volume_limit(old), _volume_limit(new)
        return new_limit is not None and (old_limit is None or new_limit > old_limit)

    def is_schedulable_after_csidriver_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """A CSI driver the pod's inline CSI volumes use stopped publishing storage capacity."""
        old, new = _as_objects(old, new)
        name = _meta(new).get("name")
        for v in (pod.raw.get("spec") or {}).get("volumes") or ():
            if v.get("csi") is None or (v["csi"] or {}).get("driver") != name:
                continue
            if _spec(old).get("storageCapacity") is True and _spec(new).get("storageCapacity") is not True:
                return True
        return False

    # ---- pre_filter --------------------------------------------------------------------
    @hookimpl
    def sign_pod(self, pod: PodInfo) -> list[SignFragment]:
        """kube-scheduler's VolumeBinding.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState) -> Status | None:
        claims = _pod_claims(pod)
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
                volume = _spec(pvc).get("volumeName", "")
                return Status(
                    unresolvable, (f'persistentvolumeclaim "{claim}" bound to non-existent persistentvolume "{volume}"',)
                )
            if _meta(pvc).get("deletionTimestamp"):
                return Status(unresolvable, (f'persistentvolumeclaim "{claim}" is being deleted',))
            if ephemeral and not _owned_by_pod(pvc, pod):
                return Status(
                    unresolvable,
                    (f"PVC {pod.namespace}/{claim} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)",),
                )
            if is_fully_bound(pvc):
                bound.append(pvc)
            elif _spec(pvc).get("volumeName") or not self._delay_binding(pvc, cluster):
                immediate = True  # immediate claims and pre-bound claims are the PV controller's
            else:
                delay.append(pvc)
        if immediate:
            return Status(unresolvable, (ERR_UNBOUND_IMMEDIATE,))
        pinned = frozenset(
            a for c in delay if (a := (_meta(c).get("annotations") or {}).get(ANN_SELECTED_NODE)) is not None
        )
        per_node = any(
            (pv := cluster.get_object("PersistentVolume", _spec(c).get("volumeName", ""))) is not None
            and migration_topology_key(pv) is not None
            for c in bound
        )
        state[_STATE_KEY] = _State(bound, delay, pinned, per_node=per_node)
        return None

    @staticmethod
    def _delay_binding(pvc: dict[str, Any], cluster: ClusterState) -> bool:
        name = claim_class(pvc)
        if not name:
            return False
        storage_class = cluster.get_object("StorageClass", name)
        return storage_class is not None and storage_class.get("volumeBindingMode") == "WaitForFirstConsumer"

    # ---- filter ------------------------------------------------------------------------
    @hookimpl
    def filter(
        self, state: dict[str, Any], pod: PodInfo, nodes: NodeView, cluster: ClusterState
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
                result = self._result(st, cluster, set_id, None)
                for reason in result.reasons:
                    arr = per_set.setdefault(reason, np.zeros(len(table.label_sets), dtype=bool))
                    arr[set_id] = True
            for reason, arr in per_set.items():
                add(nodes.broadcast_label_sets(arr) & general, (reason,))
        # Nodes named by an annotation (at most a handful): evaluated one by one.
        for i in np.flatnonzero(pinned_nodes).tolist():
            result = self._result(st, cluster, int(set_of_node[i]), nodes.names[i])
            mask = np.zeros(len(nodes), dtype=bool)
            mask[i] = True
            add(mask, result.reasons)
        if not reasons_by_key:
            return None
        rejected = np.zeros(len(nodes), dtype=bool)
        rejections = []
        for reason in (ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT, ERR_REASON_NOT_ENOUGH_SPACE, ERR_REASON_PV_NOT_EXIST):
            mask = reasons_by_key.get(reason)
            if mask is not None and mask.any():
                rejected |= mask
                rejections.append(Rejection(reason, mask, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
        return FilterResult(~rejected, rejections)

    def _result(self, st: _State, cluster: ClusterState, set_id: int, node_name: str | None) -> NodeVolumes:
        key = (set_id, node_name)
        found = st.results.get(key)
        if found is None:
            labels = cluster.table.label_sets.values[set_id]
            found = st.results[key] = self._find_pod_volumes(st, cluster, labels, node_name)
        return found

    def _find_pod_volumes(
        self, st: _State, cluster: ClusterState, labels: dict[str, str], node_name: str | None
    ) -> NodeVolumes:
        """kube-scheduler's FindPodVolumes for one node's labels (node_name only for pinned claims)."""
        bound_ok = pvs_found = unbound_ok = enough_space = True
        bindings: list[tuple[dict[str, Any], dict[str, Any]]] = []
        provisions: list[dict[str, Any]] = []
        capacities: list[dict[str, Any] | None] = []
        migrated = migrated_plugins(cluster.get_object("CSINode", node_name)) if st.per_node and node_name else frozenset()
        for pvc in st.bound:
            pv = cluster.get_object("PersistentVolume", _spec(pvc).get("volumeName", ""))
            if pv is None:
                pvs_found = False
                break
            if not pv_admits_node(pv, labels, migrated):
                bound_ok = False
                break
        if st.delay:
            to_match: list[dict[str, Any]] = []
            to_provision: list[dict[str, Any]] = []
            fast_fail = False
            for pvc in st.delay:
                selected = (_meta(pvc).get("annotations") or {}).get(ANN_SELECTED_NODE)
                if selected is None:
                    to_match.append(pvc)
                elif selected != node_name:
                    fast_fail = True
                    break
                else:
                    to_provision.append(pvc)
            if fast_fail:
                unbound_ok = False
            else:
                if to_match:
                    assumed = assumed_index(cluster)
                    chosen: set[str] = set()
                    for pvc in sorted(to_match, key=claim_request):
                        pv = self._find_matching_volume(st, cluster, pvc, labels, chosen, assumed)
                        if pv is None:
                            to_provision.append(pvc)
                            unbound_ok = False
                        else:
                            chosen.add(_meta(pv).get("name", ""))
                            bindings.append((pvc, pv))
                if to_provision:
                    unbound_ok, enough_space, provisions, capacities = self._check_provisions(
                        cluster, to_provision, labels
                    )
        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not enough_space:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        # Like upstream's PodVolumes, the bindings found are kept beside the reasons (a rejected node
        # is never reserved or scored, so they only explain the verdict).
        return NodeVolumes(tuple(reasons), bindings, provisions, capacities)

    def _pvs_of_class(self, st: _State, cluster: ClusterState, class_name: str) -> list[dict[str, Any]]:
        if st.pvs_by_class is None:
            by_class: dict[str, list[dict[str, Any]]] = {}
            for pv in cluster.list_objects("PersistentVolume"):
                by_class.setdefault(pv_class(pv), []).append(pv)
            st.pvs_by_class = by_class
        return st.pvs_by_class.get(class_name, [])

    def _find_matching_volume(
        self,
        st: _State,
        cluster: ClusterState,
        pvc: dict[str, Any],
        labels: dict[str, str],
        chosen: set[str],
        assumed: AssumedVolumes,
    ) -> dict[str, Any] | None:
        """The smallest Available PV this claim may bind to on these labels (or its pre-bound PV)."""
        spec = _spec(pvc)
        requested = claim_request(pvc)
        class_name = claim_class(pvc)
        selector = spec.get("selector")
        mode = spec.get("volumeMode") or "Filesystem"
        modes = set(spec.get("accessModes") or ())
        key = _claim_key(pvc)
        uid = _meta(pvc).get("uid")
        best: dict[str, Any] | None = None
        best_size = 0
        for pv in self._pvs_of_class(st, cluster, class_name):
            name = _meta(pv).get("name", "")
            if name in chosen:
                continue
            owner = assumed.claim_of(pv)
            ref_uid = ((_spec(pv).get("claimRef")) or {}).get("uid")
            bound_here = owner == key and (not ref_uid or not uid or ref_uid == uid)
            if owner is not None and not bound_here:
                continue
            size = pv_capacity(pv)
            if size < requested:
                continue
            if (_spec(pv).get("volumeMode") or "Filesystem") != mode:
                continue
            if _meta(pv).get("deletionTimestamp"):
                continue
            affinity_ok = pv_node_affinity_matches(pv, labels)
            if bound_here:
                return pv if affinity_ok else None
            if ((pv.get("status") or {}).get("phase") or "Available") != "Available":
                continue
            if selector is not None and not label_selector_matches(selector, _meta(pv).get("labels") or {}):
                continue
            if pv_class(pv) != class_name or not affinity_ok:
                continue
            if not modes <= set(_spec(pv).get("accessModes") or ()):
                continue
            if best is None or size < best_size:
                best, best_size = pv, size
        return best

    @staticmethod
    def _check_provisions(
        cluster: ClusterState, claims: list[dict[str, Any]], labels: dict[str, str]
    ) -> tuple[bool, bool, list[dict[str, Any]], list[dict[str, Any] | None]]:
        """checkVolumeProvisions: (provisioning possible, enough storage, claims, their capacities)."""
        provisions: list[dict[str, Any]] = []
        capacities: list[dict[str, Any] | None] = []
        for pvc in claims:
            storage_class = cluster.get_object("StorageClass", claim_class(pvc))
            if storage_class is None:
                return False, True, [], []
            provisioner = storage_class.get("provisioner") or ""
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, [], []
            if not topology_terms_match(storage_class.get("allowedTopologies"), labels):
                return False, True, [], []
            sufficient, capacity = has_enough_capacity(cluster, provisioner, pvc, storage_class, labels)
            if not sufficient:
                return True, False, [], []
            provisions.append(pvc)
            capacities.append(capacity)
        return True, True, provisions, capacities

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
    def score(self, state: dict[str, Any], nodes: NodeView, cluster: ClusterState) -> np.ndarray:
        st: _State | None = state.get(_STATE_KEY)
        out = np.zeros(len(nodes), dtype=np.int64)
        if st is None or self.scorer is None or not len(nodes):
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
                per_set[set_id] = self._score(self._result(st, cluster, set_id, None))
            out[general] = nodes.broadcast_label_sets(per_set)[general]
        for i in np.flatnonzero(pinned).tolist():
            out[i] = self._score(self._result(st, cluster, int(set_of_node[i]), nodes.names[i]))
        return out

    def _score(self, result: NodeVolumes) -> int:
        """VolumeBinding.Score: static bindings by PV class (requested vs PV capacity); without
        any, dynamic provisions by claim class against the chosen CSIStorageCapacity."""
        if result.reasons or self.scorer is None:
            return 0
        if result.score is None:
            classes: dict[str, list[int]] = {}
            if result.bindings:
                for pvc, pv in result.bindings:
                    entry = classes.setdefault(_spec(pv).get("storageClassName") or "", [0, 0])
                    entry[0] += claim_request(pvc)
                    entry[1] += pv_capacity(pv)
            else:
                for pvc, capacity in zip(result.provisions, result.capacities, strict=True):
                    if capacity is None:
                        continue
                    entry = classes.setdefault(_spec(pvc).get("storageClassName") or "", [0, 0])
                    entry[1] = _storage(capacity.get("capacity"))  # the pool, once per class
                    entry[0] += claim_request(pvc)
            result.score = self.scorer(classes)
        return result.score

    # ---- reserve / unreserve / pre_bind ------------------------------------------------
    @hookimpl
    def reserve(self, state: dict[str, Any], pod: PodInfo, node_name: str, cluster: ClusterState) -> Status | None:
        st: _State | None = state.get(_STATE_KEY)
        if st is None or not st.delay:
            if st is not None and not st.all_bound:
                st.all_bound = True
            return None
        row = cluster.table.row_of.get(node_name)
        if row is None:
            return Status.error(f"node {node_name!r} disappeared before volumes were reserved")
        set_id = int(cluster.table.label_set[row])
        result = self._result(st, cluster, set_id, node_name if st.per_node or node_name in st.pinned else None)
        if result.reasons:
            return Status(Code.UNSCHEDULABLE, result.reasons)
        assumed = assumed_index(cluster)
        assignments = []
        for pvc, pv in result.bindings:
            pv_name = _meta(pv).get("name", "")
            if assumed.claim_of(pv) is None:
                assumed.pvs[pv_name] = (_claim_key(pvc), pod.uid)
            # The PV as the cache saw it: BindPodVolumes writes that version (an optimistic update), so
            # a PV changed meanwhile (e.g. bound by the PV controller) fails the binding, as upstream.
            item = {"claim": _claim_key(pvc), "pv": pv_name, "node": node_name}
            if _meta(pv).get("resourceVersion"):
                item["pv_version"] = _meta(pv)["resourceVersion"]
            assignments.append(item)
        for pvc in result.provisions:
            assignments.append({"claim": _claim_key(pvc), "pv": None, "node": node_name})
        st.assignments = assignments
        st.all_bound = False
        st.node = node_name
        return None

    @hookimpl
    def unreserve(self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState) -> None:
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
    def pre_bind(self, state: CycleState, pod: PodInfo, handle: Handle) -> Status | None:
        """BindPodVolumes: the API updates, then wait (polling every second, up to
        bindTimeoutSeconds) until the PV controller has bound every claim and the provisioner has
        provisioned every claim to provision; a binding undone meanwhile fails the pod's binding."""
        st: _State | None = state.get(_STATE_KEY)
        if st is None or st.all_bound or not st.assignments:
            return None
        problem = bind_pod_volumes(handle, pod, st.assignments, self.args.bindTimeoutSeconds, state.pre_bind_cancellation)
        return Status(Code.ERROR, (problem,), self.name) if problem else None


def bind_pod_volumes(
    handle: Handle,
    pod: PodInfo,
    assignments: list[dict[str, Any]],
    timeout: float,
    cancellation: PreBindCancellation | None = None,
) -> str:
    """kube-scheduler's BindPodVolumes: the API updates, then poll checkBindings every second until
    every claim is bound, up to `timeout` seconds. Returns the error message, or "" when bound.
    A `cancellation` set meanwhile (the pod preempted in PreBind) ends the wait with its reason,
    as the cancelled context's cause replaces the error upstream."""
    for item in assignments:
        status = bind_claim(handle, item) if item["pv"] else select_node(handle, item)
        if not status.ok:
            return f"binding volumes of {pod.key}: {status.message}"
    deadline = time.monotonic() + timeout
    while True:
        done, problem = check_bindings(handle, pod, assignments)
        if problem:
            return f"binding volumes: {problem}"
        if done:
            return ""
        if time.monotonic() >= deadline:
            return "binding volumes: context deadline exceeded"
        pause = min(BIND_POLL_SECONDS, max(0.0, deadline - time.monotonic()))
        if cancellation is None:
            time.sleep(pause)
        elif cancellation.wait(pause):
            return cancellation.reason


def check_bindings(handle: Handle, pod: PodInfo, assignments: list[dict[str, Any]]) -> tuple[bool, str]:
    """kube-scheduler's checkBindings over fresh reads: (all done, the error that ends the wait).

    Every chosen PV must still admit the node and keep its claimRef; every claim to provision must
    keep the node in its selected-node annotation, and the PV provisioned for it must admit the node
    (a PV the cache does not show yet only means "not done")."""
    if handle.get_object("Pod", pod.key) is None:
        return False, f'pod does not exist any more: pods "{pod.name}" not found'
    labels: dict[str, str] = {}
    migrated: frozenset[str] = frozenset()
    if assignments:
        node_name = assignments[0]["node"]
        table = handle.cluster.table  # the node lister: the scheduler's cache
        row = table.row_of.get(node_name)
        if row is None:
            return False, f'failed to get node "{node_name}": node "{node_name}" not found'
        labels = table.label_sets.values[int(table.label_set[row])]
        migrated = migrated_plugins(handle.cluster.get_object("CSINode", node_name))
    for item in assignments:
        if item["pv"]:
            pv = handle.get_object("PersistentVolume", item["pv"])
            if pv is None:
                return False, f'failed to check binding: persistentvolume "{item["pv"]}" not found'
            pvc = handle.get_object("PersistentVolumeClaim", item["claim"])
            if pvc is None:
                return False, f'failed to check binding: persistentvolumeclaim "{item["claim"]}" not found'
            if not pv_admits_node(pv, labels, migrated):
                return False, f'pv "{item["pv"]}" node affinity doesn\'t match node "{item["node"]}"'
            ref = _spec(pv).get("claimRef") or {}
            if not ref or not ref.get("uid"):
                return False, f'ClaimRef got reset for pv "{item["pv"]}"'
            if not is_fully_bound(pvc):
                return False, ""
    for item in assignments:
        if item["pv"]:
            continue
        pvc = handle.get_object("PersistentVolumeClaim", item["claim"])
        if pvc is None:
            return False, f'failed to check provisioning pvc: persistentvolumeclaim "{item["claim"]}" not found'
        annotations = _meta(pvc).get("annotations")
        if annotations is None:
            return False, f'selectedNode annotation reset for PVC "{_meta(pvc).get("name", "")}"'
        if annotations.get(ANN_SELECTED_NODE) != item["node"]:
            return False, f'provisioning failed for PVC "{_meta(pvc).get("name", "")}"'
        if volume := _spec(pvc).get("volumeName"):
            pv = handle.get_object("PersistentVolume", volume)
            if pv is None:
                return False, ""  # bound in the API, the PV not seen yet: wait for it
            if not pv_admits_node(pv, labels, migrated):
                return False, f'pv "{volume}" node affinity doesn\'t match node "{item["node"]}"'
        if not is_fully_bound(pvc):
            return False, ""
    return True, ""


def bind_claim(handle: Handle, item: dict[str, Any]) -> Status:
    """kube-scheduler's BindPodVolumes for a chosen static PV: set its claimRef (an optimistic
    update guarded by the PV's resourceVersion); the PV controller completes the binding."""
    namespace, claim = item["claim"].split("/", 1)
    pv = handle.get_object("PersistentVolume", item["pv"])
    if pv is None:
        return Status.error(f'persistentvolume "{item["pv"]}" not found')
    assumed_version = item.get("pv_version")
    if assumed_version and _meta(pv).get("resourceVersion") != assumed_version:
        # The update of the assumed copy would be refused (409): the PV changed since the cycle.
        return Status.error(
            f'Operation cannot be fulfilled on persistentvolumes "{item["pv"]}": the object has been modified; '
            "please apply your changes to the latest version and try again"
        )
    ref = _spec(pv).get("claimRef") or {}
    if ref:
        if (ref.get("namespace"), ref.get("name")) != (namespace, claim):
            return Status.error(f'persistentvolume "{item["pv"]}" is already claimed by {ref.get("namespace")}/{ref.get("name")}')
        return Status.success()  # pre-bound to this claim: the PV controller's job
    pvc = handle.get_object("PersistentVolumeClaim", item["claim"])
    if pvc is None:
        return Status.error(f'persistentvolumeclaim "{item["claim"]}" not found')
    claim_ref = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": namespace, "name": claim,
                 "uid": _meta(pvc).get("uid", "")}
    if _meta(pvc).get("resourceVersion"):
        claim_ref["resourceVersion"] = _meta(pvc)["resourceVersion"]
    pv.setdefault("metadata", {}).setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
    pv.setdefault("spec", {})["claimRef"] = claim_ref
    return handle.update_object("PersistentVolume", pv)


def select_node(handle: Handle, item: dict[str, Any]) -> Status:
    """A claim to provision: the selected-node annotation tells the provisioner where."""
    patch = {"metadata": {"annotations": {ANN_SELECTED_NODE: item["node"]}}}
    return handle.patch_object("PersistentVolumeClaim", item["claim"], patch)

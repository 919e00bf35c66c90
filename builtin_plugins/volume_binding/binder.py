"""The volume binder (binder.go): FindPodVolumes for a node's labels — bound claims' PVs must
admit the node, delay-binding claims get the smallest matching Available PV or must be
provisionable there (with enough CSIStorageCapacity) — and BindPodVolumes, which writes the
chosen bindings through the Handle and waits for the PV controller and provisioners
(checkBindings)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from kubeberth import ClusterView, Handle, PodView, PreBindCancellation, Status
from kubeberth.api.helpers import (
    annotations_of,
    claim_class,
    compile_label_selector,
    label_selector_matches,
    meta_of,
    object_key,
    pv_class,
    spec_of,
)

from .assume_cache import AssumedVolumes, assumed_index
from .csi_translation import migrated_plugins, pv_admits_node
from .state import NodeVolumes, _State
from .volumes import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    NOT_SUPPORTED_PROVISIONER,
    claim_request,
    is_fully_bound,
    pv_capacity,
    pv_node_selector,
    storage_bytes,
    topology_terms_match,
)

__all__ = [
    "BIND_POLL_SECONDS",
    "bind_claim",
    "bind_pod_volumes",
    "check_bindings",
    "check_volume_provisions",
    "find_matching_volume",
    "find_pod_volumes",
    "has_enough_capacity",
    "node_volumes",
    "select_node",
    "volume_limit",
]

BIND_POLL_SECONDS = 1.0  # BindPodVolumes polls its bindings every second


# ---- FindPodVolumes ---------------------------------------------------------------------------
def node_volumes(st: _State, cluster: ClusterView, set_id: int, node_name: str | None) -> NodeVolumes:
    """FindPodVolumes for a label set (or a pinned node by name), computed once per cycle."""
    key = (set_id, node_name)
    found = st.results.get(key)
    if found is None:
        labels = cluster.table.label_sets.values[set_id]
        found = st.results[key] = find_pod_volumes(st, cluster, labels, node_name)
    return found

def find_pod_volumes(
    st: _State, cluster: ClusterView, labels: Mapping[str, str], node_name: str | None
) -> NodeVolumes:
    """kube-scheduler's FindPodVolumes for one node's labels (node_name only for pinned claims)."""
    bound_ok = pvs_found = unbound_ok = enough_space = True
    bindings: list[tuple[dict[str, Any], dict[str, Any]]] = []
    provisions: list[dict[str, Any]] = []
    capacities: list[dict[str, Any] | None] = []
    migrated = migrated_plugins(cluster.get_object("CSINode", node_name)) if st.per_node and node_name else frozenset()
    for pvc in st.bound:
        pv = cluster.get_object("PersistentVolume", spec_of(pvc).get("volumeName", ""))
        if pv is None:
            pvs_found = False
            break
        if not (pv_admits_node(pv, labels, migrated) if migrated else _affinity_matches(st, pv, labels)):
            bound_ok = False
            break
    if st.delay:
        to_match: list[dict[str, Any]] = []
        to_provision: list[dict[str, Any]] = []
        fast_fail = False
        for pvc in st.delay:
            selected = annotations_of(pvc).get(ANN_SELECTED_NODE)
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
                    pv = find_matching_volume(st, cluster, pvc, labels, chosen, assumed)
                    if pv is None:
                        to_provision.append(pvc)
                        unbound_ok = False
                    else:
                        chosen.add(meta_of(pv).get("name", ""))
                        bindings.append((pvc, pv))
            if to_provision:
                unbound_ok, enough_space, provisions, capacities = check_volume_provisions(
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

def _affinity_matches(st: _State, pv: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity with the PV's node affinity parsed once per cycle (PVs are matched per label set)."""
    name = meta_of(pv).get("name", "")
    affinities = st.affinities
    if name in affinities:
        selector = affinities[name]
    else:
        selector = affinities[name] = pv_node_selector(pv)
    return selector is None or selector.matches(labels, "")


def _pvs_of_class(st: _State, cluster: ClusterView, class_name: str) -> list[dict[str, Any]]:
    if st.pvs_by_class is None:
        by_class: dict[str, list[dict[str, Any]]] = {}
        for pv in cluster.list_objects("PersistentVolume"):
            by_class.setdefault(pv_class(pv), []).append(pv)
        st.pvs_by_class = by_class
    return st.pvs_by_class.get(class_name, [])

def find_matching_volume(
    st: _State,
    cluster: ClusterView,
    pvc: dict[str, Any],
    labels: Mapping[str, str],
    chosen: set[str],
    assumed: AssumedVolumes,
) -> dict[str, Any] | None:
    """The smallest Available PV this claim may bind to on these labels (or its pre-bound PV)."""
    spec = spec_of(pvc)
    requested = claim_request(pvc)
    class_name = claim_class(pvc)
    # FindMatchingVolume: a claim without a selector takes any PV (nil selector = everything here).
    selector = compile_label_selector(spec.get("selector"), none_is_everything=True)
    mode = spec.get("volumeMode") or "Filesystem"
    modes = set(spec.get("accessModes") or ())
    vac = spec.get("volumeAttributesClassName") or ""
    key = object_key(pvc)
    uid = meta_of(pvc).get("uid")
    best: dict[str, Any] | None = None
    best_size = 0
    for pv in _pvs_of_class(st, cluster, class_name):
        name = meta_of(pv).get("name", "")
        if name in chosen:
            continue
        owner = assumed.claim_of(pv)
        ref_uid = ((spec_of(pv).get("claimRef")) or {}).get("uid")
        bound_here = owner == key and (not ref_uid or not uid or ref_uid == uid)
        if owner is not None and not bound_here:
            continue
        size = pv_capacity(pv)
        if size < requested:
            continue
        if (spec_of(pv).get("volumeMode") or "Filesystem") != mode:
            continue
        # VolumeAttributesClass (GA, locked on): the claim's and the PV's class names must be equal.
        if (spec_of(pv).get("volumeAttributesClassName") or "") != vac:
            continue
        if meta_of(pv).get("deletionTimestamp"):
            continue
        affinity_ok = _affinity_matches(st, pv, labels)
        if bound_here:
            return pv if affinity_ok else None
        if ((pv.get("status") or {}).get("phase") or "Available") != "Available":
            continue
        if not selector.everything and not selector.matches(meta_of(pv).get("labels") or {}):
            continue
        if pv_class(pv) != class_name or not affinity_ok:
            continue
        if not modes <= set(spec_of(pv).get("accessModes") or ()):
            continue
        if best is None or size < best_size:
            best, best_size = pv, size
    return best

def check_volume_provisions(
    cluster: ClusterView, claims: list[dict[str, Any]], labels: Mapping[str, str]
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


def volume_limit(capacity: dict[str, Any]) -> int | None:
    """volumeLimit: maximumVolumeSize when set (it is more precise), else capacity."""
    value = capacity.get("maximumVolumeSize")
    if value is None:
        value = capacity.get("capacity")
    return None if value is None else storage_bytes(value)


def has_enough_capacity(
    cluster: ClusterView, provisioner: str, pvc: dict[str, Any], storage_class: dict[str, Any], labels: Mapping[str, str]
) -> tuple[bool, dict[str, Any] | None]:
    """hasEnoughCapacity: a claim with a storage request, provisioned by a CSI driver that publishes
    storage capacity, needs a CSIStorageCapacity of its class, big enough, admitting the node."""
    requests = (spec_of(pvc).get("resources") or {}).get("requests") or {}
    if "storage" not in requests:
        return True, None
    driver = cluster.get_object("CSIDriver", provisioner)
    if driver is None or spec_of(driver).get("storageCapacity") is not True:
        return True, None
    size = storage_bytes(requests["storage"])
    class_name = meta_of(storage_class).get("name")
    for capacity in cluster.list_objects("CSIStorageCapacity"):
        if capacity.get("storageClassName") != class_name:
            continue
        limit = volume_limit(capacity)
        if limit is None or limit < size:
            continue
        # nodeHasAccess: a nil nodeTopology is "unavailable" (metav1.LabelSelectorAsSelector(nil) = Nothing).
        if label_selector_matches(capacity.get("nodeTopology"), labels):
            return True, capacity
    return False, None


# ---- BindPodVolumes ---------------------------------------------------------------------------
def bind_pod_volumes(
    handle: Handle,
    pod: PodView,
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


def check_bindings(handle: Handle, pod: PodView, assignments: list[dict[str, Any]]) -> tuple[bool, str]:
    """kube-scheduler's checkBindings over fresh reads: (all done, the error that ends the wait).

    Every chosen PV must still admit the node and keep its claimRef; every claim to provision must
    keep the node in its selected-node annotation, and the PV provisioned for it must admit the node
    (a PV the cache does not show yet only means "not done")."""
    if handle.get_object("Pod", pod.key) is None:
        return False, f'pod does not exist any more: pods "{pod.name}" not found'
    labels: Mapping[str, str] = {}
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
            ref = spec_of(pv).get("claimRef") or {}
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
        annotations = meta_of(pvc).get("annotations")
        if annotations is None:
            return False, f'selectedNode annotation reset for PVC "{meta_of(pvc).get("name", "")}"'
        if annotations.get(ANN_SELECTED_NODE) != item["node"]:
            return False, f'provisioning failed for PVC "{meta_of(pvc).get("name", "")}"'
        if volume := spec_of(pvc).get("volumeName"):
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
    if assumed_version and meta_of(pv).get("resourceVersion") != assumed_version:
        # The update of the assumed copy would be refused (409): the PV changed since the cycle.
        return Status.error(
            f'Operation cannot be fulfilled on persistentvolumes "{item["pv"]}": the object has been modified; '
            "please apply your changes to the latest version and try again"
        )
    ref = spec_of(pv).get("claimRef") or {}
    if ref:
        if (ref.get("namespace"), ref.get("name")) != (namespace, claim):
            return Status.error(f'persistentvolume "{item["pv"]}" is already claimed by {ref.get("namespace")}/{ref.get("name")}')
        return Status.success()  # pre-bound to this claim: the PV controller's job
    pvc = handle.get_object("PersistentVolumeClaim", item["claim"])
    if pvc is None:
        return Status.error(f'persistentvolumeclaim "{item["claim"]}" not found')
    claim_ref = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": namespace, "name": claim,
                 "uid": meta_of(pvc).get("uid", "")}
    if meta_of(pvc).get("resourceVersion"):
        claim_ref["resourceVersion"] = meta_of(pvc)["resourceVersion"]
    pv.setdefault("metadata", {}).setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
    pv.setdefault("spec", {})["claimRef"] = claim_ref
    return handle.update_object("PersistentVolume", pv)


def select_node(handle: Handle, item: dict[str, Any]) -> Status:
    """A claim to provision: the selected-node annotation tells the provisioner where."""
    patch = {"metadata": {"annotations": {ANN_SELECTED_NODE: item["node"]}}}
    return handle.patch_object("PersistentVolumeClaim", item["claim"], patch)

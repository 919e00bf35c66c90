"""VolumeZone: a pod's bound PersistentVolumes carrying zone/region labels only fit nodes in those zones.

Only PersistentVolumeClaim volumes count (as in kube-scheduler), and only their bound PVs; claims of a
WaitForFirstConsumer class that are still unbound are left to VolumeBinding. The zone check depends on
node labels alone, so it is evaluated once per distinct label set and broadcast to the nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    Code,
    FilterResult,
    FilterScope,
    MemoKey,
    NodeView,
    PodView,
    PreFilterState,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import claim_class
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer

_CLAIMS: MemoKey[list[str]] = MemoKey("volume_zone.claims")

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
_STATE_KEY = "PreFilterVolumeZone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_TO_GA = {BETA_ZONE: GA_ZONE, BETA_REGION: GA_REGION}


def claim_names(pod: PodView) -> list[str]:
    """Claim names of the pod's persistentVolumeClaim volumes (ephemeral volumes excluded)."""
    cached = _CLAIMS.get(pod)
    if cached is None:
        volumes = ((pod.raw.get("spec") or {}).get("volumes")) or ()
        cached = [
            (v["persistentVolumeClaim"] or {}).get("claimName") or ""
            for v in volumes
            if v.get("persistentVolumeClaim") is not None
        ]
        _CLAIMS.set(pod, cached)
    return cached


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """A PV zone label value as a set (`a__b` means either); None if malformed (the label is ignored)."""
    if value == "":
        return frozenset()
    zones = value.split("__")
    if any(z == "" for z in zones):
        return None
    return frozenset(zones)


def pv_topologies(pv: dict[str, Any]) -> list[tuple[str, frozenset[str]]]:
    labels = (pv.get("metadata") or {}).get("labels") or {}
    out = []
    for key in TOPOLOGY_LABELS:
        if key in labels:
            zones = label_zones_to_set(str(labels[key]))
            if zones is not None:
                out.append((key, zones))
    return out


def _binding_mode(storage_class: dict[str, Any]) -> str | None:
    return storage_class.get("volumeBindingMode") or "Immediate"  # the API server defaults it


class VolumeZone:
    """Checks that the zones of a pod's bound volumes match the node's zone labels."""

    name = "VolumeZone"
    filter_scope = FilterScope.NODE
    pre_filter_state = PreFilterState.NO_POD_DATA
    # EventsToRegister: a new WaitForFirstConsumer StorageClass (its volumeBindingMode is immutable,
    # so updates are ignored), a new node or a node's labels changed (no hint), a claim of the pod
    # added or updated, a PV added or its topology labels changed.
    queueing_hints = {
        "StorageClass/Add": "is_schedulable_after_storage_class_added",
        "PersistentVolumeClaim/Add": "is_schedulable_after_persistent_volume_claim_change",
        "PersistentVolumeClaim/Update": "is_schedulable_after_persistent_volume_claim_change",
        "PersistentVolume/Add": "is_schedulable_after_persistent_volume_change",
        "PersistentVolume/Update": "is_schedulable_after_persistent_volume_change",
    }
    requeue_on = frozenset({*queueing_hints, "Node/Add", "Node/UpdateNodeLabel"})

    def is_schedulable_after_persistent_volume_claim_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterPersistentVolumeClaimChange: the claim is one of the pod's (same namespace)."""
        if not isinstance(new, dict):
            raise TypeError(f"unexpected objects in is_schedulable_after_persistent_volume_claim_change: {type(new).__name__}")
        meta = new.get("metadata") or {}
        return meta.get("namespace") == pod.namespace and meta.get("name") in claim_names(pod)

    def is_schedulable_after_storage_class_added(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterStorageClassAdded: the new class binds WaitForFirstConsumer."""
        if not isinstance(new, dict):
            raise TypeError(f"unexpected objects in is_schedulable_after_storage_class_added: {type(new).__name__}")
        return new.get("volumeBindingMode") == "WaitForFirstConsumer"

    def is_schedulable_after_persistent_volume_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterPersistentVolumeChange: a new PV, or one whose zone/region labels changed."""
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            raise TypeError(
                f"unexpected objects in is_schedulable_after_persistent_volume_change: "
                f"{type(old).__name__} and {type(new).__name__}"
            )
        return old is None or pv_topologies(old) != pv_topologies(new)

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's VolumeZone.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @staticmethod
    def _pv_topologies(pod: PodView, cluster: ClusterView) -> list[tuple[str, frozenset[str]]] | Status:
        """getPVbyPod: the zone constraints of the pod's bound volumes, or why they cannot be read."""
        topologies: list[tuple[str, frozenset[str]]] = []
        unresolvable = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        for claim in claim_names(pod):
            if claim == "":
                return Status(unresolvable, ("PersistentVolumeClaim had no name",))
            pvc = cluster.get_object("PersistentVolumeClaim", f"{pod.namespace}/{claim}")
            if pvc is None:
                return Status(unresolvable, (f'persistentvolumeclaim "{claim}" not found',))
            pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
            if not pv_name:
                class_name = claim_class(pvc)
                if not class_name:
                    return Status(unresolvable, ("PersistentVolumeClaim had no pv name and storageClass name",))
                storage_class = cluster.get_object("StorageClass", class_name)
                if storage_class is None:
                    return Status(unresolvable, (f'storageclass.storage.k8s.io "{class_name}" not found',))
                if _binding_mode(storage_class) == "WaitForFirstConsumer":
                    continue  # VolumeBinding decides where it goes
                return Status(unresolvable, ("PersistentVolume had no name",))
            pv = cluster.get_object("PersistentVolume", pv_name)
            if pv is None:
                return Status(unresolvable, (f'persistentvolume "{pv_name}" not found',))
            topologies.extend(pv_topologies(pv))
        return topologies

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        topologies = self._pv_topologies(pod, cluster)
        if isinstance(topologies, Status):
            return topologies
        if not topologies:
            return Status.skip()
        state[_STATE_KEY] = topologies
        return None

    @hookimpl
    def filter(
        self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView
    ) -> FilterResult | Status | None:
        topologies = state.get(_STATE_KEY)
        if topologies is None and claim_names(pod):
            # Filter without this cycle's PreFilter (kube-scheduler falls back the same way)
            topologies = self._pv_topologies(pod, cluster)
            if isinstance(topologies, Status):
                return topologies
        if not topologies:
            return None
        table = nodes.table
        set_ids = nodes.distinct_label_sets()
        per_set = np.zeros(len(table.label_sets), dtype=bool)
        for set_id in set_ids.tolist():
            per_set[set_id] = _conflicts(table.label_sets.values[set_id], topologies)
        return FilterResult.reject_where(
            nodes.broadcast_label_sets(per_set), ERR_REASON_CONFLICT, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        )


def _conflicts(labels: dict[str, str], topologies: list[tuple[str, frozenset[str]]]) -> bool:
    if not any(key in labels for key in TOPOLOGY_LABELS):
        return False  # a node without zone labels (single-zone cluster) accepts any volume
    for key, zones in topologies:
        value = labels.get(key)
        if value is None:
            value = labels.get(_TO_GA.get(key, key))
        if value is None or value not in zones:
            return True
    return False

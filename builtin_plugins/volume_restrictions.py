"""VolumeRestrictions: volumes that cannot be shared.

- GCE PD, AWS EBS, iSCSI and Ceph RBD disks already mounted by a pod on a node conflict with a new
  pod mounting the same disk there (unless both mount it read-only, where the type allows that).
- A PersistentVolumeClaim with the ReadWriteOncePod access mode may be used by one pod in the
  whole cluster.

Both checks read an incremental index over placed pods (claim reference counts; disk volumes per
node row), so a cycle costs O(pods using such disks), never a scan of every pod. As in current
kube-scheduler both rejections are Unschedulable: evicting the other pod (preemption) resolves them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from kubeberth import ClusterView, Code, FilterResult, MemoKey, NodeView, PodView, Status, hookimpl, is_pod
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

_DISKS: MemoKey[tuple[DiskVolume, ...]] = MemoKey("volume_restrictions.disks")
_STATE_KEY = "PreFilterVolumeRestrictions"
_INDEX_KEY = "VolumeRestrictions.usage"

DiskVolume = tuple[Any, ...]


def disk_volumes(pod: PodView) -> tuple[DiskVolume, ...]:
    """The pod's GCE PD / AWS EBS / iSCSI / RBD volumes in a comparable form (memoised)."""
    cached = _DISKS.get(pod)
    if cached is not None:
        return cached
    out: list[DiskVolume] = []
    for v in ((pod.raw.get("spec") or {}).get("volumes")) or ():
        if v.get("gcePersistentDisk") is not None:
            d = v["gcePersistentDisk"]
            out.append(("gce", d.get("pdName", ""), bool(d.get("readOnly"))))
        elif v.get("awsElasticBlockStore") is not None:
            out.append(("ebs", v["awsElasticBlockStore"].get("volumeID", "")))
        elif v.get("iscsi") is not None:
            d = v["iscsi"]
            out.append(("iscsi", d.get("iqn", ""), bool(d.get("readOnly"))))
        elif v.get("rbd") is not None:
            d = v["rbd"]
            out.append(
                ("rbd", frozenset(d.get("monitors") or ()), d.get("pool") or "rbd", d.get("image", ""), bool(d.get("readOnly")))
            )
    result = tuple(out)
    _DISKS.set(pod, result)
    return result


def is_volume_conflict(volume: DiskVolume, existing: tuple[DiskVolume, ...]) -> bool:
    """kube-scheduler's isVolumeConflict for one new volume against another pod's volumes."""
    kind = volume[0]
    for other in existing:
        if other[0] != kind:
            continue
        if kind == "gce" and volume[1] == other[1] and not (volume[2] and other[2]):
            return True
        if kind == "ebs" and volume[1] == other[1]:
            return True
        if kind == "iscsi" and volume[1] == other[1] and not (volume[2] and other[2]):
            return True
        if (
            kind == "rbd"
            and volume[1] & other[1]
            and volume[2] == other[2]
            and volume[3] == other[3]
            and not (volume[4] and other[4])
        ):
            return True
    return False


class VolumeUsage:
    """PodIndex: claims referenced by placed pods (ns/name -> count) and disk volumes per node row."""

    def __init__(self, cluster: ClusterView | None = None) -> None:
        self.claim_refs: Counter[str] = Counter()
        self.disks: dict[int, dict[str, tuple[DiskVolume, ...]]] = {}

    def pod_added(self, pod: PodView, row: int) -> None:
        for claim in pod.pvc_names:
            self.claim_refs[f"{pod.namespace}/{claim}"] += 1
        disks = disk_volumes(pod)
        if disks:
            self.disks.setdefault(row, {})[pod.uid] = disks

    def pod_removed(self, pod: PodView, row: int) -> None:
        for claim in pod.pvc_names:
            key = f"{pod.namespace}/{claim}"
            self.claim_refs[key] -= 1
            if self.claim_refs[key] <= 0:
                del self.claim_refs[key]
        on_row = self.disks.get(row)
        if on_row is not None:
            on_row.pop(pod.uid, None)
            if not on_row:
                del self.disks[row]


def usage_index(cluster: ClusterView) -> VolumeUsage:
    return cluster.index(_INDEX_KEY, VolumeUsage)


def _pvc_volume_claims(pod: PodView) -> list[str]:
    volumes = ((pod.raw.get("spec") or {}).get("volumes")) or ()
    return [
        (v["persistentVolumeClaim"] or {}).get("claimName") or ""
        for v in volumes
        if v.get("persistentVolumeClaim") is not None
    ]


class VolumeRestrictions:
    """Rejects nodes where the pod's disks are already in use, and pods whose RWOP claim is in use."""

    name = "VolumeRestrictions"
    # EventsToRegister: a placed pod deleted (its volumes released), a node added (no hint), a claim
    # the pod uses created (it must exist for its access modes). Pod volumes are immutable.
    queueing_hints = {
        "Pod/Delete": "is_schedulable_after_assigned_pod_deleted",
        "PersistentVolumeClaim/Add": "is_schedulable_after_persistent_volume_claim_added",
    }
    requeue_on = frozenset({*queueing_hints, "Node/Add"})
    # The volume index is not declared (pod_indexes): built for the first pod with a volume it
    # checks, as many pods have none (0.6 s and a memo per placed pod at 650,000 placed pods).

    def is_schedulable_after_persistent_volume_claim_added(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterPersistentVolumeClaimAdded: the new claim is one the pod uses."""
        if not isinstance(new, dict):
            raise TypeError(f"unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: {type(new).__name__}")
        meta = new.get("metadata") or {}
        return meta.get("namespace") == pod.namespace and meta.get("name") in _pvc_volume_claims(pod)

    def is_schedulable_after_assigned_pod_deleted(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterAssignedPodDeleted: a pod of the same namespace whose disk conflicted with
        the pod's, or that used one of its claims (it may be ReadWriteOncePod), was deleted."""
        if not is_pod(old):
            raise TypeError(f"unexpected objects in isSchedulableAfterAssignedPodDeleted: {type(old).__name__}")
        if old.namespace != pod.namespace:
            return False
        deleted_disks = disk_volumes(old)
        if any(is_volume_conflict(v, deleted_disks) for v in disk_volumes(pod)):
            return True
        return bool(set(_pvc_volume_claims(pod)) & set(_pvc_volume_claims(old)))

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's VolumeRestrictions.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        rwop: set[str] = set()
        for claim in _pvc_volume_claims(pod):
            pvc = cluster.get_object("PersistentVolumeClaim", f"{pod.namespace}/{claim}")
            if pvc is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f'persistentvolumeclaim "{claim}" not found',))
            if "ReadWriteOncePod" in ((pvc.get("spec") or {}).get("accessModes") or ()):
                rwop.add(claim)
        conflicting = 0
        if rwop:
            usage = usage_index(cluster)
            conflicting = sum(1 for claim in rwop if usage.claim_refs.get(f"{pod.namespace}/{claim}", 0) > 0)
        if not disk_volumes(pod) and conflicting == 0:
            return Status.skip()
        state[_STATE_KEY] = conflicting
        return None

    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | None:
        conflicting = state.get(_STATE_KEY, 0)
        disks = disk_volumes(pod)
        disk_conflict = np.zeros(len(nodes), dtype=bool)
        if disks:
            usage = usage_index(cluster)
            bad_rows = [
                row
                for row, pods in usage.disks.items()
                if any(is_volume_conflict(v, existing) for existing in pods.values() for v in disks)
            ]
            if bad_rows:
                disk_conflict = np.isin(nodes.rows, np.asarray(bad_rows, dtype=nodes.rows.dtype))
        rejected = {ERR_REASON_DISK_CONFLICT: disk_conflict}
        if conflicting > 0:
            rejected[ERR_REASON_RWOP_CONFLICT] = ~disk_conflict
        return FilterResult.from_rejections(len(nodes), rejected)

"""Volume accessors and the placed-pods index NodeVolumeLimits reads (kube-scheduler's
nodevolumelimits/utils.go and the pod-volume walks of csi.go)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubeberth import ClusterView, MemoKey, PodView, is_pod

from .translation import in_tree_plugin

_VOLUMES: MemoKey[bool] = MemoKey("NodeVolumeLimits.attachable")
INDEX_KEY = "NodeVolumeLimits.pods_with_volumes"


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("spec") or {}


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def pod_volumes(pod: PodView) -> list[dict[str, Any]]:
    return list(spec_of(pod.raw).get("volumes") or ())


def has_attachable_volumes(pod: PodView) -> bool:
    """A claim, a generic ephemeral volume or a migratable inline volume (CSILimits' PreFilter)."""
    found = _VOLUMES.get(pod)
    if found is None:
        found = any(
            v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or in_tree_plugin(v)
            for v in pod_volumes(pod)
        )
        _VOLUMES.set(pod, found)
    return found


def is_resize_deferred(pod: PodView) -> bool:
    """component-helpers' IsPodResizeDeferred: a PodResizePending condition with reason Deferred."""
    for cond in (pod.raw.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "PodResizePending":
            return cond.get("reason") == "Deferred"
    return False


def csinode_limits(csinode: Mapping[str, Any] | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable.count from a CSINode (no entry: no limit)."""
    out: dict[str, int] = {}
    if csinode is None:
        return out
    for d in spec_of(csinode).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[str(d.get("name"))] = int(count)
    return out


class ClaimNotFound(Exception):
    """The pod's claim does not exist (Filter: UnschedulableAndUnresolvable)."""


class PodsWithVolumes:
    """PodIndex: per node row, the placed pods that have claims or migratable inline volumes."""

    def __init__(self, cluster: ClusterView | None = None) -> None:
        self.rows: dict[int, dict[str, PodView]] = {}

    def pod_added(self, pod: PodView, row: int) -> None:
        if has_attachable_volumes(pod):
            self.rows.setdefault(row, {})[pod.uid] = pod

    def pod_removed(self, pod: PodView, row: int) -> None:
        on_row = self.rows.get(row)
        if on_row is not None:
            on_row.pop(pod.uid, None)
            if not on_row:
                del self.rows[row]


def raw_of(obj: Any) -> Mapping[str, Any]:
    """A changed object's raw body (pods arrive as PodView)."""
    if is_pod(obj):
        return obj.raw
    return obj or {}


def owned_by(pvc: Mapping[str, Any], pod: PodView) -> bool:
    """ephemeral.VolumeIsForPod: the claim's controller owner is the pod."""
    refs: Iterable[Mapping[str, Any]] = meta_of(pvc).get("ownerReferences") or ()
    return any(ref.get("controller") and ref.get("uid") == pod.uid for ref in refs)

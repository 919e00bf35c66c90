"""VolumeBinding's cycle state (volume_binding.go's stateData and PodVolumes): the pod's claims
sorted into bound and delay-binding ones, and what FindPodVolumes found per label set or node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubeberth import MemoKey, PodView, PreBindPreFlightResult, Status
from kubeberth.api.helpers import NodeSelector, meta_of

__all__ = ["STATE_KEY", "NodeVolumes", "VolumeBindingState", "pod_claims"]

_CLAIMS: MemoKey[list[tuple[str, bool]]] = MemoKey("volume_binding.claims")
_STATE_KEY = "VolumeBinding"


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
    # PV name -> its parsed required node affinity (None: none), for the PVs matched this cycle.
    affinities: dict[str, NodeSelector | None] = field(default_factory=dict)
    all_bound: bool = True
    assignments: list[dict[str, Any]] = field(default_factory=list)
    # The node Reserve assumed the volumes on (kube-scheduler's podVolumesByNode key PreBind reads).
    node: str | None = None


_NO_CLAIMS = _State([], [], frozenset())  # a pod without PVCs (never written to: see reserve/unreserve)
VolumeBindingState = _State  # kube-scheduler's stateData, for tests that build one
_SKIP_PRE_BIND = PreBindPreFlightResult(Status.skip(), allow_parallel=True)  # read-only: returned for most pods
STATE_KEY = _STATE_KEY


def pod_claims(pod: PodView) -> list[tuple[str, bool]]:
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


def _owned_by_pod(pvc: dict[str, Any], pod: PodView) -> bool:
    """metav1.IsControlledBy against the pod object's own uid (PodView.uid falls back to the pod's key)."""
    uid = meta_of(pod.raw).get("uid") or ""
    for ref in meta_of(pvc).get("ownerReferences") or ():
        if ref.get("controller") and (ref.get("uid") or "") == uid:
            return True
    return False

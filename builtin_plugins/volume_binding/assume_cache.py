"""The assumed PVs (kube-scheduler's volumebinding assume_cache.go, as far as the binder uses it):
a PV chosen for a claim in Reserve counts as taken for every later cycle until the informer shows
its binding or the pod is unreserved."""

from __future__ import annotations

from typing import Any

from kubeberth import ClusterView, PodView
from kubeberth.api.helpers import meta_of, spec_of

__all__ = ["AssumedVolumes", "assumed_index"]

_INDEX_KEY = "VolumeBinding.assumed"


class AssumedVolumes:
    """PV name -> (claim key, pod uid) for PVs reserved for a claim but not yet bound in the cache.

    Registered as a cluster index so it outlives plugin instances; it ignores pod placement.
    """

    def __init__(self, cluster: ClusterView | None = None) -> None:
        self.pvs: dict[str, tuple[str, str]] = {}

    def pod_added(self, pod: PodView, row: int) -> None:
        pass

    def pod_removed(self, pod: PodView, row: int) -> None:
        pass

    def claim_of(self, pv: dict[str, Any]) -> str | None:
        """The claim the PV is (assumed) bound to, dropping assumptions the cache has caught up with."""
        name = meta_of(pv).get("name", "")
        ref = spec_of(pv).get("claimRef")
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


def assumed_index(cluster: ClusterView) -> AssumedVolumes:
    """The cluster's AssumedVolumes, registered on first use."""
    return cluster.index(_INDEX_KEY, AssumedVolumes)

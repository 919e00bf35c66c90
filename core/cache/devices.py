"""Per-node device pools and allocated devices for Dynamic Resource Allocation (resource.k8s.io/v1).

kube-scheduler's DRA manager keeps a ResourceSlice lister and an allocated-devices tracker fed by
the ResourceClaim informer, plus in-flight allocations (claims allocated in Reserve whose status
write has not come back through the informer yet). `DeviceState` is the same for kubeberth's
cache: ClusterState routes ResourceSlice and ResourceClaim events here, so a pod with claims reads
"which slices may serve this node" and "which devices are taken" without scanning every object,
and a pod without claims pays nothing (no per-node or per-pod work happens here).

Scheduling thread only, like the rest of ClusterState.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DeviceID", "DeviceState", "InFlightAllocation"]

DeviceID = tuple[str, str, str]
"""(driver, pool, device): one device across the cluster."""


@dataclass(slots=True)
class InFlightAllocation:
    """A claim allocated in Reserve whose status write has not been observed yet."""

    claim_key: str  # namespace/name
    claim: dict[str, Any]  # the claim as allocated (status.allocation set)
    pods: set[str]  # uids of the pods holding it (Unreserve of the last one drops it)
    # When set, an observed allocation ends the hold only once settled(claim) is true (e.g. its
    # devices' binding conditions are met); until then only Unreserve (release) drops it.
    settled: Callable[[dict[str, Any]], bool] | None = None


def _results(claim: dict[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list(((allocation.get("devices") or {}).get("results")) or ())


def exclusive_devices(claim: dict[str, Any]) -> list[DeviceID]:
    """Devices a claim's allocation holds exclusively (admin access shares, so it does not count)."""
    return [
        (str(r.get("driver", "")), str(r.get("pool", "")), str(r.get("device", "")))
        for r in _results(claim)
        if not r.get("adminAccess")
    ]


def _key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name')}" if ns else str(meta.get("name"))


class DeviceState:
    """ResourceSlices by node and devices in use, maintained from informer events."""

    def __init__(self) -> None:
        self.slices: dict[str, dict[str, Any]] = {}
        self.by_node: dict[str, dict[str, dict[str, Any]]] = {}  # spec.nodeName -> slices
        self.node_independent: dict[str, dict[str, Any]] = {}  # allNodes / nodeSelector / per-device
        self.allocated: Counter[DeviceID] = Counter()  # from claims in the cache
        self._claim_devices: dict[str, list[DeviceID]] = {}
        self._claim_uids: dict[str, str] = {}  # claim key -> uid
        self.in_flight: dict[str, InFlightAllocation] = {}  # claim uid -> allocation
        self.version = 0  # bumped on every change; per-cycle caches compare it

    # ---- ResourceSlices ----------------------------------------------------------------
    def upsert_slice(self, obj: dict[str, Any]) -> None:
        self.remove_slice(obj)
        key = _key(obj)
        self.slices[key] = obj
        node = (obj.get("spec") or {}).get("nodeName")
        if node:
            self.by_node.setdefault(str(node), {})[key] = obj
        else:
            self.node_independent[key] = obj
        self.version += 1

    def remove_slice(self, obj: dict[str, Any]) -> None:
        key = _key(obj)
        old = self.slices.pop(key, None)
        if old is None:
            return
        node = (old.get("spec") or {}).get("nodeName")
        if node:
            bucket = self.by_node.get(str(node))
            if bucket is not None:
                bucket.pop(key, None)
                if not bucket:
                    del self.by_node[str(node)]
        else:
            self.node_independent.pop(key, None)
        self.version += 1

    def slices_for(self, node_name: str) -> list[dict[str, Any]]:
        """Slices that may serve `node_name`: its own, then every node-independent one (the
        allocator still matches their node selectors)."""
        own = self.by_node.get(node_name)
        if not own:
            return list(self.node_independent.values())
        return [*own.values(), *self.node_independent.values()]

    def all_slices(self) -> Iterable[dict[str, Any]]:
        return self.slices.values()

    # ---- ResourceClaims ----------------------------------------------------------------
    def upsert_claim(self, obj: dict[str, Any]) -> None:
        key = _key(obj)
        self._drop_claim(key)
        devices = exclusive_devices(obj)
        if devices:
            self._claim_devices[key] = devices
            self.allocated.update(devices)
        uid = str((obj.get("metadata") or {}).get("uid") or "")
        self._claim_uids[key] = uid
        held = self.in_flight.get(uid)
        observed = bool(devices or (obj.get("status") or {}).get("allocation"))
        if held is not None and observed and (held.settled is None or held.settled(obj)):
            del self.in_flight[uid]  # the cache caught up with our own write
        self.version += 1

    def remove_claim(self, obj: dict[str, Any]) -> None:
        key = _key(obj)
        self._drop_claim(key)
        uid = self._claim_uids.pop(key, "")
        self.in_flight.pop(uid, None)
        self.version += 1

    def _drop_claim(self, key: str) -> None:
        old = self._claim_devices.pop(key, None)
        if old:
            self.allocated.subtract(old)
            for device in old:
                if self.allocated[device] <= 0:
                    del self.allocated[device]

    # ---- in-flight allocations (Reserve .. informer echo) ------------------------------
    def assume_allocation(self, claim_uid: str, claim_key: str, claim: dict[str, Any], pod_uid: str,
                          settled: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """Hold a claim allocated in Reserve, so no other pod takes its devices meanwhile. The hold
        ends when the claim's allocation is observed (and, with `settled`, once settled(observed
        claim) is true: binding still in progress keeps it) or when every pod releases it."""
        found = self.in_flight.get(claim_uid)
        if found is None:
            self.in_flight[claim_uid] = InFlightAllocation(claim_key, claim, {pod_uid}, settled)
        else:
            found.pods.add(pod_uid)
        self.version += 1

    def release(self, claim_uid: str, pod_uid: str) -> bool:
        """Drop the pod's hold on an in-flight allocation; True when the allocation went away."""
        found = self.in_flight.get(claim_uid)
        if found is None:
            return False
        found.pods.discard(pod_uid)
        if found.pods:
            return False
        del self.in_flight[claim_uid]
        self.version += 1
        return True

    def pending_allocation(self, claim_uid: str) -> dict[str, Any] | None:
        """The claim as allocated in Reserve by a cycle whose binding is in flight, if any."""
        found = self.in_flight.get(claim_uid)
        return found.claim if found is not None else None

    def allocated_devices(self) -> set[DeviceID]:
        """Every device held exclusively: by claims in the cache and by in-flight allocations."""
        taken = set(self.allocated)
        for item in self.in_flight.values():
            taken.update(exclusive_devices(item.claim))
        return taken

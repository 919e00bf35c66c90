"""ReservationCheck: re-verify at PreBind that the chosen node still fits the pod.

Between the scheduling cycle (which reserved the node) and the binding worker's PreBind, the
cluster may change: the node's allocatable shrinks, the node goes away, or another scheduler
sharing the nodes binds its own pod there. At PreBind this plugin reads the node fresh from the
cluster (`handle.get_object`) and compares its allocatable with the requests of every pod the
cache has placed there (this pod included, as it is assumed), from a per-node sum the plugin keeps
as a cache index on the scheduling thread. Any resource the pod requests that is now
over-committed fails PreBind: the binding cycle unreserves and requeues the pod instead of binding
it to a node that cannot run it.

Enable it with multiPoint (it needs its reserve hook to start the index) or at both reserve and
preBind.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import defaultdict
from typing import Any

from kubeberth import ClusterView, PodView, Status, hookimpl
from kubeberth.api.helpers import parse_quantity

GONE = "node(s) disappeared before binding"


class NodeRequests:
    """Requests of placed pods summed per node name (a PodIndex, updated on the scheduling
    thread, read under a lock from binding workers)."""

    def __init__(self, cluster: ClusterView) -> None:
        self.names = cluster.table.names
        self.lock = threading.Lock()
        self.sums: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.uids: dict[str, set[str]] = defaultdict(set)

    def pod_added(self, pod: PodView, row: int) -> None:
        name = self.names[row] or ""
        with self.lock:
            sums = self.sums[name]
            for resource, value in pod.requests.items():
                sums[resource] += value
            sums["pods"] += 1
            self.uids[name].add(pod.uid)

    def pod_removed(self, pod: PodView, row: int) -> None:
        name = self.names[row] or ""
        with self.lock:
            sums = self.sums[name]
            for resource, value in pod.requests.items():
                sums[resource] -= value
            sums["pods"] -= 1
            self.uids[name].discard(pod.uid)

    def on(self, node: str) -> tuple[dict[str, int], set[str]]:
        with self.lock:
            return dict(self.sums.get(node, {})), set(self.uids.get(node, ()))


@functools.lru_cache(maxsize=4096)
def _units(resource: str, quantity: str) -> int:
    value = parse_quantity(quantity)
    return math.ceil(value * 1000) if resource == "cpu" else math.ceil(value)


def allocatable_of(node: dict[str, Any]) -> dict[str, int]:
    """status.allocatable in the cache's units: CPU millicores, everything else whole units."""
    status = node.get("status") or {}
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    return {resource: _units(resource, str(quantity)) for resource, quantity in allocatable.items()}


class ReservationCheck:
    name = "ReservationCheck"

    def __init__(self) -> None:
        self._indexes: dict[int, NodeRequests] = {}

    @hookimpl
    def reserve(self, cluster: ClusterView) -> None:
        if id(cluster) not in self._indexes:
            self._indexes[id(cluster)] = cluster.index(("contrib.ReservationCheck", id(self)), NodeRequests)

    @hookimpl
    def pre_bind_pre_flight(self, pod: PodView, node_name: str, handle: Any) -> Status | None:
        """Skip when there is nothing left to verify: the pod does not wait at Permit and the node
        fits it now (the same fresh check, done here instead of at PreBind, a moment later in the
        same binding worker). Without it every pod would count as having PreBind work and get a
        status.nominatedNodeName write. A pod held at Permit, or one the node no longer fits, has
        work: PreBind verifies after the wait, or rejects."""
        if handle.get_waiting_pod(pod.uid) is not None:
            return None
        return Status.skip() if self.verify(pod, node_name, handle) is None else None

    @hookimpl
    def pre_bind(self, pod: PodView, node_name: str, handle: Any) -> Status | None:
        return self.verify(pod, node_name, handle)

    def verify(self, pod: PodView, node_name: str, handle: Any) -> Status | None:
        """The check: a fresh read of the node against the requests placed on it."""
        node = handle.get_object("Node", node_name)
        if node is None:
            return Status.unschedulable(GONE)
        allocatable = allocatable_of(node)
        index = self._indexes.get(id(handle.cluster))
        used, uids = index.on(node_name) if index is not None else ({}, set())
        counted = pod.uid in uids  # assumed here: already in the sums
        short = []
        for resource, value in sorted({**pod.requests, "pods": 1}.items()):
            if value <= 0:
                continue
            total = used.get(resource, 0) + (0 if counted else value)
            if total > allocatable.get(resource, 0):
                short.append(f"Insufficient {resource}")
        if short:
            return Status.unschedulable(f"node {node_name} no longer fits the pod at binding: {', '.join(short)}")
        return None

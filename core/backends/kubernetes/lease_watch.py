"""One list+watch of the scale-out Leases of a replica group (active-active, docs/scale-out.md).

Membership Leases and per-node claims Leases live in the scheduler's namespace, labelled
`kubeberth.io/scale-out=<group>`. One Informer (the same list, watch, relist and reconnect code
as the cluster informers) keeps the latest of each by name, readable from any thread, and hands
every change to the listeners (the claims store forwards claims to the scheduling loop).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..base import ClusterEvent
from .client import RawClient
from .informer import Informer, Resource

GROUP_LABEL = "kubeberth.io/scale-out"
ROLE_LABEL = "kubeberth.io/role"


def resource_version(obj: dict[str, Any] | None) -> int:
    """The object's resourceVersion as a number (-1 when absent or not a number; etcd's are)."""
    rv = ((obj or {}).get("metadata") or {}).get("resourceVersion") or ""
    return int(rv) if isinstance(rv, str) and rv.isdigit() else -1


class LeaseWatch:
    """The group's Leases by name; thread-safe reads. Implements the InformerHost protocol."""

    def __init__(self, raw: RawClient, namespace: str, group: str) -> None:
        self.raw = raw
        self.namespace = namespace
        self.group = group
        self.stopping = threading.Event()
        self.resync_period = 0.0
        self.watch_timeout = 300.0
        self.backoff_initial = 0.2
        self.backoff_max = 5.0
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []  # (event type, object)
        self._lock = threading.Lock()
        self._objects: dict[str, dict[str, Any]] = {}
        path = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"
        self.informer = Informer(self, Resource("Lease", path), accept=self._ours)
        self.informer.name = f"kubeberth-scale-out-leases-{group}"

    def _ours(self, obj: dict[str, Any]) -> bool:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return isinstance(labels, dict) and labels.get(GROUP_LABEL) == self.group

    @property
    def path(self) -> str:
        return self.informer.resource.path

    def emit(self, event: ClusterEvent) -> None:
        if event.type == "SYNCED":
            return
        obj = event.obj
        name = (obj.get("metadata") or {}).get("name") or ""
        with self._lock:
            if event.type == "DELETED":
                self._objects.pop(name, None)
            else:
                self._remember(name, obj)
        for listener in self.listeners:
            listener(event.type, obj)

    def _remember(self, name: str, obj: dict[str, Any]) -> None:
        old = self._objects.get(name)
        if old is None or resource_version(obj) >= resource_version(old):
            self._objects[name] = obj

    def put(self, obj: dict[str, Any]) -> None:
        """What one of our own writes returned: newer than the watch may have delivered yet."""
        name = (obj.get("metadata") or {}).get("name") or ""
        with self._lock:
            self._remember(name, obj)

    def forget(self, name: str) -> None:
        with self._lock:
            self._objects.pop(name, None)

    def get(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            return self._objects.get(name)

    def with_role(self, role: str) -> list[dict[str, Any]]:
        with self._lock:
            objs = list(self._objects.values())
        return [o for o in objs if ((o.get("metadata") or {}).get("labels") or {}).get(ROLE_LABEL) == role]

    @property
    def synced(self) -> threading.Event:
        return self.informer.synced

    def start(self) -> None:
        self.informer.start()

    def stop(self) -> None:
        self.stopping.set()
        self.informer.interrupt()
        self.informer.join(5)

"""The embedded, in-memory cluster: the simulator's and fast tests' backend.

Behaves like an API server as far as the scheduler can tell: objects are listed then watched,
bindings set spec.nodeName (Conflict if already bound), deletes emit DELETED. Objects handed to
the scheduler are never mutated afterwards (writes copy), so the loop may keep references.

Two things a real cluster does around the scheduler are modelled because they change where pods
land: the Priority admission plugin (spec.priority from priorityClassName or the globalDefault
class) and graceful termination of bound pods (deletionTimestamp now, removal once
terminationGracePeriodSeconds have passed on the backend's clock, as the kubelet would), so a
preemptor sees its victims' resources in use until they are gone, as kube-scheduler does.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import datetime
import heapq
import logging
import secrets
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..api.status import Code, Status
from ..cache.podinfo import PodInfo
from ..cache.shapes import section
from . import claim_controller
from .base import WATCHED_KINDS, Backend, ClusterEvent, EventSink, ObjectRef, PodGone

log = logging.getLogger(__name__)

_UID_NAMESPACE = uuid.UUID("6b8f3c1e-1d1a-4c9e-9a57-0c5e1f6b2a10")
DEFAULT_TERMINATION_GRACE_SECONDS = 30  # the API server's default for spec.terminationGracePeriodSeconds
# PriorityClasses every cluster has (pkg/apis/scheduling: SystemCriticalPriority and above).
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}


_FIRST = {"PriorityClass": 0, "ResourceClaimTemplate": 1}
CLUSTER_SCOPED = (
    "Node", "PersistentVolume", "StorageClass", "Namespace", "CSINode", "PriorityClass", "VolumeAttachment", "CSIDriver",
    "DeviceClass", "ResourceSlice", "DeviceTaintRule",
)
_STATUS_SUBRESOURCE = ("ResourceClaim",)  # kinds whose status is written only through .../status


def _key(kind: str, obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    if kind in CLUSTER_SCOPED:
        return str(meta.get("name"))
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


class EmbeddedCluster(Backend):
    """A thread-safe in-memory object store with watch semantics."""

    def __init__(self, objects: Iterable[dict[str, Any]] = (), clock: Callable[[], float] | None = None) -> None:
        """`clock` drives graceful termination (the simulator passes its virtual clock's `now`)."""
        self._lock = threading.RLock()
        self.store: dict[str, dict[str, dict[str, Any]]] = {}
        self._sink: EventSink | None = None
        self._lagging: list[ClusterEvent] | None = None
        self.events: list[dict[str, Any]] = []
        self.event_counts: Counter[tuple[str, str, str]] = Counter()
        self.bind_count = 0
        self.bind_conflicts = 0  # binds of a pod already bound: a pod scheduled twice
        self.nominations_written = 0  # status.nominatedNodeName writes of binding cycles
        self.bind_listeners: list[Callable[[dict[str, Any]], None]] = []  # called with each bound pod
        self.clock = clock or time.monotonic
        self._epoch = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=self.clock())
        self._terminating: list[tuple[float, str, str]] = []  # heap of (removal time, pod key, uid)
        self.unknown_priority_classes: Counter[str] = Counter()
        # metadata.generateName's suffix, as the API server's SimpleNameGenerator (tests may pin it).
        self.generate_name: Callable[[str], str] = _generate_name
        objects = list(objects)
        # PriorityClasses first, as they exist before the pods that admission resolves against;
        # claim templates next, so pods naming them get their claims at once.
        for obj in sorted(objects, key=lambda o: _FIRST.get(str(o.get("kind")), 2)):
            self.apply(obj)

    # ---- object store ------------------------------------------------------------------
    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create or replace an object (kind from the manifest); emits ADDED/MODIFIED when watched."""
        kind = obj.get("kind") or ""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        if not isinstance(meta, dict):  # an API server refuses it too: there is no name to store it under
            raise ValueError(f"{kind or 'object'}: metadata: expected a mapping, got {type(meta).__name__}")
        if kind == "Pod":
            meta.setdefault("namespace", "default")
            self._admit_priority(obj)
        elif kind == "Node" and isinstance(meta.get("name"), str):
            # The kubelet registers its node with this label; the scheduler reads it, never invents it.
            labels = meta.get("labels")
            if labels is None:
                labels = meta["labels"] = {}
            if isinstance(labels, dict):
                labels.setdefault("kubernetes.io/hostname", meta["name"])
        if kind in ("ResourceClaim", "ResourceClaimTemplate"):
            meta.setdefault("namespace", "default")
        if not meta.get("uid"):
            meta["uid"] = str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{_key(kind, obj)}"))
        with self._lock:
            if kind == "Pod":
                claim_controller.generate_claims(self, obj)
            bucket = self.store.setdefault(kind, {})
            key = _key(kind, obj)
            typ = "MODIFIED" if key in bucket else "ADDED"
            bucket[key] = obj
            self._emit(kind, typ, obj)
            if kind == "ResourceClaimTemplate":
                claim_controller.template_added(self, obj)
        return obj

    def delete(self, kind: str, key: str) -> dict[str, Any] | None:
        with self._lock:
            obj = self.store.get(kind, {}).pop(key, None)
            if obj is not None:
                self._emit(kind, "DELETED", obj)
                if kind == "Pod":
                    claim_controller.pod_removed(self, obj)
            return obj

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self.store.get(kind, {}).get(key)

    def list(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.store.get(kind, {}).values())

    def _admit_priority(self, pod: dict[str, Any]) -> None:
        """The Priority admission plugin: spec.priority (and preemptionPolicy) from the pod's
        priorityClassName, or from the globalDefault class when it names none."""
        spec = pod.get("spec")
        if not isinstance(spec, dict) or spec.get("priority") is not None:
            return  # set already, or malformed (the scheduler reports that)
        name = spec.get("priorityClassName") or ""
        classes = self.store.get("PriorityClass", {})
        if name:
            pc = classes.get(name)
            if pc is None:
                if name in SYSTEM_PRIORITY_CLASSES:
                    spec["priority"] = SYSTEM_PRIORITY_CLASSES[name]
                else:
                    self.unknown_priority_classes[name] += 1  # the API server would refuse the pod
                return
        else:
            pc = next((c for c in classes.values() if c.get("globalDefault")), None)
            if pc is None:
                return
            spec["priorityClassName"] = pc["metadata"]["name"]
        try:
            spec["priority"] = int(pc.get("value") or 0)
        except (TypeError, ValueError):
            return  # a malformed PriorityClass: the API server would not have stored it
        if pc.get("preemptionPolicy") and not spec.get("preemptionPolicy"):
            spec["preemptionPolicy"] = pc["preemptionPolicy"]

    def _emit(self, kind: str, typ: str, obj: dict[str, Any]) -> None:
        if self._lagging is not None:
            self._lagging.append(ClusterEvent(kind, typ, obj))
        elif self._sink is not None:
            self._sink(ClusterEvent(kind, typ, obj))

    @contextlib.contextmanager
    def watch_lag(self) -> Iterator[None]:
        """Hold watch events back until the block ends, as a slow informer would: writes take
        effect in the store at once while the scheduler still sees the old state (fault tests)."""
        with self._lock:
            self._lagging = []
        try:
            yield
        finally:
            with self._lock:
                held, self._lagging = self._lagging, None
                for event in held:
                    self._emit(event.kind, event.type, event.obj)

    # ---- Backend -----------------------------------------------------------------------
    def start(self, sink: EventSink) -> None:
        with self._lock:
            self._sink = sink
            kinds = ["Namespace", "Node", *(k for k in WATCHED_KINDS if k not in ("Namespace", "Node", "Pod"))]
            kinds += [k for k in self.store if k not in kinds and k != "Pod"]
            for kind in kinds:
                for obj in self.store.get(kind, {}).values():
                    sink(ClusterEvent(kind, "ADDED", obj))
                sink(ClusterEvent(kind, "SYNCED", {}))
            pods = list(self.store.get("Pod", {}).values())
            pods.sort(key=lambda p: not section(p, "spec").get("nodeName"))  # placed pods first
            for obj in pods:
                sink(ClusterEvent("Pod", "ADDED", obj))
            sink(ClusterEvent("Pod", "SYNCED", {}))

    def stop(self, flush_timeout: float = 0.0) -> None:
        with self._lock:
            self._sink = None

    def resync_pending_pods(self) -> None:
        """Deliver every unbound pod again (a new profile may now want pods it used to ignore)."""
        with self._lock:
            for obj in self.store.get("Pod", {}).values():
                if not section(obj, "spec").get("nodeName"):
                    self._emit("Pod", "MODIFIED", obj)

    def _replace_pod(self, pod: PodInfo, change: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        key = f"{pod.namespace}/{pod.name}"
        current = self.store.get("Pod", {}).get(key)
        if current is None or (current.get("metadata") or {}).get("uid") != pod.uid:
            return None, f'pods "{pod.name}" not found'
        new = dict(current)
        for part, values in change.items():
            merged = dict(new.get(part) or {})
            merged.update(values)
            new[part] = merged
        return new, ""

    def bind(self, pod: PodInfo, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        with self._lock:
            if node_name not in self.store.get("Node", {}):
                return Status.error(f'nodes "{node_name}" not found')
            key = f"{pod.namespace}/{pod.name}"
            current = self.store.get("Pod", {}).get(key)
            if current is not None and section(current, "spec").get("nodeName"):
                self.bind_conflicts += 1
                return Status.error(f'Operation cannot be fulfilled on pods/binding "{pod.name}": pod {pod.name} is already assigned to node "{current["spec"]["nodeName"]}"')
            change: dict[str, Any] = {"spec": {"nodeName": node_name}}
            if annotations and current is not None:  # kube-apiserver's binding sets the Binding's annotations on the pod
                merged = {**(section(current, "metadata").get("annotations") or {}), **annotations}
                change["metadata"] = {"annotations": merged}
            new, err = self._replace_pod(pod, change)
            if new is None:
                return Status.error(err, err=PodGone(pod.key))
            status = dict(new.get("status") or {})
            conditions = [c for c in status.get("conditions") or () if c.get("type") != "PodScheduled"]
            conditions.append({"type": "PodScheduled", "status": "True"})
            status["conditions"] = conditions
            status.pop("nominatedNodeName", None)  # kube-apiserver's ClearingNominatedNodeNameAfterBinding (on by default)
            new["status"] = status
            self.store["Pod"][key] = new
            self.bind_count += 1
            self._emit("Pod", "MODIFIED", new)
            for listener in self.bind_listeners:
                listener(new)
        return Status.success()

    def record_event(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        with self._lock:
            k = (pod.key, reason, message)
            if not self.event_counts[k]:
                self.events.append(
                    {"type": event_type, "reason": reason, "regarding": pod.key, "note": message}
                )
            self.event_counts[k] += 1

    def record_object_event(self, ref: ObjectRef, event_type: str, reason: str, message: str) -> None:
        """Kept in the same list, `regarding` naming the kind (a Lease has no pod key)."""
        with self._lock:
            self.events.append({"type": event_type, "reason": reason, "regarding": f"{ref.kind} {ref.key}",
                                "action": ref.action, "note": message})

    def patch_pod_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        with self._lock:
            new, _ = self._replace_pod(pod, {})
            if new is None:
                return
            status = dict(new.get("status") or {})
            # Stored conditions that are not a list of mappings (a malformed object) are replaced.
            old = status.get("conditions")
            old = [c for c in old if isinstance(c, dict)] if isinstance(old, list) else []
            conditions = [c for c in old if c.get("type") != condition["type"]]
            if any(c == condition for c in old):
                return  # unchanged: no write, no event (as a real apiserver no-op patch)
            conditions.append(dict(condition))
            status["conditions"] = conditions
            new["status"] = status
            self.store["Pod"][f"{pod.namespace}/{pod.name}"] = new
            self._emit("Pod", "MODIFIED", new)

    def mark_disruption_target(self, pod: PodInfo, condition: dict[str, Any]) -> Status:
        with self._lock:
            if self._replace_pod(pod, {})[0] is None:
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))
            self.patch_pod_condition(pod, condition)
        return Status.success()

    def set_nominated_node(self, pod: PodInfo, node_name: str | None) -> None:
        with self._lock:
            new, _ = self._replace_pod(pod, {"status": {"nominatedNodeName": node_name or ""}})
            if new is not None:
                self.store["Pod"][f"{pod.namespace}/{pod.name}"] = new
                self._emit("Pod", "MODIFIED", new)

    def write_nominated_node(self, pod: PodInfo, node_name: str) -> Status:
        with self._lock:
            new, err = self._replace_pod(pod, {"status": {"nominatedNodeName": node_name}})
            if new is None:
                return Status.error(err, err=PodGone(pod.key))
            self.store["Pod"][f"{pod.namespace}/{pod.name}"] = new
            self.nominations_written += 1
            self._emit("Pod", "MODIFIED", new)
        return Status.success()

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        found = self.get(kind, key)
        return copy.deepcopy(found) if found is not None else None

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        with self._lock:
            key = _key(kind, obj)
            current = self.get(kind, key)
            if current is None:
                return Status.error(f'{kind} "{key}" not found')
            wanted = (obj.get("metadata") or {}).get("resourceVersion")
            have = (current.get("metadata") or {}).get("resourceVersion")
            if wanted is not None and wanted != have:
                return Status.error(f'{kind} "{key}": the object has been modified; please apply your changes to the latest version')
            if subresource == "status":  # only the status changes, as PUT .../status
                obj = {**copy.deepcopy(current), "status": copy.deepcopy(obj.get("status") or {})}
            elif subresource:
                return Status.error(f"{kind} has no {subresource} subresource here")
            elif kind in _STATUS_SUBRESOURCE:  # the main resource ignores status changes
                obj = {**copy.deepcopy(obj), "status": copy.deepcopy(current.get("status") or {})}
            obj = copy.deepcopy(obj)
            obj.setdefault("kind", kind)
            self._stamp(obj)
            self.apply(obj)
            if kind == "PersistentVolume":
                self._pv_controller(obj)
        return Status.success()

    def patch_object(self, kind: str, key: str, patch: dict[str, Any], subresource: str = "") -> Status:
        with self._lock:
            current = self.get(kind, key)
            if current is None:
                return Status.error(f'{kind} "{key}" not found')
            if subresource == "status":  # only the status changes, as PATCH .../status
                patch = {"status": patch.get("status")} if "status" in patch else {}
            elif subresource:
                return Status.error(f"{kind} has no {subresource} subresource here")
            obj = _merge_patch(copy.deepcopy(current), patch)
            self._stamp(obj)
            self.apply(obj)
            if kind == "PersistentVolumeClaim":
                self._provisioner(obj)
        return Status.success()

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        """POST: a new object (AlreadyExists when the name is taken); an empty name with
        metadata.generateName gets `generate_name(generateName)`; uid, resourceVersion and
        creationTimestamp are the API server's to set. The created object reaches the watch."""
        obj = copy.deepcopy(obj)
        obj["kind"] = kind
        meta = obj.setdefault("metadata", {})
        if meta.get("uid") or meta.get("resourceVersion"):
            return Status.error(f"{kind}: metadata.uid and metadata.resourceVersion must not be set on create"), None
        with self._lock:
            if not meta.get("name"):
                base = meta.get("generateName")
                if not base:
                    return Status.error(f"{kind}: metadata.name or metadata.generateName is required"), None
                meta["name"] = self.generate_name(str(base))
            if kind not in CLUSTER_SCOPED:
                meta.setdefault("namespace", "default")
            key = _key(kind, obj)
            if key in self.store.get(kind, {}):
                return Status.error(f'{kind} "{key}" already exists'), None
            meta["uid"] = str(uuid.uuid4())
            meta["creationTimestamp"] = self._timestamp(self.clock())
            meta["resourceVersion"] = "1"
            created = self.apply(obj)
        return Status.success(), copy.deepcopy(created)

    def delete_object(self, kind: str, key: str) -> Status:
        """DELETE: the object goes at once (an object with finalizers left would linger in a real
        cluster; the embedded cluster's owners remove theirs first). Already gone is a success."""
        with self._lock:
            self.delete(kind, key)
        return Status.success()

    def _provisioner(self, pvc: dict[str, Any]) -> None:
        """The embedded cluster is its own provisioner too: a claim given a selected node gets a
        PV of its size and class, bound at once (a real provisioner creates it, the PV
        controller binds it; VolumeBinding's PreBind waits for both)."""
        meta = pvc.get("metadata") or {}
        spec = pvc.get("spec") or {}
        node = (meta.get("annotations") or {}).get("volume.kubernetes.io/selected-node")
        if not node or spec.get("volumeName"):
            return
        name = f"pvc-{meta.get('uid') or uuid.uuid5(_UID_NAMESPACE, str(meta.get('name')))}"
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
        pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
              "spec": {"capacity": {"storage": storage}, "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                       "storageClassName": spec.get("storageClassName") or "",
                       "persistentVolumeReclaimPolicy": "Delete",
                       "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                                    "namespace": meta.get("namespace") or "default", "name": meta.get("name"),
                                    "uid": meta.get("uid") or ""}}}
        self.apply(pv)
        self._pv_controller(self.get("PersistentVolume", name) or pv)

    def _stamp(self, obj: dict[str, Any]) -> None:
        meta = obj.setdefault("metadata", {})
        meta["resourceVersion"] = str(int(meta.get("resourceVersion") or 0) + 1)

    def _pv_controller(self, pv: dict[str, Any]) -> None:
        """The embedded cluster is its own PV controller: a PV given a claimRef binds at once."""
        ref = (pv.get("spec") or {}).get("claimRef") or {}
        if not ref or (pv.get("status") or {}).get("phase") == "Bound":
            return
        claim_key = f"{ref.get('namespace') or 'default'}/{ref.get('name')}"
        pvc = self.get("PersistentVolumeClaim", claim_key)
        if pvc is None:
            return
        pv = copy.deepcopy(pv)
        pv.setdefault("status", {})["phase"] = "Bound"
        pvc = copy.deepcopy(pvc)
        pvc.setdefault("spec", {})["volumeName"] = (pv.get("metadata") or {}).get("name")
        pvc.setdefault("status", {})["phase"] = "Bound"
        pvc.setdefault("metadata", {}).setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
        self.apply(pv)
        self.apply(pvc)

    def delete_pod(self, pod: PodInfo, reason: str) -> Status:
        """Graceful deletion: a bound pod gets deletionTimestamp and stays (and keeps its node's
        resources) until its grace period has passed on the clock; others go at once."""
        key = f"{pod.namespace}/{pod.name}"
        with self._lock:
            current = self.store.get("Pod", {}).get(key)
            if current is None:
                return Status.error(f'pods "{pod.name}" not found')
            meta = current.get("metadata") or {}
            if meta.get("deletionTimestamp"):
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))  # already terminating
            spec = current.get("spec") or {}
            grace = spec.get("terminationGracePeriodSeconds")
            grace = max(0, int(grace)) if isinstance(grace, int) else DEFAULT_TERMINATION_GRACE_SECONDS
            if not spec.get("nodeName") or grace == 0:
                self.delete("Pod", key)
                return Status.success()
            now = self.clock()
            new = dict(current)
            new["metadata"] = {
                **meta,
                "deletionTimestamp": self._timestamp(now + grace),
                "deletionGracePeriodSeconds": grace,
            }
            self.store["Pod"][key] = new
            heapq.heappush(self._terminating, (now + grace, key, str(meta.get("uid"))))
            self._emit("Pod", "MODIFIED", new)
        log.debug("terminating %s (%s), removal in %ss", key, reason, grace)
        return Status.success()

    def _timestamp(self, t: float) -> str:
        return (self._epoch + datetime.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def next_timer(self) -> float | None:
        with self._lock:
            return self._terminating[0][0] if self._terminating else None

    def fire_timers(self, now: float) -> int:
        """Remove terminating pods whose grace period has passed (the kubelet's final delete)."""
        removed = 0
        with self._lock:
            while self._terminating and self._terminating[0][0] <= now:
                _due, key, uid = heapq.heappop(self._terminating)
                current = self.store.get("Pod", {}).get(key)
                if current is not None and str((current.get("metadata") or {}).get("uid")) == uid:
                    self.delete("Pod", key)
                    removed += 1
        return removed

    def terminating(self) -> builtins.list[dict[str, Any]]:
        """Pods with a deletionTimestamp that are still there."""
        return [p for p in self.pods() if (p.get("metadata") or {}).get("deletionTimestamp")]

    def pods(self) -> builtins.list[dict[str, Any]]:
        return self.list("Pod")


_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand's alphanums


def _generate_name(base: str) -> str:
    """names.SimpleNameGenerator: the base (cut to 58 characters) plus five random characters."""
    return base[:58] + "".join(secrets.choice(_NAME_ALPHABET) for _ in range(5))


def _merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: None deletes a key, mappings merge, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge_patch(target.get(key), value)
    return target

"""The Kubernetes backend: informers on raw JSON, binding, events and status writes over the real API.

Objects are read with the official client's transport (auth, TLS, token refresh) but never turned
into its generated models: responses are read unparsed and decoded with orjson (DESIGN property 1).
Each watched kind has one informer thread (list, then watch from the list's resourceVersion with
bookmarks; relist on 410 Gone; reconnect with capped exponential backoff and jitter; a periodic
relist that emits only differences). Pods come from one informer over every non-terminal pod, as
kube-scheduler does: a pod moving from "unassigned" to "assigned" must arrive as one ordered update,
which two field-selected watches cannot guarantee. Unassigned pods of other schedulers are dropped
before they reach the scheduling loop.

Writes the scheduling loop makes (events, PodScheduled condition, nominatedNodeName) go to
background writer threads, so the loop never waits on HTTP; bind and victim deletion are
synchronous because they run in binding workers / need a result. Every request except the watch
stream itself passes a client-side token bucket (clientConnection qps/burst). Events have a client
of their own (connection pool and token bucket of the same qps/burst), as kube-scheduler's event
broadcaster has its own clientset: they neither wait behind binds nor hold binds up.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ...api.capabilities import custom_resource as gvk_of
from ...api.status import Code, Status
from ...cache.podinfo import PodInfo
from ..base import (
    OPTIONAL_KINDS,
    WATCHED_KINDS,
    Backend,
    BackendUnavailable,
    ClusterEvent,
    EventSink,
    ObjectRef,
    PodGone,
)
from .client import ApiError, RawClient, TokenBucket, WriteStats, rfc3339, separate_pool
from .events import EventRecorder
from .informer import LIST_ORDER, RESOURCES, Informer, Resource, custom_resource, object_path
from .liveness import LivenessProbe, sentinel_client
from .status import StatusWriter

log = logging.getLogger(__name__)


# Requests on the scheduler's connection pool besides the watches and the binding workers: the status
# writer, asynchronous preemption, plugins' reads and writes through the Handle.
POOL_HEADROOM = 8


def connection_pool_size(binding_workers: int) -> int:
    """Connections the scheduler's client may hold at once: one per watch (each informer keeps its
    stream open), one per binding worker, and headroom. A smaller urllib3 pool opens a connection
    (and TLS handshake) for every request past it and discards it after ("Connection pool is full")."""
    watches = len(WATCHED_KINDS) + sum(len(kinds) for kinds in OPTIONAL_KINDS.values())
    return watches + binding_workers + POOL_HEADROOM


def _resources(kinds: Iterable[str]) -> list[Resource]:
    """The informer resources of `kinds`: built-in kinds in LIST_ORDER, then the custom resources
    ('<plural>.<version>.<group>') in the order given."""
    wanted = list(dict.fromkeys(kinds))
    builtin = [RESOURCES[k] for k in LIST_ORDER if k in wanted]
    return builtin + [custom_resource(k) for k in wanted if k not in RESOURCES and gvk_of(k) == k]


class KubernetesBackend(Backend):
    """A real cluster through kube-apiserver."""

    def __init__(
        self,
        api_client: Any,
        scheduler_names: Iterable[str],
        qps: float = 50.0,
        burst: int = 100,
        kinds: Iterable[str] = WATCHED_KINDS,
        resync_period: float = 1800.0,
        watch_timeout: float = 300.0,
        backoff_initial: float = 0.8,
        backoff_max: float = 30.0,
        reporting_instance: str | None = None,
        event_workers: int = 16,
        liveness: tuple[float, float, int] = (5.0, 10.0, 2),
    ) -> None:
        """`liveness` is the connection probe's (interval, timeout, failures); interval 0 turns it off."""
        self.raw = RawClient(api_client, TokenBucket(qps, burst))
        self.events_raw = RawClient(separate_pool(api_client), TokenBucket(qps, burst))
        self.scheduler_names = frozenset(scheduler_names)
        self.resync_period = resync_period
        self.watch_timeout = max(1.0, watch_timeout)
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.host = reporting_instance or socket.gethostname()
        self.stopping = threading.Event()
        # Cleared while we are not the leader: binds are refused so a deposed leader stops at once.
        self.writes_allowed = threading.Event()
        self.writes_allowed.set()
        self._sink: EventSink | None = None
        self.informers: dict[str, Informer] = {}
        for resource in _resources(kinds):
            self.informers[resource.kind] = Informer(self, resource, self._accept_pod if resource.kind == "Pod" else None)
        self._bootstrap: threading.Thread | None = None
        self.write_stats = WriteStats()
        self.events = EventRecorder(self.events_raw, self.write_stats, self.host, workers=event_workers)
        self.status = StatusWriter(self.raw, self.write_stats, self.stopping)
        self._writers: list[threading.Thread] = []
        self._liveness_settings = liveness
        self._sentinel = sentinel_client(api_client) if liveness[0] > 0 else None
        self.liveness: LivenessProbe | None = None
        # victim uid -> the resourceVersion its DisruptionTarget patch answered (the delete's precondition)
        self._marked_versions: dict[str, str] = {}

    @property
    def stats(self) -> dict[str, int]:
        return self.write_stats.counts

    # ---- reading -----------------------------------------------------------------------
    def _accept_pod(self, obj: dict[str, Any]) -> bool:
        spec = obj.get("spec") or {}
        if not isinstance(spec, dict):
            return True  # unreadable: the scheduling loop reports it (and skips it)
        return bool(spec.get("nodeName")) or spec.get("schedulerName", "default-scheduler") in self.scheduler_names

    def emit(self, event: ClusterEvent) -> None:
        sink = self._sink
        if sink is not None:
            sink(event)

    def start(self, sink: EventSink) -> None:
        self._sink = sink
        self.stopping.clear()
        self.events.start()
        t = threading.Thread(target=self.status.run, name="kubeberth-status-writer", daemon=True)
        t.start()
        self._writers.append(t)
        self._bootstrap = threading.Thread(target=self._start_informers, name="kubeberth-informers", daemon=True)
        self._bootstrap.start()
        if self._sentinel is not None and (self.liveness is None or not self.liveness.is_alive()):
            interval, timeout, failures = self._liveness_settings
            self.liveness = LivenessProbe(self._sentinel, self.stopping, self.replace_connections,
                                          interval=interval, timeout=timeout, failures=failures)
            self.liveness.start()

    def replace_connections(self, reason: str) -> None:
        """The connection path is dead (liveness probe): close every watch stream and idle pooled
        connection; each informer resumes from its resourceVersion over a new connection."""
        closed = sum(inf.interrupt() for inf in self.informers.values())
        log.warning("API connection declared dead (%s): closed %d watch streams and the idle connections; "
                    "informers resume from their resourceVersion", reason, closed)
        for raw in (self.raw, self.events_raw):
            raw.replace_connections()

    def _start_informers(self) -> None:
        """Start every informer at once, so their initial lists (a round trip, and a TLS handshake
        on a connection of its own, for each of some twenty kinds) are fetched in parallel; each
        emits its list only after the one before it in LIST_ORDER has emitted its own, so the
        scheduler still learns of nodes before pods, and of PodGroups before their members."""
        informers = [inf for inf in self.informers.values() if not inf.resource.custom]
        for before, inf in zip([None, *informers], informers, strict=False):
            inf.after = before.listed if before is not None else None
        for inf in self.informers.values():
            inf.start()

    def watch_kinds(self, kinds: Iterable[str]) -> list[str]:
        """Start informers for kinds not watched yet (a reload enabled a plugin that reads them,
        e.g. GangScheduling's PodGroups, or a custom resource a plugin registered events of); returns
        the kinds added. Kinds no longer needed keep being watched: a later reload may need them
        again, and their objects are few."""
        added = [r for r in _resources(kinds) if r.kind not in self.informers]
        for resource in added:
            informer = Informer(self, resource, self._accept_pod if resource.kind == "Pod" else None)
            self.informers[resource.kind] = informer
            if self._sink is not None and not self.stopping.is_set():
                informer.start()
        if added:
            log.info("now watching %s for the new generation's plugins", ", ".join(r.kind for r in added))
        return [r.kind for r in added]

    def ready(self) -> bool:
        """Every informer synced; a custom resource's only once it can be listed (not served or
        forbidden, it is retried without holding readiness)."""
        return all(inf.settled for inf in self.informers.values())

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready():
                return True
            time.sleep(0.05)
        return self.ready()

    def flush(self, timeout: float, events: bool = True) -> bool:
        """Wait up to `timeout` seconds for queued status writes (and events) to be sent."""
        deadline = time.monotonic() + timeout
        while not (self.status.pending.empty() and (not events or self.events.idle())):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def discard_status_writes(self) -> int:
        """Drop queued condition and nomination writes: they speak for the leader, and whoever
        leads next writes its own. Events, records of what happened, are still sent."""
        return self.status.discard()

    def stop(self, flush_timeout: float = 5.0) -> None:
        """Stop informers; give the writers up to `flush_timeout` to send what is queued. Events
        not written by then (still queued, or failed) are counted in stats["events_dropped"]."""
        self.events.close(flush_timeout)
        self.flush(flush_timeout)
        self.stopping.set()
        if not self.events.join():
            log.warning("an event writer was still busy after the flush deadline")
        self._sink = None
        for inf in self.informers.values():
            inf.interrupt()
        if self.liveness is not None:  # waiting between probes it ends at once; a probe in flight is bounded
            self.liveness.join(flush_timeout)

    # ---- writes --------------------------------------------------------------------------
    def bind(self, pod: PodInfo, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        if not self.writes_allowed.is_set():
            return Status.error("not the leader: binding refused", err=BackendUnavailable("not the leader"))
        meta: dict[str, Any] = {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid}
        if annotations:
            meta["annotations"] = dict(annotations)
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": meta,
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
        }
        try:
            self.raw.request("POST", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/binding", body=body)
        except ApiError as exc:
            if exc.status in (404, 409):
                self.write_stats.add("bind_conflicts")
            if exc.status == 404:
                log.info("binding %s to %s: the pod no longer exists", pod.key, node_name)
                return Status.error(f"binding rejected: {exc.message}", err=PodGone(pod.key))
            log.info("binding %s to %s failed: %s", pod.key, node_name, exc)
            unavailable = BackendUnavailable(exc.message) if exc.status in (0, 429) or exc.status >= 500 else None
            return Status.error(f"binding rejected: {exc.message}" if exc.status else f"binding failed: {exc.message}",
                                err=unavailable)
        self.write_stats.add("binds")
        log.info("bound %s (%s) to %s", pod.key, pod.uid, node_name)
        return Status.success()

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        try:
            return self.raw.request("GET", object_path(kind, key))
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        if not self.writes_allowed.is_set():
            return Status.error(f"not the leader: {kind} update refused")
        meta = obj.get("metadata") or {}
        key = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta.get("name"))
        path = object_path(kind, key) + (f"/{subresource}" if subresource else "")
        try:
            self.raw.request("PUT", path, body=obj)  # metadata.resourceVersion guards races
        except ApiError as exc:
            return Status.error(f"updating {kind} {key}{' ' + subresource if subresource else ''}: {exc.message}")
        log.info("updated %s %s%s", kind, key, f" ({subresource})" if subresource else "")
        return Status.success()

    def patch_object(self, kind: str, key: str, patch: dict[str, Any], subresource: str = "") -> Status:
        if not self.writes_allowed.is_set():
            return Status.error(f"not the leader: {kind} patch refused")
        path = object_path(kind, key) + (f"/{subresource}" if subresource else "")
        try:
            self.raw.request("PATCH", path, body=patch, content_type="application/merge-patch+json")
        except ApiError as exc:
            return Status.error(f"patching {kind} {key}{' ' + subresource if subresource else ''}: {exc.message}")
        log.info("patched %s %s%s", kind, key, f" ({subresource})" if subresource else "")
        return Status.success()

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        if not self.writes_allowed.is_set():
            return Status.error(f"not the leader: {kind} create refused"), None
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") or ""
        path = object_path(kind, f"{namespace}/_").rsplit("/", 1)[0] if namespace else object_path(kind, "_").rsplit("/", 1)[0]
        try:
            created = self.raw.request("POST", path, body=obj)
        except ApiError as exc:
            return Status.error(f"creating {kind} {namespace + '/' if namespace else ''}{meta.get('name') or meta.get('generateName', '')}: {exc.message}"), None
        log.info("created %s %s", kind, (created.get("metadata") or {}).get("name"))
        return Status.success(), created

    def delete_object(self, kind: str, key: str) -> Status:
        if not self.writes_allowed.is_set():
            return Status.error(f"not the leader: {kind} delete refused")
        try:
            self.raw.request("DELETE", object_path(kind, key))
        except ApiError as exc:
            if exc.status == 404:
                return Status.success()
            return Status.error(f"deleting {kind} {key}: {exc.message}")
        log.info("deleted %s %s", kind, key)
        return Status.success()

    def delete_pod(self, pod: PodInfo, reason: str) -> Status:
        """A victim's graceful delete. After this backend's DisruptionTarget patch the delete is
        conditional on the version the patch answered: another replica that patched the same victim
        meanwhile, and deletes it, makes this delete a conflict, so one preemption deletes and reports
        it. A victim gone, or found being deleted, is a success with PodGone as its `err` (no event)."""
        version = self._marked_versions.pop(pod.uid, None)
        preconditions = {"uid": pod.uid} if version is None else {"uid": pod.uid, "resourceVersion": version}
        try:
            self._delete(pod, preconditions)
        except ApiError as exc:
            if exc.status == 404:
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))
            if exc.status != 409 or version is None:
                return Status.error(f"deleting victim {pod.key}: {exc.message}")
            return self._delete_unless_deleting(pod, reason)
        log.info("deleted %s: %s", pod.key, reason)
        return Status.success()

    def _delete_unless_deleting(self, pod: PodInfo, reason: str) -> Status:
        """The victim changed since its DisruptionTarget patch: left alone when it is being deleted
        (another deletion reports it), else deleted after all."""
        try:
            current = self.raw.request("GET", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}")
            if (current.get("metadata") or {}).get("deletionTimestamp"):
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))
            self._delete(pod, {"uid": pod.uid})
        except ApiError as exc:
            if exc.status == 404:
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))
            return Status.error(f"deleting victim {pod.key}: {exc.message}")
        log.info("deleted %s: %s", pod.key, reason)
        return Status.success()

    def _delete(self, pod: PodInfo, preconditions: dict[str, str]) -> None:
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": preconditions}
        self.raw.request("DELETE", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}", body=body)

    def record_event(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        self.events.record(pod, event_type, reason, message)

    def record_object_event(self, ref: ObjectRef, event_type: str, reason: str, message: str) -> None:
        self.events.record(ref, event_type, reason, message)

    def patch_pod_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        self.status.enqueue("condition", pod, condition)

    def patch_pod_status(self, pod: PodInfo, condition: dict[str, Any], nominated: str | None = None) -> None:
        """updatePod: the condition and the nomination in one PATCH of pods/status (queued)."""
        self.status.enqueue("status", pod, (condition, nominated))

    def mark_disruption_target(self, pod: PodInfo, condition: dict[str, Any]) -> Status:
        """A synchronous status patch (the delete that follows must not overtake it)."""
        current = next((c for c in (pod.raw.get("status") or {}).get("conditions") or ()
                        if c.get("type") == condition["type"]), None)
        if current is not None and all(current.get(k) == v for k, v in condition.items()):
            return Status.success()  # apipod.UpdatePodCondition: unchanged, no write
        cond = {**condition, "lastProbeTime": None}
        if current is not None and current.get("status") == cond.get("status") and current.get("lastTransitionTime"):
            cond["lastTransitionTime"] = current["lastTransitionTime"]
        else:
            cond["lastTransitionTime"] = rfc3339()
        body = {"metadata": {"uid": pod.uid}, "status": {"conditions": [cond]}}
        try:
            patched = self.raw.request("PATCH", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status",
                                       body=body, content_type="application/strategic-merge-patch+json")
        except ApiError as exc:
            if exc.status == 404:
                return Status(Code.SUCCESS, (), "", PodGone(pod.key))
            return Status.error(f"adding DisruptionTarget to victim {pod.key}: {exc.message}")
        meta = (patched.get("metadata") or {}) if isinstance(patched, dict) else {}
        if meta.get("deletionTimestamp"):
            # Already being deleted (another replica's preemption, or anyone's delete since the
            # victim was chosen): nothing to delete, no second Preempted event.
            return Status(Code.SUCCESS, (), "", PodGone(pod.key))
        if meta.get("resourceVersion"):
            self._marked_versions[pod.uid] = meta["resourceVersion"]  # the delete that follows is conditional on it
        return Status.success()

    def set_nominated_node(self, pod: PodInfo, node_name: str | None) -> None:
        self.status.enqueue("nominated", pod, node_name or None)

    def write_nominated_node(self, pod: PodInfo, node_name: str) -> Status:
        """One PATCH of pods/status, waited for (kube-scheduler's updatePod in the binding cycle);
        the uid guards against a pod recreated under the same name."""
        if not self.writes_allowed.is_set():
            return Status.error("not the leader: nominatedNodeName update refused")
        body = {"metadata": {"uid": pod.uid}, "status": {"nominatedNodeName": node_name or None}}
        try:
            self.raw.request("PATCH", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status", body=body,
                             content_type="application/strategic-merge-patch+json", timeout=(5, 15))
        except ApiError as exc:
            self.write_stats.add("write_errors")
            if exc.status == 404:
                return Status.error(f"setting nominatedNodeName of {pod.key}: {exc.message}", err=PodGone(pod.key))
            return Status.error(f"setting nominatedNodeName of {pod.key}: {exc.message}")
        self.write_stats.add("status_patches")
        return Status.success()

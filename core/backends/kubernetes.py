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
stream itself passes a client-side token bucket (clientConnection qps/burst).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import queue as queue_mod
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from ..podinfo import PodInfo
from ..status import Status
from .base import WATCHED_KINDS, Backend, ClusterEvent, EventSink

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resource:
    kind: str
    path: str  # collection path across all namespaces
    field_selector: str = ""


RESOURCES: dict[str, Resource] = {
    r.kind: r
    for r in (
        Resource("Namespace", "/api/v1/namespaces"),
        Resource("Node", "/api/v1/nodes"),
        Resource("PersistentVolume", "/api/v1/persistentvolumes"),
        Resource("PersistentVolumeClaim", "/api/v1/persistentvolumeclaims"),
        Resource("StorageClass", "/apis/storage.k8s.io/v1/storageclasses"),
        Resource("CSINode", "/apis/storage.k8s.io/v1/csinodes"),
        Resource("PodDisruptionBudget", "/apis/policy/v1/poddisruptionbudgets"),
        # Terminal pods hold no resources; kube-scheduler's pod informer uses the same selector.
        Resource("Pod", "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed"),
    )
}
# Nodes before pods, so placed pods find their node and pending pods are not tried on no nodes.
LIST_ORDER = ("Namespace", "Node", "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode",
              "PodDisruptionBudget", "Pod")

PAGE_SIZE = 500


class ApiError(Exception):
    """A non-2xx answer (status 0: no answer at all)."""

    def __init__(self, status: int, reason: str, body: bytes = b"") -> None:
        self.status = status
        self.reason = reason
        self.body = body
        message = reason
        if body:
            try:
                message = str(orjson.loads(body).get("message") or reason)
            except (orjson.JSONDecodeError, AttributeError):
                message = body[:300].decode("utf-8", "replace")
        self.message = message
        super().__init__(f"{status} {message}")


class Gone(Exception):
    """The resourceVersion we watch from has been compacted away: relist."""


class TokenBucket:
    """client-go's client-side rate limiter: qps tokens per second, at most `burst` saved up."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps = float(qps)
        self.burst = max(1, int(burst))
        self._tokens = float(self.burst)
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Take one token, sleeping until one is available; returns the time waited."""
        if self.qps <= 0:
            return 0.0
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.qps)
            self._last = now
            self._tokens -= 1.0
            wait = -self._tokens / self.qps if self._tokens < 0 else 0.0
        if wait > 0:
            time.sleep(wait)
        return wait


def micro_time(t: float | None = None) -> str:
    """metav1.MicroTime as the API server writes it."""
    d = dt.datetime.fromtimestamp(time.time() if t is None else t, tz=dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rfc3339(t: float | None = None) -> str:
    d = dt.datetime.fromtimestamp(time.time() if t is None else t, tz=dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


class RawClient:
    """JSON requests through the kubernetes client's ApiClient, decoded with orjson."""

    def __init__(self, api_client: Any, limiter: TokenBucket | None = None, user_agent: str = "kubeberth") -> None:
        self.api_client = api_client
        self.limiter = limiter or TokenBucket(0, 1)
        self.user_agent = user_agent

    def _prepare(
        self, method: str, path: str, query: list[tuple[str, Any]] | None, body: Any, content_type: str | None
    ) -> tuple[str, str, dict[str, str], Any]:
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        method, url, headers, body, _ = self.api_client.param_serialize(
            method, path, query_params=query or [], header_params=headers, body=body, auth_settings=["BearerToken"]
        )
        return method, url, headers, body

    def open(
        self,
        method: str,
        path: str,
        query: list[tuple[str, Any]] | None = None,
        body: Any = None,
        content_type: str | None = None,
        timeout: float | tuple[float, float] = 30.0,
        limited: bool = True,
    ) -> Any:
        """Start a request; returns the unread urllib3 response (2xx) or raises ApiError."""
        if limited:
            self.limiter.acquire()
        method, url, headers, body = self._prepare(method, path, query, body, content_type)
        try:
            resp = self.api_client.call_api(method, url, header_params=headers, body=body, _request_timeout=timeout)
        except Exception as exc:  # connection refused/reset, TLS, timeouts: no answer
            if getattr(exc, "status", None):
                raise ApiError(int(exc.status), str(getattr(exc, "reason", "")), getattr(exc, "body", b"") or b"") from exc
            raise ApiError(0, f"{type(exc).__name__}: {exc}") from exc
        raw = resp.response
        if not 200 <= raw.status < 300:
            try:
                data = raw.data
            except Exception:  # noqa: BLE001 - body is only used for the message
                data = b""
            raw.release_conn()
            raise ApiError(raw.status, raw.reason or "", data or b"")
        return raw

    def request(self, method: str, path: str, query: list[tuple[str, Any]] | None = None, body: Any = None,
                content_type: str | None = None, timeout: float | tuple[float, float] = 30.0) -> Any:
        raw = self.open(method, path, query, body, content_type, timeout)
        try:
            data = raw.data
        except Exception as exc:
            raise ApiError(0, f"reading response: {exc}") from exc
        finally:
            raw.release_conn()
        return orjson.loads(data) if data else None


class Informer(threading.Thread):
    """List+watch one kind into the sink, with resourceVersion tracking, relist and reconnect."""

    def __init__(
        self,
        backend: KubernetesBackend,
        resource: Resource,
        accept: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        super().__init__(name=f"kubeberth-informer-{resource.kind}", daemon=True)
        self.backend = backend
        self.resource = resource
        self.accept = accept or (lambda obj: True)
        self.store: dict[str, dict[str, Any]] = {}  # uid -> last object emitted
        self.resource_version = ""
        self.synced = threading.Event()
        self.listed = threading.Event()  # first list done (watching may start)
        self.relists = 0
        self.watches = 0
        self._response: Any = None
        self._hold = threading.Event()
        self._hold.set()
        self._next_resync = 0.0

    # ---- the loop --------------------------------------------------------------------
    def run(self) -> None:
        b = self.backend
        backoff = b.backoff_initial
        while not b.stopping.is_set():
            try:
                if not self.resource_version or time.monotonic() >= self._next_resync:
                    self.relist()
                    self._schedule_resync()
                    self.listed.set()
                self._hold.wait()
                self.watch()
                backoff = b.backoff_initial
            except Gone:
                log.info("%s: resourceVersion %s expired, relisting", self.resource.kind, self.resource_version)
                self.resource_version = ""
            except ApiError as exc:
                if b.stopping.is_set():
                    return
                if exc.status == 410:
                    self.resource_version = ""
                    continue
                delay = backoff * (1 + random.random())  # full jitter on top of the base
                log.warning("%s: %s; retrying in %.1fs", self.resource.kind, exc, delay)
                b.stopping.wait(delay)
                backoff = min(backoff * 2, b.backoff_max)
            except Exception:  # noqa: BLE001 - an informer must never die
                if b.stopping.is_set():
                    return
                log.exception("%s informer failed; retrying", self.resource.kind)
                b.stopping.wait(backoff * (1 + random.random()))
                backoff = min(backoff * 2, b.backoff_max)

    def _schedule_resync(self) -> None:
        period = self.backend.resync_period
        self._next_resync = time.monotonic() + period * (1 + 0.2 * random.random()) if period > 0 else float("inf")

    def relist(self) -> None:
        """Paged consistent list; emits the differences against what was emitted before."""
        items: list[dict[str, Any]] = []
        cont = ""
        rv = ""
        while True:
            query: list[tuple[str, Any]] = [("limit", PAGE_SIZE)]
            if self.resource.field_selector:
                query.append(("fieldSelector", self.resource.field_selector))
            if cont:
                query.append(("continue", cont))
            try:
                page = self.backend.raw.request("GET", self.resource.path, query, timeout=(10, 120))
            except ApiError as exc:
                if exc.status == 410 and cont:  # continue token expired mid-list: start over
                    items, cont = [], ""
                    continue
                raise
            items.extend(page.get("items") or ())
            meta = page.get("metadata") or {}
            rv = meta.get("resourceVersion") or rv
            cont = meta.get("continue") or ""
            if not cont:
                break
        kind = self.resource.kind
        seen: set[str] = set()
        first = not self.synced.is_set()
        for obj in items:
            obj.setdefault("kind", kind)
            uid = _uid(obj)
            if not self.accept(obj):
                continue
            seen.add(uid)
            old = self.store.get(uid)
            if old is None:
                self.store[uid] = obj
                self.backend.emit(ClusterEvent(kind, "ADDED", obj))
            elif _rv(old) != _rv(obj):
                self.store[uid] = obj
                self.backend.emit(ClusterEvent(kind, "MODIFIED", obj))
        for uid in [u for u in self.store if u not in seen]:
            self.backend.emit(ClusterEvent(kind, "DELETED", self.store.pop(uid)))
        self.resource_version = rv
        self.relists += 1
        if first:
            self.backend.emit(ClusterEvent(kind, "SYNCED", {}))
            self.synced.set()
            log.info("%s: synced %d objects at resourceVersion %s", kind, len(self.store), rv)

    def watch(self) -> None:
        b = self.backend
        timeout = int(b.watch_timeout * (1 + random.random()))  # client-go: 5-10 minutes
        query: list[tuple[str, Any]] = [
            ("watch", "true"),
            ("allowWatchBookmarks", "true"),
            ("resourceVersion", self.resource_version),
            ("timeoutSeconds", timeout),
        ]
        if self.resource.field_selector:
            query.append(("fieldSelector", self.resource.field_selector))
        resp = b.raw.open("GET", self.resource.path, query, timeout=(10, timeout + 30))
        self._response = resp
        self.watches += 1
        kind = self.resource.kind
        try:
            buf = b""
            for chunk in resp.stream(65536, decode_content=True):
                if b.stopping.is_set() or not self._hold.is_set():
                    return
                buf += chunk
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        break
                    line, buf = buf[:nl], buf[nl + 1 :]
                    if line.strip():
                        self._handle(kind, orjson.loads(line))
                if time.monotonic() >= self._next_resync:
                    return
        except Gone:
            raise
        except Exception as exc:  # the stream broke: reconnect from the last resourceVersion
            if not b.stopping.is_set():
                log.info("%s: watch ended (%s: %s); reconnecting", kind, type(exc).__name__, exc)
        finally:
            self._response = None
            with contextlib.suppress(Exception):
                resp.release_conn()

    def _handle(self, kind: str, ev: dict[str, Any]) -> None:
        typ = ev.get("type")
        obj = ev.get("object") or {}
        if typ == "ERROR":
            code = obj.get("code")
            if code == 410:
                raise Gone()
            raise ApiError(int(code or 500), str(obj.get("message") or "watch error"))
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if typ == "BOOKMARK":
            if rv:
                self.resource_version = rv
            return
        obj.setdefault("kind", kind)
        uid = _uid(obj)
        if typ == "DELETED":
            old = self.store.pop(uid, None)
            if old is not None:
                self.backend.emit(ClusterEvent(kind, "DELETED", obj))
        elif self.accept(obj):
            typ = "MODIFIED" if uid in self.store else "ADDED"
            self.store[uid] = obj
            self.backend.emit(ClusterEvent(kind, typ, obj))
        elif uid in self.store:  # no longer ours to know (cannot happen for pods: see accept)
            self.backend.emit(ClusterEvent(kind, "DELETED", self.store.pop(uid)))
        if rv:
            self.resource_version = rv

    # ---- control (used by stop() and tests) ------------------------------------------
    def interrupt(self) -> None:
        """Break the current watch stream (the loop reconnects unless stopping/held)."""
        resp = self._response
        if resp is None:
            return
        for closer in ("shutdown", "close"):
            fn = getattr(resp, closer, None)
            if fn is not None:
                with contextlib.suppress(Exception):
                    fn()

    def hold(self) -> None:
        """Stop watching until resume() (tests: simulate a long disconnection)."""
        self._hold.clear()
        self.interrupt()

    def resume(self, resource_version: str | None = None) -> None:
        if resource_version is not None:
            self.resource_version = resource_version
        self._hold.set()


def _uid(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return meta.get("uid") or f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _rv(obj: dict[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("resourceVersion") or ""


@dataclass
class _EventSeries:
    name: str
    namespace: str
    count: int
    reported: int
    first: float
    last_flush: float
    tokens: float


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
    ) -> None:
        self.raw = RawClient(api_client, TokenBucket(qps, burst))
        self.scheduler_names = frozenset(scheduler_names)
        self.resync_period = resync_period
        self.watch_timeout = watch_timeout
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.host = reporting_instance or socket.gethostname()
        self.stopping = threading.Event()
        # Cleared while we are not the leader: binds are refused so a deposed leader stops at once.
        self.writes_allowed = threading.Event()
        self.writes_allowed.set()
        self._sink: EventSink | None = None
        self.informers: dict[str, Informer] = {}
        for kind in LIST_ORDER:
            if kind in set(kinds):
                accept = self._accept_pod if kind == "Pod" else None
                self.informers[kind] = Informer(self, RESOURCES[kind], accept)
        self._bootstrap: threading.Thread | None = None
        self._events: queue_mod.Queue[tuple[PodInfo, str, str, str, float]] = queue_mod.Queue(maxsize=10000)
        self._status: queue_mod.Queue[tuple[str, PodInfo, Any]] = queue_mod.Queue(maxsize=10000)
        self._series: dict[tuple[str, str, str, str], _EventSeries] = {}
        self._conditions: dict[str, tuple[str, str, str]] = {}
        self._writers: list[threading.Thread] = []
        self.stats = {"binds": 0, "bind_conflicts": 0, "events_created": 0, "events_dropped": 0,
                      "event_series_updates": 0, "status_patches": 0, "write_errors": 0}
        self._stats_lock = threading.Lock()

    # ---- reading -----------------------------------------------------------------------
    def _accept_pod(self, obj: dict[str, Any]) -> bool:
        spec = obj.get("spec") or {}
        return bool(spec.get("nodeName")) or spec.get("schedulerName", "default-scheduler") in self.scheduler_names

    def emit(self, event: ClusterEvent) -> None:
        sink = self._sink
        if sink is not None:
            sink(event)

    def start(self, sink: EventSink) -> None:
        self._sink = sink
        self.stopping.clear()
        for name, target in (("events", self._event_writer), ("status", self._status_writer)):
            t = threading.Thread(target=target, name=f"kubeberth-{name}-writer", daemon=True)
            t.start()
            self._writers.append(t)
        self._bootstrap = threading.Thread(target=self._start_informers, name="kubeberth-informers", daemon=True)
        self._bootstrap.start()

    def _start_informers(self) -> None:
        """Start informers one after another in LIST_ORDER, each after the previous one listed."""
        for inf in self.informers.values():
            inf.start()
            while not inf.listed.wait(0.5):
                if self.stopping.is_set():
                    return

    def ready(self) -> bool:
        return all(inf.synced.is_set() for inf in self.informers.values())

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready():
                return True
            time.sleep(0.05)
        return self.ready()

    def stop(self, flush_timeout: float = 5.0) -> None:
        """Stop informers; give the writers up to `flush_timeout` to send what is queued."""
        deadline = time.monotonic() + flush_timeout
        while (not self._events.empty() or not self._status.empty()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.stopping.set()
        self._sink = None
        for inf in self.informers.values():
            inf.interrupt()

    # ---- writes --------------------------------------------------------------------------
    def bind(self, pod: PodInfo, node_name: str) -> Status:
        if not self.writes_allowed.is_set():
            return Status.error("not the leader: binding refused")
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
        }
        try:
            self.raw.request("POST", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/binding", body=body)
        except ApiError as exc:
            if exc.status in (404, 409):
                with self._stats_lock:
                    self.stats["bind_conflicts"] += 1
            log.info("binding %s to %s failed: %s", pod.key, node_name, exc)
            return Status.error(f"binding rejected: {exc.message}" if exc.status else f"binding failed: {exc.message}")
        with self._stats_lock:
            self.stats["binds"] += 1
        log.info("bound %s (%s) to %s", pod.key, pod.uid, node_name)
        return Status.success()

    def bind_volumes(self, pod: PodInfo, assignments: list[dict[str, Any]]) -> Status:
        """kube-scheduler's BindPodVolumes: claimRef on a chosen static PV (optimistic update), or
        the selected-node annotation on a claim to be provisioned; the PV controller does the rest."""
        if not self.writes_allowed.is_set():
            return Status.error("not the leader: volume binding refused")
        for item in assignments:
            namespace, claim = item["claim"].split("/", 1)
            claim_path = f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}"
            try:
                if item.get("pv"):
                    pv_path = f"/api/v1/persistentvolumes/{item['pv']}"
                    pv = self.raw.request("GET", pv_path)
                    ref = (pv.get("spec") or {}).get("claimRef") or {}
                    if ref and (ref.get("namespace"), ref.get("name")) != (namespace, claim):
                        return Status.error(
                            f'persistentvolume "{item["pv"]}" is already claimed by {ref.get("namespace")}/{ref.get("name")}'
                        )
                    if not ref:
                        pvc = self.raw.request("GET", claim_path)
                        pv.setdefault("metadata", {}).setdefault("annotations", {})[
                            "pv.kubernetes.io/bound-by-controller"
                        ] = "yes"
                        pv["spec"]["claimRef"] = {
                            "kind": "PersistentVolumeClaim",
                            "apiVersion": "v1",
                            "namespace": namespace,
                            "name": claim,
                            "uid": pvc["metadata"]["uid"],
                            "resourceVersion": pvc["metadata"]["resourceVersion"],
                        }
                        self.raw.request("PUT", pv_path, body=pv)  # metadata.resourceVersion guards races
                else:
                    body = {"metadata": {"annotations": {"volume.kubernetes.io/selected-node": item["node"]}}}
                    self.raw.request("PATCH", claim_path, body=body, content_type="application/merge-patch+json")
            except ApiError as exc:
                return Status.error(f"binding volumes of {pod.key}: {exc.message}")
        log.info("bound volumes of %s: %s", pod.key, assignments)
        return Status.success()

    def delete_pod(self, pod: PodInfo, reason: str) -> Status:
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": pod.uid}}
        try:
            self.raw.request("DELETE", f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}", body=body)
        except ApiError as exc:
            if exc.status == 404:
                return Status.success()  # already gone: the victim's resources are free
            return Status.error(f"deleting victim {pod.key}: {exc.message}")
        log.info("deleted %s: %s", pod.key, reason)
        return Status.success()

    def record_event(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        try:
            self._events.put_nowait((pod, event_type, reason, message, time.time()))
        except queue_mod.Full:
            with self._stats_lock:
                self.stats["events_dropped"] += 1

    def patch_pod_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        self._enqueue_status("condition", pod, condition)

    def set_nominated_node(self, pod: PodInfo, node_name: str | None) -> None:
        self._enqueue_status("nominated", pod, node_name or None)

    def _enqueue_status(self, what: str, pod: PodInfo, value: Any) -> None:
        try:
            self._status.put_nowait((what, pod, value))
        except queue_mod.Full:
            log.warning("status write queue full; dropped %s for %s", what, pod.key)

    # ---- background writers ---------------------------------------------------------------
    EVENT_BURST = 25  # per (pod, reason) like client-go's spam filter
    EVENT_REFILL_SECONDS = 300.0
    SERIES_FLUSH_SECONDS = 30.0
    SERIES_FORGET_SECONDS = 600.0

    def _event_writer(self) -> None:
        while True:
            try:
                item = self._events.get(timeout=1.0)
            except queue_mod.Empty:
                if self.stopping.is_set():
                    return
                self._flush_series(force=False)
                continue
            try:
                self._write_event(*item)
            except Exception:  # noqa: BLE001 - events are best effort
                log.exception("writing an event failed")
            finally:
                self._events.task_done()

    def _write_event(self, pod: PodInfo, event_type: str, reason: str, message: str, when: float) -> None:
        key = (pod.uid, event_type, reason, message)
        series = self._series.get(key)
        now = time.time()
        if series is not None and now - series.first < self.SERIES_FORGET_SECONDS:
            series.tokens = min(self.EVENT_BURST, series.tokens + (now - series.last_flush) / self.EVENT_REFILL_SECONDS)
            series.count += 1
            if now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1:
                self._patch_series(series)
            return
        if len(self._series) > 20000:
            self._series = {k: s for k, s in self._series.items() if now - s.first < self.SERIES_FORGET_SECONDS}
        controller = pod.scheduler_name or "kubeberth"
        name = f"{pod.name}.{uuid.uuid4().hex[:16]}"
        body = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": pod.namespace},
            "eventTime": micro_time(when),
            "reportingController": controller,
            "reportingInstance": f"{controller}-{self.host}"[:128],
            "action": {"Scheduled": "Binding", "Preempted": "Preempting"}.get(reason, "Scheduling"),
            "reason": reason,
            "regarding": {"apiVersion": "v1", "kind": "Pod", "namespace": pod.namespace, "name": pod.name,
                          "uid": pod.uid},
            "note": message[:1024],
            "type": event_type,
        }
        if self._retrying_write("POST", f"/apis/events.k8s.io/v1/namespaces/{pod.namespace}/events", body):
            with self._stats_lock:
                self.stats["events_created"] += 1
            self._series[key] = _EventSeries(name, pod.namespace, 1, 1, now, now, self.EVENT_BURST - 1)

    def _patch_series(self, series: _EventSeries) -> None:
        series.tokens -= 1
        series.last_flush = time.time()
        series.reported = series.count
        body = {"series": {"count": series.count, "lastObservedTime": micro_time()}}
        path = f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events/{series.name}"
        if self._retrying_write("PATCH", path, body, "application/merge-patch+json", attempts=1):
            with self._stats_lock:
                self.stats["event_series_updates"] += 1

    def _flush_series(self, force: bool) -> None:
        now = time.time()
        for series in list(self._series.values()):
            due = force or (now - series.last_flush >= self.SERIES_FLUSH_SECONDS and series.tokens >= 1)
            if series.count > series.reported and due:
                self._patch_series(series)

    def _status_writer(self) -> None:
        while True:
            try:
                what, pod, value = self._status.get(timeout=1.0)
            except queue_mod.Empty:
                if self.stopping.is_set():
                    return
                continue
            try:
                if what == "condition":
                    self._write_condition(pod, value)
                else:
                    self._write_nominated(pod, value)
            except Exception:  # noqa: BLE001
                log.exception("status write failed for %s", pod.key)
            finally:
                self._status.task_done()

    def _write_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        sig = (condition.get("status", ""), condition.get("reason", ""), condition.get("message", ""))
        current = next(
            (c for c in ((pod.raw.get("status") or {}).get("conditions") or ()) if c.get("type") == condition["type"]),
            None,
        )
        if current is not None and (current.get("status"), current.get("reason", ""), current.get("message", "")) == sig:
            return
        if self._conditions.get(pod.uid + condition["type"]) == sig:
            return  # we already wrote exactly this; the informer has not caught up yet
        cond = dict(condition)
        cond["lastProbeTime"] = None
        if current is not None and current.get("status") == cond.get("status") and current.get("lastTransitionTime"):
            cond["lastTransitionTime"] = current["lastTransitionTime"]
        else:
            cond["lastTransitionTime"] = rfc3339()
        body = {"metadata": {"uid": pod.uid}, "status": {"conditions": [cond]}}
        path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
        if self._retrying_write("PATCH", path, body, "application/strategic-merge-patch+json"):
            self._conditions[pod.uid + condition["type"]] = sig
            if len(self._conditions) > 50000:
                self._conditions.clear()
            with self._stats_lock:
                self.stats["status_patches"] += 1

    def _write_nominated(self, pod: PodInfo, node_name: str | None) -> None:
        if ((pod.raw.get("status") or {}).get("nominatedNodeName") or None) == node_name:
            return
        body = {"metadata": {"uid": pod.uid}, "status": {"nominatedNodeName": node_name}}
        path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
        if self._retrying_write("PATCH", path, body, "application/strategic-merge-patch+json"):
            with self._stats_lock:
                self.stats["status_patches"] += 1

    def _retrying_write(self, method: str, path: str, body: Any, content_type: str | None = None,
                        attempts: int = 6) -> bool:
        """Best-effort write: retried while the server is unreachable or overloaded, not on 4xx."""
        delay = 0.5
        for attempt in range(attempts):
            try:
                self.raw.request(method, path, body=body, content_type=content_type, timeout=(5, 15))
                return True
            except ApiError as exc:
                transient = exc.status == 0 or exc.status == 429 or exc.status >= 500
                if not transient or attempt == attempts - 1 or self.stopping.is_set():
                    if exc.status != 404:  # the pod went away meanwhile: nothing to say
                        log.warning("%s %s failed: %s", method, path, exc)
                    with self._stats_lock:
                        self.stats["write_errors"] += 1
                    return False
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 10.0)
        return False


def load_api_client(kubeconfig: str | None = None, pool_size: int = 32) -> Any:
    """An ApiClient from a kubeconfig file, else in-cluster config, else ~/.kube/config.

    The connection pool is sized for the informers, binding workers and writers that share it
    (urllib3's default of 10 would open and discard connections under load).
    """
    from kubernetes import client, config

    cfg = client.Configuration()
    if kubeconfig:
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    else:
        try:
            config.load_incluster_config(client_configuration=cfg)
        except config.ConfigException:
            config.load_kube_config(client_configuration=cfg)
    cfg.connection_pool_maxsize = max(pool_size, cfg.connection_pool_maxsize or 0)
    return client.ApiClient(cfg)

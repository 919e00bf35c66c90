"""`kubeberth extender`: a kubeberth profile's filter and score plugins as a scheduler extender
for a stock kube-scheduler (the HTTP protocol of k8s.io/kube-scheduler/extender/v1).

The process is `kubeberth run` with the scheduling switched off: the same settings, configuration,
plugins folder, hot reload, /metrics, decision records and traces, and the informer cache of a
scheduler (nodes and the pods on them), which is what `nodeCacheCapable: true` asks of an
extender. Each request runs on the scheduling loop thread — the one owner of the cache — between
informer events, against the generation current at that moment, so a reloaded plugin answers the
next request.

Verbs (POST, JSON): `/filter` runs the profile's PreFilter and Filter plugins over the nodes sent;
`/prioritize` its PreScore and Score plugins, the weighted total mapped onto kube-scheduler's
0..MaxExtenderPriority; `/preempt` keeps the candidate nodes where the pod fits once the proposed
victims are gone; `/bind` (with `--bind`) binds through the Binding subresource.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
import orjson
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from ..api.status import Code
from ..api.types import MAX_NODE_SCORE, CycleState
from ..cache.podinfo import PodInfo
from ..errors import ConfigError
from ..observability.metrics import _Histogram
from ..runtime.config import load_configuration
from ..runtime.extenders import MAX_EXTENDER_PRIORITY, field
from ..runtime.framework import Framework, PluginFailure
from ..runtime.records import CycleRecord, Diagnosis
from ..scheduling.scheduler import Scheduler
from .httpserver import HTTPServer
from .runner import Runner

log = logging.getLogger(__name__)

DEFAULT_EXTENDER_BIND_ADDRESS = "127.0.0.1:10262"
REQUEST_TIMEOUT = 30.0  # a request waits at most this long for the loop (kube-scheduler gives up sooner)
NOT_CACHED = "node(s) are not in kubeberth's node cache yet"
JSON = "application/json"



class ExtenderMetrics(Collector):
    """kubeberth_extender_request_duration_seconds{verb,result}, on the process's /metrics."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # observed from the HTTP request threads
        self.duration = _Histogram(
            "kubeberth_extender_request_duration_seconds",
            "Time to answer one extender request, by verb and result (success, error).",
            ("verb", "result"),
            [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0],
        )

    def observe(self, verb: str, result: str, seconds: float) -> None:
        with self._lock:
            self.duration.observe((verb, result), seconds)

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            yield self.duration.family()


class RequestError(Exception):
    """A request kubeberth cannot answer (bad pod, unknown profile): returned in the `error` field."""


def _identity(raw: Mapping[str, Any]) -> tuple[str, str]:
    meta = raw.get("metadata") or {}
    return str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}"), str(meta.get("resourceVersion") or "")


def _rows(row_of: dict[str, int], names: list[str]) -> np.ndarray:
    """Node-table rows of `names`, -1 where the cache has no such node (a C-level map, no Python loop)."""
    return np.fromiter(map(row_of.get, names, repeat(-1)), dtype=np.int64, count=len(names))


def _names_of(names: list[str | None], rows: np.ndarray) -> list[str]:
    """Names of node-table rows."""
    if len(rows) == 1:
        return [names[int(rows[0])] or ""]
    return list(itemgetter(*rows.tolist())(names)) if len(rows) else []


def _names(args: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]] | None]:
    """The candidate names, and the Node objects when the caller sent them (not cache capable)."""
    found = field(args, "NodeNames")
    if found is not None:
        if not isinstance(found, list):
            raise RequestError("NodeNames: expected a list of node names")
        return found, None
    items = list((field(args, "Nodes") or {}).get("items") or ())
    return [str((n.get("metadata") or {}).get("name", "")) for n in items], items


class ExtenderService:
    """The verbs, each run on the scheduler's loop thread (scheduler.submit) and waited for here."""

    def __init__(
        self,
        scheduler: Scheduler,
        profile: str | None = None,
        bind: bool = False,
        observe: Callable[[CycleRecord], None] | None = None,
        metrics: ExtenderMetrics | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.metrics = metrics
        self.profile = profile
        self.allow_bind = bind
        self.observe = observe
        # kube-scheduler sends prioritize right after filter for the same pod: keep that pod's
        # parsed PodInfo and PreFilter state (one entry; loop thread only) instead of redoing both.
        self._last: tuple[str, str, Framework, PodInfo, CycleState] | None = None

    def add_routes(self, http: HTTPServer) -> None:
        for verb, fn in (("filter", self.filter), ("prioritize", self.prioritize), ("preempt", self.preempt)):
            http.add_body_route(f"/{verb}", self._route(verb, fn))
        if self.allow_bind:
            http.add_body_route("/bind", self._route("bind", self.bind, on_loop=False))

    def _route(self, verb: str, fn: Callable[[dict[str, Any]], Any], on_loop: bool = True) -> Callable[[bytes], tuple[int, str, bytes]]:
        def handler(body: bytes) -> tuple[int, str, bytes]:
            t0 = time.perf_counter()
            result = "success"
            try:
                args = orjson.loads(body)
                if not isinstance(args, dict):
                    raise RequestError(f"{verb}: expected a JSON object")
                reply = self._on_loop(fn, args) if on_loop else fn(args)
                status = 200
            except Exception as exc:  # noqa: BLE001 - every failure is an answer, never a dropped connection
                result = "error"
                text = exc.status.message if isinstance(exc, PluginFailure) else str(exc)
                if isinstance(exc, RequestError | PluginFailure | orjson.JSONDecodeError | TimeoutError):
                    log.warning("extender %s: %s", verb, text)
                else:
                    text = f"{verb} failed: {type(exc).__name__}: {exc}"
                    log.exception("extender %s", verb)
                # filter, preempt and bind carry errors in the body; prioritize has no error field.
                status, reply = (500, {"Error": text}) if verb == "prioritize" else (200, {"Error": text})
            if self.metrics is not None:
                self.metrics.observe(verb, result, time.perf_counter() - t0)
            return status, JSON, orjson.dumps(reply)

        return handler

    def _on_loop(self, fn: Callable[[dict[str, Any]], Any], args: dict[str, Any]) -> Any:
        try:
            return self.scheduler.call(lambda: fn(args), REQUEST_TIMEOUT)
        except TimeoutError:
            raise TimeoutError(f"the scheduling loop did not answer within {REQUEST_TIMEOUT:.0f}s") from None

    # ---- shared ---------------------------------------------------------------------------
    def _framework(self) -> Framework:
        gen = self.scheduler.generation
        fw = gen.framework_for(self.profile) if self.profile else gen.default_profile
        if fw is None:
            raise RequestError(f"no profile {self.profile!r} in the configuration; it has {', '.join(gen.profiles)}")
        return fw

    def _pod(self, args: dict[str, Any]) -> PodInfo:
        raw = field(args, "Pod")
        if not isinstance(raw, dict):
            raise RequestError("pod: expected the Pod object")
        last = self._last
        if last is not None and last[:2] == _identity(raw):
            return last[3]
        try:
            return PodInfo.from_dict(raw)
        except Exception as exc:  # noqa: BLE001 - PodSpecError and friends name the field
            raise RequestError(str(exc)) from None

    def _start(self, fw: Framework, pod: PodInfo, verb: str) -> tuple[CycleState, Any, CycleRecord]:
        record = CycleRecord(pod.key, pod.uid, fw.profile, fw.generation_id)
        record.result = verb
        return CycleState(), self.scheduler.handle_for(fw), record

    def _done(self, record: CycleRecord) -> None:
        record.end_ns = time.time_ns()
        if self.observe is not None:
            self.observe(record)

    # ---- verbs ----------------------------------------------------------------------------
    def filter(self, args: dict[str, Any]) -> dict[str, Any]:
        fw, pod = self._framework(), self._pod(args)
        names, items = _names(args)
        cluster = self.scheduler.cluster
        table = cluster.table
        state, handle, record = self._start(fw, pod, "ExtenderFilter")
        named = np.asarray(names, dtype=object)
        rows = _rows(table.row_of, names)
        cached = rows >= 0
        failed: dict[str, str] = {} if cached.all() else dict.fromkeys(named[~cached].tolist(), NOT_CACHED)
        unresolvable: dict[str, str] = {}
        pos = np.flatnonzero(cached)
        status, narrowed = fw.run_pre_filter(state, pod, table.view(table.ordered_rows()), cluster, handle, record)
        self._last = (*_identity(pod.raw), fw, pod, state) if status.ok and narrowed is None else None
        kept: list[str] = []
        if not status.ok:
            target = unresolvable if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE else failed
            target.update(dict.fromkeys(named[pos].tolist(), status.message))
        else:
            if narrowed is not None:
                inside = np.fromiter((n in narrowed for n in named[pos].tolist()), dtype=bool, count=len(pos))
                unresolvable.update(dict.fromkeys(named[pos[~inside]].tolist(), state.narrowed_reason()))
                pos = pos[inside]
            diagnosis = Diagnosis(len(pos))
            mask = fw.run_filters(state, pod, table.view(rows[pos]), cluster, handle, diagnosis, record)
            kept = named[pos[mask]].tolist()
            for _plugin, reason, rej_rows, code in diagnosis.rejections:
                target = unresolvable if code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE else failed
                target.update(dict.fromkeys(_names_of(table.names, rej_rows), reason))
        record.feasible_nodes, record.evaluated_nodes = len(kept), len(names)
        record.message = f"{len(kept)}/{len(names)} nodes passed"
        self._done(record)
        reply: dict[str, Any] = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable, "Error": ""}
        if items is None:
            reply["NodeNames"], reply["Nodes"] = kept, None
        else:
            keep = set(kept)
            reply["NodeNames"] = None
            reply["Nodes"] = {"metadata": {}, "items": [n for n in items if (n.get("metadata") or {}).get("name") in keep]}
        return reply

    def prioritize(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        """Weighted plugin totals mapped onto 0..MaxExtenderPriority (kube-scheduler multiplies back by 10)."""
        fw, pod = self._framework(), self._pod(args)
        names, _items = _names(args)
        cluster = self.scheduler.cluster
        table = cluster.table
        state, handle, record = self._start(fw, pod, "ExtenderPrioritize")
        rows = _rows(table.row_of, names)
        pos = np.flatnonzero(rows >= 0)
        scores = np.zeros(len(names), dtype=np.int64)  # nodes not in the cache get 0
        if len(pos) and fw.points.get("score"):
            last = self._last
            if last is not None and last[2] is fw and last[3] is pod:
                state = last[4]  # this pod's PreFilter state from its filter request
            else:
                fw.run_pre_filter(state, pod, table.view(table.ordered_rows()), cluster, handle, record)
            total, _per_plugin = fw.run_scores(state, pod, table.view(rows[pos]), cluster, handle, record)
            weights = sum(h.weight for h in fw.points["score"] if h.plugin not in state.skip_score)
            if weights:
                denom = MAX_NODE_SCORE * weights
                scores[pos] = (total * MAX_EXTENDER_PRIORITY + denom // 2) // denom
                best = pos[np.argsort(-scores[pos], kind="stable")[:3]].tolist()
                record.top_scores = [{"node": names[i], "total": int(scores[i]), "plugins": {}} for i in best]
        self._done(record)
        return [{"Host": n, "Score": v} for n, v in zip(names, scores.tolist(), strict=True)]

    def preempt(self, args: dict[str, Any]) -> dict[str, Any]:
        """Keep the candidate nodes where the pod passes the profile's filters without the victims."""
        fw, pod = self._framework(), self._pod(args)
        cluster = self.scheduler.cluster
        table = cluster.table
        state, handle, record = self._start(fw, pod, "ExtenderPreempt")
        proposed: dict[str, tuple[list[str], int]] = {}
        if field(args, "NodeNameToMetaVictims") is not None:
            for node, meta in field(args, "NodeNameToMetaVictims").items():
                uids = [str(field(p, "UID") or "") for p in field(meta, "Pods") or ()]
                proposed[node] = (uids, int(field(meta, "NumPDBViolations") or 0))
        else:
            for node, v in (field(args, "NodeNameToVictims") or {}).items():
                uids = [str((p.get("metadata") or {}).get("uid", "")) for p in field(v, "Pods") or ()]
                proposed[node] = (uids, int(field(v, "NumPDBViolations") or 0))
        accepted: dict[str, Any] = {}
        for node, (uids, pdb) in proposed.items():
            row = table.row_of.get(node)
            victims = [cluster.pods[u] for u in uids if u in cluster.pods]
            if row is None or len(victims) != len(uids):
                continue  # a node or pod kubeberth has not seen: it cannot vouch for that node
            with cluster.hypothetical(remove=victims):
                status, narrowed = fw.run_pre_filter(state, pod, table.view(table.ordered_rows()), cluster, handle, None)
                fits = status.ok and (narrowed is None or node in narrowed) and bool(
                    fw.run_filters(state, pod, table.view(np.asarray([row], dtype=np.int64)), cluster, handle)[0]
                )
            state = CycleState()
            if fits:
                accepted[node] = {"Pods": [{"UID": u} for u in uids], "NumPDBViolations": pdb}
        record.message = f"{len(accepted)}/{len(proposed)} preemption candidates kept"
        self._done(record)
        return {"NodeNameToMetaVictims": accepted}

    def bind(self, args: dict[str, Any]) -> dict[str, Any]:
        """Bind through the Binding subresource (from a request thread: it is an API write only)."""
        meta = {"name": field(args, "PodName"), "namespace": field(args, "PodNamespace"), "uid": field(args, "PodUID")}
        node = field(args, "Node")
        if not all(meta.values()) or not node:
            raise RequestError("bind: PodName, PodNamespace, PodUID and Node are required")
        status = self.scheduler.backend.bind(PodInfo.from_dict({"metadata": meta, "spec": {}}), str(node))
        return {"Error": "" if status.ok else status.message}


def extender_main(args: argparse.Namespace | Any) -> int:
    """Entry point for `kubeberth extender` (args from apps/cli.py)."""
    from .cli import settings_from_args

    settings = settings_from_args(args)  # KUBEBERTH_* with the flags over them, validated
    wanted = getattr(args, "profile", None)
    if wanted:
        profiles = [p.schedulerName for p in load_configuration(settings.config).profiles]
        if wanted not in profiles:
            raise ConfigError(f"--profile: no profile {wanted!r} in the configuration; it has {', '.join(profiles)}")
    runner = Runner(
        kubeconfig=getattr(args, "kubeconfig", None),
        config=settings.config,
        plugins_dir=settings.plugins_dir,
        healthz_bind_address=getattr(args, "bind_address", None) or DEFAULT_EXTENDER_BIND_ADDRESS,
        leader_elect=False,  # every replica answers: kube-scheduler may call any of them
        settings=settings,
        scheduler_names=[],  # no pending pods: kube-scheduler schedules them
    )
    runner.scheduler.paused = True  # the loop only keeps the cache and answers extender requests
    obs = runner.observability

    def observe(record: CycleRecord) -> None:
        if obs.tracer is not None:
            obs.tracer(record)
        if obs.store is not None:
            obs.store.add(record)

    metrics = ExtenderMetrics()
    if obs.metrics is not None:
        obs.metrics.registry.register(metrics)
    service = ExtenderService(
        runner.scheduler, getattr(args, "profile", None), getattr(args, "bind", False), observe, metrics
    )
    profile = service.profile or runner.generation.default_profile.profile
    assert runner.http is not None
    service.add_routes(runner.http)

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("received %s: shutting down", signal.Signals(signum).name)
        runner.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, lambda _s, _f: runner.reloader.request("SIGHUP", rescan=True))
    runner.start()
    log.info("kubeberth extender serving profile %s on %s", profile, runner.http.bind_address)
    try:
        runner.serve()
    finally:
        runner.shutdown()
    return 0

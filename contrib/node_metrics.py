"""The node metrics provider shared by the load-aware contrib plugins.

One refresher thread per distinct metrics source fetches every node's values with a few vector
queries per interval (never a query per node per pod) and publishes an immutable snapshot. Hooks
only read the latest snapshot, so a scheduling cycle never waits on Prometheus. Plugins of one
generation whose `metrics` blocks are equal share one provider; a new generation with the same
block takes it over before the old one lets go, so a reload never starts from an empty cache.

Freshness: each node's values carry the time they were last fetched and are dropped after `ttl`;
if the refresher itself falls behind (Prometheus slow or down), the whole snapshot counts as stale
once it is older than `ttl`. A rate-limited warning and the `kubeberth_node_metrics_*` metrics
(kubeberth.api.metrics, served on the scheduler's /metrics) say when that happens.

Lifecycle: a plugin creates a `NodeLoad` in `__init__` (nothing starts), the refresher starts on
first use, and `NodeLoad.close()` — called by the plugin's `close()`, by the next generation's
`handoff()` on a hot reload, or when the plugin object is garbage-collected with its generation —
releases it; the last release stops the thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from kubeberth import NodeTableView, NodeView
from kubeberth.api.extras import require_extra
from kubeberth.api.metrics import REGISTRY
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from .metrics_sources import ABSOLUTE_METRICS, MetricsSourceArgs, SnapshotSource, load_snapshot, make_source

log = logging.getLogger(__name__)

SNAPSHOT_ENV = "KUBEBERTH_METRICS_SNAPSHOT"
"""When set (by `kubeberth simulate --metrics-snapshot FILE`), every provider reads that file."""
WARN_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class Snapshot:
    """One published view of every node's values: {metric: {series key: value}}."""

    seq: int
    published_at: float  # when the values were last fetched successfully
    values: dict[str, dict[str, float]]
    healthy: bool
    error: str = ""
    static: bool = False  # a snapshot file: never stale

    def fresh(self, ttl: float, now: float | None = None) -> bool:
        if self.static:
            return True
        return self.published_at > 0 and (now if now is not None else time.time()) - self.published_at <= ttl


EMPTY = Snapshot(0, 0.0, {}, False, "no data yet")


@dataclass
class _Stats:
    fetches: int = 0
    failures: int = 0
    last_success: float = 0.0
    last_duration: float = 0.0
    fresh_nodes: int = 0


class NodeMetricsProvider:
    """Fetches from one source on a daemon thread; readers take `snapshot` (one attribute read)."""

    def __init__(self, args: MetricsSourceArgs, source: Any) -> None:
        self.args = args
        self.source = source
        self.snapshot: Snapshot = EMPTY
        self.metrics: set[str] = set()
        # Weak references: a listening plugin must stay collectable (its finalizer releases us).
        self.listeners: list[weakref.WeakMethod | Callable[[], Any]] = []
        self.refs = 0
        self.stats = _Stats()
        self._seen: dict[str, dict[str, tuple[float, float]]] = {}  # metric -> key -> (value, fetched at)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_warning = 0.0

    @property
    def static(self) -> bool:
        return isinstance(self.source, SnapshotSource)

    def want(self, metrics: set[str]) -> None:
        with self._lock:
            new = metrics - self.metrics
            self.metrics |= metrics
        if new and self._thread is not None:
            self._wake.set()

    def ensure_started(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is not None:
                return
            if self.static:
                self.refresh()  # a file: read once, synchronously (it is local)
                self._thread = threading.current_thread()
                return
            self._thread = threading.Thread(target=self._run, name=f"kubeberth-metrics {self.source.name}", daemon=True)
            self._thread.start()

    def stop(self, join: float = 0.0) -> None:
        """Stop the refresher; with `join` > 0, wait that long for a round in flight to end, so
        nothing of it (a log line, a listener call) comes after this returns."""
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if join > 0 and not self.static and thread is not None and thread is not threading.current_thread():
            thread.join(join)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.refresh()
            self._wake.wait(self.args.interval)
            self._wake.clear()

    def refresh(self) -> Snapshot:
        """One round of queries; always publishes (a failed round ages the values)."""
        t0 = time.time()
        error = ""
        try:
            fetched = self.source.fetch(set(self.metrics))
        except Exception as exc:  # any failure of the source degrades; the thread keeps going
            fetched = None
            error = f"{type(exc).__name__}: {exc}"
        now = time.time()
        self.stats.fetches += 1
        self.stats.last_duration = now - t0
        if fetched is not None:
            self.stats.last_success = now
            for metric, measured in fetched.items():
                seen = self._seen.setdefault(metric, {})
                for key, value in measured.items():
                    seen[key] = (value, now)
        else:
            self.stats.failures += 1
        horizon = now - self.args.ttl
        values: dict[str, dict[str, float]] = {}
        fresh_keys: set[str] = set()
        for metric, seen in self._seen.items():
            for key in [k for k, (_, at) in seen.items() if at < horizon and not self.static]:
                del seen[key]
            values[metric] = {k: v for k, (v, _) in seen.items()}
            fresh_keys.update(values[metric])
        self.stats.fresh_nodes = len(fresh_keys)
        healthy = fetched is not None
        data_at = now if healthy else self.snapshot.published_at
        snap = Snapshot(self.snapshot.seq + 1, data_at, values, healthy, error, self.static)
        self.snapshot = snap
        if not healthy and not self._stop.is_set():  # a stopped provider's last round says nothing
            self._warn(f"node metrics from {self.source.name} unavailable ({error}); "
                       f"using values up to {self.args.ttl:g}s old, then degrading as configured")
        for ref in list(self.listeners):
            listener = ref()
            if listener is None:
                with contextlib.suppress(ValueError):
                    self.listeners.remove(ref)
                continue
            try:
                listener(snap)
            except Exception:
                log.exception("node metrics listener failed")
        return snap

    def _warn(self, message: str) -> None:
        now = time.monotonic()
        if now - self._last_warning >= WARN_EVERY_SECONDS or self._last_warning == 0.0:
            self._last_warning = now
            log.warning("%s", message)


# ---- sharing ------------------------------------------------------------------------------
_providers: dict[str, NodeMetricsProvider] = {}
# Released providers whose refresher may still be finishing a round: shutdown_all waits for them
# too, so no log line or listener call of theirs comes after it returns.
_released: weakref.WeakSet[NodeMetricsProvider] = weakref.WeakSet()
# Reentrant: a provider user's weakref finalizer may run `release` from garbage collection that
# triggers inside `acquire` on the same thread (a plain Lock deadlocks there).
_registry_lock = threading.RLock()


def _effective(args: MetricsSourceArgs) -> MetricsSourceArgs:
    path = os.environ.get(SNAPSHOT_ENV)
    if path:
        return args.model_copy(update={"type": "snapshot", "file": path})
    return args


def acquire(args: MetricsSourceArgs) -> NodeMetricsProvider:
    """The shared provider for this source (created on first acquire; nothing starts yet)."""
    args = _effective(args)
    key = args.key()
    with _registry_lock:
        provider = _providers.get(key)
        if provider is None:
            provider = _providers[key] = NodeMetricsProvider(args, make_source(args))
        provider.refs += 1
        return provider


def release(provider: NodeMetricsProvider) -> None:
    with _registry_lock:
        provider.refs -= 1
        if provider.refs <= 0:
            provider.stop()
            _released.add(provider)
            if _providers.get(provider.args.key()) is provider:
                del _providers[provider.args.key()]


def shutdown_all() -> None:
    """Stop every refresher and forget every provider (process shutdown, test isolation);
    plugins still holding one re-acquire a fresh provider on next use."""
    with _registry_lock:
        providers = list(_providers.values()) + list(_released)
        _providers.clear()
        _released.clear()
    for provider in providers:
        provider.stop()
    for provider in providers:  # all signalled first: the waits overlap
        provider.stop(join=provider.args.timeout + 1.0)


def live_providers() -> list[NodeMetricsProvider]:
    with _registry_lock:
        return list(_providers.values())


class _Collector:
    """kubeberth_node_metrics_* for every live provider, read at scrape time."""

    def collect(self) -> Any:
        up = GaugeMetricFamily("kubeberth_node_metrics_up", "1 if the last refresh of node metrics succeeded", labels=["source"])
        age = GaugeMetricFamily("kubeberth_node_metrics_age_seconds", "Seconds since node metrics were last fetched successfully", labels=["source"])
        nodes = GaugeMetricFamily("kubeberth_node_metrics_nodes", "Nodes with fresh values", labels=["source"])
        fails = CounterMetricFamily("kubeberth_node_metrics_fetch_failures", "Failed refreshes of node metrics", labels=["source"])
        now = time.time()
        # The module as imported now: after an entry-point rescan re-imports it, the collector
        # registered first reports the new module's providers.
        for p in sys.modules[__name__].live_providers():
            name = p.source.name
            up.add_metric([name], 1.0 if p.snapshot.healthy else 0.0)
            age.add_metric([name], now - p.stats.last_success if p.stats.last_success else float("inf"))
            nodes.add_metric([name], p.stats.fresh_nodes)
            fails.add_metric([name], p.stats.failures)
        return [up, age, nodes, fails]


# Re-imported by an entry-point rescan: the first collector stays registered.
with contextlib.suppress(ValueError):
    REGISTRY.register(_Collector())


# ---- the plugins' side --------------------------------------------------------------------
@dataclass
class _Aligned:
    key: tuple[Any, ...]
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    derived: dict[Any, Any] = field(default_factory=dict)


class NodeLoad:
    """A plugin's handle on the shared provider, with values aligned to node-table rows.

    `columns(nodes)` returns {metric: float array aligned with `nodes`}, NaN where a node has no
    fresh value, or None when the whole source is stale (degrade). The row alignment is rebuilt
    only when a new snapshot is published or node membership changes — not per pod.
    """

    def __init__(self, args: MetricsSourceArgs, metrics: set[str], owner: object | None = None) -> None:
        effective = _effective(args)
        if effective.type == "snapshot":
            if not effective.file:
                raise ValueError("metrics.file is required when metrics.type is snapshot")
            load_snapshot(effective.file)  # bad input fails the generation build, not a cycle
        elif effective.type == "prometheus":  # the client is an extra: say so when the profile loads
            require_extra("contrib", "metrics.type prometheus (the load-aware plugins' Prometheus source)")
        self.args = args
        self.metrics = set(metrics)
        self._provider: NodeMetricsProvider | None = None
        self._aligned = _Aligned(())
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None
        self._owner = weakref.ref(owner) if owner is not None else None
        self._callbacks: list[Any] = []

    @property
    def provider(self) -> NodeMetricsProvider:
        if self._provider is not None and self._provider.stopped:
            self._release()  # stopped by shutdown_all: take a fresh one, keeping subscriptions
        if self._provider is None:
            with self._lock:
                if self._provider is None:
                    provider = acquire(self.args)
                    provider.want(self._needed())
                    provider.listeners.extend(self._callbacks)
                    owner = self._owner() if self._owner is not None else None
                    self._finalizer = weakref.finalize(owner if owner is not None else self, release, provider)
                    self._provider = provider
        self._provider.ensure_started()
        return self._provider

    def _needed(self) -> set[str]:
        if self.args.type == "metrics-k8s-io":
            return {ABSOLUTE_METRICS.get(m, m) for m in self.metrics} | self.metrics
        return set(self.metrics)

    def subscribe(self, callback: Callable[[Snapshot], None]) -> None:
        """Call `callback(snapshot)` on the refresher thread after every refresh (and now, if a
        snapshot exists): for plugins that derive state from successive readings."""
        provider = self.provider
        ref = weakref.WeakMethod(callback) if hasattr(callback, "__self__") else (lambda: callback)
        provider.listeners.append(ref)
        self._callbacks.append(ref)
        if provider.snapshot.seq > 0:
            callback(provider.snapshot)

    def take_over(self, previous: NodeLoad) -> None:
        """A reload's handoff: acquire (and start) this generation's provider before the previous
        generation's plugin lets go, so an unchanged source keeps its refresher and its values."""
        if previous is self:
            return
        self.ensure_started()
        previous.close()

    def close(self) -> None:
        """Release the shared provider (the last release stops its refresher)."""
        self._release()
        self._callbacks = []

    def _release(self) -> None:
        provider = self._provider
        if provider is not None:
            for cb in self._callbacks:
                if cb in provider.listeners:
                    provider.listeners.remove(cb)
        if self._finalizer is not None:
            self._finalizer()
        self._provider = None

    def ensure_started(self) -> None:
        """Start fetching now rather than on the first hook call (e.g. warm up before traffic)."""
        _ = self.provider

    def snapshot(self) -> Snapshot:
        return self.provider.snapshot

    def usable(self) -> bool:
        snap = self.snapshot()
        return snap.fresh(self.provider.args.ttl)

    def columns(self, nodes: NodeView) -> dict[str, np.ndarray] | None:
        table_cols = self.table_columns(nodes.table)
        if table_cols is None:
            return None
        rows = nodes.rows
        return {m: col[rows] for m, col in table_cols.items()}

    def table_columns(self, table: NodeTableView) -> dict[str, np.ndarray] | None:
        snap = self.snapshot()
        if not snap.fresh(self.provider.args.ttl):
            return None
        key = (snap.seq, id(table), table.version, table.capacity)
        aligned = self._aligned
        if aligned.key != key:
            aligned = _Aligned(key, align(table, snap.values, self.metrics))
            self._aligned = aligned
        return aligned.columns


    def derived(self, table: NodeTableView, build: Callable[[dict[str, np.ndarray]], Any]) -> Any | None:
        """`build(columns)` over the whole table, memoised until the next snapshot or node change:
        for the pod-independent part of a score, so a cycle only gathers its candidate rows.
        None when the source is stale."""
        cols = self.table_columns(table)
        if cols is None:
            return None
        aligned = self._aligned
        found = aligned.derived.get(build)
        if found is None:
            found = aligned.derived[build] = build(cols)
        return found


def row_keys(table: NodeTableView) -> dict[str, int]:
    """Every way a series may name a node → its row: node name, hostname label, InternalIP."""
    keys: dict[str, int] = {}
    for row in table.row_of.values():
        raw = table.raw[row] or {}
        for addr in (raw.get("status") or {}).get("addresses") or ():
            if addr.get("type") in ("InternalIP", "Hostname") and addr.get("address"):
                keys.setdefault(addr["address"], row)
        hostname = table.labels_of(row).get("kubernetes.io/hostname")
        if hostname:
            keys.setdefault(hostname, row)
    for name, row in table.row_of.items():
        keys[name] = row  # the node name wins over an address that happens to equal it
    return keys


def align(table: NodeTableView, values: dict[str, dict[str, float]], metrics: set[str]) -> dict[str, np.ndarray]:
    """{metric: array over table rows} from {metric: {key: value}}; absolute metrics.k8s.io usage
    becomes a fraction of the node's allocatable."""
    keys = row_keys(table)
    cols: dict[str, np.ndarray] = {}

    def column(per_key: dict[str, float]) -> np.ndarray:
        col = np.full(table.capacity, np.nan)
        for key, value in per_key.items():
            row = keys.get(key)
            if row is not None and (np.isnan(col[row]) or value > col[row]):
                col[row] = value
        return col

    for metric in metrics:
        if metric in values:
            cols[metric] = column(values[metric])
            continue
        absolute = ABSOLUTE_METRICS.get(metric)
        if absolute in values:
            resource = "cpu" if metric.startswith("cpu") else "memory"
            col = table.resource_index[resource]  # cpu and memory are columns of every table
            alloc = table.allocatable[: table.capacity, col].astype(float)
            scale = 1000.0 if resource == "cpu" else 1.0  # cores → millicores
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = column(values[absolute]) * scale / alloc
            frac[~np.isfinite(frac)] = np.nan
            cols[metric] = np.clip(frac, 0.0, 1.0)
        else:
            cols[metric] = np.full(table.capacity, np.nan)
    return cols

"""`kubeberth run --embedded`: the long-lived scheduler on the embedded cluster, with a load generator.

The cluster comes from `--cluster FILE` (manifests) or `--nodes N` (generated like `simulate`).
`--pods-per-second R` creates pods at a steady rate; each completes (is deleted) `--pod-lifetime`
seconds after it was bound, so the cluster reaches a steady state of about R × lifetime running
pods. Everything else — loop, queue, binding, hot reload, HTTP endpoints — is the runner's.
Pods are scheduled as `simulate` schedules them: those of the profiles and of default-scheduler (or
of `--scheduler-names`); pods of other schedulers stay Pending, and the start says how many.
"""

from __future__ import annotations

import argparse
import heapq
import logging
import queue as queue_mod
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends.embedded import EmbeddedCluster
from ..errors import KubeberthError
from ..runtime.config import Settings
from .simulate import generate_cluster, load_manifests, scheduled_names

if TYPE_CHECKING:
    from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)

LOAD_NAMESPACE = "load"
_TICK = 0.01
_SIZES = (("50m", "64Mi"), ("100m", "128Mi"), ("250m", "256Mi"), ("500m", "512Mi"))


def embedded_backend(args: argparse.Namespace | Any, settings: Settings) -> tuple[EmbeddedCluster, LoadGenerator | None]:
    """The embedded cluster and load generator `run --embedded` asked for."""
    seed = settings.seed if settings.seed is not None else 0
    if getattr(args, "cluster", None):
        objects = load_manifests(args.cluster)
    else:
        nodes = getattr(args, "nodes", None)
        nodes = 100 if nodes is None else nodes
        if nodes < 0:
            raise KubeberthError("--nodes must be >= 0")
        objects = generate_cluster(nodes, 0, seed)
    cluster = EmbeddedCluster(objects)
    rate = getattr(args, "pods_per_second", None) or 0.0
    if rate < 0:
        raise KubeberthError("--pods-per-second must be >= 0")
    lifetime = getattr(args, "pod_lifetime", None)
    load = LoadGenerator(cluster, rate, 30.0 if lifetime is None else lifetime, seed) if rate else None
    return cluster, load


def adopt_scheduler_names(scheduler: Scheduler, cluster: EmbeddedCluster, names: str | None) -> frozenset[str]:
    """Schedule the pods `simulate` would (`names`: --scheduler-names, a comma list; default the
    profiles and default-scheduler) and say how many pending pods of the cluster name another
    scheduler and stay Pending. Call before the scheduler starts."""
    given = [n.strip() for n in (names or "").split(",") if n.strip()] or None
    adopted = scheduled_names(scheduler.generation, given)
    scheduler.adopted_scheduler_names = adopted
    others: Counter[str] = Counter()
    for pod in cluster.pods():
        spec = pod.get("spec") or {}
        name = spec.get("schedulerName") or "default-scheduler"
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if not spec.get("nodeName") and not terminal and name not in adopted and scheduler.generation.framework_for(name) is None:
            others[name] += 1
    log.info("scheduling pods of schedulerName %s", ", ".join(sorted(adopted)))
    if others:
        log.warning(
            "%d pending pod(s) of other schedulers left alone (%s); --scheduler-names adds names",
            sum(others.values()), ", ".join(f"{n}: {c}" for n, c in sorted(others.items())),
        )
    return adopted


@dataclass
class LoadStats:
    created: int = 0
    bound: int = 0
    completed: int = 0

    @property
    def pending(self) -> int:
        return self.created - self.bound


class LoadGenerator:
    """Creates pods at `rate` per second; deletes each `lifetime` seconds after its binding."""

    def __init__(self, cluster: EmbeddedCluster, rate: float, lifetime: float, seed: int = 0, prefix: str = "load") -> None:
        self.cluster = cluster
        self.rate = rate
        self.lifetime = lifetime
        self.prefix = prefix
        self.stats = LoadStats()
        self.bind_times: deque[float] = deque(maxlen=1_000_000)  # time.monotonic() of recent bindings
        self._rng = np.random.default_rng(seed)
        self._bound: queue_mod.SimpleQueue[tuple[float, str]] = queue_mod.SimpleQueue()
        self._expiry: list[tuple[float, str]] = []
        self._ours: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._scheduler_name = "kubeberth"
        cluster.bind_listeners.append(self._on_bind)

    def _on_bind(self, pod: dict[str, Any]) -> None:  # binding worker, under the cluster's lock: be quick
        meta = pod.get("metadata") or {}
        if meta.get("namespace") == LOAD_NAMESPACE:
            self._bound.put((time.monotonic(), f"{LOAD_NAMESPACE}/{meta.get('name')}"))

    def start(self, scheduler_name: str) -> None:
        self._scheduler_name = scheduler_name
        self._thread = threading.Thread(target=self._run, name="kubeberth-load", daemon=True)
        self._thread.start()
        log.info("load generator: %.1f pods/s, lifetime %.1fs, scheduler %s", self.rate, self.lifetime, scheduler_name)

    def pause(self) -> None:
        """Stop creating pods (bound ones still complete)."""
        self.rate = 0.0

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _pod(self, i: int) -> dict[str, Any]:
        cpu, memory = _SIZES[int(self._rng.integers(len(_SIZES)))]
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{self.prefix}-{i:07d}", "namespace": LOAD_NAMESPACE, "labels": {"app": self.prefix}},
            "spec": {
                "schedulerName": self._scheduler_name,
                "containers": [{"name": "main", "image": "registry.local/load:1",
                                "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
            },
        }

    def _run(self) -> None:
        start = time.monotonic()
        created_at_rate_change = 0
        rate = self.rate
        while not self._stop.wait(_TICK):
            now = time.monotonic()
            if self.rate != rate:
                rate, start, created_at_rate_change = self.rate, now, self.stats.created
            due = created_at_rate_change + int((now - start) * rate)
            while self.stats.created < due:
                self.cluster.apply(self._pod(self.stats.created))
                self.stats.created += 1
            self._complete(now)

    def _complete(self, now: float) -> None:
        while True:
            try:
                at, key = self._bound.get_nowait()
            except queue_mod.Empty:
                break
            self.stats.bound += 1
            self.bind_times.append(at)
            heapq.heappush(self._expiry, (at + self.lifetime, key))
        while self._expiry and self._expiry[0][0] <= now:
            _, key = heapq.heappop(self._expiry)
            if self.cluster.delete("Pod", key) is not None:
                self.stats.completed += 1

"""LoadThreshold: keep pods off nodes whose measured load is above a ratio.

    load  = cpuWeight × CPU utilisation + memoryWeight × memory utilisation   (window means, 0–1)
    ratio = decay × previous ratio + (1 − decay) × load                         (per refresh)

A node whose ratio exceeds maxAllowedLoadRatio (default 0.8) is rejected with `node(s)
overloaded`. The rejection is resolvable: when a refresh brings an overloaded node back under the
ratio the plugin asks for a requeue ("NodeLoad/Update"), so pods it rejected are retried without
waiting for the periodic flush. The ratio is computed on the refresher thread, once per refresh
for all nodes; the filter is one gather and one comparison.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

import numpy as np
from kubeberth import Code, FilterResult, Handle, NodeView, PodView, hookimpl
from pydantic import Field

from .load_aware import LoadAwareArgs, LoadAwarePlugin
from .node_metrics import Snapshot, align

REASON = "node(s) overloaded"
NO_METRICS_REASON = "node(s) had no fresh load metrics"
REQUEUE_EVENT = "NodeLoad/Update"


def load_ratio(cpu: float | None, memory: float | None, cpu_weight: float, memory_weight: float) -> float | None:
    """The weighted load of one node; a missing dimension counts as unknown unless its weight is 0."""
    if (cpu is None and cpu_weight) or (memory is None and memory_weight):
        return None
    return cpu_weight * (cpu or 0.0) + memory_weight * (memory or 0.0)


class LoadThreshold(LoadAwarePlugin):
    name = "LoadThreshold"
    # Retry pods this plugin rejected on node changes and when measured load drops.
    requeue_on = frozenset({"Node/Add", "Node/Update", REQUEUE_EVENT})

    class Args(LoadAwareArgs):
        maxAllowedLoadRatio: float = Field(default=0.8, gt=0)
        cpuWeight: float = Field(default=0.5, ge=0)
        memoryWeight: float = Field(default=0.5, ge=0)
        decay: float = Field(default=0.8, ge=0, lt=1)
        # pass: without fresh metrics, nodes pass (fail open); reject: they are rejected.
        degraded: Literal["pass", "reject"] = "pass"

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        super().__init__(args or self.Args(), {"cpu", "memory"})
        self.ratios: dict[str, float] = {}
        self.seq = 0
        self._aligned: tuple[Any, tuple[np.ndarray, np.ndarray]] = ((), (np.zeros(0, bool), np.zeros(0, bool)))
        self._handle: Any = None
        self._rejected_any = False
        self._subscribed = False
        self._lock = threading.Lock()

    def handoff(self, previous: Any) -> None:
        """Hot reload: keep the smoothed ratios, and the shared refresher, across generations."""
        with previous._lock:
            self.ratios, self.seq = dict(previous.ratios), previous.seq
        super().handoff(previous)

    def on_refresh(self, snap: Snapshot) -> None:
        """Refresher thread: fold the new readings into the smoothed ratios; requeue if a node cooled."""
        a = self.args
        cpu, mem = snap.values.get("cpu", {}), snap.values.get("memory", {})
        ratios: dict[str, float] = {}
        cooled = False
        for key in set(cpu) | set(mem):
            now = load_ratio(cpu.get(key), mem.get(key), a.cpuWeight, a.memoryWeight)
            if now is None:
                continue
            before = self.ratios.get(key)
            ratio = now if before is None else a.decay * before + (1.0 - a.decay) * now
            ratios[key] = ratio
            if before is not None and before > a.maxAllowedLoadRatio >= ratio:
                cooled = True
        with self._lock:
            self.ratios, self.seq = ratios, snap.seq
        if cooled and self._rejected_any and self._handle is not None:
            self._rejected_any = False
            self._handle.request_requeue(REQUEUE_EVENT)

    def _masks(self, nodes: NodeView) -> tuple[np.ndarray, np.ndarray]:
        """(overloaded, no value) over the whole table, rebuilt once per refresh or node change."""
        table = nodes.table
        key = (self.seq, id(table), table.version, table.capacity)
        if self._aligned[0] != key:
            with self._lock:
                ratios, seq = self.ratios, self.seq
            ratio = align(table, {"ratio": ratios}, {"ratio"})["ratio"]
            missing = np.isnan(ratio)
            over = np.zeros(ratio.shape[0], dtype=bool)
            over[~missing] = ratio[~missing] > self.args.maxAllowedLoadRatio
            self._aligned = ((seq, id(table), table.version, table.capacity), (over, missing))
        return self._aligned[1]

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView, handle: Handle) -> FilterResult | None:
        self._handle = handle
        if not self._subscribed:
            self._subscribed = True
            self.load.subscribe(self.on_refresh)
        if not self.load.usable():
            if self.args.degraded == "pass":
                return None
            return FilterResult.reject_where(np.ones(len(nodes), dtype=bool), NO_METRICS_REASON)
        over_all, missing_all = self._masks(nodes)
        over = over_all[nodes.rows]
        if self.args.degraded == "reject":
            rejected = {REASON: over, NO_METRICS_REASON: missing_all[nodes.rows]}
        elif not over.any():
            return None
        else:
            rejected = {REASON: over}
        self._rejected_any = self._rejected_any or bool(over.any())
        return FilterResult.from_rejections(len(nodes), rejected, Code.UNSCHEDULABLE)

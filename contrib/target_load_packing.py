"""TargetLoadPacking (Trimaran): best-fit packing of measured CPU load around a target utilisation.

    predicted% = 100 × (measured CPU of node + pods placed since the metrics were taken + this pod's
                 predicted CPU) / allocatable CPU
    score      = (100 − target) × predicted / target + target          if predicted ≤ target
               = target × (100 − predicted) / (100 − target)            if target < predicted ≤ 100
               = 0                                                      above 100 %

so nodes are filled up to the target (default 40 %) and hot nodes are avoided. A pod's predicted
CPU is its limit, else request × defaultRequestsMultiplier, else defaultRequests (Trimaran's
PredictUtilisation). Pods this scheduler placed within `reportingIntervalSeconds` before the
snapshot (or after it) are added from their prediction, as Trimaran's ScheduledPodsCache does.
Differences from Trimaran: allocatable instead of capacity; a node without fresh metrics scores
neutral (50) instead of 0 unless `degraded: skip`.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np
from kubeberth import MAX_NODE_SCORE, ClusterView, NodeView, PodView, hookimpl
from pydantic import Field

from .load_aware import NEUTRAL_SCORE, DegradableScoreArgs, DegradableScorePlugin
from .pod_usage import predicted_cpu_millis


def target_load_scores(predicted_percent: np.ndarray, target: float) -> np.ndarray:
    """Trimaran's TargetLoadPacking score for predicted utilisation percentages."""
    p = np.asarray(predicted_percent, dtype=float)
    below = (100.0 - target) * p / target + target
    above = target * (100.0 - p) / (100.0 - target)
    score = np.where(p <= target, below, above)
    score = np.where(p > 100.0, 0.0, score)
    # Go's math.Round: half away from zero.
    return np.floor(np.clip(score, 0, MAX_NODE_SCORE) + 0.5).astype(np.int64)


class TargetLoadPacking(DegradableScorePlugin):
    name = "TargetLoadPacking"

    class Args(DegradableScoreArgs):
        targetUtilization: int = Field(default=40, gt=0, lt=100)
        defaultRequestsMilliCPU: int = Field(default=1000, ge=0)
        defaultRequestsMultiplier: float = Field(default=1.5, ge=0)
        reportingIntervalSeconds: float = Field(default=60.0, ge=0)

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        super().__init__(args or self.Args(), {"cpu"})
        # Pods placed recently: (time, row, pod uid, predicted millicores), and their sum per row.
        self.recent: deque[tuple[float, int, str, int]] = deque()
        self._missing = np.zeros(0)

    def handoff(self, previous: Any) -> None:
        """Hot reload: keep the recent placements, and the shared refresher, across generations."""
        self.recent, self._missing = previous.recent, previous._missing.copy()
        super().handoff(previous)

    def _predicted(self, pod: PodView) -> int:
        a = self.args
        return predicted_cpu_millis(pod, a.defaultRequestsMilliCPU, a.defaultRequestsMultiplier)

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView) -> np.ndarray:
        cols = self.load.columns(nodes)
        if cols is None:
            return self.neutral_scores(nodes)
        cpu = cols["cpu"]
        alloc = nodes.allocatable("cpu").astype(float)
        used = cpu * alloc + self._missing_millis(nodes) + self._predicted(pod)
        with np.errstate(divide="ignore", invalid="ignore"):
            predicted = np.where(alloc > 0, 100.0 * used / alloc, 0.0)
        scores = target_load_scores(np.nan_to_num(predicted), self.args.targetUtilization)
        scores[np.isnan(cpu)] = NEUTRAL_SCORE
        return scores

    def _missing_millis(self, nodes: NodeView) -> np.ndarray:
        """Predicted CPU of pods placed since (or just before) the snapshot: not measured yet."""
        since = self.load.snapshot().published_at - self.args.reportingIntervalSeconds
        while self.recent and self.recent[0][0] < since:
            _, row, _, millis = self.recent.popleft()
            self._missing[row] -= millis
        if self._missing.shape[0] < nodes.table.capacity:
            self._missing = np.concatenate([self._missing, np.zeros(nodes.table.capacity - self._missing.shape[0])])
        return self._missing[nodes.rows]

    @hookimpl
    def reserve(self, pod: PodView, node_name: str, cluster: ClusterView) -> None:
        row = cluster.table.row_of.get(node_name)
        if row is None:
            return
        if self._missing.shape[0] <= row:
            self._missing = np.concatenate([self._missing, np.zeros(cluster.table.capacity - self._missing.shape[0])])
        millis = self._predicted(pod)
        self._missing[row] += millis
        self.recent.append((time.time(), row, pod.uid, millis))

    @hookimpl
    def unreserve(self, pod: PodView) -> None:
        kept: deque[tuple[float, int, str, int]] = deque()
        for entry in self.recent:
            if entry[2] == pod.uid:
                self._missing[entry[1]] -= entry[3]
            else:
                kept.append(entry)
        self.recent = kept

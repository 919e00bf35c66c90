"""LoadVariationRiskBalancing (Trimaran): spread pods by the risk of a node's load varying.

For CPU and memory separately, with average and standard deviation of the measured utilisation
over the metrics window (fractions of allocatable) and the pod's request as extra average load:

    mu    = min(1, avg + request / allocatable)
    sigma = min(1, margin × stddev^(1/sensitivity))
    risk  = (mu + sigma) / 2
    score = round(100 × (1 − risk))

and a node scores the worse of its CPU and memory scores (the one available if only one is).
Defaults follow Trimaran: safeVarianceMargin 1, safeVarianceSensitivity 1.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeView, PodInfo, Status, hookimpl
from pydantic import BaseModel, ConfigDict, Field

from .metrics_sources import MetricsSourceArgs
from .node_metrics import NodeLoad

NEUTRAL_SCORE = MAX_NODE_SCORE // 2


def risk_scores(avg: np.ndarray, stddev: np.ndarray, request: float, capacity: np.ndarray,
                margin: float, sensitivity: float) -> np.ndarray:
    """Trimaran's computeScore over arrays: avg/stddev are fractions of capacity, request and
    capacity absolute. Returns float scores in [0, 100]; 0 where capacity ≤ 0."""
    capacity = np.asarray(capacity, dtype=float)
    avg = np.clip(np.asarray(avg, dtype=float), 0.0, 1.0)
    stddev = np.clip(np.asarray(stddev, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.clip(avg + max(request, 0.0) / capacity, 0.0, 1.0)
    if sensitivity > 0:
        sigma = stddev ** (1.0 / sensitivity)
    elif sensitivity == 0:
        sigma = np.where(stddev >= 1.0, 1.0, 0.0)  # x^(+inf)
    else:
        sigma = stddev  # Trimaran applies no root for a negative sensitivity
    sigma = np.clip(sigma * margin, 0.0, 1.0)
    score = (1.0 - (mu + sigma) / 2.0) * MAX_NODE_SCORE
    return np.where(capacity > 0, score, 0.0)


class LoadVariationRiskBalancing:
    name = "LoadVariationRiskBalancing"

    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")
        metrics: MetricsSourceArgs = Field(default_factory=MetricsSourceArgs)
        safeVarianceMargin: float = Field(1.0, ge=0)
        safeVarianceSensitivity: float = Field(1.0, ge=0)
        degraded: Literal["neutral", "skip"] = "neutral"

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()
        self.load = NodeLoad(self.args.metrics, {"cpu", "cpu_stddev", "memory", "memory_stddev"}, owner=self)

    def close(self) -> None:
        self.load.close()

    def handoff(self, previous: Any) -> None:
        """Hot reload: keep the shared refresher (and its values) across generations."""
        self.load.take_over(previous.load)

    @hookimpl
    def pre_score(self, pod: PodInfo) -> Status | None:
        if self.args.degraded == "skip" and not self.load.usable():
            return Status.skip()
        return None

    @hookimpl
    def score(self, pod: PodInfo, nodes: NodeView) -> np.ndarray:
        cols = self.load.columns(nodes)
        if cols is None:
            return np.full(len(nodes), NEUTRAL_SCORE, dtype=np.int64)
        a = self.args
        per_resource = []
        for resource, mean_key, std_key in (("cpu", "cpu", "cpu_stddev"), ("memory", "memory", "memory_stddev")):
            avg, std = cols[mean_key], cols[std_key]
            valid = ~np.isnan(avg)
            s = risk_scores(np.nan_to_num(avg), np.nan_to_num(std), float(pod.requests.get(resource, 0)),
                            nodes.allocatable(resource), a.safeVarianceMargin, a.safeVarianceSensitivity)
            per_resource.append(np.where(valid, s, np.nan))
        cpu, mem = per_resource
        both = np.fmin(cpu, mem)  # the worse risk when both are known, else the known one
        out = np.full(len(nodes), NEUTRAL_SCORE, dtype=np.int64)
        known = ~np.isnan(both)
        out[known] = np.floor(both[known] + 0.5).astype(np.int64)
        return out

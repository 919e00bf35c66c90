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

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeTableView, NodeView, PodView, hookimpl
from pydantic import Field

from .load_aware import NEUTRAL_SCORE, DegradableScoreArgs, DegradableScorePlugin


def sigma_term(stddev: np.ndarray, margin: float, sensitivity: float) -> np.ndarray:
    """min(1, margin × stddev^(1/sensitivity)) with Trimaran's edge cases (stddev a fraction)."""
    stddev = np.clip(np.asarray(stddev, dtype=float), 0.0, 1.0)
    if sensitivity > 0:
        sigma = stddev ** (1.0 / sensitivity)
    elif sensitivity == 0:
        sigma = np.where(stddev >= 1.0, 1.0, 0.0)  # x^(+inf)
    else:
        sigma = stddev  # Trimaran applies no root for a negative sensitivity
    return np.clip(sigma * margin, 0.0, 1.0)


def risk_scores(avg: np.ndarray, stddev: np.ndarray, request: float, capacity: np.ndarray,
                margin: float, sensitivity: float) -> np.ndarray:
    """Trimaran's computeScore over arrays: avg/stddev are fractions of capacity, request and
    capacity absolute. Returns float scores in [0, 100]; 0 where capacity ≤ 0."""
    capacity = np.asarray(capacity, dtype=float)
    avg = np.clip(np.asarray(avg, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.clip(avg + max(request, 0.0) / capacity, 0.0, 1.0)
    sigma = sigma_term(stddev, margin, sensitivity)
    score = (1.0 - (mu + sigma) / 2.0) * MAX_NODE_SCORE
    return np.where(capacity > 0, score, 0.0)


class LoadVariationRiskBalancing(DegradableScorePlugin):
    name = "LoadVariationRiskBalancing"

    class Args(DegradableScoreArgs):
        safeVarianceMargin: float = Field(default=1.0, ge=0)
        safeVarianceSensitivity: float = Field(default=1.0, ge=0)

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        super().__init__(args or self.Args(), {"cpu", "cpu_stddev", "memory", "memory_stddev"})

    def _node_terms(self, cols: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(avg, sigma), each shaped (2, table rows) for CPU and memory: the pod-independent part,
        once per refresh. avg is clipped to 0..1 (NaN where unknown); sigma is the margin term."""
        a = self.args
        avg = np.clip(np.stack([cols["cpu"], cols["memory"]]), 0.0, 1.0)
        std = np.nan_to_num(np.stack([cols["cpu_stddev"], cols["memory_stddev"]]))
        return avg, sigma_term(std, a.safeVarianceMargin, a.safeVarianceSensitivity)

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView) -> np.ndarray:
        terms = self.load.derived(nodes.table, self._node_terms)
        if terms is None:
            return self.neutral_scores(nodes)
        avg, sigma = terms
        rows = nodes.rows
        table = nodes.table
        cap = table.allocatable[rows][:, self._columns(table)].T.astype(float)  # (2, n)
        req = np.array([[pod.requests.get("cpu", 0)], [pod.requests.get("memory", 0)]], dtype=float)
        mu = np.minimum(avg[:, rows] + req / np.maximum(cap, 1e-300), 1.0)
        score = MAX_NODE_SCORE - (MAX_NODE_SCORE / 2.0) * (mu + sigma[:, rows])
        score[cap <= 0] = 0.0  # Trimaran: no capacity, no score
        worse = np.fmin(score[0], score[1])  # the worse risk when both are known, else the known one
        out = np.full(len(nodes), NEUTRAL_SCORE, dtype=np.int64)
        known = ~np.isnan(worse)
        out[known] = np.floor(worse[known] + 0.5).astype(np.int64)
        return out

    @staticmethod
    def _columns(table: NodeTableView) -> list[int]:
        return [table.resource_index["cpu"], table.resource_index["memory"]]

"""CPUUsageScore: prefer nodes whose measured CPU is idle — score = 100 − CPU utilisation % over
the metrics window (the Prometheus CPU score of the "real-time CPU usage" scheduler), read from the
shared node metrics provider instead of one Prometheus query per node per pod."""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeView, hookimpl

from .load_aware import NEUTRAL_SCORE, DegradableScoreArgs, DegradableScorePlugin


def cpu_usage_scores(cpu: np.ndarray, missing_score: int = NEUTRAL_SCORE) -> np.ndarray:
    """100 − utilisation% (rounded); nodes without a value get `missing_score`."""
    out = np.full(cpu.shape, missing_score, dtype=np.int64)
    ok = ~np.isnan(cpu)
    out[ok] = np.rint(MAX_NODE_SCORE * (1.0 - np.clip(cpu[ok], 0.0, 1.0))).astype(np.int64)
    return out


class CPUUsageScore(DegradableScorePlugin):
    name = "CPUUsageScore"

    class Args(DegradableScoreArgs):
        """The metrics source and `degraded` (see kubeberth.contrib.load_aware)."""

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        super().__init__(args or self.Args(), {"cpu"})

    @hookimpl
    def score(self, nodes: NodeView) -> np.ndarray:
        scores = self.load.derived(nodes.table, _all_scores)  # once per refresh, not per pod
        if scores is None:
            return self.neutral_scores(nodes)
        return scores[nodes.rows]


def _all_scores(cols: dict[str, np.ndarray]) -> np.ndarray:
    return cpu_usage_scores(cols["cpu"])

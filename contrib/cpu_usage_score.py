"""CPUUsageScore: prefer nodes whose measured CPU is idle — score = 100 − CPU utilisation % over
the metrics window (the Prometheus CPU score of the "real-time CPU usage" scheduler), read from the
shared node metrics provider instead of one Prometheus query per node per pod."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeView, PodInfo, Status, hookimpl
from pydantic import BaseModel, ConfigDict, Field

from .metrics_sources import MetricsSourceArgs
from .node_metrics import NodeLoad

NEUTRAL_SCORE = MAX_NODE_SCORE // 2


def cpu_usage_scores(cpu: np.ndarray, missing_score: int = NEUTRAL_SCORE) -> np.ndarray:
    """100 − utilisation% (rounded); nodes without a value get `missing_score`."""
    out = np.full(cpu.shape, missing_score, dtype=np.int64)
    ok = ~np.isnan(cpu)
    out[ok] = np.rint(MAX_NODE_SCORE * (1.0 - np.clip(cpu[ok], 0.0, 1.0))).astype(np.int64)
    return out


class CPUUsageScore:
    name = "CPUUsageScore"

    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")
        metrics: MetricsSourceArgs = Field(default_factory=MetricsSourceArgs)
        # neutral: every node scores 50 when metrics are stale or missing; skip: this plugin sits
        # the cycle out (its weight drops from the sum) while the whole source is stale.
        degraded: Literal["neutral", "skip"] = "neutral"

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()
        self.load = NodeLoad(self.args.metrics, {"cpu"}, owner=self)

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
    def score(self, nodes: NodeView) -> np.ndarray:
        scores = self.load.derived(nodes.table, _all_scores)  # once per refresh, not per pod
        if scores is None:
            return np.full(len(nodes), NEUTRAL_SCORE, dtype=np.int64)
        return scores[nodes.rows]


def _all_scores(cols: dict[str, np.ndarray]) -> np.ndarray:
    return cpu_usage_scores(cols["cpu"])

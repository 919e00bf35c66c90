"""The base of the load-aware contrib plugins: a plugin that reads measured node load through a
shared `NodeLoad` (contrib/node_metrics.py) and what every such plugin does the same way.

- `LoadAwareArgs`: the `metrics` block (where the values come from), strict like kube-scheduler's
  args; `DegradableScoreArgs` adds `degraded: neutral | skip`.
- `LoadAwarePlugin`: owns `self.load` over the metrics it names, releases it in `close()`, and on
  a hot reload takes over its predecessor's provider in `handoff()` (so the new generation starts
  from the old one's values, never from an empty cache). A subclass that keeps more state across
  a reload extends `handoff` and calls `super().handoff(previous)`. `neutral_scores(nodes)` is a
  score without fresh metrics: every candidate NEUTRAL_SCORE.
- `weighted_sums`: the weighted sum of several per-node signals over the ones each node has (a
  missing value drops out of that node's sum instead of counting as zero).
- `DegradableScorePlugin`: a score plugin that, with `degraded: skip`, sits the cycle out while the
  whole metrics source is stale (PreScore Skip: its weight drops from the sum), and otherwise scores
  nodes without fresh values `NEUTRAL_SCORE`.

Only kubeberth's public API is used here, as for any third-party plugin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeView, PodView, Status, hookimpl
from kubeberth.api.helpers import StrictArgs
from pydantic import Field

from .metrics_sources import MetricsSourceArgs
from .node_metrics import NodeLoad

__all__ = [
    "NEUTRAL_SCORE",
    "DegradableScoreArgs",
    "DegradableScorePlugin",
    "LoadAwareArgs",
    "LoadAwarePlugin",
    "weighted_sums",
]

NEUTRAL_SCORE = MAX_NODE_SCORE // 2
"""The score of a node without fresh metrics: the middle, so it is neither preferred nor avoided."""


class LoadAwareArgs(StrictArgs):
    """Args of a load-aware plugin: its metrics source (equal blocks share one refresher)."""

    metrics: MetricsSourceArgs = Field(default_factory=MetricsSourceArgs)


class DegradableScoreArgs(LoadAwareArgs):
    """With `degraded`: neutral, every node scores NEUTRAL_SCORE while metrics are stale or missing;
    skip, the plugin sits the cycle out (its weight drops from the sum) while the whole source is stale."""

    degraded: Literal["neutral", "skip"] = "neutral"


class LoadAwarePlugin:
    """A plugin reading node load through `self.load`, a NodeLoad over the metrics it names."""

    args: LoadAwareArgs

    def __init__(self, args: LoadAwareArgs, metrics: set[str]) -> None:
        self.args = args
        self.load = NodeLoad(args.metrics, metrics, owner=self)

    def close(self) -> None:
        """Release the shared refresher (the last release stops its thread)."""
        self.load.close()

    def handoff(self, previous: Any) -> None:
        """Hot reload: keep the shared refresher (and its values) across generations."""
        self.load.take_over(previous.load)

    @staticmethod
    def neutral_scores(nodes: NodeView) -> np.ndarray:
        """Every candidate NEUTRAL_SCORE: what a score returns without fresh metrics."""
        return np.full(len(nodes), NEUTRAL_SCORE, dtype=np.int64)


class DegradableScorePlugin(LoadAwarePlugin):
    """A load-aware score plugin with `degraded: neutral | skip` (see DegradableScoreArgs)."""

    args: DegradableScoreArgs

    @hookimpl
    def pre_score(self, pod: PodView) -> Status | None:
        """Skip the cycle under `degraded: skip` while the metrics source is unusable."""
        if self.args.degraded == "skip" and not self.load.usable():
            return Status.skip()
        return None


def weighted_sums(
    signals: dict[str, np.ndarray],
    weights: dict[str, float],
    count: int,
    level: Callable[[str, np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Per node (Σ weight·level(signal), Σ weight) over the signals it has a value for (NaN =
    missing); signals of weight 0 are left out. `level(name, values)` maps a signal's known values
    to 0–1; a node with no signal has weight sum 0."""
    num = np.zeros(count)
    den = np.zeros(count)
    for name, values in signals.items():
        w = weights.get(name, 0.0)
        if not w:
            continue
        ok = ~np.isnan(values)
        num[ok] += w * level(name, values[ok])
        den[ok] += w
    return num, den

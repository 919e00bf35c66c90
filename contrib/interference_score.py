"""InterferenceScore: prefer nodes where running work is not stalled on shared resources.

The practical kernel signal for noisy neighbours is pressure stall information (PSI), which
node_exporter exports as node_pressure_{cpu,memory,io}_waiting_seconds_total: its rate is the
share of time some task waited for that resource. An optional extra metric (e.g. from an eBPF
exporter measuring run-queue latency or LLC misses, defined in metrics.queries) can be added.

    contention = Σ weight·min(signal / saturation, 1) / Σ weight     over the signals a node has
    score      = round(100 × (1 − contention))

`saturation` is the signal level that counts as fully contended (default 0.25 = stalled a quarter
of the time). A node without any fresh signal scores neutral (50).
"""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE, NodeView, hookimpl
from pydantic import Field

from .load_aware import NEUTRAL_SCORE, LoadAwareArgs, LoadAwarePlugin, weighted_sums


def interference_scores(signals: dict[str, np.ndarray], weights: dict[str, float], saturation: dict[str, float],
                        count: int) -> np.ndarray:
    """round(100 × (1 − contention)) per node, contention the weighted mean of the signals it has,
    each min(signal / saturation, 1); NEUTRAL_SCORE for a node without any."""
    num, den = weighted_sums(
        signals, weights, count, lambda name, values: np.minimum(np.clip(values, 0.0, None) / saturation[name], 1.0)
    )
    out = np.full(count, NEUTRAL_SCORE, dtype=np.int64)
    has = den > 0
    out[has] = np.floor(MAX_NODE_SCORE * (1.0 - num[has] / den[has]) + 0.5).astype(np.int64)
    return out


class InterferenceScore(LoadAwarePlugin):
    name = "InterferenceScore"

    class Args(LoadAwareArgs):
        cpuWeight: float = Field(default=1.0, ge=0)
        memoryWeight: float = Field(default=1.0, ge=0)
        ioWeight: float = Field(default=1.0, ge=0)
        saturation: float = Field(default=0.25, gt=0, le=1)
        extraMetric: str | None = None  # a metrics.queries name, e.g. an eBPF exporter's
        extraWeight: float = Field(default=1.0, ge=0)
        extraSaturation: float = Field(default=1.0, gt=0)

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        args = args or self.Args()
        wanted = {"cpu_psi", "memory_psi", "io_psi"}
        if args.extraMetric:
            wanted.add(args.extraMetric)
        super().__init__(args, wanted)

    def _all_scores(self, cols: dict[str, np.ndarray]) -> np.ndarray:
        a = self.args
        signals = {"cpu_psi": cols["cpu_psi"], "memory_psi": cols["memory_psi"], "io_psi": cols["io_psi"]}
        weights = {"cpu_psi": a.cpuWeight, "memory_psi": a.memoryWeight, "io_psi": a.ioWeight}
        saturation = {"cpu_psi": a.saturation, "memory_psi": a.saturation, "io_psi": a.saturation}
        if a.extraMetric:
            signals["extra"] = cols[a.extraMetric]
            weights["extra"] = a.extraWeight
            saturation["extra"] = a.extraSaturation
        return interference_scores(signals, weights, saturation, len(cols["cpu_psi"]))

    @hookimpl
    def score(self, nodes: NodeView) -> np.ndarray:
        scores = self.load.derived(nodes.table, self._all_scores)  # once per refresh, not per pod
        if scores is None:
            return self.neutral_scores(nodes)
        return scores[nodes.rows]

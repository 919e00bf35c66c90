"""MultiDimensionScore: one weighted score over several signals, each mapped to 0–1 (1 = best):

    cpu       1 − CPU utilisation (window mean)
    memory    1 − memory utilisation
    latency   1 − min(latency / maxLatencyMs, 1), from a metric you define (metrics.queries)
    topology  closeness to the pod's peers (placed pods of its namespace with the same `peerLabel`
              value): same node or rack 1, same zone 0.5, elsewhere 0

    score = 100 × Σ weight·signal / Σ weight   over the signals a node has

A signal without data (no latency metric configured, no peers, a node missing from the metrics)
drops out of that node's sum instead of counting as zero.
"""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE, ClusterView, NodeView, PodView, hookimpl
from pydantic import BaseModel, ConfigDict, Field

from .load_aware import NEUTRAL_SCORE, LoadAwareArgs, LoadAwarePlugin, weighted_sums


class Weights(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cpu: float = Field(default=0.4, ge=0)
    memory: float = Field(default=0.3, ge=0)
    latency: float = Field(default=0.2, ge=0)
    topology: float = Field(default=0.3, ge=0)


def combine(signals: dict[str, np.ndarray], weights: dict[str, float], count: int) -> np.ndarray:
    """Weighted mean of the available signals per node, scaled to 0–100 (neutral if none)."""
    num, den = weighted_sums(signals, weights, count, lambda _name, values: np.clip(values, 0.0, 1.0))
    out = np.full(count, NEUTRAL_SCORE, dtype=np.int64)
    has = den > 0
    out[has] = np.floor(MAX_NODE_SCORE * num[has] / den[has] + 0.5).astype(np.int64)
    return out


def topology_closeness(pod: PodView, nodes: NodeView, cluster: ClusterView, peer_label: str,
                       rack_label: str, zone_label: str) -> np.ndarray:
    """1 / 0.5 / 0 per candidate by the closest peer; NaN everywhere if the pod has no peers."""
    out = np.full(len(nodes), np.nan)
    value = pod.labels.get(peer_label)
    if value is None:
        return out
    counts = cluster.label_counts
    groups = counts.matching_groups(lambda ns, labels: ns == pod.namespace and labels.get(peer_label) == value)
    if not groups:
        return out
    peers = counts.per_node(groups)
    peer_rows = np.flatnonzero(peers)
    if peer_rows.size == 0:
        return out
    out[:] = 0.0
    table = nodes.table
    for level, label in ((0.5, zone_label), (1.0, rack_label)):
        ids, _ = table.label_values(label)
        peer_ids = np.unique(ids[peer_rows])
        peer_ids = peer_ids[peer_ids >= 0]
        if peer_ids.size:
            out[np.isin(ids[nodes.rows], peer_ids)] = level
    out[peers[nodes.rows] > 0] = 1.0
    return out


class MultiDimensionScore(LoadAwarePlugin):
    name = "MultiDimensionScore"

    class Args(LoadAwareArgs):
        weights: Weights = Field(default_factory=Weights)
        latencyMetric: str = "latency_ms"
        maxLatencyMs: float = Field(default=500.0, gt=0)
        peerLabel: str = "app"
        rackLabel: str = "topology.kubernetes.io/rack"
        zoneLabel: str = "topology.kubernetes.io/zone"

    args: Args

    def __init__(self, args: Args | None = None) -> None:
        args = args or self.Args()
        super().__init__(args, {"cpu", "memory", args.latencyMetric})

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView, cluster: ClusterView) -> np.ndarray:
        a = self.args
        n = len(nodes)
        cols = self.load.columns(nodes) or {}
        nan = np.full(n, np.nan)
        signals = {
            "cpu": 1.0 - cols.get("cpu", nan),
            "memory": 1.0 - cols.get("memory", nan),
            "latency": 1.0 - np.minimum(cols.get(a.latencyMetric, nan) / a.maxLatencyMs, 1.0),
            "topology": topology_closeness(pod, nodes, cluster, a.peerLabel, a.rackLabel, a.zoneLabel),
        }
        return combine(signals, a.weights.model_dump(), n)

"""MultiDimensionScore: the weighted mean by hand, missing signals, closeness to peers."""

from __future__ import annotations

import numpy as np
from kubeberth.cache.podinfo import PodInfo
from kubeberth.contrib.multi_dimension_score import MultiDimensionScore, combine
from snapshot_util import cluster_of, pod, snapshot_args, view


def test_combine_by_hand() -> None:
    signals = {"cpu": np.array([0.5, 1.0, np.nan]), "memory": np.array([1.0, np.nan, np.nan])}
    # node 0: (0.4*0.5 + 0.3*1.0) / 0.7 = 0.714 -> 71; node 1: cpu alone -> 100; node 2: nothing -> 50
    assert combine(signals, {"cpu": 0.4, "memory": 0.3}, 3).tolist() == [71, 100, 50]


def test_topology_prefers_peers_rack_then_zone(tmp_path) -> None:
    labels = {
        "a": {"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/rack": "r1"},
        "b": {"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/rack": "r1"},
        "c": {"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/rack": "r2"},
        "d": {"topology.kubernetes.io/zone": "z2", "topology.kubernetes.io/rack": "r3"},
    }
    cluster = cluster_of(*((n, "4", "8Gi") for n in "abcd"), labels=labels)
    peer = PodInfo.from_dict({"metadata": {"name": "peer", "uid": "peer", "labels": {"app": "db"}},
                              "spec": {"nodeName": "a", "containers": []}})
    cluster.upsert_pod(peer)
    only_topology = {"cpu": 0, "memory": 0, "latency": 0, "topology": 1}
    plugin = MultiDimensionScore(MultiDimensionScore.Args(metrics=snapshot_args(tmp_path, {}), weights=only_topology))
    scores = plugin.score(pod=pod("new", labels={"app": "db"}), nodes=view(cluster), cluster=cluster)
    assert scores.tolist() == [100, 100, 50, 0]  # same node, same rack, same zone, elsewhere
    lonely = plugin.score(pod=pod("x", labels={"app": "web"}), nodes=view(cluster), cluster=cluster)
    assert lonely.tolist() == [50, 50, 50, 50]  # no peers: no topology signal


def test_metrics_and_latency(tmp_path) -> None:
    cluster = cluster_of(("a", "4", "8Gi"), ("b", "4", "8Gi"))
    values = {"a": {"cpu": 0.2, "memory": 0.4, "latency_ms": 50}, "b": {"cpu": 0.8, "memory": 0.9, "latency_ms": 500}}
    plugin = MultiDimensionScore(MultiDimensionScore.Args(metrics=snapshot_args(tmp_path, values)))
    # a: (0.4*0.8 + 0.3*0.6 + 0.2*0.9) / 0.9 = 0.756 -> 76; b: (0.4*0.2 + 0.3*0.1 + 0) / 0.9 = 0.122 -> 12
    assert plugin.score(pod=pod(), nodes=view(cluster), cluster=cluster).tolist() == [76, 12]

"""LoadThreshold: weighted ratio, smoothing, the reason, fail-open/closed, and requeue on cooling."""

from __future__ import annotations

import numpy as np
from kubeberth import Code
from kubeberth.contrib.load_threshold import REASON, LoadThreshold, load_ratio
from kubeberth.contrib.node_metrics import Snapshot
from snapshot_util import cluster_of, pod, snapshot_args, view


def test_ratio_by_hand() -> None:
    assert load_ratio(0.9, 0.7, 0.5, 0.5) == 0.8
    assert load_ratio(0.9, None, 1.0, 0.0) == 0.9
    assert load_ratio(None, 0.5, 0.5, 0.5) is None


def test_rejects_overloaded_nodes(tmp_path) -> None:
    cluster = cluster_of(("a", "1", "1Gi"), ("b", "1", "1Gi"), ("c", "1", "1Gi"))
    values = {"a": {"cpu": 0.95, "memory": 0.9}, "b": {"cpu": 0.5, "memory": 0.5}}
    plugin = LoadThreshold(LoadThreshold.Args(metrics=snapshot_args(tmp_path, values)))
    result = plugin.filter(pod=pod(), nodes=view(cluster), handle=None)
    assert result.feasible.tolist() == [False, True, True]  # c: no metrics, fail open
    (rejection,) = result.rejections
    assert rejection.reason == REASON == "node(s) overloaded" and rejection.code == Code.UNSCHEDULABLE
    closed = LoadThreshold(LoadThreshold.Args(metrics=snapshot_args(tmp_path, values), degraded="reject"))
    assert closed.filter(pod=pod(), nodes=view(cluster), handle=None).feasible.tolist() == [False, True, False]


class RecordingHandle:
    def __init__(self) -> None:
        self.events: list[str] = []

    def request_requeue(self, event: str) -> None:
        self.events.append(event)


def test_smoothing_and_requeue_when_a_node_cools(tmp_path) -> None:
    plugin = LoadThreshold(LoadThreshold.Args(metrics=snapshot_args(tmp_path, {}), decay=0.5))
    handle = RecordingHandle()
    plugin._handle, plugin._rejected_any = handle, True  # as after a filter call that rejected
    plugin.on_refresh(Snapshot(1, 1.0, {"cpu": {"a": 1.0}, "memory": {"a": 1.0}}, True))
    assert plugin.ratios["a"] == 1.0 and handle.events == []
    plugin.on_refresh(Snapshot(2, 2.0, {"cpu": {"a": 0.2}, "memory": {"a": 0.2}}, True))
    assert plugin.ratios["a"] == 0.6  # 0.5 × 1.0 + 0.5 × 0.2
    assert handle.events == ["NodeLoad/Update"]
    assert "NodeLoad/Update" in plugin.requeue_on
    assert np.isclose(plugin.ratios["a"], 0.6)

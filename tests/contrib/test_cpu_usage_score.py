"""CPUUsageScore: 100 − CPU % by hand; missing and stale sources degrade as configured."""

from __future__ import annotations

import numpy as np
from kubeberth import Code
from kubeberth.contrib.cpu_usage_score import CPUUsageScore, cpu_usage_scores
from snapshot_util import cluster_of, pod, snapshot_args, view


def test_formula() -> None:
    assert cpu_usage_scores(np.array([0.0, 0.254, 0.5, 1.0, np.nan])).tolist() == [100, 75, 50, 0, 50]


def test_scores_from_snapshot_by_name_and_internal_ip(tmp_path) -> None:
    cluster = cluster_of(("a", "4", "1Gi"), ("b", "4", "1Gi"), ("c", "4", "1Gi"))
    cluster.upsert_node({"metadata": {"name": "b"}, "status": {"allocatable": {"cpu": "4"},
                         "addresses": [{"type": "InternalIP", "address": "10.0.0.2"}]}})
    plugin = CPUUsageScore(CPUUsageScore.Args(metrics=snapshot_args(tmp_path, {"a": {"cpu": 0.9}, "10.0.0.2": {"cpu": 0.2}})))
    assert plugin.score(nodes=view(cluster)).tolist() == [10, 80, 50]


def test_skip_mode_skips_when_source_is_down(tmp_path) -> None:
    # Nothing listens on this port: the source never produces data, so the plugin sits out.
    plugin = CPUUsageScore(CPUUsageScore.Args(metrics={"address": "http://127.0.0.1:9", "timeout": 0.2}, degraded="skip"))
    try:
        status = plugin.pre_score(pod=pod())
        assert status is not None and status.code == Code.SKIP
        assert plugin.score(nodes=view(cluster_of(("a", "1", "1Gi")))).tolist() == [50]
    finally:
        plugin.close()

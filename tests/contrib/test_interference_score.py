"""InterferenceScore: PSI shares against saturation, by hand; an extra (eBPF) signal."""

from __future__ import annotations

from kubeberth.contrib.interference_score import InterferenceScore
from snapshot_util import cluster_of, snapshot_args, view


def test_psi_by_hand(tmp_path) -> None:
    cluster = cluster_of(("a", "4", "8Gi"), ("b", "4", "8Gi"), ("c", "4", "8Gi"))
    values = {
        "a": {"cpu_psi": 0.0, "memory_psi": 0.0, "io_psi": 0.0},
        "b": {"cpu_psi": 0.125, "memory_psi": 0.0, "io_psi": 0.5},  # (0.5 + 0 + 1) / 3 = 0.5 -> 50
        # c: no signal -> neutral
    }
    plugin = InterferenceScore(InterferenceScore.Args(metrics=snapshot_args(tmp_path, values)))
    assert plugin.score(nodes=view(cluster)).tolist() == [100, 50, 50]


def test_extra_metric(tmp_path) -> None:
    cluster = cluster_of(("a", "4", "8Gi"))
    values = {"a": {"cpu_psi": 0.0, "memory_psi": 0.0, "io_psi": 0.0, "runq_latency": 4.0}}
    args = InterferenceScore.Args(metrics=snapshot_args(tmp_path, values), extraMetric="runq_latency",
                                  extraWeight=3, extraSaturation=8.0)
    # (0 + 0 + 0 + 3 × 0.5) / 6 = 0.25 -> 75
    assert InterferenceScore(args).score(nodes=view(cluster)).tolist() == [75]

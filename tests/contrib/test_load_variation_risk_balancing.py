"""LoadVariationRiskBalancing: Trimaran's computeScore cases and the worse-of-CPU-and-memory rule."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth.contrib.load_variation_risk_balancing import LoadVariationRiskBalancing, risk_scores
from snapshot_util import cluster_of, container, pod, snapshot_args, view


@pytest.mark.parametrize(
    ("name", "margin", "sensitivity", "capacity", "req", "avg", "std", "expected"),
    [  # scheduler-plugins loadvariationriskbalancing/analysis_test.go TestComputeScore
        ("valid data", 1, 1, 100, 10, 40, 36, 57),
        ("zero capacity", 1, 2, 0, 10, 40, 36, 0),
        ("negative usedAvg", 1, 2, 100, 10, -40, 36, 65),
        ("large usedAvg", 1, 2, 100, 10, 200, 36, 20),
        ("negative usedStdev", 1, 2, 100, 10, 40, -36, 75),
        ("large usedStdev", 1, 2, 100, 10, 40, 120, 25),
        ("negative margin", -1, 1, 100, 10, 40, 36, 75),
        ("negative sensitivity", 1, -1, 100, 10, 40, 36, 57),
        ("zero sensitivity", 1, 0, 100, 10, 40, 36, 75),
    ],
)
def test_trimaran_compute_score(name, margin, sensitivity, capacity, req, avg, std, expected) -> None:
    cap = max(capacity, 1e-300)
    score = risk_scores(np.array([avg / cap]), np.array([std / cap]), req, np.array([capacity]), margin, sensitivity)
    assert int(np.floor(score[0] + 0.5)) == expected


def test_node_scores_the_worse_resource(tmp_path) -> None:
    cluster = cluster_of(("a", "1", "1000Mi"), ("b", "1", "1000Mi"), ("c", "1", "1000Mi"))
    values = {
        "a": {"cpu": 0.4, "cpu_stddev": 0.36, "memory": 0.2, "memory_stddev": 0.1},
        "b": {"cpu": 0.2},  # memory unknown: the CPU score alone
        # "c" missing: neutral
    }
    lvrb = LoadVariationRiskBalancing(LoadVariationRiskBalancing.Args(metrics=snapshot_args(tmp_path, values)))
    p = pod("p", [container({"cpu": "100m", "memory": "100Mi"})])
    # a: cpu mu .5 sigma .36 -> 57; memory mu .3 sigma .1 -> 80 => 57
    # b: cpu mu .3 sigma 0 -> 85
    assert lvrb.score(pod=p, nodes=view(cluster)).tolist() == [57, 85, 50]

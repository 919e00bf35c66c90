"""TargetLoadPacking: Trimaran's published test cases, the formula by hand, predictions, recent pods."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth.contrib.target_load_packing import TargetLoadPacking, target_load_scores
from snapshot_util import cluster_of, container, pod, snapshot_args, view


def plugin(tmp_path, values, **args):
    return TargetLoadPacking(TargetLoadPacking.Args(metrics=snapshot_args(tmp_path, values), **args))


@pytest.mark.parametrize(
    ("case", "cpu", "p", "expected"),
    [  # scheduler-plugins targetloadpacking_test.go, node of 1000m, target 40
        ("new node", 0.0, pod(), 40),
        ("hot node", 0.5, pod(), 33),
        ("excess utilization returns min score", 0.3, pod(containers=[container({"cpu": "1"}, {"cpu": "1"})]), 0),
    ],
)
def test_trimaran_cases(tmp_path, case, cpu, p, expected) -> None:
    cluster = cluster_of(("node-1", "1000m", "1Gi"))
    assert plugin(tmp_path, {"node-1": {"cpu": cpu}}).score(pod=p, nodes=view(cluster)).tolist() == [expected]


def test_formula_by_hand() -> None:
    # target 40: 20 % -> 60*20/40+40 = 70; 40 -> 100; 70 -> 40*30/60 = 20; 100 -> 0; 101 -> 0
    assert target_load_scores(np.array([0, 20, 40, 70, 100, 101]), 40).tolist() == [40, 70, 100, 20, 0, 0]
    # target 70 (README's "around 80 %" example): 35 -> 30*35/70+70 = 85; 85 -> 70*15/30 = 35
    assert target_load_scores(np.array([35, 85]), 70).tolist() == [85, 35]


def test_prediction_limit_then_request_times_multiplier_then_default(tmp_path) -> None:
    cluster = cluster_of(("n", "10", "1Gi"))  # 10 cores: predicted% = millis / 100
    tlp = plugin(tmp_path, {"n": {"cpu": 0.0}})
    nodes = view(cluster)
    limit = pod("a", [container({"cpu": "500m"}, {"cpu": "2"})])  # 2000m -> 20 % -> 70
    request = pod("b", [container({"cpu": "2"})])  # 2000*1.5 = 3000m -> 30 % -> 85
    besteffort = pod("c", [container(), container()])  # 2 × 1000m -> 20 % -> 70
    assert [tlp.score(pod=p, nodes=nodes)[0] for p in (limit, request, besteffort)] == [70, 85, 70]


def test_pods_placed_since_the_snapshot_count_as_load(tmp_path) -> None:
    cluster = cluster_of(("a", "10", "1Gi"), ("b", "10", "1Gi"))
    tlp = plugin(tmp_path, {"a": {"cpu": 0.1}, "b": {"cpu": 0.1}})
    nodes = view(cluster)
    p = pod("p", [container({"cpu": "1"}, {"cpu": "1"})])  # 1000m = 10 %
    assert tlp.score(pod=p, nodes=nodes).tolist() == [70, 70]  # 20 % each
    tlp.reserve(pod=pod("q", [container({"cpu": "1"}, {"cpu": "1"})]), node_name="a", cluster=cluster)
    assert tlp.score(pod=p, nodes=nodes).tolist() == [85, 70]  # a: 30 % now, closer to the target
    tlp.unreserve(pod=pod("q"))
    assert tlp.score(pod=p, nodes=nodes).tolist() == [70, 70]


def test_missing_node_is_neutral_and_skip_mode_skips(tmp_path) -> None:
    cluster = cluster_of(("a", "1", "1Gi"), ("b", "1", "1Gi"))
    tlp = plugin(tmp_path, {"a": {"cpu": 0.0}})
    assert tlp.score(pod=pod(), nodes=view(cluster)).tolist() == [40, 50]
    assert tlp.pre_score(pod=pod()) is None

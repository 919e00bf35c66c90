"""PodGroupPodsCount: kube-scheduler's podgrouppodscount test cases (TestScorePlacement,
TestNormalizePlacementScore), and its place in the default profile under its gate."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code
from kubeberth.api.features import FeatureGates
from kubeberth.api.placement import PlacementScore, PodGroupAssignments, PodGroupInfo, ProposedAssignment
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.pod_group_pods_count import PodGroupPodsCount
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import cluster_of, make_node, make_pod, make_pod_group
from upstream import cases


def _pod(name: str, group: str, node: str = "") -> dict[str, Any]:
    """st.MakePod().Name(name).Namespace("default").UID(name).PodGroupName(group)[.Node(node)]."""
    extra: dict[str, Any] = {"schedulingGroup": {"podGroupName": group}}
    if node:
        extra["nodeName"] = node
    return make_pod(name, namespace="default", uid=name, **extra)


PROPOSED = PodGroupAssignments(proposed_assignments=(
    ProposedAssignment(PodInfo.from_dict(_pod("proposed-pod-1", "root")), "node1"),
    ProposedAssignment(PodInfo.from_dict(_pod("proposed-pod-2", "root")), "node2"),
))

# makePodGroup() / makeCompositePodGroup(): the group being scored, "root" in "default".
PG, CPG = "pg", "cpg"
SCORE_PLACEMENT = [
    {"name": "TestScorePlacement/existing assigned and assumed pods", "podGroupInfo": PG,
     "assignedPods": [{"assignedNode": "node2"}, {"assignedNode": "node3"}],
     "assumedPods": [{"assignedNode": "node1"}], "expectedScore": 5},  # 1 assumed + 2 assigned + 2 proposed
    {"name": "TestScorePlacement/no assumed pods", "podGroupInfo": PG,
     "assignedPods": [{"assignedNode": "node1"}], "expectedScore": 3},  # 1 assigned + 2 proposed
    {"name": "TestScorePlacement/no assigned pods", "podGroupInfo": PG,
     "assumedPods": [{"assignedNode": "node1"}], "expectedScore": 3},  # 1 assumed + 2 proposed
    {"name": "TestScorePlacement/no assigned pods, no assumed pods", "podGroupInfo": PG,
     "expectedScore": 2},  # 2 proposed
    {"name": "TestScorePlacement/for cpg existing assigned and assumed pods across multi-level hierarchies",
     "podGroupInfo": CPG,
     "assignedPods": [{"pathToRoot": ["pg1", "cpg1"], "assignedNode": "node2"},
                      {"pathToRoot": ["pg2", "cpg2"], "assignedNode": "node3"}],
     "assumedPods": [{"pathToRoot": ["pg1", "cpg1"], "assignedNode": "node1"}], "expectedScore": 5},
    {"name": "TestScorePlacement/for cpg with no assumed pods", "podGroupInfo": CPG,
     "assignedPods": [{"pathToRoot": ["pg1", "cpg1"], "assignedNode": "node1"}], "expectedScore": 3},
    {"name": "TestScorePlacement/for cpg with no assigned pods", "podGroupInfo": CPG,
     "assumedPods": [{"pathToRoot": ["pg1", "cpg1"], "assignedNode": "node1"}], "expectedScore": 3},
    {"name": "TestScorePlacement/for cpg with no assigned pods, no assumed pods", "podGroupInfo": CPG,
     "expectedScore": 2},
]


def _handle(cluster: Any) -> FrameworkHandle:
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    return FrameworkHandle(fw, EmbeddedCluster(), cluster, lambda: 0.0, {}, None, lambda pods: None)


@pytest.mark.parametrize("tt", cases(SCORE_PLACEMENT))
def test_score_placement(tt: dict[str, Any]) -> None:
    """The group's assigned pods (bound, spec.nodeName) and assumed pods (placed by a cycle, binding in
    flight) count with the placement's proposed ones."""
    group = make_pod_group("root")
    cluster = cluster_of(make_node("node1"), make_node("node2"), make_node("node3"), group)
    for i, p in enumerate(tt.get("assignedPods", [])):
        cluster.upsert_pod(PodInfo.from_dict(_pod(f"assigned-pod{i}", "root", p["assignedNode"])))
    for i, p in enumerate(tt.get("assumedPods", [])):
        pod = PodInfo.from_dict(_pod(f"assumed-pod{i}", "root"))
        cluster.upsert_pod(pod)
        cluster.assume(pod, p["assignedNode"])
    info = PodGroupInfo("default", "root", group)
    score = PodGroupPodsCount().placement_score(pod_group=info, placement=PROPOSED, handle=_handle(cluster))
    assert score == tt["expectedScore"]


NORMALIZE = [
    # score * (MaxScore - MinScore) / maxCount with integer division: 10*100/110 = 9, 50*100/110 = 45.
    {"name": "TestNormalizePlacementScore/distinct scores", "scores": [10, 50, 110],
     "expectedNormalizedScores": [9, 45, 100]},
    {"name": "TestNormalizePlacementScore/equal scores", "scores": [50, 50], "expectedNormalizedScores": [100, 100]},
    {"name": "TestNormalizePlacementScore/single score", "scores": [50], "expectedNormalizedScores": [100]},
    # to test that normalization will not distribute it evenly
    {"name": "TestNormalizePlacementScore/some minimal score that is far from a group of scores located closely",
     "scores": [11, 100, 101, 102], "expectedNormalizedScores": [10, 98, 99, 100]},
    {"name": "TestNormalizePlacementScore/zero scores", "scores": [0, 0],
     "expectedError": "no pods from pod group are assigned to any of the candidate placements"},
]


@pytest.mark.parametrize("tt", cases(NORMALIZE))
def test_normalize_placement_score(tt: dict[str, Any]) -> None:
    scores = [PlacementScore(score=s) for s in tt["scores"]]
    status = PodGroupPodsCount().normalize_placement_score(pod_group=PodGroupInfo("", "pg1"), scores=scores)
    if "expectedError" in tt:
        assert status is not None and status.code == Code.ERROR
        assert status.message == tt["expectedError"]
        return
    assert status is None
    assert [s.score for s in scores] == tt["expectedNormalizedScores"]


def test_the_gate_adds_it_to_the_default_profile_with_weight_1() -> None:
    """applyTopologyAwareWorkloadScheduling: multiPoint PodGroupPodsCount, weight 1 (placementScore, after
    NodeResourcesFit, a PlacementScorePlugin of the default multiPoint set)."""
    off = build_generation(feature_gates=FeatureGates.parse("GenericWorkload=true")).default_profile
    assert off.enabled("placement_score") == ["NodeResourcesFit"]
    gates = FeatureGates.parse("GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
    on = build_generation(feature_gates=gates).default_profile
    assert [(h.plugin, h.weight) for h in on.points["placement_score"]] == [("NodeResourcesFit", 1),
                                                                            ("PodGroupPodsCount", 1)]
    assert on.enabled("score") == off.enabled("score")  # not a node score plugin


def test_enabled_by_name_with_a_weight_in_placement_score() -> None:
    config = parse_configuration({"profiles": [{"schedulerName": "kubeberth", "plugins": {
        "placementScore": {"enabled": [{"name": "PodGroupPodsCount", "weight": 3}]}}}]})
    fw = build_generation(config=config).default_profile
    assert [(h.plugin, h.weight) for h in fw.points["placement_score"]] == [("NodeResourcesFit", 1),
                                                                            ("PodGroupPodsCount", 3)]

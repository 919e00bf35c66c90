"""NodeResourcesFit's PlacementScore: kube-scheduler v1.37.2's TestScorePlacement_Resources (noderesources/fit_test.go),
and the plugin's place at placementScore in the default profile."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.api.features import FeatureGates
from kubeberth.api.placement import Placement, PodGroupAssignments, PodGroupInfo, ProposedAssignment
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.node_resources_fit import NodeResourcesFit
from kubeberth.builtin_plugins.node_resources_fit.args import NodeResourcesFitArgs
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import cluster_of, make_node, make_pod
from upstream import cases

GPU = "nvidia.com/gpu"
CPU_MEMORY = [("cpu", 1), ("memory", 1)]


def _node(name: str, gpu: str | None = None) -> dict[str, Any]:
    """st.MakeNode().Name(name).Capacity(cpuAndMemory("5000m", "5000")[AndGpu(.., "5")])."""
    return make_node(name, cpu="5000m", memory="5000", pods=110, extra={GPU: gpu} if gpu else None)


def _pod(uid: str, cpu: str, memory: str, gpu: str | None = None, node: str = "") -> dict[str, Any]:
    """st.MakePod().UID(uid).Req(cpuAndMemory(cpu, memory)[AndGpu(.., gpu)])[.Node(node)]."""
    extra: dict[str, Any] = {"nodeName": node} if node else {}
    return make_pod(uid, cpu, memory, uid=uid, requests={GPU: gpu} if gpu is not None else None, **extra)


TWO = [_node("node1"), _node("node2")]
GROUP = [_pod("foo", "1000m", "0"), _pod("bar", "2000m", "2000")]
SCORE_PLACEMENT = [
    {"name": "TestScorePlacement_Resources/Computes score based on total requests", "nodes": TWO,
     "placement": ["node1", "node2"], "pods": GROUP, "assignments": {"foo": "node1", "bar": "node2"},
     "resources": CPU_MEMORY, "expectedScore": 25},
    {"name": "TestScorePlacement_Resources/Computes score using weights", "nodes": TWO,
     "placement": ["node1", "node2"], "pods": GROUP, "assignments": {"foo": "node1", "bar": "node2"},
     "resources": [("cpu", 4), ("memory", 1)], "expectedScore": 28},
    {"name": "TestScorePlacement_Resources/Handles multiple pods per node", "nodes": TWO,
     "placement": ["node1", "node2"], "pods": GROUP, "assignments": {"foo": "node1", "bar": "node1"},
     "resources": [("cpu", 4), ("memory", 1)], "expectedScore": 28},
    {"name": "TestScorePlacement_Resources/Does not include nodes from outside of placement",
     "nodes": [*TWO, _node("node3")], "placement": ["node1", "node2"], "pods": GROUP,
     "assignments": {"foo": "node1", "bar": "node2"}, "resources": CPU_MEMORY, "expectedScore": 25},
    {"name": "TestScorePlacement_Resources/Includes pre-existing pods from outside of pod group", "nodes": TWO,
     "placement": ["node1", "node2"], "pods": GROUP, "assignments": {"foo": "node1", "bar": "node2"},
     "existing": [_pod("baz", "1000m", "0", node="node1")], "resources": CPU_MEMORY, "expectedScore": 30},
    {"name": "TestScorePlacement_Resources/Includes scalar resources if any pod in pod group has nonzero requests",
     "nodes": [_node("node1", "5"), _node("node2", "5")], "placement": ["node1", "node2"],
     "pods": [_pod("foo", "1000m", "0", "0"), _pod("bar", "1000m", "2000", "1")],
     "assignments": {"foo": "node1", "bar": "node2"}, "existing": [_pod("baz", "1000m", "0", "0", node="node1")],
     "resources": [*CPU_MEMORY, (GPU, 1)], "expectedScore": 20},
    {"name": "TestScorePlacement_Resources/Does not include scalar resources if all pods in pod group have zero requests",
     "nodes": [_node("node1", "5"), _node("node2", "5")], "placement": ["node1", "node2"],
     "pods": [_pod("foo", "1000m", "0", "0"), _pod("bar", "1000m", "2000", "0")],
     "assignments": {"foo": "node1", "bar": "node2"}, "existing": [_pod("baz", "1000m", "0", "1", node="node1")],
     "resources": [*CPU_MEMORY, (GPU, 1)], "expectedScore": 25},
]


def _handle(cluster: Any) -> FrameworkHandle:
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    return FrameworkHandle(fw, EmbeddedCluster(), cluster, lambda: 0.0, {}, None, lambda pods: None)


@pytest.mark.parametrize("tt", cases(SCORE_PLACEMENT))
def test_score_placement_resources(tt: dict[str, Any]) -> None:
    """MostAllocated over the placement's nodes: the proposed members' requests plus what is requested there,
    against the nodes' allocatable summed (the test's default scoring strategy, LeastAllocated, does not
    matter: the placement scorer is MostAllocated)."""
    cluster = cluster_of(*tt["nodes"], *tt.get("existing", []))
    proposed = tuple(ProposedAssignment(PodInfo.from_dict(p), tt["assignments"][p["metadata"]["uid"]])
                     for p in tt["pods"] if p["metadata"]["uid"] in tt["assignments"])
    assignments = PodGroupAssignments(Placement("", tuple(tt["placement"])), proposed)
    args = NodeResourcesFitArgs.model_validate({"scoringStrategy": {
        "type": "LeastAllocated", "resources": [{"name": n, "weight": w} for n, w in tt["resources"]]}})
    score = NodeResourcesFit(args).placement_score(pod_group=PodGroupInfo("default", "pg"), placement=assignments,
                                                   handle=_handle(cluster))
    assert score == tt["expectedScore"]


def test_a_placement_score_plugin_of_the_default_profile() -> None:
    """kube-scheduler's multiPoint expansion puts NodeResourcesFit (a PlacementScorePlugin) at placementScore with its
    weight (1), before PodGroupPodsCount, which TopologyAwareWorkloadScheduling adds."""
    gates = FeatureGates.parse("GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
    on = build_generation(feature_gates=gates).default_profile
    assert [(h.plugin, h.weight) for h in on.points["placement_score"]] == [("NodeResourcesFit", 1),
                                                                            ("PodGroupPodsCount", 1)]

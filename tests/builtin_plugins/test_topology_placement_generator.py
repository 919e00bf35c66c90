"""TopologyPlacementGenerator: kube-scheduler's topologyaware TestGeneratePlacements cases."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code, Status
from kubeberth.api.placement import Placement, PodGroupInfo
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.topology_placement_generator import TopologyPlacementGenerator
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import cluster_of, make_node, make_pod, make_pod_group
from upstream import cases

INITIAL = "test-placement"


def node(name: str, **labels: str) -> dict[str, Any]:
    return make_node(name, labels=labels)


def group(topology_key: str | None) -> dict[str, Any]:
    """makePodGroup(key): st.MakePodGroup().Name("root").Namespace("default").TopologyKey(key);
    makePodGroupInfoFromPG(&PodGroup{}) for no constraint."""
    pg = make_pod_group("root")
    if topology_key is not None:
        pg["spec"]["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return pg


SIX = [node("node0", topology2="d1"), node("node1", topology2="d4"), node("node2", topology1="d1"),
       node("node3", topology1="d2"), node("node4", topology1="d1"), node("node5", topology1="d3")]
CPG = "CompositePodGroup"
TESTS = {
    "TestGeneratePlacements/without constraint returns placement matching all nodes": {
        "podGroup": group(None), "placementNodes": [node("node1"), node("node2", foo="bar")],
        "otherNodes": [node("node3")], "wantPlacementNodes": {INITIAL: ["node1", "node2"]}, "wantStatus": Code.SUCCESS},
    "TestGeneratePlacements/with topology key constraint, returns placement for each topology domain": {
        "podGroup": group("topology1"), "placementNodes": SIX,
        "wantPlacementNodes": {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, "wantStatus": Code.SUCCESS},
    "TestGeneratePlacements/without matching topology label, returns empty": {
        "podGroup": group("topology3"), "placementNodes": SIX, "wantPlacementNodes": {}, "wantStatus": Code.SUCCESS},
    "TestGeneratePlacements/with pods already scheduled in a single domain, returns that domain": {
        "podGroup": group("topology"), "scheduledPodGroupPods": ["node2", "node3"],
        "placementNodes": [node("node0", topology="d2"), node("node1", topology="d1")],
        "otherNodes": [node("node2", topology="d1"), node("node3", topology="d1")],
        "wantPlacementNodes": {"d1": ["node1"]}, "wantStatus": Code.SUCCESS},
    "TestGeneratePlacements/with pods already scheduled in a single domain not present in current placement, "
    "returns empty": {
        "podGroup": group("topology"), "scheduledPodGroupPods": ["node2", "node3"],
        "placementNodes": [node("node0", topology="d2")],
        "otherNodes": [node("node2", topology="d1"), node("node3", topology="d1")],
        "wantPlacementNodes": {}, "wantStatus": Code.SUCCESS},
    "TestGeneratePlacements/with pods already scheduled in conflicting domains, returns error": {
        "podGroup": group("topology"), "scheduledPodGroupPods": ["node2", "node3"],
        "placementNodes": [node("node0", topology="d2"), node("node1", topology="d1")],
        "otherNodes": [node("node2", topology="d0"), node("node3", topology="d1")], "wantStatus": Code.ERROR},
    "TestGeneratePlacements/with already scheduled pod on node outside of snapshot, returns error": {
        "podGroup": group("topology"), "scheduledPodGroupPods": ["node2", "node4"],
        "placementNodes": [node("node0", topology="d2"), node("node1", topology="d1")],
        "otherNodes": [node("node2", topology="d1"), node("node3", topology="d1")], "wantStatus": Code.ERROR},
    "TestGeneratePlacements/with already scheduled pod on node without topology label, returns error": {
        "podGroup": group("topology"), "scheduledPodGroupPods": ["node2"],
        "placementNodes": [node("node1", topology="d2")], "otherNodes": [node("node2", foo="bar")],
        "wantStatus": Code.ERROR},
    # CompositePodGroup roots (tests/upstream_unported.py gives the reason).
    "TestGeneratePlacements/for cpg without constraint returns placement matching all nodes": {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with topology key constraint, returns placement for each topology domain":
        {"podGroup": CPG},
    "TestGeneratePlacements/for cpg without matching topology label, returns empty": {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with pods already scheduled in a single domain, returns that domain":
        {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with pods already scheduled in a single domain not present in current placement, "
    "returns empty": {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with pods already scheduled in conflicting domains across separate pod groups, "
    "returns error": {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with pods already scheduled in conflicting domains in a single pod group, "
    "returns error": {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with already scheduled pod on node outside of snapshot, returns error":
        {"podGroup": CPG},
    "TestGeneratePlacements/for cpg with already scheduled pod on node without topology label, returns error":
        {"podGroup": CPG},
}


@pytest.mark.parametrize("tt", cases([{"name": k, **v} for k, v in TESTS.items()]))
def test_generate_placements(tt: dict[str, Any]) -> None:
    """The snapshot holds placementNodes and otherNodes; the parent placement only placementNodes. The
    group's scheduled pods (pod0, pod1, ...) are bound to scheduledPodGroupPods' nodes."""
    pg = tt["podGroup"]
    cluster = cluster_of(*tt["placementNodes"], *tt.get("otherNodes", []), pg)
    for i, on in enumerate(tt.get("scheduledPodGroupPods", [])):
        cluster.upsert_pod(PodInfo.from_dict(make_pod(f"pod{i}", uid=f"pod{i}", nodeName=on,
                                                      schedulingGroup={"podGroupName": "root"})))
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    handle = FrameworkHandle(fw, EmbeddedCluster(), cluster, lambda: 0.0, {}, None, lambda pods: None)
    parent = Placement(INITIAL, tuple(n["metadata"]["name"] for n in tt["placementNodes"]))
    got = TopologyPlacementGenerator().placement_generate(
        pod_group=PodGroupInfo("default", "root", pg), placement=parent, handle=handle
    )
    if isinstance(got, Status):
        assert got.code == tt["wantStatus"], got
        return
    assert tt["wantStatus"] == Code.SUCCESS
    assert {p.name: list(p.nodes) for p in got} == tt["wantPlacementNodes"]

"""kube-scheduler v1.37.2 test/integration/scheduler/scoring (priorities_test.go) against kubeberth on a real
API server: same objects, same expected placements, one `kubeberth run` process for the module in place of
the in-process kube-scheduler.

Upstream starts a scheduler per test with its own configuration; here they are the profiles of one
configuration, chosen by the pods' schedulerName: initTestSchedulerForScoringTests(preScore, score) is a
profile with every PreScore and Score plugin disabled but those two (weight 1), and
initTestSchedulerForNodeResourcesTest(strategy) a default profile whose NodeResourcesFit scores with that
strategy over cpu 1, memory 1, example.com/gpu 2. Tables are upstream's objects
(upstream_tables/scoring.json, scripts/upstream_integration_tables.py); cases, namespaces and node names as in
test_filters_integration_e2e.py (tests/e2e/upstream_integration.py). runPausePod waits for the pod to be
scheduled; the expected node is read from spec.nodeName.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import Api, Kubeberth
from upstream_integration import Case, case_of, cases, make_node, serving, table_nodes, tables

TABLES = tables("scoring")
DIFFERENCES: dict[str, str] = {}
GPU = "example.com/gpu"


def _cases(test: str) -> list[Any]:
    return cases(TABLES[test], test, DIFFERENCES)


def _scoring_profile(score: str, pre_score: str = "") -> dict[str, Any]:
    """initTestSchedulerForScoringTests: PreScore and Score disabled ("*") but for these two."""
    return {"schedulerName": f"score-{score}", "plugins": {
        "preScore": {"disabled": [{"name": "*"}], "enabled": [{"name": pre_score}] if pre_score else []},
        "score": {"disabled": [{"name": "*"}], "enabled": [{"name": score, "weight": 1}]},
    }}


def _node_resources_profile(strategy: str) -> dict[str, Any]:
    """initTestSchedulerForNodeResourcesTest(strategy)."""
    return {"schedulerName": f"noderesources-{strategy}", "pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": strategy, "resources": [
            {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 2}]}}}]}


@pytest.fixture(scope="module")
def kubeberth_scoring(
    control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeberth]:
    profiles = [_node_resources_profile("LeastAllocated"), _node_resources_profile("MostAllocated"),
                *(_scoring_profile(p, p) for p in ("NodeAffinity", "InterPodAffinity", "PodTopologySpread",
                                                   "TaintToleration")),
                _scoring_profile("ImageLocality")]
    config = Path(tmp_path_factory.mktemp("scoring")) / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "profiles": profiles}))
    with serving(control_plane, sa_kubeconfig, config, "scoring") as kb:
        yield kb


@pytest.fixture
def case(kubeberth_scoring: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_scoring) as c:
        yield c


def _run(case: Case, pod: dict[str, Any], ns: str, scheduler: str, candidates: list[str] | None = None) -> str:
    """runPausePod (create, wait until scheduled), in `candidates` when given (PodScheduledIn)."""
    return case.wait_scheduled(*case.pod(pod, ns, scheduler=scheduler), candidates)


@pytest.mark.parametrize("tc", _cases("TestNodeResourcesScoring"))
def test_TestNodeResourcesScoring(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    profile = f"noderesources-{tc['strategy']}"
    table_nodes(case, tc["nodes"])
    for pod in tc["existingPods"] or []:
        _run(case, pod, "noderesources", profile)
    _run(case, tc["pod"], "noderesources", profile, tc["expectedNodeName"])


def test_TestNodeAffinityScoring(case: Case) -> None:  # noqa: N802
    """testnode-0..3 (createAndWaitForNodesInCache), testnode-4 labelled; a preferred term (weight 20) for the
    label puts the pod there."""
    key, value = "kubernetes.io/node-topologyKey", "topologyvalue"
    names = [f"testnode-{i}" for i in range(5)]
    case.rename_nodes(names)
    for name in names[:4]:
        case.node(make_node(name, {"kubernetes.io/hostname": name}))
    case.node(make_node("testnode-4", {key: value}))
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 20, "preference": {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}}]}}
    pod = {"metadata": {"name": "pod-with-node-affinity"}, "spec": {
        "affinity": affinity, "containers": [{"name": "pod-with-node-affinity", "image": "registry.k8s.io/pause:3.10.2"}]}}
    assert _run(case, pod, "nodeaffinity", "score-NodeAffinity") == case.node_name("testnode-4")


@pytest.mark.parametrize("tc", _cases("TestPodAffinityScoring"))
def test_TestPodAffinityScoring(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """Namespaces ns1 and ns2 (team=team1); nodes; existing pods run; the pod lands in expectedNodeName."""
    for ns in ("ns1", "ns2"):
        case.ns(ns, {"team": "team1"})
    table_nodes(case, tc["nodes"])
    for pod in tc["existingPods"] or []:
        _run(case, pod, "interpodaffinity", "score-InterPodAffinity")
    _run(case, tc["pod"], "interpodaffinity", "score-InterPodAffinity", tc["expectedNodeName"])


@pytest.mark.parametrize("tc", _cases("TestTaintTolerationScoring"))
def test_TestTaintTolerationScoring(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    table_nodes(case, tc["nodes"])
    index = [c["name"] for c in TABLES["TestTaintTolerationScoring"]].index(tc["name"])
    name = f"test-pod-{index}"
    pod = {"metadata": {"name": name}, "spec": {"tolerations": tc["podTolerations"],
                                                "containers": [{"name": name, "image": "registry.k8s.io/pause:3.10.2"}]}}
    assert _run(case, pod, "tainttoleration", "score-TaintToleration") in {
        case.node_name(n) for n in tc["expectedNodesName"]}


def test_TestImageLocalityScoring(case: Case) -> None:  # noqa: N802
    """testnode-large-image holds fake-large-image:v1 (3000 MiB), ten testnodes do not; the pod using the
    image lands on the node that has it."""
    image = "fake-large-image:v1"
    names = ["testnode-large-image", *(f"testnode-{i}" for i in range(10))]
    case.rename_nodes(names)
    large = make_node("testnode-large-image")
    large["status"]["images"] = [{"names": [image], "sizeBytes": 3000 * 1024 * 1024}]
    case.node(large)
    for name in names[1:]:
        case.node(make_node(name, {"kubernetes.io/hostname": name}))
    pod = {"metadata": {"name": "pod-using-large-image"},
           "spec": {"containers": [{"name": "fake-large-image-v1-container", "image": image}]}}
    assert _run(case, pod, "imagelocality", "score-ImageLocality") == case.node_name("testnode-large-image")


@pytest.mark.parametrize("tc", _cases("TestPodTopologySpreadScoring"))
def test_TestPodTopologySpreadScoring(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    table_nodes(case, tc["nodes"])
    for pod in tc["existingPods"] or []:
        _run(case, pod, "pts-scoring", "score-PodTopologySpread")
    ns, name = case.pod(tc["incomingPod"], "pts-scoring", scheduler="score-PodTopologySpread")
    if tc["fits"]:
        case.wait_scheduled(ns, name, tc["want"])
    else:
        case.wait_unschedulable(ns, name)


def test_TestDefaultPodTopologySpreadScoring(case: Case) -> None:  # noqa: N802
    """300 nodes over 3 zones, a Service selecting service=test-service; 3, then 9, then 15 more of its pods
    (PodTopologySpread's system default constraints) are spread with zone skew 0 after each round."""
    names = [f"node-{i}" for i in range(300)]
    case.rename_nodes(names)
    zone_of = {}
    for i, name in enumerate(names):
        zone_of[case.node_name(name)] = f"zone-{i % 3}"
        case.node(make_node(name, {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"zone-{i % 3}"}))
    ns = case.ns("default-pts")
    case.api.call("POST", f"/api/v1/namespaces/{ns}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "test-service"},
        "spec": {"selector": {"service": "test-service"}, "ports": [{"port": 80, "targetPort": 80}]}})
    total = 0
    for n_pods in (3, 9, 15):
        for _ in range(n_pods):
            case.pod({"metadata": {"name": f"p-{total}", "labels": {"service": "test-service"}},
                      "spec": {"containers": [{"name": "con0", "image": "registry.k8s.io/pause:3.10.2"}]}},
                     ns, scheduler="score-PodTopologySpread")
            total += 1
        wait_for(lambda n=total: len(case.api.bound(ns)) == n, 30, f"{total} pods scheduled", interval=0.2)
        counts: dict[str, int] = {}
        for node in case.api.bound(ns).values():
            counts[zone_of[node]] = counts.get(zone_of[node], 0) + 1
        assert max(counts.values()) - min(counts.values()) == 0, f"{total} pods: zone counts {counts}"


def test_upstream_taint_toleration_scoring_profile_loads(tmp_path: Path) -> None:
    """The profile TestTaintTolerationScoring runs with, as upstream writes it (no cluster needed): TaintToleration
    at preScore and score only (kube-scheduler's TaintToleration implements PreScore)."""
    from kubeberth.runtime.generation import build_generation

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                      "kind": "KubeSchedulerConfiguration",
                                      "profiles": [_scoring_profile("TaintToleration", "TaintToleration")]}))
    framework = build_generation(str(config)).framework_for("score-TaintToleration")
    assert framework is not None
    assert (framework.enabled("pre_score"), framework.enabled("score")) == (["TaintToleration"], ["TaintToleration"])


# the tests above without a table, by their upstream name (scripts/upstream_cases.py counts them)
PORTED_BY_HAND = ("TestNodeAffinityScoring", "TestImageLocalityScoring", "TestDefaultPodTopologySpreadScoring")

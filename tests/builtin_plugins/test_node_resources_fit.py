"""NodeResourcesFit: kube-scheduler's fit_test / least|most_allocated_test / requested_to_capacity_ratio_test cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState, FeatureGates
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
    broken_linear_table,
    go_div,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.errors import ConfigError
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import SchedulerTester, all_nodes, cluster_of
from pydantic import ValidationError

EXT = "example.com/aaa"


def make_node(name: str, **allocatable: str) -> dict[str, Any]:
    alloc = {"pods": "110", **{k.replace("__", "/").replace("_", "-"): v for k, v in allocatable.items()}}
    return {"metadata": {"name": name}, "status": {"allocatable": alloc}}


def make_pod(name: str, *requests: dict[str, str], node: str = "", init: tuple[dict[str, str], ...] = ()) -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}", "resources": {"requests": r}} for i, r in enumerate(requests)]}
    if init:
        spec["initContainers"] = [{"name": f"i{i}", "resources": {"requests": r}} for i, r in enumerate(init)]
    if node:
        spec["nodeName"] = node
    return PodInfo.from_dict({"metadata": {"name": name, "uid": name}, "spec": spec})


def make_cluster(nodes: list[dict[str, Any]], pods: list[PodInfo] = ()) -> ClusterState:
    return cluster_of(nodes, [p.raw for p in pods])


def run_filter(plugin: NodeResourcesFit, cluster: ClusterState, pod: PodInfo):
    state = CycleState()
    nodes = all_nodes(cluster)
    plugin.pre_filter(state=state, pod=pod, nodes=nodes)
    return plugin.filter(state=state, pod=pod, nodes=nodes, cluster=cluster)


def run_score(plugin: NodeResourcesFit, cluster: ClusterState, pod: PodInfo) -> list[int]:
    """The plugin's scores called directly; checked against a framework cycle (filter, then score the nodes that fit)."""
    state = CycleState()
    nodes = all_nodes(cluster)
    plugin.pre_score(state=state, pod=pod, cluster=cluster)
    direct = plugin.score(state=state, pod=pod, nodes=nodes, cluster=cluster).tolist()
    objects = [{"kind": "Node", **cluster.table.raw[int(r)]} for r in nodes.rows]
    objects += [{"kind": "Pod", **p.raw} for p, _row in cluster.placed_pods()]
    args = {"NodeResourcesFit": plugin.args.model_dump(exclude_defaults=True)}
    with SchedulerTester(["NodeResourcesFit"], args=args, objects=objects) as t:
        ev = t.evaluate(pod)
    by_node = dict(zip(nodes.names, direct, strict=True))
    assert ev.scores.get("NodeResourcesFit", {}) == {n: by_node[n] for n in ev.feasible}
    return direct


def reasons_by_node(result, cluster: ClusterState) -> list[list[tuple[str, Code]]]:
    out: list[list[tuple[str, Code]]] = [[] for _ in range(len(cluster.table))]
    if result is None:
        return out
    for rej in result.rejections:
        for i in np.flatnonzero(rej.nodes):
            out[i].append((rej.reason, rej.code))
    return out


# ---- filter ----------------------------------------------------------------------------------
FILTER_CASES = [
    # (name, pod requests, existing pod requests on the node, node allocatable, expected reasons+codes)
    ("no resources requested always fits", [], [{"cpu": "10", "memory": "20"}], {"cpu": "10", "memory": "20"}, []),
    ("too many resources fails", [{"cpu": "1", "memory": "1"}], [{"cpu": "10", "memory": "20"}],
     {"cpu": "10", "memory": "20"},
     [("Insufficient cpu", Code.UNSCHEDULABLE), ("Insufficient memory", Code.UNSCHEDULABLE)]),
    ("too many resources fails due to init container cpu", [{"cpu": "1", "memory": "1"}],
     [{"cpu": "8", "memory": "19"}], {"cpu": "10", "memory": "20"}, []),
    ("cpu fits exactly", [{"cpu": "2"}], [{"cpu": "8", "memory": "19"}], {"cpu": "10", "memory": "20"}, []),
    ("request above allocatable is unresolvable", [{"cpu": "11"}], [], {"cpu": "10", "memory": "20"},
     [("Insufficient cpu", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]),
    ("one unresolvable resource makes every reason unresolvable", [{"cpu": "11", "memory": "5"}],
     [{"memory": "19"}], {"cpu": "10", "memory": "20"},
     [("Insufficient cpu", Code.UNSCHEDULABLE_AND_UNRESOLVABLE), ("Insufficient memory", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]),
    ("ephemeral storage", [{"ephemeral-storage": "10"}], [{"ephemeral-storage": "15"}],
     {"cpu": "10", "memory": "20", "ephemeral-storage": "20"}, [("Insufficient ephemeral-storage", Code.UNSCHEDULABLE)]),
    ("extended resource insufficient", [{EXT: "3"}], [{EXT: "2"}], {"cpu": "10", "memory": "20", EXT: "4"},
     [(f"Insufficient {EXT}", Code.UNSCHEDULABLE)]),
    ("extended resource missing on node", [{EXT: "1"}], [], {"cpu": "10", "memory": "20"},
     [(f"Insufficient {EXT}", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]),
    ("hugepages", [{"hugepages-2Mi": "4Mi"}], [], {"cpu": "10", "memory": "20", "hugepages-2Mi": "2Mi"},
     [("Insufficient hugepages-2Mi", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]),
    ("overcommitted cpu is not checked when the pod asks no cpu", [{"memory": "1"}], [{"cpu": "12"}],
     {"cpu": "10", "memory": "20"}, []),
]


@pytest.mark.parametrize(("pod_req", "existing", "alloc", "expected"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES])
def test_filter_cases(pod_req, existing, alloc, expected):
    node = {"metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "32", **alloc}}}
    placed = [make_pod(f"e{i}", r, node="n1") for i, r in enumerate(existing)]
    cluster = make_cluster([node], placed)
    result = run_filter(NodeResourcesFit(), cluster, make_pod("p", *pod_req))
    got = reasons_by_node(result, cluster)[0]
    assert sorted(got) == sorted(expected)
    feasible = True if result is None else bool(result.feasible[0])
    assert feasible == (not expected)


def test_init_container_max_is_used_in_filter():
    # kube fit_test: init container asks 3 cpu, regular 1 cpu: request is max(1, 3) = 3.
    node = {"metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "32", "cpu": "10", "memory": "20"}}}
    cluster = make_cluster([node], [make_pod("e", {"cpu": "8"}, node="n1")])
    result = run_filter(NodeResourcesFit(), cluster, make_pod("p", {"cpu": "1"}, init=({"cpu": "3"},)))
    assert result is not None and not result.feasible[0]
    assert [r.reason for r in result.rejections] == ["Insufficient cpu"]


def test_too_many_pods():
    node = {"metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "1", "cpu": "10", "memory": "20"}}}
    cluster = make_cluster([node], [make_pod("e", node="n1")])
    result = run_filter(NodeResourcesFit(), cluster, make_pod("p", {"cpu": "1"}))
    assert reasons_by_node(result, cluster)[0] == [("Too many pods", Code.UNSCHEDULABLE)]
    # an empty pod is still counted against the pod limit
    result = run_filter(NodeResourcesFit(), cluster, make_pod("q"))
    assert reasons_by_node(result, cluster)[0] == [("Too many pods", Code.UNSCHEDULABLE)]


@pytest.mark.parametrize(
    ("args", "fits"),
    [
        ({}, False),
        ({"ignoredResources": [EXT]}, True),
        ({"ignoredResourceGroups": ["example.com"]}, True),
        ({"ignoredResourceGroups": ["other.com"]}, False),
    ],
)
def test_ignored_extended_resources(args, fits):
    node = make_node("n1", cpu="10", memory="20")
    cluster = make_cluster([node])
    plugin = NodeResourcesFit(NodeResourcesFitArgs.model_validate(args))
    result = run_filter(plugin, cluster, make_pod("p", {"cpu": "1", EXT: "1"}))
    assert (result is None) == fits


def test_ignored_groups_do_not_cover_native_resources():
    # hugepages are not extended resources: ignoredResourceGroups cannot hide them
    node = make_node("n1", cpu="10", memory="20")
    cluster = make_cluster([node])
    plugin = NodeResourcesFit(NodeResourcesFitArgs.model_validate({"ignoredResources": ["hugepages-2Mi"]}))
    result = run_filter(plugin, cluster, make_pod("p", {"hugepages-2Mi": "2Mi"}))
    assert result is not None and not result.feasible.any()


def test_filter_is_per_node_over_many_nodes():
    nodes = [make_node(f"n{i}", cpu=str(i + 1), memory="10Gi") for i in range(6)]
    cluster = make_cluster(nodes)
    result = run_filter(NodeResourcesFit(), cluster, make_pod("p", {"cpu": "3500m"}))
    assert result.feasible.tolist() == [False, False, False, True, True, True]
    codes = {(r.reason, r.code): int(r.nodes.sum()) for r in result.rejections}
    assert codes == {("Insufficient cpu", Code.UNSCHEDULABLE_AND_UNRESOLVABLE): 3}


# ---- scoring ---------------------------------------------------------------------------------
def strategy(kind: str, resources=None, shape=None) -> NodeResourcesFit:
    spec: dict[str, Any] = {"type": kind}
    if resources is not None:
        spec["resources"] = resources
    if shape is not None:
        spec["requestedToCapacityRatio"] = {"shape": shape}
    return NodeResourcesFit(NodeResourcesFitArgs.model_validate({"scoringStrategy": spec}))


def two_nodes(c1: str, m1: str, c2: str, m2: str, **extra2: str) -> list[dict[str, Any]]:
    return [
        {"metadata": {"name": "node1"}, "status": {"allocatable": {"cpu": c1, "memory": m1}}},
        {"metadata": {"name": "node2"}, "status": {"allocatable": {"cpu": c2, "memory": m2, **extra2}}},
    ]


REQ_POD = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

LEAST_CASES = [
    ("TestLeastAllocatedScoringStrategy/nothing scheduled, nothing requested", (), two_nodes("4000", "10000", "4000", "10000"), [], [100, 100]),
    ("TestLeastAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes", REQ_POD,
     two_nodes("4000", "10000", "6000", "10000"), [], [37, 50]),
    ("TestLeastAllocatedScoringStrategy/no resources requested, pods scheduled", (), two_nodes("4000", "10000", "4000", "10000"),
     [("node1", ()), ("node1", ()), ("node2", ()), ("node2", ())], [100, 100]),
    # TestLeastAllocatedScoringStrategy, v1.37.2, verbatim
    ("TestLeastAllocatedScoringStrategy/no resources requested, pods scheduled with resources", (),
     two_nodes("10000", "20000", "10000", "20000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node1", ({"cpu": "3000", "memory": "0"},)),
      ("node2", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [70, 57]),
    ("TestLeastAllocatedScoringStrategy/resources requested, pods scheduled with resources", REQ_POD,
     two_nodes("10000", "20000", "10000", "20000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [57, 45]),
    ("TestLeastAllocatedScoringStrategy/resources requested, pods scheduled with resources, differently sized nodes",
     REQ_POD, two_nodes("10000", "20000", "10000", "50000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [57, 60]),
    ("TestLeastAllocatedScoringStrategy/requested resources exceed node capacity", ({"cpu": "3000", "memory": "0"},),
     two_nodes("4000", "10000", "4000", "10000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [50, 25]),
    ("TestLeastAllocatedScoringStrategy/zero node resources, pods scheduled with resources", (),
     [{"metadata": {"name": "node1"}}, {"metadata": {"name": "node2"}}],
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [0, 0]),
    # kubeberth's variants (not upstream cases)
    ("variant: pods with cpu and memory scheduled on both differently sized nodes", REQ_POD,
     two_nodes("10000", "20000", "10000", "50000"),
     [("node1", ({"cpu": "3000", "memory": "5000"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [45, 60]),
    ("variant: requested cpu exceeds capacity, memory nearly free", ({"cpu": "3000", "memory": "5000"},),
     two_nodes("4000", "10000", "4000", "10000"),
     [("node1", ({"cpu": "3000", "memory": "1"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [24, 0]),
    ("zero node resources", (), [{"metadata": {"name": "node1"}}, {"metadata": {"name": "node2"}}], [], [0, 0]),
]


@pytest.mark.parametrize(("pod_req", "nodes", "existing", "expected"), [c[1:] for c in LEAST_CASES], ids=[c[0] for c in LEAST_CASES])
def test_least_allocated(pod_req, nodes, existing, expected):
    placed = [make_pod(f"e{i}", *reqs, node=n) for i, (n, reqs) in enumerate(existing)]
    cluster = make_cluster(nodes, placed)
    assert run_score(NodeResourcesFit(), cluster, make_pod("p", *pod_req)) == expected


def test_least_allocated_weights():
    # (25*1 + 50*2) / 3 = 41 ; (50 + 100) / 3 = 50
    cluster = make_cluster(two_nodes("4000", "10000", "6000", "10000"))
    plugin = strategy("LeastAllocated", [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}])
    assert run_score(plugin, cluster, make_pod("p", *REQ_POD)) == [41, 50]


def test_extended_resource_scored_only_when_requested_and_present():
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]
    plugin = strategy("LeastAllocated", resources)
    cluster = make_cluster(two_nodes("6000", "10000", "6000", "10000", **{EXT: "4"}))
    # bypassed when the pod does not request it
    assert run_score(plugin, cluster, make_pod("p", *REQ_POD)) == [50, 50]
    # honoured when requested: node1 (4 of them) 50, node2 (10) 80 -> (50+50+50)/3, (50+50+80)/3
    cluster = make_cluster([
        {"metadata": {"name": "node1"}, "status": {"allocatable": {"cpu": "6000", "memory": "10000", EXT: "4"}}},
        {"metadata": {"name": "node2"}, "status": {"allocatable": {"cpu": "6000", "memory": "10000", EXT: "10"}}},
    ])
    assert run_score(plugin, cluster, make_pod("p", {"cpu": "3000", "memory": "5000", EXT: "2"})) == [50, 60]
    # a node without the resource scores on cpu and memory only
    resources = [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    cluster = make_cluster(two_nodes("6000", "10000", "6000", "10000", **{EXT: "4"}))
    assert run_score(strategy("LeastAllocated", resources), cluster, make_pod("p", {"cpu": "3000", "memory": "4000"})) == [55, 55]


def test_nonzero_defaults_used_for_scoring():
    # A container with no requests counts as 100m / 200Mi when scoring (not when filtering).
    cluster = make_cluster(two_nodes("1", "1000Mi", "2", "1000Mi"))
    pod = make_pod("p", {})
    # node1: cpu (1000-100)*100/1000 = 90, mem (1000-200)*100/1000 = 80 -> 85
    # node2: cpu (2000-100)*100/2000 = 95, mem 80 -> 87
    assert run_score(NodeResourcesFit(), cluster, pod) == [85, 87]


MOST_CASES = [
    ("TestMostAllocatedScoringStrategy/nothing scheduled, nothing requested", (), two_nodes("4000", "10000", "4000", "10000"), [], [0, 0]),
    ("TestMostAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes", REQ_POD,
     two_nodes("4000", "10000", "6000", "10000"), [], [62, 50]),
    # TestMostAllocatedScoringStrategy, v1.37.2, verbatim
    ("TestMostAllocatedScoringStrategy/no resources requested, pods scheduled with resources", (),
     two_nodes("10000", "20000", "10000", "20000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node1", ({"cpu": "3000", "memory": "0"},)),
      ("node2", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [30, 42]),
    ("TestMostAllocatedScoringStrategy/resources requested, pods scheduled with resources", REQ_POD,
     two_nodes("10000", "20000", "10000", "20000"),
     [("node1", ({"cpu": "3000", "memory": "0"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [42, 55]),
    ("TestMostAllocatedScoringStrategy/resources requested equal node capacity",
     ({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     two_nodes("5000", "10000", "10000", "9000"), [], [95, 75]),
    # kubeberth's variant (not an upstream case)
    ("variant: one container requested, pods with cpu and memory scheduled", ({"cpu": "1000", "memory": "2000"},),
     two_nodes("10000", "9000", "10000", "9000"),
     [("node1", ({"cpu": "3000", "memory": "5000"},)), ("node2", ({"cpu": "3000", "memory": "5000"},))], [58, 58]),
    ("requested more than the node, capped", ({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     two_nodes("4000", "10000", "6000", "10000"), [], [95, 86]),
]


@pytest.mark.parametrize(("pod_req", "nodes", "existing", "expected"), [c[1:] for c in MOST_CASES], ids=[c[0] for c in MOST_CASES])
def test_most_allocated(pod_req, nodes, existing, expected):
    placed = [make_pod(f"e{i}", *reqs, node=n) for i, (n, reqs) in enumerate(existing)]
    cluster = make_cluster(nodes, placed)
    assert run_score(strategy("MostAllocated"), cluster, make_pod("p", *pod_req)) == expected


def test_requested_to_capacity_ratio_rounds_like_go():
    # shape 0->10, 100->0 (scaled x10): cpu util 75 -> 25, memory util 50 -> 50; round(37.5) = 38
    plugin = strategy("RequestedToCapacityRatio", shape=[{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}])
    cluster = make_cluster(two_nodes("4000", "10000", "6000", "10000"))
    assert run_score(plugin, cluster, make_pod("p", *REQ_POD)) == [38, 50]


def test_requested_to_capacity_ratio_zero_scores_are_left_out():
    # shape 0..50 -> 0, then up to 100 -> 100: resources scoring 0 do not count in the weighted mean
    plugin = strategy(
        "RequestedToCapacityRatio",
        resources=[{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}],
        shape=[{"utilization": 0, "score": 0}, {"utilization": 50, "score": 0}, {"utilization": 100, "score": 10}],
    )
    cluster = make_cluster(two_nodes("4000", "10Gi", "4000", "10Gi"))
    # cpu util 75 -> 50; memory (default 200Mi) util 1 -> 0, left out -> 50 (not 13)
    assert run_score(plugin, cluster, make_pod("p", {"cpu": "3000"})) == [50, 50]


def test_broken_linear_truncates_toward_zero():
    # a falling segment: 100 + (-100 * 10) / 30 -> Go gives 100 - 33 = 67 (floor division would say 66)
    lut = broken_linear_table([(0, 100), (30, 0)])
    assert lut[10] == 67
    assert lut[0] == 100 and lut[30] == 0 and lut[100] == 0
    assert go_div(-7, 2) == -3 and go_div(7, 2) == 3 and go_div(-6, 3) == -2
    lut = broken_linear_table([(20, 30), (60, 90)])
    assert lut[0] == 30 and lut[20] == 30 and lut[40] == 60 and lut[100] == 90


# ---- exactness against a scalar transcription of kube-scheduler's scorers ----------------------
def _ref_least(reqs, allocs, weights):
    score = wsum = 0
    for r, a, w in zip(reqs, allocs, weights, strict=True):
        if a == 0:
            continue
        s = 0 if r > a else (a - r) * 100 // a
        score += s * w
        wsum += w
    return score // wsum if wsum else 0


def _ref_most(reqs, allocs, weights):
    score = wsum = 0
    for r, a, w in zip(reqs, allocs, weights, strict=True):
        if a == 0:
            continue
        score += (min(r, a) * 100 // a) * w
        wsum += w
    return score // wsum if wsum else 0


def _ref_rtcr(reqs, allocs, weights, shape):
    def f(p):
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return shape[0][1]
                pu, ps = shape[i - 1]
                return ps + int((s - ps) * (p - pu) / (u - pu))
        return shape[-1][1]

    score = wsum = 0
    for r, a, w in zip(reqs, allocs, weights, strict=True):
        if a == 0:
            continue
        s = f(100) if r > a else f(r * 100 // a)
        if s > 0:
            score += s * w
            wsum += w
    return int(np.floor(score / wsum + 0.5)) if wsum else 0


@pytest.mark.parametrize("kind", ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"])
def test_random_clusters_match_reference(kind):
    rng = np.random.default_rng(7)
    shape = [(0, 20), (40, 100), (70, 30), (100, 0)]
    resources = [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 2}, {"name": EXT, "weight": 5}]
    plugin = strategy(kind, resources, [{"utilization": u, "score": s // 10} for u, s in shape])
    nodes, placed, expected_inputs = [], [], []
    for i in range(60):
        cpu, mem = int(rng.integers(0, 9)) * 1000, int(rng.integers(0, 9)) * 1024
        ext = int(rng.integers(0, 4))
        alloc = {"cpu": f"{cpu}m", "memory": str(mem)}
        if ext:
            alloc[EXT] = str(ext)
        nodes.append({"metadata": {"name": f"n{i:02d}"}, "status": {"allocatable": alloc}})
        used_cpu, used_mem, used_ext = int(rng.integers(1, 9000)), int(rng.integers(1, 9000)), int(rng.integers(0, 3))
        placed.append(make_pod(f"e{i}", {"cpu": f"{used_cpu}m", "memory": str(used_mem), EXT: str(used_ext)}, node=f"n{i:02d}"))
        expected_inputs.append(((used_cpu, used_mem, used_ext), (cpu, mem, ext)))
    cluster = make_cluster(nodes, placed)
    pod = make_pod("p", {"cpu": "700m", "memory": "900", EXT: "1"})
    got = run_score(plugin, cluster, pod)
    weights = [3, 2, 5]
    for i, ((uc, um, ue), (ac, am, ae)) in enumerate(expected_inputs):
        reqs = [uc + 700, um + 900, ue + 1]
        allocs = [ac, am, ae]
        if kind == "LeastAllocated":
            want = _ref_least(reqs, allocs, weights)
        elif kind == "MostAllocated":
            want = _ref_most(reqs, allocs, weights)
        else:
            want = _ref_rtcr(reqs, allocs, weights, shape)
        assert got[i] == want, (i, reqs, allocs)


# ---- args -----------------------------------------------------------------------------------
def test_args_defaults_mirror_kube_scheduler():
    args = NodeResourcesFitArgs()
    assert args.scoringStrategy.type == "LeastAllocated"
    assert [(r.name, r.weight) for r in args.scoringStrategy.resources] == [("cpu", 1), ("memory", 1)]
    args = NodeResourcesFitArgs.model_validate(
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}]}}
    )
    assert [(r.name, r.weight) for r in args.scoringStrategy.resources] == [("cpu", 1), ("memory", 1)]
    args = NodeResourcesFitArgs.model_validate({"scoringStrategy": {"type": "MostAllocated"}})
    assert [r.name for r in args.scoringStrategy.resources] == ["cpu", "memory"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 101}]}},
         "scoringStrategy.resources[0].weight: resource weight of cpu not in valid range (0, 100]"),
        ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": -1}]}},
         "scoringStrategy.resources[1].weight"),
        ({"scoringStrategy": {"type": "Balanced"}}, "type"),
        ({"scoringStrategy": {"type": "RequestedToCapacityRatio"}}, "scoringStrategy.requestedToCapacityRatio"),
        ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": []}}},
         "at least one point must be specified"),
        ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
            {"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]}}},
         "scoringStrategy.shape[1].utilization: values must be sorted in increasing order"),
        ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
            {"utilization": 10, "score": 11}]}}}, "scoringStrategy.shape[0].score: not in valid range [0, 10]"),
        ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
            {"utilization": 101, "score": 1}]}}}, "scoringStrategy.shape[0].utilization: not in valid range [0, 100]"),
        ({"ignoredResourceGroups": ["example.com/aaa"]}, "resource group name can't contain '/'"),
        ({"ignoredResources": ["-bad-"]}, "ignoredResources[0]"),
        ({"ignoredResource": ["typo"]}, "ignoredResource"),
    ],
)
def test_args_validation_errors(args, message):
    with pytest.raises(ValidationError) as exc:
        NodeResourcesFitArgs.model_validate(args)
    assert message in str(exc.value)


def test_plugin_config_errors_name_the_field():
    from kubeberth.runtime.config import parse_configuration

    config = parse_configuration({
        "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 500}]}}}]}],
    })
    with pytest.raises(ConfigError, match=r"pluginConfig\[0\]\.args.*resource weight of cpu not in valid range"):
        build_generation(config=config)


def test_plugin_config_reaches_the_plugin():
    from kubeberth.runtime.config import parse_configuration

    config = parse_configuration({
        "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "kind": "NodeResourcesFitArgs",
            "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 3}]}}}]}],
    })
    fw = build_generation(config=config).default_profile
    plugin = fw.plugins["NodeResourcesFit"]
    assert plugin.strategy == "MostAllocated"
    assert plugin.scorer.names == ["cpu"] and plugin.scorer.weights.tolist() == [3]


def test_upstream_most_allocated_weighted_differently_sized_nodes():
    """TestMostAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes"""
    # upstream's second case of that name: memory weight 2, cpu weight 1
    cluster = make_cluster(two_nodes("4000", "10000", "6000", "10000"))
    plugin = strategy("MostAllocated", [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}])
    assert run_score(plugin, cluster, make_pod("p", *REQ_POD)) == [58, 50]


# ---- in-place pod resize (InPlacePodVerticalScaling, GA) ------------------------------------------
def _running(cpu: str, allocated: str | None = None, actual: str | None = None, labels: dict | None = None) -> dict:
    """A pod running on n0 asking `cpu`, with the kubelet's view of its resize (allocated / actuated)."""
    status: dict[str, Any] = {"phase": "Running"}
    if allocated is not None:
        cs: dict[str, Any] = {"name": "c", "allocatedResources": {"cpu": allocated}}
        if actual is not None:
            cs["resources"] = {"requests": {"cpu": actual}}
        status["containerStatuses"] = [cs]
    return {"kind": "Pod", "metadata": {"name": "busy", "namespace": "default", "uid": "busy", "labels": labels or {}},
            "spec": {"nodeName": "n0", "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": status}


def test_a_resize_in_flight_holds_the_most_of_spec_allocated_and_actuated() -> None:
    assert PodInfo.from_dict(_running("300m", "800m", "800m")).requests["cpu"] == 800  # kubelet not done
    assert PodInfo.from_dict(_running("900m", "800m", "800m")).requests["cpu"] == 900  # growing: spec counts
    assert PodInfo.from_dict(_running("300m", "300m", "500m")).requests["cpu"] == 500  # not yet actuated
    assert PodInfo.from_dict(_running("300m", "300m", "300m")).requests["cpu"] == 300
    infeasible = _running("900m", "800m", "800m")
    infeasible["status"]["conditions"] = [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]
    assert PodInfo.from_dict(infeasible).requests["cpu"] == 800  # an infeasible resize's spec is not held


def test_pending_pod_retried_when_a_placed_pod_scales_down(scheduler_tester) -> None:
    """AssignedPod UpdatePodScaleDown: the pod waits until the kubelet has given the cpu back."""
    node = {"kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    pending = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
               "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}
    t = scheduler_tester(["NodeResourcesFit"], objects=[node, _running("800m", "800m", "800m"), pending])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert s.queue.entries["p"].where == "unschedulable" and len(t.records("p")) == 1
    b.apply(_running("800m", "800m", "800m", labels={"app": "x"}))  # Pod/Update, nothing given back
    b.apply(_running("300m", "800m", "800m", labels={"app": "x"}))  # resize asked, not yet allocated
    t.settle(timeout=10)
    assert s.queue.entries["p"].where == "unschedulable" and len(t.records("p")) == 1
    b.apply(_running("300m", "300m", "300m", labels={"app": "x"}))  # the kubelet resized the container
    t.settle(timeout=10)
    assert t.node_of("p") == "n0" and len(t.records("p")) == 2


def _hint_pod(name: str, node: str = "", deferred: bool = False, pod_level: bool = False, **requests: str) -> PodInfo:
    resources = {"requests": dict(requests)}
    spec: dict[str, Any] = {"containers": [{"name": "c"} if pod_level else {"name": "c", "resources": resources}]}
    if pod_level:
        spec["resources"] = resources
    if node:
        spec["nodeName"] = node
    raw: dict[str, Any] = {"metadata": {"name": name, "uid": name}, "spec": spec}
    if deferred:
        raw["status"] = {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}
    return PodInfo.from_dict(raw)


@pytest.mark.parametrize(("pod", "old", "new", "queue"), [
    # the scenarios of fit_test.go's Test_isSchedulableAfterAssignedPodScaleDown (a map-keyed table)
    (_hint_pod("pod1", cpu="1"), _hint_pod("pod2", cpu="2"), _hint_pod("pod2", cpu="1"), False),  # not placed
    (_hint_pod("pod1", cpu="1"), _hint_pod("pod2", "fake", memory="2"), _hint_pod("pod2", "fake", memory="1"), False),
    (_hint_pod("pod1", pod_level=True, cpu="1"), _hint_pod("pod2", "fake", pod_level=True, memory="2"),
     _hint_pod("pod2", "fake", pod_level=True, memory="1"), False),
    (_hint_pod("pod1", cpu="1"), _hint_pod("pod2", "fake", cpu="2"), _hint_pod("pod2", "fake", cpu="1"), True),
    (_hint_pod("pod1", pod_level=True, cpu="1"), _hint_pod("pod2", "fake", pod_level=True, cpu="2"),
     _hint_pod("pod2", "fake", pod_level=True, cpu="1"), True),
    (_hint_pod("pod1", "node1", deferred=True, cpu="1"), _hint_pod("pod2", "node2", cpu="2"),
     _hint_pod("pod2", "node2", cpu="1"), False),
    (_hint_pod("pod1", "node1", deferred=True, cpu="1"), _hint_pod("pod2", "node1", cpu="2"),
     _hint_pod("pod2", "node1", cpu="1"), True),
], ids=["other-unscheduled-pod", "unrelated-resource", "unrelated-pod-level-resource", "some-resource",
        "some-pod-level-resource", "deferred-different-node", "deferred-same-node"])
def test_is_schedulable_after_assigned_pod_scale_down(pod: PodInfo, old: PodInfo, new: PodInfo, queue: bool) -> None:
    gates = FeatureGates({"InPlacePodVerticalScalingSchedulerPreemption": True})
    plugin = NodeResourcesFit(feature_gates=gates)
    assert plugin.is_schedulable_after_assigned_pod_scale_down(pod, old, new) is queue
    assert capabilities_of(plugin).requeues("Pod/UpdatePodScaleDown", pod, old, new) is queue


def test_pending_pod_retried_when_a_placed_pod_finishes(scheduler_tester) -> None:
    """A placed pod that turns Succeeded frees its node, as a deleted one does (AssignedPod delete)."""
    node = {"kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    pending = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
               "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}
    t = scheduler_tester(["NodeResourcesFit"], objects=[node, _running("800m"), pending])
    s, b = t.scheduler, t.backend
    t.settle(timeout=10)
    assert s.queue.entries["p"].where == "unschedulable" and len(t.records("p")) == 1
    done = _running("800m")
    done["status"]["phase"] = "Succeeded"
    b.apply(done)
    t.settle(timeout=10)
    assert t.node_of("p") == "n0" and len(t.records("p")) == 2

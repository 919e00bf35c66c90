"""NodeResourcesBalancedAllocation: kube-scheduler's balanced_allocation_test cases and formula."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from kubeberth import ClusterState, Code, CycleState, PodInfo
from kubeberth.builtin_plugins.node_resources_balanced_allocation import (
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
)
from pydantic import ValidationError

EXT = "example.com/gpu"


def node(name: str, cpu: str, memory: str, **extra: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110", **extra}}}


def pod(name: str, *requests: dict[str, str], node_name: str = "") -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}", "resources": {"requests": r}} for i, r in enumerate(requests)]}
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo.from_dict({"metadata": {"name": name, "uid": name}, "spec": spec})


def scores(plugin, nodes, placed, incoming) -> list[int] | None:
    cluster = ClusterState()
    for n in nodes:
        cluster.upsert_node(n)
    for p in placed:
        cluster.upsert_pod(p)
    view = cluster.table.view(np.asarray(sorted(cluster.table.row_of.values()), dtype=np.int64))
    state = CycleState()
    status = plugin.pre_score(state=state, pod=incoming)
    if status is not None and status.code == Code.SKIP:
        return None
    return plugin.score(state=state, pod=incoming, nodes=view).tolist()


CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_ONLY = ({"cpu": "1000m"}, {"cpu": "2000m"})

CASES = [
    # 3000/4000 = .75, 5000/10000 = .5 -> std .125 -> 87 ; 3000/6000 = 5000/10000 -> 100
    ("nothing scheduled, resources requested, differently sized nodes", CPU_AND_MEMORY,
     [node("node1", "4000m", "10000"), node("node2", "6000m", "10000")], [], [87, 100]),
    # node1: cpu 6000/10000 = .6, mem 5000/20000 = .25 -> std .175 -> 82 ; node2: .6, .5 -> 95
    ("resources requested, pods scheduled with resources", CPU_AND_MEMORY,
     [node("node1", "10000m", "20000"), node("node2", "10000m", "20000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [82, 95]),
    # node2 memory 10000/50000 = .2 -> std .2 -> 80
    ("resources requested, pods scheduled with resources, differently sized nodes", CPU_AND_MEMORY,
     [node("node1", "10000m", "20000"), node("node2", "10000m", "50000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [82, 80]),
    # cpu 6000/4000 capped at 1; node1 memory 0 -> std .5 -> 50 ; node2 memory .5 -> std .25 -> 75
    ("requested resources exceed node capacity", CPU_ONLY,
     [node("node1", "4000m", "10000"), node("node2", "4000m", "10000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [50, 75]),
    # allocatable 0 everywhere: no fractions -> std 0 -> 100
    ("zero node resources", CPU_AND_MEMORY, [node("node1", "0", "0"), node("node2", "0", "0")], [], [100, 100]),
]


@pytest.mark.parametrize(("incoming", "nodes", "placed", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_balanced_allocation_cases(incoming, nodes, placed, expected):
    assert scores(NodeResourcesBalancedAllocation(), nodes, placed, pod("p", *incoming)) == expected


def test_best_effort_pod_is_skipped():
    plugin = NodeResourcesBalancedAllocation()
    nodes = [node("node1", "4000m", "10000")]
    assert scores(plugin, nodes, [], pod("p", {})) is None
    # ...and a direct score call without pre_score gives 0
    cluster = ClusterState()
    cluster.upsert_node(nodes[0])
    view = cluster.table.view(np.asarray([0], dtype=np.int64))
    assert plugin.score(state=CycleState(), pod=pod("p", {}), nodes=view).tolist() == [0]


def test_uses_real_requests_not_nonzero_defaults():
    # placed pod without requests adds nothing (the non-zero 100m/200Mi defaults are NodeResourcesFit's)
    nodes = [node("node1", "4000m", "10000")]
    placed = [pod("a", {}, node_name="node1")]
    assert scores(NodeResourcesBalancedAllocation(), nodes, placed, pod("p", {"cpu": "2000m"})) == [75]


def test_three_resources_use_population_std():
    args = NodeResourcesBalancedAllocationArgs.model_validate(
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]}
    )
    plugin = NodeResourcesBalancedAllocation(args)
    nodes = [node("node1", "4000m", "10000", **{EXT: "4"}), node("node2", "4000m", "10000")]
    got = scores(plugin, nodes, [], pod("p", {"cpu": "1000m", "memory": "5000", EXT: "3"}))
    fr = [0.25, 0.5, 0.75]
    mean = sum(fr) / 3
    std = math.sqrt(sum((f - mean) * (f - mean) for f in fr) / 3)
    assert got == [int((1 - std) * 100), 87]  # node2 lacks the GPU: cpu/memory only -> |.25-.5|/2


def test_random_nodes_match_go_formula():
    rng = np.random.default_rng(3)
    nodes, placed, expect = [], [], []
    for i in range(80):
        ac, am = int(rng.integers(0, 5000)), int(rng.integers(0, 5000))
        uc, um = int(rng.integers(1, 6000)), int(rng.integers(1, 6000))
        nodes.append(node(f"n{i:02d}", f"{ac}m", str(am)))
        placed.append(pod(f"e{i}", {"cpu": f"{uc}m", "memory": str(um)}, node_name=f"n{i:02d}"))
        fr = [min((uc + 333) / ac, 1.0)] if ac else []
        fr += [min((um + 444) / am, 1.0)] if am else []
        std = abs((fr[0] - fr[1]) / 2) if len(fr) == 2 else 0.0
        expect.append(int((1 - std) * 100))
    got = scores(NodeResourcesBalancedAllocation(), nodes, placed, pod("p", {"cpu": "333m", "memory": "444"}))
    assert got == expect


def test_args():
    assert [(r.name, r.weight) for r in NodeResourcesBalancedAllocationArgs().resources] == [("cpu", 1), ("memory", 1)]
    args = NodeResourcesBalancedAllocationArgs.model_validate({"resources": [{"name": "cpu"}, {"name": EXT, "weight": 0}]})
    assert [(r.name, r.weight) for r in args.resources] == [("cpu", 1), (EXT, 1)]
    with pytest.raises(ValidationError, match=r"resources\[1\]\.weight: must be 1"):
        NodeResourcesBalancedAllocationArgs.model_validate({"resources": [{"name": "cpu"}, {"name": "memory", "weight": 2}]})
    with pytest.raises(ValidationError, match=r"resources\[1\]\.name: Duplicate value"):
        NodeResourcesBalancedAllocationArgs.model_validate({"resources": [{"name": "cpu"}, {"name": "cpu"}]})

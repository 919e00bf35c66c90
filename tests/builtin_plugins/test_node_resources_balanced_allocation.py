"""NodeResourcesBalancedAllocation: kube-scheduler's balanced_allocation_test cases and formula."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState
from kubeberth.builtin_plugins.node_resources_balanced_allocation import (
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, all_nodes, cluster_of
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
    """The plugin's scores called directly (None: pre_score skipped); checked against a cycle of a profile running it."""
    cluster = cluster_of(nodes, [p.raw for p in placed])
    view = all_nodes(cluster)
    state = CycleState()
    status = plugin.pre_score(state=state, pod=incoming, cluster=cluster)
    direct = None
    if status is None or status.code != Code.SKIP:
        direct = plugin.score(state=state, pod=incoming, nodes=view, cluster=cluster).tolist()
    args = {"NodeResourcesBalancedAllocation": plugin.args.model_dump()}
    objects = [{"kind": "Node", **n} for n in nodes] + [{"kind": "Pod", **p.raw} for p in placed]
    with SchedulerTester(["NodeResourcesBalancedAllocation"], args=args, objects=objects) as t:
        framework = t.evaluate(incoming).scores.get("NodeResourcesBalancedAllocation")
    assert framework == (None if direct is None else dict(zip(view.names, direct, strict=True)))
    return direct


CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_ONLY = ({"cpu": "1000m"}, {"cpu": "2000m"})

GPU = "nvidia.com/gpu"
WITH_GPU = NodeResourcesBalancedAllocationArgs.model_validate(
    {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 1}]}
)

# kube-scheduler v1.37's balanced_allocation_test cases: score = 50 + (50 + with - without) / 2.
CASES = [
    # node1: 100 -> 87 (.75 vs .5) = 68 ; node2: 100 -> 100 = 75
    ("nothing scheduled, resources requested, differently sized nodes", CPU_AND_MEMORY,
     [node("node1", "4000m", "10000"), node("node2", "6000m", "10000")], [], [68, 75], None),
    # node1: cpu .3 -> .6, mem 0 -> .25: 85 -> 82 = 73 ; node2: 97 -> 95 = 74
    ("resources requested, pods scheduled with resources", CPU_AND_MEMORY,
     [node("node1", "10000m", "20000"), node("node2", "10000m", "20000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [73, 74], None),
    # node2 memory .1 -> .2: 90 -> 80 = 70
    ("resources requested, pods scheduled with resources, differently sized nodes", CPU_AND_MEMORY,
     [node("node1", "10000m", "20000"), node("node2", "10000m", "50000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [73, 70], None),
    # node1: 50 -> 100 = 100 ; node2: 100 -> 50 = 50
    ("nodes to reach min/max score", ({"memory": "2000"}, {"memory": "3000"}),
     [node("node1", "3000m", "5000"), node("node2", "3000m", "5000")], [pod("a", *CPU_ONLY, node_name="node1")],
     [100, 50], None),
    # node1: 75 -> 50 = 62 ; node2: 100 -> 75 = 62
    ("requested resources at node capacity", CPU_ONLY,
     [node("node1", "6000m", "10000"), node("node2", "6000m", "10000")],
     [pod("a", *CPU_ONLY, node_name="node1"), pod("b", *CPU_AND_MEMORY, node_name="node2")], [62, 62], None),
    # gpu requested: node1 69 -> 70 = 75 ; node2 62 -> 65 = 76
    ("scalar resource is included if the pod requests it", ({"cpu": "0", "memory": "0", GPU: "1"},),
     [node("node1", "3500m", "40000", **{GPU: "8"}), node("node2", "3500m", "40000", **{GPU: "8"})],
     [pod("a", {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"}, node_name="node1"),
      pod("b", *CPU_AND_MEMORY, node_name="node2")], [75, 76], WITH_GPU),
    # gpu not requested: ignored, 100 -> 63 = 56 on both
    ("scalar resource is not included if the pod does not request it", CPU_AND_MEMORY,
     [node("node1", "3500m", "40000", **{GPU: "8"}), node("node2", "3500m", "40000")], [], [56, 56], WITH_GPU),
    # allocatable 0 everywhere: no fractions -> 100 -> 100 = 75
    ("zero node resources", CPU_AND_MEMORY, [node("node1", "0", "0"), node("node2", "0", "0")], [], [75, 75], None),
]


@pytest.mark.parametrize(("incoming", "nodes", "placed", "expected", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_balanced_allocation_cases(incoming, nodes, placed, expected, args):
    assert scores(NodeResourcesBalancedAllocation(args), nodes, placed, pod("p", *incoming)) == expected


def test_best_effort_pod_is_skipped():
    plugin = NodeResourcesBalancedAllocation()
    nodes = [node("node1", "4000m", "10000")]
    assert scores(plugin, nodes, [], pod("p", {})) is None
    # ...and a direct score call without pre_score gives 0
    cluster = ClusterState()
    cluster.upsert_node(nodes[0])
    view = cluster.table.view(np.asarray([0], dtype=np.int64))
    assert plugin.score(state=CycleState(), pod=pod("p", {}), nodes=view, cluster=cluster).tolist() == [0]


def test_uses_real_requests_not_nonzero_defaults():
    # placed pod without requests adds nothing (the non-zero 100m/200Mi defaults are NodeResourcesFit's)
    nodes = [node("node1", "4000m", "10000")]
    placed = [pod("a", {}, node_name="node1")]
    assert scores(NodeResourcesBalancedAllocation(), nodes, placed, pod("p", {"cpu": "2000m"})) == [62]  # 100 -> 75


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
    # node2 lacks the GPU: cpu/memory only -> |.25-.5|/2 -> 87; both start from 100 (nothing placed)
    assert got == [50 + (50 + int((1 - std) * 100) - 100) // 2, 50 + (50 + 87 - 100) // 2]


def test_random_nodes_match_go_formula():
    rng = np.random.default_rng(3)
    nodes, placed, expect = [], [], []
    for i in range(80):
        ac, am = int(rng.integers(0, 5000)), int(rng.integers(0, 5000))
        uc, um = int(rng.integers(1, 6000)), int(rng.integers(1, 6000))
        nodes.append(node(f"n{i:02d}", f"{ac}m", str(am)))
        placed.append(pod(f"e{i}", {"cpu": f"{uc}m", "memory": str(um)}, node_name=f"n{i:02d}"))

        def balance(c: int, m: int, ac: int = ac, am: int = am) -> int:
            fr = [min(c / ac, 1.0)] if ac else []
            fr += [min(m / am, 1.0)] if am else []
            return int((1 - (abs((fr[0] - fr[1]) / 2) if len(fr) == 2 else 0.0)) * 100)

        diff = 50 + balance(uc + 333, um + 444) - balance(uc, um)
        expect.append(50 + int(diff / 2))  # Go's integer division truncates toward zero
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

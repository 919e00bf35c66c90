"""The resource plugins running inside the real framework (simulate on the embedded cluster), and their cost at 5000 nodes."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from kubeberth import CycleState
from kubeberth.builtin_plugins.image_locality import ImageLocality
from kubeberth.builtin_plugins.node_name import NodeName
from kubeberth.builtin_plugins.node_ports import NodePorts
from kubeberth.builtin_plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
from kubeberth.builtin_plugins.node_resources_fit import NodeResourcesFit
from kubeberth.builtin_plugins.node_unschedulable import NodeUnschedulable
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import make_node

MINE = ["PrioritySort", "NodeUnschedulable", "NodeName", "NodePorts", "NodeResourcesFit",
        "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder"]


def pod(name: str, cpu: str, host_port: int | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}
    if host_port:
        container["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": {"containers": [container]}}


def test_pods_land_where_kube_scheduler_would_put_them(scheduler_tester):
    objects = [
        make_node("cordoned", "16", unschedulable=True),
        make_node("small", "1"),
        make_node("big", "8"),
        make_node("big2", "8"),
        pod("web", "2"),
        pod("huge", "100"),
        pod("hp1", "100m", host_port=8080),
        pod("hp2", "100m", host_port=8080),
        pod("hp3", "100m", host_port=8080),
    ]
    result = scheduler_tester(MINE, base=()).simulate(objects)
    placed = result.placements
    assert placed["default/web"] in ("big", "big2")
    assert "default/huge" not in placed
    hp = {placed.get(f"default/hp{i}") for i in (1, 2, 3)}
    assert len(hp - {None}) == 3 and "cordoned" not in hp  # three distinct nodes: small, big, big2
    notes = [e["note"] for e in result.backend.events if e["regarding"] == "default/huge"]
    assert any(
        "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu." in n for n in notes
    ), notes


def test_host_port_exhaustion_message(scheduler_tester):
    objects = [make_node("a", "4"), make_node("b", "4")] + [pod(f"hp{i}", "100m", host_port=80) for i in range(3)]
    result = scheduler_tester(MINE, base=()).simulate(objects)
    assert sum(1 for k in result.placements if k.startswith("default/hp")) == 2
    notes = [e["note"] for e in result.backend.events if e["reason"] == "FailedScheduling"]
    assert any("2 node(s) didn't have free ports for the requested pod ports" in n for n in notes), notes


# ---- cost at 5000 nodes ----------------------------------------------------------------------
def big_cluster(n: int = 5000) -> ClusterState:
    rng = np.random.default_rng(0)
    cluster = ClusterState()
    images = [f"repo/app{i}:v{j}" for i in range(40) for j in range(3)]
    for i in range(n):
        held = rng.choice(len(images), size=8, replace=False)
        cluster.upsert_node({"metadata": {"name": f"n{i:05d}"}, "spec": {"unschedulable": bool(i % 97 == 0)},
                             "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "4"},
                                        "images": [{"names": [images[k]], "sizeBytes": int(rng.integers(10, 900)) << 20} for k in held]}})
    for i in range(n * 4):
        spec: dict[str, Any] = {"nodeName": f"n{i % n:05d}", "containers": [{"name": "c", "image": "x", "resources": {
            "requests": {"cpu": f"{int(rng.integers(50, 2000))}m", "memory": f"{int(rng.integers(64, 4096))}Mi"}}}]}
        if i % 10 == 0:
            spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8000 + i % 50}]
        cluster.upsert_pod(PodInfo.from_dict({"metadata": {"name": f"e{i}", "uid": f"e{i}"}, "spec": spec}))
    return cluster


def timed(fn, repeat: int = 20) -> float:
    fn()  # warm caches (memo, indexes)
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1000


def hook_timings() -> dict[str, float]:
    cluster = big_cluster()
    view = cluster.table.view(cluster.table.ordered_rows())
    incoming = PodInfo.from_dict({"metadata": {"name": "p", "uid": "p"}, "spec": {
        "initContainers": [{"name": "i", "image": "repo/app3:v1"}],
        "containers": [{"name": "c", "image": "repo/app1:v0", "ports": [{"containerPort": 80, "hostPort": 8010}],
                        "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "example.com/gpu": "1"}}}]}})
    named = PodInfo.from_dict({"metadata": {"name": "q", "uid": "q"}, "spec": {"nodeName": "n00042", "containers": []}})
    state = CycleState()
    fit, ports, balanced = NodeResourcesFit(), NodePorts(), NodeResourcesBalancedAllocation()
    fit.pre_filter(state=state, pod=incoming, nodes=view)
    ports.pre_filter(state=state, pod=incoming, cluster=cluster)
    fit.pre_score(state=state, pod=incoming, cluster=cluster)
    balanced.pre_score(state=state, pod=incoming, cluster=cluster)
    image = ImageLocality()
    return {
        "NodeUnschedulable.filter": timed(lambda: NodeUnschedulable().filter(pod=incoming, nodes=view)),
        "NodeName.filter": timed(lambda: NodeName().filter(pod=named, nodes=view)),
        "NodePorts.filter": timed(lambda: ports.filter(state=state, pod=incoming, nodes=view, cluster=cluster)),
        "NodeResourcesFit.filter": timed(lambda: fit.filter(state=state, pod=incoming, nodes=view, cluster=cluster)),
        "NodeResourcesFit.score": timed(lambda: fit.score(state=state, pod=incoming, nodes=view, cluster=cluster)),
        "NodeResourcesBalancedAllocation.score": timed(lambda: balanced.score(state=state, pod=incoming, nodes=view, cluster=cluster)),
        "ImageLocality.score": timed(lambda: image.score(state=state, pod=incoming, nodes=view)),
    }


if __name__ == "__main__":  # per-hook timings at 5,000 nodes (a benchmark, not a test)
    for name, ms in hook_timings().items():
        print(f"{name:40s} {ms:.3f} ms")

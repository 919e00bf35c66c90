"""Workloads of kube-scheduler's scheduler_perf (test/integration/scheduler_perf in k8s.io/kubernetes
v1.37.2) for `kubeberth bench --scenario`: the same node and pod templates, the same parameters.

Two departures, both so a run is reproducible on one machine: init pods are bound before the clock
starts (round-robin over the nodes) instead of being scheduled first, and churn happens every N
scheduling attempts instead of every N milliseconds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_PAUSE = "registry.k8s.io/pause:3.10.2"


def _node(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """templates/node-default.yaml: 4 cpu, 32Gi, 110 pods."""
    capacity = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True"}],
            "phase": "Running",
        },
    }


def _pod(
    name: str,
    namespace: str = "default",
    cpu: str = "100m",
    memory: str = "500Mi",
    labels: dict[str, str] | None = None,
    priority: int | None = None,
    limits: bool = True,
    **spec: Any,
) -> dict[str, Any]:
    """templates/pod-default.yaml and its variants (cpu, memory, labels, priority, affinity)."""
    resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
    if limits:
        resources["limits"] = {"cpu": cpu, "memory": memory}
    body: dict[str, Any] = {
        "containers": [
            {"image": _PAUSE, "name": "pause", "ports": [{"containerPort": 80}], "resources": resources}
        ],
        **spec,
    }
    if priority is not None:
        body["priority"] = priority
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


_NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone1", "zone2"]}]}
            ]
        }
    }
}


def _pod_affinity(kind: str, color: str, topology_key: str) -> dict[str, Any]:
    return {
        kind: {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"color": color}},
                    "topologyKey": topology_key,
                    "namespaces": ["sched-1", "sched-0"],
                }
            ]
        }
    }


_SPREAD = [
    {
        "maxSkew": 5,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"color": "blue"}},
    }
]


def default_pod(i: int, namespace: str = "default") -> dict[str, Any]:
    return _pod(f"pod-{i:06d}", namespace)


def large_cpu_pod(i: int) -> dict[str, Any]:
    """templates/pod-high-priority-large-cpu.yaml: 9 cpu fits on no 4-cpu node."""
    return _pod(f"pod-h-{i:06d}", cpu="9", priority=10, limits=False)


@dataclass(frozen=True)
class Scenario:
    """One scheduler_perf test case: the nodes, the pods bound before timing, the measured pods."""

    name: str
    description: str
    nodes: int
    pods: int
    init_pods: int
    node: Callable[[int], dict[str, Any]]
    init_pod: Callable[[int], dict[str, Any]]
    measured_pod: Callable[[int], dict[str, Any]]
    # Every `mixed_every` measured pods, `mixed(i)` is created too (pods that fit nowhere).
    mixed_every: int = 0
    mixed: Callable[[int], dict[str, Any]] | None = None
    # Every `churn_every` scheduling attempts the previous churn objects are deleted and new ones created.
    churn_every: int = 0
    churn: Callable[[int], list[dict[str, Any]]] | None = None
    init_per_node: int = 0  # >0: init pods fill nodes in order (PreemptionBasic's 4 per node)

    def objects(self, nodes: int, init_pods: int) -> Iterator[dict[str, Any]]:
        """The nodes, then the init pods with spec.nodeName set (round-robin over the nodes)."""
        names = []
        for i in range(nodes):
            node = self.node(i)
            names.append(node["metadata"]["name"])
            yield node
        for j in range(init_pods):
            pod = self.init_pod(j)
            row = j // self.init_per_node if self.init_per_node else j
            pod["spec"]["nodeName"] = names[row % len(names)]
            yield pod

    def measured(self, pods: int) -> Iterator[dict[str, Any]]:
        """The measured pods, in creation order (mixed pods are created by the bench during the run)."""
        for j in range(pods):
            yield self.measured_pod(j)


def _zone_node(zones: tuple[str, ...]) -> Callable[[int], dict[str, Any]]:
    """labelNodePrepareStrategy: topology.kubernetes.io/zone taken round-robin from `zones`."""
    return lambda i: _node(f"scheduler-perf-{i:05d}", {"topology.kubernetes.io/zone": zones[i % len(zones)]})


def _plain_node(i: int) -> dict[str, Any]:
    return _node(f"scheduler-perf-{i:05d}")


def _churn_objects(i: int) -> list[dict[str, Any]]:
    """templates/churn: a node with room for no pods, a pod that fits nowhere, a Service."""
    node = _node(f"node-churn-{i:06d}")
    node["status"]["capacity"] = {"pods": "0"}
    node["status"]["allocatable"] = {"pods": "0"}
    pod = _pod(f"pod-churn-{i:06d}", cpu="9", priority=10, limits=False)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": f"service-churn-{i:06d}", "namespace": "default"},
        "spec": {"selector": {"app": "foo"}, "ports": [{"protocol": "TCP", "port": 8080, "targetPort": 8080}]},
    }
    return [node, pod, service]


_MIXED_ZONES = tuple(f"zone{z}" for z in range(1, 11))


def _mixed_init_pod(i: int) -> dict[str, Any]:
    """A running pod of one of 50 services (the labels inter-pod affinity and spreading match against)."""
    return _pod(f"init-{i:07d}", labels={"app": f"svc-{i % 50}"})


def _mixed_pod(i: int) -> dict[str, Any]:
    """The mixed workload's pod `i`: runs of 10 replicas of one kind (a Deployment's pods arrive
    together), kinds in turn: 5 in 10 plain, then required node affinity (2 of 10 zones), required
    anti-affinity per hostname, spreading over zones (maxSkew 5), required affinity per zone;
    every 50th pod is a 3.5-cpu priority-10 pod that fits only by preempting (a 2% preemption share)."""
    if i % 50 == 49:
        return _pod(f"preemptor-{i:07d}", cpu="3500m", priority=10, limits=False)
    kind = i // 10 % 10
    name = f"mixed-{i:07d}"
    if kind == 5:
        return _pod(name, affinity=copy.deepcopy(_NODE_AFFINITY))
    if kind == 6:
        return _pod(name, "sched-1", labels={"color": "green"},
                    affinity=_pod_affinity("podAntiAffinity", "green", "kubernetes.io/hostname"))
    if kind == 7:
        return _pod(name, labels={"color": "blue"}, topologySpreadConstraints=copy.deepcopy(_SPREAD))
    if kind == 8:
        return _pod(name, "sched-0", labels={"color": "red"},
                    affinity=_pod_affinity("podAffinity", "red", "topology.kubernetes.io/zone"))
    return _pod(name)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "SchedulingBasic", "misc: pod-default on node-default",
            5000, 10000, 1000, _plain_node, default_pod, default_pod,
        ),
        Scenario(
            "SchedulingNodeAffinity", "affinity: required node affinity zone In [zone1, zone2]; every node zone1",
            5000, 10000, 5000, _zone_node(("zone1",)),
            lambda i: _pod(f"init-{i:06d}", affinity=copy.deepcopy(_NODE_AFFINITY)),
            lambda i: _pod(f"node-affinity-{i:06d}", affinity=copy.deepcopy(_NODE_AFFINITY)),
        ),
        Scenario(
            "SchedulingPodAffinity", "affinity: required pod affinity color=blue per zone; every node zone1",
            5000, 5000, 5000, _zone_node(("zone1",)),
            lambda i: _pod(f"init-{i:06d}", "sched-0", labels={"color": "blue"},
                           affinity=_pod_affinity("podAffinity", "blue", "topology.kubernetes.io/zone")),
            lambda i: _pod(f"affinity-pod-{i:06d}", "sched-1", labels={"color": "blue"},
                           affinity=_pod_affinity("podAffinity", "blue", "topology.kubernetes.io/zone")),
        ),
        Scenario(
            "SchedulingPodAntiAffinity", "affinity: required pod anti-affinity color=green per hostname",
            5000, 2000, 1000, _plain_node,
            lambda i: _pod(f"init-{i:06d}", "sched-0", labels={"color": "green"},
                           affinity=_pod_affinity("podAntiAffinity", "green", "kubernetes.io/hostname")),
            lambda i: _pod(f"anti-affinity-pod-{i:06d}", "sched-1", labels={"color": "green"},
                           affinity=_pod_affinity("podAntiAffinity", "green", "kubernetes.io/hostname")),
        ),
        Scenario(
            "TopologySpreading", "topology_spreading: maxSkew 5 over zones moon-1..3, DoNotSchedule",
            5000, 5000, 5000, _zone_node(("moon-1", "moon-2", "moon-3")), default_pod,
            lambda i: _pod(f"spreading-pod-{i:06d}", labels={"color": "blue"}, topologySpreadConstraints=copy.deepcopy(_SPREAD)),
        ),
        Scenario(
            "PreemptionBasic", "default_preemption: 4 low-priority 900m pods per node; 3000m priority-10 pods preempt",
            5000, 1000, 20000, _plain_node,
            lambda i: _pod(f"pod-{i:06d}", cpu="900m", terminationGracePeriodSeconds=0),
            lambda i: _pod(f"pod-high-priority-{i:06d}", cpu="3000m", priority=10),
            init_per_node=4,
        ),
        Scenario(
            "Unschedulable", "default_preemption: pod-default stream with a 9-cpu priority-10 pod every 100 pods",
            5000, 10000, 100, _plain_node, default_pod, default_pod,
            mixed_every=100, mixed=large_cpu_pod,
        ),
        Scenario(
            "SchedulingWithMixedChurn", "misc: pod-default while a node, a 9-cpu pod and a Service are recreated"
            " every 100 attempts",
            5000, 10000, 0, _plain_node, default_pod, default_pod,
            churn_every=100, churn=_churn_objects,
        ),
        Scenario(
            "SchedulingMixed", "kubeberth's own: runs of plain, node-affinity, anti-affinity, spreading and affinity"
            " pods over 10 zones and 10 running pods per node, 2% of pods preempting",
            5000, 10000, 50000, _zone_node(_MIXED_ZONES), _mixed_init_pod, _mixed_pod,
        ),
    )
}

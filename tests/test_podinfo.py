"""PodInfo: requests computed as kube-scheduler computes them, and the fields plugins read."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Toleration
from kubeberth.cache.podinfo import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    HostPort,
    PodInfo,
    PodSpecError,
)
from kubeberth.testing import make_pod

Mi = 2**20
Gi = 2**30


def container(name: str, cpu: str | None = None, memory: str | None = None, *, limits: dict | None = None,
              **extra: Any) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    out: dict[str, Any] = {"name": name, "image": f"img/{name}"}
    if resources:
        out["resources"] = resources
    out.update(extra)
    return out


def parse(**spec: Any) -> PodInfo:
    return PodInfo.from_dict(make_pod("p", **spec))


def test_sum_of_containers() -> None:
    pod = parse(containers=[container("a", "100m", "1Gi"), container("b", "250m", "512Mi")])
    assert pod.requests == {"cpu": 350, "memory": Gi + 512 * Mi}
    assert (pod.nonzero_cpu, pod.nonzero_memory) == (350, Gi + 512 * Mi)


@pytest.mark.parametrize(
    ("containers", "init", "expected"),
    [
        # init container larger than the sum: max wins per resource
        ([container("a", "1", "1Gi")], [container("i", "2", "512Mi")], {"cpu": 2000, "memory": Gi}),
        # init containers run one at a time: the largest one, not their sum
        ([container("a", "100m")], [container("i1", "500m"), container("i2", "700m")], {"cpu": 700}),
        ([container("a", "3", "3Gi")], [container("i", "1", "1Gi")], {"cpu": 3000, "memory": 3 * Gi}),
    ],
)
def test_max_of_sum_and_init(containers: list, init: list, expected: dict) -> None:
    assert parse(containers=containers, initContainers=init).requests == expected


def test_overhead_added_after_max() -> None:
    pod = parse(
        containers=[container("a", "1", "1Gi")],
        initContainers=[container("i", "2")],
        overhead={"cpu": "250m", "memory": "120Mi"},
    )
    assert pod.requests == {"cpu": 2250, "memory": Gi + 120 * Mi}
    assert pod.nonzero_cpu == 2250
    assert pod.nonzero_memory == Gi + 120 * Mi


def test_sidecar_init_containers() -> None:
    """restartPolicy: Always init containers run for the pod's lifetime (KEP-753).

    kube-scheduler's case: sidecar 1 cpu, then a regular init 2 cpu (runs beside the sidecar: 3),
    containers 1 cpu (+ sidecar = 2). Request = max(2, 3) = 3.
    """
    pod = parse(
        initContainers=[container("side", "1", restartPolicy="Always"), container("init", "2")],
        containers=[container("a", "1")],
    )
    assert pod.requests["cpu"] == 3000


def test_sidecar_after_init_container_counts_in_total() -> None:
    pod = parse(
        initContainers=[container("init", "2"), container("side", "1", restartPolicy="Always")],
        containers=[container("a", "1500m")],
    )
    # init step: 2; sidecar step: 1; steady state: 1.5 + 1 = 2.5
    assert pod.requests["cpu"] == 2500


def test_limits_only_default_requests() -> None:
    pod = parse(containers=[container("a", limits={"cpu": "2", "memory": "1Gi"})])
    assert pod.requests == {"cpu": 2000, "memory": Gi}
    partial = parse(containers=[container("a", "500m", limits={"cpu": "2", "memory": "1Gi"})])
    assert partial.requests == {"cpu": 500, "memory": Gi}


def test_non_zero_defaults_for_scoring() -> None:
    pod = parse(containers=[container("a"), container("b", "300m")])
    assert pod.requests == {"cpu": 300}
    assert pod.nonzero_cpu == 300 + DEFAULT_MILLI_CPU_REQUEST
    assert pod.nonzero_memory == 2 * DEFAULT_MEMORY_REQUEST
    assert (100, 200 * Mi) == (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)


def test_explicit_zero_request_is_not_defaulted() -> None:
    """kube-scheduler overrides only *unset* cpu/memory requests, not ones explicitly set to zero."""
    pod = parse(containers=[container("a", "0", "0")])
    assert pod.requests == {}
    assert (pod.nonzero_cpu, pod.nonzero_memory) == (0, 0)


def test_no_containers_requests_nothing() -> None:
    pod = PodInfo.from_dict({"metadata": {"name": "empty"}, "spec": {}})
    assert pod.requests == {}
    assert pod.namespace == "default"
    assert pod.scheduler_name == "default-scheduler"


def test_extended_resources() -> None:
    pod = parse(containers=[{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "2"}}}])
    assert pod.requests == {"nvidia.com/gpu": 2}


def test_host_ports() -> None:
    pod = parse(
        containers=[
            container("a", ports=[{"containerPort": 80, "hostPort": 8080}, {"containerPort": 81}]),
            container("b", ports=[{"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "10.0.0.1"}]),
        ]
    )
    assert pod.host_ports == (HostPort("0.0.0.0", "TCP", 8080), HostPort("10.0.0.1", "UDP", 53))


def test_tolerations() -> None:
    pod = parse(
        tolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"operator": "Exists"},
            {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        ]
    )
    t0, t1, t2 = pod.tolerations
    assert t0 == Toleration("dedicated", "Equal", "gpu", "NoSchedule")
    assert t0.tolerates("dedicated", "gpu", "NoSchedule")
    assert not t0.tolerates("dedicated", "cpu", "NoSchedule")
    assert not t0.tolerates("dedicated", "gpu", "NoExecute")
    assert t1.tolerates("anything", "x", "NoExecute")  # empty key + Exists tolerates every taint
    assert t2.toleration_seconds == 30
    assert t2.tolerates("k", "whatever", "NoExecute")
    assert not t2.tolerates("other", "", "NoExecute")


def test_gates_pvcs_and_misc_fields() -> None:
    raw = make_pod(
        "web-0",
        "100m",
        namespace="prod",
        labels={"app": "web"},
        uid="u-1",
        schedulingGates=[{"name": "example.com/a"}, {"name": "example.com/b"}],
        volumes=[
            {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
            {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}},
            {"name": "cfg", "configMap": {"name": "x"}},
        ],
        priority=1000,
        schedulerName="kubeberth",
        nodeSelector={"disk": "ssd"},
        preemptionPolicy="Never",
    )
    raw["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    raw["status"]["nominatedNodeName"] = "n3"
    pod = PodInfo.from_dict(raw)
    assert pod.key == "prod/web-0"
    assert pod.uid == "u-1"
    assert pod.labels == {"app": "web"}
    assert pod.scheduling_gates == ("example.com/a", "example.com/b")
    assert pod.pvc_names == ("data-web-0", "web-0-scratch")
    assert pod.priority == 1000
    assert pod.scheduler_name == "kubeberth"
    assert pod.node_selector == {"disk": "ssd"}
    assert pod.preemption_policy == "Never"
    assert pod.nominated_node_name == "n3"
    assert pod.creation_timestamp == 1704067200.0
    assert pod.images == ("registry.k8s.io/pause:3.9",)
    assert not pod.is_terminal
    assert pod.raw is raw


def test_terminal_and_deleting() -> None:
    raw = make_pod("done")
    raw["status"]["phase"] = "Succeeded"
    raw["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    pod = PodInfo.from_dict(raw)
    assert pod.is_terminal and pod.deleting


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": [container("a", "lots")]},
        {"containers": [container("a", limits={"memory": "1GB"})]},
        {"initContainers": [container("i", "1..2")]},
        {"overhead": {"cpu": "x"}},
    ],
)
def test_bad_quantity_names_the_pod(spec: dict) -> None:
    raw = make_pod("broken", namespace="team-a", **spec)
    with pytest.raises(PodSpecError) as exc:
        PodInfo.from_dict(raw)
    assert "team-a/broken" in str(exc.value)
    assert isinstance(exc.value, ValueError)


def _resizing(spec_cpu: str, status: dict) -> PodInfo:
    return PodInfo.from_dict({
        "metadata": {"name": "p", "uid": "p"},
        "spec": {"nodeName": "n", "containers": [
            {"name": "a", "resources": {"requests": {"cpu": spec_cpu}}},
            {"name": "b", "resources": {"requests": {"cpu": "100m"}}},
        ]},
        "status": status,
    })


def test_requests_count_a_resize_in_flight() -> None:
    """InPlacePodVerticalScaling: max(spec, allocated, actuated) per aggregate; the steady state is the spec."""
    steady = {"containerStatuses": [
        {"name": "a", "allocatedResources": {"cpu": "1"}, "resources": {"requests": {"cpu": "1"}}},
        {"name": "b", "allocatedResources": {"cpu": "100m"}, "resources": {"requests": {"cpu": "100m"}}},
    ]}
    assert _resizing("1", steady).requests["cpu"] == 1100
    assert _resizing("1000m", steady).requests["cpu"] == 1100  # same quantity written otherwise
    assert _resizing("500m", steady).requests["cpu"] == 1100  # shrinking: held until the kubelet acts
    assert _resizing("2", steady).requests["cpu"] == 2100  # growing: the spec counts at once
    # A container without a status counts its spec in the allocated and actuated sums.
    partial = {"containerStatuses": [{"name": "a", "allocatedResources": {"cpu": "3"}}]}
    assert _resizing("1", partial).requests["cpu"] == 3100


def test_pod_level_resize_in_flight() -> None:
    """InPlacePodLevelResourcesVerticalScaling: pod-level spec, status.resources and allocatedResources."""
    pod = PodInfo.from_dict({
        "metadata": {"name": "p", "uid": "p"},
        "spec": {"nodeName": "n", "resources": {"requests": {"cpu": "1"}}, "containers": [{"name": "a"}]},
        "status": {"resources": {"requests": {"cpu": "2"}}, "allocatedResources": {"cpu": "2"}},
    })
    assert pod.requests["cpu"] == 2000 and pod.nonzero_cpu == 2000


def test_running_pods_of_one_template_share_their_requests_and_empty_maps() -> None:
    """What a running pod costs the cache: pods with the same requests share one requests dict, pods without
    labels or nodeSelector one empty dict; a pod with its own labels keeps its own copy (not the API object's)."""
    from kubeberth.cache.podinfo import PodInfo

    def parsed(name: str, labels: dict[str, str] | None = None) -> PodInfo:
        raw = make_pod(name, cpu="100m", memory="500Mi")
        if labels:
            raw["metadata"]["labels"] = labels
        return PodInfo.from_dict(raw)

    a, b, c = parsed("a"), parsed("b"), parsed("c", {"app": "web"})
    assert a.requests is b.requests and a.requests == {"cpu": 100, "memory": 500 * 2**20}
    assert a.labels is b.labels and a.labels == {} and a.node_selector is b.node_selector == {}
    assert c.labels == {"app": "web"} and c.labels is not c.raw["metadata"]["labels"]

"""ReservationCheck: PreBind fails when the reserved node no longer fits; binding then unreserves."""

from __future__ import annotations

from typing import Any

from kubeberth import ClusterState, PermitResult, PodInfo, hookimpl
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.contrib.reservation_check import GONE, ReservationCheck
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.scheduler import Scheduler


class Handle:
    """The two Handle members PreBind uses: the cache it indexes, and fresh reads of nodes."""

    def __init__(self, cluster: ClusterState, nodes: dict[str, dict[str, Any]]) -> None:
        self.cluster = cluster
        self.nodes = nodes

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        return self.nodes.get(key) if kind == "Node" else None


def node(name: str, cpu: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "10"}}}


def pod(name: str, cpu: str, node_name: str = "") -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return PodInfo.from_dict({"metadata": {"name": name, "uid": name}, "spec": spec})


def test_fits_then_not_after_another_scheduler_binds_there() -> None:
    cluster = ClusterState()
    nodes = {"n": node("n", "2")}
    cluster.upsert_node(nodes["n"])
    check = ReservationCheck()
    mine = pod("mine", "1500m")
    cluster.assume(mine, "n")
    check.reserve(cluster=cluster)  # the index starts from current placements
    handle = Handle(cluster, nodes)
    assert check.pre_bind(pod=mine, node_name="n", handle=handle) is None
    cluster.upsert_pod(pod("theirs", "1", node_name="n"))  # bound by another scheduler meanwhile
    status = check.pre_bind(pod=mine, node_name="n", handle=handle)
    assert status.is_rejected and status.message == "node n no longer fits the pod at binding: Insufficient cpu"
    cluster.remove_pod("theirs")
    assert check.pre_bind(pod=mine, node_name="n", handle=handle) is None
    nodes["n"] = node("n", "1")  # allocatable shrank (fresh read)
    assert check.pre_bind(pod=mine, node_name="n", handle=handle).is_rejected
    del nodes["n"]
    assert check.pre_bind(pod=mine, node_name="n", handle=handle).message == GONE


class Hold:
    """Holds the pod at Permit so the test can change the node before PreBind runs."""

    name = "Hold"

    @hookimpl
    def permit(self) -> PermitResult:
        return PermitResult.wait(10)


def test_shrunk_node_fails_binding_and_pod_is_requeued() -> None:
    config = parse_configuration({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": "ReservationCheck"}]},
                                  "permit": {"enabled": [{"name": "Hold"}]}}}],
    })
    generation = build_generation(config=config, extra_plugins=[Hold])
    backend = EmbeddedCluster([{"kind": "Node", **node("n", "2")}])
    scheduler = Scheduler(generation, backend, seed=1, binding_workers=1)
    scheduler.start_backend()
    backend.apply({"kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
                   "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]}})
    scheduler.drain_events()
    assert scheduler.step()  # scheduled, reserved, waiting at Permit
    waiting = scheduler.waiting_pods["p"]
    # Meanwhile the node shrinks (a kubelet reports less allocatable).
    backend.apply({"kind": "Node", **node("n", "1")})
    waiting.allow("Hold")
    for _ in range(200):
        if not scheduler.in_flight:
            break
        scheduler.drain_events(block_for=0.05)
    assert backend.get("Pod", "default/p")["spec"].get("nodeName") is None
    assert scheduler.stats.bind_failures == 1
    assert "p" not in scheduler.cluster.placement  # unreserved and forgotten
    assert "no longer fits the pod at binding: Insufficient cpu" in scheduler.queue.entries["p"].last_message
    scheduler.shutdown()

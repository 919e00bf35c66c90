"""ReservationCheck: PreBind fails when the reserved node no longer fits; binding then unreserves."""

from __future__ import annotations

from typing import Any

from kubeberth import PermitResult, Status, hookimpl
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
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

    def get_waiting_pod(self, uid: str) -> object | None:
        return self.waiting.get(uid)

    waiting: dict[str, object] = {}


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


def test_pre_flight_skips_when_the_node_still_fits_and_the_pod_does_not_wait() -> None:
    cluster = ClusterState()
    nodes = {"n": node("n", "2")}
    cluster.upsert_node(nodes["n"])
    check = ReservationCheck()
    mine = pod("mine", "1500m")
    cluster.assume(mine, "n")
    check.reserve(cluster=cluster)
    handle = Handle(cluster, nodes)
    assert check.pre_bind_pre_flight(pod=mine, node_name="n", handle=handle) == Status.skip()
    nodes["n"] = node("n", "1")  # no longer fits: PreBind has work (it rejects)
    assert check.pre_bind_pre_flight(pod=mine, node_name="n", handle=handle) is None
    nodes["n"] = node("n", "2")
    handle.waiting = {"mine": object()}  # held at Permit: verified again after the wait
    assert check.pre_bind_pre_flight(pod=mine, node_name="n", handle=handle) is None


def _scheduler(*, hold: bool) -> tuple[Scheduler, EmbeddedCluster, list[str]]:
    plugins: dict[str, Any] = {"multiPoint": {"enabled": [{"name": "ReservationCheck"}]}}
    if hold:
        plugins["permit"] = {"enabled": [{"name": "Hold"}]}
    config = parse_configuration({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
    })
    generation = build_generation(config=config, extra_plugins=[Hold])
    backend = EmbeddedCluster([{"kind": "Node", **node("n", "2")}])
    scheduler = Scheduler(generation, backend, seed=1, binding_workers=1)
    nominations: list[str] = []
    write = backend.write_nominated_node

    def recorded(pod: PodInfo, node_name: str) -> Status:
        nominations.append(node_name)
        return write(pod, node_name)

    backend.write_nominated_node = recorded  # type: ignore[method-assign]
    scheduler.start_backend()
    backend.apply({"kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
                   "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})
    scheduler.drain_events()
    return scheduler, backend, nominations


def _finish(scheduler: Scheduler) -> None:
    for _ in range(200):
        if not scheduler.in_flight:
            break
        scheduler.drain_events(block_for=0.05)


def test_a_pod_that_fits_binds_without_a_nomination_write() -> None:
    scheduler, backend, nominations = _scheduler(hold=False)
    assert scheduler.step()
    _finish(scheduler)
    assert backend.get("Pod", "default/p")["spec"].get("nodeName") == "n"
    assert nominations == []  # the pre-flight said Skip: no PreBind work, no status write
    scheduler.shutdown()


def test_a_pod_held_at_permit_gets_its_nomination_and_is_verified_after_the_wait() -> None:
    scheduler, backend, nominations = _scheduler(hold=True)
    assert scheduler.step()
    scheduler.waiting_pods["p"].allow("Hold")
    _finish(scheduler)
    assert backend.get("Pod", "default/p")["spec"].get("nodeName") == "n"
    assert nominations == ["n"]
    scheduler.shutdown()

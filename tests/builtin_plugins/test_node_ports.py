"""NodePorts: kube-scheduler's node_ports_test cases, plus the incremental used-port index."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code, CycleState
from kubeberth.builtin_plugins.node_ports import NodePorts, pod_host_ports
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import all_nodes

_uid = iter(range(10**6))


def port(p: str) -> dict[str, Any]:
    """'UDP/127.0.0.1/8080' -> a container port with that host binding."""
    protocol, ip, number = p.split("/")
    out: dict[str, Any] = {"containerPort": int(number), "hostPort": int(number), "protocol": protocol}
    if ip:
        out["hostIP"] = ip
    return out


def pod(*ports: str, node: str = "", init_ports: tuple[str, ...] = (), sidecar: bool = False) -> PodInfo:
    spec: dict[str, Any] = {"containers": [{"name": "c", "ports": [port(p) for p in ports]}]}
    if init_ports:
        init: dict[str, Any] = {"name": "i", "ports": [port(p) for p in init_ports]}
        if sidecar:
            init["restartPolicy"] = "Always"
        spec["initContainers"] = [init]
    if node:
        spec["nodeName"] = node
    uid = f"p{next(_uid)}"
    return PodInfo.from_dict({"metadata": {"name": uid, "uid": uid}, "spec": spec})


def run(cluster: ClusterState, incoming: PodInfo):
    plugin = NodePorts()
    state = CycleState()
    view = all_nodes(cluster)
    status = plugin.pre_filter(state=state, pod=incoming, cluster=cluster)
    if status is not None and status.code == Code.SKIP:
        return "skip"
    return plugin.filter(state=state, pod=incoming, nodes=view, cluster=cluster)


def one_node(*placed: PodInfo) -> ClusterState:
    cluster = ClusterState()
    cluster.upsert_node({"metadata": {"name": "m1"}})
    for p in placed:
        cluster.upsert_pod(p)
    return cluster


CASES = [
    # TestNodePorts, v1.37.2, verbatim (the last case and "nothing running" are kubeberth's)
    ("nothing running", ("UDP/127.0.0.1/8080",), (), False),
    ("TestNodePorts/other port", ("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/9090",), False),
    ("TestNodePorts/same udp port", ("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/8080",), True),
    ("TestNodePorts/same tcp port", ("TCP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), True),
    ("TestNodePorts/different host ip", ("TCP/127.0.0.1/8080",), ("TCP/127.0.0.2/8080",), False),
    ("TestNodePorts/different protocol", ("UDP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), False),
    ("TestNodePorts/second udp port conflict", ("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/8080",), True),
    ("TestNodePorts/first tcp port conflict", ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"), True),
    ("TestNodePorts/first tcp port conflict due to 0.0.0.0 hostIP", ("TCP/0.0.0.0/8001",), ("TCP/127.0.0.1/8001",), True),
    ("TestNodePorts/TCP hostPort conflict due to 0.0.0.0 hostIP", ("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), ("TCP/127.0.0.1/8001",), True),
    ("TestNodePorts/second tcp port conflict to 0.0.0.0 hostIP", ("TCP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001",), True),
    ("TestNodePorts/second different protocol", ("UDP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001",), False),
    ("TestNodePorts/UDP hostPort conflict due to 0.0.0.0 hostIP", ("UDP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), True),
    ("empty hostIP means 0.0.0.0", ("TCP//8001",), ("TCP/127.0.0.1/8001",), True),
]


@pytest.mark.parametrize(("wanted", "used", "conflict"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_port_conflicts(wanted, used, conflict):
    cluster = one_node(*([pod(*used, node="m1")] if used else []))
    result = run(cluster, pod(*wanted))
    if not conflict:
        assert result is None
        return
    assert result.feasible.tolist() == [False]
    [rej] = result.rejections
    assert rej.reason == "node(s) didn't have free ports for the requested pod ports"
    assert rej.code == Code.UNSCHEDULABLE


def test_pod_without_host_ports_skips():
    cluster = one_node(pod("TCP//80", node="m1"))
    no_ports = PodInfo.from_dict({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}})
    assert run(cluster, no_ports) == "skip"


def test_index_follows_pod_removal_and_node_rows():
    cluster = ClusterState()
    for n in ("a", "b", "c"):
        cluster.upsert_node({"metadata": {"name": n}})
    first = pod("TCP//80", node="b")
    cluster.upsert_pod(first)
    result = run(cluster, pod("TCP//80"))
    assert result.feasible.tolist() == [True, False, True]
    # placed after the index exists: kept incrementally
    cluster.upsert_pod(pod("TCP/10.0.0.1/80", node="c"))
    assert run(cluster, pod("TCP/10.0.0.2/80")).feasible.tolist() == [True, False, True]
    assert run(cluster, pod("TCP//80")).feasible.tolist() == [True, False, False]
    cluster.remove_pod(first.uid)
    assert run(cluster, pod("TCP//80")).feasible.tolist() == [True, True, False]
    cluster.remove_node("c")
    assert run(cluster, pod("TCP//80")) is None


def test_init_containers_count_only_as_sidecars():
    plain = pod(node="m1", init_ports=("TCP//9000",))
    assert pod_host_ports(plain) == ()
    sidecar = pod(node="m1", init_ports=("TCP//9000",), sidecar=True)
    assert pod_host_ports(sidecar) == (("0.0.0.0", "TCP", 9000),)
    assert run(one_node(plain), pod("TCP//9000")) is None
    assert run(one_node(sidecar), pod("TCP//9000")).feasible.tolist() == [False]


def _init_only(sidecar: bool) -> PodInfo:
    """st.MakePod().InitContainerPort(sidecar, [{ContainerPort: 8001, HostPort: 8001, TCP}]): no regular container."""
    init: dict[str, Any] = {"name": "i", "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}]}
    if sidecar:
        init["restartPolicy"] = "Always"
    return PodInfo.from_dict({"metadata": {"name": "init", "uid": "init"}, "spec": {"initContainers": [init]}})


def test_upstream_skip_filter():
    """TestNodePorts/skip filter"""
    assert run(one_node(), PodInfo.from_dict({"metadata": {"name": "e", "uid": "e"}, "spec": {}})) == "skip"


def test_upstream_non_sidecar_init_container_using_host_port():
    """TestNodePorts/non-sidecar initContainer using hostPort"""
    assert run(one_node(pod("TCP/0.0.0.0/8001", node="m1")), _init_only(False)) == "skip"


def test_upstream_tcp_host_port_conflict_from_sidecar_init_container():
    """TestNodePorts/TCP hostPort conflict from sidecar initContainer"""
    result = run(one_node(pod("TCP/0.0.0.0/8001", node="m1")), _init_only(True))
    assert result.feasible.tolist() == [False]
    assert [r.reason for r in result.rejections] == ["node(s) didn't have free ports for the requested pod ports"]


"""Queueing hints on a real API server: kube-scheduler v1.37.2's integration cases
test/integration/scheduler/queueing `TestCoreResourceEnqueue` (queue.go), with kubeberth in place of
kube-scheduler.

Upstream stops its queue from scheduling on its own and pops pods by hand, then compares the pods
requeued after the trigger (`WantRequeuedPods`) with the expected set. Here kubeberth runs as it
does in a cluster (one process for the module, profile `kubeberth`), and a requeue is observed as a
new scheduling attempt: the pod's decision record (GET /debug/decisions/<ns>/<pod>) carries the
pod's attempt number, which grows by one per retry, and `scheduler_queue_incoming_pods_total` with
the trigger's event (event="NodeUpdateNodeLabel", kube-scheduler's label for it) grows by one per pod the trigger moves out of the
unschedulable pods.
A pod not requeued keeps attempt 1 and is still pending after the requeued one was retried and
bound, and after more than the (1 s) backoff has passed.

The profile is upstream's `EnablePlugins`: multiPoint disables `*` and enables PrioritySort,
DefaultBinder and the case's plugins; the cases share one kubeberth process, one profile (scheduler
name) per plugin set. Upstream runs with 0 s backoff, which the v1 configuration does not accept;
1 s here. Node and pod names are upstream's: the nodes of a case are deleted after it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix

# The upstream cases this module ports (scripts/upstream_cases.py counts them).
UPSTREAM_CASES = (
    "TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is requeued when a Node's label is updated",
    "TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is not requeued when an updated Node haven't changed the 'match' verdict",
    'TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is requeued when a Node is added',
    'TestCoreResourceEnqueue/Pod rejected with hostport by the NodePorts plugin is requeued when pod with common hostport is deleted',
)


_INCOMING = re.compile(r'^scheduler_queue_incoming_pods_total\{([^}]*)\} ([0-9.e+]+)$', re.M)


# One profile per EnablePlugins of the ported cases (scheduler name -> plugins).
NODE_AFFINITY = PROFILE
NODE_AFFINITY_FIT = f"{PROFILE}-nodeaffinity-fit"
NODE_PORTS = f"{PROFILE}-nodeports"
PROFILES = {NODE_AFFINITY: ["NodeAffinity"], NODE_AFFINITY_FIT: ["NodeAffinity", "NodeResourcesFit"],
            NODE_PORTS: ["NodePorts"]}


def _config(path: Path, profiles: dict[str, list[str]]) -> Path:
    """RunTestCoreResourceEnqueue's profile per case: only PrioritySort, DefaultBinder and its plugins."""
    def profile(name: str, plugins: list[str]) -> dict[str, Any]:
        enabled = [{"name": "PrioritySort"}, {"name": "DefaultBinder"}, *({"name": p} for p in plugins)]
        return {"schedulerName": name, "plugins": {"multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]}}}

    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": 1,
        "podMaxBackoffSeconds": 1,
        "leaderElection": {"leaderElect": False},
        "profiles": [profile(name, plugins) for name, plugins in profiles.items()],
    }
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def node_affinity_only(control_plane: LocalControlPlane, sa_kubeconfig: str,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    """The module's kubeberth, with every case's profile (PROFILES)."""
    config = _config(tmp_path_factory.mktemp("queueing") / "config.yaml", PROFILES)
    kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-queueing-{suffix()}")
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


def _decision(kb: Kubeberth, ns: str, name: str) -> dict[str, Any] | None:
    status, body = kb.get(f"/debug/decisions/{ns}/{name}")
    return json.loads(body) if status == 200 else None


def _moved_by(kb: Kubeberth, event: str) -> float:
    """scheduler_queue_incoming_pods_total{event=`event`}, summed over the queues (active or backoff)."""
    status, body = kb.get("/metrics")
    assert status == 200
    return sum(float(value) for labels, value in _INCOMING.findall(body.decode()) if f'event="{event}"' in labels)


def _pod_with_node_affinity_in(name: str, key: str, values: list[str], scheduler: str = NODE_AFFINITY,
                               cpu: str = "") -> dict[str, Any]:
    """st.MakePod().Name(name).NodeAffinityIn(key, values, st.NodeSelectorTypeMatchExpressions)[.Req(cpu)].Container("image")."""
    term = {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}
    container: dict[str, Any] = {"name": "con0", "image": "image"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"schedulerName": scheduler, "containers": [container],
                 "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                     "nodeSelectorTerms": [term]}}}},
    }


def _pod_with_host_port(name: str, host_port: int, node: str = "") -> dict[str, Any]:
    """st.MakePod().Name(name).Container("image").ContainerPort([{ContainerPort: 8080, HostPort: host_port}])[.Node(node)]."""
    spec: dict[str, Any] = {"schedulerName": NODE_PORTS, "containers": [
        {"name": "con0", "image": "image"},
        {"name": "container", "image": "pause", "ports": [{"containerPort": 8080, "hostPort": host_port}]}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _make_node(api: Api, nodes: list[str], name: str, labels: dict[str, str],
               capacity: dict[str, str] | None = None) -> None:
    """st.MakeNode().Name(name).Label(...)[.Capacity(...)]: capacity and allocatable `pods: 32` plus `capacity`."""
    api.call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
    nodes.append(name)
    node = api.call("GET", f"/api/v1/nodes/{name}")
    res = {"pods": "32", **(capacity or {})}
    node["status"] = {"capacity": res, "allocatable": res}
    api.call("PUT", f"/api/v1/nodes/{name}/status", node)


def _create_pods(api: Api, ns: str, *pods: dict[str, Any]) -> None:
    for pod in pods:
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod)


def _rejected(kb: Kubeberth, ns: str, names: tuple[str, ...], plugin: str) -> None:
    for name in names:
        first = _wait_attempt(kb, ns, name, 1, "Unschedulable")
        assert first["attempt"] == 1 and plugin in json.dumps(first["rejected"]), first


def _not_retried(kb: Kubeberth, ns: str, name: str) -> None:
    """Still at its first attempt, and still Unschedulable, after more than the backoff."""
    found = _decision(kb, ns, name)
    assert found is not None and found["attempt"] == 1 and found["result"] == "Unschedulable", found


def _wait_attempt(kb: Kubeberth, ns: str, name: str, attempt: int, result: str) -> dict[str, Any]:
    def reached() -> bool:
        found = _decision(kb, ns, name)
        return found is not None and found["attempt"] >= attempt and found["result"] == result

    wait_for(reached, 30, f"{ns}/{name} attempt {attempt} {result}")
    found = _decision(kb, ns, name)
    assert found is not None
    return found


def test_core_resource_enqueue_node_affinity_node_label_update(
    node_affinity_only: Kubeberth, api: Api, namespace: str, nodes: list[str],
) -> None:
    """TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is requeued when a Node's label is updated.

    InitialNodes fake-node1 (group=a); pod1 (group In [b]) and pod2 (group In [c]) are both rejected by
    NodeAffinity; the trigger updates fake-node1's labels to group=b (one UpdateNodeLabel event).
    WantRequeuedPods: pod1 only."""
    kb, ns = node_affinity_only, namespace
    api.create_node("fake-node1", "4", "8Gi", labels={"group": "a"})
    nodes.append("fake-node1")
    for pod in (_pod_with_node_affinity_in("pod1", "group", ["b"]), _pod_with_node_affinity_in("pod2", "group", ["c"])):
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod)
    for name in ("pod1", "pod2"):
        first = _wait_attempt(kb, ns, name, 1, "Unschedulable")
        assert first["attempt"] == 1 and "NodeAffinity" in json.dumps(first["rejected"]), first
    moved_before = _moved_by(kb, "NodeUpdateNodeLabel")

    # The trigger: Nodes().Update(st.MakeNode().Name("fake-node1").Label("group", "b").Obj()).
    node = api.call("GET", "/api/v1/nodes/fake-node1")
    node["metadata"]["labels"] = {"group": "b"}
    api.call("PUT", "/api/v1/nodes/fake-node1", node)

    wait_for(lambda: api.bound(ns).get("pod1") == "fake-node1", 30, "pod1 bound to fake-node1")
    time.sleep(3)  # past the backoff: a requeued pod2 would have been attempted again by now
    pod1, pod2 = _decision(kb, ns, "pod1"), _decision(kb, ns, "pod2")
    assert pod1 is not None and pod1["attempt"] == 2, pod1
    assert pod2 is not None and pod2["attempt"] == 1 and pod2["result"] == "Unschedulable", pod2
    assert "pod2" not in api.bound(ns)
    assert _moved_by(kb, "NodeUpdateNodeLabel") - moved_before == 1  # pod1 only


def test_core_resource_enqueue_node_affinity_match_verdict_unchanged(
    node_affinity_only: Kubeberth, api: Api, namespace: str, nodes: list[str],
) -> None:
    """TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is not requeued when an updated Node haven't changed the 'match' verdict.

    EnablePlugins NodeAffinity, NodeResourcesFit. node1 (group=a, cpu 2), node2 (group=b); pod1 (group In [a],
    cpu 4) is rejected by NodeResourcesFit on node1 and NodeAffinity on node2. The trigger adds a label to
    node1 (one UpdateNodeLabel event): NodeAffinity's verdict on it stays "match" and NodeResourcesFit did not
    register label updates. WantRequeuedPods: none."""
    kb, ns = node_affinity_only, namespace
    _make_node(api, nodes, "node1", {"group": "a"}, {"cpu": "2"})
    _make_node(api, nodes, "node2", {"group": "b"})
    _create_pods(api, ns, _pod_with_node_affinity_in("pod1", "group", ["a"], NODE_AFFINITY_FIT, cpu="4"))
    first = _wait_attempt(kb, ns, "pod1", 1, "Unschedulable")
    assert "NodeAffinity" in json.dumps(first["rejected"]) and "NodeResourcesFit" in json.dumps(first["rejected"]), first
    moved_before = _moved_by(kb, "NodeUpdateNodeLabel")

    # The trigger: Nodes().Update(st.MakeNode().Name("node1").Label("group", "a").Label("node", "fake-node").Obj()).
    node = api.call("GET", "/api/v1/nodes/node1")
    node["metadata"]["labels"] = {"group": "a", "node": "fake-node"}
    api.call("PUT", "/api/v1/nodes/node1", node)

    wait_for(lambda: (api.call("GET", "/api/v1/nodes/node1")["metadata"]["labels"] or {}).get("node") == "fake-node",
             10, "node1 relabelled")
    time.sleep(3)  # past the backoff: a requeued pod1 would have been attempted again by now
    _not_retried(kb, ns, "pod1")
    assert _moved_by(kb, "NodeUpdateNodeLabel") == moved_before


def test_core_resource_enqueue_node_affinity_node_added(
    node_affinity_only: Kubeberth, api: Api, namespace: str, nodes: list[str],
) -> None:
    """TestCoreResourceEnqueue/Pod rejected by the NodeAffinity plugin is requeued when a Node is added.

    InitialNodes fake-node1 (group=a); pod1 (group In [b]) and pod2 (group In [c]) are rejected by NodeAffinity;
    the trigger creates fake-node2 (group=b; one Node/Add). WantRequeuedPods: pod1 only."""
    kb, ns = node_affinity_only, namespace
    _make_node(api, nodes, "fake-node1", {"group": "a"})
    _create_pods(api, ns, _pod_with_node_affinity_in("pod1", "group", ["b"]), _pod_with_node_affinity_in("pod2", "group", ["c"]))
    _rejected(kb, ns, ("pod1", "pod2"), "NodeAffinity")
    moved_before = _moved_by(kb, "NodeAdd")

    # The trigger: Nodes().Create(st.MakeNode().Name("fake-node2").Label("group", "b").Obj()).
    _make_node(api, nodes, "fake-node2", {"group": "b"})

    wait_for(lambda: api.bound(ns).get("pod1") == "fake-node2", 30, "pod1 bound to fake-node2")
    time.sleep(3)
    pod1 = _decision(kb, ns, "pod1")
    assert pod1 is not None and pod1["attempt"] == 2, pod1
    _not_retried(kb, ns, "pod2")
    assert _moved_by(kb, "NodeAdd") - moved_before == 1  # pod1 only


def test_core_resource_enqueue_node_ports_common_host_port_deleted(
    node_affinity_only: Kubeberth, api: Api, namespace: str, nodes: list[str],
) -> None:
    """TestCoreResourceEnqueue/Pod rejected with hostport by the NodePorts plugin is requeued when pod with common hostport is deleted.

    fake-node holds pod1 (hostPort 8080) and pod2 (hostPort 8081); pod3 (8080) and pod4 (8081) are rejected by
    NodePorts; the trigger deletes pod1 (grace period 0; one AssignedPod Delete). NodePorts' hint requeues the
    pod that wanted pod1's port only. WantRequeuedPods: pod3."""
    kb, ns = node_affinity_only, namespace
    _make_node(api, nodes, "fake-node", {"node": "fake-node"})
    _create_pods(api, ns, _pod_with_host_port("pod1", 8080, "fake-node"), _pod_with_host_port("pod2", 8081, "fake-node"))
    _create_pods(api, ns, _pod_with_host_port("pod3", 8080), _pod_with_host_port("pod4", 8081))
    _rejected(kb, ns, ("pod3", "pod4"), "NodePorts")
    moved_before = _moved_by(kb, "AssignedPodDelete")

    # The trigger: Pods(ns).Delete("pod1", GracePeriodSeconds: 0).
    api.delete_pod(ns, "pod1")

    wait_for(lambda: api.bound(ns).get("pod3") == "fake-node", 30, "pod3 bound to fake-node")
    time.sleep(3)
    pod3 = _decision(kb, ns, "pod3")
    assert pod3 is not None and pod3["attempt"] == 2, pod3
    _not_retried(kb, ns, "pod4")
    assert _moved_by(kb, "AssignedPodDelete") - moved_before == 1  # pod3 only

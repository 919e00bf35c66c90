"""kube-scheduler v1.37.2 test/integration/scheduler/scheduler_test.go against kubeberth on a real API server:
same objects, same expected outcomes, one `kubeberth run` process for the module in place of the in-process
kube-scheduler. Tables are upstream's (upstream_tables/scheduler.json, scripts/upstream_integration_tables.py);
cases, namespaces and node names as in test_filters_integration_e2e.py (tests/e2e/upstream_integration.py).
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import Api, Kubeberth, suffix, write_config
from upstream_integration import PAUSE, Case, case_of, cases, make_node, serving, tables

TABLES = tables("scheduler")
DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def kubeberth_scheduler(
    control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeberth]:
    # TestMultipleSchedulingProfiles' profiles "default-scheduler" and "custom-scheduler" beside the module's
    # own; no kube-scheduler runs while this module does (tests/e2e/conftest.py starts it per module)
    config = write_config(Path(tmp_path_factory.mktemp("scheduler")) / "config.yaml")
    cfg = yaml.safe_load(config.read_text())
    cfg["profiles"] += [{"schedulerName": "default-scheduler"}, {"schedulerName": "custom-scheduler"}]
    config.write_text(yaml.safe_dump(cfg))
    with serving(control_plane, sa_kubeconfig, config, "scheduler") as kb:
        yield kb


@pytest.fixture
def case(kubeberth_scheduler: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_scheduler) as c:
        yield c


def _pause_pod(name: str, ports: dict[str, Any]) -> dict[str, Any]:
    """testutils.InitPausePod with ContainerPorts, RestartableInitContainerPorts and
    NonRestartableInitContainerPorts: the init container "<name>-init" (restartPolicy Always when restartable)."""
    spec: dict[str, Any] = {"containers": [{"name": name, "image": PAUSE, "ports": ports["container"] or []}]}
    if ports["restartableInitContainer"] is not None:
        spec["initContainers"] = [{"name": f"{name}-init", "image": PAUSE, "restartPolicy": "Always",
                                   "ports": ports["restartableInitContainer"]}]
    if ports["nonRestartableInitContainer"] is not None:
        spec["initContainers"] = [{"name": f"{name}-init", "image": PAUSE,
                                   "ports": ports["nonRestartableInitContainer"]}]
    return {"metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("tc", cases(TABLES["TestHostPorts"], "TestHostPorts", DIFFERENCES))
def test_TestHostPorts(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """One node (conflicting-host-ports-node); p1 schedules; p2 schedules, or is unschedulable, by the ports
    of the two pods' containers and init containers."""
    case.rename_nodes(["conflicting-host-ports-node"])
    case.node(make_node("conflicting-host-ports-node"))
    ns = case.ns("conflicting-host-ports")
    case.wait_scheduled(*case.pod(_pause_pod("p1", tc["firstPorts"]), ns))
    p2 = case.pod(_pause_pod("p2", tc["secondPorts"]), ns)
    if tc["wantSecondScheduled"]:
        case.wait_scheduled(*p2)
    else:
        case.wait_unschedulable(*p2)


def test_TestAllocatable(case: Case) -> None:  # noqa: N802
    """A node with capacity cpu 30m, memory 30 (no allocatable but what st.MakeNode().Capacity sets: the
    same) takes a pod asking cpu 20m, memory 20; with allocatable set to cpu 10m, memory 10 (UpdateStatus) and the
    first pod deleted, the same pod does not fit (upstream: not scheduled within 5 s; here: Unschedulable)."""
    case.rename_nodes(["node-allocatable-scheduler-test-node"])
    name = case.node(make_node("node-allocatable-scheduler-test-node",
                               capacity={"pods": "32", "cpu": "30m", "memory": "30"}))
    ns = case.ns("allocatable")
    requests = {"cpu": "20m", "memory": "20"}

    def pod(pod_name: str) -> dict[str, Any]:  # testutils.CreatePausePodWithResource
        return {"metadata": {"name": pod_name}, "spec": {"containers": [
            {"name": pod_name, "image": PAUSE, "resources": {"requests": requests, "limits": requests}}]}}

    case.wait_scheduled(*case.pod(pod("pod-test-allocatable"), ns))
    node = case.api.call("GET", f"/api/v1/nodes/{name}")
    node["status"] = {"capacity": {"pods": "32", "cpu": "30m", "memory": "30"},
                      "allocatable": {"pods": "32", "cpu": "10m", "memory": "10"}}
    case.api.call("PUT", f"/api/v1/nodes/{name}/status", node)
    case.api.delete_pod(ns, "pod-test-allocatable")
    case.wait_unschedulable(*case.pod(pod("pod-test-allocatable2"), ns))


def test_TestMultipleSchedulingProfiles(case: Case) -> None:  # noqa: N802
    """Profiles default-scheduler and custom-scheduler: foo (no schedulerName: the API server defaults it to
    default-scheduler) and baz are scheduled by default-scheduler, zet by custom-scheduler, bar
    (unknown-scheduler) by none; read from the Scheduled events' reportingController."""
    case.rename_nodes(["node-multi-scheduler-test-node"])
    case.node(make_node("node-multi-scheduler-test-node"))
    ns = case.ns("multi-scheduler")
    for name, scheduler in (("foo", ""), ("bar", "unknown-scheduler"), ("baz", "default-scheduler"),
                            ("zet", "custom-scheduler")):
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": name, "image": PAUSE}]}}
        if scheduler:
            body["spec"]["schedulerName"] = scheduler
        case.api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
    want = {"foo": "default-scheduler", "baz": "default-scheduler", "zet": "custom-scheduler"}

    def profiles() -> dict[str, str]:
        return {e["regarding"]["name"]: e.get("reportingController", "") for e in case.api.events(ns)
                if e.get("reason") == "Scheduled"}

    wait_for(lambda: len(profiles()) >= len(want), 30, "Scheduled events", interval=0.2)
    assert profiles() == want


_INFORMER_POD_RES = {"requests": {"cpu": "200m", "memory": "200"}}
_INFORMERS = {  # case: (existing pods' schedulers, the pod's required node affinity)
    "TestSchedulerInformers/Pod cannot be scheduled when node is occupied by pods scheduled by other schedulers":
        (("foo-scheduler", "bar-scheduler"), None),
    "TestSchedulerInformers/The pod cannot be scheduled when nodeAffinity specifies a non-existent node.":
        ((), {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["invalid-node"]}]}]}}}),
}


@pytest.mark.parametrize("key", [pytest.param(k, id=k.split("/", 1)[1]) for k in _INFORMERS])
def test_TestSchedulerInformers(case: Case, key: str) -> None:  # noqa: N802
    """node-1 (pods 32, cpu 500m, memory 500); pods of other schedulers bound to it (RunPausePod) count
    against it: the pod asking cpu 200m, memory 200 is unschedulable (transcribed: the table's pods are
    InitPausePod calls over the test's namespace)."""
    schedulers, affinity = _INFORMERS[key]
    case.rename_nodes(["node-1"])
    case.node(make_node("node-1", capacity={"pods": "32", "cpu": "500m", "memory": "500"}))
    ns = case.ns("scheduler-informer")
    for i, scheduler in enumerate(schedulers, 1):
        name = f"pod{i}"
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"foo": "bar"}},
                "spec": {"nodeName": case.node_name("node-1"), "schedulerName": scheduler,
                         "containers": [{"name": name, "image": PAUSE, "resources": _INFORMER_POD_RES}]}}
        case.api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
        case.wait_scheduled(ns, name)
    pod: dict[str, Any] = {"metadata": {"name": "unschedulable-pod"}, "spec": {
        "containers": [{"name": "unschedulable-pod", "image": PAUSE, "resources": _INFORMER_POD_RES}]}}
    if affinity:
        pod["spec"]["affinity"] = affinity
    case.wait_unschedulable(*case.pod(pod, ns))


def test_TestNodeEvents(case: Case) -> None:  # noqa: N802
    """pod1 (cpu 80m) waits for node1 (cpu 100m) and schedules there; pod2 (cpu 40m) is unschedulable; node2
    (tainted, labelled) arrives and plug-pod (tolerating, with affinity for it) takes 40m of it, so pod2 stays
    unschedulable; node2's taint removed (UpdateNode), pod2 schedules."""
    nodes = ["node-events-test-node1", "node-events-test-node2"]
    case.rename_nodes(nodes)
    ns = case.ns("node-events")
    capacity = {"pods": "32", "cpu": "100m", "memory": "30"}

    def pod(name: str, cpu: str) -> dict[str, Any]:  # testutils.CreatePausePodWithResource
        res = {"cpu": cpu}
        return {"metadata": {"name": name}, "spec": {"containers": [
            {"name": name, "image": PAUSE, "resources": {"requests": res, "limits": res}}]}}

    pod1 = case.pod(pod("pod1", "80m"), ns)
    case.node(make_node(nodes[0], capacity=capacity))
    case.wait_scheduled(*pod1)
    pod2 = case.pod(pod("pod2", "40m"), ns)
    case.wait_unschedulable(*pod2)
    case.node(make_node(nodes[1], {"affinity-key": "affinity-value"}, capacity,
                        taints=[{"key": "taint-key", "effect": "NoSchedule"}]))
    plug = {"metadata": {"name": "plug-pod"}, "spec": {
        "containers": [{"name": "con0", "image": "pause", "resources": {"requests": {"cpu": "40m"}}}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "affinity-key", "operator": "In", "values": ["affinity-value"]}]}]}}},
        "tolerations": [{"key": "taint-key", "operator": "Exists"}]}}
    case.wait_scheduled(*case.pod(plug, ns))
    case.wait_unschedulable(*pod2)
    node2 = case.api.call("GET", f"/api/v1/nodes/{case.node_name(nodes[1])}")
    node2["spec"]["taints"] = None
    case.api.call("PUT", f"/api/v1/nodes/{case.node_name(nodes[1])}", node2)
    case.wait_scheduled(*pod2)


def test_TestMultipleSchedulers(case: Case, control_plane: LocalControlPlane, sa_kubeconfig: str,
                                tmp_path: Path) -> None:  # noqa: N802
    """pod-without-scheduler-name and pod-fits-default are scheduled (profile default-scheduler of the
    module's kubeberth); pod-fits-foo is not within 5 s, until a second scheduler with profile foo-scheduler
    (VolumeBinding bindTimeoutSeconds 30) starts: a second kubeberth process, as upstream starts a second
    scheduler."""
    case.rename_nodes(["node-multi-scheduler-test-node"])
    case.node(make_node("node-multi-scheduler-test-node"))
    ns = case.ns("multi-scheduler")
    for name, scheduler in (("pod-without-scheduler-name", ""), ("pod-fits-default", "default-scheduler"),
                            ("pod-fits-foo", "foo-scheduler")):
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": name, "image": PAUSE}]}}
        if scheduler:
            body["spec"]["schedulerName"] = scheduler
        case.api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
    case.wait_scheduled(ns, "pod-without-scheduler-name")
    case.wait_scheduled(ns, "pod-fits-default")
    with pytest.raises(AssertionError, match="timed out"):  # WaitForPodToScheduleWithTimeout(5 s) fails
        wait_for(lambda: bool(case.get(ns, "pod-fits-foo")["spec"].get("nodeName")), 5, "pod-fits-foo", interval=0.2)
    config = tmp_path / "foo.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": "foo-scheduler",
                      "pluginConfig": [{"name": "VolumeBinding", "args": {"bindTimeoutSeconds": 30}}]}]}))
    foo = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-foo-{suffix()}")
    try:
        foo.wait_ready()
        case.wait_scheduled(ns, "pod-fits-foo")
    finally:
        foo.stop()


def _node_events_handled(kb: Kubeberth) -> float:
    """Node events kubeberth's loop has applied: scheduler_event_handling_duration_seconds_count over the
    event labels of Node (kube-scheduler's EventHandlingLatency)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith('scheduler_event_handling_duration_seconds_count{event="Node'))


def test_TestUnschedulableNodes(case: Case) -> None:  # noqa: N802
    """A Ready node made unschedulable (spec.unschedulable, Update): the pod is not scheduled within 2 s; made
    schedulable again, it is. Upstream waits until its scheduler's node lister reflects each update
    (WaitForReflection); here until kubeberth's loop has applied one more Node event (its metrics)."""
    name = "node-scheduling-test-node"
    case.rename_nodes([name])
    node = make_node(name)
    node["status"] = {"capacity": {"pods": "32"}, "conditions": [
        {"type": "Ready", "status": "True", "reason": "schedulable condition",
         "lastHeartbeatTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]}
    created = _node_events_handled(case.kb)
    real = case.node(node)
    wait_for(lambda: _node_events_handled(case.kb) > created, 10, "kubeberth to apply the node", interval=0.1)
    ns = case.ns("unschedulable-nodes")

    def set_unschedulable(value: bool) -> None:
        before = _node_events_handled(case.kb)
        obj = case.api.call("GET", f"/api/v1/nodes/{real}")
        obj["spec"]["unschedulable"] = value
        case.api.call("PUT", f"/api/v1/nodes/{real}", obj)
        wait_for(lambda: _node_events_handled(case.kb) > before, 10, "kubeberth to apply the node update",
                 interval=0.1)

    set_unschedulable(True)
    pod = case.pod({"metadata": {"name": "node-scheduling-test-pod"}, "spec": {
        "containers": [{"name": "node-scheduling-test-pod", "image": PAUSE}]}}, ns)
    with pytest.raises(AssertionError, match="timed out"):  # WaitForPodToScheduleWithTimeout(2 s) fails
        wait_for(lambda: bool(case.get(*pod)["spec"].get("nodeName")), 2, "the pod", interval=0.2)
    set_unschedulable(False)
    case.wait_scheduled(*pod)


# the tests above without a table, by their upstream name (scripts/upstream_cases.py counts them)
PORTED_BY_HAND = ("TestAllocatable", "TestMultipleSchedulingProfiles", "TestNodeEvents", "TestMultipleSchedulers",
                  "TestUnschedulableNodes")

"""kube-scheduler v1.37.2 test/integration/scheduler/filters (filters_test.go) against kubeberth on a real
API server: same objects, same expected outcomes, kubeberth (`kubeberth run`, profile "kubeberth") in place of
the in-process kube-scheduler. One kubeberth process serves the whole module.

The case tables are upstream's own objects, dumped from the Go file by scripts/upstream_integration_tables.py
into upstream_tables/filters.json (st.MakePod/st.MakeNode builders evaluated by Go); the procedures of each
Test function (what is created, in which order, what is waited for) are ported here by hand. The test id is
the upstream case name. TestUnschedulablePodBecomesSchedulable (its cases are closures) and the two
NodeDeclaredFeatures cases that need no mock feature are transcribed.

The control plane is shared by the session, so each case gets fresh namespaces (upstream's "ns1", "ns2",
"ns3" carry a suffix) and node names with a suffix (every string equal to one of the case's node names is
renamed: nodeName, hostname labels, expected nodes), deleted after the case. Where upstream polls
testutils.PodScheduled / PodUnschedulable / PodScheduledIn, the same is read from the API: spec.nodeName,
and the PodScheduled condition with reason Unschedulable. Gates stay at kubeberth's defaults (those of
kube-scheduler v1.37): InterPodAffinityHostnameFastPath (alpha, an optimisation with the same outcome) is off,
so each TestInterPodAffinity case runs once; cases that need a gate the shared API server cannot change are
excluded in tests/upstream_unported_integration.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import Api, Kubeberth, write_config
from upstream_integration import PAUSE, Case, case_of, cases, make_node, serving, table_nodes, tables

TABLES = tables("filters")
# Cases that differ from upstream's outcome on kubeberth today: {"TestX/case": reason}
DIFFERENCES: dict[str, str] = {}


def _cases(test: str) -> list[Any]:
    return cases(TABLES[test], test, DIFFERENCES)


@pytest.fixture(scope="module")
def kubeberth_filters(
    control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeberth]:
    config = write_config(Path(tmp_path_factory.mktemp("filters")) / "config.yaml")
    with serving(control_plane, sa_kubeconfig, config, "filters") as kb:
        yield kb



@pytest.fixture
def case(kubeberth_filters: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_filters) as c:
        yield c




@pytest.mark.parametrize("tc", _cases("TestInterPodAffinity"))
def test_TestInterPodAffinity(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """Nodes testnode-0 (region r1, zone z11, node n1) and anothernode-0 (same region and zone, node n2),
    memory 1G; namespaces ns1, ns2 (team=team1) and ns3 (team=team2); existing pods scheduled first, then the
    incoming pod fits or is unschedulable; a nextPod must land on the incoming pod's node."""
    case.rename_nodes(["testnode-0", "anothernode-0"])
    for name, node in (("testnode-0", "n1"), ("anothernode-0", "n2")):
        case.node(make_node(name, {"region": "r1", "zone": "z11", "node": node,
                                    "kubernetes.io/hostname": name}, {"memory": "1G"}))
    for ns in ("ns1", "ns2"):
        case.ns(ns, {"team": "team1"})
    case.ns("ns3", {"team": "team2"})
    for pod in tc["pods"] or []:
        case.wait_scheduled(*case.pod(pod, "ns1"))
    # errorType "invalidPod": a create rejected as Invalid passes; today's API server accepts the pod (a
    # DoesNotExist requirement without values is valid), and then upstream waits as for any other pod.
    ns, name = case.pod(tc["incomingPod"], "ns1", ok=(201, 422) if tc["errorType"] == "invalidPod" else (201,))
    if case.api.pod(ns, name) is None:
        return
    if not tc["fits"]:
        case.wait_unschedulable(ns, name)
        return
    node = case.wait_scheduled(ns, name)
    if tc["nextPod"]:
        next_ns, next_name = case.pod(tc["nextPod"], "ns1")
        assert case.wait_scheduled(next_ns, next_name) == node, "nextPod not on the incoming pod's node"


# ---- TestInterPodAffinityWithNamespaceSelector ----


@pytest.mark.parametrize("tc", _cases("TestInterPodAffinityWithNamespaceSelector"))
def test_TestInterPodAffinityWithNamespaceSelector(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """createAndWaitForNodesInCache("testnode", region r1 zone z11, 2); the existing pod on testnode-0."""
    names = ["testnode-0", "testnode-1"]
    case.rename_nodes(names)
    for name in names:
        case.node(make_node(name, {"region": "r1", "zone": "z11", "kubernetes.io/hostname": name}))
    for ns in ("ns1", "ns2"):
        case.ns(ns, {"team": "team1"})
    case.ns("ns3", {"team": "team2"})
    existing = {**tc["existingPod"], "spec": {**tc["existingPod"]["spec"], "nodeName": "testnode-0"}}
    case.wait_scheduled(*case.pod(existing))
    ns, name = case.pod(tc["pod"], "ns1")
    if tc["fits"]:
        case.wait_scheduled(ns, name)
    else:
        case.wait_unschedulable(ns, name)


# ---- TestTaintTolerationFilter, TestNodeAffinityFilter, TestNodeResourcesFilter, TestNodePortsFilter ----


@pytest.mark.parametrize("tc", _cases("TestTaintTolerationFilter"))
def test_TestTaintTolerationFilter(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    table_nodes(case, tc["nodes"])
    ns, name = case.pod(tc["incomingPod"], "taint-toleration-filter")
    if tc["fit"]:
        case.wait_scheduled(ns, name)
    else:
        case.wait_unschedulable(ns, name)


@pytest.mark.parametrize("tc", _cases("TestNodeAffinityFilter"))
def test_TestNodeAffinityFilter(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    table_nodes(case, tc["nodes"])
    ns, name = case.pod(tc["incomingPod"], "nodeaffinity-filter")
    if tc["expectedNode"]:
        assert case.wait_scheduled(ns, name) == case.node_name(tc["expectedNode"])
    else:
        case.wait_unschedulable(ns, name)


@pytest.mark.parametrize("tc", _cases("TestNodeResourcesFilter"))
def test_TestNodeResourcesFilter(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """runPausePod for the existing pod (created and waited for), then the incoming pod."""
    table_nodes(case, [tc["node"]])
    if tc["existingPod"]:
        case.wait_scheduled(*case.pod(tc["existingPod"], "node-resources-filter"))
    ns, name = case.pod(tc["incomingPod"], "node-resources-filter")
    if tc["fit"]:
        case.wait_scheduled(ns, name)
    else:
        case.wait_unschedulable(ns, name)


@pytest.mark.parametrize("tc", _cases("TestNodePortsFilter"))
def test_TestNodePortsFilter(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """One node, node-0 (st.MakeNode()); existing pods run first (runPausePod)."""
    table_nodes(case, [make_node("node-0")])
    for pod in tc["existingPods"] or []:
        case.wait_scheduled(*case.pod(pod, "node-ports-filter"))
    ns, name = case.pod(tc["incomingPod"], "node-ports-filter")
    if tc["fit"]:
        case.wait_scheduled(ns, name)
    else:
        case.wait_unschedulable(ns, name)


# ---- TestPodTopologySpreadFilter ----


@pytest.mark.parametrize("tc", _cases("TestPodTopologySpreadFilter"))
def test_TestPodTopologySpreadFilter(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """Nodes, then the existing pods (each waited for), then the incoming pod: scheduled in candidateNodes, or
    unschedulable."""
    table_nodes(case, tc["nodes"])
    for pod in tc["existingPods"] or []:
        case.wait_scheduled(*case.pod(pod, "pts-predicate"))
    ns, name = case.pod(tc["incomingPod"], "pts-predicate")
    if tc["fits"]:
        case.wait_scheduled(ns, name, tc["candidateNodes"])
    else:
        case.wait_unschedulable(ns, name)




# ---- TestUnschedulablePodBecomesSchedulable (transcribed: upstream's init/update steps are closures) ----

_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"pod-with-affinity": "true"}}, "topologyKey": "region"}]}}
_TAINT = {"key": "test", "value": "test", "effect": "NoSchedule"}
_STORAGE = {"storage": "1Mi"}


def _pause_pod(name: str, labels: dict[str, str] | None = None, affinity: dict[str, Any] | None = None,
               claim: str = "") -> dict[str, Any]:
    """testutils.InitPausePod(&PausePodConfig{...}): one container named after the pod, the pause image."""
    spec: dict[str, Any] = {"containers": [{"name": name, "image": PAUSE}]}
    if affinity:
        spec["affinity"] = affinity
    if claim:
        spec["volumes"] = [{"name": "volume", "persistentVolumeClaim": {"claimName": claim}}]
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": spec}


def _pv_and_claim(case: Case, ns: str, pv: str, claim: str, path: str,
                  node_affinity: tuple[str, list[str]] | None = None) -> None:
    """st.MakePersistentVolume (ReadWriteOncePod, 1Mi, hostPath DirectoryOrCreate) and a claim bound to it
    (AnnBindCompleted and volumeName: the scheduler takes it as bound; no PV controller runs, as upstream)."""
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOncePod"], "capacity": _STORAGE,
                            "hostPath": {"path": path, "type": "DirectoryOrCreate"}}
    if node_affinity:
        key, values = node_affinity
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}]}}
    body = case.renamed({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv}, "spec": spec})
    case.api.call("POST", "/api/v1/persistentvolumes", body)
    case.cluster_scoped.append(f"/api/v1/persistentvolumes/{body['metadata']['name']}")
    case.api.call("POST", f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim, "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
        "spec": {"accessModes": ["ReadWriteOncePod"], "resources": {"requests": _STORAGE},
                 "volumeName": body["metadata"]["name"]}})


def _set_taints(case: Case, node: str, taints: list[dict[str, str]]) -> None:
    """testutils.AddTaintToNode / RemoveTaintOffNode: the node's spec.taints updated."""
    obj = case.api.call("GET", f"/api/v1/nodes/{case.node_name(node)}")
    obj["spec"]["taints"] = taints
    case.api.call("PUT", f"/api/v1/nodes/{case.node_name(node)}", obj)


def _become_schedulable(case: Case, step: str, ns: str) -> None:
    """Each case's init ("...:init") and update steps, as upstream's closures do them."""
    node = case.node
    if step == "node gets added:update":
        node(make_node("node-added"))
    elif step == "node gets taint removed:init":
        node(make_node("node-tainted"))
        _set_taints(case, "node-tainted", [_TAINT])
    elif step == "node gets taint removed:update":
        _set_taints(case, "node-tainted", [])
    elif step == "other pod gets deleted:init":
        node(make_node("node-scheduler-integration-test", capacity={"pods": "1"}))
        case.pod(_pause_pod("pod-to-be-deleted"), ns)
    elif step in ("other pod gets deleted:update", "scheduled pod uses read-write-once-pod pvc:update"):
        case.api.delete_pod(ns, "pod-to-be-deleted")
    elif step in ("pod with pod-affinity gets added:init", "scheduled pod gets updated to match affinity:init"):
        node(make_node("node-1", {"region": "test"}))
        if step.startswith("scheduled pod"):
            case.pod(_pause_pod("pod-to-be-updated"), ns)
    elif step == "pod with pod-affinity gets added:update":
        case.pod(_pause_pod("pod-with-affinity", {"pod-with-affinity": "true"}), ns)
    elif step == "scheduled pod gets updated to match affinity:update":
        pod = case.get(ns, "pod-to-be-updated")
        pod["metadata"]["labels"] = {"pod-with-affinity": "true"}
        case.api.call("PUT", f"/api/v1/namespaces/{ns}/pods/pod-to-be-updated", pod)
    elif step == "scheduled pod uses read-write-once-pod pvc:init":
        node(make_node("node"))
        _pv_and_claim(case, ns, "pv-with-read-write-once-pod", "pvc-with-read-write-once-pod", "/mnt")
        case.pod(_pause_pod("pod-to-be-deleted", claim="pvc-with-read-write-once-pod"), ns)
    elif step == "pod with pvc has node-affinity to non-existent/illegal nodes:init":
        _pv_and_claim(case, ns, "pv-has-non-existent-nodes", "pvc-has-non-existent-nodes", "/tmp",
                      ("kubernetes.io/hostname", ["node-available", "non-existing"]))
    elif step == "pod with pvc has node-affinity to non-existent/illegal nodes:update":
        node(make_node("node-available", {"kubernetes.io/hostname": "node-available"}))
    elif step == "pod with pvc got scheduled after node updated it's label:init":
        node(make_node("node-foo", {"foo": "foo"}))
        _pv_and_claim(case, ns, "pv-foo", "pvc-foo", "/tmp", ("foo", ["bar"]))
    elif step == "pod with pvc got scheduled after node updated it's label:update":
        # updateNode(&v1.Node{Name: "node-foo", Labels: {"foo": "bar"}}): an unconditional update of the whole
        # object, so the node's spec and labels become just that (its status is a subresource, kept)
        case.api.call("PUT", f"/api/v1/nodes/{case.node_name('node-foo')}", {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": case.node_name("node-foo"), "labels": {"foo": "bar"}}})


_BECOMES_SCHEDULABLE = {
    # case name: (the pod it waits for, its affinity, its claim)
    "TestUnschedulablePodBecomesSchedulable/node gets added": ("pod-1", None, ""),
    "TestUnschedulablePodBecomesSchedulable/node gets taint removed": ("pod-1", None, ""),
    "TestUnschedulablePodBecomesSchedulable/other pod gets deleted": ("pod-1", None, ""),
    "TestUnschedulablePodBecomesSchedulable/pod with pod-affinity gets added": ("pod-1", _AFFINITY, ""),
    "TestUnschedulablePodBecomesSchedulable/scheduled pod gets updated to match affinity": ("pod-1", _AFFINITY, ""),
    "TestUnschedulablePodBecomesSchedulable/scheduled pod uses read-write-once-pod pvc":
        ("pod-to-take-over-pvc", None, "pvc-with-read-write-once-pod"),
    "TestUnschedulablePodBecomesSchedulable/pod with pvc has node-affinity to non-existent/illegal nodes":
        ("pod-with-pvc-has-non-existent-nodes", None, "pvc-has-non-existent-nodes"),
    "TestUnschedulablePodBecomesSchedulable/pod with pvc got scheduled after node updated it's label":
        ("pod-with-pvc-foo", None, "pvc-foo"),
}
_BECOMES_NODES = ["node-added", "node-tainted", "node-scheduler-integration-test", "node-1", "node",
                  "node-available", "node-foo", "pv-with-read-write-once-pod", "pv-has-non-existent-nodes", "pv-foo"]


@pytest.mark.parametrize("key", [pytest.param(k, id=k.split("/", 1)[1],
                                              marks=[pytest.mark.xfail(strict=True, reason=DIFFERENCES[k])]
                                              if k in DIFFERENCES else [])
                                 for k in _BECOMES_SCHEDULABLE])
def test_TestUnschedulablePodBecomesSchedulable(case: Case, key: str) -> None:  # noqa: N802
    """init; the pod is unschedulable (waitForPodUnschedulable); update; it schedules (WaitForPodToSchedule);
    then no pod of the case is pending in the scheduler (upstream: SchedulingQueue.PendingPods() is empty),
    read from kubeberth's held-pods dump."""
    name = key.split("/", 1)[1]
    pod_name, affinity, claim = _BECOMES_SCHEDULABLE[key]
    case.rename_nodes(_BECOMES_NODES)  # cluster-scoped names: nodes and persistent volumes
    ns = case.ns("scheduler-informer")
    _become_schedulable(case, f"{name}:init", ns)
    case.pod(_pause_pod(pod_name, affinity=affinity, claim=claim), ns)
    case.wait_unschedulable(ns, pod_name)
    _become_schedulable(case, f"{name}:update", ns)
    case.wait_scheduled(ns, pod_name)

    def none_pending() -> bool:
        held = case.kb.held_pods()
        return not [k for place, keys in held.items() if place != "assumed" for k in keys if k.startswith(ns + "/")]

    wait_for(none_pending, 10, f"no pod of {ns} pending in kubeberth", interval=0.2)


# ---- TestNodeDeclaredFeaturesFilter: the cases that need no mock feature (transcribed) ----

_NO_REQUIREMENT = {"metadata": {"name": "pod-no-req"},
                   "spec": {"containers": [{"name": "container-no-req", "image": PAUSE}]}}


@pytest.mark.parametrize("node,features", [
    pytest.param("node-without-features", [], id="pod without feature requirement schedulable on node without features"),
    pytest.param("node-with-feature-a", ["FeatureA"], id="pod without feature requirement schedulable on node with features"),
])
def test_TestNodeDeclaredFeaturesFilter(case: Case, node: str, features: list[str]) -> None:  # noqa: N802
    """st.MakeNode().Name(node).DeclaredFeatures(features); a pod inferring no feature lands on it
    (PodScheduledIn([node]))."""
    key = "TestNodeDeclaredFeaturesFilter/" + (
        "pod without feature requirement schedulable on node without features" if not features
        else "pod without feature requirement schedulable on node with features")
    assert key in PORTED_BY_HAND
    case.rename_nodes([node])
    made = make_node(node)
    made["status"]["declaredFeatures"] = features
    case.node(made)
    ns, name = case.pod(_NO_REQUIREMENT, "node-features-filter")
    case.wait_scheduled(ns, name, [node])


PORTED_BY_HAND = (
    *_BECOMES_SCHEDULABLE,
    "TestNodeDeclaredFeaturesFilter/pod without feature requirement schedulable on node without features",
    "TestNodeDeclaredFeaturesFilter/pod without feature requirement schedulable on node with features",
)

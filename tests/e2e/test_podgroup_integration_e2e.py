"""kube-scheduler v1.37.2 test/integration/scheduler/podgroup against kubeberth on a real API server:
podgroup_test.go (TestPodGroupScheduling and its three single tests), podgroup_affinity_test.go,
podgroup_pvc_test.go and topology_aware_scheduling/tas_test.go. Their tables (stepsframework steps) are dumped
into upstream_tables/podgroup*.json and run step by step by podgroup_steps.run_steps (which says how the steps
that read the scheduler's queue are observed from outside).

One control plane serving the PodGroup API and two `kubeberth run` processes serve every case: one with
GenericWorkload and TopologyAwareWorkloadScheduling on (profile `kubeberth`), one with GenericWorkload only
(profile `kubeberth-notas`), in place of the test's SetFeatureGatesDuringTest. TestPodGroupScheduling runs each
case under both values of TopologyAwareWorkloadScheduling as upstream does (a case naming one value runs under
that one); the other tests run with the gates they set. Each case has a namespace and nodes of its own, deleted
when it ends.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import Kubeberth
from podgroup_steps import (
    PodGroupCase,
    case_on,
    kubeberth_with,
    make_node,
    podgroup_plane,
    run_steps,
    workload,
    write_profiles,
)
from upstream_integration import case_marks, tables

TAS = "kubeberth"
NO_TAS = "kubeberth-notas"
GATES = {TAS: "GenericWorkload=true,TopologyAwareWorkloadScheduling=true", NO_TAS: "GenericWorkload=true"}

PODGROUP = tables("podgroup")
AFFINITY = tables("podgroup_affinity")
PVC = tables("podgroup_pvc")
TAS_TABLES = tables("podgroup_tas")

# Upstream cases whose outcome kubeberth does not reproduce yet (strict xfails), with the reason.
DIFFERENCES: dict[str, str] = {}

# podgroup_test.go's mockPostFilterPlugin and mockPodGroupPostFilterPlugin (drop-ins): each call logged, for the
# tests' call counts.
MOCK_PLUGINS = '''"""podgroup_test.go's MockPostFilter, MockPlugin1 and MockPlugin2: count their calls (in the log)."""
import logging

from kubeberth import Code, Status, hookimpl

log = logging.getLogger("podgroup_test")


class MockPostFilter:
    name = "MockPostFilter"

    @hookimpl
    def post_filter(self, pod):
        log.warning("MockPostFilter PostFilter %s", pod.key)
        return Status(Code.UNSCHEDULABLE)


def _called(name, pod_group):
    log.warning("%s PodGroupPostFilter %s/%s", name, pod_group.namespace, pod_group.name)
    return Status(Code.UNSCHEDULABLE)


class MockPlugin1:
    name = "MockPlugin1"

    @hookimpl
    def pod_group_post_filter(self, pod_group):
        return _called(self.name, pod_group)


class MockPlugin2:
    name = "MockPlugin2"

    @hookimpl
    def pod_group_post_filter(self, pod_group):
        return _called(self.name, pod_group)
'''
POST_FILTER_COUNT = "kubeberth-post-filter-count"
PG_POST_FILTER_ITER = "kubeberth-pg-post-filter-iter"
MOCK_PROFILES: list[dict[str, Any]] = [
    # TestPostFilterNotCalled: postFilter MockPostFilter and DefaultPreemption
    {"schedulerName": POST_FILTER_COUNT, "plugins": {"postFilter": {"enabled": [
        {"name": "MockPostFilter"}, {"name": "DefaultPreemption"}]}}},
    # TestPodGroupPostFilterIteration: multiPoint GangScheduling; podGroupPostFilter MockPlugin1 and MockPlugin2,
    # DefaultPreemption disabled
    {"schedulerName": PG_POST_FILTER_ITER, "plugins": {
        "multiPoint": {"enabled": [{"name": "GangScheduling"}]},
        "podGroupPostFilter": {"enabled": [{"name": "MockPlugin1"}, {"name": "MockPlugin2"}],
                               "disabled": [{"name": "DefaultPreemption"}]}}},
]


@pytest.fixture(scope="module")
def plane() -> Iterator[LocalControlPlane]:
    yield from podgroup_plane()


@pytest.fixture(scope="module")
def schedulers(plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Kubeberth]]:
    """profile -> the kubeberth serving it."""
    tmp = tmp_path_factory.mktemp("podgroup")
    with contextlib.ExitStack() as stack:
        out = {}
        for profile, gates in GATES.items():
            config = write_profiles(tmp / f"{profile}.yaml", [{"schedulerName": profile}])
            out[profile] = stack.enter_context(kubeberth_with(plane, config, gates, profile))
        yield out


@pytest.fixture(scope="module")
def mocks(plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    """GenericWorkload on, the mock plugins' profiles, and the tests' 100 s backoff (no retry before the counts
    are read)."""
    tmp = tmp_path_factory.mktemp("podgroup-mocks")
    plugins = tmp / "plugins"
    plugins.mkdir()
    (plugins / "mock_post_filters.py").write_text(MOCK_PLUGINS)
    config = write_profiles(tmp / "config.yaml", MOCK_PROFILES, backoff=100, max_backoff=100)
    with kubeberth_with(plane, config, GATES[NO_TAS], "mocks", plugins) as kb:
        yield kb


def params(test: str, table: list[dict[str, Any]], variants: bool = False) -> list[Any]:
    """pytest params: id = case name (with the TopologyAwareWorkloadScheduling value where the case runs under
    both); excluded cases skip with their reason, differences are strict xfails."""
    out = []
    for case in table:
        marks = case_marks(f"{test}/{case['name']}", DIFFERENCES)
        if not variants:
            out.append(pytest.param(case, TAS, id=case["name"], marks=marks))
            continue
        for tas in case.get("enableTopologyAwareWorkloadScheduling") or [True, False]:
            out.append(pytest.param(case, TAS if tas else NO_TAS, marks=marks,
                                    id=f"{case['name']} (TopologyAwareWorkloadScheduling enabled: {str(tas).lower()})"))
    return out


# ---- podgroup_test.go: TestPodGroupScheduling ----

POD_GROUP_SCHEDULING_NODE = make_node("node", "4", {"topology.kubernetes.io/zone": "zone1"})
POD_GROUP_SCHEDULING_WORKLOADS = [
    workload("workload", [("t1", 3), ("t2", None), ("t-mid", 2), ("t-mutable", 5)]),
    workload("other-workload", [("t", 3)]),
]


@pytest.mark.parametrize(("case", "profile"), params("TestPodGroupScheduling", PODGROUP["TestPodGroupScheduling"],
                                                     variants=True))
def test_pod_group_scheduling(plane: LocalControlPlane, schedulers: dict[str, Kubeberth], case: dict[str, Any],
                              profile: str) -> None:
    """TestPodGroupScheduling: one 4-cpu node, the workloads, then the case's steps."""
    with case_on(plane, schedulers[profile], profile) as c:
        run_steps(c, [{"Name": "Create Nodes", "CreateNodes": [POD_GROUP_SCHEDULING_NODE]},
                      {"Name": "Create workloads", "CreateWorkloads": POD_GROUP_SCHEDULING_WORKLOADS},
                      *case["steps"]])


# ---- podgroup_affinity_test.go: TestPodGroupSchedulingWithPodAntiAffinity ----

@pytest.mark.parametrize(("case", "profile"), params("TestPodGroupSchedulingWithPodAntiAffinity",
                                                     AFFINITY["TestPodGroupSchedulingWithPodAntiAffinity"]))
def test_pod_group_scheduling_with_pod_anti_affinity(plane: LocalControlPlane, schedulers: dict[str, Kubeberth],
                                                     case: dict[str, Any], profile: str) -> None:
    """GenericWorkload on (TopologyAwareWorkloadScheduling left at its default, off): the case's nodes, the
    workload, then its steps."""
    with case_on(plane, schedulers[NO_TAS], NO_TAS) as c:
        run_steps(c, [{"Name": "Create Nodes", "CreateNodes": case["nodes"]},
                      {"Name": "Create workloads", "CreateWorkloads": [workload("workload", [("t", 2)])]},
                      *case["steps"]])


# ---- podgroup_pvc_test.go: TestPodGroupSchedulingWithReadWriteOncePodPVC ----

def bound_rwop_pvc(c: PodGroupCase, name: str) -> None:
    """createBoundRWOPPVC: a HostPath ReadWriteOncePod PV and a PVC bound to it (pv.kubernetes.io/bind-completed)."""
    pv = f"pv-{c.namespace}-{name}"
    c.api.call("POST", "/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
        "spec": {"accessModes": ["ReadWriteOncePod"], "capacity": {"storage": "1Mi"},
                 "hostPath": {"path": "/mnt", "type": "DirectoryOrCreate"}}})
    c.cluster_scoped.append(f"/api/v1/persistentvolumes/{pv}")
    c.api.call("POST", f"/api/v1/namespaces/{c.namespace}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
        "spec": {"accessModes": ["ReadWriteOncePod"], "resources": {"requests": {"storage": "1Mi"}},
                 "volumeName": pv}})


def pvc_pod(name: str, claim: str) -> dict[str, Any]:
    """st.MakePod().Name(name).Req({cpu: 1}).Container("image").PVC(claim).PodGroupName("pg").Priority(200)."""
    return {"metadata": {"name": name}, "spec": {
        "containers": [{"image": "registry.k8s.io/pause:3.10.2", "name": "con0", "resources": {"requests": {"cpu": "1"}}},
                       {"image": "image", "name": "con1", "resources": {}}],
        "volumes": [{"name": claim, "persistentVolumeClaim": {"claimName": claim}}],
        "priority": 200, "schedulingGroup": {"podGroupName": "pg"}}}


@pytest.mark.parametrize(("case", "profile"), params("TestPodGroupSchedulingWithReadWriteOncePodPVC",
                                                     PVC["TestPodGroupSchedulingWithReadWriteOncePodPVC"]))
def test_pod_group_scheduling_with_read_write_once_pod_pvc(plane: LocalControlPlane, schedulers: dict[str, Kubeberth],
                                                           case: dict[str, Any], profile: str) -> None:
    """GenericWorkload on: pvc-1 (and the case's second PVC) bound, one 2-cpu node, the workload, the gang of
    two (minCount 2, priority 200) created first, its pods in order, then the case's steps."""
    with case_on(plane, schedulers[NO_TAS], NO_TAS) as c:
        for claim in sorted({"pvc-1", case["secondPodPVC"]}):
            bound_rwop_pvc(c, claim)
        group = {"metadata": {"name": "pg"}, "spec": {"priority": 200, "schedulingPolicy": {"gang": {"minCount": 2}},
                                                     "workloadRef": {"templateName": "t", "workloadName": "workload"}}}
        run_steps(c, [{"Name": "Create Nodes", "CreateNodes": [make_node("node-1", "2")]},
                      {"Name": "Create workloads", "CreateWorkloads": [workload("workload", [("t", 2)])]},
                      {"Name": "Create the PodGroup object", "CreatePodGroup": group},
                      {"Name": "Create both pods belonging to the group",
                       "CreatePodsInOrder": [pvc_pod("pvc-pod-1", "pvc-1"), pvc_pod("pvc-pod-2", case["secondPodPVC"])]},
                      *case["steps"]])


# ---- topology_aware_scheduling/tas_test.go ----

TAS_CASES = [*params("TestTopologyAwareSchedulingWithGangPolicy", TAS_TABLES["TestTopologyAwareSchedulingWithGangPolicy"]),
             *params("TestTopologyAwareSchedulingWithBasicPolicy", TAS_TABLES["TestTopologyAwareSchedulingWithBasicPolicy"])]


@pytest.mark.parametrize(("case", "profile"), TAS_CASES)
def test_topology_aware_scheduling(plane: LocalControlPlane, schedulers: dict[str, Kubeberth], case: dict[str, Any],
                                   profile: str) -> None:
    """TestTopologyAwareSchedulingWithGangPolicy, TestTopologyAwareSchedulingWithBasicPolicy (runTestScenario, with
    CompositePodGroup off: the gate kubeberth does not implement): GenericWorkload and
    TopologyAwareWorkloadScheduling on, the workload (template t1, minCount 1), then the case's steps."""
    with case_on(plane, schedulers[TAS], TAS) as c:
        run_steps(c, [{"Name": "Creating workload", "CreateWorkloads": [workload("workload", [("t1", 1)])]},
                      *case["steps"]])



# ---- podgroup_test.go: TestWorkloadAwarePreemptionInvocation, TestPostFilterNotCalled, TestPodGroupPostFilterIteration

# The upstream tests without a table that this module ports (scripts/upstream_cases.py counts them).
UPSTREAM_TESTS = ("TestWorkloadAwarePreemptionInvocation", "TestPostFilterNotCalled", "TestPodGroupPostFilterIteration")


def _low_and_high(c: PodGroupCase, group: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Four 1-cpu priority-10 pods bound on the 4-cpu node, then the workload and the PodGroup, then three 1-cpu
    priority-100 pods of the group (the tests' steps 1-4)."""
    low = [f"low-{i}" for i in range(1, 5)]
    high = [f"high-{i}" for i in range(1, 4)]
    steps: list[dict[str, Any]] = [
        {"Name": "node", "CreateNodes": [make_node("node", "4")]},
        {"Name": "low", "CreatePods": [one_cpu(n, 10) for n in low]},
        {"Name": "low scheduled", "WaitForPodsScheduled": low},
        {"Name": "workload", "CreateWorkloads": [workload("workload", [("t1", 3)])]},
        {"Name": "pod group", "CreatePodGroup": group},
        {"Name": "high", "CreatePods": [one_cpu(n, 100, "pg1") for n in high]},
    ]
    run_steps(c, steps)
    return low, high


def one_cpu(name: str, priority: int, group: str = "") -> dict[str, Any]:
    """st.MakePod().Name(name).Req({cpu: 1}).Container("image").Priority(priority)[.PodGroupName(group)]."""
    spec: dict[str, Any] = {"containers": [{"image": "image", "name": "con0", "resources": {"requests": {"cpu": "1"}}}],
                            "priority": priority}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"metadata": {"name": name}, "spec": spec}


def group_all(min_count: int, template: bool = True) -> dict[str, Any]:
    """st.MakePodGroup().Name("pg1")[.WorkloadRef("t1", "workload")].DisruptionModeAll().Priority(100).MinCount(n)."""
    spec: dict[str, Any] = {"disruptionMode": {"all": {}}, "priority": 100,
                            "schedulingPolicy": {"gang": {"minCount": min_count}}}
    if template:
        spec["workloadRef"] = {"templateName": "t1", "workloadName": "workload"}
    return {"metadata": {"name": "pg1"}, "spec": spec}


def mock_calls(kb: Kubeberth, plugin: str, ns: str) -> int:
    return sum(1 for line in kb.log_text().splitlines() if f"{plugin} " in line and ns in line)


def test_workload_aware_preemption_invocation(plane: LocalControlPlane, schedulers: dict[str, Kubeberth]) -> None:
    """TestWorkloadAwarePreemptionInvocation: GenericWorkload on; a victim gets a Preempted event whose message
    starts "Preempted by podgroup" within 10 s."""
    with case_on(plane, schedulers[NO_TAS], NO_TAS) as c:
        low, _high = _low_and_high(c, group_all(3))

        def preempted() -> bool:
            events = c.api.call("GET", f"/api/v1/namespaces/{c.namespace}/events").get("items", [])
            return any(e.get("reason") == "Preempted" and (e.get("involvedObject") or {}).get("name") in low
                       and (e.get("message") or "").startswith("Preempted by podgroup") for e in events)

        wait_for(preempted, 10, "a Preempted event from workload-aware preemption")


def test_post_filter_not_called(plane: LocalControlPlane, mocks: Kubeberth) -> None:
    """TestPostFilterNotCalled: with MockPostFilter and DefaultPreemption at postFilter, the group's pods become
    Unschedulable and MockPostFilter is never called (a pod group's failure goes to PodGroupPostFilter only). The
    calls are counted in kubeberth's log."""
    with case_on(plane, mocks, POST_FILTER_COUNT) as c:
        _low, high = _low_and_high(c, group_all(3))
        for name in high:
            c.wait_unschedulable(c.namespace, name)
        assert mock_calls(c.kb, "MockPostFilter", c.namespace) == 0


def test_pod_group_post_filter_iteration(plane: LocalControlPlane, mocks: Kubeberth) -> None:
    """TestPodGroupPostFilterIteration: one 1-cpu node, PodGroup pg1 (minCount 2, no workload), two 1-cpu pods of it:
    each PodGroupPostFilter plugin (MockPlugin1, MockPlugin2, both answering Unschedulable) is called exactly once
    within 10 s. The calls are counted in kubeberth's log."""
    with case_on(plane, mocks, PG_POST_FILTER_ITER) as c:
        run_steps(c, [{"Name": "node", "CreateNodes": [make_node("node", "1")]},
                      {"Name": "pod group", "CreatePodGroup": group_all(2, template=False)},
                      {"Name": "pods", "CreatePods": [one_cpu(f"high-{i}", 100, "pg1") for i in (1, 2)]}])
        def counts() -> list[int]:
            return [mock_calls(c.kb, p, c.namespace) for p in ("MockPlugin1", "MockPlugin2")]

        # upstream polls for exactly one call each (its 100 s backoff leaves no second attempt): here the calls are
        # read once both were made and a second has passed, so that a second attempt shows
        wait_for(lambda: min(counts()) >= 1, 10, "MockPlugin1 and MockPlugin2 to be called")
        time.sleep(1)
        assert counts() == [1, 1], f"MockPlugin1, MockPlugin2 calls: {counts()}\n{c.kb.log_tail(15)}"

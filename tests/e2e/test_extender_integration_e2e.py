"""kube-scheduler v1.37.2 test/integration/scheduler/extender/extender_test.go (TestSchedulerExtender) against
kubeberth on a real API server: the three extenders upstream serves from httptest servers, here from
tests/extender_server.py on loopback with the same predicates and prioritizers:
- extender1: filter machine1-3, prioritize machine2 (10, else 1) at prioritizer weight 1; extender weight 3;
- extender2: filter machine2, 3, 5, prioritize machine3 (10, else 1); extender weight 4; binds the pod itself
  (a Binding posted to the API server) and manages foo.com/bar, ignored by the scheduler;
- extender3 (nodeCacheCapable): filter machine1-3, prioritize machine2 at prioritizer weight 5; extender weight 10.
Five nodes machine1..5 (pods: 32, Ready); the pod extender-test-pod (a pause container with limit foo.com/bar: 1) is
scheduled to machine2, bound through extender2. Upstream's case names are the extenders (one test runs all three).
Node names carry a suffix (the control plane is shared); the predicates compare against those names.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from extender_server import ExtenderServer, Policy, wire
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix
from upstream_integration import PAUSE, Case, case_of

UPSTREAM_CASES = ("TestSchedulerExtender/extender1", "TestSchedulerExtender/extender2",
                  "TestSchedulerExtender/extender3")
SFX = suffix()
MACHINES = {f"machine{i}": f"machine{i}-{SFX}" for i in range(1, 6)}


def _in(*names: str) -> Any:
    """A predicate as a Policy.reject: "extender failed: <name>" for a node not in `names`."""
    allowed = {MACHINES[n] for n in names}
    return lambda extender: lambda pod, node: None if node in allowed else f"extender failed: {extender}"


def _prefer(machine: str, weight: int) -> Any:
    """machineNPrioritizer at a prioritizer weight: 10 for the machine, else 1, times the weight."""
    return lambda pod, node: (10 if node == MACHINES[machine] else 1) * weight


@pytest.fixture(scope="module")
def extended(control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kubeberth, list[ExtenderServer]]]:
    def bind(args: dict[str, Any]) -> str:
        """Extender.Bind: a Binding of the pod (its uid) to the node."""
        ns, name = wire(args, "PodNamespace"), wire(args, "PodName")
        api.call("POST", f"/api/v1/namespaces/{ns}/pods/{name}/binding", {
            "apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": name, "namespace": ns, "uid": wire(args, "PodUID")},
            "target": {"kind": "Node", "name": wire(args, "Node")}})
        return ""

    with contextlib.ExitStack() as stack:
        e1 = stack.enter_context(ExtenderServer(Policy(reject=_in("machine1", "machine2", "machine3")("extender1"),
                                                       score=_prefer("machine2", 1))))
        e2 = stack.enter_context(ExtenderServer(Policy(reject=_in("machine2", "machine3", "machine5")("extender2"),
                                                       score=_prefer("machine3", 1), bind=bind)))
        e3 = stack.enter_context(ExtenderServer(Policy(reject=_in("machine1", "machine2", "machine3")("extender3"),
                                                       score=_prefer("machine2", 5))))
        tmp = tmp_path_factory.mktemp("extender")
        config = tmp / "config.yaml"
        config.write_text(yaml.safe_dump({
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "leaderElection": {"leaderElect": False}, "profiles": [{"schedulerName": f"{PROFILE}-extender"}],
            "extenders": [
                {"urlPrefix": e1.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 3,
                 "enableHTTPS": False},
                {"urlPrefix": e2.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "bindVerb": "bind",
                 "weight": 4, "enableHTTPS": False,
                 "managedResources": [{"name": "foo.com/bar", "ignoredByScheduler": True}]},
                {"urlPrefix": e3.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 10,
                 "enableHTTPS": False, "nodeCacheCapable": True},
            ]}))
        kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-extender-{suffix()}")
        try:
            kb.wait_ready()
            yield kb, [e1, e2, e3]
        finally:
            kb.stop()


@pytest.fixture
def case(extended: tuple[Kubeberth, list[ExtenderServer]], api: Api) -> Iterator[Case]:
    with case_of(api, extended[0]) as c:
        yield c


def test_TestSchedulerExtender(case: Case, extended: tuple[Kubeberth, list[ExtenderServer]]) -> None:  # noqa: N802
    """DoTestPodScheduling: five Ready nodes; extender-test-pod is scheduled to machine2 (the only node every
    filter keeps besides machine3, which extender1 and extender3 score lower), through extender2's bind verb."""
    assert len(UPSTREAM_CASES) == 3
    _kb, (e1, e2, e3) = extended
    case.rename_nodes(list(MACHINES))
    case.node_names.update(MACHINES)
    ready = {"type": "Ready", "status": "True", "reason": "schedulable condition"}
    for machine in MACHINES:
        case.node({"metadata": {"name": machine}, "spec": {"unschedulable": False},
                   "status": {"capacity": {"pods": "32"}, "conditions": [ready]}})
    ns = case.ns("extender")
    pod = {"metadata": {"name": "extender-test-pod"}, "spec": {"containers": [
        {"name": "container", "image": PAUSE, "resources": {"limits": {"foo.com/bar": "1"}}}]}}
    case.pod(pod, ns, scheduler=f"{PROFILE}-extender")
    assert case.wait_scheduled(ns, "extender-test-pod") == MACHINES["machine2"]
    wait_for(lambda: "bind" in e2.verbs(), 10, "extender2's bind verb called")
    assert "bind" not in e1.verbs() and "bind" not in e3.verbs()
    assert {"filter", "prioritize"} <= set(e1.verbs()) and {"filter", "prioritize"} <= set(e3.verbs())
    case.api.call("DELETE", f"/api/v1/namespaces/{ns}/pods/extender-test-pod", {"gracePeriodSeconds": 0})
    wait_for(lambda: not case.get(ns, "extender-test-pod"), 30, "the pod deleted")

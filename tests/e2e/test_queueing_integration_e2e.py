"""kube-scheduler v1.37.2 test/integration/scheduler/queueing (queue_test.go) against kubeberth on
a real API server: same objects, same expected outcomes, kubeberth (`kubeberth run`, profile
"kubeberth") in place of the in-process kube-scheduler. One kubeberth process serves the module.

Upstream builds pods and nodes with st.MakePod / st.MakeNode: a node has only `pods: 32` of
capacity and no conditions, a pod one pause container without requests; node names carry a
suffix here because the control plane is shared by the session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix, write_config

POLL_TIMEOUT = 30  # wait.ForeverTestTimeout
UPSTREAM_CASES = ("TestPopFromBackoffQWhenActiveQEmpty",)  # counted by scripts/upstream_cases.py


@pytest.fixture(scope="module")
def kubeberth_long_backoff(
    control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeberth]:
    """scheduler.WithPodInitialBackoffSeconds(1000), scheduler.WithPodMaxBackoffSeconds(1000)."""
    config = write_config(Path(tmp_path_factory.mktemp("queueing")) / "config.yaml", backoff=1000)
    kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-queueing-{suffix()}")
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


def _make_node(api: Api, name: str, labels: dict[str, str] | None = None) -> None:
    """st.MakeNode().Name(name).Label(...): capacity and allocatable `pods: 32`, nothing else."""
    api.call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                       "metadata": {"name": name, "labels": labels or {}}})
    node = api.call("GET", f"/api/v1/nodes/{name}")
    node["status"] = {"capacity": {"pods": "32"}, "allocatable": {"pods": "32"}}
    api.call("PUT", f"/api/v1/nodes/{name}/status", node)


def _pod_scheduled_condition(api: Api, ns: str, name: str) -> dict[str, Any]:
    pod = api.pod(ns, name) or {}
    conditions = (pod.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == "PodScheduled"), {})


def test_pop_from_backoff_q_when_active_q_empty(
    kubeberth_long_backoff: Kubeberth, api: Api, namespace: str, nodes: list[str]
) -> None:
    """TestPopFromBackoffQWhenActiveQEmpty (SchedulerPopFromBackoffQ, on by default): a pod that
    is unschedulable, then moved by a Node/Add to backoffQ (its 1000 s backoff still running), is
    popped from backoffQ because activeQ is empty, and schedules on the new node well before its
    backoff ends (and before the 5-minute unschedulable flush)."""
    ns, sfx = namespace, suffix()
    node, schedulable = f"node-{sfx}", f"node-schedulable-{sfx}"
    # Create node, so we can schedule pods.
    _make_node(api, node)
    nodes.append(node)
    # Create a pod that will be unschedulable: NodeAffinityIn("foo", ["bar"]), no node has the label.
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]}}}
    api.call("POST", f"/api/v1/namespaces/{ns}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod"},
             "spec": {"schedulerName": PROFILE, "affinity": affinity,
                      "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]}})

    def unschedulable() -> bool:  # testutils.PodUnschedulable
        condition = _pod_scheduled_condition(api, ns, "pod")
        return condition.get("status") == "False" and condition.get("reason") == "Unschedulable"

    wait_for(unschedulable, POLL_TIMEOUT, "pod to be unschedulable", interval=0.2)
    # Create node with label to make the pod schedulable.
    _make_node(api, schedulable, {"foo": "bar"})
    nodes.append(schedulable)
    # Pod should be scheduled, even if it was in the backoffQ, because PopFromBackoffQ feature is enabled.
    wait_for(lambda: api.bound(ns).get("pod"), POLL_TIMEOUT, "pod to be scheduled", interval=0.2)
    assert api.bound(ns) == {"pod": schedulable}, kubeberth_long_backoff.log_tail()

"""Queueing hints on a real API server: kube-scheduler v1.37.2's integration cases
test/integration/scheduler/queueing `TestCoreResourceEnqueue` (queue.go), with kubeberth in place of
kube-scheduler.

Upstream stops its queue from scheduling on its own and pops pods by hand, then compares the pods
requeued after the trigger (`WantRequeuedPods`) with the expected set. Here kubeberth runs as it
does in a cluster (one process for the module, profile `kubeberth`), and a requeue is observed as a
new scheduling attempt: the pod's decision record (GET /debug/decisions/<ns>/<pod>) carries the
pod's attempt number, which grows by one per retry, and `scheduler_queue_incoming_pods_total` with
the trigger's event (event="NodeUpdate") grows by one per pod the trigger moves out of the
unschedulable pods.
A pod not requeued keeps attempt 1 and is still pending after the requeued one was retried and
bound, and after more than the (1 s) backoff has passed.

The profile is upstream's `EnablePlugins`: multiPoint disables `*` and enables PrioritySort,
DefaultBinder and the case's plugins. Upstream runs with 0 s backoff, which the v1 configuration
does not accept; 1 s here."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix

_INCOMING = re.compile(r'^scheduler_queue_incoming_pods_total\{([^}]*)\} ([0-9.e+]+)$', re.M)


def _config(path: Path, plugins: list[str]) -> Path:
    """RunTestCoreResourceEnqueue's profile: only PrioritySort, DefaultBinder and `plugins`."""
    enabled = [{"name": "PrioritySort"}, {"name": "DefaultBinder"}, *({"name": p} for p in plugins)]
    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": 1,
        "podMaxBackoffSeconds": 1,
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": PROFILE,
                      "plugins": {"multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]}}}],
    }
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def node_affinity_only(control_plane: LocalControlPlane, sa_kubeconfig: str,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    config = _config(tmp_path_factory.mktemp("queueing") / "config.yaml", ["NodeAffinity"])
    kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-queueing-{suffix()}")
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


def _get(kb: Kubeberth, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}{path}", timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _decision(kb: Kubeberth, ns: str, name: str) -> dict[str, Any] | None:
    status, body = _get(kb, f"/debug/decisions/{ns}/{name}")
    return json.loads(body) if status == 200 else None


def _moved_by(kb: Kubeberth, event: str) -> float:
    """scheduler_queue_incoming_pods_total{event=`event`}, summed over the queues (active or backoff)."""
    status, body = _get(kb, "/metrics")
    assert status == 200
    return sum(float(value) for labels, value in _INCOMING.findall(body.decode()) if f'event="{event}"' in labels)


def _pod_with_node_affinity_in(name: str, key: str, values: list[str]) -> dict[str, Any]:
    """st.MakePod().Name(name).NodeAffinityIn(key, values, st.NodeSelectorTypeMatchExpressions).Container("image")."""
    term = {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"schedulerName": PROFILE, "containers": [{"name": "con0", "image": "image"}],
                 "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                     "nodeSelectorTerms": [term]}}}},
    }


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
    moved_before = _moved_by(kb, "NodeUpdate")

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
    assert _moved_by(kb, "NodeUpdate") - moved_before == 1  # pod1 only

"""A preemptor's status write on a real API server, kubeberth next to kube-scheduler v1.37.2: its
nomination (status.nominatedNodeName) and its PodScheduled=False/Unschedulable condition arrive in
one write, as kube-scheduler's handleSchedulingFailure makes them (updatePod: one patch of
pods/status carrying both).

Upstream checks this in a unit test (pkg/scheduler/schedule_one_test.go TestUpdatePodStatus, ported
in tests/test_status_writer.py); no case of test/integration/scheduler looks at the number of
writes. Here it is read from a watch on the preemptor: every version in order, so the first version
carrying either field must carry both."""

from __future__ import annotations

from typing import Any

from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, suffix
from test_preemption_e2e import pod_body, priority_classes, versions_since


def _scheduled_condition(version: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in (version.get("status") or {}).get("conditions") or () if c["type"] == "PodScheduled"),
                None)


def preemptor_versions(cp: LocalControlPlane, api: Api, ns: str, nodes: list[str], scheduler: str,
                       classes: tuple[str, str]) -> tuple[str, list[dict[str, Any]]]:
    """A 2-core node with a 1500m low-priority victim; a 1-core high-priority pod preempts it.
    Returns the node and every version of the preemptor from its creation until it is nominated."""
    node = f"pw-{scheduler[:4]}-{suffix()}"
    api.create_node(node, "2", "4Gi")
    nodes.append(node)
    victim = api.call("POST", f"/api/v1/namespaces/{ns}/pods",
                      pod_body(f"victim-{node}", scheduler, "1500m", classes[0], nodeName=node))
    name = f"preemptor-{node}"
    created = api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod_body(
        name, scheduler, "1", classes[1], nodeSelector={"kubernetes.io/hostname": node}))
    wait_for(lambda: (api.pod(ns, name) or {}).get("status", {}).get("nominatedNodeName"), 30,
             f"{scheduler} to nominate {name}")
    history = versions_since(cp, ns, name, created["metadata"]["resourceVersion"])
    api.delete_pod(ns, victim["metadata"]["name"])  # the kubelet's final delete
    wait_for(lambda: api.bound(ns).get(name), 30, f"{scheduler} to bind {name}")
    return node, history


def test_preemptor_nomination_and_condition_in_one_write_like_kube_scheduler(
        control_plane: LocalControlPlane, kube_scheduler: Any, api: Api, namespace: str, nodes: list[str],
        start_kubeberth: Any) -> None:
    classes = priority_classes(api)
    start_kubeberth()
    seen = {}
    for scheduler in ("default-scheduler", PROFILE):
        node, history = preemptor_versions(control_plane, api, namespace, nodes, scheduler, classes)
        written = [v for v in history if _scheduled_condition(v) or v["status"].get("nominatedNodeName")]
        assert written, f"{scheduler}: no status write seen on the preemptor"
        first = written[0]
        cond = _scheduled_condition(first)
        assert first["status"].get("nominatedNodeName") == node, (
            f"{scheduler}: the first status write carries no nomination: {first['status']}")
        assert cond is not None, f"{scheduler}: the nomination came without the PodScheduled condition"
        assert (cond["status"], cond["reason"]) == ("False", "Unschedulable"), (scheduler, cond)
        seen[scheduler] = (cond["status"], cond["reason"], sorted(k for k in first["status"] if k != "conditions"))
    assert seen["default-scheduler"] == seen[PROFILE], seen

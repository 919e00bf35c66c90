"""Preemption on a real API server, kubeberth next to kube-scheduler v1.37.2: the victim gets the
DisruptionTarget condition (upstream's reason and message, observedGeneration) before it is
deleted, the preemptor is nominated to the victim's node, and a Preempted event names it.

There is no kubelet: the test plays it for the victim (the final delete after the graceful one).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, suffix


def priority_classes(api: Api) -> tuple[str, str]:
    sfx = suffix()
    names = (f"low-{sfx}", f"high-{sfx}")
    for name, value in zip(names, (10, 100000), strict=True):
        api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})
    return names


def pod_body(name: str, scheduler: str, cpu: str, priority_class: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "schedulerName": scheduler, "priorityClassName": priority_class, "terminationGracePeriodSeconds": 30,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": cpu}}}],
        **spec}}


def versions_since(cp: LocalControlPlane, ns: str, name: str, resource_version: str) -> list[dict[str, Any]]:
    """Every version of one pod written after `resource_version`, in order (a watch replay)."""
    url = (f"{cp.server}/api/v1/namespaces/{ns}/pods?watch=1&resourceVersion={resource_version}"
           f"&fieldSelector=metadata.name%3D{name}&timeoutSeconds=1")
    req = urllib.request.Request(url)
    req.add_header("Authorization", f"Bearer {cp.admin_token}")
    with urllib.request.urlopen(req, timeout=10, context=cp._ssl) as resp:
        return [json.loads(line)["object"] for line in resp if line.strip()]


def preempt_once(cp: LocalControlPlane, api: Api, ns: str, nodes: list[str], scheduler: str,
                 classes: tuple[str, str]) -> dict[str, Any]:
    """A 2-core node with a 1500m low-priority victim; a 1-core high-priority pod must preempt it."""
    node = f"pe-{scheduler[:4]}-{suffix()}"
    api.create_node(node, "2", "4Gi")
    nodes.append(node)
    victim = api.call("POST", f"/api/v1/namespaces/{ns}/pods",
                      pod_body(f"victim-{node}", scheduler, "1500m", classes[0], nodeName=node))
    preemptor = f"preemptor-{node}"
    api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod_body(
        preemptor, scheduler, "1", classes[1], nodeSelector={"kubernetes.io/hostname": node}))
    name = victim["metadata"]["name"]
    wait_for(lambda: (api.pod(ns, name) or {}).get("metadata", {}).get("deletionTimestamp"), 30,
             f"{scheduler} to delete the victim {name}")
    history = versions_since(cp, ns, name, victim["metadata"]["resourceVersion"])
    nominated = wait_for(lambda: (api.pod(ns, preemptor) or {}).get("status", {}).get("nominatedNodeName"), 30,
                         f"{scheduler} to nominate {preemptor}")
    api.delete_pod(ns, name)  # the kubelet's final delete
    bound = wait_for(lambda: api.bound(ns).get(preemptor), 30, f"{scheduler} to bind {preemptor}")
    events = [e for e in api.events(ns) if e["reason"] == "Preempted" and e["regarding"]["name"] == name]
    return {"node": node, "victim": victim, "history": history, "nominated": nominated, "bound": bound,
            "events": events}


def test_victim_gets_disruption_target_before_deletion_like_kube_scheduler(
        control_plane: LocalControlPlane, kube_scheduler: Any, api: Api, namespace: str, nodes: list[str],
        start_kubeberth: Any) -> None:
    classes = priority_classes(api)
    start_kubeberth()
    outcomes = {s: preempt_once(control_plane, api, namespace, nodes, s, classes)
                for s in ("default-scheduler", PROFILE)}
    seen = {}
    for scheduler, out in outcomes.items():
        assert out["nominated"] == out["node"] and out["bound"] == out["node"], out
        history = out["history"]
        deleted_at = next(i for i, v in enumerate(history) if v["metadata"].get("deletionTimestamp"))
        marked_at = next(i for i, v in enumerate(history)
                         if any(c["type"] == "DisruptionTarget" for c in v["status"].get("conditions") or ()))
        assert marked_at < deleted_at, f"{scheduler}: the delete came before the DisruptionTarget condition"
        (cond,) = [c for c in history[deleted_at]["status"]["conditions"] if c["type"] == "DisruptionTarget"]
        generation = out["victim"]["metadata"]["generation"]
        assert cond == {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                        "message": f"{scheduler}: preempting to accommodate a higher priority pod",
                        "observedGeneration": generation, "lastProbeTime": None,
                        "lastTransitionTime": cond["lastTransitionTime"]}, scheduler
        (event,) = out["events"]
        preemptor = api.pod(namespace, f"preemptor-{out['node']}")
        assert event["note"] == f"Preempted by pod {preemptor['metadata']['uid']} on node {out['node']}"
        seen[scheduler] = {k: v for k, v in cond.items() if k not in ("message", "lastTransitionTime")}
    assert seen["default-scheduler"] == seen[PROFILE]

"""Scoring an extended resource backed by DRA, kubeberth and kube-scheduler v1.37.2 side by side on a
real API server: NodeResourcesFit's strategy names the extended resource a DeviceClass serves, no
node advertises it, and each node's ResourceSlice holds a different number of devices, some already
allocated. Both schedulers must count the class's devices (and the allocated ones) per node the same
way (calculateDRAResourceTotals) and so pick the same node, for MostAllocated, LeastAllocated and
NodeResourcesBalancedAllocation naming the resource."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

DRIVER = "score.e2e.example.com"
RESOURCE = "/apis/resource.k8s.io/v1"


def _slice(node: str, count: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}"} for i in range(count)]}}


def _strategy(kind: str, resource: str) -> list[dict[str, Any]]:
    if kind == "BalancedAllocation":
        return [{"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
            {"name": "cpu", "weight": 1}, {"name": resource, "weight": 1}]}}]
    return [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": kind, "resources": [{"name": "cpu", "weight": 1}, {"name": resource, "weight": 5}]}}}]


def _pod(name: str, scheduler: str, resource: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "schedulerName": scheduler, "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {
            "requests": {"cpu": "100m", resource: "1"}, "limits": {resource: "1"}}}]}}


def _release_claims(api: Api, ns: str, pod_uid: str) -> None:
    """What the resource claim controller does once the pod is gone: deallocate, unfinalize, delete."""
    for claim in api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims")["items"]:
        if not any(r.get("uid") == pod_uid for r in claim["metadata"].get("ownerReferences") or ()):
            continue
        name = claim["metadata"]["name"]
        claim["status"] = {}
        claim = api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}/status", claim)
        claim["metadata"]["finalizers"] = []
        api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", claim)
        api.call("DELETE", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", ok=(200, 404))


# cpu 100m of 8 (weight 1) and the GPU (weight 5): "four" has 4 devices, 2 allocated; "two" 2; "one" 1.
# MostAllocated: four (1 + 5 * 3/4) / 6 = 62, two (1 + 5 * 1/2) / 6 = 41, one (1 + 5 * 1/1) / 6 = 83.
# LeastAllocated: four (98 + 5 * 25) / 6 = 37, two (98 + 5 * 50) / 6 = 58, one (98 + 0) / 6 = 16.
# BalancedAllocation over cpu and the GPU (NodeResourcesFit's default strategy ties): four
# 50 + (50 + 63 - 75) / 2 = 69, two 50 + (50 + 75 - 100) / 2 = 62, one 50 + (50 + 50 - 100) / 2 = 50.
@pytest.mark.parametrize(("kind", "expected"),
                         [("MostAllocated", "one"), ("LeastAllocated", "two"), ("BalancedAllocation", "four")])
def test_dra_backed_extended_resource_scores_like_kube_scheduler(
    kind: str, expected: str, control_plane: Any, api: Api, namespace: str, nodes: list[str],
    start_kubeberth: Any, tmp_path: Path,
) -> None:
    sfx = suffix()
    ns = namespace
    names = {"four": f"ers-four-{sfx}", "two": f"ers-two-{sfx}", "one": f"ers-one-{sfx}"}
    for node in names.values():
        api.create_node(node, "8", "16Gi")
    nodes.extend(names.values())
    cls = f"gpu-{sfx}"
    resource = f"e2e-{sfx}.example.com/gpu"
    spec: dict[str, Any] = {"extendedResourceName": resource}
    if kind != "BalancedAllocation":
        # kube-scheduler v1.37.2's BalancedAllocation has no CEL cache (NewBalancedAllocation never
        # sets DRACaches.celCache) and panics on a class with selectors; Fit's strategies have one.
        spec["selectors"] = [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]
    api.call("POST", f"{RESOURCE}/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": cls}, "spec": spec})
    counts = {"four": 4, "two": 2, "one": 1}
    for key, node in names.items():
        api.call("POST", f"{RESOURCE}/resourceslices", _slice(node, counts[key]))
    # Two of "four"'s devices are taken by a claim allocated outside the schedulers.
    taken = api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "taken"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": cls, "count": 2}}]}}})
    taken["status"] = {"allocation": {"devices": {"results": [
        {"request": "r", "driver": DRIVER, "pool": names["four"], "device": f"gpu-{i}"} for i in (0, 1)]}}}
    api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/taken/status", taken)

    upstream_name = f"ks-score-{sfx}"
    config = tmp_path / "kube-scheduler.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": upstream_name, "pluginConfig": _strategy(kind, resource)}]}))
    upstream = control_plane.start_kube_scheduler(config, name=upstream_name)
    try:
        start_kubeberth(plugin_config=_strategy(kind, resource))
        placed = {}
        for scheduler, prefix in ((PROFILE, "k"), (upstream_name, "d")):
            pod_name = f"{prefix}-{kind.lower()}"
            pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(pod_name, scheduler, resource))
            try:
                placed[scheduler] = wait_for(lambda p=pod_name: api.bound(ns).get(p), 60, f"{scheduler} to bind {pod_name}")
            except AssertionError:
                notes = [e.get("note") for e in api.events(ns) if (e.get("regarding") or {}).get("name") == pod_name]
                log = upstream.log_path.read_text(errors="replace")[-3000:] if scheduler == upstream_name else ""
                raise AssertionError(f"{scheduler} did not bind {pod_name}; events: {notes}\n{log}") from None
            api.delete_pod(ns, pod_name)
            wait_for(lambda p=pod_name: api.pod(ns, p) is None, 20, f"{pod_name} deleted")
            _release_claims(api, ns, pod["metadata"]["uid"])
        assert placed[PROFILE] == placed[upstream_name], placed
        assert placed[PROFILE] == names[expected], placed
    finally:
        upstream.stop()
        if upstream in control_plane.schedulers:
            control_plane.schedulers.remove(upstream)
        api.call("DELETE", f"{RESOURCE}/deviceclasses/{cls}", ok=(200, 404))
        for node in names.values():
            api.call("DELETE", f"{RESOURCE}/resourceslices/{node}-{DRIVER}", ok=(200, 404))

"""Extended resources backed by DRA on a real API server, kubeberth and kube-scheduler v1.37.2 side
by side: a DeviceClass naming `spec.extendedResourceName`, ResourceSlices as a driver publishes them
on a few nodes, pods asking for that extended resource in their containers. Each scheduler creates
the pod's claim (generateName `<pod>-extended-resources-`, annotated, owned by the pod), allocates
and reserves it, writes the pod's `status.extendedResourceClaimStatus`, and binds the pod; the
outcome (node, devices, request names, mappings) is the same for both, and both delete a claim left
by an earlier attempt (PostFilter) before giving the pod a new one."""

from __future__ import annotations

from typing import Any

from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

DRIVER = "gpu.e2e.example.com"
RESOURCE = "/apis/resource.k8s.io/v1"
ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


def _slice(node: str, count: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}"} for i in range(count)]}}


def _pod(name: str, scheduler: str, resource: str, gpus: int, init_gpus: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": scheduler, "containers": [
        {"name": "main", "image": "registry.k8s.io/pause:3.10",
         "resources": {"requests": {"cpu": "100m", resource: str(gpus)}, "limits": {resource: str(gpus)}}}]}
    if init_gpus:
        spec["initContainers"] = [{"name": "setup", "image": "registry.k8s.io/pause:3.10",
                                   "resources": {"requests": {resource: str(init_gpus)}, "limits": {resource: str(init_gpus)}}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _claims_of(api: Api, ns: str, pod_uid: str) -> list[dict[str, Any]]:
    return [c for c in api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims")["items"]
            if any(r.get("uid") == pod_uid for r in c["metadata"].get("ownerReferences") or ())]


def _release(api: Api, ns: str, claim: dict[str, Any]) -> None:
    """What the resource claim controller does once the pod is gone: deallocate, drop the
    finalizer, delete."""
    name = claim["metadata"]["name"]
    fresh = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", ok=(200, 404))
    if not fresh or fresh.get("kind") != "ResourceClaim":
        return
    fresh["status"] = {}
    fresh = api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}/status", fresh)
    fresh["metadata"]["finalizers"] = []
    api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", fresh)
    api.call("DELETE", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", ok=(200, 404))


def test_extended_resource_claims_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str,
                                                      nodes: list[str], start_kubeberth: Any) -> None:
    sfx = suffix()
    ns = namespace
    two, one, none = f"erx-two-{sfx}", f"erx-one-{sfx}", f"erx-none-{sfx}"
    for node in (two, one, none):
        api.create_node(node, "8", "16Gi")
    nodes.extend([two, one, none])
    cls = f"gpu-{sfx}"
    resource = f"e2e-{sfx}.example.com/gpu"
    api.call("POST", f"{RESOURCE}/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": cls},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}], "extendedResourceName": resource}})
    slices = [_slice(two, 2), _slice(one, 1)]
    for body in slices:
        api.call("POST", f"{RESOURCE}/resourceslices", body)
    try:
        start_kubeberth()  # the default profile

        def place(name: str, res: str, gpus: int, init_gpus: int = 0) -> dict[str, Any]:
            """The same pod placed by kubeberth, then (after releasing its claim) by kube-scheduler."""
            out: dict[str, Any] = {}
            for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
                pod_name = f"{prefix}-{name}"
                pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(pod_name, scheduler, res, gpus, init_gpus))
                uid = pod["metadata"]["uid"]
                try:
                    node = wait_for(lambda p=pod_name: api.bound(ns).get(p), 60, f"{scheduler} to bind {pod_name}")
                except AssertionError:
                    notes = [e.get("note") for e in api.events(ns) if (e.get("regarding") or {}).get("name") == pod_name]
                    raise AssertionError(f"{scheduler} did not bind {pod_name}; events: {notes}") from None
                (claim,) = _claims_of(api, ns, uid)
                meta = claim["metadata"]
                assert meta["name"].startswith(f"{pod_name}-extended-resources-"), meta
                assert meta["annotations"] == {ANNOTATION: "true"}
                assert [(r["kind"], r["name"], r.get("controller")) for r in meta["ownerReferences"]] == [("Pod", pod_name, True)]
                assert "resource.kubernetes.io/delete-protection" in meta["finalizers"]
                status = claim["status"]
                assert [r["uid"] for r in status["reservedFor"]] == [uid], status
                results = status["allocation"]["devices"]["results"]
                written = api.pod(ns, pod_name)["status"]["extendedResourceClaimStatus"]
                assert written["resourceClaimName"] == meta["name"]
                out[scheduler] = {
                    "node": node,
                    "devices": sorted((r["pool"], r["device"]) for r in results),
                    "requests": [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"])
                                 for r in claim["spec"]["devices"]["requests"]],
                    "results": sorted(r["request"] for r in results),
                    "mappings": written["requestMappings"],
                }
                api.delete_pod(ns, pod_name)
                wait_for(lambda p=pod_name: api.pod(ns, p) is None, 20, f"{pod_name} deleted")
                _release(api, ns, claim)
            return out

        pair = place("pair", resource, 2)
        assert pair[PROFILE] == pair["default-scheduler"], pair
        assert pair[PROFILE]["node"] == two  # the only node with two devices
        assert pair[PROFILE]["devices"] == [(two, "gpu-0"), (two, "gpu-1")]
        # cpu sorts before the extended resource among the container's requests: request index 1.
        assert pair[PROFILE]["requests"] == [("container-0-request-1", cls, 2)]
        assert pair[PROFILE]["mappings"] == [
            {"containerName": "main", "resourceName": resource, "requestName": "container-0-request-1"}]

        # The implicit name deviceclass.resource.kubernetes.io/<class>, and an init container that
        # reuses the main container's request.
        implicit = place("implicit", f"deviceclass.resource.kubernetes.io/{cls}", 1, init_gpus=1)
        assert implicit[PROFILE]["requests"] == implicit["default-scheduler"]["requests"], implicit
        assert implicit[PROFILE]["mappings"] == implicit["default-scheduler"]["mappings"], implicit
        assert implicit[PROFILE]["results"] == implicit["default-scheduler"]["results"] == ["container-1-request-1"]
        assert len(implicit[PROFILE]["devices"]) == len(implicit["default-scheduler"]["devices"]) == 1

        # A claim left by an earlier attempt (allocated, never bound) rejects every node; PostFilter
        # deletes it, and its deletion brings the pod back for a new claim — on both schedulers.
        for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
            pod_name = f"{prefix}-stale"
            body = _pod(pod_name, scheduler, resource, 1)
            body["spec"]["schedulingGates"] = [{"name": "e2e.example.com/hold"}]
            pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
            stale = api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims", {
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": f"{pod_name}-extended-resources-old", "annotations": {ANNOTATION: "true"},
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                                                  "uid": pod["metadata"]["uid"], "controller": True}]},
                "spec": {"devices": {"requests": [{"name": "container-0-request-1", "exactly": {
                    "deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}}]}}})
            stale["status"] = {"allocation": {
                "devices": {"results": [{"request": "container-0-request-1", "driver": DRIVER, "pool": one, "device": "gpu-0"}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [one]}]}]}}}
            api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{stale['metadata']['name']}/status", stale)
            api._patch(f"/api/v1/namespaces/{ns}/pods/{pod_name}", {"spec": {"schedulingGates": None}})
            wait_for(lambda p=pod_name: api.bound(ns).get(p), 60, f"{scheduler} to bind {pod_name} after deleting the stale claim")
            wait_for(lambda p=pod_name: any("cannot schedule extended resource claim" in (e.get("note") or "")
                                            for e in api.events(ns) if (e.get("regarding") or {}).get("name") == p),
                     30, f"{scheduler}'s FailedScheduling event for {pod_name}")
            (claim,) = _claims_of(api, ns, pod["metadata"]["uid"])
            assert claim["metadata"]["name"] != stale["metadata"]["name"]
            assert claim["status"]["reservedFor"][0]["uid"] == pod["metadata"]["uid"]
            api.delete_pod(ns, pod_name)
            wait_for(lambda p=pod_name: api.pod(ns, p) is None, 20, f"{pod_name} deleted")
            _release(api, ns, claim)

        # No node has three devices: the pod waits, with upstream's reason, and no claim stays behind.
        pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod("too-many", PROFILE, resource, 3))
        wait_for(lambda: any("cannot allocate all claims" in (e.get("note") or "") for e in api.events(ns)
                             if (e.get("regarding") or {}).get("name") == "too-many"), 30, "a FailedScheduling event")
        assert "too-many" not in api.bound(ns)
        assert _claims_of(api, ns, pod["metadata"]["uid"]) == []
    finally:
        for body in slices:
            api.call("DELETE", f"{RESOURCE}/resourceslices/{body['metadata']['name']}", ok=(200, 404))
        api.call("DELETE", f"{RESOURCE}/deviceclasses/{cls}", ok=(200, 404))

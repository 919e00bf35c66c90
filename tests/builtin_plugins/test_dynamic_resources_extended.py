"""DynamicResources with extended resources backed by DRA on the embedded cluster: a pod asking for
`example.com/gpu` that a DeviceClass serves gets a claim created for it (generateName
`<pod>-extended-resources-`), allocated from the ResourceSlices, reserved for it, and its status
says which container request maps to which device request."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.testing import make_node, make_pod

DRIVER = "gpu.example.com"
ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


def gpu_class(name: str = "gpu", resource: str | None = "example.com/gpu") -> dict[str, Any]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}
    if resource is not None:
        spec["extendedResourceName"] = resource
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def node_slice(node: str, count: int) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}"} for i in range(count)]}}


def gpu_pod(name: str, gpus: int, resource: str = "example.com/gpu", init_gpus: int = 0) -> dict[str, Any]:
    pod = make_pod(name, "100m")
    pod["spec"]["containers"][0]["name"] = "main"
    pod["spec"]["containers"][0]["resources"]["requests"][resource] = str(gpus)
    if init_gpus:
        pod["spec"]["initContainers"] = [{"name": "setup", "image": "busybox",
                                          "resources": {"requests": {resource: str(init_gpus)}}}]
    return pod


@pytest.fixture
def dra(scheduler_tester):
    def run(*objects: Any) -> Any:
        tester = scheduler_tester(["DynamicResources"], default_plugins=False)
        return tester.simulate(list(objects), seed=1)

    return run


def claims_of(result: Any, pod_name: str) -> list[dict[str, Any]]:
    return [c for c in result.backend.list("ResourceClaim")
            if any(r.get("name") == pod_name for r in c["metadata"].get("ownerReferences") or ())]


def test_extended_resource_gets_a_claim_created_allocated_and_recorded(dra) -> None:
    result = dra(
        gpu_class(),
        make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"),
        node_slice("a", 1), node_slice("b", 2),
        gpu_pod("train", 2),
    )
    assert result.placements == {"default/train": "b"}  # only b has two devices
    (claim,) = claims_of(result, "train")
    meta = claim["metadata"]
    pod = result.backend.get("Pod", "default/train")
    assert meta["name"].startswith("train-extended-resources-") and len(meta["name"]) == len("train-extended-resources-") + 5
    assert meta["annotations"] == {ANNOTATION: "true"}
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "train",
                                        "uid": pod["metadata"]["uid"], "controller": True}]
    assert "resource.kubernetes.io/delete-protection" in meta["finalizers"]
    assert claim["spec"]["devices"]["requests"] == [
        {"name": "container-0-request-1", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2}}]
    results = claim["status"]["allocation"]["devices"]["results"]
    assert sorted(r["device"] for r in results) == ["gpu-0", "gpu-1"]
    assert {(r["request"], r["pool"]) for r in results} == {("container-0-request-1", "b")}
    assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "train", "uid": pod["metadata"]["uid"]}]
    # cpu sorts before example.com/gpu among the container's requests: request index 1.
    assert pod["status"]["extendedResourceClaimStatus"] == {
        "requestMappings": [{"containerName": "main", "resourceName": "example.com/gpu", "requestName": "container-0-request-1"}],
        "resourceClaimName": meta["name"],
    }


def test_devices_of_an_extended_resource_claim_are_not_given_twice(dra) -> None:
    result = dra(
        gpu_class(),
        make_node("a", "4", "8Gi"), node_slice("a", 3),
        gpu_pod("p1", 2), gpu_pod("p2", 2), gpu_pod("p3", 1),
    )
    placed = sorted(k for k in result.placements)
    assert len(placed) == 2 and "default/p3" in placed  # 2 + 1 devices of 3: one gpu:2 pod waits
    devices = [r["device"] for c in result.backend.list("ResourceClaim")
               for r in c["status"]["allocation"]["devices"]["results"]]
    assert sorted(devices) == ["gpu-0", "gpu-1", "gpu-2"]
    waiting = next(p for p in ("p1", "p2") if f"default/{p}" not in result.placements)
    assert claims_of(result, waiting) == []  # no claim left behind by its failed attempts
    assert "cannot allocate all claims" in str(result.summary)


def test_implicit_extended_resource_and_init_container(dra) -> None:
    """deviceclass.resource.kubernetes.io/<class> names any class; an init container reuses the
    main container's request when it asks for no more."""
    result = dra(
        gpu_class(resource=None),
        make_node("a", "4", "8Gi"), node_slice("a", 2),
        gpu_pod("p", 2, resource="deviceclass.resource.kubernetes.io/gpu", init_gpus=1),
    )
    assert result.placements == {"default/p": "a"}
    (claim,) = claims_of(result, "p")
    assert [r["name"] for r in claim["spec"]["devices"]["requests"]] == ["container-1-request-1"]
    pod = result.backend.get("Pod", "default/p")
    mappings = pod["status"]["extendedResourceClaimStatus"]["requestMappings"]
    assert sorted((m["containerName"], m["requestName"]) for m in mappings) == [
        ("main", "container-1-request-1"), ("setup", "container-1-request-1")]


def test_device_plugin_node_needs_no_claim(dra) -> None:
    """A node that advertises example.com/gpu in its allocatable serves it through its device
    plugin: no claim, no status (NodeResourcesFit counts it)."""
    node = make_node("a", "4", "8Gi")
    node["status"]["allocatable"]["example.com/gpu"] = "4"
    node["status"]["capacity"] = dict(node["status"]["allocatable"])
    result = dra(gpu_class(), node, gpu_pod("p", 2))
    assert result.placements == {"default/p": "a"}
    assert result.backend.list("ResourceClaim") == []
    assert "extendedResourceClaimStatus" not in (result.backend.get("Pod", "default/p").get("status") or {})


def test_simulate_explain_names_the_claim_and_its_devices(tmp_path, capsys) -> None:
    """`kubeberth simulate --explain` (default profile) says which claim (created for the extended
    resource) holds which devices for a scheduled pod."""
    import json

    import yaml
    from kubeberth.apps.cli import main

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([gpu_class(), make_node("a", "4", "8Gi"), node_slice("a", 2), gpu_pod("train", 2)]))
    code = main(["simulate", "--cluster", str(cluster), "--explain", "default/train", "--json"])  # the default profile
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["state"] == "scheduled"
    detail = out["detail"]
    assert detail.startswith("on node a; claim train-extended-resources-"), detail
    assert detail.endswith(f": {DRIVER}/a/gpu-0, {DRIVER}/a/gpu-1"), detail


def test_claim_left_by_an_earlier_attempt_is_deleted_and_the_pod_scheduled_anew(dra) -> None:
    """A claim for the pod's extended resources from an earlier attempt (allocated, never bound)
    rejects every node; PostFilter deletes it, and its deletion brings the pod back, which then
    gets a new claim."""
    pod = gpu_pod("train", 1)
    pod["metadata"]["uid"] = "train-uid"
    stale = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "train-extended-resources-old", "namespace": "default",
                          "annotations": {ANNOTATION: "true"}, "finalizers": ["resource.kubernetes.io/delete-protection"],
                          "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "train", "uid": "train-uid",
                                               "controller": True}]},
             "spec": {"devices": {"requests": [{"name": "container-0-request-1", "exactly": {
                 "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}},
             "status": {"allocation": {"devices": {"results": [
                 {"request": "container-0-request-1", "driver": DRIVER, "pool": "b", "device": "gpu-0"}]}}}}
    result = dra(gpu_class(), make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"),
                 node_slice("a", 1), node_slice("b", 1), stale, pod)
    assert "default/train" in result.placements
    (claim,) = claims_of(result, "train")
    assert claim["metadata"]["name"] != "train-extended-resources-old"
    assert claim["status"]["reservedFor"][0]["uid"] == "train-uid"
    assert result.summary["attempts"] == 2  # the rejected one, then the one that placed it


def test_default_profile_places_extended_resource_pods_on_dra_and_device_plugin_nodes(scheduler_tester) -> None:
    """The default profile: NodeResourcesFit leaves DRA-backed extended resources to DynamicResources;
    a node whose device plugin advertises the resource serves it without a claim."""
    plugin_node = make_node("plugin", "4", "8Gi")
    plugin_node["status"]["allocatable"]["example.com/gpu"] = "1"
    plugin_node["status"]["capacity"] = dict(plugin_node["status"]["allocatable"])
    tester = scheduler_tester([], default_plugins=True)
    result = tester.simulate([gpu_class(), make_node("dra", "4", "8Gi"), node_slice("dra", 2), plugin_node,
                              gpu_pod("two", 2), gpu_pod("one", 1), gpu_pod("three", 3)], seed=1)
    # Pods go in creation order: "two" takes both devices of the DRA node, "one" the plugin's gpu.
    assert result.placements == {"default/two": "dra", "default/one": "plugin"}
    claims = {c["metadata"]["ownerReferences"][0]["name"]: c for c in result.backend.list("ResourceClaim")}
    assert list(claims) == ["two"]  # the device plugin serves "one": no claim
    assert len(claims["two"]["status"]["allocation"]["devices"]["results"]) == 2
    assert list(result.summary["unschedulable_reasons"]) == [
        "0/2 nodes are available: 1 Insufficient example.com/gpu, 1 cannot allocate all claims. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."]

"""DynamicResources on the embedded cluster: devices from ResourceSlices allocated to claims by
CEL selectors, written back to the claim's status, and never given to two claims."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.testing import make_node, make_pod

DRIVER = "gpu.example.com"


def device_class(name: str = "gpu", expression: str = f'device.driver == "{DRIVER}"') -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def gpu(name: str, model: str = "a100", memory: str = "40Gi", **attrs: Any) -> dict[str, Any]:
    attributes = {"model": {"string": model}, **{k: v for k, v in attrs.items()}}
    return {"name": name, "attributes": attributes, "capacity": {"memory": {"value": memory}}}


def node_slice(node: str, *devices: dict[str, Any], driver: str = DRIVER, generation: int = 1,
               count: int = 1, name: str | None = None, pool: str | None = None) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name or f"{node}-{driver}"},
            "spec": {"driver": driver, "nodeName": node,
                     "pool": {"name": pool or node, "generation": generation, "resourceSliceCount": count},
                     "devices": list(devices)}}


def claim(name: str, *requests: dict[str, Any], constraints: list[dict[str, Any]] | None = None,
          namespace: str = "default") -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"devices": devices}}


def template(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def exactly(name: str = "gpu", cls: str = "gpu", count: int | None = None, selector: str | None = None,
            mode: str | None = None, admin: bool | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"deviceClassName": cls}
    if count is not None:
        spec["count"] = count
    if mode is not None:
        spec["allocationMode"] = mode
    if selector is not None:
        spec["selectors"] = [{"cel": {"expression": selector}}]
    if admin is not None:
        spec["adminAccess"] = admin
    return {"name": name, "exactly": spec}


def gpu_pod(name: str, *, claim_name: str | None = None, template_name: str | None = None) -> dict[str, Any]:
    pod = make_pod(name, "100m")
    ref: dict[str, Any] = {"name": "gpu"}
    if claim_name:
        ref["resourceClaimName"] = claim_name
    if template_name:
        ref["resourceClaimTemplateName"] = template_name
    pod["spec"]["resourceClaims"] = [ref]
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


@pytest.fixture
def dra(scheduler_tester):
    def run(*objects: Any, default_plugins: bool = False) -> Any:
        tester = scheduler_tester(["DynamicResources"], default_plugins=default_plugins)
        return tester.simulate(list(objects), seed=1)
    return run


def allocation_of(result: Any, key: str) -> dict[str, Any] | None:
    obj = result.backend.get("ResourceClaim", key)
    return ((obj or {}).get("status") or {}).get("allocation")


def test_claim_is_allocated_on_the_node_with_a_matching_device_and_written_back(dra) -> None:
    result = dra(
        device_class(),
        make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"), make_node("c", "4", "8Gi"),
        node_slice("a", gpu("gpu-0", model="t4", memory="16Gi")),
        node_slice("b", gpu("gpu-0", model="a100", memory="80Gi")),
        claim("big", exactly(selector=f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0')),
        gpu_pod("train", claim_name="big"),
    )
    assert result.placements["default/train"] == "b"
    obj = result.backend.get("ResourceClaim", "default/big")
    allocation = obj["status"]["allocation"]
    assert allocation["devices"]["results"] == [
        {"request": "gpu", "driver": DRIVER, "pool": "b", "device": "gpu-0"}
    ]
    assert allocation["nodeSelector"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]
    }
    pod = result.backend.get("Pod", "default/train")
    assert obj["status"]["reservedFor"] == [{"resource": "pods", "name": "train", "uid": pod["metadata"]["uid"]}]
    assert "resource.kubernetes.io/delete-protection" in obj["metadata"]["finalizers"]


def test_two_pods_never_get_the_same_device(dra) -> None:
    result = dra(
        device_class(),
        make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"),
        node_slice("a", gpu("gpu-0")),
        template("one-gpu", exactly()),
        *[gpu_pod(f"p{i}", template_name="one-gpu") for i in range(3)],
    )
    assert list(result.placements.values()) == ["a"]  # one device in the cluster: one pod runs
    assert len(result.placements) == 1
    claims = result.backend.list("ResourceClaim")
    assert len(claims) == 3  # the claim controller generated one per pod
    allocated = [c for c in claims if (c.get("status") or {}).get("allocation")]
    assert len(allocated) == 1


def test_claim_template_claim_is_owned_by_the_pod_and_named_in_its_status(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"), node_slice("a", gpu("gpu-0"), gpu("gpu-1")),
                 template("two", exactly(count=2)), gpu_pod("p", template_name="two"))
    assert result.placements["default/p"] == "a"
    pod = result.backend.get("Pod", "default/p")
    (status,) = pod["status"]["resourceClaimStatuses"]
    obj = result.backend.get("ResourceClaim", f"default/{status['resourceClaimName']}")
    assert obj["metadata"]["ownerReferences"][0]["uid"] == pod["metadata"]["uid"]
    assert [r["device"] for r in obj["status"]["allocation"]["devices"]["results"]] == ["gpu-0", "gpu-1"]


def test_all_mode_takes_every_matching_device_of_the_node(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"),
                 node_slice("a", gpu("gpu-0"), gpu("gpu-1", model="t4"), gpu("gpu-2")),
                 claim("all", exactly(mode="All", selector=f'device.attributes["{DRIVER}"].model == "a100"')),
                 gpu_pod("p", claim_name="all"))
    assert [r["device"] for r in allocation_of(result, "default/all")["devices"]["results"]] == ["gpu-0", "gpu-2"]


def test_first_available_falls_back_and_the_preferred_node_scores_higher(dra) -> None:
    request = {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu", "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "h100"'}}]},
        {"name": "small", "deviceClassName": "gpu", "count": 2},
    ]}
    result = dra(device_class(), make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"),
                 node_slice("a", gpu("gpu-0"), gpu("gpu-1")), node_slice("b", gpu("gpu-0", model="h100")),
                 claim("flex", request), gpu_pod("p", claim_name="flex"))
    # Both nodes fit; b serves the first subrequest (score 8 vs 7).
    assert result.placements["default/p"] == "b"
    assert allocation_of(result, "default/flex")["devices"]["results"][0]["request"] == "gpu/big"


def test_unschedulable_reasons_are_upstreams(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"), node_slice("a", gpu("gpu-0")),
                 claim("two", exactly(count=2)), gpu_pod("p", claim_name="two"),
                 gpu_pod("q", claim_name="missing"),
                 claim("noclass", exactly(cls="nope")), gpu_pod("r", claim_name="noclass"))
    assert result.placements.get("default/p") is None
    summary = result.summary
    text = str(summary)
    assert "cannot allocate all claims" in text
    assert 'resourceclaim.resource.k8s.io \\"missing\\" not found' in text or 'resourceclaim.resource.k8s.io "missing" not found' in text
    assert "request gpu: device class nope does not exist" in text


def test_shared_allocated_claim_only_admits_the_nodes_of_its_allocation(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi"),
                 node_slice("a", gpu("gpu-0")), node_slice("b", gpu("gpu-0")),
                 claim("shared", exactly()), gpu_pod("p1", claim_name="shared"), gpu_pod("p2", claim_name="shared"))
    p1, p2 = result.placements["default/p1"], result.placements["default/p2"]
    assert p1 and p1 == p2
    obj = result.backend.get("ResourceClaim", "default/shared")
    assert len(obj["status"]["reservedFor"]) == 2


def test_admin_access_may_use_a_device_already_allocated(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"), node_slice("a", gpu("gpu-0")),
                 claim("user", exactly()), gpu_pod("p", claim_name="user"),
                 claim("monitor", exactly(admin=True)), gpu_pod("m", claim_name="monitor"))
    assert result.placements["default/p"] == "a" and result.placements["default/m"] == "a"
    assert allocation_of(result, "default/monitor")["devices"]["results"][0]["adminAccess"] is True


def test_match_attribute_constraint_keeps_devices_on_one_numa_node(dra) -> None:
    numa = f"{DRIVER}/numa"
    result = dra(device_class(), make_node("a", "4", "8Gi"),
                 node_slice("a", gpu("gpu-0", numa={"int": 0}), gpu("gpu-1", numa={"int": 1}), gpu("gpu-2", numa={"int": 1})),
                 claim("pair", exactly(count=2), constraints=[{"matchAttribute": numa}]), gpu_pod("p", claim_name="pair"))
    assert [r["device"] for r in allocation_of(result, "default/pair")["devices"]["results"]] == ["gpu-1", "gpu-2"]


def test_node_selector_and_all_nodes_slices(dra) -> None:
    network = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "fabric"},
               "spec": {"driver": "net.example.com", "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
                        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "fabric", "operator": "In", "values": ["ib"]}]}]},
                        "devices": [{"name": "port-0"}]}}
    cls = device_class("nic", 'device.driver == "net.example.com"')
    result = dra(cls, make_node("a", "4", "8Gi"), make_node("b", "4", "8Gi", labels={"fabric": "ib"}), network,
                 claim("nic", exactly(cls="nic")), gpu_pod("p", claim_name="nic"))
    assert result.placements["default/p"] == "b"
    assert allocation_of(result, "default/nic")["nodeSelector"] == {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "fabric", "operator": "In", "values": ["ib"]}]}]}


def test_incomplete_pool_is_not_used_for_all(dra) -> None:
    result = dra(device_class(), make_node("a", "4", "8Gi"),
                 node_slice("a", gpu("gpu-0"), count=2),  # the pool's second slice is not published yet
                 claim("all", exactly(mode="All")), gpu_pod("p", claim_name="all"))
    assert result.placements.get("default/p") is None
    assert "asks for all devices, but resource pool" in str(result.summary)


def test_device_taint_needs_a_toleration(dra) -> None:
    tainted = gpu("gpu-0")
    tainted["taints"] = [{"key": "broken", "effect": "NoSchedule"}]
    tolerant = exactly(name="gpu")
    tolerant["exactly"]["tolerations"] = [{"key": "broken", "operator": "Exists"}]
    result = dra(device_class(), make_node("a", "4", "8Gi"), node_slice("a", tainted),
                 claim("plain", exactly()), gpu_pod("p", claim_name="plain"),
                 claim("ok", tolerant), gpu_pod("q", claim_name="ok"))
    assert result.placements.get("default/p") is None
    assert result.placements["default/q"] == "a"


def test_deleting_the_pod_frees_its_devices_for_the_next(dra, scheduler_tester) -> None:
    tester = scheduler_tester(["DynamicResources"])
    tester.add(device_class(), make_node("a", "4", "8Gi"), node_slice("a", gpu("gpu-0")), template("one", exactly()))
    tester.add(gpu_pod("first", template_name="one"))
    tester.settle()
    assert tester.node_of("first") == "a"
    tester.add(gpu_pod("second", template_name="one"))
    tester.settle()
    assert tester.node_of("second") is None
    tester.delete("Pod", "default/first")
    tester.settle()
    assert tester.node_of("second") == "a"


def test_cel_runtime_error_names_the_class_and_device(dra) -> None:
    result = dra(device_class("bad", 'device.attributes["gpu.example.com"].missing == "x"'),
                 make_node("a", "4", "8Gi"), node_slice("a", gpu("gpu-0")),
                 claim("c", exactly(cls="bad")), gpu_pod("p", claim_name="c"))
    assert result.placements.get("default/p") is None
    assert "class bad: selector #0 on device gpu.example.com/a/gpu-0: CEL runtime error: no such key: missing" in str(result.summary)


def test_pods_without_claims_skip_the_plugin(scheduler_tester) -> None:
    tester = scheduler_tester(["DynamicResources"])
    tester.add(make_node("a", "4", "8Gi"))
    assert tester.schedule(make_pod("plain", "100m")) == {"plain": "a"}
    (record,) = tester.records("plain")
    assert "DynamicResources" not in str(record.rejected)


def test_simulate_cli_with_dra_manifests(tmp_path, capsys) -> None:
    """`kubeberth simulate --cluster` takes DeviceClass, ResourceSlice, ResourceClaim and
    ResourceClaimTemplate objects; the default profile allocates the devices."""
    import json
    from pathlib import Path

    from kubeberth.apps.cli import main

    cluster = Path(__file__).resolve().parents[2] / "config" / "examples" / "dra-gpus-cluster.yaml"
    code = main(["simulate", "--cluster", str(cluster), "--json", "--placements"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    placements = out["placements"]
    assert placements["default/train"] == "gpu-b"  # the only GPU with >= 40Gi
    gpu_pods = [placements.get(f"default/infer-{i}") for i in (1, 2, 3)]
    # Three GPUs in all, one taken by train: two of the three inference pods run, on gpu-a.
    assert sorted(p for p in gpu_pods if p) == ["gpu-a", "gpu-a"]
    assert "default/web" in placements
    assert out["unschedulable"] == 1


def test_partitions_of_one_gpu_share_its_counters_across_pods(dra) -> None:
    """DRAPartitionableDevices (on by default): a GPU's 40Gi counter set holds two 20Gi halves or
    the whole GPU, never more, across pods; a pod that needs more waits."""
    pool = {"name": "a", "generation": 1, "resourceSliceCount": 2}

    def part(name: str, memory: str) -> dict[str, Any]:
        return {"name": name, "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}]}

    counters = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-counters"},
                "spec": {"driver": DRIVER, "nodeName": "a", "pool": pool,
                         "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]}}
    devices = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-devices"},
               "spec": {"driver": DRIVER, "nodeName": "a", "pool": pool,
                        "devices": [part("whole", "40Gi"), part("half-0", "20Gi"), part("half-1", "20Gi")]}}
    result = dra(
        device_class(),
        make_node("a", "8", "16Gi"), counters, devices,
        template("any", exactly()),
        *[gpu_pod(f"p{i}", template_name="any") for i in range(3)],
    )
    # Every partition matches; p0 takes "whole" (first in slice order), which leaves no counters
    # for the halves.
    assert result.placements == {"default/p0": "a"}
    taken = [c["status"]["allocation"]["devices"]["results"][0]["device"]
             for c in result.backend.list("ResourceClaim") if (c.get("status") or {}).get("allocation")]
    assert taken == ["whole"]


def test_halves_fill_the_counter_set(dra) -> None:
    pool = {"name": "a", "generation": 1, "resourceSliceCount": 2}

    def part(name: str, memory: str) -> dict[str, Any]:
        return {"name": name, "attributes": {"size": {"string": "half" if memory == "20Gi" else "whole"}},
                "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}]}

    result = dra(
        device_class(),
        make_node("a", "8", "16Gi"),
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-counters"},
         "spec": {"driver": DRIVER, "nodeName": "a", "pool": pool,
                  "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a-devices"},
         "spec": {"driver": DRIVER, "nodeName": "a", "pool": pool,
                  "devices": [part("whole", "40Gi"), part("half-0", "20Gi"), part("half-1", "20Gi")]}},
        template("half", exactly(selector=f'device.attributes["{DRIVER}"].size == "half"')),
        template("whole", exactly(selector=f'device.attributes["{DRIVER}"].size == "whole"')),
        *[gpu_pod(f"h{i}", template_name="half") for i in range(3)],
        gpu_pod("w", template_name="whole"),
    )
    # Two halves take the 40Gi; the third half and the whole GPU find no counters left.
    assert sorted(result.placements) == ["default/h0", "default/h1"]
    taken = sorted(c["status"]["allocation"]["devices"]["results"][0]["device"]
                   for c in result.backend.list("ResourceClaim") if (c.get("status") or {}).get("allocation"))
    assert taken == ["half-0", "half-1"]


def test_a_device_allowing_multiple_allocations_is_shared_by_capacity(dra) -> None:
    """DRAConsumableCapacity (on by default): pods share a device with allowMultipleAllocations
    while its capacity lasts; each result carries a shareID and the capacity it consumes."""
    shared = {"name": "nic-0", "allowMultipleAllocations": True,
              "capacity": {"bandwidth": {"value": "10Gi", "requestPolicy": {
                  "default": "1Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}}}}
    request = exactly()
    request["exactly"]["capacity"] = {"requests": {"bandwidth": "3500Mi"}}  # rounds up to 4Gi
    result = dra(
        device_class(),
        make_node("a", "8", "16Gi"),
        node_slice("a", shared),
        template("bw", request),
        *[gpu_pod(f"p{i}", template_name="bw") for i in range(3)],
    )
    assert sorted(result.placements) == ["default/p0", "default/p1"]  # 4Gi + 4Gi of 10Gi; a third does not fit
    results = [c["status"]["allocation"]["devices"]["results"][0]
               for c in result.backend.list("ResourceClaim") if (c.get("status") or {}).get("allocation")]
    assert [r["consumedCapacity"] for r in results] == [{"bandwidth": "4Gi"}, {"bandwidth": "4Gi"}]
    assert all(r["device"] == "nic-0" for r in results)
    assert len({r["shareID"] for r in results}) == 2

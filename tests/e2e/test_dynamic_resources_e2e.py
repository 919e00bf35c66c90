"""DynamicResources on a real API server (resource.k8s.io/v1, on by default in v1.37): ResourceSlices
published as a DRA driver would for fake nodes, a DeviceClass, claims and claim templates; kubeberth
(with config/rbac.yaml's verbs only) allocates, writes status.allocation and reservedFor, and
binds; kube-scheduler v1.37.2 allocates the same claims the same way."""

from __future__ import annotations

from typing import Any

from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

DRIVER = "gpu.e2e.example.com"
RESOURCE = "/apis/resource.k8s.io/v1"


def _slice(node: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}}


def _gpu(name: str, model: str, memory: str) -> dict[str, Any]:
    return {"name": name, "attributes": {"model": {"string": model}}, "capacity": {"memory": {"value": memory}}}


def _claim_spec(selector: str | None = None, count: int = 1, cls: str = "") -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}


def _pod(name: str, scheduler: str, claim: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "schedulerName": scheduler, "resourceClaims": [{"name": "gpu", **claim}],
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "claims": [{"name": "gpu"}]}}]}}


def _release(api: Api, ns: str, name: str) -> None:
    """What the resource claim controller does when the pod is gone: drop the reservation and the
    allocation, and the finalizer, so the claim and its devices go."""
    claim = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", ok=(200, 404))
    if not claim or claim.get("kind") != "ResourceClaim":
        return
    claim["status"] = {}
    claim = api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}/status", claim)
    claim["metadata"]["finalizers"] = []
    api.call("PUT", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", claim)
    api.call("DELETE", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}", ok=(200, 404))


def test_claims_allocated_and_written_back_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str,
                                                               nodes: list[str], start_kubeberth: Any) -> None:
    sfx = suffix()
    ns = namespace
    small, big, plain = f"dra-t4-{sfx}", f"dra-a100-{sfx}", f"dra-cpu-{sfx}"
    for node in (small, big, plain):
        api.create_node(node, "8", "16Gi")
    nodes.extend([small, big, plain])
    cls = f"gpu-{sfx}"
    api.call("POST", f"{RESOURCE}/deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                                   "metadata": {"name": cls},
                                                   "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    slices = [_slice(small, [_gpu("gpu-0", "t4", "16Gi"), _gpu("gpu-1", "t4", "16Gi")]),
              _slice(big, [_gpu("gpu-0", "a100", "80Gi")])]
    for body in slices:
        api.call("POST", f"{RESOURCE}/resourceslices", body)
    try:
        start_kubeberth()
        big_selector = f'device.capacity["{DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0'

        def place(name: str, spec: dict[str, Any]) -> dict[str, Any]:
            """The same claim allocated by kubeberth, then (after releasing it) by kube-scheduler."""
            out: dict[str, Any] = {}
            for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
                claim_name, pod_name = f"{prefix}-{name}", f"{prefix}-{name}-pod"
                api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims",
                         {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                          "metadata": {"name": claim_name}, "spec": spec})
                pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(pod_name, scheduler, {"resourceClaimName": claim_name}))
                try:
                    node = wait_for(lambda p=pod_name: api.bound(ns).get(p), 60, f"{scheduler} to bind {pod_name}")
                except AssertionError:
                    notes = [e.get("note") for e in api.events(ns) if (e.get("regarding") or {}).get("name") == pod_name]
                    raise AssertionError(f"{scheduler} did not bind {pod_name}; events: {notes}") from None
                claim = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{claim_name}")
                status = claim["status"]
                assert [r["uid"] for r in status["reservedFor"]] == [pod["metadata"]["uid"]], status
                assert "resource.kubernetes.io/delete-protection" in claim["metadata"]["finalizers"]
                allocation = status["allocation"]
                out[scheduler] = (node, allocation["devices"]["results"], allocation.get("nodeSelector"))
                api.delete_pod(ns, pod_name)
                wait_for(lambda p=pod_name: api.pod(ns, p) is None, 20, f"{pod_name} deleted")
                _release(api, ns, claim_name)
            return out

        one = place("big", _claim_spec(big_selector, cls=cls))
        assert one[PROFILE] == one["default-scheduler"], one
        node, results, selector = one[PROFILE]
        assert node == big
        assert results == [{"request": "gpu", "driver": DRIVER, "pool": big, "device": "gpu-0"}]
        assert selector == {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [big]}]}]}

        two = place("pair", _claim_spec(count=2, cls=cls))
        assert two[PROFILE] == two["default-scheduler"], two
        assert two[PROFILE][0] == small
        assert [r["device"] for r in two[PROFILE][1]] == ["gpu-0", "gpu-1"]

        # A claim template: the generated claim (made here as the resource claim controller
        # would) is found through the pod's status.resourceClaimStatuses.
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaimtemplates",
                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "one"},
                  "spec": {"spec": _claim_spec(big_selector, cls=cls)}})
        pod = api.call("POST", f"/api/v1/namespaces/{ns}/pods",
                       _pod("tmpl", PROFILE, {"resourceClaimTemplateName": "one"}))
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "tmpl-gpu-x1", "ownerReferences": [{
                "apiVersion": "v1", "kind": "Pod", "name": "tmpl", "uid": pod["metadata"]["uid"], "controller": True}]},
            "spec": _claim_spec(big_selector, cls=cls)})
        api._patch(f"/api/v1/namespaces/{ns}/pods/tmpl/status",
                   {"status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "tmpl-gpu-x1"}]}})
        assert wait_for(lambda: api.bound(ns).get("tmpl"), 60, "kubeberth to bind tmpl") == big
        claim = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/tmpl-gpu-x1")
        assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"

        # The only big GPU is taken: the next pod waits, with upstream's reason, until it is freed.
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims",
                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "waiting"},
                  "spec": _claim_spec(big_selector, cls=cls)})
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod("waits", PROFILE, {"resourceClaimName": "waiting"}))
        wait_for(lambda: any("cannot allocate all claims" in (e.get("note") or "") for e in api.events(ns)
                             if (e.get("regarding") or {}).get("name") == "waits"), 30, "a FailedScheduling event")
        assert "waits" not in api.bound(ns)
        api.delete_pod(ns, "tmpl")
        _release(api, ns, "tmpl-gpu-x1")
        assert wait_for(lambda: api.bound(ns).get("waits"), 60, "the freed GPU to be allocated") == big
        api.delete_pod(ns, "waits")
        _release(api, ns, "waiting")

        # A pod whose claim does not exist yet waits at PreEnqueue (`ResourceClaim not found`, no
        # scheduling attempt); creating the claim lets it in, as kube-scheduler's ResourceClaim/Add.
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod("late", PROFILE, {"resourceClaimName": "late-claim"}))
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims",
                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "late-claim"},
                  "spec": _claim_spec(big_selector, cls=cls)})
        assert wait_for(lambda: api.bound(ns).get("late"), 60, "kubeberth to bind late once its claim exists") == big
        api.delete_pod(ns, "late")
        _release(api, ns, "late-claim")
    finally:
        for body in slices:
            api.call("DELETE", f"{RESOURCE}/resourceslices/{body['metadata']['name']}", ok=(200, 404))
        api.call("DELETE", f"{RESOURCE}/deviceclasses/{cls}", ok=(200, 404))


PART_DRIVER = "partitions.e2e.example.com"


def _partition(name: str, kind: str, memory: str) -> dict[str, Any]:
    return {"name": name, "attributes": {"kind": {"string": kind}},
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}]}


def test_partitionable_gpu_allocated_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str,
                                                         nodes: list[str], start_kubeberth: Any) -> None:
    """DRAPartitionableDevices (beta, on by default in v1.37): one GPU published as a counter set
    and three partitions of it (the whole GPU, two halves); both schedulers pick the two halves
    for a claim of two, and a half waits while the whole GPU holds every counter."""
    sfx = suffix()
    ns = namespace
    node = f"dra-part-{sfx}"
    api.create_node(node, "8", "16Gi")
    nodes.append(node)
    cls = f"partition-{sfx}"
    api.call("POST", f"{RESOURCE}/deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                                   "metadata": {"name": cls},
                                                   "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{PART_DRIVER}"'}}]}})
    pool = {"name": node, "generation": 1, "resourceSliceCount": 2}
    slices = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-counters"},
         "spec": {"driver": PART_DRIVER, "nodeName": node, "pool": pool,
                  "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-devices"},
         "spec": {"driver": PART_DRIVER, "nodeName": node, "pool": pool,
                  "devices": [_partition("gpu-0", "whole", "40Gi"), _partition("gpu-0-half-a", "half", "20Gi"),
                              _partition("gpu-0-half-b", "half", "20Gi")]}},
    ]
    for body in slices:
        api.call("POST", f"{RESOURCE}/resourceslices", body)
    half = f'device.attributes["{PART_DRIVER}"].kind == "half"'
    whole = f'device.attributes["{PART_DRIVER}"].kind == "whole"'

    def claim(name: str, selector: str, count: int) -> None:
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims",
                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
                  "spec": _claim_spec(selector, count=count, cls=cls)})

    try:
        start_kubeberth()
        seen: dict[str, Any] = {}
        for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
            claim(f"{prefix}-halves", half, 2)
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(f"{prefix}-halves", scheduler, {"resourceClaimName": f"{prefix}-halves"}))
            bound = wait_for(lambda p=f"{prefix}-halves": api.bound(ns).get(p), 60, f"{scheduler} to bind two halves")
            allocation = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{prefix}-halves")["status"]["allocation"]
            seen[scheduler] = (bound, allocation["devices"]["results"], allocation.get("nodeSelector"))
            api.delete_pod(ns, f"{prefix}-halves")
            wait_for(lambda p=f"{prefix}-halves": api.pod(ns, p) is None, 20, "the pod deleted")
            _release(api, ns, f"{prefix}-halves")
        assert seen[PROFILE] == seen["default-scheduler"], seen
        assert seen[PROFILE][0] == node
        assert [r["device"] for r in seen[PROFILE][1]] == ["gpu-0-half-a", "gpu-0-half-b"]

        # The whole GPU takes all 40Gi of the counter set: a half waits until it is released.
        claim("whole", whole, 1)
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod("whole", PROFILE, {"resourceClaimName": "whole"}))
        assert wait_for(lambda: api.bound(ns).get("whole"), 60, "kubeberth to bind the whole GPU") == node
        claim("one-half", half, 1)
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod("one-half", PROFILE, {"resourceClaimName": "one-half"}))
        wait_for(lambda: any("cannot allocate all claims" in (e.get("note") or "") for e in api.events(ns)
                             if (e.get("regarding") or {}).get("name") == "one-half"), 30, "a FailedScheduling event")
        assert "one-half" not in api.bound(ns)
        api.delete_pod(ns, "whole")
        wait_for(lambda: api.pod(ns, "whole") is None, 20, "the whole-GPU pod deleted")
        _release(api, ns, "whole")
        assert wait_for(lambda: api.bound(ns).get("one-half"), 60, "a half once the whole GPU is released") == node
        api.delete_pod(ns, "one-half")
        _release(api, ns, "one-half")
    finally:
        for body in slices:
            api.call("DELETE", f"{RESOURCE}/resourceslices/{body['metadata']['name']}", ok=(200, 404))
        api.call("DELETE", f"{RESOURCE}/deviceclasses/{cls}", ok=(200, 404))


TAINT_DRIVER = "taints.e2e.example.com"


def test_device_taint_rule_blocks_device_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str,
                                                             nodes: list[str], start_kubeberth: Any) -> None:
    """DRADeviceTaintRules (GA in v1.37), as test/integration/dra's testNoScheduleRule: a DeviceTaintRule
    (created before the slice) with a NoSchedule taint on a node's only device keeps a claim for it
    unallocated (FailedScheduling: cannot allocate all claims) while a claim tolerating the taint gets
    it; deleting the rule retries the waiting pod (the slice's device lost a taint: a ResourceSlice
    update), which then gets the device. kubeberth (with config/rbac.yaml's list/watch on
    devicetaintrules) and kube-scheduler v1.37.2 in turn, on the same device."""
    sfx = suffix()
    ns = namespace
    node = f"dra-taint-{sfx}"
    api.create_node(node, "8", "16Gi")
    nodes.append(node)
    cls = f"tainted-{sfx}"
    api.call("POST", f"{RESOURCE}/deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                                   "metadata": {"name": cls},
                                                   "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{TAINT_DRIVER}"'}}]}})
    rule_name = f"maintenance-{sfx}"
    taint = {"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": rule_name},
            "spec": {"deviceSelector": {"driver": TAINT_DRIVER, "pool": node}, "taint": taint}}
    api.call("POST", f"{RESOURCE}/devicetaintrules", rule)
    body = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{TAINT_DRIVER}"},
            "spec": {"driver": TAINT_DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [_gpu("gpu-0", "t4", "16Gi")]}}
    api.call("POST", f"{RESOURCE}/resourceslices", body)
    tolerating = _claim_spec(cls=cls)
    tolerating["devices"]["requests"][0]["exactly"]["tolerations"] = [
        {"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]

    def run(name: str, scheduler: str, spec: dict[str, Any]) -> None:
        api.call("POST", f"{RESOURCE}/namespaces/{ns}/resourceclaims",
                 {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name}, "spec": spec})
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(name, scheduler, {"resourceClaimName": name}))

    def done(name: str) -> None:
        api.delete_pod(ns, name)
        wait_for(lambda: api.pod(ns, name) is None, 20, f"{name} deleted")
        _release(api, ns, name)

    try:
        start_kubeberth()
        seen: dict[str, Any] = {}
        for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
            if prefix == "d":
                api.call("POST", f"{RESOURCE}/devicetaintrules", rule)
            name = f"{prefix}-untolerating"
            run(name, scheduler, _claim_spec(cls=cls))
            wait_for(lambda n=name: any("cannot allocate all claims" in (e.get("note") or "") for e in api.events(ns)
                                        if (e.get("regarding") or {}).get("name") == n), 30,
                     f"{scheduler}'s FailedScheduling event for {name}")
            run(f"{prefix}-tolerating", scheduler, tolerating)
            assert wait_for(lambda p=f"{prefix}-tolerating": api.bound(ns).get(p), 30,
                            f"{scheduler} to bind the tolerating pod") == node
            assert name not in api.bound(ns)
            done(f"{prefix}-tolerating")
            api.call("DELETE", f"{RESOURCE}/devicetaintrules/{rule_name}")
            bound = wait_for(lambda n=name: api.bound(ns).get(n), 30, f"{scheduler} to bind {name} once the rule is gone")
            results = api.call("GET", f"{RESOURCE}/namespaces/{ns}/resourceclaims/{name}")["status"]["allocation"]["devices"]["results"]
            seen[scheduler] = (bound, [(r["pool"], r["device"]) for r in results])
            done(name)
        assert seen[PROFILE] == seen["default-scheduler"] == (node, [(node, "gpu-0")]), seen
    finally:
        api.call("DELETE", f"{RESOURCE}/devicetaintrules/{rule_name}", ok=(200, 404))
        api.call("DELETE", f"{RESOURCE}/resourceslices/{body['metadata']['name']}", ok=(200, 404))
        api.call("DELETE", f"{RESOURCE}/deviceclasses/{cls}", ok=(200, 404))

"""NodeResourcesFit and NodeResourcesBalancedAllocation with extended resources backed by DRA
(DRAExtendedResource), on the embedded cluster and on the device counts they score from.

kube-scheduler's own cases are in test_node_resources_fit_upstream.py / _scoring_upstream.py;
these cover what those tables do not: a real scheduler with DeviceClasses and ResourceSlices,
the DeviceClass requeue, batching, and the node-independent slice kinds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth.api.device_counts import DeviceCounts
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, cluster_of, make_node, make_pod

GPU = "example.com/gpu"


def device_class(name: str, extended: str | None = None, *selectors: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if extended is not None:
        spec["extendedResourceName"] = extended
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def resource_slice(name: str, driver: str, *devices: dict[str, Any] | str, **placement: Any) -> dict[str, Any]:
    """A slice of pool `name`; `placement` is nodeName=..., allNodes=True, nodeSelector=... or
    perDeviceNodeSelection=True."""
    listed = [{"name": d} if isinstance(d, str) else d for d in devices]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "pool": {"name": name, "resourceSliceCount": 1}, "devices": listed, **placement}}


def allocated_claim(name: str, driver: str, pool: str, *devices: str) -> dict[str, Any]:
    results = [{"request": "req-1", "driver": driver, "pool": pool, "device": d} for d in devices]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": "gpu"}}]}},
            "status": {"allocation": {"devices": {"results": results}}}}


NODES = [make_node("a"), make_node("b"), make_node("c")]
SLICES = [resource_slice("a-gpus", "gpu.example.com", "g0", "g1", nodeName="a"),
          resource_slice("b-gpus", "gpu.example.com", "g0", nodeName="b")]


def test_a_dra_backed_extended_resource_passes_fit_on_an_embedded_cluster() -> None:
    objects = [*NODES, device_class("gpu", GPU), *SLICES]
    with SchedulerTester(["NodeResourcesFit"], objects=objects) as t:
        ev = t.evaluate(make_pod("p", "100m", requests={GPU: 1}))
        # No node advertises the resource: NodeResourcesFit leaves it to DynamicResources everywhere.
        assert ev.reasons == {"a": None, "b": None, "c": None}
        # The class's implicit name is served too.
        ev = t.evaluate(make_pod("q", "100m", requests={"deviceclass.resource.kubernetes.io/gpu": 1}))
        assert ev.reasons == {"a": None, "b": None, "c": None}
        # A resource no class serves is still checked against allocatable, with kube-scheduler's reason.
        ev = t.evaluate(make_pod("r", "100m", requests={"example.com/tpu": 1}))
        assert ev.reasons == dict.fromkeys("abc", "Insufficient example.com/tpu")


def test_without_a_device_class_the_resource_is_insufficient() -> None:
    with SchedulerTester(["NodeResourcesFit"], objects=[*NODES, *SLICES]) as t:
        ev = t.evaluate(make_pod("p", "100m", requests={GPU: 1}))
        assert ev.reasons == dict.fromkeys("abc", "Insufficient example.com/gpu")


def test_a_node_advertising_the_resource_is_checked_as_a_device_plugin_resource() -> None:
    nodes = [make_node("a", extra={GPU: 1}), make_node("b")]
    with SchedulerTester(["NodeResourcesFit"], objects=[*nodes, device_class("gpu", GPU)]) as t:
        ev = t.evaluate(make_pod("p", "100m", requests={GPU: 2}))
        assert ev.reasons == {"a": "Insufficient example.com/gpu", "b": None}


def test_a_device_class_added_later_retries_the_pod() -> None:
    with SchedulerTester(["NodeResourcesFit"], objects=[*NODES, *SLICES]) as t:
        assert t.schedule(make_pod("p", "100m", requests={GPU: 1})) == {"p": None}
        t.add(device_class("gpu", GPU))
        t.settle()
        assert t.node_of("default/p") in {"a", "b", "c"}


def test_pods_with_dra_backed_extended_resources_are_not_signed() -> None:
    objects = [*NODES, device_class("gpu", GPU), *SLICES]
    with SchedulerTester(["NodeResourcesFit", "NodeResourcesBalancedAllocation"], objects=objects) as t:
        t.sync()
        signature, why = t.framework.sign_pod(PodInfo.from_dict(make_pod("p", "100m", requests={GPU: 1})), t.cluster)
        assert signature is None
        assert why.endswith("signature disabled when dra extended resources are used in the cluster")
        signature, why = t.framework.sign_pod(PodInfo.from_dict(make_pod("q", "100m")), t.cluster)
        assert signature is not None and why == ""


def test_scores_count_the_class_devices_and_those_allocated() -> None:
    """Scored over the GPU only: a has 4 devices (1 allocated), b 1 (free), c none (not scored)."""
    more = resource_slice("a-more", "gpu.example.com", "h0", "h1", nodeName="a")
    objects = [*NODES, device_class("gpu", GPU), *SLICES, more, allocated_claim("taken", "gpu.example.com", "a-gpus", "g0")]
    for strategy, expected in (
        ("MostAllocated", {"a": 50, "b": 100, "c": 0}),  # a: (1 + 1) * 100 / 4; b: (0 + 1) * 100 / 1
        ("LeastAllocated", {"a": 50, "b": 0, "c": 0}),  # a: (4 - 2) * 100 / 4; b: (1 - 1) * 100 / 1
    ):
        args = {"NodeResourcesFit": {"scoringStrategy": {"type": strategy, "resources": [{"name": GPU, "weight": 1}]}}}
        with SchedulerTester(["NodeResourcesFit"], args=args, objects=objects) as t:
            assert t.evaluate(make_pod("p", "100m", requests={GPU: 1})).scores["NodeResourcesFit"] == expected


def test_balanced_allocation_counts_the_class_devices() -> None:
    """cpu and the GPU: on a the pod moves the GPU fraction 0 -> 1/2 next to cpu 1/4 (balance 87 -> 87)."""
    nodes = [make_node("a", cpu="4"), make_node("b", cpu="4")]
    objects = [*nodes, device_class("gpu", GPU), resource_slice("a-gpus", "gpu.example.com", "g0", "g1", nodeName="a")]
    args = {"NodeResourcesBalancedAllocation": {"resources": [{"name": "cpu"}, {"name": GPU}]}}
    with SchedulerTester(["NodeResourcesBalancedAllocation"], args=args, objects=objects) as t:
        ev = t.evaluate(make_pod("p", "1", requests={GPU: 1}))
        # a: with the pod cpu 1/4, gpu 1/2: std 1/8 -> 87; without: cpu 0, gpu 0 -> 100: 50 + (50 + 87 - 100) / 2 = 68
        # b: the GPU is not scored (no devices), cpu alone: 100 -> 100: 75
        assert ev.scores["NodeResourcesBalancedAllocation"] == {"a": 68, "b": 75}


# ---- the device counts, node-independent slices -----------------------------------------------
def totals(objects: list[dict[str, Any]], cls: dict[str, Any]) -> dict[str, tuple[int, int]]:
    cluster = cluster_of(objects)
    names = [n["metadata"]["name"] for n in objects if n.get("kind") == "Node"]
    rows = np.asarray([cluster.table.row_of[n] for n in names], dtype=np.int64)
    capacity, allocated = DeviceCounts().totals(cluster, cls, rows)
    return {n: (int(c), int(a)) for n, c, a in zip(names, capacity, allocated, strict=True)}


ZONED = [make_node("a", labels={"zone": "x"}), make_node("b", labels={"zone": "y"}), make_node("c")]
IN_X = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["x"]}]}]}


@pytest.mark.parametrize(
    ("slices", "expected"),
    [
        ([resource_slice("all", "d", "g0", "g1", allNodes=True)], {"a": (2, 1), "b": (2, 1), "c": (2, 1)}),
        ([resource_slice("all", "d", "g0", "g1", nodeSelector=IN_X)], {"a": (2, 1), "b": (0, 0), "c": (0, 0)}),
        ([resource_slice("all", "d", {"name": "g0", "nodeName": "b"}, {"name": "g1", "allNodes": True},
                         {"name": "g2", "nodeSelector": IN_X}, {"name": "g3"}, perDeviceNodeSelection=True)],
         {"a": (2, 0), "b": (2, 1), "c": (1, 0)}),
        ([resource_slice("all", "d", "g0", nodeSelector={"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Bogus", "values": ["x"]}]}]})],
         {"a": (0, 0), "b": (0, 0), "c": (0, 0)}),
    ],
    ids=["allNodes", "nodeSelector", "perDeviceNodeSelection", "unparsable-node-selector"],
)
def test_node_independent_slices(slices: list[dict[str, Any]], expected: dict[str, tuple[int, int]]) -> None:
    claim = allocated_claim("taken", "d", "all", "g0")
    assert totals([*ZONED, *slices, claim], device_class("gpu", GPU)) == expected


def test_class_selectors_pick_devices_and_a_failing_selector_zeroes_the_node() -> None:
    devices = [{"name": "big", "attributes": {"mem": {"int": 16}}}, {"name": "small", "attributes": {"mem": {"int": 4}}}]
    objects = [*ZONED, resource_slice("a", "d", *devices, nodeName="a"), resource_slice("b", "other", "x", nodeName="b")]
    assert totals(objects, device_class("gpu", GPU, 'device.attributes["d"].mem >= 8')) == {
        "a": (1, 0), "b": (0, 0), "c": (0, 0)}
    assert totals(objects, device_class("gpu", GPU, 'device.driver == "other"')) == {"a": (0, 0), "b": (1, 0), "c": (0, 0)}
    # "other"'s device has no `mem`: that error fails node b only.
    assert totals(objects, device_class("gpu", GPU, 'device.attributes["d"].mem >= 0')) == {
        "a": (2, 0), "b": (0, 0), "c": (0, 0)}


def test_counts_follow_claims_slices_in_flight_allocations_and_node_labels() -> None:
    """The per-row answer is kept between calls and rebuilt from what changed."""
    cls = device_class("gpu", GPU)
    cluster = cluster_of([*ZONED, cls, resource_slice("a", "d", "g0", "g1", nodeName="a"),
                          resource_slice("x", "d", "h0", nodeSelector=IN_X)])
    counts = DeviceCounts()
    rows = np.asarray([cluster.table.row_of[n] for n in "abc"], dtype=np.int64)

    def now() -> list[tuple[int, int]]:
        capacity, allocated = counts.totals(cluster, cls, rows)
        return list(zip(capacity.tolist(), allocated.tolist(), strict=True))

    assert now() == [(3, 0), (0, 0), (0, 0)]
    cluster.upsert_object("ResourceClaim", allocated_claim("c1", "d", "a", "g1"))
    assert now() == [(3, 1), (0, 0), (0, 0)]
    held = allocated_claim("c2", "d", "x", "h0")
    cluster.devices.assume_allocation("c2", "default/c2", held, "pod-uid")
    assert now() == [(3, 2), (0, 0), (0, 0)]
    cluster.devices.release("c2", "pod-uid")
    assert now() == [(3, 1), (0, 0), (0, 0)]
    cluster.upsert_object("ResourceSlice", resource_slice("a", "d", "g0", "g1", "g2", nodeName="a"))
    assert now() == [(4, 1), (0, 0), (0, 0)]
    cluster.upsert_node(make_node("b", labels={"zone": "x"}))  # b now matches the selector slice
    assert now() == [(4, 1), (1, 0), (0, 0)]
    cluster.remove_object("ResourceClaim", allocated_claim("c1", "d", "a", "g1"))
    assert now() == [(4, 0), (1, 0), (0, 0)]

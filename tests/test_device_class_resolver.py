"""Which DeviceClass serves a DRA-backed extended resource: k8s.io/dynamic-resource-allocation
v0.37.2's extendedresourcecache tests, ported verbatim onto the cluster cache that informers feed
(`ClusterState.upsert_object` / `remove_object`, read through `cluster.devices`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kubeberth.cache.cluster import ClusterState

NOW = datetime(2026, 11, 24, 3, 0, 0, tzinfo=UTC)


def device_class(name: str, extended: str | None = None, created: datetime | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if created is not None:
        meta["creationTimestamp"] = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    spec: dict[str, Any] = {} if extended is None else {"extendedResourceName": extended}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta, "spec": spec}


def class_name(cluster: ClusterState, resource: str) -> str | None:
    found = cluster.devices.device_class_for(resource)
    return None if found is None else found["metadata"]["name"]


def test_nil() -> None:
    """TestNil: an empty cache resolves nothing."""
    assert ClusterState().devices.device_class_for("example.com/gpu") is None


def test_handlers() -> None:
    """TestHandlers: what the cache answers after add, update and delete (kubeberth has no handler
    chain: the cache is read after each event)."""
    cluster = ClusterState()
    cls = device_class("gpu-class", "example.com/gpu")
    cluster.upsert_object("DeviceClass", cls)
    assert class_name(cluster, "example.com/gpu") == "gpu-class"
    updated = device_class("gpu-class")
    cluster.upsert_object("DeviceClass", updated)
    assert cluster.devices.device_class_for("example.com/gpu") is None
    cluster.remove_object("DeviceClass", updated)
    assert cluster.devices.device_class_for("example.com/gpu") is None


def test_extended_resource_cache() -> None:
    """TestExtendedResourceCache."""
    cluster = ClusterState()
    class1 = device_class("gpu-class", "example.com/gpu", NOW)
    class2 = device_class("fpga-class")
    class3 = device_class("gpu-class-3", "example.com/gpu", NOW - timedelta(hours=24))
    class4 = device_class("gpu-class-4", "example.com/gpu", NOW + timedelta(hours=1))
    class0 = device_class("gpu-class-0", "example.com/gpu", NOW + timedelta(hours=1))

    cluster.upsert_object("DeviceClass", class1)
    cluster.upsert_object("DeviceClass", class2)
    assert class_name(cluster, "example.com/gpu") == "gpu-class"  # explicit mapping
    assert class_name(cluster, "deviceclass.resource.kubernetes.io/fpga-class") == "fpga-class"  # default
    assert class_name(cluster, "deviceclass.resource.kubernetes.io/gpu-class") == "gpu-class"

    cluster.upsert_object("DeviceClass", class3)  # older than class1: does not replace it
    assert class_name(cluster, "example.com/gpu") == "gpu-class"

    cluster.upsert_object("DeviceClass", class4)  # newer than class1: replaces it
    assert class_name(cluster, "example.com/gpu") == "gpu-class-4"

    cluster.upsert_object("DeviceClass", class0)  # as new as class4, lower name: replaces it
    assert class_name(cluster, "example.com/gpu") == "gpu-class-0"

    modified = device_class("gpu-class-0", "test.com/gpu", NOW + timedelta(hours=1))
    cluster.upsert_object("DeviceClass", modified)
    assert class_name(cluster, "test.com/gpu") == "gpu-class-0"
    assert cluster.devices.device_class_for("example.com/gpu") is None

    cluster.remove_object("DeviceClass", modified)
    assert cluster.devices.device_class_for("test.com/gpu") is None
    assert cluster.devices.device_class_for("deviceclass.resource.kubernetes.io/gpu-class-0") is None


def test_device_class_mapping() -> None:
    """TestDeviceClassMapping."""
    cluster = ClusterState()
    cluster.upsert_object("DeviceClass", device_class("gpu-class", "example.com/gpu"))
    cluster.upsert_object("DeviceClass", device_class("tpu-class"))
    assert cluster.devices.extended_resource_of("gpu-class") == "example.com/gpu"
    assert cluster.devices.extended_resource_of("tpu-class") == ""

    modified = device_class("gpu-class", "my.com/gpu")
    cluster.upsert_object("DeviceClass", modified)
    assert cluster.devices.extended_resource_of("gpu-class") == "my.com/gpu"

    cluster.remove_object("DeviceClass", modified)
    assert cluster.devices.extended_resource_of("gpu-class") == ""

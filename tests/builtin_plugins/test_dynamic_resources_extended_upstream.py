"""kube-scheduler v1.37.2's extendeddynamicresources_test.go, ported verbatim: the device requests
and container mappings DynamicResources builds for DRA-backed extended resources
(createRequestsAndMappings), same pods, classes and expected values; plus what the plugin does
around them that upstream's table does not pin down (node split, skipping pods without them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import st
from kubeberth import FeatureGates
from kubeberth.builtin_plugins.dynamic_resources.extended import (
    create_requests_and_mappings,
    is_dra_extended_resource_name,
    split_nodes,
)
from kubeberth.builtin_plugins.dynamic_resources.plugin import DynamicResources
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo

podName, podUID, namespace = "my-pod", "1234", "default"
extendedResourceName = "example.com/gpu"
ResourceDeviceClassPrefix = "deviceclass.resource.kubernetes.io/"


def _class(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}}


def _resolver(mapping: dict[str, dict[str, Any]] | None):  # mockDeviceClassResolver
    return lambda name: (mapping or {}).get(name)


def _pod() -> st.PodWrapper:
    return st.MakePod().Name(podName).Namespace(namespace).UID(podUID)


# ---- Test_createRequestsAndMappings_requests -------------------------------------------------
pod1 = _pod().Res({extendedResourceName: "1", extendedResourceName + "1": "2"}).Obj()
pod2 = _pod().Res({extendedResourceName: "1"}).Res({extendedResourceName + "1": "2"}).Obj()
podInit = _pod().Res({extendedResourceName: "1"}).InitReq({extendedResourceName + "init": "2"}).Obj()
podInit2 = (_pod().Res({extendedResourceName: "1"}).InitReq({extendedResourceName + "init": "1"})
            .InitReq({extendedResourceName + "init": "2"}).Obj())
podInit3 = (_pod().Res({extendedResourceName: "1"}).InitReq({extendedResourceName + "init": "1"})
            .SidecarReq({extendedResourceName + "init": "1"}).InitReq({extendedResourceName + "init": "2"}).Obj())
res = {extendedResourceName: 1}
res2 = {extendedResourceName: 1, extendedResourceName + "1": 2}
resInit = {extendedResourceName: 1, extendedResourceName + "init": 2}
devMap = {extendedResourceName: _class("class")}
devMap2 = {extendedResourceName: _class("class"), extendedResourceName + "1": _class("class1")}
devMapInit = {extendedResourceName: _class("class"), extendedResourceName + "init": _class("classInit")}


def _req(name: str, class_name: str, count: int) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}}


devReq = _req("container-0-request-0", "class", 1)
devReq2 = _req("container-0-request-1", "class1", 2)
devReq3 = _req("container-1-request-0", "class1", 2)
devReqInit = _req("container-1-request-0", "class", 1)
devReqSidecar = _req("container-1-request-0", "classInit", 1)
devReq2Init = _req("container-1-request-0", "classInit", 2)
devReq6Init = _req("container-0-request-0", "classInit", 2)
devReq3Init = _req("container-2-request-0", "class", 1)
devReq4Init = _req("container-3-request-0", "class", 1)
devReq5Init = _req("container-2-request-0", "classInit", 2)

REQUESTS: dict[str, dict[str, Any]] = {
    "Test_createRequestsAndMappings_requests/nil": {"pod": pod1, "want": []},
    "Test_createRequestsAndMappings_requests/one resource match": {
        "pod": pod1, "extendedResources": res, "cache": devMap, "want": [devReq]},
    "Test_createRequestsAndMappings_requests/one resource match, one resource not match": {
        "pod": pod1, "extendedResources": res2, "cache": devMap, "want": [devReq]},
    "Test_createRequestsAndMappings_requests/two resources match": {
        "pod": pod1, "extendedResources": res2, "cache": devMap2, "want": [devReq, devReq2]},
    "Test_createRequestsAndMappings_requests/two containers match": {
        "pod": pod2, "extendedResources": res2, "cache": devMap2, "want": [devReq, devReq3]},
    "Test_createRequestsAndMappings_requests/one init container, one regular container": {
        "pod": podInit, "extendedResources": resInit, "cache": devMapInit, "want": [devReq6Init, devReqInit]},
    "Test_createRequestsAndMappings_requests/two init containers, one regular container": {
        "pod": podInit2, "extendedResources": resInit, "cache": devMapInit, "want": [devReq2Init, devReq3Init]},
    "Test_createRequestsAndMappings_requests/three init containers, one sidecar, one regular container": {
        "pod": podInit3, "extendedResources": resInit, "cache": devMapInit,
        "want": [devReqSidecar, devReq5Init, devReq4Init]},
}


@pytest.mark.parametrize("case", sorted(REQUESTS), ids=lambda c: c.split("/", 1)[1])
def test_create_requests_and_mappings_requests(case: str) -> None:
    tc = REQUESTS[case]
    got, _ = create_requests_and_mappings(tc["pod"], tc.get("extendedResources") or {}, _resolver(tc.get("cache")))
    assert got == tc["want"]


# ---- Test_createRequestsAndMappings_mappings -------------------------------------------------
pod1InitImplicit = _pod().InitReq({extendedResourceName + "init": "1", ResourceDeviceClassPrefix + "classInit": "2"}).Obj()
podInitImplicit = (_pod().Res({extendedResourceName: "1"}).InitReq({extendedResourceName + "init": "1"})
                   .InitReq({ResourceDeviceClassPrefix + "classInit": "2"}).Obj())
resM = {extendedResourceName: 1, extendedResourceName + "1": 2}
resInitImplicit = {extendedResourceName: 1, extendedResourceName + "init": 2, ResourceDeviceClassPrefix + "classInit": 2}
devMapInitM = {**devMapInit, ResourceDeviceClassPrefix + "classInit": _class("classInit")}


def _cer(container: str, resource: str, request: str) -> dict[str, str]:
    return {"containerName": container, "resourceName": resource, "requestName": request}


cer = _cer("con0", extendedResourceName, "container-0-request-0")
cer1 = _cer("con0", extendedResourceName + "1", "container-0-request-1")
cer2 = _cer("con1", extendedResourceName + "1", "container-1-request-0")
cer3 = _cer("con0", extendedResourceName, "container-1-request-0")
cer4 = _cer("con0", extendedResourceName, "container-2-request-0")
cer5 = _cer("con0", extendedResourceName, "container-3-request-0")
cerInit = _cer("init-con0", extendedResourceName + "init", "container-1-request-0")
cerInit0 = _cer("init-con0", extendedResourceName + "init", "container-0-request-0")
cerInit1 = _cer("init-con0", extendedResourceName + "init", "container-1-request-0")
cerInit2 = _cer("init-con1", extendedResourceName + "init", "container-1-request-0")
cerInit3 = _cer("init-con2", extendedResourceName + "init", "container-2-request-0")
cerSidecar = _cer("sidecar-con1", extendedResourceName + "init", "container-1-request-0")
cerInitImplicit = _cer("init-con0", extendedResourceName + "init", "container-0-request-0")
cerInit4Implicit = _cer("init-con0", extendedResourceName + "init", "container-0-request-1")
cerInit2Implicit = _cer("init-con1", ResourceDeviceClassPrefix + "classInit", "container-1-request-0")
cerInit3Implicit = _cer("init-con0", ResourceDeviceClassPrefix + "classInit", "container-0-request-0")

MAPPINGS: dict[str, dict[str, Any]] = {
    "Test_createRequestsAndMappings_mappings/one container, two requests": {
        "pod": pod1, "extnededResources": resM, "deviceClassMapping": devMap2, "want": [cer, cer1]},
    "Test_createRequestsAndMappings_mappings/one container, one explicit and one implicit request": {
        "pod": pod1InitImplicit, "extnededResources": resInitImplicit, "deviceClassMapping": devMapInitM,
        "want": [cerInit3Implicit, cerInit4Implicit]},
    "Test_createRequestsAndMappings_mappings/two containers, two requests": {
        "pod": pod2, "extnededResources": resM, "deviceClassMapping": devMap2, "want": [cer, cer2]},
    "Test_createRequestsAndMappings_mappings/one init container, one regular container, one request": {
        "pod": podInit, "extnededResources": resInit, "deviceClassMapping": devMapInitM, "want": [cerInit0, cer3]},
    "Test_createRequestsAndMappings_mappings/three containers (two are init container), two requests": {
        "pod": podInit2, "extnededResources": resInit, "deviceClassMapping": devMapInitM,
        "want": [cerInit, cerInit2, cer4]},
    "Test_createRequestsAndMappings_mappings/three containers (two are init container), both explicit and implicit resources": {
        "pod": podInitImplicit, "extnededResources": resInitImplicit, "deviceClassMapping": devMapInitM,
        "want": [cerInitImplicit, cerInit2Implicit, cer4]},
    "Test_createRequestsAndMappings_mappings/four containers (two are init container, one sidecar), three requests": {
        "pod": podInit3, "extnededResources": resInit, "deviceClassMapping": devMapInitM,
        "want": [cerInit1, cerSidecar, cerInit3, cer5]},
}


@pytest.mark.parametrize("case", sorted(MAPPINGS), ids=lambda c: c.split("/", 1)[1])
def test_create_requests_and_mappings_mappings(case: str) -> None:
    tc = MAPPINGS[case]
    _, got = create_requests_and_mappings(tc["pod"], tc["extnededResources"], _resolver(tc["deviceClassMapping"]))
    got.sort(key=lambda m: (m["requestName"], m["containerName"]))
    assert got == tc["want"]


# ---- kubeberth: the node split and the cost for everyone else ----------------------------------
def test_dra_extended_resource_names() -> None:
    """schedutil.IsDRAExtendedResourceName."""
    assert is_dra_extended_resource_name("example.com/gpu")
    assert is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu")
    assert not is_dra_extended_resource_name("cpu")
    assert not is_dra_extended_resource_name("hugepages-2Mi")
    assert not is_dra_extended_resource_name("kubernetes.io/batch")
    assert not is_dra_extended_resource_name("requests.example.com/gpu")


def test_split_nodes_by_allocatable() -> None:
    """DRA serves a resource where the node's allocatable is 0 and a class exists; the device
    plugin where allocatable is positive; a resource no class serves must be advertised."""
    cluster = ClusterState()
    cluster.upsert_node(st.MakeNode().Name("plugin").Capacity({"example.com/gpu": "2", "example.com/nic": "1"}).Obj())
    cluster.upsert_node(st.MakeNode().Name("dra").Capacity({"example.com/nic": "0"}).Obj())
    cluster.upsert_node(st.MakeNode().Name("bare").Capacity({}).Obj())
    table = cluster.table
    nodes = table.view(np.asarray([table.row_of[n] for n in ("plugin", "dra", "bare")], dtype=np.int64))
    classes = {"example.com/gpu": _class("gpu")}
    cannot_fit, group_of, groups = split_nodes({"example.com/gpu": 1, "example.com/nic": 1, "cpu": 100}, nodes,
                                               classes.get)
    assert cannot_fit.tolist() == [False, False, True]  # "bare" does not advertise example.com/nic
    assert [groups[g] for g in group_of.tolist()] == [frozenset(), {"example.com/gpu"}, {"example.com/gpu"}]


def test_pods_without_extended_resources_skip() -> None:
    """A pod without claims skips PreFilter, with or without DeviceClasses in the cluster."""
    plugin = DynamicResources(feature_gates=FeatureGates())
    cluster = ClusterState()
    pod = PodInfo.from_dict(_pod().Req({"cpu": "1", "example.com/other": "1"}).Obj())
    state: dict[str, Any] = {}
    assert plugin.pre_filter(state, pod, cluster).code.name == "SKIP"
    cluster.upsert_object("DeviceClass", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                          "metadata": {"name": "gpu"}, "spec": {"extendedResourceName": "example.com/gpu"}})
    assert plugin.pre_filter(state, pod, cluster).code.name == "SKIP"
    gpu = PodInfo.from_dict(_pod().Req({"example.com/gpu": "1"}).Obj())
    assert plugin.pre_filter(state, gpu, cluster) is None

"""NodeResources scoring: kube-scheduler v1.37.2's least_allocated, most_allocated, requested_to_capacity_ratio
and balanced_allocation test tables, case by case (raw Score, as the Go tests read it)."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import Status
from kubeberth.api.signing import RESOURCES_SIGNER, resources_signer
from kubeberth.api.signing import SignFragment as KbSignFragment
from kubeberth.builtin_plugins.node_resources_balanced_allocation import (
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
)
from kubeberth.builtin_plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
    ResourceAllocationScorer,
)
from kubeberth.cache.podinfo import PodInfo
from pydantic import ValidationError
from st import fwk, resource, v1
from upstream import cases, run_score, snapshot


class config:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/apis/config
    LeastAllocated = "LeastAllocated"
    MostAllocated = "MostAllocated"
    RequestedToCapacityRatio = "RequestedToCapacityRatio"


class field:  # noqa: N801 - k8s.io/apimachinery/pkg/util/validation/field
    ErrorTypeInvalid = "FieldValueInvalid"


def field_ErrorList(*errs: dict[str, Any]) -> list[dict[str, Any]]:
    return list(errs)


string = str


class util:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/util
    DefaultMilliCPURequest = 100
    DefaultMemoryRequest = 200 * 1024 * 1024
v1.ResourceName = str  # type: ignore[attr-defined]
extendedResourceName = "extended.resource.dra.io/something"
extendedResourceDRA = extendedResourceName
deviceClassWithExtendResourceName = {"kind": "DeviceClass", "metadata": {"name": "device-class-name"},
                                     "spec": {"extendedResourceName": extendedResourceName}}
defaultResources = [{"name": v1.ResourceCPU, "weight": 1}, {"name": v1.ResourceMemory, "weight": 1}]
extendedRes = "abc.com/xyz"
extendedResourceSet = [*defaultResources, {"name": extendedRes, "weight": 1}]


def makeNode(node: str, milliCPU: int, memory: int, extendedResource: dict[str, int] | None) -> dict[str, Any]:
    resources = {name: str(q) for name, q in (extendedResource or {}).items()}
    resources[v1.ResourceCPU] = f"{milliCPU}m"
    resources[v1.ResourceMemory] = str(memory)
    return {"kind": "Node", "metadata": {"name": node}, "status": {"capacity": resources, "allocatable": resources}}


def cpuOnly(req: str) -> dict[str, str]:
    return {v1.ResourceCPU: req}


def cpuAndMemory(cpuReq: str, memoryReq: str) -> dict[str, str]:
    return {v1.ResourceCPU: cpuReq, v1.ResourceMemory: memoryReq}


def cpuAndMemoryAndGpu(cpuReq: str, memoryReq: str, gpuReq: str) -> dict[str, str]:
    return {v1.ResourceCPU: cpuReq, v1.ResourceMemory: memoryReq, "nvidia.com/gpu": gpuReq}


def gpu(count: int) -> dict[str, int]:
    return {"nvidia.com/gpu": count}


def scores(got: dict[str, int]) -> list[dict[str, Any]]:
    return [{"name": n, "score": s} for n, s in got.items()]


TestLeastAllocatedScoringStrategy = [
    {
        "name": "TestLeastAllocatedScoringStrategy/nothing scheduled, nothing requested",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [
            {"name": "node1", "score": fwk.MaxNodeScore},
            {"name": "node2", "score": fwk.MaxNodeScore},
        ],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 37}, {"name": "node2", "score": 50}],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/Resources not set, pods scheduled with error",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [
            {"name": "node1", "score": fwk.MinNodeScore},
            {"name": "node2", "score": fwk.MinNodeScore},
        ],
        "resources": None,
        "wantStatusCode": fwk.Error,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/no resources requested, pods scheduled",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Obj(),
            st.MakePod().Node("node1").Obj(),
            st.MakePod().Node("node2").Obj(),
            st.MakePod().Node("node2").Obj(),
        ],
        "expectedScores": [
            {"name": "node1", "score": fwk.MaxNodeScore},
            {"name": "node2", "score": fwk.MaxNodeScore},
        ],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/no resources requested, pods scheduled with resources",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 70}, {"name": "node2", "score": 57}],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/resources requested, pods scheduled with resources",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 57}, {"name": "node2", "score": 45}],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/resources requested, pods scheduled with resources, differently sized nodes",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "50000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 57}, {"name": "node2", "score": 60}],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/requested resources exceed node capacity",
        "requestedPod": st.MakePod().Req({"cpu": "3000", "memory": "0"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 50}, {"name": "node2", "score": 25}],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/zero node resources, pods scheduled with resources",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [st.MakeNode().Name("node1").Obj(), st.MakeNode().Name("node2").Obj()],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [
            {"name": "node1", "score": fwk.MinNodeScore},
            {"name": "node2", "score": fwk.MinNodeScore},
        ],
        "resources": defaultResources,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 41}, {"name": "node2", "score": 50}],
        "resources": [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/resource with negative weight",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[0].weight"}
        ),
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/resource with zero weight",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 41}, {"name": "node2", "score": 50}],
        "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[1].weight"}
        ),
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/resource weight larger than MaxNodeScore",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[1].weight"}
        ),
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/bypass extended resource if the pod does not request",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 50}, {"name": "node2", "score": 50}],
        "resources": extendedResourceSet,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/honor extended resource if the pod requests",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "3000", "memory": "5000", v1.ResourceName(extendedRes): "2"})
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node1")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "10"})
            .Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 50}, {"name": "node2", "score": 60}],
        "resources": extendedResourceSet,
    },
    {
        "name": "TestLeastAllocatedScoringStrategy/if the node doesn't have a resource",
        "requestedPod": st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "4000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 55}, {"name": "node2", "score": 55}],
        "resources": [
            {"name": extendedRes, "weight": 2},
            {"name": string(v1.ResourceCPU), "weight": 1},
            {"name": string(v1.ResourceMemory), "weight": 1},
        ],
    },
]


TestMostAllocatedScoringStrategy = [
    {
        "name": "TestMostAllocatedScoringStrategy/nothing scheduled, nothing requested",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [
            {"name": "node1", "score": fwk.MinNodeScore},
            {"name": "node2", "score": fwk.MinNodeScore},
        ],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 62}, {"name": "node2", "score": 50}],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/Resources not set, pods scheduled with error",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [
            {"name": "node1", "score": fwk.MinNodeScore},
            {"name": "node2", "score": fwk.MinNodeScore},
        ],
        "resources": None,
        "wantStatusCode": fwk.Error,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/no resources requested, pods scheduled with resources",
        "requestedPod": st.MakePod().Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 30}, {"name": "node2", "score": 42}],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/resources requested, pods scheduled with resources",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "20000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "0"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 42}, {"name": "node2", "score": 55}],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/resources requested equal node capacity",
        "requestedPod": st.MakePod()
        .Req({"cpu": "2000", "memory": "4000"})
        .Req({"cpu": "3000", "memory": "5000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "5000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "10000", "memory": "9000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 95}, {"name": "node2", "score": 75}],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/nothing scheduled, resources requested, differently sized nodes",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 58}, {"name": "node2", "score": 50}],
        "resources": [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
    },
    {
        "name": "TestMostAllocatedScoringStrategy/no resources requested, pods scheduled, nonzero request for resource",
        "requestedPod": st.MakePod().Container("container").Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "250m", "memory": "1000Mi"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "250m", "memory": "1000Mi"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Container("container").Obj(),
            st.MakePod().Node("node1").Container("container").Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 80}, {"name": "node2", "score": 30}],
        "resources": defaultResources,
    },
    {
        "name": "TestMostAllocatedScoringStrategy/resource with negative weight",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[0].weight"}
        ),
    },
    {
        "name": "TestMostAllocatedScoringStrategy/resource with zero weight",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[1].weight"}
        ),
    },
    {
        "name": "TestMostAllocatedScoringStrategy/resource weight larger than MaxNodeScore",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj()],
        "resources": [{"name": "memory", "weight": 101}],
        "wantErrs": field_ErrorList(
            {"type": field.ErrorTypeInvalid, "field": "scoringStrategy.resources[0].weight"}
        ),
    },
    {
        "name": "TestMostAllocatedScoringStrategy/bypass extended resource if the pod does not request",
        "requestedPod": st.MakePod()
        .Req({"cpu": "1000", "memory": "2000"})
        .Req({"cpu": "2000", "memory": "3000"})
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
        ],
        "resources": extendedResourceSet,
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 50}, {"name": "node2", "score": 50}],
    },
    {
        "name": "TestMostAllocatedScoringStrategy/honor extended resource if the pod request",
        "requestedPod": st.MakePod()
        .Node("node1")
        .Req({"cpu": "3000", "memory": "5000", v1.ResourceName(extendedRes): "2"})
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node1")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "10"})
            .Obj(),
        ],
        "resources": extendedResourceSet,
        "existingPods": None,
        "expectedScores": [{"name": "node1", "score": 50}, {"name": "node2", "score": 40}],
    },
    {
        "name": "TestMostAllocatedScoringStrategy/if the node doesn't have a resource",
        "requestedPod": st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "4000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            st.MakeNode()
            .Name("node2")
            .Capacity({"cpu": "6000", "memory": "10000", v1.ResourceName(extendedRes): "4"})
            .Obj(),
        ],
        "expectedScores": [{"name": "node1", "score": 45}, {"name": "node2", "score": 45}],
        "resources": [
            {"name": extendedRes, "weight": 2},
            {"name": string(v1.ResourceCPU), "weight": 1},
            {"name": string(v1.ResourceMemory), "weight": 1},
        ],
    },
]


def _TestRequestedToCapacityRatioScoringStrategy() -> Any:
    shape = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    return [
        {
            "name": "TestRequestedToCapacityRatioScoringStrategy/nothing scheduled, nothing requested (default - least requested nodes have priority)",
            "requestedPod": st.MakePod().Obj(),
            "nodes": [
                st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
                st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            ],
            "existingPods": [st.MakePod().Node("node1").Obj(), st.MakePod().Node("node1").Obj()],
            "expectedScores": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
            ],
            "resources": defaultResources,
            "shape": shape,
        },
        {
            "name": "TestRequestedToCapacityRatioScoringStrategy/nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
            "requestedPod": st.MakePod()
            .Req({"cpu": "1000", "memory": "2000"})
            .Req({"cpu": "2000", "memory": "3000"})
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
                st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            ],
            "existingPods": [st.MakePod().Node("node1").Obj(), st.MakePod().Node("node1").Obj()],
            "expectedScores": [{"name": "node1", "score": 38}, {"name": "node2", "score": 50}],
            "resources": defaultResources,
            "shape": shape,
        },
        {
            "name": "TestRequestedToCapacityRatioScoringStrategy/no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
            "requestedPod": st.MakePod().Obj(),
            "nodes": [
                st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
                st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
            ],
            "existingPods": [
                st.MakePod().Node("node1").Req({"cpu": "3000", "memory": "5000"}).Obj(),
                st.MakePod().Node("node2").Req({"cpu": "3000", "memory": "5000"}).Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 38}, {"name": "node2", "score": 50}],
            "resources": defaultResources,
            "shape": shape,
        },
    ]


TestRequestedToCapacityRatioScoringStrategy = _TestRequestedToCapacityRatioScoringStrategy()


def _TestResourceBinPackingSingleExtended() -> Any:
    extendedResource1 = {"intel.com/foo": 4}
    extendedResource2 = {"intel.com/foo": 8}
    extendedResource3 = {"intel.com/foo": "2"}
    extendedResource4 = {"intel.com/foo": "4"}
    return [
        {
            "pod": st.MakePod().Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResource2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResource1),
            ],
            "expectedScores": [{"name": "node1", "score": 0}, {"name": "node2", "score": 0}],
            "name": "TestResourceBinPackingSingleExtended/nothing scheduled, nothing requested",
        },
        {
            "pod": st.MakePod().Req(extendedResource3).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResource2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResource1),
            ],
            "expectedScores": [{"name": "node1", "score": 2}, {"name": "node2", "score": 5}],
            "name": "TestResourceBinPackingSingleExtended/resources requested, pods scheduled with less resources",
            "pods": [st.MakePod().Obj()],
        },
        {
            "pod": st.MakePod().Req(extendedResource3).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResource2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResource1),
            ],
            "expectedScores": [{"name": "node1", "score": 2}, {"name": "node2", "score": 10}],
            "name": "TestResourceBinPackingSingleExtended/resources requested, pods scheduled with resources, on node with existing pod running ",
            "pods": [st.MakePod().Req(extendedResource3).Node("node2").Obj()],
        },
        {
            "pod": st.MakePod().Req(extendedResource4).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResource2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResource1),
            ],
            "expectedScores": [{"name": "node1", "score": 5}, {"name": "node2", "score": 10}],
            "name": "TestResourceBinPackingSingleExtended/resources requested, pods scheduled with more resources",
            "pods": [st.MakePod().Obj()],
        },
    ]


TestResourceBinPackingSingleExtended = _TestResourceBinPackingSingleExtended()


def _TestResourceBinPackingMultipleExtended() -> Any:
    extendedResources1 = {"intel.com/foo": 4, "intel.com/bar": 8}
    extendedResources2 = {"intel.com/foo": 8, "intel.com/bar": 4}
    extendedResourcePod1 = {"intel.com/foo": "2", "intel.com/bar": "2"}
    extendedResourcePod2 = {"intel.com/foo": "4", "intel.com/bar": "2"}
    return [
        {
            "pod": st.MakePod().Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResources2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResources1),
            ],
            "expectedScores": [{"name": "node1", "score": 0}, {"name": "node2", "score": 0}],
            "name": "TestResourceBinPackingMultipleExtended/nothing scheduled, nothing requested",
        },
        {
            "pod": st.MakePod().Req(extendedResourcePod1).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResources2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResources1),
            ],
            "expectedScores": [{"name": "node1", "score": 4}, {"name": "node2", "score": 3}],
            "name": "TestResourceBinPackingMultipleExtended/resources requested, pods scheduled with less resources",
            "pods": [st.MakePod().Obj()],
        },
        {
            "pod": st.MakePod().Req(extendedResourcePod1).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResources2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResources1),
            ],
            "expectedScores": [{"name": "node1", "score": 4}, {"name": "node2", "score": 7}],
            "name": "TestResourceBinPackingMultipleExtended/resources requested, pods scheduled with resources, on node with existing pod running ",
            "pods": [st.MakePod().Req(extendedResourcePod2).Node("node2").Obj()],
        },
        {
            "pod": st.MakePod().Req(extendedResourcePod2).Obj(),
            "nodes": [
                makeNode("node1", 4000, 10000 * 1024 * 1024, extendedResources2),
                makeNode("node2", 4000, 10000 * 1024 * 1024, extendedResources1),
            ],
            "expectedScores": [{"name": "node1", "score": 5}, {"name": "node2", "score": 5}],
            "name": "TestResourceBinPackingMultipleExtended/resources requested, pods scheduled with more resources",
            "pods": [st.MakePod().Obj()],
        },
    ]


TestResourceBinPackingMultipleExtended = _TestResourceBinPackingMultipleExtended()


def _TestNodeResourcesBalancedAllocation() -> Any:
    defaultResourceBalancedAllocationSet = [
        {"name": string(v1.ResourceCPU), "weight": 1},
        {"name": string(v1.ResourceMemory), "weight": 1},
    ]
    return [
        {
            "name": "TestNodeResourcesBalancedAllocation/nothing scheduled, nothing requested, skip in PreScore",
            "requestedPod": st.MakePod().Obj(),
            "nodes": [makeNode("node1", 4000, 10000, None), makeNode("node2", 4000, 10000, None)],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
            "expectedPreScoreStatusCode": fwk.Skip,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/nothing scheduled, resources requested, differently sized nodes",
            "requestedPod": st.MakePod()
            .Req(cpuAndMemory("1000m", "2000"))
            .Req(cpuAndMemory("2000m", "3000"))
            .Obj(),
            "nodes": [makeNode("node1", 4000, 10000, None), makeNode("node2", 6000, 10000, None)],
            "expectedScores": [{"name": "node1", "score": 68}, {"name": "node2", "score": 75}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/resources requested, pods scheduled with resources",
            "requestedPod": st.MakePod()
            .Req(cpuAndMemory("1000m", "2000"))
            .Req(cpuAndMemory("2000m", "3000"))
            .Obj(),
            "nodes": [makeNode("node1", 10000, 20000, None), makeNode("node2", 10000, 20000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 73}, {"name": "node2", "score": 74}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/resources requested, pods scheduled with resources, differently sized nodes",
            "requestedPod": st.MakePod()
            .Req(cpuAndMemory("1000m", "2000"))
            .Req(cpuAndMemory("2000m", "3000"))
            .Obj(),
            "nodes": [makeNode("node1", 10000, 20000, None), makeNode("node2", 10000, 50000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 73}, {"name": "node2", "score": 70}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/resources requested, pods scheduled with resources, nodes to reach min/max score",
            "requestedPod": st.MakePod().Req({"memory": "2000"}).Req({"memory": "3000"}).Obj(),
            "nodes": [makeNode("node1", 3000, 5000, None), makeNode("node2", 3000, 5000, None)],
            "existingPods": [st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj()],
            "expectedScores": [{"name": "node1", "score": 100}, {"name": "node2", "score": 50}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/requested resources at node capacity",
            "requestedPod": st.MakePod().Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
            "nodes": [makeNode("node1", 6000, 10000, None), makeNode("node2", 6000, 10000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 62}, {"name": "node2", "score": 62}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/scalar resource is included in the score computation if pod requests the scalar resource",
            "requestedPod": st.MakePod().Req(cpuAndMemoryAndGpu("0", "0", "1")).Obj(),
            "nodes": [makeNode("node1", 3500, 40000, gpu(8)), makeNode("node2", 3500, 40000, gpu(8))],
            "existingPods": [
                st.MakePod()
                .Node("node1")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemoryAndGpu("2000m", "3000", "3"))
                .Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 75}, {"name": "node2", "score": 76}],
            "args": {
                "resources": [
                    {"name": string(v1.ResourceCPU), "weight": 1},
                    {"name": string(v1.ResourceMemory), "weight": 1},
                    {"name": "nvidia.com/gpu", "weight": 1},
                ]
            },
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/scalar resource is not included in the score computation if pod doesn't request the scalar resource",
            "requestedPod": st.MakePod()
            .Req(cpuAndMemory("1000m", "2000"))
            .Req(cpuAndMemory("2000m", "3000"))
            .Obj(),
            "nodes": [makeNode("node1", 3500, 40000, gpu(8)), makeNode("node2", 3500, 40000, None)],
            "existingPods": [],
            "expectedScores": [{"name": "node1", "score": 56}, {"name": "node2", "score": 56}],
            "args": {
                "resources": [
                    {"name": string(v1.ResourceCPU), "weight": 1},
                    {"name": string(v1.ResourceMemory), "weight": 1},
                    {"name": "nvidia.com/gpu", "weight": 1},
                ]
            },
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/resources requested, pods scheduled with resources if PreScore not called",
            "requestedPod": st.MakePod()
            .Req(cpuAndMemory("1000m", "2000"))
            .Req(cpuAndMemory("2000m", "3000"))
            .Obj(),
            "nodes": [makeNode("node1", 10000, 20000, None), makeNode("node2", 10000, 20000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 73}, {"name": "node2", "score": 74}],
            "args": {"resources": defaultResourceBalancedAllocationSet},
            "runPreScore": False,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/include DRA resource on a node for balanced resource allocation",
            "requestedPod": st.MakePod().Req({extendedResourceDRA: "1"}).Obj(),
            "nodes": [makeNode("node1", 3500, 40000, None), makeNode("node2", 3500, 40000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 76}, {"name": "node2", "score": 75}],
            "args": {
                "resources": [
                    {"name": string(v1.ResourceCPU), "weight": 1},
                    {"name": string(v1.ResourceMemory), "weight": 1},
                    {"name": extendedResourceName, "weight": 1},
                ]
            },
            "draObjects": [
                deviceClassWithExtendResourceName,
                st.MakeResourceSlice("node1", "test-driver")
                .Device("device-1")
                .Device("device-2")
                .Device("device-3")
                .Device("device-4")
                .Device("device-5")
                .Device("device-6")
                .Device("device-7")
                .Device("device-8")
                .Obj(),
            ],
            "runPreScore": True,
        },
        {
            "name": "TestNodeResourcesBalancedAllocation/include DRA resource on a node for balanced resource allocation if PreScore not called",
            "requestedPod": st.MakePod().Req({extendedResourceDRA: "1"}).Obj(),
            "nodes": [makeNode("node1", 3500, 40000, None), makeNode("node2", 3500, 40000, None)],
            "existingPods": [
                st.MakePod().Node("node1").Req(cpuOnly("1000m")).Req(cpuOnly("2000m")).Obj(),
                st.MakePod()
                .Node("node2")
                .Req(cpuAndMemory("1000m", "2000"))
                .Req(cpuAndMemory("2000m", "3000"))
                .Obj(),
            ],
            "expectedScores": [{"name": "node1", "score": 76}, {"name": "node2", "score": 75}],
            "args": {
                "resources": [
                    {"name": string(v1.ResourceCPU), "weight": 1},
                    {"name": string(v1.ResourceMemory), "weight": 1},
                    {"name": extendedResourceName, "weight": 1},
                ]
            },
            "draObjects": [
                deviceClassWithExtendResourceName,
                st.MakeResourceSlice("node1", "test-driver")
                .Device("device-1")
                .Device("device-2")
                .Device("device-3")
                .Device("device-4")
                .Device("device-5")
                .Device("device-6")
                .Device("device-7")
                .Device("device-8")
                .Obj(),
            ],
            "runPreScore": False,
        },
    ]


TestNodeResourcesBalancedAllocation = _TestNodeResourcesBalancedAllocation()



def _TestResourceAllocationScorerCalculateRequests() -> Any:
    oneMi = 1048576
    return [
        {
            "name": "TestResourceAllocationScorerCalculateRequests/overhead only",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "overhead": {
                        v1.ResourceCPU: resource.MustParse("1"),
                        v1.ResourceMemory: resource.MustParse("1Mi"),
                    }
                },
            },
            "expected": {v1.ResourceCPU: 1000, v1.ResourceMemory: oneMi},
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/1x requestless container",
            "pod": {"kind": "Pod", "spec": {"containers": [{}]}},
            "expected": {
                v1.ResourceCPU: util.DefaultMilliCPURequest,
                v1.ResourceMemory: util.DefaultMemoryRequest,
            },
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/2x requestless container",
            "pod": {"kind": "Pod", "spec": {"containers": [{}, {}]}},
            "expected": {
                v1.ResourceCPU: 2 * util.DefaultMilliCPURequest,
                v1.ResourceMemory: 2 * util.DefaultMemoryRequest,
            },
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/request container + requestless container",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "containers": [
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("1"),
                                    v1.ResourceMemory: resource.MustParse("1Mi"),
                                }
                            }
                        },
                        {},
                    ]
                },
            },
            "expected": {
                v1.ResourceCPU: 1000 + util.DefaultMilliCPURequest,
                v1.ResourceMemory: oneMi + util.DefaultMemoryRequest,
            },
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/container + requestless container + overhead",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "overhead": {
                        v1.ResourceCPU: resource.MustParse("1"),
                        v1.ResourceMemory: resource.MustParse("1Mi"),
                    },
                    "containers": [
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("1"),
                                    v1.ResourceMemory: resource.MustParse("1Mi"),
                                }
                            }
                        },
                        {},
                    ],
                },
            },
            "expected": {
                v1.ResourceCPU: 2000 + util.DefaultMilliCPURequest,
                v1.ResourceMemory: 2 * oneMi + util.DefaultMemoryRequest,
            },
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/init container + container + requestless container + overhead",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "overhead": {
                        v1.ResourceCPU: resource.MustParse("1"),
                        v1.ResourceMemory: resource.MustParse("1Mi"),
                    },
                    "initContainers": [
                        {"resources": {"requests": {v1.ResourceCPU: resource.MustParse("3")}}}
                    ],
                    "containers": [
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("1"),
                                    v1.ResourceMemory: resource.MustParse("1Mi"),
                                }
                            }
                        },
                        {},
                    ],
                },
            },
            "expected": {v1.ResourceCPU: 4000, v1.ResourceMemory: 2 * oneMi + util.DefaultMemoryRequest},
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/requestless init container + small init container + small container ",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "initContainers": [
                        {},
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("1m"),
                                    v1.ResourceMemory: resource.MustParse("1"),
                                }
                            }
                        },
                    ],
                    "containers": [
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("3m"),
                                    v1.ResourceMemory: resource.MustParse("3"),
                                }
                            }
                        }
                    ],
                },
            },
            "expected": {
                v1.ResourceCPU: util.DefaultMilliCPURequest,
                v1.ResourceMemory: util.DefaultMemoryRequest,
            },
        },
        {
            "name": "TestResourceAllocationScorerCalculateRequests/requestless init container + small init container + small container + requestless container ",
            "pod": {
                "kind": "Pod",
                "spec": {
                    "initContainers": [
                        {},
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("1m"),
                                    v1.ResourceMemory: resource.MustParse("1"),
                                }
                            }
                        },
                    ],
                    "containers": [
                        {
                            "resources": {
                                "requests": {
                                    v1.ResourceCPU: resource.MustParse("3m"),
                                    v1.ResourceMemory: resource.MustParse("3"),
                                }
                            }
                        },
                        {},
                    ],
                },
            },
            "expected": {
                v1.ResourceCPU: 3 + util.DefaultMilliCPURequest,
                v1.ResourceMemory: 3 + util.DefaultMemoryRequest,
            },
        },
    ]


TestResourceAllocationScorerCalculateRequests = _TestResourceAllocationScorerCalculateRequests()


def _fit_scores(test: dict[str, Any], strategy: dict[str, Any], pod: str = "requestedPod",
                pods: str = "existingPods") -> None:
    want_errs = test.get("wantErrs")
    if want_errs:
        with pytest.raises(ValidationError) as err:
            NodeResourcesFitArgs(scoringStrategy=strategy)
        for e in want_errs:
            assert e["field"] in str(err.value)
        return
    p = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=strategy))
    pre, got = run_score(p, test[pod], snapshot(test.get(pods), test["nodes"]), normalize=False)
    assert pre is None
    assert scores(got) == test["expectedScores"]


@pytest.mark.parametrize("test", cases(TestLeastAllocatedScoringStrategy))
def test_least_allocated_scoring_strategy(test: dict[str, Any]) -> None:
    _fit_scores(test, {"type": config.LeastAllocated, "resources": test.get("resources")})


@pytest.mark.parametrize("test", cases(TestMostAllocatedScoringStrategy))
def test_most_allocated_scoring_strategy(test: dict[str, Any]) -> None:
    _fit_scores(test, {"type": config.MostAllocated, "resources": test.get("resources")})


@pytest.mark.parametrize("test", cases(TestRequestedToCapacityRatioScoringStrategy))
def test_requested_to_capacity_ratio_scoring_strategy(test: dict[str, Any]) -> None:
    shape = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    _fit_scores(test, {"type": config.RequestedToCapacityRatio, "resources": test.get("resources"),
                       "requestedToCapacityRatio": {"shape": shape}})


BIN_PACKING_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


@pytest.mark.parametrize("test", cases(TestResourceBinPackingSingleExtended))
def test_resource_bin_packing_single_extended(test: dict[str, Any]) -> None:
    _fit_scores(test, {"type": config.RequestedToCapacityRatio, "resources": [{"name": "intel.com/foo", "weight": 1}],
                       "requestedToCapacityRatio": {"shape": BIN_PACKING_SHAPE}}, pod="pod", pods="pods")


@pytest.mark.parametrize("test", cases(TestResourceBinPackingMultipleExtended))
def test_resource_bin_packing_multiple_extended(test: dict[str, Any]) -> None:
    resources = [{"name": "intel.com/foo", "weight": 3}, {"name": "intel.com/bar", "weight": 5}]
    _fit_scores(test, {"type": config.RequestedToCapacityRatio, "resources": resources,
                       "requestedToCapacityRatio": {"shape": BIN_PACKING_SHAPE}}, pod="pod", pods="pods")


@pytest.mark.parametrize("test", cases(TestNodeResourcesBalancedAllocation))
def test_node_resources_balanced_allocation(test: dict[str, Any]) -> None:
    """draObjects go into the cluster (upstream's test DRA manager); a case without them has
    DRAExtendedResource off, as upstream's emulated v1.36 does."""
    p = NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs(**test["args"]))
    p.enable_dra_extended_resource = test.get("draObjects") is not None
    cluster = snapshot(test.get("existingPods"), test["nodes"], *test.get("draObjects", ()))
    pre, got = run_score(p, test["requestedPod"], cluster, normalize=False, prescore=test.get("runPreScore", False))
    if test.get("runPreScore"):
        assert (pre.code if pre else fwk.Success) == test.get("expectedPreScoreStatusCode", fwk.Success)
        if pre is not None and pre.code == fwk.Skip:
            return
    assert [s for s in got.values()] == [e["score"] for e in test["expectedScores"]]


@pytest.mark.parametrize("tc", cases(TestResourceAllocationScorerCalculateRequests))
def test_resource_allocation_scorer_calculate_requests(tc: dict[str, Any]) -> None:
    """A zero-value resourceAllocationScorer (useRequested false): the non-zero requests scoring uses."""
    names = list(tc["expected"])
    scorer = ResourceAllocationScorer([(n, 1) for n in names], use_requested=False)
    assert dict(zip(names, scorer.pod_requests(PodInfo.from_dict(tc["pod"])), strict=True)) == tc["expected"]


# ---- TestBalancedAllocationSignPod ---------------------------------------------------------------
# computePodResourceRequest's fragment is kubeberth.api.signing.resources_signer of the pod.
def computePodResourceRequest(pod: dict[str, Any], _opts: Any = None) -> Any:  # noqa: N802
    return resources_signer(st.pod_info(pod))


def ResourceRequestsOptions() -> None:  # noqa: N802
    return None


def SignFragment(Key: str, Value: Any) -> Any:  # noqa: N802, N803
    return KbSignFragment(Key, Value)


fwk.ResourcesSignerName = RESOURCES_SIGNER  # type: ignore[attr-defined]
_extendedResourceName = "extended.resource.dra.io/something"
TestBalancedAllocationSignPod = {
    "TestBalancedAllocationSignPod/pod with CPU and memory requests": {
        "pod": st.MakePod().Req(cpuAndMemory("1000m", "2000")).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Req(cpuAndMemory("1000m", "2000")).Obj(), ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestBalancedAllocationSignPod/best-effort pod with no requests": {
        "pod": st.MakePod().Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(st.MakePod().Obj(), ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestBalancedAllocationSignPod/pod with multiple containers": {
        "pod": st.MakePod().Container("container1").Req(cpuAndMemory("500m", "1000"))
        .Container("container2").Req(cpuAndMemory("1500m", "3000")).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Container("container1").Req(cpuAndMemory("500m", "1000"))
                .Container("container2").Req(cpuAndMemory("1500m", "3000")).Obj(), ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestBalancedAllocationSignPod/DRA extended resource enabled - returns unschedulable": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", _extendedResourceName: "1"}).Obj(),
        "disableDRAExtendedResource": False,
        "expectedFragments": None,
        "expectedStatusCode": fwk.Unschedulable,
    },
    "TestBalancedAllocationSignPod/DRA extended resource disabled": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", _extendedResourceName: "1"}).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Container("container1")
                .Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", _extendedResourceName: "1"}).Obj(),
                ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
}
for _k, _v in TestBalancedAllocationSignPod.items():
    _v["name"] = _k


@pytest.mark.parametrize("test", cases(TestBalancedAllocationSignPod))
def test_balanced_allocation_sign_pod(test: dict[str, Any]) -> None:
    """DRAExtendedResource is locked on in v1.37: "disabled" is the plugin with it off (upstream's
    nil DRA manager); enabled, the cluster holds upstream's test DRA manager's DeviceClass."""
    p = NodeResourcesBalancedAllocation()
    p.enable_dra_extended_resource = not test["disableDRAExtendedResource"]
    cluster = snapshot([], [], *([] if test["disableDRAExtendedResource"] else [deviceClassWithExtendResourceName]))
    got = p.sign_pod(st.pod_info(test["pod"]), cluster)
    if test["expectedStatusCode"] == fwk.Success:
        assert got == test["expectedFragments"]
    else:
        assert isinstance(got, Status) and got.code == test["expectedStatusCode"]


# ---- TestCalculateResourceAllocatableRequest (resource_allocation_test.go) -------------------------
nodeName = "resource-node"
driverName = "test-driver"
testClaim = "test-claim"
deviceClassName = "device-class-name"
ResourceDeviceClassPrefix = "deviceclass.resource.kubernetes.io/"
explicitExtendedResource = extendedResourceName
implicitExtendedResource = ResourceDeviceClassPrefix + deviceClassName


def _result(device: str, pool: str = nodeName, share_id: str | None = None) -> dict[str, Any]:
    """resourceapi.DeviceRequestAllocationResult{Request: "req-1", Driver, Pool, Device[, ShareID]}."""
    out: dict[str, Any] = {"request": "req-1", "driver": driverName, "pool": pool, "device": device}
    if share_id is not None:
        out["shareID"] = share_id
    return out


def _allocated_claim(name: str, *results: dict[str, Any]) -> dict[str, Any]:
    return st.MakeResourceClaim().Name(name).Request(deviceClassName).Allocation(
        {"devices": {"results": list(results)}}).Obj()


TestCalculateResourceAllocatableRequest = {
    "TestCalculateResourceAllocatableRequest/device-plugin-resource-feature-disabled": {
        "enableDRAExtendedResource": False,
        "node": st.MakeNode().Name(nodeName).Capacity({explicitExtendedResource: "4"}).Obj(),
        "extendedResource": explicitExtendedResource,
        "expectedAllocatable": 4,
        "expectedAllocated": 0,
    },
    "TestCalculateResourceAllocatableRequest/device-plugin-resource-feature-enabled": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Capacity({explicitExtendedResource: "4"}).Obj(),
        "extendedResource": explicitExtendedResource,
        "expectedAllocatable": 4,
        "expectedAllocated": 0,
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-explicit": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice(nodeName, driverName).Device("device-1").Obj(),
        ],
        "expectedAllocatable": 1,  # 1 device `device-1`
        "expectedAllocated": 0,
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-implicit": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": implicitExtendedResource,
        "draObjects": [
            {"kind": "DeviceClass", "metadata": {"name": deviceClassName}},
            st.MakeResourceSlice(nodeName, driverName).Device("device-1").Obj(),
        ],
        "expectedAllocatable": 1,  # 1 device `device-1`
        "expectedAllocated": 0,
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-no-slices": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [deviceClassWithExtendResourceName],
        "expectedAllocatable": 0,
        "expectedAllocated": 0,
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-with-allocated-device": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice(nodeName, driverName).Devices("device-1", "device-2").Obj(),
            # Create a resource claim that fully allocates device-1
            _allocated_claim(testClaim, _result("device-1")),
        ],
        "expectedAllocatable": 2,  # 2 allocatable devices `device-1`, `device-2`
        "expectedAllocated": 1,  # 1 allocated by `testClaim`
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-with-shared-device-allocation": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice(nodeName, driverName).Devices("device-1", "device-2").Obj(),
            # Create a resource claim with shared device allocation (consumable capacity)
            _allocated_claim(testClaim, _result("device-1", share_id="share-123")),
        ],
        "expectedAllocatable": 2,  # 2 allocatable devices `device-1`, `device-2`
        "expectedAllocated": 1,  # 1 allocated (shared) by `testClaim`
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-multiple-devices-mixed-allocation": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice(nodeName, driverName).Devices("device-1", "device-2", "device-3").Obj(),
            # Mix of fully allocated and shared device allocations
            _allocated_claim("test-claim-1", _result("device-1")),  # No ShareID = fully allocated device
            _allocated_claim("test-claim-2", _result("device-2", share_id="share-456")),  # Shared device allocation
            # device-3 remains unallocated
        ],
        "expectedAllocatable": 3,  # 3 allocatable devices `device-1`, `device-2`, `device-3`
        "expectedAllocated": 2,  # 2 allocated (1 full `test-claim-1` + 1 shared `test-claim-2`)
    },
    "TestCalculateResourceAllocatableRequest/DRA-backed-resource-with-per-device-node-selection": {
        "enableDRAExtendedResource": True,
        "node": st.MakeNode().Name(nodeName).Label("zone", "us-east-1a").Obj(),
        "extendedResource": explicitExtendedResource,
        "draObjects": [
            {"kind": "DeviceClass", "metadata": {"name": deviceClassName}, "spec": {
                "extendedResourceName": extendedResourceName,
                "selectors": [{"cel": {
                    # Realistic GPU selection: match test driver with at least 8GB memory and SOME- model
                    "expression": 'device.driver == "test-driver" && device.capacity["test-driver"].memory.compareTo('
                                  'quantity("8Gi")) >= 0 && device.attributes["test-driver"].model.startsWith("SOME-")',
                }}],
            }},
            # Create a custom resource slice with per-device node selection
            {"kind": "ResourceSlice", "metadata": {"name": "per-device-slice"}, "spec": {
                "driver": driverName,  # Match the CEL expression driver
                "pool": {"name": "per-device-pool", "resourceSliceCount": 1},
                "perDeviceNodeSelection": True,  # Enable per-device node selection
                # Note: No NodeName, AllNodes, or NodeSelector at slice level when PerDeviceNodeSelection is true
                "devices": [
                    {
                        "name": "device-1",
                        "nodeName": nodeName,  # This device matches the test node
                        "attributes": {"model": {"string": "SOME-XYZ"}},
                        "capacity": {"memory": {"value": "16Gi"}},  # 16GB GPU - matches CEL (>= 8GB)
                    },
                    {
                        "name": "device-2",
                        "nodeName": "other-node",  # This device matches a different node
                        "attributes": {"model": {"string": "SOME-ZYX"}},
                        "capacity": {"memory": {"value": "12Gi"}},  # 12GB GPU - matches CEL (>= 8GB)
                    },
                    {
                        "name": "device-3",
                        # Use a node selector to ensure nodeMatches is exercised for this device
                        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "zone", "operator": "In", "values": ["us-east-1a"]}]}]},
                        "attributes": {"model": {"string": "SOME-XZY"}},
                        "capacity": {"memory": {"value": "24Gi"}},  # 24GB GPU - matches CEL (>= 8GiB)
                    },
                ],
            }},
            # Create a resource claim that allocates gpu-1
            _allocated_claim("test-claim", _result("device-1", pool="per-device-pool")),
        ],
        "expectedAllocatable": 2,  # device-1 matches the test node and device-3 matches via its selector
        "expectedAllocated": 1,  # 1 allocated (device-1)
    },
}
for _k, _v in TestCalculateResourceAllocatableRequest.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(TestCalculateResourceAllocatableRequest))
def test_calculate_resource_allocatable_request(tc: dict[str, Any]) -> None:
    """A resourceAllocationScorer for the one resource (useRequested false), its DRA state from
    getDRAPreScoredParams ([]ResourceSpec{{Name: the resource}}) when the feature is on."""
    cluster = snapshot([], [tc["node"]], *tc.get("draObjects", ()))
    scorer = ResourceAllocationScorer([(tc["extendedResource"], 1)], use_requested=False)
    dra = scorer.dra_resources(cluster.devices) if tc["enableDRAExtendedResource"] else None
    got = scorer.allocatable_allocated(cluster, nodeName, tc["extendedResource"], dra)
    assert got == (tc["expectedAllocatable"], tc["expectedAllocated"])

"""NodeResourcesFit: kube-scheduler v1.37.2's noderesources fit_test.go tables, case by case.

Go test helpers (newResourcePod, makeAllocatableResources, ...) are transcribed below; a NodeInfo
of the Go test is a node (named `<unnamed>` where the Go node has no name: a table row needs one)
plus its pods.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import st
from kubeberth import Code, FeatureGates, Status
from kubeberth.api.capabilities import capabilities_of
from kubeberth.api.signing import RESOURCES_SIGNER, resources_signer
from kubeberth.api.signing import SignFragment as KbSignFragment
from kubeberth.builtin_plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
    have_any_requested_resources_increased,
    is_fit,
)
from st import GoStatus, fwk, resource, v1
from upstream import cases, run_filter, run_score, snapshot


class config:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/apis/config
    LeastAllocated = "LeastAllocated"
    MostAllocated = "MostAllocated"
    RequestedToCapacityRatio = "RequestedToCapacityRatio"


class framework:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/framework
    @staticmethod
    def Resource(**kw: Any) -> dict[str, Any]:
        return kw

    @staticmethod
    def NewNodeInfo(*pods: dict[str, Any]) -> list[dict[str, Any]]:
        return list(pods)


def _milli(n: int) -> str:
    return f"{n}m"


resource.NewMilliQuantity = staticmethod(lambda n, _fmt=None: _milli(n))  # type: ignore[attr-defined]
resource.NewQuantity = staticmethod(lambda n, _fmt=None: str(n))  # type: ignore[attr-defined]
resource.DecimalSI = "DecimalSI"  # type: ignore[attr-defined]
resource.BinarySI = "BinarySI"  # type: ignore[attr-defined]

extendedResourceA = "example.com/aaa"
extendedResourceB = "example.com/bbb"
kubernetesIOResourceA = "kubernetes.io/something"
kubernetesIOResourceB = "subdomain.kubernetes.io/something"
hugePageResourceA = "hugepages-2Mi"
extendedResourceName = "extended.resource.dra.io/something"
extendedResourceDRA = extendedResourceName
deviceClassName = "device-class-name"
deviceClassWithExtendResourceName = {"kind": "DeviceClass", "metadata": {"name": deviceClassName},
                                     "spec": {"extendedResourceName": extendedResourceName}}
defaultResources = [{"name": v1.ResourceCPU, "weight": 1}, {"name": v1.ResourceMemory, "weight": 1}]
extendedRes = "abc.com/xyz"
extendedResourceSet = [*defaultResources, {"name": extendedRes, "weight": 1}]
defaultScoringStrategy = {"type": config.LeastAllocated, "resources": defaultResources}


def makeResources(milliCPU: int, memory: int, pods: int, extendedA: int, storage: int, hugePageA: int) -> dict[str, str]:
    return {
        v1.ResourceCPU: _milli(milliCPU),
        v1.ResourceMemory: str(memory),
        v1.ResourcePods: str(pods),
        extendedResourceA: str(extendedA),
        v1.ResourceEphemeralStorage: str(storage),
        hugePageResourceA: str(hugePageA),
    }


makeAllocatableResources = makeResources


def newResourcePod(*usage: dict[str, Any]) -> dict[str, Any]:
    containers = []
    for req in usage:
        rl = {
            v1.ResourceCPU: _milli(req.get("milliCPU", 0)),
            v1.ResourceMemory: str(req.get("memory", 0)),
            v1.ResourcePods: str(req.get("allowedPodNumber", 0)),
            v1.ResourceEphemeralStorage: str(req.get("ephemeralStorage", 0)),
        }
        for name, quant in (req.get("scalarResources") or {}).items():
            rl[name] = str(quant)
        containers.append({"resources": {"requests": rl}})
    return {"kind": "Pod", "metadata": {}, "spec": {"containers": containers}}


def newResourceInitPod(pod: dict[str, Any], *usage: dict[str, Any]) -> dict[str, Any]:
    pod["spec"]["initContainers"] = newResourcePod(*usage)["spec"]["containers"]
    return pod


def newResourceOverheadPod(pod: dict[str, Any], overhead: dict[str, str]) -> dict[str, Any]:
    pod["spec"]["overhead"] = overhead
    return pod


def newPodLevelResourcesPod(pod: dict[str, Any], podResources: dict[str, Any]) -> dict[str, Any]:
    pod["spec"]["resources"] = podResources
    return pod


def getErrReason(rn: str) -> str:
    return f"Insufficient {rn}"


def newPod() -> dict[str, Any]:
    return {"kind": "Pod", "spec": {"containers": [{"name": "regular"}]}}


def newPodWithRestartableInitContainers(request: dict[str, str] | None,
                                        sidecarRequest: dict[str, str] | None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "regular"}
    if request is not None:
        container["resources"] = {"requests": request}
    sidecar: dict[str, Any] = {"name": "restartable-init", "restartPolicy": v1.ContainerRestartPolicyAlways}
    if sidecarRequest is not None:
        sidecar["resources"] = {"requests": sidecarRequest}
    return {"kind": "Pod", "spec": {"containers": [container], "initContainers": [sidecar]}}


def go_status(status: Any) -> GoStatus | None:
    if status is None or status.code == Code.SUCCESS:
        return None
    return GoStatus(status.code, tuple(status.reasons))


def node_info(pods: list[dict[str, Any]], allocatable: dict[str, str], capacity: dict[str, str] | None = None,
              *objects: dict[str, Any]):
    """framework.NewNodeInfo(pods...) with SetNode(v1.Node{Status: {Capacity, Allocatable}})."""
    node = {"kind": "Node", "metadata": {"name": "<unnamed>"},
            "status": {"capacity": capacity if capacity is not None else allocatable, "allocatable": allocatable}}
    placed = [{**p, "kind": "Pod", "metadata": {**(p.get("metadata") or {}), "name": f"existing-{i}"},
               "spec": {**p["spec"], "nodeName": "<unnamed>"}} for i, p in enumerate(pods)]
    return snapshot(placed, [node], *objects)


TestEnoughRequests = [
    {
        "pod": {"kind": "Pod"},
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 10, "memory": 20})),
        "name": "TestEnoughRequests/no resources requested always fits",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 10, "memory": 20})),
        "name": "TestEnoughRequests/too many resources fails",
        "wantStatus": fwk.NewStatus(
            fwk.Unschedulable, getErrReason(v1.ResourceCPU), getErrReason(v1.ResourceMemory)
        ),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceCPU,
                "reason": getErrReason(v1.ResourceCPU),
                "requested": 1,
                "used": 10,
                "capacity": 10,
            },
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 1,
                "used": 20,
                "capacity": 20,
            },
        ],
    },
    {
        "pod": newResourceInitPod(newResourcePod({"milliCPU": 1, "memory": 1}), {"milliCPU": 3, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 8, "memory": 19})),
        "name": "TestEnoughRequests/too many resources fails due to init container cpu",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceCPU,
                "reason": getErrReason(v1.ResourceCPU),
                "requested": 3,
                "used": 8,
                "capacity": 10,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {"milliCPU": 3, "memory": 1},
            {"milliCPU": 2, "memory": 1},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 8, "memory": 19})),
        "name": "TestEnoughRequests/too many resources fails due to highest init container cpu",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceCPU,
                "reason": getErrReason(v1.ResourceCPU),
                "requested": 3,
                "used": 8,
                "capacity": 10,
            }
        ],
    },
    {
        "pod": newResourceInitPod(newResourcePod({"milliCPU": 1, "memory": 1}), {"milliCPU": 1, "memory": 3}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 9, "memory": 19})),
        "name": "TestEnoughRequests/too many resources fails due to init container memory",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 3,
                "used": 19,
                "capacity": 20,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {"milliCPU": 1, "memory": 3},
            {"milliCPU": 1, "memory": 2},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 9, "memory": 19})),
        "name": "TestEnoughRequests/too many resources fails due to highest init container memory",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 3,
                "used": 19,
                "capacity": 20,
            }
        ],
    },
    {
        "pod": newResourceInitPod(newResourcePod({"milliCPU": 1, "memory": 1}), {"milliCPU": 1, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 9, "memory": 19})),
        "name": "TestEnoughRequests/init container fits because it's the max, not sum, of containers and init containers",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {"milliCPU": 1, "memory": 1},
            {"milliCPU": 1, "memory": 1},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 9, "memory": 19})),
        "name": "TestEnoughRequests/multiple init containers fit because it's the max, not sum, of containers and init containers",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestEnoughRequests/both resources fit",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourcePod({"milliCPU": 2, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 9, "memory": 5})),
        "name": "TestEnoughRequests/one resource memory fits",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceCPU,
                "reason": getErrReason(v1.ResourceCPU),
                "requested": 2,
                "used": 9,
                "capacity": 10,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 2}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestEnoughRequests/one resource cpu fits",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 2,
                "used": 19,
                "capacity": 20,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 5, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestEnoughRequests/equal edge case",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceInitPod(newResourcePod({"milliCPU": 4, "memory": 1}), {"milliCPU": 5, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestEnoughRequests/equal edge case for init container",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourcePod({"scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({})),
        "name": "TestEnoughRequests/extended resource fits",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceInitPod(newResourcePod({}), {"scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({})),
        "name": "TestEnoughRequests/extended resource fits for init container",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 10}}),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 0}})
        ),
        "name": "TestEnoughRequests/extended resource capacity enforced",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}), {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 10}}
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 0}})
        ),
        "name": "TestEnoughRequests/extended resource capacity enforced for init container",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 5}})
        ),
        "name": "TestEnoughRequests/extended resource allocatable enforced",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 1,
                "used": 5,
                "capacity": 5,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}), {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 1}}
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 5}})
        ),
        "name": "TestEnoughRequests/extended resource allocatable enforced for init container",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 1,
                "used": 5,
                "capacity": 5,
            }
        ],
    },
    {
        "pod": newResourcePod(
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 3}},
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 3}},
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 2}})
        ),
        "name": "TestEnoughRequests/extended resource allocatable enforced for multiple containers",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 6,
                "used": 2,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}),
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 3}},
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 3}},
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 2}})
        ),
        "name": "TestEnoughRequests/extended resource allocatable admits multiple init containers",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}),
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 6}},
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 3}},
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 2}})
        ),
        "name": "TestEnoughRequests/extended resource allocatable enforced for multiple init containers",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceA,
                "reason": getErrReason(extendedResourceA),
                "requested": 6,
                "used": 2,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceB: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource allocatable enforced for unknown resource",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceB)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceB,
                "reason": getErrReason(extendedResourceB),
                "requested": 1,
                "used": 0,
                "capacity": 0,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}), {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceB: 1}}
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource allocatable enforced for unknown resource for init container",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceB)),
        "wantInsufficientResources": [
            {
                "resourceName": extendedResourceB,
                "reason": getErrReason(extendedResourceB),
                "requested": 1,
                "used": 0,
                "capacity": 0,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {kubernetesIOResourceA: 10}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/kubernetes.io resource capacity enforced",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(kubernetesIOResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": kubernetesIOResourceA,
                "reason": getErrReason(kubernetesIOResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 0,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}), {"milliCPU": 1, "memory": 1, "scalarResources": {kubernetesIOResourceB: 10}}
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/kubernetes.io resource capacity enforced for init container",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(kubernetesIOResourceB)),
        "wantInsufficientResources": [
            {
                "resourceName": kubernetesIOResourceB,
                "reason": getErrReason(kubernetesIOResourceB),
                "requested": 10,
                "used": 0,
                "capacity": 0,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {hugePageResourceA: 10}}),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {hugePageResourceA: 0}})
        ),
        "name": "TestEnoughRequests/hugepages resource capacity enforced",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(hugePageResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": hugePageResourceA,
                "reason": getErrReason(hugePageResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourceInitPod(
            newResourcePod({}), {"milliCPU": 1, "memory": 1, "scalarResources": {hugePageResourceA: 10}}
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {hugePageResourceA: 0}})
        ),
        "name": "TestEnoughRequests/hugepages resource capacity enforced for init container",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(hugePageResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": hugePageResourceA,
                "reason": getErrReason(hugePageResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod(
            {"milliCPU": 1, "memory": 1, "scalarResources": {hugePageResourceA: 3}},
            {"milliCPU": 1, "memory": 1, "scalarResources": {hugePageResourceA: 3}},
        ),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {hugePageResourceA: 2}})
        ),
        "name": "TestEnoughRequests/hugepages resource allocatable enforced for multiple containers",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(hugePageResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": hugePageResourceA,
                "reason": getErrReason(hugePageResourceA),
                "requested": 6,
                "used": 2,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceB: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "args": {"ignoredResources": ["example.com/bbb"]},
        "name": "TestEnoughRequests/skip checking ignored extended resource",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceOverheadPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {v1.ResourceCPU: resource.MustParse("3m"), v1.ResourceMemory: resource.MustParse("13")},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestEnoughRequests/resources + pod overhead fits",
        "wantInsufficientResources": [],
    },
    {
        "pod": newResourceOverheadPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {v1.ResourceCPU: resource.MustParse("1m"), v1.ResourceMemory: resource.MustParse("15")},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestEnoughRequests/requests + overhead does not fit for memory",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 16,
                "used": 5,
                "capacity": 20,
            }
        ],
    },
    {
        "pod": newResourcePod(
            {"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceB: 1, kubernetesIOResourceA: 1}}
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "args": {"ignoredResourceGroups": ["example.com"]},
        "name": "TestEnoughRequests/skip checking ignored extended resource via resource groups",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(kubernetesIOResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": kubernetesIOResourceA,
                "reason": getErrReason(kubernetesIOResourceA),
                "requested": 1,
                "used": 0,
                "capacity": 0,
                "unresolvable": True,
            }
        ],
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 0}}),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 0, "memory": 0, "scalarResources": {extendedResourceA: 6}})
        ),
        "name": "TestEnoughRequests/skip checking extended resource request with quantity zero via resource groups",
        "wantInsufficientResources": [],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newResourcePod({"scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 20, "memory": 30, "scalarResources": {extendedResourceA: 1}})
        ),
        "name": "TestEnoughRequests/skip checking resource request with quantity zero",
        "wantInsufficientResources": [],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("1m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestEnoughRequests/both pod-level and container-level resources fit",
        "wantInsufficientResources": [],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("7m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestEnoughRequests/pod-level cpu resource not fit",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceCPU,
                "reason": getErrReason(v1.ResourceCPU),
                "requested": 7,
                "used": 5,
                "capacity": 10,
            }
        ],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod({"milliCPU": 1, "memory": 1}),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("3m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestEnoughRequests/pod-level memory resource not fit",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 2,
                "used": 19,
                "capacity": 20,
            }
        ],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod(),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("3m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                    hugePageResourceA: resource.NewQuantity(5, resource.BinarySI),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(),
        "name": "TestEnoughRequests/pod-level hugepages resource fit",
        "wantInsufficientResources": [],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {hugePageResourceA: 3}}),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("3m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                    hugePageResourceA: resource.NewQuantity(5, resource.BinarySI),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(),
        "name": "TestEnoughRequests/both pod-level and container-level hugepages resource fit",
        "wantInsufficientResources": [],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newPodLevelResourcesPod(
            newResourcePod(),
            {
                "requests": {
                    v1.ResourceCPU: resource.MustParse("3m"),
                    v1.ResourceMemory: resource.MustParse("2"),
                    hugePageResourceA: resource.NewQuantity(10, resource.BinarySI),
                }
            },
        ),
        "nodeInfo": framework.NewNodeInfo(),
        "name": "TestEnoughRequests/pod-level hugepages resource not fit",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(hugePageResourceA)),
        "wantInsufficientResources": [
            {
                "resourceName": hugePageResourceA,
                "reason": getErrReason(hugePageResourceA),
                "requested": 10,
                "used": 0,
                "capacity": 5,
                "unresolvable": True,
            }
        ],
    },
    {
        "podLevelResourcesEnabled": True,
        "pod": newResourceInitPod(
            newPodLevelResourcesPod(
                newResourcePod({"milliCPU": 1, "memory": 1}),
                {
                    "requests": {
                        v1.ResourceCPU: resource.MustParse("3m"),
                        v1.ResourceMemory: resource.MustParse("2"),
                    }
                },
            ),
            {"milliCPU": 1, "memory": 1},
        ),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestEnoughRequests/one pod-level cpu resource fits and all init and non-init containers resources fit",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceMemory)),
        "wantInsufficientResources": [
            {
                "resourceName": v1.ResourceMemory,
                "reason": getErrReason(v1.ResourceMemory),
                "requested": 2,
                "used": 19,
                "capacity": 20,
            }
        ],
    },
    {
        "draExtendedResourceEnabled": True,
        "pod": newResourcePod({"scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({})),
        "name": "TestEnoughRequests/extended resource backed by device plugin",
        "wantInsufficientResources": [],
    },
    {
        "draExtendedResourceEnabled": True,
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceDRA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource backed by DRA",
        "wantInsufficientResources": [],
    },
    {
        "draExtendedResourceEnabled": True,
        "nilDRAManager": True,
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource backed by DRA, nil draManager",
        "wantInsufficientResources": [],
    },
    {
        "draExtendedResourceEnabled": False,
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceDRA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource backed by DRA not enabled",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceDRA)),
        "wantInsufficientResources": [
            {
                "resourceName": "extended.resource.dra.io/something",
                "reason": "Insufficient extended.resource.dra.io/something",
                "requested": 1,
                "unresolvable": True,
            }
        ],
    },
    {
        "draExtendedResourceEnabled": True,
        "pod": newResourcePod({"milliCPU": 1, "memory": 1, "scalarResources": {extendedResourceB: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 0, "memory": 0})),
        "name": "TestEnoughRequests/extended resource NOT backed by DRA",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(extendedResourceB)),
        "wantInsufficientResources": [
            {
                "resourceName": "example.com/bbb",
                "reason": "Insufficient example.com/bbb",
                "requested": 1,
                "unresolvable": True,
            }
        ],
    },
    {
        "draExtendedResourceEnabled": True,
        "pod": newResourcePod({"scalarResources": {extendedResourceDRA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"scalarResources": {extendedResourceDRA: 0}})),
        "name": "TestEnoughRequests/extended resource was backed by Device Plugin (Allocatable: 0)",
        "wantInsufficientResources": [],
    },
    {
        "draExtendedResourceEnabled": True,
        "pod": newResourcePod({"scalarResources": {extendedResourceA: 1}}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"scalarResources": {extendedResourceA: 0}})),
        "name": "TestEnoughRequests/extended resource was backed by Device Plugin (Allocatable: 0), global cache",
        "wantInsufficientResources": [],
    },
]


TestNotEnoughRequests = [
    {
        "pod": {"kind": "Pod"},
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 10, "memory": 20})),
        "name": "TestNotEnoughRequests/even without specified resources, predicate fails when there's no space for additional pod",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "Too many pods"),
    },
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 5})),
        "name": "TestNotEnoughRequests/even if both resources fit, predicate fails when there's no space for additional pod",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "Too many pods"),
    },
    {
        "pod": newResourcePod({"milliCPU": 5, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestNotEnoughRequests/even for equal edge case, predicate fails when there's no space for additional pod",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "Too many pods"),
    },
    {
        "pod": newResourceInitPod(newResourcePod({"milliCPU": 5, "memory": 1}), {"milliCPU": 5, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 5, "memory": 19})),
        "name": "TestNotEnoughRequests/even for equal edge case, predicate fails when there's no space for additional pod due to init container",
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "Too many pods"),
    },
]


TestStorageRequests = [
    {
        "pod": newResourcePod({"milliCPU": 1, "memory": 1}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 2, "memory": 10})),
        "name": "TestStorageRequests/empty storage requested, and pod fits",
    },
    {
        "pod": newResourcePod({"ephemeralStorage": 25}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 2, "memory": 2})),
        "name": "TestStorageRequests/storage ephemeral local storage request exceeds allocatable",
        "wantStatus": fwk.NewStatus(
            fwk.UnschedulableAndUnresolvable, getErrReason(v1.ResourceEphemeralStorage)
        ),
    },
    {
        "pod": newResourceInitPod(newResourcePod({"ephemeralStorage": 5})),
        "nodeInfo": framework.NewNodeInfo(
            newResourcePod({"milliCPU": 2, "memory": 2, "ephemeralStorage": 10})
        ),
        "name": "TestStorageRequests/ephemeral local storage is sufficient",
    },
    {
        "pod": newResourcePod({"ephemeralStorage": 10}),
        "nodeInfo": framework.NewNodeInfo(newResourcePod({"milliCPU": 2, "memory": 2})),
        "name": "TestStorageRequests/pod fits",
    },
]


def _TestRestartableInitContainers() -> Any:
    return [
        {
            "name": "TestRestartableInitContainers/allow pod without restartable init containers",
            "pod": newPod(),
        },
        {
            "name": "TestRestartableInitContainers/allow pod with restartable init containers",
            "pod": newPodWithRestartableInitContainers(None, None),
        },
        {
            "name": "TestRestartableInitContainers/allow pod if the total requested resources do not exceed the node's allocatable resources",
            "pod": newPodWithRestartableInitContainers(
                {v1.ResourceCPU: resource.NewMilliQuantity(1, resource.DecimalSI)},
                {v1.ResourceCPU: resource.NewMilliQuantity(1, resource.DecimalSI)},
            ),
        },
        {
            "name": "TestRestartableInitContainers/not allow pod if the total requested resources do exceed the node's allocatable resources",
            "pod": newPodWithRestartableInitContainers(
                {v1.ResourceCPU: resource.NewMilliQuantity(1, resource.DecimalSI)},
                {v1.ResourceCPU: resource.NewMilliQuantity(2, resource.DecimalSI)},
            ),
            "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(v1.ResourceCPU)),
        },
    ]


TestRestartableInitContainers = _TestRestartableInitContainers()


TestFitScore = [
    {
        "name": "TestFitScore/test case for ScoringStrategy RequestedToCapacityRatio case1",
        "requestedPod": st.MakePod().Req({"cpu": "3000", "memory": "5000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 10}, {"name": "node2", "score": 32}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {
                "type": config.RequestedToCapacityRatio,
                "resources": defaultResources,
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
                },
            }
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy RequestedToCapacityRatio case2",
        "requestedPod": st.MakePod().Req({"cpu": "3000", "memory": "5000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 95}, {"name": "node2", "score": 68}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {
                "type": config.RequestedToCapacityRatio,
                "resources": defaultResources,
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                },
            }
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy MostAllocated",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 67}, {"name": "node2", "score": 36}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.MostAllocated, "resources": defaultResources}
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy LeastAllocated",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 32}, {"name": "node2", "score": 63}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.LeastAllocated, "resources": defaultResources}
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
        "requestedPod": st.MakePod().Req({"cpu": "3000", "memory": "5000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 10}, {"name": "node2", "score": 32}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {
                "type": config.RequestedToCapacityRatio,
                "resources": defaultResources,
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
                },
            }
        },
        "runPreScore": False,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy MostAllocated if PreScore is not called",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 67}, {"name": "node2", "score": 36}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.MostAllocated, "resources": defaultResources}
        },
        "runPreScore": False,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy LeastAllocated if PreScore is not called",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "6000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod().Node("node1").Req({"cpu": "2000", "memory": "4000"}).Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 32}, {"name": "node2", "score": 63}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.LeastAllocated, "resources": defaultResources}
        },
        "runPreScore": False,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy MostAllocated with sidecar container",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod()
            .Node("node1")
            .Req({"cpu": "1000", "memory": "2000"})
            .SidecarReq({"cpu": "1000", "memory": "2000"})
            .Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 67}, {"name": "node2", "score": 45}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.MostAllocated, "resources": defaultResources}
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy LeastAllocated with sidecar container",
        "requestedPod": st.MakePod().Req({"cpu": "1000", "memory": "2000"}).Obj(),
        "nodes": [
            st.MakeNode().Name("node1").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
            st.MakeNode().Name("node2").Capacity({"cpu": "4000", "memory": "10000"}).Obj(),
        ],
        "existingPods": [
            st.MakePod()
            .Node("node1")
            .Req({"cpu": "1000", "memory": "2000"})
            .SidecarReq({"cpu": "1000", "memory": "2000"})
            .Obj(),
            st.MakePod().Node("node2").Req({"cpu": "1000", "memory": "2000"}).Obj(),
        ],
        "expectedPriorities": [{"name": "node1", "score": 32}, {"name": "node2", "score": 55}],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {"type": config.LeastAllocated, "resources": defaultResources}
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy LeastAllocated with Extended resources",
        "requestedPod": st.MakePod().Req({extendedResourceDRA: "1"}).Obj(),
        "nodes": [st.MakeNode().Name("node1").Obj(), st.MakeNode().Name("node2").Obj()],
        "expectedPriorities": [{"name": "node1", "score": 66}, {"name": "node2", "score": 50}],
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice("node1", "test-driver")
            .Device("device-1")
            .Device("device-2")
            .Device("device-3")
            .Obj(),
            st.MakeResourceSlice("node2", "test-driver").Device("device-1").Device("device-2").Obj(),
        ],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {
                "type": config.LeastAllocated,
                "resources": [{"name": extendedResourceName, "weight": 1}],
            }
        },
        "runPreScore": True,
    },
    {
        "name": "TestFitScore/test case for ScoringStrategy LeastAllocated with Extended resources if PreScore is not called",
        "requestedPod": st.MakePod().Req({extendedResourceDRA: "1"}).Obj(),
        "nodes": [st.MakeNode().Name("node1").Obj(), st.MakeNode().Name("node2").Obj()],
        "expectedPriorities": [{"name": "node1", "score": 66}, {"name": "node2", "score": 50}],
        "draObjects": [
            deviceClassWithExtendResourceName,
            st.MakeResourceSlice("node1", "test-driver")
            .Device("device-1")
            .Device("device-2")
            .Device("device-3")
            .Obj(),
            st.MakeResourceSlice("node2", "test-driver").Device("device-1").Device("device-2").Obj(),
        ],
        "nodeResourcesFitArgs": {
            "scoringStrategy": {
                "type": config.LeastAllocated,
                "resources": [{"name": extendedResourceName, "weight": 1}],
            }
        },
    },
]


def _filter(test: dict[str, Any], allocatable: dict[str, str], capacity: dict[str, str] | None = None,
            args: dict[str, Any] | None = None) -> None:
    """A case with draExtendedResourceEnabled (and a DRA manager) runs with upstream's test DRA
    manager's one DeviceClass, deviceClassWithExtendResourceName, in the cluster."""
    args = dict(args or {})
    args.setdefault("scoringStrategy", defaultScoringStrategy)
    dra = test.get("draExtendedResourceEnabled") and not test.get("nilDRAManager")
    cluster = node_info(test.get("nodeInfo") or [], allocatable, capacity, *([deviceClassWithExtendResourceName] if dra else []))
    pod = test.get("pod") or {"kind": "Pod", "spec": {}}
    pre, got = run_filter(NodeResourcesFit(NodeResourcesFitArgs(**args)), pod, cluster)
    assert go_status(pre) == test.get("wantPreFilterStatus")
    if pre is not None and pre.code != Code.SUCCESS:
        return
    assert go_status(got["<unnamed>"]) == test.get("wantStatus", test.get("wantFilterStatus"))


@pytest.mark.parametrize("test", cases(TestEnoughRequests))
def test_enough_requests(test: dict[str, Any]) -> None:
    _filter(test, makeAllocatableResources(10, 20, 32, 5, 20, 5), makeResources(10, 20, 32, 5, 20, 5),
            test.get("args"))


@pytest.mark.parametrize("test", cases(TestNotEnoughRequests))
def test_not_enough_requests(test: dict[str, Any]) -> None:
    _filter(test, makeAllocatableResources(10, 20, 1, 0, 0, 0), {})


@pytest.mark.parametrize("test", cases(TestStorageRequests))
def test_storage_requests(test: dict[str, Any]) -> None:
    _filter(test, makeAllocatableResources(10, 20, 32, 5, 20, 5), makeResources(10, 20, 32, 5, 20, 5))


@pytest.mark.parametrize("test", cases(TestRestartableInitContainers))
def test_restartable_init_containers(test: dict[str, Any]) -> None:
    _filter(test, makeAllocatableResources(2, 0, 1, 0, 0, 0), {})


@pytest.mark.parametrize("test", cases(TestFitScore))
def test_fit_score(test: dict[str, Any]) -> None:
    p = NodeResourcesFit(NodeResourcesFitArgs(**test["nodeResourcesFitArgs"]))
    cluster = snapshot(test.get("existingPods"), test["nodes"], *test.get("draObjects", ()))
    _, got = run_score(p, test["requestedPod"], cluster, normalize=False, prescore=test.get("runPreScore", False))
    assert [{"name": n, "score": s} for n, s in got.items()] == test["expectedPriorities"]


# ---- TestDeferredResizeFit -----------------------------------------------------------------------
# A bound pod whose in-place resize the kubelet deferred, filtered on its own node. The Go test builds
# the NodeInfo from existingPods (the cache's view of the same pod, by UID, before the resize).
v1.PodResizePending = "PodResizePending"  # type: ignore[attr-defined]
v1.PodReasonDeferred = "Deferred"  # type: ignore[attr-defined]


def _resize_pod(name: str, uid: str, requests: dict[str, str], deferred: bool) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "kind": "Pod",
        "metadata": {"name": name, "uid": uid},
        "spec": {"nodeName": "test-node", "containers": [{"resources": {"requests": requests}}]},
    }
    if deferred:
        pod["status"] = {"conditions": [{"type": v1.PodResizePending, "reason": v1.PodReasonDeferred}]}
    return pod


TestDeferredResizeFit = [
    {
        "name": "TestDeferredResizeFit/deferred pod resize fits, no other workloads",
        "pod": _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(800, resource.DecimalSI),
                                                v1.ResourceMemory: resource.NewQuantity(1600, resource.BinarySI)}, True),
        "existingPods": [
            _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(500, resource.DecimalSI),
                                             v1.ResourceMemory: resource.NewQuantity(1000, resource.BinarySI)}, False),
        ],
        "nodeAllocatable": framework.Resource(MilliCPU=1000, Memory=2000),
        "enablePreemptionFeature": True,
        "wantStatus": None,
    },
    {
        # Exactly the same as the previous test case, but the flag is disabled.
        # In this case, we will have double counting (diff between old and target) and it will fail to fit.
        "name": "TestDeferredResizeFit/feature gate is false - double counting causes fit failure",
        "pod": _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(800, resource.DecimalSI),
                                                v1.ResourceMemory: resource.NewQuantity(1600, resource.BinarySI)}, True),
        "existingPods": [
            _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(500, resource.DecimalSI),
                                             v1.ResourceMemory: resource.NewQuantity(1000, resource.BinarySI)}, False),
        ],
        "nodeAllocatable": framework.Resource(MilliCPU=1000, Memory=2000),
        "enablePreemptionFeature": False,
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU), getErrReason(v1.ResourceMemory)),
    },
    {
        "name": "TestDeferredResizeFit/deferred pod resize does not fit, but is resolvable via preemption",
        "pod": _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(800, resource.DecimalSI)}, True),
        "existingPods": [
            _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(500, resource.DecimalSI)}, False),
            _resize_pod("pod2", "pod2-uid", {v1.ResourceCPU: resource.NewMilliQuantity(400, resource.DecimalSI)}, False),
        ],
        "nodeAllocatable": framework.Resource(MilliCPU=1000),
        "enablePreemptionFeature": True,
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, getErrReason(v1.ResourceCPU)),
    },
    {
        "name": "TestDeferredResizeFit/deferred pod resize does not fit, unresolvable (exceeds node capacity)",
        "pod": _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(1200, resource.DecimalSI)}, True),
        "existingPods": [
            _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(500, resource.DecimalSI)}, False),
        ],
        "nodeAllocatable": framework.Resource(MilliCPU=1000),
        "enablePreemptionFeature": True,
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, getErrReason(v1.ResourceCPU)),
    },
    {
        "name": "TestDeferredResizeFit/feature gate is false, pod is not in cache, resize fits",
        "pod": _resize_pod("pod1", "pod1-uid", {v1.ResourceCPU: resource.NewMilliQuantity(800, resource.DecimalSI),
                                                v1.ResourceMemory: resource.NewQuantity(1600, resource.BinarySI)}, True),
        "existingPods": [],
        "nodeAllocatable": framework.Resource(MilliCPU=1000, Memory=2000),
        "enablePreemptionFeature": False,
        "wantStatus": None,
    },
]


@pytest.mark.parametrize("test", cases(TestDeferredResizeFit))
def test_deferred_resize_fit(test: dict[str, Any]) -> None:
    allocatable = test["nodeAllocatable"]
    node = {"kind": "Node", "metadata": {"name": "test-node"}, "status": {"allocatable": {
        v1.ResourceCPU: resource.NewMilliQuantity(allocatable.get("MilliCPU", 0), resource.DecimalSI),
        v1.ResourceMemory: resource.NewQuantity(allocatable.get("Memory", 0), resource.BinarySI),
        v1.ResourcePods: resource.NewQuantity(32, resource.DecimalSI),
    }}}
    cluster = snapshot(test["existingPods"], [node])
    gates = FeatureGates({"InPlacePodVerticalScalingSchedulerPreemption": test["enablePreemptionFeature"]})
    p = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=defaultScoringStrategy), feature_gates=gates)
    pre, got = run_filter(p, test["pod"], cluster)
    assert pre is None or pre.code == Code.SUCCESS
    assert go_status(got["test-node"]) == test["wantStatus"]


# ---- TestEventsToRegister ------------------------------------------------------------------------
class _Action(tuple[str, ...]):
    """An action type: kubeberth's action names for a kind (Add, Update, Delete), and the name the
    pending pod's own update has (TargetPod/<name>)."""

    target = ""


def _action(*names: str, target: str = "") -> _Action:
    action = _Action(names)
    action.target = target
    return action


class _Events:  # fwk.ClusterEvent resources and action types, in kubeberth's event names
    AssignedPod = "Pod"  # a placed pod (Pod/Add, Pod/Update, Pod/Delete)
    TargetPod = "TargetPod"  # the pending pod itself (TargetPod/UpdatePodScaleDown, ...)
    Node = "Node"
    DeviceClass = "DeviceClass"
    Add = _action("Add")
    Delete = _action("Delete")
    Update = _action("Update")
    UpdateNodeAllocatable = _action("UpdateNodeAllocatable")  # Node/UpdateNodeAllocatable, as upstream
    # a placed pod's Pod/UpdatePodScaleDown, or the pending pod's own scale-down
    UpdatePodScaleDown = _action("UpdatePodScaleDown", target="UpdatePodScaleDown")


def ClusterEvent(Resource: str, ActionType: tuple[str, ...]) -> set[str]:  # noqa: N802, N803
    if Resource == _Events.TargetPod:
        return {f"TargetPod/{ActionType.target}"} if isinstance(ActionType, _Action) else set()
    return {f"{Resource}/{a}" for a in ActionType}


def ClusterEventWithHint(Event: set[str]) -> set[str]:  # noqa: N802, N803
    return Event


E = _Events
TestEventsToRegister = [
    {
        "name": "TestEventsToRegister/Register events with InPlacePodVerticalScaling feature enabled",
        "enableInPlacePodVerticalScaling": True,
        "expectedClusterEvents": [
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.AssignedPod, ActionType=E.Delete)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.Node, ActionType=E.Add + E.UpdateNodeAllocatable)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.AssignedPod, ActionType=E.UpdatePodScaleDown)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.TargetPod, ActionType=E.UpdatePodScaleDown)),
        ],
    },
    {
        "name": "TestEventsToRegister/Register events with default features",
        "expectedClusterEvents": [
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.AssignedPod, ActionType=E.Delete)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.Node, ActionType=E.Add + E.UpdateNodeAllocatable)),
        ],
    },
    {
        "name": "TestEventsToRegister/Register events with DRAExtendedResource feature enabled",
        "enableDRAExtendedResource": True,
        "expectedClusterEvents": [
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.AssignedPod, ActionType=E.Delete)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.Node, ActionType=E.Add + E.UpdateNodeAllocatable)),
            ClusterEventWithHint(Event=ClusterEvent(Resource=E.DeviceClass, ActionType=E.Add + E.Update)),
        ],
    },
]


@pytest.mark.parametrize("test", cases(TestEventsToRegister))
def test_events_to_register(test: dict[str, Any]) -> None:
    """The Go test builds `&Fit{...}` with the two flags set directly (both gates are GA and locked on
    in v1.37, so FeatureGates cannot turn them off): the same is done to the plugin's attributes."""
    fp = NodeResourcesFit()
    fp.enable_in_place_pod_vertical_scaling = test.get("enableInPlacePodVerticalScaling", False)
    fp.enable_dra_extended_resource = test.get("enableDRAExtendedResource", False)
    assert fp.requeue_on == set().union(*test["expectedClusterEvents"])


# ---- TestComputePodResourceRequestWithNodeAllocatableDRA -------------------------------------------
# computePodResourceRequest is PodInfo's request vector; the cases with DRANodeAllocatableResources
# (alpha) enabled are listed in tests/upstream_unported.py.
def _node_allocatable_claim_pod() -> dict[str, Any]:
    return {
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{
                "name": "c1",
                "resources": {
                    "requests": {v1.ResourceCPU: "100m", v1.ResourceMemory: "1Gi"},
                    "claims": [{"name": "node-allocatable-claim"}],
                },
            }],
            "resourceClaims": [{"name": "node-allocatable-claim", "resourceClaimName": "node-allocatable-claim"}],
        },
        "status": {
            "nodeAllocatableResourceClaimStatuses": [{
                "resourceClaimName": "node-allocatable-claim",
                "containers": ["c1"],
                "mapping": [{"name": v1.ResourceCPU, "quantity": "50m"}],
            }],
        },
    }


TestComputePodResourceRequestWithNodeAllocatableDRA = [
    {
        "name": "TestComputePodResourceRequestWithNodeAllocatableDRA/"
                "Pod with DRA claim and EnableDRANodeAllocatableResources disabled",
        "enableDRANodeAllocatableResources": False,
        "pod": _node_allocatable_claim_pod(),
        "expected": {"MilliCPU": 100, "Memory": 1024 * 1024 * 1024},  # only standard request
    },
]


@pytest.mark.parametrize("tc", cases(TestComputePodResourceRequestWithNodeAllocatableDRA))
def test_compute_pod_resource_request_with_node_allocatable_dra(tc: dict[str, Any]) -> None:
    requests = st.pod_info(tc["pod"]).requests
    assert {"MilliCPU": requests.get(v1.ResourceCPU, 0), "Memory": requests.get(v1.ResourceMemory, 0)} == tc["expected"]
    assert set(requests) <= {v1.ResourceCPU, v1.ResourceMemory}


# ---- queueing hints (map-keyed tables) -----------------------------------------------------------
# The hints see PodInfo objects for pod events and raw Node objects for node events; a hint handed
# something else raises (Go: an error), and the framework then queues the pod (fwk.Queue).
v1.ConditionTrue = "True"  # type: ignore[attr-defined]
NotAPod = "not-a-pod"
NotANode = "not-a-node"


def _info(raw: Any) -> Any:
    return st.pod_info(raw) if isinstance(raw, dict) else raw


def _check_hint(method: str, event: str, tc: dict[str, Any], gates: dict[str, bool]) -> None:
    plugin = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=defaultScoringStrategy), FeatureGates(gates))
    pod = st.pod_info(tc["pod"])
    old, new = tc.get("oldObj"), tc.get("newObj")
    if method not in ("is_schedulable_after_node_change", "is_schedulable_after_device_class_event"):
        old, new = _info(old), _info(new)
    hint = getattr(plugin, method)
    cluster = snapshot([], [])
    extra = (cluster,) if "cluster" in inspect.signature(hint).parameters else ()
    if tc.get("expectedErr"):
        with pytest.raises(TypeError):
            hint(pod, old, new, *extra)
    else:
        assert hint(pod, old, new, *extra) == tc["expectedHint"]
    assert capabilities_of(plugin).requeues(event, pod, old, new, cluster) == tc["expectedHint"]


Test_isSchedulableAfterAssignedPodDelete = {
    "Test_isSchedulableAfterAssignedPodDelete/backoff-wrong-old-object": {
        "pod": st.MakePod().Obj(),
        "oldObj": NotAPod,
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterAssignedPodDelete/queue-on-other-pod-deleted": {
        "pod": st.MakePod().Name("pod1").Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").Req({v1.ResourceCPU: "1"}).Node("fake").Obj(),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterAssignedPodDelete/skip-queue-on-unscheduled-pod-deleted": {
        "pod": st.MakePod().Obj(),
        "oldObj": st.MakePod().Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodDelete/queue-on-nominated-pod-deleted": {
        "pod": st.MakePod().Name("pod1").UID("pod1").Req({v1.ResourceCPU: "1"}).UID("uid0").Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceCPU: "2"}).NominatedNodeName("fake").UID("uid1").Obj(),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterAssignedPodDelete/skip-queue-on-other-pod-deleted-different-node-when-deferred": {
        "pod": st.MakePod().Name("pod1").Node("node1").Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred)
        .Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").Node("node2").Req({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodDelete/queue-on-other-pod-deleted-same-node-when-deferred": {
        "pod": st.MakePod().Name("pod1").Node("node1").Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred)
        .Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").Node("node1").Req({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterAssignedPodDelete.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodDelete))
def test_is_schedulable_after_assigned_pod_delete(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_assigned_pod_delete", "Pod/Delete", tc,
                {"InPlacePodVerticalScalingSchedulerPreemption": True})


Test_isSchedulableAfterAssignedPodScaleDown = {
    "Test_isSchedulableAfterAssignedPodScaleDown/backoff-wrong-old-object": {
        "pod": st.MakePod().Obj(),
        "oldObj": NotAPod,
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/backoff-wrong-new-object": {
        "pod": st.MakePod().Obj(),
        "newObj": NotAPod,
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/skip-queue-on-other-unscheduled-pod": {
        "pod": st.MakePod().Name("pod1").UID("pod1").Req({v1.ResourceCPU: "1"}).UID("uid0").Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceCPU: "2"}).UID("uid1").Obj(),
        "newObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceCPU: "1"}).UID("uid1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/skip-queue-on-other-pod-unrelated-resource-scaled-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceMemory: "2"}).Node("fake").Obj(),
        "newObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceMemory: "1"}).Node("fake").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").PodLevelResourceRequests({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").PodLevelResourceRequests({v1.ResourceMemory: "2"}).Node("fake").Obj(),
        "newObj": st.MakePod().Name("pod2").UID("pod2").PodLevelResourceRequests({v1.ResourceMemory: "1"}).Node("fake").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/queue-on-other-pod-some-resource-scale-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceCPU: "2"}).Node("fake").Obj(),
        "newObj": st.MakePod().Name("pod2").UID("pod2").Req({v1.ResourceCPU: "1"}).Node("fake").Obj(),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/queue-on-other-pod-some-pod-level-resource-scale-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").PodLevelResourceRequests({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").UID("pod2").PodLevelResourceRequests({v1.ResourceCPU: "2"}).Node("fake").Obj(),
        "newObj": st.MakePod().Name("pod2").UID("pod2").PodLevelResourceRequests({v1.ResourceCPU: "1"}).Node("fake").Obj(),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/skip-queue-on-other-pod-scaled-down-different-node-when-deferred": {
        "pod": st.MakePod().Name("pod1").Node("node1").Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred)
        .Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").Node("node2").Req({v1.ResourceCPU: "2"}).Obj(),
        "newObj": st.MakePod().Name("pod2").Node("node2").Req({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterAssignedPodScaleDown/queue-on-other-pod-scaled-down-same-node-when-deferred": {
        "pod": st.MakePod().Name("pod1").Node("node1").Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred)
        .Req({v1.ResourceCPU: "1"}).Obj(),
        "oldObj": st.MakePod().Name("pod2").Node("node1").Req({v1.ResourceCPU: "2"}).Obj(),
        "newObj": st.MakePod().Name("pod2").Node("node1").Req({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterAssignedPodScaleDown.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodScaleDown))
def test_is_schedulable_after_assigned_pod_scale_down(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_assigned_pod_scale_down", "Pod/UpdatePodScaleDown", tc,
                {"InPlacePodVerticalScalingSchedulerPreemption": True})


def _cap(res: dict[str, str]) -> dict[str, Any]:
    return st.MakeNode().Capacity(res).Obj()


Test_isSchedulableAfterNodeChange = {
    "Test_isSchedulableAfterNodeChange/backoff-wrong-new-object": {
        "pod": st.MakePod().Obj(),
        "newObj": NotANode,
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterNodeChange/backoff-wrong-old-object": {
        "pod": st.MakePod().Obj(),
        "oldObj": NotANode,
        "newObj": {"kind": "Node", "metadata": {}},
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterNodeChange/skip-queue-on-node-add-without-sufficient-resources": {
        "pod": newResourcePod({"memory": 2}),
        "newObj": _cap({v1.ResourceMemory: "1"}),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterNodeChange/skip-queue-on-node-add-without-required-resource-type": {
        "pod": newResourcePod({"scalarResources": {extendedResourceA: 1}}),
        "newObj": _cap({extendedResourceB: "1"}),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterNodeChange/queue-on-node-add-with-sufficient-resources": {
        "pod": newResourcePod({"memory": 2, "scalarResources": {extendedResourceA: 1}}),
        "newObj": _cap({v1.ResourceMemory: "4", extendedResourceA: "2"}),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterNodeChange/skip-queue-on-node-unrelated-changes": {
        "pod": newResourcePod({"memory": 2, "scalarResources": {extendedResourceA: 1}}),
        "oldObj": _cap({v1.ResourceMemory: "2", extendedResourceA: "2"}),
        "newObj": _cap({v1.ResourceMemory: "2", extendedResourceA: "1", extendedResourceB: "2"}),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterNodeChange/queue-on-pod-requested-resources-increase": {
        "pod": newResourcePod({"memory": 2, "scalarResources": {extendedResourceA: 1}}),
        "oldObj": _cap({v1.ResourceMemory: "2", extendedResourceA: "1"}),
        "newObj": _cap({v1.ResourceMemory: "2", extendedResourceA: "2"}),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterNodeChange/skip-queue-on-node-changes-from-suitable-to-unsuitable": {
        "pod": newResourcePod({"memory": 2, "scalarResources": {extendedResourceA: 1}}),
        "oldObj": _cap({v1.ResourceMemory: "4", extendedResourceA: "2"}),
        "newObj": _cap({v1.ResourceMemory: "1", extendedResourceA: "2"}),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterNodeChange/queue-on-node-changes-from-unsuitable-to-suitable": {
        "pod": newResourcePod({"memory": 2, "scalarResources": {extendedResourceA: 1}}),
        "oldObj": _cap({v1.ResourceMemory: "1", extendedResourceA: "2"}),
        "newObj": _cap({v1.ResourceMemory: "4", extendedResourceA: "2"}),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterNodeChange.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_node_change", "Node/UpdateNodeAllocatable" if tc.get("oldObj") is not None else "Node/Add",
                tc, {})


TestIsFit = {
    "TestIsFit/nil node": {"pod": st.MakePod().Obj(), "node": None, "expected": False},
    "TestIsFit/insufficient resource": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "2"}).Obj(),
        "node": _cap({v1.ResourceCPU: "1"}),
        "expected": False,
    },
    "TestIsFit/sufficient resource": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1"}).Obj(),
        "node": _cap({v1.ResourceCPU: "2"}),
        "expected": True,
    },
    # st.MakePod().Resources(v1.ResourceRequirements{Requests: ...}): the pod-level requests.
    "TestIsFit/insufficient pod-level resource": {
        "pod": st.MakePod().PodLevelResourceRequests({v1.ResourceCPU: "2"}).Obj(),
        "node": _cap({v1.ResourceCPU: "1"}),
        "podLevelResourcesEnabled": True,
        "expected": False,
    },
    "TestIsFit/sufficient pod-level resource": {
        "pod": st.MakePod().PodLevelResourceRequests({v1.ResourceCPU: "2"}).Obj(),
        "node": _cap({v1.ResourceCPU: "2"}),
        "podLevelResourcesEnabled": True,
        "expected": True,
    },
    "TestIsFit/sufficient pod-level resource hugepages": {
        "pod": st.MakePod().PodLevelResourceRequests({hugePageResourceA: "2Mi"}).Obj(),
        "node": _cap({hugePageResourceA: "2Mi"}),
        "podLevelResourcesEnabled": True,
        "expected": True,
    },
    "TestIsFit/insufficient pod-level resource hugepages": {
        "pod": st.MakePod().PodLevelResourceRequests({hugePageResourceA: "4Mi"}).Obj(),
        "node": _cap({hugePageResourceA: "2Mi"}),
        "podLevelResourcesEnabled": True,
        "expected": False,
    },
}
for _k, _v in TestIsFit.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(TestIsFit))
def test_is_fit(tc: dict[str, Any]) -> None:
    """PodLevelResources is on by default in v1.37 (the cases without it use container requests only)."""
    assert is_fit(st.pod_info(tc["pod"]), tc["node"]) is tc["expected"]


_ALL = {v1.ResourcePods: "1", v1.ResourceCPU: "1", v1.ResourceMemory: "1", v1.ResourceEphemeralStorage: "1",
        extendedResourceA: "1"}
_REQ = {"milliCPU": 2, "memory": 2, "ephemeralStorage": 2}
TestHaveAnyRequestedResourcesIncreased = {
    "TestHaveAnyRequestedResourcesIncreased/no-requested-resources": {
        "pod": newResourcePod({}),
        "originalNode": _cap(_ALL),
        "modifiedNode": _cap({v1.ResourcePods: "1", v1.ResourceCPU: "2", v1.ResourceMemory: "2",
                              v1.ResourceEphemeralStorage: "2", extendedResourceA: "2"}),
        "expected": False,
    },
    "TestHaveAnyRequestedResourcesIncreased/no-requested-resources-pods-increased": {
        "pod": newResourcePod({}),
        "originalNode": _cap(_ALL),
        "modifiedNode": _cap({**_ALL, v1.ResourcePods: "2"}),
        "expected": True,
    },
    "TestHaveAnyRequestedResourcesIncreased/requested-resources-dra-in-node": {
        "pod": newResourcePod({**_REQ, "scalarResources": {extendedResourceDRA: 2}}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3",
                              extendedResourceDRA: "4"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "1",
                              extendedResourceDRA: "1"}),
        "draExtendedResourceEnabled": True,
        "expected": False,
    },
    "TestHaveAnyRequestedResourcesIncreased/requested-resources-dra-not-in-node": {
        "pod": newResourcePod({**_REQ, "scalarResources": {extendedResourceDRA: 2}}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "1"}),
        "draExtendedResourceEnabled": True,
        "expected": True,
    },
    "TestHaveAnyRequestedResourcesIncreased/requested-resources-dra-zero-capacity": {
        "pod": newResourcePod({"scalarResources": {extendedResourceDRA: 1}}),
        "originalNode": _cap({extendedResourceDRA: "0"}),
        "modifiedNode": _cap({extendedResourceDRA: "0"}),
        "draExtendedResourceEnabled": True,
        "expected": True,
    },
    "TestHaveAnyRequestedResourcesIncreased/scalar-resources-not-in-node": {
        "pod": newResourcePod({**_REQ, "scalarResources": {extendedResourceA: 2}}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "1"}),
        "expected": False,
    },
    "TestHaveAnyRequestedResourcesIncreased/requested-resources-decreased": {
        "pod": newResourcePod({**_REQ, "scalarResources": {extendedResourceA: 2}}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3",
                              extendedResourceA: "4"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "1",
                              extendedResourceA: "1"}),
        "expected": False,
    },
    "TestHaveAnyRequestedResourcesIncreased/requested-resources-increased": {
        "pod": newResourcePod({**_REQ, "scalarResources": {extendedResourceA: 2}}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3",
                              extendedResourceA: "4"}),
        "modifiedNode": _cap({v1.ResourceCPU: "3", v1.ResourceMemory: "4", v1.ResourceEphemeralStorage: "3",
                              extendedResourceA: "4"}),
        "expected": True,
    },
    "TestHaveAnyRequestedResourcesIncreased/non-requested-resources-decreased": {
        "pod": newResourcePod({"milliCPU": 2, "memory": 2}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3",
                              extendedResourceA: "4"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "1",
                              extendedResourceA: "1"}),
        "expected": False,
    },
    "TestHaveAnyRequestedResourcesIncreased/non-requested-resources-increased": {
        "pod": newResourcePod({"milliCPU": 2, "memory": 2}),
        "originalNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "3",
                              extendedResourceA: "4"}),
        "modifiedNode": _cap({v1.ResourceCPU: "1", v1.ResourceMemory: "2", v1.ResourceEphemeralStorage: "5",
                              extendedResourceA: "6"}),
        "expected": False,
    },
}
for _k, _v in TestHaveAnyRequestedResourcesIncreased.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(TestHaveAnyRequestedResourcesIncreased))
def test_have_any_requested_resources_increased(tc: dict[str, Any]) -> None:
    """With draExtendedResourceEnabled, upstream's test DRA manager holds deviceClassWithExtendResourceName."""
    devices = snapshot([], [], deviceClassWithExtendResourceName).devices if tc.get("draExtendedResourceEnabled") else None
    got = have_any_requested_resources_increased(st.pod_info(tc["pod"]), tc["originalNode"], tc["modifiedNode"], devices)
    assert got is tc["expected"]


# ---- Test_isSchedulableAfterDeviceClassChange ----------------------------------------------------
def _device_class(name: str = "", extended_resource_name: str | None = None) -> dict[str, Any]:
    """&resourceapi.DeviceClass{ObjectMeta: {Name}, Spec: {ExtendedResourceName}} (nil: no field)."""
    spec = {} if extended_resource_name is None else {"extendedResourceName": extended_resource_name}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


ern = "example.com/gpu"
Test_isSchedulableAfterDeviceClassChange = {
    "Test_isSchedulableAfterDeviceClassChange/backoff-wrong-new-object": {
        "pod": {"kind": "Pod", "spec": {}},
        "newObj": "not-a-class",
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterDeviceClassChange/backoff-wrong-old-object": {
        "pod": {"kind": "Pod", "spec": {}},
        "oldObj": "not-a-class",
        "newObj": _device_class(),
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-queue-on-class-nil-extended-resource-name-pointer": {
        "pod": newResourcePod({"memory": 2}),
        "newObj": _device_class(),
        "oldObj": _device_class(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-queue-on-class-same-extended-resource-name-pointer": {
        "pod": newResourcePod({"memory": 2}),
        "newObj": _device_class(extended_resource_name=ern),
        "oldObj": _device_class(extended_resource_name=ern),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-queue-on-class-same-extended-resource-name": {
        "pod": newResourcePod({"memory": 2}),
        "newObj": _device_class(extended_resource_name="example.com/gpu"),
        "oldObj": _device_class(extended_resource_name="example.com/gpu"),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/queue-on-class-add-with-implicit-extended-resource-name": {
        "pod": newResourcePod({"scalarResources": {"deviceclass.resource.kubernetes.io/gpuclass": 1}}),
        "newObj": _device_class("gpuclass", "example.com/gpu"),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-on-class-add-with-implicit-extended-resource-name-not-matching": {
        "pod": newResourcePod({"scalarResources": {"deviceclass.resource.kubernetes.io/gpuclass": 1}}),
        "newObj": _device_class("myclass", "example.com/gpu"),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-on-class-add-with-explicit-extended-resource-name-not-matching": {
        "pod": newResourcePod({"scalarResources": {"example.com/othergpu": 1}}),
        "newObj": _device_class("myclass", "example.com/gpu"),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/skip-on-class-update-with-implicit-extended-resource-name": {
        "pod": newResourcePod({"scalarResources": {"deviceclass.resource.kubernetes.io/gpuclass": 1}}),
        "newObj": _device_class("gpuclass", "example.com/gpu"),
        "oldObj": _device_class("gpuclass"),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterDeviceClassChange/queue-on-class-add-with-extended-resource-name": {
        "pod": newResourcePod({"scalarResources": {"example.com/gpu": 1}}),
        "newObj": _device_class(extended_resource_name="example.com/gpu"),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterDeviceClassChange/queue-on-class-update-with-extended-resource-name": {
        "pod": newResourcePod({"scalarResources": {"example.com/gpu": 1}}),
        "newObj": _device_class(extended_resource_name="example.com/gpu"),
        "oldObj": _device_class(extended_resource_name="example.com/gpu1"),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterDeviceClassChange.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterDeviceClassChange))
def test_is_schedulable_after_device_class_change(tc: dict[str, Any]) -> None:
    """The same hint answers DeviceClass/Add (no old object) and DeviceClass/Update."""
    _check_hint("is_schedulable_after_device_class_event",
                "DeviceClass/Update" if tc.get("oldObj") is not None else "DeviceClass/Add", tc, {})


# ---- TestFitSignPod ------------------------------------------------------------------------------
# computePodResourceRequest's fragment is kubeberth.api.signing.resources_signer of the pod.
def computePodResourceRequest(pod: dict[str, Any], _opts: Any = None) -> Any:  # noqa: N802
    return resources_signer(st.pod_info(pod))


def ResourceRequestsOptions() -> None:  # noqa: N802
    return None


def SignFragment(Key: str, Value: Any) -> Any:  # noqa: N802, N803
    return KbSignFragment(Key, Value)


fwk.ResourcesSignerName = RESOURCES_SIGNER  # type: ignore[attr-defined]
TestFitSignPod = {
    "TestFitSignPod/pod with CPU and memory requests": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000"}).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000"}).Obj(), ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestFitSignPod/best-effort pod with no requests": {
        "pod": st.MakePod().Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(st.MakePod().Obj(), ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestFitSignPod/pod with multiple containers": {
        "pod": st.MakePod().Container("container1").Req({v1.ResourceCPU: "500m", v1.ResourceMemory: "1000"})
        .Container("container2").Req({v1.ResourceCPU: "1500m", v1.ResourceMemory: "3000"}).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Container("container1").Req({v1.ResourceCPU: "500m", v1.ResourceMemory: "1000"})
                .Container("container2").Req({v1.ResourceCPU: "1500m", v1.ResourceMemory: "3000"}).Obj(),
                ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
    "TestFitSignPod/DRA extended resource enabled - returns unschedulable": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", extendedResourceName: "1"}).Obj(),
        "disableDRAExtendedResource": False,
        "expectedFragments": None,
        "expectedStatusCode": fwk.Unschedulable,
    },
    "TestFitSignPod/DRA extended resource disabled": {
        "pod": st.MakePod().Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", extendedResourceName: "1"}).Obj(),
        "disableDRAExtendedResource": True,
        "expectedFragments": [
            SignFragment(Key=fwk.ResourcesSignerName, Value=computePodResourceRequest(
                st.MakePod().Container("container1")
                .Req({v1.ResourceCPU: "1000m", v1.ResourceMemory: "2000", extendedResourceName: "1"}).Obj(),
                ResourceRequestsOptions())),
        ],
        "expectedStatusCode": fwk.Success,
    },
}
for _k, _v in TestFitSignPod.items():
    _v["name"] = _k


@pytest.mark.parametrize("test", cases(TestFitSignPod))
def test_fit_sign_pod(test: dict[str, Any]) -> None:
    """DRAExtendedResource is locked on in v1.37: "disabled" is the plugin with it off (upstream's
    nil DRA manager); enabled, the cluster holds upstream's test DRA manager's DeviceClass."""
    p = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=defaultScoringStrategy))
    p.enable_dra_extended_resource = not test["disableDRAExtendedResource"]
    cluster = snapshot([], [], *([] if test["disableDRAExtendedResource"] else [deviceClassWithExtendResourceName]))
    got = p.sign_pod(st.pod_info(test["pod"]), cluster)
    if test["expectedStatusCode"] == fwk.Success:
        assert got == test["expectedFragments"]
    else:
        assert isinstance(got, Status) and got.code == test["expectedStatusCode"]


Test_isSchedulableAfterTargetPodScaleDown = {
    "Test_isSchedulableAfterTargetPodScaleDown/queue-on-target-pod-some-resource-scale-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").Req({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.Queue,
    },
    "Test_isSchedulableAfterTargetPodScaleDown/queue-on-target-pod-some-pod-level-resource-scale-down": {
        "pod": st.MakePod().Name("pod1").UID("pod1").PodLevelResourceRequests({v1.ResourceCPU: "1"}).Obj(),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterTargetPodScaleDown.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterTargetPodScaleDown))
def test_is_schedulable_after_target_pod_scale_down(tc: dict[str, Any]) -> None:
    """Registered without a hint (upstream's always answers Queue): the pending pod's own scale-down retries it."""
    plugin = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=defaultScoringStrategy))
    pod = st.pod_info(tc["pod"])
    assert capabilities_of(plugin).requeues("TargetPod/UpdatePodScaleDown", pod, None, None) == tc["expectedHint"]


Test_isSchedulableAfterTargetPodScaleUp = {
    "Test_isSchedulableAfterTargetPodScaleUp/skip-queue-on-pod-not-deferred": {
        "enablePreemptionGate": True,
        "pod": st.MakePod().Name("pod1").Node("node1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    "Test_isSchedulableAfterTargetPodScaleUp/queue-on-deferred-target-pod-scale-up": {
        "enablePreemptionGate": True,
        "pod": st.MakePod().Name("pod1").Node("node1").Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred).Obj(),
        "expectedHint": fwk.Queue,
    },
}
for _k, _v in Test_isSchedulableAfterTargetPodScaleUp.items():
    _v["name"] = _k


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterTargetPodScaleUp))
def test_is_schedulable_after_target_pod_scale_up(tc: dict[str, Any]) -> None:
    gates = FeatureGates({"InPlacePodVerticalScalingSchedulerPreemption": tc["enablePreemptionGate"]})
    plugin = NodeResourcesFit(NodeResourcesFitArgs(scoringStrategy=defaultScoringStrategy), gates)
    pod = st.pod_info(tc["pod"])
    assert plugin.is_schedulable_after_target_pod_scale_up(pod, None, None) == tc["expectedHint"]
    assert capabilities_of(plugin).requeues("TargetPod/UpdatePodScaleUp", pod, None, None) == tc["expectedHint"]

"""DynamicResources: kube-scheduler v1.37.2's TestPlugin table (dynamicresources_test.go), case by case.

Each case runs the way upstream's testPlugin does: the claims and classes are created in an API
server (here the embedded cluster, whose watch feeds the scheduler's cache at once, as upstream's
informers and assume cache do), then PreEnqueue, PreFilter, Filter per node, Score and
NormalizeScore when more than one node fits, Reserve, PreBind (or Unreserve) and PostFilter when
no node fits. After every step the step's status (upstream compares messages by containment), the
claims in the API server, the cache's copy of the expected assumed claim and the allocations in
flight are compared with the case's expectations, ignoring what upstream ignores (UID,
resourceVersion, the allocated device's name, the allocation timestamp's value).

Upstream's Go table has one quirk a port must keep: the "with-resources-has-finalizer" case sets
the finalizer on the shared `pendingClaim` object while the table is built, so every case sees
`pendingClaim` with the delete-protection finalizer (`pendingClaim` below has it).
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import st
from kubeberth import Code, CycleState, FeatureGates, PreBindPreFlightResult, Status
from kubeberth.api.metrics import REGISTRY
from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from st import GoStatus, fwk
from upstream import call, filter_statuses
from upstream_unported import UNPORTED

FINALIZER = "resource.kubernetes.io/delete-protection"
nodeName, node2Name, node3Name = "worker", "worker-2", "worker-3"
driver, driver2 = "some-driver", "some-driver-2"
podName, podUID = "my-pod", "1234"
podGroupName, podGroupUID = "my-podgroup", "5678"
resourceName = "my-resource"
resourceName2 = resourceName + "-2"
claimName = podName + "-" + resourceName
claimName2 = podName + "-" + resourceName2
className = "my-resource-class"
namespace = "default"
attrName = "healthy"  # device attribute only available on non-default node
TIMESTAMP = "0001-01-01T00:00:00Z"  # new(metav1.Time): non-nil, the value is not compared


# ---- wrappers (pkg/scheduler/testing) ---------------------------------------------------------
class ResourceClaimWrapper:
    """st.ResourceClaimWrapper over a raw ResourceClaim."""

    def __init__(self, obj: dict[str, Any] | None = None) -> None:
        self.obj: dict[str, Any] = copy.deepcopy(obj) if obj is not None else {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {},
            "spec": {"devices": {"requests": []}}}

    def Name(self, s: str) -> ResourceClaimWrapper:  # noqa: N802 - upstream's wrapper names
        self.obj["metadata"]["name"] = s
        return self

    def Namespace(self, s: str) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["namespace"] = s
        return self

    def Request(self, class_name: str) -> ResourceClaimWrapper:  # noqa: N802
        requests = self.obj["spec"]["devices"]["requests"]
        requests.append({"name": f"req-{len(requests) + 1}", "exactly": {
            "allocationMode": "ExactCount", "count": 1, "deviceClassName": class_name}})
        return self

    def RequestWithPrioritizedList(self, *subs: dict[str, Any]) -> ResourceClaimWrapper:  # noqa: N802
        requests = self.obj["spec"]["devices"]["requests"]
        requests.append({"name": f"req-{len(requests) + 1}", "firstAvailable": [copy.deepcopy(s) for s in subs]})
        return self

    def RequestWithName(self, name: str, class_name: str) -> ResourceClaimWrapper:  # noqa: N802
        return self.RequestWithNameCount(name, class_name, 1)

    def RequestWithNameCount(self, name: str, class_name: str, count: int) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["spec"]["devices"]["requests"].append({"name": name, "exactly": {
            "allocationMode": "ExactCount", "count": count, "deviceClassName": class_name}})
        return self

    def GenerateName(self, s: str) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["generateName"] = s
        return self

    def Annotations(self, annotations: dict[str, str]) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["annotations"] = dict(annotations)
        return self

    def OwnerReference(self, name: str, uid: str, kind: tuple[str, str]) -> ResourceClaimWrapper:  # noqa: N802
        self.obj["metadata"]["ownerReferences"] = [
            {"apiVersion": kind[0], "kind": kind[1], "name": name, "uid": uid, "controller": True}]
        return self

    def Allocation(self, allocation: dict[str, Any] | None) -> ResourceClaimWrapper:  # noqa: N802
        finalizers = self.obj["metadata"].setdefault("finalizers", [])
        if FINALIZER not in finalizers:
            finalizers.append(FINALIZER)
        status = self.obj.setdefault("status", {})
        if allocation is None:
            status.pop("allocation", None)
        else:
            status["allocation"] = copy.deepcopy(allocation)
        return self

    def AllocatedDeviceStatuses(self, statuses: list[dict[str, Any]] | None) -> ResourceClaimWrapper:  # noqa: N802
        status = self.obj.setdefault("status", {})
        if statuses is None:
            status.pop("devices", None)
        else:
            status["devices"] = copy.deepcopy(statuses)
        return self

    def ReservedFor(self, *consumers: dict[str, Any]) -> ResourceClaimWrapper:  # noqa: N802
        self.obj.setdefault("status", {})["reservedFor"] = [copy.deepcopy(c) for c in consumers]
        return self

    def ReservedForPod(self, name: str, uid: str) -> ResourceClaimWrapper:  # noqa: N802
        return self.ReservedFor({"resource": "pods", "name": name, "uid": uid})

    def Obj(self) -> dict[str, Any]:  # noqa: N802
        return self.obj


def MakeResourceClaim() -> ResourceClaimWrapper:  # noqa: N802
    return ResourceClaimWrapper()


def FromResourceClaim(other: dict[str, Any]) -> ResourceClaimWrapper:  # noqa: N802
    return ResourceClaimWrapper(other)


def SubRequest(name: str, class_name: str, count: int) -> dict[str, Any]:  # noqa: N802
    return {"name": name, "allocationMode": "ExactCount", "count": count, "deviceClassName": class_name}


def SubRequestWithSelector(name: str, class_name: str, selector: str) -> dict[str, Any]:  # noqa: N802
    return {**SubRequest(name, class_name, 1), "selectors": [{"cel": {"expression": selector}}]}


class ResourceSliceWrapper:
    """st.MakeResourceSlice(nodeName, driverName)."""

    def __init__(self, node: str, drv: str) -> None:
        self.obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                    "metadata": {"name": f"{node}-{drv}"},
                                    "spec": {"nodeName": node, "pool": {"name": node, "resourceSliceCount": 1},
                                             "driver": drv, "devices": []}}

    def Device(self, name: str, attrs: dict[str, Any] | None = None) -> ResourceSliceWrapper:  # noqa: N802
        device: dict[str, Any] = {"name": name}
        if attrs:
            device["attributes"] = copy.deepcopy(attrs)
        self.obj["spec"]["devices"].append(device)
        return self

    def Obj(self) -> dict[str, Any]:  # noqa: N802
        return self.obj


def MakeResourceSlice(node: str, drv: str) -> ResourceSliceWrapper:  # noqa: N802
    return ResourceSliceWrapper(node, drv)


def node_selector_fields(*names: str) -> dict[str, Any]:
    """st.MakeNodeSelector().In("metadata.name", names, st.NodeSelectorTypeMatchFields).Obj()."""
    return st.MakeNodeSelector().In("metadata.name", list(names), st.NodeSelectorTypeMatchFields).Obj()


def pod_with(*claims: dict[str, Any], statuses: list[dict[str, Any]] | None = None,
             group: str | None = None) -> dict[str, Any]:
    pod = st.MakePod().Name(podName).Namespace(namespace).UID(podUID).Obj()
    pod["spec"]["resourceClaims"] = [dict(c) for c in claims]
    pod["spec"].setdefault("containers", [])
    if statuses is not None:
        pod["status"]["resourceClaimStatuses"] = statuses
    if group is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


# ---- dynamicresources_test.go globals -------------------------------------------------------------
podKind = ("v1", "Pod")
podGroupKind = ("scheduling.k8s.io/v1beta1", "PodGroup")
deviceClass = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": className}, "spec": {}}
podWithClaimName = pod_with({"name": resourceName, "resourceClaimName": claimName})
podWithClaimTemplate = pod_with({"name": resourceName, "resourceClaimTemplateName": claimName})
podWithClaimTemplateInStatus = pod_with({"name": resourceName, "resourceClaimTemplateName": claimName},
                                        statuses=[{"name": resourceName, "resourceClaimName": claimName}])
podWithTwoClaimNames = pod_with({"name": resourceName, "resourceClaimName": claimName},
                                {"name": resourceName2, "resourceClaimName": claimName2})
groupedPodWithClaimName = pod_with({"name": resourceName, "resourceClaimName": claimName}, group=podGroupName)
groupedPodWithClaimTemplateInStatus = pod_with({"name": resourceName, "resourceClaimTemplateName": claimName},
                                               statuses=[{"name": resourceName, "resourceClaimName": claimName}],
                                               group=podGroupName)
podGroupReservation = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": podGroupName, "uid": podGroupUID}


def _pod_group(**pod_group_claim: str) -> dict[str, Any]:
    """st.MakePodGroup().Name(podGroupName).Namespace(namespace).UID(podGroupUID).ResourceClaims(...)."""
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": podGroupName, "namespace": namespace, "uid": podGroupUID},
            "spec": {"resourceClaims": [{"name": resourceName, **pod_group_claim}]}}


podGroupWithClaimName = _pod_group(resourceClaimName=claimName)
podGroupWithClaimTemplate = _pod_group(resourceClaimTemplateName=claimName)
WORKLOAD_CLAIMS = {"GenericWorkload": True, "DRAWorkloadResourceClaims": True}  # enableDRAWorkloadResourceClaims

workerNode = st.MakeNode().Name(nodeName).Label("kubernetes.io/hostname", nodeName).Obj()
workerNodeSlice = MakeResourceSlice(nodeName, driver).Device("instance-1").Obj()
largeWorkerNodeSlice = (MakeResourceSlice(nodeName, driver).Device("instance-1").Device("instance-2")
                        .Device("instance-3").Device("instance-4").Obj())
workerNode2 = st.MakeNode().Name(node2Name).Label("kubernetes.io/hostname", node2Name).Obj()
workerNode2Slice = MakeResourceSlice(node2Name, driver).Device("instance-1", {attrName: {"bool": True}}).Obj()
workerNode3 = st.MakeNode().Name(node3Name).Label("kubernetes.io/hostname", node3Name).Obj()
workerNode3Slice = MakeResourceSlice(node3Name, driver).Device("instance-1", {attrName: {"bool": True}}).Obj()
workerNodeWithOptionalNodeOperations = copy.deepcopy(workerNode)
workerNodeWithOptionalNodeOperations["status"]["declaredFeatures"] = ["DRAOptionalNodeOperations"]
brokenSelector = {"cel": {"expression": f'device.attributes["{driver}"].{attrName}'}}

claim = MakeResourceClaim().Name(claimName).Namespace(namespace).Request(className).Obj()
largeClaim = (MakeResourceClaim().Name(claimName).Namespace(namespace).Request(className).Request(className)
              .Request(className).Request(className).Request(className).Obj())
claim2 = MakeResourceClaim().Name(claimName2).Namespace(namespace).Request(className).Obj()
claimWithPrioritzedList = (MakeResourceClaim().Name(claimName).Namespace(namespace)
                           .RequestWithPrioritizedList(SubRequest("subreq-1", className, 1)).Obj())
claimWithPrioritizedListAndSelector = (MakeResourceClaim().Name(claimName).Namespace(namespace).RequestWithPrioritizedList(
    SubRequestWithSelector("subreq-1", className, f'device.attributes["{driver}"].{attrName}'),
    SubRequest("subreq-2", className, 1)).Obj())
claimWithMultiplePrioritizedListRequests = (MakeResourceClaim().Name(claimName).Namespace(namespace)
                                            .RequestWithPrioritizedList(SubRequest("subreq-1", className, 2), SubRequest("subreq-2", className, 1))
                                            .RequestWithPrioritizedList(SubRequest("subreq-1", className, 2), SubRequest("subreq-2", className, 1))
                                            .Obj())
claim2WithPrioritizedListAndMultipleSubrequests = (MakeResourceClaim().Name(claimName2).Namespace(namespace).RequestWithPrioritizedList(
    SubRequest("subreq-1", className, 4), SubRequest("subreq-2", className, 3),
    SubRequest("subreq-3", className, 2), SubRequest("subreq-4", className, 1)).Obj())

# The Go table's "with-resources-has-finalizer" sets this finalizer on the shared object (see above).
pendingClaim = FromResourceClaim(claim).OwnerReference(podName, podUID, podKind).Obj()
pendingClaim["metadata"]["finalizers"] = [FINALIZER]
pendingClaim2 = FromResourceClaim(claim2).OwnerReference(podName, podUID, podKind).Obj()
pendingPodGroupClaim = FromResourceClaim(claim).OwnerReference(podGroupName, podGroupUID, podGroupKind).Obj()
pendingClaimWithPrioritizedList = FromResourceClaim(claimWithPrioritzedList).OwnerReference(podName, podUID, podKind).Obj()
pendingClaimWithPrioritizedListAndSelector = (FromResourceClaim(claimWithPrioritizedListAndSelector)
                                              .OwnerReference(podName, podUID, podKind).Obj())
pendingClaim2WithPrioritizedListAndMultipleSubrequests = (FromResourceClaim(claim2WithPrioritizedListAndMultipleSubrequests)
                                                          .OwnerReference(podName, podUID, podKind).Obj())
pendingClaimWithMultiplePrioritizedListRequests = (FromResourceClaim(claimWithMultiplePrioritizedListRequests)
                                                   .OwnerReference(podName, podUID, podKind).Obj())


def _result(request: str, device: str, drv: str = driver, **extra: Any) -> dict[str, Any]:
    return {"request": request, "driver": drv, "pool": nodeName, "device": device, **extra}


def _allocation(*results: dict[str, Any], selector: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"devices": {"results": list(results)}, "nodeSelector": selector or node_selector_fields(nodeName)}


allocationResult = _allocation(_result("req-1", "instance-1"))
allocationResult2 = _allocation(_result("req-2", "instance-2", driver2))
allocationResultWithPrioritizedList = _allocation(_result("req-1/subreq-1", "instance-1"))
allocationResultWithPrioritizedListAndSelector = _allocation(_result("req-1/subreq-1", "instance-1"))
allocationResultWithPrioritizedListAndMultipleSubrequests = _allocation(
    _result("req-1/subreq-2", "instance-1"), _result("req-1/subreq-2", "instance-2"), _result("req-1/subreq-2", "instance-3"))
allocationResultWithMultiplePrioritizedListRequests = _allocation(
    _result("req-1/subreq-1", "instance-1"), _result("req-1/subreq-1", "instance-2"),
    _result("req-2/subreq-1", "instance-1"), _result("req-2/subreq-1", "instance-2"))
allocationResultWithSkipNodeOperations = copy.deepcopy(allocationResult)
allocationResultWithSkipNodeOperations["devices"]["results"][0]["skipNodeOperations"] = ["All"]

inUseClaim = FromResourceClaim(pendingClaim).Allocation(allocationResult).ReservedForPod(podName, podUID).Obj()
inUseClaimWithPrioritizedList = (FromResourceClaim(pendingClaimWithPrioritizedList).Allocation(allocationResultWithPrioritizedList)
                                 .ReservedForPod(podName, podUID).Obj())
inUseClaimWithPrioritizedListAndSelector = (FromResourceClaim(pendingClaimWithPrioritizedListAndSelector)
                                            .Allocation(allocationResultWithPrioritizedListAndSelector).ReservedForPod(podName, podUID).Obj())
inUseClaim2WithPrioritizedListAndMultipleSubrequests = (FromResourceClaim(pendingClaim2WithPrioritizedListAndMultipleSubrequests)
                                                        .Allocation(allocationResultWithPrioritizedListAndMultipleSubrequests)
                                                        .ReservedForPod(podName, podUID).Obj())
inUseClaimWithMultiplePrioritizedListRequests = (FromResourceClaim(pendingClaimWithMultiplePrioritizedListRequests)
                                                 .Allocation(allocationResultWithMultiplePrioritizedListRequests)
                                                 .ReservedForPod(podName, podUID).Obj())
allocatedClaim = FromResourceClaim(pendingClaim).Allocation(allocationResult).Obj()
allocatedClaim2 = FromResourceClaim(pendingClaim2).Allocation(allocationResult2).Obj()
allocatedPodGroupClaim = FromResourceClaim(pendingPodGroupClaim).Allocation(allocationResult).Obj()
inUseClaimByPodGroup = FromResourceClaim(pendingPodGroupClaim).Allocation(allocationResult).ReservedFor(podGroupReservation).Obj()
allocatedClaimWithPrioritizedList = FromResourceClaim(pendingClaimWithPrioritizedList).Allocation(allocationResultWithPrioritizedList).Obj()
allocatedClaimWithPrioritizedListAndSelector = (FromResourceClaim(pendingClaimWithPrioritizedListAndSelector)
                                                .Allocation(allocationResultWithPrioritizedListAndSelector).Obj())
allocatedClaim2WithPrioritizedListAndMultipleSubrequests = (FromResourceClaim(pendingClaim2WithPrioritizedListAndMultipleSubrequests)
                                                            .Allocation(allocationResultWithPrioritizedListAndMultipleSubrequests).Obj())
allocatedClaimWithMultiplePrioritizedListRequests = (FromResourceClaim(pendingClaimWithMultiplePrioritizedListRequests)
                                                     .Allocation(allocationResultWithMultiplePrioritizedListRequests).Obj())
allocatedClaimWithWrongTopology = FromResourceClaim(allocatedClaim).Allocation(
    {"nodeSelector": st.MakeNodeSelector().In("no-such-label", ["no-such-value"], st.NodeSelectorTypeMatchExpressions).Obj()}).Obj()
allocatedClaimWithGoodTopology = FromResourceClaim(allocatedClaim).Allocation(
    {"nodeSelector": st.MakeNodeSelector().In("kubernetes.io/hostname", [nodeName], st.NodeSelectorTypeMatchExpressions).Obj()}).Obj()
allocatedClaimWithSkipNodeOperations = FromResourceClaim(pendingClaim).Allocation(allocationResultWithSkipNodeOperations).Obj()
otherClaim = MakeResourceClaim().Name("not-my-claim").Namespace(namespace).Request(className).Obj()
otherAllocatedClaim = FromResourceClaim(otherClaim).Allocation(allocationResult).Obj()
otherAllocatedClaimOtherDevice = copy.deepcopy(otherAllocatedClaim)
otherAllocatedClaimOtherDevice["status"]["allocation"]["devices"]["results"][0]["device"] += "-other"

# ---- extended resources backed by DRA ---------------------------------------------------------
extendedResourceName = "example.com/gpu"
extendedResourceName2 = "example.com/gpu2"
implicitExtendedResourceName = "deviceclass.resource.kubernetes.io/my-resource-class"
specialClaimInMemName = "<extended-resources>"
deviceClassWithExtendResourceName = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": className},
                                     "spec": {"extendedResourceName": extendedResourceName}}
deviceClassWithExtendResourceName2 = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                      "metadata": {"name": className + "2"}, "spec": {"extendedResourceName": extendedResourceName2}}
podWithExtendedResourceName = st.MakePod().Name(podName).Namespace(namespace).UID(podUID).Req({extendedResourceName: "1"}).Obj()
podWithExtendedResourceName2 = (st.MakePod().Name(podName).Namespace(namespace).UID(podUID)
                                .Req({extendedResourceName: "1", extendedResourceName2: "1"}).Obj())
podWithImplicitExtendedResourceName = (st.MakePod().Name(podName).Namespace(namespace).UID(podUID)
                                       .Req({implicitExtendedResourceName: "1", extendedResourceName: "2"}).Obj())
podWithImplicitExtendedResourceNameTwoContainers = (st.MakePod().Name(podName).Namespace(namespace).UID(podUID)
                                                    .Req({implicitExtendedResourceName: "1"}).Req({extendedResourceName: "2"}).Obj())
workerNodeWithExtendedResource = (st.MakeNode().Name(nodeName).Label("kubernetes.io/hostname", nodeName)
                                  .Capacity({extendedResourceName: "1"}).Obj())
workerNodeWithExtendedResourceZeroAllocatable = (st.MakeNode().Name(nodeName).Label("kubernetes.io/hostname", nodeName)
                                                 .Capacity({extendedResourceName: "0"}).Obj())
extendedResourceAllocationResult = _allocation(_result("container-0-request-0", "instance-1"))
extendedResourceAllocationResult2 = _allocation(_result("container-0-request-1", "instance-1"))
implicitExtendedResourceAllocationResult = _allocation(
    _result("container-0-request-0", "instance-1"), _result("container-0-request-1", "instance-2"),
    _result("container-0-request-1", "instance-3"))
implicitExtendedResourceAllocationResultTwoContainers = _allocation(
    _result("container-0-request-0", "instance-1"), _result("container-1-request-0", "instance-2"),
    _result("container-1-request-0", "instance-3"))
extendedResourceAllocationResultNode2 = _allocation(_result("container-0-request-0", "instance-1"),
                                                    selector=node_selector_fields(node2Name))


def _extended_claim(name: str, *requests: tuple[str, str, int], allocation: dict[str, Any]) -> dict[str, Any]:
    w = (MakeResourceClaim().Name(name).GenerateName("my-pod-extended-resources-").Namespace(namespace)
         .Annotations({"resource.kubernetes.io/extended-resource-claim": "true"}).OwnerReference(podName, podUID, podKind))
    for request, cls, count in requests:
        w.RequestWithNameCount(request, cls, count)
    return w.Allocation(allocation).Obj()


extendedResourceClaim = _extended_claim("my-pod-extended-resources-0", ("container-0-request-0", className, 1),
                                        allocation=extendedResourceAllocationResult)
extendedResourceClaim2 = _extended_claim("my-pod-extended-resources-0", ("container-0-request-1", className + "2", 1),
                                         allocation=extendedResourceAllocationResult2)
extendedResourceClaimNoName = _extended_claim(specialClaimInMemName, ("container-0-request-0", className, 1),
                                              allocation=extendedResourceAllocationResult)
extendedResourceClaimNoName2 = _extended_claim(specialClaimInMemName, ("container-0-request-1", className + "2", 1),
                                               allocation=extendedResourceAllocationResult2)
implicitExtendedResourceClaim = _extended_claim(
    "my-pod-extended-resources-0", ("container-0-request-0", className, 1), ("container-0-request-1", className, 2),
    allocation=implicitExtendedResourceAllocationResult)
implicitExtendedResourceClaimNoName = _extended_claim(
    specialClaimInMemName, ("container-0-request-0", className, 1), ("container-0-request-1", className, 2),
    allocation=implicitExtendedResourceAllocationResult)
implicitExtendedResourceClaimTwoContainers = _extended_claim(
    "my-pod-extended-resources-0", ("container-0-request-0", className, 1), ("container-1-request-0", className, 2),
    allocation=implicitExtendedResourceAllocationResultTwoContainers)
implicitExtendedResourceClaimNoNameTwoContainers = _extended_claim(
    specialClaimInMemName, ("container-0-request-0", className, 1), ("container-1-request-0", className, 2),
    allocation=implicitExtendedResourceAllocationResultTwoContainers)
extendedResourceClaimNode2 = _extended_claim("my-pod-extended-resources-0", ("container-0-request-0", className, 1),
                                             allocation=extendedResourceAllocationResultNode2)

deviceTaint = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
bindingConditions = ["condition"]
bindingFailureConditions = ["failed"]


def _fabric_slice(drv: str, device: str) -> dict[str, Any]:
    res = MakeResourceSlice(nodeName, drv).Device(device).Obj()
    res["spec"]["devices"][0].update(bindsToNode=True, bindingConditions=bindingConditions,
                                     bindingFailureConditions=bindingFailureConditions)
    res["spec"]["nodeSelector"] = node_selector_fields(nodeName)
    return res


fabricSlice = _fabric_slice(driver, "instance-1")
fabricSlice2 = _fabric_slice(driver2, "instance-2")
allocationResultWithBindingConditions = {
    "allocationTimestamp": TIMESTAMP,
    "devices": {"results": [_result("req-1", "instance-1", bindingConditions=bindingConditions,
                                    bindingFailureConditions=bindingFailureConditions)]},
    "nodeSelector": node_selector_fields(nodeName),
}
allocationResultWithBindingConditions2 = {
    "allocationTimestamp": TIMESTAMP,
    "devices": {"results": [_result("req-2", "instance-2", driver2, bindingConditions=bindingConditions,
                                    bindingFailureConditions=bindingFailureConditions)]},
    "nodeSelector": node_selector_fields(nodeName),
}


def _device_status(drv: str, device: str, *conditions: tuple[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"driver": drv, "pool": nodeName, "device": device}
    if conditions:
        out["conditions"] = [{"type": t, "status": s} for t, s in conditions]
    return out


bindClaim = FromResourceClaim(allocatedClaim).Allocation(allocationResultWithBindingConditions).Obj()
boundClaim = (FromResourceClaim(allocatedClaim).Allocation(allocationResultWithBindingConditions)
              .AllocatedDeviceStatuses([_device_status(driver, "instance-1", ("condition", "True"), ("failed", "False"))]).Obj())
boundClaim2 = (FromResourceClaim(allocatedClaim2).Allocation(allocationResultWithBindingConditions2)
               .AllocatedDeviceStatuses([_device_status(driver2, "instance-2", ("condition", "True"), ("failed", "False"))]).Obj())
failedBindingClaim = (FromResourceClaim(allocatedClaim).Allocation(allocationResultWithBindingConditions)
                      .AllocatedDeviceStatuses([_device_status(driver, "instance-1", ("condition", "False"), ("failed", "True"))]).Obj())
failedBindingClaim2 = (FromResourceClaim(allocatedClaim2).Allocation(allocationResultWithBindingConditions2)
                       .AllocatedDeviceStatuses([_device_status(driver2, "instance-2", ("condition", "False"), ("failed", "True"))]).Obj())


def taintDevices(slice_: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    slice_ = copy.deepcopy(slice_)
    for device in slice_["spec"]["devices"]:
        device.setdefault("taints", []).append(dict(deviceTaint))
    return slice_


def reserve(c: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
    return FromResourceClaim(c).ReservedForPod(pod["metadata"]["name"], pod["metadata"]["uid"]).Obj()


def reserveFor(c: dict[str, Any], *bindings: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    return FromResourceClaim(c).ReservedFor(*bindings).Obj()


def addAllocationTimestamp(c: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    c = copy.deepcopy(c)
    c["status"]["allocation"]["allocationTimestamp"] = TIMESTAMP
    return c


def adminAccess(c: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    c = copy.deepcopy(c)
    for request in c["spec"]["devices"]["requests"]:
        request["exactly"]["adminAccess"] = True
    allocation = (c.get("status") or {}).get("allocation")
    if allocation is not None:
        for result in allocation["devices"]["results"]:
            result["adminAccess"] = True
    return c


def breakCELInClaim(c: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    c = copy.deepcopy(c)
    for request in c["spec"]["devices"]["requests"]:
        selectors = request["exactly"].get("selectors") or []
        request["exactly"]["selectors"] = [dict(brokenSelector) for _ in selectors] or [dict(brokenSelector)]
    return c


def breakCELInClass(cls: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    cls = copy.deepcopy(cls)
    selectors = cls["spec"].get("selectors") or []
    cls["spec"]["selectors"] = [dict(brokenSelector) for _ in selectors] or [dict(brokenSelector)]
    return cls


def updateDeviceClassName(c: dict[str, Any], name: str) -> dict[str, Any]:  # noqa: N802
    c = copy.deepcopy(c)
    for request in c["spec"]["devices"]["requests"]:
        if not request.get("firstAvailable"):
            request["exactly"]["deviceClassName"] = name
        else:
            for sub in request["firstAvailable"]:
                sub["deviceClassName"] = name
    return c


def _with(base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for path, value in fields.items():
        *parents, leaf = path.split("__")
        target = out
        for p in parents:
            target = target.setdefault(p, {})
        target[leaf] = copy.deepcopy(value)
    return out


def _for_claim(name: str, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A `change.claim` function that only touches the claim called `name`."""
    return lambda c: fn(copy.deepcopy(c)) if c["metadata"]["name"] == name else c


def _status_of(status_src: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """claim.Finalizers = allocatedClaim.Finalizers; claim.Status = <src>.Status; addAllocationTimestamp."""
    def change(c: dict[str, Any]) -> dict[str, Any]:
        c["metadata"]["finalizers"] = [FINALIZER]
        c["status"] = copy.deepcopy(status_src["status"])
        return addAllocationTimestamp(c)
    return change


def _reserved_for_of(src: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(c: dict[str, Any]) -> dict[str, Any]:
        c.setdefault("status", {})["reservedFor"] = copy.deepcopy(src["status"]["reservedFor"])
        return addAllocationTimestamp(c)
    return change


def _deallocated(c: dict[str, Any]) -> dict[str, Any]:
    return FromResourceClaim(c).Allocation(None).AllocatedDeviceStatuses(None).Obj()


def _reserved_for_pod(c: dict[str, Any]) -> dict[str, Any]:
    return FromResourceClaim(c).ReservedFor({"resource": "pods", "name": podName, "uid": podUID}).Obj()


def _timed_claim(minutes_ago: float, *conditions: tuple[str, str]) -> dict[str, Any]:
    c = copy.deepcopy(allocatedClaim)
    c["status"]["allocation"] = copy.deepcopy(allocationResultWithBindingConditions)
    at = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=minutes_ago)
    c["status"]["allocation"]["allocationTimestamp"] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    c["status"]["devices"] = [_device_status(driver, "instance-1", *conditions)]
    return c


def _deleted(c: dict[str, Any]) -> dict[str, Any]:
    c = copy.deepcopy(c)
    c["metadata"]["deletionTimestamp"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return c


def _wrong_owner(c: dict[str, Any]) -> dict[str, Any]:
    c = copy.deepcopy(c)
    c["metadata"]["ownerReferences"][0]["uid"] += "123"
    return c


CEL_HINT = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
UNSCHEDULABLE = fwk.NewStatus(fwk.Unschedulable)
CANNOT_ALLOCATE = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "cannot allocate all claims")
NOT_AVAILABLE = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "resourceclaim not available on the node")
DEALLOCATED = fwk.NewStatus(fwk.Unschedulable, "deallocation of ResourceClaim completed")


def _prebind_allocated(src_claim: dict[str, Any], in_use: dict[str, Any], pod: dict[str, Any] = podWithClaimName) -> dict[str, Any]:
    """The common PreBind expectation of a claim the scheduler allocated (with-resources and friends)."""
    return {"assumedClaim": addAllocationTimestamp(reserve(src_claim, pod)),
            "changes": _for_claim(claimName, _status_of(in_use))}


TestPlugin: dict[str, dict[str, Any]] = {
    "TestPlugin/empty": {
        "pod": st.MakePod().Name("foo").Namespace("default").Obj(),
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.Skip)}, "postfilter": {"status": UNSCHEDULABLE},
                 "preBindPreFlightStatus": fwk.NewStatus(fwk.Skip)},
    },
    "TestPlugin/empty-with-extended-resources-enabled": {
        "pod": st.MakePod().Name("foo").Namespace("default").Obj(),
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.Skip)}, "postfilter": {"status": UNSCHEDULABLE},
                 "preBindPreFlightStatus": fwk.NewStatus(fwk.Skip)},
    },
    "TestPlugin/claim-reference": {
        "pod": podWithClaimName,
        "claims": [allocatedClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaim, podWithClaimName)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaim))}},
    },
    "TestPlugin/claim-template": {
        "pod": podWithClaimTemplateInStatus,
        "claims": [allocatedClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaim, podWithClaimTemplateInStatus)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaim))}},
    },
    "TestPlugin/podgroup-claim-reference-feature-disabled-reserves-for-pod": {
        "pod": groupedPodWithClaimName,
        "claims": [allocatedPodGroupClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedPodGroupClaim, groupedPodWithClaimName)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaim))}},
    },
    "TestPlugin/podgroup-claim-reference": {
        "gates": WORKLOAD_CLAIMS,
        "pod": groupedPodWithClaimName,
        "podGroups": [podGroupWithClaimName],
        "claims": [allocatedPodGroupClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserveFor(allocatedPodGroupClaim, podGroupReservation)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaimByPodGroup))}},
    },
    "TestPlugin/podgroup-claim-template": {
        "gates": WORKLOAD_CLAIMS,
        "pod": groupedPodWithClaimTemplateInStatus,
        "podGroups": [podGroupWithClaimTemplate],
        "claims": [allocatedPodGroupClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserveFor(allocatedPodGroupClaim, podGroupReservation)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaimByPodGroup))}},
    },
    "TestPlugin/missing-claim": {
        "pod": podWithClaimTemplate,  # status not set
        "claims": [allocatedClaim, otherClaim],
        "want": {"preenqueue": {"status": fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                                                        'pod "default/my-pod": ResourceClaim not created yet')}},
    },
    "TestPlugin/deleted-claim": {
        "pod": podWithClaimTemplateInStatus,
        "claims": [_deleted(allocatedClaim)],
        "want": {"preenqueue": {"status": fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                                                        'resourceclaim "my-pod-my-resource" is being deleted')}},
    },
    "TestPlugin/wrong-claim": {
        "pod": podWithClaimTemplateInStatus,
        "claims": [_wrong_owner(allocatedClaim)],
        "want": {"preenqueue": {"status": fwk.NewStatus(
            fwk.UnschedulableAndUnresolvable,
            "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod (Pod is not owner)")}},
    },
    "TestPlugin/no-resources": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "want": {"filter": {nodeName: {"status": CANNOT_ALLOCATE}}, "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/with-resources": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/podgroup-with-resources": {
        "gates": WORKLOAD_CLAIMS,
        "pod": groupedPodWithClaimName,
        "podGroups": [podGroupWithClaimName],
        "claims": [pendingPodGroupClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedPodGroupClaim]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserveFor(allocatedPodGroupClaim, podGroupReservation)),
                             "changes": _for_claim(claimName, _status_of(inUseClaimByPodGroup))}},
    },
    "TestPlugin/podgroup-with-resources-feature-disabled-reserves-for-pod": {
        "pod": groupedPodWithClaimName,
        "claims": [pendingPodGroupClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedPodGroupClaim]},
                 "prebind": _prebind_allocated(allocatedPodGroupClaim, inUseClaim, groupedPodWithClaimName)},
    },
    "TestPlugin/with-resources-has-finalizer": {
        # As before. but the finalizer is already set. Could happen if the scheduler got interrupted.
        "pod": podWithClaimName,
        "claims": [_with(pendingClaim, metadata__finalizers=[FINALIZER])],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/with-resources-finalizer-gets-removed": {
        # As before. but the finalizer is already set. Then it gets removed before the scheduler reaches PreBind.
        "pod": podWithClaimName,
        "claims": [_with(pendingClaim, metadata__finalizers=[FINALIZER])],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "prepare": {"prebind": lambda c: _with(c, metadata__finalizers=[])},
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/with-resources-finalizer-gets-added": {
        # No finalizer initially, then it gets added before the scheduler reaches PreBind. Shouldn't happen?
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "prepare": {"prebind": lambda c: _with(c, metadata__finalizers=[FINALIZER])},
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/skip-bind": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]}, "unreserveBeforePreBind": {}},
    },
    "TestPlugin/exhausted-resources-in-informer-cache": {
        "pod": podWithClaimName,
        "claims": [pendingClaim, otherAllocatedClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"filter": {nodeName: {"status": CANNOT_ALLOCATE}}, "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/exhausted-resources-in-flight-claim": {
        "pod": podWithClaimName,
        "claims": [pendingClaim, otherClaim],
        "inFlightClaims": [otherAllocatedClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {
            "preenqueue": {"inFlightClaims": [otherAllocatedClaim]},
            "prefilter": {"inFlightClaims": [otherAllocatedClaim]},
            "filter": {nodeName: {"inFlightClaims": [otherAllocatedClaim], "status": CANNOT_ALLOCATE}},
            "postfilter": {"inFlightClaims": [otherAllocatedClaim], "status": UNSCHEDULABLE},
        },
    },
    "TestPlugin/other-resources-in-flight-claim": {
        "pod": podWithClaimName,
        "claims": [pendingClaim, otherClaim],
        "inFlightClaims": [otherAllocatedClaimOtherDevice],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {
            "preenqueue": {"inFlightClaims": [otherAllocatedClaimOtherDevice]},
            "prefilter": {"inFlightClaims": [otherAllocatedClaimOtherDevice]},
            "filter": {nodeName: {"inFlightClaims": [otherAllocatedClaimOtherDevice]}},
            "reserve": {"inFlightClaims": [allocatedClaim, otherAllocatedClaimOtherDevice]},
            "prebind": {"inFlightClaims": [otherAllocatedClaimOtherDevice],
                        "assumedClaim": addAllocationTimestamp(reserve(allocatedClaim, podWithClaimName)),
                        "changes": _for_claim(claimName, lambda c: addAllocationTimestamp(_with(c, status=inUseClaim["status"])))},
        },
    },
    # The two test cases for device tainting only need to cover whether the feature gate is passed
    # through to the allocator correctly.
    "TestPlugin/tainted-device-disabled": {
        "gates": {"DRADeviceTaints": False, "DRADeviceTaintRules": False},
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [taintDevices(workerNodeSlice)],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/tainted-device-enabled": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [taintDevices(workerNodeSlice)],
        "want": {"filter": {nodeName: {"status": CANNOT_ALLOCATE}}, "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/request-admin-access-with-DRAAdminAccess-featuregate": {
        # Because the pending claim asks for admin access, allocation succeeds despite resources being exhausted.
        "pod": podWithClaimName,
        "claims": [adminAccess(pendingClaim), otherAllocatedClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [adminAccess(allocatedClaim)]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(adminAccess(allocatedClaim), podWithClaimName)),
                             "changes": _for_claim(claimName, _status_of(adminAccess(inUseClaim)))}},
    },
    "TestPlugin/structured-ignore-allocated-admin-access": {
        # The allocated claim uses admin access, so a second claim may use the same device.
        "pod": podWithClaimName,
        "claims": [pendingClaim, adminAccess(otherAllocatedClaim)],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/claim-parameters-CEL-runtime-error": {
        "pod": podWithClaimName,
        "claims": [breakCELInClaim(pendingClaim)],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"filter": {nodeName: {"status": fwk.AsStatus(
            "claim default/my-pod-my-resource: selector #0 on device some-driver/worker/instance-1: CEL runtime error: "
            "no such key: " + attrName + CEL_HINT)}}},
    },
    "TestPlugin/class-parameters-CEL-runtime-error": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [breakCELInClass(deviceClass)],
        "objs": [workerNodeSlice],
        "want": {"filter": {nodeName: {"status": fwk.AsStatus(
            "class my-resource-class: selector #0 on device some-driver/worker/instance-1: CEL runtime error: "
            "no such key: " + attrName + CEL_HINT)}}},
    },
    # When pod scheduling encounters CEL runtime errors for some nodes, but not all, it should
    # still not schedule the pod because there is something wrong with it.
    "TestPlugin/CEL-runtime-error-for-one-of-two-nodes": {
        "nodes": [workerNode, workerNode2],
        "pod": podWithClaimName,
        "claims": [breakCELInClaim(pendingClaim)],
        "classes": [deviceClass],
        "objs": [workerNodeSlice, workerNode2Slice],
        "want": {"filter": {nodeName: {"status": fwk.AsStatus(
            "claim default/my-pod-my-resource: selector #0 on device some-driver/worker/instance-1: CEL runtime error: "
            "no such key: " + attrName + CEL_HINT)}}},
    },
    # When two nodes where found, PreScore gets called.
    "TestPlugin/CEL-runtime-error-for-one-of-three-nodes": {
        "nodes": [workerNode, workerNode2, workerNode3],
        "pod": podWithClaimName,
        "claims": [breakCELInClaim(pendingClaim)],
        "classes": [deviceClass],
        "objs": [workerNodeSlice, workerNode2Slice, workerNode3Slice],
        "want": {"filter": {nodeName: {"status": fwk.NewStatus(
            fwk.UnschedulableAndUnresolvable,
            "claim default/my-pod-my-resource: selector #0 on device some-driver/worker/instance-1: CEL runtime error: "
            "no such key: " + attrName + CEL_HINT)}}},
    },
    "TestPlugin/missing-class": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                                                       f"request req-1: device class {className} does not exist")},
                 "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/wrong-topology": {
        # PostFilter tries to get the pod scheduleable by deallocating the claim.
        "pod": podWithClaimName,
        "claims": [allocatedClaimWithWrongTopology],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 # Claims get deallocated immediately.
                 "postfilter": {"changes": lambda c: FromResourceClaim(c).Allocation(None).Obj(), "status": DEALLOCATED}},
    },
    "TestPlugin/good-topology": {
        "pod": podWithClaimName,
        "claims": [allocatedClaimWithGoodTopology],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaimWithGoodTopology, podWithClaimName)),
                             "changes": lambda c: addAllocationTimestamp(_reserved_for_pod(c))}},
    },
    "TestPlugin/allocated-skip-node-operations-missing-feature": {
        "pod": podWithClaimName,
        "claims": [allocatedClaimWithSkipNodeOperations],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 "postfilter": {"changes": lambda c: FromResourceClaim(c).Allocation(None).Obj(), "status": DEALLOCATED}},
    },
    "TestPlugin/allocated-skip-node-operations-with-feature": {
        "nodes": [workerNodeWithOptionalNodeOperations],
        "pod": podWithClaimName,
        "claims": [allocatedClaimWithSkipNodeOperations],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaimWithSkipNodeOperations, podWithClaimName)),
                             "changes": lambda c: addAllocationTimestamp(_reserved_for_pod(c))}},
    },
    "TestPlugin/bind-failure": {
        "pod": podWithClaimName,
        "claims": [allocatedClaimWithGoodTopology],
        "want": {
            "prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaimWithGoodTopology, podWithClaimName)),
                        "changes": lambda c: addAllocationTimestamp(_reserved_for_pod(c))},
            "unreserveAfterBindFailure": {
                "assumedClaim": addAllocationTimestamp(reserve(allocatedClaimWithGoodTopology, podWithClaimName)),
                "changes": lambda c: _with(c, status__reservedFor=[])},
        },
    },
    "TestPlugin/bind-podgroup-failure": {
        "gates": WORKLOAD_CLAIMS,
        "pod": groupedPodWithClaimName,
        "podGroups": [podGroupWithClaimName],
        "claims": [allocatedPodGroupClaim],
        "want": {
            "prebind": {"assumedClaim": addAllocationTimestamp(reserveFor(allocatedPodGroupClaim, podGroupReservation)),
                        "changes": lambda c: addAllocationTimestamp(FromResourceClaim(c).ReservedFor(podGroupReservation).Obj())},
            # The PodGroup is not removed from ReservedFor.
            "unreserveAfterBindFailure": {
                "assumedClaim": addAllocationTimestamp(reserveFor(allocatedPodGroupClaim, podGroupReservation))},
        },
    },
    "TestPlugin/bind-failure-preserves-inflight-until-unreserve": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "failUpdate": "claim bind error",
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": {"inFlightClaims": [addAllocationTimestamp(allocatedClaim)],
                             "status": fwk.NewStatus(fwk.Unschedulable, "claim bind error")},
                 "unreserveAfterBindFailure": {}},
    },
    "TestPlugin/postfilter-skip-deallocate-reserved-podgroup-feature-disabled": {
        "pod": groupedPodWithClaimName,
        "classes": [deviceClass],
        "claims": [FromResourceClaim(allocatedPodGroupClaim).Allocation(
            {"nodeSelector": st.MakeNodeSelector().In("no-such-label", ["no-such-value"], st.NodeSelectorTypeMatchExpressions).Obj()})
            .ReservedFor({"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": podGroupName, "uid": podGroupUID}).Obj()],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}}, "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/reserved-okay": {
        "pod": podWithClaimName,
        "claims": [inUseClaim],
    },
    "TestPlugin/reserved-okay-podgroup": {
        "gates": WORKLOAD_CLAIMS,
        "pod": groupedPodWithClaimName,
        "podGroups": [podGroupWithClaimName],
        "claims": [inUseClaimByPodGroup],
    },
    "TestPlugin/claim-with-request-with-unknown-device-class": {
        "pod": podWithClaimName,
        "claims": [updateDeviceClassName(claim, "does-not-exist")],
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.Unschedulable, "request req-1: device class does-not-exist does not exist")},
                 "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/claim-with-prioritized-list-unknown-device-class": {
        "pod": podWithClaimName,
        "claims": [updateDeviceClassName(claimWithPrioritzedList, "does-not-exist")],
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.Unschedulable,
                                                       "request req-1/subreq-1: device class does-not-exist does not exist")},
                 "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/claim-with-prioritized-list": {
        "pod": podWithClaimName,
        "claims": [pendingClaimWithPrioritizedList],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaimWithPrioritizedList]},
                 "prebind": _prebind_allocated(allocatedClaimWithPrioritizedList, inUseClaimWithPrioritizedList)},
    },
    "TestPlugin/non-DRA-extended-resource-name-with-zero-allocatable": {
        "nodes": [st.MakeNode().Name(nodeName).Label("kubernetes.io/hostname", nodeName).Capacity({"example.com/gpu": "0"}).Obj()],
        "pod": st.MakePod().Name(podName).Namespace(namespace).UID(podUID).Req({"example.com/gpu": "1"}).Obj(),
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"prefilter": {"status": fwk.NewStatus(fwk.Skip)}, "preBindPreFlightStatus": fwk.NewStatus(fwk.Skip)},
    },
    "TestPlugin/extended-resource-name-with-node-resource": {
        "metrics": {},
        "nodes": [workerNodeWithExtendedResource],
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "want": {},
    },
    "TestPlugin/extended-resource-one-device-plugin-one-dra": {
        "nodes": [workerNodeWithExtendedResource],
        "pod": podWithExtendedResourceName2,
        "classes": [deviceClassWithExtendResourceName, deviceClassWithExtendResourceName2],
        "objs": [workerNodeSlice, podWithExtendedResourceName2],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName2]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(extendedResourceClaim2, podWithExtendedResourceName2)),
                             "added": [addAllocationTimestamp(reserve(extendedResourceClaim2, podWithExtendedResourceName2))]}},
    },
    "TestPlugin/extended-resource-name-with-zero-allocatable": {
        "nodes": [workerNodeWithExtendedResourceZeroAllocatable],
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName)),
                             "added": [addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName))]}},
    },
    "TestPlugin/extended-resource-name-no-resource": {
        "metrics": {},
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "want": {"filter": {nodeName: {"status": CANNOT_ALLOCATE}}, "postfilter": {"status": UNSCHEDULABLE}},
    },
    "TestPlugin/extended-resource-name-with-resources": {
        "metrics": {"success": 1},
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName)),
                             "added": [addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName))]}},
    },
    "TestPlugin/implicit-extended-resource-name-with-resources": {
        "metrics": {"success": 1},
        "pod": podWithImplicitExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [largeWorkerNodeSlice, podWithImplicitExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [implicitExtendedResourceClaimNoName]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(implicitExtendedResourceClaim, podWithImplicitExtendedResourceName)),
                             "added": [addAllocationTimestamp(reserve(implicitExtendedResourceClaim, podWithImplicitExtendedResourceName))]}},
    },
    "TestPlugin/implicit-extended-resource-name-two-containers-with-resources": {
        "metrics": {"success": 1},
        "pod": podWithImplicitExtendedResourceNameTwoContainers,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [largeWorkerNodeSlice, podWithImplicitExtendedResourceNameTwoContainers],
        "want": {"reserve": {"inFlightClaims": [implicitExtendedResourceClaimNoNameTwoContainers]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(implicitExtendedResourceClaimTwoContainers,
                                                                            podWithImplicitExtendedResourceNameTwoContainers)),
                             "added": [addAllocationTimestamp(reserve(implicitExtendedResourceClaimTwoContainers,
                                                                      podWithImplicitExtendedResourceNameTwoContainers))]}},
    },
    "TestPlugin/extended-resource-name-with-resources-fail-patch": {
        "metrics": {"success": 1},
        "failPatch": True,
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        # Upstream keeps the in-memory claim in flight after this PreBind error until Unreserve;
        # kubeberth's hold ends once the cache observes the created claim allocated (its devices
        # stay taken through that claim, until Unreserve deletes it): no in-flight claim here.
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName)),
                             "added": [addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName))],
                             "status": fwk.NewStatus(fwk.Unschedulable, "patch error")}},
    },
    "TestPlugin/extended-resource-name-with-resources-has-claim": {
        "metrics": {},
        "pod": podWithExtendedResourceName,
        "claims": [extendedResourceClaim],
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"filter": {nodeName: {"status": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "cannot schedule extended resource claim")}},
                 "postfilter": {"status": fwk.NewStatus(fwk.Unschedulable, "deletion of ResourceClaim completed"),
                                "removed": [extendedResourceClaim]}},
    },
    "TestPlugin/extended-resource-name-with-resources-delete-claim": {
        "metrics": {},
        "pod": podWithExtendedResourceName,
        "claims": [extendedResourceClaimNode2],
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"filter": {nodeName: {"status": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "cannot schedule extended resource claim")}},
                 "postfilter": {"status": fwk.NewStatus(fwk.Unschedulable, "deletion of ResourceClaim completed"),
                                "removed": [extendedResourceClaimNode2]}},
    },
    "TestPlugin/extended-resource-name-bind-failure": {
        "metrics": {"success": 1},
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName)),
                             "added": [addAllocationTimestamp(reserve(extendedResourceClaim, podWithExtendedResourceName))]},
                 "unreserveAfterBindFailure": {"removed": [reserve(extendedResourceClaim, podWithExtendedResourceName)]}},
    },
    "TestPlugin/extended-resource-name-skip-bind": {
        "metrics": {"success": 1},  # upstream returns before checking it
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]}, "unreserveBeforePreBind": {}},
    },
    "TestPlugin/extended-resource-name-claim-creation-failure": {
        "metrics": {"failure": 1},
        "failCreate": "claim creation errors",
        "pod": podWithExtendedResourceName,
        "classes": [deviceClassWithExtendResourceName],
        "objs": [workerNodeSlice, podWithExtendedResourceName],
        "want": {"reserve": {"inFlightClaims": [extendedResourceClaimNoName]},
                 "prebind": {"inFlightClaims": [extendedResourceClaimNoName],
                             "status": fwk.NewStatus(fwk.Unschedulable, "claim creation errors")},
                 "unreserveAfterBindFailure": {"removed": [reserve(extendedResourceClaim, podWithExtendedResourceName)]}},
    },
    "TestPlugin/timeout": {
        "args": {"filterTimeout": "1ns"},
        "pod": podWithClaimName,
        "claims": [largeClaim],
        "classes": [deviceClass],
        "objs": [largeWorkerNodeSlice],
        # Timeouts return Error so the pod retries via backoff. No postfilter: Error aborts scheduling immediately.
        "want": {"filter": {nodeName: {"status": fwk.AsStatus(f"node {nodeName}: timed out trying to allocate devices")}}},
    },
    "TestPlugin/timeout_disabled": {
        "gates": {"DRASchedulerFilterTimeout": False},
        "args": {},
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/timeout_zero": {
        "args": {"filterTimeout": "0s"},
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": _prebind_allocated(allocatedClaim, inUseClaim)},
    },
    "TestPlugin/dont-add-allocation-timestamp": {
        "gates": {"DRADeviceBindingConditions": False},
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": {"assumedClaim": reserve(allocatedClaim, podWithClaimName),
                             "changes": lambda c: reserve(allocatedClaim, podWithClaimName)}},
    },
    "TestPlugin/add-allocation-timestamp": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [workerNodeSlice],
        "want": {"reserve": {"inFlightClaims": [allocatedClaim]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaim, podWithClaimName)),
                             "changes": lambda c: addAllocationTimestamp(reserve(allocatedClaim, podWithClaimName))}},
    },
    "TestPlugin/add-allocation-timestamp-failure": {
        "pod": podWithClaimName,
        "claims": [allocatedClaim],
        # Simulate deallocation before PreBind runs.
        "prepare": {"prebind": lambda c: FromResourceClaim(c).Allocation(None).Obj()},
        "want": {"prebind": {"status": fwk.AsStatus("claim default/my-pod-my-resource got deallocated elsewhere in the meantime")}},
    },
    "TestPlugin/bind-claim-with-binding-conditions": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [fabricSlice],
        # Time out quickly in PreBind. There's no controller which sets the binding conditions.
        "args": {"bindingTimeout": "1s"},
        "want": {"reserve": {"inFlightClaims": [_with(bindClaim, status__allocation__allocationTimestamp=None)]},  # set in PreBind
                 "prebind": {"inFlightClaims": [bindClaim],
                             "assumedClaim": reserve(bindClaim, podWithClaimName),
                             "changes": lambda c: reserve(bindClaim, podWithClaimName),
                             # From PreBind itself, when checking isPodReadyForBinding times out.
                             "status": fwk.AsStatus("device binding timeout")}},
    },
    "TestPlugin/bind-failure-concurrent-deallocation": {
        "pod": podWithClaimName,
        "claims": [pendingClaim],
        "classes": [deviceClass],
        "objs": [fabricSlice],
        "args": {"bindingTimeout": "1s"},
        "want": {"reserve": {"inFlightClaims": [_with(bindClaim, status__allocation__allocationTimestamp=None)]},
                 "prebind": {"inFlightClaims": [bindClaim],
                             "assumedClaim": reserve(bindClaim, podWithClaimName),
                             "changes": lambda c: reserve(bindClaim, podWithClaimName),
                             "status": fwk.AsStatus("device binding timeout")}},
    },
    "TestPlugin/bound-claim-with-succeeded-binding-conditions": {
        "pod": podWithClaimName,
        "claims": [boundClaim],
        "want": {"prebind": {"assumedClaim": reserve(boundClaim, podWithClaimName), "changes": _reserved_for_pod}},
    },
    "TestPlugin/bound-claim-with-failed-binding": {
        "pod": podWithClaimName,
        "claims": [failedBindingClaim],
        "objs": [workerNodeSlice],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 "postfilter": {"changes": _deallocated, "status": DEALLOCATED}},
    },
    "TestPlugin/bound-claim-with-timed-out-binding": {
        # This claim has binding conditions but is timed out.
        "pod": podWithClaimName,
        "claims": lambda: [_timed_claim(10)],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 "postfilter": {"changes": _deallocated, "status": DEALLOCATED}},
    },
    "TestPlugin/prebind-fail-with-binding-timeout": {
        # Allocated so that the claim is not timed out when the test starts, but times out 10 s later in PreBind.
        "args": {"bindingTimeout": "600s"},
        "pod": podWithClaimName,
        "claims": lambda: [_timed_claim(10 - 10 / 60)],
        "want": {"prebind": {"assumedClaim": "reserve-initial-claim", "changes": _reserved_for_pod,
                             "status": fwk.AsStatus(f"device binding timeout: claim={claim['metadata']['name']}")}},
    },
    "TestPlugin/bound-claim-with-mixed-binding-conditions": {
        "pod": podWithClaimName,
        "claims": lambda: [_timed_claim(10, ("condition1", "True"), ("condition2", "False"))],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 "postfilter": {"changes": _deallocated, "status": DEALLOCATED}},
    },
    "TestPlugin/bound-claim-without-binding-conditions": {
        # When DRADeviceBindingConditions is enabled but the claim has no binding conditions or
        # binding failures, the plugin proceeds as if all conditions are satisfied.
        "pod": podWithClaimTemplateInStatus,
        "claims": [allocatedClaim, otherClaim],
        "want": {"prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaim, podWithClaimTemplateInStatus)),
                             "changes": _for_claim(claimName, _reserved_for_of(inUseClaim))}},
    },
    "TestPlugin/multi-claims-binding-conditions-all-success": {
        "pod": podWithTwoClaimNames,
        "claims": [boundClaim, boundClaim2],
        "classes": [deviceClass],
        "nodes": [workerNode],
        "objs": [fabricSlice, fabricSlice2],
        "want": {"prebind": {"assumedClaim": reserve(boundClaim, podWithTwoClaimNames), "changes": _reserved_for_pod}},
    },
    "TestPlugin/multi-claims-binding-conditions-one-fail": {
        "pod": podWithTwoClaimNames,
        "claims": [boundClaim, failedBindingClaim2],
        "classes": [deviceClass],
        "nodes": [workerNode],
        "objs": [fabricSlice, fabricSlice2],
        "want": {"filter": {nodeName: {"status": NOT_AVAILABLE}},
                 "postfilter": {"changes": lambda c: _deallocated(c) if c["metadata"]["name"] == claimName2 else c,
                                "status": DEALLOCATED}},
    },
    "TestPlugin/single-claim-prioritized-list-scoring": {
        "pod": podWithClaimName,
        "claims": [pendingClaimWithPrioritizedListAndSelector],
        "classes": [deviceClass],
        "nodes": [workerNode, workerNode2],
        "objs": [MakeResourceSlice(nodeName, driver).Device("instance-1", {attrName: {"bool": True}}).Obj(),
                 MakeResourceSlice(node2Name, driver).Device("instance-1", {attrName: {"bool": False}}).Obj()],
        "want": {"scoreResult": {nodeName: 8, node2Name: 7},
                 "normalizeScoreResult": [(nodeName, 100), (node2Name, 87)],
                 "reserve": {"inFlightClaims": [allocatedClaimWithPrioritizedListAndSelector]},
                 "prebind": _prebind_allocated(allocatedClaimWithPrioritizedListAndSelector, inUseClaimWithPrioritizedListAndSelector)},
    },
    "TestPlugin/multiple-claims-prioritized-list-scoring": {
        "pod": podWithTwoClaimNames,
        "claims": [pendingClaimWithPrioritizedList, pendingClaim2WithPrioritizedListAndMultipleSubrequests],
        "classes": [deviceClass],
        "nodes": [workerNode, workerNode2, workerNode3],
        "objs": [MakeResourceSlice(nodeName, driver).Device("instance-1").Device("instance-2").Device("instance-3").Device("instance-4").Obj(),
                 MakeResourceSlice(node2Name, driver).Device("instance-1").Device("instance-2").Obj(),
                 MakeResourceSlice(node3Name, driver).Device("instance-1").Obj()],
        "want": {"filter": {node3Name: {"status": CANNOT_ALLOCATE}},
                 "scoreResult": {nodeName: 15, node2Name: 13},
                 "normalizeScoreResult": [(nodeName, 100), (node2Name, 86)],
                 "reserve": {"inFlightClaims": [allocatedClaimWithPrioritizedList, allocatedClaim2WithPrioritizedListAndMultipleSubrequests]},
                 "prebind": {"assumedClaim": addAllocationTimestamp(reserve(allocatedClaimWithPrioritizedList, podWithTwoClaimNames)),
                             "changes": lambda c: (
                                 _for_claim(claimName, _status_of(inUseClaimWithPrioritizedList))(
                                     _for_claim(claimName2, _status_of(inUseClaim2WithPrioritizedListAndMultipleSubrequests))(c)))}},
    },
    "TestPlugin/multiple-requests-prioritized-list-scoring": {
        "pod": podWithClaimName,
        "claims": [pendingClaimWithMultiplePrioritizedListRequests],
        "classes": [deviceClass],
        "nodes": [workerNode, workerNode2, workerNode3],
        "objs": [MakeResourceSlice(nodeName, driver).Device("instance-1").Device("instance-2").Device("instance-3").Device("instance-4").Obj(),
                 MakeResourceSlice(node2Name, driver).Device("instance-1").Device("instance-2").Device("instance-3").Obj(),
                 MakeResourceSlice(node3Name, driver).Device("instance-1").Device("instance-2").Obj()],
        "want": {"scoreResult": {nodeName: 16, node2Name: 15, node3Name: 14},
                 "normalizeScoreResult": [(nodeName, 100), (node2Name, 93), (node3Name, 87)],
                 "reserve": {"inFlightClaims": [allocatedClaimWithMultiplePrioritizedListRequests]},
                 "prebind": _prebind_allocated(allocatedClaimWithMultiplePrioritizedListRequests, inUseClaimWithMultiplePrioritizedListRequests)},
    },
}


# ---- the test driver (testPlugin's loop) -----------------------------------------------------------
def _normalize(obj: Any) -> Any:
    """cmpopts.EquateEmpty plus upstream's ignored fields: UID, resourceVersion, the device name, the
    allocation timestamp's value."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in ("uid", "resourceVersion", "creationTimestamp", "device", "shareID") and not isinstance(v, (dict, list)):
                continue
            if k == "allocationTimestamp":
                if v:
                    out[k] = "set"
                continue
            v = _normalize(v)
            if v in (None, {}, [], "", False):
                continue
            out[k] = v
        return out
    if isinstance(obj, list):
        return [_normalize(v) for v in obj]
    return obj


def _claim_view(c: dict[str, Any]) -> dict[str, Any]:
    view = _normalize({k: v for k, v in c.items() if k not in ("apiVersion", "kind")})
    # reservedFor entries name pods by uid: keep it there (upstream compares ReservedFor's UID).
    reserved = (c.get("status") or {}).get("reservedFor")
    if reserved:
        view.setdefault("status", {})["reservedFor"] = [
            {k: v for k, v in r.items() if v} for r in reserved
        ]
    return view


def _sorted(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((_claim_view(c) for c in claims), key=lambda c: (c["metadata"].get("namespace", ""), c["metadata"]["name"]))


class Harness:
    """The API server (embedded cluster), the scheduler's cache fed by its watch, the plugin and its Handle."""

    def __init__(self, tc: dict[str, Any]) -> None:
        gates = FeatureGates(tc.get("gates") or {})
        profile: dict[str, Any] = {
            "schedulerName": "default-scheduler",
            "plugins": {"multiPoint": {"enabled": [{"name": "DynamicResources"}, {"name": "DefaultBinder"},
                                                   {"name": "PrioritySort"}],
                                       "disabled": [{"name": "*"}]}},
        }
        if tc.get("args") is not None:
            profile["pluginConfig"] = [{"name": "DynamicResources", "args": tc["args"]}]
        fw = build_generation(config=parse_configuration({"profiles": [profile]}), feature_gates=gates).default_profile
        self.plugin = fw.plugins["DynamicResources"]
        self.backend = EmbeddedCluster()
        self.cluster = ClusterState()
        fail = tc.get("failUpdate")
        if fail:
            backend = self.backend

            def refuse(kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
                return Status.error(fail) if kind == "ResourceClaim" else EmbeddedCluster.update_object(backend, kind, obj, subresource)

            self.backend.update_object = refuse  # type: ignore[method-assign]
        backend_ = self.backend
        counter = iter(range(1 << 30))
        # createReactor: generateName plus a counter, as upstream's fake clientset names objects.
        backend_.generate_name = lambda base: f"{base}{next(counter)}"
        if tc.get("failPatch"):
            backend_.patch_object = lambda *args, **kwargs: Status.error("patch error")  # type: ignore[method-assign]
        if tc.get("failCreate"):
            message = tc["failCreate"]

            def refuse_create(kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
                if kind == "ResourceClaim":
                    return Status.error(message), None
                return EmbeddedCluster.create_object(backend_, kind, obj)

            backend_.create_object = refuse_create  # type: ignore[method-assign]
        for node in tc.get("nodes") or [workerNode]:
            self.cluster.upsert_node(copy.deepcopy(node))
        self.backend.start(self._sink)
        claims = tc.get("claims") or []
        if callable(claims):
            claims = claims()
        for obj in [*claims, *(tc.get("classes") or ()), *(tc.get("podGroups") or ()), *(tc.get("objs") or ())]:
            self.backend.apply(obj)
        for c in tc.get("inFlightClaims") or ():
            self.cluster.devices.assume_allocation(str(c["metadata"].get("uid") or ""), f"{namespace}/{c['metadata']['name']}",
                                                   copy.deepcopy(c), "in-flight")
        self.handle = FrameworkHandle(fw, self.backend, self.cluster, lambda: 0.0, {})
        self.initial_claims = claims

    def _sink(self, ev: ClusterEvent) -> None:
        if ev.type == "SYNCED" or ev.kind in ("Pod", "Node"):
            return
        if ev.type == "DELETED":
            self.cluster.remove_object(ev.kind, ev.obj)
        else:
            self.cluster.upsert_object(ev.kind, copy.deepcopy(ev.obj))

    def claims(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(c) for c in self.backend.list("ResourceClaim")]

    def in_flight(self) -> list[dict[str, Any]]:
        return [item.claim for item in self.cluster.devices.in_flight.values()]

    def update(self, change: Callable[[dict[str, Any]], dict[str, Any]] | None) -> None:
        """updateAPIServer: apply a prepare step's change to every claim in the API server."""
        if change is None:
            return
        for c in self.claims():
            new = change(copy.deepcopy(c))
            if new != c:  # the fake clientset's Update writes spec, metadata and status at once
                assert EmbeddedCluster.update_object(self.backend, "ResourceClaim", copy.deepcopy(new)).ok
                key = f"{namespace}/{new['metadata']['name']}"
                fresh = {**new, "metadata": (self.backend.get_object("ResourceClaim", key) or {})["metadata"]}
                assert EmbeddedCluster.update_object(self.backend, "ResourceClaim", fresh, "status").ok

    def verify(self, step: str, expected: dict[str, Any] | None, before: list[dict[str, Any]], status: Status | None) -> None:
        expected = expected or {}
        want: GoStatus | None = expected.get("status")
        if want is None:
            assert status is None or status.code == Code.SUCCESS, f"{step}: unexpected status {status}"
        elif status is not None and status.code not in (Code.SUCCESS, Code.SKIP, Code.WAIT):
            message = ", ".join(want.reasons)
            assert message in status.message, f"{step}: {status.message!r} does not contain {message!r}"
        else:
            assert status is not None and (status.code, status.reasons) == (want.code, want.reasons), f"{step}: {status} != {want}"
        change = expected.get("changes")
        removed = {(c["metadata"].get("namespace"), c["metadata"]["name"]) for c in expected.get("removed") or ()}
        wanted = [change(copy.deepcopy(c)) if change else c for c in before
                  if (c["metadata"].get("namespace"), c["metadata"]["name"]) not in removed]
        wanted += [copy.deepcopy(c) for c in expected.get("added") or ()]
        assert _sorted(self.claims()) == _sorted(wanted), f"{step}: stored claims differ"
        assumed = expected.get("assumedClaim")
        # Upstream's assume cache may still hold PreBind's write when Unreserve's patch has not come
        # back through its informer yet; kubeberth's cache has it at once (checked just below).
        if assumed is not None and step != "UnreserveAfterBindFailure":
            meta = assumed["metadata"]
            cached = self.cluster.get_object("ResourceClaim", f"{meta['namespace']}/{meta['name']}")
            assert cached is not None and _claim_view(cached) == _claim_view(assumed), f"{step}: assumed claim differs"
        for c in self.claims():  # the cache holds what the API server has (nothing else is assumed)
            cached = self.cluster.get_object("ResourceClaim", f"{c['metadata']['namespace']}/{c['metadata']['name']}")
            assert cached is not None and _claim_view(cached) == _claim_view(c), f"{step}: cache differs from the API server"
        assert _sorted(self.in_flight()) == _sorted(list(expected.get("inFlightClaims") or ())), f"{step}: in-flight claims differ"


CREATES = "dynamic_resource_allocation_resourceclaim_creates_total"


def _creates(status: str) -> float:
    labels = {"status": status, "admin_access": "false", "owner_api_group": "", "owner_api_kind": "Pod"}
    return REGISTRY.get_sample_value(CREATES, labels) or 0.0


def run_case(tc: dict[str, Any]) -> None:
    """testPlugin's loop, then the case's metric check (`metrics`: the claims created per status)
    where upstream gets to it (not after an early return)."""
    before = {s: _creates(s) for s in ("success", "failure")}
    reached_end = _run_steps(tc)
    if reached_end and "metrics" in tc:
        assert {s: _creates(s) - before[s] for s in before} == {"success": 0, "failure": 0, **tc["metrics"]}


def _run_steps(tc: dict[str, Any]) -> bool:
    h = Harness(tc)
    want = tc.get("want") or {}
    prepare = tc.get("prepare") or {}
    plugin, cluster, handle = h.plugin, h.cluster, h.handle
    pod = PodInfo.from_dict(copy.deepcopy(tc["pod"]))
    state = CycleState()

    before = h.claims()
    status = call(plugin, "pre_enqueue", pod=pod, handle=handle)
    h.verify("PreEnqueue", want.get("preenqueue"), before, status)
    if status is not None and status.code != Code.SUCCESS:
        return False

    table = cluster.table
    rows = np.asarray(sorted(table.row_of.values()), dtype=np.int64)
    nodes = table.view(rows)
    status = call(plugin, "pre_filter", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
    h.verify("PreFilter", want.get("prefilter"), before, status)
    unschedulable = status is not None and status.is_rejected
    skipped = status is not None and status.code == Code.SKIP

    potential: list[str] = []
    before = h.claims()
    h.update(prepare.get("filter"))
    if not unschedulable:
        before = h.claims()
        if skipped:  # the framework skips this plugin's Filter: every node passes
            per_node: dict[str, Status | None] = dict.fromkeys(nodes.names)
        else:
            result = call(plugin, "filter", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
            if isinstance(result, Status) and result.code == Code.ERROR:
                # Filter runs node by node upstream: the first node's Error aborts scheduling.
                first = nodes.names[0]
                h.verify(f"Filter/{first}", (want.get("filter") or {}).get(first), before, result)
                return False
            per_node = filter_statuses(result, nodes)
        for name in nodes.names:
            h.verify(f"Filter/{name}", (want.get("filter") or {}).get(name), before, per_node[name])
            if per_node[name] is None:
                potential.append(name)
        unschedulable = not potential

    scores: list[tuple[str, int]] = []
    if not unschedulable and len(potential) > 1:
        before = h.claims()
        h.update(prepare.get("prescore"))
        view = table.view(np.asarray([table.row_of[n] for n in potential], dtype=np.int64))
        raw = call(plugin, "score", state=state, pod=pod, nodes=view, cluster=cluster, handle=handle)
        assert not isinstance(raw, Status), raw
        raw = np.asarray(raw, dtype=np.int64)
        assert dict(zip(potential, raw.tolist(), strict=True)) == {n: (want.get("scoreResult") or {}).get(n, 0) for n in potential}
        normalized = np.asarray(call(plugin, "normalize_score", state=state, pod=pod, nodes=view, scores=raw), dtype=np.int64)
        scores = list(zip(potential, normalized.tolist(), strict=True))
        assert scores == want.get("normalizeScoreResult")

    selected = ""
    if not unschedulable and potential:
        if scores:
            best = scores[0]
            for entry in scores:
                if entry[1] > best[1]:
                    best = entry
            selected = best[0]
        else:
            selected = potential[0]
        before = h.claims()
        h.update(prepare.get("reserve"))
        before = h.claims()
        status = call(plugin, "reserve", state=state, pod=pod, node_name=selected, cluster=cluster, handle=handle)
        h.verify("Reserve", want.get("reserve"), before, status)
        if status is not None and status.code != Code.SUCCESS:
            unschedulable = True

    if selected:
        if unschedulable:
            h.update(prepare.get("unreserve"))
            before = h.claims()
            call(plugin, "unreserve", state=state, pod=pod, node_name=selected, cluster=cluster, handle=handle)
            h.verify("Unreserve", want.get("unreserve"), before, None)
            return True
        if "unreserveBeforePreBind" in want:
            before = h.claims()
            call(plugin, "unreserve", state=state, pod=pod, node_name=selected, cluster=cluster, handle=handle)
            h.verify("UnreserveBeforePreBind", want["unreserveBeforePreBind"], before, None)
            return False
        h.update(prepare.get("prebind"))
        before = h.claims()
        expected = dict(want.get("prebind") or {})
        if expected.get("assumedClaim") == "reserve-initial-claim":  # patchTestCase
            expected["assumedClaim"] = reserve(h.initial_claims[0], tc["pod"])
        flight = call(plugin, "pre_bind_pre_flight", state=state, pod=pod, node_name=selected, handle=handle)
        assert isinstance(flight, PreBindPreFlightResult) and flight.allow_parallel  # {AllowParallel: true}
        want_flight: GoStatus | None = want.get("preBindPreFlightStatus")
        if want_flight is None:
            assert flight.status is None or flight.status.code == Code.SUCCESS, f"PreBindPreFlight: {flight.status}"
        else:
            assert flight.status is not None and (flight.status.code, flight.status.reasons) == (want_flight.code, want_flight.reasons)
        status = call(plugin, "pre_bind", state=state, pod=pod, node_name=selected, handle=handle)
        h.verify("PreBind", expected, before, status)
        if "unreserveAfterBindFailure" in want:
            before = h.claims()
            call(plugin, "unreserve", state=state, pod=pod, node_name=selected, cluster=cluster, handle=handle)
            h.verify("UnreserveAfterBindFailure", want["unreserveAfterBindFailure"], before, None)
    elif not potential:
        h.update(prepare.get("postfilter"))
        before = h.claims()
        status = call(plugin, "post_filter", state=state, pod=pod, cluster=cluster, handle=handle)
        h.verify("PostFilter", want.get("postfilter"), before, status)
    return True


def _params() -> list[Any]:
    out = []
    for name in sorted(set(TestPlugin) | {k for k in UNPORTED if k.startswith("TestPlugin/")}):
        if name in TestPlugin:
            out.append(pytest.param(name, id=name.split("/", 1)[1]))
    return out


@pytest.mark.parametrize("case", _params())
def test_plugin(case: str) -> None:
    run_case(TestPlugin[case])

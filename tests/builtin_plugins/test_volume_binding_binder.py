"""VolumeBinding: kube-scheduler v1.37.2's binder_test.go tables, case by case.

Upstream drives its SchedulerVolumeBinder directly; FindPodVolumes is kubeberth's PreFilter (claims
that make it fail: `shouldFail`) plus Filter (the reasons) on the one node, and the bindings and
provisions chosen for that node are read from the cycle state, as validatePodCache reads PodVolumes.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest
from kubeberth import Code, CycleState
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins import volume_binding
from kubeberth.builtin_plugins.volume_binding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    VolumeBinding,
    bind_pod_volumes,
    check_bindings,
    migrated_plugins,
    migration_topology_key,
    translate_topology,
)
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.testing import cluster_of
from upstream_unported import UNPORTED

ErrReasonBindConflict = ERR_REASON_BIND_CONFLICT
ErrReasonNodeConflict = ERR_REASON_NODE_CONFLICT
ErrReasonNotEnoughSpace = ERR_REASON_NOT_ENOUGH_SPACE
ErrReasonPVNotExist = ERR_REASON_PV_NOT_EXIST

# ---- binder_test.go's fixtures ----------------------------------------------------------------
pvcUnbound, pvcPrebound, pvcBound, pvcSelectedNode = range(4)
provisioner = "test-provisioner"
waitClass = "waitClass"
immediateClass = "immediateClass"
waitClassWithProvisioner = "waitClassWithProvisioner"
topoMismatchClass = "topoMismatchClass"
nodeLabelKey = "nodeKey"
nodeLabelValue = "node1"
AnnSelectedNode = "volume.kubernetes.io/selected-node"
AnnBindCompleted = "pv.kubernetes.io/bind-completed"
AnnBoundByController = "pv.kubernetes.io/bound-by-controller"


def makeTestPVC(name: str, size: str, node: str, pvcBoundState: int, pvName: str, resourceVersion: str,  # noqa: N802, N803
                className: str | None) -> dict[str, Any]:  # noqa: N803
    pvc: dict[str, Any] = {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "metadata": {"name": name, "namespace": "testns", "uid": "pvc-uid", "resourceVersion": resourceVersion},
        "spec": {"resources": {"requests": {"storage": size}}, "storageClassName": className,
                 "volumeMode": "Filesystem"},
    }
    if pvcBoundState == pvcSelectedNode:
        pvc["metadata"].setdefault("annotations", {})[AnnSelectedNode] = node
    if pvcBoundState == pvcBound:
        pvc["metadata"].setdefault("annotations", {})[AnnBindCompleted] = "yes"
    if pvcBoundState in (pvcBound, pvcPrebound):
        pvc["spec"]["volumeName"] = pvName
    return pvc


def makeTestPV(name: str, node: str, capacity: str, version: str, boundToPVC: dict[str, Any] | None,  # noqa: N802, N803
               className: str) -> dict[str, Any]:  # noqa: N803
    pv: dict[str, Any] = {
        "kind": "PersistentVolume",
        "metadata": {"name": name, "resourceVersion": version},
        "spec": {"capacity": {"storage": capacity}, "storageClassName": className, "volumeMode": "Filesystem"},
        "status": {"phase": "Available"},
    }
    if node:
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": nodeLabelKey, "operator": "In", "values": [node]}]},
        ]}}
    if boundToPVC is not None:
        meta = boundToPVC["metadata"]
        pv["spec"]["claimRef"] = {"kind": boundToPVC["kind"], "apiVersion": boundToPVC["apiVersion"],
                                  "resourceVersion": meta["resourceVersion"], "name": meta["name"],
                                  "namespace": meta["namespace"], "uid": meta["uid"]}
        pv["metadata"].setdefault("annotations", {})[AnnBoundByController] = "yes"
    return pv


def makeGenericEphemeralPVC(volumeName: str, owned: bool) -> dict[str, Any]:  # noqa: N802, N803
    pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").withGenericEphemeralVolume("").Pod
    pvc = makeTestPVC(pod["metadata"]["name"] + "-" + volumeName, "1G", "", pvcBound, "pv-bound", "1", immediateClass)
    if owned:
        pvc["metadata"]["ownerReferences"] = [
            {"name": pod["metadata"]["name"], "uid": pod["metadata"].get("uid", ""), "controller": True},
        ]
    return pvc


def makeCSIDriver(name: str, storageCapacity: bool) -> dict[str, Any]:  # noqa: N802, N803
    return {"kind": "CSIDriver", "metadata": {"name": name}, "spec": {"storageCapacity": storageCapacity}}


def makeBinding(pvc: dict[str, Any], pv: dict[str, Any]) -> tuple[str, str]:  # noqa: N802
    """BindingInfo{pvc, pv}, compared by name as validatePodCache compares them."""
    return pvc["metadata"]["name"], pv["metadata"]["name"]


def DynamicProvision(PVC: dict[str, Any]) -> str:  # noqa: N802, N803
    return PVC["metadata"]["name"]


class podBuilder:  # noqa: N801 - test_utils.go
    def __init__(self, name: str) -> None:
        self.Pod: dict[str, Any] = {"kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                                    "spec": {"volumes": []}}

    def withNamespace(self, name: str) -> podBuilder:  # noqa: N802
        self.Pod["metadata"]["namespace"] = name
        return self

    def withNodeName(self, name: str) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["nodeName"] = name
        return self

    def withPVCSVolume(self, pvcs: list[dict[str, Any]]) -> podBuilder:  # noqa: N802
        for i, pvc in enumerate(pvcs):
            self.Pod["spec"]["volumes"].append(
                {"name": f"vol{i}", "persistentVolumeClaim": {"claimName": pvc["metadata"]["name"]}})
        return self

    def withEmptyDirVolume(self) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["volumes"].append({"name": "", "emptyDir": {}})
        return self

    def withGenericEphemeralVolume(self, name: str) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["volumes"].append({"name": name, "ephemeral": {}})
        return self


def makePod(name: str) -> podBuilder:  # noqa: N802
    return podBuilder(name)


def _node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"kind": "Node", "metadata": {"name": name, "labels": labels}}


unboundPVC = makeTestPVC("unbound-pvc", "1G", "", pvcUnbound, "", "1", waitClass)
unboundPVC2 = makeTestPVC("unbound-pvc2", "5G", "", pvcUnbound, "", "1", waitClass)
preboundPVC = makeTestPVC("prebound-pvc", "1G", "", pvcPrebound, "pv-node1a", "1", waitClass)
boundPVC = makeTestPVC("bound-pvc", "1G", "", pvcBound, "pv-bound", "1", waitClass)
immediateUnboundPVC = makeTestPVC("immediate-unbound-pvc", "1G", "", pvcUnbound, "", "1", immediateClass)
immediateBoundPVC = makeTestPVC("immediate-bound-pvc", "1G", "", pvcBound, "pv-bound-immediate", "1", immediateClass)
provisionedPVC = makeTestPVC("provisioned-pvc", "1Gi", "", pvcUnbound, "", "1", waitClassWithProvisioner)
noProvisionerPVC = makeTestPVC("no-provisioner-pvc", "1Gi", "", pvcUnbound, "", "1", waitClass)
topoMismatchPVC = makeTestPVC("topo-mismatch-pvc", "1Gi", "", pvcUnbound, "", "1", topoMismatchClass)
selectedNodePVC = makeTestPVC("provisioned-pvc", "1Gi", nodeLabelValue, pvcSelectedNode, "", "1", waitClassWithProvisioner)
conflictingGenericPVC = makeGenericEphemeralPVC("test-volume", False)
correctGenericPVC = makeGenericEphemeralPVC("test-volume", True)
pvBoundGeneric = makeTestPV("pv-bound", "node1", "1G", "1", correctGenericPVC, waitClass)
pvNode1a = makeTestPV("pv-node1a", "node1", "5G", "1", None, waitClass)
pvNode1b = makeTestPV("pv-node1b", "node1", "10G", "1", None, waitClass)
pvNode2 = makeTestPV("pv-node2", "node2", "1G", "1", None, waitClass)
pvBound = makeTestPV("pv-bound", "node1", "1G", "1", boundPVC, waitClass)
pvNode1aBound = makeTestPV("pv-node1a", "node1", "5G", "1", unboundPVC, waitClass)
pvBoundImmediate = makeTestPV("pv-bound-immediate", "node1", "1G", "1", immediateBoundPVC, immediateClass)
pvBoundImmediateNode2 = makeTestPV("pv-bound-immediate", "node2", "1G", "1", immediateBoundPVC, immediateClass)


def _classes() -> list[dict[str, Any]]:
    """The storage classes newTestBinder adds."""
    def topology(*values: str) -> list[dict[str, Any]]:
        return [{"matchLabelExpressions": [{"key": nodeLabelKey, "values": list(values)}]}]

    return [
        {"kind": "StorageClass", "metadata": {"name": waitClassWithProvisioner}, "volumeBindingMode": "WaitForFirstConsumer",
         "provisioner": provisioner, "allowedTopologies": topology(nodeLabelValue, "reference-value")},
        {"kind": "StorageClass", "metadata": {"name": immediateClass}, "volumeBindingMode": "Immediate"},
        {"kind": "StorageClass", "metadata": {"name": waitClass}, "volumeBindingMode": "WaitForFirstConsumer",
         "provisioner": "kubernetes.io/no-provisioner"},
        {"kind": "StorageClass", "metadata": {"name": topoMismatchClass}, "volumeBindingMode": "WaitForFirstConsumer",
         "provisioner": provisioner, "allowedTopologies": topology("reference-value")},
    ]


testNode = _node("node1", {nodeLabelKey: "node1"})


def find_pod_volumes(pod: dict[str, Any], node: dict[str, Any], objects: list[dict[str, Any]]
                     ) -> tuple[bool, set[str], list[tuple[str, str]], list[str]]:
    """findPodVolumes: (failed, reasons, static bindings, dynamic provisions) for the pod on the node."""
    cluster = cluster_of([copy.deepcopy(node)], [], copy.deepcopy([*_classes(), *objects]))
    plugin, state, pod_info = VolumeBinding(), CycleState(), PodInfo.from_dict(copy.deepcopy(pod))
    status = plugin.pre_filter(state, pod_info, cluster)
    if status is not None and status.code != Code.SKIP:
        return True, set(), [], []
    nodes = cluster.table.view(cluster.table.ordered_rows())
    result = plugin.filter(state, pod_info, nodes, cluster)
    reasons: set[str] = set()
    if result is not None:
        reasons = {r.reason for r in result.rejections if r.nodes[0]}
        assert bool(result.feasible[0]) == (not reasons)
    bindings: list[tuple[str, str]] = []
    provisions: list[str] = []
    found = list(state[plugin.name].results.values()) if plugin.name in state else []
    assert len(found) <= 1  # one node, one evaluation
    for volumes in found:
        bindings = [(pvc["metadata"]["name"], pv["metadata"]["name"]) for pvc, pv in volumes.bindings]
        provisions = [pvc["metadata"]["name"] for pvc in volumes.provisions]
    return False, reasons, bindings, provisions


CSI_DRIVERS = {
    "no CSIDriver": None,
    "CSIDriver with capacity tracking": makeCSIDriver(provisioner, True),
    "CSIDriver without capacity tracking": makeCSIDriver(provisioner, False),
}


# ---- TestFindPodVolumesWithoutProvisioning ---------------------------------------------------------
TestFindPodVolumesWithoutProvisioning: dict[str, dict[str, Any]] = {
    "TestFindPodVolumesWithoutProvisioning/no-volumes": {
        "pod": makePod("test-pod").withNamespace("testns").withNodeName("node1").Pod,
    },
    "TestFindPodVolumesWithoutProvisioning/no-pvcs": {
        "pod": makePod("test-pod").withNamespace("testns").withNodeName("node1").withEmptyDirVolume().Pod,
    },
    "TestFindPodVolumesWithoutProvisioning/pvc-not-found": {
        "cachePVCs": [],
        "podPVCs": [boundPVC],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/bound-pvc": {
        "podPVCs": [boundPVC],
        "pvs": [pvBound],
    },
    "TestFindPodVolumesWithoutProvisioning/bound-pvc,pv-not-exists": {
        "podPVCs": [boundPVC],
        "shouldFail": False,
        "reasons": [ErrReasonPVNotExist],
    },
    "TestFindPodVolumesWithoutProvisioning/prebound-pvc": {
        "podPVCs": [preboundPVC],
        "pvs": [pvNode1aBound],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/unbound-pvc,pv-same-node": {
        "podPVCs": [unboundPVC],
        "pvs": [pvNode2, pvNode1a, pvNode1b],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a)],
    },
    "TestFindPodVolumesWithoutProvisioning/unbound-pvc,pv-different-node": {
        "podPVCs": [unboundPVC],
        "pvs": [pvNode2],
        "reasons": [ErrReasonBindConflict],
    },
    "TestFindPodVolumesWithoutProvisioning/two-unbound-pvcs": {
        "podPVCs": [unboundPVC, unboundPVC2],
        "pvs": [pvNode1a, pvNode1b],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)],
    },
    "TestFindPodVolumesWithoutProvisioning/two-unbound-pvcs,order-by-size": {
        "podPVCs": [unboundPVC2, unboundPVC],
        "pvs": [pvNode1a, pvNode1b],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a), makeBinding(unboundPVC2, pvNode1b)],
    },
    "TestFindPodVolumesWithoutProvisioning/two-unbound-pvcs,partial-match": {
        "podPVCs": [unboundPVC, unboundPVC2],
        "pvs": [pvNode1a],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a)],
        "reasons": [ErrReasonBindConflict],
    },
    "TestFindPodVolumesWithoutProvisioning/one-bound,one-unbound": {
        "podPVCs": [unboundPVC, boundPVC],
        "pvs": [pvBound, pvNode1a],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a)],
    },
    "TestFindPodVolumesWithoutProvisioning/one-bound,one-unbound,no-match": {
        "podPVCs": [unboundPVC, boundPVC],
        "pvs": [pvBound, pvNode2],
        "reasons": [ErrReasonBindConflict],
    },
    "TestFindPodVolumesWithoutProvisioning/one-prebound,one-unbound": {
        "podPVCs": [unboundPVC, preboundPVC],
        "pvs": [pvNode1a, pvNode1b],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/immediate-bound-pvc": {
        "podPVCs": [immediateBoundPVC],
        "pvs": [pvBoundImmediate],
    },
    "TestFindPodVolumesWithoutProvisioning/immediate-bound-pvc-wrong-node": {
        "podPVCs": [immediateBoundPVC],
        "pvs": [pvBoundImmediateNode2],
        "reasons": [ErrReasonNodeConflict],
    },
    "TestFindPodVolumesWithoutProvisioning/immediate-unbound-pvc": {
        "podPVCs": [immediateUnboundPVC],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/immediate-unbound-pvc,delayed-mode-bound": {
        "podPVCs": [immediateUnboundPVC, boundPVC],
        "pvs": [pvBound],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/immediate-unbound-pvc,delayed-mode-unbound": {
        "podPVCs": [immediateUnboundPVC, unboundPVC],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/generic-ephemeral,no-pvc": {
        "pod": makePod("test-pod").withNamespace("testns").withNodeName("node1")
        .withGenericEphemeralVolume("no-such-pvc").Pod,
        "shouldFail": True,
    },
    "TestFindPodVolumesWithoutProvisioning/generic-ephemeral,with-pvc": {
        "pod": makePod("test-pod").withNamespace("testns").withNodeName("node1")
        .withGenericEphemeralVolume("test-volume").Pod,
        "cachePVCs": [correctGenericPVC],
        "pvs": [pvBoundGeneric],
    },
    "TestFindPodVolumesWithoutProvisioning/generic-ephemeral,wrong-pvc": {
        "pod": makePod("test-pod").withNamespace("testns").withNodeName("node1")
        .withGenericEphemeralVolume("test-volume").Pod,
        "cachePVCs": [conflictingGenericPVC],
        "pvs": [pvBoundGeneric],
        "shouldFail": True,
    },
}


def _run_find(scenario: dict[str, Any], csi_driver: dict[str, Any] | None,
              ) -> tuple[bool, set[str], list[tuple[str, str]], list[str]]:
    cache_pvcs = scenario.get("cachePVCs")
    if cache_pvcs is None:
        cache_pvcs = scenario.get("podPVCs", [])
    pod = scenario.get("pod")
    if pod is None:
        pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").withPVCSVolume(scenario["podPVCs"]).Pod
    objects = [*scenario.get("pvs", []), *cache_pvcs, *([csi_driver] if csi_driver is not None else [])]
    return find_pod_volumes(pod, testNode, objects)


@pytest.mark.parametrize("driver", list(CSI_DRIVERS))
@pytest.mark.parametrize("name", list(TestFindPodVolumesWithoutProvisioning))
def test_find_pod_volumes_without_provisioning(name: str, driver: str) -> None:
    scenario = TestFindPodVolumesWithoutProvisioning[name]
    failed, reasons, bindings, provisions = _run_find(scenario, CSI_DRIVERS[driver])
    assert failed == scenario.get("shouldFail", False)
    assert reasons == set(scenario.get("reasons", []))
    if not failed:
        assert bindings == scenario.get("expectedBindings", [])
        assert provisions == []


# ---- TestFindPodVolumesWithProvisioning -----------------------------------------------------------
TestFindPodVolumesWithProvisioning: dict[str, dict[str, Any]] = {
    "TestFindPodVolumesWithProvisioning/one-provisioned": {
        "podPVCs": [provisionedPVC],
        "expectedProvisions": [DynamicProvision(PVC=provisionedPVC)],
        "needsCapacity": True,
    },
    "TestFindPodVolumesWithProvisioning/two-unbound-pvcs,one-matched,one-provisioned": {
        "podPVCs": [unboundPVC, provisionedPVC],
        "pvs": [pvNode1a],
        "expectedBindings": [makeBinding(unboundPVC, pvNode1a)],
        "expectedProvisions": [DynamicProvision(PVC=provisionedPVC)],
        "needsCapacity": True,
    },
    "TestFindPodVolumesWithProvisioning/one-bound,one-provisioned": {
        "podPVCs": [boundPVC, provisionedPVC],
        "pvs": [pvBound],
        "expectedProvisions": [DynamicProvision(PVC=provisionedPVC)],
        "needsCapacity": True,
    },
    "TestFindPodVolumesWithProvisioning/one-binding,one-selected-node": {
        "podPVCs": [boundPVC, selectedNodePVC],
        "pvs": [pvBound],
        "expectedProvisions": [DynamicProvision(PVC=selectedNodePVC)],
        "needsCapacity": True,
    },
    "TestFindPodVolumesWithProvisioning/immediate-unbound-pvc": {
        "podPVCs": [immediateUnboundPVC],
        "shouldFail": True,
    },
    "TestFindPodVolumesWithProvisioning/one-immediate-bound,one-provisioned": {
        "podPVCs": [immediateBoundPVC, provisionedPVC],
        "pvs": [pvBoundImmediate],
        "expectedProvisions": [DynamicProvision(PVC=provisionedPVC)],
        "needsCapacity": True,
    },
    "TestFindPodVolumesWithProvisioning/invalid-provisioner": {
        "podPVCs": [noProvisionerPVC],
        "reasons": [ErrReasonBindConflict],
    },
    "TestFindPodVolumesWithProvisioning/volume-topology-unsatisfied": {
        "podPVCs": [topoMismatchPVC],
        "reasons": [ErrReasonBindConflict],
    },
}


@pytest.mark.parametrize("driver", list(CSI_DRIVERS))
@pytest.mark.parametrize("name", list(TestFindPodVolumesWithProvisioning))
def test_find_pod_volumes_with_provisioning(name: str, driver: str) -> None:
    scenario = TestFindPodVolumesWithProvisioning[name]
    csi_driver = CSI_DRIVERS[driver]
    failed, reasons, bindings, provisions = _run_find(scenario, csi_driver)
    assert failed == scenario.get("shouldFail", False)
    expected_reasons = list(scenario.get("reasons", []))
    expected_provisions = scenario.get("expectedProvisions", [])
    if scenario.get("needsCapacity") and csi_driver is not None and csi_driver["spec"]["storageCapacity"]:
        # Without CSIStorageCapacity objects, provisioning is blocked.
        expected_reasons.append(ErrReasonNotEnoughSpace)
        expected_provisions = []
    assert reasons == set(expected_reasons)
    if not failed:
        assert bindings == scenario.get("expectedBindings", [])
        assert provisions == expected_provisions


# ---- TestCheckBindings --------------------------------------------------------------------------
# checkBindings is kubeberth's check_bindings, PreBind's poll: the "API objects" it reads are an
# embedded cluster's (initPVs/initPVCs, then apiPVs/apiPVCs or the deletions); the node comes from
# the scheduler's cache; a binding is the (claim, PV) the pod reserved, a claim to provision has pv None.
AnnSelectedNodeValue = nodeLabelValue
unboundPVC2 = makeTestPVC("unbound-pvc2", "5G", "", pvcUnbound, "", "1", waitClass)
preboundPVCNode1a = makeTestPVC("unbound-pvc", "1G", "", pvcPrebound, "pv-node1a", "1", waitClass)
boundPVCNode1a = makeTestPVC("unbound-pvc", "1G", "", pvcBound, "pv-node1a", "1", waitClass)
provisionedPVCBound = makeTestPVC("provisioned-pvc", "1Gi", "", pvcBound, "pv-bound", "1", waitClassWithProvisioner)
pvNode1bBound = makeTestPV("pv-node1b", "node1", "10G", "1", unboundPVC2, waitClass)
node1 = _node("node1", {nodeLabelKey: "node1"})


def addProvisionAnn(pvc: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    res = copy.deepcopy(pvc)
    res["metadata"].setdefault("annotations", {})[AnnSelectedNode] = nodeLabelValue
    return res


def pvcSetSelectedNode(pvc: dict[str, Any], node: str) -> dict[str, Any]:  # noqa: N802
    res = copy.deepcopy(pvc)
    res["metadata"].setdefault("annotations", {})[AnnSelectedNode] = node
    return res


def pvcSetEmptyAnnotations(pvc: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    res = copy.deepcopy(pvc)
    res["metadata"]["annotations"] = {}
    return res


def pvRemoveClaimUID(pv: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
    res = copy.deepcopy(pv)
    res["spec"]["claimRef"]["uid"] = ""
    return res


TestCheckBindings: dict[str, dict[str, Any]] = {
    "TestCheckBindings/nothing-to-bind-nil": {
        "shouldFail": True,
    },
    "TestCheckBindings/nothing-to-bind-bindings-nil": {
        "provisionedPVCs": [],
        "shouldFail": True,
    },
    "TestCheckBindings/nothing-to-bind-provisionings-nil": {
        "bindings": [],
        "shouldFail": True,
    },
    "TestCheckBindings/nothing-to-bind": {
        "bindings": [],
        "provisionedPVCs": [],
        "expectedBound": True,
    },
    "TestCheckBindings/binding-bound": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a],
        "expectedBound": True,
    },
    "TestCheckBindings/binding-prebound": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "initPVCs": [preboundPVCNode1a],
    },
    "TestCheckBindings/binding-unbound": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "initPVCs": [unboundPVC],
    },
    "TestCheckBindings/binding-pvc-not-exists": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "shouldFail": True,
    },
    "TestCheckBindings/binding-pv-not-exists": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a],
        "deletePVs": True,
        "shouldFail": True,
    },
    "TestCheckBindings/binding-claimref-nil": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1a],
        "initPVCs": [boundPVCNode1a],
        "apiPVs": [pvNode1a],
        "apiPVCs": [boundPVCNode1a],
        "shouldFail": True,
    },
    "TestCheckBindings/binding-claimref-uid-empty": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a],
        "apiPVs": [pvRemoveClaimUID(pvNode1aBound)],
        "apiPVCs": [boundPVCNode1a],
        "shouldFail": True,
    },
    "TestCheckBindings/binding-one-bound,one-unbound": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound), makeBinding(unboundPVC2, pvNode1bBound)],
        "provisionedPVCs": [],
        "initPVs": [pvNode1aBound, pvNode1bBound],
        "initPVCs": [boundPVCNode1a, unboundPVC2],
    },
    "TestCheckBindings/provisioning-pvc-bound": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVs": [pvBound],
        "initPVCs": [provisionedPVCBound],
        "apiPVCs": [addProvisionAnn(provisionedPVCBound)],
        "expectedBound": True,
    },
    "TestCheckBindings/provisioning-pvc-unbound": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVCs": [addProvisionAnn(provisionedPVC)],
    },
    "TestCheckBindings/provisioning-pvc-not-exists": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVCs": [provisionedPVC],
        "deletePVCs": True,
        "shouldFail": True,
    },
    "TestCheckBindings/provisioning-pvc-annotations-nil": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVCs": [provisionedPVC],
        "apiPVCs": [provisionedPVC],
        "shouldFail": True,
    },
    "TestCheckBindings/provisioning-pvc-selected-node-dropped": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVCs": [provisionedPVC],
        "apiPVCs": [pvcSetEmptyAnnotations(provisionedPVC)],
        "shouldFail": True,
    },
    "TestCheckBindings/provisioning-pvc-selected-node-wrong-node": {
        "initPVCs": [provisionedPVC],
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "apiPVCs": [pvcSetSelectedNode(provisionedPVC, "wrong-node")],
        "shouldFail": True,
    },
    "TestCheckBindings/binding-bound-provisioning-unbound": {
        "bindings": [makeBinding(unboundPVC, pvNode1aBound)],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a, addProvisionAnn(provisionedPVC)],
    },
    "TestCheckBindings/tolerate-provisioning-pvc-bound-pv-not-found": {
        "initPVs": [pvNode1a],
        "initPVCs": [provisionedPVC],
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provisionedPVC)],
        "apiPVCs": [addProvisionAnn(provisionedPVCBound)],
        "deletePVs": True,
    },
}


def check_bindings_of(scenario: dict[str, Any], nodes: list[dict[str, Any]],
                      csi_nodes: list[dict[str, Any]]) -> tuple[bool, str]:
    """checkBindings for test-pod on node1 after the scenario's API updates and deletions."""
    pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").Pod
    cluster = cluster_of(copy.deepcopy(nodes), [], copy.deepcopy([*_classes(), *csi_nodes]))
    backend = EmbeddedCluster()
    backend._pv_controller = lambda pv: None  # type: ignore[method-assign]  # the API objects, as given
    for obj in [pod, *scenario.get("initPVs", []), *scenario.get("initPVCs", [])]:
        stored = copy.deepcopy(obj)
        stored["metadata"].setdefault("resourceVersion", "1")  # as the API server assigns one
        backend.apply(stored)
    if scenario.get("deletePVs"):
        for pv in scenario.get("initPVs", []):
            backend.delete("PersistentVolume", pv["metadata"]["name"])
    else:
        for pv in scenario.get("apiPVs", []):
            backend.apply(copy.deepcopy(pv))
    if scenario.get("deletePVCs"):
        for pvc in scenario.get("initPVCs", []):
            backend.delete("PersistentVolumeClaim", f"testns/{pvc['metadata']['name']}")
    else:
        for pvc in scenario.get("apiPVCs", []):
            backend.apply(copy.deepcopy(pvc))
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    handle = FrameworkHandle(fw, backend, cluster, lambda: 0.0, {})
    assignments = [{"claim": f"testns/{pvc}", "pv": pv, "node": "node1"} for pvc, pv in scenario["bindings"]]
    assignments += [{"claim": f"testns/{pvc['metadata']['name']}", "pv": None, "node": "node1"}
                    for pvc in scenario["provisionedPVCs"]]
    return check_bindings(handle, PodInfo.from_dict(pod), assignments)


@pytest.mark.parametrize("name", list(TestCheckBindings))
def test_check_bindings(name: str) -> None:
    scenario = TestCheckBindings[name]
    if name in UNPORTED:
        pytest.skip(UNPORTED[name])
    all_bound, err = check_bindings_of(scenario, [node1], [])
    assert bool(err) == scenario.get("shouldFail", False), err
    assert all_bound == scenario.get("expectedBound", False)


# ---- CSI migration: TestFindPodVolumesWithCSIMigration, TestCheckBindingsWithCSIMigration ---------------
LabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone"
LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
MigratedPluginsAnnotationKey = "storage.alpha.kubernetes.io/migrated-plugins"
zone1Labels = {LabelFailureDomainBetaZone: "us-east-1", LabelFailureDomainBetaRegion: "us-east-1a"}


def makeTestPVForCSIMigration(labels: dict[str, str], pvc: dict[str, Any], migrationEnabled: bool  # noqa: N802, N803
                              ) -> dict[str, Any]:
    pv = makeTestPV("pv-migration-bound", "node1", "1G", "1", pvc, waitClass)
    del pv["spec"]["nodeAffinity"]  # Will be written by the CSI translation lib
    pv["metadata"]["labels"] = dict(labels)
    if migrationEnabled:
        pv["spec"]["gcePersistentDisk"] = {"pdName": "test-disk", "fsType": "ext4", "partition": 0, "readOnly": False}
    else:
        pv["spec"]["rbd"] = {"image": "test-disk"}
    return pv


def makeCSINode(name: str, migratedPlugin: str) -> dict[str, Any]:  # noqa: N802, N803
    return {"kind": "CSINode", "metadata": {"name": name, "annotations": {MigratedPluginsAnnotationKey: migratedPlugin}}}


boundMigrationPVC = makeTestPVC("pvc-migration-bound", "1G", "", pvcBound, "pv-migration-bound", "1", waitClass)
provMigrationPVCBound = makeTestPVC("pvc-migration-provisioned", "1Gi", "", pvcBound, "pv-migration-bound", "1",
                                    waitClassWithProvisioner)
migrationPVBound = makeTestPVForCSIMigration(zone1Labels, boundMigrationPVC, True)
migrationPVBoundToUnbound = makeTestPVForCSIMigration(zone1Labels, unboundPVC, True)
nonmigrationPVBoundToUnbound = makeTestPVForCSIMigration(zone1Labels, unboundPVC, False)
node1Zone1 = _node("node1", {"topology.gke.io/zone": "us-east-1"})
node1Zone2 = _node("node1", {"topology.gke.io/zone": "us-east-2"})
csiNode1Migrated = makeCSINode("node1", "kubernetes.io/gce-pd")
csiNode1NotMigrated = makeCSINode("node1", "")

TestFindPodVolumesWithCSIMigration: dict[str, dict[str, Any]] = {
    "TestFindPodVolumesWithCSIMigration/pvc-bound": {
        "podPVCs": [boundMigrationPVC],
        "pvs": [migrationPVBound],
        "initNodes": [node1Zone1],
        "initCSINodes": [csiNode1Migrated],
    },
    "TestFindPodVolumesWithCSIMigration/pvc-bound,csinode-not-migrated": {
        "podPVCs": [boundMigrationPVC],
        "pvs": [migrationPVBound],
        "initNodes": [node1Zone1],
        "initCSINodes": [csiNode1NotMigrated],
    },
    "TestFindPodVolumesWithCSIMigration/pvc-bound,missing-csinode": {
        "podPVCs": [boundMigrationPVC],
        "pvs": [migrationPVBound],
        "initNodes": [node1Zone1],
    },
    "TestFindPodVolumesWithCSIMigration/pvc-bound,node-different-zone": {
        "podPVCs": [boundMigrationPVC],
        "pvs": [migrationPVBound],
        "initNodes": [node1Zone2],
        "initCSINodes": [csiNode1Migrated],
        "reasons": [ErrReasonNodeConflict],
    },
}


@pytest.mark.parametrize("name", list(TestFindPodVolumesWithCSIMigration))
def test_find_pod_volumes_with_csi_migration(name: str) -> None:
    scenario = TestFindPodVolumesWithCSIMigration[name]
    node = scenario["initNodes"][0] if scenario.get("initNodes") else node1
    pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").withPVCSVolume(scenario["podPVCs"]).Pod
    objects = [*scenario["pvs"], *scenario["podPVCs"], *scenario.get("initCSINodes", [])]
    failed, reasons, _bindings, _provisions = find_pod_volumes(pod, node, objects)
    assert failed == scenario.get("shouldFail", False)
    assert reasons == set(scenario.get("reasons", []))


TestCheckBindingsWithCSIMigration: dict[str, dict[str, Any]] = {
    "TestCheckBindingsWithCSIMigration/provisioning-pvc-bound": {
        "bindings": [],
        "provisionedPVCs": [addProvisionAnn(provMigrationPVCBound)],
        "initPVs": [migrationPVBound],
        "initPVCs": [provMigrationPVCBound],
        "initNodes": [node1Zone1],
        "initCSINodes": [csiNode1Migrated],
        "apiPVCs": [addProvisionAnn(provMigrationPVCBound)],
        "expectedBound": True,
    },
    "TestCheckBindingsWithCSIMigration/binding-node-pv-same-zone": {
        "bindings": [makeBinding(unboundPVC, migrationPVBoundToUnbound)],
        "provisionedPVCs": [],
        "initPVs": [migrationPVBoundToUnbound],
        "initPVCs": [unboundPVC],
        "initNodes": [node1Zone1],
        "initCSINodes": [csiNode1Migrated],
    },
    "TestCheckBindingsWithCSIMigration/binding-without-csinode": {
        "bindings": [makeBinding(unboundPVC, migrationPVBoundToUnbound)],
        "provisionedPVCs": [],
        "initPVs": [migrationPVBoundToUnbound],
        "initPVCs": [unboundPVC],
        "initNodes": [node1Zone1],
        "initCSINodes": [],
    },
    "TestCheckBindingsWithCSIMigration/binding-non-migrated-plugin": {
        "bindings": [makeBinding(unboundPVC, migrationPVBoundToUnbound)],
        "provisionedPVCs": [],
        "initPVs": [migrationPVBoundToUnbound],
        "initPVCs": [unboundPVC],
        "initNodes": [node1Zone1],
        "initCSINodes": [csiNode1NotMigrated],
    },
    "TestCheckBindingsWithCSIMigration/binding-node-pv-in-different-zones": {
        "bindings": [makeBinding(unboundPVC, migrationPVBoundToUnbound)],
        "provisionedPVCs": [],
        "initPVs": [migrationPVBoundToUnbound],
        "initPVCs": [unboundPVC],
        "initNodes": [node1Zone2],
        "initCSINodes": [csiNode1Migrated],
        "shouldFail": True,
    },
    "TestCheckBindingsWithCSIMigration/binding-node-pv-different-zones-migration-off": {
        "bindings": [makeBinding(unboundPVC, nonmigrationPVBoundToUnbound)],
        "provisionedPVCs": [],
        "initPVs": [nonmigrationPVBoundToUnbound],
        "initPVCs": [unboundPVC],
        "initNodes": [node1Zone2],
        "initCSINodes": [csiNode1Migrated],
    },
}


@pytest.mark.parametrize("name", list(TestCheckBindingsWithCSIMigration))
def test_check_bindings_with_csi_migration(name: str) -> None:
    scenario = TestCheckBindingsWithCSIMigration[name]
    all_bound, err = check_bindings_of(scenario, scenario["initNodes"], scenario["initCSINodes"])
    assert bool(err) == scenario.get("shouldFail", False), err
    assert all_bound == scenario.get("expectedBound", False)


def test_csi_migration_per_node_only_for_migratable_bound_pvs() -> None:
    """Only a pod whose bound PV CSI migration may translate is evaluated node by node; others keep one
    evaluation per label set."""
    pod = makePod("test-pod").withNamespace("testns").withPVCSVolume([boundMigrationPVC]).Pod
    for pv, per_node in ((migrationPVBound, True), (nonmigrationPVBoundToUnbound, False)):
        cluster = cluster_of([copy.deepcopy(node1Zone1)], [], copy.deepcopy([*_classes(), pv, boundMigrationPVC]))
        plugin, state = VolumeBinding(), CycleState()
        assert plugin.pre_filter(state, PodInfo.from_dict(copy.deepcopy(pod)), cluster) is None
        assert state[plugin.name].per_node is per_node


def test_translate_topology_rewrites_zone_and_beta_region() -> None:
    """translateTopologyFromInTreeToCSI: a zone requirement is re-keyed to the CSI driver's key, a beta
    region requirement to the GA label; other requirements and the original PV stay as they were."""
    pv = makeTestPV("pv", "", "1G", "1", None, waitClass)
    pv["spec"]["awsElasticBlockStore"] = {"volumeID": "vol"}
    pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": LabelFailureDomainBetaZone, "operator": "In", "values": ["z1"]},
        {"key": LabelFailureDomainBetaRegion, "operator": "In", "values": ["r1"]},
        {"key": "other", "operator": "Exists"},
    ]}]}}
    original = copy.deepcopy(pv)
    key = migration_topology_key(pv)
    assert key == ("kubernetes.io/aws-ebs", "topology.ebs.csi.aws.com/zone")
    out = translate_topology(pv, key[1])
    assert [r["key"] for r in out["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"]] == [
        "topology.ebs.csi.aws.com/zone", "topology.kubernetes.io/region", "other"]
    assert pv == original
    assert migrated_plugins(makeCSINode("n", "kubernetes.io/aws-ebs,kubernetes.io/gce-pd")) == {
        "kubernetes.io/aws-ebs", "kubernetes.io/gce-pd"}
    assert migrated_plugins(None) == frozenset()


# ---- TestBindPodVolumes ------------------------------------------------------------------------------
# BindPodVolumes is kubeberth's bind_pod_volumes (PreBind's body): the API writes, then the poll. The
# API is an embedded cluster with its PV controller and provisioner off, so only the scenario's delay
# function binds; the node comes from the scheduler's cache. Upstream's harness timing is scaled down
# (delay 5 s -> DELAY, bindTimeout 10 s -> TIMEOUT, poll 1 s -> POLL); the delay stays well inside the
# timeout.
DELAY, TIMEOUT, POLL = 0.3, 3.0, 0.05
node1NoLabels = _node("node1", {})
node2 = _node("node2", {nodeLabelKey: "node2"})


def _static_bound_after_time(backend: EmbeddedCluster, pvs: list[dict[str, Any]], pvcs: list[dict[str, Any]]) -> None:
    # Update PVC to be fully bound to PV
    newPVC = copy.deepcopy(pvcs[0])  # noqa: N806
    newPVC["spec"]["volumeName"] = pvs[0]["metadata"]["name"]
    newPVC["metadata"].setdefault("annotations", {})[AnnBindCompleted] = "yes"
    backend.apply(newPVC)


def _dynamic_bound_after_time(backend: EmbeddedCluster, pvs: list[dict[str, Any]], pvcs: list[dict[str, Any]]) -> None:
    # Update PVC to be fully bound to PV
    newPVC = copy.deepcopy(backend.get("PersistentVolumeClaim", f"testns/{pvcs[0]['metadata']['name']}"))  # noqa: N806
    dynamicPV = makeTestPV("dynamic-pv", "node1", "1G", "1", newPVC, waitClass)  # noqa: N806
    backend.apply(dynamicPV)
    newPVC["spec"]["volumeName"] = dynamicPV["metadata"]["name"]
    newPVC["metadata"].setdefault("annotations", {})[AnnBindCompleted] = "yes"
    backend.apply(newPVC)


def _delete_pod(backend: EmbeddedCluster, pvs: list[dict[str, Any]], pvcs: list[dict[str, Any]]) -> None:
    backend.delete("Pod", "testns/test-pod")


def _delete_pvc(backend: EmbeddedCluster, pvs: list[dict[str, Any]], pvcs: list[dict[str, Any]]) -> None:
    # Delete PVC will fail check
    backend.delete("PersistentVolumeClaim", f"testns/{pvcs[0]['metadata']['name']}")


def _bound_to_other_node(backend: EmbeddedCluster, pvs: list[dict[str, Any]], pvcs: list[dict[str, Any]]) -> None:
    # Update PVC to be fully bound to a PV with a different node
    newPVC = copy.deepcopy(pvcs[0])  # noqa: N806
    newPVC["spec"]["volumeName"] = pvNode2["metadata"]["name"]
    newPVC["metadata"].setdefault("annotations", {})[AnnBindCompleted] = "yes"
    backend.apply(newPVC)


TestBindPodVolumes: dict[str, dict[str, Any]] = {
    "TestBindPodVolumes/nothing-to-bind-nil": {
        "bindingsNil": True,
        "shouldFail": True,
    },
    "TestBindPodVolumes/nothing-to-bind-empty": {},
    "TestBindPodVolumes/already-bound": {
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a],
    },
    "TestBindPodVolumes/binding-static-pv-succeeds-after-time": {
        "initPVs": [pvNode1a],
        "initPVCs": [unboundPVC],
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "shouldFail": False,  # Will succeed after PVC is fully bound to this PV by pv controller.
        "delayFunc": _static_bound_after_time,
    },
    "TestBindPodVolumes/binding-dynamic-pv-succeeds-after-time": {
        "claimToProvision": pvcSetSelectedNode(provisionedPVC, "node1"),
        "initPVCs": [provisionedPVC],
        "delayFunc": _dynamic_bound_after_time,
    },
    "TestBindPodVolumes/bound-by-pv-controller-before-bind": {
        "initPVs": [pvNode1a],
        "initPVCs": [unboundPVC],
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "apiPV": pvNode1aBound,
        "apiPVC": boundPVCNode1a,
        "shouldFail": True,  # bindAPIUpdate will fail because API conflict
    },
    "TestBindPodVolumes/pod-deleted-after-time": {
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "initPVs": [pvNode1a],
        "initPVCs": [unboundPVC],
        "delayFunc": _delete_pod,
        "shouldFail": True,
    },
    "TestBindPodVolumes/binding-times-out": {
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "initPVs": [pvNode1a],
        "initPVCs": [unboundPVC],
        "shouldFail": True,
    },
    "TestBindPodVolumes/binding-fails": {
        "binding": makeBinding(unboundPVC2, pvNode1bBound),
        "initPVs": [pvNode1b],
        "initPVCs": [unboundPVC2],
        "shouldFail": True,
    },
    "TestBindPodVolumes/check-fails": {
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "initPVs": [pvNode1a],
        "initPVCs": [unboundPVC],
        "delayFunc": _delete_pvc,
        "shouldFail": True,
    },
    "TestBindPodVolumes/node-affinity-fails": {
        "binding": makeBinding(unboundPVC, pvNode1aBound),
        "initPVs": [pvNode1aBound],
        "initPVCs": [boundPVCNode1a],
        "nodes": [node1NoLabels],
        "shouldFail": True,
    },
    "TestBindPodVolumes/node-affinity-fails-dynamic-provisioning": {
        "initPVs": [pvNode1a, pvNode2],
        "initPVCs": [selectedNodePVC],
        "claimToProvision": selectedNodePVC,
        "nodes": [node1, node2],
        "delayFunc": _bound_to_other_node,
        "shouldFail": True,
    },
}


@pytest.mark.parametrize("name", list(TestBindPodVolumes))
def test_bind_pod_volumes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if name in UNPORTED:
        pytest.skip(UNPORTED[name])
    scenario = TestBindPodVolumes[name]
    monkeypatch.setattr(volume_binding.binder, "BIND_POLL_SECONDS", POLL)
    pod = makePod("test-pod").withNamespace("testns").withNodeName("node1").Pod
    cluster = cluster_of(copy.deepcopy(scenario.get("nodes") or [node1]), [], copy.deepcopy(_classes()))
    backend = EmbeddedCluster()
    backend._pv_controller = lambda pv: None  # type: ignore[method-assign]  # only the delay function binds
    backend._provisioner = lambda pvc: None  # type: ignore[method-assign]
    for obj in [pod, *scenario.get("initPVs", []), *scenario.get("initPVCs", [])]:
        backend.apply(copy.deepcopy(obj))
    assignments = []
    if "binding" in scenario:
        pvc, pv = scenario["binding"]
        # Reserve records the PV's version as the cache saw it (assumeVolumes): the write is guarded by it.
        cached = backend.get("PersistentVolume", pv)
        version = (cached or {}).get("metadata", {}).get("resourceVersion")
        assignments.append({"claim": f"testns/{pvc}", "pv": pv, "node": "node1", "pv_version": version})
    # Before Execute: the API's objects change behind the cache (the PV controller was faster).
    for key in ("apiPV", "apiPVC"):
        if scenario.get(key) is not None:
            changed = copy.deepcopy(scenario[key])
            changed["metadata"]["resourceVersion"] = "2"  # the API server's new version of the object
            backend.apply(changed)
    if "claimToProvision" in scenario:
        assignments.append({"claim": f"testns/{scenario['claimToProvision']['metadata']['name']}", "pv": None,
                            "node": "node1"})
    fw = build_generation(config=parse_configuration({"profiles": [{"schedulerName": "kubeberth"}]})).default_profile
    handle = FrameworkHandle(fw, backend, cluster, lambda: 0.0, {})
    timer = None
    if scenario.get("delayFunc") is not None:
        args = (backend, scenario.get("initPVs", []), scenario.get("initPVCs", []))
        timer = threading.Timer(DELAY, scenario["delayFunc"], args)
        timer.start()
    try:
        err = bind_pod_volumes(handle, PodInfo.from_dict(pod), assignments, TIMEOUT)
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()
    assert bool(err) == scenario.get("shouldFail", False), err

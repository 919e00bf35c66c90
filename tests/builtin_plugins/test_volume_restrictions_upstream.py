"""VolumeRestrictions: kube-scheduler v1.37.2's volume_restrictions_test.go tables, case by case.

A Go NodeInfo without a node (framework.NewNodeInfo(pods...)) is a node row named `<unnamed>` holding
those pods (pods that name their node stay on it)."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.volume_restrictions import VolumeRestrictions
from st import GoStatus, fwk, metav1, v1
from upstream import cases, run_filter, snapshot

ErrReasonDiskConflict = "node(s) had no available disk"
ErrReasonReadWriteOncePodConflict = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)
metav1.NamespaceDefault = "default"  # type: ignore[attr-defined]
metav1.NamespaceSystem = "kube-system"  # type: ignore[attr-defined]


class framework:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/framework
    @staticmethod
    def NewNodeInfo(*pods: dict[str, Any]) -> list[dict[str, Any]]:
        return list(pods)


def go_status(status: Any) -> GoStatus | None:
    if status is None or status.code == fwk.Success:
        return None
    return GoStatus(status.code, tuple(status.reasons))


def _TestGCEDiskConflicts() -> Any:
    volState = {**{"gcePersistentDisk": {"pdName": "foo"}}}
    volState2 = {**{"gcePersistentDisk": {"pdName": "bar"}}}
    volWithNoRestriction = {"name": "volume with no restriction", **{}}
    errStatus = fwk.NewStatus(fwk.Unschedulable, ErrReasonDiskConflict)
    return [
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(),
            "name": "TestGCEDiskConflicts/nothing",
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
            "wantStatus": None,
        },
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestGCEDiskConflicts/one state",
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
            "wantStatus": None,
        },
        {
            "pod": st.MakePod().Volume(volState).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestGCEDiskConflicts/same state",
            "preFilterWantStatus": None,
            "wantStatus": errStatus,
        },
        {
            "pod": st.MakePod().Volume(volState2).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestGCEDiskConflicts/different state",
            "preFilterWantStatus": None,
            "wantStatus": None,
        },
        {
            "pod": st.MakePod().Volume(volWithNoRestriction).Obj(),
            "nodeInfo": framework.NewNodeInfo(),
            "name": "TestGCEDiskConflicts/pod with a volume that doesn't have restrictions",
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
            "wantStatus": None,
        },
    ]


TestGCEDiskConflicts = _TestGCEDiskConflicts()


def _TestAWSDiskConflicts() -> Any:
    volState = {**{"awsElasticBlockStore": {"volumeID": "foo"}}}
    volState2 = {**{"awsElasticBlockStore": {"volumeID": "bar"}}}
    errStatus = fwk.NewStatus(fwk.Unschedulable, ErrReasonDiskConflict)
    return [
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(),
            "name": "TestAWSDiskConflicts/nothing",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestAWSDiskConflicts/one state",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": st.MakePod().Volume(volState).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestAWSDiskConflicts/same state",
            "wantStatus": errStatus,
            "preFilterWantStatus": None,
        },
        {
            "pod": st.MakePod().Volume(volState2).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestAWSDiskConflicts/different state",
            "wantStatus": None,
            "preFilterWantStatus": None,
        },
    ]


TestAWSDiskConflicts = _TestAWSDiskConflicts()


def _TestRBDDiskConflicts() -> Any:
    volState = {**{"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}}
    volState2 = {**{"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}}
    errStatus = fwk.NewStatus(fwk.Unschedulable, ErrReasonDiskConflict)
    return [
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(),
            "name": "TestRBDDiskConflicts/nothing",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestRBDDiskConflicts/one state",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": st.MakePod().Volume(volState).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestRBDDiskConflicts/same state",
            "wantStatus": errStatus,
            "preFilterWantStatus": None,
        },
        {
            "pod": st.MakePod().Volume(volState2).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestRBDDiskConflicts/different state",
            "wantStatus": None,
            "preFilterWantStatus": None,
        },
    ]


TestRBDDiskConflicts = _TestRBDDiskConflicts()


def _TestISCSIDiskConflicts() -> Any:
    volState = {
        **{
            "iscsi": {
                "targetPortal": "127.0.0.1:3260",
                "iqn": "iqn.2016-12.server:storage.target01",
                "fsType": "ext4",
                "lun": 0,
            }
        }
    }
    volState2 = {
        **{
            "iscsi": {
                "targetPortal": "127.0.0.1:3260",
                "iqn": "iqn.2017-12.server:storage.target01",
                "fsType": "ext4",
                "lun": 0,
            }
        }
    }
    errStatus = fwk.NewStatus(fwk.Unschedulable, ErrReasonDiskConflict)
    return [
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(),
            "name": "TestISCSIDiskConflicts/nothing",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestISCSIDiskConflicts/one state",
            "wantStatus": None,
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "pod": st.MakePod().Volume(volState).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestISCSIDiskConflicts/same state",
            "wantStatus": errStatus,
            "preFilterWantStatus": None,
        },
        {
            "pod": st.MakePod().Volume(volState2).Obj(),
            "nodeInfo": framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
            "name": "TestISCSIDiskConflicts/different state",
            "wantStatus": None,
            "preFilterWantStatus": None,
        },
    ]


TestISCSIDiskConflicts = _TestISCSIDiskConflicts()


def _TestAccessModeConflicts() -> Any:
    podWithOnePVC = (
        st.MakePod()
        .Name("pod-with-one-pvc")
        .Namespace(metav1.NamespaceDefault)
        .PVC("claim-with-rwop-1")
        .Node("node-1")
        .Obj()
    )
    podWithTwoPVCs = (
        st.MakePod()
        .Name("pod-with-two-pvcs")
        .Namespace(metav1.NamespaceDefault)
        .PVC("claim-with-rwop-1")
        .PVC("claim-with-rwop-2")
        .Node("node-1")
        .Obj()
    )
    podWithOneConflict = (
        st.MakePod()
        .Name("pod-with-one-conflict")
        .Namespace(metav1.NamespaceDefault)
        .PVC("claim-with-rwop-1")
        .Node("node-1")
        .Obj()
    )
    podWithTwoConflicts = (
        st.MakePod()
        .Name("pod-with-two-conflicts")
        .Namespace(metav1.NamespaceDefault)
        .PVC("claim-with-rwop-1")
        .PVC("claim-with-rwop-2")
        .Node("node-1")
        .Obj()
    )
    podWithReadWriteManyPVC = (
        st.MakePod()
        .Name("pod-with-rwx")
        .Namespace(metav1.NamespaceDefault)
        .PVC("claim-with-rwx")
        .Node("node-1")
        .Obj()
    )
    node = {"kind": "Node", "metadata": {"namespace": "default", "name": "node-1"}}
    readWriteOncePodPVC1 = {
        "kind": "PersistentVolumeClaim",
        "metadata": {"namespace": "default", "name": "claim-with-rwop-1"},
        "spec": {"accessModes": [v1.ReadWriteOncePod]},
    }
    readWriteOncePodPVC2 = {
        "kind": "PersistentVolumeClaim",
        "metadata": {"namespace": "default", "name": "claim-with-rwop-2"},
        "spec": {"accessModes": [v1.ReadWriteOncePod]},
    }
    readWriteManyPVC = {
        "kind": "PersistentVolumeClaim",
        "metadata": {"namespace": "default", "name": "claim-with-rwx"},
        "spec": {"accessModes": [v1.ReadWriteMany]},
    }
    return [
        {
            "name": "TestAccessModeConflicts/nothing",
            "pod": {"kind": "Pod"},
            "nodeInfo": framework.NewNodeInfo(),
            "existingPods": [],
            "existingNodes": [],
            "existingPVCs": [],
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
            "wantStatus": None,
        },
        {
            "name": "TestAccessModeConflicts/failed to get PVC",
            "pod": podWithOnePVC,
            "nodeInfo": framework.NewNodeInfo(),
            "existingPods": [],
            "existingNodes": [],
            "existingPVCs": [],
            "preFilterWantStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, 'persistentvolumeclaim "claim-with-rwop-1" not found'
            ),
            "wantStatus": None,
        },
        {
            "name": "TestAccessModeConflicts/no access mode conflict",
            "pod": podWithOnePVC,
            "nodeInfo": framework.NewNodeInfo(podWithReadWriteManyPVC),
            "existingPods": [podWithReadWriteManyPVC],
            "existingNodes": [node],
            "existingPVCs": [readWriteOncePodPVC1, readWriteManyPVC],
            "preFilterWantStatus": fwk.NewStatus(fwk.Skip),
            "wantStatus": None,
        },
        {
            "name": "TestAccessModeConflicts/access mode conflict, unschedulable",
            "pod": podWithOneConflict,
            "nodeInfo": framework.NewNodeInfo(podWithOnePVC, podWithReadWriteManyPVC),
            "existingPods": [podWithOnePVC, podWithReadWriteManyPVC],
            "existingNodes": [node],
            "existingPVCs": [readWriteOncePodPVC1, readWriteManyPVC],
            "preFilterWantStatus": None,
            "wantStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonReadWriteOncePodConflict),
        },
        {
            "name": "TestAccessModeConflicts/two conflicts, unschedulable",
            "pod": podWithTwoConflicts,
            "nodeInfo": framework.NewNodeInfo(podWithTwoPVCs, podWithReadWriteManyPVC),
            "existingPods": [podWithTwoPVCs, podWithReadWriteManyPVC],
            "existingNodes": [node],
            "existingPVCs": [readWriteOncePodPVC1, readWriteOncePodPVC2, readWriteManyPVC],
            "preFilterWantStatus": None,
            "wantStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonReadWriteOncePodConflict),
        },
    ]


TestAccessModeConflicts = _TestAccessModeConflicts()


def _run(test: dict[str, Any]) -> None:
    nodes = list(test.get("existingNodes") or [])
    placed = []
    for i, p in enumerate(test.get("nodeInfo") or []):
        if not p["spec"].get("nodeName"):
            p = {**p, "metadata": {**p.get("metadata", {}), "name": p.get("metadata", {}).get("name") or f"existing-{i}"},
                 "spec": {**p["spec"], "nodeName": "<unnamed>"}}
        placed.append(p)
    target = placed[0]["spec"]["nodeName"] if placed else "<unnamed>"
    if target not in {n["metadata"]["name"] for n in nodes}:
        nodes.append({"kind": "Node", "metadata": {"name": target}})
    cluster = snapshot(placed, nodes, *(test.get("existingPVCs") or []))
    pre, got = run_filter(VolumeRestrictions(), test["pod"], cluster)
    assert go_status(pre) == test.get("preFilterWantStatus")
    if pre is None or pre.code == fwk.Success:
        assert go_status(got[target]) == test.get("wantStatus")


@pytest.mark.parametrize("test", cases(TestGCEDiskConflicts) + cases(TestAWSDiskConflicts) + cases(TestRBDDiskConflicts)
                         + cases(TestISCSIDiskConflicts) + cases(TestAccessModeConflicts))
def test_volume_restrictions(test: dict[str, Any]) -> None:
    _run(test)


# ---- Test_isSchedulableAfterAssignedPodDeleted (a map keyed by case name upstream; keyed here by test id) ------
def _Test_isSchedulableAfterAssignedPodDeleted() -> dict[str, dict[str, Any]]:
    GCEDiskVolState = {"gcePersistentDisk": {"pdName": "foo"}}
    GCEDiskVolState2 = {"gcePersistentDisk": {"pdName": "bar"}}
    AWSDiskVolState = {"awsElasticBlockStore": {"volumeID": "foo"}}
    AWSDiskVolState2 = {"awsElasticBlockStore": {"volumeID": "bar"}}
    RBDDiskVolState = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
    RBDDiskVolState2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
    ISCSIDiskVolState = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                                   "fsType": "ext4", "lun": 0}}
    ISCSIDiskVolState2 = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01",
                                    "fsType": "ext4", "lun": 0}}

    podGCEDisk = st.MakePod().Volume(GCEDiskVolState).Obj()
    podGCEDiskConflicts = st.MakePod().Volume(GCEDiskVolState).Obj()
    podGCEDiskNoConflicts = st.MakePod().Volume(GCEDiskVolState2).Obj()

    podAWSDisk = st.MakePod().Volume(AWSDiskVolState).Obj()
    podAWSDiskConflicts = st.MakePod().Volume(AWSDiskVolState).Obj()
    podAWSDiskNoConflicts = st.MakePod().Volume(AWSDiskVolState2).Obj()

    podRBDDiskDisk = st.MakePod().Volume(RBDDiskVolState).Obj()
    podRBDDiskDiskConflicts = st.MakePod().Volume(RBDDiskVolState).Obj()
    podRBDDiskNoConflicts = st.MakePod().Volume(RBDDiskVolState2).Obj()

    podISCSIDiskDisk = st.MakePod().Volume(ISCSIDiskVolState).Obj()
    podISCSIDiskConflicts = st.MakePod().Volume(ISCSIDiskVolState).Obj()
    podISCSIDiskNoConflicts = st.MakePod().Volume(ISCSIDiskVolState2).Obj()

    testcases: dict[str, dict[str, Any]] = {
        "Test_isSchedulableAfterAssignedPodDeleted/queue-new-object-gcedisk-conflict": {
            "pod": podGCEDisk, "oldObj": podGCEDiskConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-new-object-gcedisk-no-conflict": {
            "pod": podGCEDisk, "oldObj": podGCEDiskNoConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/queue-new-object-awsdisk-conflict": {
            "pod": podAWSDisk, "oldObj": podAWSDiskConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-new-object-awsdisk-no-conflict": {
            "pod": podAWSDisk, "oldObj": podAWSDiskNoConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/queue-new-object-rbddisk-conflict": {
            "pod": podRBDDiskDisk, "oldObj": podRBDDiskDiskConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-new-object-rbddisk-no-conflict": {
            "pod": podRBDDiskDisk, "oldObj": podRBDDiskNoConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/queue-new-object-iscsidisk-conflict": {
            "pod": podISCSIDiskDisk, "oldObj": podISCSIDiskConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-new-object-iscsidisk-no-conflict": {
            "pod": podISCSIDiskDisk, "oldObj": podISCSIDiskNoConflicts, "existingPods": [], "existingPVC": {},
            "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/queue-has-same-claim": {
            "pod": st.MakePod().Name("pod1").PVC("claim-rwop").Obj(),
            "oldObj": st.MakePod().Name("pod2").PVC("claim-rwop").Obj(),
            "existingPods": [], "existingPVC": {}, "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-no-same-claim": {
            "pod": st.MakePod().Name("pod1").PVC("claim-1-rwop").Obj(),
            "oldObj": st.MakePod().Name("pod2").PVC("claim-2-rwop").Obj(),
            "existingPods": [], "existingPVC": {}, "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
    }
    return {k: {"name": k, **v} for k, v in testcases.items()}


Test_isSchedulableAfterAssignedPodDeleted = _Test_isSchedulableAfterAssignedPodDeleted()


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodDeleted))
def test_is_schedulable_after_assigned_pod_deleted(tc: dict[str, Any]) -> None:
    """The hint as the queue calls it for a placed pod's Pod/Delete (the deleted pod as `old`); upstream's
    listers (existingPods, existingPVC) are not read by this hint."""
    plugin = VolumeRestrictions()
    pod, old = st.pod_info(tc["pod"]), st.pod_info(tc["oldObj"])
    assert plugin.is_schedulable_after_assigned_pod_deleted(pod, old, None) == tc["expectedHint"]
    assert capabilities_of(plugin).requeues("Pod/Delete", pod, old, None) == tc["expectedHint"]


# ---- Test_isSchedulableAfterPersistentVolumeClaimChange -----------------------------------------------------
def _Test_isSchedulableAfterPersistentVolumeClaimChange() -> dict[str, dict[str, Any]]:
    podWithOnePVC = (st.MakePod().Name("pod-with-one-pvc").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwx-1")
                     .Node("node-1").Obj())
    podWithTwoPVCs = (st.MakePod().Name("pod-with-two-pvcs").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwx-1")
                      .PVC("claim-with-rwx-2").Node("node-1").Obj())
    podWithNotEqualNamespace = (st.MakePod().Name("pod-with-one-pvc").Namespace(metav1.NamespaceSystem)
                                .PVC("claim-with-rwx-1").Node("claim-with-rwx-2").Obj())

    PVC1 = {
        "metadata": {"namespace": "default", "name": "claim-with-rwx-1"},
        "spec": {"accessModes": [v1.ReadWriteMany]},
    }
    PVC2 = {
        "metadata": {"namespace": "default", "name": "claim-with-rwx-2"},
        "spec": {"accessModes": [v1.ReadWriteMany]},
    }
    testcases: dict[str, dict[str, Any]] = {
        "Test_isSchedulableAfterPersistentVolumeClaimChange/queue-new-object-pvc-belong-pod": {
            "existingPods": [], "pod": podWithTwoPVCs, "newObj": PVC1, "expectedHint": fwk.Queue, "expectedErr": False,
        },
        "Test_isSchedulableAfterPersistentVolumeClaimChange/skip-new-object-unused": {
            "existingPods": [], "pod": podWithOnePVC, "newObj": PVC2, "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterPersistentVolumeClaimChange/skip-nil-old-object": {
            "existingPods": [], "pod": podWithOnePVC, "newObj": PVC2, "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterPersistentVolumeClaimChange/skip-new-object-not-belong-pod": {
            "existingPods": [], "pod": podWithOnePVC, "newObj": PVC2, "expectedHint": fwk.QueueSkip, "expectedErr": False,
        },
        "Test_isSchedulableAfterPersistentVolumeClaimChange/skip-new-object-namespace-not-equal-pod": {
            "existingPods": [], "pod": podWithNotEqualNamespace, "newObj": PVC1, "expectedHint": fwk.QueueSkip,
            "expectedErr": False,
        },
    }
    return {k: {"name": k, **v} for k, v in testcases.items()}


Test_isSchedulableAfterPersistentVolumeClaimChange = _Test_isSchedulableAfterPersistentVolumeClaimChange()


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterPersistentVolumeClaimChange))
def test_is_schedulable_after_persistent_volume_claim_change(tc: dict[str, Any]) -> None:
    """isSchedulableAfterPersistentVolumeClaimAdded, as the queue calls it for PersistentVolumeClaim/Add."""
    plugin = VolumeRestrictions()
    pod = st.pod_info(tc["pod"])
    got = plugin.is_schedulable_after_persistent_volume_claim_added(pod, tc.get("oldObj"), tc["newObj"])
    assert got == tc["expectedHint"]
    assert capabilities_of(plugin).requeues("PersistentVolumeClaim/Add", pod, None, tc["newObj"]) == tc["expectedHint"]


def test_events_to_register() -> None:
    """EventsToRegister: AssignedPod Delete and PersistentVolumeClaim Add with their hints, Node Add without."""
    caps = capabilities_of(VolumeRestrictions())
    assert caps.requeue_on == {"Pod/Delete", "Node/Add", "PersistentVolumeClaim/Add"}
    assert set(caps.queueing_hints) == {"Pod/Delete", "PersistentVolumeClaim/Add"}
    assert not caps.interested_in("Pod/UpdatePodLabel") and not caps.interested_in("Node/UpdateNodeLabel")

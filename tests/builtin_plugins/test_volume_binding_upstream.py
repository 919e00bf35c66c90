"""VolumeBinding: kube-scheduler v1.37.2's volume_binding_test.go tables, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import Code, CycleState, FeatureGates, PreBindPreFlightResult
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.node_resources_fit import UtilizationShapePoint
from kubeberth.builtin_plugins.volume_binding import (
    STATE_KEY as VOLUME_BINDING_STATE_KEY,
)
from kubeberth.builtin_plugins.volume_binding import (
    VolumeBinding,
    VolumeBindingState,
    capacity_scorer,
)
from st import GoStatus, fwk, ptr, v1
from upstream import cases, run_filter, run_score, snapshot

v1.MigratedPluginsAnnotationKey = "storage.alpha.kubernetes.io/migrated-plugins"  # type: ignore[attr-defined]
v1.NamespaceDefault = "default"  # type: ignore[attr-defined]


class storagev1:  # noqa: N801 - k8s.io/api/storage/v1
    @staticmethod
    def CSINode(ObjectMeta: dict[str, Any]) -> dict[str, Any]:  # noqa: N802, N803
        return {"kind": "CSINode", "metadata": ObjectMeta}

    @staticmethod
    def StorageClass(ObjectMeta: dict[str, Any], AllowedTopologies: Any = None) -> dict[str, Any]:  # noqa: N802, N803
        sc: dict[str, Any] = {"kind": "StorageClass", "metadata": ObjectMeta}
        if AllowedTopologies is not None:
            sc["allowedTopologies"] = AllowedTopologies
        return sc

    @staticmethod
    def CSIStorageCapacity(ObjectMeta: dict[str, Any], Capacity: Any = None,  # noqa: N802, N803
                           MaximumVolumeSize: Any = None) -> dict[str, Any]:  # noqa: N803
        cap: dict[str, Any] = {"kind": "CSIStorageCapacity", "metadata": ObjectMeta}
        if Capacity is not None:
            cap["capacity"] = Capacity
        if MaximumVolumeSize is not None:
            cap["maximumVolumeSize"] = MaximumVolumeSize
        return cap

    @staticmethod
    def CSIDriver(ObjectMeta: dict[str, Any], Spec: dict[str, Any] | None = None) -> dict[str, Any]:  # noqa: N802, N803
        return {"kind": "CSIDriver", "metadata": ObjectMeta, "spec": dict(Spec or {})}

    @staticmethod
    def CSIDriverSpec(StorageCapacity: bool | None = None) -> dict[str, Any]:  # noqa: N802, N803
        return {} if StorageCapacity is None else {"storageCapacity": StorageCapacity}


def ObjectMeta(Name: str, Annotations: dict[str, str] | None = None) -> dict[str, Any]:  # noqa: N802, N803
    meta: dict[str, Any] = {"name": Name}
    if Annotations is not None:
        meta["annotations"] = Annotations
    return meta


def TopologySelectorTerm(MatchLabelExpressions: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N802, N803
    return {"matchLabelExpressions": MatchLabelExpressions}


def TopologySelectorLabelRequirement(Key: str, Values: list[str]) -> dict[str, Any]:  # noqa: N802, N803
    return {"key": Key, "values": Values}


class resource:  # noqa: N801
    DecimalSI = "DecimalSI"

    @staticmethod
    def NewQuantity(value: int, fmt: str) -> str:  # noqa: N802
        return str(value)


class StructZero:
    """Go's new(struct{}): a value that is not an API object (util.As fails on it)."""


def new_struct() -> StructZero:
    return StructZero()


class podBuilder:  # noqa: N801 - test_utils.go
    def __init__(self, name: str) -> None:
        self.Pod: dict[str, Any] = {"kind": "Pod", "metadata": {"name": name, "namespace": v1.NamespaceDefault},
                                    "spec": {"volumes": []}}

    def withNamespace(self, name: str) -> podBuilder:  # noqa: N802
        self.Pod["metadata"]["namespace"] = name
        return self

    def withPVCVolume(self, pvcName: str, name: str) -> podBuilder:  # noqa: N802, N803
        self.Pod["spec"]["volumes"].append({"name": name, "persistentVolumeClaim": {"claimName": pvcName}})
        return self

    def withEmptyDirVolume(self) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["volumes"].append({"name": "", "emptyDir": {}})
        return self

    def withGenericEphemeralVolume(self, name: str) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["volumes"].append({"name": name, "ephemeral": {}})
        return self

    def withCSI(self, driver: str) -> podBuilder:  # noqa: N802
        self.Pod["spec"]["volumes"].append({"name": "", "csi": {"driver": driver}})
        return self


def makePod(name: str) -> podBuilder:  # noqa: N802
    return podBuilder(name)


class pvcBuilder:  # noqa: N801
    def __init__(self, name: str, storageClassName: str) -> None:  # noqa: N803
        self.PersistentVolumeClaim: dict[str, Any] = {
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": v1.NamespaceDefault},
            "spec": {"storageClassName": storageClassName},
        }


def makePVC(name: str, storageClassName: str) -> pvcBuilder:  # noqa: N802, N803
    return pvcBuilder(name, storageClassName)


def check_hint(event_kind: str, method: str, pod: dict[str, Any] | None, old: Any, new: Any, err: bool,
               expect: bool) -> None:
    """The hint's verdict and error, and the framework's requeue decision (a failing hint queues the pod)."""
    plugin = VolumeBinding()
    pod_info = st.pod_info(pod if pod is not None else {"kind": "Pod", "metadata": {}, "spec": {}})
    hint = getattr(plugin, method)
    if err:
        with pytest.raises(TypeError):
            hint(pod_info, old, new)
    else:
        assert hint(pod_info, old, new) == expect
    event = f"{event_kind}/Add" if old is None else f"{event_kind}/Update"
    assert capabilities_of(plugin).requeues(event, pod_info, old, new) == expect


TestIsSchedulableAfterCSINodeChange = [
    {
        "name": "TestIsSchedulableAfterCSINodeChange/unexpected objects are passed",
        "oldObj": new_struct(),
        "newObj": new_struct(),
        "err": True,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSINodeChange/CSINode is newly created",
        "newObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
            ),
        ),
        "oldObj": None,
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSINodeChange/CSINode's migrated-plugins annotations is added",
        "oldObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test1",
                },
            ),
        ),
        "newObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test1, test2",
                },
            ),
        ),
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSINodeChange/CSINode's migrated-plugins annotation is updated",
        "oldObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test1",
                },
            ),
        ),
        "newObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test2",
                },
            ),
        ),
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSINodeChange/CSINode is updated but migrated-plugins annotation gets unchanged",
        "oldObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test1",
                },
            ),
        ),
        "newObj": storagev1.CSINode(
            ObjectMeta=ObjectMeta(
                Name="csinode-a",
                Annotations={
                    v1.MigratedPluginsAnnotationKey: "test1",
                },
            ),
        ),
        "err": False,
        "expect": fwk.QueueSkip,
    },
]


@pytest.mark.parametrize("item", cases(TestIsSchedulableAfterCSINodeChange))
def test_is_schedulable_after_csinode_change(item: dict[str, Any]) -> None:
    pod = makePod("pod-a").Pod
    check_hint("CSINode", "is_schedulable_after_csinode_change", pod, item["oldObj"], item["newObj"], item["err"],
               item["expect"])


TestIsSchedulableAfterPersistentVolumeClaimChange = [
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pod has no pvc or ephemeral volumes",
        "pod": makePod("pod-a").withEmptyDirVolume().Pod,
        "oldPVC": makePVC("pvc-b", "sc-a").PersistentVolumeClaim,
        "newPVC": makePVC("pvc-b", "sc-a").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pvc with the same name as the one used by the pod in a different namespace is modified",
        "pod": makePod("pod-a")
        .withNamespace("ns-a")
        .withPVCVolume("pvc-a", "")
        .withPVCVolume("pvc-b", "")
        .Pod,
        "oldPVC": None,
        "newPVC": makePVC("pvc-b", "").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pod has no pvc that is being modified",
        "pod": makePod("pod-a")
        .withPVCVolume("pvc-a", "")
        .withPVCVolume("pvc-c", "")
        .Pod,
        "oldPVC": makePVC("pvc-b", "").PersistentVolumeClaim,
        "newPVC": makePVC("pvc-b", "").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pod has no generic ephemeral volume that is being modified",
        "pod": makePod("pod-a")
        .withGenericEphemeralVolume("ephemeral-a")
        .withGenericEphemeralVolume("ephemeral-c")
        .Pod,
        "oldPVC": makePVC("pod-a-ephemeral-b", "").PersistentVolumeClaim,
        "newPVC": makePVC("pod-a-ephemeral-b", "").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pod has the pvc that is being modified",
        "pod": makePod("pod-a")
        .withPVCVolume("pvc-a", "")
        .withPVCVolume("pvc-b", "")
        .Pod,
        "oldPVC": makePVC("pvc-b", "").PersistentVolumeClaim,
        "newPVC": makePVC("pvc-b", "").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/pod has the generic ephemeral volume that is being modified",
        "pod": makePod("pod-a")
        .withGenericEphemeralVolume("ephemeral-a")
        .withGenericEphemeralVolume("ephemeral-b")
        .Pod,
        "oldPVC": makePVC("pod-a-ephemeral-b", "").PersistentVolumeClaim,
        "newPVC": makePVC("pod-a-ephemeral-b", "").PersistentVolumeClaim,
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterPersistentVolumeClaimChange/type conversion error",
        "oldPVC": new_struct(),
        "newPVC": new_struct(),
        "wantErr": True,
        "expect": fwk.Queue,
    },
]


@pytest.mark.parametrize("item", cases(TestIsSchedulableAfterPersistentVolumeClaimChange))
def test_is_schedulable_after_persistent_volume_claim_change(item: dict[str, Any]) -> None:
    check_hint("PersistentVolumeClaim", "is_schedulable_after_claim_change", item.get("pod"), item["oldPVC"],
               item["newPVC"], item["wantErr"], item["expect"])


TestIsSchedulableAfterStorageClassChange = [
    {
        "name": "TestIsSchedulableAfterStorageClassChange/When a new StorageClass is created, it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldSC": None,
        "newSC": storagev1.StorageClass(
            ObjectMeta=ObjectMeta(
                Name="sc-a",
            ),
        ),
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterStorageClassChange/When the AllowedTopologies are changed, it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldSC": storagev1.StorageClass(
            ObjectMeta=ObjectMeta(
                Name="sc-a",
            ),
        ),
        "newSC": storagev1.StorageClass(
            ObjectMeta=ObjectMeta(
                Name="sc-a",
            ),
            AllowedTopologies=[
                TopologySelectorTerm(
                    MatchLabelExpressions=[
                        TopologySelectorLabelRequirement(
                            Key="kubernetes.io/hostname",
                            Values=["node-a"],
                        ),
                    ],
                ),
            ],
        ),
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterStorageClassChange/When there are no changes to the StorageClass, it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldSC": storagev1.StorageClass(
            ObjectMeta=ObjectMeta(
                Name="sc-a",
            ),
        ),
        "newSC": storagev1.StorageClass(
            ObjectMeta=ObjectMeta(
                Name="sc-a",
            ),
        ),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterStorageClassChange/type conversion error",
        "oldSC": new_struct(),
        "newSC": new_struct(),
        "err": True,
        "expect": fwk.Queue,
    },
]


@pytest.mark.parametrize("item", cases(TestIsSchedulableAfterStorageClassChange))
def test_is_schedulable_after_storage_class_change(item: dict[str, Any]) -> None:
    check_hint("StorageClass", "is_schedulable_after_storage_class_change", item.get("pod"), item["oldSC"],
               item["newSC"], item["err"], item["expect"])


def _cap(**fields: Any) -> dict[str, Any]:
    return storagev1.CSIStorageCapacity(ObjectMeta=ObjectMeta(Name="cap-a"), **fields)


TestIsSchedulableAfterCSIStorageCapacityChange = [
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When a new CSIStorageCapacity is created, it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": None,
        "newCap": _cap(),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is increase(Capacity set), it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is increase(MaximumVolumeSize set), it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(),
        "newCap": _cap(MaximumVolumeSize=resource.NewQuantity(100, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is increase(Capacity increase), it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(50, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is increase(MaximumVolumeSize unset), it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(50, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is increase(MaximumVolumeSize increase), it returns Queue",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(50, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(60, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When there are no changes to the CSIStorageCapacity, it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(50, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(50, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is equal(Capacity), it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is equal(MaximumVolumeSize unset), it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI),
                       MaximumVolumeSize=resource.NewQuantity(50, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(50, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is decrease(Capacity), it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(Capacity=resource.NewQuantity(100, resource.DecimalSI)),
        "newCap": _cap(Capacity=resource.NewQuantity(90, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/When the volume limit is decrease(MaximumVolumeSize), it returns QueueSkip",
        "pod": makePod("pod-a").Pod,
        "oldCap": _cap(MaximumVolumeSize=resource.NewQuantity(100, resource.DecimalSI)),
        "newCap": _cap(MaximumVolumeSize=resource.NewQuantity(90, resource.DecimalSI)),
        "wantErr": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIStorageCapacityChange/type conversion error",
        "oldCap": new_struct(),
        "newCap": new_struct(),
        "wantErr": True,
        "expect": fwk.Queue,
    },
]


@pytest.mark.parametrize("item", cases(TestIsSchedulableAfterCSIStorageCapacityChange))
def test_is_schedulable_after_csi_storage_capacity_change(item: dict[str, Any]) -> None:
    check_hint("CSIStorageCapacity", "is_schedulable_after_capacity_change", item.get("pod"), item["oldCap"],
               item["newCap"], item["wantErr"], item["expect"])


def _driver(name: str, storage_capacity: bool | None = None, spec: bool = True) -> dict[str, Any]:
    return storagev1.CSIDriver(
        ObjectMeta=ObjectMeta(Name=name),
        Spec=storagev1.CSIDriverSpec(StorageCapacity=storage_capacity) if spec else None,
    )


TestIsSchedulableAfterCSIDriverChange = [
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/pod has no CSIDriver",
        "pod": makePod("pod-a").Pod,
        "newObj": _driver("test1", ptr.To(True)),
        "oldObj": _driver("test1", spec=False),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/unexpected objects are passed",
        "pod": makePod("pod-a").Pod,
        "newObj": new_struct(),
        "oldObj": new_struct(),
        "err": True,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/driver name in pod and csidriver name are different",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test2", ptr.To(False)),
        "oldObj": _driver("test2", ptr.To(True)),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/original StorageCapacity is nil",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test1", None),
        "oldObj": _driver("test1", None),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/original StorageCapacity is false",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test1", ptr.To(False)),
        "oldObj": _driver("test1", ptr.To(False)),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/modified StorageCapacity is nil",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test1", None),
        "oldObj": _driver("test1", ptr.To(True)),
        "err": False,
        "expect": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/modified StorageCapacity is true",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test1", ptr.To(True)),
        "oldObj": _driver("test1", ptr.To(True)),
        "err": False,
        "expect": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterCSIDriverChange/modified StorageCapacity is false",
        "pod": makePod("pod-a").withCSI("test1").Pod,
        "newObj": _driver("test1", ptr.To(False)),
        "oldObj": _driver("test1", ptr.To(True)),
        "err": False,
        "expect": fwk.Queue,
    },
]


@pytest.mark.parametrize("item", cases(TestIsSchedulableAfterCSIDriverChange))
def test_is_schedulable_after_csidriver_change(item: dict[str, Any]) -> None:
    pod, old, new = item["pod"], item["oldObj"], item["newObj"]
    plugin = VolumeBinding()
    pod_info = st.pod_info(pod)
    if item["err"]:
        with pytest.raises(TypeError):
            plugin.is_schedulable_after_csidriver_change(pod_info, old, new)
    else:
        assert plugin.is_schedulable_after_csidriver_change(pod_info, old, new) == item["expect"]
    # CSIDriver is registered for Update only.
    assert capabilities_of(plugin).requeues("CSIDriver/Update", pod_info, old, new) == item["expect"]


# ---- TestVolumeBinding ------------------------------------------------------------------------
# The Go test also compares the PreFilter state (stateData: claims split into bound / delayed and the
# delayed claims' candidate PVs), an internal kubeberth keeps differently; the verdicts it leads to are
# compared: PreFilter, Filter per node, and PreScore (Skip: the plugin does not score the pod).

class storagev1_modes:  # noqa: N801
    VolumeBindingImmediate = "Immediate"
    VolumeBindingWaitForFirstConsumer = "WaitForFirstConsumer"


immediateSC = {"kind": "StorageClass", "metadata": {"name": "immediate-sc"},
               "volumeBindingMode": storagev1_modes.VolumeBindingImmediate}
waitSC = {"kind": "StorageClass", "metadata": {"name": "wait-sc"},
          "volumeBindingMode": storagev1_modes.VolumeBindingWaitForFirstConsumer}
waitHDDSC = {"kind": "StorageClass", "metadata": {"name": "wait-hdd-sc"},
             "volumeBindingMode": storagev1_modes.VolumeBindingWaitForFirstConsumer}
waitSCWithStorageCapacity = {"kind": "StorageClass", "metadata": {"name": "wait-sc-with-storage-capacity"},
                             "provisioner": "driver-with-storage-capacity",
                             "volumeBindingMode": storagev1_modes.VolumeBindingWaitForFirstConsumer}
driverWithStorageCapacity = {"kind": "CSIDriver", "metadata": {"name": "driver-with-storage-capacity"},
                             "spec": {"storageCapacity": ptr.To(True)}}
ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind"
ErrReasonNodeConflict = "node(s) had volume node affinity conflict"


class nodeBuilder:  # noqa: N801
    def __init__(self, name: str) -> None:
        self.Node: dict[str, Any] = {"kind": "Node", "metadata": {"name": name, "labels": {v1.LabelHostname: name}}}

    def withLabel(self, key: str, value: str) -> nodeBuilder:  # noqa: N802
        self.Node["metadata"]["labels"][key] = value
        return self


def makeNode(name: str) -> nodeBuilder:  # noqa: N802
    return nodeBuilder(name)


class pvBuilder:  # noqa: N801
    def __init__(self, name: str, className: str) -> None:  # noqa: N803
        self.PersistentVolume: dict[str, Any] = {"kind": "PersistentVolume", "metadata": {"name": name},
                                                 "spec": {"storageClassName": className}}

    def withNodeAffinity(self, keyValues: dict[str, list[str]]) -> pvBuilder:  # noqa: N802, N803
        exprs = [{"key": k, "operator": "In", "values": vals} for k, vals in keyValues.items()]
        self.PersistentVolume["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}
        return self

    def withCapacity(self, capacity: str) -> pvBuilder:  # noqa: N802
        self.PersistentVolume["spec"]["capacity"] = {"storage": capacity}
        return self

    def withPhase(self, phase: str) -> pvBuilder:  # noqa: N802
        self.PersistentVolume["status"] = {"phase": phase}
        return self


def makePV(name: str, className: str) -> pvBuilder:  # noqa: N802, N803
    return pvBuilder(name, className)


def _pvc_with_bound_pv(self: pvcBuilder, pvName: str) -> pvcBuilder:  # noqa: N803
    self.PersistentVolumeClaim["spec"]["volumeName"] = pvName
    self.PersistentVolumeClaim["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "true"
    return self


def _pvc_with_request_storage(self: pvcBuilder, request: str) -> pvcBuilder:
    self.PersistentVolumeClaim["spec"]["resources"] = {"requests": {"storage": request}}
    return self


def _pvc_with_phase(self: pvcBuilder, phase: str) -> pvcBuilder:
    self.PersistentVolumeClaim["status"] = {"phase": phase}
    return self


pvcBuilder.withBoundPV = _pvc_with_bound_pv  # type: ignore[attr-defined]
pvcBuilder.withRequestStorage = _pvc_with_request_storage  # type: ignore[attr-defined]
pvcBuilder.withPhase = _pvc_with_phase  # type: ignore[attr-defined]
v1.ClaimLost = "Lost"  # type: ignore[attr-defined]


class res:  # noqa: N801 - resource.MustParse
    @staticmethod
    def MustParse(q: str) -> str:  # noqa: N802
        return q


def _local_pvs() -> list[dict[str, Any]]:
    return [
        makePV("pv-a-0", waitSC["metadata"]["name"]).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse("200Gi"))
        .withNodeAffinity({v1.LabelHostname: ["node-a"]}).PersistentVolume,
        makePV("pv-a-1", waitSC["metadata"]["name"]).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse("200Gi"))
        .withNodeAffinity({v1.LabelHostname: ["node-a"]}).PersistentVolume,
        makePV("pv-b-0", waitSC["metadata"]["name"]).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse("100Gi"))
        .withNodeAffinity({v1.LabelHostname: ["node-b"]}).PersistentVolume,
        makePV("pv-b-1", waitSC["metadata"]["name"]).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse("100Gi"))
        .withNodeAffinity({v1.LabelHostname: ["node-b"]}).PersistentVolume,
    ]


def _zonal_pvs() -> list[dict[str, Any]]:
    def pv(name: str, cap: str, region: str, zone: str) -> dict[str, Any]:
        return (makePV(name, waitSC["metadata"]["name"]).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse(cap))
                .withNodeAffinity({"topology.kubernetes.io/region": [region], "topology.kubernetes.io/zone": [zone]})
                .PersistentVolume)

    return [pv("pv-a-0", "200Gi", "region-a", "zone-a"), pv("pv-a-1", "200Gi", "region-a", "zone-a"),
            pv("pv-b-0", "100Gi", "region-b", "zone-b"), pv("pv-b-1", "100Gi", "region-b", "zone-b")]


def _zonal_nodes() -> list[dict[str, Any]]:
    return [
        makeNode(f"zone-{z}-node-{n}").withLabel("topology.kubernetes.io/region", f"region-{z}")
        .withLabel("topology.kubernetes.io/zone", f"zone-{z}").Node
        for z in "abc" for n in "ab"
    ]


WAIT = waitSC["metadata"]["name"]
WAIT_HDD = waitHDDSC["metadata"]["name"]
WAIT_CAP = waitSCWithStorageCapacity["metadata"]["name"]
nodeLabelKey = "nodeKey"  # binder_test.go


def _local_pv(name: str, className: str, capacity: str, node: str) -> dict[str, Any]:  # noqa: N803
    return (makePV(name, className).withPhase(v1.VolumeAvailable).withCapacity(res.MustParse(capacity))
            .withNodeAffinity({v1.LabelHostname: [node]}).PersistentVolume)


def _labelled_nodes() -> list[dict[str, Any]]:
    return [makeNode(n).withLabel(nodeLabelKey, n).Node for n in ("node-a", "node-b", "node-c")]


def makeCapacity(name: str, storageClassName: str, node: dict[str, Any] | None, capacityStr: str,  # noqa: N802, N803
                 maximumVolumeSizeStr: str) -> dict[str, Any]:  # noqa: N803
    """binder_test.go's makeCapacity (in the default namespace, where the fake client puts it)."""
    c: dict[str, Any] = {"kind": "CSIStorageCapacity", "metadata": {"name": name, "namespace": "default"},
                         "storageClassName": storageClassName, "nodeTopology": {}}
    if node is not None:
        c["nodeTopology"]["matchLabels"] = {nodeLabelKey: node["metadata"]["labels"][nodeLabelKey]}
    if capacityStr:
        c["capacity"] = res.MustParse(capacityStr)
    if maximumVolumeSizeStr:
        c["maximumVolumeSize"] = res.MustParse(maximumVolumeSizeStr)
    return c


class config:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/apis/config
    MaxCustomPriorityScore = 10

    @staticmethod
    def UtilizationShapePoint(Utilization: int, Score: int) -> UtilizationShapePoint:  # noqa: N802, N803
        return UtilizationShapePoint(utilization=Utilization, score=Score)

    @staticmethod
    def VolumeBindingArgs(BindTimeoutSeconds: int, Shape: list[UtilizationShapePoint]) -> VolumeBinding.Args:  # noqa: N802, N803
        return VolumeBinding.Args(bindTimeoutSeconds=BindTimeoutSeconds, shape=Shape)


defaultShapePoint = [
    config.UtilizationShapePoint(Utilization=0, Score=config.MaxCustomPriorityScore),
    config.UtilizationShapePoint(Utilization=100, Score=0),
]
TestVolumeBinding = [
    {
        "name": "TestVolumeBinding/pod has not pvcs",
        "pod": makePod("pod-a").Pod,
        "nodes": [makeNode("node-a").Node],
        "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
        "wantFilterStatus": [None],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/all bound",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withBoundPV("pv-a").PersistentVolumeClaim],
        "pvs": [makePV("pv-a", WAIT).withPhase(v1.VolumeAvailable).PersistentVolume],
        "wantFilterStatus": [None],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/PVC does not exist",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [],
        "wantPreFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, 'persistentvolumeclaim "pvc-a" not found'),
        "wantFilterStatus": [None],
        "wantScores": [0],
    },
    {
        "name": "TestVolumeBinding/Part of PVCs do not exist",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withBoundPV("pv-a").PersistentVolumeClaim],
        "wantPreFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, 'persistentvolumeclaim "pvc-b" not found'),
        "wantFilterStatus": [None],
        "wantScores": [0],
    },
    {
        "name": "TestVolumeBinding/immediate claims not bound",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", immediateSC["metadata"]["name"]).PersistentVolumeClaim],
        "wantPreFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                                             "pod has unbound immediate PersistentVolumeClaims"),
        "wantFilterStatus": [None],
        "wantScores": [0],
    },
    {
        "name": "TestVolumeBinding/unbound claims no matches",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", WAIT).PersistentVolumeClaim],
        "wantFilterStatus": [fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict)],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/bound and unbound unsatisfied",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").withPVCVolume("pvc-b", "").Pod,
        "nodes": [makeNode("node-a").withLabel("foo", "barbar").Node],
        "pvcs": [
            makePVC("pvc-a", WAIT).withBoundPV("pv-a").PersistentVolumeClaim,
            makePVC("pvc-b", WAIT).PersistentVolumeClaim,
        ],
        "pvs": [
            makePV("pv-a", WAIT).withPhase(v1.VolumeAvailable).withNodeAffinity({"foo": ["bar"]}).PersistentVolume,
        ],
        "wantFilterStatus": [
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonNodeConflict, ErrReasonBindConflict),
        ],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/pv not found",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withBoundPV("pv-a").PersistentVolumeClaim],
        "wantPreFilterStatus": None,
        "wantFilterStatus": [
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                          "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"),
        ],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/pv not found claim lost",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withBoundPV("pv-a").withPhase(v1.ClaimLost).PersistentVolumeClaim],
        "wantPreFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
                                             'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'),
        "wantFilterStatus": [None],
        "wantScores": [0],
    },
    {
        "name": "TestVolumeBinding/local volumes with close capacity are preferred",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node, makeNode("node-b").Node, makeNode("node-c").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim],
        "pvs": _local_pvs(),
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict)],
        "wantScores": [75, 50, 0],
    },
    {
        "name": "TestVolumeBinding/local volumes with close capacity are preferred (StorageCapacityScoring disabled)",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": [makeNode("node-a").Node, makeNode("node-b").Node, makeNode("node-c").Node],
        "pvcs": [makePVC("pvc-a", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim],
        "pvs": _local_pvs(),
        "fts": {"EnableStorageCapacityScoring": False},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict)],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/local volumes with close capacity are preferred (multiple pvcs)",
        "pod": makePod("pod-a").withPVCVolume("pvc-0", "").withPVCVolume("pvc-1", "").Pod,
        "nodes": [makeNode("node-a").Node, makeNode("node-b").Node, makeNode("node-c").Node],
        "pvcs": [
            makePVC("pvc-0", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim,
            makePVC("pvc-1", WAIT_HDD).withRequestStorage(res.MustParse("100Gi")).PersistentVolumeClaim,
        ],
        "pvs": [
            _local_pv("pv-a-0", WAIT, "200Gi", "node-a"),
            _local_pv("pv-a-1", WAIT, "200Gi", "node-a"),
            _local_pv("pv-a-2", WAIT_HDD, "200Gi", "node-a"),
            _local_pv("pv-a-3", WAIT_HDD, "200Gi", "node-a"),
            _local_pv("pv-b-0", WAIT, "100Gi", "node-b"),
            _local_pv("pv-b-1", WAIT, "100Gi", "node-b"),
            _local_pv("pv-b-2", WAIT_HDD, "100Gi", "node-b"),
            _local_pv("pv-b-3", WAIT_HDD, "100Gi", "node-b"),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict)],
        "wantScores": [63, 25, 0],
    },
    {
        "name": "TestVolumeBinding/zonal volumes with close capacity are preferred",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": _zonal_nodes(),
        "pvcs": [makePVC("pvc-a", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim],
        "pvs": _zonal_pvs(),
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [
            None, None, None, None,
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
        ],
        "wantScores": [75, 75, 50, 50, 0, 0],
    },
    {
        "name": "TestVolumeBinding/zonal volumes with close capacity are preferred (StorageCapacityScoring disabled)",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": _zonal_nodes(),
        "pvcs": [makePVC("pvc-a", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim],
        "pvs": _zonal_pvs(),
        "fts": {"EnableStorageCapacityScoring": False},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [
            None, None, None, None,
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
        ],
        "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestVolumeBinding/zonal volumes with close capacity are preferred (custom shape)",
        "pod": makePod("pod-a").withPVCVolume("pvc-a", "").Pod,
        "nodes": _zonal_nodes(),
        "pvcs": [makePVC("pvc-a", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim],
        "pvs": _zonal_pvs(),
        "fts": {"EnableStorageCapacityScoring": True},
        "args": config.VolumeBindingArgs(
            BindTimeoutSeconds=300,
            Shape=[
                config.UtilizationShapePoint(Utilization=0, Score=0),
                config.UtilizationShapePoint(Utilization=50, Score=3),
                config.UtilizationShapePoint(Utilization=100, Score=5),
            ],
        ),
        "wantPreFilterStatus": None,
        "wantFilterStatus": [
            None, None, None, None,
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
            fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonBindConflict),
        ],
        "wantScores": [15, 15, 30, 30, 0, 0],
    },
    {
        "name": "TestVolumeBinding/storage capacity score",
        "pod": makePod("pod-a").withPVCVolume("pvc-dynamic", "").Pod,
        "nodes": _labelled_nodes(),
        "pvcs": [makePVC("pvc-dynamic", WAIT_CAP).withRequestStorage(res.MustParse("10Gi")).PersistentVolumeClaim],
        "capacities": [
            makeCapacity("node-a", WAIT_CAP, makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node, "100Gi", ""),
            makeCapacity("node-b", WAIT_CAP, makeNode("node-b").withLabel(nodeLabelKey, "node-b").Node, "50Gi", ""),
            makeCapacity("node-c", WAIT_CAP, makeNode("node-c").withLabel(nodeLabelKey, "node-c").Node, "10Gi", ""),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, None],
        "wantScores": [90, 80, 0],
    },
    {
        "name": "TestVolumeBinding/storage capacity score with static binds",
        "pod": makePod("pod-a").withPVCVolume("pvc-dynamic", "").withPVCVolume("pvc-static", "").Pod,
        "nodes": _labelled_nodes(),
        "pvcs": [
            makePVC("pvc-dynamic", WAIT_CAP).withRequestStorage(res.MustParse("10Gi")).PersistentVolumeClaim,
            makePVC("pvc-static", WAIT).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim,
        ],
        "pvs": [
            _local_pv("pv-static-a", WAIT, "100Gi", "node-a"),
            _local_pv("pv-static-b", WAIT, "100Gi", "node-b"),
            _local_pv("pv-static-c", WAIT, "100Gi", "node-c"),
        ],
        "capacities": [
            makeCapacity("node-a", WAIT_CAP, makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node, "100Gi", ""),
            makeCapacity("node-b", WAIT_CAP, makeNode("node-b").withLabel(nodeLabelKey, "node-b").Node, "50Gi", ""),
            makeCapacity("node-c", WAIT_CAP, makeNode("node-c").withLabel(nodeLabelKey, "node-c").Node, "10Gi", ""),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, None],
        "wantScores": [50, 50, 50],
    },
    {
        "name": "TestVolumeBinding/dynamic provisioning with multiple PVCs of the same StorageClass",
        "pod": makePod("pod-a").withPVCVolume("pvc-dynamic-0", "").withPVCVolume("pvc-dynamic-1", "").Pod,
        "nodes": [makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node],
        "pvcs": [
            makePVC("pvc-dynamic-0", WAIT_CAP).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim,
            makePVC("pvc-dynamic-1", WAIT_CAP).withRequestStorage(res.MustParse("50Gi")).PersistentVolumeClaim,
        ],
        "capacities": [
            makeCapacity("node-a", WAIT_CAP, makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node, "100Gi", ""),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None],
        "wantScores": [0],
    },
    {
        "name": "TestVolumeBinding/prefer node with least allocatable",
        "pod": makePod("pod-a").withPVCVolume("pvc-dynamic", "").Pod,
        "nodes": _labelled_nodes(),
        "pvcs": [makePVC("pvc-dynamic", WAIT_CAP).withRequestStorage(res.MustParse("10Gi")).PersistentVolumeClaim],
        "capacities": [
            makeCapacity("node-a", WAIT_CAP, makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node, "100Gi", ""),
            makeCapacity("node-b", WAIT_CAP, makeNode("node-b").withLabel(nodeLabelKey, "node-b").Node, "20Gi", ""),
            makeCapacity("node-c", WAIT_CAP, makeNode("node-c").withLabel(nodeLabelKey, "node-c").Node, "10Gi", ""),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "args": config.VolumeBindingArgs(
            BindTimeoutSeconds=300,
            Shape=[
                config.UtilizationShapePoint(Utilization=0, Score=0),
                config.UtilizationShapePoint(Utilization=100, Score=config.MaxCustomPriorityScore),
            ],
        ),
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, None],
        "wantScores": [10, 50, 100],
    },
    {
        "name": "TestVolumeBinding/prefer node with maximum allocatable",
        "pod": makePod("pod-a").withPVCVolume("pvc-dynamic", "").Pod,
        "nodes": _labelled_nodes(),
        "pvcs": [makePVC("pvc-dynamic", WAIT_CAP).withRequestStorage(res.MustParse("10Gi")).PersistentVolumeClaim],
        "capacities": [
            makeCapacity("node-a", WAIT_CAP, makeNode("node-a").withLabel(nodeLabelKey, "node-a").Node, "100Gi", ""),
            makeCapacity("node-b", WAIT_CAP, makeNode("node-b").withLabel(nodeLabelKey, "node-b").Node, "20Gi", ""),
            makeCapacity("node-c", WAIT_CAP, makeNode("node-c").withLabel(nodeLabelKey, "node-c").Node, "10Gi", ""),
        ],
        "fts": {"EnableStorageCapacityScoring": True},
        "args": config.VolumeBindingArgs(BindTimeoutSeconds=300, Shape=defaultShapePoint),
        "wantPreFilterStatus": None,
        "wantFilterStatus": [None, None, None],
        "wantScores": [90, 50, 0],
    },
]


def _go(status: Any) -> GoStatus | None:
    if status is None or status.code == fwk.Success:
        return None
    return GoStatus(status.code, tuple(status.reasons))


@pytest.mark.parametrize("item", cases(TestVolumeBinding))
def test_volume_binding(item: dict[str, Any]) -> None:
    """PreFilter, Filter per node, PreScore, then Score. kubeberth scores the feasible nodes only (the
    Go test also calls Score on the rejected ones, which score 0 having no PodVolumes)."""
    fts = item.get("fts") or {}
    gates = FeatureGates({"StorageCapacityScoring": bool(fts.get("EnableStorageCapacityScoring"))})
    args = item.get("args") or VolumeBinding.Args(bindTimeoutSeconds=300)
    plugin = VolumeBinding(args, feature_gates=gates)
    objects = [immediateSC, waitSC, waitHDDSC, waitSCWithStorageCapacity, driverWithStorageCapacity,
               *(item.get("pvcs") or ()), *(item.get("pvs") or ()), *(item.get("capacities") or ())]
    cluster = snapshot([], item["nodes"], *objects)
    state = CycleState()
    pre, statuses = run_filter(plugin, item["pod"], cluster, state=state)
    assert _go(pre) == item.get("wantPreFilterStatus")
    if pre is not None and pre.code != fwk.Success:
        return  # the framework skips Filter when PreFilter fails
    names = [n["metadata"]["name"] for n in item["nodes"]]
    assert [_go(statuses[n]) for n in names] == item["wantFilterStatus"]
    feasible = [n for n in names if statuses[n] is None]
    pre_score, scores = run_score(plugin, item["pod"], cluster, feasible, state=state)
    assert _go(pre_score) == item.get("wantPreScoreStatus")
    if pre_score is not None and pre_score.code != fwk.Success:
        return
    assert [scores.get(n, 0) for n in names] == item["wantScores"]


# ---- TestScore (scorer_test.go) ------------------------------------------------------------------
classHDD = "hdd"
classSSD = "ssd"


class helper:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper
    @staticmethod
    def FunctionShapePoint(Utilization: int, Score: int) -> tuple[int, int]:  # noqa: N802, N803
        return (Utilization, Score)


def StorageResource(Requested: int, Capacity: int) -> list[int]:  # noqa: N802, N803
    return [Requested, Capacity]


def _default_shape() -> list[tuple[int, int]]:
    return [helper.FunctionShapePoint(p.utilization, p.score * (fwk.MaxNodeScore // config.MaxCustomPriorityScore))
            for p in defaultShapePoint]


TestScore = [
    {
        "name": "TestScore/default shape, single class",
        "shape": _default_shape(),
        "cases": [
            ({classHDD: StorageResource(Requested=0, Capacity=100)}, 100),
            ({classHDD: StorageResource(Requested=30, Capacity=100)}, 70),
            ({classHDD: StorageResource(Requested=50, Capacity=100)}, 50),
            ({classHDD: StorageResource(Requested=100, Capacity=100)}, 0),
        ],
    },
    {
        "name": "TestScore/default shape, multiple classes",
        "shape": _default_shape(),
        "cases": [
            ({classHDD: StorageResource(Requested=0, Capacity=100),
              classSSD: StorageResource(Requested=0, Capacity=100)}, 100),
            ({classHDD: StorageResource(Requested=0, Capacity=100),
              classSSD: StorageResource(Requested=30, Capacity=100)}, 85),
            ({classHDD: StorageResource(Requested=30, Capacity=100),
              classSSD: StorageResource(Requested=30, Capacity=100)}, 70),
            ({classHDD: StorageResource(Requested=30, Capacity=100),
              classSSD: StorageResource(Requested=60, Capacity=100)}, 55),
            ({classHDD: StorageResource(Requested=50, Capacity=100),
              classSSD: StorageResource(Requested=50, Capacity=100)}, 50),
            ({classHDD: StorageResource(Requested=50, Capacity=100),
              classSSD: StorageResource(Requested=100, Capacity=100)}, 25),
            ({classHDD: StorageResource(Requested=100, Capacity=100),
              classSSD: StorageResource(Requested=100, Capacity=100)}, 0),
        ],
    },
    {
        "name": "TestScore/custom shape, multiple classes",
        "shape": [
            helper.FunctionShapePoint(Utilization=50, Score=0),
            helper.FunctionShapePoint(Utilization=80, Score=30),
            helper.FunctionShapePoint(Utilization=100, Score=50),
        ],
        "cases": [
            ({classHDD: StorageResource(Requested=0, Capacity=100),
              classSSD: StorageResource(Requested=0, Capacity=100)}, 0),
            ({classHDD: StorageResource(Requested=0, Capacity=100),
              classSSD: StorageResource(Requested=30, Capacity=100)}, 0),
            ({classHDD: StorageResource(Requested=30, Capacity=100),
              classSSD: StorageResource(Requested=30, Capacity=100)}, 0),
            ({classHDD: StorageResource(Requested=30, Capacity=100),
              classSSD: StorageResource(Requested=60, Capacity=100)}, 5),
            ({classHDD: StorageResource(Requested=50, Capacity=100),
              classSSD: StorageResource(Requested=100, Capacity=100)}, 25),
            ({classHDD: StorageResource(Requested=90, Capacity=100),
              classSSD: StorageResource(Requested=90, Capacity=100)}, 40),
            ({classHDD: StorageResource(Requested=100, Capacity=100),
              classSSD: StorageResource(Requested=100, Capacity=100)}, 50),
        ],
    },
]


@pytest.mark.parametrize("tt", cases(TestScore))
def test_score(tt: dict[str, Any]) -> None:
    f = capacity_scorer(tt["shape"])
    for class_resources, score in tt["cases"]:
        assert f(class_resources) == score


# ---- Test_PreBindPreFlight ---------------------------------------------------------------
def stateData(allBound: bool = False, podVolumesByNode: dict[str, Any] | None = None) -> VolumeBindingState:  # noqa: N802, N803
    """volumebinding's stateData: kubeberth's state keeps the one node Reserve assumed the volumes
    on (the key PreBind reads from podVolumesByNode)."""
    nodes = list(podVolumesByNode or {})
    assert len(nodes) <= 1, "Reserve assumes volumes on one node"
    return VolumeBindingState([], [], frozenset(), all_bound=allBound, node=nodes[0] if nodes else None)


Test_PreBindPreFlight = [
    {
        "name": "Test_PreBindPreFlight/all bound",
        "nodeName": "node-a",
        "state": stateData(allBound=True),
        "wantStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "Test_PreBindPreFlight/volume to be bound",
        "nodeName": "node-a",
        "state": stateData(podVolumesByNode={"node-a": {}}),
        "wantStatus": None,
    },
    {
        "name": "Test_PreBindPreFlight/error: state is nil",
        "nodeName": "node-a",
        "wantStatus": fwk.AsStatus("not found"),  # fwk.ErrNotFound
    },
    {
        "name": "Test_PreBindPreFlight/error: node is not found in podVolumesByNode",
        "nodeName": "node-a",
        "state": stateData(podVolumesByNode={"node-b": {}}),
        # fmt.Errorf("%w %q", errNoPodVolumeForNode, nodeName): the test compares with errors.Is
        "wantStatus": fwk.AsStatus('no pod volume found for node "node-a"'),
    },
]


@pytest.mark.parametrize("item", cases(Test_PreBindPreFlight))
def test_pre_bind_pre_flight(item: dict[str, Any]) -> None:
    pl = VolumeBinding()
    state = CycleState()
    if item.get("state") is not None:
        state[VOLUME_BINDING_STATE_KEY] = item["state"]
    result = pl.pre_bind_pre_flight(state, item["nodeName"])
    assert isinstance(result, PreBindPreFlightResult)
    want: GoStatus | None = item["wantStatus"]
    got = result.status
    if want is None:
        assert got is None or got.code == Code.SUCCESS, got
    else:
        assert got is not None and (got.code, got.reasons) == (want.code, want.reasons)
    assert result.allow_parallel is True  # &fwk.PreBindPreFlightResult{AllowParallel: true}

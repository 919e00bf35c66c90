"""VolumeZone: kube-scheduler v1.37.2's volume_zone_test.go tables, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import CycleState
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.volume_zone import VolumeZone
from st import GoStatus, fwk, metav1, v1
from upstream import call, cases, filter_statuses, pod_info, snapshot, view

ErrReasonConflict = "node(s) had no available volume zone"
metav1.NamespaceDefault = "default"  # type: ignore[attr-defined]


class storagev1:  # noqa: N801 - k8s.io/api/storage/v1
    VolumeBindingWaitForFirstConsumer = "WaitForFirstConsumer"
    VolumeBindingImmediate = "Immediate"


def _kind(kind: str, objs: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    return [{**o, "kind": kind} for o in objs]


def tf_PersistentVolumeLister(*pvs: dict[str, Any]) -> list[dict[str, Any]]:
    return _kind("PersistentVolume", pvs)


def tf_PersistentVolumeClaimLister(*pvcs: dict[str, Any]) -> list[dict[str, Any]]:
    return _kind("PersistentVolumeClaim", pvcs)


def tf_StorageClassLister(*classes: dict[str, Any]) -> list[dict[str, Any]]:
    return _kind("StorageClass", classes)


def createPodWithVolume(pod: str, pvc: str) -> dict[str, Any]:
    return st.MakePod().Name(pod).Namespace(metav1.NamespaceDefault).PVC(pvc).Obj()


def go_status(status: Any) -> GoStatus | None:
    if status is None or status.code == fwk.Success:
        return None
    return GoStatus(status.code, tuple(status.reasons))


def _TestSingleZone() -> Any:
    pvLister = tf_PersistentVolumeLister(
        {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}}},
        {
            "metadata": {
                "name": "Vol_2",
                "labels": {v1.LabelFailureDomainBetaRegion: "us-west1", "uselessLabel": "none"},
            }
        },
        {"metadata": {"name": "Vol_3", "labels": {v1.LabelFailureDomainBetaRegion: "us-west1"}}},
        {"metadata": {"name": "Vol_Stable_1", "labels": {v1.LabelTopologyZone: "us-west1-a"}}},
        {
            "metadata": {
                "name": "Vol_Stable_2",
                "labels": {v1.LabelTopologyRegion: "us-west1", "uselessLabel": "none"},
            }
        },
        {
            "metadata": {
                "name": "Vol_Stable_3",
                "labels": {v1.LabelTopologyZone: "us-west1-a", v1.LabelTopologyRegion: "us-west1-a"},
            }
        },
    )
    pvcLister = tf_PersistentVolumeClaimLister(
        {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        {"metadata": {"name": "PVC_2", "namespace": "default"}, "spec": {"volumeName": "Vol_2"}},
        {"metadata": {"name": "PVC_3", "namespace": "default"}, "spec": {"volumeName": "Vol_3"}},
        {"metadata": {"name": "PVC_4", "namespace": "default"}, "spec": {"volumeName": "Vol_not_exist"}},
        {
            "metadata": {"name": "PVC_Stable_1", "namespace": "default"},
            "spec": {"volumeName": "Vol_Stable_1"},
        },
        {
            "metadata": {"name": "PVC_Stable_2", "namespace": "default"},
            "spec": {"volumeName": "Vol_Stable_2"},
        },
        {
            "metadata": {"name": "PVC_Stable_3", "namespace": "default"},
            "spec": {"volumeName": "Vol_Stable_3"},
        },
    )
    objects = [*pvLister, *pvcLister]
    return [
        {**tt, "objects": objects}
        for tt in [
            {
                "name": "TestSingleZone/pod without volume",
                "pod": st.MakePod().Name("pod_1").Namespace(metav1.NamespaceDefault).Obj(),
                "node": {
                    "kind": "Node",
                    "metadata": {"name": "host1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}},
                },
                "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
            },
            {
                "name": "TestSingleZone/node without labels",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {"kind": "Node", "metadata": {"name": "host1"}},
            },
            {
                "name": "TestSingleZone/beta zone label matched",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestSingleZone/beta region label matched",
                "pod": createPodWithVolume("pod_1", "PVC_2"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaRegion: "us-west1", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestSingleZone/beta region label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_2"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaRegion: "no_us-west1", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/beta zone label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaZone: "no_us-west1-a", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/zone label matched",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyZone: "us-west1-a", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestSingleZone/region label matched",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_2"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyRegion: "us-west1", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestSingleZone/region label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_2"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyRegion: "no_us-west1", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/zone label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyZone: "no_us-west1-a", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/pv with zone and region, node with only zone",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_3"),
                "node": {
                    "kind": "Node",
                    "metadata": {"name": "host1", "labels": {v1.LabelTopologyZone: "us-west1-a"}},
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/pv with zone,node with beta zone",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {"name": "host1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}},
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestSingleZone/pv with beta label,node with ga label, matched",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {"name": "host1", "labels": {v1.LabelTopologyZone: "us-west1-a"}},
                },
            },
            {
                "name": "TestSingleZone/pv with beta label,node with ga label, don't match",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {"name": "host1", "labels": {v1.LabelTopologyZone: "us-west1-b"}},
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
        ]
    ]


TestSingleZone = _TestSingleZone()


def _TestMultiZone() -> Any:
    pvLister = tf_PersistentVolumeLister(
        {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}}},
        {
            "metadata": {
                "name": "Vol_2",
                "labels": {v1.LabelFailureDomainBetaZone: "us-west1-b", "uselessLabel": "none"},
            }
        },
        {"metadata": {"name": "Vol_3", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-c__us-west1-a"}}},
        {"metadata": {"name": "Vol_Stable_1", "labels": {v1.LabelTopologyZone: "us-west1-a"}}},
        {"metadata": {"name": "Vol_Stable_2", "labels": {v1.LabelTopologyZone: "us-west1-c__us-west1-a"}}},
    )
    pvcLister = tf_PersistentVolumeClaimLister(
        {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        {"metadata": {"name": "PVC_2", "namespace": "default"}, "spec": {"volumeName": "Vol_2"}},
        {"metadata": {"name": "PVC_3", "namespace": "default"}, "spec": {"volumeName": "Vol_3"}},
        {"metadata": {"name": "PVC_4", "namespace": "default"}, "spec": {"volumeName": "Vol_not_exist"}},
        {
            "metadata": {"name": "PVC_Stable_1", "namespace": "default"},
            "spec": {"volumeName": "Vol_Stable_1"},
        },
        {
            "metadata": {"name": "PVC_Stable_2", "namespace": "default"},
            "spec": {"volumeName": "Vol_Stable_2"},
        },
    )
    objects = [*pvLister, *pvcLister]
    return [
        {**tt, "objects": objects}
        for tt in [
            {
                "name": "TestMultiZone/node without labels",
                "pod": createPodWithVolume("pod_1", "PVC_3"),
                "node": {"kind": "Node", "metadata": {"name": "host1"}},
            },
            {
                "name": "TestMultiZone/beta zone label matched",
                "pod": createPodWithVolume("pod_1", "PVC_3"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestMultiZone/beta zone label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelFailureDomainBetaZone: "us-west1-b", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
            {
                "name": "TestMultiZone/zone label matched",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_2"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyZone: "us-west1-a", "uselessLabel": "none"},
                    },
                },
            },
            {
                "name": "TestMultiZone/zone label doesn't match",
                "pod": createPodWithVolume("pod_1", "PVC_Stable_1"),
                "node": {
                    "kind": "Node",
                    "metadata": {
                        "name": "host1",
                        "labels": {v1.LabelTopologyZone: "us-west1-b", "uselessLabel": "none"},
                    },
                },
                "wantFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonConflict),
            },
        ]
    ]


TestMultiZone = _TestMultiZone()


def _TestWithBinding() -> Any:
    modeWait = storagev1.VolumeBindingWaitForFirstConsumer
    class0 = "Class_0"
    classWait = "Class_Wait"
    classImmediate = "Class_Immediate"
    scLister = tf_StorageClassLister(
        {"metadata": {"name": classImmediate}},
        {"metadata": {"name": classWait}, "volumeBindingMode": modeWait},
    )
    pvLister = tf_PersistentVolumeLister(
        {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}}}
    )
    pvcLister = tf_PersistentVolumeClaimLister(
        {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        {"metadata": {"name": "PVC_NoSC", "namespace": "default"}, "spec": {"storageClassName": class0}},
        {"metadata": {"name": "PVC_EmptySC", "namespace": "default"}},
        {"metadata": {"name": "PVC_WaitSC", "namespace": "default"}, "spec": {"storageClassName": classWait}},
        {
            "metadata": {"name": "PVC_ImmediateSC", "namespace": "default"},
            "spec": {"storageClassName": classImmediate},
        },
    )
    testNode = {
        "kind": "Node",
        "metadata": {
            "name": "host1",
            "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a", "uselessLabel": "none"},
        },
    }
    objects = [*pvLister, *pvcLister, *scLister]
    return [
        {**tt, "objects": objects}
        for tt in [
            {
                "name": "TestWithBinding/label zone failure domain matched",
                "pod": createPodWithVolume("pod_1", "PVC_1"),
                "node": testNode,
            },
            {
                "name": "TestWithBinding/unbound volume empty storage class",
                "pod": createPodWithVolume("pod_1", "PVC_EmptySC"),
                "node": testNode,
                "wantPreFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable,
                    "PersistentVolumeClaim had no pv name and storageClass name",
                ),
                "wantFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable,
                    "PersistentVolumeClaim had no pv name and storageClass name",
                ),
            },
            {
                "name": "TestWithBinding/unbound volume no storage class",
                "pod": createPodWithVolume("pod_1", "PVC_NoSC"),
                "node": testNode,
                "wantPreFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable, 'storageclasses.storage.k8s.io "Class_0" not found'
                ),
                "wantFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable, 'storageclasses.storage.k8s.io "Class_0" not found'
                ),
            },
            {
                "name": "TestWithBinding/unbound volume immediate binding mode",
                "pod": createPodWithVolume("pod_1", "PVC_ImmediateSC"),
                "node": testNode,
                "wantPreFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable,
                    'VolumeBindingMode not set for StorageClass "Class_Immediate"',
                ),
                "wantFilterStatus": fwk.NewStatus(
                    fwk.UnschedulableAndUnresolvable,
                    'VolumeBindingMode not set for StorageClass "Class_Immediate"',
                ),
            },
            {
                "name": "TestWithBinding/unbound volume wait binding mode",
                "pod": createPodWithVolume("pod_1", "PVC_WaitSC"),
                "node": testNode,
                "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
            },
        ]
    ]


TestWithBinding = _TestWithBinding()


@pytest.mark.parametrize("test", cases(TestSingleZone) + cases(TestMultiZone) + cases(TestWithBinding))
def test_volume_zone(test: dict[str, Any]) -> None:
    node = test.get("Node") or test.get("node")
    cluster = snapshot(None, [node], *test["objects"])
    p, state, nodes = VolumeZone(), CycleState(), view(cluster)
    pod = pod_info(test.get("Pod") or test.get("pod"))
    pre = call(p, "pre_filter", state=state, pod=pod, nodes=nodes, cluster=cluster)
    assert go_status(pre) == test.get("wantPreFilterStatus")
    # the Go test calls Filter whatever PreFilter said: the plugin recomputes what PreFilter would have stored
    got = filter_statuses(call(p, "filter", state=state, pod=pod, nodes=nodes, cluster=cluster), nodes)
    assert go_status(got[node["metadata"]["name"]]) == test.get("wantFilterStatus")


def MakePersistentVolume() -> _PersistentVolumeWrapper:  # noqa: N802 - st.MakePersistentVolume
    return _PersistentVolumeWrapper()


class _PersistentVolumeWrapper:
    def __init__(self) -> None:
        self.pv: dict[str, Any] = {"metadata": {}}

    def Name(self, name: str) -> _PersistentVolumeWrapper:  # noqa: N802
        self.pv["metadata"]["name"] = name
        return self

    def Obj(self) -> dict[str, Any]:  # noqa: N802
        return self.pv


# ---- TestIsSchedulableAfterPersistentVolumeClaimAdded, TestIsSchedulableAfterStorageClassAdded,
# ---- TestIsSchedulableAfterPersistentVolumeChange (maps keyed by case name upstream; keyed here by test id)
def _keyed(testcases: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: {"name": k, **v} for k, v in testcases.items()}


TestIsSchedulableAfterPersistentVolumeClaimAdded = _keyed({
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/error-wrong-new-object": {
        "pod": createPodWithVolume("pod_1", "PVC_1"), "newObj": "not-a-pvc", "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-added-but-pod-refers-no-pvc": {
        "pod": st.MakePod().Name("pod_1").Namespace("default").Obj(),
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.QueueSkip,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-added-and-pod-was-bound-to-different-pvc": {
        "pod": createPodWithVolume("pod_1", "PVC_2"),
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.QueueSkip,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "ns1"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.QueueSkip,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-added-and-pod-was-bound-to-the-pvc": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.Queue,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-updated-and-pod-was-bound-to-the-pvc": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "oldObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": ""}},
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.Queue,
    },
    "TestIsSchedulableAfterPersistentVolumeClaimAdded/pvc-was-updated-but-pod-refers-no-pvc": {
        "pod": st.MakePod().Name("pod_1").Namespace(metav1.NamespaceDefault).Obj(),
        "oldObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": ""}},
        "newObj": {"metadata": {"name": "PVC_1", "namespace": "default"}, "spec": {"volumeName": "Vol_1"}},
        "expectedHint": fwk.QueueSkip,
    },
})

modeWait = "WaitForFirstConsumer"  # storagev1.VolumeBindingWaitForFirstConsumer
TestIsSchedulableAfterStorageClassAdded = _keyed({
    "TestIsSchedulableAfterStorageClassAdded/error-wrong-new-object": {
        "pod": createPodWithVolume("pod_1", "PVC_1"), "newObj": "not-a-storageclass", "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "TestIsSchedulableAfterStorageClassAdded/sc-doesn't-have-volume-binding-mode": {
        "pod": createPodWithVolume("pod_1", "PVC_1"), "newObj": {"metadata": {"name": "SC_1"}},
        "expectedHint": fwk.QueueSkip,
    },
    "TestIsSchedulableAfterStorageClassAdded/new-sc-is-wait-for-first-consumer-mode": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "newObj": {"metadata": {"name": "SC_1"}, "volumeBindingMode": modeWait},
        "expectedHint": fwk.Queue,
    },
})

TestIsSchedulableAfterPersistentVolumeChange = _keyed({
    "TestIsSchedulableAfterPersistentVolumeChange/error-wrong-new-object": {
        "pod": createPodWithVolume("pod_1", "PVC_1"), "newObj": "not-a-pv", "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    "TestIsSchedulableAfterPersistentVolumeChange/error-wrong-old-object": {
        "pod": createPodWithVolume("pod_1", "PVC_1"), "oldObj": "not-a-pv",
        "newObj": MakePersistentVolume().Name("Vol_1").Obj(), "expectedHint": fwk.Queue, "expectedErr": True,
    },
    "TestIsSchedulableAfterPersistentVolumeChange/new-pv-was-added": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "newObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-b"}}},
        "expectedHint": fwk.Queue,
    },
    "TestIsSchedulableAfterPersistentVolumeChange/pv-was-updated-and-changed-topology": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "oldObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}}},
        "newObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-b"}}},
        "expectedHint": fwk.Queue,
    },
    "TestIsSchedulableAfterPersistentVolumeChange/pv-was-updated-and-added-topology-label": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "oldObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a"}}},
        "newObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a",
                                                            v1.LabelTopologyZone: "zone"}}},
        "expectedHint": fwk.Queue,
    },
    "TestIsSchedulableAfterPersistentVolumeChange/pv-was-updated-but-no-topology-is-changed": {
        "pod": createPodWithVolume("pod_1", "PVC_1"),
        "oldObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a",
                                                            v1.LabelTopologyZone: "zone"}}},
        "newObj": {"metadata": {"name": "Vol_1", "labels": {v1.LabelFailureDomainBetaZone: "us-west1-a",
                                                            v1.LabelTopologyZone: "zone"}}},
        "expectedHint": fwk.QueueSkip,
    },
})


def _check_hint(method: str, tc: dict[str, Any], add: str, update: str) -> None:
    """The hint called as upstream calls it, then as the queue does for the case's event (Add without an
    old object, else Update): a wrong object is upstream's error, a TypeError here, and Queue."""
    plugin, pod = VolumeZone(), pod_info(tc["pod"])
    old, new = tc.get("oldObj"), tc["newObj"]
    if tc.get("expectedErr"):
        with pytest.raises(TypeError):
            getattr(plugin, method)(pod, old, new)
    else:
        assert getattr(plugin, method)(pod, old, new) == tc["expectedHint"]
    assert capabilities_of(plugin).requeues(add if old is None else update, pod, old, new) == tc["expectedHint"]


@pytest.mark.parametrize("tc", cases(TestIsSchedulableAfterPersistentVolumeClaimAdded))
def test_is_schedulable_after_persistent_volume_claim_added(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_persistent_volume_claim_change", tc,
                "PersistentVolumeClaim/Add", "PersistentVolumeClaim/Update")


@pytest.mark.parametrize("tc", cases(TestIsSchedulableAfterStorageClassAdded))
def test_is_schedulable_after_storage_class_added(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_storage_class_added", tc, "StorageClass/Add", "StorageClass/Add")


@pytest.mark.parametrize("tc", cases(TestIsSchedulableAfterPersistentVolumeChange))
def test_is_schedulable_after_persistent_volume_change(tc: dict[str, Any]) -> None:
    _check_hint("is_schedulable_after_persistent_volume_change", tc, "PersistentVolume/Add", "PersistentVolume/Update")


def test_events_to_register() -> None:
    """EventsToRegister: StorageClass Add, PVC and PV Add|Update with their hints; Node Add|UpdateNodeLabel
    without one (a node's taint or allocatable change does not retry the pod)."""
    caps = capabilities_of(VolumeZone())
    assert caps.requeue_on == {"StorageClass/Add", "Node/Add", "Node/UpdateNodeLabel", "PersistentVolumeClaim/Add",
                               "PersistentVolumeClaim/Update", "PersistentVolume/Add", "PersistentVolume/Update"}
    assert not caps.interested_in("Node/UpdateNodeTaint") and not caps.interested_in("StorageClass/Update")

"""VolumeZone: kube-scheduler v1.37.2's volume_zone_test.go tables, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import CycleState
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

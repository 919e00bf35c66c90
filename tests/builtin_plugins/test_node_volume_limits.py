"""NodeVolumeLimits: kube-scheduler v1.37.2's nodevolumelimits/csi_test.go cases, fixtures verbatim.

Upstream's fake listers (getFakeCSIPVLister, getFakeCSIPVCLister, getFakeCSIStorageClassLister,
getNodeWithPodAndVolumeLimits, buildFakeClientWithVALister) become objects in the scheduler's cache.
Upstream's pods have the empty namespace; here that is `default`, for pods and claims alike.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import yaml
from kubeberth import Code, FeatureGates, Status
from kubeberth.builtin_plugins.node_volume_limits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import all_nodes, cluster_of, make_node, make_pod

EBS = "ebs.csi.aws.com"  # csilibplugins.AWSEBSDriverName
GCE = "pd.csi.storage.gke.io"  # csilibplugins.GCEPDDriverName
EBS_IN_TREE = "kubernetes.io/aws-ebs"  # csilibplugins.AWSEBSInTreePluginName
HOSTPATH_IN_TREE = "kubernetes.io/hostpath"
SC_NAME = "csi-sc"
NODE = "node-for-max-pd-test-1"
MAX = ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED

_seq = iter(range(1_000_000))


def pod(*claims: str, volumes: list[dict[str, Any]] = (), name: str = "", namespace: str = "default",
        uid: str = "", conditions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """st.MakePod().PVC(c)... : one volume per claim, named after it."""
    n = next(_seq)
    vols = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims] + list(volumes)
    obj = make_pod(name or f"pod-{n}", namespace=namespace, uid=uid or f"uid-{n}", volumes=vols)
    if conditions:
        obj["status"] = {"conditions": conditions}
    return obj


def pv_objects(volume_name: str, drivers: list[str]) -> list[dict[str, Any]]:
    """getFakeCSIPVLister."""
    out = []
    for driver in drivers:
        for j in range(4):
            handle = f"{volume_name}-{driver}-{j}"
            if driver == EBS_IN_TREE:
                source: dict[str, Any] = {"awsElasticBlockStore": {"volumeID": handle}}
            elif driver == HOSTPATH_IN_TREE:
                source = {"hostPath": {"path": "/tmp"}}
            else:
                source = {"csi": {"driver": driver, "volumeHandle": handle}}
            out.append({"kind": "PersistentVolume", "metadata": {"name": handle}, "spec": source})
    return out


def pvc_objects(volume_name: str, sc_name: str, drivers: list[str]) -> list[dict[str, Any]]:
    """getFakeCSIPVCLister."""
    out = []
    for driver in drivers:
        for j in range(4):
            v = f"{volume_name}-{driver}-{j}"
            out.append(claim(v, {"volumeName": v}))
    out.append(claim(f"{volume_name}-4", {"storageClassName": sc_name}))
    out.append(claim(f"{volume_name}-5", {}))
    out.append(claim(f"{volume_name}-6", {"storageClassName": sc_name, "volumeName": "missing-in-action"}))
    return out


def claim(name: str, spec: dict[str, Any], namespace: str = "default", **meta: Any) -> dict[str, Any]:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace, **meta}, "spec": spec}


def csinode(limit_source: str, limit: int, drivers: list[str]) -> dict[str, Any] | None:
    """The CSINode of getNodeWithPodAndVolumeLimits (with enableMigrationOnNode's annotation)."""
    if limit_source not in ("csinode", "csinode-with-no-limit", "no-csi-driver"):
        return None
    entries = []
    if limit_source != "no-csi-driver":
        for d in drivers:
            entry: dict[str, Any] = {"name": d, "nodeID": NODE}
            if limit_source == "csinode":
                entry["allocatable"] = {"count": limit}
            entries.append(entry)
    return {"kind": "CSINode", "metadata": {"name": NODE, "annotations": {
        "storage.alpha.kubernetes.io/migrated-plugins": EBS_IN_TREE}}, "spec": {"drivers": entries}}


def volume_attachments(count: int, drivers: list[str]) -> list[dict[str, Any]]:
    """buildFakeClientWithVALister."""
    return [
        {"kind": "VolumeAttachment", "metadata": {"name": f"va-{d}-{j}"},
         "spec": {"nodeName": NODE, "attacher": d, "source": {"persistentVolumeName": f"csi-{d}-{j}"}}}
        for d in drivers for j in range(count)
    ]


def build(existing: list[dict[str, Any]], drivers: list[str], limit_source: str, max_vols: int, va_count: int = 0,
          extra: list[dict[str, Any]] = (), csi_drivers: list[dict[str, Any]] = ()) -> ClusterState:
    objects = pv_objects("csi", drivers) + pvc_objects("csi", SC_NAME, drivers) + list(extra)
    objects.append({"kind": "StorageClass", "metadata": {"name": SC_NAME}, "provisioner": drivers[0]})
    node_limits = csinode(limit_source, max_vols, drivers)
    if node_limits is not None:
        objects.append(node_limits)
    objects += volume_attachments(va_count, drivers) + list(csi_drivers)
    placed = [{**p, "spec": {**p["spec"], "nodeName": NODE}} for p in existing]
    return cluster_of([make_node(NODE)], objects, placed)


def run(plugin: NodeVolumeLimits, cluster: ClusterState, new: dict[str, Any]) -> tuple[Status | None, Any]:
    """(PreFilter status, Filter outcome as (code, message) or None) for the one node."""
    info = PodInfo.from_dict(new)
    pre = plugin.pre_filter(info)
    if pre is not None:
        return pre, None
    result = plugin.filter(info, all_nodes(cluster), cluster)
    if result is None:
        return None, None
    if isinstance(result, Status):
        return None, (result.code, result.message)
    if result.feasible.all():
        return None, None
    [rej] = result.rejections
    return None, (rej.code, rej.reason)


# ---- TestCSILimits fixtures -------------------------------------------------------------------
running_pod = pod("csi-ebs.csi.aws.com-3")
pending_volume_pod = pod("csi-4")
unbound_pvc_pod2 = pod("csi-4")
missing_pv_pod = pod("csi-6")
no_sc_pvc_pod = pod("csi-5")
gce_two_vol_pod = pod("csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2")
in_tree_one_vol_pod = pod("csi-kubernetes.io/aws-ebs-0")
in_tree_two_vol_pod = pod("csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2")
csi_ebs_one_vol_pod = pod("csi-ebs.csi.aws.com-0")
csi_ebs_two_vol_pod = pod("csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2")
in_tree_non_migratable_one_vol_pod = pod("csi-kubernetes.io/hostpath-0")
ephemeral_volume_pod = pod(name="abc", namespace="test", uid="12345",
                           volumes=[{"name": "xyz", "ephemeral": {}}])
_owner = {"kind": "Pod", "name": "abc", "uid": "12345", "controller": True}
ephemeral_claim = claim("abc-xyz", {"storageClassName": SC_NAME}, namespace="test", ownerReferences=[_owner])
conflicting_claim = claim("abc-xyz", {"storageClassName": SC_NAME}, namespace="test")
ephemeral_two_volume_pod = pod(name="abc", namespace="test", uid="12345II",
                               volumes=[{"name": "x", "ephemeral": {}}, {"name": "y", "ephemeral": {}}])
_owner2 = {"kind": "Pod", "name": "abc", "uid": "12345II", "controller": True}
ephemeral_claim_x = claim("abc-x", {"storageClassName": SC_NAME}, namespace="test", ownerReferences=[_owner2])
ephemeral_claim_y = claim("abc-y", {"storageClassName": SC_NAME}, namespace="test", ownerReferences=[_owner2])
in_tree_inline_vol_pod = pod(volumes=[{"name": "", "awsElasticBlockStore": {"volumeID": "aws-inline1"}}])
in_tree_inline_vol_pod_with_same_csi_volume_id = pod(
    volumes=[{"name": "", "awsElasticBlockStore": {"volumeID": "csi-ebs.csi.aws.com-1"}}])
_cm_secret = [{"name": "", "configMap": {}}, {"name": "", "secret": {}}]
only_configmap_and_secret_vol_pod = pod(volumes=_cm_secret)
pvc_pod_with_configmap_and_secret = pod(
    volumes=[*_cm_secret, {"name": "", "persistentVolumeClaim": {"claimName": "csi-ebs.csi.aws.com-0"}}])
ephemeral_pod_with_configmap_and_secret = pod(name="abc", namespace="test",
                                              volumes=[*_cm_secret, {"name": "xyz", "ephemeral": {}}])
inline_migratable_pod_with_configmap_and_secret = pod(
    volumes=[*_cm_secret, {"name": "", "awsElasticBlockStore": {"volumeID": "aws-inline1"}}])

UNSCHED = (Code.UNSCHEDULABLE, MAX)
NOT_FOUND = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'looking up PVC test/abc-xyz: persistentvolumeclaims "abc-xyz" not found')

# (id, newPod, existingPods, extraClaims, maxVols, vaCount, driverNames, limitSource, wantStatus, wantPreFilterSkip)
CSI_LIMITS = [
    ("TestCSILimits/should count VolumeAttachments towards volume limit when no pods exist",
     csi_ebs_one_vol_pod, [], [], 2, 2, [EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/should schedule pod when VolumeAttachments count does not exceed limit",
     csi_ebs_one_vol_pod, [], [], 2, 1, [EBS], "csinode", None, False),
    ("TestCSILimits/fits when node volume limit >= new pods CSI volume",
     csi_ebs_one_vol_pod, [running_pod, csi_ebs_two_vol_pod], [], 4, 0, [EBS], "csinode", None, False),
    ("TestCSILimits/doesn't when node volume limit <= pods CSI volume",
     csi_ebs_one_vol_pod, [running_pod, csi_ebs_two_vol_pod], [], 2, 0, [EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/should when driver does not support volume limits",
     csi_ebs_one_vol_pod, [running_pod, csi_ebs_two_vol_pod], [], 2, 0, [EBS], "csinode-with-no-limit", None, False),
    ("TestCSILimits/count pending PVCs towards volume limit <= pods CSI volume",
     csi_ebs_one_vol_pod, [pending_volume_pod, csi_ebs_two_vol_pod], [], 2, 0, [EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/count multiple pending pvcs towards volume limit >= pods CSI volume",
     csi_ebs_one_vol_pod, [pending_volume_pod, unbound_pvc_pod2, csi_ebs_two_vol_pod], [], 4, 0, [EBS], "csinode",
     None, False),
    ("TestCSILimits/should count PVCs with invalid PV name but valid SC",
     csi_ebs_one_vol_pod, [missing_pv_pod, csi_ebs_two_vol_pod], [], 2, 0, [EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/don't count pvcs with missing SC towards volume limit",
     csi_ebs_one_vol_pod, [running_pod, no_sc_pvc_pod], [], 2, 0, [EBS], "csinode", None, False),
    ("TestCSILimits/count pvcs with the same type towards volume limit",
     csi_ebs_one_vol_pod, [gce_two_vol_pod, csi_ebs_two_vol_pod], [], 2, 0, [EBS, GCE], "csinode", UNSCHED, False),
    ("TestCSILimits/don't count pvcs with different type towards volume limit",
     gce_two_vol_pod, [csi_ebs_two_vol_pod, running_pod], [], 2, 0, [EBS, GCE], "csinode", None, False),
    ("TestCSILimits/should count in-tree volumes if migration is enabled",
     in_tree_one_vol_pod, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/nil csi node",
     in_tree_inline_vol_pod, [in_tree_two_vol_pod], [], 0, 0, [EBS_IN_TREE, EBS], "", None, False),
    ("TestCSILimits/should count unbound in-tree volumes if migration is enabled",
     pending_volume_pod, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/should not limit pod if volume used does not report limits",
     in_tree_one_vol_pod, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode-with-no-limit", None, False),
    ("TestCSILimits/should not count non-migratable in-tree volumes",
     in_tree_non_migratable_one_vol_pod, [csi_ebs_two_vol_pod], [], 2, 0, [HOSTPATH_IN_TREE, EBS], "csinode",
     None, False),
    ("TestCSILimits/should count in-tree inline volumes if migration is enabled",
     in_tree_inline_vol_pod, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)",
     in_tree_one_vol_pod, [csi_ebs_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
     "volumes)",
     in_tree_inline_vol_pod, [csi_ebs_two_vol_pod, in_tree_one_vol_pod], [], 3, 0, [EBS_IN_TREE, EBS], "csinode",
     UNSCHED, False),
    ("TestCSILimits/should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
     "volumes)",
     in_tree_inline_vol_pod_with_same_csi_volume_id, [csi_ebs_two_vol_pod, in_tree_one_vol_pod], [], 3, 0,
     [EBS_IN_TREE, EBS], "csinode", None, False),
    ("TestCSILimits/should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)",
     csi_ebs_one_vol_pod, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/ephemeral volume missing",
     ephemeral_volume_pod, [], [], 0, 0, [EBS], "csinode-with-no-limit", NOT_FOUND, False),
    ("TestCSILimits/ephemeral volume not owned",
     ephemeral_volume_pod, [], [conflicting_claim], 0, 0, [EBS], "csinode-with-no-limit",
     (Code.ERROR, "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"), False),
    ("TestCSILimits/ephemeral volume unbound",
     ephemeral_volume_pod, [], [ephemeral_claim], 0, 0, [EBS], "csinode-with-no-limit", None, False),
    ("TestCSILimits/ephemeral doesn't when node volume limit <= pods CSI volume",
     ephemeral_volume_pod, [running_pod, csi_ebs_two_vol_pod], [ephemeral_claim], 2, 0, [EBS], "csinode",
     UNSCHED, False),
    ("TestCSILimits/ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
     csi_ebs_one_vol_pod, [running_pod, ephemeral_two_volume_pod], [ephemeral_claim_x, ephemeral_claim_y], 2, 0,
     [EBS], "csinode", UNSCHED, False),
    ("TestCSILimits/persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume, "
     "ephemeral disabled",
     csi_ebs_one_vol_pod, [running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod], [ephemeral_claim], 3, 0, [EBS],
     "csinode", UNSCHED, False),
    ("TestCSILimits/persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
     csi_ebs_one_vol_pod, [running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod], [ephemeral_claim], 3, 0, [EBS],
     "csinode", UNSCHED, False),
    ("TestCSILimits/persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
     csi_ebs_one_vol_pod, [running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod], [ephemeral_claim], 5, 0, [EBS],
     "csinode", None, False),
    ("TestCSILimits/skip Filter when the pod only uses secrets and configmaps",
     only_configmap_and_secret_vol_pod, [], [], 2, 0, [EBS], "csinode", None, True),
    ("TestCSILimits/don't skip Filter when the pod has pvcs",
     pvc_pod_with_configmap_and_secret, [], [], 2, 0, [EBS], "csinode", None, False),
    ("TestCSILimits/don't skip Filter when the pod has ephemeral volumes",
     ephemeral_pod_with_configmap_and_secret, [], [], 0, 0, [EBS], "csinode-with-no-limit", NOT_FOUND, False),
    ("TestCSILimits/don't skip Filter when the pod has inline migratable volumes",
     inline_migratable_pod_with_configmap_and_secret, [in_tree_two_vol_pod], [], 2, 0, [EBS_IN_TREE, EBS],
     "csinode", UNSCHED, False),
]


@pytest.mark.parametrize(
    ("new", "existing", "extra", "max_vols", "va_count", "drivers", "limit_source", "want", "want_skip"),
    [pytest.param(*case[1:], id=case[0]) for case in CSI_LIMITS],
)
def test_csi_limits(new, existing, extra, max_vols, va_count, drivers, limit_source, want, want_skip) -> None:
    cluster = build(existing, drivers, limit_source, max_vols, va_count, extra)
    pre, got = run(NodeVolumeLimits(), cluster, new)
    assert (pre is not None and pre.code == Code.SKIP) is want_skip
    assert got == want


# ---- TestVolumeLimitScalingGate --------------------------------------------------------------
def _csi_driver(prevent: bool) -> dict[str, Any]:
    spec = {"preventPodSchedulingIfMissing": True} if prevent else {}
    return {"kind": "CSIDriver", "metadata": {"name": EBS}, "spec": spec}


# (id, gate on, limitSource, limit, CSIDriver present, preventPodSchedulingIfMissing, want)
SCALING = [
    ("TestVolumeLimitScalingGate/gate enabled - allow scheduling when CSIDriver exists but "
     "PreventPodSchedulingIfMissing is not set", True, "no-csi-driver", 0, True, False, None),
    ("TestVolumeLimitScalingGate/gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is "
     "true", True, "no-csi-driver", 0, True, True, (Code.UNSCHEDULABLE, f"{EBS} CSI driver is not installed on the node")),
    ("TestVolumeLimitScalingGate/gate disabled - skip driver presence check (regardless of CSIDriver presence)",
     False, "no-csi-driver", 0, True, True, None),
    ("TestVolumeLimitScalingGate/gate enabled - driver installed within limit", True, "csinode", 2, True, True, None),
    ("TestVolumeLimitScalingGate/gate enabled - allow scheduling when CSIDriver object missing",
     True, "no-csi-driver", 0, False, False, None),
]


@pytest.mark.parametrize(("gate", "limit_source", "limit", "present", "prevent", "want"),
                         [pytest.param(*c[1:], id=c[0]) for c in SCALING])
def test_volume_limit_scaling_gate(gate, limit_source, limit, present, prevent, want) -> None:
    cluster = build([], [EBS], limit_source, limit, csi_drivers=[_csi_driver(prevent)] if present else [])
    plugin = NodeVolumeLimits(FeatureGates({"VolumeLimitScaling": gate}))
    pre, got = run(plugin, cluster, pod("csi-ebs.csi.aws.com-0"))
    assert pre is None  # PreFilter does not skip
    assert got == want


def test_csi_limits_deferred_resize_skipped() -> None:
    """TestCSILimits_DeferredResizeSkipped (a table-less upstream test)."""
    deferred = pod(name="p", uid="p", conditions=[{"type": "PodResizePending", "status": "True", "reason": "Deferred"}])
    plugin = NodeVolumeLimits(FeatureGates({"InPlacePodVerticalScalingSchedulerPreemption": True}))
    cluster = cluster_of([make_node("node1")])
    info = PodInfo.from_dict(deferred)
    assert plugin.pre_filter(info).code == Code.SKIP
    assert plugin.filter(info, all_nodes(cluster), cluster) is None


# ---- queueing hints --------------------------------------------------------------------------
def _placed(obj: dict[str, Any], node: str = NODE) -> dict[str, Any]:
    return {**obj, "spec": {**obj["spec"], "nodeName": node}}


QHINT_DELETED_POD = [
    ("TestCSILimitsQHint/return a Queue when a deleted pod has a PVC", _placed(pod("placeholder")), True),
    ("TestCSILimitsQHint/return a Queue when a deleted pod has a inline migratable volume",
     _placed(pod(volumes=[{"name": "", "awsElasticBlockStore": {}}])), True),
    ("TestCSILimitsQHint/return a QueueSkip when a deleted pod doesn't have any volume", _placed(pod()), False),
    ("TestCSILimitsQHint/return a QueueSkip when a deleted pod is not scheduled.",
     _placed(pod("csi-ebs.csi.aws.com-0"), ""), False),
]


@pytest.mark.parametrize(("deleted", "want"), [pytest.param(*c[1:], id=c[0]) for c in QHINT_DELETED_POD])
def test_csi_limits_qhint(deleted: dict[str, Any], want: bool) -> None:
    new = PodInfo.from_dict(pod("csi-ebs.csi.aws.com-2"))
    assert NodeVolumeLimits().hint_pod_deleted(new, deleted, None) is want


def _pvc_vol(name: str) -> dict[str, Any]:
    return {"name": "", "persistentVolumeClaim": {"claimName": name}}


QHINT_ADDED_PVC = [
    ("TestCSILimitsAddedPVCQHint/a pod isn't in the same namespace as an added PVC",
     pod(namespace="ns1"), claim("", {}, namespace="ns2"), False),
    ("TestCSILimitsAddedPVCQHint/a pod is in the same namespace as an added PVC",
     pod(namespace="ns1", volumes=[_pvc_vol("pvc1")]), claim("pvc1", {}, namespace="ns1"), True),
    ("TestCSILimitsAddedPVCQHint/a pod has an ephemeral volume related to an added PVC",
     pod(name="pod1", namespace="ns1", volumes=[{"name": "ephemeral", "ephemeral": {}}]),
     claim("pod1-ephemeral", {}, namespace="ns1"), True),
    ("TestCSILimitsAddedPVCQHint/a pod doesn't have the same PVC as an added PVC",
     pod(namespace="ns1", volumes=[_pvc_vol("pvc1")]), claim("pvc2", {}, namespace="ns1"), False),
    ("TestCSILimitsAddedPVCQHint/a pod doesn't have any PVC attached",
     pod(namespace="ns1"), claim("pvc2", {}, namespace="ns1"), False),
]


@pytest.mark.parametrize(("new", "added", "want"), [pytest.param(*c[1:], id=c[0]) for c in QHINT_ADDED_PVC])
def test_csi_limits_added_pvc_qhint(new: dict[str, Any], added: dict[str, Any], want: bool) -> None:
    hint = NodeVolumeLimits().hint_claim_added(PodInfo.from_dict(new), None, added)
    assert hint is want


def _va(attacher: str, source: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "VolumeAttachment", "metadata": {"name": "volumeattachment1"},
            "spec": {"nodeName": "fake-node", "attacher": attacher, "source": source}}


_PV1 = {"persistentVolumeName": "pv1"}
_INLINE_EBS = {"inlineVolumeSpec": {"csi": {"driver": "ebs.csi.aws.com"}}}
_EBS_TEST = {"name": "", "awsElasticBlockStore": {"volumeID": "test"}}
QHINT_DELETED_VA = [
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has PVC when VolumeAttachment is deleting",
     pod(namespace="ns1", volumes=[_pvc_vol("pvc1")]), _va("test.storage.gke.io", _PV1), True),
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has an Inline Migratable volume (AWSEBSDriver) when "
     "VolumeAttachment (AWSEBSDriver) is deleting (match)",
     pod(namespace="ns1", volumes=[_EBS_TEST]), _va("ebs.csi.aws.com", _INLINE_EBS), True),
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has an Inline Migratable volume (GCEPDDriver) when "
     "VolumeAttachment (AWSEBSDriver) is deleting (no match)",
     pod(namespace="ns1", volumes=[{"name": "", "gcePersistentDisk": {"pdName": "test"}}]),
     _va("ebs.csi.aws.com", _INLINE_EBS), False),
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when "
     "VolumeAttachment (AWSEBSDriver) is deleting",
     pod(namespace="ns1", volumes=[_EBS_TEST, _pvc_vol("pvc1")]), _va("ebs.csi.aws.com", _INLINE_EBS), True),
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when "
     "VolumeAttachment (AWSEBSDriver)  is deleting",
     pod(namespace="ns1", volumes=[_EBS_TEST, _pvc_vol("pvc1")]), _va("test.storage.gke.io", _PV1), True),
    ("TestCSILimitsDeletedVolumeAttachmentQHint/a pod has no PVC when VolumeAttachment is deleting",
     pod(namespace="ns1"), _va("test.storage.gke.io", _PV1), False),
]


@pytest.mark.parametrize(("new", "deleted", "want"), [pytest.param(*c[1:], id=c[0]) for c in QHINT_DELETED_VA])
def test_csi_limits_deleted_volume_attachment_qhint(new: dict[str, Any], deleted: dict[str, Any], want: bool) -> None:
    hint = NodeVolumeLimits().hint_attachment_deleted(PodInfo.from_dict(new), deleted, None)
    assert hint is want


def _csinode_drivers(count: int) -> dict[str, Any]:
    return {"metadata": {"name": "test-node"},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "test-node", "allocatable": {"count": count}}]}}


QHINT_CSINODE = [
    ("TestCSILimitsAfterCSINodeUpdatedQHint/limit raised, queue", 1, 2, True),
    ("TestCSILimitsAfterCSINodeUpdatedQHint/limit decreased, skip queueing", 2, 1, False),
    ("TestCSILimitsAfterCSINodeUpdatedQHint/limit unchanged, skip queueing", 1, 1, False),
]


@pytest.mark.parametrize(("old", "new", "want"), [pytest.param(*c[1:], id=c[0]) for c in QHINT_CSINODE])
def test_csi_limits_after_csinode_updated_qhint(old: int, new: int, want: bool) -> None:
    test_pod = PodInfo.from_dict(pod("csi-ebs.csi.aws.com-0", name="test-pod", namespace="ns1"))
    hint = NodeVolumeLimits().hint_csinode_updated(test_pod, _csinode_drivers(old), _csinode_drivers(new))
    assert hint is want


# ---- through the framework: EventsToRegister and queueing hints decide requeueing -----------
def _ebs_claim(name: str, pv: str) -> list[dict[str, Any]]:
    return [
        {"kind": "PersistentVolume", "metadata": {"name": pv}, "spec": {"csi": {"driver": EBS, "volumeHandle": pv}}},
        claim(name, {"volumeName": pv}),
    ]


def _limits(count: int, note: str = "") -> dict[str, Any]:
    return {"kind": "CSINode", "metadata": {"name": "n1", "annotations": {"note": note}},
            "spec": {"drivers": [{"name": EBS, "nodeID": "n1", "allocatable": {"count": count}}]}}


def test_csinode_update_requeues_only_when_a_limit_rises(scheduler_tester) -> None:
    t = scheduler_tester(["NodeVolumeLimits"], objects=[make_node("n1"), _limits(1), *_ebs_claim("c1", "pv1"),
                                                        *_ebs_claim("c2", "pv2")])
    t.add({**pod("c1", name="running"), "spec": {**pod("c1")["spec"], "nodeName": "n1"}})
    assert t.schedule(pod("c2", name="new")) == {"new": None}
    entry = next(e for e in t.scheduler.queue.entries.values() if e.pod.name == "new")
    assert entry.where == "unschedulable"
    t.add(_limits(1, note="relabelled"))  # an update that raises no limit: QueueSkip
    t.sync()
    assert entry.where == "unschedulable"
    t.add(_limits(2))  # the limit rises: Queue
    t.sync()
    assert entry.where != "unschedulable"
    t.settle()
    assert t.node_of("default/new") == "n1"


def test_simulate_manifests_with_csinode_volume_attachment_and_csidriver(tmp_path) -> None:
    """`kubeberth simulate --cluster` takes CSINode, CSIDriver and VolumeAttachment manifests: the
    big node's one EBS slot is taken by an attachment, so the default profile places the pod on the
    small node, and explains why."""
    docs = [
        {**make_node("big", cpu="64", memory="128Gi"), "apiVersion": "v1", "kind": "Node"},
        {**make_node("small"), "apiVersion": "v1", "kind": "Node"},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "big"},
         "spec": {"drivers": [{"name": EBS, "nodeID": "big", "allocatable": {"count": 1}}]}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": EBS}, "spec": {}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                  "csi": {"driver": EBS, "volumeHandle": "h1"}}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "va1"},
         "spec": {"attacher": EBS, "nodeName": "big", "source": {"persistentVolumeName": "pv1"}}},
        {**make_pod("web", cpu="10m", volumes=[{"name": "d", "awsElasticBlockStore": {"volumeID": "vol-1"}}]),
         "apiVersion": "v1", "kind": "Pod"},
    ]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    run = [sys.executable, "-m", "kubeberth", "simulate", "--cluster", str(path)]
    done = subprocess.run([*run, "--json", "--placements"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["placements"] == {"default/web": "small"}
    story = subprocess.run([*run, "--explain", "default/web"], capture_output=True, text=True, check=True).stdout
    assert f"NodeVolumeLimits: 1\n        1 × {MAX}" in story
    docs.pop(5)  # without the attachment the big node has room
    path.write_text(yaml.safe_dump_all(docs))
    done = subprocess.run([*run, "--json", "--placements"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["placements"] == {"default/web": "big"}

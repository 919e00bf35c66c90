"""NodeVolumeLimits: a node takes no more CSI volumes per driver than its CSINode allows.

kube-scheduler v1.37.2's CSILimits (framework/plugins/nodevolumelimits/csi.go). A node's limit per
driver is its CSINode's `spec.drivers[].allocatable.count`. The pod's volumes are counted per
driver: claims (persistent and generic ephemeral) through their bound PV (a CSI source, or an
in-tree source migrated to CSI as csi-translation-lib translates it), or their StorageClass's
provisioner while unbound; inline in-tree volumes that migrate to CSI. Volumes already on the
node (its pods', and VolumeAttachments naming it) count once each by `driver/volumeHandle`.

Cost: PreFilter skips pods without claims or migratable inline volumes, so they cost a memoised
look at their volumes and nothing per node. For the others, only nodes whose CSINode limits one of
the pod's drivers are inspected (through an index of placed pods with such volumes per node row);
every other node passes as one vectorised mask.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from kubeberth import (
    ClusterState,
    Code,
    FeatureGates,
    FilterResult,
    MemoKey,
    NodeView,
    PodInfo,
    PreFilterState,
    Rejection,
    Status,
    hookimpl,
)
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer

log = logging.getLogger(__name__)

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

_VOLUMES: MemoKey[bool] = MemoKey("NodeVolumeLimits.attachable")
_INDEX_KEY = "NodeVolumeLimits.pods_with_volumes"


class InTreePlugin:
    """One csi-translation-lib in-tree plugin: its volume source field, names and translation."""

    def __init__(self, source: str, in_tree: str, driver: str, migration_on: bool) -> None:
        self.source, self.in_tree, self.driver, self.migration_on = source, in_tree, driver, migration_on


# csi-translation-lib's inTreePlugins. `migration_on`: nodevolumelimits' isCSIMigrationOn, true for
# these plugins whenever the node has a CSINode (Azure File and vSphere are never counted).
IN_TREE_PLUGINS = (
    InTreePlugin("gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", True),
    InTreePlugin("awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", True),
    InTreePlugin("cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", True),
    InTreePlugin("azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", True),
    InTreePlugin("azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", False),
    InTreePlugin("vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", False),
    InTreePlugin("portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", True),
)
_BY_NAME = {p.in_tree: p for p in IN_TREE_PLUGINS}
_AWS_VOLUME = re.compile(r"^vol-[^/]*$")
_UNSPECIFIED = "UNSPECIFIED"


class TranslationError(Exception):
    """An in-tree volume csi-translation-lib cannot translate (e.g. a malformed EBS volume ID)."""


def in_tree_plugin(source: Mapping[str, Any]) -> InTreePlugin | None:
    """The in-tree plugin of a volume or PV source (csi-translation-lib's CanSupport[Inline])."""
    for plugin in IN_TREE_PLUGINS:
        if source.get(plugin.source) is not None:
            return plugin
    return None


def ebs_volume_id(kubernetes_id: str) -> str:
    """csi-translation-lib's KubernetesVolumeIDToEBSVolumeID: aws://zone/vol-x -> vol-x."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    aws_id = kubernetes_id[len("aws://") :].split("/", 1)[-1].strip("/") if "/" in kubernetes_id[6:] else ""
    if not _AWS_VOLUME.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def translate_handle(plugin: InTreePlugin, source: Mapping[str, Any], pv_labels: Mapping[str, str] | None) -> str:
    """The CSI volumeHandle csi-translation-lib gives an in-tree source (inline when pv_labels is None)."""
    src = source.get(plugin.source) or {}
    if plugin.source == "awsElasticBlockStore":
        return ebs_volume_id(str(src.get("volumeID") or ""))
    if plugin.source == "gcePersistentDisk":
        name = src.get("pdName") or ""
        if pv_labels is None:
            return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{name}"
        label = pv_labels.get("failure-domain.beta.kubernetes.io/zone") or pv_labels.get("topology.kubernetes.io/zone") or ""
        zones = label.split("__")
        if len(zones) == 1 and zones[0]:
            return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{name}"
        if len(zones) > 1:
            return f"projects/{_UNSPECIFIED}/regions/{_gce_region(zones)}/disks/{name}"
        return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{name}"
    if plugin.source == "azureDisk":
        kind = src.get("kind")
        if pv_labels is None and kind is not None and str(kind).lower() != "managed":
            raise TranslationError(f"kind({kind}) is not supported in csi migration")
        return str(src.get("diskURI") or "")
    return str(src.get("volumeID") or "")


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("spec") or {}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def pod_volumes(pod: PodInfo) -> list[dict[str, Any]]:
    return list(_spec(pod.raw).get("volumes") or ())


def has_attachable_volumes(pod: PodInfo) -> bool:
    """A claim, a generic ephemeral volume or a migratable inline volume (CSILimits' PreFilter)."""
    found = _VOLUMES.get(pod)
    if found is None:
        found = any(
            v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or in_tree_plugin(v)
            for v in pod_volumes(pod)
        )
        _VOLUMES.set(pod, found)
    return found


def is_resize_deferred(pod: PodInfo) -> bool:
    """component-helpers' IsPodResizeDeferred: a PodResizePending condition with reason Deferred."""
    for cond in (pod.raw.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "PodResizePending":
            return cond.get("reason") == "Deferred"
    return False


def csinode_limits(csinode: Mapping[str, Any] | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable.count from a CSINode (no entry: no limit)."""
    out: dict[str, int] = {}
    if csinode is None:
        return out
    for d in _spec(csinode).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[str(d.get("name"))] = int(count)
    return out


class ClaimNotFound(Exception):
    """The pod's claim does not exist (Filter: UnschedulableAndUnresolvable)."""


class PodsWithVolumes:
    """PodIndex: per node row, the placed pods that have claims or migratable inline volumes."""

    def __init__(self, cluster: ClusterState | None = None) -> None:
        self.rows: dict[int, dict[str, PodInfo]] = {}

    def pod_added(self, pod: PodInfo, row: int) -> None:
        if has_attachable_volumes(pod):
            self.rows.setdefault(row, {})[pod.uid] = pod

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        on_row = self.rows.get(row)
        if on_row is not None:
            on_row.pop(pod.uid, None)
            if not on_row:
                del self.rows[row]


class NodeVolumeLimits:
    """Rejects nodes where the pod's new CSI volumes would exceed a driver's attach limit."""

    name = "NodeVolumeLimits"
    # EventsToRegister; CSINode/Add has no hint upstream (any new CSINode may help).
    requeue_on = frozenset(
        {"CSINode/Add", "CSINode/Update", "Pod/Delete", "PersistentVolumeClaim/Add", "VolumeAttachment/Delete"}
    )
    queueing_hints = {
        "CSINode/Update": "hint_csinode_updated",
        "Pod/Delete": "hint_pod_deleted",
        "PersistentVolumeClaim/Add": "hint_claim_added",
        "VolumeAttachment/Delete": "hint_attachment_deleted",
    }
    pre_filter_state = PreFilterState.NO_POD_DATA

    def __init__(self, feature_gates: FeatureGates | None = None) -> None:
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.enable_volume_limit_scaling = gates.enabled("VolumeLimitScaling")
        self.skip_deferred_resize = gates.enabled("InPlacePodVerticalScalingSchedulerPreemption")
        # Handles for unbound claims counted by StorageClass (kube-scheduler's randomVolumeIDPrefix).
        self.random_prefix = secrets.token_hex(16)

    # ---- PreFilter / Filter ------------------------------------------------------------
    @hookimpl
    def sign_pod(self, pod: PodInfo) -> list[SignFragment]:
        """kube-scheduler's CSILimits.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @hookimpl
    def pre_filter(self, pod: PodInfo) -> Status | None:
        if self.skip_deferred_resize and is_resize_deferred(pod):
            return Status.skip()
        return None if has_attachable_volumes(pod) else Status.skip()

    @hookimpl
    def filter(self, pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> FilterResult | Status | None:
        if not pod_volumes(pod) or (self.skip_deferred_resize and is_resize_deferred(pod)):
            return None
        try:
            without_csinode = self.attachable(pod, cluster, False, True)
            with_csinode = self.attachable(pod, cluster, True, True)
        except ClaimNotFound as exc:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (str(exc),))
        except (TranslationError, ValueError) as exc:
            return Status.error(str(exc))
        if not without_csinode and not with_csinode:
            return None
        n = len(nodes)
        csinodes: dict[int, Mapping[str, Any]] = {}
        row_of = cluster.table.row_of
        for obj in cluster.list_objects("CSINode"):
            row = row_of.get(str(_meta(obj).get("name")))
            if row is not None:
                csinodes[row] = obj
        position = {int(r): i for i, r in enumerate(nodes.rows.tolist())} if csinodes else {}
        rejected: dict[str, np.ndarray] = {}
        if self.enable_volume_limit_scaling:
            self._driver_checks(cluster, nodes, csinodes, position, without_csinode, with_csinode, rejected)
        if with_csinode and csinodes:
            over = np.zeros(n, dtype=bool)
            drivers = set(with_csinode.values())
            attachments = None
            try:
                for row, csinode in csinodes.items():
                    at = position.get(row)
                    if at is None or any(m[at] for m in rejected.values()):
                        continue
                    limits = csinode_limits(csinode)
                    if not any(d in limits for d in drivers):
                        continue
                    if attachments is None:
                        attachments = self._attachments_by_node(cluster)
                    if self._exceeds(pod, cluster, row, limits, with_csinode, attachments):
                        over[at] = True
            except (TranslationError, ValueError) as exc:
                return Status.error(str(exc))
            if over.any():
                rejected[ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED] = over
        if not rejected:
            return None
        feasible = np.ones(n, dtype=bool)
        rejections = []
        for reason, mask in rejected.items():
            feasible &= ~mask
            rejections.append(Rejection(reason, mask, Code.UNSCHEDULABLE))
        return FilterResult(feasible, rejections)

    def _driver_checks(
        self,
        cluster: ClusterState,
        nodes: NodeView,
        csinodes: Mapping[int, Mapping[str, Any]],
        position: Mapping[int, int],
        without_csinode: Mapping[str, str],
        with_csinode: Mapping[str, str],
        rejected: dict[str, np.ndarray],
    ) -> None:
        """checkCSIDriverOnNode: a CSIDriver with preventPodSchedulingIfMissing needs its driver in
        the node's CSINode; first missing driver (by name) is the reason."""
        required = set()
        for driver in set(without_csinode.values()) | set(with_csinode.values()):
            obj = cluster.get_object("CSIDriver", driver)
            if obj is not None and _spec(obj).get("preventPodSchedulingIfMissing"):
                required.add(driver)
        if not required:
            return
        has_csinode = np.zeros(len(nodes), dtype=bool)
        for row in csinodes:
            at = position.get(row)
            if at is not None:
                has_csinode[at] = True
        done = np.zeros(len(nodes), dtype=bool)  # one reason per node: the first missing driver
        for driver in sorted(required):
            missing = np.zeros(len(nodes), dtype=bool)
            if driver in without_csinode.values():
                missing |= ~has_csinode
            if driver in with_csinode.values():
                for row, csinode in csinodes.items():
                    at = position.get(row)
                    names = {d.get("name") for d in _spec(csinode).get("drivers") or ()}
                    if at is not None and driver not in names:
                        missing[at] = True
            missing &= ~done
            if missing.any():
                done |= missing
                rejected[f"{driver} CSI driver is not installed on the node"] = missing

    def _exceeds(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        row: int,
        limits: Mapping[str, int],
        new: Mapping[str, str],
        attachments: Mapping[str, dict[str, str]],
    ) -> bool:
        attached: dict[str, str] = {}
        index: PodsWithVolumes = cluster.index(_INDEX_KEY, PodsWithVolumes)  # type: ignore[assignment]
        for existing in (index.rows.get(row) or {}).values():
            if existing.uid == pod.uid:
                continue
            attached.update(self.attachable(existing, cluster, True, False))
        counts: dict[str, int] = {}
        new_volumes = {k: v for k, v in new.items() if k not in attached}
        for driver in attached.values():
            counts[driver] = counts.get(driver, 0) + 1
        for unique, driver in attachments.get(str(cluster.table.names[row]), {}).items():
            if unique not in attached:
                counts[driver] = counts.get(driver, 0) + 1
        wanted: dict[str, int] = {}
        for driver in new_volumes.values():
            wanted[driver] = wanted.get(driver, 0) + 1
        return any(
            driver in limits and counts.get(driver, 0) + count > limits[driver] for driver, count in wanted.items()
        )

    def _attachments_by_node(self, cluster: ClusterState) -> dict[str, dict[str, str]]:
        """getNodeVolumeAttachmentInfo for every node: node -> {driver/volumeHandle: driver}."""
        out: dict[str, dict[str, str]] = {}
        for va in cluster.list_objects("VolumeAttachment"):
            spec = _spec(va)
            attacher, node = spec.get("attacher") or "", spec.get("nodeName") or ""
            pv_name = (spec.get("source") or {}).get("persistentVolumeName")
            if not attacher or not pv_name:
                continue
            pv = cluster.get_object("PersistentVolume", pv_name)
            csi = _spec(pv).get("csi") if pv is not None else None
            if not csi:
                continue
            out.setdefault(node, {})[f"{attacher}/{csi.get('volumeHandle') or ''}"] = attacher
        return out

    # ---- counting a pod's volumes ------------------------------------------------------
    def attachable(self, pod: PodInfo, cluster: ClusterState, has_csinode: bool, new_pod: bool) -> dict[str, str]:
        """filterAttachableVolumes: {driver/volumeHandle: driver} of the pod's CSI volumes on a node
        with (or without) a CSINode. A new pod's missing claim raises ClaimNotFound."""
        result: dict[str, str] = {}
        for vol in pod_volumes(pod):
            if vol.get("persistentVolumeClaim") is not None:
                claim = (vol["persistentVolumeClaim"] or {}).get("claimName") or ""
                ephemeral = False
            elif vol.get("ephemeral") is not None:
                claim = f"{pod.name}-{vol.get('name', '')}"
                ephemeral = True
            else:
                self._inline(vol, pod, has_csinode, result)
                continue
            if not claim:
                raise ValueError("PersistentVolumeClaim had no name")
            pvc = cluster.get_object("PersistentVolumeClaim", f"{pod.namespace}/{claim}")
            if pvc is None:
                if new_pod:
                    raise ClaimNotFound(
                        f'looking up PVC {pod.namespace}/{claim}: persistentvolumeclaims "{claim}" not found'
                    )
                continue
            if ephemeral and not _owned_by(pvc, pod):
                raise ValueError(
                    f"PVC {pod.namespace}/{claim} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"
                )
            driver, handle = self._claim_driver(cluster, pvc, has_csinode)
            if driver and handle:
                result[f"{driver}/{handle}"] = driver
        return result

    def _inline(self, vol: Mapping[str, Any], pod: PodInfo, has_csinode: bool, result: dict[str, str]) -> None:
        plugin = in_tree_plugin(vol)
        if plugin is None or not (has_csinode and plugin.migration_on):
            return
        try:
            handle = translate_handle(plugin, vol, None)
        except TranslationError as exc:
            raise TranslationError(f"converting volume({vol.get('name', '')}) from inline to csi: {exc}") from None
        result[f"{plugin.driver}/{handle}"] = plugin.driver

    def _claim_driver(self, cluster: ClusterState, pvc: Mapping[str, Any], has_csinode: bool) -> tuple[str, str]:
        """getCSIDriverInfo: (driver, volumeHandle) of a claim's PV, else from its StorageClass."""
        pv_name = _spec(pvc).get("volumeName") or ""
        pv = cluster.get_object("PersistentVolume", pv_name) if pv_name else None
        if pv is None:
            return self._class_driver(cluster, pvc, has_csinode)
        spec = _spec(pv)
        csi = spec.get("csi")
        if csi:
            return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
        plugin = in_tree_plugin(spec)
        if plugin is None or not (has_csinode and plugin.migration_on):
            return "", ""
        try:
            return plugin.driver, translate_handle(plugin, spec, _meta(pv).get("labels") or {})
        except TranslationError:
            return "", ""

    def _class_driver(self, cluster: ClusterState, pvc: Mapping[str, Any], has_csinode: bool) -> tuple[str, str]:
        spec, meta = _spec(pvc), _meta(pvc)
        class_name = spec.get("storageClassName")
        if class_name is None:  # storagehelpers.GetPersistentVolumeClaimClass: the beta annotation
            class_name = (meta.get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class", "")
        if not class_name:
            return "", ""
        sc = cluster.get_object("StorageClass", class_name)
        if sc is None:
            return "", ""
        handle = f"{self.random_prefix}-{meta.get('namespace') or 'default'}/{meta.get('name')}"
        provisioner = str(sc.get("provisioner") or "")
        plugin = _BY_NAME.get(provisioner)
        if plugin is not None:
            if not (has_csinode and plugin.migration_on):
                return "", ""
            return plugin.driver, handle
        return provisioner, handle

    # ---- queueing hints (kube-scheduler's QueueingHintFns) -------------------------------
    def hint_pod_deleted(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterAssignedPodDeleted: the deleted pod was placed or nominated and had a
        claim, an ephemeral volume or a migratable inline volume."""
        deleted = _raw(old if old is not None else new)
        spec = _spec(deleted)
        volumes = spec.get("volumes") or ()
        if not volumes:
            return False
        if not spec.get("nodeName") and not (deleted.get("status") or {}).get("nominatedNodeName"):
            return False
        return any(
            v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or in_tree_plugin(v)
            for v in volumes
        )

    def hint_claim_added(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterPVCAdded: a claim the pod uses (directly or as its ephemeral volume)."""
        meta = _meta(_raw(new))
        if (meta.get("namespace") or "") != pod.namespace:
            return False
        for vol in pod_volumes(pod):
            if vol.get("persistentVolumeClaim") is not None:
                name = (vol["persistentVolumeClaim"] or {}).get("claimName") or ""
            elif vol.get("ephemeral") is not None:
                name = f"{pod.name}-{vol.get('name', '')}"
            else:
                continue
            if name == meta.get("name"):
                return True
        return False

    def hint_attachment_deleted(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterVolumeAttachmentDeleted: the pod has a claim, or a migratable inline
        volume whose CSI driver is the attachment's attacher."""
        attacher = _spec(_raw(old if old is not None else new)).get("attacher") or ""
        for vol in pod_volumes(pod):
            if vol.get("persistentVolumeClaim") is not None:
                return True
            plugin = in_tree_plugin(vol)
            if plugin is None:
                continue
            translate_handle(plugin, vol, None)  # a translation error queues the pod (it raises)
            if plugin.driver == attacher:
                return True
        return False

    def hint_csinode_updated(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterCSINodeUpdated: some driver's allocatable count rose."""
        if old is None:
            return True
        before = {
            str(d.get("name")): int((d.get("allocatable") or {}).get("count") or 0)
            for d in _spec(_raw(old)).get("drivers") or ()
        }
        return any(
            int((d.get("allocatable") or {}).get("count") or 0) > before.get(str(d.get("name")), 0)
            for d in _spec(_raw(new)).get("drivers") or ()
        )


def _raw(obj: Any) -> Mapping[str, Any]:
    """A changed object's raw body (pods arrive as PodInfo)."""
    if isinstance(obj, PodInfo):
        return obj.raw
    return obj or {}


def _owned_by(pvc: Mapping[str, Any], pod: PodInfo) -> bool:
    """ephemeral.VolumeIsForPod: the claim's controller owner is the pod."""
    refs: Iterable[Mapping[str, Any]] = _meta(pvc).get("ownerReferences") or ()
    return any(ref.get("controller") and ref.get("uid") == pod.uid for ref in refs)

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
import secrets
from collections.abc import Mapping
from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    Code,
    FeatureGates,
    FilterResult,
    NodeView,
    PodView,
    PreFilterState,
    Rejection,
    Status,
    hookimpl,
)
from kubeberth.api.signing import VOLUMES_SIGNER, SignFragment, volumes_signer

from .translation import BY_IN_TREE_NAME, TranslationError, in_tree_plugin, translate_handle
from .utils import (
    INDEX_KEY,
    ClaimNotFound,
    PodsWithVolumes,
    csinode_limits,
    has_attachable_volumes,
    is_resize_deferred,
    meta_of,
    owned_by,
    pod_volumes,
    raw_of,
    spec_of,
)

log = logging.getLogger(__name__)

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


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
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's CSILimits.SignPod: the pod's non-configMap/secret volumes."""
        return [SignFragment(VOLUMES_SIGNER, volumes_signer(pod))]

    @hookimpl
    def pre_filter(self, pod: PodView) -> Status | None:
        if self.skip_deferred_resize and is_resize_deferred(pod):
            return Status.skip()
        return None if has_attachable_volumes(pod) else Status.skip()

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | Status | None:
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
            row = row_of.get(str(meta_of(obj).get("name")))
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
        cluster: ClusterView,
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
            if obj is not None and spec_of(obj).get("preventPodSchedulingIfMissing"):
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
                    names = {d.get("name") for d in spec_of(csinode).get("drivers") or ()}
                    if at is not None and driver not in names:
                        missing[at] = True
            missing &= ~done
            if missing.any():
                done |= missing
                rejected[f"{driver} CSI driver is not installed on the node"] = missing

    def _exceeds(
        self,
        pod: PodView,
        cluster: ClusterView,
        row: int,
        limits: Mapping[str, int],
        new: Mapping[str, str],
        attachments: Mapping[str, dict[str, str]],
    ) -> bool:
        attached: dict[str, str] = {}
        index: PodsWithVolumes = cluster.index(INDEX_KEY, PodsWithVolumes)
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

    def _attachments_by_node(self, cluster: ClusterView) -> dict[str, dict[str, str]]:
        """getNodeVolumeAttachmentInfo for every node: node -> {driver/volumeHandle: driver}."""
        out: dict[str, dict[str, str]] = {}
        for va in cluster.list_objects("VolumeAttachment"):
            spec = spec_of(va)
            attacher, node = spec.get("attacher") or "", spec.get("nodeName") or ""
            pv_name = (spec.get("source") or {}).get("persistentVolumeName")
            if not attacher or not pv_name:
                continue
            pv = cluster.get_object("PersistentVolume", pv_name)
            csi = spec_of(pv).get("csi") if pv is not None else None
            if not csi:
                continue
            out.setdefault(node, {})[f"{attacher}/{csi.get('volumeHandle') or ''}"] = attacher
        return out

    # ---- counting a pod's volumes ------------------------------------------------------
    def attachable(self, pod: PodView, cluster: ClusterView, has_csinode: bool, new_pod: bool) -> dict[str, str]:
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
            if ephemeral and not owned_by(pvc, pod):
                raise ValueError(
                    f"PVC {pod.namespace}/{claim} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"
                )
            driver, handle = self._claim_driver(cluster, pvc, has_csinode)
            if driver and handle:
                result[f"{driver}/{handle}"] = driver
        return result

    def _inline(self, vol: Mapping[str, Any], pod: PodView, has_csinode: bool, result: dict[str, str]) -> None:
        plugin = in_tree_plugin(vol)
        if plugin is None or not (has_csinode and plugin.migration_on):
            return
        try:
            handle = translate_handle(plugin, vol, None)
        except TranslationError as exc:
            raise TranslationError(f"converting volume({vol.get('name', '')}) from inline to csi: {exc}") from None
        result[f"{plugin.driver}/{handle}"] = plugin.driver

    def _claim_driver(self, cluster: ClusterView, pvc: Mapping[str, Any], has_csinode: bool) -> tuple[str, str]:
        """getCSIDriverInfo: (driver, volumeHandle) of a claim's PV, else from its StorageClass."""
        pv_name = spec_of(pvc).get("volumeName") or ""
        pv = cluster.get_object("PersistentVolume", pv_name) if pv_name else None
        if pv is None:
            return self._class_driver(cluster, pvc, has_csinode)
        spec = spec_of(pv)
        csi = spec.get("csi")
        if csi:
            return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
        plugin = in_tree_plugin(spec)
        if plugin is None or not (has_csinode and plugin.migration_on):
            return "", ""
        try:
            return plugin.driver, translate_handle(plugin, spec, meta_of(pv).get("labels") or {})
        except TranslationError:
            return "", ""

    def _class_driver(self, cluster: ClusterView, pvc: Mapping[str, Any], has_csinode: bool) -> tuple[str, str]:
        spec, meta = spec_of(pvc), meta_of(pvc)
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
        plugin = BY_IN_TREE_NAME.get(provisioner)
        if plugin is not None:
            if not (has_csinode and plugin.migration_on):
                return "", ""
            return plugin.driver, handle
        return provisioner, handle

    # ---- queueing hints (kube-scheduler's QueueingHintFns) -------------------------------
    def hint_pod_deleted(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterAssignedPodDeleted: the deleted pod was placed or nominated and had a
        claim, an ephemeral volume or a migratable inline volume."""
        deleted = raw_of(old if old is not None else new)
        spec = spec_of(deleted)
        volumes = spec.get("volumes") or ()
        if not volumes:
            return False
        if not spec.get("nodeName") and not (deleted.get("status") or {}).get("nominatedNodeName"):
            return False
        return any(
            v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None or in_tree_plugin(v)
            for v in volumes
        )

    def hint_claim_added(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterPVCAdded: a claim the pod uses (directly or as its ephemeral volume)."""
        meta = meta_of(raw_of(new))
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

    def hint_attachment_deleted(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterVolumeAttachmentDeleted: the pod has a claim, or a migratable inline
        volume whose CSI driver is the attachment's attacher."""
        attacher = spec_of(raw_of(old if old is not None else new)).get("attacher") or ""
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

    def hint_csinode_updated(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterCSINodeUpdated: some driver's allocatable count rose."""
        if old is None:
            return True
        before = {
            str(d.get("name")): int((d.get("allocatable") or {}).get("count") or 0)
            for d in spec_of(raw_of(old)).get("drivers") or ()
        }
        return any(
            int((d.get("allocatable") or {}).get("count") or 0) > before.get(str(d.get("name")), 0)
            for d in spec_of(raw_of(new)).get("drivers") or ()
        )


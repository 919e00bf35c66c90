"""The in-tree volume plugins NodeVolumeLimits counts as CSI volumes, and their translation.

Mirrors the parts of k8s.io/csi-translation-lib (translate.go, plugins/*.go) kube-scheduler's
nodevolumelimits/csi.go uses: which in-tree source a volume has, its CSI driver, and the volumeHandle
the translation gives it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


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
BY_IN_TREE_NAME = {p.in_tree: p for p in IN_TREE_PLUGINS}
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


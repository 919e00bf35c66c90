"""CSI migration of in-tree volumes, as far as scheduling sees it: binder.go's
isCSIMigrationOnForPlugin / isPluginMigratedToCSIOnNode and csi-translation-lib's
translateTopologyFromInTreeToCSI, so an in-tree zonal PV on a node whose CSINode says the plugin
is migrated is matched by its CSI driver's topology key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubeberth.api.helpers import annotations_of, meta_of, spec_of

from .volumes import ANN_MIGRATED_PLUGINS, pv_node_affinity_matches

__all__ = ["migrated_plugins", "migration_topology_key", "pv_admits_node", "translate_topology"]

# In-tree sources whose CSI migration is on in v1.37 (binder.go's isCSIMigrationOnForPlugin): plugin
# name, and the CSI topology key csi-translation-lib rewrites the PV's zone to (None: topology kept).
_MIGRATED_SOURCES: dict[str, tuple[str, str | None]] = {
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "topology.ebs.csi.aws.com/zone"),
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "topology.gke.io/zone"),
    "azureDisk": ("kubernetes.io/azure-disk", None),
    "cinder": ("kubernetes.io/cinder", "topology.cinder.csi.openstack.org/zone"),
    "portworxVolume": ("kubernetes.io/portworx-volume", None),
}
_ZONE_GA, _REGION_GA = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
_ZONE_BETA, _REGION_BETA = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"


def migration_topology_key(pv: dict[str, Any]) -> tuple[str, str] | None:
    """(in-tree plugin, CSI topology key) for a PV whose node affinity CSI migration rewrites, else None."""
    spec = spec_of(pv)
    for source, (plugin, key) in _MIGRATED_SOURCES.items():
        if spec.get(source) is not None:
            return (plugin, key) if key is not None else None
    return None


def migrated_plugins(csi_node: dict[str, Any] | None) -> frozenset[str]:
    """isPluginMigratedToCSIOnNode's set: the CSINode's migrated-plugins annotation, split on commas."""
    value = (annotations_of(csi_node).get(ANN_MIGRATED_PLUGINS) or "") if csi_node else ""
    return frozenset(value.split(",")) if value else frozenset()


def _affinity_keys(terms: list[dict[str, Any]]) -> set[str]:
    return {r.get("key") for t in terms for r in t.get("matchExpressions") or ()}


def translate_topology(pv: dict[str, Any], csi_key: str) -> dict[str, Any]:
    """csi-translation-lib's translateTopologyFromInTreeToCSI: the PV with its zone requirement
    rewritten to the CSI driver's key (taken from its zone label when it has no node affinity), and a
    beta region requirement rewritten to the GA label."""
    pv = {**pv, "spec": dict(spec_of(pv))}
    required = ((pv["spec"].get("nodeAffinity") or {}).get("required")) or {}
    terms = [dict(t, matchExpressions=[dict(r) for r in t.get("matchExpressions") or ()])
             for t in required.get("nodeSelectorTerms") or ()]
    labels = meta_of(pv).get("labels") or {}
    keys = _affinity_keys(terms)
    if _ZONE_GA in keys or (_ZONE_BETA not in keys and (_ZONE_GA in labels or _ZONE_BETA not in labels)):
        zone_key, region_key = _ZONE_GA, _REGION_GA
    else:
        zone_key, region_key = _ZONE_BETA, _REGION_BETA
    if any(r.get("key") == zone_key and r.get("values") for t in terms for r in t["matchExpressions"]):
        for t in terms:
            for r in t["matchExpressions"]:
                if r.get("key") == zone_key:
                    r["key"] = csi_key
    elif zone_key in labels:
        zones = sorted({z.strip() for z in labels[zone_key].split("__") if z.strip()})
        if zones:
            terms = terms or [{"matchExpressions": []}]
            for t in terms:
                t["matchExpressions"].append({"key": csi_key, "operator": "In", "values": zones})
    if region_key == _REGION_BETA:
        for t in terms:
            for r in t["matchExpressions"]:
                if r.get("key") == _REGION_BETA:
                    r["key"] = _REGION_GA
    if terms:
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    return pv


def pv_admits_node(pv: dict[str, Any], labels: Mapping[str, str], migrated: frozenset[str]) -> bool:
    """CheckNodeAffinity after tryTranslatePVToCSI: a PV of an in-tree plugin the node's CSINode says
    is migrated is matched by its CSI driver's topology."""
    translation = migration_topology_key(pv) if migrated else None
    if translation is not None and translation[0] in migrated:
        pv = translate_topology(pv, translation[1])
    return pv_node_affinity_matches(pv, labels)

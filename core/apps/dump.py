"""What a `kubectl get` dump must hold for simulate to see what the scheduler sees, and a check
that tells the user (once) which referenced objects their file lacks."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from ..cache.shapes import section

log = logging.getLogger("kubeberth.simulate")

# Every kind the scheduler reads: nodes and pods, volumes (claims, volumes, classes, CSI node
# limits), priority classes (priorityClassName), disruption budgets (preemption) and namespaces
# (namespaceSelector in pod affinity), and services and controllers (PodTopologySpread's
# system-default selector). DRA kinds (resourceclaims, resourceslices, deviceclasses)
# join the list once the DRA plugin reads them.
DUMP_KINDS = (
    "nodes",
    "pods",
    "pvc",
    "pv",
    "storageclasses",
    "priorityclasses",
    "csinodes",
    "csidrivers",
    "csistoragecapacities",
    "volumeattachments",
    "pdb",
    "namespaces",
    "services",
    "replicationcontrollers",
    "replicasets",
    "statefulsets",
)
DUMP_COMMAND = f"kubectl get {','.join(DUMP_KINDS)} -A -o yaml > now.yaml"
_BUILTIN_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")


def _key(obj: dict[str, Any]) -> str:
    meta = section(obj, "metadata")
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _text(value: Any) -> str:
    """A name as written, or "" when it is not a string (the object is reported where it is read)."""
    return value if isinstance(value, str) else ""


def check_references(objects: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Objects pods refer to that `objects` lacks, per kind (sorted names): PVCs of unbound
    pods, their PVs and StorageClasses, and PriorityClasses without a resolved spec.priority."""
    have: dict[str, set[str]] = {}
    for obj in objects:
        kind = obj.get("kind") or ""
        name = _text(section(obj, "metadata").get("name"))
        have.setdefault(kind, set()).add(_key(obj) if kind in ("Pod", "PersistentVolumeClaim") else name)
    missing: dict[str, set[str]] = {}
    claims = {_key(o): o for o in objects if o.get("kind") == "PersistentVolumeClaim"}
    for pod in objects:
        if pod.get("kind") != "Pod":
            continue
        spec = section(pod, "spec")
        namespace = _text(section(pod, "metadata").get("namespace")) or "default"
        pc = _text(spec.get("priorityClassName"))
        if pc and spec.get("priority") is None and pc not in have.get("PriorityClass", ()) and pc not in _BUILTIN_PRIORITY_CLASSES:
            missing.setdefault("PriorityClass", set()).add(pc)
        if spec.get("nodeName"):
            continue  # already placed: its volumes do not change where anything lands
        volumes = spec.get("volumes")
        for volume in volumes if isinstance(volumes, list) else ():
            claim = _text(section(volume, "persistentVolumeClaim").get("claimName")) if isinstance(volume, dict) else ""
            if not claim:
                continue
            key = f"{namespace}/{claim}"
            pvc = claims.get(key)
            if pvc is None:
                missing.setdefault("PersistentVolumeClaim", set()).add(key)
                continue
            pvc_spec = section(pvc, "spec")
            volume_name = _text(pvc_spec.get("volumeName"))
            if volume_name and volume_name not in have.get("PersistentVolume", ()):
                missing.setdefault("PersistentVolume", set()).add(volume_name)
            sc = _text(pvc_spec.get("storageClassName"))
            if sc and not volume_name and sc not in have.get("StorageClass", ()):
                missing.setdefault("StorageClass", set()).add(sc)
    return {kind: sorted(names) for kind, names in sorted(missing.items())}


def warn_missing(missing: dict[str, list[str]]) -> None:
    """One warning for the whole file, naming what is missing and the command that has it all."""
    if not missing:
        return
    counts = Counter({kind: len(names) for kind, names in missing.items()})
    parts = []
    for kind, names in missing.items():
        sample = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        parts.append(f"{counts[kind]} {kind} ({sample})")
    log.warning(
        "pods refer to objects the cluster file lacks: %s; those pods cannot schedule as they would in the "
        "cluster. Dump everything the scheduler reads with: %s",
        "; ".join(parts),
        DUMP_COMMAND,
    )

"""Accessors for raw API objects (dicts as the API server serves them): tolerant of missing
sections, as the Go getters of a zero-valued struct are, and the storage class of a claim or a
volume (component-helpers' storage/volume GetPersistentVolumeClaimClass / GetPersistentVolumeClass)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ANN_BETA_STORAGE_CLASS", "annotations_of", "claim_class", "meta_of", "object_key", "pv_class", "spec_of"]

ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"

_EMPTY: Mapping[str, Any] = {}


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """obj.metadata, or an empty mapping."""
    return obj.get("metadata") or _EMPTY


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """obj.spec, or an empty mapping."""
    return obj.get("spec") or _EMPTY


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    """obj.metadata.annotations, or an empty mapping."""
    return meta_of(obj).get("annotations") or _EMPTY


def object_key(obj: Mapping[str, Any]) -> str:
    """cache.MetaNamespaceKeyFunc for a namespaced object: `namespace/name` (namespace defaulted)."""
    m = meta_of(obj)
    return f"{m.get('namespace') or 'default'}/{m.get('name')}"


def claim_class(pvc: Mapping[str, Any]) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation if present, else spec.storageClassName ("" = none)."""
    beta = annotations_of(pvc).get(ANN_BETA_STORAGE_CLASS)
    return beta if beta is not None else (spec_of(pvc).get("storageClassName") or "")


def pv_class(pv: Mapping[str, Any]) -> str:
    """GetPersistentVolumeClass: the beta annotation if present, else spec.storageClassName ("" = none)."""
    beta = annotations_of(pv).get(ANN_BETA_STORAGE_CLASS)
    return beta if beta is not None else (spec_of(pv).get("storageClassName") or "")

"""The shapes of the raw Pod and Node fields the scheduler reads, and the first field that breaks one.

A real API server validates what it stores, but manifests given to `simulate`, objects put into
the embedded cluster (and a misbehaving server) can hold anything: `spec` as a string,
`containers` as a mapping. Such an object must be reported in one line naming the object and the
field — never a traceback, never a dead informer or scheduling loop.

`malformed(obj, POD)` walks only the fields the framework and the built-in plugins read, so it is
cheap enough for input validation (`simulate` manifests) and for explaining a parse failure; the
per-pod parse itself (`PodInfo.from_dict`) does not call it on the good path. `None` is accepted
everywhere (JSON null means "unset").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class MapOf:
    """A mapping with any keys whose values have shape `value`."""

    value: Any


# A shape is: a type (or tuple of types) the value must be; a dict of the fields of a mapping
# (fields not listed are not checked); a one-element list for a list of items; or MapOf.
QUANTITY = (str, int, float)
_LABELS = MapOf(str)
_QUANTITIES = MapOf(QUANTITY)
_META = {
    "name": str,
    "generateName": str,
    "namespace": str,
    "uid": str,
    "resourceVersion": str,
    "labels": _LABELS,
    "annotations": _LABELS,
    "creationTimestamp": str,
    "deletionTimestamp": str,
    "ownerReferences": [{"kind": str, "name": str, "uid": str, "controller": bool}],
}
_CONTAINER = {
    "name": str,
    "image": str,
    "restartPolicy": str,
    "resources": {"requests": _QUANTITIES, "limits": _QUANTITIES},
    "ports": [{"hostPort": int, "hostIP": str, "protocol": str, "containerPort": int}],
}
_SELECTOR = {"matchLabels": _LABELS, "matchExpressions": [{"key": str, "operator": str, "values": [str]}]}
_NODE_SELECTOR_TERM = {
    "matchExpressions": [{"key": str, "operator": str, "values": [str]}],
    "matchFields": [{"key": str, "operator": str, "values": [str]}],
}
_POD_AFFINITY_TERM = {
    "labelSelector": _SELECTOR,
    "namespaceSelector": _SELECTOR,
    "namespaces": [str],
    "topologyKey": str,
}
_POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": [_POD_AFFINITY_TERM],
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": int, "podAffinityTerm": _POD_AFFINITY_TERM}],
}

POD: dict[str, Any] = {
    "metadata": _META,
    "spec": {
        "schedulerName": str,
        "nodeName": str,
        "priority": int,
        "priorityClassName": str,
        "preemptionPolicy": str,
        "containers": [_CONTAINER],
        "initContainers": [_CONTAINER],
        "overhead": _QUANTITIES,
        "nodeSelector": _LABELS,
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [_NODE_SELECTOR_TERM]},
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": int, "preference": _NODE_SELECTOR_TERM}],
            },
            "podAffinity": _POD_AFFINITY,
            "podAntiAffinity": _POD_AFFINITY,
        },
        "tolerations": [{"key": str, "operator": str, "value": str, "effect": str, "tolerationSeconds": int}],
        "topologySpreadConstraints": [
            {"maxSkew": int, "topologyKey": str, "whenUnsatisfiable": str, "labelSelector": _SELECTOR,
             "minDomains": int, "matchLabelKeys": [str], "nodeAffinityPolicy": str, "nodeTaintsPolicy": str}
        ],
        "schedulingGates": [{"name": str}],
        "schedulingGroup": {"podGroupName": str},
        "volumes": [{"name": str, "persistentVolumeClaim": {"claimName": str}, "ephemeral": dict}],
    },
    "status": {"phase": str, "nominatedNodeName": str, "startTime": str, "conditions": [dict]},
}

NODE: dict[str, Any] = {
    "metadata": _META,
    "spec": {"unschedulable": bool, "taints": [{"key": str, "value": str, "effect": str}]},
    "status": {
        "allocatable": _QUANTITIES,
        "capacity": _QUANTITIES,
        "images": [{"names": [str], "sizeBytes": int}],
    },
}

# scheduling.k8s.io/v1beta1 PodGroup: the fields GangScheduling reads.
POD_GROUP: dict[str, Any] = {
    "metadata": _META,
    "spec": {
        "schedulingPolicy": {"basic": dict, "gang": {"minCount": int}},
        "workloadRef": {"workloadName": str, "templateName": str},
    },
}

SHAPES = {"Pod": POD, "Node": NODE, "PodGroup": POD_GROUP}

_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    dict: "a mapping",
    list: "a list",
}


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, Mapping):
        return "a mapping"
    for typ, name in _NAMES.items():
        if isinstance(value, typ):
            return name
    return type(value).__name__


def _expected(shape: Any) -> str:
    if isinstance(shape, dict) or shape is dict or isinstance(shape, MapOf):
        return "a mapping"
    if isinstance(shape, list) or shape is list:
        return "a list"
    if shape == QUANTITY:
        return "a quantity (string or number)"
    if isinstance(shape, tuple):
        return " or ".join(_NAMES.get(t, t.__name__) for t in shape)
    return _NAMES.get(shape, getattr(shape, "__name__", str(shape)))


def malformed(obj: Any, shape: Any, path: str = "") -> str | None:
    """The first field of `obj` that does not have `shape`: 'spec.containers: expected a list, got a mapping'."""
    if obj is None:
        return None
    where = path or "the object"
    if isinstance(shape, dict):
        if not isinstance(obj, Mapping):
            return f"{where}: expected a mapping, got {_describe(obj)}"
        for key, sub in shape.items():
            problem = malformed(obj.get(key), sub, f"{path}.{key}" if path else key)
            if problem:
                return problem
        return None
    if isinstance(shape, list):
        if not isinstance(obj, list):
            return f"{where}: expected a list, got {_describe(obj)}"
        for i, item in enumerate(obj):
            if item is None:
                return f"{where}[{i}]: expected {_expected(shape[0])}, got null"
            problem = malformed(item, shape[0], f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(shape, MapOf):
        if not isinstance(obj, Mapping):
            return f"{where}: expected a mapping, got {_describe(obj)}"
        for key, value in obj.items():
            problem = malformed(value, shape.value, f"{where}.{key}")
            if problem:
                return problem
        return None
    types = shape if isinstance(shape, tuple) else (shape,)
    if shape is dict:
        ok = isinstance(obj, Mapping)
    elif bool not in types and isinstance(obj, bool):
        ok = False  # true/false is not a number or a string here
    else:
        ok = isinstance(obj, types)
    return None if ok else f"{where}: expected {_expected(shape)}, got {_describe(obj)}"


def describe_object(kind: str, obj: Any) -> str:
    """How to name an object in a message: 'pod default/web-1', 'node n1', or 'a Pod' if nameless."""
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    if not isinstance(meta, Mapping) or not isinstance(meta.get("name"), str) or not meta.get("name"):
        return f"a {kind} without a readable metadata.name"
    namespace = meta.get("namespace")
    if kind == "Pod":
        ns = namespace if isinstance(namespace, str) and namespace else "default"
        return f"pod {ns}/{meta['name']}"
    return f"{kind.lower()} {meta['name']}"


def section(obj: Any, name: str) -> dict[str, Any]:
    """`obj[name]` when it is a mapping, else {}: for reads that must not trip over a malformed object."""
    value = obj.get(name) if isinstance(obj, Mapping) else None
    return value if isinstance(value, dict) else {}

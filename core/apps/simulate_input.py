"""The cluster `kubeberth simulate` schedules: a generated mixed cluster, or manifests loaded and
checked (a malformed object is one line naming its field, never a traceback from a plugin)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..cache.nodetable import NodeSpecError, NodeTable
from ..cache.podinfo import PodInfo, PodSpecError
from ..cache.shapes import SHAPES, malformed
from ..errors import ManifestError
from ..runtime.config import YAML_LOADER

# ---- generated clusters ---------------------------------------------------------------------
_NODE_SHAPES = (  # (name, cpu cores, memory GiB, weight)
    ("m.large", 4, 16, 3),
    ("m.xlarge", 8, 32, 4),
    ("m.2xlarge", 16, 64, 3),
    ("c.4xlarge", 32, 64, 1),
    ("r.4xlarge", 32, 256, 1),
)
_APPS = ("web", "api", "cache", "worker", "batch", "search", "auth", "ingest", "report", "queue")


def generate_cluster(nodes: int, pods: int, seed: int = 0) -> list[dict[str, Any]]:
    """A realistic mixed cluster: node sizes, zones, taints, GPU nodes; mixed workloads."""
    rng = np.random.default_rng(seed)
    zones = [f"zone-{c}" for c in "abc"]
    weights = np.array([s[3] for s in _NODE_SHAPES], dtype=float)
    shapes = rng.choice(len(_NODE_SHAPES), size=nodes, p=weights / weights.sum())
    objects = [_generated_node(i, int(shapes[i]), zones) for i in range(nodes)]
    objects += [_generated_pod(j, rng, zones) for j in range(pods)]
    return objects


def _generated_node(i: int, shape_index: int, zones: list[str]) -> dict[str, Any]:
    """Node i: its shape's allocatable, a zone in turn; every 20th a tainted GPU node, some under maintenance."""
    shape, cpu, mem, _ = _NODE_SHAPES[shape_index]
    name = f"node-{i:05d}"
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "topology.kubernetes.io/region": "region-1",
        "topology.kubernetes.io/zone": zones[i % len(zones)],
        "node.kubernetes.io/instance-type": shape,
    }
    allocatable = {"cpu": f"{cpu * 1000 - 100}m", "memory": f"{mem * 1024 - 512}Mi", "pods": "110",
                   "ephemeral-storage": "100Gi"}
    taints = []
    if i % 20 == 7:  # GPU pool, tainted so only tolerating pods land there
        labels["accelerator"] = "gpu"
        allocatable["nvidia.com/gpu"] = "4"
        taints.append({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
    elif i % 50 == 13:
        taints.append({"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"})
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints} if taints else {},
        "status": {"allocatable": allocatable, "capacity": allocatable,
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _generated_pod(j: int, rng: np.random.Generator, zones: list[str]) -> dict[str, Any]:
    """Pod j of a random app: requests (or none), and for some a GPU, a zone, an instance type or spreading."""
    app = _APPS[int(rng.integers(len(_APPS)))]
    kind = rng.random()
    requests: dict[str, str] = {}
    spec: dict[str, Any] = {}
    if kind < 0.1:
        pass  # no requests: scored with kube-scheduler's non-zero defaults
    else:
        requests = {"cpu": f"{int(rng.choice([100, 250, 500, 1000, 2000]))}m",
                    "memory": f"{int(rng.choice([128, 256, 512, 1024, 2048, 4096]))}Mi"}
    if 0.1 <= kind < 0.13:
        requests["nvidia.com/gpu"] = "1"
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
        spec["nodeSelector"] = {"accelerator": "gpu"}
    elif 0.13 <= kind < 0.23:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": zones[int(rng.integers(len(zones)))]}
    elif 0.23 <= kind < 0.28:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In",
                 "values": ["m.2xlarge", "c.4xlarge", "r.4xlarge"]}]}]}}}
    elif 0.28 <= kind < 0.33:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}},
                                                "topologyKey": "kubernetes.io/hostname"}}]}}
    container: dict[str, Any] = {"name": "main", "image": f"registry.local/{app}:1.{j % 3}"}
    if requests:
        container["resources"] = {"requests": requests}
    spec["containers"] = [container]
    if rng.random() < 0.1:
        spec["priority"] = 1000
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{app}-{j:06d}", "namespace": "default", "labels": {"app": app}},
        "spec": spec,
    }


# ---- manifests ------------------------------------------------------------------------------
def load_manifests(path: str | Path) -> list[dict[str, Any]]:
    """Objects from a YAML stream or a `List` (e.g. `kubectl get nodes,pods -A -o yaml`)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        docs = list(yaml.load_all(text, Loader=YAML_LOADER))  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise ManifestError(f"{path}: {where}invalid YAML: {getattr(exc, 'problem', exc)}") from None
    objects: list[dict[str, Any]] = []
    for i, doc in enumerate(docs):
        _visit(path, doc, f"document {i + 1}", objects)
    if not any(o.get("kind") == "Node" for o in objects):
        raise ManifestError(f"{path}: contains no Node objects; nothing to schedule onto")
    return objects


def _visit(path: Path, doc: Any, where: str, objects: list[dict[str, Any]]) -> None:
    """One document (a List's items in turn): checked, then appended to `objects`."""
    if doc is None:
        return
    if not isinstance(doc, dict):
        raise ManifestError(f"{path}: {where}: expected a Kubernetes object, got {type(doc).__name__}")
    kind = doc.get("kind")
    if not kind:
        raise ManifestError(f"{path}: {where}: missing `kind`")
    if not isinstance(kind, str):
        raise ManifestError(f"{path}: {where}: kind: expected a string, got {type(kind).__name__}")
    if kind.endswith("List"):
        items = doc.get("items") or ()
        if not isinstance(items, list):
            raise ManifestError(f"{path}: {where} ({kind}): items: expected a list, got {type(items).__name__}")
        for i, item in enumerate(items):
            _visit(path, item, f"{where}.items[{i}]", objects)
        return
    _check_object(path, doc, kind, where)
    objects.append(doc)


def _check_object(path: Path, doc: dict[str, Any], kind: str, where: str) -> None:
    """A named object whose fields the scheduler reads have their shapes, and whose quantities parse."""
    meta = doc.get("metadata") or {}
    if not isinstance(meta, dict):
        raise ManifestError(f"{path}: {where} ({kind}): metadata: expected a mapping, got {type(meta).__name__}")
    name = meta.get("name")
    if not name:
        raise ManifestError(f"{path}: {where} ({kind}): missing metadata.name")
    if not isinstance(name, str):
        raise ManifestError(f"{path}: {where} ({kind}): metadata.name: expected a string, got {type(name).__name__}")
    label = f"{where} ({kind} {name})"
    # Every field the scheduler reads must have its shape (spec a mapping, containers a list,
    # ...): one line naming the field, never a traceback from deep inside a plugin.
    shape = SHAPES.get(kind)
    problem = malformed(doc, shape) if shape is not None else None
    if problem:
        raise ManifestError(f"{path}: {label}: {problem}; fix the manifest and retry")
    try:
        if kind == "Pod":
            PodInfo.from_dict(doc)
        elif kind == "Node":
            NodeTable(4).upsert_node(doc)
    except (PodSpecError, NodeSpecError) as exc:
        raise ManifestError(f"{path}: {label}: {exc}; fix the quantity and retry") from None

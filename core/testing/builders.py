"""Builders for the raw Kubernetes objects a backend delivers: nodes, pods, volumes, from short specs or YAML.

They return plain dicts (never PodInfo), so a test can tweak any field before handing the object
to a `SchedulerTester`, a `ClusterState` or the embedded cluster.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeView
from ..cache.podinfo import PodInfo

TaintSpec = str | Mapping[str, str]
"""A taint as a dict (`{"key": "k", "value": "v", "effect": "NoSchedule"}`) or `"k=v:NoSchedule"` / `"k:NoSchedule"`."""

TolerationSpec = str | Mapping[str, Any]
"""A toleration as a dict, or `"k=v:NoSchedule"` (Equal), `"k:NoSchedule"` / `"k"` (Exists; empty effect = all)."""

_TAINT = re.compile(r"^(?P<key>[^=:]+)(=(?P<value>[^:]*))?(:(?P<effect>NoSchedule|PreferNoSchedule|NoExecute))?$")


def parse_taint(spec: TaintSpec) -> dict[str, str]:
    """`"dedicated=gpu:NoSchedule"` -> `{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}` (kubectl taint's syntax)."""
    if isinstance(spec, Mapping):
        return dict(spec)
    m = _TAINT.match(spec)
    if m is None or not m["effect"]:
        raise ValueError(f"taint {spec!r}: expected key[=value]:NoSchedule|PreferNoSchedule|NoExecute")
    out = {"key": m["key"], "effect": m["effect"]}
    if m["value"]:
        out["value"] = m["value"]
    return out


def parse_toleration(spec: TolerationSpec) -> dict[str, Any]:
    """`"k=v:NoSchedule"` -> an Equal toleration; `"k:NoSchedule"` or `"k"` -> Exists (empty effect tolerates all)."""
    if isinstance(spec, Mapping):
        return dict(spec)
    m = _TAINT.match(spec)
    if m is None:
        raise ValueError(f"toleration {spec!r}: expected key[=value][:effect]")
    out: dict[str, Any] = {"key": m["key"], "operator": "Equal" if m["value"] is not None else "Exists"}
    if m["value"] is not None:
        out["value"] = m["value"]
    if m["effect"]:
        out["effect"] = m["effect"]
    return out


def make_node(
    name: str,
    cpu: str | int = "4",
    memory: str | int = "16Gi",
    pods: str | int = 110,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[TaintSpec] | None = None,
    *,
    extra: Mapping[str, str | int] | None = None,
    unschedulable: bool = False,
    images: Mapping[str, int] | None = None,
    zone: str | None = None,
) -> dict[str, Any]:
    """A v1 Node with allocatable cpu/memory/pods (+ `extra` resources such as `{"nvidia.com/gpu": 4}`).

    `kubernetes.io/hostname` is the node's name unless `labels` sets it; `zone` sets `topology.kubernetes.io/zone`; `images` maps image name to size in bytes
    (`status.images`, for ImageLocality-style plugins).
    e.g. `make_node("n1", cpu="4", memory="8Gi", labels={"team": "a"}, taints=["dedicated=gpu:NoSchedule"])`.
    """
    allocatable: dict[str, str] = {"cpu": str(cpu), "memory": str(memory), "pods": str(pods)}
    for resource, value in (extra or {}).items():
        allocatable[resource] = str(value)
    node_labels = {"kubernetes.io/hostname": name, **(labels or {})}  # as the kubelet registers it
    if zone is not None:
        node_labels["topology.kubernetes.io/zone"] = zone
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [parse_taint(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"allocatable": allocatable, "capacity": dict(allocatable)}
    if images:
        status["images"] = [{"names": [image], "sizeBytes": size} for image, size in images.items()]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": node_labels},
        "spec": spec,
        "status": status,
    }


def make_pod(
    name: str,
    cpu: str | int | None = None,
    memory: str | int | None = None,
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    uid: str | None = None,
    requests: Mapping[str, str | int] | None = None,
    tolerations: Sequence[TolerationSpec] | None = None,
    image: str = "registry.k8s.io/pause:3.9",
    **spec: Any,
) -> dict[str, Any]:
    """A v1 Pod with one container requesting cpu/memory (+ `requests`, e.g. `{"nvidia.com/gpu": 1}`).

    Other keyword arguments go into `spec` as they are, in the API's camelCase:
    `make_pod("p", "500m", "1Gi", nodeName="n1", priority=10, schedulerName="kubeberth")`.
    `containers` in `spec` replaces the default container entirely.
    """
    container_requests: dict[str, str] = {}
    if cpu is not None:
        container_requests["cpu"] = str(cpu)
    if memory is not None:
        container_requests["memory"] = str(memory)
    for resource, value in (requests or {}).items():
        container_requests[resource] = str(value)
    container: dict[str, Any] = {"name": "main", "image": image}
    if container_requests:
        container["resources"] = {"requests": container_requests}
    pod_spec: dict[str, Any] = {"containers": [container]}
    if tolerations:
        pod_spec["tolerations"] = [parse_toleration(t) for t in tolerations]
    pod_spec.update(spec)
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if uid is not None:
        meta["uid"] = uid
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec, "status": {"phase": "Pending"}}


def make_pvc(
    name: str,
    storage: str = "1Gi",
    storage_class: str | None = "standard",
    *,
    namespace: str = "default",
    volume_name: str | None = None,
    access_modes: Sequence[str] = ("ReadWriteOnce",),
) -> dict[str, Any]:
    """A v1 PersistentVolumeClaim; `volume_name` pre-binds it to a PV."""
    spec: dict[str, Any] = {"accessModes": list(access_modes), "resources": {"requests": {"storage": storage}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if volume_name:
        spec["volumeName"] = volume_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def make_pv(
    name: str,
    storage: str = "10Gi",
    storage_class: str = "standard",
    *,
    nodes: Sequence[str] = (),
    zones: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    access_modes: Sequence[str] = ("ReadWriteOnce",),
    phase: str | None = "Available",
) -> dict[str, Any]:
    """A v1 PersistentVolume; `nodes` / `zones` become its required node affinity (a local or zonal volume)."""
    spec: dict[str, Any] = {"capacity": {"storage": storage}, "storageClassName": storage_class,
                            "accessModes": list(access_modes)}
    terms = []
    if nodes:
        terms.append({"key": "kubernetes.io/hostname", "operator": "In", "values": list(nodes)})
    if zones:
        terms.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(zones)})
    if terms:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": terms}]}}
    pv: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolume",
                          "metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec}
    if phase:
        pv["status"] = {"phase": phase}
    return pv


def make_pod_group(
    name: str,
    min_count: int | None = None,
    *,
    namespace: str = "default",
    workload: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A scheduling.k8s.io/v1beta1 PodGroup: a gang of `min_count` pods, or the basic policy when
    `min_count` is None. `workload` is (workloadName, templateName) for spec.workloadRef.
    Pods join it with `make_pod(..., schedulingGroup={"podGroupName": name})`."""
    policy: dict[str, Any] = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if workload is not None:
        spec["workloadRef"] = {"workloadName": workload[0], "templateName": workload[1]}
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def load_objects(source: str | Path) -> list[dict[str, Any]]:
    """Objects from YAML text or a YAML file: a stream of documents, `List`s flattened (`kubectl get -o yaml`)."""
    if isinstance(source, Path) or ("\n" not in source and Path(source).is_file()):
        source = Path(source).read_text()
    out: list[dict[str, Any]] = []

    def visit(doc: Any) -> None:
        if doc is None:
            return
        if not isinstance(doc, dict):
            raise ValueError(f"expected a Kubernetes object, got {type(doc).__name__}: {doc!r:.60}")
        if str(doc.get("kind", "")).endswith("List"):
            for item in doc.get("items") or ():
                visit(item)
        else:
            out.append(doc)

    for doc in yaml.safe_load_all(source):
        visit(doc)
    return out


def cluster_of(*objects: dict[str, Any] | Iterable[dict[str, Any]]) -> ClusterState:
    """A ClusterState (the scheduler's cache) holding nodes, placed pods (those with nodeName) and other objects.

    An object without a `kind` is a Pod if its spec has containers, else a Node. Nodes are added
    first, in the order given. For calling a plugin's hooks directly; `SchedulerTester` runs them
    through the framework.
    """
    cluster = ClusterState()
    flat: list[dict[str, Any]] = []
    for obj in objects:
        flat.extend([obj] if isinstance(obj, dict) else obj)
    for obj in flat:
        if _kind(obj) == "Node":
            cluster.upsert_node(obj)
    for obj in flat:
        kind = _kind(obj)
        if kind == "Pod":
            cluster.upsert_pod(PodInfo.from_dict(obj))
        elif kind != "Node":
            cluster.upsert_object(kind, obj)
    return cluster


def _kind(obj: dict[str, Any]) -> str:
    if obj.get("kind"):
        return str(obj["kind"])
    return "Pod" if "containers" in (obj.get("spec") or {}) else "Node"


def all_nodes(cluster: ClusterState) -> NodeView:
    """A NodeView over every node of `cluster`, in the order they were added (what a filter/score hook receives)."""
    table = cluster.table
    return table.view(np.asarray(sorted(table.row_of.values()), dtype=np.int64))


def pod_info(obj: dict[str, Any] | None = None, /, **kwargs: Any) -> PodInfo:
    """PodInfo parsed from a raw pod, or from `make_pod(**kwargs)`; as the scheduler sees a pod it is placing."""
    if obj is None:
        kwargs.setdefault("name", "p")
        obj = make_pod(**kwargs)
    return PodInfo.from_dict(obj)

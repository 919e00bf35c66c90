"""Plugins under test read a real snapshot file through the provider (no stand-ins)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo


def snapshot_args(tmp_path: Path, values: dict[str, dict[str, float]]) -> dict[str, Any]:
    path = tmp_path / f"snapshot-{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump({"nodes": values}))
    return {"type": "snapshot", "file": str(path)}


def cluster_of(*nodes: tuple[str, str, str], labels: dict[str, dict[str, str]] | None = None) -> ClusterState:
    cluster = ClusterState()
    for name, cpu, memory in nodes:
        cluster.upsert_node({"metadata": {"name": name, "labels": (labels or {}).get(name, {})},
                             "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}}})
    return cluster


def view(cluster: ClusterState) -> Any:
    t = cluster.table
    return t.view(np.asarray([t.row_of[n] for n in sorted(t.row_of)], dtype=np.int64))


def pod(name: str = "p", containers: list[dict[str, Any]] | None = None, **meta: Any) -> PodInfo:
    return PodInfo.from_dict({"metadata": {"name": name, "uid": name, **meta},
                              "spec": {"containers": containers if containers is not None else []}})


def container(requests: dict[str, str] | None = None, limits: dict[str, str] | None = None) -> dict[str, Any]:
    return {"name": "c", "image": "x", "resources": {"requests": requests or {}, "limits": limits or {}}}

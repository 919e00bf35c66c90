"""Shared builders for tests: raw Kubernetes JSON dicts, as the backends deliver them.

Kept small and general on purpose: `make_node` / `make_pod` return plain dicts (never PodInfo),
so a test can tweak any field before handing the object to a NodeTable, ClusterState or the
EmbeddedCluster.

Import them as `from kb_builders import make_node, make_pod` (or use the `node_factory` /
`pod_factory` fixtures). `from conftest import ...` is unreliable: tests/e2e has its own
conftest.py, and pytest keeps only the last one imported under the name `conftest`.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest


def make_node(
    name: str,
    cpu: str | int = "4",
    memory: str | int = "16Gi",
    pods: str | int = 110,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    *,
    extra: dict[str, str | int] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    """A v1 Node with allocatable cpu/memory/pods (+ `extra` resources), labels and taints."""
    allocatable: dict[str, str] = {"cpu": str(cpu), "memory": str(memory), "pods": str(pods)}
    for resource, value in (extra or {}).items():
        allocatable[resource] = str(value)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": spec,
        "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
    }


def make_pod(
    name: str,
    cpu: str | int | None = None,
    memory: str | int | None = None,
    *,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    uid: str | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A v1 Pod with one container requesting cpu/memory; other keyword args go into `spec`.

    e.g. make_pod("p", "500m", "1Gi", nodeName="n1", priority=10, schedulerName="kubeberth").
    `containers` in `spec` replaces the default container entirely.
    """
    requests: dict[str, str] = {}
    if cpu is not None:
        requests["cpu"] = str(cpu)
    if memory is not None:
        requests["memory"] = str(memory)
    container: dict[str, Any] = {"name": "main", "image": "registry.k8s.io/pause:3.9"}
    if requests:
        container["resources"] = {"requests": requests}
    pod_spec: dict[str, Any] = {"containers": [container]}
    pod_spec.update(spec)
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if uid is not None:
        meta["uid"] = uid
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec, "status": {"phase": "Pending"}}


@pytest.fixture
def node_factory():
    """The make_node builder, for tests that prefer fixtures to imports."""
    return make_node


@pytest.fixture
def pod_factory():
    """The make_pod builder, for tests that prefer fixtures to imports."""
    return make_pod


# A stable import name for the builders (see the module docstring).
sys.modules.setdefault("kb_builders", sys.modules[__name__])

"""The promises every fault test checks, read from raw API objects (embedded store or kube-apiserver).

docs/reliability.md lists them. Each check returns the broken promises as lines naming the pod or
node (empty: kept), so a failing test says exactly what went wrong. Requests are summed here from
the pod specs, not through kubeberth's parser, so the check does not share the code it checks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from kubeberth.cache.quantity import resource_value

RESOURCES = ("cpu", "memory", "pods")


def key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def requests(pod: dict[str, Any]) -> dict[str, int]:
    """cpu (millicores), memory (bytes) and one pod slot: what a plain pod holds on its node."""
    total = {"cpu": 0, "memory": 0, "pods": 1}
    for container in (pod.get("spec") or {}).get("containers") or ():
        for resource, value in (((container.get("resources") or {}).get("requests")) or {}).items():
            if resource in total:
                total[resource] += resource_value(resource, value)
    return total


def overcommitted(nodes: Iterable[dict[str, Any]], pods: Iterable[dict[str, Any]]) -> list[str]:
    """Nodes whose bound, non-terminal pods request more cpu, memory or pods than allocatable."""
    used: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(RESOURCES, 0))
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            for resource, value in requests(pod).items():
                used[node][resource] += value
    broken = []
    for node in nodes:
        name = (node.get("metadata") or {}).get("name")
        allocatable = (node.get("status") or {}).get("allocatable") or {}
        for resource in RESOURCES:
            limit = resource_value(resource, allocatable.get(resource, "0"))
            if used[name][resource] > limit:
                broken.append(f"node {name}: {resource} requested {used[name][resource]} > allocatable {limit}")
    return broken


def unbound(pods: Iterable[dict[str, Any]], scheduler_name: str) -> list[str]:
    """Pods of `scheduler_name` that exist and have no node."""
    return [
        f"pod {key(p)} is not bound"
        for p in pods
        if (p.get("spec") or {}).get("schedulerName") == scheduler_name and not (p.get("spec") or {}).get("nodeName")
    ]


def moved(assignments: dict[str, list[str]]) -> list[str]:
    """Pods seen on more than one node over time ({pod key: every nodeName observed, in order})."""
    return [
        f"pod {pod} moved: {' -> '.join(nodes)}"
        for pod, nodes in assignments.items()
        if len({n for n in nodes if n}) > 1
    ]


def bound_more_than_once(scheduled_events: Iterable[str]) -> list[str]:
    """Pods with more than one successful binding ({pod key per "Scheduled" event or bind log line})."""
    counts: dict[str, int] = defaultdict(int)
    for pod in scheduled_events:
        counts[pod] += 1
    return [f"pod {pod} bound {n} times" for pod, n in sorted(counts.items()) if n > 1]


def queued_but_gone(queued: Iterable[str], existing: Iterable[str]) -> list[str]:
    """Pods the scheduler still holds (queue, waiting, assumed) that no longer exist."""
    alive = set(existing)
    return [f"pod {pod} is queued but does not exist" for pod in sorted(set(queued) - alive)]

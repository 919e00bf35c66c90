"""What an update of a pending pod or of a node changed, as kube-scheduler names it
(framework/events.go, PodSchedulingPropertiesChange and NodeSchedulingPropertiesChange): the queue
retries an unschedulable pod only when a plugin that rejected it registered one of these events
and its queueing hint agrees."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..cache.podinfo import PodInfo
from ..cache.quantity import parse_quantity


def target_pod_events(old: PodInfo, new: PodInfo) -> list[str]:
    """The TargetPod events of `old` -> `new`, in upstream's order; `TargetPod/Update` when none."""
    events = []
    if old.labels != new.labels:
        events.append("TargetPod/UpdatePodLabel")
    if _scaled_down(old.requests, new.requests):
        events.append("TargetPod/UpdatePodScaleDown")
    if _scaled_down(new.requests, old.requests):  # a request added or grown
        events.append("TargetPod/UpdatePodScaleUp")
    if old.scheduling_gates and not new.scheduling_gates:
        events.append("TargetPod/UpdatePodSchedulingGatesEliminated")
    if len(old.tolerations) != len(new.tolerations):  # the API only lets tolerations be added
        events.append("TargetPod/UpdatePodToleration")
    if _claim_statuses(old) != _claim_statuses(new):
        events.append("TargetPod/UpdatePodGeneratedResourceClaim")
    return events or ["TargetPod/Update"]


def _scaled_down(before: dict[str, int], after: dict[str, int]) -> bool:
    """extractPodScaleDown: a request of `before` removed or lowered in `after`."""
    return any(name not in after or after[name] < value for name, value in before.items())


def _claim_statuses(pod: PodInfo) -> tuple[object, object]:
    status = pod.raw.get("status") or {}
    return status.get("resourceClaimStatuses"), status.get("extendedResourceClaimStatus")


def node_update_events(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """NodeSchedulingPropertiesChange: the Node update events of `old` -> `new`, in upstream's
    order (an uncordon and a taint change are both `Node/UpdateNodeTaint`, fired twice as upstream
    does); none when nothing a plugin may register for changed (e.g. only the images or a heartbeat).
    Maps and lists compare as equality.Semantic does: empty and absent alike, quantities by value."""
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    old_status, new_status = old.get("status") or {}, new.get("status") or {}
    old_meta, new_meta = old.get("metadata") or {}, new.get("metadata") or {}
    events = []
    if bool(old_spec.get("unschedulable")) != bool(new_spec.get("unschedulable")) and not new_spec.get("unschedulable"):
        events.append("Node/UpdateNodeTaint")  # extractNodeSpecUnschedulableChange: uncordoned only
    if _quantities(old_status.get("allocatable")) != _quantities(new_status.get("allocatable")):
        events.append("Node/UpdateNodeAllocatable")
    if (old_meta.get("labels") or {}) != (new_meta.get("labels") or {}):
        events.append("Node/UpdateNodeLabel")
    if (old_spec.get("taints") or []) != (new_spec.get("taints") or []):
        events.append("Node/UpdateNodeTaint")
    if _condition_statuses(old_status) != _condition_statuses(new_status):
        events.append("Node/UpdateNodeCondition")
    if (old_meta.get("annotations") or {}) != (new_meta.get("annotations") or {}):
        events.append("Node/UpdateNodeAnnotation")
    if old_spec.get("podPreemptionPolicy") != new_spec.get("podPreemptionPolicy"):
        events.append("Node/UpdateNodePreemptionPolicy")
    if (old_status.get("declaredFeatures") or []) != (new_status.get("declaredFeatures") or []):
        events.append("Node/UpdateNodeDeclaredFeature")  # NodeDeclaredFeatures is GA, locked on
    return events


def _quantities(resources: Any) -> dict[str, Decimal | str]:
    """A ResourceList by value ("1" and "1000m" are equal); an unreadable quantity as its text."""
    out: dict[str, Decimal | str] = {}
    for name, value in (resources or {}).items() if isinstance(resources, dict) else ():
        try:
            out[name] = parse_quantity(value)
        except (TypeError, ValueError, ArithmeticError):
            out[name] = str(value)
    return out


def _condition_statuses(status: dict[str, Any]) -> dict[Any, Any]:
    """extractNodeConditionsChange's strip: type -> status (heartbeat times and messages ignored)."""
    conditions = status.get("conditions") or []
    return {c.get("type"): c.get("status") for c in conditions if isinstance(c, dict)}

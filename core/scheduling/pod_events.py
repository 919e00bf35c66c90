"""What an update of a pending pod changed, as kube-scheduler names it (framework/events.go,
PodSchedulingPropertiesChange): the queue retries an unschedulable pod only when a plugin that
rejected it registered one of these events and its queueing hint agrees."""

from __future__ import annotations

from ..cache.podinfo import PodInfo


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

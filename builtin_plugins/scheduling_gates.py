"""SchedulingGates: a pod with non-empty spec.schedulingGates is not attempted until they are removed."""

from __future__ import annotations

from kubeberth import Code, PodInfo, Status, hookimpl


class SchedulingGates:
    name = "SchedulingGates"

    @hookimpl
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if pod.scheduling_gates:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]",),
            )
        return None

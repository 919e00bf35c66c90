"""SchedulingGates: a pod with non-empty spec.schedulingGates is not attempted until they are removed."""

from __future__ import annotations

from kubeberth import Code, PodView, Status, hookimpl


class SchedulingGates:
    name = "SchedulingGates"
    # Gates go away only by the pod's own update, which re-runs PreEnqueue for it: no cluster
    # event can release a gated pod (upstream registers only the pod's gate-removing update).
    requeue_on: frozenset[str] = frozenset()

    @hookimpl
    def pre_enqueue(self, pod: PodView) -> Status | None:
        if pod.scheduling_gates:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]",),
            )
        return None

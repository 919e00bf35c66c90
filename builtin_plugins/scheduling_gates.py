"""SchedulingGates: a pod with non-empty spec.schedulingGates is not attempted until they are removed."""

from __future__ import annotations

from kubeberth import Code, PodView, Status, hookimpl


class SchedulingGates:
    name = "SchedulingGates"
    # Gates go away only by the pod's own update: the queue re-runs PreEnqueue for a gated pod's
    # update only for an event its gating plugin registered (kube-scheduler's EventsToRegister).
    requeue_on: frozenset[str] = frozenset({"TargetPod/UpdatePodSchedulingGatesEliminated"})
    queueing_hints = {"TargetPod/UpdatePodSchedulingGatesEliminated": "is_schedulable_after_gates_eliminated"}

    @hookimpl
    def pre_enqueue(self, pod: PodView) -> Status | None:
        if pod.scheduling_gates:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]",),
            )
        return None

    def is_schedulable_after_gates_eliminated(self, pod: PodView, old: PodView | None, new: PodView | None) -> bool:
        """isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated: always Queue."""
        return True

"""GangScheduling: a PodGroup's pods are scheduled all or nothing (kube-scheduler's gangscheduling,
behind the GenericWorkload feature gate).

A pod joins a group with `spec.schedulingGroup.podGroupName`: a scheduling.k8s.io/v1beta1 PodGroup
in its namespace whose `spec.schedulingPolicy.gang.minCount` makes it a gang. PreEnqueue keeps each
member out of the active queue until the PodGroup exists and minCount members are known. Permit
holds every placed member until minCount of them are assumed or bound, then allows them all at once;
a member still held after five minutes is rejected, its reservation undone and the pod requeued.
Groups with the `basic` policy (or pods without a group) pass through untouched.

In the pod group scheduling cycle (the group's members placed together, kubeberth.api.placement)
PlacementFeasible enforces minCount: the group is feasible once minCount members are placed, and
given up as soon as the members left cannot make up the difference.
"""

from __future__ import annotations

from typing import Any, cast

from kubeberth import Code, Handle, PermitResult, PodView, Status, hookimpl
from kubeberth.api.objects import PodGroup
from kubeberth.api.placement import PlacementProgress, PodGroupInfo, gang_min_count

# upstream's permitTimeoutDuration: how long gang members wait at Permit for a quorum.
PERMIT_TIMEOUT_SECONDS = 300.0


def _pod_group_of(pod: PodView, handle: Handle) -> PodGroup | None:
    return cast("PodGroup | None", handle.cluster.get_object("PodGroup", f"{pod.namespace}/{pod.pod_group}"))


def _group_key(pod_group: PodGroup) -> tuple[str, str]:
    meta = pod_group.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name") or ""


class GangScheduling:
    name = "GangScheduling"
    # upstream's EventsToRegister: a new member, pending or bound, may complete a gang; a PodGroup
    # created or updated (minCount lowered) may let its waiting members in.
    requeue_on = frozenset({"UnscheduledPod/Add", "Pod/Add", "PodGroup/Add", "PodGroup/Update"})
    queueing_hints = {
        "UnscheduledPod/Add": "is_schedulable_after_pod_added",
        "Pod/Add": "is_schedulable_after_pod_added",
        "PodGroup/Add": "is_schedulable_after_pod_group_added",
        "PodGroup/Update": "is_schedulable_after_pod_group_updated",
    }

    # ---- queueing hints (upstream's isSchedulableAfter*) ---------------------------------------
    def is_schedulable_after_pod_added(self, pod: PodView, old: Any, new: PodView | None) -> bool:
        """A new member of the pod's own group (pending or bound) may complete its gang."""
        if not pod.pod_group or new is None or not new.pod_group:
            return False
        return (new.namespace, new.pod_group) == (pod.namespace, pod.pod_group)

    def is_schedulable_after_pod_group_added(self, pod: PodView, old: Any, new: PodGroup | None) -> bool:
        """The pod's own PodGroup appearing may let it in."""
        return bool(pod.pod_group) and new is not None and _group_key(new) == (pod.namespace, pod.pod_group)

    def is_schedulable_after_pod_group_updated(
        self, pod: PodView, old: PodGroup | None, new: PodGroup | None
    ) -> bool:
        """Only a lower gang minCount of the pod's own group can help it."""
        if not pod.pod_group or new is None or _group_key(new) != (pod.namespace, pod.pod_group):
            return False
        if old is None:
            return True  # the cache did not know the group before: nothing to compare
        old_min, new_min = gang_min_count(old), gang_min_count(new)
        if old_min is None or new_min is None:
            return False  # updates to non-gang policies do not make waiting pods schedulable
        return new_min < old_min

    @hookimpl
    def pre_enqueue(self, pod: PodView, handle: Handle) -> Status | None:
        if not pod.pod_group:
            return None
        group = _pod_group_of(pod, handle)
        if group is None:
            # The pod is unschedulable until its PodGroup object is created.
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f'waiting for pods\'s pod group "{pod.pod_group}" to appear in scheduling queue',),
            )
        min_count = gang_min_count(group)
        if min_count is None:
            return None
        if handle.cluster.pod_group_state(pod.namespace, pod.pod_group).all_pods_count < min_count:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                ("waiting for minCount pods from a gang to appear in scheduling queue",),
            )
        return None

    @hookimpl
    def permit(self, pod: PodView, handle: Handle) -> PermitResult | Status | None:
        if not pod.pod_group:
            return None
        group = _pod_group_of(pod, handle)
        if group is None:
            return Status.error(
                f"failed to get podGroup {pod.namespace}/{pod.pod_group}: "
                f'podgroup.scheduling.k8s.io "{pod.pod_group}" not found'
            )
        min_count = gang_min_count(group)
        if min_count is None:
            return None
        state = handle.cluster.pod_group_state(pod.namespace, pod.pod_group)
        if state.scheduled_pods_count < min_count:
            # The rest of the gang may be waiting (backoff, unschedulable) for this one: retry now.
            handle.activate(state.unscheduled)
            return PermitResult.wait(PERMIT_TIMEOUT_SECONDS, "waiting for minCount pods from a gang to be scheduled")
        # The quorum is met: allow this pod and every member waiting at Permit.
        for uid in state.assumed:
            waiting = handle.get_waiting_pod(uid)
            if waiting is not None:
                waiting.allow(self.name)
        return None

    @hookimpl
    def placement_feasible(self, pod_group: PodGroupInfo, progress: PlacementProgress) -> Status | None:
        """The gang's minCount in the pod group cycle (1 for the basic policy): met, still
        reachable (Wait), or out of reach with the members left (Unschedulable)."""
        min_count = pod_group.min_count
        remaining, scheduled = progress.remaining, progress.scheduled
        if remaining + scheduled < min_count:
            return Status.unschedulable(
                f"minCount ({min_count}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
            )
        if scheduled < min_count:
            return Status.wait(f"minCount ({min_count}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining")
        return None

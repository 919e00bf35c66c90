"""The pod group scheduling cycle (kube-scheduler v1.37's schedule_one_podgroup.go).

Under the GenericWorkload gate a pod that names a PodGroup is not scheduled alone: the queue hands
over the group's other waiting members with it, and the group is tried in one cycle, all members
evaluated together, all or nothing:

1. PlacementFeasible (GangScheduling: the gang's minCount) is asked before the first member and
   after each one, with the members placed so far and those left; Unschedulable ends the attempt.
2. Each member is filtered and scored as usual (no per-pod PostFilter: kube-scheduler leaves
   preemption to the group), then assumed and reserved so the next member sees it.
3. Everything is undone, then, if the group is feasible with at least one member placed, the
   placed members are assumed, reserved and permitted again for real, in order, and bind;
   GangScheduling's Permit sees the quorum assumed and lets them all through at once. Otherwise
   every member goes back to the queue: its own fit error if it found no node, else the group's.

Under TopologyAwareWorkloadScheduling the group is tried on each placement the profile's first
`placement_generate` plugin proposes (all nodes without one), and when several are feasible the
`placement_score` plugins (PodGroupPodsCount) pick the best.

The group is first checked as upstream's validatePodGroup does (one schedulerName, the group's
priority, one preemption policy). The PodGroup's PodGroupInitiallyScheduled condition follows each
attempt (True once the group is scheduled).

When the group is Unschedulable, the profile's podGroupPostFilter plugins (`pod_group_post_filter`;
DefaultPreemption: workload-aware preemption) are asked to make room for the whole group, with a
function that re-runs the group's algorithm on the cluster as it is then. On success every member
goes back to the queue nominated to its node, waiting for the victims to go (the group status gains
the plugin's message); on an error the group fails with it. Not (yet) as upstream: CompositePodGroup
hierarchies.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..api.placement import (
    Placement,
    PlacementProgress,
    PodGroupAssignments,
    PodGroupInfo,
    ProposedAssignment,
)
from ..api.status import Code, Status
from ..api.types import CycleState, PodGroupCycleState
from ..objects import PodGroup
from ..runtime.framework import Framework, PluginFailure
from ..runtime.records import CycleRecord, Diagnosis, ScheduleResult
from .decision import record_rejected_nodes
from .podgroup_result import (
    POD_GROUP_UNSCHEDULABLE,
    GroupResult,
    Member,
    as_error,
    copy_member,
    group_unschedulable,
    with_initially_scheduled,
)
from .state import SchedulerState

if TYPE_CHECKING:
    from .handle import FrameworkHandle
    from .queue import QueuedPod

log = logging.getLogger(__name__)

class PodGroupCycle(SchedulerState):
    """The pod group cycle's steps, mixed into the Scheduler (scheduling thread only)."""

    def schedule_pod_group(self, fw: Framework, entry: QueuedPod) -> bool:
        """kube-scheduler's scheduleOnePodGroup for the group of `entry`'s pod. False when the
        scheduler does not know the PodGroup (not created yet, or not watched because no profile
        has GangScheduling): the pod is then scheduled on its own."""
        pod = entry.pod
        group = self.cluster.get_object("PodGroup", f"{pod.namespace}/{pod.pod_group}")
        if group is None:
            return False
        others = self.cluster.pod_group_state(pod.namespace, pod.pod_group).unscheduled
        entries = [entry, *self.queue.pop_members(p.uid for p in others if p.uid != pod.uid)]
        entries.sort(key=lambda e: (e.timestamp, e.pod.name))
        t0 = time.perf_counter()
        members = [self._member(fw, e) for e in entries]
        try:
            self._schedule_members(fw, group, members)
        finally:
            self.stats.cycle_seconds += time.perf_counter() - t0
            for m in members:
                m.record.end_ns = time.time_ns()
                self.records.append(m.record)
                for observer in self.observers:
                    observer(m.record)
        return True

    def _member(self, fw: Framework, entry: QueuedPod) -> Member:
        self.stats.attempts += 1
        record = CycleRecord(entry.pod.key, entry.pod.uid, fw.profile, fw.generation_id)
        record.attempt = entry.attempts
        record.first_attempt_ns = entry.extra.setdefault("first_attempt_ns", record.start_ns)
        if entry.waited:
            record.queue, entry.waited = entry.waited, {}
        record.requeued_by, entry.requeued_by = entry.requeued_by, ""
        return Member(entry, record)

    def _schedule_members(self, fw: Framework, group: dict[str, Any], members: list[Member]) -> None:
        pod = members[0].entry.pod
        problem = self._validate(fw, group, members)
        if problem is not None:  # handlePodGroupFailureBeforeScheduling
            for m in members:
                m.record.result, m.record.message = "Error", problem
                self.stats.errors += 1
                self._requeue_error(m.entry, problem)
            self._set_condition(group, Status.error(problem))
            return
        pods = tuple(m.entry.pod for m in members)
        info = PodGroupInfo(pod.namespace, pod.pod_group, cast(PodGroup, group), pods)
        handle = self.handle_for(fw)
        pg_state = PodGroupCycleState()  # the group's cycle state, shared by its plugins and its members'
        result = self._pod_group_algorithm(fw, handle, info, members, pg_state)
        if result.status.code == Code.UNSCHEDULABLE:
            self._pod_group_post_filter(fw, handle, info, members, result, pg_state)
        self._submit(fw, handle, result)
        self._set_condition(group, result.status)

    def _validate(self, fw: Framework, group: dict[str, Any], members: list[Member]) -> str | None:
        """validatePodGroup: every pod of the group, pending or already placed, has the first
        pending member's schedulerName, the group's priority (spec.priority, 0 when unset) and one
        preemption policy (the group's under PodGroupPreemptionPolicy, else the first pod's)."""
        spec = group.get("spec") or {}
        group_priority = int(spec.get("priority") or 0)
        by_group = fw.feature_gates.enabled("PodGroupPreemptionPolicy")
        policy = (spec.get("preemptionPolicy") or "PreemptLowerPriority") if by_group else ""
        scheduler_name = members[0].entry.pod.scheduler_name
        first = members[0].entry.pod
        state = self.cluster.pod_group_state(first.namespace, first.pod_group)
        placed = [p for uid in sorted(state.assumed | state.assigned) if (p := self.cluster.pods.get(uid)) is not None]
        for pod in [*(m.entry.pod for m in members), *placed]:
            if pod.scheduler_name != scheduler_name:
                return (
                    "all pods in a single pod group should have the same .spec.schedulerName set, got: "
                    f'"{pod.scheduler_name}" and "{scheduler_name}"'
                )
            if pod.priority != group_priority:
                return (
                    "all pods in a single pod group should have the same priority as the pod group's priority, "
                    f"got {pod.priority} and {group_priority}"
                )
            if by_group and pod.preemption_policy != policy:
                return (
                    "all pods in a single pod group should have the same preemption policy as the pod group's "
                    f"preemption policy, got {pod.preemption_policy} and {policy}"
                )
            if not by_group:
                if not policy:
                    policy = pod.preemption_policy
                elif pod.preemption_policy != policy:
                    return (
                        "all pods in a single pod group should have the same preemption policy, got "
                        f"{pod.preemption_policy} and {policy}"
                    )
        return None

    # ---- the algorithm -----------------------------------------------------------------
    def _pod_group_algorithm(
        self, fw: Framework, handle: FrameworkHandle, info: PodGroupInfo, members: list[Member],
        pg_state: PodGroupCycleState,
    ) -> GroupResult:
        """podGroupSchedulingAlgorithm: one implicit placement of all nodes, or (TAS) each generated
        placement in turn and the best scored one. Nothing stays assumed when it returns."""
        if not fw.feature_gates.enabled("TopologyAwareWorkloadScheduling"):
            return self._on_placement(fw, handle, info, members, None, pg_state)
        table = self.cluster.table
        everything = Placement("", tuple(table.names[r] or "" for r in table.ordered_rows().tolist()))
        placements = fw.run_placement_generate(info, everything, handle, pg_state)
        if isinstance(placements, Status):
            return GroupResult(placements, members)
        first: GroupResult | None = None
        feasible: list[GroupResult] = []
        for placement in placements:
            for m in members:  # each placement starts the members afresh
                m.state, m.result, m.status, m.node = CycleState(), None, Status.success(), None
            result = self._on_placement(fw, handle, info, members, placement, pg_state)
            if result.status.code == Code.ERROR:
                return result
            first = first or GroupResult(result.status, [copy_member(m) for m in members], dict(result.placed), placement)
            if result.status.ok:
                feasible.append(GroupResult(result.status, [copy_member(m) for m in members], dict(result.placed), placement))
        if not feasible:
            assert first is not None
            first.status = group_unschedulable(
                f"0/{len(placements)} placements are available, first placement status: {as_error(first.status)}"
            )
            return first
        if len(feasible) == 1:
            return feasible[0]
        best = self._best_placement(fw, handle, info, feasible)
        return best if isinstance(best, GroupResult) else GroupResult(best, members)

    def _best_placement(
        self, fw: Framework, handle: FrameworkHandle, info: PodGroupInfo, feasible: list[GroupResult]
    ) -> GroupResult | Status:
        """findBestPlacement: RunPlacementScorePlugins (score, normalize, weight), highest total wins;
        ties go to the first (kube-scheduler breaks them at random)."""
        assignments = [
            PodGroupAssignments(result.placement, tuple(
                ProposedAssignment(m.entry.pod, node, state)
                for m in result.members if (placed := result.placed.get(m.entry.pod.uid))
                for node, state in (placed,)
            ))
            for result in feasible
        ]
        totals = fw.run_placement_scores(info, assignments, handle)
        if isinstance(totals, Status):
            return totals
        return feasible[int(np.argmax(totals))]

    def _on_placement(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        info: PodGroupInfo,
        members: list[Member],
        placement: Placement | None,
        pg_state: PodGroupCycleState,
    ) -> GroupResult:
        """podGroupSchedulingDefaultAlgorithm on one placement (None: every node). Each member is
        assumed and reserved so the next sees it; all of it is undone before returning. The members'
        states are pod group cycles of `pg_state` (SetPodGroupSchedulingCycle)."""
        for m in members:
            m.state.pod_group_cycle = pg_state
        reverts: list[Callable[[], None]] = []
        try:
            return self._try_members(fw, handle, info, members, placement, reverts)
        finally:
            for revert in reversed(reverts):
                revert()

    def _try_members(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        info: PodGroupInfo,
        members: list[Member],
        placement: Placement | None,
        reverts: list[Callable[[], None]],
    ) -> GroupResult:
        cluster = self.cluster
        rows = None
        if placement is not None:
            row_of = cluster.table.row_of
            rows = np.asarray(sorted(row_of[n] for n in placement.nodes if n in row_of), dtype=np.int64)
        result = GroupResult(Status.success(), members, placement=placement)
        progress = PlacementProgress(len(members), cluster.pod_group_state(info.namespace, info.name).scheduled_pods_count)
        status = self._placement_feasible(fw, handle, info, progress)
        if status.code == Code.ERROR:
            result.status = Status.error(f"failed to evaluate placement feasibility: {status.message}", status.plugin)
            return result
        if status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
            result.status = group_unschedulable(*status.reasons)
            return result
        for m in members:
            self._try_member(fw, handle, m, rows, result, reverts)
            if m.status.code == Code.ERROR:
                result.status = Status.error(f"failed to schedule other pod from a pod group: {m.status.message}")
                return result
            progress = PlacementProgress(progress.remaining - 1, progress.scheduled + (m.node is not None))
            status = self._placement_feasible(fw, handle, info, progress)
            if status.code == Code.ERROR:
                result.status = Status.error(f"failed to evaluate placement feasibility: {status.message}", status.plugin)
                return result
            result.status = status
            if status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
                break
        # An Unschedulable from PlacementFeasible after a member stays as the plugin said it.
        if result.status.code == Code.WAIT:
            result.status = group_unschedulable(*result.status.reasons)
        elif result.status.ok and not result.placed:
            # kube-scheduler: a group's cycle succeeds only with at least one member placed.
            result.status = group_unschedulable()
        if not result.status.ok:
            result.placed.clear()
        return result

    def _try_member(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        m: Member,
        rows: np.ndarray | None,
        result: GroupResult,
        reverts: list[Callable[[], None]],
    ) -> None:
        """One member: filter and score it on the placement's rows, then assume and reserve it so
        the next member sees it (kube-scheduler's assumeAndReserve); its undo goes on `reverts`."""
        cluster = self.cluster
        pod = m.entry.pod
        try:
            m.result = self.find_node(fw, m.state, pod, m.record, None, rows)
            m.record.evaluated_nodes, m.record.feasible_nodes = m.result.evaluated, m.result.feasible
            m.status = m.result.status
            if m.result.node is None:
                return
            cluster.assume(pod, m.result.node)
            reserved = fw.run_reserve(m.state, pod, m.result.node, cluster, handle)
            if reserved.ok:
                m.node = m.result.node
                result.placed[pod.uid] = (m.node, m.state)
                reverts.append(_undo(fw, handle, cluster, m))
                return
            fw.run_unreserve(m.state, pod, m.result.node, cluster, handle)
            cluster.forget(pod)
            m.status = reserved
            if reserved.is_rejected:  # assumeAndReserve: a FitError over the chosen node
                diagnosis = Diagnosis.one_node(reserved)
                m.status = Status(reserved.code, (diagnosis.message(),), reserved.plugin)
                m.result = ScheduleResult(None, m.status, diagnosis, m.result.evaluated, m.result.feasible)
        except PluginFailure as failure:
            m.status = failure.status

    def _placement_feasible(
        self, fw: Framework, handle: FrameworkHandle, info: PodGroupInfo, progress: PlacementProgress
    ) -> Status:
        """RunPlacementFeasiblePlugins: the profile's plugins implementing placement_feasible
        (GangScheduling), the first non-success wins."""
        return fw.run_placement_feasible(info, progress, handle)

    # ---- PodGroupPostFilter ------------------------------------------------------------
    def _pod_group_post_filter(
        self, fw: Framework, handle: FrameworkHandle, info: PodGroupInfo, members: list[Member], result: GroupResult,
        pg_state: PodGroupCycleState,
    ) -> None:
        """RunPodGroupPostFilterPlugins with the group's cycle state, then applyPodGroupPostFilterResult onto
        `result`."""
        if not fw.pod_group_hooks.post_filter:
            return

        def schedule() -> tuple[list[ProposedAssignment], Status]:
            """The group's algorithm again, on scratch members (their records stay the cycle's)."""
            scratch = [
                Member(m.entry, CycleRecord(m.entry.pod.key, m.entry.pod.uid, fw.profile, fw.generation_id))
                for m in members
            ]
            again = self._pod_group_algorithm(fw, handle, info, scratch, PodGroupCycleState())  # NewCycleState()
            placed = [
                ProposedAssignment(m.entry.pod, node, state)
                for m in again.members if (found := again.placed.get(m.entry.pod.uid)) for node, state in (found,)
            ]
            return placed, again.status

        record = members[0].record  # the group's attempt is counted once (scheduler_workload_preemption_attempts_total)
        status, outcome = fw.run_pod_group_post_filter(info, schedule, self.cluster, handle, record, pg_state)
        # applyPodGroupPostFilterResult
        if status.ok and outcome is not None:
            result.waiting_on_preemption = True
            result.nominations = dict(outcome.nominations)
        if status.code == Code.ERROR:
            result.status = status
        elif status.message:
            result.status = Status(result.status.code, (*result.status.reasons, status.message), result.status.plugin,
                                   err=result.status.err)

    # ---- results -----------------------------------------------------------------------
    def _submit(self, fw: Framework, handle: FrameworkHandle, result: GroupResult) -> None:
        """submitPodGroupAlgorithmResult: placed members of a feasible group go on to Reserve,
        Permit and binding for real; the others back to the queue."""
        group_status = result.status
        rejected: list[tuple[QueuedPod, frozenset[str], str]] = []  # back to the queue as the group entity
        for m in result.members:
            entry = m.entry
            if group_status.code == Code.ERROR:
                status = m.status if m.status.code == Code.ERROR else group_status
                m.record.result, m.record.message = "Error", status.message
                m.record.error_plugin = status.plugin
                self.stats.errors += 1
                self._requeue_error(entry, status.message)
                continue
            if result.waiting_on_preemption and entry.pod.uid in result.nominations:
                # ModeOverride: the member's nomination becomes the plugin's ("" clears it), written if changed
                nominated = result.nominations[entry.pod.uid]
                if nominated != entry.pod.nominated_node_name:
                    handle.nominate(entry.pod, nominated or None)
            placed = result.placed.get(entry.pod.uid)
            if placed is not None and group_status.ok:
                node, state = placed
                state.pod_group_cycle = None  # SetPodGroupSchedulingCycle(nil) before binding
                self._assume_reserve_permit(fw, handle, state, entry, node, m.record)
                continue
            stamp = entry.timestamp
            if m.result is not None and not m.status.ok:  # the member's own failure
                diagnosis = m.result.diagnosis
                plugins: frozenset[str] = frozenset()
                if diagnosis is not None:
                    plugins = frozenset(diagnosis.unschedulable_plugins)
                    record_rejected_nodes(m.record, diagnosis, self.cluster.table.names)
                message = m.status.message
            elif m.node is not None:  # placed, but the group was not: NewStatus(group's message).WithError
                message, plugins = f"{POD_GROUP_UNSCHEDULABLE}, {group_status.message}", frozenset()
            else:  # not tried: the group's status (completePodGroupAlgorithmResult)
                message, plugins = group_status.message, frozenset()
            self.stats.unschedulable_attempts += 1
            m.record.result, m.record.message, m.record.node = "Unschedulable", message, None
            if group_status.ok:
                # the group was scheduled: its remaining pods go straight back to activeQ with their timestamp,
                # so the next attempt (the remaining pods alone) can preempt for them at once
                self._requeue_unschedulable(entry, message, plugins)
                self.queue.requeue_remaining(entry, stamp)
            else:
                self._report_unschedulable(entry, message)
                rejected.append((entry, plugins, message))
        if rejected:
            self.queue.requeue_rejected_group(rejected)

    def _set_condition(self, group: dict[str, Any], status: Status) -> None:
        """updatePodGroupCondition: the PodGroup's PodGroupInitiallyScheduled condition, written
        only when it changes and never turned back from True (status subresource)."""
        updated = with_initially_scheduled(group, status)
        if updated is None:
            return
        written = self.backend.update_object("PodGroup", updated, "status")
        if not written.ok:
            meta = group.get("metadata") or {}
            log.warning("PodGroup %s/%s: %s", meta.get("namespace"), meta.get("name"), written.message)


def _undo(fw: Framework, handle: FrameworkHandle, cluster: Any, m: Member) -> Callable[[], None]:
    pod, node, state = m.entry.pod, m.node, m.state

    def revert() -> None:
        fw.run_unreserve(state, pod, node or "", cluster, handle)
        cluster.forget(pod)

    return revert

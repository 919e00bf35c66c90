"""The DefaultPreemption plugin: eligibility, the PostFilter hook, preparing the chosen candidate
(synchronously, or asynchronously under SchedulerAsyncPreemption), and the PreEnqueue that holds a
preemptor while its victims are being preempted."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from kubeberth import (
    ClusterView,
    Code,
    Diagnosis,
    FeatureGates,
    Handle,
    NodeInfo,
    PodView,
    PostFilterResult,
    PreBindCancellation,
    Status,
    WaitingPodHandle,
    hookimpl,
)
from kubeberth.api.placement import PodGroupInfo, PodGroupPostFilterResult
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .candidates import (
    Candidate,
    IsEligibleVictim,
    MoreImportantVictim,
    fit_error_message,
    pick_one_node_for_preemption,
)
from .evaluator import MIN_CHUNK, Evaluator
from .pdb import PDB
from .podgroup import NOT_ELIGIBLE_NEVER as GROUP_NEVER
from .podgroup import ONGOING, PodGroupEvaluator, PodGroupPreemption, PodGroupPreemptor, Schedule
from .victims import VictimKind, new_victim, victim_priority

NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"
WAITING_FOR_GROUP_PREEMPTION = "waiting for the preemption for this pod group to be finished"
# The dry run's error for a node where the pod fits without evicting anyone (evaluator.py's _outcome).
_NO_VICTIM_ERROR = "expected at least one victim pod on node "

PreemptPod = Callable[..., "Preempted"]
"""(victim, preemptor, node, handle) -> the outcome (kube-scheduler's Executor.PreemptPod); a pod group's
preemption adds `pod_group=` (the PodGroup preempting; `preemptor` is one of its members, node "cluster")."""


@dataclass(frozen=True, slots=True)
class Preempted:
    """One victim's preemption: done in scheduler memory (a pod waiting at Permit rejected, no
    delete call), and the API call's status."""

    in_memory: bool
    status: Status


RESERVATION_REFUSED = "another scheduler replica holds a member's nominated node: nothing preempted, tried again"


class _HeldAtCycle:
    """The handle as the preemption's cycle saw it, for the victims' preemption off the scheduling thread: a
    victim held at Permit, or in PreBind, then is still found there (get_waiting_pod, get_pod_in_pre_bind)
    after its wait or PreBind ended and its binding cycle reported back. A victim preempted in memory by an
    earlier attempt of the same preemptor is so preempted again (a no-op) rather than deleted: it had already
    gone back to the queue."""

    def __init__(self, handle: Handle, victims: list[PodView]) -> None:
        self._handle = handle
        self._held = {v.uid: w for v in victims if (w := handle.get_waiting_pod(v.uid)) is not None}
        self._in_pre_bind = {v.uid: c for v in victims if (c := handle.get_pod_in_pre_bind(v.uid)) is not None}

    def get_waiting_pod(self, uid: str) -> WaitingPodHandle | None:
        return self._held.get(uid) or self._handle.get_waiting_pod(uid)

    def get_pod_in_pre_bind(self, uid: str) -> PreBindCancellation | None:
        return self._in_pre_bind.get(uid) or self._handle.get_pod_in_pre_bind(uid)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    @classmethod
    def of(cls, handle: Handle, victims: list[PodView]) -> Handle:
        """Called on the scheduling thread, where the cycle chose `victims`."""
        return cast("Handle", cls(handle, victims))


def _reserve_nominated(found: PodGroupPreemption, preemptor: PodGroupPreemptor, handle: Handle) -> bool:
    """Every nominated member's node claimed for it (Handle.reserve_room) before the group's first
    victim goes; False when another active-active replica holds one of them: then nothing is deleted."""
    members = {m.uid: m for m in preemptor.members}
    for uid, node in found.nominations.items():
        member = members.get(uid)
        if member is not None and not handle.reserve_room(member, node).ok:
            return False
    return True


def preempt_pod(
    victim: PodView, preemptor: PodView, node: str, handle: Handle, pod_group: Mapping[str, Any] | None = None
) -> Preempted:
    """kube-scheduler's default PreemptPod: preempt a victim waiting at Permit (an Error ends its wait: it is retried
    after its backoff), cancel one whose
    PreBind is running (PodsInPreBind), else mark it a DisruptionTarget and delete it
    (Handle.delete_victim). Thread-safe."""
    waiting = handle.get_waiting_pod(victim.uid)
    if waiting is not None and waiting.preempt(DefaultPreemption.name, "preempted"):
        # an Error ends its wait: the victim goes back to backoffQ (executor.go's PreemptPod)
        return Preempted(True, Status.success())
    in_pre_bind = handle.get_pod_in_pre_bind(victim.uid)
    if in_pre_bind is not None and in_pre_bind.cancel(f"preempted by {DefaultPreemption.name}"):
        # Still in PreBind: its binding is cancelled, no delete call (it goes back to the queue).
        return Preempted(True, Status.success())
    if pod_group is not None:
        return Preempted(False, handle.delete_victim(victim, preemptor, node, pod_group=pod_group))
    return Preempted(False, handle.delete_victim(victim, preemptor, node))


class DefaultPreemption:
    """PostFilter: nominates a node for the pod and evicts the victims that make it fit there.

    A preemption plugin built on this one (a subclass, or an instance it configures) may customize
    victim selection as kube-scheduler's exported fields allow:

    is_eligible_victim     IsEligibleVictim or None: (node, victim, preemptor) -> may the victim be
                           preempted; asked in addition to "lower priority than the preemptor", for
                           the dry run and for the terminating-victims check (kube-scheduler's
                           IsEligiblePod). None: every lower-priority pod is eligible.
    more_important_victim  MoreImportantVictim or None: (a, b) -> is a more important than b; victims
                           are reprieved most important first (kube-scheduler's MoreImportantVictim).
                           None: higher priority, then earlier start (importance_key).
    dry_run_chunk          how many potential nodes the dry run evaluates together once fewer candidates
                           than that are still wanted: the dry run may look that far past the nodes it
                           needs, as kube-scheduler's parallel workers do (its `parallelism`); 1 stops at
                           the first node that completes the candidates, as kube-scheduler with
                           parallelism 1.

        class TeamPreemption(DefaultPreemption):
            name = "TeamPreemption"

            def is_eligible_victim(self, node: NodeInfo, victim: PodView, preemptor: PodView) -> bool:
                return victim.labels.get("team") == preemptor.labels.get("team")

    PreEnqueue: under SchedulerAsyncPreemption (beta, on by default in v1.37) the victims are
    preempted off the scheduling thread (`Handle.run_async`), and the preemptor stays out of the
    active queue until that is done (kube-scheduler's Executor and PreEnqueue).
    """

    name = "DefaultPreemption"
    # kube-scheduler registers AssignedPod/Delete with a hint that always says Skip: a pod held by
    # PreEnqueue is retried by the plugins that rejected it in its cycle, once its victims are gone.
    requeue_on = frozenset({"Pod/Delete"})
    queueing_hints = {"Pod/Delete": "skip_after_assigned_pod_deletion"}
    is_eligible_victim: IsEligibleVictim | None = None
    more_important_victim: MoreImportantVictim | None = None
    dry_run_chunk: int = MIN_CHUNK

    class Args(BaseModel):
        """DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1)."""

        model_config = ConfigDict(extra="forbid")
        minCandidateNodesPercentage: int = Field(10, ge=0, le=100)
        minCandidateNodesAbsolute: int = Field(100, ge=0)

        @model_validator(mode="after")
        def _not_both_zero(self) -> DefaultPreemption.Args:
            if self.minCandidateNodesPercentage == 0 and self.minCandidateNodesAbsolute == 0:
                raise ValueError("minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero")
            return self

    def __init__(self, args: Args | None = None, feature_gates: FeatureGates | None = None) -> None:
        self.args = args or self.Args()
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.async_preemption = gates.enabled("SchedulerAsyncPreemption")
        # GenericWorkload: victims are units (a PodGroup disrupted as a whole is one) at their
        # PodGroup's priority, and a pod group that fails its cycle preempts as one (pod_group_post_filter).
        self.workload = gates.enabled("GenericWorkload")
        self.pod_group_preemption_policy = gates.enabled("PodGroupPreemptionPolicy")
        # Where the dry run starts among the candidates (kube-scheduler: random); tests may replace it.
        self.offset_rand: Callable[[int], int] = random.Random(0x5EED).randrange
        # How one victim is preempted (kube-scheduler's Executor.PreemptPod); tests may replace it.
        self.preempt_pod: PreemptPod = preempt_pod
        # How a pod group preempts (kube-scheduler's podGroupEvaluator.Preempt); tests may replace it.
        self.preempt_pod_group: Callable[
            [PodGroupInfo, Schedule, ClusterView, Handle], PodGroupPostFilterResult
        ] = self._preempt_pod_group
        self._preempted: set[str] = set()  # victims this plugin deleted (terminating by preemption)
        # Async preemption, touched on the scheduling thread (the last victim is set by the worker):
        # preemptors whose victims are being preempted, and the victim each one waits for last.
        self._preempting: set[str] = set()
        self._last_victim: dict[str, str] = {}

    def calculate_num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.args.minCandidateNodesPercentage // 100
        n = max(n, self.args.minCandidateNodesAbsolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """Where the dry run starts among `num_nodes` potential nodes, and how many candidates it wants
        (kube-scheduler's GetOffsetAndNumCandidates)."""
        return self.offset_rand(num_nodes), self.calculate_num_candidates(num_nodes)

    def evaluator(
        self, pod: PodView, cluster: ClusterView, handle: Handle, pdbs: list[PDB], all_rows: np.ndarray | None = None
    ) -> Evaluator:
        """The dry run for one preemption attempt of `pod` (kube-scheduler's Evaluator)."""
        rows = cluster.table.ordered_rows() if all_rows is None else all_rows
        return Evaluator(
            self.name,
            pod,
            cluster,
            handle,
            rows,
            pdbs,
            chunk=self.dry_run_chunk,
            is_eligible=self.is_eligible_victim,
            more_important=self.more_important_victim,
            workload=self.workload,
        )

    # ---- eligibility -------------------------------------------------------------------
    def _terminating_by_preemption(self, pod: PodView) -> bool:
        if not pod.deleting:
            return False
        if pod.uid in self._preempted:
            return True
        for cond in (pod.raw.get("status") or {}).get("conditions") or ():
            if cond.get("type") == "DisruptionTarget":
                return cond.get("status") == "True" and cond.get("reason") == "PreemptionByScheduler"
        return False

    def eligible(self, pod: PodView, cluster: ClusterView, diagnosis: Diagnosis) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        row = cluster.table.row_of.get(nominated) if nominated else None
        if row is not None and row not in diagnosis.unresolvable_rows():
            eligible, node = self.is_eligible_victim, None
            for other in cluster.node_pods(row).values():
                # Under GenericWorkload a pod's priority as a victim is its PodGroup's (NewPodVictim).
                priority = victim_priority(other, cluster) if self.workload else other.priority
                if priority < pod.priority and self._terminating_by_preemption(other):
                    if eligible is not None:
                        node = node or NodeInfo(cluster, row)
                        victim: Any = other
                        if self.workload:
                            kind = VictimKind.POD_GROUP if other.pod_group else VictimKind.POD
                            victim = new_victim([(other, row)], priority, kind)
                        if not eligible(node, victim, pod):
                            continue
                    return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # ---- pre_enqueue (async preemption) --------------------------------------------------
    @hookimpl
    def pre_enqueue(self, pod: PodView, handle: Handle) -> Status | None:
        """Hold a pod whose preemption is still running (kube-scheduler's DefaultPreemption.PreEnqueue).

        Upstream holds a PodGroup's pods (under GenericWorkload) while their group's preemption
        runs; kubeberth preempts for one pod at a time, a PodGroup's pods too, so the pod whose
        preemption runs is the one held."""
        if not self.async_preemption:
            return None
        if self.workload and pod.pod_group:
            group = handle.cluster.get_object("PodGroup", f"{pod.namespace}/{pod.pod_group}")
            if group is None:  # not DefaultPreemption's to hold a pod whose group is missing
                return None
            key = _group_key(group, pod.namespace, pod.pod_group)
            if self.is_pod_running_preemption(key, handle.cluster):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (WAITING_FOR_GROUP_PREEMPTION,))
            return None
        if self.is_pod_running_preemption(pod.uid, handle.cluster):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (WAITING_FOR_PREEMPTION,))
        return None

    def is_pod_running_preemption(self, uid: str, cluster: ClusterView) -> bool:
        """Executor.IsPodRunningPreemption: running, unless the last victim is already gone or
        terminating (its deletion event may arrive before the preemption's end is reported)."""
        if uid not in self._preempting:
            return False
        last = self._last_victim.get(uid)
        if last is None:
            return True
        victim = cluster.pods.get(last)
        return victim is not None and not victim.deleting

    def is_pod_group_running_preemption(self, uid: str, cluster: ClusterView) -> bool:
        """Executor.IsPodGroupRunningPreemption: as is_pod_running_preemption, for the PodGroup of `uid`."""
        return self.is_pod_running_preemption("podgroup:" + uid, cluster)

    def skip_after_assigned_pod_deletion(self, pod: PodView, old: Any, new: Any) -> bool:
        """isPodSchedulableAfterAssignedPodDeletion: always Skip; the plugins that rejected the pod
        in its cycle decide when it is worth retrying."""
        return False

    # ---- post_filter -------------------------------------------------------------------
    @hookimpl
    def post_filter(
        self, state: dict[str, Any], pod: PodView, cluster: ClusterView, handle: Handle, diagnosis: Diagnosis
    ) -> PostFilterResult | Status:
        ok, why = self.eligible(pod, cluster, diagnosis)
        if not ok:
            return Status(Code.UNSCHEDULABLE, (f"preemption: {why}",))
        all_rows = cluster.table.ordered_rows()
        potential = _potential_rows(diagnosis, all_rows, len(cluster.table.alive))
        statuses: dict[str, tuple[str, ...]] = {}
        candidates: list[Candidate] = []
        if potential:
            pdbs = [PDB.from_dict(o) for o in cluster.list_objects("PodDisruptionBudget")]
            offset, num_candidates = self.get_offset_and_num_candidates(len(potential))
            evaluator = self.evaluator(pod, cluster, handle, pdbs, all_rows)
            candidates = evaluator.dry_run(potential, offset, num_candidates, statuses)
        errors = list(dict.fromkeys(r for reasons in statuses.values() for r in reasons if r.startswith(_NO_VICTIM_ERROR)))
        if not candidates and errors:
            # kube-scheduler: a dry run that failed on some node and found no candidate is an
            # Error (utilerrors.NewAggregate of the nodes' errors), not a FitError.
            message = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
            return Status(Code.ERROR, (f"preemption: {message}",), self.name)
        if not candidates:
            if pod.nominated_node_name:
                handle.nominate(pod, None)  # preemption cannot help: clear a stale nomination
            message = fit_error_message(len(all_rows), statuses)
            # kube-scheduler's result with an empty nominated node: clear the pod's nomination.
            return PostFilterResult("", Status(Code.UNSCHEDULABLE, (f"preemption: {message}",)))
        # DefaultPreemption.PostFilter puts "preemption: " before every message of Evaluator.Preempt.
        candidates, failure = self._call_extenders(pod, candidates, handle)
        if failure is not None:
            return Status(failure.code, (f"preemption: {failure.message}",), failure.plugin)
        best = pick_one_node_for_preemption(candidates)
        if best is None:
            return Status(Code.UNSCHEDULABLE, ("preemption: no candidate node for preemption",))
        failure = self.prepare_candidate(best, pod, cluster, handle)
        if failure is not None:
            return Status(failure.code, (f"preemption: {failure.message}",), failure.plugin)
        handle.nominate(pod, best.node)
        # Evaluator.Preempt's success message, under DefaultPreemption's "preemption: " prefix: it
        # ends the FailedScheduling text kube-scheduler records for the preemptor.
        found = f"preemption: found a potential placement for pod on node {best.node}, preempting {len(best.victims)} victims"
        return PostFilterResult(
            nominated_node=best.node,
            status=Status(Code.SUCCESS, (found,)),
            victims=tuple(v.key for v in best.victims),
            candidates=len(candidates),
        )

    # ---- pod_group_post_filter (GenericWorkload) -----------------------------------------
    @hookimpl
    def pod_group_post_filter(
        self, state: Any, pod_group: PodGroupInfo, schedule: Schedule, cluster: ClusterView, handle: Handle
    ) -> PodGroupPostFilterResult:
        """DefaultPreemption.PodGroupPostFilter: the pod group's preemption (`preempt_pod_group`), every
        message prefixed "pod group preemption: " (its result feeds scheduler_workload_preemption_attempts_total)."""
        result = self.preempt_pod_group(pod_group, schedule, cluster, handle)
        message = result.status.message
        if not message:
            return result
        status = Status(result.status.code, (f"pod group preemption: {message}",), result.status.plugin)
        return PodGroupPostFilterResult(status, result.nominations, result.victims)

    def _preempt_pod_group(
        self, pod_group: PodGroupInfo, schedule: Schedule, cluster: ClusterView, handle: Handle
    ) -> PodGroupPostFilterResult:
        """PodGroupEvaluator.Preempt: victims over the whole cluster, PodGroups disrupted as a whole
        evicted whole, each placed member nominated to its node."""
        preemptor = PodGroupPreemptor.of(pod_group, self.pod_group_preemption_policy)
        if preemptor.preemption_policy == "Never":
            return PodGroupPostFilterResult(Status(Code.UNSCHEDULABLE, (GROUP_NEVER,)))
        pdbs = [PDB.from_dict(o) for o in cluster.list_objects("PodDisruptionBudget")]
        evaluator = PodGroupEvaluator(preemptor, cluster, handle, pdbs)
        if evaluator.ongoing(self._terminating_by_preemption):
            current = {p.uid: p.nominated_node_name for p in preemptor.members}
            return PodGroupPostFilterResult(Status(Code.SUCCESS, (ONGOING,)), current)
        found = evaluator.select_victims(schedule)
        if isinstance(found, Status):
            return PodGroupPostFilterResult(found)
        refused = self._preempt_for_group(found, preemptor, pod_group, cluster, handle)
        if refused is not None:
            return PodGroupPostFilterResult(refused)
        message = f"found a placement for podgroup, preempting {len(found.victims)} victims"
        return PodGroupPostFilterResult(
            Status(Code.SUCCESS, (message,)), found.nominations, tuple(v.key for v in found.victims)
        )

    def _preempt_for_group(
        self,
        found: PodGroupPreemption,
        preemptor: PodGroupPreemptor,
        info: PodGroupInfo,
        cluster: ClusterView,
        handle: Handle,
    ) -> Status | None:
        """Executor.actuatePodGroupPreemption: every victim preempted (DisruptionTarget, then deleted),
        off the scheduling thread under SchedulerAsyncPreemption with the group held by PreEnqueue
        until the last victim's preemption has started. An Error when, before any victim, a member's
        node could not be reserved (active-active: another replica preempts or places there)."""
        victims = [v for v in found.victims if not v.deleting]
        if not victims:
            return None
        for victim in victims:
            self._remember(victim.uid, cluster)
        group = info.pod_group or {}
        stand_in = preemptor.members[0]
        key = _group_key(group, info.namespace, info.name)
        held = _HeldAtCycle.of(handle, victims)

        def preempt(victim: PodView) -> Preempted:
            return self.preempt_pod(victim, stand_in, "cluster", held, pod_group=group)

        if not self.async_preemption:
            if not _reserve_nominated(found, preemptor, handle):
                return Status.error(RESERVATION_REFUSED)
            for victim in victims:
                preempt(victim)
            return None
        members = list(preemptor.members)
        outcome = {"error": False, "last_in_memory": False}
        self._preempting.add(key)

        def work() -> None:
            if not _reserve_nominated(found, preemptor, handle):
                outcome["error"] = True  # nothing deleted: the members are tried again
                return
            for victim in victims[:-1]:
                if not preempt(victim).status.ok:
                    outcome["error"] = True
                    return
            self._last_victim[key] = victims[-1].uid
            last = preempt(victims[-1])
            outcome["error"] = not last.status.ok
            outcome["last_in_memory"] = last.in_memory

        def then() -> None:
            self._preempting.discard(key)
            self._last_victim.pop(key, None)
            if outcome["error"] or outcome["last_in_memory"]:
                handle.activate(members)

        handle.run_async(work, then)
        return None

    @staticmethod
    def _call_extenders(pod: PodView, candidates: list[Candidate], handle: Handle) -> tuple[list[Candidate], Status | None]:
        """Let the configured extenders with a preemptVerb narrow the candidates (kube-scheduler's callExtenders)."""
        victims = {c.node: (c.victims, c.num_pdb_violations) for c in candidates}
        kept, failure = handle.preemption_extenders(pod, victims)
        if failure is not None or kept is victims:
            return candidates, failure
        return [Candidate(node, list(vs), n) for node, (vs, n) in kept.items()], None

    def prepare_candidate(self, best: Candidate, pod: PodView, cluster: ClusterView, handle: Handle) -> Status | None:
        """Preempt the victims and clear lower-priority nominations on the node: at once
        (Executor.prepareCandidate), or off the scheduling thread (prepareCandidateAsync)."""
        if self.async_preemption:
            self._prepare_candidate_async(best, pod, cluster, handle)
            return None
        for victim in best.victims:
            if victim.deleting:
                continue  # graceful deletion already under way
            outcome = self.preempt_pod(victim, pod, best.node, handle)
            if not outcome.status.ok:
                return Status(Code.ERROR, outcome.status.reasons, self.name)
            self._remember(victim.uid, cluster)
        self._clear_lower_nominations(best.node, pod, cluster, handle)
        return None

    def _prepare_candidate_async(self, best: Candidate, pod: PodView, cluster: ClusterView, handle: Handle) -> None:
        """prepareCandidateAsync: the preemptor is held by PreEnqueue until every victim but the
        last is preempted and the last one's preemption has started; on an error, or when the last
        victim went in memory (no deletion event will come), the preemptor is activated."""
        victims = [v for v in best.victims if not v.deleting]
        if not victims:
            return
        # Nominations live in the scheduler's cache: cleared here, on the scheduling thread.
        self._clear_lower_nominations(best.node, pod, cluster, handle)
        for victim in victims:
            self._remember(victim.uid, cluster)
        uid, node, preempt = pod.uid, best.node, self.preempt_pod
        held = _HeldAtCycle.of(handle, victims)
        outcome = {"error": False, "last_in_memory": False}
        self._preempting.add(uid)

        def work() -> None:
            for victim in victims[:-1]:
                if not preempt(victim, pod, node, held).status.ok:
                    outcome["error"] = True
                    return  # skip the last victim: the preemptor comes back sooner
            self._last_victim[uid] = victims[-1].uid
            last = preempt(victims[-1], pod, node, held)
            outcome["error"] = not last.status.ok
            outcome["last_in_memory"] = last.in_memory

        def then() -> None:
            self._preempting.discard(uid)
            self._last_victim.pop(uid, None)
            if outcome["error"] or outcome["last_in_memory"]:
                handle.activate([pod])

        handle.run_async(work, then)

    @staticmethod
    def _clear_lower_nominations(node: str, pod: PodView, cluster: ClusterView, handle: Handle) -> None:
        for other in list(cluster.nominated.get(node, {}).values()):
            if other.uid != pod.uid and other.priority < pod.priority:
                handle.nominate(other, None)

    def _remember(self, uid: str, cluster: ClusterView) -> None:
        self._preempted.add(uid)
        if len(self._preempted) > 4096:
            self._preempted = {u for u in self._preempted if u in cluster.pods}


def _group_key(group: Mapping[str, Any], namespace: str, name: str) -> str:
    """The key a pod group's running preemption is held under (upstream: the PodGroup's UID)."""
    return "podgroup:" + ((group.get("metadata") or {}).get("uid") or f"{namespace}/{name}")


def _potential_rows(diagnosis: Diagnosis, all_rows: np.ndarray, capacity: int) -> list[int]:
    """The rows, in `all_rows` order, some filter rejected and none as UnschedulableAndUnresolvable
    (kube-scheduler's nodesWherePreemptionMightHelp), as masks over the table's rows."""
    rejected = np.zeros(capacity, dtype=bool)
    unresolvable = np.zeros(capacity, dtype=bool)
    for _plugin, _reason, rows, code in diagnosis.rejections:
        rejected[rows] = True
        if code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            unresolvable[rows] = True
    return all_rows[rejected[all_rows] & ~unresolvable[all_rows]].tolist()

"""DefaultPreemption: when no node fits, find a node where evicting lower-priority pods makes room.

kube-scheduler's Evaluator in batch form over the cache: for each candidate node (one rejected by a
resolvable filter), all lower-priority pods are taken off the node in a hypothetical state, the
filters re-run on that node alone, and victims are then reprieved one by one (PDB-violating first,
most important first) while the pod still fits. The cache is restored exactly in a finally block.

Because plugins here have no PreFilter AddPod/RemovePod extensions, each hypothetical check re-runs
every pre_filter on a fresh CycleState before the single-node filters: plugins that precompute
cluster-wide counts (topology spread, inter-pod affinity, ReadWriteOncePod) then see the victims
gone, which is what kube-scheduler's RemovePod extensions achieve.
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from kubeberth import (
    ClusterState,
    Code,
    CycleState,
    Diagnosis,
    PodInfo,
    PostFilterResult,
    Status,
    hookimpl,
)
from kubeberth.builtin_plugins.volume_binding import label_selector_matches
from pydantic import BaseModel, ConfigDict, Field, model_validator

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
_INT32_SHIFT = 2**31  # priorities are shifted to be non-negative before summing


@dataclass(frozen=True, slots=True)
class PDB:
    """The parts of a PodDisruptionBudget preemption reads."""

    namespace: str
    selector: dict[str, Any] | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> PDB:
        meta = obj.get("metadata") or {}
        status = obj.get("status") or {}
        return cls(
            meta.get("namespace") or "default",
            (obj.get("spec") or {}).get("selector"),
            int(status.get("disruptionsAllowed") or 0),
            frozenset((status.get("disruptedPods") or {}).keys()),
        )

    def matches(self, pod: PodInfo) -> bool:
        if self.namespace != pod.namespace or not self.selector:
            return False  # a nil or empty selector matches nothing
        if not self.selector.get("matchLabels") and not self.selector.get("matchExpressions"):
            return False
        return label_selector_matches(self.selector, pod.labels)


@dataclass(slots=True)
class Candidate:
    node: str
    victims: list[PodInfo]  # most important first
    num_pdb_violations: int


def start_time(pod: PodInfo) -> float:
    """status.startTime; a pod that has not started counts as starting now (the latest)."""
    cached = pod.memo.get("preemption.start_time")
    if cached is None:
        raw = (pod.raw.get("status") or {}).get("startTime")
        cached = math.inf
        if raw:
            with contextlib.suppress(ValueError):
                cached = datetime.fromisoformat(str(raw).replace("Z", "+00:00")).timestamp()
        pod.memo["preemption.start_time"] = cached
    return cached


def importance_key(pod: PodInfo) -> tuple[int, float]:
    """Sort key, most important first: higher priority, then earlier start (util.MoreImportantPod)."""
    return (-pod.priority, start_time(pod))


def filter_pods_with_pdb_violation(pods: list[PodInfo], pdbs: list[PDB]) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split (keeping order) into pods whose eviction would violate a PDB and the others."""
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list[PodInfo] = []
    others: list[PodInfo] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not pdb.matches(pod) or pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else others).append(pod)
    return violating, others


def pick_one_node_for_preemption(candidates: list[Candidate]) -> Candidate | None:
    """kube-scheduler's pickOneNodeForPreemption: each criterion only breaks the previous one's ties."""
    if not candidates:
        return None

    def earliest_top_start(c: Candidate) -> float:
        top = max(v.priority for v in c.victims)
        return min(start_time(v) for v in c.victims if v.priority == top)

    criteria: list[Callable[[Candidate], float]] = [
        lambda c: -c.num_pdb_violations,
        lambda c: -c.victims[0].priority,
        lambda c: -sum(v.priority + _INT32_SHIFT for v in c.victims),
        lambda c: -len(c.victims),
        earliest_top_start,
    ]
    remaining = candidates
    for score in criteria:
        scores = [score(c) for c in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores, strict=True) if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]


def fit_error_message(num_all_nodes: int, statuses: dict[str, tuple[str, ...]]) -> str:
    """FitError text over the dry run's node statuses; nodes not evaluated are 'not helpful'."""
    counts: dict[str, int] = {}
    for reasons in statuses.values():
        for reason in reasons:
            counts[reason] = counts.get(reason, 0) + 1
    absent = num_all_nodes - len(statuses)
    if absent > 0:
        counts[NOT_HELPFUL] = counts.get(NOT_HELPFUL, 0) + absent
    msg = f"0/{num_all_nodes} nodes are available:"
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    if histogram:
        msg += f" {', '.join(histogram)}."
    return msg


class DefaultPreemption:
    """PostFilter: nominates a node for the pod and evicts the victims that make it fit there."""

    name = "DefaultPreemption"

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

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()
        # Where the dry run starts among the candidates (kube-scheduler: random); tests may replace it.
        self.offset_rand: Callable[[int], int] = random.Random(0x5EED).randrange
        self._preempted: set[str] = set()  # victims this plugin deleted (terminating by preemption)

    def calculate_num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.args.minCandidateNodesPercentage // 100
        n = max(n, self.args.minCandidateNodesAbsolute)
        return min(n, num_nodes)

    # ---- eligibility -------------------------------------------------------------------
    def _terminating_by_preemption(self, pod: PodInfo) -> bool:
        if not pod.deleting:
            return False
        if pod.uid in self._preempted:
            return True
        for cond in (pod.raw.get("status") or {}).get("conditions") or ():
            if cond.get("type") == "DisruptionTarget":
                return cond.get("status") == "True" and cond.get("reason") == "PreemptionByScheduler"
        return False

    def eligible(self, pod: PodInfo, cluster: ClusterState, diagnosis: Diagnosis) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        row = cluster.table.row_of.get(nominated) if nominated else None
        if row is not None and row not in diagnosis.unresolvable_rows():
            for other in cluster.node_pods(row).values():
                if other.priority < pod.priority and self._terminating_by_preemption(other):
                    return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    # ---- post_filter -------------------------------------------------------------------
    @hookimpl
    def post_filter(
        self, state: dict[str, Any], pod: PodInfo, cluster: ClusterState, handle: Any, diagnosis: Diagnosis
    ) -> PostFilterResult | Status:
        ok, why = self.eligible(pod, cluster, diagnosis)
        if not ok:
            return Status(Code.UNSCHEDULABLE, (f"preemption: {why}",))
        table = cluster.table
        all_rows = table.ordered_rows()
        rejected: set[int] = set()
        for _plugin, _reason, rows, _code in diagnosis.rejections:
            rejected.update(rows.tolist())
        unresolvable = diagnosis.unresolvable_rows()
        potential = [r for r in all_rows.tolist() if r in rejected and r not in unresolvable]
        statuses: dict[str, tuple[str, ...]] = {}
        candidates: list[Candidate] = []
        if potential:
            pdbs = [PDB.from_dict(o) for o in cluster.list_objects("PodDisruptionBudget")]
            candidates = self.dry_run(pod, cluster, handle, potential, all_rows, pdbs, statuses)
        if not candidates:
            if pod.nominated_node_name:
                handle.nominate(pod, None)  # preemption cannot help: clear a stale nomination
            message = fit_error_message(len(all_rows), statuses)
            return Status(Code.UNSCHEDULABLE, (f"preemption: {message}",))
        best = pick_one_node_for_preemption(candidates)
        assert best is not None
        failure = self.prepare_candidate(best, pod, cluster, handle)
        if failure is not None:
            return failure
        handle.nominate(pod, best.node)
        return PostFilterResult(nominated_node=best.node)

    def dry_run(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        potential: list[int],
        all_rows: np.ndarray,
        pdbs: list[PDB],
        statuses: dict[str, tuple[str, ...]],
    ) -> list[Candidate]:
        """Evaluate candidate nodes from a random offset until enough candidates are found."""
        n = len(potential)
        offset = self.offset_rand(n) if n > 1 else 0
        wanted = self.calculate_num_candidates(n)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        table = cluster.table
        with _nominated_pods_placed(cluster, pod) as nominated_on:
            for i in range(n):
                row = potential[(offset + i) % n]
                name = table.names[row] or ""
                victims, num_violations, reasons = self.select_victims_on_node(
                    pod, cluster, handle, row, all_rows, pdbs, nominated_on.get(row, [])
                )
                if victims is None:
                    statuses[name] = reasons
                    continue
                bucket = violating if num_violations else non_violating
                if len(bucket) < wanted:
                    bucket.append(Candidate(name, victims, num_violations))
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    break
        return non_violating + violating

    def select_victims_on_node(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        row: int,
        all_rows: np.ndarray,
        pdbs: list[PDB],
        nominated_here: list[PodInfo] | None = None,
    ) -> tuple[list[PodInfo] | None, int, tuple[str, ...]]:
        """Fewest victims on one node: (victims or None, PDB violations, reasons when None)."""
        on_node = cluster.pods_on.get(row)
        if on_node is None:
            return None, 0, (NO_VICTIMS,)
        nominated_uids = {p.uid for p in nominated_here or ()}
        potential = [p for p in on_node.values() if p.priority < pod.priority and p.uid not in nominated_uids]
        if not potential:
            return None, 0, (NO_VICTIMS,)
        original_order = list(on_node.items())
        removed: list[PodInfo] = []
        try:
            for victim in potential:
                cluster._unplace(victim)
                removed.append(victim)
            fits, reasons = self._fits(pod, cluster, handle, row, all_rows, nominated_here or [])
            if not fits:
                return None, 0, reasons
            potential.sort(key=importance_key)
            violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
            victims: list[PodInfo] = []
            num_violations = 0
            for group, counts in ((violating, True), (non_violating, False)):
                for victim in group:
                    cluster._place(victim, row)
                    if not self._fits(pod, cluster, handle, row, all_rows, nominated_here or [])[0]:
                        cluster._unplace(victim)
                        victims.append(victim)
                        num_violations += int(counts)
            if violating and non_violating:
                victims.sort(key=importance_key)
            return victims, num_violations, ()
        finally:
            for victim in removed:
                if victim.uid not in cluster.placement:
                    cluster._place(victim, row)
            on_node.clear()
            on_node.update(original_order)

    @staticmethod
    def _fits(
        pod: PodInfo, cluster: ClusterState, handle: Any, row: int, all_rows: np.ndarray, nominated_here: list[PodInfo]
    ) -> tuple[bool, tuple[str, ...]]:
        """Pre-filters (fresh state) then filters on the single node, with and without nominated pods."""
        fits, reasons = _run_filters_on(pod, cluster, handle, row, all_rows)
        if fits and nominated_here:
            for other in nominated_here:
                cluster._unplace(other)
            try:
                fits, reasons = _run_filters_on(pod, cluster, handle, row, all_rows)
            finally:
                for other in nominated_here:
                    cluster._place(other, row)
        return fits, reasons

    def prepare_candidate(self, best: Candidate, pod: PodInfo, cluster: ClusterState, handle: Any) -> Status | None:
        """Evict the victims (reject waiting ones) and clear lower-priority nominations on the node."""
        for victim in best.victims:
            if victim.deleting:
                continue  # graceful deletion already under way
            waiting = handle.get_waiting_pod(victim.uid)
            if waiting is not None:
                waiting.reject(self.name, "preempted")
                continue
            status = handle.delete_victim(victim, pod, best.node)
            if status is not None and not status.ok:
                return Status(Code.ERROR, status.reasons, self.name)
            self._remember(victim.uid, cluster)
        for other in list(cluster.nominated.get(best.node, {}).values()):
            if other.uid != pod.uid and other.priority < pod.priority:
                handle.nominate(other, None)
        return None

    def _remember(self, uid: str, cluster: ClusterState) -> None:
        self._preempted.add(uid)
        if len(self._preempted) > 4096:
            self._preempted = {u for u in self._preempted if u in cluster.pods}


def _run_filters_on(
    pod: PodInfo, cluster: ClusterState, handle: Any, row: int, all_rows: np.ndarray
) -> tuple[bool, tuple[str, ...]]:
    fw = handle.framework
    table = cluster.table
    state = CycleState()
    status, narrowed = fw.run_pre_filter(state, pod, table.view(all_rows), cluster, handle, None)
    if not status.ok:
        return False, status.reasons or (status.message,)
    if narrowed is not None and table.names[row] not in narrowed:
        return False, ("node(s) didn't satisfy plugin(s) PreFilter result",)
    diagnosis = Diagnosis(num_all_nodes=1)
    feasible = fw.run_filters(state, pod, table.view(np.asarray([row], dtype=np.int64)), cluster, handle, diagnosis)
    if feasible[0]:
        return True, ()
    return False, tuple(dict.fromkeys(reason for _p, reason, _rows, _c in diagnosis.rejections))


@contextlib.contextmanager
def _nominated_pods_placed(cluster: ClusterState, pod: PodInfo) -> Iterator[dict[int, list[PodInfo]]]:
    """Account nominated pods of equal or higher priority on their nodes, as the scheduling cycle does."""
    placed: dict[int, list[PodInfo]] = {}
    for node_name, pods in cluster.nominated.items():
        row = cluster.table.row_of.get(node_name)
        if row is None:
            continue
        for other in pods.values():
            if other.uid != pod.uid and other.priority >= pod.priority and other.uid not in cluster.placement:
                cluster._place(other, row)
                placed.setdefault(row, []).append(other)
    try:
        yield placed
    finally:
        for others in placed.values():
            for other in others:
                cluster._unplace(other)

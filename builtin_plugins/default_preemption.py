"""DefaultPreemption: when no node fits, find a node where evicting lower-priority pods makes room.

kube-scheduler's Evaluator over the cache: for each candidate node (one rejected by a resolvable
filter), all lower-priority pods are taken off the node in a hypothetical state, the filters re-run
on that node, and victims are then reprieved one by one (PDB-violating first, most important first)
while the pod still fits. The cache is restored exactly afterwards.

PreFilter runs once per attempt and its state is cloned per check (kube-scheduler clones the
cycle's state). When every active filter reads only its own node (NodeResourcesFit and the
pod-independent ones: the common case), a chunk of candidate nodes is evaluated in batch on the
requested column; otherwise each node is checked alone, after a batch resource screen.
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
from kubeberth.api.helpers import label_selector_matches
from kubeberth.runtime.framework import BoundHook, Framework
from pydantic import BaseModel, ConfigDict, Field, model_validator

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
PRE_FILTER_RESULT_REASON = "node(s) didn't satisfy plugin(s) PreFilter result"
_INT32_SHIFT = 2**31  # priorities are shifted to be non-negative before summing
_MIN_CHUNK = 32  # candidate nodes evaluated together once few more candidates are wanted
# Filters whose verdict on a node depends on no placed pod anywhere.
POD_INDEPENDENT_FILTERS = frozenset(
    {"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "VolumeBinding", "VolumeZone"}
)
RESOURCE_FILTER = "NodeResourcesFit"  # reads only its own node's requested column
NODE_LOCAL_FILTERS = POD_INDEPENDENT_FILTERS | {RESOURCE_FILTER}
# Pre-filters whose state holds no placed-pod data, or whose filter recomputes it when pods change.
SELF_MAINTAINED_PRE_FILTERS = frozenset(
    {"NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity"}
)


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
        return PostFilterResult(
            nominated_node=best.node, victims=tuple(v.key for v in best.victims), candidates=len(candidates)
        )

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
        """Evaluate candidate nodes from a random offset until enough candidates are found.

        Nodes are taken in chunks in kube-scheduler's order; a chunk is evaluated in batch where the
        active filters allow it (see `_Base.fast`), else node by node after a batch resource screen.
        """
        n = len(potential)
        offset = self.offset_rand(n) if n > 1 else 0
        wanted = self.calculate_num_candidates(n)
        order = potential[offset:] + potential[:offset]
        base = _Base.build(pod, cluster, handle, all_rows)
        nominated = cluster.nominated_ghosts(pod)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        deferred: list[tuple[int, list[PodInfo]]] = []  # screened out: reasons only needed without candidates
        names = cluster.table.names
        pos = 0
        done = False
        while pos < n and not done:
            size = max(wanted - len(non_violating) - len(violating), _MIN_CHUNK)
            chunk = order[pos : pos + size]
            pos += len(chunk)
            items: list[tuple[int, list[PodInfo]]] = []
            for row in chunk:
                lower = [p for p in cluster.node_pods(row).values() if p.priority < pod.priority]
                if lower:
                    items.append((row, lower))
                else:
                    statuses[names[row] or ""] = (NO_VICTIMS,)
            if base.fast:
                outcomes: Iterator[_Outcome] = iter(self._evaluate_batch(pod, cluster, handle, base, items, nominated, pdbs))
            else:
                outcomes = self._evaluate_each(pod, cluster, handle, base, items, nominated, pdbs, all_rows, deferred)
            for row, victims, num_violations, reasons in outcomes:
                name = names[row] or ""
                if victims is None:
                    statuses[name] = reasons
                    continue
                bucket = violating if num_violations else non_violating
                if len(bucket) < wanted:
                    bucket.append(Candidate(name, victims, num_violations))
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    done = True
                    break
        if not non_violating and not violating:
            for row, lower in deferred:  # only now do their exact reasons matter (the FitError text)
                result = self.select_victims_on_node(pod, cluster, handle, base, row, lower, pdbs, nominated.get(row, []), all_rows)
                statuses[names[row] or ""] = result[2]
        return non_violating + violating

    # ---- batch evaluation (only pod-independent filters and NodeResourcesFit are active) -----
    def _evaluate_batch(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        base: _Base,
        items: list[tuple[int, list[PodInfo]]],
        nominated: dict[int, list[PodInfo]],
        pdbs: list[PDB],
    ) -> list[_Outcome]:
        """kube-scheduler's per-node victim selection for many nodes at once.

        Valid because every active filter reads only its own node (NodeResourcesFit reads the
        node's requested column, the others no pods at all): the hypothetical states of different
        nodes are independent, so they are applied to the table together. With nominated pods
        counted the node only gets fuller, so the pass without them cannot fail where the pass
        with them succeeded; one pass per check suffices.
        """
        outcomes: dict[int, _Outcome] = {}
        rest = items
        if base.narrowed is not None:
            names = cluster.table.names
            rest = []
            for row, lower in items:
                if names[row] in base.narrowed:
                    rest.append((row, lower))
                else:
                    outcomes[row] = (row, None, 0, (PRE_FILTER_RESULT_REASON,))
        if rest:
            outcomes.update(self._batch_victims(pod, cluster, handle, base, rest, nominated, pdbs))
        return [outcomes[row] for row, _lower in items]

    def _batch_victims(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        base: _Base,
        items: list[tuple[int, list[PodInfo]]],
        nominated: dict[int, list[PodInfo]],
        pdbs: list[PDB],
    ) -> dict[int, _Outcome]:
        table = cluster.table
        fw = handle.framework
        assert base.state is not None
        for _row, lower in items:  # vectors first: they may add resource columns
            for p in lower:
                table.request_vector(p)
        for row, _lower in items:
            for p in nominated.get(row, ()):
                table.request_vector(p)
        rows = np.fromiter((row for row, _ in items), dtype=np.int64, count=len(items))
        width = len(table.resources)
        delta = np.zeros((len(items), width), dtype=np.int64)
        for i, (row, lower) in enumerate(items):
            for p in lower:
                delta[i] -= table.request_vector(p)
            for p in nominated.get(row, ()):
                delta[i] += table.request_vector(p)
        out: dict[int, _Outcome] = {}
        saved = table.requested[rows, :width].copy()
        try:
            table.requested[rows, :width] = saved + delta  # every lower-priority pod gone, nominated pods in
            diagnosis = Diagnosis(num_all_nodes=len(items))
            feasible = fw.run_filters(base.clone(), pod, table.view(rows), cluster, handle, diagnosis)
            if not feasible.all():
                reasons_of = _reasons_by_row(diagnosis)
                for i in np.flatnonzero(~feasible).tolist():
                    row = int(rows[i])
                    out[row] = (row, None, 0, reasons_of.get(row) or (f"node(s) were rejected by {self.name}",))
            fit = np.flatnonzero(feasible)
            # Reprieve: PDB-violating victims first, each group most important first; the k-th victim
            # of every node is tried at once, kept back where the pod still fits.
            ordered: list[list[PodInfo]] = []
            split: list[int] = []
            for i in fit.tolist():
                lower = sorted(items[i][1], key=importance_key)
                bad, good = filter_pods_with_pdb_violation(lower, pdbs)
                ordered.append(bad + good)
                split.append(len(bad))
            counts = np.asarray([len(o) for o in ordered], dtype=np.int64)
            depth = int(counts.max()) if len(ordered) else 0
            is_victim = np.zeros((len(ordered), depth), dtype=bool)
            fit_rows = rows[fit]
            for k in range(depth):
                active = np.flatnonzero(counts > k)
                vecs = np.stack([table.request_vector(ordered[j][k]) for j in active.tolist()])
                arows = fit_rows[active]
                table.requested[arows, :width] += vecs
                ok = fw.run_filters(base.clone(), pod, table.view(arows), cluster, handle)
                if not ok.all():
                    table.requested[arows[~ok], :width] -= vecs[~ok]
                    is_victim[active[~ok], k] = True
        finally:
            table.requested[rows, :width] = saved
        for j, i in enumerate(fit.tolist()):
            row = int(rows[i])
            victims = [ordered[j][k] for k in np.flatnonzero(is_victim[j]).tolist()]
            num_violations = int(is_victim[j, : split[j]].sum())
            if 0 < split[j] < len(ordered[j]):
                victims.sort(key=importance_key)
            out[row] = _outcome(row, table.names[row] or "", victims, num_violations)
        return out

    # ---- node-by-node evaluation (filters that read other nodes' pods are active) --------------
    def _evaluate_each(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        base: _Base,
        items: list[tuple[int, list[PodInfo]]],
        nominated: dict[int, list[PodInfo]],
        pdbs: list[PDB],
        all_rows: np.ndarray,
        deferred: list[tuple[int, list[PodInfo]]],
    ) -> Iterator[_Outcome]:
        """Lazily, in order, after a batch screen of the filters up to NodeResourcesFit.

        A node failing the screen cannot fit after removing all its lower-priority pods. When the
        screened filters are all node-local its reasons are exact; otherwise they are computed only
        if they end up in the FitError text (no candidate at all).
        """
        could_fit, reasons_of = _screen(pod, cluster, handle, base, items, nominated)
        for (row, lower), ok in zip(items, could_fit.tolist(), strict=True):
            if not ok:
                if reasons_of is None:
                    deferred.append((row, lower))
                else:
                    yield row, None, 0, reasons_of.get(row) or (f"node(s) were rejected by {self.name}",)
                continue
            victims, num_violations, reasons = self.select_victims_on_node(
                pod, cluster, handle, base, row, lower, pdbs, nominated.get(row, []), all_rows
            )
            if victims is None:
                yield row, None, 0, reasons
            else:
                yield _outcome(row, cluster.table.names[row] or "", victims, num_violations)

    def select_victims_on_node(
        self,
        pod: PodInfo,
        cluster: ClusterState,
        handle: Any,
        base: _Base,
        row: int,
        lower: list[PodInfo],
        pdbs: list[PDB],
        nominated_here: list[PodInfo],
        all_rows: np.ndarray,
    ) -> tuple[list[PodInfo] | None, int, tuple[str, ...]]:
        """Fewest victims on one node: (victims or None, PDB violations, reasons when None)."""
        on_node = cluster.pods_on[row]
        original_order = list(on_node.items())
        removed: list[PodInfo] = []
        potential = list(lower)
        try:
            for victim in potential:
                cluster._unplace(victim)
                removed.append(victim)
            fits, reasons = _fits(pod, cluster, handle, base, row, all_rows, nominated_here)
            if not fits:
                return None, 0, reasons
            potential.sort(key=importance_key)
            violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
            victims: list[PodInfo] = []
            num_violations = 0
            for group, counts in ((violating, True), (non_violating, False)):
                for victim in group:
                    cluster._place(victim, row)
                    if not _fits(pod, cluster, handle, base, row, all_rows, nominated_here, reprieve=True)[0]:
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


_Outcome = tuple[int, "list[PodInfo] | None", int, tuple[str, ...]]


def _outcome(row: int, name: str, victims: list[PodInfo], num_violations: int) -> _Outcome:
    if not victims:  # kube-scheduler reports this as an error for the node, never a candidate
        return row, None, 0, (f'expected at least one victim pod on node "{name}"',)
    return row, victims, num_violations, ()


@dataclass(slots=True)
class _Base:
    """The cycle's PreFilter state, computed once per preemption attempt and cloned per check.

    kube-scheduler clones the cycle's CycleState and keeps it current through PreFilter
    AddPod/RemovePod extensions. Here PodTopologySpread and InterPodAffinity recompute their state
    in Filter when the placed pods changed, and the other known pre-filters keep no pod-derived
    state; only the remaining ones (VolumeRestrictions' ReadWriteOncePod count, unknown plugins)
    are re-run per check (`refresh`).
    """

    state: CycleState | None  # None: the cycle's pre_filter failed; every check re-runs all of it
    narrowed: frozenset[str] | None
    refresh: Framework | None
    screen: Framework | None  # active filters up to NodeResourcesFit (or NodeResourcesFit alone)
    screen_exact: bool  # the screen's filters read only their own node: its reasons are the chain's
    resources: Framework | None  # NodeResourcesFit alone: necessary for the whole chain to pass
    fast: bool

    @classmethod
    def build(cls, pod: PodInfo, cluster: ClusterState, handle: Any, all_rows: np.ndarray) -> _Base:
        fw: Framework = handle.framework
        state = CycleState()
        status, narrowed = fw.run_pre_filter(state, pod, cluster.table.view(all_rows), cluster, handle, None)
        if not status.ok:
            return cls(None, None, None, None, False, None, False)
        active = [h for h in fw.points.get("filter", ()) if h.plugin not in state.skip_filter]
        refresh = [
            h for h in fw.points.get("pre_filter", ())
            if h.plugin not in SELF_MAINTAINED_PRE_FILTERS and h.plugin not in state.skip_filter
        ]
        resource = [h for h in active if h.plugin == RESOURCE_FILTER]
        screen, exact = None, False
        if resource:
            prefix = active[: active.index(resource[0]) + 1]
            exact = all(h.plugin in NODE_LOCAL_FILTERS for h in prefix)
            screen = _sub_framework(fw, "filter", prefix if exact else resource)
        return cls(
            state,
            narrowed,
            _sub_framework(fw, "pre_filter", refresh) if refresh else None,
            screen,
            exact,
            _sub_framework(fw, "filter", resource) if resource else None,
            not refresh and all(h.plugin in NODE_LOCAL_FILTERS for h in active),
        )

    def clone(self) -> CycleState:
        assert self.state is not None
        state = CycleState()
        state.update(self.state)
        state.skip_filter = set(self.state.skip_filter)
        state.skip_score = set(self.state.skip_score)
        return state


def _sub_framework(fw: Framework, point: str, hooks: list[BoundHook]) -> Framework:
    return Framework(fw.profile, {point: hooks}, {}, [], fw.plugins, fw.percentage_of_nodes_to_score, fw.generation_id)


def _screen(
    pod: PodInfo,
    cluster: ClusterState,
    handle: Any,
    base: _Base,
    items: list[tuple[int, list[PodInfo]]],
    nominated: dict[int, list[PodInfo]],
) -> tuple[np.ndarray, dict[int, tuple[str, ...]] | None]:
    """base.screen over all the nodes with every lower-priority pod gone and nominated pods in.

    Returns the could-fit mask and, when the screen is exact, the reasons of the rows failing it.
    """
    if base.screen is None or base.state is None or not items:
        return np.ones(len(items), dtype=bool), None
    table = cluster.table
    for row, lower in items:  # vectors first: they may add resource columns
        for p in (*lower, *nominated.get(row, ())):
            table.request_vector(p)
    width = len(table.resources)
    rows = np.fromiter((row for row, _ in items), dtype=np.int64, count=len(items))
    delta = np.zeros((len(items), width), dtype=np.int64)
    for i, (row, lower) in enumerate(items):
        for p in lower:
            delta[i] -= table.request_vector(p)
        for p in nominated.get(row, ()):
            delta[i] += table.request_vector(p)
    saved = table.requested[rows, :width].copy()
    diagnosis = Diagnosis(num_all_nodes=len(items))
    try:
        table.requested[rows, :width] = saved + delta
        mask = base.screen.run_filters(base.clone(), pod, table.view(rows), cluster, handle, diagnosis)
    finally:
        table.requested[rows, :width] = saved
    if not base.screen_exact:
        return mask, None
    return mask, _reasons_by_row(diagnosis)


def _reasons_by_row(diagnosis: Diagnosis) -> dict[int, tuple[str, ...]]:
    """Per rejected row, its reasons in order (one plugin per row: filters stop at the first failure)."""
    out: dict[int, dict[str, None]] = {}
    for _plugin, reason, rejected_rows, _code in diagnosis.rejections:
        for r in rejected_rows.tolist():
            out.setdefault(r, {})[reason] = None
    return {r: tuple(reasons) for r, reasons in out.items()}


def _fits(
    pod: PodInfo,
    cluster: ClusterState,
    handle: Any,
    base: _Base,
    row: int,
    all_rows: np.ndarray,
    nominated_here: list[PodInfo],
    reprieve: bool = False,
) -> tuple[bool, tuple[str, ...]]:
    """RunFilterPluginsWithNominatedPods on one node: with this node's nominated pods, then without.

    `reprieve`: only the verdict matters, so NodeResourcesFit alone (cheap, and necessary for the
    whole chain to pass) is tried first with the nominated pods in.
    """
    if nominated_here:
        for other in nominated_here:
            cluster._place(other, row)
        try:
            if reprieve and base.resources is not None and base.state is not None:
                one = cluster.table.view(np.asarray([row], dtype=np.int64))
                if not base.resources.run_filters(base.clone(), pod, one, cluster, handle)[0]:
                    return False, ()
            fits, reasons = _run_filters_on(pod, cluster, handle, base, row, all_rows)
        finally:
            for other in nominated_here:
                cluster._unplace(other)
        if not fits:
            return fits, reasons
    elif reprieve and base.resources is not None and base.state is not None:
        one = cluster.table.view(np.asarray([row], dtype=np.int64))
        if not base.resources.run_filters(base.clone(), pod, one, cluster, handle)[0]:
            return False, ()
    return _run_filters_on(pod, cluster, handle, base, row, all_rows)


def _run_filters_on(
    pod: PodInfo, cluster: ClusterState, handle: Any, base: _Base, row: int, all_rows: np.ndarray
) -> tuple[bool, tuple[str, ...]]:
    fw: Framework = handle.framework
    table = cluster.table
    if base.state is None:
        state = CycleState()
        status, narrowed = fw.run_pre_filter(state, pod, table.view(all_rows), cluster, handle, None)
    else:
        state = base.clone()
        status, narrowed = Status.success(), base.narrowed
        if base.refresh is not None:
            status, refreshed = base.refresh.run_pre_filter(state, pod, table.view(all_rows), cluster, handle, None)
            if refreshed is not None:
                narrowed = refreshed if narrowed is None else narrowed & refreshed
    if not status.ok:
        return False, status.reasons or (status.message,)
    if narrowed is not None and table.names[row] not in narrowed:
        return False, (PRE_FILTER_RESULT_REASON,)
    diagnosis = Diagnosis(num_all_nodes=1)
    feasible = fw.run_filters(state, pod, table.view(np.asarray([row], dtype=np.int64)), cluster, handle, diagnosis)
    if feasible[0]:
        return True, ()
    return False, tuple(dict.fromkeys(reason for _p, reason, _rows, _c in diagnosis.rejections))

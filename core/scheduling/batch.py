"""Opportunistic batching (kube-scheduler v1.37's framework/runtime/batch.go, KEP-5598).

Consecutive pods with the same signature (see `kubeberth.api.signing`) are usually placed one per
node by the same ranking: after a full cycle the remaining scored candidates, best first, are
kept, and the next same-signature pod is offered the head of that list as a hint. The hint is
checked with every filter (like a nominated node); if it passes, the pod goes there without a
full cycle. Before the hint is taken, the node chosen last is filtered again and, if still
feasible, re-scored against the cached candidates and put back in the list, so a node that can
hold several such pods keeps winning.

As upstream, the cached scores of the other candidates are not refreshed and no new sample is
drawn, so a batched decision may differ from what a full cycle would choose. The state is
flushed when the next pod has another signature, a nominated node, the previous cycle did not
store a result (failed, or another profile's pod came between), the state is older than 500 ms
(on the scheduler's clock), the last chosen node or a cached candidate left the cluster, or a
plugin errs while refreshing.
"""

from __future__ import annotations

import enum
import logging
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..api.features import FeatureGates
from ..api.signing import PodSignature
from ..api.types import CycleState
from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeTable
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework, PluginFailure
from ..runtime.records import CycleRecord

log = logging.getLogger(__name__)

MAX_BATCH_AGE = 0.5  # seconds: kube-scheduler's maxBatchAge
FEATURE_GATE = "OpportunisticBatching"  # beta, on by default since v1.35


def opportunistic_batching_enabled(gates: FeatureGates) -> bool:
    """The OpportunisticBatching feature gate (default on) of the process's `--feature-gates`."""
    return gates.enabled(FEATURE_GATE)


class Flush(enum.Enum):
    """Why the cached batch could not serve a pod (kube-scheduler's batch_cache_flushed_total reasons)."""

    POD_FAILED = "pod_failed"
    POD_SKIPPED = "pod_skipped"
    POD_NOMINATED = "pod_nominated"
    NODE_MISSING = "node_missing"
    EMPTY_LIST = "empty_list"
    EXPIRED = "expired"
    POD_INCOMPATIBLE = "pod_incompatible"
    POD_NOT_BATCHABLE = "pod_not_batchable"
    FILTER_ERROR = "filter_error"
    PRESCORE_ERROR = "prescore_error"
    RESCORE_ERROR = "rescore_error"
    NORMALIZE_ERROR = "normalize_error"


class Attempt(enum.Enum):
    """What batching did for one pod (kube-scheduler's batch_attempts_total results)."""

    NO_HINT = "no_hint"
    HINT_USED = "hint_used"
    HINT_NOT_USED = "hint_not_used"


@dataclass
class ScoredCandidates:
    """A cycle's scored candidates, best first (kube-scheduler's SortedScoredNodes).

    `raw` keeps each score plugin's raw (pre-normalization) scores so a re-scored node can be
    normalized against the others again. Order: total descending, ties in candidate order.
    `version` is the node table's structure version the rows were read at.
    """

    rows: np.ndarray  # table rows, best first
    names: np.ndarray  # node names (object array) aligned with rows
    raw: dict[str, np.ndarray]  # plugin -> raw scores aligned with rows
    totals: np.ndarray
    version: int
    head: int = 0  # entries before head were popped

    @classmethod
    def sorted_from(
        cls, rows: np.ndarray, names: np.ndarray, raw: dict[str, np.ndarray], totals: np.ndarray, version: int
    ) -> ScoredCandidates:
        order = np.argsort(-totals, kind="stable")
        return cls(rows[order], names[order], {p: s[order] for p, s in raw.items()}, totals[order], version)

    def __len__(self) -> int:
        return len(self.names) - self.head

    def pop(self) -> str:
        name = str(self.names[self.head])
        self.head += 1
        return name

    def remaining(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        h = self.head
        return self.rows[h:], self.names[h:], {p: s[h:] for p, s in self.raw.items()}

    def remaining_names(self) -> list[str]:
        return [str(n) for n in self.names[self.head :]]


def names_array(table: NodeTable) -> np.ndarray:
    """The table's node names as an object array, rebuilt only when its structure version moves."""
    return table.cached(_NAMES_KEY, lambda: np.asarray(table.names, dtype=object))


_NAMES_KEY = "kubeberth.batch.names"


@dataclass
class BatchState:
    signature: PodSignature
    candidates: ScoredCandidates
    created: float  # on the scheduler's clock


@dataclass
class LastCycle:
    cycle: int = 0
    chosen_node: str = ""
    succeeded: bool = False


@dataclass
class Hint:
    """The batch's answer for one pod: a node name ("" for none) and, when none, why."""

    node: str = ""
    flush: Flush | None = None
    rescored: bool = False


def clone_state(state: CycleState) -> CycleState:
    """A copy whose writes do not reach `state` (kube-scheduler's CycleState.Clone for rescoring)."""
    out = CycleState()
    out.update(state)
    for attr, value in vars(state).items():  # skip_filter, skip_score, ...: copied, not shared
        setattr(out, attr, value.copy() if isinstance(value, set | dict | list) else value)
    return out


@dataclass
class BatchCounters:
    """One profile's batching counts, kept across generations (kube-scheduler's batch metrics:
    scheduler_batch_attempts_total, scheduler_batch_cache_flushed_total,
    scheduler_batch_rescore_attempts_total), read by /metrics at scrape time."""

    attempts: Counter[Attempt] = field(default_factory=Counter)
    flushes: Counter[Flush] = field(default_factory=Counter)
    rescores: int = 0
    batched_pods: int = 0


class OpportunisticBatch:
    """One profile's batch state; driven by the scheduling thread (GetNodeHint / StoreScheduleResults)."""

    def __init__(
        self,
        framework: Framework,
        cluster: ClusterState,
        handle: Any,
        now: Callable[[], float],
        generic_workload: bool = False,
        counters: BatchCounters | None = None,
    ) -> None:
        self.framework = framework
        self.cluster = cluster
        self.handle = handle
        self.now = now
        self.generic_workload = generic_workload
        self.state: BatchState | None = None
        self.last_cycle = LastCycle()
        self.counters = counters if counters is not None else BatchCounters()
        self.attempts = self.counters.attempts
        self.flushes = self.counters.flushes

    # ---- GetNodeHint --------------------------------------------------------------------
    def get_node_hint(self, pod: PodInfo, signature: PodSignature | None, state: CycleState, cycle: int) -> Hint:
        """The head of the cached candidates for `pod`, after re-checking the node chosen last."""
        flush = self._compatible(pod, signature, cycle)
        if flush is None:
            flush, rescored = self._refresh(pod, state)
        else:
            rescored = False
        if flush is not None:
            self.attempts[Attempt.NO_HINT] += 1
            return Hint("", flush, rescored)
        assert self.state is not None
        return Hint(self.state.candidates.pop(), None, rescored)

    def _flush(self, reason: Flush) -> Flush:
        # As upstream, a flush only reports: the state is replaced by the next stored result.
        self.flushes[reason] += 1
        log.debug("opportunistic batch for profile %s not usable: %s", self.framework.profile, reason.value)
        return reason

    def _empty(self) -> bool:
        return self.state is None or len(self.state.candidates) == 0

    def _compatible(self, pod: PodInfo, signature: PodSignature | None, cycle: int) -> Flush | None:
        """kube-scheduler's batchStateCompatible: None when the cached state may serve `pod`."""
        if self._empty():
            return Flush.EMPTY_LIST  # not counted as a flush: there is nothing to flush
        if cycle != self.last_cycle.cycle + 1 and not (self.generic_workload and cycle == self.last_cycle.cycle):
            return self._flush(Flush.POD_SKIPPED)
        if not self.last_cycle.succeeded:
            return self._flush(Flush.POD_FAILED)
        if pod.nominated_node_name:
            return self._flush(Flush.POD_NOMINATED)
        assert self.state is not None
        if signature is None or signature != self.state.signature:
            return self._flush(Flush.POD_INCOMPATIBLE)
        if self.now() > self.state.created + MAX_BATCH_AGE:
            return self._flush(Flush.EXPIRED)
        return None

    def _refresh(self, pod: PodInfo, state: CycleState) -> tuple[Flush | None, bool]:
        """kube-scheduler's refreshHintCandidates: re-filter the node chosen last; if it still
        fits, re-score it against the cached candidates (rescoreHintedNode)."""
        fw, cluster, table = self.framework, self.cluster, self.cluster.table
        row = table.row_of.get(self.last_cycle.chosen_node)
        if row is None:
            return self._flush(Flush.NODE_MISSING), False
        one = np.asarray([row], dtype=np.int64)
        try:
            fits = bool(fw.run_filters(state, pod, table.view(one), cluster, self.handle)[0])
        except PluginFailure:
            return self._flush(Flush.FILTER_ERROR), False
        if not fits:
            return None, False
        return self._rescore(pod, state, row), True

    def _rescore(self, pod: PodInfo, state: CycleState, last_row: int) -> Flush | None:
        fw, cluster, table = self.framework, self.cluster, self.cluster.table
        self.counters.rescores += 1
        assert self.state is not None
        candidates = self.state.candidates
        rows, names, raw = candidates.remaining()
        if candidates.version != table.version and any(
            table.row_of.get(n) != r for n, r in zip(names.tolist(), rows.tolist(), strict=True)
        ):
            return self._flush(Flush.NODE_MISSING)
        all_rows = np.append(rows, np.int64(last_row))
        rescore_state = clone_state(state)
        view = table.view(all_rows)
        try:
            fw.run_pre_score(rescore_state, pod, view, cluster, self.handle, None)
        except PluginFailure:
            return self._flush(Flush.PRESCORE_ERROR)
        try:
            fresh = fw.run_raw_scores(rescore_state, pod, table.view(all_rows[-1:]), cluster, self.handle, None)
        except PluginFailure:
            return self._flush(Flush.RESCORE_ERROR)
        # Cached scores of a plugin that did not score then count as 0, as upstream's NodeScoreList.
        combined = {
            p: np.append(raw[p] if p in raw else np.zeros(len(rows), dtype=np.int64), s) for p, s in fresh.items()
        }
        try:
            totals, _ = fw.normalize_scores(rescore_state, pod, view, combined)
        except PluginFailure:
            return self._flush(Flush.NORMALIZE_ERROR)
        self.state.candidates = ScoredCandidates.sorted_from(
            all_rows, np.append(names, self.last_cycle.chosen_node), combined, totals, table.version
        )
        return None

    # ---- StoreScheduleResults -----------------------------------------------------------
    def store_schedule_results(
        self,
        signature: PodSignature | None,
        hinted: str,
        chosen: str,
        others: ScoredCandidates | Callable[[], ScoredCandidates | None] | None,
        cycle: int,
    ) -> Attempt | None:
        """Remember the cycle; keep the rest of the list when the hint was taken, else cache this
        cycle's candidates (`others` may be a callable, only called when the pod is signed)."""
        self.last_cycle = LastCycle(cycle, chosen, True)
        if hinted and hinted == chosen:
            self.attempts[Attempt.HINT_USED] += 1
            self.counters.batched_pods += 1
            return Attempt.HINT_USED
        result = None
        if hinted:
            self.attempts[Attempt.HINT_NOT_USED] += 1
            result = Attempt.HINT_NOT_USED
        if signature is not None and callable(others):
            others = others()
        if signature is not None and isinstance(others, ScoredCandidates) and len(others):
            self.state = BatchState(signature, others, self.now())
            return result
        empty = others is None or (isinstance(others, ScoredCandidates) and not len(others))
        self._flush(Flush.EMPTY_LIST if empty else Flush.POD_NOT_BATCHABLE)
        self.state = None
        return result


class BatchAttempt:
    """One cycle's use of the opportunistic batch: the hint it gave, and where the result goes
    (OpportunisticBatch.StoreScheduleResults, noted in the decision record)."""

    __slots__ = ("batch", "signature", "hint", "cycle", "record")

    def __init__(
        self, batch: OpportunisticBatch, signature: PodSignature | None, hint: str, cycle: int, record: CycleRecord | None
    ) -> None:
        self.batch, self.signature, self.hint, self.cycle, self.record = batch, signature, hint, cycle, record

    def store(self, node: str, others: Callable[[], ScoredCandidates | None] | None) -> None:
        attempt = self.batch.store_schedule_results(self.signature, self.hint, node, others, self.cycle)
        record = self.record
        if record is not None and record.batch is not None and attempt is not None:
            record.batch["result"] = attempt.value


def scored_others(table: NodeTable, rows: np.ndarray, raw: Mapping[str, np.ndarray], total: np.ndarray, pick: int) -> ScoredCandidates:
    """The scored candidates other than the one chosen, best first (what the batch keeps)."""
    keep = np.ones(len(rows), dtype=bool)
    keep[pick] = False
    kept = rows[keep]
    names = names_array(table)[kept]
    return ScoredCandidates.sorted_from(kept, names, {p: s[keep] for p, s in raw.items()}, total[keep], table.version)

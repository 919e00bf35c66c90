"""One scheduling cycle (kube-scheduler's schedule_one.go): filter with sampling, score, pick,
then assume, reserve and permit, handing the pod to the binding cycle."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import cast

import numpy as np

from ..api.signing import PodSignature
from ..api.status import Code, Status
from ..api.types import CycleState
from ..cache.nodetable import NodeTable, NodeView
from ..cache.podinfo import MemoKey, PodInfo
from ..runtime.framework import (
    Framework,
    PluginFailure,
    num_feasible_nodes_to_find,
)
from ..runtime.hooks import PluginTimeout
from ..runtime.records import CycleRecord, Diagnosis, ScheduleResult
from .batch import BatchAttempt, BatchCounters, OpportunisticBatch, scored_others
from .decision import record_rejected_nodes, record_top_scores
from .extenders import add_extender_scores, filter_with_extenders, start_prioritize
from .handle import FrameworkHandle
from .incremental import IncrementalCycles, ShapeVerdicts
from .nominated import filter_with_nominated
from .queue import QueuedPod
from .scale_out import SEEN_KEY as SCALE_OUT_SEEN
from .state import CLEAR_NOMINATED_NODE, SchedulerState
from .waiting_pods import WaitingPod

log = logging.getLogger(__name__)


class ScheduleOne(SchedulerState):
    """The scheduling cycle's steps, run by the scheduling thread one pod at a time."""

    # The first pass of the nominated-pod filtering in one batch call where the active filters allow
    # it (see nominated.py); off, node by node: the reference the batch path is tested against.
    nominated_in_batch: bool = True

    def filter_rows(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        rows: np.ndarray,
        diagnosis: Diagnosis | None,
        record: CycleRecord | None,
        nominated: dict[int, list[PodInfo]],
    ) -> np.ndarray:
        """The filters over `rows` (feasible mask), as RunFilterPluginsWithNominatedPods runs them:
        a node with pods nominated there (priority >= this pod's) must pass with them placed and
        without them (nominated.py)."""
        return filter_with_nominated(
            fw, state, pod, rows, self.cluster, self.handle_for(fw), diagnosis, record, nominated, self.nominated_in_batch
        )

    def batch_for(self, fw: Framework) -> OpportunisticBatch:
        """The profile's opportunistic batch (a new generation's framework starts an empty one)."""
        key = fw.profile if self.canary is None else self.canary.cache_key(fw)
        found = self._batches.get(key)
        if found is None or found.framework is not fw:
            found = self._batches[key] = OpportunisticBatch(
                fw, self.cluster, self.handle_for(fw), self.clock.now, fw.feature_gates.enabled("GenericWorkload"),
                self.batch_counters.setdefault(fw.profile, BatchCounters()),
            )
        return found

    def find_node(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        record: CycleRecord | None,
        cycle: int | None = None,
        placement: np.ndarray | None = None,
    ) -> ScheduleResult:
        """Filter and score (kube-scheduler's schedulePod); no state is changed. PreFilter, the
        nominated node (or the batch's hint) alone, then findNodesThatFitPod (`_find_feasible`),
        prioritizeNodes (`_prioritize`) and selectHost (`_select_host`).

        `cycle` (the scheduling cycle's number) turns on opportunistic batching for this call
        when the OpportunisticBatching gate is on; without it (dry runs) the batch is not touched.
        `placement`: the node rows a pod group cycle's placement allows (None: every node)."""
        cluster = self.cluster
        table = cluster.table
        handle = self.handle_for(fw)
        all_rows = table.ordered_rows() if placement is None else placement
        diagnosis = Diagnosis(num_all_nodes=len(all_rows))
        if len(all_rows) == 0:
            diagnosis.pre_filter_msg = "no nodes available to schedule pods"
            return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis)
        status, narrowed = fw.run_pre_filter(state, pod, table.view(all_rows), cluster, handle, record)
        if not status.ok:
            diagnosis.pre_filter_failed(status.plugin, status.message, status.code, all_rows)
            return ScheduleResult(None, Status(status.code, (diagnosis.message(),), status.plugin), diagnosis)
        batch = self._batch_hint(fw, state, pod, cycle, record) if cycle is not None and self.batching else None
        ghosts = cluster.nominated_ghosts(pod) if cluster.nominated else {}
        # kube-scheduler's evaluateNominatedNode: a nominated node (preemption) or the batch's
        # hint is tried alone first; if it passes every filter, it is the only feasible node.
        nominated = pod.nominated_node_name or (batch.hint if batch is not None else "")
        if nominated and self._feasible_alone(fw, state, pod, nominated, placement, narrowed, ghosts, record):
            if batch is not None:
                batch.store(nominated, None)
            return ScheduleResult(nominated, Status.success(), None, 1, 1)
        rows = all_rows if narrowed is None else _narrow(table, state, all_rows, narrowed, diagnosis)
        if not len(rows):
            return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis)
        feasible_rows, evaluated, verdicts = self._find_feasible(fw, state, pod, rows, narrowed, diagnosis, record, ghosts)
        if len(feasible_rows) == 0:
            return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis, evaluated, 0)
        if len(feasible_rows) == 1:
            node = cast(str, table.names[int(feasible_rows[0])])  # a feasible row always has a node
            if batch is not None:
                batch.store(node, None)
            return ScheduleResult(node, Status.success(), diagnosis, evaluated, 1)
        view = table.view(feasible_rows)
        raw, total, per_plugin = self._prioritize(fw, handle, state, pod, view, verdicts, record)
        pick = self._select_host(pod, table, view.rows, total, fw, per_plugin, record)
        node = cast(str, table.names[int(view.rows[pick])])
        if batch is not None:
            batch.store(node, lambda: scored_others(table, view.rows, raw, total, pick))
        return ScheduleResult(node, Status.success(), diagnosis, evaluated, len(feasible_rows))

    def _batch_hint(
        self, fw: Framework, state: CycleState, pod: PodInfo, cycle: int, record: CycleRecord | None
    ) -> BatchAttempt:
        """OpportunisticBatch.GetNodeHint for this cycle, recorded in the decision record."""
        batch = self.batch_for(fw)
        signature, unsigned = self.signature_of(fw, pod)
        t0 = time.time_ns()
        found = batch.get_node_hint(pod, signature, state, cycle)
        hint = found.node
        if record is not None:
            record.batch = {"hint": hint, "rescored": found.rescored}
            if found.flush is not None:
                record.batch["flush"] = found.flush.value
            if unsigned:
                record.batch["unsigned"] = unsigned
            record.step("Batch", "", t0, {"hint": hint})
        return BatchAttempt(batch, signature, hint, cycle, record)

    def _feasible_alone(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        node: str,
        placement: np.ndarray | None,
        narrowed: frozenset[str] | None,
        ghosts: dict[int, list[PodInfo]],
        record: CycleRecord | None,
    ) -> bool:
        """evaluateNominatedNode: `node` (in the placement and PreFilter's result) passes every
        filter and filter extender on its own."""
        table = self.cluster.table
        row = table.row_of.get(node)
        if row is None or (narrowed is not None and node not in narrowed):
            return False
        if placement is not None and row not in set(placement.tolist()):
            return False
        one = np.asarray([row], dtype=np.int64)
        if not self.filter_rows(fw, state, pod, one, None, None, ghosts)[0]:
            return False
        return not fw.extenders or bool(len(filter_with_extenders(fw.extenders, pod, table, one, None, record)))

    def _find_feasible(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        rows: np.ndarray,
        narrowed: frozenset[str] | None,
        diagnosis: Diagnosis,
        record: CycleRecord | None,
        ghosts: dict[int, list[PodInfo]],
    ) -> tuple[np.ndarray, int, ShapeVerdicts | None]:
        """findNodesThatFitPod past PreFilter: up to numFeasibleNodesToFind feasible rows (cut from the
        incremental cycles' known verdicts when they apply), then the filter extenders. Returns the
        rows, how many rows were looked at, and the verdicts used (None: the filters ran)."""
        verdicts = None
        if self.incremental and narrowed is None and not fw.extenders and not self.cluster.nominated:
            verdicts, feasible_rows, processed = self._feasible_from_verdicts(fw, state, pod, rows, record)
        if verdicts is None:
            feasible_rows, processed = self._filter_sampled(fw, state, pod, rows, diagnosis, record, ghosts)
        if fw.extenders and len(feasible_rows):
            feasible_rows = filter_with_extenders(fw.extenders, pod, self.cluster.table, feasible_rows, diagnosis, record)
        return feasible_rows, processed, verdicts

    def _feasible_from_verdicts(
        self, fw: Framework, state: CycleState, pod: PodInfo, rows: np.ndarray, record: CycleRecord | None
    ) -> tuple[ShapeVerdicts | None, np.ndarray, int]:
        """The incremental cycles' sample (kubeberth's exact incremental full cycles); None for the
        verdicts when they do not apply or found no feasible node (a full pass collects every
        rejection for the FitError)."""
        inc = self.incremental_for(fw)
        t0 = time.time_ns()
        refiltered = inc.rows_refiltered
        verdicts = inc.verdicts(pod, state, rows, record)
        if verdicts is None:
            return None, rows, 0
        feasible_rows, processed = self._sample_from(fw, pod, state, rows, verdicts, record)
        if record is not None:
            record.step("Filter", "", t0, {"incremental": True, "refiltered": inc.rows_refiltered - refiltered})
        if not len(feasible_rows):
            return None, rows, 0
        return verdicts, feasible_rows, processed

    def _prioritize(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        state: CycleState,
        pod: PodInfo,
        view: NodeView,
        verdicts: ShapeVerdicts | None,
        record: CycleRecord | None,
    ) -> tuple[Mapping[str, np.ndarray], np.ndarray, Mapping[str, np.ndarray]]:
        """prioritizeNodes: PreScore, the score plugins (node-local ones from the incremental cache
        when it applies) normalized and weighted, plus the prioritize extenders. Returns the raw
        scores, the totals and the weighted scores per plugin."""
        cluster = self.cluster
        table = cluster.table
        prioritizing = start_prioritize(fw.extenders, pod, table, view.rows) if fw.extenders else None
        fw.run_pre_score(state, pod, view, cluster, handle, record)
        inc = self.incremental_for(fw) if verdicts is not None else None
        raw: Mapping[str, np.ndarray]
        per_plugin: Mapping[str, np.ndarray]
        if verdicts is not None and inc is not None and inc.scores_node_local(state):
            raw, total, per_plugin = inc.prioritize(verdicts, pod, state, view, record)
        else:
            raw = fw.run_raw_scores(state, pod, view, cluster, handle, record)
            total, per_plugin = fw.normalize_scores(state, pod, view, raw, record)
        if prioritizing:
            per_plugin = dict(per_plugin)
            add_extender_scores(prioritizing, table, view.rows, total, per_plugin, record)
        return raw, total, per_plugin

    def _select_host(
        self,
        pod: PodInfo,
        table: NodeTable,
        rows: np.ndarray,
        total: np.ndarray,
        fw: Framework,
        per_plugin: Mapping[str, np.ndarray],
        record: CycleRecord | None,
    ) -> int:
        """selectHost: the best total; a tie goes to the tie breaker, else the seeded RNG. Returns
        the chosen candidate's index; the record keeps the top scores."""
        best = total.max()
        ties = np.flatnonzero(total == best)
        if len(ties) == 1:
            pick = int(ties[0])
        elif self.tie_breaker is not None:
            names = cast("list[str]", [table.names[int(rows[i])] for i in ties.tolist()])
            chosen = self.tie_breaker(pod, names)
            pick = int(ties[names.index(chosen)]) if chosen in names else int(ties[0])
        else:
            pick = int(ties[self.rng.integers(len(ties))])
        if record is not None:
            record_top_scores(record, fw, table, rows, total, per_plugin, ties, pick)
        return pick

    def signature_of(self, fw: Framework, pod: PodInfo) -> tuple[PodSignature | None, str]:
        """The pod's signature for this profile, computed once per pod object (an update is a new
        one) while the DeviceClasses stay the same (a pod requesting an extended resource a class
        serves is not signed)."""
        found = _SIGNATURE.get(pod)
        classes = self.cluster.devices.classes_version
        if found is None or found[0] is not fw or found[1] != classes:
            found = _SIGNATURE.set(pod, (fw, classes, *fw.sign_pod(pod, self.cluster)))
        return found[2], found[3]

    def incremental_for(self, fw: Framework) -> IncrementalCycles:
        """The profile's incremental-cycle cache (a new generation's framework starts empty)."""
        key = fw.profile if self.canary is None else self.canary.cache_key(fw)
        found = self._incremental.get(key)
        if found is None or found.framework is not fw:
            found = self._incremental[key] = IncrementalCycles(fw, self.cluster, self.handle_for(fw))
        return found

    def _sample_from(
        self, fw: Framework, pod: PodInfo, state: CycleState, rows: np.ndarray, verdicts: ShapeVerdicts,
        record: CycleRecord | None,
    ) -> tuple[np.ndarray, int]:
        """`_filter_sampled`'s result cut from known verdicts: the first numFeasibleNodesToFind
        feasible rows from the rotating start, and how many rows that took."""
        n = len(rows)
        want = num_feasible_nodes_to_find(n, fw.percentage_of_nodes_to_score)
        start = self.next_start_index % n
        inc = self.incremental_for(fw)
        taken, taken_rows, processed = inc.window(verdicts, pod, state, rows, start, want)
        if len(taken):  # an unschedulable pod takes the full pass (and moves the start there)
            self.next_start_index = (start + processed) % n
            if record is not None and len(verdicts.reason_sets) > 1:  # some node was ever rejected
                looked = (start + np.arange(processed)) % n
                inc.record_rejections(verdicts, rows[looked], record)
        return taken_rows, processed

    def _filter_sampled(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        rows: np.ndarray,
        diagnosis: Diagnosis,
        record: CycleRecord | None,
        nominated: dict[int, list[PodInfo]],
    ) -> tuple[np.ndarray, int]:
        """Find up to numFeasibleNodesToFind feasible nodes, starting where the last cycle stopped."""
        n = len(rows)
        want = num_feasible_nodes_to_find(n, fw.percentage_of_nodes_to_score)
        start = self.next_start_index % n
        rotated = np.concatenate([rows[start:], rows[:start]]) if start else rows
        found: list[np.ndarray] = []
        count = 0
        pos = 0
        # Some candidates usually fail a filter (taints, selectors), so a first chunk of exactly
        # `want` nodes nearly always needs a second pass over every filter; starting half again
        # as large saves that pass. The result is unchanged: hits are trimmed to the first `want`
        # in rotated order and `processed` counts only the nodes up to the last one kept.
        chunk = want + want // 2
        processed = n
        while pos < n and count < want:
            sub = rotated[pos : pos + chunk]
            mask = self.filter_rows(fw, state, pod, sub, diagnosis, record, nominated)
            hits = sub[mask]
            if count + len(hits) >= want:
                need = want - count
                hits = hits[:need]
                processed = pos + int(np.flatnonzero(mask)[need - 1]) + 1
            found.append(hits)
            count += len(hits)
            pos += len(sub)
            chunk *= 2
        if count < want:
            processed = n
        self.next_start_index = (start + processed) % n
        feasible = np.concatenate(found) if found else np.empty(0, dtype=np.int64)
        return feasible, processed

    def schedule_one(self, entry: QueuedPod) -> None:
        pod = entry.pod
        self.scheduling_cycle += 1  # kube-scheduler's SchedulingQueue.SchedulingCycle(), bumped per pop
        fw = self.framework_for(pod)
        if fw is None:
            self.queue.done(pod.uid)
            return
        if pod.pod_group and fw.feature_gates.enabled("GenericWorkload") and self.schedule_pod_group(fw, entry):
            return  # kube-scheduler's scheduleOnePodGroup (podgroup_cycle.py)
        self.stats.attempts += 1
        t0 = time.perf_counter()
        record = CycleRecord(pod.key, pod.uid, fw.profile, fw.generation_id)
        record.attempt = entry.attempts
        record.first_attempt_ns = entry.extra.setdefault("first_attempt_ns", record.start_ns)
        if entry.waited:
            record.queue, entry.waited = entry.waited, {}
        record.requeued_by, entry.requeued_by = entry.requeued_by, ""
        state = CycleState()
        handle = self.handle_for(fw)
        shadow = self.shadow  # a candidate generation deciding beside this one (shadow.py)
        token = shadow.before(self, pod) if shadow is not None else None
        canary = self.canary  # a candidate generation scheduling a share of the pods (canary.py)
        canary_token = canary.before(self, pod, fw) if canary is not None else None
        try:
            result = self.find_node(fw, state, pod, record, self.scheduling_cycle)
            record.evaluated_nodes, record.feasible_nodes = result.evaluated, result.feasible
            if result.node is None:
                self._handle_unschedulable(fw, state, entry, result, record)
            else:
                self._assume_reserve_permit(fw, handle, state, entry, result.node, record)
        except PluginFailure as failure:
            self.stats.errors += 1
            record.result, record.message = "Error", failure.status.message
            record.error_plugin = failure.status.plugin
            self._requeue_error(entry, failure.status.message, clear_nomination=True)
        except PluginTimeout as timeout:  # the watchdog's, delivered just past the plugin call (C-blocked)
            self.stats.errors += 1
            record.result = "Error"
            record.message = f"scheduling cycle interrupted past the plugin call: PluginTimeout: {timeout}"
            self._requeue_error(entry, record.message, clear_nomination=True)
        finally:
            record.end_ns = time.time_ns()
            elapsed = time.perf_counter() - t0
            self.stats.cycle_seconds += elapsed
            self.records.append(record)
            for observer in self.observers:
                observer(record)
            if shadow is not None:  # after the live decision: its pod is already handed to binding
                shadow.after(self, fw, pod, record, token, elapsed)
            if canary is not None:  # counts the cycle on its side, compares it, judges the canary
                canary.after(self, fw, pod, record, canary_token, elapsed)

    def _handle_unschedulable(
        self, fw: Framework, state: CycleState, entry: QueuedPod, result: ScheduleResult, record: CycleRecord
    ) -> None:
        pod = entry.pod
        diagnosis = result.diagnosis or Diagnosis(0)
        # schedulingAlgorithm: with no node at all (ErrNoNodesAvailable) or no PostFilter plugin, the result is
        # clearNominatedNode (a nomination the pod had is dropped); otherwise PostFilter's NominatingInfo.
        nominated: str | None = None
        write_nominated: str | None = CLEAR_NOMINATED_NODE
        if fw.points.get("post_filter") and diagnosis.num_all_nodes:
            nominated, post_status, write_nominated = self._run_post_filter(fw, state, pod, diagnosis, record)
            if nominated:
                self.stats.preemptions += 1
            if post_status.message:  # kube-scheduler keeps PostFilter's message, success or not
                diagnosis.post_filter_msg = post_status.message
        message = diagnosis.message()
        self.stats.unschedulable_attempts += 1
        record.result, record.message = "Unschedulable", message
        if diagnosis.rejections:
            record_rejected_nodes(record, diagnosis, self.cluster.table.names)
        if nominated:
            record.message = f"{message} (nominated node {nominated})"
        plugins = frozenset(diagnosis.unschedulable_plugins)
        self._requeue_unschedulable(entry, message, plugins, write_nominated, update_pod=True)

    def _run_post_filter(
        self, fw: Framework, state: CycleState, pod: PodInfo, diagnosis: Diagnosis, record: CycleRecord
    ) -> tuple[str | None, Status, str | None]:
        """PostFilter with the preemptor's own nomination held back: kube-scheduler writes it in
        handleSchedulingFailure's updatePod, one status patch with the Unschedulable condition.
        Returns run_post_filter's pair and the held nomination (None: none to write). If PostFilter
        fails, a nomination it made is written at once."""
        handle = self.handle_for(fw)
        handle.hold_nomination(pod)
        try:
            nominated, post_status = fw.run_post_filter(state, pod, self.cluster, handle, diagnosis, record)
        except BaseException:
            held = handle.take_nomination()
            if held is not None:
                self.backend.set_nominated_node(pod, held or None)
            raise
        return nominated, post_status, handle.take_nomination()

    def _assume_reserve_permit(
        self, fw: Framework, handle: FrameworkHandle, state: CycleState, entry: QueuedPod, node: str, record: CycleRecord
    ) -> None:
        pod = entry.pod
        self.cluster.assume(pod, node)
        t0 = time.time_ns()
        status = fw.run_reserve(state, pod, node, self.cluster, handle)
        record.step("Reserve", "", t0, {"code": status.code.name})
        if status.ok:
            t0 = time.time_ns()
            status, waits = fw.run_permit(state, pod, node, handle)
            record.step("Permit", "", t0, {"code": "WAIT" if waits and status.ok else status.code.name})
        else:
            waits = {}
        if not status.ok:
            fw.run_unreserve(state, pod, node, self.cluster, handle)
            self.cluster.forget(pod)
            if not status.is_rejected:
                self.stats.errors += 1
                record.result, record.message = "Error", status.message
                record.error_plugin = status.plugin
                self._requeue_error(entry, status.message, clear_nomination=True)
            else:
                # kube-scheduler reports a Reserve or Permit rejection as a FitError over the one node, and
                # schedulingCycle's result for it is clearNominatedNode.
                message = Diagnosis.one_node(status).message()
                self.stats.unschedulable_attempts += 1
                record.result, record.message = "Unschedulable", message
                self._requeue_unschedulable(entry, message, frozenset({status.plugin}), CLEAR_NOMINATED_NODE,
                                            update_pod=True)
            return
        waiting = None
        if waits:
            waiting = WaitingPod(pod, waits, self.clock.now, self.clock.virtual)
            self.waiting_pods[pod.uid] = waiting
        record.result, record.node = "Scheduled", node
        if self.scale_out is not None:  # what this cycle knew of the node, for the commit
            entry.extra[SCALE_OUT_SEEN] = self.scale_out.cycle_view(pod, node)
        self.in_flight += 1
        self.pool.submit(self._binding_cycle, fw, handle, state, entry, node, waiting, record)


def _narrow(
    table: NodeTable, state: CycleState, rows: np.ndarray, narrowed: frozenset[str], diagnosis: Diagnosis
) -> np.ndarray:
    """The rows PreFilter's result keeps. kube-scheduler: the nodes a PreFilterResult left out are
    UnschedulableAndUnresolvable, counted in the FitError as `didn't satisfy plugin(s) [<plugins
    that narrowed>]`."""
    keep = np.fromiter((table.names[r] in narrowed for r in rows.tolist()), dtype=bool, count=len(rows))
    if not keep.all():
        reason = state.narrowed_reason()
        diagnosis.add(min(state.narrowed_by), reason, rows[~keep], Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        diagnosis.unschedulable_plugins.update(state.narrowed_by)
    return rows[keep]


_SIGNATURE: MemoKey[tuple[Framework, int, PodSignature | None, str]] = MemoKey("kubeberth.signature")

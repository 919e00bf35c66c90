"""TaintToleration: NoSchedule/NoExecute taints filter; untolerated PreferNoSchedule taints score.

Batch form: each distinct interned taint set among the candidates is checked once against the
pod's tolerations and the answer broadcast to the rows carrying that set.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from kubeberth import (
    Code,
    CycleState,
    FilterResult,
    FilterScope,
    MemoKey,
    NodeTableView,
    NodeView,
    PodView,
    ScoreScope,
    Status,
    Taint,
    Toleration,
    hookimpl,
)
from kubeberth.api.helpers import default_normalize_score, first_untolerated
from kubeberth.api.signing import TOLERATIONS_SIGNER, SignFragment, tolerations_signer

_FILTER_KEY = "TaintToleration.filter"
_SCORE_KEY = "TaintToleration.score"
# kube-scheduler's preScoreStateKey: the pod's PreferNoSchedule tolerations, written by PreScore.
PRE_SCORE_KEY = "PreScoreTaintToleration"


# kube-scheduler v1.37 reports every untolerated taint with this one text, so all such nodes
# fall into one bucket of the `0/N nodes are available` message.
REASON = "node(s) had untolerated taint(s)"


class _TaintSetVerdicts:
    """Per interned taint set: 1 if one tolerations tuple leaves a NoSchedule/NoExecute taint untolerated.

    Shared by every pod with the same tolerations; extended when new taint sets are interned
    (ids are never reused), so a filter call is one gather over the candidate rows.
    """

    __slots__ = ("tolerations", "codes")

    def __init__(self, tolerations: tuple) -> None:
        self.tolerations = tolerations
        self.codes = np.zeros(0, dtype=np.bool_)

    def update(self, sets: Sequence[Any]) -> np.ndarray:
        done = self.codes.shape[0]
        if done < len(sets):
            extra = np.asarray(
                [first_untolerated(sets[i], self.tolerations) is not None for i in range(done, len(sets))],
                dtype=np.bool_,
            )
            self.codes = np.concatenate([self.codes, extra])
        return self.codes


def tolerations_prefer_no_schedule(tolerations: Sequence[Toleration]) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: the tolerations with effect PreferNoSchedule or none (all effects)."""
    if not tolerations:
        return ()
    return tuple([t for t in tolerations if t.effect in ("", "PreferNoSchedule")])


def _node_taints(node: Any) -> list[Taint]:
    return [Taint(t.get("key", ""), t.get("value") or "", t.get("effect", "")) for t in (node.get("spec") or {}).get("taints") or ()]


class TaintToleration:
    name = "TaintToleration"
    score_scope = ScoreScope.NODE  # raw score: the pod and this node's row only
    filter_scope = FilterScope.NODE
    # EventsToRegister: nodes added or re-tainted, and the pending pod getting a toleration.
    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/UpdateNodeTaint": "is_schedulable_after_node_change",
        "TargetPod/UpdatePodToleration": "is_schedulable_after_target_pod_toleration_change",
    }
    requeue_on = frozenset(queueing_hints)

    def is_schedulable_after_target_pod_toleration_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterTargetPodTolerationChange: a toleration added to the rejected pod may make it
        schedulable (always Queue)."""
        return True

    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: the node now tolerated had an untolerated NoSchedule/NoExecute taint."""
        is_untolerated = first_untolerated(_node_taints(new), pod.tolerations) is not None
        was_untolerated = old is None or first_untolerated(_node_taints(old), pod.tolerations) is not None
        return was_untolerated and not is_untolerated

    def __init__(self) -> None:
        # Per instance: a reloaded generation's plugin must not see this one's answers.
        self._filter_key: MemoKey[tuple[NodeTableView, _TaintSetVerdicts]] = MemoKey(_FILTER_KEY)
        self._score_key: MemoKey[tuple[NodeTableView, list[np.ndarray]]] = MemoKey(_SCORE_KEY)
        self._verdicts: weakref.WeakKeyDictionary[NodeTableView, dict[tuple, _TaintSetVerdicts]] = (
            weakref.WeakKeyDictionary()
        )
        self._score_counts: weakref.WeakKeyDictionary[NodeTableView, dict[tuple, list[np.ndarray]]] = (
            weakref.WeakKeyDictionary()
        )

    def _verdicts_for(self, pod: PodView, table: NodeTableView) -> _TaintSetVerdicts:
        found = self._filter_key.get(pod)
        if found is None or found[0] is not table:
            per_table = self._verdicts.get(table)
            if per_table is None:
                per_table = self._verdicts[table] = {}
            verdicts = per_table.get(pod.tolerations)
            if verdicts is None:
                verdicts = per_table[pod.tolerations] = _TaintSetVerdicts(pod.tolerations)
            found = self._filter_key.set(pod, (table, verdicts))
        return found[1]

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's TaintToleration.SignPod: the pod's tolerations."""
        return [SignFragment(TOLERATIONS_SIGNER, tolerations_signer(pod))]

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult:
        table = nodes.table
        verdicts = self._verdicts_for(pod, table)
        codes = verdicts.update(table.taint_sets.values)[table.taint_set[nodes.rows]]
        if not codes.any():
            return FilterResult.all_pass(len(nodes))
        return FilterResult.from_rejections(len(nodes), {REASON: codes}, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @hookimpl
    def pre_score(self, state: CycleState, pod: PodView) -> Status | None:
        """kube-scheduler's TaintToleration.PreScore: the pod's tolerations with effect PreferNoSchedule or
        none (getAllTolerationPreferNoSchedule), once per cycle, for Score. Never skips, as upstream."""
        state[PRE_SCORE_KEY] = tolerations_prefer_no_schedule(pod.tolerations)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: PodView, nodes: NodeView) -> np.ndarray | Status:
        """TaintToleration.Score: count of PreferNoSchedule taints not tolerated by the PreScore state's
        tolerations; an Error when PreScore did not run (getPreScoreState)."""
        tolerations: tuple[Toleration, ...] | None = state.get(PRE_SCORE_KEY)
        if tolerations is None:
            return Status.error(f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found')
        table = nodes.table
        found = self._score_key.get(pod)
        if found is None or found[0] is not table:
            per_table = self._score_counts.get(table)
            if per_table is None:
                per_table = self._score_counts[table] = {}
            counts = per_table.get(tolerations)
            if counts is None:
                counts = per_table[tolerations] = [np.zeros(0, dtype=np.int64)]
            found = self._score_key.set(pod, (table, counts))
        counts = found[1]  # [per taint set count], shared by pods with the same PreferNoSchedule tolerations
        sets = table.taint_sets.values
        per_set = counts[0]
        if per_set.shape[0] < len(sets):
            extra = [
                sum(
                    1
                    for taint in sets[set_id]
                    if taint.effect == "PreferNoSchedule"
                    and not any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)
                )
                for set_id in range(per_set.shape[0], len(sets))
            ]
            per_set = counts[0] = np.concatenate([per_set, np.asarray(extra, dtype=np.int64)])
        return per_set[table.taint_set[nodes.rows]]

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return default_normalize_score(scores, reverse=True)

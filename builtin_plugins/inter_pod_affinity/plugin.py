"""InterPodAffinity: required pod (anti-)affinity filter, preferred terms score.

Batch form: the incoming pod's terms are evaluated once per placed-pod (namespace, labels) group
(cluster.label_counts); placed pods' own terms live in an incremental index that keeps, per
distinct term, how many placed pods carry it on each node row. Both give per-row counts that are
folded into topology domains with np.bincount, so no cycle walks the placed pods.

Mirrors kube-scheduler's interpodaffinity/plugin.go (args, events, queueing hints, SignPod); the
extension points' bodies are in filtering.py and scoring.py, as upstream's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import (
    ClusterView,
    CycleState,
    FilterResult,
    NodeView,
    PodView,
    PreFilterState,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import SelectorError, alive_rows, pod_state_version
from kubeberth.api.signing import LABELS_SIGNER, SignFragment
from pydantic import BaseModel, ConfigDict, Field

from . import filtering
from .filtering import PRE_FILTER_KEY
from .index import INDEX_KEY, ExistingTermIndex, matching_entries
from .scoring import PRE_SCORE_KEY, normalize, pre_score_state
from .terms import REQ_ANTI, AffinityTerm, PodTerms, namespace_labels, pod_terms


class InterPodAffinityArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hardPodAffinityWeight: int = Field(default=1, ge=0, le=100)
    ignorePreferredTermsOfExistingPods: bool = False


class InterPodAffinity:
    name = "InterPodAffinity"
    pre_filter_state = PreFilterState.SELF_UPDATING
    Args = InterPodAffinityArgs
    pod_indexes = {INDEX_KEY: ExistingTermIndex}

    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/UpdateNodeLabel": "is_schedulable_after_node_change",
        "Pod/Add": "is_schedulable_after_assigned_pod_change",
        "Pod/UpdatePodLabel": "is_schedulable_after_assigned_pod_change",
        "Pod/Delete": "is_schedulable_after_assigned_pod_change",
    }
    # EventsToRegister: the hinted events, and the pending pod's own labels changing (always Queue:
    # another pod's anti-affinity may have selected its old labels: isSchedulableAfterTargetPodUpdateLabel).
    requeue_on = frozenset({*queueing_hints, "TargetPod/UpdatePodLabel"})

    def __init__(self, args: InterPodAffinityArgs | None = None) -> None:
        self.args = args or InterPodAffinityArgs()

    # ---- queueing hints -----------------------------------------------------------------
    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: a node gained (or, for a new node, has) a required affinity term's
        topology key, lost a required anti-affinity term's key, or moved to another domain of either; any new
        node may help anti-affinity."""
        terms = pod_terms(pod)
        new_labels = (new.get("metadata") or {}).get("labels") or {}
        old_labels = None if old is None else (old.get("metadata") or {}).get("labels") or {}
        for term in terms.required_affinity:
            key = term.topology_key
            if old_labels is None:
                if key in new_labels:
                    return True
                continue
            if key in new_labels and (key not in old_labels or old_labels[key] != new_labels[key]):
                return True
        for term in terms.required_anti:
            key = term.topology_key
            if old_labels is None:
                return True
            if key in old_labels and (key not in new_labels or old_labels[key] != new_labels[key]):
                return True
        return False

    def is_schedulable_after_assigned_pod_change(
        self, pod: PodView, old: PodView | None, new: PodView | None
    ) -> bool:
        """isSchedulableAfterAssignedPodChange: a placed pod now matches all required affinity terms, no longer
        matches an anti-affinity term, or was deleted while it matched one (or its own anti-affinity, the pod)."""
        for other in (old, new):
            if other is not None and not (other.node_name or other.nominated_node_name):
                return False

        def all_match(terms: tuple[AffinityTerm, ...], other: PodView) -> bool:
            return bool(terms) and all(t.matches(other.namespace, other.labels, {}) for t in terms)

        def any_match(terms: tuple[AffinityTerm, ...], other: PodView) -> bool:
            return any(t.matches(other.namespace, other.labels, {}) for t in terms)

        terms = pod_terms(pod)
        if old is not None and new is not None:
            if not all_match(terms.required_affinity, old) and all_match(terms.required_affinity, new):
                return True
            return any_match(terms.required_anti, old) and not any_match(terms.required_anti, new)
        if new is not None:
            return all_match(terms.required_affinity, new)
        assert old is not None
        return any_match(terms.required_anti, old) or any_match(pod_terms(old).required_anti, pod)

    # ---- filter -------------------------------------------------------------------------
    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment] | Status | None:
        """kube-scheduler's InterPodAffinity.SignPod: a pod with pod (anti-)affinity is unsignable;
        otherwise its labels (existing pods' terms may match them), unless
        ignorePreferredTermsOfExistingPods makes only pods with terms matter."""
        affinity = pod.affinity or {}
        if affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None:
            return Status.unschedulable("pods with InterPodAffinity are not signable")
        if self.args.ignorePreferredTermsOfExistingPods:
            return None
        return [SignFragment(LABELS_SIGNER, pod.labels)]

    def _pre_filter_state(self, pod: PodView, terms: PodTerms, cluster: ClusterView) -> filtering.PreFilterState:
        return filtering.pre_filter_state(pod, terms, cluster)

    @hookimpl
    def pre_filter(self, state: CycleState, pod: PodView, cluster: ClusterView) -> Status | None:
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status.unschedulable(f"parsing pod: {exc}", unresolvable=True)
        if not terms.required_affinity and not terms.required_anti:
            index: ExistingTermIndex = cluster.index(INDEX_KEY, ExistingTermIndex)
            if not matching_entries(index, REQ_ANTI, pod, namespace_labels(cluster, pod.namespace)):
                return Status.skip()  # no placed pod's required anti-affinity term selects this pod
        computed = filtering.pre_filter_state(pod, terms, cluster)
        if not computed.existing and not terms.required_affinity and not terms.required_anti:
            return Status.skip()
        state[PRE_FILTER_KEY] = computed
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | Status:
        computed: filtering.PreFilterState | None = state.get(PRE_FILTER_KEY)
        if computed is None or computed.version != pod_state_version(cluster):
            try:
                terms = pod_terms(pod)
            except SelectorError as exc:
                return Status.unschedulable(f"parsing pod: {exc}", unresolvable=True)
            computed = filtering.pre_filter_state(pod, terms, cluster)
            state[PRE_FILTER_KEY] = computed
        return filtering.filter_rows(computed, nodes.rows)

    # ---- score --------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView) -> Status | None:
        if len(nodes) == 0:
            return Status.skip()
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status.error(f"failed to parse pod: {exc}")
        has_constraints = bool(terms.preferred_affinity or terms.preferred_anti)
        if self.args.ignorePreferredTermsOfExistingPods and not has_constraints:
            return Status.skip()
        padded = pre_score_state(pod, terms, cluster, alive_rows(cluster.table), self.args.hardPodAffinityWeight)
        if padded is None:
            return Status.skip()
        state[PRE_SCORE_KEY] = padded
        return None

    @hookimpl
    def score(self, state: CycleState, nodes: NodeView) -> np.ndarray:
        total = np.zeros(len(nodes), dtype=np.int64)
        for ids_all, dom in state[PRE_SCORE_KEY]:
            total += dom[ids_all[nodes.rows]]  # id -1 reads the trailing 0
        return total

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return normalize(scores)

"""InterPodAffinity's PreFilter state and Filter (kube-scheduler's interpodaffinity/filtering.go).

The state holds, per required term of the incoming pod and per topology key of placed pods' required
anti-affinity terms selecting it, the topology-domain ids of every node row and a count per domain;
Filter is a gather per term over the candidate rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from kubeberth import ClusterView, Code, FilterResult, PodView, Rejection
from kubeberth.api.helpers import alive_rows, group_columns, pod_state_version

from .common import add_padded, counts_for_groups, group_mask, lookup, per_domain, self_matches
from .index import INDEX_KEY, ExistingTermIndex, existing_per_domain, matching_entries
from .terms import REQ_ANTI, PodTerms, namespace_labels

ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
PRE_FILTER_KEY = "InterPodAffinity.preFilter"


@dataclass
class PreFilterState:
    """preFilterState: the per-domain counts Filter reads, valid for one pod_state_version."""

    version: tuple[int, int]
    affinity: list[tuple[np.ndarray, np.ndarray]]  # per required affinity term: (ids, per-domain count)
    affinity_any: bool
    self_match: bool
    anti: list[tuple[np.ndarray, np.ndarray]]  # per required anti-affinity term: (ids, per-domain count)
    # per topology key: (ids, per-domain count of placed pods' anti-affinity terms selecting the pod)
    existing: list[tuple[np.ndarray, np.ndarray]]


def existing_anti_affinity_counts(
    pod: PodView, cluster: ClusterView, rows: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """getExistingAntiAffinityCounts: per topology key, placed pods' required anti-affinity terms
    that select the pod, counted per domain."""
    table = cluster.table
    index: ExistingTermIndex = cluster.index(INDEX_KEY, ExistingTermIndex)
    ns_labels = namespace_labels(cluster, pod.namespace)
    count_by_key: dict[str, np.ndarray] = {}
    for term, _w, key in matching_entries(index, REQ_ANTI, pod, ns_labels):
        dom = existing_per_domain(index, key, table, rows)
        if dom.any():
            prev = count_by_key.get(term.topology_key)
            count_by_key[term.topology_key] = dom if prev is None else add_padded(prev, dom)
    return [(table.label_values(k)[0], c) for k, c in count_by_key.items()]


def pre_filter_state(pod: PodView, terms: PodTerms, cluster: ClusterView) -> PreFilterState:
    """PreFilter's computation: existing anti-affinity counts and getIncomingAffinityAntiAffinityCounts."""
    table = cluster.table
    rows = alive_rows(table)
    existing = existing_anti_affinity_counts(pod, cluster, rows)
    affinity: list[tuple[np.ndarray, np.ndarray]] = []
    affinity_any = False
    self_match = False
    if terms.required_affinity:
        groups = np.ones(len(group_columns(cluster)), dtype=bool)
        for term in terms.required_affinity:
            groups &= group_mask(cluster, term)
        per_row = counts_for_groups(cluster, groups)
        for term in terms.required_affinity:
            ids, dom = per_domain(table, rows, per_row, term.topology_key)
            affinity_any |= bool(dom.any())
            affinity.append((ids, dom))
        self_match = all(self_matches(cluster, pod, t) for t in terms.required_affinity)
    anti = []
    for term in terms.required_anti:
        per_row = counts_for_groups(cluster, group_mask(cluster, term))
        ids, dom = per_domain(table, rows, per_row, term.topology_key)
        anti.append((ids, dom))
    return PreFilterState(pod_state_version(cluster), affinity, affinity_any, self_match, anti, existing)


def filter_rows(computed: PreFilterState, rows: np.ndarray) -> FilterResult:
    """Filter over the candidate rows: satisfiesPodsAffinityAntiAffinity, satisfiesExistingPodsAntiAffinity."""
    n = rows.shape[0]
    missing = np.zeros(n, dtype=bool)
    pods_exist = np.ones(n, dtype=bool)
    for ids_all, dom in computed.affinity:
        ids = ids_all[rows]
        missing |= ids < 0
        pods_exist &= dom[ids] > 0
    if not computed.affinity_any and computed.self_match:
        pods_exist[:] = True
    fail_affinity = missing | ~pods_exist
    fail_anti = np.zeros(n, dtype=bool)
    for ids_all, count in computed.anti:
        fail_anti |= lookup(count, ids_all[rows], 0) > 0
    fail_existing = np.zeros(n, dtype=bool)
    for ids_all, count in computed.existing:
        fail_existing |= lookup(count, ids_all[rows], 0) > 0
    fail_anti &= ~fail_affinity
    fail_existing &= ~(fail_affinity | fail_anti)
    rejections = [
        Rejection(reason, mask, code)
        for reason, mask, code in (
            (ERR_REASON_AFFINITY, fail_affinity, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
            (ERR_REASON_ANTI_AFFINITY, fail_anti, Code.UNSCHEDULABLE),
            (ERR_REASON_EXISTING_ANTI_AFFINITY, fail_existing, Code.UNSCHEDULABLE),
        )
        if mask.any()
    ]
    return FilterResult(~(fail_affinity | fail_anti | fail_existing), rejections)

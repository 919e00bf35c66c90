"""PodTopologySpread's PreFilter state and Filter (kube-scheduler's podtopologyspread/filtering.go).

Matching pods are counted per node row from cluster.label_counts (the selector is evaluated once per
(namespace, labels) group) and summed per topology domain with np.bincount over
table.label_values(topologyKey); the per-node checks are then array lookups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from kubeberth import ClusterView, Code, FilterResult, PodView, Rejection
from kubeberth.api.helpers import alive_rows, domain_sums, pod_state_version

from .common import SpreadConstraint, inclusion, pod_counts

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
PRE_FILTER_KEY = "PodTopologySpread.preFilter"
_MAX_INT32 = 2**31 - 1


@dataclass
class HardConstraint:
    """One DoNotSchedule constraint's per-domain counts (preFilterState's TpValueToMatchNum and criticalPaths)."""

    constraint: SpreadConstraint
    ids: np.ndarray  # domain id per table row (-1: no label)
    per_domain: np.ndarray  # matching pods per domain id, plus a trailing 0
    min_match: int
    self_match: int
    present: np.ndarray  # bool per domain id: an eligible node is in the domain (the domains that count)


@dataclass
class PreFilterState:
    """preFilterState, valid for one pod_state_version."""

    version: tuple[int, int]
    constraints: list[HardConstraint]


def _hard_constraint(
    pod: PodView, cluster: ClusterView, c: SpreadConstraint, rows: np.ndarray, eligible: np.ndarray
) -> HardConstraint:
    """calPreFilterState for one constraint: matching pods per domain over the eligible rows."""
    ids, values = cluster.table.label_values(c.topology_key)
    erows = rows[eligible]
    counts = pod_counts(cluster, c.selector, pod.namespace)
    dom = ids[erows]
    per_domain = np.zeros(len(values) + 1, dtype=np.int64)
    per_domain[: len(values)] = domain_sums(dom, counts[erows], len(values))
    present = np.zeros(len(values) + 1, dtype=bool)
    present[dom] = True
    n_domains = int(present.sum())
    min_match = int(per_domain[present].min()) if n_domains else _MAX_INT32
    if n_domains < c.min_domains:
        min_match = 0
    return HardConstraint(c, ids, per_domain, min_match, int(c.selector.matches(pod.labels)), present)


def pre_filter_state(pod: PodView, cluster: ClusterView, constraints: list[SpreadConstraint]) -> PreFilterState:
    """calPreFilterState: per hard constraint, the counts over nodes carrying every constraint's key
    that the constraint's inclusion policies admit."""
    table = cluster.table
    if not constraints:
        return PreFilterState(pod_state_version(cluster), [])
    rows = alive_rows(table)
    has_all = np.ones(rows.shape[0], dtype=bool)
    for c in constraints:
        has_all &= table.label_values(c.topology_key)[0][rows] >= 0
    affinity_ok, taints_ok = inclusion(pod, table, rows, constraints)
    hard = []
    for c in constraints:
        eligible = has_all.copy()
        if c.honor_affinity:
            eligible &= affinity_ok
        if c.honor_taints:
            eligible &= taints_ok
        hard.append(_hard_constraint(pod, cluster, c, rows, eligible))
    return PreFilterState(pod_state_version(cluster), hard)


def filter_rows(computed: PreFilterState, rows: np.ndarray) -> FilterResult:
    """Filter over the candidate rows: a node lacking a key is unresolvable, one whose domain would
    exceed maxSkew unschedulable (the first failing constraint decides)."""
    n = rows.shape[0]
    undecided = np.ones(n, dtype=bool)
    missing = np.zeros(n, dtype=bool)
    skewed = np.zeros(n, dtype=bool)
    for hc in computed.constraints:
        ids = hc.ids[rows]
        has = ids >= 0
        match = hc.per_domain[ids]  # id -1 reads the trailing zero
        skew = match + hc.self_match - hc.min_match
        miss = undecided & ~has
        fail = undecided & has & (skew > hc.constraint.max_skew)
        missing |= miss
        skewed |= fail
        undecided &= ~(miss | fail)
    rejections = []
    if missing.any():
        rejections.append(Rejection(ERR_REASON_NODE_LABEL_NOT_MATCH, missing, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    if skewed.any():
        rejections.append(Rejection(ERR_REASON_CONSTRAINTS_NOT_MATCH, skewed, Code.UNSCHEDULABLE))
    return FilterResult(undecided, rejections)

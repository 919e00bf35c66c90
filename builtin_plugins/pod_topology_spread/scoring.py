"""PodTopologySpread's PreScore, Score and NormalizeScore (kube-scheduler's podtopologyspread/scoring.go)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from kubeberth import MAX_NODE_SCORE, ClusterView, PodView
from kubeberth.api.helpers import HOSTNAME_LABEL, alive_rows, domain_sums

from .common import SpreadConstraint, inclusion, pod_counts

PRE_SCORE_KEY = "PodTopologySpread.preScore"


@dataclass
class SoftConstraint:
    """One ScheduleAnyway constraint's weight and matching pods per domain (or per node for hostname)."""

    constraint: SpreadConstraint
    ids: np.ndarray  # domain id per table row, -1 = no label
    weight: float
    per_domain: np.ndarray | None  # None for hostname: counted per row
    empty_id: int
    host_counts: np.ndarray | None
    present: np.ndarray | None = None  # bool per domain id (missing label = empty_id): domains of scored nodes


@dataclass
class PreScoreState:
    """preScoreState: the soft constraints and the nodes Score ignores."""

    constraints: list[SoftConstraint]
    ignored: np.ndarray  # bool per table row


def _label_ids(cluster: ClusterView, key: str) -> tuple[np.ndarray, list[str], int]:
    """Domain id per row, the domains' values, and the id a missing label reads as (value "")."""
    ids, values = cluster.table.label_values(key)
    return ids, values, values.index("") if "" in values else len(values)


def _host_constraint(pod: PodView, cluster: ClusterView, c: SpreadConstraint, kept: np.ndarray) -> SoftConstraint:
    """A hostname constraint: matching pods counted per node row."""
    ids, _values, empty_id = _label_ids(cluster, c.topology_key)
    host = pod_counts(cluster, c.selector, pod.namespace)
    return SoftConstraint(c, ids, math.log(int(kept.shape[0]) + 2), None, empty_id, host)


def _domain_constraint(
    pod: PodView, cluster: ClusterView, c: SpreadConstraint, kept: np.ndarray, all_rows: np.ndarray, eligible: np.ndarray
) -> SoftConstraint:
    """One constraint's topologyNormalizingWeight and its matching pods per domain of the scored nodes."""
    ids, values, empty_id = _label_ids(cluster, c.topology_key)
    mapped = np.where(ids >= 0, ids, empty_id)  # a missing label reads as value ""
    present = np.zeros(len(values) + 1, dtype=bool)
    present[mapped[kept]] = True
    size = int(present.sum())
    erows = all_rows[eligible]
    erows = erows[present[mapped[erows]]]
    counts = pod_counts(cluster, c.selector, pod.namespace)
    per_domain = domain_sums(mapped[erows], counts[erows], len(values) + 1)
    return SoftConstraint(c, ids, math.log(size + 2), per_domain, empty_id, None, present)


def pre_score_state(
    pod: PodView, cluster: ClusterView, filtered: np.ndarray, constraints: list[SpreadConstraint], require_all: bool
) -> PreScoreState:
    """initPreScoreState: with `require_all`, nodes lacking a constraint's key are ignored (scored 0)
    and do not count."""
    table = cluster.table
    ignored_f = np.zeros(filtered.shape[0], dtype=bool)
    all_rows = alive_rows(table)
    has_all = np.ones(all_rows.shape[0], dtype=bool)
    if require_all:
        for c in constraints:
            ignored_f |= table.label_values(c.topology_key)[0][filtered] < 0
            has_all &= table.label_values(c.topology_key)[0][all_rows] >= 0
    kept = filtered[~ignored_f]
    affinity_ok, taints_ok = inclusion(pod, table, all_rows, constraints)
    soft = []
    for c in constraints:
        if c.topology_key == HOSTNAME_LABEL:
            soft.append(_host_constraint(pod, cluster, c, kept))
            continue
        eligible = has_all & affinity_ok if c.honor_affinity else has_all.copy()
        if c.honor_taints:
            eligible &= taints_ok
        soft.append(_domain_constraint(pod, cluster, c, kept, all_rows, eligible))
    ignored = np.zeros(table.capacity, dtype=bool)
    ignored[filtered[ignored_f]] = True
    return PreScoreState(soft, ignored)


def score_rows(computed: PreScoreState, rows: np.ndarray) -> np.ndarray:
    """Score: per constraint, matching pods in the node's domain times the weight, plus maxSkew-1."""
    total = np.zeros(rows.shape[0], dtype=np.float64)
    for sc in computed.constraints:
        ids = sc.ids[rows]
        has = ids >= 0
        if sc.host_counts is not None:
            cnt = sc.host_counts[rows]
        else:
            assert sc.per_domain is not None
            cnt = sc.per_domain[np.where(has, ids, sc.empty_id)]
        part = cnt.astype(np.float64) * sc.weight + float(sc.constraint.max_skew - 1)
        total += np.where(has, part, 0.0)
    out = np.floor(total + 0.5).astype(np.int64)  # math.Round on non-negative values
    out[computed.ignored[rows]] = 0
    return out


def normalize(computed: PreScoreState, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """NormalizeScore: fewer matching pods score higher; ignored nodes score 0."""
    valid = ~computed.ignored[rows]
    scores = np.asarray(scores, dtype=np.int64)
    out = np.zeros(scores.shape[0], dtype=np.int64)
    if not valid.any():
        return out
    lo = int(scores[valid].min())
    hi = max(int(scores[valid].max()), 0)
    if hi == 0:
        out[valid] = MAX_NODE_SCORE
    else:
        out[valid] = MAX_NODE_SCORE * (hi + lo - scores[valid]) // hi
    return out

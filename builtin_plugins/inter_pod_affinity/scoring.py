"""InterPodAffinity's PreScore and Score (kube-scheduler's interpodaffinity/scoring.go).

PreScore sums, per topology key, the weights of the incoming pod's preferred terms over the placed pods
they select and of placed pods' terms selecting the incoming pod (processExistingPod), per domain;
Score is one gather per topology key.
"""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE, ClusterView, NodeTableView, PodView

from .common import add_padded, counts_for_groups, group_mask, per_domain
from .index import INDEX_KEY, ExistingTermIndex, existing_per_domain, matching_entries
from .terms import PREF_AFFINITY, PREF_ANTI, REQ_AFFINITY, PodTerms, namespace_labels

PRE_SCORE_KEY = "InterPodAffinity.preScore"


def _add(scores: dict[str, np.ndarray], key: str, dom: np.ndarray) -> None:
    prev = scores.get(key)
    scores[key] = dom if prev is None else add_padded(prev, dom)


def _incoming_scores(
    terms: PodTerms, cluster: ClusterView, rows: np.ndarray, scores: dict[str, np.ndarray]
) -> bool:
    """The incoming pod's preferred (anti-)affinity terms over the placed pods they select."""
    table = cluster.table
    touched = False
    for sign, weighted in ((1, terms.preferred_affinity), (-1, terms.preferred_anti)):
        for weight, term in weighted:
            per_row = counts_for_groups(cluster, group_mask(cluster, term))
            dom = per_domain(table, rows, per_row, term.topology_key)[1]
            if dom.any():
                touched = True
                _add(scores, term.topology_key, dom * (sign * weight))
    return touched


def _existing_scores(
    pod: PodView, cluster: ClusterView, rows: np.ndarray, hard_weight: int, scores: dict[str, np.ndarray]
) -> bool:
    """processExistingPod: placed pods' terms selecting the incoming pod (required affinity at hard_weight)."""
    table = cluster.table
    index: ExistingTermIndex = cluster.index(INDEX_KEY, ExistingTermIndex)
    ns_labels = namespace_labels(cluster, pod.namespace)
    existing_kinds = [(PREF_AFFINITY, 1), (PREF_ANTI, -1)]
    if hard_weight > 0:
        existing_kinds.insert(0, (REQ_AFFINITY, 1))
    touched = False
    for kind, sign in existing_kinds:
        for term, weight, key in matching_entries(index, kind, pod, ns_labels):
            w = hard_weight if kind == REQ_AFFINITY else weight
            dom = existing_per_domain(index, key, table, rows)
            if not dom.any():
                continue
            touched = True
            _add(scores, term.topology_key, dom * (sign * w))
    return touched


def _padded(table: NodeTableView, scores: dict[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each per-domain array gets a trailing 0 at index len(values), read by rows without the
    label (id -1), so score() is a single gather per topology key."""
    padded = []
    for key, dom in scores.items():
        ids, values = table.label_values(key)
        out = np.zeros(len(values) + 1, dtype=np.int64)
        m = min(dom.shape[0], len(values))
        out[:m] = dom[:m]
        padded.append((ids, out))
    return padded


def pre_score_state(
    pod: PodView, terms: PodTerms, cluster: ClusterView, rows: np.ndarray, hard_weight: int
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """PreScore's per-topology-key (domain ids, padded per-domain score); None when no term counts."""
    scores: dict[str, np.ndarray] = {}
    touched = _incoming_scores(terms, cluster, rows, scores)
    touched |= _existing_scores(pod, cluster, rows, hard_weight, scores)
    if not touched:
        return None
    return _padded(cluster.table, scores)


def normalize(scores: np.ndarray) -> np.ndarray:
    """NormalizeScore: min-max scaling onto [0, MAX_NODE_SCORE]."""
    scores = np.asarray(scores, dtype=np.int64)
    if scores.size == 0:
        return scores
    lo, hi = int(scores.min()), int(scores.max())
    if hi - lo <= 0:
        return np.zeros(scores.shape[0], dtype=np.int64)
    return (float(MAX_NODE_SCORE) * ((scores - lo).astype(np.float64) / float(hi - lo))).astype(np.int64)

"""Per-topology-domain counting shared by InterPodAffinity's filter and score.

kube-scheduler walks the snapshot's pods per node (interpodaffinity/filtering.go: getExistingAntiAffinityCounts,
getIncomingAffinityAntiAffinityCounts; scoring.go: processExistingPod); here the incoming pod's terms
select placed-pod (namespace, labels) groups of cluster.label_counts and the per-row counts are folded
into topology domains with np.bincount.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import ClusterView, NodeTableView, PodView
from kubeberth.api.helpers import domain_sums, group_columns

from .terms import AffinityTerm, namespace_labels


def group_mask(cluster: ClusterView, term: AffinityTerm) -> np.ndarray:
    """Placed-pod groups the incoming pod's term selects (namespaceSelector merged into names)."""
    cols = group_columns(cluster)
    mask = cols.mask(term.selector)
    sel = term.namespace_selector
    if sel.everything:
        return mask
    allowed = set(term.namespaces)
    if not sel.nothing:
        for ns in cluster.list_objects("Namespace"):
            meta = ns.get("metadata") or {}
            if sel.matches(meta.get("labels") or {}):
                allowed.add(meta.get("name", ""))
    return mask & cols.namespace_mask(allowed)


def self_matches(cluster: ClusterView, pod: PodView, term: AffinityTerm) -> bool:
    sel = term.namespace_selector
    ns_ok = pod.namespace in term.namespaces or sel.everything
    if not ns_ok and not sel.nothing and cluster.get_object("Namespace", pod.namespace) is not None:
        ns_ok = sel.matches(namespace_labels(cluster, pod.namespace))
    return ns_ok and term.selector.matches(pod.labels)


def per_domain(table: NodeTableView, rows: np.ndarray, per_row: np.ndarray, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(domain id per table row, per-domain sums of `per_row` over `rows`, plus a trailing 0)."""
    ids, values = table.label_values(key)
    out = np.zeros(len(values) + 1, dtype=np.int64)
    out[: len(values)] = domain_sums(ids[rows], per_row[rows], len(values))
    return ids, out


def counts_for_groups(cluster: ClusterView, groups: np.ndarray) -> np.ndarray:
    counts = cluster.label_counts
    if not groups.any():
        return np.zeros(cluster.table.capacity, dtype=np.int64)
    totals = np.asarray(counts.totals[: groups.shape[0]])
    return counts.per_node(np.flatnonzero(groups & (totals > 0)).tolist()).astype(np.int64)


def lookup(per_domain: np.ndarray, ids: np.ndarray, default: Any = False) -> np.ndarray:
    """per_domain[ids] where ids >= 0 (and within range), `default` elsewhere."""
    ok = (ids >= 0) & (ids < per_domain.shape[0])
    out = np.full(ids.shape[0], default, dtype=per_domain.dtype)
    out[ok] = per_domain[ids[ok]]
    return out


def add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = max(a.shape[0], b.shape[0])
    out = np.zeros(n, dtype=np.int64)
    out[: a.shape[0]] += a
    out[: b.shape[0]] += b
    return out

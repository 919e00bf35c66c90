"""The index of placed pods' affinity terms InterPodAffinity keeps in the cluster state.

kube-scheduler's snapshot lists the pods with (anti-)affinity per node (NodeInfo.PodsWithAffinity,
PodsWithRequiredAntiAffinity) and the plugin walks them each cycle; kubeberth keeps, per distinct placed
term, how many placed pods carry it on each node row, updated as pods are added and removed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from kubeberth import ClusterView, NodeTableView, PodView
from kubeberth.api.helpers import SelectorError

from .common import per_domain
from .terms import (
    EXISTING_KEYS,
    LABELS_KEY,
    PREF_AFFINITY,
    PREF_ANTI,
    REQ_AFFINITY,
    REQ_ANTI,
    AffinityTerm,
    pod_terms,
)

INDEX_KEY = "InterPodAffinity.existingTerms"


class ExistingTermIndex:
    """Placed pods' affinity terms: for each distinct (kind, term, weight), pods per node row.

    `version` changes when a distinct key appears or disappears (so per-kind entry lists can be
    cached); `mods[key]` changes whenever that key's counts do (so per-domain sums can be cached).
    """

    def __init__(self, cluster: ClusterView) -> None:
        self.table = cluster.table
        self.counts: dict[tuple[str, AffinityTerm, int], np.ndarray] = {}
        self.totals: dict[tuple[str, AffinityTerm, int], int] = {}
        self.mods: dict[tuple[str, AffinityTerm, int], int] = {}
        self.version = 0
        self.match_cache: dict[Any, tuple[int, list[Any]]] = {}  # see matching_entries
        self.domain_cache: dict[Any, tuple[int, int, np.ndarray]] = {}  # see existing_per_domain
        self._entries: dict[str, tuple[int, list[tuple[AffinityTerm, int, tuple[str, AffinityTerm, int]]]]] = {}

    @staticmethod
    def _keys(pod: PodView) -> list[tuple[str, AffinityTerm, int]]:
        if not pod.affinity:
            return []
        found = EXISTING_KEYS.get(pod)
        if found is not None:
            return found
        try:
            terms = pod_terms(pod)
        except SelectorError:
            return []  # an unparsable placed pod constrains nothing
        keys = [(REQ_ANTI, t, 0) for t in terms.required_anti]
        keys += [(REQ_AFFINITY, t, 0) for t in terms.required_affinity]
        keys += [(PREF_AFFINITY, t, w) for w, t in terms.preferred_affinity]
        keys += [(PREF_ANTI, t, w) for w, t in terms.preferred_anti]
        EXISTING_KEYS.set(pod, keys)
        return keys

    def array(self, key: tuple[str, AffinityTerm, int]) -> np.ndarray:
        arr = self.counts.get(key)
        if arr is None or arr.shape[0] < self.table.capacity:
            if arr is None:
                self.version += 1
            grown = np.zeros(self.table.capacity, dtype=np.int64)
            if arr is not None:
                grown[: arr.shape[0]] = arr
            self.counts[key] = arr = grown
        return arr

    def pod_added(self, pod: PodView, row: int) -> None:
        keys = self._keys(pod)
        if not keys:
            return
        for key, n in Counter(keys).items():
            self.array(key)[row] += n
            self.totals[key] = self.totals.get(key, 0) + n
            self.mods[key] = self.mods.get(key, 0) + 1

    def pod_removed(self, pod: PodView, row: int) -> None:
        keys = self._keys(pod)
        if not keys:
            return
        for key, n in Counter(keys).items():
            if key not in self.totals:
                continue
            self.array(key)[row] -= n
            self.totals[key] -= n
            self.mods[key] = self.mods.get(key, 0) + 1
            if self.totals[key] <= 0:
                del self.totals[key]
                del self.counts[key]
                self.version += 1

    def keyed_entries(self, kind: str) -> list[tuple[AffinityTerm, int, tuple[str, AffinityTerm, int]]]:
        """(term, weight, key) of the given kind; cached until a distinct key appears or goes."""
        cached = self._entries.get(kind)
        if cached is None or cached[0] != self.version:
            cached = (self.version, [(term, w, (k, term, w)) for (k, term, w) in self.counts if k == kind])
            self._entries[kind] = cached
        return cached[1]

    def entries(self, kind: str) -> list[tuple[AffinityTerm, int, np.ndarray]]:
        return [(term, w, self.array(key)) for term, w, key in self.keyed_entries(kind)]

_MATCH_CACHE_LIMIT = 4096


def matching_entries(
    index: ExistingTermIndex, kind: str, pod: PodView, ns_labels: dict[str, str]
) -> list[tuple[AffinityTerm, int, tuple[str, AffinityTerm, int]]]:
    """Entries of `kind` whose term matches the pod; cached per (namespace, labels) until the
    set of distinct placed terms changes, since pods of one workload share their labels."""
    labels_key = LABELS_KEY.get(pod)
    if labels_key is None:
        labels_key = LABELS_KEY.set(pod, frozenset(pod.labels.items()))
    cache = index.match_cache
    key = (kind, pod.namespace, labels_key, frozenset(ns_labels.items()) if ns_labels else None)
    found = cache.get(key)
    if found is None or found[0] != index.version:
        matching = [
            entry for entry in index.keyed_entries(kind) if entry[0].matches(pod.namespace, pod.labels, ns_labels)
        ]
        if len(cache) >= _MATCH_CACHE_LIMIT:
            cache.clear()
        found = cache[key] = (index.version, matching)
    return found[1]


def existing_per_domain(
    index: ExistingTermIndex, key: tuple[str, AffinityTerm, int], table: NodeTableView, rows: np.ndarray
) -> np.ndarray:
    """Per-domain sums of a placed-term key's counts; cached until those counts or nodes change."""
    cache = index.domain_cache
    mod = index.mods.get(key, 0)
    found = cache.get(key)
    if found is None or found[0] != mod or found[1] != table.version:
        dom = per_domain(table, rows, index.array(key), key[1].topology_key)[1]
        dom.flags.writeable = False
        found = cache[key] = (mod, table.version, dom)
    return found[2]


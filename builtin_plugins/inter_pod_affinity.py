"""InterPodAffinity: required pod (anti-)affinity filter, preferred terms score.

Batch form: the incoming pod's terms are evaluated once per placed-pod (namespace, labels) group
(cluster.label_counts); placed pods' own terms live in an incremental index that keeps, per
distinct term, how many placed pods carry it on each node row. Both give per-row counts that are
folded into topology domains with np.bincount, so no cycle walks the placed pods.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterState,
    Code,
    CycleState,
    FilterResult,
    MemoKey,
    NodeTable,
    NodeView,
    PodInfo,
    PreFilterState,
    Rejection,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import (
    LabelSelector,
    SelectorError,
    alive_rows,
    domain_sums,
    group_columns,
    pod_state_version,
)
from kubeberth.api.signing import LABELS_SIGNER, SignFragment
from pydantic import BaseModel, ConfigDict, Field

_TERMS: MemoKey[PodTerms] = MemoKey("InterPodAffinity.terms")
_EXISTING_KEYS: MemoKey[list[tuple[str, AffinityTerm, int]]] = MemoKey("InterPodAffinity.existingKeys")
_LABELS_KEY: MemoKey[frozenset[tuple[str, str]]] = MemoKey("InterPodAffinity.labelsKey")

ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
_PRE_FILTER_KEY = "InterPodAffinity.preFilter"
_PRE_SCORE_KEY = "InterPodAffinity.preScore"
_INDEX_KEY = "InterPodAffinity.existingTerms"
REQ_AFFINITY, REQ_ANTI, PREF_AFFINITY, PREF_ANTI = "req_aff", "req_anti", "pref_aff", "pref_anti"


class InterPodAffinityArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hardPodAffinityWeight: int = Field(default=1, ge=0, le=100)
    ignorePreferredTermsOfExistingPods: bool = False


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A parsed PodAffinityTerm (framework.AffinityTerm)."""

    namespaces: frozenset[str]
    namespace_selector: LabelSelector
    selector: LabelSelector
    topology_key: str

    def matches(self, namespace: str, labels: Mapping[str, str], namespace_labels: Mapping[str, str]) -> bool:
        """Term.Matches: namespace listed or selected by labels, and the label selector matches."""
        if namespace not in self.namespaces and not self.namespace_selector.matches(namespace_labels):
            return False
        return self.selector.matches(labels)


@dataclass(frozen=True, slots=True)
class PodTerms:
    required_affinity: tuple[AffinityTerm, ...]
    required_anti: tuple[AffinityTerm, ...]
    preferred_affinity: tuple[tuple[int, AffinityTerm], ...]
    preferred_anti: tuple[tuple[int, AffinityTerm], ...]

    @property
    def empty(self) -> bool:
        return not (self.required_affinity or self.required_anti or self.preferred_affinity or self.preferred_anti)


_NO_TERMS = PodTerms((), (), (), ())


def _term(pod: PodInfo, raw: Mapping[str, Any]) -> AffinityTerm:
    namespaces = frozenset(raw.get("namespaces") or ())
    ns_raw = raw.get("namespaceSelector")
    if not namespaces and ns_raw is None:
        namespaces = frozenset((pod.namespace,))
    return AffinityTerm(
        namespaces, LabelSelector.from_api(ns_raw), LabelSelector.from_api(raw.get("labelSelector")), raw.get("topologyKey", "")
    )


def pod_terms(pod: PodInfo) -> PodTerms:
    """Parse (once per PodInfo) the pod's inter-pod affinity terms; raises SelectorError."""
    found = _TERMS.get(pod)
    if found is None:
        affinity = pod.affinity or {}
        if not affinity.get("podAffinity") and not affinity.get("podAntiAffinity"):
            return _TERMS.set(pod, _NO_TERMS)  # most pods: nothing to parse
        aff = affinity.get("podAffinity") or {}
        anti = affinity.get("podAntiAffinity") or {}
        req = "requiredDuringSchedulingIgnoredDuringExecution"
        pref = "preferredDuringSchedulingIgnoredDuringExecution"

        def weighted(items: Any) -> tuple[tuple[int, AffinityTerm], ...]:
            return tuple((int(w.get("weight") or 0), _term(pod, w.get("podAffinityTerm") or {})) for w in items or ())

        # framework.NewPodInfo: each group fails on its first bad term; the groups' errors aggregate.
        groups: list[Any] = []
        errors: list[str] = []
        for label, parse in (
            ("requiredAffinityTerms", lambda: tuple(_term(pod, t) for t in aff.get(req) or ())),
            ("requiredAntiAffinityTerms", lambda: tuple(_term(pod, t) for t in anti.get(req) or ())),
            ("preferredAffinityTerms", lambda: weighted(aff.get(pref))),
            ("preferredAntiAffinityTerms", lambda: weighted(anti.get(pref))),
        ):
            try:
                groups.append(parse())
            except SelectorError as exc:
                errors.append(f"{label}: {exc}")
        if errors:
            raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        found = PodTerms(*groups)
        _TERMS.set(pod, found)
    return found


class ExistingTermIndex:
    """Placed pods' affinity terms: for each distinct (kind, term, weight), pods per node row.

    `version` changes when a distinct key appears or disappears (so per-kind entry lists can be
    cached); `mods[key]` changes whenever that key's counts do (so per-domain sums can be cached).
    """

    def __init__(self, cluster: ClusterState) -> None:
        self.table = cluster.table
        self.counts: dict[tuple[str, AffinityTerm, int], np.ndarray] = {}
        self.totals: dict[tuple[str, AffinityTerm, int], int] = {}
        self.mods: dict[tuple[str, AffinityTerm, int], int] = {}
        self.version = 0
        self.match_cache: dict[Any, tuple[int, list[Any]]] = {}  # see _matching_entries
        self.domain_cache: dict[Any, tuple[int, int, np.ndarray]] = {}  # see _existing_per_domain
        self._entries: dict[str, tuple[int, list[tuple[AffinityTerm, int, tuple[str, AffinityTerm, int]]]]] = {}

    @staticmethod
    def _keys(pod: PodInfo) -> list[tuple[str, AffinityTerm, int]]:
        if not pod.affinity:
            return []
        found = _EXISTING_KEYS.get(pod)
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
        _EXISTING_KEYS.set(pod, keys)
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

    def pod_added(self, pod: PodInfo, row: int) -> None:
        keys = self._keys(pod)
        if not keys:
            return
        for key, n in Counter(keys).items():
            self.array(key)[row] += n
            self.totals[key] = self.totals.get(key, 0) + n
            self.mods[key] = self.mods.get(key, 0) + 1

    def pod_removed(self, pod: PodInfo, row: int) -> None:
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


def namespace_labels(cluster: ClusterState, namespace: str) -> dict[str, str]:
    """Labels of the Namespace object; an unknown namespace has none (GetNamespaceLabelsSnapshot)."""
    obj = cluster.get_object("Namespace", namespace)
    return dict((obj or {}).get("metadata", {}).get("labels") or {})


def _group_mask(cluster: ClusterState, term: AffinityTerm) -> np.ndarray:
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


def _self_matches(cluster: ClusterState, pod: PodInfo, term: AffinityTerm) -> bool:
    sel = term.namespace_selector
    ns_ok = pod.namespace in term.namespaces or sel.everything
    if not ns_ok and not sel.nothing and cluster.get_object("Namespace", pod.namespace) is not None:
        ns_ok = sel.matches(namespace_labels(cluster, pod.namespace))
    return ns_ok and term.selector.matches(pod.labels)


def _per_domain(table: NodeTable, rows: np.ndarray, per_row: np.ndarray, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(domain id per table row, per-domain sums of `per_row` over `rows`, plus a trailing 0)."""
    ids, values = table.label_values(key)
    out = np.zeros(len(values) + 1, dtype=np.int64)
    out[: len(values)] = domain_sums(ids[rows], per_row[rows], len(values))
    return ids, out


@dataclass
class _PreFilterState:
    version: tuple[int, int]
    affinity: list[tuple[np.ndarray, np.ndarray]]  # per required affinity term: (ids, per-domain count)
    affinity_any: bool
    self_match: bool
    anti: list[tuple[np.ndarray, np.ndarray]]  # per required anti-affinity term: (ids, per-domain count)
    # per topology key: (ids, per-domain count of placed pods' anti-affinity terms selecting the pod)
    existing: list[tuple[np.ndarray, np.ndarray]]


class InterPodAffinity:
    name = "InterPodAffinity"
    pre_filter_state = PreFilterState.SELF_UPDATING
    Args = InterPodAffinityArgs

    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/Update": "is_schedulable_after_node_change",
        "Pod/Add": "is_schedulable_after_assigned_pod_change",
        "Pod/Update": "is_schedulable_after_assigned_pod_change",
        "Pod/Delete": "is_schedulable_after_assigned_pod_change",
    }
    # EventsToRegister: the hinted events, and the pending pod's own labels changing (always Queue:
    # another pod's anti-affinity may have selected its old labels).
    requeue_on = frozenset({*queueing_hints, "TargetPod/UpdatePodLabel"})

    def __init__(self, args: InterPodAffinityArgs | None = None) -> None:
        self.args = args or InterPodAffinityArgs()

    # ---- queueing hints -----------------------------------------------------------------
    def is_schedulable_after_node_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
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
        self, pod: PodInfo, old: PodInfo | None, new: PodInfo | None
    ) -> bool:
        """isSchedulableAfterAssignedPodChange: a placed pod now matches all required affinity terms, no longer
        matches an anti-affinity term, or was deleted while it matched one (or its own anti-affinity, the pod)."""
        for other in (old, new):
            if other is not None and not (other.node_name or other.nominated_node_name):
                return False

        def all_match(terms: tuple[AffinityTerm, ...], other: PodInfo) -> bool:
            return bool(terms) and all(t.matches(other.namespace, other.labels, {}) for t in terms)

        def any_match(terms: tuple[AffinityTerm, ...], other: PodInfo) -> bool:
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
    def _pre_filter_state(self, pod: PodInfo, terms: PodTerms, cluster: ClusterState) -> _PreFilterState:
        table = cluster.table
        rows = alive_rows(table)
        index: ExistingTermIndex = cluster.index(_INDEX_KEY, ExistingTermIndex)  # type: ignore[assignment]
        ns_labels = namespace_labels(cluster, pod.namespace)
        count_by_key: dict[str, np.ndarray] = {}
        for term, _w, key in _matching_entries(index, REQ_ANTI, pod, ns_labels):
            dom = _existing_per_domain(index, key, table, rows)
            if dom.any():
                prev = count_by_key.get(term.topology_key)
                count_by_key[term.topology_key] = dom if prev is None else _add_padded(prev, dom)
        existing = [(table.label_values(k)[0], c) for k, c in count_by_key.items()]

        affinity: list[tuple[np.ndarray, np.ndarray]] = []
        affinity_any = False
        self_match = False
        if terms.required_affinity:
            groups = np.ones(len(group_columns(cluster)), dtype=bool)
            for term in terms.required_affinity:
                groups &= _group_mask(cluster, term)
            per_row = _counts_for_groups(cluster, groups)
            for term in terms.required_affinity:
                ids, dom = _per_domain(table, rows, per_row, term.topology_key)
                affinity_any |= bool(dom.any())
                affinity.append((ids, dom))
            self_match = all(_self_matches(cluster, pod, t) for t in terms.required_affinity)
        anti = []
        for term in terms.required_anti:
            per_row = _counts_for_groups(cluster, _group_mask(cluster, term))
            ids, dom = _per_domain(table, rows, per_row, term.topology_key)
            anti.append((ids, dom))
        return _PreFilterState(pod_state_version(cluster), affinity, affinity_any, self_match, anti, existing)

    @hookimpl
    def sign_pod(self, pod: PodInfo) -> list[SignFragment] | Status | None:
        """kube-scheduler's InterPodAffinity.SignPod: a pod with pod (anti-)affinity is unsignable;
        otherwise its labels (existing pods' terms may match them), unless
        ignorePreferredTermsOfExistingPods makes only pods with terms matter."""
        affinity = pod.affinity or {}
        if affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None:
            return Status.unschedulable("pods with InterPodAffinity are not signable")
        if self.args.ignorePreferredTermsOfExistingPods:
            return None
        return [SignFragment(LABELS_SIGNER, pod.labels)]

    @hookimpl
    def pre_filter(self, state: CycleState, pod: PodInfo, cluster: ClusterState) -> Status | None:
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status.unschedulable(f"parsing pod: {exc}", unresolvable=True)
        if not terms.required_affinity and not terms.required_anti:
            index: ExistingTermIndex = cluster.index(_INDEX_KEY, ExistingTermIndex)  # type: ignore[assignment]
            if not _matching_entries(index, REQ_ANTI, pod, namespace_labels(cluster, pod.namespace)):
                return Status.skip()  # no placed pod's required anti-affinity term selects this pod
        computed = self._pre_filter_state(pod, terms, cluster)
        if not computed.existing and not terms.required_affinity and not terms.required_anti:
            return Status.skip()
        state[_PRE_FILTER_KEY] = computed
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> FilterResult | Status:
        computed: _PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if computed is None or computed.version != pod_state_version(cluster):
            try:
                terms = pod_terms(pod)
            except SelectorError as exc:
                return Status.unschedulable(f"parsing pod: {exc}", unresolvable=True)
            computed = self._pre_filter_state(pod, terms, cluster)
            state[_PRE_FILTER_KEY] = computed
        rows = nodes.rows
        n = len(nodes)
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
            fail_anti |= _lookup(count, ids_all[rows], 0) > 0
        fail_existing = np.zeros(n, dtype=bool)
        for ids_all, count in computed.existing:
            fail_existing |= _lookup(count, ids_all[rows], 0) > 0
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

    # ---- score --------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> Status | None:
        if len(nodes) == 0:
            return Status.skip()
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status.error(f"failed to parse pod: {exc}")
        has_constraints = bool(terms.preferred_affinity or terms.preferred_anti)
        if self.args.ignorePreferredTermsOfExistingPods and not has_constraints:
            return Status.skip()
        table = cluster.table
        rows = alive_rows(table)
        scores: dict[str, np.ndarray] = {}
        touched = False

        def add(key: str, per_row: np.ndarray, weight: int) -> None:
            nonlocal touched
            ids, dom = _per_domain(table, rows, per_row, key)
            if not dom.any():
                return
            touched = True
            prev = scores.get(key)
            scores[key] = dom * weight if prev is None else _add_padded(prev, dom * weight)

        for sign, weighted in ((1, terms.preferred_affinity), (-1, terms.preferred_anti)):
            for weight, term in weighted:
                add(term.topology_key, _counts_for_groups(cluster, _group_mask(cluster, term)), sign * weight)
        index: ExistingTermIndex = cluster.index(_INDEX_KEY, ExistingTermIndex)  # type: ignore[assignment]
        ns_labels = namespace_labels(cluster, pod.namespace)
        existing_kinds = [(PREF_AFFINITY, 1), (PREF_ANTI, -1)]
        if self.args.hardPodAffinityWeight > 0:
            existing_kinds.insert(0, (REQ_AFFINITY, 1))
        for kind, sign in existing_kinds:
            for term, weight, key in _matching_entries(index, kind, pod, ns_labels):
                w = self.args.hardPodAffinityWeight if kind == REQ_AFFINITY else weight
                dom = _existing_per_domain(index, key, table, rows)
                if not dom.any():
                    continue
                touched = True
                prev = scores.get(term.topology_key)
                scores[term.topology_key] = dom * (sign * w) if prev is None else _add_padded(prev, dom * (sign * w))
        if not touched:
            return Status.skip()
        # Each per-domain array gets a trailing 0 at index len(values), read by rows without the
        # label (id -1), so score() is a single gather per topology key.
        padded = []
        for key, dom in scores.items():
            ids, values = table.label_values(key)
            out = np.zeros(len(values) + 1, dtype=np.int64)
            m = min(dom.shape[0], len(values))
            out[:m] = dom[:m]
            padded.append((ids, out))
        state[_PRE_SCORE_KEY] = padded
        return None

    @hookimpl
    def score(self, state: CycleState, nodes: NodeView) -> np.ndarray:
        total = np.zeros(len(nodes), dtype=np.int64)
        for ids_all, dom in state[_PRE_SCORE_KEY]:
            total += dom[ids_all[nodes.rows]]  # id -1 reads the trailing 0
        return total

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        scores = np.asarray(scores, dtype=np.int64)
        if scores.size == 0:
            return scores
        lo, hi = int(scores.min()), int(scores.max())
        if hi - lo <= 0:
            return np.zeros(scores.shape[0], dtype=np.int64)
        return (float(MAX_NODE_SCORE) * ((scores - lo).astype(np.float64) / float(hi - lo))).astype(np.int64)


_MATCH_CACHE_LIMIT = 4096


def _matching_entries(
    index: ExistingTermIndex, kind: str, pod: PodInfo, ns_labels: dict[str, str]
) -> list[tuple[AffinityTerm, int, tuple[str, AffinityTerm, int]]]:
    """Entries of `kind` whose term matches the pod; cached per (namespace, labels) until the
    set of distinct placed terms changes, since pods of one workload share their labels."""
    labels_key = _LABELS_KEY.get(pod)
    if labels_key is None:
        labels_key = _LABELS_KEY.set(pod, frozenset(pod.labels.items()))
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


def _existing_per_domain(
    index: ExistingTermIndex, key: tuple[str, AffinityTerm, int], table: NodeTable, rows: np.ndarray
) -> np.ndarray:
    """Per-domain sums of a placed-term key's counts; cached until those counts or nodes change."""
    cache = index.domain_cache
    mod = index.mods.get(key, 0)
    found = cache.get(key)
    if found is None or found[0] != mod or found[1] != table.version:
        dom = _per_domain(table, rows, index.array(key), key[1].topology_key)[1]
        dom.flags.writeable = False
        found = cache[key] = (mod, table.version, dom)
    return found[2]


def _counts_for_groups(cluster: ClusterState, groups: np.ndarray) -> np.ndarray:
    counts = cluster.label_counts
    if not groups.any():
        return np.zeros(cluster.table.capacity, dtype=np.int64)
    totals = np.asarray(counts.totals[: groups.shape[0]])
    return counts.per_node(np.flatnonzero(groups & (totals > 0)).tolist()).astype(np.int64)


def _lookup(per_domain: np.ndarray, ids: np.ndarray, default: Any = False) -> np.ndarray:
    """per_domain[ids] where ids >= 0 (and within range), `default` elsewhere."""
    ok = (ids >= 0) & (ids < per_domain.shape[0])
    out = np.full(ids.shape[0], default, dtype=per_domain.dtype)
    out[ok] = per_domain[ids[ok]]
    return out


def _add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = max(a.shape[0], b.shape[0])
    out = np.zeros(n, dtype=np.int64)
    out[: a.shape[0]] += a
    out[: b.shape[0]] += b
    return out

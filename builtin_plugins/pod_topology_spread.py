"""PodTopologySpread: hard spread constraints filter, soft ones (or system defaults) score.

Batch form: matching pods are counted per node row from cluster.label_counts (the selector is
evaluated once per (namespace, labels) group) and summed per topology domain with np.bincount
over table.label_values(topologyKey); per-node checks are then array lookups.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterState,
    Code,
    CycleState,
    FilterResult,
    MemoKey,
    NodeView,
    PodInfo,
    PreFilterState,
    Rejection,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import (
    HOSTNAME_LABEL,
    ZONE_LABEL,
    LabelSelector,
    SelectorError,
    alive_rows,
    domain_sums,
    group_columns,
    matching_pod_counts,
    pod_state_version,
    required_node_affinity,
    untolerated_taint_sets,
)
from pydantic import BaseModel, ConfigDict, Field, model_validator

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
_MAX_INT32 = 2**31 - 1
_PRE_FILTER_KEY = "PodTopologySpread.preFilter"
_PRE_SCORE_KEY = "PodTopologySpread.preScore"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"topologyKey": HOSTNAME_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


class PodTopologySpreadArgs(BaseModel):
    """PodTopologySpreadArgs: cluster-level default constraints for pods that define none."""

    model_config = ConfigDict(extra="forbid")

    defaultConstraints: list[dict[str, Any]] = Field(default_factory=list)
    defaultingType: Literal["System", "List"] = "System"

    @model_validator(mode="after")
    def _check(self) -> PodTopologySpreadArgs:
        if self.defaultingType == "System" and self.defaultConstraints:
            raise ValueError("defaultConstraints: must be empty when defaultingType is System")
        seen = set()
        for i, c in enumerate(self.defaultConstraints):
            where = f"defaultConstraints[{i}]"
            if int(c.get("maxSkew") or 0) <= 0:
                raise ValueError(f"{where}.maxSkew: must be greater than zero")
            if not c.get("topologyKey"):
                raise ValueError(f"{where}.topologyKey: can not be empty")
            if c.get("whenUnsatisfiable") not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
                raise ValueError(f"{where}.whenUnsatisfiable: must be DoNotSchedule or ScheduleAnyway")
            if c.get("labelSelector") is not None:
                raise ValueError(f"{where}.labelSelector: constraint must not define a selector")
            pair = (c["topologyKey"], c["whenUnsatisfiable"])
            if pair in seen:
                raise ValueError(f"{where}: duplicate topologyKey and whenUnsatisfiable pair")
            seen.add(pair)
        return self


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A topologySpreadConstraint with its selector parsed and defaults applied."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_affinity: bool = True  # nodeAffinityPolicy Honor (default)
    honor_taints: bool = False  # nodeTaintsPolicy Ignore (default)


def parse_constraints(
    raw: tuple[dict[str, Any], ...] | list[dict[str, Any]], pod_labels: dict[str, str], action: str
) -> list[SpreadConstraint]:
    """filterTopologySpreadConstraints: keep `action` constraints, merge matchLabelKeys."""
    out = []
    for c in raw:
        if c.get("whenUnsatisfiable", DO_NOT_SCHEDULE) != action:
            continue
        selector = LabelSelector.from_api(c.get("labelSelector"))
        keys = c.get("matchLabelKeys") or ()
        extra = {k: pod_labels[k] for k in keys if k in pod_labels}
        if extra:
            selector = LabelSelector.from_set(extra).add(selector.requirements) if not selector.nothing else selector
        out.append(
            SpreadConstraint(
                max_skew=int(c.get("maxSkew") or 0),
                topology_key=c.get("topologyKey", ""),
                selector=selector,
                min_domains=int(c["minDomains"]) if c.get("minDomains") is not None else 1,
                honor_affinity=(c.get("nodeAffinityPolicy") or "Honor") == "Honor",
                honor_taints=(c.get("nodeTaintsPolicy") or "Ignore") == "Honor",
            )
        )
    return out


def default_selector(pod: PodInfo, cluster: ClusterState) -> LabelSelector:
    """helper.DefaultSelector: selectors of the pod's Services and controlling RC/RS/StatefulSet."""
    merged: dict[str, str] = {}
    for svc in cluster.list_objects("Service"):
        meta = svc.get("metadata") or {}
        if (meta.get("namespace") or "default") != pod.namespace:
            continue
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            continue  # a nil selector matches nothing
        if LabelSelector.from_set(sel).matches(pod.labels):
            merged.update(sel)
    selector = LabelSelector.from_set(merged)
    owner = next(
        (o for o in (pod.raw.get("metadata") or {}).get("ownerReferences") or () if o.get("controller")), None
    )
    if owner is None:
        return selector
    kind, api, name = owner.get("kind"), owner.get("apiVersion"), owner.get("name")
    key = f"{pod.namespace}/{name}"
    if kind == "ReplicationController" and api == "v1":
        rc = cluster.get_object(kind, key)
        if rc is not None:
            merged.update((rc.get("spec") or {}).get("selector") or {})
            selector = LabelSelector.from_set(merged)
    elif kind in ("ReplicaSet", "StatefulSet") and api == "apps/v1":
        obj = cluster.get_object(kind, key)
        if obj is not None:
            try:
                other = LabelSelector.from_api((obj.get("spec") or {}).get("selector"))
            except SelectorError:
                return selector
            selector = selector.add(other.requirements)
    return selector


_SELECTORS_KEPT = 4096
_CONSTRAINTS: dict[str, MemoKey[list[SpreadConstraint]]] = {
    a: MemoKey(f"PodTopologySpread.constraints.{a}") for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
}


class _Terminating:
    """PodIndex of placed pods being deleted: spreading does not count them (#87621)."""

    def __init__(self, _cluster: ClusterState) -> None:
        self.pods: dict[str, tuple[PodInfo, int]] = {}

    def pod_added(self, pod: PodInfo, row: int) -> None:
        if pod.deleting:
            self.pods[pod.uid] = (pod, row)

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        self.pods.pop(pod.uid, None)


def _pod_counts(cluster: ClusterState, selector: LabelSelector, namespace: str) -> np.ndarray:
    """Matching non-terminating pods of `namespace` per table row."""
    ns_mask = group_columns(cluster).namespace_mask((namespace,))
    counts = matching_pod_counts(cluster, selector, ns_mask)
    terminating = cluster.index("PodTopologySpread.terminating", _Terminating)
    for pod, row in terminating.pods.values():  # type: ignore[attr-defined]
        if pod.namespace == namespace and selector.matches(pod.labels):
            counts[row] -= 1
    return counts


@dataclass
class _HardConstraint:
    constraint: SpreadConstraint
    ids: np.ndarray  # domain id per table row (-1: no label)
    per_domain: np.ndarray  # matching pods per domain id, plus a trailing 0
    min_match: int
    self_match: int
    present: np.ndarray  # bool per domain id: an eligible node is in the domain (the domains that count)


@dataclass
class _PreFilterState:
    version: tuple[int, int]
    constraints: list[_HardConstraint]


@dataclass
class _SoftConstraint:
    constraint: SpreadConstraint
    ids: np.ndarray  # domain id per table row, -1 = no label
    weight: float
    per_domain: np.ndarray | None  # None for hostname: counted per row
    empty_id: int
    host_counts: np.ndarray | None
    present: np.ndarray | None = None  # bool per domain id (missing label = empty_id): domains of scored nodes


@dataclass
class _PreScoreState:
    constraints: list[_SoftConstraint]
    ignored: np.ndarray  # bool per table row


class PodTopologySpread:
    name = "PodTopologySpread"
    pre_filter_state = PreFilterState.SELF_UPDATING
    Args = PodTopologySpreadArgs
    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/Update": "is_schedulable_after_node_change",
        "Node/Delete": "is_schedulable_after_node_change",
        "Pod/Add": "is_schedulable_after_assigned_pod_change",
        "Pod/Update": "is_schedulable_after_assigned_pod_change",
        "Pod/Delete": "is_schedulable_after_assigned_pod_change",
        "TargetPod/UpdatePodToleration": "is_schedulable_after_target_pod_change",
        "TargetPod/UpdatePodLabel": "is_schedulable_after_target_pod_change",
    }
    requeue_on = frozenset(queueing_hints)  # EventsToRegister: exactly the hinted events

    def __init__(self, args: PodTopologySpreadArgs | None = None) -> None:
        args = args or PodTopologySpreadArgs()
        self.system_defaulted = args.defaultingType == "System"
        self.default_constraints = (
            list(SYSTEM_DEFAULT_CONSTRAINTS) if self.system_defaulted else list(args.defaultConstraints)
        )
        self._default_keys: dict[str, MemoKey[list[SpreadConstraint]]] = {
            a: MemoKey(f"PodTopologySpread.defaults.{a}") for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
        }  # per instance: defaults are this plugin's configuration
        # Without matchLabelKeys the parsed defaults are the same for every pod: parse them once.
        self._parsed_defaults: dict[str, list[SpreadConstraint]] = {}
        if not any(c.get("matchLabelKeys") for c in self.default_constraints):
            for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
                self._parsed_defaults[action] = parse_constraints(self.default_constraints, {}, action)
        # Default selectors by (namespace, labels, controller), valid while the cluster's objects
        # (Services, ReplicaSets, ...) are unchanged: a workload's replicas share theirs.
        self._selectors: dict[tuple[Any, ...], LabelSelector] = {}
        self._selectors_of: weakref.ref[ClusterState] | None = None  # the cluster they were read from
        self._selectors_version = -1  # and its objects_version then

    # ---- queueing hints -----------------------------------------------------------------
    def is_schedulable_after_node_change(self, pod: PodInfo, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: a node carrying every hard constraint's topology key was added or
        deleted, gained or lost one, or changed such a label's value or its taints."""
        raw = pod.topology_spread_constraints or self.default_constraints
        keys = [c.get("topologyKey", "") for c in raw if c.get("whenUnsatisfiable", DO_NOT_SCHEDULE) == DO_NOT_SCHEDULE]

        def labels(node: Any) -> dict[str, str]:
            return (node.get("metadata") or {}).get("labels") or {}

        def matching(node: Any) -> bool:
            return all(k in labels(node) for k in keys)

        if old is not None and new is not None:
            if matching(old) != matching(new):
                return True
            taints_changed = ((old.get("spec") or {}).get("taints") or []) != ((new.get("spec") or {}).get("taints") or [])
            return matching(new) and (any(labels(old).get(k) != labels(new).get(k) for k in keys) or taints_changed)
        return matching(new if new is not None else old)

    def is_schedulable_after_assigned_pod_change(self, pod: PodInfo, old: PodInfo | None, new: PodInfo | None) -> bool:
        """isSchedulableAfterAssignedPodChange: a placed pod of the pod's namespace that one of its hard
        constraints' selectors counts was added or deleted, or its labels changed what a selector counts."""

        def involved(other: PodInfo) -> bool:
            return bool(other.node_name or other.nominated_node_name) and other.namespace == pod.namespace

        if (new is not None and not involved(new)) or (old is not None and not involved(old)):
            return False
        if not pod.topology_spread_constraints:
            return True  # default constraints select by the pod's Services and owners: not known here
        constraints = parse_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE)
        if old is not None and new is not None:
            if old.labels == new.labels:
                return False
            return any(c.selector.matches(old.labels) != c.selector.matches(new.labels) for c in constraints)
        changed = new if new is not None else old
        return changed is not None and any(c.selector.matches(changed.labels) for c in constraints)

    def is_schedulable_after_target_pod_change(self, pod: PodInfo, old: PodInfo, new: PodInfo) -> bool:
        """isSchedulableAfterTargetPodChange: the rejected pod got a toleration while one of its
        constraints honours taints, or its labels changed what one of its selectors counts."""
        if not isinstance(old, PodInfo) or not isinstance(new, PodInfo):
            raise TypeError(f"expected pods, got {type(old).__name__} and {type(new).__name__}")
        raw = pod.topology_spread_constraints or self.default_constraints
        constraints = [
            c for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY) for c in parse_constraints(raw, pod.labels, action)
        ]
        if old.tolerations != new.tolerations and any(c.honor_taints for c in constraints):
            return True
        if old.labels == new.labels:
            return False
        return any(c.selector.matches(old.labels) != c.selector.matches(new.labels) for c in constraints)

    # ---- constraints --------------------------------------------------------------------
    def constraints(self, pod: PodInfo, cluster: ClusterState, action: str) -> list[SpreadConstraint]:
        if pod.topology_spread_constraints:
            key = _CONSTRAINTS[action]
            found = key.get(pod)
            if found is None:
                found = key.set(pod, parse_constraints(pod.topology_spread_constraints, pod.labels, action))
            return found
        constraints = self._parsed_defaults.get(action)
        if constraints is None:  # defaults with matchLabelKeys depend on the pod's labels
            key = self._default_keys[action]
            constraints = key.get(pod)
            if constraints is None:
                constraints = key.set(pod, parse_constraints(self.default_constraints, pod.labels, action))
        if not constraints:
            return []
        selector = self._default_selector(pod, cluster)
        if selector.everything:
            return []
        return [
            SpreadConstraint(c.max_skew, c.topology_key, selector, c.min_domains, c.honor_affinity, c.honor_taints)
            for c in constraints
        ]

    def _default_selector(self, pod: PodInfo, cluster: ClusterState) -> LabelSelector:
        of = self._selectors_of
        if (
            of is None
            or of() is not cluster
            or self._selectors_version != cluster.objects_version
            or len(self._selectors) >= _SELECTORS_KEPT
        ):
            self._selectors.clear()
            self._selectors_of = weakref.ref(cluster)
            self._selectors_version = cluster.objects_version
        owner = next(
            (o for o in (pod.raw.get("metadata") or {}).get("ownerReferences") or () if o.get("controller")), None
        )
        key = (
            pod.namespace,
            frozenset(pod.labels.items()),
            (owner.get("kind"), owner.get("apiVersion"), owner.get("name")) if owner is not None else None,
        )
        found = self._selectors.get(key)
        if found is None:
            found = self._selectors[key] = default_selector(pod, cluster)
        return found

    def _inclusion(self, pod: PodInfo, table: Any, rows: np.ndarray, constraints: list[SpreadConstraint]) -> tuple[np.ndarray, np.ndarray]:
        """Masks over `rows`: matches the pod's required node affinity; has no untolerated taint."""
        affinity_ok = np.ones(rows.shape[0], dtype=bool)
        taints_ok = np.ones(rows.shape[0], dtype=bool)
        if any(c.honor_affinity for c in constraints):
            affinity_ok = required_node_affinity(pod).row_mask(table, rows)
        if any(c.honor_taints for c in constraints):
            taints_ok = ~untolerated_taint_sets(table, pod.tolerations)[table.taint_set[rows]]
        return affinity_ok, taints_ok

    # ---- filter -------------------------------------------------------------------------
    def _pre_filter_state(
        self, pod: PodInfo, cluster: ClusterState, constraints: list[SpreadConstraint] | None = None
    ) -> _PreFilterState:
        if constraints is None:
            constraints = self.constraints(pod, cluster, DO_NOT_SCHEDULE)
        table = cluster.table
        if not constraints:
            return _PreFilterState(pod_state_version(cluster), [])
        rows = alive_rows(table)
        has_all = np.ones(rows.shape[0], dtype=bool)
        for c in constraints:
            has_all &= table.label_values(c.topology_key)[0][rows] >= 0
        affinity_ok, taints_ok = self._inclusion(pod, table, rows, constraints)
        hard = []
        for c in constraints:
            ids, values = table.label_values(c.topology_key)
            eligible = has_all.copy()
            if c.honor_affinity:
                eligible &= affinity_ok
            if c.honor_taints:
                eligible &= taints_ok
            erows = rows[eligible]
            counts = _pod_counts(cluster, c.selector, pod.namespace)
            dom = ids[erows]
            per_domain = np.zeros(len(values) + 1, dtype=np.int64)
            per_domain[: len(values)] = domain_sums(dom, counts[erows], len(values))
            present = np.zeros(len(values) + 1, dtype=bool)
            present[dom] = True
            n_domains = int(present.sum())
            min_match = int(per_domain[present].min()) if n_domains else _MAX_INT32
            if n_domains < c.min_domains:
                min_match = 0
            hard.append(_HardConstraint(c, ids, per_domain, min_match, int(c.selector.matches(pod.labels)), present))
        return _PreFilterState(pod_state_version(cluster), hard)

    @hookimpl
    def sign_pod(self, pod: PodInfo) -> Status | None:
        """kube-scheduler's PodTopologySpread.SignPod: spreading depends on pods elsewhere, so a pod
        with constraints, or any pod when default constraints apply (the System default), is unsignable."""
        if pod.topology_spread_constraints:
            return Status.unschedulable("pods with topology constraints are not signable")
        if self.default_constraints:
            return Status.unschedulable("pods with default topology constraints are not signable")
        return None

    @hookimpl
    def pre_filter(self, state: CycleState, pod: PodInfo, cluster: ClusterState) -> Status | None:
        try:
            constraints = self.constraints(pod, cluster, DO_NOT_SCHEDULE)
            if not constraints:
                return Status.skip()  # nothing to filter: skip the per-node state entirely
            computed = self._pre_filter_state(pod, cluster, constraints)
        except SelectorError as exc:
            return Status.error(f"get constraints from pod: {exc}")
        state[_PRE_FILTER_KEY] = computed
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> FilterResult | Status:
        computed: _PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if computed is None or computed.version != pod_state_version(cluster):
            try:
                computed = self._pre_filter_state(pod, cluster)
            except SelectorError as exc:
                return Status.error(f"get constraints from pod: {exc}")
            state[_PRE_FILTER_KEY] = computed
        n = len(nodes)
        undecided = np.ones(n, dtype=bool)
        missing = np.zeros(n, dtype=bool)
        skewed = np.zeros(n, dtype=bool)
        for hc in computed.constraints:
            ids = hc.ids[nodes.rows]
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

    # ---- score --------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState) -> Status | None:
        table = cluster.table
        if len(table) == 0:
            return Status.skip()
        try:
            constraints = self.constraints(pod, cluster, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.error(f"obtaining pod's soft topology spread constraints: {exc}")
        if not constraints:
            return Status.skip()
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        filtered = nodes.rows
        ignored_f = np.zeros(filtered.shape[0], dtype=bool)
        all_rows = alive_rows(table)
        has_all = np.ones(all_rows.shape[0], dtype=bool)
        if require_all:
            for c in constraints:
                ignored_f |= table.label_values(c.topology_key)[0][filtered] < 0
                has_all &= table.label_values(c.topology_key)[0][all_rows] >= 0
        kept = filtered[~ignored_f]
        affinity_ok, taints_ok = self._inclusion(pod, table, all_rows, constraints)
        soft = []
        for c in constraints:
            ids, values = table.label_values(c.topology_key)
            empty_id = values.index("") if "" in values else len(values)
            if c.topology_key == HOSTNAME_LABEL:
                size = int(kept.shape[0])
                host = _pod_counts(cluster, c.selector, pod.namespace)
                soft.append(_SoftConstraint(c, ids, math.log(size + 2), None, empty_id, host))
                continue
            mapped = np.where(ids >= 0, ids, empty_id)  # a missing label reads as value ""
            present = np.zeros(len(values) + 1, dtype=bool)
            present[mapped[kept]] = True
            size = int(present.sum())
            eligible = has_all & affinity_ok if c.honor_affinity else has_all.copy()
            if c.honor_taints:
                eligible &= taints_ok
            erows = all_rows[eligible]
            erows = erows[present[mapped[erows]]]
            counts = _pod_counts(cluster, c.selector, pod.namespace)
            per_domain = domain_sums(mapped[erows], counts[erows], len(values) + 1)
            soft.append(_SoftConstraint(c, ids, math.log(size + 2), per_domain, empty_id, None, present))
        ignored = np.zeros(table.capacity, dtype=bool)
        ignored[filtered[ignored_f]] = True
        state[_PRE_SCORE_KEY] = _PreScoreState(soft, ignored)
        return None

    @hookimpl
    def score(self, state: CycleState, nodes: NodeView) -> np.ndarray:
        computed: _PreScoreState = state[_PRE_SCORE_KEY]
        rows = nodes.rows
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

    @hookimpl
    def normalize_score(self, state: CycleState, nodes: NodeView, scores: np.ndarray) -> np.ndarray:
        computed: _PreScoreState = state[_PRE_SCORE_KEY]
        valid = ~computed.ignored[nodes.rows]
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

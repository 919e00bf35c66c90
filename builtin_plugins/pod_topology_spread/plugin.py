"""PodTopologySpread: hard spread constraints filter, soft ones (or system defaults) score.

Mirrors kube-scheduler's podtopologyspread/plugin.go (args, events, queueing hints, SignPod, the
constraints a pod is held to); the extension points' bodies are in filtering.py and scoring.py, as upstream's.
"""

from __future__ import annotations

import weakref
from typing import Any, Literal

import numpy as np
from kubeberth import (
    ClusterView,
    CycleState,
    FeatureGates,
    FilterResult,
    MemoKey,
    NodeView,
    PodView,
    PreFilterState,
    Status,
    hookimpl,
    is_pod,
)
from kubeberth.api.helpers import LabelSelector, SelectorError, pod_state_version
from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import filtering, scoring
from .common import (
    CONSTRAINTS,
    CONSTRAINTS_WITHOUT_MATCH_LABEL_KEYS,
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    TERMINATING_INDEX_KEY,
    SpreadConstraint,
    Terminating,
    default_selector,
    parse_constraints,
)
from .filtering import PRE_FILTER_KEY
from .scoring import PRE_SCORE_KEY

_SELECTORS_KEPT = 4096


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



class PodTopologySpread:
    name = "PodTopologySpread"
    pre_filter_state = PreFilterState.SELF_UPDATING
    Args = PodTopologySpreadArgs
    pod_indexes = {TERMINATING_INDEX_KEY: Terminating}
    queueing_hints = {
        "Node/Add": "is_schedulable_after_node_change",
        "Node/UpdateNodeLabel": "is_schedulable_after_node_change",
        "Node/UpdateNodeTaint": "is_schedulable_after_node_change",
        "Node/Delete": "is_schedulable_after_node_change",
        "Pod/Add": "is_schedulable_after_assigned_pod_change",
        "Pod/UpdatePodLabel": "is_schedulable_after_assigned_pod_change",
        "Pod/Delete": "is_schedulable_after_assigned_pod_change",
        "TargetPod/UpdatePodToleration": "is_schedulable_after_target_pod_change",
        "TargetPod/UpdatePodLabel": "is_schedulable_after_target_pod_change",
    }
    requeue_on = frozenset(queueing_hints)  # EventsToRegister: exactly the hinted events

    def __init__(self, args: PodTopologySpreadArgs | None = None, feature_gates: FeatureGates | None = None) -> None:
        args = args or PodTopologySpreadArgs()
        gates = feature_gates if feature_gates is not None else FeatureGates()
        # MatchLabelKeysInPodTopologySpread (beta, on by default): off, a constraint's matchLabelKeys
        # are ignored (upstream's enableMatchLabelKeysInPodTopologySpread). Its companion
        # MatchLabelKeysInPodTopologySpreadSelectorMerge is the API server's (it merges the keys into
        # labelSelector when the pod is created); the scheduler reads no other gate here.
        self.match_label_keys = gates.enabled("MatchLabelKeysInPodTopologySpread")
        self._constraint_keys = CONSTRAINTS if self.match_label_keys else CONSTRAINTS_WITHOUT_MATCH_LABEL_KEYS
        self.system_defaulted = args.defaultingType == "System"
        self.default_constraints = (
            list(SYSTEM_DEFAULT_CONSTRAINTS) if self.system_defaulted else list(args.defaultConstraints)
        )
        self._default_keys: dict[str, MemoKey[list[SpreadConstraint]]] = {
            a: MemoKey(f"PodTopologySpread.defaults.{a}") for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
        }  # per instance: defaults are this plugin's configuration
        # Without matchLabelKeys the parsed defaults are the same for every pod: parse them once.
        self._parsed_defaults: dict[str, list[SpreadConstraint]] = {}
        if not self.match_label_keys or not any(c.get("matchLabelKeys") for c in self.default_constraints):
            for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
                self._parsed_defaults[action] = parse_constraints(self.default_constraints, {}, action, self.match_label_keys)
        # Default selectors by (namespace, labels, controller), valid while the cluster's objects
        # (Services, ReplicaSets, ...) are unchanged: a workload's replicas share theirs.
        self._selectors: dict[tuple[Any, ...], LabelSelector] = {}
        self._selectors_of: weakref.ref[ClusterView] | None = None  # the cluster they were read from
        self._selectors_version = -1  # and its objects_version then

    # ---- queueing hints -----------------------------------------------------------------
    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any) -> bool:
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

    def is_schedulable_after_assigned_pod_change(self, pod: PodView, old: PodView | None, new: PodView | None) -> bool:
        """isSchedulableAfterAssignedPodChange: a placed pod of the pod's namespace that one of its hard
        constraints' selectors counts was added or deleted, or its labels changed what a selector counts."""

        def involved(other: PodView) -> bool:
            return bool(other.node_name or other.nominated_node_name) and other.namespace == pod.namespace

        if (new is not None and not involved(new)) or (old is not None and not involved(old)):
            return False
        if not pod.topology_spread_constraints:
            return True  # default constraints select by the pod's Services and owners: not known here
        constraints = parse_constraints(pod.topology_spread_constraints, pod.labels, DO_NOT_SCHEDULE, self.match_label_keys)
        if old is not None and new is not None:
            if old.labels == new.labels:
                return False
            return any(c.selector.matches(old.labels) != c.selector.matches(new.labels) for c in constraints)
        changed = new if new is not None else old
        return changed is not None and any(c.selector.matches(changed.labels) for c in constraints)

    def is_schedulable_after_target_pod_change(self, pod: PodView, old: PodView, new: PodView) -> bool:
        """isSchedulableAfterTargetPodChange: the rejected pod got a toleration while one of its
        constraints honours taints, or its labels changed what one of its selectors counts."""
        if not is_pod(old) or not is_pod(new):
            raise TypeError(f"expected pods, got {type(old).__name__} and {type(new).__name__}")
        raw = pod.topology_spread_constraints or self.default_constraints
        constraints = [
            c
            for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
            for c in parse_constraints(raw, pod.labels, action, self.match_label_keys)
        ]
        if old.tolerations != new.tolerations and any(c.honor_taints for c in constraints):
            return True
        if old.labels == new.labels:
            return False
        return any(c.selector.matches(old.labels) != c.selector.matches(new.labels) for c in constraints)

    # ---- constraints --------------------------------------------------------------------
    def constraints(self, pod: PodView, cluster: ClusterView, action: str) -> list[SpreadConstraint]:
        if pod.topology_spread_constraints:
            key = self._constraint_keys[action]
            found = key.get(pod)
            if found is None:
                found = key.set(
                    pod, parse_constraints(pod.topology_spread_constraints, pod.labels, action, self.match_label_keys)
                )
            return found
        constraints = self._parsed_defaults.get(action)
        if constraints is None:  # defaults with matchLabelKeys depend on the pod's labels
            key = self._default_keys[action]
            constraints = key.get(pod)
            if constraints is None:
                constraints = key.set(pod, parse_constraints(self.default_constraints, pod.labels, action, self.match_label_keys))
        if not constraints:
            return []
        selector = self._default_selector(pod, cluster)
        if selector.everything:
            return []
        return [
            SpreadConstraint(c.max_skew, c.topology_key, selector, c.min_domains, c.honor_affinity, c.honor_taints)
            for c in constraints
        ]

    def _default_selector(self, pod: PodView, cluster: ClusterView) -> LabelSelector:
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
    # ---- filter -------------------------------------------------------------------------
    def _pre_filter_state(
        self, pod: PodView, cluster: ClusterView, constraints: list[SpreadConstraint] | None = None
    ) -> filtering.PreFilterState:
        if constraints is None:
            constraints = self.constraints(pod, cluster, DO_NOT_SCHEDULE)
        return filtering.pre_filter_state(pod, cluster, constraints)

    @hookimpl
    def sign_pod(self, pod: PodView) -> Status | None:
        """kube-scheduler's PodTopologySpread.SignPod: spreading depends on pods elsewhere, so a pod
        with constraints, or any pod when default constraints apply (the System default), is unsignable."""
        if pod.topology_spread_constraints:
            return Status.unschedulable("pods with topology constraints are not signable")
        if self.default_constraints:
            return Status.unschedulable("pods with default topology constraints are not signable")
        return None

    @hookimpl
    def pre_filter(self, state: CycleState, pod: PodView, cluster: ClusterView) -> Status | None:
        try:
            constraints = self.constraints(pod, cluster, DO_NOT_SCHEDULE)
            if not constraints:
                return Status.skip()  # nothing to filter: skip the per-node state entirely
            computed = self._pre_filter_state(pod, cluster, constraints)
        except SelectorError as exc:
            return Status.error(f"get constraints from pod: {exc}")
        state[PRE_FILTER_KEY] = computed
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | Status:
        computed: filtering.PreFilterState | None = state.get(PRE_FILTER_KEY)
        if computed is None or computed.version != pod_state_version(cluster):
            try:
                computed = self._pre_filter_state(pod, cluster)
            except SelectorError as exc:
                return Status.error(f"get constraints from pod: {exc}")
            state[PRE_FILTER_KEY] = computed
        return filtering.filter_rows(computed, nodes.rows)

    # ---- score --------------------------------------------------------------------------
    @hookimpl
    def pre_score(self, state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView) -> Status | None:
        if len(cluster.table) == 0:
            return Status.skip()
        try:
            constraints = self.constraints(pod, cluster, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.error(f"obtaining pod's soft topology spread constraints: {exc}")
        if not constraints:
            return Status.skip()
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        state[PRE_SCORE_KEY] = scoring.pre_score_state(pod, cluster, nodes.rows, constraints, require_all)
        return None

    @hookimpl
    def score(self, state: CycleState, nodes: NodeView) -> np.ndarray:
        return scoring.score_rows(state[PRE_SCORE_KEY], nodes.rows)

    @hookimpl
    def normalize_score(self, state: CycleState, nodes: NodeView, scores: np.ndarray) -> np.ndarray:
        return scoring.normalize(state[PRE_SCORE_KEY], nodes.rows, scores)

"""The per-profile framework runtime: runs each extension point's plugins in configured order
(kube-scheduler's frameworkImpl, framework/runtime/framework.go).

A Framework is immutable and belongs to one Generation; cycles that started on it finish on it
even if a newer generation has been swapped in meanwhile. It runs every extension point, the pod
group cycle's included; the points themselves live by role in filter_points (PreFilter, Filter,
PostFilter), score_points (PreScore, Score, NormalizeScore), bind_points (Reserve .. PostBind)
and pod_group_points (placements, PodGroupPostFilter). What each plugin did is reported to the
cycle's `Recorder` (records.py); hooks are bound and guarded in hooks.py.

Why BoundHook lists and not `pm.hook.<name>(...)`: pytest and datasette call every plugin of a
hook through pluggy's manager, in registration order, with no per-call configuration. A
kube-scheduler profile is configuration per hook: which plugins are enabled at each extension
point, in which order, and with which score weight, and several profiles (each with its own
plugin instances and args) run side by side in one process and one generation. One
PluginManager per profile would still give one order per hook and no weights, and pluggy's
`_multicall` collects every result where the runtime must stop at the first rejection, skip
plugins a PreFilter or PreScore skipped, time each plugin for the decision record and wrap its
error with the plugin's name. So each profile binds its hooks once, at generation build, into
ordered `BoundHook` lists (with weights) and the runtime walks them; pluggy still discovers the
plugins and checks their hook names and argument names against the hookspecs (plugins.py), so
the hookspecs' argument names stay the contract.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.capabilities import Capabilities, capabilities_of
from ..api.features import DEFAULT_FEATURE_GATES, FeatureGates
from ..api.signing import PodSignature, SignFragment, join_fragments
from ..api.status import Code, Status
from ..api.types import MAX_NODE_SCORE, CycleState, NodeInfo, PodGroupCycleState
from . import bind_points, filter_points, pod_group_points, score_points
from .extenders import HTTPExtender
from .hooks import BoundHook, PluginFailure, call_status, filter_node_adapter, score_node_adapter
from .pod_group_points import PodGroupHooks, Schedule
from .records import CycleRecord, Diagnosis, Recorder

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.placement import (
        Placement,
        PlacementProgress,
        PodGroupAssignments,
        PodGroupInfo,
        PodGroupPostFilterResult,
    )
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import NodeView
    from ..cache.podinfo import PodInfo

__all__ = [
    "DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE",
    "MAX_NODE_SCORE",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "REJECTED_NODES_RECORDED",
    "TOP_SCORES_RECORDED",
    "BoundHook",
    "CycleRecord",
    "CycleState",
    "Diagnosis",
    "Framework",
    "NodeInfo",
    "PluginFailure",
    "filter_node_adapter",
    "num_feasible_nodes_to_find",
    "score_node_adapter",
]

log = logging.getLogger(__name__)

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0  # 0 = kube-scheduler's adaptive percentage
TOP_SCORES_RECORDED = 5  # nodes kept with their per-plugin breakdown (traces, explain)
REJECTED_NODES_RECORDED = 10  # node names kept per plugin and reason when a pod is unschedulable


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None) -> int:
    """kube-scheduler's sampling: how many feasible nodes to find before scoring."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage == 100:
        return num_all_nodes
    adaptive = percentage or 0
    if adaptive <= 0:
        adaptive = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    found = num_all_nodes * adaptive // 100
    return max(found, MIN_FEASIBLE_NODES_TO_FIND)


class Framework:
    """One profile's plugins per extension point, in order, with score weights."""

    def __init__(
        self,
        profile: str,
        points: dict[str, list[BoundHook]],
        normalizers: dict[str, BoundHook],
        unreservers: list[BoundHook],
        plugins: dict[str, Any],
        percentage_of_nodes_to_score: int | None,
        generation_id: str = "",
        capabilities: dict[str, Capabilities] | None = None,
        signers: Sequence[BoundHook] | None = None,
        unsigned_plugins: Sequence[str] = (),
        feature_gates: FeatureGates = DEFAULT_FEATURE_GATES,
        pre_flights: dict[str, BoundHook] | None = None,
    ) -> None:
        self.profile = profile
        self.feature_gates = feature_gates
        # pre_bind_pre_flight of the plugins enabled at preBind that implement it (a companion
        # hook, as normalize_score is to score); the binding cycle runs them under this gate.
        self.pre_flights: dict[str, BoundHook] = pre_flights or {}
        self.nominated_node_name_for_expectation = feature_gates.enabled("NominatedNodeNameForExpectation")
        self.points = points
        self.normalizers = normalizers
        self.unreservers = unreservers
        self.plugins = plugins
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.generation_id = generation_id
        self.score_weight_map: dict[str, int] = {h.plugin: h.weight for h in points.get("score", ())}
        queue_sort = points.get("queue_sort") or []
        self._queue_sort = queue_sort[0] if queue_sort else None
        self.capabilities = capabilities if capabilities is not None else {n: capabilities_of(p) for n, p in plugins.items()}
        self._subsets: dict[tuple[str, tuple[str, ...]], Framework] = {}
        self.extenders: tuple[HTTPExtender, ...] = ()  # the generation's `extenders:` (kube-scheduler's Extenders())
        # kube-scheduler's computeBatchablePlugins: the sign_pod of every pre_filter, filter,
        # pre_score and score plugin, and those that have none (they turn signing off). None:
        # built without them (a derived framework), so it never signs.
        self.signers = None if signers is None else tuple(signers)
        self.unsigned_plugins = tuple(unsigned_plugins)
        self._pod_group_hooks: PodGroupHooks | None = None  # bound at the first pod group cycle

    def capabilities_of(self, plugin: str) -> Capabilities:
        found = self.capabilities.get(plugin)
        return found if found is not None else Capabilities()

    def pod_indexes(self) -> dict[Hashable, Callable[[Any], Any]]:
        """The pod indexes the enabled plugins declare (`pod_indexes`), by key."""
        return {key: factory for caps in self.capabilities.values() for key, factory in caps.pod_indexes.items()}

    def interested(
        self, plugin: str, event: str, pod: PodInfo | None = None, old: Any = None, new: Any = None,
        cluster: ClusterState | None = None,
    ) -> bool:
        """Can `event` make `pod`, rejected by `plugin`, schedulable (its `requeue_on`, then its
        queueing hint for the event when a pod is given)?"""
        found = self.capabilities.get(plugin)
        if found is None:
            return True
        return found.interested_in(event) if pod is None else found.requeues(event, pod, old, new, cluster)

    def only(self, point: str, plugins: Sequence[str]) -> Framework:
        """This framework restricted to `plugins` at one extension point (cached; what preemption runs)."""
        key = (point, tuple(plugins))
        found = self._subsets.get(key)
        if found is None:
            wanted = set(plugins)
            hooks = [h for h in self.points.get(point, ()) if h.plugin in wanted]
            found = Framework(
                self.profile, {point: hooks}, {}, [], self.plugins, self.percentage_of_nodes_to_score,
                self.generation_id, self.capabilities, feature_gates=self.feature_gates,
            )
            self._subsets[key] = found
        return found

    def enabled(self, point: str) -> list[str]:
        return [h.plugin for h in self.points.get(point, ())]

    def score_weights(self) -> dict[str, int]:
        return {h.plugin: h.weight for h in self.points.get("score", ())}

    # ---- signatures (opportunistic batching) --------------------------------------------
    @property
    def signing_disabled_reason(self) -> str:
        """Why this profile never signs pods ("" when it does): kube-scheduler's enableSignatures."""
        if self.signers is None:
            return "the framework was built without its plugins' signers"
        if self.extenders:
            return "the profile has extenders"
        if self.unsigned_plugins:
            return f"plugin(s) {', '.join(self.unsigned_plugins)} do not implement sign_pod"
        return ""

    def sign_pod(self, pod: PodInfo, cluster: ClusterState | None = None) -> tuple[PodSignature | None, str]:
        """kube-scheduler's SignPod: (signature, "") or (None, why the pod is unsignable)."""
        why = self.signing_disabled_reason
        if why:
            return None, why
        fragments: list[SignFragment] = []
        kwargs = {"pod": pod, "cluster": cluster}
        assert self.signers is not None
        for hook in self.signers:
            try:
                result = hook.call(kwargs)
            except Exception as exc:
                log.exception("sign_pod of plugin %s raised for pod %s", hook.plugin, pod.key)
                return None, f"{hook.plugin}: sign_pod raised {type(exc).__name__}"
            if isinstance(result, Status):
                if result.code == Code.ERROR:
                    log.error("sign_pod of plugin %s failed for pod %s: %s", hook.plugin, pod.key, result.message)
                if not result.ok:
                    self._refuser_first(hook)
                    return None, f"{hook.plugin}: {result.message or result.code.name}"
                continue
            if result is None:
                continue
            for fragment in result:
                if not isinstance(fragment, SignFragment):
                    log.error("sign_pod of plugin %s returned %r, not a SignFragment", hook.plugin, fragment)
                    return None, f"{hook.plugin}: sign_pod returned {type(fragment).__name__}, not SignFragment"
                fragments.append(fragment)
        try:
            return join_fragments(pod.scheduler_name, fragments), ""
        except (TypeError, ValueError) as exc:
            log.error("signature of pod %s is not JSON-serialisable: %s", pod.key, exc)
            return None, f"signature not serialisable: {exc}"

    def _refuser_first(self, hook: BoundHook) -> None:
        """Ask the plugin that refused last first: the order of signers changes nothing else
        (any refusal makes the pod unsignable; equal keys carry equal values), and a profile
        whose plugin refuses every pod (PodTopologySpread's default constraints) pays one call."""
        signers = self.signers
        if signers and signers[0] is not hook:
            self.signers = (hook, *(h for h in signers if h is not hook))

    # ---- queueing ----------------------------------------------------------------------
    def queue_sort_key(self, pod: PodInfo) -> Any:
        if self._queue_sort is None:
            return 0
        return self._queue_sort.call({"pod": pod})

    def run_pre_enqueue(self, pod: PodInfo, handle: Handle) -> Status:
        kwargs = {"pod": pod, "handle": handle}
        for hook in self.points.get("pre_enqueue", ()):
            status = call_status(hook, kwargs)
            if not status.ok:
                return status
        return Status.success()

    # ---- scheduling cycle (filter_points, score_points) -----------------------------------
    def run_pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle,
        record: Recorder | None,
    ) -> tuple[Status, frozenset[str] | None]:
        """RunPreFilterPlugins: (status, the narrowed node names or None)."""
        return filter_points.run_pre_filter(self.points.get("pre_filter", ()), state, pod, nodes, cluster, handle, record)

    def run_filters(
        self,
        state: CycleState,
        pod: PodInfo,
        nodes: NodeView,
        cluster: ClusterState,
        handle: Handle,
        diagnosis: Diagnosis | None = None,
        record: Recorder | None = None,
    ) -> np.ndarray:
        """Run every filter over `nodes`; returns the feasible mask. Also used by preemption."""
        hooks = self.points.get("filter", ())
        return filter_points.run_filters(hooks, state, pod, nodes, cluster, handle, diagnosis, record)

    def run_post_filter(
        self, state: CycleState, pod: PodInfo, cluster: ClusterState, handle: Handle, diagnosis: Diagnosis,
        record: Recorder | None,
    ) -> tuple[str | None, Status]:
        """RunPostFilterPlugins: (the nominated node or None, status)."""
        hooks = self.points.get("post_filter", ())
        return filter_points.run_post_filter(hooks, state, pod, cluster, handle, diagnosis, record)

    def run_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle,
        record: Recorder | None,
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """PreScore, Score and NormalizeScore over `nodes`: (weighted total, normalized per plugin)."""
        self.run_pre_score(state, pod, nodes, cluster, handle, record)
        raw = self.run_raw_scores(state, pod, nodes, cluster, handle, record)
        return self.normalize_scores(state, pod, nodes, raw, record)

    def run_pre_score(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle,
        record: Recorder | None,
    ) -> None:
        score_points.run_pre_score(self.points.get("pre_score", ()), state, pod, nodes, cluster, handle, record)

    def run_raw_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Handle,
        record: Recorder | None,
    ) -> dict[str, np.ndarray]:
        """Each non-skipped score plugin's raw scores over `nodes` (kube-scheduler's RunRawScorePlugins)."""
        return score_points.run_raw_scores(self.points.get("score", ()), state, pod, nodes, cluster, handle, record)

    def normalize_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, raw_scores: dict[str, np.ndarray],
        record: Recorder | None = None, owned: bool = False,
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """NormalizeScore per plugin, range check and weights (kube-scheduler's NormalizeScores).

        `raw_scores` is left as it is (a normalizer may work in place on its own copy), unless
        `owned`: the caller gives the arrays up."""
        return score_points.normalize_scores(
            self.normalizers, self.score_weight_map, state, pod, nodes, raw_scores, owned
        )

    # ---- reserve, permit and the binding cycle (bind_points) -------------------------------
    def run_reserve(self, state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Handle) -> Status:
        return bind_points.run_reserve(self.points.get("reserve", ()), state, pod, node, cluster, handle)

    def run_unreserve(self, state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Handle) -> None:
        bind_points.run_unreserve(self.unreservers, state, pod, node, cluster, handle)

    def run_permit(self, state: CycleState, pod: PodInfo, node: str, handle: Handle) -> tuple[Status, dict[str, float]]:
        """Returns (status, {plugin: timeout}) where a non-empty dict means the pod must wait."""
        return bind_points.run_permit(self.points.get("permit", ()), state, pod, node, handle)

    def run_pre_bind_pre_flights(self, state: CycleState, pod: PodInfo, node: str, handle: Handle) -> Status:
        """kube-scheduler's RunPreBindPreFlights (see bind_points.run_pre_bind_pre_flights)."""
        hooks = self.points.get("pre_bind", ())
        return bind_points.run_pre_bind_pre_flights(hooks, self.pre_flights, state, pod, node, handle)

    def pre_bind_groups(self, state: CycleState) -> list[list[BoundHook]]:
        """kube-scheduler's getPreBindPluginGroups (see bind_points.pre_bind_groups)."""
        return bind_points.pre_bind_groups(self.points.get("pre_bind", ()), state)

    def run_pre_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Handle) -> Status:
        return bind_points.run_pre_bind(self.points.get("pre_bind", ()), state, pod, node, handle)

    def run_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Handle) -> Status:
        return bind_points.run_bind(self.points.get("bind", ()), state, pod, node, handle)

    def run_post_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Handle) -> None:
        bind_points.run_post_bind(self.points.get("post_bind", ()), state, pod, node, handle)

    # ---- the pod group cycle (pod_group_points) --------------------------------------------
    @property
    def pod_group_hooks(self) -> PodGroupHooks:
        """placement_feasible, pod_group_post_filter and normalize_placement_score, bound once."""
        found = self._pod_group_hooks
        if found is None:
            found = self._pod_group_hooks = PodGroupHooks.of(self.plugins, self.points)
        return found

    def run_placement_generate(
        self, info: PodGroupInfo, everything: Placement, handle: Handle, state: PodGroupCycleState
    ) -> list[Placement] | Status:
        """RunPlacementGeneratePlugins: the candidate placements for the group, or a Status."""
        hooks = self.points.get("placement_generate", ())
        return pod_group_points.run_placement_generate(hooks, info, everything, handle, state)

    def run_placement_feasible(self, info: PodGroupInfo, progress: PlacementProgress, handle: Handle) -> Status:
        """RunPlacementFeasiblePlugins: can the group still meet its constraints given `progress`?"""
        return pod_group_points.run_placement_feasible(self.pod_group_hooks.feasible, info, progress, handle)

    def run_placement_scores(
        self, info: PodGroupInfo, assignments: Sequence[PodGroupAssignments], handle: Handle
    ) -> np.ndarray | Status:
        """RunPlacementScorePlugins: weighted totals aligned with `assignments`, or an Error."""
        hooks = self.points.get("placement_score", ())
        normalizers = self.pod_group_hooks.normalizers or {}
        return pod_group_points.run_placement_scores(hooks, normalizers, info, assignments, handle)

    def run_pod_group_post_filter(
        self, info: PodGroupInfo, schedule: Schedule, cluster: ClusterState, handle: Handle, record: Recorder,
        state: PodGroupCycleState,
    ) -> tuple[Status, PodGroupPostFilterResult | None]:
        """RunPodGroupPostFilterPlugins with the group's PodGroupCycleState: (status, the last plugin's result;
        None without plugins)."""
        hooks = self.pod_group_hooks.post_filter
        return pod_group_points.run_pod_group_post_filter(hooks, info, schedule, cluster, handle, record, state)

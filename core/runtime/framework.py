"""The per-profile framework runtime: runs each extension point's plugins in configured order.

A Framework is immutable and belongs to one Generation; cycles that started on it finish on it
even if a newer generation has been swapped in meanwhile.
"""

from __future__ import annotations

import logging
import operator
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..api.capabilities import Capabilities, capabilities_of
from ..api.features import DEFAULT_FEATURE_GATES, FeatureGates
from ..api.signing import PodSignature, SignFragment, join_fragments
from ..api.status import (
    CODE_STRINGS,
    Code,
    FilterResult,
    PermitResult,
    PostFilterResult,
    PreBindPreFlightResult,
    PreFilterResult,
    Rejection,
    Status,
    as_status,
)
from ..api.types import MAX_NODE_SCORE, CycleState, NodeInfo
from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeView
from ..cache.podinfo import PodInfo
from .extenders import HTTPExtender
from .records import CycleRecord, Diagnosis

log = logging.getLogger(__name__)

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0  # 0 = kube-scheduler's adaptive percentage
TOP_SCORES_RECORDED = 5  # nodes kept with their per-plugin breakdown (traces, explain)
REJECTED_NODES_RECORDED = 10  # node names kept per plugin and reason when a pod is unschedulable


# Step attributes shared by every record (read-only by convention): ~20 steps per cycle and
# thousands of kept records would otherwise hold a small dict each.
# (Built once also because Enum.name is a descriptor, slow on the hot path.)
_CODE_ATTRS: dict[Code, dict[str, Any]] = {code: {"code": code.name} for code in Code}
_WEIGHT_ATTRS: dict[int, dict[str, Any]] = {}


def _weight_attrs(weight: int) -> dict[str, Any]:
    found = _WEIGHT_ATTRS.get(weight)
    if found is None:
        found = _WEIGHT_ATTRS[weight] = {"weight": weight}
    return found


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None) -> int:
    """kube-scheduler's sampling: how many feasible nodes to find before scoring."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage == 100:
        return num_all_nodes
    adaptive = percentage or 0
    if adaptive <= 0:
        adaptive = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    found = num_all_nodes * adaptive // 100
    return max(found, MIN_FEASIBLE_NODES_TO_FIND)


class PluginFailure(Exception):
    """A plugin raised or returned an Error status; the pod gets an Error and is retried."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


@dataclass(slots=True)
class BoundHook:
    """One plugin's implementation of one hook, with the argument names it asked for."""

    plugin: str
    fn: Callable[..., Any]
    argnames: tuple[str, ...]
    weight: int = 1
    # The arguments picked out of the call's keyword dict in one C call (hooks run ~20 times per pod).
    _pick: Callable[[dict[str, Any]], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = self.argnames
        if not names:
            self._pick = lambda kwargs: ()
        elif len(names) == 1:
            key = names[0]
            self._pick = lambda kwargs: (kwargs[key],)
        else:
            self._pick = operator.itemgetter(*names)

    def call(self, kwargs: dict[str, Any]) -> Any:
        return self.fn(*self._pick(kwargs))


def filter_node_adapter(plugin: str, fn: Callable[..., Any], argnames: tuple[str, ...]) -> Callable[..., Any]:
    """Turn a per-node filter into a batch filter (a Python call per node)."""

    def batch(state, pod, nodes, cluster, handle):  # noqa: ANN001 - mirrors the hookspec
        feasible = np.ones(len(nodes), dtype=bool)
        reasons: dict[tuple[str, Code], list[int]] = {}
        kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
        for i, row in enumerate(nodes.rows.tolist()):
            kwargs["node"] = NodeInfo(cluster, row)
            status = as_status(fn(*[kwargs[a] for a in argnames]), plugin)
            if status.code == Code.ERROR:
                return status
            if status.is_rejected:
                feasible[i] = False
                for reason in status.reasons or (f"rejected by {plugin}",):
                    reasons.setdefault((reason, status.code), []).append(i)
        rejections = []
        for (reason, code), idx in reasons.items():
            mask = np.zeros(len(nodes), dtype=bool)
            mask[idx] = True
            rejections.append(Rejection(reason, mask, code))
        return FilterResult(feasible, rejections)

    return batch


def score_node_adapter(fn: Callable[..., Any], argnames: tuple[str, ...]) -> Callable[..., Any]:
    """Turn a per-node score into a batch score (a Python call per node)."""

    def batch(state, pod, nodes, cluster, handle):  # noqa: ANN001 - mirrors the hookspec
        kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
        out = np.zeros(len(nodes), dtype=np.int64)
        for i, row in enumerate(nodes.rows.tolist()):
            kwargs["node"] = NodeInfo(cluster, row)
            out[i] = int(fn(*[kwargs[a] for a in argnames]))
        return out

    return batch


# ---- the framework ---------------------------------------------------------------------
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

    def capabilities_of(self, plugin: str) -> Capabilities:
        found = self.capabilities.get(plugin)
        return found if found is not None else Capabilities()

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

    def run_pre_enqueue(self, pod: PodInfo, handle: Any) -> Status:
        kwargs = {"pod": pod, "handle": handle}
        for hook in self.points.get("pre_enqueue", ()):
            status = _call_status(hook, kwargs)
            if not status.ok:
                return status
        return Status.success()

    # ---- scheduling cycle --------------------------------------------------------------
    def run_pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Any, record: CycleRecord | None
    ) -> tuple[Status, frozenset[str] | None]:
        kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
        narrowed: frozenset[str] | None = None
        with_nodes: set[str] = set()  # plugins that narrowed the candidates, for the empty-set message
        rejected: Status | None = None
        for hook in self.points.get("pre_filter", ()):
            t0 = time.time_ns()
            try:
                result = _guarded(hook, kwargs)
            except PluginFailure as failure:
                raise PluginFailure(_wrapped(failure.status, f'running PreFilter plugin "{hook.plugin}"', hook.plugin)) from failure.__cause__
            names = None
            if isinstance(result, PreFilterResult):
                names = result.node_names
                status = (result.status or Status.success()).with_plugin(hook.plugin)
            else:
                status = as_status(result, hook.plugin)
            if record is not None:
                record.step("PreFilter", hook.plugin, t0, _CODE_ATTRS[status.code])
            if status.code == Code.SKIP:
                state.skip_filter.add(hook.plugin)
                continue
            if status.code == Code.ERROR:
                raise PluginFailure(_wrapped(status, f'running PreFilter plugin "{hook.plugin}"', hook.plugin))
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return status, narrowed
            if not status.ok:
                rejected = status  # kube-scheduler keeps running the others; the last rejection is reported
                continue
            if names is not None:
                with_nodes.add(hook.plugin)
                state.narrowed_by.add(hook.plugin)
                narrowed = names if narrowed is None else narrowed & names
                if not narrowed:
                    # kube-scheduler: an empty intersection rejects the pod everywhere, naming the plugins.
                    plugins = sorted(with_nodes)
                    msg = (
                        f"node(s) didn't satisfy plugin {plugins[0]}"
                        if len(plugins) == 1
                        else f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"
                    )
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), hook.plugin), narrowed
        return (rejected or Status.success()), narrowed

    def run_filters(
        self,
        state: CycleState,
        pod: PodInfo,
        nodes: NodeView,
        cluster: ClusterState,
        handle: Any,
        diagnosis: Diagnosis | None = None,
        record: CycleRecord | None = None,
    ) -> np.ndarray:
        """Run every filter over `nodes`; returns the feasible mask. Also used by preemption."""
        kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
        alive = np.ones(len(nodes), dtype=bool)
        view = nodes
        for hook in self.points.get("filter", ()):
            if hook.plugin in state.skip_filter or len(view) == 0:
                continue
            t0 = time.time_ns()
            kwargs["nodes"] = view
            try:
                result = _filter_result(hook, _guarded(hook, kwargs), len(view))
            except PluginFailure as failure:
                if record is not None:
                    record.step("Filter", hook.plugin, t0, {"code": "ERROR", "nodes": len(view), "rejected": 0})
                raise PluginFailure(_wrapped(failure.status, f'running "{hook.plugin}" filter plugin', hook.plugin)) from failure.__cause__
            if result is None:  # passed every node: still a plugin that ran (explain, spans, metrics)
                if record is not None:
                    record.step("Filter", hook.plugin, t0, {"code": "SUCCESS", "nodes": len(view), "rejected": 0})
                continue
            feasible, rejections = result
            rejected = ~feasible
            n_rejected = int(rejected.sum())
            if n_rejected:
                counts: dict[str, int] = {}
                covered = np.zeros(len(view), dtype=bool)
                for rej in rejections:
                    hit = np.asarray(rej.nodes, dtype=bool) & rejected
                    covered |= hit
                    if diagnosis is not None and hit.any():
                        diagnosis.add(hook.plugin, rej.reason, view.rows[hit], rej.code)
                    # One reason may come under two codes (e.g. resolvable on some nodes,
                    # unresolvable on others): add, as the FitError histogram does.
                    counts[rej.reason] = counts.get(rej.reason, 0) + int(hit.sum())
                uncovered = rejected & ~covered
                if uncovered.any():
                    reason = f"node(s) were rejected by {hook.plugin}"
                    counts[reason] = counts.get(reason, 0) + int(uncovered.sum())
                    if diagnosis is not None:
                        diagnosis.add(hook.plugin, reason, view.rows[uncovered], Code.UNSCHEDULABLE)
                if record is not None:
                    bucket = record.rejected.setdefault(hook.plugin, {})
                    for reason, count in counts.items():
                        bucket[reason] = bucket.get(reason, 0) + count
            if record is not None:
                record.step(
                    "Filter",
                    hook.plugin,
                    t0,
                    {"code": "UNSCHEDULABLE" if n_rejected else "SUCCESS", "nodes": len(view), "rejected": n_rejected},
                )
            if n_rejected:
                idx = np.flatnonzero(alive)
                alive[idx[rejected]] = False
                view = view.subset(feasible)
        return alive

    def run_post_filter(
        self, state: CycleState, pod: PodInfo, cluster: ClusterState, handle: Any, diagnosis: Diagnosis, record: CycleRecord | None
    ) -> tuple[str | None, Status]:
        kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle, "diagnosis": diagnosis}
        messages = []
        for hook in self.points.get("post_filter", ()):
            t0 = time.time_ns()
            result = _guarded(hook, kwargs)
            if isinstance(result, PostFilterResult):
                status = result.status.with_plugin(hook.plugin)
                nominated = result.nominated_node
                if record is not None and (result.candidates or result.victims or nominated):
                    record.preemption = {
                        "plugin": hook.plugin,
                        "candidates": result.candidates,
                        "victims": list(result.victims),
                        "nominated_node": nominated or "",
                    }
            else:
                status, nominated = as_status(result, hook.plugin), None
            if record is not None:
                record.step("PostFilter", hook.plugin, t0, {"code": status.code.name, "nominated": nominated or ""})
            if status.code == Code.ERROR:
                raise PluginFailure(status)
            if status.ok and nominated:
                return nominated, status
            if status.message:
                messages.append(status.message)
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                break
        return None, Status(Code.UNSCHEDULABLE, tuple(messages))

    def run_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Any, record: CycleRecord | None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """PreScore, Score and NormalizeScore over `nodes`: (weighted total, normalized per plugin)."""
        self.run_pre_score(state, pod, nodes, cluster, handle, record)
        raw = self.run_raw_scores(state, pod, nodes, cluster, handle, record)
        return self.normalize_scores(state, pod, nodes, raw, record)

    def run_pre_score(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Any, record: CycleRecord | None
    ) -> None:
        kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
        for hook in self.points.get("pre_score", ()):
            t0 = time.time_ns()
            status = _call_status(hook, kwargs)
            if record is not None:
                record.step("PreScore", hook.plugin, t0, _CODE_ATTRS[status.code])
            if status.code == Code.SKIP:
                state.skip_score.add(hook.plugin)
            elif not status.ok:
                raise PluginFailure(_wrapped(status, f'running PreScore plugin "{hook.plugin}"', hook.plugin))

    def run_raw_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState, handle: Any, record: CycleRecord | None
    ) -> dict[str, np.ndarray]:
        """Each non-skipped score plugin's raw scores over `nodes` (kube-scheduler's RunRawScorePlugins)."""
        kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
        raw_scores: dict[str, np.ndarray] = {}
        for hook in self.points.get("score", ()):
            if hook.plugin in state.skip_score:
                continue
            t0 = time.time_ns()
            where = f'running Score plugins: plugin "{hook.plugin}" failed with'
            try:
                raw = _guarded(hook, kwargs)
            except PluginFailure as failure:
                raise PluginFailure(_wrapped(failure.status, where, hook.plugin)) from failure.__cause__
            if isinstance(raw, Status):
                raise PluginFailure(_wrapped(raw, where, hook.plugin))
            scores = np.asarray(raw, dtype=np.int64)
            if scores.shape != (len(nodes),):
                raise PluginFailure(Status.error(
                    f"{where}: score plugin {hook.plugin} returned shape {scores.shape} for {len(nodes)} nodes", hook.plugin
                ))
            raw_scores[hook.plugin] = scores
            if record is not None:
                record.step("Score", hook.plugin, t0, _weight_attrs(hook.weight))
        return raw_scores

    def normalize_scores(
        self, state: CycleState, pod: PodInfo, nodes: NodeView, raw_scores: dict[str, np.ndarray], record: CycleRecord | None = None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """NormalizeScore per plugin, range check and weights (kube-scheduler's NormalizeScores).

        `raw_scores` is left as it is (a normalizer may work in place on its own copy)."""
        total = np.zeros(len(nodes), dtype=np.int64)
        per_plugin: dict[str, np.ndarray] = {}
        weights = self.score_weight_map
        for plugin, raw in raw_scores.items():
            scores = raw
            normalizer = self.normalizers.get(plugin)
            if normalizer is not None:
                scores = raw.copy()
                where = f'running Normalize on Score plugins: plugin "{plugin}" failed with'
                try:
                    normalized = _guarded(normalizer, {"state": state, "pod": pod, "nodes": nodes, "scores": scores})
                except PluginFailure as failure:
                    raise PluginFailure(_wrapped(failure.status, where, plugin)) from failure.__cause__
                if isinstance(normalized, Status) and not normalized.ok:
                    raise PluginFailure(_wrapped(normalized, where, plugin))
                if normalized is not None and not isinstance(normalized, Status):
                    scores = np.asarray(normalized, dtype=np.int64)
            # One reduction for both bounds: a negative score viewed as unsigned is above the maximum.
            if scores.dtype != np.int64:
                scores = scores.astype(np.int64)
            if scores.size and scores.view(np.uint64).max() > MAX_NODE_SCORE:
                bad = int(scores[(scores < 0) | (scores > MAX_NODE_SCORE)][0])
                raise PluginFailure(Status.error(
                    f'applying score defaultWeights on Score plugins: plugin "{plugin}" returns an invalid score {bad}, '
                    f"it should in the range of [0, {MAX_NODE_SCORE}] after normalizing",
                    plugin,
                ))
            per_plugin[plugin] = scores
            total += scores * weights.get(plugin, 1)
        return total, per_plugin

    def run_reserve(self, state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Any) -> Status:
        kwargs = {"state": state, "pod": pod, "node_name": node, "cluster": cluster, "handle": handle}
        for hook in self.points.get("reserve", ()):
            status = _call_status(hook, kwargs)
            if status.code == Code.ERROR:
                return _wrapped(status, f'running Reserve plugin "{hook.plugin}"', hook.plugin)
            if not status.ok:
                return status
        return Status.success()

    def run_unreserve(self, state: CycleState, pod: PodInfo, node: str, cluster: ClusterState, handle: Any) -> None:
        kwargs = {"state": state, "pod": pod, "node_name": node, "cluster": cluster, "handle": handle}
        for hook in reversed(self.unreservers):
            try:
                hook.call(kwargs)
            except Exception:
                log.exception("unreserve of plugin %s failed for pod %s", hook.plugin, pod.key)

    def run_permit(self, state: CycleState, pod: PodInfo, node: str, handle: Any) -> tuple[Status, dict[str, float]]:
        """Returns (status, {plugin: timeout}) where a non-empty dict means the pod must wait."""
        kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
        waits: dict[str, float] = {}
        for hook in self.points.get("permit", ()):
            try:
                result = _guarded(hook, kwargs)
            except PluginFailure as failure:  # the caller must unreserve and forget the assumed pod
                return _wrapped(failure.status, f'running Permit plugin "{hook.plugin}"', hook.plugin), {}
            if isinstance(result, PermitResult):
                status, timeout = result.status.with_plugin(hook.plugin), result.timeout
            else:
                status, timeout = as_status(result, hook.plugin), 0.0
            if status.code == Code.WAIT:
                waits[hook.plugin] = timeout
            elif status.code == Code.ERROR:
                return _wrapped(status, f'running Permit plugin "{hook.plugin}"', hook.plugin), {}
            elif not status.ok and status.code != Code.SKIP:  # deny
                return status, {}
        return Status.success(), waits

    def run_pre_bind_pre_flights(self, state: CycleState, pod: PodInfo, node: str, handle: Any) -> Status:
        """kube-scheduler's RunPreBindPreFlights: Success when some PreBind plugin has work for
        the pod, Skip when none has (no PreBind plugins at all included), else an Error.

        Records on `state` the plugins whose pre_bind is skipped and those that allow a parallel
        pre_bind (run_pre_bind reads both). A plugin without the hook has work."""
        hooks = self.points.get("pre_bind", ())
        if not hooks:
            return Status(Code.SKIP)
        has_work = False
        kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
        skipped: set[str] = set()
        parallel: set[str] = set()
        flights = self.pre_flights
        for hook in hooks:
            flight = flights.get(hook.plugin)
            if flight is None:
                has_work = True
                continue
            try:
                answer = flight.call(kwargs)
                if answer.__class__ is PreBindPreFlightResult:
                    if answer.allow_parallel:
                        parallel.add(hook.plugin)
                    answer = answer.status
                # A returned Status is read, not stamped with the plugin: plugins may return constants.
                status = answer if answer.__class__ is Status else as_status(answer, hook.plugin)
            except Exception as exc:
                log.exception("pre_bind_pre_flight of plugin %s raised for pod %s", hook.plugin, pod.key)
                status = Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin, exc)
            code = status.code
            if code == Code.SKIP:
                skipped.add(hook.plugin)
            elif code == Code.SUCCESS:
                has_work = True
            elif code == Code.ERROR:
                return Status.error(f'running PreBindPreFlight "{hook.plugin}": {status.message}', hook.plugin, status.err)
            else:
                return Status.error(
                    f'PreBindPreFlight {hook.plugin} returned "{CODE_STRINGS[code]}", which is unsupported. '
                    "It is supposed to return Success, Skip, or Error status",
                    hook.plugin,
                )
        if skipped:
            state.skip_pre_bind = skipped
        if parallel:
            state.parallel_pre_bind = parallel
        return Status(Code.SUCCESS if has_work else Code.SKIP)

    def pre_bind_groups(self, state: CycleState) -> list[list[BoundHook]]:
        """kube-scheduler's getPreBindPluginGroups: the pre_bind plugins not skipped, in order, in
        groups run one after another; a group of consecutive plugins that allow it runs in
        parallel. A skipped plugin that does not allow it still ends the group before it."""
        skipped, parallel = state.skip_pre_bind, state.parallel_pre_bind
        groups: list[list[BoundHook]] = []
        group: list[BoundHook] = []
        for hook in self.points.get("pre_bind", ()):
            if hook.plugin in parallel:
                if hook.plugin not in skipped:
                    group.append(hook)
                continue
            if group:
                groups.append(group)
                group = []
            if hook.plugin not in skipped:
                groups.append([hook])
        if group:
            groups.append(group)
        return groups

    def run_pre_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Any) -> Status:
        """PreBind of every plugin not skipped by its pre-flight; a parallel group's plugins run
        on threads of their own and the first failure in plugin order is reported (a Python
        thread cannot be cancelled: the others run to their end, where kube-scheduler cancels
        their context)."""
        skipped = state.skip_pre_bind
        if skipped and len(skipped) == len(self.points.get("pre_bind", ())):
            return Status.success()  # every pre-flight said Skip (no volumes, no claims): the common case
        kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
        if not skipped and not state.parallel_pre_bind:  # pre-flights not run (the gate is off): one by one
            for hook in self.points.get("pre_bind", ()):
                status = _call_status(hook, kwargs)
                if not status.ok and status.code != Code.SKIP:
                    return _pre_bind_failure(status, hook.plugin)
            return Status.success()
        for group in self.pre_bind_groups(state):
            statuses = [_call_status(group[0], kwargs)] if len(group) == 1 else _call_parallel(group, kwargs)
            for hook, status in zip(group, statuses, strict=True):
                if not status.ok and status.code != Code.SKIP:
                    return _pre_bind_failure(status, hook.plugin)
        return Status.success()

    def run_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Any) -> Status:
        kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
        for hook in self.points.get("bind", ()):
            status = _call_status(hook, kwargs)
            if status.code == Code.ERROR:
                return _wrapped(status, f'running Bind plugin "{hook.plugin}"', hook.plugin)
            if status.code != Code.SKIP:
                return status
        return Status.error("no bind plugin bound the pod (all returned Skip)")

    def run_post_bind(self, state: CycleState, pod: PodInfo, node: str, handle: Any) -> None:
        kwargs = {"state": state, "pod": pod, "node_name": node, "handle": handle}
        for hook in self.points.get("post_bind", ()):
            try:
                hook.call(kwargs)
            except Exception:
                log.exception("post_bind of plugin %s failed for pod %s", hook.plugin, pod.key)


def _wrapped(status: Status, where: str, plugin: str) -> Status:
    """kube-scheduler's fwk.AsStatus(fmt.Errorf("<where>: %w", status.AsError())): the Error a
    plugin returned (or an exception it raised), as the runtime reports it. A non-Error status
    that is not allowed at the point (a PreScore rejection) becomes an Error the same way.
    The plugin stays on the status for decision records (kube-scheduler drops it for some points)."""
    return Status.error(f"{where}: {status.message}", plugin, status.err)


def _pre_bind_failure(status: Status, plugin: str) -> Status:
    """RunPreBindPlugins' answer for a failed plugin: a rejection as the plugin said it, an
    Error wrapped with the plugin's name."""
    if status.is_rejected:
        return status.with_plugin(plugin)
    return _wrapped(status, f'running PreBind plugin "{plugin}"', plugin)


def _filter_result(hook: BoundHook, result: Any, n: int) -> tuple[np.ndarray, list[Rejection]] | None:
    """A filter's answer over `n` nodes as (feasible mask, rejections), or None if every node passed."""
    if result is None or result is True:
        return None
    if isinstance(result, Status):
        status = result.with_plugin(hook.plugin)
        if status.code == Code.ERROR:
            raise PluginFailure(status)
        if not status.is_rejected:
            return None
        mask = np.ones(n, dtype=bool)
        reasons = status.reasons or (f"rejected by {hook.plugin}",)
        return ~mask, [Rejection(r, mask, status.code) for r in reasons]
    if not isinstance(result, FilterResult):
        raise PluginFailure(Status.error(f"filter plugin {hook.plugin} returned {type(result).__name__}", hook.plugin))
    feasible = np.asarray(result.feasible, dtype=bool)
    if feasible.shape[0] != n:
        raise PluginFailure(Status.error(f"filter plugin {hook.plugin} returned {feasible.shape[0]} results for {n} nodes", hook.plugin))
    return feasible, result.rejections


def _guarded(hook: BoundHook, kwargs: dict[str, Any]) -> Any:
    """Call a plugin; an exception becomes an Error status for this pod, with the traceback logged."""
    try:
        return hook.call(kwargs)
    except PluginFailure:
        raise
    except Exception as exc:
        pod = kwargs.get("pod")
        log.exception("plugin %s raised while scheduling %s", hook.plugin, getattr(pod, "key", "?"))
        raise PluginFailure(Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)) from exc


def _call_parallel(hooks: list[BoundHook], kwargs: dict[str, Any]) -> list[Status]:
    """Call every hook at once (the first on this thread); their statuses in hook order."""
    out: list[Status] = [Status.success()] * len(hooks)

    def run(i: int) -> None:
        out[i] = _call_status(hooks[i], kwargs)

    threads = [threading.Thread(target=run, args=(i,), name=f"pre_bind-{hooks[i].plugin}", daemon=True) for i in range(1, len(hooks))]
    for t in threads:
        t.start()
    run(0)
    for t in threads:
        t.join()
    return out


def _call_status(hook: BoundHook, kwargs: dict[str, Any]) -> Status:
    try:
        return as_status(hook.call(kwargs), hook.plugin)
    except Exception as exc:
        pod = kwargs.get("pod")
        log.exception("plugin %s raised for pod %s", hook.plugin, getattr(pod, "key", "?"))
        return Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)

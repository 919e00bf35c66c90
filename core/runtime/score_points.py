"""PreScore, Score and NormalizeScore: kube-scheduler's RunPreScorePlugins and RunScorePlugins
(raw scores, then NormalizeScore, the range check and the weights; framework/runtime/framework.go).

Score hooks are batch hooks: one call per plugin returns an array aligned with `nodes`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..api.status import Code, Status
from ..api.types import MAX_NODE_SCORE
from .hooks import BoundHook, PluginFailure, call_status, guarded, wrapped

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.types import CycleState
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import NodeView
    from ..cache.podinfo import PodInfo
    from .records import Recorder


def run_pre_score(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState,
    handle: Handle, record: Recorder | None,
) -> None:
    """RunPreScorePlugins: a Skip takes the plugin's score out of this cycle; a rejection is an Error."""
    kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
    for hook in hooks:
        t0 = time.time_ns()
        status = call_status(hook, kwargs)
        if record is not None:
            record.coded_step("PreScore", hook.plugin, t0, status.code)
        if status.code == Code.SKIP:
            state.skip_score.add(hook.plugin)
        elif not status.ok:
            raise PluginFailure(wrapped(status, f'running PreScore plugin "{hook.plugin}"', hook.plugin))


def run_raw_scores(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState,
    handle: Handle, record: Recorder | None,
) -> dict[str, np.ndarray]:
    """Each non-skipped score plugin's raw scores over `nodes` (kube-scheduler's RunRawScorePlugins)."""
    kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
    raw_scores: dict[str, np.ndarray] = {}
    for hook in hooks:
        if hook.plugin in state.skip_score:
            continue
        t0 = time.time_ns()
        where = f'running Score plugins: plugin "{hook.plugin}" failed with'
        try:
            raw = guarded(hook, kwargs)
        except PluginFailure as failure:
            raise PluginFailure(wrapped(failure.status, where, hook.plugin)) from failure.__cause__
        if isinstance(raw, Status):
            raise PluginFailure(wrapped(raw, where, hook.plugin))
        scores = np.asarray(raw, dtype=np.int64)
        if scores.shape != (len(nodes),):
            raise PluginFailure(Status.error(
                f"{where}: score plugin {hook.plugin} returned shape {scores.shape} for {len(nodes)} nodes", hook.plugin
            ))
        raw_scores[hook.plugin] = scores
        if record is not None:
            record.score_step(hook.plugin, t0, hook.weight)
    return raw_scores


def normalize_scores(
    normalizers: Mapping[str, BoundHook], weights: Mapping[str, int], state: CycleState, pod: PodInfo,
    nodes: NodeView, raw_scores: dict[str, np.ndarray], owned: bool = False,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """NormalizeScore per plugin, range check and weights (kube-scheduler's NormalizeScores):
    (weighted total, normalized scores per plugin).

    `raw_scores` is left as it is (a normalizer may work in place on its own copy), unless the
    caller `owned` the arrays and gives them up (no copy)."""
    total = np.zeros(len(nodes), dtype=np.int64)
    per_plugin: dict[str, np.ndarray] = {}
    for plugin, raw in raw_scores.items():
        scores = raw
        normalizer = normalizers.get(plugin)
        if normalizer is not None:
            scores = _normalized(normalizer, state, pod, nodes, raw if owned else raw.copy())
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


def _normalized(
    normalizer: BoundHook, state: CycleState, pod: PodInfo, nodes: NodeView, scores: np.ndarray
) -> np.ndarray:
    """One plugin's NormalizeScore over its own copy of its scores: the array it returned, or the
    copy as it left it."""
    plugin = normalizer.plugin
    where = f'running Normalize on Score plugins: plugin "{plugin}" failed with'
    try:
        normalized = guarded(normalizer, {"state": state, "pod": pod, "nodes": nodes, "scores": scores})
    except PluginFailure as failure:
        raise PluginFailure(wrapped(failure.status, where, plugin)) from failure.__cause__
    if isinstance(normalized, Status) and not normalized.ok:
        raise PluginFailure(wrapped(normalized, where, plugin))
    if normalized is not None and not isinstance(normalized, Status):
        return np.asarray(normalized, dtype=np.int64)
    return scores

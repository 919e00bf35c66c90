"""PreFilter, Filter and PostFilter: kube-scheduler's RunPreFilterPlugins, RunFilterPlugins (over
a batch of nodes) and RunPostFilterPlugins (framework/runtime/framework.go).

Each function runs one extension point's bound hooks in the profile's order; `Framework` calls
them with its own hook lists. Every plugin that ran is reported to the cycle's `Recorder`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.status import Code, FilterResult, PostFilterResult, PreFilterResult, Rejection, Status, as_status
from .hooks import BoundHook, PluginFailure, guarded, wrapped

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.types import CycleState
    from ..cache.cluster import ClusterState
    from ..cache.nodetable import NodeView
    from ..cache.podinfo import PodInfo
    from .records import Diagnosis, Recorder


def run_pre_filter(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState,
    handle: Handle, record: Recorder | None,
) -> tuple[Status, frozenset[str] | None]:
    """RunPreFilterPlugins: (status, the node names the plugins narrowed the candidates to, or None)."""
    kwargs = {"state": state, "pod": pod, "nodes": nodes, "cluster": cluster, "handle": handle}
    narrowed: frozenset[str] | None = None
    with_nodes: set[str] = set()  # plugins that narrowed the candidates, for the empty-set message
    rejected: Status | None = None
    for hook in hooks:
        t0 = time.time_ns()
        try:
            result = guarded(hook, kwargs)
        except PluginFailure as failure:
            where = f'running PreFilter plugin "{hook.plugin}"'
            raise PluginFailure(wrapped(failure.status, where, hook.plugin)) from failure.__cause__
        names = None
        if isinstance(result, PreFilterResult):
            names = result.node_names
            status = (result.status or Status.success()).with_plugin(hook.plugin)
        else:
            status = as_status(result, hook.plugin)
        if record is not None:
            record.coded_step("PreFilter", hook.plugin, t0, status.code)
        if status.code == Code.SKIP:
            state.skip_filter.add(hook.plugin)
            continue
        if status.code == Code.ERROR:
            raise PluginFailure(wrapped(status, f'running PreFilter plugin "{hook.plugin}"', hook.plugin))
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
                return _nothing_left(with_nodes, hook.plugin), narrowed
    return (rejected or Status.success()), narrowed


def _nothing_left(with_nodes: set[str], plugin: str) -> Status:
    """kube-scheduler: an empty intersection of PreFilter node sets rejects the pod everywhere,
    naming the plugins that narrowed them."""
    plugins = sorted(with_nodes)
    msg = (
        f"node(s) didn't satisfy plugin {plugins[0]}"
        if len(plugins) == 1
        else f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously"
    )
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), plugin)


def run_filters(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, nodes: NodeView, cluster: ClusterState,
    handle: Handle, diagnosis: Diagnosis | None, record: Recorder | None,
) -> np.ndarray:
    """RunFilterPlugins over a batch: each node is rejected by the first plugin that rejects it
    (later plugins see only the survivors); returns the feasible mask aligned with `nodes`."""
    kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle}
    alive = np.ones(len(nodes), dtype=bool)
    view = nodes
    for hook in hooks:
        if hook.plugin in state.skip_filter or len(view) == 0:
            continue
        t0 = time.time_ns()
        kwargs["nodes"] = view
        try:
            result = _filter_result(hook, guarded(hook, kwargs), len(view))
        except PluginFailure as failure:
            if record is not None:
                record.filter_error(hook.plugin, t0, len(view))
            where = f'running "{hook.plugin}" filter plugin'
            raise PluginFailure(wrapped(failure.status, where, hook.plugin)) from failure.__cause__
        if result is None:  # passed every node: still a plugin that ran (explain, spans, metrics)
            if record is not None:
                record.filter_step(hook.plugin, t0, len(view), 0, {})
            continue
        feasible, rejections = result
        rejected = ~feasible
        n_rejected = int(rejected.sum())
        counts = _attribute(hook.plugin, view, rejected, rejections, diagnosis) if n_rejected else {}
        if record is not None:
            record.filter_step(hook.plugin, t0, len(view), n_rejected, counts)
        if n_rejected:
            idx = np.flatnonzero(alive)
            alive[idx[rejected]] = False
            view = view.subset(feasible)
    return alive


def _attribute(
    plugin: str, view: NodeView, rejected: np.ndarray, rejections: Sequence[Rejection], diagnosis: Diagnosis | None
) -> dict[str, int]:
    """The rejected nodes per reason (for the record), each reason's rows added to `diagnosis`;
    rejected nodes no reason covers count under "node(s) were rejected by <plugin>"."""
    counts: dict[str, int] = {}
    covered = np.zeros(len(view), dtype=bool)
    for rej in rejections:
        hit = np.asarray(rej.nodes, dtype=bool) & rejected
        covered |= hit
        if diagnosis is not None and hit.any():
            diagnosis.add(plugin, rej.reason, view.rows[hit], rej.code)
        # One reason may come under two codes (e.g. resolvable on some nodes,
        # unresolvable on others): add, as the FitError histogram does.
        counts[rej.reason] = counts.get(rej.reason, 0) + int(hit.sum())
    uncovered = rejected & ~covered
    if uncovered.any():
        reason = f"node(s) were rejected by {plugin}"
        counts[reason] = counts.get(reason, 0) + int(uncovered.sum())
        if diagnosis is not None:
            diagnosis.add(plugin, reason, view.rows[uncovered], Code.UNSCHEDULABLE)
    return counts


def _filter_result(hook: BoundHook, result: Any, n: int) -> tuple[np.ndarray, Sequence[Rejection]] | None:
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
        raise PluginFailure(
            Status.error(f"filter plugin {hook.plugin} returned {feasible.shape[0]} results for {n} nodes", hook.plugin)
        )
    return feasible, result.rejections


def run_post_filter(
    hooks: Sequence[BoundHook], state: CycleState, pod: PodInfo, cluster: ClusterState, handle: Handle,
    diagnosis: Diagnosis, record: Recorder | None,
) -> tuple[str | None, Status]:
    """RunPostFilterPlugins: in order until one succeeds (with a nominated node or without one: kube-scheduler
    returns at the first Success) or one answers UnschedulableAndUnresolvable; (nominated node or None, status)."""
    kwargs = {"state": state, "pod": pod, "cluster": cluster, "handle": handle, "diagnosis": diagnosis}
    messages = []
    for hook in hooks:
        t0 = time.time_ns()
        result = guarded(hook, kwargs)
        outcome: PostFilterResult | None = None
        if isinstance(result, PostFilterResult):
            outcome = result
            status = result.status.with_plugin(hook.plugin)
            nominated = result.nominated_node
        else:
            status, nominated = as_status(result, hook.plugin), None
        if record is not None:
            record.post_filter_step(hook.plugin, t0, status.code, nominated, outcome)
        if status.code == Code.ERROR:
            raise PluginFailure(status)
        if status.ok:
            return nominated or None, status
        if status.message:
            messages.append(status.message)
        if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            break
    return None, Status(Code.UNSCHEDULABLE, tuple(messages))

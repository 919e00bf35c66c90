"""The pod group cycle's extension points (GenericWorkload): kube-scheduler's
RunPlacementGeneratePlugins, RunPlacementFeasiblePlugins, RunPlacementScorePlugins and
RunPodGroupPostFilterPlugins (framework/runtime/framework.go).

placement_generate and placement_score are configured points (the profile's `plugins`);
placement_feasible, pod_group_post_filter and normalize_placement_score are companion hooks,
bound once per framework from its plugin instances (`PodGroupHooks.of`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.placement import PlacementScore, PodGroupPostFilterResult
from ..api.status import Code, Status
from ..api.types import MAX_NODE_SCORE, CycleState, PodGroupCycleState
from .hooks import BoundHook

if TYPE_CHECKING:
    from ..api.handle import Handle
    from ..api.placement import (
        Placement,
        PlacementProgress,
        PodGroupAssignments,
        PodGroupInfo,
        ProposedAssignment,
    )
    from ..cache.cluster import ClusterState
    from .records import Recorder

Schedule = Callable[[], "tuple[list[ProposedAssignment], Status]"]
"""Re-runs a pod group's algorithm (what pod_group_post_filter receives as `schedule`)."""

_IMPL = "kubeberth_impl"  # pluggy's hookimpl marker attribute (hookspecs.PROJECT + "_impl")


@dataclass(frozen=True, slots=True)
class PodGroupHooks:
    """The companion hooks of the pod group cycle, bound from a profile's plugin instances."""

    feasible: tuple[BoundHook, ...] = ()  # placement_feasible: every plugin of the profile with the hook
    post_filter: tuple[BoundHook, ...] = ()  # the podGroupPostFilter plugins, in order
    normalizers: Mapping[str, BoundHook] | None = None  # normalize_placement_score per placement_score plugin

    @classmethod
    def of(cls, plugins: Mapping[str, Any], points: Mapping[str, Sequence[BoundHook]]) -> PodGroupHooks:
        feasible = tuple(
            BoundHook.of(name, m) for name, instance in plugins.items()
            if (m := getattr(instance, "placement_feasible", None)) is not None and hasattr(m, _IMPL)
        )
        post_filter = tuple(
            BoundHook.of(h.plugin, m) for h in points.get("pod_group_post_filter", ())
            if (m := getattr(plugins.get(h.plugin), "pod_group_post_filter", None)) is not None and hasattr(m, _IMPL)
        )
        normalizers = {
            h.plugin: BoundHook.of(h.plugin, m) for h in points.get("placement_score", ())
            if (m := getattr(plugins.get(h.plugin), "normalize_placement_score", None)) is not None
        }
        return cls(feasible, post_filter, normalizers)


def run_placement_generate(
    hooks: Sequence[BoundHook], info: PodGroupInfo, everything: Placement, handle: Handle, state: PodGroupCycleState
) -> list[Placement] | Status:
    """RunPlacementGeneratePlugins: the first placement_generate plugin splits all nodes
    (`everything`); without one, the group is tried on all nodes."""
    if not hooks:
        return [everything]
    hook = hooks[0]
    try:
        out = hook.call({"state": state, "pod_group": info, "placement": everything, "handle": handle})
    except Exception as exc:  # a plugin bug fails the group's attempt, not the loop
        return Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)
    if isinstance(out, Status):
        return out if not out.ok else [everything]
    found = list(out or ())
    if not found:
        return Status(Code.UNSCHEDULABLE, ("no feasible placements found",), hook.plugin)
    return found


def run_placement_feasible(
    hooks: Sequence[BoundHook], info: PodGroupInfo, progress: PlacementProgress, handle: Handle
) -> Status:
    """RunPlacementFeasiblePlugins: the first non-success wins (kube-scheduler asks GangScheduling
    only; kubeberth every plugin of the profile implementing placement_feasible)."""
    for hook in hooks:
        try:
            out = hook.call({"state": CycleState(), "pod_group": info, "progress": progress, "handle": handle})
        except Exception as exc:
            return Status.error(f"plugin {hook.plugin} raised {type(exc).__name__}: {exc}", hook.plugin)
        if isinstance(out, Status) and not out.ok:
            out.plugin = out.plugin or hook.plugin
            return out
    return Status.success()


def run_placement_scores(
    hooks: Sequence[BoundHook], normalizers: Mapping[str, BoundHook], info: PodGroupInfo,
    assignments: Sequence[PodGroupAssignments], handle: Handle,
) -> np.ndarray | Status:
    """RunPlacementScorePlugins: each plugin scores every placement's assignments, its
    normalize_placement_score rewrites them, then the range check and the weights; the weighted
    totals aligned with `assignments`, or an Error status."""
    totals = np.zeros(len(assignments), dtype=np.int64)
    for hook in hooks:
        scores: list[PlacementScore] = []
        for assigned in assignments:
            try:
                raw = hook.call({"state": CycleState(), "pod_group": info, "placement": assigned, "handle": handle})
            except Exception as exc:
                return Status.error(f"running PlacementScore plugins: plugin {hook.plugin} raised {exc}", hook.plugin)
            if isinstance(raw, Status):
                return Status.error(f'running PlacementScore plugins: plugin "{hook.plugin}" failed with: {raw.message}')
            scores.append(PlacementScore(assigned.placement, int(raw), assigned))
        failed = _normalize_placement_scores(normalizers.get(hook.plugin), info, scores)
        if failed is not None:
            return failed
        for i, s in enumerate(scores):
            if not 0 <= s.score <= MAX_NODE_SCORE:
                return Status.error(
                    f'applying score defaultWeights on PlacementScore plugins: plugin "{hook.plugin}" returns an '
                    f"invalid score {s.score}, it should in the range of [0, {MAX_NODE_SCORE}] after normalizing"
                )
            totals[i] += s.score * hook.weight
    return totals


def _normalize_placement_scores(
    normalizer: BoundHook | None, info: PodGroupInfo, scores: list[PlacementScore]
) -> Status | None:
    """One plugin's NormalizePlacementScore over its scores, in place; an Error status if it failed."""
    if normalizer is None:
        return None
    status = normalizer.call({"state": CycleState(), "pod_group": info, "scores": scores})
    if isinstance(status, Status) and not status.ok:
        return Status.error(
            f'running NormalizePlacementScore on PlacementScore plugins: plugin "{normalizer.plugin}" '
            f"failed with: {status.message}"
        )
    return None


def run_pod_group_post_filter(
    hooks: Sequence[BoundHook], info: PodGroupInfo, schedule: Schedule, cluster: ClusterState, handle: Handle,
    record: Recorder, state: PodGroupCycleState,
) -> tuple[Status, PodGroupPostFilterResult | None]:
    """RunPodGroupPostFilterPlugins: in order until one succeeds or answers
    UnschedulableAndUnresolvable; the Unschedulable ones' reasons add up (the first names the
    rejector), anything else is an Error. (status, the last plugin's result, None without plugins)."""
    reasons: list[str] = []
    rejector = ""
    status = Status(Code.UNSCHEDULABLE)
    outcome: PodGroupPostFilterResult | None = None
    group = f"{info.namespace}/{info.name}"
    for hook in hooks:
        plugin = hook.plugin
        t0 = time.time_ns()
        try:
            out = hook.call({"state": state, "pod_group": info, "schedule": schedule, "cluster": cluster,
                             "handle": handle})
        except Exception as exc:  # a plugin bug fails the group's attempt, not the loop
            out = Status.error(f"plugin {plugin} raised {type(exc).__name__}: {exc}", plugin)
        outcome = out if isinstance(out, PodGroupPostFilterResult) else PodGroupPostFilterResult(
            out if isinstance(out, Status) else Status(Code.UNSCHEDULABLE)
        )
        record.pod_group_post_filter_step(plugin, t0, group, outcome)
        got = outcome.status
        if got.ok or got.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return got.with_plugin(plugin), outcome
        if got.code != Code.UNSCHEDULABLE:
            return Status.error(f'error in "{plugin}" PodGroupPostFilter plugins: {got.message}', plugin), outcome
        reasons.extend(got.reasons)
        rejector = rejector or plugin
        status = Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)
    return status, outcome

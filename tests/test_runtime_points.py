"""The runtime's extension-point functions on their own: the Recorder calls a Filter makes, and the
pod group points' ordering and error rules (kube-scheduler's RunPodGroupPostFilterPlugins,
RunPlacementFeasiblePlugins, RunPlacementScorePlugins)."""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth.api.placement import (
    PlacementProgress,
    PlacementScore,
    PodGroupAssignments,
    PodGroupInfo,
    PodGroupPostFilterResult,
)
from kubeberth.api.status import Code, Status
from kubeberth.api.types import CycleState, PodGroupCycleState
from kubeberth.runtime.filter_points import run_post_filter
from kubeberth.runtime.hooks import BoundHook
from kubeberth.runtime.pod_group_points import (
    PodGroupHooks,
    run_placement_feasible,
    run_placement_scores,
    run_pod_group_post_filter,
)
from kubeberth.runtime.records import CycleRecord, Diagnosis

INFO = PodGroupInfo("ns", "g")
HANDLE: Any = None
CLUSTER: Any = None


def test_filter_steps_keep_counts_per_plugin_and_reason() -> None:
    record = CycleRecord("ns/p", "uid", "default", "g1")
    record.filter_step("A", 0, 10, 3, {"too small": 2, "tainted": 1})
    record.filter_step("A", 0, 7, 1, {"too small": 1})
    record.filter_step("B", 0, 6, 0, {})
    record.filter_error("C", 0, 6)
    assert record.rejected == {"A": {"too small": 3, "tainted": 1}}
    assert [(p, n, a["code"], a["rejected"]) for p, n, _s, _e, a in record.steps] == [
        ("Filter", "A", "UNSCHEDULABLE", 3), ("Filter", "A", "UNSCHEDULABLE", 1),
        ("Filter", "B", "SUCCESS", 0), ("Filter", "C", "ERROR", 0),
    ]


def test_pod_group_post_filter_adds_unschedulable_reasons_and_stops_at_success() -> None:
    record = CycleRecord("ns/p", "uid", "default", "g1")
    hooks = [
        BoundHook("A", lambda: Status(Code.UNSCHEDULABLE, ("no room",)), ()),
        BoundHook("B", lambda: Status(Code.UNSCHEDULABLE, ("no victims",)), ()),
    ]
    status, _ = run_pod_group_post_filter(hooks, INFO, lambda: ([], Status.success()), CLUSTER, HANDLE, record, PodGroupCycleState())
    assert (status.code, status.reasons, status.plugin) == (Code.UNSCHEDULABLE, ("no room", "no victims"), "A")
    assert record.preemption is None
    ok = PodGroupPostFilterResult(Status.success(), {"u1": "n1"}, ("ns/v",))
    hooks.insert(1, BoundHook("W", lambda: ok, ()))
    status, outcome = run_pod_group_post_filter(hooks, INFO, lambda: ([], Status.success()), CLUSTER, HANDLE, record, PodGroupCycleState())
    assert status.ok and status.plugin == "W" and outcome is ok
    assert record.preemption is not None and record.preemption["nominations"] == {"u1": "n1"}
    assert [s[1] for s in record.steps] == ["A", "B", "A", "W"]


def test_pod_group_post_filter_turns_a_raise_into_an_error() -> None:
    record = CycleRecord("ns/p", "uid", "default", "g1")

    def boom() -> None:
        raise RuntimeError("bug")

    status, _ = run_pod_group_post_filter([BoundHook("X", boom, ())], INFO, lambda: ([], Status.success()), CLUSTER, HANDLE, record, PodGroupCycleState())
    assert status.code == Code.ERROR and 'error in "X" PodGroupPostFilter plugins' in status.message


def test_placement_feasible_first_non_success_wins_with_its_plugin() -> None:
    progress = PlacementProgress(remaining=1, scheduled=1)
    hooks = [
        BoundHook("A", lambda progress: None, ("progress",)),
        BoundHook("B", lambda: Status(Code.WAIT, ("more",)), ()),
        BoundHook("C", lambda: Status(Code.UNSCHEDULABLE), ()),
    ]
    status = run_placement_feasible(hooks, INFO, progress, HANDLE)
    assert (status.code, status.plugin) == (Code.WAIT, "B")


def test_placement_scores_normalize_then_weigh() -> None:
    def normalize(scores: list[PlacementScore]) -> None:
        for s in scores:
            s.score *= 10

    hooks = [BoundHook("P", lambda placement: len(placement.proposed_assignments) + 1, ("placement",), weight=2)]
    normalizers = {"P": BoundHook("P", normalize, ("scores",))}
    totals = run_placement_scores(hooks, normalizers, INFO, [PodGroupAssignments(), PodGroupAssignments()], HANDLE)
    assert isinstance(totals, np.ndarray) and totals.tolist() == [20, 20]
    over = run_placement_scores([BoundHook("P", lambda: 101, ())], {}, INFO, [PodGroupAssignments()], HANDLE)
    assert isinstance(over, Status) and "invalid score 101" in over.message


def test_pod_group_hooks_bind_only_marked_implementations() -> None:
    from kubeberth.api.hookspecs import hookimpl

    class Gang:
        @hookimpl
        def placement_feasible(self, pod_group: PodGroupInfo) -> None:
            return None

    class Unmarked:
        def placement_feasible(self, pod_group: PodGroupInfo) -> None:
            return None

    hooks = PodGroupHooks.of({"Gang": Gang(), "Unmarked": Unmarked()}, {})
    assert [h.plugin for h in hooks.feasible] == ["Gang"]
    assert [h.argnames for h in hooks.feasible] == [("pod_group",)]


def test_post_filter_stops_at_the_first_success_with_or_without_a_nomination() -> None:
    """RunPostFilterPlugins returns at the first Success (plugins_test.go TestPostFilterPlugin, "Filter failed
    and PostFilter passed": the second PostFilter plugin is not called); Unschedulable goes on to the next."""
    calls: list[str] = []

    def hook(name: str, result: Any) -> BoundHook:
        def run() -> Any:
            calls.append(name)
            return result
        return BoundHook(name, run, ())

    made_room = Status(Code.SUCCESS, ("make room for pod p to be schedulable",))
    nominated, status = run_post_filter([hook("A", made_room), hook("B", None)], CycleState(), CLUSTER, CLUSTER,
                                        HANDLE, Diagnosis(1), None)
    assert (nominated, status.ok, status.message, calls) == (None, True, "make room for pod p to be schedulable", ["A"])
    calls.clear()
    nominated, status = run_post_filter([hook("A", Status.unschedulable("no")), hook("B", None)], CycleState(),
                                        CLUSTER, CLUSTER, HANDLE, Diagnosis(1), None)
    assert (nominated, status.ok, calls) == (None, True, ["A", "B"])

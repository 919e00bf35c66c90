"""The scheduler's state has one declared home (SchedulerState): every attribute the loop sets is
declared there, and the pure pieces the loop's parts share behave as kube-scheduler's."""

from __future__ import annotations

import ast
import inspect
from typing import Any

import numpy as np
from kubeberth.api.status import Code, Status
from kubeberth.runtime.records import CycleRecord, Diagnosis
from kubeberth.scheduling import scheduler as scheduler_mod
from kubeberth.scheduling.decision import record_rejected_nodes
from kubeberth.scheduling.podgroup_result import INITIALLY_SCHEDULED, with_initially_scheduled
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.scheduling.state import SchedulerState


def _assigned_attributes(cls: type) -> set[str]:
    """The `self.x = ...` targets in the methods of `cls` itself."""
    tree = ast.parse(inspect.getsource(cls))
    found: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    found.add(t.attr)
    return found


def test_every_attribute_scheduler_sets_is_declared() -> None:
    declared = set(SchedulerState.__annotations__)
    assigned = _assigned_attributes(Scheduler)
    assert assigned, "no assignments found"
    assert assigned <= declared, sorted(assigned - declared)


def test_parts_build_on_the_declared_state() -> None:
    for part in Scheduler.__mro__[1:]:
        if part.__module__.startswith("kubeberth.scheduling.") and part is not SchedulerState:
            assert issubclass(part, SchedulerState), part
    assert scheduler_mod.SchedulerStats().attempts == 0  # still importable from scheduler.py


def test_record_rejected_nodes_keeps_a_bounded_list_per_plugin_and_reason() -> None:
    from kubeberth.runtime.framework import REJECTED_NODES_RECORDED

    diagnosis = Diagnosis(num_all_nodes=3)
    diagnosis.add("NodeAffinity", "node(s) didn't match", np.array([0, 2]), Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    record = CycleRecord("default/p", "uid", "default-scheduler", 1)
    names: list[str | None] = ["a", "b", None]
    record_rejected_nodes(record, diagnosis, names)
    assert record.rejected_nodes == {"NodeAffinity": {"node(s) didn't match": ["a", ""]}}
    many = Diagnosis(num_all_nodes=REJECTED_NODES_RECORDED + 5)
    many.add("P", "r", np.arange(REJECTED_NODES_RECORDED + 5), Code.UNSCHEDULABLE)
    record_rejected_nodes(record, many, [f"n{i}" for i in range(REJECTED_NODES_RECORDED + 5)])
    assert len(record.rejected_nodes["P"]["r"]) == REJECTED_NODES_RECORDED


def _group(conditions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"metadata": {"name": "g", "namespace": "default", "generation": 2}}
    if conditions is not None:
        group["status"] = {"conditions": conditions}
    return group


def test_initially_scheduled_condition_is_set_changed_and_never_turned_back() -> None:
    first = with_initially_scheduled(_group(), Status(Code.UNSCHEDULABLE, ("no room",)))
    assert first is not None
    (cond,) = first["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"], cond["observedGeneration"]) == (
        INITIALLY_SCHEDULED, "False", "Unschedulable", "no room", 2,
    )
    assert with_initially_scheduled(first, Status(Code.UNSCHEDULABLE, ("no room",))) is None  # unchanged
    scheduled = with_initially_scheduled(first, Status.success())
    assert scheduled is not None and scheduled["status"]["conditions"][0]["status"] == "True"
    assert with_initially_scheduled(scheduled, Status.error("boom")) is None  # True stays True

"""What a scheduling cycle found: the decision record that feeds traces, `explain`, events and
metrics, and the cycle's result (`Diagnosis`, the FitError diagnosis, is kubeberth.api's).

The runtime writes decisions through the `Recorder` Protocol (one call per plugin it ran, as
kube-scheduler's framework reports each plugin to its metrics recorder); `CycleRecord` is the
recorder the scheduler hands it, and decides what a step keeps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..api.diagnosis import Diagnosis
from ..api.status import Code, Status

if TYPE_CHECKING:
    from ..api.placement import PodGroupPostFilterResult
    from ..api.status import PostFilterResult

_NO_ATTRS: dict[str, Any] = {}  # shared by steps without attributes; step attributes are read-only
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


class Recorder(Protocol):
    """What the runtime reports about each plugin it runs in a cycle (CycleRecord implements it)."""

    def step(self, point: str, plugin: str, start_ns: int, attrs: dict[str, Any] | None = None) -> None:
        """A plugin ran at `point` from `start_ns` until now, with these attributes."""
        ...

    def coded_step(self, point: str, plugin: str, start_ns: int, code: Code) -> None:
        """A plugin ran and answered `code` (PreFilter, PreScore)."""
        ...

    def score_step(self, plugin: str, start_ns: int, weight: int) -> None:
        """A Score plugin ran; `weight` is its weight in the profile."""
        ...

    def filter_step(self, plugin: str, start_ns: int, nodes: int, rejected: int, reasons: dict[str, int]) -> None:
        """A Filter plugin ran over `nodes` nodes and rejected `rejected` of them; `reasons`
        counts the rejected nodes per reason (a node may count under several)."""
        ...

    def filter_error(self, plugin: str, start_ns: int, nodes: int) -> None:
        """A Filter plugin failed with an Error over `nodes` nodes."""
        ...

    def post_filter_step(
        self, plugin: str, start_ns: int, code: Code, nominated: str | None, result: PostFilterResult | None
    ) -> None:
        """A PostFilter plugin answered `code`, nominating `nominated`; `result` when it returned one."""
        ...

    def pod_group_post_filter_step(
        self, plugin: str, start_ns: int, pod_group: str, result: PodGroupPostFilterResult
    ) -> None:
        """A PodGroupPostFilter plugin answered `result` for `pod_group` ('namespace/name')."""
        ...


@dataclass
class CycleRecord:
    """What one scheduling cycle did and why: feeds traces, `explain`, events and metrics."""

    pod: str
    uid: str
    profile: str
    generation: str
    start_ns: int = field(default_factory=time.time_ns)
    end_ns: int = 0
    steps: list[tuple[str, str, int, int, dict[str, Any]]] = field(default_factory=list)
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    rejected: dict[str, dict[str, int]] = field(default_factory=dict)
    top_scores: list[dict[str, Any]] = field(default_factory=list)  # the chosen node first
    score_ties: int = 0  # candidates that shared the best score (the pick was one of them)
    node: str | None = None
    result: str = ""
    message: str = ""
    attempt: int = 0
    first_attempt_ns: int = 0  # start of the pod's first attempt (scheduler_pod_scheduling_sli_duration_seconds)
    queue: dict[str, float] = field(default_factory=dict)  # seconds per queue before this attempt
    requeued_by: str = ""  # the event that moved the pod out of the unschedulable pool before this attempt
    rejected_nodes: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # unschedulable only
    preemption: dict[str, Any] | None = None  # plugin, candidates, victims, nominated_node
    binding: dict[str, Any] | None = None  # the binding cycle, once it finished
    error_plugin: str = ""  # the plugin whose Error ended the attempt
    # Opportunistic batching: the hint offered ("" none), whether the node chosen last was
    # re-scored, why the cached batch could not serve ("flush"), why the pod is unsigned, and
    # "result" hint_used | hint_not_used when a result was stored.
    batch: dict[str, Any] | None = None
    trace_id: str = ""  # set when the cycle's trace was sampled
    span_context: Any = None  # the root span's context, parent of the binding cycle span

    def step(self, point: str, plugin: str, start_ns: int, attrs: dict[str, Any] | None = None) -> None:
        self.steps.append((point, plugin, start_ns, time.time_ns(), attrs or _NO_ATTRS))

    def coded_step(self, point: str, plugin: str, start_ns: int, code: Code) -> None:
        self.steps.append((point, plugin, start_ns, time.time_ns(), _CODE_ATTRS[code]))

    def score_step(self, plugin: str, start_ns: int, weight: int) -> None:
        self.steps.append(("Score", plugin, start_ns, time.time_ns(), _weight_attrs(weight)))

    def filter_step(self, plugin: str, start_ns: int, nodes: int, rejected: int, reasons: dict[str, int]) -> None:
        if reasons:
            bucket = self.rejected.setdefault(plugin, {})
            for reason, count in reasons.items():
                bucket[reason] = bucket.get(reason, 0) + count
        code = "UNSCHEDULABLE" if rejected else "SUCCESS"
        self.steps.append(("Filter", plugin, start_ns, time.time_ns(), {"code": code, "nodes": nodes, "rejected": rejected}))

    def filter_error(self, plugin: str, start_ns: int, nodes: int) -> None:
        self.steps.append(("Filter", plugin, start_ns, time.time_ns(), {"code": "ERROR", "nodes": nodes, "rejected": 0}))

    def post_filter_step(
        self, plugin: str, start_ns: int, code: Code, nominated: str | None, result: PostFilterResult | None
    ) -> None:
        if result is not None and (result.candidates or result.victims or nominated):
            self.preemption = {
                "plugin": plugin,
                "candidates": result.candidates,
                "victims": list(result.victims),
                "nominated_node": nominated or "",
            }
        self.step("PostFilter", plugin, start_ns, {"code": code.name, "nominated": nominated or ""})

    def pod_group_post_filter_step(
        self, plugin: str, start_ns: int, pod_group: str, result: PodGroupPostFilterResult
    ) -> None:
        status = result.status
        self.step("PodGroupPostFilter", plugin, start_ns, {"code": status.code.name, "pod_group": pod_group})
        if status.ok:  # the group's attempt is counted once (scheduler_workload_preemption_attempts_total)
            self.preemption = {
                "plugin": plugin, "pod_group": pod_group, "candidates": 1,
                "victims": list(result.victims), "nominated_node": "",
                "nominations": dict(result.nominations),
            }

    def as_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "uid": self.uid,
            "attempt": self.attempt,
            "trace_id": self.trace_id,
            "profile": self.profile,
            "generation": self.generation,
            "result": self.result,
            "node": self.node,
            "message": self.message,
            "evaluated_nodes": self.evaluated_nodes,
            "feasible_nodes": self.feasible_nodes,
            "rejected": self.rejected,
            "rejected_nodes": self.rejected_nodes,
            "top_scores": self.top_scores,
            "score_ties": self.score_ties,
            "preemption": self.preemption,
            "binding": self.binding,
            "batch": self.batch,
            "queue_seconds": self.queue,
            "requeued_by": self.requeued_by,
            "start_ns": self.start_ns,
            "duration_ms": round((self.end_ns - self.start_ns) / 1e6, 3),
            "plugins": [
                {"point": p, "plugin": n, "ms": round((e - s) / 1e6, 4), **a} for p, n, s, e, a in self.steps
            ],
        }


@dataclass
class ScheduleResult:
    node: str | None
    status: Status
    diagnosis: Diagnosis | None = None
    evaluated: int = 0
    feasible: int = 0
    next_start: int = 0

"""The pod group cycle's results (kube-scheduler's algorithmResult and podGroupAlgorithmResult in
schedule_one_podgroup.go), its Unschedulable status, and the PodGroup condition it keeps."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..api.placement import Placement
from ..api.status import Code, Status
from ..api.types import CycleState
from ..runtime.records import CycleRecord, ScheduleResult

if TYPE_CHECKING:
    from .queue import QueuedPod

# kube-scheduler's errPodGroupUnschedulable.
POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
# The PodGroup condition the cycle keeps (scheduling.k8s.io PodGroupInitiallyScheduled).
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"


class PodGroupUnschedulable(Exception):
    """kube-scheduler's errPodGroupUnschedulable, the error behind a group's Unschedulable status."""


_GROUP_ERR = PodGroupUnschedulable(POD_GROUP_UNSCHEDULABLE)


def group_unschedulable(*reasons: str) -> Status:
    """NewStatus(Unschedulable, reasons...).WithError(errPodGroupUnschedulable): the error's text
    leads the message, as Status.Reasons() puts it first upstream."""
    return Status(Code.UNSCHEDULABLE, (POD_GROUP_UNSCHEDULABLE, *reasons), err=_GROUP_ERR)


def as_error(status: Status) -> str:
    """Status.AsError().Error(): the error when there is one, else the message."""
    return str(status.err) if status.err is not None else status.message


def _now_rfc3339() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(eq=False)
class Member:
    """One member's attempt in a pod group cycle (kube-scheduler's algorithmResult)."""

    entry: QueuedPod
    record: CycleRecord
    state: CycleState = field(default_factory=CycleState)
    result: ScheduleResult | None = None
    status: Status = field(default_factory=Status.success)
    node: str | None = None


@dataclass
class GroupResult:
    """A pod group's outcome on one placement (kube-scheduler's podGroupAlgorithmResult)."""

    status: Status
    members: list[Member]
    placed: dict[str, tuple[str, CycleState]] = field(default_factory=dict)  # uid -> node, state
    placement: Placement | None = None
    # PodGroupPostFilter succeeded: the members wait for its victims, nominated (uid -> node).
    waiting_on_preemption: bool = False
    nominations: dict[str, str] = field(default_factory=dict)

    @property
    def any_scheduled(self) -> bool:
        return bool(self.placed)


def copy_member(m: Member) -> Member:
    return Member(m.entry, m.record, m.state, m.result, m.status, m.node)


def with_initially_scheduled(group: dict[str, Any], status: Status) -> dict[str, Any] | None:
    """The PodGroup with its PodGroupInitiallyScheduled condition set for `status`
    (updatePodGroupCondition), or None when it is unchanged or was True already."""
    if status.ok:
        wanted = {"type": INITIALLY_SCHEDULED, "status": "True", "reason": "Scheduled", "message": status.message}
    elif status.code == Code.ERROR:
        wanted = {"type": INITIALLY_SCHEDULED, "status": "False", "reason": "SchedulerError", "message": status.message}
    else:
        wanted = {"type": INITIALLY_SCHEDULED, "status": "False", "reason": "Unschedulable", "message": status.message}
    meta = group.get("metadata") or {}
    if meta.get("generation") is not None:
        wanted["observedGeneration"] = meta["generation"]
    conditions = list((group.get("status") or {}).get("conditions") or [])
    current = next((c for c in conditions if c.get("type") == INITIALLY_SCHEDULED), None)
    if current is not None:
        if current.get("status") == "True" and wanted["status"] != "True":
            return None
        if all(current.get(k) == v for k, v in wanted.items()):
            return None
        wanted["lastTransitionTime"] = (
            current.get("lastTransitionTime") if current.get("status") == wanted["status"] else _now_rfc3339()
        )
        conditions = [wanted if c is current else c for c in conditions]
    else:
        wanted["lastTransitionTime"] = _now_rfc3339()
        conditions.append(wanted)
    return {**group, "status": {**(group.get("status") or {}), "conditions": conditions}}


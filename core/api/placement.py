"""Types of the pod group scheduling cycle (kube-scheduler v1.37's workload-aware scheduling).

Under the GenericWorkload gate a PodGroup's pending members are scheduled together in one *pod
group scheduling cycle*: each member is filtered, scored and assumed in turn, the group's
constraints are checked after every member (the `placement_feasible` hook), and either the group is
feasible and its placed members go on to binding, or every reservation is undone. Under
TopologyAwareWorkloadScheduling the cycle first asks `placement_generate` plugins for candidate
*placements* (subsets of the nodes, e.g. one per zone), runs the members on each, and picks the
placement the `placement_score` plugins rate best.

These mirror kube-scheduler's fwk.PodGroupInfo, PlacementProgress, Placement, ProposedAssignment,
PodGroupAssignments and PlacementScore (staging/src/k8s.io/kube-scheduler/framework).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .objects import PodGroup
from .status import Status

if TYPE_CHECKING:
    from ..cache.podinfo import PodInfo
    from .types import CycleState

__all__ = [
    "Placement",
    "PlacementProgress",
    "PlacementScore",
    "PodGroupAssignments",
    "PodGroupInfo",
    "PodGroupPostFilterResult",
    "ProposedAssignment",
    "gang_min_count",
]


def gang_min_count(pod_group: PodGroup | None) -> int | None:
    """The gang policy's `minCount`, or None when the group is not a gang (basic policy)."""
    policy = ((pod_group or {}).get("spec") or {}).get("schedulingPolicy") or {}
    gang = policy.get("gang")
    if gang is None:
        return None
    return int(gang.get("minCount") or 0)


@dataclass(frozen=True, slots=True)
class PodGroupInfo:
    """The pod group a pod group cycle schedules (kube-scheduler's fwk.PodGroupInfo).

    namespace, name    the PodGroup's
    pod_group          the scheduling.k8s.io/v1beta1 PodGroup object as the cache has it
    unscheduled_pods   the members this cycle tries to place, in the order it tries them
    """

    namespace: str
    name: str
    pod_group: PodGroup | None = None
    unscheduled_pods: tuple[PodInfo, ...] = ()

    @property
    def key(self) -> str:
        """`PodGroup/<namespace>/<name>` (kube-scheduler's EntityKey string)."""
        return f"PodGroup/{self.namespace}/{self.name}"

    @property
    def min_count(self) -> int:
        """The members that must be placed together: the gang's minCount, 1 for the basic policy."""
        found = gang_min_count(self.pod_group)
        return 1 if found is None else found


@dataclass(frozen=True, slots=True)
class PlacementProgress:
    """How far a pod group cycle got on one placement (kube-scheduler's PlacementProgress).

    remaining  members not evaluated yet
    scheduled  members placed: already assumed or bound before the cycle, plus those placed in it
    """

    remaining: int
    scheduled: int


@dataclass(frozen=True, slots=True)
class Placement:
    """A candidate set of nodes for a whole pod group (kube-scheduler's fwk.Placement).

    name   what it stands for, e.g. the topology domain ("zone-a"); "" for all nodes
    nodes  node names the group's members may use on this placement
    """

    name: str = ""
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProposedAssignment:
    """One member placed on a node by a pod group cycle, not yet committed (fwk.ProposedAssignment)."""

    pod: PodInfo
    node_name: str
    state: CycleState | None = None


@dataclass(frozen=True, slots=True)
class PodGroupAssignments:
    """The members a placement would place (kube-scheduler's fwk.PodGroupAssignments)."""

    placement: Placement | None = None
    proposed_assignments: tuple[ProposedAssignment, ...] = ()


@dataclass(slots=True)
class PlacementScore:
    """One placement's score from one placement_score plugin (kube-scheduler's fwk.PlacementScore);
    `normalize_placement_score` rewrites `score` in place."""

    placement: Placement | None = None
    score: int = 0
    assignments: PodGroupAssignments = field(default_factory=PodGroupAssignments)


@dataclass(frozen=True, slots=True)
class PodGroupPostFilterResult:
    """What a pod_group_post_filter hook answers (kube-scheduler's fwk.PodGroupPostFilterResult).

    status        Success: room is being made (the members wait, nominated); else why not
    nominations   member uid -> the node it is nominated to (ModeOverride), on Success
    victims       the pods (keys) being preempted for the group, for records and explain
    """

    status: Status
    nominations: dict[str, str] = field(default_factory=dict)
    victims: tuple[str, ...] = ()

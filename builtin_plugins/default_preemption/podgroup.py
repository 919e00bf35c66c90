"""Preemption for a whole pod group (kube-scheduler v1.37's framework/preemption/podgrouppreemption.go).

When a PodGroup fails its pod group cycle as Unschedulable, DefaultPreemption's PodGroupPostFilter looks
for room for the whole group at once, over the whole cluster (one domain, not node by node):

1. every victim unit of lower priority than the group is taken off (hypothetically), a PodGroup
   disrupted as a whole with all its pods, on every node;
2. the group's algorithm runs again (`schedule()`); if it still fails, preemption cannot help;
3. units are reprieved whole, PDB-violating first, most important first: a unit stays when every
   member the algorithm placed still passes the filters on its node, members placed in order;
4. the units not reprieved are the victims; each placed member is nominated to its node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from kubeberth import ClusterView, Code, CycleState, Handle, PodView, Status
from kubeberth.api.placement import PodGroupInfo, ProposedAssignment

from .evaluator import PRE_FILTER_RESULT_REASON
from .pdb import PDB
from .victims import (
    Victim,
    filter_victims_with_pdb_violation,
    pod_group_priority,
    victim_importance_key,
    victim_priority,
    victims_on_node,
)

NO_VICTIMS_FOR_PREEMPTOR = "No preemption victims found for incoming preemptor"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
ONGOING = "ongoing preemption on nominated nodes"

Schedule = Callable[[], "tuple[list[ProposedAssignment], Status]"]


@dataclass(frozen=True, slots=True)
class PodGroupPreemptor:
    """The group preempting (podGroupPreemptor): its priority, policy and the members to place."""

    namespace: str
    name: str
    uid: str
    priority: int
    preemption_policy: str
    members: tuple[PodView, ...]
    pod_group: Mapping[str, Any] | None = None  # the PodGroup object

    @classmethod
    def of(cls, info: PodGroupInfo, by_group_policy: bool) -> PodGroupPreemptor:
        group = info.pod_group or {}
        spec = group.get("spec") or {}
        policy = "PreemptLowerPriority"
        if by_group_policy:  # PodGroupPreemptionPolicy: the group's own field (unset: the default)
            policy = spec.get("preemptionPolicy") or policy
        elif any(p.preemption_policy == "Never" for p in info.unscheduled_pods):
            policy = "Never"
        uid = (group.get("metadata") or {}).get("uid") or f"{info.namespace}/{info.name}"
        return cls(info.namespace, info.name, uid, pod_group_priority(group), policy, info.unscheduled_pods, group)


@dataclass(slots=True)
class PodGroupPreemption:
    """The evaluation's outcome (selectVictimsResult): victims most important first, per-member nodes."""

    victims: list[PodView]
    num_pdb_violations: int
    num_group_disruptions: int
    nominations: dict[str, str]


class PodGroupEvaluator:
    """One PodGroupPostFilter attempt: the inputs every step shares."""

    def __init__(self, preemptor: PodGroupPreemptor, cluster: ClusterView, handle: Handle, pdbs: list[PDB]) -> None:
        self.preemptor = preemptor
        self.cluster = cluster
        self.handle = handle
        self.pdbs = pdbs

    def ongoing(self, terminating: Callable[[PodView], bool]) -> bool:
        """isOngoingPreemption: a lower-priority pod terminating by preemption on a member's nominated node."""
        cluster = self.cluster
        for name in {p.nominated_node_name for p in self.preemptor.members if p.nominated_node_name}:
            row = cluster.table.row_of.get(name)
            if row is None:
                continue
            for pod in cluster.node_pods(row).values():
                if victim_priority(pod, cluster) < self.preemptor.priority and terminating(pod):
                    return True
        return False

    def potential_victims(self) -> list[Victim]:
        """newDomainForWorkloadPreemption's victims of lower priority than the group, every node."""
        cluster = self.cluster
        seen: set[int] = set()
        out = []
        for row in cluster.table.ordered_rows().tolist():
            for victim in victims_on_node(cluster, row):
                first = id(victim.placed[0][0])
                if victim.priority >= self.preemptor.priority or first in seen:
                    continue
                seen.update(id(p) for p in victim.pods)
                out.append(victim)
        return out

    def select_victims(self, schedule: Schedule) -> PodGroupPreemption | Status:
        """selectVictimsOnDomain."""
        potential = self.potential_victims()
        if not potential:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS_FOR_PREEMPTOR,))
        cluster = self.cluster
        with cluster.hypothetical(remove=[p for v in potential for p in v.pods]) as what_if:
            assignments, status = schedule()
            if not status.ok:
                return status
            potential.sort(key=victim_importance_key)
            violating, non_violating = filter_victims_with_pdb_violation(potential, self.pdbs)
            placed = [a for a in assignments if a.node_name]
            chosen: list[Victim] = []
            num_violations = 0
            for victim, count in [*violating, *((v, 0) for v in non_violating)]:
                for pod, row in victim.placed:
                    what_if.add(pod, row)
                if not self._members_fit(placed, what_if):
                    for pod in victim.pods:
                        what_if.remove(pod)
                    chosen.append(victim)
                    num_violations += count
        chosen.sort(key=victim_importance_key)
        return PodGroupPreemption(
            [p for v in chosen for p in v.pods],
            num_violations,
            sum(v.is_group for v in chosen),
            {a.pod.uid: a.node_name for a in placed},
        )

    def _members_fit(self, placed: list[ProposedAssignment], what_if: Any) -> bool:
        """Every placed member passes the filters on its node, in order, each seeing those before it assumed
        and reserved (reprieveVictim: the Reserve plugins run for it with its CycleState, their result
        ignored); the members are unreserved and taken off again before returning."""
        added: list[tuple[ProposedAssignment, CycleState]] = []
        try:
            for a in placed:
                if not self._fits(a.pod, a.node_name):
                    return False
                what_if.add(a.pod, a.node_name)
                state = a.state if a.state is not None else CycleState()
                added.append((a, state))
                self.handle.run_reserve(state, a.pod, a.node_name)
            return True
        finally:
            for a, state in reversed(added):
                self.handle.run_unreserve(state, a.pod, a.node_name)
                what_if.remove(a.pod)

    def _fits(self, pod: PodView, node: str) -> bool:
        """RunFilterPluginsWithNominatedPods for one member on one node, PreFilter run afresh on the
        cluster as it is (kube-scheduler keeps the member's CycleState current through
        PreFilterExtensions; kubeberth's plugins have none)."""
        cluster, handle = self.cluster, self.handle
        table = cluster.table
        row = table.row_of.get(node)
        if row is None:
            return False
        state = CycleState()
        status, narrowed = handle.run_pre_filter(state, pod, table.view(table.ordered_rows()))
        if not status.ok or (narrowed is not None and node not in narrowed):
            return False
        one = table.view(np.asarray([row], dtype=np.int64))
        members = {p.uid for p in self.preemptor.members}
        ghosts = [p for p in cluster.nominated_ghosts(pod).get(row, ()) if p.uid not in members]
        if ghosts:
            with cluster.hypothetical(add=[(p, row) for p in ghosts]):
                if not handle.run_filters(_clone(state), pod, one)[0]:
                    return False
        return bool(handle.run_filters(state, pod, one)[0])


def _clone(state: CycleState) -> CycleState:
    out = CycleState()
    out.update(state)
    out.skip_filter = set(state.skip_filter)
    out.skip_score = set(state.skip_score)
    return out


__all__ = [
    "NOT_ELIGIBLE_NEVER",
    "NO_VICTIMS_FOR_PREEMPTOR",
    "ONGOING",
    "PRE_FILTER_RESULT_REASON",
    "PodGroupEvaluator",
    "PodGroupPreemption",
    "PodGroupPreemptor",
]

"""Preemption victims under GenericWorkload (kube-scheduler v1.37's framework/preemption types.go and util.go).

With the GenericWorkload gate on, a victim is a *unit*: one pod, or every scheduled pod of a PodGroup
whose `spec.disruptionMode` is `all` (a gang is evicted whole or not at all), wherever its pods run.
A unit is chosen, reprieved and counted against PodDisruptionBudgets as one, and its priority is its
PodGroup's (`spec.priority`, 0 when unset) when the pod names a PodGroup the scheduler knows.

With the gate off DefaultPreemption never builds these: its victims stay single pods at their own
priority (kube-scheduler's GetVictimsOnNode without GenericWorkload).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubeberth import ClusterView, PodView

from .candidates import start_time
from .pdb import PDB


class VictimKind(enum.IntEnum):
    """fwk.EntityKeyType of a victim, valued by its rank in MoreImportantVictim (a group outranks a pod)."""

    POD = 1
    POD_GROUP = 2


@dataclass(frozen=True, slots=True, eq=False)
class Victim:
    """An atomic preemption unit (kube-scheduler's DomainVictim).

    pods          every pod evicted with the unit, each with the row of the node it is on
    priority      the unit's priority (its PodGroup's, else the pod's)
    kind          VictimKind.POD_GROUP for a PodGroup unit, and for a single pod that names a PodGroup
    """

    placed: tuple[tuple[PodView, int], ...]
    priority: int
    kind: VictimKind
    earliest_start: float = field(default=math.inf)

    @property
    def pods(self) -> tuple[PodView, ...]:
        return tuple(p for p, _row in self.placed)

    @property
    def is_group(self) -> bool:
        return self.kind is VictimKind.POD_GROUP

    @property
    def affected_rows(self) -> tuple[int, ...]:
        """The rows hosting at least one of the unit's pods (AffectedNodes), first seen first."""
        return tuple(dict.fromkeys(row for _p, row in self.placed))


def new_victim(placed: list[tuple[PodView, int]], priority: int, kind: VictimKind) -> Victim:
    """NewVictim: the unit's earliest start is its pods' earliest (not started counts as latest)."""
    earliest = min((start_time(p) for p, _row in placed), default=math.inf)
    return Victim(tuple(placed), priority, kind, earliest)


def pod_group_of(pod: PodView, cluster: ClusterView) -> dict[str, Any] | None:
    """The PodGroup a pod names (spec.schedulingGroup.podGroupName), as the cache has it."""
    if not pod.pod_group:
        return None
    return cluster.get_object("PodGroup", f"{pod.namespace}/{pod.pod_group}")


def pod_group_priority(group: Mapping[str, Any]) -> int:
    """util.PodGroupPriority: spec.priority, 0 when unset."""
    return int((group.get("spec") or {}).get("priority") or 0)


def disrupted_together(group: Mapping[str, Any] | None) -> bool:
    """A PodGroup whose spec.disruptionMode is `all`: its pods are evicted together."""
    mode = ((group or {}).get("spec") or {}).get("disruptionMode") or {}
    return mode.get("all") is not None


def victim_priority(pod: PodView, cluster: ClusterView) -> int:
    """GetPodPriority: the priority of the pod's PodGroup when it names one the scheduler knows."""
    group = pod_group_of(pod, cluster)
    return pod.priority if group is None else pod_group_priority(group)


def victims_on_node(cluster: ClusterView, row: int) -> list[Victim]:
    """getCrossNodesVictims for one node: its pods as units, a pod of a PodGroup disrupted as a
    whole standing for every scheduled pod of that group, on any node."""
    seen: set[tuple[str, str]] = set()
    out: list[Victim] = []
    placement = cluster.placement
    for pod in cluster.node_pods(row).values():
        group = pod_group_of(pod, cluster)
        if group is None:
            kind = VictimKind.POD_GROUP if pod.pod_group else VictimKind.POD
            out.append(new_victim([(pod, row)], pod.priority, kind))
            continue
        priority = pod_group_priority(group)
        if not disrupted_together(group):
            out.append(new_victim([(pod, row)], priority, VictimKind.POD_GROUP))
            continue
        key = (pod.namespace, pod.pod_group)
        if key in seen:
            continue
        seen.add(key)
        state = cluster.pod_group_state(*key)
        placed = []
        for uid in sorted(state.assumed | state.assigned):
            member = cluster.pods.get(uid)
            member_row = placement.get(uid)
            if member is not None and member_row is not None:
                placed.append((member, member_row))
        if not placed:  # cannot happen for a placed pod; keep it alone as upstream does
            placed = [(pod, row)]
        out.append(new_victim(placed, priority, VictimKind.POD_GROUP))
    return out


def victim_importance_key(victim: Victim) -> tuple[int, int, int, float]:
    """MoreImportantVictim as a sort key, most important first: higher priority, then a group over a
    pod, then the larger unit, then the earlier start."""
    return (-victim.priority, -int(victim.kind), -len(victim.placed), victim.earliest_start)


def filter_victims_with_pdb_violation(
    victims: list[Victim], pdbs: list[PDB]
) -> tuple[list[tuple[Victim, int]], list[Victim]]:
    """FilterVictimsWithPDBViolation: a unit violates when any of its pods would (counted per pod),
    keeping order; (violating units with their violating pods' count, the others)."""
    allowed = [p.disruptions_allowed for p in pdbs]

    def violates(pod: PodView) -> bool:
        if not pod.labels:
            return False
        for i, pdb in enumerate(pdbs):
            if not pdb.matches(pod) or pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
        return False

    violating: list[tuple[Victim, int]] = []
    others: list[Victim] = []
    for victim in victims:
        count = sum(violates(p) for p in victim.pods)
        if count:
            violating.append((victim, count))
        else:
            others.append(victim)
    return violating, others


def more_important_victim(a: Victim, b: Victim) -> bool:
    """kube-scheduler's preemption.MoreImportantVictim: the default order of units (victim_importance_key)."""
    return victim_importance_key(a) < victim_importance_key(b)

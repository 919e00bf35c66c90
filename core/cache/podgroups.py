"""Pod group membership: which pods name which PodGroup (kube-scheduler's podGroupState).

A pod joins a group through `spec.schedulingGroup.podGroupName` (a PodGroup of
scheduling.k8s.io/v1beta1 in the pod's namespace). The cache keeps the members of every group so
gang scheduling can count them without scanning every pod: a member is *unscheduled* (pending),
*assumed* (placed by a scheduling cycle, binding in flight or waiting at Permit) or *assigned*
(bound, spec.nodeName set). Terminal pods are not members.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .podinfo import PodInfo

__all__ = ["PodGroupMembers", "PodGroupState"]


@dataclass(frozen=True, slots=True)
class PodGroupState:
    """A snapshot of one group's members by uid (upstream's fwk.PodGroupState).

    `unscheduled` holds the pending members themselves (for `handle.activate`).
    """

    namespace: str
    name: str
    assumed: frozenset[str] = frozenset()
    assigned: frozenset[str] = frozenset()
    unscheduled: tuple[PodInfo, ...] = ()

    @property
    def all_pods_count(self) -> int:
        """Every member the scheduler knows of (upstream's AllPodsCount)."""
        return len(self.assumed) + len(self.assigned) + len(self.unscheduled)

    @property
    def scheduled_pods_count(self) -> int:
        """Members assumed or bound (upstream's ScheduledPodsCount)."""
        return len(self.assumed) + len(self.assigned)


class PodGroupMembers:
    """uids of the pods of each (namespace, PodGroup name), kept by ClusterState."""

    __slots__ = ("_members", "_group_of")

    def __init__(self) -> None:
        self._members: dict[tuple[str, str], set[str]] = {}
        self._group_of: dict[str, tuple[str, str]] = {}

    def update(self, pod: PodInfo) -> None:
        """A pod was added or changed: keep it in its group unless it has none or finished."""
        key = (pod.namespace, pod.pod_group) if pod.pod_group and not pod.is_terminal else None
        old = self._group_of.get(pod.uid)
        if old == key:
            return
        if old is not None:
            self.remove(pod.uid)
        if key is not None:
            self._group_of[pod.uid] = key
            self._members.setdefault(key, set()).add(pod.uid)

    def remove(self, uid: str) -> None:
        key = self._group_of.pop(uid, None)
        if key is None:
            return
        members = self._members.get(key)
        if members is not None:
            members.discard(uid)
            if not members:
                del self._members[key]

    def state(
        self, namespace: str, name: str, pods: Mapping[str, PodInfo], is_assumed: Callable[[str], bool]
    ) -> PodGroupState:
        assumed: set[str] = set()
        assigned: set[str] = set()
        unscheduled: list[PodInfo] = []
        for uid in self._members.get((namespace, name), ()):
            pod = pods.get(uid)
            if pod is None:
                continue
            if is_assumed(uid):
                assumed.add(uid)
            elif pod.node_name:
                assigned.add(uid)
            else:
                unscheduled.append(pod)
        unscheduled.sort(key=lambda p: p.name)
        return PodGroupState(namespace, name, frozenset(assumed), frozenset(assigned), tuple(unscheduled))

"""The services a running framework gives its plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.status import Status
from ..backends.base import Backend
from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from .waiting_pods import WaitingPod

if TYPE_CHECKING:
    from .scheduler import Scheduler


class FrameworkHandle:
    """What plugins may do beyond their own state: backend writes, waiting pods, re-running filters."""

    def __init__(self, scheduler: Scheduler, framework: Framework) -> None:
        self._scheduler = scheduler
        self.framework = framework

    @property
    def backend(self) -> Backend:
        return self._scheduler.backend

    @property
    def cluster(self) -> ClusterState:
        return self._scheduler.cluster

    @property
    def generation_id(self) -> str:
        return self.framework.generation_id

    def now(self) -> float:
        return self._scheduler.clock.now()

    def nominate(self, pod: PodInfo, node_name: str | None) -> None:
        self._scheduler.cluster.nominate(pod, node_name)
        self.backend.set_nominated_node(pod, node_name)

    def delete_victim(self, victim: PodInfo, preemptor: PodInfo, node_name: str = "") -> Status:
        status = self.backend.delete_pod(victim, f"preempted by {preemptor.key}")
        if status.ok:
            self.backend.record_event(
                victim, "Normal", "Preempted", f"Preempted by pod {preemptor.uid} on node {node_name or victim.node_name}"
            )
        return status

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self._scheduler.waiting_pods.get(uid)

    def waiting_pods(self) -> list[WaitingPod]:
        return list(self._scheduler.waiting_pods.values())

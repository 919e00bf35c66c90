"""The runtime's Handle: the services a running framework gives its plugins (see kubeberth.api.handle).

It holds the injected services it needs — backend, cache, clock, waiting pods, framework — and
nothing else, so a plugin cannot reach the loop, the queue or the scheduler object through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..api.capabilities import Capabilities
from ..api.features import FeatureGates
from ..api.handle import WaitingPodHandle
from ..api.status import Status
from ..api.types import CycleState, PreBindCancellation
from ..backends.base import Backend
from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeView
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.hooks import PluginFailure
from ..runtime.records import Diagnosis
from .extenders import preempt_with_extenders
from .waiting_pods import WaitingPod

if TYPE_CHECKING:
    from ..api.views import PodView


def _info(pod: PodView) -> PodInfo:
    """The cache's pod behind a plugin's read-only view (views are typing only: the same object)."""
    return cast(PodInfo, pod)


def _infos(victims: dict[str, tuple[list[PodView], int]]) -> dict[str, tuple[list[PodInfo], int]]:
    return cast("dict[str, tuple[list[PodInfo], int]]", victims)


def pod_group_name(group: Mapping[str, Any]) -> str:
    return str((group.get("metadata") or {}).get("name", ""))


class FrameworkHandle:
    """Implements kubeberth.api.Handle for one profile's framework."""

    __slots__ = (
        "framework", "_backend", "_cluster", "_now", "_waiting", "_request_move", "_activate", "_run_async", "_in_pre_bind",
        "_held_uid", "_held", "_reserve",
    )

    def __init__(
        self,
        framework: Framework,
        backend: Backend,
        cluster: ClusterState,
        now: Callable[[], float],
        waiting_pods: Mapping[str, WaitingPod],
        request_move: Callable[[str], None] | None = None,
        activate: Callable[[list[str]], None] | None = None,
        run_async: Callable[[Callable[[], None], Callable[[], None] | None], None] | None = None,
        pods_in_pre_bind: Mapping[str, PreBindCancellation] | None = None,
        reserve: Callable[[PodInfo, str], str] | None = None,
    ) -> None:
        """`reserve(preemptor, node)`: called before a preemptor's first victim on `node` is
        deleted (active-active scale out claims the room for it; docs/scale-out.md); a message
        back means another replica claimed the node meanwhile: no victim is deleted there."""
        self.framework = framework
        self._backend = backend
        self._cluster = cluster
        self._now = now
        self._waiting = waiting_pods
        self._request_move = request_move
        self._activate = activate
        self._run_async = run_async
        self._in_pre_bind = pods_in_pre_bind if pods_in_pre_bind is not None else {}
        self._held_uid = ""  # the preemptor whose nomination waits for its PodScheduled condition
        self._held: str | None = None
        self._reserve = reserve

    # ---- reads ---------------------------------------------------------------------------
    @property
    def cluster(self) -> ClusterState:
        return self._cluster

    @property
    def profile(self) -> str:
        return self.framework.profile

    @property
    def generation_id(self) -> str:
        return self.framework.generation_id

    @property
    def feature_gates(self) -> FeatureGates:
        return self.framework.feature_gates

    def now(self) -> float:
        return self._now()

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        return self._backend.get_object(kind, key)

    # ---- writes --------------------------------------------------------------------------
    def nominate(self, pod: PodView, node_name: str | None) -> None:
        self._cluster.nominate(_info(pod), node_name)
        if pod.uid == self._held_uid:
            self._held = node_name or ""  # written with the PodScheduled condition (take_nomination)
            return
        self._backend.set_nominated_node(_info(pod), node_name)

    def hold_nomination(self, pod: PodInfo) -> None:
        """Until take_nomination, hold back the status write of `pod`'s nomination: kube-scheduler
        makes it in handleSchedulingFailure's updatePod, one patch with the PodScheduled condition,
        not from PostFilter. The cache's nomination is still made at once."""
        self._held_uid, self._held = pod.uid, None

    def take_nomination(self) -> str | None:
        """The held nomination ("" clears it), None if PostFilter made none (NominatingInfo ModeNoop)."""
        held, self._held_uid, self._held = self._held, "", None
        return held

    def reserve_room(self, preemptor: PodView, node_name: str) -> Status:
        """See kubeberth.api.Handle.reserve_room (the scale-out reservation; nothing with one scheduler)."""
        if self._reserve is None or not node_name:
            return Status.success()
        refused = self._reserve(_info(preemptor), node_name)
        return Status.error(refused) if refused else Status.success()

    def delete_victim(
        self, victim: PodView, preemptor: PodView, node_name: str = "", *, pod_group: Mapping[str, Any] | None = None
    ) -> Status:
        """kube-scheduler's PreemptPod: mark the victim DisruptionTarget, then delete it (gracefully).
        `pod_group`: the PodGroup preempting (its ExecutorPreemptor of type "podgroup"); `preemptor` is
        then one of its members, whose schedulerName the condition names."""
        kind = "pod" if pod_group is None else "podgroup"
        condition: dict[str, Any] = {
            "type": "DisruptionTarget",
            "status": "True",
            "reason": "PreemptionByScheduler",
            # the preemptor's spec.schedulerName as written (upstream reads the field; the API server defaults it)
            "message": f"{(preemptor.raw.get('spec') or {}).get('schedulerName', '')}: preempting to accommodate a higher priority {kind}",
        }
        generation = (victim.raw.get("metadata") or {}).get("generation")
        if isinstance(generation, int) and generation:
            condition["observedGeneration"] = generation  # PodObservedGenerationTracking (GA in v1.35)
        current = self._cluster.pods.get(victim.uid)
        if current is not None and current.deleting:
            return Status.success()  # its deletion seen since it was chosen: nothing to do, no event
        if pod_group is None and node_name:
            reserved = self.reserve_room(preemptor, node_name)
            if not reserved.ok:
                return reserved  # the preemption stops here; the preemptor is tried again
        marked = self._backend.mark_disruption_target(_info(victim), condition)
        if not marked.ok:
            return marked
        if marked.err is not None:
            return Status.success()  # already gone or being deleted: nothing to delete, no event
        by = preemptor.key if pod_group is None else f"podgroup {preemptor.namespace}/{pod_group_name(pod_group)}"
        status = self._backend.delete_pod(_info(victim), f"preempted by {by}")
        if status.ok and status.err is None:  # PodGone: gone, or another deletion under way (which reports it)
            uid = preemptor.uid if pod_group is None else (pod_group.get("metadata") or {}).get("uid", "")
            self._backend.record_event(
                _info(victim), "Normal", "Preempted", f"Preempted by {kind} {uid} on node {node_name or victim.node_name}"
            )
        return status

    def bind(self, pod: PodView, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        if annotations:
            return self._backend.bind(_info(pod), node_name, annotations=annotations)
        return self._backend.bind(_info(pod), node_name)

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        return self._backend.update_object(kind, obj, subresource)

    def patch_object(self, kind: str, key: str, patch: Mapping[str, Any], subresource: str = "") -> Status:
        return self._backend.patch_object(kind, key, dict(patch), subresource)

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        return self._backend.create_object(kind, obj)

    def delete_object(self, kind: str, key: str) -> Status:
        return self._backend.delete_object(kind, key)

    def request_requeue(self, event: str) -> None:
        if self._request_move is not None:
            self._request_move(event)

    def activate(self, pods: Sequence[PodView]) -> None:
        if self._activate is not None and pods:
            self._activate([p.uid for p in pods])

    def run_async(self, work: Callable[[], None], then: Callable[[], None] | None = None) -> None:
        if self._run_async is not None:
            self._run_async(work, then)
            return
        work()
        if then is not None:
            then()

    def preemption_extenders(
        self, pod: PodView, victims: dict[str, tuple[list[PodView], int]]
    ) -> tuple[dict[str, tuple[list[PodView], int]], Status | None]:
        if not self.framework.extenders:
            return victims, None
        cluster = self._cluster

        def pods_on(node: str) -> dict[str, PodInfo] | None:
            row = cluster.table.row_of.get(node)
            return None if row is None else cluster.node_pods(row)

        chosen, status = preempt_with_extenders(self.framework.extenders, _info(pod), _infos(victims), pods_on)
        return cast("dict[str, tuple[list[PodView], int]]", chosen), status

    # ---- Permit --------------------------------------------------------------------------
    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self._waiting.get(uid)

    def waiting_pods(self) -> list[WaitingPodHandle]:
        return list(self._waiting.values())

    def get_pod_in_pre_bind(self, uid: str) -> PreBindCancellation | None:
        return self._in_pre_bind.get(uid)

    # ---- the profile's plugins -----------------------------------------------------------
    def plugins_at(self, point: str) -> list[str]:
        return self.framework.enabled(point)

    def capabilities(self, plugin: str) -> Capabilities:
        return self.framework.capabilities_of(plugin)

    def run_pre_filter(
        self, state: CycleState, pod: PodView, nodes: NodeView, plugins: Sequence[str] | None = None
    ) -> tuple[Status, frozenset[str] | None]:
        fw = self.framework if plugins is None else self.framework.only("pre_filter", plugins)
        return fw.run_pre_filter(state, _info(pod), nodes, self._cluster, self, None)

    def run_filters(
        self,
        state: CycleState,
        pod: PodView,
        nodes: NodeView,
        diagnosis: Diagnosis | None = None,
        plugins: Sequence[str] | None = None,
    ) -> np.ndarray:
        fw = self.framework if plugins is None else self.framework.only("filter", plugins)
        return fw.run_filters(state, _info(pod), nodes, self._cluster, self, diagnosis)

    def run_reserve(self, state: CycleState, pod: PodView, node_name: str) -> Status:
        return self.framework.run_reserve(state, _info(pod), node_name, self._cluster, self)

    def run_unreserve(self, state: CycleState, pod: PodView, node_name: str) -> None:
        self.framework.run_unreserve(state, _info(pod), node_name, self._cluster, self)

    def run_scores(
        self, state: CycleState, pod: PodView, nodes: NodeView, plugins: Sequence[str] | None = None
    ) -> tuple[np.ndarray, Status]:
        fw = self.framework if plugins is None else self.framework.only("score", plugins)
        info = _info(pod)
        try:
            raw = fw.run_raw_scores(state, info, nodes, self._cluster, self, None)
            total, _ = fw.normalize_scores(state, info, nodes, raw)
        except PluginFailure as failure:
            return np.zeros(len(nodes), dtype=np.int64), failure.status
        return total, Status.success()

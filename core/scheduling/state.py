"""The scheduler's declared state (kube-scheduler's `Scheduler` struct in scheduler.go).

kube-scheduler declares every field of its Scheduler in one struct and spreads the methods over
schedule_one.go, eventhandlers.go and schedule_one_podgroup.go. kubeberth does the same: this class
declares, typed, every attribute the loop's parts read or write and the few services one part calls
on another; each part (EventHandlers, ScheduleOne, PodGroupCycle, BindingCycle) subclasses it and
`Scheduler` (scheduler.py) combines them and fills the state in.
"""

from __future__ import annotations

import queue as queue_mod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.status import Status
from ..api.types import CycleState, PreBindCancellation
from ..backends.base import Backend
from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.generation import Generation
from ..runtime.records import CycleRecord, ScheduleResult
from .batch import BatchCounters, OpportunisticBatch
from .clock import Clock
from .collector import LoadPause
from .handle import FrameworkHandle
from .incremental import IncrementalCycles
from .queue import QueuedPod, SchedulingQueue
from .waiting_pods import WaitingPod

if TYPE_CHECKING:
    from .binding import BindingDone, BindingPool
    from .canary import CanaryRun
    from .scale_out import ScaleOut
    from .shadow import ShadowRun
    from .watchdog import Hang, Watchdog

UNSCHEDULABLE = "Unschedulable"
# kube-scheduler's clearNominatedNode (NominatingInfo ModeOverride, ""): a nomination to drop
CLEAR_NOMINATED_NODE = ""


@dataclass
class SchedulerStats:
    attempts: int = 0
    scheduled: int = 0
    unschedulable_attempts: int = 0
    errors: int = 0
    bind_failures: int = 0
    preemptions: int = 0
    cycle_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class SchedulerState:
    """Every attribute of the scheduling loop, declared once; filled in by Scheduler.__init__.

    Written only on the scheduling thread, except where a comment says otherwise.
    """

    # ---- wiring (Scheduler.__init__'s arguments) ----
    generation: Generation
    backend: Backend
    clock: Clock
    rng: np.random.Generator
    adopt_unknown_profiles: bool
    adopted_scheduler_names: frozenset[str]
    max_errors_per_pod: int | None
    tie_breaker: Callable[[PodInfo, list[str]], str] | None
    # ---- the cache, the queue and what is in flight ----
    cluster: ClusterState
    events: queue_mod.SimpleQueue[Any]  # thread-safe: informers and binding workers put, the loop drains
    queue: SchedulingQueue
    pool: BindingPool
    in_flight: int
    waiting_pods: dict[str, WaitingPod]
    pods_in_pre_bind: dict[str, PreBindCancellation]  # uid -> the cancellation of a PreBind with work
    failed: dict[str, QueuedPod]
    skipped_pods: dict[str, str]  # uid -> why: pods that cannot be parsed, until fixed
    synced_kinds: set[str]
    load_pause: LoadPause  # the garbage collector's pause while the initial lists load
    paused: bool
    # ---- the scheduling cycle ----
    next_start_index: int
    scheduling_cycle: int  # pods popped so far (kube-scheduler's scheduling cycle count)
    batching: bool
    batch_counters: dict[str, BatchCounters]  # profile -> batching counts, across generations
    incremental: bool
    _handles: dict[int, FrameworkHandle]
    _batches: dict[str, OpportunisticBatch]  # profile -> its batch (ScheduleOne.batch_for)
    _incremental: dict[str, IncrementalCycles]  # profile -> its shape cache
    _last_flush: float
    # ---- what the loop reports ----
    records: deque[CycleRecord]
    records_kept: int  # records' maxlen (0 in a serving scheduler: nothing reads them there)
    stats: SchedulerStats
    observers: list[Callable[[CycleRecord], None]]
    binding_observers: list[Callable[[CycleRecord], None]]
    on_event_handled: Callable[[str, float], None] | None
    # The plugin watchdog (watchdog.py): its bound in seconds (0: off) and who hears of a hang.
    plugin_timeout_seconds: float
    timeout_observers: list[Callable[[Hang], None]]
    _watchdog: Watchdog | None  # started by `run`, stopped by `shutdown` (after the binding workers)
    # Active-active scale out (scale_out.py, docs/scale-out.md); None in the default leader mode.
    scale_out: ScaleOut | None
    # A shadow generation deciding beside the live one, writing nothing (shadow.py); None: none.
    shadow: ShadowRun | None
    # A candidate generation deciding and binding a share of the pods (canary.py); None: none.
    canary: CanaryRun | None

    # ---- services one part calls on another (implemented by the part named) ----
    def submit(self, event: Any) -> None:  # Scheduler
        raise NotImplementedError

    def handle_for(self, framework: Framework) -> FrameworkHandle:  # Scheduler
        raise NotImplementedError

    def framework_for(self, pod: PodInfo) -> Framework | None:  # Scheduler
        raise NotImplementedError

    def _pre_enqueue(self, pod: PodInfo) -> Status:  # Scheduler
        raise NotImplementedError

    def _interested(self, pod: PodInfo, plugin: str, event: str, old: Any = None, new: Any = None) -> bool:
        raise NotImplementedError  # EventHandlers

    def _registered(self, pod: PodInfo, plugin: str, event: str) -> bool:  # EventHandlers
        raise NotImplementedError

    def find_node(
        self,
        fw: Framework,
        state: CycleState,
        pod: PodInfo,
        record: CycleRecord | None,
        cycle: int | None = None,
        placement: np.ndarray | None = None,
    ) -> ScheduleResult:  # ScheduleOne
        raise NotImplementedError

    def _assume_reserve_permit(
        self, fw: Framework, handle: FrameworkHandle, state: CycleState, entry: QueuedPod, node: str, record: CycleRecord
    ) -> None:  # ScheduleOne
        raise NotImplementedError

    def _binding_cycle(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        state: CycleState,
        entry: QueuedPod,
        node: str,
        waiting: WaitingPod | None,
        record: CycleRecord | None = None,
    ) -> None:  # BindingCycle
        raise NotImplementedError

    def schedule_pod_group(self, fw: Framework, entry: QueuedPod) -> bool:  # PodGroupCycle
        raise NotImplementedError

    def _finish_binding(self, done: BindingDone) -> None:  # BindingCycle
        raise NotImplementedError

    # ---- the failure outcomes every part shares (kube-scheduler's handleSchedulingFailure) ----
    def _requeue_unschedulable(
        self, entry: QueuedPod, message: str, plugins: frozenset[str], nominated: str | None = None,
        update_pod: bool = False,
    ) -> None:
        """The unschedulable outcome: a FailedScheduling event, the PodScheduled=False condition
        (reason Unschedulable) and the pod back in the unschedulable pool, retried on an event one of
        `plugins` registered. `update_pod`: the condition and `nominated` are one pods/status patch
        (updatePod; `nominated` None leaves the nomination as is)."""
        self._report_unschedulable(entry, message, nominated, update_pod)
        self.queue.requeue_unschedulable(entry, plugins, message)

    def _report_unschedulable(
        self, entry: QueuedPod, message: str, nominated: str | None = None, update_pod: bool = False
    ) -> None:
        """The unschedulable outcome's FailedScheduling event and PodScheduled=False condition (see
        `_requeue_unschedulable`), the pod's place in the queue left to the caller."""
        pod = entry.pod
        backend = self.backend
        backend.record_event(pod, "Warning", "FailedScheduling", message)
        condition = {"type": "PodScheduled", "status": "False", "reason": UNSCHEDULABLE, "message": message}
        if nominated == CLEAR_NOMINATED_NODE:
            self.cluster.nominate(pod, None)  # AddNominatedPod with clearNominatedNode: the nominator forgets it
        if update_pod:
            backend.patch_pod_status(pod, condition, nominated)
        else:
            backend.patch_pod_condition(pod, condition)

    def _requeue_error(self, entry: QueuedPod, message: str, clear_nomination: bool = False) -> None:
        """An error outcome: kube-scheduler reports errors like fit failures, an event and a
        SchedulerError condition; the pod goes to backoff, or to `failed` after max_errors_per_pod.
        `clear_nomination`: the scheduling cycle's result is clearNominatedNode (its errors are): the
        condition and the cleared nomination are one pods/status patch (updatePod)."""
        self.backend.record_event(entry.pod, "Warning", "FailedScheduling", message)
        condition = {"type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": message}
        if clear_nomination:
            self.cluster.nominate(entry.pod, None)
            self.backend.patch_pod_status(entry.pod, condition, CLEAR_NOMINATED_NODE)
        else:
            self.backend.patch_pod_condition(entry.pod, condition)
        if self.max_errors_per_pod is not None and entry.errors + 1 >= self.max_errors_per_pod:
            entry.errors += 1
            entry.last_message = message
            entry.where = "failed"
            self.failed[entry.pod.uid] = entry
            self.queue.done(entry.pod.uid)
            return
        self.queue.requeue_error(entry, message)

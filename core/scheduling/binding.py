"""The binding cycle (kube-scheduler's bindingCycle): permit wait, PreBind, Bind and PostBind in a
bounded worker pool, reporting back to the scheduling thread by event."""

from __future__ import annotations

import copy
import logging
import queue as queue_mod
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..api.status import Code, Status
from ..api.types import CycleState, PreBindCancellation
from ..backends.base import BackendUnavailable, PodGone
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.records import CycleRecord, Diagnosis
from .extenders import bind_with_extenders
from .handle import FrameworkHandle
from .queue import QueuedPod
from .scale_out import SEEN_KEY as SCALE_OUT_SEEN
from .scale_out import UNKNOWN_VIEW, CommitConflict
from .state import SchedulerState
from .waiting_pods import WaitingPod

log = logging.getLogger(__name__)


class BindingPool:
    """Fixed binding worker threads over one queue (ThreadPoolExecutor's submit/shutdown subset).

    Cheaper per task than ThreadPoolExecutor, which builds a Future and re-checks idle workers on
    every submit: the binding cycle reports back through the scheduler's event queue instead.
    """

    def __init__(self, max_workers: int, thread_name_prefix: str = "") -> None:
        self._max = max(1, max_workers)
        self._prefix = thread_name_prefix
        self._tasks: queue_mod.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = queue_mod.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._shutdown:
            raise RuntimeError("cannot schedule new bindings after shutdown")
        self._tasks.put((fn, args))
        if len(self._threads) < self._max:
            t = threading.Thread(target=self._work, name=f"{self._prefix}_{len(self._threads)}", daemon=True)
            self._threads.append(t)
            t.start()

    def owns_current_thread(self) -> bool:
        """Is the caller one of this pool's workers (a binding cycle)?"""
        return threading.current_thread() in self._threads

    def idents(self) -> frozenset[int]:
        """The thread idents of the workers started so far (the plugin watchdog watches these)."""
        return frozenset(t.ident for t in list(self._threads) if t.ident is not None)

    def backlog(self) -> int:
        """Bindings submitted and not yet started."""
        return self._tasks.qsize()

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            fn, args = task
            try:
                fn(*args)
            except Exception:  # the binding cycle reports its own failures; never kill a worker
                log.exception("binding worker task failed")
            # An idle worker must not pin its last pod's framework (and so an old generation).
            del task, fn, args

    def shutdown(self, wait: bool = True) -> None:
        if not self._shutdown:
            self._shutdown = True
            for _ in self._threads:
                self._tasks.put(None)
        if wait:
            for t in self._threads:
                if t is not threading.current_thread():
                    t.join()


@dataclass
class BindingDone:
    """A binding cycle's outcome, reported to the scheduling thread."""

    entry: QueuedPod
    framework: Framework
    handle: FrameworkHandle
    state: CycleState
    node: str
    status: Status
    record: CycleRecord | None = None
    binding: dict[str, Any] | None = None


class BindingRun:
    """One binding cycle's progress: its steps (extension point, start ns, end ns, status code) and
    the node it wrote into status.nominatedNodeName (kept if a later step raises)."""

    __slots__ = ("steps", "t0", "nominated")

    def __init__(self, start: int) -> None:
        self.steps: list[tuple[str, int, int, str]] = []
        self.t0 = start
        self.nominated = ""

    def step(self, point: str, code: str) -> None:
        """A step that ran from the last one's end until now."""
        now = time.time_ns()
        self.steps.append((point, self.t0, now, code))
        self.t0 = now


class BindingCycle(SchedulerState):
    """The binding cycle's steps: the worker side and the scheduling thread's side of its result."""

    def _binding_cycle(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        state: CycleState,
        entry: QueuedPod,
        node: str,
        waiting: WaitingPod | None,
        record: CycleRecord | None = None,
    ) -> None:
        """Runs in a binding worker: wait on permit, pre_bind, bind, post_bind; reports back by event."""
        pod = entry.pod
        start = time.time_ns()
        run = BindingRun(start)
        scale_out = self.scale_out
        committed = False
        try:
            status = Status.success()
            if scale_out is not None:
                # Active-active: the placement is committed against the other replicas' claims
                # first (docs/scale-out.md). A pod held at Permit (a gang member) so holds its room
                # for every replica while it waits, and one that loses the commit writes nothing
                # (no nomination, no PreBind); a conflict ends the cycle like a failed bind.
                status = scale_out.commit(pod, node, entry.extra.get(SCALE_OUT_SEEN) or UNKNOWN_VIEW)
                committed = status.ok
                run.step("Commit", status.code.name)
            if status.ok:
                status = self._wait_and_pre_bind(fw, handle, state, pod, node, waiting, run)
            if status.ok:
                status = self._bind(fw, handle, state, pod, node, run)
            if committed and scale_out is not None:
                scale_out.finished(pod, node, status.ok)
            if status.ok:
                self.backend.record_event(pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {node}")
                run.t0 = time.time_ns()
                fw.run_post_bind(state, pod, node, handle)
                run.step("PostBind", "SUCCESS")
        except Exception as exc:  # a crashing worker must still report back
            log.exception("binding cycle failed for %s", pod.key)
            status = Status.error(f"binding cycle raised {type(exc).__name__}: {exc}")
        nominated = run.nominated
        if not status.ok and (nominated or pod.nominated_node_name) and not isinstance(status.err, PodGone):
            # kube-scheduler's handleBindingCycleError clears the nomination (clearNominatedNode).
            self._write_nomination(pod, "", nominated or pod.nominated_node_name)
        binding = {
            "node": node,
            "generation": fw.generation_id,
            "result": "Bound" if status.ok else ("Error" if status.code == Code.ERROR else "Rejected"),
            "message": status.message,
            "plugin": status.plugin or "",
            "start_ns": start,
            "end_ns": time.time_ns(),
            "steps": run.steps,
        }
        if nominated:
            binding["nominated"] = nominated
        if isinstance(status.err, BackendUnavailable):
            binding["unavailable"] = True  # the API failed, not the plugins (a probation does not count it)
        self.submit(BindingDone(entry, fw, handle, state, node, status, record, binding))

    def _wait_and_pre_bind(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        state: CycleState,
        pod: PodInfo,
        node: str,
        waiting: WaitingPod | None,
        run: BindingRun,
    ) -> Status:
        """PreBindPreFlight (and the nomination it calls for), WaitOnPermit, then PreBind."""
        status = Status.success()
        cancellation: PreBindCancellation | None = None
        if fw.nominated_node_name_for_expectation:
            status, cancellation = self._pre_bind_pre_flight(fw, handle, state, pod, node, waiting, run)
        if waiting is not None and status.ok:
            status = waiting.wait()
            if status.is_rejected:
                # kube-scheduler's bindingCycle: a rejection while waiting on permit is a FitError over the one node.
                status = Status(status.code, (Diagnosis.one_node(status).message(),), status.plugin, status.err)
            run.step("WaitOnPermit", status.code.name)
        if not status.ok:
            return status
        if cancellation is not None:
            state.pre_bind_cancellation = cancellation
            self.pods_in_pre_bind[pod.uid] = cancellation
        status = fw.run_pre_bind(state, pod, node, handle)
        run.step("PreBind", status.code.name)
        if status.ok and cancellation is not None and not cancellation.mark_prebound():
            # Preempted while in PreBind, after its plugins returned: never bound.
            status = Status.error(cancellation.reason)
        return status

    def _pre_bind_pre_flight(
        self,
        fw: Framework,
        handle: FrameworkHandle,
        state: CycleState,
        pod: PodInfo,
        node: str,
        waiting: WaitingPod | None,
        run: BindingRun,
    ) -> tuple[Status, PreBindCancellation | None]:
        """NominatedNodeNameForExpectation: PreBindPreFlight, and the nomination written before a
        PreBind with work or a Permit wait. A PreBind with work can be cancelled by preemption."""
        status = fw.run_pre_bind_pre_flights(state, pod, node, handle)
        run.step("PreBindPreFlight", status.code.name)
        # PreBind has work: preemption may cancel it while it runs (PodsInPreBind).
        cancellation = PreBindCancellation() if status.code == Code.SUCCESS else None
        if status.code == Code.SKIP:
            status = Status.success()
            if waiting is not None:  # kube-scheduler's WillWaitOnPermit
                run.nominated = self._write_nomination(pod, node)
        elif status.ok:
            run.nominated = self._write_nomination(pod, node)
        if run.nominated:
            run.t0 = time.time_ns()  # the write is no part of the next step
        return status, cancellation

    def _bind(
        self, fw: Framework, handle: FrameworkHandle, state: CycleState, pod: PodInfo, node: str, run: BindingRun
    ) -> Status:
        """Extenders bind before the framework's Bind plugins (kube-scheduler's extendersBinding)."""
        by_extender = bind_with_extenders(fw.extenders, pod, node) if fw.extenders else None
        if by_extender is not None:
            run.step("ExtenderBind", by_extender[1].code.name)
            return by_extender[1]
        status = fw.run_bind(state, pod, node, handle)
        run.step("Bind", status.code.name)
        return status

    def _write_nomination(self, pod: PodInfo, node: str, current: str | None = None) -> str:
        """Write status.nominatedNodeName = `node` ("" clears it) from the binding worker, as
        kube-scheduler's binding cycle does under NominatedNodeNameForExpectation before a PreBind
        with work or a Permit wait: a slow PreBind (volumes, claims) then already tells observers
        (cluster autoscaler) where the pod goes. Skipped when the pod already carries it (`current`:
        what the API holds, by default the pod's own nomination); a failed write is logged and
        binding goes on, as upstream. Returns the node written ("" when nothing was)."""
        if (pod.nominated_node_name if current is None else current) == node:
            return ""
        written = self.backend.write_nominated_node(pod, node)
        if not written.ok:
            log.warning("failed to update the nominated node name of %s to %r in the binding cycle: %s",
                        pod.key, node, written.message)
            return ""
        return node

    def _finish_binding(self, done: BindingDone) -> None:
        self.in_flight -= 1
        pod = done.entry.pod
        self.waiting_pods.pop(pod.uid, None)
        if done.state.pre_bind_cancellation is not None:
            # Registered until the cache forgets or confirms the pod here, not when its PreBind
            # returns: a preemption in between sees a cancelled victim still in PreBind and cancels
            # again, instead of deleting a pod that is about to go back to the queue.
            self.pods_in_pre_bind.pop(pod.uid, None)
        if done.record is not None:
            done.record.binding = done.binding
            for observer in self.binding_observers:
                observer(done.record)
        if done.status.ok:
            self.stats.scheduled += 1
            self.queue.done(pod.uid)
            return
        self.stats.bind_failures += 1
        done.framework.run_unreserve(done.state, pod, done.node, self.cluster, done.handle)
        # kube-scheduler's ForgetPod fails only for a pod the cache holds as bound (not assumed);
        # a pod already gone from the cache (its deletion event came during the binding) forgets fine
        bound = pod.uid in self.cluster.placement and pod.uid not in self.cluster.assumed
        self.cluster.forget(pod)
        self._requeue_failed_binding(done)
        if not bound:
            # Forgetting an assumed pod frees what it held: kube-scheduler treats it as an
            # assigned pod's deletion for the pods waiting for room (also when the pod was deleted
            # while binding: what a plugin reserved for it is released only now, by Unreserve), after
            # the pod itself is requeued (so the move does not send it to backoff) and leaving it
            # where it is.
            # The event carries the assumed pod, on its node (upstream's assumedPod), so that hints
            # asking "was it placed?" (NodeResourcesFit's) see it freeing room.
            assumed = copy.copy(pod)
            assumed.node_name = done.node
            self.queue.move_for_event("Pod/Delete", self._interested, skip=pod.uid, old=assumed)

    def _requeue_failed_binding(self, done: BindingDone) -> None:
        pod = done.entry.pod
        if isinstance(done.status.err, PodGone):
            # The API has no such pod: its deletion event is on the way. Nothing to retry and no
            # one to tell (an event or status write about it would only fail with 404 too).
            self.queue.delete(pod.uid)
            return
        if self.queue.entries.get(pod.uid) is not done.entry:
            return  # deleted or bound elsewhere while binding (see EventHandlers._no_longer_pending)
        message = done.status.message
        if self.scale_out is not None and isinstance(done.status.err, CommitConflict):
            self.scale_out.requeue_conflict(done.entry, message)
            return
        if done.status.is_rejected:
            self._requeue_unschedulable(done.entry, message, frozenset({done.status.plugin}))
        else:
            self._requeue_error(done.entry, message)

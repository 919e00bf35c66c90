"""The scheduling loop: one thread owns the cache and the queue (DESIGN property 2).

Informers and binding workers never touch scheduling state; they put events on `events`, which
the loop drains between cycles. Binding runs asynchronously in a bounded worker pool with the
pod assumed in the cache, and forgotten (with unreserve) if binding fails.
"""

from __future__ import annotations

import contextlib
import logging
import queue as queue_mod
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .backends.base import Backend, ClusterEvent
from .cluster import ClusterState
from .framework import (
    REJECTED_NODES_RECORDED,
    TOP_SCORES_RECORDED,
    CycleRecord,
    CycleState,
    Diagnosis,
    Framework,
    PluginFailure,
    ScheduleResult,
    num_feasible_nodes_to_find,
)
from .generation import Generation
from .podinfo import PodInfo, PodSpecError
from .queue import QueuedPod, SchedulingQueue
from .status import Code, Status

log = logging.getLogger(__name__)

RECORDS_KEPT = 10000
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0


class Clock:
    """Wall-clock time for queue backoff; the simulator swaps in a virtual clock."""

    virtual = False

    def now(self) -> float:
        return time.monotonic()


class VirtualClock(Clock):
    """Time that jumps forward when the simulator is idle, so backoffs cost no real time."""

    virtual = True

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def advance_to(self, t: float) -> None:
        self.t = max(self.t, t)


class WaitingPod:
    """A pod held at Permit until every waiting plugin allows it, any rejects it, or time runs out."""

    def __init__(self, pod: PodInfo, waits: dict[str, float]) -> None:
        self.pod = pod
        self._lock = threading.Lock()
        self._pending = {name: time.monotonic() + timeout for name, timeout in waits.items()}
        self._done = threading.Event()
        self._status: Status | None = None

    @property
    def pending_plugins(self) -> list[str]:
        with self._lock:
            return sorted(self._pending)

    def allow(self, plugin: str) -> None:
        with self._lock:
            self._pending.pop(plugin, None)
            if not self._pending and self._status is None:
                self._status = Status.success()
                self._done.set()

    def reject(self, plugin: str, message: str) -> None:
        with self._lock:
            if self._status is None:
                self._status = Status(Code.UNSCHEDULABLE, (message,), plugin)
                self._done.set()

    def wait(self) -> Status:
        while not self._done.is_set():
            with self._lock:
                if not self._pending:
                    break
                plugin, deadline = min(self._pending.items(), key=lambda kv: kv[1])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                with self._lock:
                    waited = plugin
                self.reject(waited, f"rejected due to timeout after waiting at plugin {waited}")
                break
            self._done.wait(min(remaining, 1.0))
        with self._lock:
            return self._status or Status.success()


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
class _BindingDone:
    entry: QueuedPod
    framework: Framework
    handle: FrameworkHandle
    state: CycleState
    node: str
    status: Status
    record: CycleRecord | None = None
    binding: dict[str, Any] | None = None


@dataclass
class _SwapGeneration:
    generation: Generation


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


class Scheduler:
    """The scheduling loop over one backend, running the current Generation's frameworks."""

    def __init__(
        self,
        generation: Generation,
        backend: Backend,
        clock: Clock | None = None,
        seed: int | None = None,
        binding_workers: int = 16,
        adopt_unknown_profiles: bool = False,
        max_errors_per_pod: int | None = None,
    ) -> None:
        self.generation = generation
        self.backend = backend
        self.clock = clock or Clock()
        self.rng = np.random.default_rng(seed)
        self.cluster = ClusterState()
        self.events: queue_mod.SimpleQueue[Any] = queue_mod.SimpleQueue()
        self.adopt_unknown_profiles = adopt_unknown_profiles
        self.max_errors_per_pod = max_errors_per_pod
        cfg = generation.config
        fw = generation.default_profile
        self._handles: dict[int, FrameworkHandle] = {}
        self.queue = SchedulingQueue(
            fw.queue_sort_key,
            self._pre_enqueue,
            self.clock.now,
            cfg.podInitialBackoffSeconds,
            cfg.podMaxBackoffSeconds,
        )
        self.pool = BindingPool(binding_workers, "kubeberth-bind")
        self.in_flight = 0
        self.waiting_pods: dict[str, WaitingPod] = {}
        self.records: deque[CycleRecord] = deque(maxlen=RECORDS_KEPT)
        self.stats = SchedulerStats()
        self.next_start_index = 0
        self.failed: dict[str, QueuedPod] = {}
        self.paused = False
        # Called on the loop thread after each scheduling cycle, and after each binding cycle
        # (record.binding set): traces, metrics, decision records and logs.
        self.observers: list[Callable[[CycleRecord], None]] = []
        self.binding_observers: list[Callable[[CycleRecord], None]] = []
        self.synced_kinds: set[str] = set()
        self._last_flush = self.clock.now()

    # ---- wiring ------------------------------------------------------------------------
    def submit(self, event: Any) -> None:
        """Thread-safe entry point for informers, binding workers and reloaders."""
        self.events.put(event)

    def start_backend(self) -> None:
        self.backend.start(self.submit)

    def swap_generation(self, generation: Generation) -> None:
        """Ask the loop to switch generations between cycles (in-flight cycles keep theirs)."""
        self.submit(_SwapGeneration(generation))

    def handle_for(self, framework: Framework) -> FrameworkHandle:
        h = self._handles.get(id(framework))
        if h is None or h.framework is not framework:
            h = self._handles[id(framework)] = FrameworkHandle(self, framework)
        return h

    def framework_for(self, pod: PodInfo) -> Framework | None:
        fw = self.generation.framework_for(pod.scheduler_name)
        if fw is None and self.adopt_unknown_profiles:
            fw = self.generation.default_profile
        return fw

    def _pre_enqueue(self, pod: PodInfo) -> Status:
        fw = self.framework_for(pod) or self.generation.default_profile
        return fw.run_pre_enqueue(pod, self.handle_for(fw))

    # ---- events ------------------------------------------------------------------------
    def drain_events(self, block_for: float = 0.0) -> int:
        handled = 0
        try:
            event = self.events.get(timeout=block_for) if block_for > 0 else self.events.get_nowait()
        except queue_mod.Empty:
            return 0
        while True:
            self._apply(event)
            handled += 1
            try:
                event = self.events.get_nowait()
            except queue_mod.Empty:
                return handled

    def _interested(self, plugin: str, event: str) -> bool:
        instance = self.generation.default_profile.plugins.get(plugin)
        wanted = getattr(instance, "requeue_on", None)
        if wanted is None:
            return True
        return event in wanted or event.split("/", 1)[0] in wanted

    def _apply(self, event: Any) -> None:
        if isinstance(event, ClusterEvent):
            self._apply_cluster_event(event)
        elif isinstance(event, _BindingDone):
            self._finish_binding(event)
        elif isinstance(event, _SwapGeneration):
            self.generation = event.generation
            fw = event.generation.default_profile
            self.queue.resort(fw.queue_sort_key, self._pre_enqueue)
            log.info("now scheduling with generation %s", event.generation.id)
        elif callable(event):
            event()

    def _apply_cluster_event(self, ev: ClusterEvent) -> None:
        kind, typ, obj = ev.kind, ev.type, ev.obj
        if typ == "SYNCED":
            self.synced_kinds.add(kind)
            return
        verb = {"ADDED": "Add", "MODIFIED": "Update", "DELETED": "Delete"}.get(typ, typ)
        if kind == "Node":
            if typ == "DELETED":
                self.cluster.remove_node((obj.get("metadata") or {}).get("name", ""))
            else:
                try:
                    self.cluster.upsert_node(obj)
                except ValueError as exc:
                    log.error("%s; node ignored until fixed", exc)
                    return
            self.queue.move_for_event(f"Node/{verb}", self._interested)
            return
        if kind == "Pod":
            self._apply_pod_event(typ, obj)
            return
        if typ == "DELETED":
            self.cluster.remove_object(kind, obj)
        else:
            self.cluster.upsert_object(kind, obj)
        self.queue.move_for_event(f"{kind}/{verb}", self._interested)

    def _apply_pod_event(self, typ: str, obj: dict[str, Any]) -> None:
        if typ == "DELETED":
            uid = (obj.get("metadata") or {}).get("uid") or _fallback_uid(obj)
            removed = self.cluster.remove_pod(uid)
            entry = self.queue.entries.get(uid)
            if entry is not None and entry.where != "inflight":
                self.queue.delete(uid)
            self.waiting_pods.pop(uid, None)
            if removed is not None and removed.node_name:
                self.queue.move_for_event("Pod/Delete", self._interested)
            return
        if self._confirm_assumed(obj):
            return
        try:
            pod = PodInfo.from_dict(obj)
        except PodSpecError as exc:
            log.error("%s; pod ignored until fixed", exc)
            return
        if pod.node_name or pod.is_terminal:
            was_placed = pod.uid in self.cluster.placement
            self.cluster.upsert_pod(pod)
            entry = self.queue.entries.get(pod.uid)
            if entry is not None and entry.where != "inflight":
                self.queue.done(pod.uid)
            if not was_placed and pod.node_name and not pod.is_terminal:
                self.queue.move_for_event("Pod/Add", self._interested)
            return
        if pod.deleting or self.framework_for(pod) is None:
            return
        if pod.uid in self.cluster.assumed:
            return  # binding in flight: an unbound update (e.g. our own condition patch) must not drop the reservation
        previous = self.cluster.pods.get(pod.uid)
        self.cluster.upsert_pod(pod)
        if pod.uid in self.failed:
            return
        if pod.uid not in self.queue.entries:
            self.queue.add(pod)
        elif previous is not None and not _scheduling_relevant_change(previous, pod):
            self.queue.entries[pod.uid].pod = pod  # status-only update: no requeue (isPodUpdated)
        else:
            self.queue.update(pod)

    def _confirm_assumed(self, obj: dict[str, Any]) -> bool:
        """Fast path for the informer echo of our own binding: the assumed pod is now bound where
        we put it, so its accounting stays as is (no re-parse, no re-index)."""
        uid = (obj.get("metadata") or {}).get("uid")
        cluster = self.cluster
        if uid not in cluster.assumed:
            return False
        node = (obj.get("spec") or {}).get("nodeName")
        row = cluster.placement.get(uid)
        pod = cluster.pods.get(uid)
        if not node or row is None or pod is None or cluster.table.names[row] != node:
            return False
        if (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed") or (obj.get("metadata") or {}).get("deletionTimestamp"):
            return False
        cluster.assumed.discard(uid)
        pod.node_name = node
        pod.raw = obj
        entry = self.queue.entries.get(uid)
        if entry is not None and entry.where != "inflight":
            self.queue.done(uid)
        return True

    # ---- the scheduling cycle ----------------------------------------------------------
    @contextlib.contextmanager
    def _nominated_pods_placed(self, pod: PodInfo) -> Iterator[None]:
        """Account pods nominated by preemption with priority >= this pod's on their nodes."""
        placed: list[PodInfo] = []
        cluster = self.cluster
        if cluster.nominated:
            for row, ghosts in cluster.nominated_ghosts(pod).items():
                for other in ghosts:
                    cluster._place(other, row)
                    placed.append(other)
        try:
            yield
        finally:
            for other in placed:
                cluster._unplace(other)

    def find_node(self, fw: Framework, state: CycleState, pod: PodInfo, record: CycleRecord | None) -> ScheduleResult:
        """Filter and score (kube-scheduler's schedulePod); no state is changed."""
        cluster = self.cluster
        table = cluster.table
        handle = self.handle_for(fw)
        all_rows = table.ordered_rows()
        diagnosis = Diagnosis(num_all_nodes=len(all_rows))
        if len(all_rows) == 0:
            diagnosis.pre_filter_msg = "no nodes available to schedule pods"
            return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis)
        with self._nominated_pods_placed(pod):
            status, narrowed = fw.run_pre_filter(state, pod, table.view(all_rows), cluster, handle, record)
            if not status.ok:
                diagnosis.pre_filter_msg = status.message
                diagnosis.pre_filter_code = status.code
                diagnosis.unschedulable_plugins.add(status.plugin)
                diagnosis.add(status.plugin, status.message, all_rows, status.code)
                return ScheduleResult(None, Status(status.code, (diagnosis.message(),), status.plugin), diagnosis)
            nominated = pod.nominated_node_name
            if nominated and nominated in table.row_of and (narrowed is None or nominated in narrowed):
                one = np.asarray([table.row_of[nominated]], dtype=np.int64)
                if fw.run_filters(state, pod, table.view(one), cluster, handle)[0]:
                    return ScheduleResult(nominated, Status.success(), None, 1, 1)
            rows = all_rows
            if narrowed is not None:
                keep = np.fromiter((table.names[r] in narrowed for r in rows.tolist()), dtype=bool, count=len(rows))
                rows = rows[keep]
                if not len(rows):
                    diagnosis.pre_filter_msg = "node(s) didn't satisfy plugin(s) PreFilter result"
                    return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis)
            feasible_rows, processed = self._filter_sampled(fw, state, pod, rows, diagnosis, record)
        evaluated = processed
        if len(feasible_rows) == 0:
            return ScheduleResult(None, Status.unschedulable(diagnosis.message()), diagnosis, evaluated, 0)
        if len(feasible_rows) == 1:
            return ScheduleResult(table.names[int(feasible_rows[0])], Status.success(), diagnosis, evaluated, 1)
        view = table.view(feasible_rows)
        total, per_plugin = fw.run_scores(state, pod, view, cluster, handle, record)
        best = total.max()
        ties = np.flatnonzero(total == best)
        pick = int(ties[self.rng.integers(len(ties))]) if len(ties) > 1 else int(ties[0])
        if record is not None:
            top = _top_indices(total, TOP_SCORES_RECORDED)
            top_rows = view.rows[top].tolist()
            weights = fw.score_weight_map
            columns = [(p, s[top].tolist(), weights.get(p, 1)) for p, s in per_plugin.items()]
            record.top_scores = [
                {
                    "node": table.names[row],
                    "total": t,
                    "plugins": {p: values[j] * w for p, values, w in columns},
                }
                for j, (row, t) in enumerate(zip(top_rows, total[top].tolist(), strict=True))
            ]
        return ScheduleResult(table.names[int(view.rows[pick])], Status.success(), diagnosis, evaluated, len(feasible_rows))

    def _filter_sampled(
        self, fw: Framework, state: CycleState, pod: PodInfo, rows: np.ndarray, diagnosis: Diagnosis, record: CycleRecord | None
    ) -> tuple[np.ndarray, int]:
        """Find up to numFeasibleNodesToFind feasible nodes, starting where the last cycle stopped."""
        n = len(rows)
        want = num_feasible_nodes_to_find(n, fw.percentage_of_nodes_to_score)
        start = self.next_start_index % n
        rotated = np.concatenate([rows[start:], rows[:start]]) if start else rows
        table = self.cluster.table
        handle = self.handle_for(fw)
        found: list[np.ndarray] = []
        count = 0
        pos = 0
        # Some candidates usually fail a filter (taints, selectors), so a first chunk of exactly
        # `want` nodes nearly always needs a second pass over every filter; starting half again
        # as large saves that pass. The result is unchanged: hits are trimmed to the first `want`
        # in rotated order and `processed` counts only the nodes up to the last one kept.
        chunk = want + want // 2
        processed = n
        while pos < n and count < want:
            sub = rotated[pos : pos + chunk]
            mask = fw.run_filters(state, pod, table.view(sub), self.cluster, handle, diagnosis, record)
            hits = sub[mask]
            if count + len(hits) >= want:
                need = want - count
                hits = hits[:need]
                processed = pos + int(np.flatnonzero(mask)[need - 1]) + 1
            found.append(hits)
            count += len(hits)
            pos += len(sub)
            chunk *= 2
        if count < want:
            processed = n
        self.next_start_index = (start + processed) % n
        feasible = np.concatenate(found) if found else np.empty(0, dtype=np.int64)
        return feasible, processed

    def schedule_one(self, entry: QueuedPod) -> None:
        pod = entry.pod
        fw = self.framework_for(pod)
        if fw is None:
            self.queue.done(pod.uid)
            return
        self.stats.attempts += 1
        t0 = time.perf_counter()
        record = CycleRecord(pod.key, pod.uid, fw.profile, fw.generation_id)
        record.attempt = entry.attempts
        record.first_attempt_ns = entry.extra.setdefault("first_attempt_ns", record.start_ns)
        if entry.waited:
            record.queue, entry.waited = entry.waited, {}
        state = CycleState()
        handle = self.handle_for(fw)
        try:
            result = self.find_node(fw, state, pod, record)
            record.evaluated_nodes, record.feasible_nodes = result.evaluated, result.feasible
            if result.node is None:
                self._handle_unschedulable(fw, state, entry, result, record)
            else:
                self._assume_reserve_permit(fw, handle, state, entry, result.node, record)
        except PluginFailure as failure:
            self.stats.errors += 1
            record.result, record.message = "Error", failure.status.message
            record.error_plugin = failure.status.plugin
            self._requeue_error(entry, failure.status.message)
        finally:
            record.end_ns = time.time_ns()
            self.stats.cycle_seconds += time.perf_counter() - t0
            self.records.append(record)
            for observer in self.observers:
                observer(record)

    def _handle_unschedulable(
        self, fw: Framework, state: CycleState, entry: QueuedPod, result: ScheduleResult, record: CycleRecord
    ) -> None:
        pod = entry.pod
        diagnosis = result.diagnosis or Diagnosis(0)
        nominated = None
        if fw.points.get("post_filter") and diagnosis.num_all_nodes:
            nominated, post_status = fw.run_post_filter(state, pod, self.cluster, self.handle_for(fw), diagnosis, record)
            if nominated:
                self.stats.preemptions += 1
            elif post_status.message:
                diagnosis.post_filter_msg = post_status.message
        message = diagnosis.message()
        self.stats.unschedulable_attempts += 1
        record.result, record.message = "Unschedulable", message
        if diagnosis.rejections:
            names = self.cluster.table.names
            for plugin, reason, rows, _code in diagnosis.rejections:
                kept = record.rejected_nodes.setdefault(plugin, {}).setdefault(reason, [])
                room = REJECTED_NODES_RECORDED - len(kept)
                if room > 0:
                    kept.extend(names[r] or "" for r in rows[:room].tolist())
        if nominated:
            record.message = f"{message} (nominated node {nominated})"
        self.backend.record_event(pod, "Warning", "FailedScheduling", message)
        self.backend.patch_pod_condition(
            pod, {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
        )
        self.queue.requeue_unschedulable(entry, frozenset(diagnosis.unschedulable_plugins), message)

    def _requeue_error(self, entry: QueuedPod, message: str) -> None:
        # kube-scheduler reports errors like fit failures: an event and a SchedulerError condition.
        self.backend.record_event(entry.pod, "Warning", "FailedScheduling", message)
        self.backend.patch_pod_condition(
            entry.pod, {"type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": message}
        )
        if self.max_errors_per_pod is not None and entry.errors + 1 >= self.max_errors_per_pod:
            entry.errors += 1
            entry.last_message = message
            entry.where = "failed"
            self.failed[entry.pod.uid] = entry
            self.queue.done(entry.pod.uid)
            return
        self.queue.requeue_error(entry, message)

    def _assume_reserve_permit(
        self, fw: Framework, handle: FrameworkHandle, state: CycleState, entry: QueuedPod, node: str, record: CycleRecord
    ) -> None:
        pod = entry.pod
        self.cluster.assume(pod, node)
        t0 = time.time_ns()
        status = fw.run_reserve(state, pod, node, self.cluster, handle)
        record.step("Reserve", "", t0, {"code": status.code.name})
        if status.ok:
            t0 = time.time_ns()
            status, waits = fw.run_permit(state, pod, node, handle)
            record.step("Permit", "", t0, {"code": "WAIT" if waits and status.ok else status.code.name})
        else:
            waits = {}
        if not status.ok:
            fw.run_unreserve(state, pod, node, self.cluster, handle)
            self.cluster.forget(pod)
            record.result, record.message = (
                ("Error", status.message) if status.code == Code.ERROR else ("Unschedulable", status.message)
            )
            if status.code == Code.ERROR:
                self.stats.errors += 1
                record.error_plugin = status.plugin
                self._requeue_error(entry, status.message)
            else:
                self.stats.unschedulable_attempts += 1
                self.backend.record_event(pod, "Warning", "FailedScheduling", status.message)
                self.queue.requeue_unschedulable(entry, frozenset({status.plugin}), status.message)
            return
        waiting = None
        if waits:
            waiting = WaitingPod(pod, waits)
            self.waiting_pods[pod.uid] = waiting
        record.result, record.node = "Scheduled", node
        self.in_flight += 1
        self.pool.submit(self._binding_cycle, fw, handle, state, entry, node, waiting, record)

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
        steps: list[tuple[str, int, int, str]] = []  # (extension point, start ns, end ns, status code)
        start = t0 = time.time_ns()
        try:
            if waiting is not None:
                status = waiting.wait()
                steps.append(("WaitOnPermit", t0, t0 := time.time_ns(), status.code.name))
            else:
                status = Status.success()
            if status.ok:
                status = fw.run_pre_bind(state, pod, node, handle)
                steps.append(("PreBind", t0, t0 := time.time_ns(), status.code.name))
            if status.ok:
                status = fw.run_bind(state, pod, node, handle)
                steps.append(("Bind", t0, t0 := time.time_ns(), status.code.name))
            if status.ok:
                self.backend.record_event(pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {node}")
                t0 = time.time_ns()
                fw.run_post_bind(state, pod, node, handle)
                steps.append(("PostBind", t0, time.time_ns(), "SUCCESS"))
        except Exception as exc:  # a crashing worker must still report back
            log.exception("binding cycle failed for %s", pod.key)
            status = Status.error(f"binding cycle raised {type(exc).__name__}: {exc}")
        binding = {
            "node": node,
            "result": "Bound" if status.ok else ("Error" if status.code == Code.ERROR else "Rejected"),
            "message": status.message,
            "plugin": status.plugin or "",
            "start_ns": start,
            "end_ns": time.time_ns(),
            "steps": steps,
        }
        self.submit(_BindingDone(entry, fw, handle, state, node, status, record, binding))

    def _finish_binding(self, done: _BindingDone) -> None:
        self.in_flight -= 1
        pod = done.entry.pod
        self.waiting_pods.pop(pod.uid, None)
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
        self.cluster.forget(pod)
        if pod.uid not in self.queue.entries:
            return  # deleted meanwhile
        message = done.status.message
        if done.status.is_rejected:
            self.backend.record_event(pod, "Warning", "FailedScheduling", message)
            self.queue.requeue_unschedulable(done.entry, frozenset({done.status.plugin}), message)
        else:
            self._requeue_error(done.entry, message)

    # ---- loops -------------------------------------------------------------------------
    def step(self) -> bool:
        """Drain events, then run one cycle if a pod is ready. Returns whether a cycle ran."""
        self.drain_events()
        if self.paused:
            return False
        now = self.clock.now()
        if now - self._last_flush >= UNSCHEDULABLE_FLUSH_INTERVAL:
            self._last_flush = now
            self.queue.flush_unschedulable()
        entry = self.queue.pop()
        if entry is None:
            return False
        self.schedule_one(entry)
        return True

    def run_until_settled(self, on_progress: Callable[[], None] | None = None, timeout: float | None = None) -> None:
        """Schedule until nothing is left to try: the simulator's loop (virtual clock advances)."""
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("scheduler did not settle in time")
            if self.step():
                if on_progress is not None:
                    on_progress()
                continue
            if self.in_flight or self.waiting_pods:
                self.drain_events(block_for=0.05)
                continue
            nxt = self.queue.next_backoff_expiry()
            if nxt is not None:
                if isinstance(self.clock, VirtualClock):
                    self.clock.advance_to(nxt)
                else:
                    self.drain_events(block_for=max(0.0, min(nxt - self.clock.now(), 0.5)))
                continue
            if self.drain_events() == 0:
                return

    def run(self, stop: threading.Event) -> None:
        """Serve until `stop` is set (the real-cluster loop)."""
        while not stop.is_set():
            if self.step():
                continue
            nxt = self.queue.next_backoff_expiry()
            wait = 1.0 if nxt is None else max(0.001, min(1.0, nxt - self.clock.now()))
            self.drain_events(block_for=wait)

    def shutdown(self, wait: bool = True) -> None:
        self.pool.shutdown(wait=wait)


def _top_indices(total: np.ndarray, k: int) -> np.ndarray:
    """np.argsort(-total, kind="stable")[:k] without sorting every candidate."""
    n = total.shape[0]
    if n <= 4 * k:
        return np.argsort(-total, kind="stable")[:k]
    kth = np.partition(total, n - k)[n - k]  # the k-th largest value
    candidates = np.flatnonzero(total >= kth)  # ascending indices: ties keep their order
    return candidates[np.argsort(-total[candidates], kind="stable")[:k]]


def _scheduling_relevant_change(old: PodInfo, new: PodInfo) -> bool:
    """kube-scheduler ignores updates that only touch status or resourceVersion."""
    a, b = old.raw, new.raw
    if a.get("spec") != b.get("spec"):
        return True
    ma, mb = a.get("metadata") or {}, b.get("metadata") or {}
    return ma.get("labels") != mb.get("labels") or ma.get("annotations") != mb.get("annotations")


def _fallback_uid(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"

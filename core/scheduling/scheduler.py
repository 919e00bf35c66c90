"""The scheduling loop: one thread owns the cache and the queue (DESIGN property 2).

Informers and binding workers never touch scheduling state; they put events on `events`, which
the loop drains between cycles. Binding runs asynchronously in a bounded worker pool with the
pod assumed in the cache, and forgotten (with unreserve) if binding fails.
"""

from __future__ import annotations

import logging
import queue as queue_mod
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

import numpy as np

from ..api.status import Status
from ..backends.base import Backend
from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.generation import Generation
from .batch import opportunistic_batching_enabled
from .binding import BindingCycle, BindingPool
from .clock import Clock, VirtualClock
from .collector import LoadPause
from .eventhandlers import EventHandlers, SwapGeneration
from .handle import FrameworkHandle
from .incremental import incremental_cycles_enabled
from .podgroup_cycle import PodGroupCycle
from .queue import SchedulingQueue
from .schedule_one import ScheduleOne
from .state import SchedulerStats
from .watchdog import Hang, Watchdog

T = TypeVar("T")

log = logging.getLogger(__name__)

# The last cycles' records, for what reads them afterwards (SchedulerTester, simulate, bench); a
# serving scheduler keeps none (Runner): its decision records are the observers' (/debug/decisions,
# bounded by --decision-records), and 10,000 of these held 30-100 MB for no reader.
RECORDS_KEPT = 10000
UNSCHEDULABLE_FLUSH_INTERVAL = 30.0
# Assumed pods whose binding has not started yet each hold their cycle state and decision record:
# past this many, each cycle first yields the interpreter to the binding workers for a moment.
BINDING_BACKLOG_SOFT_LIMIT = 1000
BINDING_BACKLOG_PAUSE = 0.0005
SCALE_OUT_BACKLOG_WAIT = 0.05  # at most, for a binding worker to come free (each ending wakes the loop)


class Scheduler(EventHandlers, ScheduleOne, PodGroupCycle, BindingCycle):
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
        adopted_scheduler_names: frozenset[str] = frozenset(),
        tie_breaker: Callable[[PodInfo, list[str]], str] | None = None,
        opportunistic_batching: bool | None = None,
        incremental_cycles: bool | None = None,
        plugin_timeout_seconds: float = 0.0,
        records_kept: int = RECORDS_KEPT,
    ) -> None:
        """`adopted_scheduler_names`: schedulerNames that are not a profile but are scheduled with
        the default profile anyway (simulate's "kubeberth replaces default-scheduler");
        `adopt_unknown_profiles` adopts every name. `tie_breaker(pod, tied node names)` picks among
        best-scoring nodes instead of the seeded RNG (to replay another scheduler's choices).
        `opportunistic_batching` overrides the OpportunisticBatching feature gate;
        `incremental_cycles` kubeberth's exact incremental full cycles (KUBEBERTH_INCREMENTAL_CYCLES);
        `plugin_timeout_seconds` the plugin watchdog's bound while `run` serves (0: off);
        `records_kept` how many of the last cycles' records `self.records` holds."""
        self.generation = generation
        self.backend = backend
        self.clock = clock or Clock()
        self.rng = np.random.default_rng(seed)
        self.adopt_unknown_profiles = adopt_unknown_profiles
        self.adopted_scheduler_names = adopted_scheduler_names
        self.max_errors_per_pod = max_errors_per_pod
        self.tie_breaker = tie_breaker
        self.batching = (
            opportunistic_batching_enabled(generation.feature_gates)
            if opportunistic_batching is None
            else opportunistic_batching
        )
        self.incremental = incremental_cycles_enabled() if incremental_cycles is None else incremental_cycles
        self.plugin_timeout_seconds = plugin_timeout_seconds
        self.records_kept = records_kept
        self.timeout_observers = []
        self.scale_out = None
        self.shadow = None
        self.canary = None
        self._init_state(binding_workers)

    def _init_state(self, binding_workers: int) -> None:
        """The loop's state (declared in SchedulerState), empty: a new cache, queue and pool."""
        generation = self.generation
        cfg = generation.config
        self.cluster = ClusterState()
        self.events = queue_mod.SimpleQueue()
        self._handles = {}
        self.queue = SchedulingQueue(
            generation.default_profile.queue_sort_key,
            self._pre_enqueue,
            self.clock.now,
            cfg.podInitialBackoffSeconds,
            cfg.podMaxBackoffSeconds,
            pop_from_backoff=generation.feature_gates.enabled("SchedulerPopFromBackoffQ"),
            group_entities=generation.feature_gates.enabled("GenericWorkload"),
        )
        self.queue.registered = self._registered
        self.pool = BindingPool(binding_workers, "kubeberth-bind")
        self._watchdog: Watchdog | None = None  # started by `run`, stopped by `shutdown`
        self.in_flight = 0
        self.waiting_pods = {}
        self.pods_in_pre_bind = {}
        self.records = deque(maxlen=self.records_kept)
        self.stats = SchedulerStats()
        self.next_start_index = 0
        self.scheduling_cycle = 0
        self._batches = {}
        self.batch_counters = {}
        self._incremental = {}
        self.failed = {}
        self.skipped_pods = {}
        self.paused = False
        # Called on the loop thread after each scheduling cycle, and after each binding cycle
        # (record.binding set): traces, metrics, decision records and logs.
        self.observers = []
        self.binding_observers = []
        # Called on the loop thread as on_event_handled(label, seconds) after each cluster event is
        # applied (kube-scheduler's scheduler_event_handling_duration_seconds); None costs nothing.
        self.on_event_handled = None
        self.synced_kinds = set()
        self.load_pause = LoadPause()
        self._last_flush = self.clock.now()

    # ---- wiring ------------------------------------------------------------------------
    def submit(self, event: Any) -> None:
        """Thread-safe entry point for informers, binding workers and reloaders."""
        self.events.put(event)

    def start_backend(self) -> None:
        self.load_pause.begin()  # until the initial lists are applied (EventHandlers, SYNCED)
        self.backend.start(self.submit)

    def swap_generation(self, generation: Generation) -> None:
        """Ask the loop to switch generations between cycles (in-flight cycles keep theirs)."""
        self.submit(SwapGeneration(generation))

    def call(self, work: Callable[[], T], timeout: float) -> T:
        """Thread-safe: run `work` on the scheduling thread between cycles and wait for its result;
        its exception is raised here, TimeoutError if the loop has not run it within `timeout`."""
        done: Future[T] = Future()

        def run() -> None:
            try:
                done.set_result(work())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                done.set_exception(exc)

        self.submit(run)
        return done.result(timeout=timeout)

    def request_move(self, event: str) -> None:
        """Thread-safe: between cycles, retry unschedulable pods whose rejecting plugins declared
        interest in `event` (a plugin-defined event such as "NodeLoad/Update")."""
        self.submit(lambda: self.queue.move_for_event(event, self._interested))

    def run_async(self, work: Callable[[], None], then: Callable[[], None] | None = None) -> None:
        """Handle.run_async: `work` on a binding worker, then `then` on the loop thread; counted in
        `in_flight` meanwhile, so run_until_settled waits for it. Scheduling thread only."""
        self.in_flight += 1

        def finish() -> None:
            self.in_flight -= 1
            if then is not None:
                then()

        def task() -> None:
            try:
                work()
            finally:
                self.submit(finish)

        self.pool.submit(task)

    def handle_for(self, framework: Framework) -> FrameworkHandle:
        h = self._handles.get(id(framework))
        if h is None or h.framework is not framework:
            h = self._handles[id(framework)] = FrameworkHandle(
                framework, self.backend, self.cluster, self.clock.now, self.waiting_pods, self.request_move,
                self.activate, self.run_async, self.pods_in_pre_bind, self._reserve_for_preemption,
            )
        return h

    def activate(self, uids: list[str]) -> None:
        """Handle.activate: on the scheduling thread at once; from a binding cycle (a PreBind or PostBind, as
        kube-scheduler's PodsToActivate, which it applies after PostBind) between cycles, through the loop."""
        if self.pool.owns_current_thread():
            self.submit(lambda: self.queue.activate(uids))
            return
        self.queue.activate(uids)

    def _reserve_for_preemption(self, preemptor: PodInfo, node: str) -> str:
        scale_out = self.scale_out
        return scale_out.reserve(preemptor, node) if scale_out is not None else ""

    def framework_for(self, pod: PodInfo) -> Framework | None:
        fw = self.generation.framework_for(pod.scheduler_name)
        if fw is None and (self.adopt_unknown_profiles or pod.scheduler_name in self.adopted_scheduler_names):
            fw = self.generation.default_profile
        canary = self.canary  # a candidate generation scheduling a share of the pods (canary.py)
        if canary is not None and fw is not None:
            return canary.framework_for(pod, fw)
        return fw

    def _pre_enqueue(self, pod: PodInfo) -> Status:
        fw = self.framework_for(pod) or self.generation.default_profile
        return fw.run_pre_enqueue(pod, self.handle_for(fw))

    # ---- loops -------------------------------------------------------------------------
    def held_pods(self) -> dict[str, list[str]]:
        """Every pod the scheduler holds, by where it is: queue places, waiting at Permit, assumed
        (binding in flight) and given up after errors. Call on the loop thread (the runner's
        SIGUSR2 dump does, like kube-scheduler's cache debugger)."""
        held: dict[str, list[str]] = {}
        for entry in self.queue.entries.values():
            held.setdefault(entry.where or "active", []).append(entry.pod.key)
        held["waiting"] = [w.pod.key for w in self.waiting_pods.values()]
        held["assumed"] = [self.cluster.pods[uid].key for uid in self.cluster.assumed if uid in self.cluster.pods]
        held["failed"] = [e.pod.key for e in self.failed.values()]
        return {where: sorted(keys) for where, keys in held.items()}

    def step(self) -> bool:
        """Drain events, then run one cycle if a pod is ready. Returns whether a cycle ran (or, in
        active-active mode, waited for a binding worker to come free)."""
        self.drain_events()
        if self.paused:
            return False
        now = self.clock.now()
        if now - self._last_flush >= UNSCHEDULABLE_FLUSH_INTERVAL:
            self._last_flush = now
            self.queue.flush_unschedulable()
            self.end_load_pause_if_synced()  # a custom resource's informer settled after the pods synced
        if self.scale_out is not None and self.pool.backlog() and not self.waiting_pods:
            # Active-active: a placement is committed against what its cycle saw, so a cycle run
            # while its binding would wait behind others goes stale and conflicts (docs/scale-out.md).
            # The next pod is placed when a worker is free; a binding's end is an event. Not idle:
            # the loop comes back at once.
            self.drain_events(block_for=SCALE_OUT_BACKLOG_WAIT)
            return True
        entry = self.queue.pop()
        if entry is None:
            return False
        if self.pool.backlog() > BINDING_BACKLOG_SOFT_LIMIT:
            time.sleep(BINDING_BACKLOG_PAUSE)  # let binding workers catch up (bounded: never blocks)
        self.schedule_one(entry)
        return True

    def run_until_settled(self, on_progress: Callable[[], None] | None = None, timeout: float | None = None) -> None:
        """Schedule until nothing is left to try: the simulator's loop (virtual clock advances).

        Pods held at Permit make time pass too: their timeouts fire on the virtual clock. A gang
        that cannot fit would be retried every timeout for ever (as kube-scheduler retries it), so
        the loop ends once a round of Permit timeouts released pods and bound none since.
        """
        deadline = time.monotonic() + timeout if timeout else None
        permit_rounds = [-1]  # stats.scheduled at the last Permit timeout the clock jumped to
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("scheduler did not settle in time")
            if self.step():
                if on_progress is not None:
                    on_progress()
                continue
            if self.in_flight or self.waiting_pods:
                virtual = isinstance(self.clock, VirtualClock)
                if virtual and self._only_held_at_permit() and not self._advance_past_permit_waits(permit_rounds):
                    return
                self.drain_events(block_for=0.05)
                continue
            if self.backend.fire_timers(self.clock.now()):
                continue
            nxt = _earliest(self._next_retry_worth_waiting(), self.backend.next_timer())
            if nxt is not None:
                if isinstance(self.clock, VirtualClock):
                    self.clock.advance_to(nxt)
                else:
                    self.drain_events(block_for=max(0.0, min(nxt - self.clock.now(), 0.5)))
                continue
            if self.drain_events() == 0:
                return

    def _next_retry_worth_waiting(self) -> float | None:
        """The earliest backoff expiry, unless every pod backing off is a member of a rejected pod group with no
        move request since its attempt: kube-scheduler retries such a group after every backoff for ever
        (AddAttemptedPodGroupIfNeeded; cluster events do not move it), and with nothing changed the next attempt
        fails the same way, so a loop that settles does not wait for it (as for Permit rounds)."""
        queue = self.queue
        expiry = queue.next_backoff_expiry()
        if expiry is None:
            return None
        backing_off = [e for e in queue.entries.values() if e.where == "backoff"]
        if backing_off and all(e.group_attempt and e.move_seq_at_pop == queue.move_seq for e in backing_off):
            return None
        return expiry

    def _only_held_at_permit(self) -> bool:
        """Every binding in flight is a pod still waiting at Permit (nothing will report)."""
        waiting = self.waiting_pods.values()
        return self.in_flight == len(self.waiting_pods) and not any(w.done for w in waiting)

    def _advance_past_permit_waits(self, permit_rounds: list[int]) -> bool:
        """Virtual clock, only Permit waits left: move time to the next thing that happens. A
        backoff or timer first lets the loop go on; otherwise the earliest Permit deadline fires.
        Returns False when that round would bind nothing new (see run_until_settled)."""
        assert isinstance(self.clock, VirtualClock)
        deadlines = [d for w in self.waiting_pods.values() if (d := w.next_deadline()) is not None]
        permit_at = min(deadlines) if deadlines else None
        other = _earliest(self.queue.next_backoff_expiry(), self.backend.next_timer())
        if other is not None and (permit_at is None or other < permit_at):
            self.clock.advance_to(other)
            self.backend.fire_timers(self.clock.now())
            return True
        if permit_at is None:
            return True
        if permit_rounds[0] == self.stats.scheduled:
            for waiting in list(self.waiting_pods.values()):  # release them as their timeouts would
                if (d := waiting.next_deadline()) is not None:
                    self.clock.advance_to(d)
                    waiting.expire(d)
            while self.in_flight:
                self.drain_events(block_for=0.05)
            return False
        permit_rounds[0] = self.stats.scheduled
        self.clock.advance_to(permit_at)
        for waiting in list(self.waiting_pods.values()):
            waiting.expire(permit_at)
        return True

    def run(self, stop: threading.Event) -> None:
        """Serve until `stop` is set (the real-cluster loop), watched by the plugin watchdog. The
        watchdog goes on watching the binding workers until `shutdown` has drained them: a binding
        step hung in a plugin when serving stops is still interrupted, so the drain cannot hang on it."""
        self._stop_watchdog()
        if self.plugin_timeout_seconds > 0:
            self._watchdog = Watchdog(
                self.plugin_timeout_seconds, lambda: self.scheduling_cycle, self._hung, workers=self.pool.idents
            )
            self._watchdog.start()
        self._serve(stop)

    def _stop_watchdog(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.stop()

    def _hung(self, hang: Hang) -> None:
        """From the watchdog thread: the observers hear of `hang` on the loop thread."""

        def notify() -> None:
            for observer in self.timeout_observers:
                observer(hang)

        self.submit(notify)

    def _serve(self, stop: threading.Event) -> None:
        while not stop.is_set():
            if self.step():
                continue
            self.backend.fire_timers(self.clock.now())
            nxt = _earliest(self.queue.next_backoff_expiry(), self.backend.next_timer())
            wait = 1.0 if nxt is None else max(0.001, min(1.0, nxt - self.clock.now()))
            self.drain_events(block_for=wait)

    def shutdown(self, wait: bool = True) -> None:
        """Stop the binding workers (waiting for their cycles to end with `wait`), then the watchdog."""
        self.load_pause.end()
        try:
            self.pool.shutdown(wait=wait)
        finally:
            self._stop_watchdog()


def _earliest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)

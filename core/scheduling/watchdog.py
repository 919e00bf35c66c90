"""The plugin watchdog: a scheduling cycle running past a bound is reported, and interrupted
when it can be (kube-scheduler has no equivalent: Go cannot stop a goroutine; its plugins are
trusted, kubeberth's may be hot-reloaded drop-ins).

Nothing is added per plugin call: the loop already bumps `scheduling_cycle` once per pop. A
thread of its own samples every `interval` seconds the loop thread's stack
(`sys._current_frames()`): a `schedule_one` frame on it means a cycle is running; the same cycle
number seen for longer than `bound` seconds is a hung cycle. A new generation's dry run (swap.py,
on the loop thread too) is watched the same way: interrupted, it refuses the generation. The plugin is the innermost guarded
call's (`hooks.guarded` / `hooks.call_status` hold the BoundHook), the extension point the
framework function that called it. A hang is reported once per cycle: a log line naming
plugin, extension point, pod and seconds, then `Scheduler.timeout_observers` on the loop thread
(the kubeberth_plugin_timeouts_total counter; the RollbackGuard, which rolls a generation on
probation back at once).

Interruption: the watchdog raises `PluginTimeout` in the loop thread
(PyThreadState_SetAsyncExc), once per cycle, and only while that thread is still in the same
cycle with the guarded plugin call on its stack; the guarded call turns it into that plugin's
Error status for this pod (retried with backoff) and the loop goes on. The look and the raise
run without a thread switch in between (the loop thread cannot leave the plugin meanwhile), and
the raise needs the loop thread in a frame below the guarded call, where the exception unwinds
into its handler. A thread found blocked in a system call at a later look, still in the call,
has the exception taken back (it would land wherever the thread is next). A thread still waiting
to run (runnable, or waiting for the interpreter lock) is signalled again every
`STARVED_GRACE_SECONDS` until it takes the exception or leaves the call: a busy machine delays an
interruption, it never cancels one.

Limits: Python delivers an asynchronous exception between bytecodes only, so a plugin blocked in
C code (time.sleep, a socket read) is reported but not interrupted, and the rollback applies once
it returns (a binding worker that then keeps running in the same call is interrupted again); a
long numpy call or a lock wait is interrupted when it returns; a plugin that catches Exception
around its own loop swallows the interruption.

Binding cycles: the same look also walks this scheduler's binding workers' stacks (`_binding_cycle`
frames; another scheduler's workers in the same process are its own watchdog's). A
plugin call (`BoundHook.call`) of PreBindPreFlight, PreBind, Bind or PostBind running past the bound
is reported the same way (`Hang.stage` "binding") and interrupted the same way (again every
`STARVED_GRACE_SECONDS` while the worker is seen running in the same call): PluginTimeout
unwinds into the binding step's handler, the step ends as that plugin's Error, and the pod is
unreserved, forgotten and retried with backoff (kube-scheduler's handleBindingCycleError); in
PostBind it is only logged (the pod is bound). Waiting at Permit is no plugin call and is never
reported; nor is a PreBind's time in `state.sleep_in_pre_bind` (the wait the API asks a polling
PreBind to use): the bound applies to each stretch of its work in between. kubeberth's own plugins (`kubeberth.*`: VolumeBinding's PreBind waits for the PV
controller for up to its bindTimeoutSeconds, DefaultBinder for the API server) are not watched in
binding cycles, nor are the extra threads of a parallel PreBind group.
"""

from __future__ import annotations

import ctypes
import logging
import platform
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from ..api.types import CycleState
from ..runtime.hooks import BoundHook, PluginTimeout, call_status, guarded
from .quarantine import PluginOrigin, origin_of

__all__ = ["Hang", "PluginTimeout", "Watchdog"]

log = logging.getLogger(__name__)

INTERVAL_SECONDS = 0.5
# An interrupted thread still waiting to run (runnable, or waiting for the interpreter lock: the
# machine is busy) is signalled again after this long (the raise is repeated, never given up).
STARVED_GRACE_SECONDS = 3.0
# sys.setswitchinterval while looking and raising (a few microseconds). Short: the interval is the
# whole interpreter's, and a thread that takes the lock from the watchdog meanwhile (a waiting
# thread's earlier request) keeps it this long before the watchdog can restore it; at 10 s, plugins
# spinning on several binding workers stalled everything else for seconds in a CI run.
SWITCH_HOLD_SECONDS = 0.05
GUARDED_CODES: frozenset[CodeType] = frozenset({guarded.__code__, call_status.__code__})
# Framework functions -> the extension point they run (the rest: their name without "run_").
POINTS = {"run_filters": "filter", "run_raw_scores": "score", "_normalized": "normalize_score"}
HOOK_CALL = frozenset({BoundHook.call.__code__})
# A PreBind that polls waits in CycleState.sleep_in_pre_bind (hookspecs.pre_bind): time spent there is
# no hang; the bound applies to each stretch of work in between.
DECLARED_WAITS = frozenset({CycleState.sleep_in_pre_bind.__code__})
# Binding-cycle runners (runtime/bind_points.py) -> their extension point.
BIND_POINTS = {
    "run_pre_bind_pre_flights": "pre_bind_pre_flight", "run_pre_bind": "pre_bind", "run_bind": "bind",
    "run_post_bind": "post_bind",
}
TRUSTED_PREFIX = "kubeberth."  # built-in and contrib plugins: not watched in binding cycles


@dataclass(frozen=True)
class Hang:
    """One cycle that ran past the bound; `interrupted`: PluginTimeout was raised in the plugin
    call (taken back at the next look if the plugin is blocked outside Python code); `stage`:
    scheduling, binding or dry_run; `origin`: where the plugin's hook came from (quarantine.py)."""

    plugin: str
    extension_point: str
    pod: str
    generation: str
    seconds: float
    interrupted: bool
    stage: str = "scheduling"
    pod_uid: str = ""
    origin: PluginOrigin | None = None


@dataclass
class _Seen:
    """The cycle in progress at the last look."""

    cycle: int
    frame: FrameType  # the cycle's (or dry run's) frame: the same number may be a cycle then a dry run
    since: float
    reported: bool = False
    plugin: str = ""
    raised: FrameType | None = None  # the plugin call PluginTimeout was raised in, until it is settled
    raised_at: float = 0.0


@dataclass
class _Step:
    """The plugin call a binding worker was in at the last look (None: a trusted plugin's)."""

    call: FrameType  # the BoundHook.call frame
    hook: BoundHook | None
    since: float
    reported: bool = False
    raised: bool = False
    raised_at: float = 0.0
    blocked: bool = False  # found blocked in a system call (logged once)


class Watchdog:
    """Samples the loop thread; see the module docstring. `cycle()` reads the cycle number."""

    def __init__(
        self, bound: float, cycle: Callable[[], int], report: Callable[[Hang], None], interval: float | None = None,
        workers: Callable[[], Iterable[int]] = frozenset,
    ) -> None:
        self.bound, self.cycle, self.report, self.workers = bound, cycle, report, workers
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_ident = 0
        self._seen: _Seen | None = None
        self._steps: dict[int, _Step] = {}  # binding worker thread ident -> its plugin call

    def start(self) -> None:
        """Watch the calling thread (the scheduling loop's)."""
        self._loop_ident = threading.get_ident()
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="kubeberth-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _serve(self) -> None:
        while not self._stop.wait(self.interval):
            for look in (self.check, self.check_bindings):
                try:
                    look()
                except Exception:  # noqa: BLE001 - the watchdog must outlive anything it looks at
                    log.exception("plugin watchdog check failed")

    def check(self, now: float | None = None) -> Hang | None:
        """One look at the loop thread; the hang found (once per cycle), else None."""
        now = time.monotonic() if now is None else now
        frame = sys._current_frames().get(self._loop_ident)
        cycle_frame = _find(frame, _SCHEDULE_ONE)
        seen = self._seen
        if cycle_frame is None or seen is None or seen.frame is not cycle_frame or seen.cycle != self.cycle():
            self._settle(seen)
            self._seen = None if cycle_frame is None else _Seen(self.cycle(), cycle_frame, now)
            return None
        if seen.raised is not None:
            self._follow_up(seen, seen.raised, now)
            return None
        if seen.reported or now - seen.since < self.bound:
            return None
        seen.reported = True
        hang = self._hang(frame, cycle_frame, now - seen.since, seen)
        log.warning(
            "plugin %s ran %.1fs at %s for pod %s, past the plugin timeout of %gs%s", hang.plugin, hang.seconds,
            hang.extension_point, hang.pod, self.bound, ": interrupting it" if hang.interrupted else "",
        )
        self.report(hang)
        return hang

    def _follow_up(self, seen: _Seen, call: FrameType, now: float) -> None:
        """The loop thread has not taken its interruption yet: blocked in a system call, it is taken
        back; still waiting to run past the grace, it is signalled again."""
        if not _waiting_to_run(self._loop_ident):
            self._settle(seen)
        elif now - seen.raised_at >= STARVED_GRACE_SECONDS and not self._interrupt(call, seen):
            seen.raised = None  # out of the plugin call: the exception was taken

    def _settle(self, seen: _Seen | None) -> None:
        """An interruption not delivered by the next look: the plugin is blocked outside Python
        code. The pending exception is taken back (it would land wherever the thread is next)."""
        if seen is None or seen.raised is None:
            return
        call, seen.raised = seen.raised, None
        if self._inside(call, seen.cycle):
            _set_async_exc(self._loop_ident, None)
            log.warning(
                "plugin %s is blocked outside Python code (a sleep, a socket read, a C call): it cannot be "
                "interrupted; the cycle goes on when the call returns", seen.plugin,
            )

    def _hang(self, frame: FrameType | None, cycle_frame: FrameType, seconds: float, seen: _Seen) -> Hang:
        call = _find(frame, GUARDED_CODES)
        plugin, point, origin = "unknown", "unknown", None
        if call is not None:
            hook = call.f_locals.get("hook")
            plugin = str(getattr(hook, "plugin", "unknown"))
            origin = origin_of(hook.fn) if isinstance(hook, BoundHook) else None
            caller = call.f_back.f_code.co_name if call.f_back is not None else ""
            point = POINTS.get(caller, caller.removeprefix("run_"))
        local = cycle_frame.f_locals
        pod = local.get("pod")
        fw, gen = local.get("fw"), local.get("generation")  # a cycle's framework, a dry run's generation
        generation = str(getattr(fw, "generation_id", None) or getattr(gen, "id", ""))
        seen.plugin = plugin
        interrupted = call is not None and self._interrupt(call, seen)
        stage = "scheduling" if fw is not None else "dry_run"
        return Hang(plugin, point, str(getattr(pod, "key", "?")), generation, seconds, interrupted, stage,
                    str(getattr(pod, "uid", "")), origin)

    def _interrupt(self, call: FrameType, seen: _Seen) -> bool:
        """Raise PluginTimeout in the loop thread if it is still below `call` (in the plugin) in
        its cycle."""
        if not _raise_below(self._loop_ident, call, lambda: self.cycle() == seen.cycle, self.bound):
            return False
        seen.raised, seen.raised_at = call, time.monotonic()
        return True

    def _inside(self, call: FrameType, number: int) -> bool:
        """The loop thread is in cycle `number`, in a frame below `call` (in the plugin's code,
        where an exception unwinds into the guarded call's handler)."""
        return _below(self._loop_ident, call) and self.cycle() == number

    # ---- binding workers -------------------------------------------------------------------
    def check_bindings(self, now: float | None = None) -> list[Hang]:
        """One look at the binding workers; the hangs found (each plugin call reported once)."""
        now = time.monotonic() if now is None else now
        frames = sys._current_frames()
        steps: dict[int, _Step] = {}
        for ident in self.workers():
            top = frames.get(ident)
            call = _find(top, HOOK_CALL) if _find(top, _BINDING_CYCLE) is not None else None
            if call is not None:
                steps[ident] = step = self._step(ident, call, now)
                if _find(top, DECLARED_WAITS) is not None:
                    step.since = now  # waiting as the API says to wait: not running
        del frames
        self._steps = steps
        hangs = []
        for ident, step in steps.items():
            if step.hook is None:
                continue
            if step.reported:
                self._keep_interrupting(ident, step, now)
            elif now - step.since >= self.bound:
                hangs.append(self._binding_hang(ident, step, now))
        return hangs

    def _keep_interrupting(self, ident: int, step: _Step, now: float) -> None:
        """A reported plugin call the worker is still in: an exception pending while it is blocked in
        a system call is taken back; seen running (or waiting to run) with none pending, or one pending
        past the grace, PluginTimeout is raised (again)."""
        runnable = _waiting_to_run(ident)
        if step.raised and not runnable:
            self._settle_step(ident, step)
        elif runnable and (not step.raised or now - step.raised_at >= STARVED_GRACE_SECONDS):
            step.raised, step.raised_at = _raise_below(ident, step.call, lambda: True, self.bound), now

    def _step(self, ident: int, call: FrameType, now: float) -> _Step:
        """The step seen at the last look if the worker is still in that call, else a new one."""
        step = self._steps.get(ident)
        if step is not None and step.call is call:
            return step
        hook = call.f_locals.get("self")
        trusted = not isinstance(hook, BoundHook) or origin_of(hook.fn).module.startswith(TRUSTED_PREFIX)
        return _Step(call, None if trusted else hook, now)

    def _settle_step(self, ident: int, step: _Step) -> None:
        """As `_settle`, for a binding worker: blocked in a system call inside the call, the pending
        exception is taken back (logged once per call)."""
        step.raised = False
        if _below(ident, step.call):
            _set_async_exc(ident, None)
            if not step.blocked:
                step.blocked = True
                log.warning(
                    "plugin %s is blocked outside Python code in a binding cycle: it cannot be interrupted until "
                    "the call returns", step.hook.plugin if step.hook is not None else "unknown",
                )

    def _binding_hang(self, ident: int, step: _Step, now: float) -> Hang:
        step.reported = True
        hook = step.hook
        assert hook is not None
        cycle = _find(step.call, _BINDING_CYCLE)
        local = cycle.f_locals if cycle is not None else {}
        pod, fw = local.get("pod"), local.get("fw")
        point = next((BIND_POINTS[f.f_code.co_name] for f in _outward(step.call) if f.f_code.co_name in BIND_POINTS),
                     "binding")
        step.raised_at = now
        step.raised = _raise_below(ident, step.call, lambda: True, self.bound)
        hang = Hang(hook.plugin, point, str(getattr(pod, "key", "?")), str(getattr(fw, "generation_id", "")),
                    now - step.since, step.raised, "binding", str(getattr(pod, "uid", "")), origin_of(hook.fn))
        log.warning(
            "plugin %s ran %.1fs at %s in the binding cycle of pod %s, past the plugin timeout of %gs%s", hang.plugin,
            hang.seconds, point, hang.pod, self.bound, ": interrupting it" if hang.interrupted else "",
        )
        self.report(hang)
        return hang


def _raise_below(ident: int, call: FrameType, still: Callable[[], bool], bound: float) -> bool:
    """Raise PluginTimeout in thread `ident` if it is below `call` (in the plugin) and `still()`.
    The look and the raise hold the interpreter: a long switch interval keeps the thread from
    running in between (it cannot return from the plugin meanwhile)."""
    PluginTimeout.bound_seconds = bound
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_HOLD_SECONDS)
    try:
        if not (_below(ident, call) and still()):
            return False
        _set_async_exc(ident, PluginTimeout)
    finally:
        sys.setswitchinterval(switch)
    return True


# The futex system call's number: a thread in it waits for a lock, most likely the interpreter's.
_FUTEX = {"x86_64": "202", "aarch64": "98"}.get(platform.machine())


def _waiting_to_run(ident: int) -> bool:
    """Thread `ident` is runnable, or waits on a futex (most likely the interpreter lock): it has not
    taken its interruption because others held the cores or the lock (a busy machine), not because
    a C call blocks it (a sleep, a socket read). Linux only (/proc/self/task/*/syscall)."""
    native = next((t.native_id for t in threading.enumerate() if t.ident == ident), None)
    if native is None or _FUTEX is None:
        return False
    try:
        with open(f"/proc/self/task/{native}/syscall") as f:
            first = f.read().split(maxsplit=1)
    except OSError:
        return False
    return bool(first) and first[0] in ("running", _FUTEX)


def _below(ident: int, call: FrameType) -> bool:
    """Thread `ident` runs a frame below `call` (in the plugin's code, where an exception
    unwinds into the handler around the call)."""
    innermost = sys._current_frames().get(ident)
    return any(f is call for f in _outward(innermost)) and innermost is not call


def _outward(frame: FrameType | None) -> Iterator[FrameType]:
    while frame is not None:
        yield frame
        frame = frame.f_back


def _set_async_exc(ident: int, exc: type[BaseException] | None) -> None:
    """CPython's PyThreadState_SetAsyncExc (None: clear a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None if exc is None else ctypes.py_object(exc))


def _watched_codes() -> tuple[frozenset[CodeType], frozenset[CodeType]]:
    """What the loop runs plugins in (a scheduling cycle, a new generation's dry run), and what a
    binding worker runs them in."""
    from .binding import BindingCycle
    from .schedule_one import ScheduleOne
    from .shadow import ShadowRun
    from .swap import dry_run

    # A shadow generation's cycle (its `fw` local names the candidate's generation in a Hang).
    cycles = {ScheduleOne.schedule_one.__code__, dry_run.__code__, ShadowRun.decide.__code__}
    return frozenset(cycles), frozenset(
        {BindingCycle._binding_cycle.__code__}
    )


_SCHEDULE_ONE, _BINDING_CYCLE = _watched_codes()


def _find(frame: FrameType | None, codes: frozenset[CodeType] | Any) -> FrameType | None:
    """The innermost frame running one of `codes`."""
    while frame is not None:
        if frame.f_code in codes:
            return frame
        frame = frame.f_back
    return None

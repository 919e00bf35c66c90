"""Hot reload for a running scheduler: file watches, SIGHUP, POST /reload, rollback.

Requests from any thread (watchdog, signal handler, HTTP) go to one reloader thread, which
coalesces them, fingerprints the inputs, builds and validates the next generation
(`GenerationBuilder`) and asks the scheduling thread to dry-run and swap it (`SwapRequest`). A
generation that fails anywhere never replaces the running one: one log line naming the file and
the error, `kubeberth_reloads_total{result="failed"}`, and the error in GET /debug/generation.
Content that failed or was rolled back is not tried again until it changes.
"""

from __future__ import annotations

import logging
import queue as queue_mod
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..errors import KubeberthError
from ..runtime.generation import Generation
from ..runtime.reload import GenerationBuilder, InputVanished
from ..scheduling.memory_guard import MemoryGuard
from ..scheduling.rollback import HungPodRetry, RollbackGuard, RollbackPolicy
from ..scheduling.swap import SwapRequest

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..observability import Observability
    from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)

SWAP_TIMEOUT_SECONDS = 30.0
VANISHED_RETRY_SECONDS = 0.5  # a build that found a file gone tries again this much later, once
HISTORY_KEPT = 1000


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class ReloadOutcome:
    """What one reload did; `result` is success, failed, rolled_back, unchanged or skipped."""

    result: str
    trigger: str
    error: str = ""
    generation: str = ""
    at: float = field(default_factory=time.time)
    event_at: float = 0.0  # time.monotonic() of the first file event / request behind it
    swapped_at: float = 0.0  # time.monotonic() of the swap on the scheduling thread

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "trigger": self.trigger,
            "error": self.error or None,
            "generation": self.generation or None,
            "at": _iso(self.at),
        }


@dataclass
class _Request:
    trigger: str
    rescan: bool
    force: bool
    event_at: float
    reply: queue_mod.SimpleQueue[ReloadOutcome] | None = None


class Reloader:
    """The reload state machine of one scheduler; thread-safe entry points."""

    def __init__(
        self,
        scheduler: Scheduler,
        builder: GenerationBuilder,
        policy: RollbackPolicy | None = None,
        observability: Observability | None = None,
        announce: Callable[[str, str], None] | None = None,
        max_memory_growth_mb: float = 0.0,
    ) -> None:
        self.scheduler = scheduler
        self.builder = builder
        self.observability = observability
        self.announce = announce  # (reason, message): a Kubernetes Event / Lease annotation
        self.current: Generation = scheduler.generation
        self.previous_id: str | None = None
        self.current_fingerprint = self._fingerprint_or_empty()
        self.fingerprints: dict[str, str] = {self.current.id: self.current_fingerprint}
        self.rejected: dict[str, str] = {}  # fingerprint -> why it is not applied again
        self.last_reload: ReloadOutcome | None = None
        self.history: deque[ReloadOutcome] = deque(maxlen=HISTORY_KEPT)
        self.first_cycle_latency: deque[float] = deque(maxlen=HISTORY_KEPT)  # seconds, event -> first cycle
        self._pending_latency: dict[str, float] = {}  # generation id -> event time
        self._lock = threading.Lock()
        self._requests: queue_mod.SimpleQueue[_Request | None] = queue_mod.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.guard = RollbackGuard(policy or RollbackPolicy(), self._roll_back)
        self.guard.quarantine.announce = announce
        self.guard.on_restored = HungPodRetry(scheduler).retry
        scheduler.observers.append(self._cycle_done)
        scheduler.binding_observers.append(self.guard.binding_done)
        scheduler.timeout_observers.append(self.guard.plugin_timed_out)
        self.memory = MemoryGuard(max_memory_growth_mb, self.guard, scheduler.submit, self._memory_exceeded)
        self.memory.watch(self.current.id, reloaded=False)
        self.canary_status: Callable[[], dict[str, Any] | None] | None = None  # /debug/generation's "canary"

    def _fingerprint_or_empty(self) -> str:
        try:
            return self.builder.fingerprint()
        except OSError:
            return ""

    # ---- entry points (any thread) ---------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="kubeberth-reload", daemon=True)
            self._thread.start()
        self.memory.start()

    def stop(self) -> None:
        self.memory.stop()
        if self._thread is not None:
            self._requests.put(None)
            self._thread.join(timeout=5)
            self._thread = None

    def request(self, trigger: str, rescan: bool = False, force: bool = False, event_at: float | None = None) -> None:
        """Ask for a reload without waiting (file events, SIGHUP)."""
        self._requests.put(_Request(trigger, rescan, force, event_at or time.monotonic()))

    def reload(
        self, trigger: str = "api", rescan: bool = True, force: bool = False, timeout: float = SWAP_TIMEOUT_SECONDS * 2
    ) -> ReloadOutcome:
        """Reload now and wait for the outcome (POST /reload, tests)."""
        reply: queue_mod.SimpleQueue[ReloadOutcome] = queue_mod.SimpleQueue()
        self._requests.put(_Request(trigger, rescan, force, time.monotonic(), reply))
        if self._thread is None:
            self._drain_once()
        return reply.get(timeout=timeout)

    # ---- the reloader thread -----------------------------------------------------------
    def _serve(self) -> None:
        while self._drain_once():
            pass

    def _drain_once(self) -> bool:
        first = self._requests.get()
        if first is None:
            return False
        batch = [first]
        while True:  # coalesce: one build answers every request queued meanwhile
            try:
                more = self._requests.get_nowait()
            except queue_mod.Empty:
                break
            if more is None:
                self._requests.put(None)
                break
            batch.append(more)
        request = _Request(
            "+".join(sorted({r.trigger for r in batch})),
            any(r.rescan for r in batch),
            any(r.force for r in batch),
            min(r.event_at for r in batch),
        )
        try:
            outcome = self._reload(request)
        except Exception as exc:  # noqa: BLE001 - the reloader thread must survive anything
            log.exception("reload failed unexpectedly")
            outcome = self._failed(request, "", f"reload raised {type(exc).__name__}: {exc}")
        for r in batch:
            if r.reply is not None:
                r.reply.put(outcome)
        return True

    def _reload(self, req: _Request) -> ReloadOutcome:
        if req.rescan:
            try:
                self.builder.rescan_entry_points()
            except KubeberthError as exc:
                return self._failed(req, "", str(exc))
        try:
            fingerprint = self.builder.fingerprint()
        except OSError as exc:  # a file vanished mid-replace: its next event brings us back
            return self._failed(req, "", f"{exc.filename}: {exc.strerror or exc}", remember=False)
        if not req.force:
            if fingerprint == self.current_fingerprint:
                return self._note(ReloadOutcome("unchanged", req.trigger, generation=self.current.id), record=False)
            why = self.rejected.get(fingerprint)
            if why is not None:
                return self._note(
                    ReloadOutcome("skipped", req.trigger, f"this content was not applied again ({why}); change it to retry",
                                  self.current.id),
                    record=False,
                )
        refused = self.guard.quarantine.refusal(self.builder.plugins_dir)
        if refused is not None:
            return self._failed(req, fingerprint, refused)
        try:
            generation = self.builder.build()
        except InputVanished as exc:
            return self._vanished(req, str(exc))
        except KubeberthError as exc:
            return self._failed(req, fingerprint, str(exc))
        self._pending_latency[generation.id] = req.event_at  # before the loop can run its first cycle
        def swapped(old: Generation, new: Generation) -> None:
            # The outcome is published with the new generation, under one lock: /debug/generation
            # never shows the new id with the previous reload's outcome.
            outcome = ReloadOutcome("success", req.trigger, generation=new.id, event_at=req.event_at,
                                    swapped_at=time.monotonic())
            self._swapped(old, new, outcome=outcome)

        swap = SwapRequest(self.scheduler, generation, check=True, on_swapped=swapped).submit()
        if not swap.wait(SWAP_TIMEOUT_SECONDS):
            self._pending_latency.pop(generation.id, None)
            return self._failed(req, "", f"the scheduling loop did not take generation {generation.id} within "
                                         f"{SWAP_TIMEOUT_SECONDS:.0f}s", remember=False)
        if swap.error is not None:
            self._pending_latency.pop(generation.id, None)
            return self._failed(req, fingerprint, swap.error)
        with self._lock:
            self.current_fingerprint = fingerprint
            self.fingerprints = {k: v for k, v in self.fingerprints.items() if k == self.previous_id}
            self.fingerprints[generation.id] = fingerprint
        plugins = ", ".join(
            f"{s.name} {s.version}" for s in sorted(generation.registry.values(), key=lambda s: s.name) if not s.builtin
        )
        log.info(
            "reload (%s): generation %s now schedules, replacing %s%s",
            req.trigger, generation.id, self.previous_id, f" (plugins: {plugins})" if plugins else "",
        )
        self._metric("success")
        with self._lock:
            outcome = self.last_reload
        if outcome is None or outcome.generation != generation.id:  # a rollback may already have followed
            outcome = ReloadOutcome("success", req.trigger, generation=generation.id, event_at=req.event_at,
                                    swapped_at=swap.applied_at)
        return outcome

    def _vanished(self, req: _Request, error: str) -> ReloadOutcome:
        """A file went away mid-build: not the content's fault. Look again once the replace that
        removed it has had time to finish (its own events may all have come before the build)."""
        if "retry" not in req.trigger.split("+"):
            timer = threading.Timer(VANISHED_RETRY_SECONDS, self.request, args=("retry",))
            timer.daemon = True
            timer.start()
        return self._failed(req, "", error, remember=False)

    def _failed(self, req: _Request, fingerprint: str, error: str, remember: bool = True) -> ReloadOutcome:
        if remember and fingerprint:
            self.rejected[fingerprint] = f"failed: {error}"
        log.error("reload (%s) failed; still running generation %s: %s", req.trigger, self.current.id, error)
        self._metric("failed")
        self._span(
            "GenerationReloadFailed", {"kubeberth.reload.error": error, "kubeberth.generation": self.current.id}, error
        )
        return self._note(ReloadOutcome("failed", req.trigger, error, self.current.id, event_at=req.event_at))

    def _note(self, outcome: ReloadOutcome, record: bool = True) -> ReloadOutcome:
        if record:
            with self._lock:
                self.last_reload = outcome
                self.history.append(outcome)
        return outcome

    def _metric(self, result: str) -> None:
        if self.observability is not None:
            self.observability.reloaded(result)

    def _span(self, name: str, attributes: dict[str, Any], error: str) -> None:
        tracer = getattr(self.observability, "tracer", None)
        if tracer is not None:
            tracer.event_span(name, attributes, error)

    # ---- the scheduling thread's side ----------------------------------------------------
    def _swapped(
        self, old: Generation, new: Generation, rolling_back: bool = False, outcome: ReloadOutcome | None = None
    ) -> None:
        with self._lock:
            self.previous_id = old.id
            self.current = new
            if outcome is not None:
                self.last_reload = outcome
                self.history.append(outcome)
        self.guard.swapped(old, new, rolling_back)
        self.memory.watch(new.id, reloaded=True)
        if self.observability is not None:
            self.observability.generation_swapped(new.id)

    def _cycle_done(self, record: Any) -> None:
        first = record.generation not in self.guard.first_cycle
        self.guard.cycle_done(record)
        if first:
            self.memory.first_cycle(record.generation)
            event_at = self._pending_latency.pop(record.generation, None)
            if event_at is not None:
                self.first_cycle_latency.append(self.guard.first_cycle[record.generation] - event_at)

    def _memory_exceeded(self, action: str) -> None:
        if self.observability is not None:
            self.observability.memory_exceeded(action)

    def _roll_back(self, bad: Generation, previous: Generation, reason: str) -> None:
        """Called by the guard on the scheduling thread: swap `previous` back in at the next drain."""
        fingerprint = self.fingerprints.get(bad.id, "")
        if fingerprint:
            self.rejected[fingerprint] = f"rolled back: {reason}"
        restored = self.fingerprints.get(previous.id, "")

        def swapped(old: Generation, new: Generation) -> None:
            self._swapped(old, new, rolling_back=True)
            with self._lock:
                self.current_fingerprint = restored
                self.previous_id = None

        SwapRequest(self.scheduler, previous, check=False, on_swapped=swapped).submit()
        message = f"generation {bad.id} rolled back to {previous.id}: {reason}"
        log.error("%s; its content is not applied again until it changes", message)
        self._metric("rolled_back")
        self._span(
            "GenerationRollback",
            {"kubeberth.generation": previous.id, "kubeberth.rollback.from": bad.id, "kubeberth.rollback.reason": reason},
            message,
        )
        self._note(ReloadOutcome("rolled_back", "rollback", message, previous.id))
        if self.announce is not None:
            try:
                self.announce("GenerationRolledBack", message)
            except Exception:  # noqa: BLE001 - best effort
                log.exception("announcing the rollback failed")

    # ---- a canary's candidate (kubeberth.apps.canary) ----------------------------------------
    def adopt(
        self, generation: Generation, trigger: str, on_swapped: Callable[[Generation, Generation], None] | None = None,
    ) -> SwapRequest:
        """Make `generation` (built, dry-run and scheduling beside the live one: a promoted canary)
        the live generation as a reload would, on probation, without a rebuild, a dry run or a
        handoff; returns the swap request (any thread; the scheduling thread must not wait on it).
        The reload inputs' fingerprint stays the live files': their next change reloads from them."""

        def swapped(old: Generation, new: Generation) -> None:
            outcome = ReloadOutcome("success", trigger, generation=new.id, event_at=time.monotonic(),
                                    swapped_at=time.monotonic())
            self._swapped(old, new, outcome=outcome)
            self._metric("success")
            log.info("%s: generation %s now schedules, replacing %s", trigger, new.id, old.id)
            if on_swapped is not None:
                on_swapped(old, new)

        return SwapRequest(self.scheduler, generation, check=False, on_swapped=swapped, hand_off=False).submit()

    def candidate_rolled_back(self, candidate: str, reason: str, trigger: str = "canary") -> None:
        """The candidate generation `candidate` (an id), which scheduled beside the live one, was
        ended for `reason`: recorded as a rollback is (history,
        kubeberth_reloads_total{result="rolled_back"}, a span); the live generation never changed."""
        message = f"generation {candidate} rolled back to {self.current.id}: {reason}"
        self._metric("rolled_back")
        self._span(
            "GenerationRollback",
            {"kubeberth.generation": self.current.id, "kubeberth.rollback.from": candidate,
             "kubeberth.rollback.reason": reason},
            message,
        )
        self._note(ReloadOutcome("rolled_back", trigger, message, self.current.id))

    # ---- the admin API's view ----------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """GET /debug/generation."""
        with self._lock:
            gen, previous, last = self.current, self.previous_id, self.last_reload
            latency = self.first_cycle_latency[-1] if self.first_cycle_latency else None
        return {
            "id": gen.id,
            "number": gen.number,
            "created": _iso(gen.created_at),
            "config": gen.config_source,
            "profiles": list(gen.profiles),
            "plugins": [
                {"name": s.name, "source": s.source, "version": s.version}
                for s in sorted(gen.registry.values(), key=lambda s: s.name)
            ],
            "previous": previous,
            "last_reload": last.as_dict() if last is not None else None,
            "last_swap_latency_ms": round(latency * 1000, 3) if latency is not None else None,
            "rollback": {"enabled": self.guard.policy.enabled, "on_probation": self.guard.probation is not None},
            "canary": self.canary_status() if self.canary_status is not None else None,
        }


class DebouncedEvents(FileSystemEventHandler):
    """Turns a burst of file events into one reload request.

    A write that is known to be complete — a file closed after writing, or renamed into place
    (an editor's atomic save, the kubelet's `..data` symlink swap) — asks for the reload at once:
    waiting would only add latency, and a later event of the same burst simply triggers the next
    reload (the fingerprint decides whether anything changed). Any other event (a modification
    still in progress, a creation, a deletion) waits until the folder has been quiet for `delay`.
    """

    def __init__(
        self,
        reloader: Reloader,
        delay: float,
        relevant: Callable[[str], bool],
        completes: Callable[[str], bool],
    ) -> None:
        self.reloader = reloader
        self.delay = delay
        self.relevant = relevant
        self.completes = completes
        self._timer: threading.Timer | None = None
        self._first: float | None = None
        self._lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        dest = str(getattr(event, "dest_path", "") or "")
        paths = [str(event.src_path), dest]
        if not any(p and self.relevant(p) for p in paths):
            return
        finished = (event.event_type == "closed" and self.completes(str(event.src_path))) or (
            event.event_type == "moved" and bool(dest) and self.completes(dest)
        )
        with self._lock:
            if self._first is None:
                self._first = time.monotonic()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if finished:
                first, self._first = self._first, None
            else:
                self._timer = threading.Timer(self.delay, self._fire)
                self._timer.daemon = True
                self._timer.start()
                return
        self.reloader.request("watch", event_at=first)

    def _fire(self) -> None:
        with self._lock:
            first, self._first, self._timer = self._first, None, None
        if first is not None:
            self.reloader.request("watch", event_at=first)


def builds_from(plugins_dir: Path, path: str) -> bool:
    """Whether a finished write of `path` can change a build: a visible .py file outside hidden
    folders (what the fingerprint reads), or the `..data` symlink of a ConfigMap volume."""
    rel = Path(path)
    if rel.is_relative_to(plugins_dir):
        rel = rel.relative_to(plugins_dir)
    if rel.name == "..data":
        return True
    return rel.suffix == ".py" and not any(part.startswith(".") for part in rel.parts)


class Watcher:
    """watchdog observers on the plugins folder (recursive) and the config file's directory.

    Watching the config file's directory (not the file) is what makes a Kubernetes ConfigMap
    volume work: the kubelet writes a new timestamped directory and renames a `..data` symlink
    over the old one, so the file's own inode never changes. Editors' atomic-rename saves look
    the same. Whether anything changed is decided by the reloader's fingerprint.
    """

    def __init__(self, reloader: Reloader, config: Path | None, plugins_dir: Path | None, debounce: float) -> None:
        self.observer = Observer()
        if plugins_dir is not None and plugins_dir.is_dir():
            root = plugins_dir
            handler = DebouncedEvents(
                reloader, debounce, lambda p: "__pycache__" not in p, lambda p: builds_from(root, p)
            )
            self.observer.schedule(handler, str(plugins_dir), recursive=True)
        if config is not None:
            directory, name = config.parent, config.name

            def relevant(path: str) -> bool:
                base = Path(path).name
                return base == name or base.startswith("..")

            def completes(path: str) -> bool:
                base = Path(path).name
                return base in (name, "..data")

            self.observer.schedule(
                DebouncedEvents(reloader, debounce, relevant, completes), str(directory), recursive=False
            )

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=5)

"""The memory guard: a generation under which the process grows past a bound is rolled back
(when it came from a reload and is on probation) or reported (docs/reliability.md, row 11).

What is measured: the process's resident set size (RSS), read from /proc/self/statm by a thread
of its own every `INTERVAL_SECONDS` (1 s): one small file read, nothing on the scheduling thread
and nothing per pod. The growth of a generation is the RSS now minus its baseline, the RSS when
it was swapped in (a reload, or a rollback to it); the startup generation's baseline is taken at
its first scheduling cycle, after the informers' initial lists. Re-baselining at every swap is
what keeps a rolled-back leak from being charged to the next generation: CPython rarely returns
freed memory to the OS, so the RSS stays high after a rollback.

Why RSS and not tracemalloc: tracemalloc hooks every allocation of the process. On
`kubeberth bench --size 500x2000` it took 2.8-2.9 times the CPU per pod with one frame per trace,
its cheapest setting (docs/reliability.md), for the whole life of the process, to attribute
memory a leak shows anyway. RSS sampling costs a file read a second. What RSS cannot do is tell a
plugin's leak from the cluster growing (the cache holds every pod and node); that is why growth
rolls back only within the probation window, when the previous generation is still kept and a
change of code is the likely cause, and is only reported otherwise.

When the growth passes the bound, once per generation (on the scheduling thread, where the
RollbackGuard lives):

- a reloaded generation on probation is rolled back to the previous one, as a hung plugin is
  (`RollbackGuard.memory_exceeded`: the ERROR log line names the generation, growth and bound);
- otherwise (the startup generation, probation over, rollback off) a WARNING line says so.

Both count in `kubeberth_memory_growth_exceeded_total{action="rolled_back"|"reported"}`.
Off Linux (no /proc/self/statm) the guard is off, and says so once.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rollback import RollbackGuard

__all__ = ["Growth", "MemoryGuard", "read_rss"]

log = logging.getLogger(__name__)

INTERVAL_SECONDS = 1.0
STATM = "/proc/self/statm"
MB = 1 << 20
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def read_rss() -> int | None:
    """The process's resident set size in bytes (statm's second field, in pages); None if unknown."""
    try:
        with open(STATM, "rb") as f:
            return int(f.read().split()[1]) * PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class Growth:
    """One generation's RSS growth past the bound; `reloaded`: swapped in (not the startup one)."""

    generation: str
    growth: int
    bound: int
    reloaded: bool

    def reason(self) -> str:
        since = "its swap" if self.reloaded else "its first cycle"
        return (
            f"memory (RSS) grew by {self.growth / MB:.1f} MB since {since}, past the bound of "
            f"{self.bound / MB:g} MB (KUBEBERTH_ROLLBACK_MAX_MEMORY_GROWTH_MB)"
        )


@dataclass
class _Watched:
    generation: str
    reloaded: bool
    baseline: int | None  # None until the startup generation's first cycle
    exceeded: bool = False


class MemoryGuard:
    """Samples the RSS on its own thread; see the module docstring. `submit(fn)` runs fn on the
    scheduling thread; `count(action)` counts one exceeded bound."""

    def __init__(
        self,
        bound_mb: float,
        rollback: RollbackGuard,
        submit: Callable[[Callable[[], None]], None],
        count: Callable[[str], None],
        sample: Callable[[], int | None] = read_rss,
    ) -> None:
        self.bound = int(bound_mb * MB)
        self.rollback, self.submit, self.count, self.sample = rollback, submit, count, sample
        self._lock = threading.Lock()
        self._watched: _Watched | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.bound > 0

    # ---- the scheduling thread's side -----------------------------------------------------
    def watch(self, generation: str, reloaded: bool) -> None:
        """`generation` now schedules: its growth counts from now (from its first cycle at startup)."""
        baseline = self.sample() if reloaded and self.enabled else None
        with self._lock:
            self._watched = _Watched(generation, reloaded, baseline)

    def first_cycle(self, generation: str) -> None:
        """The startup generation's first cycle: its baseline, after the initial lists."""
        with self._lock:
            watched = self._watched
            if watched is None or watched.generation != generation or watched.baseline is not None:
                return
        baseline = self.sample() if self.enabled else None
        with self._lock:
            if self._watched is watched:
                watched.baseline = baseline

    def settle(self, growth: Growth) -> None:
        """On the scheduling thread: roll the generation back, or report it (it is still running)."""
        with self._lock:
            if self._watched is None or self._watched.generation != growth.generation:
                return  # swapped meanwhile: the new generation has its own baseline
        if self.rollback.memory_exceeded(growth.generation, growth.reason()):
            self.count("rolled_back")
            return
        why = "it is the startup generation" if not growth.reloaded else "its probation is over or rollback is off"
        log.warning(
            "generation %s: %s; it is not rolled back (%s): a leaking plugin, or the cluster grew",
            growth.generation, growth.reason(), why,
        )
        self.count("reported")

    # ---- the sampling thread ---------------------------------------------------------------
    def start(self) -> None:
        if not self.enabled or self._thread is not None:
            return
        if self.sample() is None:
            log.warning("memory guard off: %s cannot be read (Linux only)", STATM)
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="kubeberth-memory-guard", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _serve(self) -> None:
        while not self._stop.wait(INTERVAL_SECONDS):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the guard must outlive anything it reads
                log.exception("memory guard check failed")

    def check(self) -> Growth | None:
        """One sample: the growth past the bound, handed to the scheduling thread (once per generation)."""
        rss = self.sample()
        with self._lock:
            watched = self._watched
            if rss is None or watched is None or watched.baseline is None or watched.exceeded:
                return None
            if rss - watched.baseline <= self.bound:
                return None
            watched.exceeded = True
            growth = Growth(watched.generation, rss - watched.baseline, self.bound, watched.reloaded)
        self.submit(lambda: self.settle(growth))
        return growth

"""The cyclic garbage collector while the cache loads.

Loading the cache allocates a few objects per node and per running pod, all long-lived. Each
collection those allocations trigger rescans everything loaded so far: at 650,000 running pods,
a quarter of the initial list's CPU goes to collections that find nothing. So the collector is
paused from the backend's start until the scheduler has applied every informer's initial list
(or `limit` seconds have passed, whichever is first), and the loaded cache is then moved out of
the collector's scans (`gc.freeze`), as the runner does with imported modules at start: later
full collections, pauses of the scheduling loop, no longer walk it. They still walk what was
placed since, and each reference it holds into the frozen cache is a cache miss: at 650,000
running pods, three full collections in 5,000 placements paused the loop for 16, 40 and 63 ms
and found nothing. So after a large load a full collection waits for FULL_COLLECTION_AFTER
collections of the middle generation instead of 10 (reference cycles that live that long are
collected later, not never). Only a large load is frozen
(FREEZE_AT objects or more): a frozen object that becomes part of a garbage cycle is never
collected, a price worth a cluster's cache, not a test's dozen nodes.

`kubeberth run` pauses the collector from its first step too (`PROCESS_START`, begun by the command
line before the run path's imports, ended once the scheduler's own pause has begun): importing the
run path allocates ~10 % more CPU time in collections that find next to nothing, before the first
binding.

Reference-counted objects are freed as always while paused; only reference cycles wait. The
pause is process-wide and counted: several schedulers in one process (tests, simulations)
resume the collector when the last of them has loaded.
"""

from __future__ import annotations

import gc
import logging
import threading

log = logging.getLogger(__name__)

PAUSE_LIMIT_SECONDS = 300.0  # a list that never completes does not keep the collector off
FREEZE_AT = 200_000  # objects the load left tracked (~20,000 running pods)
# After a large load is frozen: a full collection waits for this many collections of the middle
# generation (CPython's default is 10).
FULL_COLLECTION_AFTER = 100

_lock = threading.Lock()
_paused = 0  # loads in progress in this process
_disabled_by_us = False


class LoadPause:
    """One scheduler's pause of the collector: `begin()` at the backend's start, `end()` once its
    caches have synced (again, at shutdown or after `limit` seconds: later calls do nothing)."""

    def __init__(self, limit: float = PAUSE_LIMIT_SECONDS, freeze_at: int = FREEZE_AT) -> None:
        self.limit = limit
        self.freeze_at = freeze_at
        self._active = False
        self._count_at_begin = 0
        self._timer: threading.Timer | None = None

    @property
    def active(self) -> bool:
        return self._active

    def begin(self) -> None:
        global _paused, _disabled_by_us
        with _lock:
            if self._active:
                return
            self._active = True
            self._count_at_begin = gc.get_count()[0]
            if _paused == 0 and gc.isenabled():
                gc.disable()
                _disabled_by_us = True
            _paused += 1
        self._timer = threading.Timer(self.limit, self._expired)
        self._timer.daemon = True
        self._timer.start()

    def end(self) -> None:
        """The load is over: freeze what it loaded; the last load to end resumes the collector."""
        global _paused, _disabled_by_us
        with _lock:
            if not self._active:
                return
            self._active = False
            _paused -= 1
            if _paused == 0 and _disabled_by_us:
                if gc.get_count()[0] - self._count_at_begin >= self.freeze_at:  # allocated less freed
                    gc.collect(1)  # the young garbage of the load, before the rest is frozen
                    gc.freeze()
                    young, middle, full = gc.get_threshold()
                    gc.set_threshold(young, middle, max(full, FULL_COLLECTION_AFTER))
                gc.enable()
                _disabled_by_us = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        if self._active:
            log.warning("caches not synced after %.0fs; the garbage collector runs again", self.limit)
        self.end()


# `kubeberth run`'s pause from its first step until its scheduler's own has begun (apps/cli.py,
# apps/runner.py); bounded like any other.
PROCESS_START = LoadPause(limit=60.0)

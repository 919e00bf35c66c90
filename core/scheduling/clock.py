"""Clocks for the queue's backoff timers: wall-clock time, or virtual time for the simulator."""

from __future__ import annotations

import time


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

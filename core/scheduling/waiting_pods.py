"""Pods held at Permit (kube-scheduler's waitingPodsMap entries), released by plugins or a timeout."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..api.status import Code, Status
from ..cache.podinfo import PodInfo


def go_duration(seconds: float) -> str:
    """A duration as Go's time.Duration prints it (5m0s, 1h0m0s, 1.5s, 250ms): upstream's
    timeout message carries it."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return f"{sign}{_fraction(ns, size)}{unit}"
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    out = f"{hours}h" if hours else ""
    if hours or minutes:
        out += f"{minutes}m"
    return f"{sign}{out}{_fraction(rest, 1_000_000_000)}s"


def _fraction(value: int, unit: int) -> str:
    whole, frac = divmod(value, unit)
    if not frac:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


class WaitingPod:
    """A pod held at Permit until every waiting plugin allows it, any rejects it, or time runs out.

    Deadlines are on the scheduler's clock. With wall-clock time the binding worker waiting on
    the pod also rejects it at its deadline; with the simulator's virtual clock only the loop
    does (`expire`), when it moves time forward.
    """

    def __init__(
        self, pod: PodInfo, waits: dict[str, float], now: Callable[[], float] = time.monotonic, virtual: bool = False
    ) -> None:
        self.pod = pod
        self._now = now
        self._virtual = virtual
        self._lock = threading.Lock()
        start = now()
        self._pending = {name: (start + timeout, timeout) for name, timeout in waits.items()}
        self._done = threading.Event()
        self._status: Status | None = None

    @property
    def pending_plugins(self) -> list[str]:
        with self._lock:
            return sorted(self._pending)

    @property
    def done(self) -> bool:
        """Allowed or rejected: no longer held."""
        return self._done.is_set()

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

    def preempt(self, plugin: str, message: str) -> bool:
        """kube-scheduler's waitingPod.Preempt: end the wait with an Error, so the pod goes back to backoffQ and is
        retried (a rejection would park it until an event its rejecting plugin registered). True again for a pod
        already preempted this way whose binding cycle has not reported back yet (kube-scheduler drops it from the
        waiting pods at once; kubeberth between cycles): a second preemption must not delete it. False when the
        wait had ended otherwise (the caller deletes the victim instead)."""
        preempted = Status(Code.ERROR, (message,), plugin)
        with self._lock:
            if self._status is not None:
                return self._status == preempted
            self._status = preempted
            self._done.set()
            return True

    def next_deadline(self) -> float | None:
        """When the earliest pending plugin's wait runs out (None: not held any more)."""
        with self._lock:
            if self._status is not None or not self._pending:
                return None
            return min(deadline for deadline, _ in self._pending.values())

    def expire(self, now: float) -> bool:
        """Reject the pod if a plugin's wait has run out by `now` (kube-scheduler's timer)."""
        with self._lock:
            late = [(deadline, p, t) for p, (deadline, t) in self._pending.items() if deadline <= now]
        if not late:
            return False
        _, plugin, timeout = min(late)
        self.reject(plugin, f"rejected due to timeout after waiting {go_duration(timeout)} at plugin {plugin}")
        return True

    def wait(self) -> Status:
        while not self._done.is_set():
            if self._virtual:
                self._done.wait(1.0)
                continue
            deadline = self.next_deadline()
            if deadline is None:
                break
            remaining = deadline - self._now()
            if remaining <= 0:
                self.expire(self._now())
                break
            self._done.wait(min(remaining, 1.0))
        with self._lock:
            return self._status or Status.success()

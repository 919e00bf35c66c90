"""Pods held at Permit (kube-scheduler's waitingPodsMap entries), released by plugins or a timeout."""

from __future__ import annotations

import threading
import time

from ..api.status import Code, Status
from ..cache.podinfo import PodInfo


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

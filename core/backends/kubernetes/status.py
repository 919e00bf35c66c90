"""The pod status writer: PodScheduled conditions and nominatedNodeName, written in the background
so the scheduling loop never waits on HTTP, skipping writes that would change nothing."""

from __future__ import annotations

import logging
import queue as queue_mod
import threading
from typing import Any

from ...cache.podinfo import PodInfo
from .client import RawClient, WriteStats, best_effort_write, rfc3339

log = logging.getLogger(__name__)


class StatusWriter:
    """Queues status patches from the scheduling loop and writes them from one thread."""

    def __init__(self, raw: RawClient, stats: WriteStats, stopping: threading.Event) -> None:
        self.raw = raw
        self.stats = stats
        self.stopping = stopping
        self.pending: queue_mod.Queue[tuple[str, PodInfo, Any]] = queue_mod.Queue(maxsize=10000)
        self._conditions: dict[str, tuple[str, str, str]] = {}

    def enqueue(self, what: str, pod: PodInfo, value: Any) -> None:
        try:
            self.pending.put_nowait((what, pod, value))
        except queue_mod.Full:
            log.warning("status write queue full; dropped %s for %s", what, pod.key)

    def discard(self) -> int:
        """Drop every queued write; returns how many."""
        dropped = 0
        while True:
            try:
                self.pending.get_nowait()
            except queue_mod.Empty:
                return dropped
            self.pending.task_done()
            dropped += 1

    def run(self) -> None:
        """The writer thread's body: until the backend stops and nothing is left to write."""
        while True:
            try:
                what, pod, value = self.pending.get(timeout=1.0)
            except queue_mod.Empty:
                if self.stopping.is_set():
                    return
                continue
            try:
                if what == "condition":
                    self._write_status(pod, value, None)
                elif what == "status":
                    self._write_status(pod, *value)
                else:
                    self._write_nominated(pod, value)
            except Exception:  # noqa: BLE001
                log.exception("status write failed for %s", pod.key)
            finally:
                self.pending.task_done()

    def _patch_status(self, pod: PodInfo, body: dict[str, Any]) -> bool:
        path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
        return best_effort_write(self.raw, self.stats, self.stopping, "PATCH", path, body,
                                 "application/strategic-merge-patch+json")

    def _condition_change(self, pod: PodInfo, condition: dict[str, Any]) -> dict[str, Any] | None:
        """The condition to write, or None when the pod (or our last write) already carries it
        (podutil.UpdatePodCondition reporting no change)."""
        sig = (condition.get("status", ""), condition.get("reason", ""), condition.get("message", ""))
        current = next(
            (c for c in ((pod.raw.get("status") or {}).get("conditions") or ()) if c.get("type") == condition["type"]),
            None,
        )
        if current is not None and (current.get("status"), current.get("reason", ""), current.get("message", "")) == sig:
            return None
        if self._conditions.get(pod.uid + condition["type"]) == sig:
            return None  # we already wrote exactly this; the informer has not caught up yet
        cond = dict(condition)
        cond["lastProbeTime"] = None
        if current is not None and current.get("status") == cond.get("status") and current.get("lastTransitionTime"):
            cond["lastTransitionTime"] = current["lastTransitionTime"]
        else:
            cond["lastTransitionTime"] = rfc3339()
        return cond

    def _write_status(self, pod: PodInfo, condition: dict[str, Any], nominated: str | None) -> None:
        """kube-scheduler's updatePod: one PATCH of pods/status with the condition and, unless
        `nominated` is None (ModeNoop), status.nominatedNodeName ("" clears it), each only if it
        changes; nothing when neither does."""
        status: dict[str, Any] = {}
        cond = self._condition_change(pod, condition)
        if cond is not None:
            status["conditions"] = [cond]
        if nominated is not None and ((pod.raw.get("status") or {}).get("nominatedNodeName") or None) != (nominated or None):
            status["nominatedNodeName"] = nominated or None
        if not status or not self._patch_status(pod, {"metadata": {"uid": pod.uid}, "status": status}):
            return
        if cond is not None:
            self._conditions[pod.uid + cond["type"]] = (cond.get("status", ""), cond.get("reason", ""),
                                                        cond.get("message", ""))
            if len(self._conditions) > 50000:
                self._conditions.clear()
        self.stats.add("status_patches")

    def _write_nominated(self, pod: PodInfo, node_name: str | None) -> None:
        if ((pod.raw.get("status") or {}).get("nominatedNodeName") or None) == node_name:
            return
        if self._patch_status(pod, {"metadata": {"uid": pod.uid}, "status": {"nominatedNodeName": node_name}}):
            self.stats.add("status_patches")

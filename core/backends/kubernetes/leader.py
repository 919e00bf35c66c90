"""Lease-based leader election on coordination.k8s.io/v1, with client-go's semantics.

A candidate reads the Lease every retryPeriod. A lease is free when its holder is empty or when
its record has not changed for leaseDurationSeconds of *our* clock (the observed time, so clocks
need not agree). The holder renews every retryPeriod; if no renewal succeeds for renewDeadline it
steps down at once (`on_stopped_leading`) and becomes a candidate again — kube-scheduler exits
instead; staying up keeps the informer cache warm and the Deployment's restart budget unused.
Updates carry the Lease's resourceVersion, so two candidates cannot both win.
The official Python client's leaderelection package only implements a ConfigMap lock, hence this
small Lease lock.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from .client import ApiError, RawClient, micro_time

log = logging.getLogger(__name__)


def parse_duration(text: str | float | int) -> float:
    """Go duration strings as written in KubeSchedulerConfiguration ("15s", "1m30s", "500ms")."""
    if isinstance(text, int | float):
        return float(text)
    s = text.strip()
    if not s:
        raise ValueError("empty duration")
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
    total, num = 0.0, ""
    i = 0
    while i < len(s):
        c = s[i]
        if c.isdigit() or c == ".":
            num += c
            i += 1
            continue
        unit = s[i : i + 2] if s[i : i + 2] in units else c
        if unit not in units or not num:
            raise ValueError(f"invalid duration {text!r}")
        total += float(num) * units[unit]
        num = ""
        i += len(unit)
    if num:
        if total == 0 and float(num) == 0:
            return 0.0
        raise ValueError(f"invalid duration {text!r}: missing unit")
    return total


def default_identity() -> str:
    return f"{socket.gethostname()}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


class LeaderElector:
    """Acquire and hold a Lease; callbacks run on the elector's thread and must not block."""

    def __init__(
        self,
        raw: RawClient,
        namespace: str,
        name: str,
        identity: str | None = None,
        lease_duration: float = 15.0,
        renew_deadline: float = 10.0,
        retry_period: float = 2.0,
        on_started_leading: Callable[[], None] | None = None,
        on_stopped_leading: Callable[[], None] | None = None,
    ) -> None:
        if not lease_duration > renew_deadline > retry_period > 0:
            raise ValueError("leaderElection: need leaseDuration > renewDeadline > retryPeriod > 0")
        self.raw = raw
        self.namespace = namespace
        self.name = name
        self.identity = identity or default_identity()
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.on_started_leading = on_started_leading or (lambda: None)
        self.on_stopped_leading = on_stopped_leading or (lambda: None)
        self.is_leader = False
        self.last_renew = 0.0  # monotonic time of the last successful acquire/renew
        self.observed_ok = False  # the Lease API answered at least once (standby is ready)
        self.transitions = 0
        self._observed: dict[str, Any] | None = None
        self._observed_at = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        return f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases/{self.name}"

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kubeberth-leader-election", daemon=True)
        self._thread.start()

    def stop(self, release: bool = True) -> None:
        """Stop campaigning; when leading, step down and (by default) release the Lease."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.retry_period + 5)
        with self._lock:
            was_leader = self.is_leader
            if was_leader:
                self._step_down("shutting down")
        if was_leader and release:
            self.release()

    def healthy(self, tolerance: float = 20.0) -> bool:
        """client-go's HealthzAdaptor: a leader past its renew deadline plus tolerance is unhealthy."""
        if not self.is_leader:
            return True
        return time.monotonic() - self.last_renew <= self.renew_deadline + tolerance

    # ---- the loop ----------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            ok = False
            try:
                ok = self._try_acquire_or_renew()
            except ApiError as exc:
                log.warning("leader election: %s", exc)
            except Exception:  # noqa: BLE001 - the elector must keep running
                log.exception("leader election failed")
            with self._lock:
                now = time.monotonic()
                if ok:
                    self.last_renew = now
                    if not self.is_leader:
                        self.is_leader = True
                        self.transitions += 1
                        log.info("became leader %s/%s as %s", self.namespace, self.name, self.identity)
                        self.on_started_leading()
                elif self.is_leader and now - self.last_renew >= self.renew_deadline:
                    self._step_down(f"could not renew within renewDeadline {self.renew_deadline:g}s")
            # Retry sooner while renewals fail, so a short blip does not cost leadership.
            wait = self.retry_period - (time.monotonic() - started)
            if self.is_leader and not ok:
                wait = min(wait, max(0.0, self.renew_deadline - (time.monotonic() - self.last_renew)))
            self._stop.wait(max(0.05, wait))

    def _step_down(self, why: str) -> None:
        self.is_leader = False
        log.warning("stopped leading %s/%s: %s", self.namespace, self.name, why)
        self.on_stopped_leading()

    def _record(self, acquire_time: str | None, transitions: int) -> dict[str, Any]:
        now = micro_time()
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": max(1, round(self.lease_duration)),
            "acquireTime": acquire_time or now,
            "renewTime": now,
            "leaseTransitions": transitions,
        }

    def _timeout(self) -> float:
        """Total seconds one Lease request may take. A leader's must end by its renew deadline, so
        it steps down on time however the API server stalls (client-go bounds the whole renewal by
        renewDeadline); a candidate's by half of it. Needs a client without automatic retries."""
        limit = max(1.0, self.renew_deadline / 2)
        if self.is_leader:
            limit = min(self.renew_deadline, self.last_renew + self.renew_deadline - time.monotonic())
        return max(0.1, limit)

    def _try_acquire_or_renew(self) -> bool:
        try:
            lease = self.raw.request("GET", self.path, timeout=self._timeout())
        except ApiError as exc:
            if exc.status != 404:
                raise
            self.observed_ok = True
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace},
                "spec": self._record(None, 0),
            }
            try:
                self.raw.request("POST", f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases",
                                 body=body, timeout=self._timeout())
            except ApiError as create_exc:
                if create_exc.status == 409:
                    return False
                raise
            return True
        self.observed_ok = True
        spec = lease.get("spec") or {}
        now = time.monotonic()
        if spec != self._observed:
            self._observed, self._observed_at = spec, now
        holder = spec.get("holderIdentity") or ""
        duration = float(spec.get("leaseDurationSeconds") or self.lease_duration)
        if holder and holder != self.identity and self._observed_at + duration > now:
            return False  # held by someone else, not expired
        transitions = int(spec.get("leaseTransitions") or 0)
        if holder == self.identity:
            record = self._record(spec.get("acquireTime"), transitions)
        else:
            record = self._record(None, transitions + 1)
        lease["spec"] = record
        try:
            self.raw.request("PUT", self.path, body=lease, timeout=self._timeout())
        except ApiError as exc:
            if exc.status == 409:  # someone else updated it first
                return False
            raise
        self._observed, self._observed_at = record, time.monotonic()
        return True

    def release(self) -> bool:
        """Give the Lease up (empty holder) so a standby can take over without waiting."""
        try:
            lease = self.raw.request("GET", self.path, timeout=(5, 5))
        except ApiError as exc:
            log.warning("releasing lease: %s", exc)
            return False
        spec = lease.get("spec") or {}
        if spec.get("holderIdentity") != self.identity:
            return False
        now = micro_time()
        lease["spec"] = {
            "holderIdentity": None,
            "leaseDurationSeconds": 1,
            "acquireTime": now,
            "renewTime": now,
            "leaseTransitions": spec.get("leaseTransitions") or 0,
        }
        try:
            self.raw.request("PUT", self.path, body=lease, timeout=(5, 5))
        except ApiError as exc:
            log.warning("releasing lease: %s", exc)
            return False
        log.info("released lease %s/%s", self.namespace, self.name)
        return True

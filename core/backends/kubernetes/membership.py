"""Replica membership for active-active scale out: one Lease per replica (docs/scale-out.md).

Each replica creates and renews `<group>-member-<hash of identity>` (holderIdentity = identity)
in the scheduler's namespace every `retry_period`. The live set is every member Lease whose
renewTime + leaseDurationSeconds is in the future, read from the group's LeaseWatch; this replica
counts itself live only while its own last renewal is younger than the lease duration, so a
replica cut off from the API server stops owning pods when the others stop seeing it. On a clean
stop the Lease is deleted and the others take its pods over at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .client import ApiError, RawClient, micro_time
from .lease_watch import GROUP_LABEL, ROLE_LABEL, LeaseWatch

log = logging.getLogger(__name__)


def member_lease_name(group: str, identity: str) -> str:
    return f"{group}-member-{hashlib.sha256(identity.encode()).hexdigest()[:16]}"


def _parse_time(text: Any) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def live_members(leases: list[dict[str, Any]], now: float) -> set[str]:
    """The holders of the member Leases whose renewTime + leaseDurationSeconds is after `now`."""
    live: set[str] = set()
    for lease in leases:
        spec = lease.get("spec") or {}
        holder = spec.get("holderIdentity")
        renewed = _parse_time(spec.get("renewTime"))
        duration = spec.get("leaseDurationSeconds")
        if (isinstance(holder, str) and holder and renewed is not None and isinstance(duration, int)
                and renewed + duration > now):
            live.add(holder)
    return live


class Membership(threading.Thread):
    """Renews this replica's member Lease and reports the live set when it changes."""

    def __init__(
        self,
        raw: RawClient,
        watch: LeaseWatch,
        identity: str,
        lease_duration: float,
        retry_period: float,
        on_change: Callable[[tuple[str, ...]], None],
        on_tick: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(name="kubeberth-membership", daemon=True)
        self.raw = raw
        self.watch = watch
        self.identity = identity
        self.lease_duration = lease_duration
        self.retry_period = retry_period
        self.on_change = on_change
        self.on_tick = on_tick
        self.clock = clock
        self.name_ = member_lease_name(watch.group, identity)
        self.stopping = threading.Event()
        self.members: tuple[str, ...] = ()
        self._renewed_at = float("-inf")  # monotonic time of our last successful renewal
        self._own: dict[str, Any] | None = None  # our Lease as the last write returned it

    # ---- the Lease --------------------------------------------------------------------
    def _body(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "name": self.name_, "namespace": self.watch.namespace,
            "labels": {GROUP_LABEL: self.watch.group, ROLE_LABEL: "member"},
        }
        if self._own is not None:
            meta["resourceVersion"] = (self._own.get("metadata") or {}).get("resourceVersion")
        return {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": self.identity, "leaseDurationSeconds": max(1, round(self.lease_duration)),
                     "renewTime": micro_time(self.clock())},
        }

    def renew(self) -> bool:
        """Create or update our Lease (one write); a 409 re-reads it and tries once more."""
        path = f"{self.watch.path}/{self.name_}"
        for _ in range(2):
            try:
                if self._own is None:
                    self._own = self.raw.request("POST", self.watch.path, body=self._body(), timeout=5)
                else:
                    self._own = self.raw.request("PUT", path, body=self._body(), timeout=5)
                self._renewed_at = time.monotonic()
                self.watch.put(self._own)
                return True
            except ApiError as exc:
                if exc.status in (409, 404):
                    try:
                        self._own = self.raw.request("GET", path, timeout=5)
                    except ApiError as again:
                        if again.status != 404:
                            log.warning("member lease %s: %s", self.name_, again)
                            return False
                        self._own = None
                    continue
                log.warning("renewing member lease %s failed: %s", self.name_, exc)
                return False
        return False

    def live(self) -> tuple[str, ...]:
        """The live set now: the unexpired member Leases, this replica only while its renewals hold."""
        live = live_members(self.watch.with_role("member"), self.clock())
        live.discard(self.identity)
        if time.monotonic() - self._renewed_at < self.lease_duration:
            live.add(self.identity)
        return tuple(sorted(live))

    # ---- the loop ---------------------------------------------------------------------
    def run(self) -> None:
        last: tuple[str, ...] | None = None
        while not self.stopping.is_set():
            try:
                self.renew()
                if self.watch.synced.is_set():
                    # A set is adopted once two rounds in a row agree: replicas starting together
                    # see each other before either schedules, and a flapping Lease moves no pods.
                    members = self.live()
                    if members != self.members and members == last:
                        log.info("scale-out members: %s", ", ".join(members) or "(none)")
                        self.members = members
                        self.on_change(members)
                    last = members
                if self.on_tick is not None:
                    self.on_tick()
            except Exception:  # noqa: BLE001 - membership must keep renewing
                log.exception("membership round failed")
            self.stopping.wait(self.retry_period)

    def stop(self, release: bool = True) -> None:
        """Stop renewing; `release` deletes our Lease so the others take our pods at once."""
        self.stopping.set()
        if self.is_alive():
            self.join(10)
        if release and self._own is not None:
            try:
                self.raw.request("DELETE", f"{self.watch.path}/{self.name_}", timeout=5)
            except ApiError as exc:
                log.info("releasing member lease %s: %s", self.name_, exc)

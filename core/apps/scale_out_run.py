"""`kubeberth run --replicas-mode=active-active`: wires membership, the claims store and the loop's
ScaleOut together (docs/scale-out.md). Nothing here runs in the default leader mode."""

from __future__ import annotations

import json
import logging
from functools import partial
from typing import Any

from ..backends.kubernetes import RawClient, load_api_client
from ..backends.kubernetes.claims import ClaimStore, node_of
from ..backends.kubernetes.leader import default_identity
from ..backends.kubernetes.lease_watch import ROLE_LABEL, LeaseWatch
from ..backends.kubernetes.membership import Membership
from ..scheduling.scale_out import ScaleOut
from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)


class ScaleOutRun:
    """This process's membership Lease, the group's Lease watch and the claims store."""

    def __init__(
        self,
        scheduler: Scheduler,
        kubeconfig: str | None,
        namespace: str,
        group: str,
        lease_duration: float,
        retry_period: float,
        identity: str | None = None,
        binding_workers: int = 16,
    ) -> None:
        self.identity = identity or default_identity()
        self.scheduler = scheduler
        # Claims are written from binding workers: a connection each. Membership has its own
        # small client with no automatic retries, as leader election does.
        claims_raw = RawClient(load_api_client(kubeconfig, pool_size=binding_workers + 2))
        member_raw = RawClient(load_api_client(kubeconfig, pool_size=2, retries=False))
        self.watch = LeaseWatch(claims_raw, namespace, group)
        self.store = ClaimStore(claims_raw, self.watch, self.identity)
        self.scale_out = ScaleOut(self.identity, self.store)
        self.scale_out.attach(scheduler)
        scheduler.scale_out = self.scale_out
        self.watch.listeners.append(self._lease_changed)
        self.membership = Membership(
            member_raw, self.watch, self.identity, lease_duration, retry_period,
            on_change=self._members_changed, on_tick=lambda: scheduler.submit(self.scale_out.expire),
        )

    def _lease_changed(self, typ: str, obj: dict[str, Any]) -> None:
        """From the watch thread: a claims Lease's claims go to the loop."""
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if labels.get(ROLE_LABEL) != "claims":
            return
        node = node_of(obj)
        if node:
            claims = {} if typ == "DELETED" else self.store.node_claims(obj)
            self.scheduler.submit(partial(self.scale_out.apply_claims, node, claims))

    def _members_changed(self, members: tuple[str, ...]) -> None:
        self.store.stats.members = len(members)
        self.scheduler.submit(partial(self.scale_out.set_members, members))

    def register_metrics(self, registry: Any) -> None:
        registry.register(self.store.stats)

    def start(self) -> None:
        self.watch.start()
        self.membership.start()
        log.info("active-active scale out as %s (group %s/%s)", self.identity, self.watch.namespace,
                 self.watch.group)

    def stop(self) -> None:
        """After the binding pool has finished: leave the group (the others take our pods now)."""
        self.membership.stop(release=True)
        self.watch.stop()
        log.info("scale-out stopped: %s", json.dumps(self.store.stats.snapshot(), sort_keys=True))

"""`kubeberth run --replicas-mode=active-active`: wires membership, the claims store and the loop's
ScaleOut together (docs/scale-out.md). Nothing here runs in the default leader mode.

Membership is always Leases in the Kubernetes API; the claims live in the store
`--scale-out-store` names: Leases too (the default), or keys in etcd (backends/etcd_claims.py).
"""

from __future__ import annotations

import json
import logging
import time
from functools import partial
from typing import Any

from ..backends.claims_store import ClaimRecords, Claims, ClaimStore, node_claims
from ..backends.kubernetes import RawClient, load_api_client
from ..backends.kubernetes.claims import LeaseClaimRecords
from ..backends.kubernetes.leader import default_identity
from ..backends.kubernetes.lease_watch import LeaseWatch
from ..backends.kubernetes.membership import Membership
from ..errors import ConfigError
from ..runtime.config import Settings
from ..scheduling.scale_out import ScaleOut
from ..scheduling.scheduler import Scheduler

log = logging.getLogger(__name__)


def etcd_records(settings: Settings, group: str, identity: str, pool_size: int) -> ClaimRecords:
    """The etcd store from --scale-out-etcd-*, reached and listed now: a missing extra, a bad flag
    or no etcd answering is a one-line ConfigError (exit 2) before anything schedules."""
    from ..backends.etcd_claims import EtcdClaimRecords, EtcdOptions, parse_endpoints

    files = {}
    for flag, path in (("cafile", settings.scale_out_etcd_cafile), ("certfile", settings.scale_out_etcd_certfile),
                       ("keyfile", settings.scale_out_etcd_keyfile)):
        if path is not None and not path.is_file():
            raise ConfigError(f"--scale-out-etcd-{flag}={path}: no such file")
        files[flag] = path
    if (files["certfile"] is None) != (files["keyfile"] is None):
        raise ConfigError("--scale-out-etcd-certfile and --scale-out-etcd-keyfile: give both (a client certificate "
                          "and its key) or neither")
    prefix = settings.scale_out_etcd_prefix or f"/kubeberth/{group}"
    if not prefix.startswith("/"):
        raise ConfigError(f"--scale-out-etcd-prefix={prefix!r}: expected an absolute key prefix, e.g. /kubeberth/{group}")
    options = EtcdOptions(parse_endpoints(settings.scale_out_etcd_endpoints), prefix, **files)
    records = EtcdClaimRecords(options, identity, pool_size=pool_size)
    records.connect()
    return records


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
        settings: Settings | None = None,
    ) -> None:
        settings = settings or Settings()
        if settings.scale_out_store != "etcd" and (settings.scale_out_etcd_endpoints or settings.scale_out_etcd_prefix):
            raise ConfigError("--scale-out-etcd-endpoints/--scale-out-etcd-prefix: only with --scale-out-store=etcd")
        self.identity = identity or default_identity()
        self.scheduler = scheduler
        # Claims are written from binding workers: a connection each. Membership has its own
        # small client with no automatic retries, as leader election does.
        member_raw = RawClient(load_api_client(kubeconfig, pool_size=2, retries=False))
        self.store_name = settings.scale_out_store
        self.records: ClaimRecords
        if self.store_name == "etcd":
            self.watch = LeaseWatch(member_raw, namespace, group)  # membership only
            self.records = etcd_records(settings, group, self.identity, binding_workers + 2)
        else:
            claims_raw = RawClient(load_api_client(kubeconfig, pool_size=binding_workers + 2))
            self.watch = LeaseWatch(claims_raw, namespace, group)
            self.records = LeaseClaimRecords(claims_raw, self.watch)
        self.store = ClaimStore(self.records, self.identity)
        self.scale_out = ScaleOut(self.identity, self.store)
        self.scale_out.attach(scheduler)
        scheduler.scale_out = self.scale_out
        self.records.listeners.append(self._claims_changed)
        self.membership = Membership(
            member_raw, self.watch, self.identity, lease_duration, retry_period,
            on_change=self._members_changed, on_tick=self._tick,
        )

    def _claims_changed(self, node: str, claims: Claims) -> None:
        """From the store's watch thread: a node's claims go to the loop."""
        self.scheduler.submit(partial(self.scale_out.apply_claims, node, node_claims(claims)))

    def _tick(self) -> None:
        """Every membership round (its thread): the raw live set goes to the loop (claims a replica
        without a member Lease made over a lease duration ago stop counting), then expired claims end."""
        if self.watch.synced.is_set():
            alive = frozenset(self.membership.live())
            dead_before = time.time() - self.membership.lease_duration
            self.scheduler.submit(partial(self.scale_out.set_alive, alive, dead_before))
        self.scheduler.submit(self.scale_out.expire)

    def _members_changed(self, members: tuple[str, ...]) -> None:
        self.store.stats.members = len(members)
        self.scheduler.submit(partial(self.scale_out.set_members, members))

    def register_metrics(self, registry: Any) -> None:
        registry.register(self.store.stats)

    def start(self) -> None:
        self.watch.start()
        self.records.start()
        self.membership.start()
        log.info("active-active scale out as %s (group %s/%s, claims in %s)", self.identity, self.watch.namespace,
                 self.watch.group, self.store_name)

    def stop(self) -> None:
        """After the binding pool has finished: leave the group (the others take our pods now)."""
        self.membership.stop(release=True)
        self.records.stop()
        self.watch.stop()
        log.info("scale-out stopped: %s", json.dumps(self.store.stats.snapshot(), sort_keys=True))

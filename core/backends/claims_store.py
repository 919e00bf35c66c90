"""The optimistic commit of active-active scale out, whatever store holds the claims (docs/scale-out.md).

Node N's in-flight claims are one record per node, a JSON map `{pod uid: [replica, requests,
expiry epoch seconds, strict]}`, kept by a `ClaimRecords` store: the Kubernetes API (a Lease per
node, backends/kubernetes/claims.py) or etcd directly (a key per node, backends/etcd_claims.py).
A store only reads its latest copy of a node's record, writes one under a precondition on the copy
it read (a resourceVersion, an etcd mod revision), and tells its listeners of the others' writes.
Everything else is here, once: the capacity check (`_refused`), pruning, the per-node write lock,
the retry loop and the metrics.

`ClaimStore.commit` runs on a binding worker just before Bind: from the store's latest copy it
checks that no other replica holds a live claim the scheduling cycle did not count (`known`), then
writes the record with the pod's claim. A refused precondition re-reads the record and checks
again: only another replica's new claim is a conflict. This replica's own commits to one node take
turns (a lock per node), so they never make each other retry.

A pod whose hard constraints span nodes (a zone spread, a zone anti-affinity) also enters a
*domain record* per topology domain of its node (`domain_record`: `domain:<key>=<value>`, a name no
node can have), under the same precondition and before its node's record: two replicas placing such
pods in one domain at once then take turns at that record, and the later one sees the earlier one's
entry whatever its watch has delivered. An entry stands for its pod only while the others' watches
may still miss the pod's node claim (`DOMAIN_WINDOW_SECONDS`), so a domain record stays small.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from ..cache.podinfo import PodInfo

log = logging.getLogger(__name__)

# uid -> [replica, requests, expiry epoch seconds, strict (0/1)]: one node's claims as stored.
Claims = dict[str, list[Any]]
# (node, its claims now; {} when its record is gone): what a store tells its listeners.
ClaimsListener = Callable[[str, Claims], None]


class CountedClaims(Protocol):
    """Whose claims still count at a commit (the scheduling side's ownership.ClaimFilter)."""

    def counts(self, replica: str, expiry: float) -> bool: ...

# A claim stands for its pod until every replica's pod informer shows it bound, which under load
# can take many seconds: claims are not pruned after the bind, they expire (a failed bind drops its
# claim at once; a departed replica's claims are ignored at once). A record holds at most the pods
# bound to its node within this time.
CLAIM_TTL_SECONDS = 120.0
PRUNE_GRACE_SECONDS = CLAIM_TTL_SECONDS
MAX_WRITE_ATTEMPTS = 6
# A domain record's entry counts, and is kept, this long after it was made: by then the pod's node
# claim (written just after the entry, kept for the claim TTL) has reached every replica's watch.
# At most DOMAIN_MAX_ENTRIES are kept (the newest), which bounds the record's size.
DOMAIN_WINDOW_SECONDS = 30.0
DOMAIN_MAX_ENTRIES = 512
PLACED_KEPT = 10_000  # placements remembered before the ones older than the claim TTL are forgotten
DOMAIN_PREFIX = "domain:"  # a node's name is a DNS subdomain: it has no ':'


def domain_record(key: str, value: str) -> str:
    """The record of the topology domain `key=value` (e.g. a zone) in a ClaimRecords store."""
    return f"{DOMAIN_PREFIX}{key}={value}"


def is_domain_record(name: str) -> bool:
    return name.startswith(DOMAIN_PREFIX)


def decode_claim_map(text: str | bytes | None) -> Claims:
    """A record's claims; a malformed one reads as none (and is rewritten by the next commit)."""
    if not text:
        return {}
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(raw, dict):
        return {}
    return {
        uid: c for uid, c in raw.items()
        if isinstance(c, list) and len(c) in (3, 4) and isinstance(c[0], str) and isinstance(c[1], dict)
        and isinstance(c[2], int | float)
    }


def encode_claim_map(claims: Claims) -> str:
    return orjson.dumps(claims).decode()


def _refused(news: list[tuple[str, list[Any]]], room: dict[str, int], strict: bool, me: str) -> str:
    """Why claims made since the cycle looked refuse the placement ("" when they all fit beside it)."""
    foreign = [(uid, c) for uid, c in news if c[0] != me]
    if foreign and (strict or any(len(c) > 3 and c[3] for _, c in foreign)):
        uid, c = foreign[0]
        return f"claimed meanwhile by replica {c[0]} (pod uid {uid}) and a pod has constraints beyond resources"
    need: dict[str, int] = {"pods": len(news)}
    for _, c in news:
        for name, value in c[1].items():
            if isinstance(value, int):
                need[name] = need.get(name, 0) + value
    for name, value in need.items():
        if value > room.get(name, 0):
            who = sorted({c[0] for _, c in news})
            return f"{name} claimed meanwhile by {', '.join(who)} leaves no room ({value} more, {room.get(name, 0)} left)"
    return ""


@dataclass(frozen=True)
class Record:
    """A store's latest copy of one node's claims. `version` is the store's precondition token
    (the Lease as read, an etcd mod revision); None when the record does not exist."""

    claims: Claims
    version: Any = None


class PreconditionFailed(Exception):  # noqa: N818 - what the store said, not an error of ours
    """The record changed since it was read (a 409, a failed etcd transaction); the store has
    refreshed its copy when it could."""


class StoreError(Exception):
    """A write failed otherwise (unreachable, refused, a server error)."""


class ClaimRecords(Protocol):
    """One node's claims record per node, in some store, and one per topology domain a constrained
    pod entered (`domain_record` names; listeners are never told of those). Reads come from the
    store's watch cache (any thread); writes are made from binding workers under ClaimStore's
    per-record lock."""

    listeners: list[ClaimsListener]

    def read(self, node: str) -> Record:
        """The freshest copy known (the watch's, or this replica's last write's)."""
        ...

    def write(self, node: str, base: Record, claims: Claims) -> None:
        """Replace `node`'s record with `claims` if it is still `base`; else PreconditionFailed
        (after refreshing the copy), or StoreError."""
        ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


METRICS = {
    "commits": ("kubeberth_scale_out_commits_total", "Placements committed against the node's claims."),
    "conflicts": ("kubeberth_scale_out_conflicts_total",
                  "Placements refused at commit: another replica claimed the node meanwhile (the pod is scheduled again)."),
    "retries": ("kubeberth_scale_out_commit_retries_total",
                "Claims writes retried after their precondition failed (a 409 from the API server, a failed etcd "
                "transaction)."),
    "claim_writes": ("kubeberth_scale_out_claim_writes_total",
                     "Claims writes the store accepted (commits, releases, reservations and domain entries); one "
                     "refused by its precondition is counted in kubeberth_scale_out_commit_retries_total."),
    "releases": ("kubeberth_scale_out_claim_releases_total",
                 "Claims dropped after a failed bind, or a preemption's reservation left for another node."),
    "reservations": ("kubeberth_scale_out_reservations_total",
                     "Strict claims written for a preemptor on its node before its victims were deleted."),
    "domain_entries": ("kubeberth_scale_out_domain_entries_total",
                       "Entries written to a topology domain's record by pods whose constraints span nodes."),
    "absorbed": ("kubeberth_scale_out_absorbed_total",
                 "Commits that found claims made since the cycle looked, all fitting beside the pod (no conflict)."),
    "errors": ("kubeberth_scale_out_commit_errors_total",
               "Commits that failed with a store error other than a failed precondition."),
}


class ClaimStats:
    """Counts for metrics and the stop summary (updated from binding workers); a Prometheus
    collector labelled with this replica's identity."""

    def __init__(self, replica: str = "") -> None:
        self.replica = replica
        self._lock = threading.Lock()
        self.counts: dict[str, int] = dict.fromkeys(METRICS, 0)
        self.members = 0

    def collect(self) -> Iterator[Any]:
        """prometheus_client's Collector protocol."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        counts = self.snapshot()
        for key, (name, help_text) in METRICS.items():
            family = CounterMetricFamily(name.removesuffix("_total"), help_text, labels=["replica"])
            family.add_metric([self.replica], counts[key])
            yield family
        gauge = GaugeMetricFamily("kubeberth_scale_out_members", "Live replicas this replica sees.", labels=["replica"])
        gauge.add_metric([self.replica], self.members)
        yield gauge

    def add(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.counts[key] += n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)


def node_claims(claims: Claims) -> dict[str, tuple[str, float]]:
    """uid -> (replica, expiry): what the loop's ClaimsView applies."""
    return {uid: (c[0], float(c[2])) for uid, c in claims.items()}


class ClaimStore:
    """Commits and releases this replica's claims in `records`; implements scheduling's ClaimCommitter."""

    def __init__(
        self,
        records: ClaimRecords,
        identity: str,
        ttl: float = CLAIM_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.records = records
        self.identity = identity
        self.ttl = ttl
        self.clock = clock
        self.stats = ClaimStats(identity)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._finished: dict[str, dict[str, float]] = {}  # node -> our bound pods' uids -> when
        self._reserved: dict[str, str] = {}  # preemptor uid -> the node reserved for it
        self._domains: dict[str, tuple[str, ...]] = {}  # uid of a pod committed, not bound yet -> its domain records
        # uid -> (node, when) of pods committed within the claim TTL: a preemption that reserves a
        # node for a pod placed elsewhere meanwhile (async preemption) leaves no reservation behind.
        self._placed: dict[str, tuple[str, float]] = {}

    def _lock_for(self, node: str) -> threading.Lock:
        with self._locks_lock:
            lock = self._locks.get(node)
            if lock is None:
                lock = self._locks[node] = threading.Lock()
            return lock

    def current(self, node: str) -> dict[str, tuple[str, float]]:
        """The node's claims in the freshest copy known (the watch's, or our last write's)."""
        return node_claims(self.records.read(node).claims)

    # ---- the commit (binding workers) -------------------------------------------------
    def commit(self, pod: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
               counted: CountedClaims, domain: dict[str, frozenset[str]] | None = None,
               domains: dict[str, frozenset[str]] | None = None) -> tuple[str, str]:
        """("ok" | "conflict" | "error", message). `known`: the pods on `node` in the scheduling
        cycle's view; `room`: what was left there after the pod; `strict`: the pod has constraints
        beyond resources; `counted`: whose claims still count (not a departed replica's, nor one a
        replica without a member Lease made before membership was last observed).

        Claims of pods the cycle did not know are the only news. Another replica's is a conflict
        when either pod is strict; otherwise, and for our own commits made since the cycle, the
        placement stands if the room holds them all (Omega's fine-grained check).

        A pod whose constraints span nodes: `domain`, the other nodes of its topology domains, each
        with the pods the cycle knew there (another replica's strict pod in their watched claims is
        a conflict); `domains`, the domain records (`domain_record`) with the pods the cycle knew in
        each domain. The pod enters each domain record first, under its precondition: an entry of
        another replica's pod the cycle did not know is a conflict, whatever the watch delivered."""
        entered: list[str] = []
        with contextlib.ExitStack() as held:
            for record in sorted(domains or ()):  # records, then the node: one lock order
                held.enter_context(self._lock_for(record))
            held.enter_context(self._lock_for(node))
            crossed = self._domain_news(domain, counted) if domain else ""
            if crossed:
                self.stats.add("conflicts")
                return "conflict", f"node {node}: {crossed}; scheduling again on the fresh view"
            for record in sorted(domains or ()):
                outcome, message = self._enter_domain(pod, record, (domains or {})[record], counted)
                if outcome != "ok":
                    break
                entered.append(record)
            else:
                outcome, message = self._commit(pod, node, known, room, strict, counted)
        if outcome != "ok":
            for record in entered:
                self._drop(pod, record)
            return outcome, message
        self._domains[pod.uid] = tuple(entered)
        self._remember_placed(pod.uid, node)  # before the reservation is looked up: see reserve()
        reserved = self._reserved.pop(pod.uid, None)
        if reserved is not None and reserved != node:
            self._drop(pod, reserved)  # a preemption's reservation elsewhere: the room is free again
        return "ok", ""

    def _remember_placed(self, uid: str, node: str) -> None:
        now = self.clock()
        placed = self._placed
        placed[uid] = (node, now)
        if len(placed) > PLACED_KEPT:
            before = now - self.ttl
            for old in [u for u, (_, at) in placed.items() if at < before]:
                placed.pop(old, None)

    def _domain_news(self, domain: dict[str, frozenset[str]], counted: CountedClaims) -> str:
        """Why another replica's constrained pod, claimed since the cycle looked on another node of
        the pod's topology domains, refuses the placement ("" when there is none)."""
        now = self.clock()
        for other, known in domain.items():
            for uid, c in self.records.read(other).claims.items():
                if (c[0] != self.identity and uid not in known and c[2] > now and len(c) > 3 and c[3]
                        and counted.counts(c[0], c[2])):
                    return (f"a constrained pod (uid {uid}) claimed meanwhile by replica {c[0]} on node {other} "
                            "of the pod's topology domain")
        return ""

    def _enter_domain(self, pod: PodInfo, record: str, known: frozenset[str],
                      counted: CountedClaims) -> tuple[str, str]:
        """Add the pod's entry to a domain record unless another replica's pod the cycle did not
        know entered it within the window: the write's precondition makes replicas take turns."""
        for attempt in range(MAX_WRITE_ATTEMPTS):
            if attempt:
                self.stats.add("retries")
            base = self.records.read(record)
            now = self.clock()
            since = now + self.ttl - DOMAIN_WINDOW_SECONDS  # entries made before now - window: expiry below it
            for uid, c in base.claims.items():
                if (c[0] != self.identity and uid not in known and uid != pod.uid and c[2] > since
                        and counted.counts(c[0], c[2])):
                    self.stats.add("conflicts")
                    return "conflict", (f"{record.removeprefix(DOMAIN_PREFIX)}: a constrained pod (uid {uid}) entered "
                                        f"the pod's topology domain meanwhile at replica {c[0]}; scheduling again "
                                        "on the fresh view")
            kept = sorted(((uid, c) for uid, c in base.claims.items()
                           if c[2] > since and uid != pod.uid and (c[0] == self.identity or counted.counts(c[0], c[2]))),
                          key=lambda item: item[1][2])[-(DOMAIN_MAX_ENTRIES - 1):]
            claims = dict(kept)
            claims[pod.uid] = [self.identity, {}, round(now + self.ttl, 3), 1]
            try:
                self.records.write(record, base, claims)
            except PreconditionFailed:
                continue
            except StoreError as exc:
                self.stats.add("errors")
                return "error", f"writing the domain record {record}: {exc}"
            self.stats.add("claim_writes")
            self.stats.add("domain_entries")
            return "ok", ""
        self.stats.add("conflicts")
        return "conflict", f"{record}: entries kept changing over {MAX_WRITE_ATTEMPTS} writes"

    def _commit(self, pod: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
                counted: CountedClaims) -> tuple[str, str]:
        for attempt in range(MAX_WRITE_ATTEMPTS):
            if attempt:
                self.stats.add("retries")
            base = self.records.read(node)
            now = self.clock()
            news = [(uid, c) for uid, c in base.claims.items()
                    if uid not in known and uid != pod.uid and c[2] > now and counted.counts(c[0], c[2])]
            if news:
                why = _refused(news, room, strict, self.identity)
                if why:
                    self.stats.add("conflicts")
                    return "conflict", f"node {node}: {why}; scheduling again on the fresh view"
                self.stats.add("absorbed")
            claims = {uid: c for uid, c in self._pruned(node, base.claims, now).items()
                      if c[0] == self.identity or counted.counts(c[0], c[2])}
            claims[pod.uid] = [self.identity, pod.requests, round(now + self.ttl, 3), int(strict)]
            try:
                self.records.write(node, base, claims)
            except PreconditionFailed:
                continue
            except StoreError as exc:
                self.stats.add("errors")
                return "error", f"writing the claims of node {node}: {exc}"
            self.stats.add("claim_writes")
            self.stats.add("commits")
            return "ok", ""
        self.stats.add("conflicts")
        return "conflict", f"node {node}: claims kept changing over {MAX_WRITE_ATTEMPTS} writes"

    # ---- preemption (the thread deleting the victims) ------------------------------------
    def reserve(self, pod: PodInfo, node: str, known: frozenset[str] = frozenset(),
                counted: CountedClaims | None = None) -> tuple[str, str]:
        """Before a preemptor's victims on `node` are deleted: a strict claim for it there, with
        no capacity check (the victims still hold the room), so no other replica's commit takes
        the room they free until it sees the claim (a strict claim unseen is a conflict). Kept by
        the preemptor's own commit on `node`, dropped when it commits elsewhere or reserves another
        node (a preemptor holds one reservation: the others would block their nodes for the claim
        TTL, and another replica, which assumes the pod on one node, would conflict on the rest),
        else it expires.

        Refused ("conflict") when the node holds a live claim of another replica for a pod outside
        `known` (the claims this replica's view counts on the node): another replica's preemptor
        reserved it, or placed a pod there, since this replica chose its victims. Two replicas
        preempting on one node at once would both delete victims there, and one preemptor would
        then preempt again elsewhere. Returns ("ok" | "conflict" | "error", message); a claim
        already there is kept."""
        before = self._reserved.get(pod.uid)
        outcome, message = self._reserve(pod, node, known, counted)
        if outcome != "ok":
            return outcome, message
        if before is not None and before != node:
            self._drop(pod, before)  # after the new one is written, outside its node's lock
        # The preemptor may have been committed elsewhere meanwhile (its victims here chosen by an
        # earlier cycle): the commit looks up the reservation after recording the placement, this
        # looks up the placement after recording the reservation, so one of them drops it.
        placed = self._placed.get(pod.uid)
        if placed is not None and placed[0] != node:
            self._drop(pod, node)
            self.stats.add("conflicts")
            return "conflict", f"{pod.key} was placed on node {placed[0]} meanwhile; not preempting on node {node}"
        return "ok", ""

    def _reserve(self, pod: PodInfo, node: str, known: frozenset[str],
                 counted: CountedClaims | None) -> tuple[str, str]:
        with self._lock_for(node):
            for _ in range(MAX_WRITE_ATTEMPTS):
                base = self.records.read(node)
                if base.claims.get(pod.uid, [""])[0] == self.identity:
                    self._reserved[pod.uid] = node
                    return "ok", ""
                now = self.clock()
                news = [(uid, c) for uid, c in base.claims.items()
                        if c[0] != self.identity and uid not in known and uid != pod.uid and c[2] > now
                        and (counted is None or counted.counts(c[0], c[2]))]
                if news:
                    uid, c = news[0]
                    self.stats.add("conflicts")
                    return "conflict", (f"node {node} claimed meanwhile by replica {c[0]} (pod uid {uid}"
                                        f"{', a reservation' if len(c) > 3 and c[3] else ''}); not preempting there")
                claims = dict(self._pruned(node, base.claims, now))
                claims[pod.uid] = [self.identity, pod.requests, round(now + self.ttl, 3), 1]
                try:
                    self.records.write(node, base, claims)
                except PreconditionFailed:
                    self.stats.add("retries")
                    continue
                except StoreError as exc:
                    self.stats.add("errors")
                    return "error", f"reserving node {node} for {pod.key}: {exc}"
                self.stats.add("claim_writes")
                self.stats.add("reservations")
                self._reserved[pod.uid] = node
                return "ok", ""
        return "error", f"reserving node {node} for {pod.key}: its claims kept changing over {MAX_WRITE_ATTEMPTS} writes"

    def _pruned(self, node: str, claims: Claims, now: float) -> Claims:
        """Without expired claims and our own finished ones older than the grace period."""
        done = self._finished.get(node) or {}
        old = {uid for uid, at in done.items() if at + PRUNE_GRACE_SECONDS < now}
        for uid in old:
            del done[uid]
        return {uid: c for uid, c in claims.items() if c[2] > now and not (c[0] == self.identity and uid in old)}

    # ---- after Bind (binding workers) -------------------------------------------------
    def finished(self, pod: PodInfo, node: str, bound: bool) -> None:
        """Bound: the claim stays until it is pruned (see PRUNE_GRACE_SECONDS). Not bound: the
        claim is dropped now (best effort; it expires otherwise), as the room is free again."""
        entered = self._domains.pop(pod.uid, ())
        if not bound:
            self._placed.pop(pod.uid, None)
        if bound:
            with self._lock_for(node):
                self._finished.setdefault(node, {})[pod.uid] = self.clock()
            return
        self._drop(pod, node)
        for record in entered:
            self._drop(pod, record)

    def _drop(self, pod: PodInfo, node: str) -> None:
        """Remove our claim for `pod` on `node`, or its entry in a domain record (best effort; it
        expires otherwise)."""
        if self._reserved.get(pod.uid) == node:
            del self._reserved[pod.uid]
        with self._lock_for(node):
            for _ in range(3):
                base = self.records.read(node)
                if base.version is None or base.claims.get(pod.uid, [""])[0] != self.identity:
                    return
                claims = dict(base.claims)
                del claims[pod.uid]
                try:
                    self.records.write(node, base, self._pruned(node, claims, self.clock()))
                except PreconditionFailed:
                    continue
                except StoreError as exc:
                    log.info("dropping the claim of %s on %s: %s", pod.key, node, exc)
                    return
                self.stats.add("claim_writes")
                self.stats.add("releases")
                return

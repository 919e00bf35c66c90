"""Per-node claims Leases and the optimistic commit against them (docs/scale-out.md).

Node N's claims live in the Lease `<group>-claims-<N>` (a hash of N when the name would be too
long), annotation `kubeberth.io/claims`: `{pod uid: [replica, requests, expiry epoch seconds]}`.
`ClaimStore.commit` runs on a binding worker just before Bind: from the LeaseWatch's latest copy
it checks that no other replica holds a live claim the scheduling cycle did not count (`seen`),
then writes the Lease with the pod's claim under a resourceVersion precondition. A 409 re-reads
the Lease and checks again: only another replica's new claim is a conflict. This replica's own
commits to one node take turns (a lock per node), so they never make each other retry.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ...cache.podinfo import PodInfo
from .client import ApiError, RawClient
from .lease_watch import GROUP_LABEL, ROLE_LABEL, LeaseWatch

log = logging.getLogger(__name__)

CLAIMS_ANNOTATION = "kubeberth.io/claims"
NODE_ANNOTATION = "kubeberth.io/node"  # an annotation: a node name can be longer than a label value
# A claim stands for its pod until every replica's pod informer shows it bound, which under load
# can take many seconds: claims are not pruned after the bind, they expire (a failed bind drops its
# claim at once; a departed replica's claims are ignored at once). The Lease holds at most the pods
# bound to its node within this time.
CLAIM_TTL_SECONDS = 120.0
PRUNE_GRACE_SECONDS = CLAIM_TTL_SECONDS
MAX_WRITE_ATTEMPTS = 6
MAX_NAME = 253


def claims_lease_name(group: str, node: str) -> str:
    name = f"{group}-claims-{node}"
    if len(name) <= MAX_NAME:
        return name
    return f"{group}-claims-{hashlib.sha256(node.encode()).hexdigest()[:32]}"


def decode_claims(obj: dict[str, Any] | None) -> dict[str, list[Any]]:
    """A claims Lease's claims; a malformed annotation reads as none (and is rewritten)."""
    if not obj:
        return {}
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(CLAIMS_ANNOTATION)
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


def node_of(obj: dict[str, Any]) -> str:
    return str(((obj.get("metadata") or {}).get("annotations") or {}).get(NODE_ANNOTATION) or "")


METRICS = {
    "commits": ("kubeberth_scale_out_commits_total", "Placements committed against the node's claims."),
    "conflicts": ("kubeberth_scale_out_conflicts_total",
                  "Placements refused at commit: another replica claimed the node meanwhile (the pod is scheduled again)."),
    "retries": ("kubeberth_scale_out_commit_retries_total",
                "Claims writes retried after a 409 (resourceVersion precondition failed)."),
    "claim_writes": ("kubeberth_scale_out_claim_writes_total",
                     "Writes to claims Leases the API server accepted (commits and releases); one refused with "
                     "a 409 is counted in kubeberth_scale_out_commit_retries_total."),
    "releases": ("kubeberth_scale_out_claim_releases_total", "Claims dropped after a failed bind."),
    "absorbed": ("kubeberth_scale_out_absorbed_total",
                 "Commits that found claims made since the cycle looked, all fitting beside the pod (no conflict)."),
    "errors": ("kubeberth_scale_out_commit_errors_total", "Commits that failed with an API error other than 404/409."),
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


class ClaimStore:
    """Commits and releases this replica's claims; implements scheduling's ClaimCommitter."""

    def __init__(
        self,
        raw: RawClient,
        watch: LeaseWatch,
        identity: str,
        ttl: float = CLAIM_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.raw = raw
        self.watch = watch
        self.identity = identity
        self.ttl = ttl
        self.clock = clock
        self.stats = ClaimStats(identity)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._finished: dict[str, dict[str, float]] = {}  # node -> our bound pods' uids -> when

    def _lock_for(self, node: str) -> threading.Lock:
        with self._locks_lock:
            lock = self._locks.get(node)
            if lock is None:
                lock = self._locks[node] = threading.Lock()
            return lock

    def node_claims(self, obj: dict[str, Any]) -> dict[str, tuple[str, float]]:
        """uid -> (replica, expiry) of a claims Lease (what the loop's ClaimsView applies)."""
        return {uid: (c[0], float(c[2])) for uid, c in decode_claims(obj).items()}

    def current(self, node: str) -> dict[str, tuple[str, float]]:
        """The node's claims in the freshest copy known (the watch's, or our last write's)."""
        obj = self.watch.get(claims_lease_name(self.watch.group, node))
        return self.node_claims(obj) if obj is not None else {}

    # ---- the commit (binding workers) -------------------------------------------------
    def commit(self, pod: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
               departed: frozenset[str]) -> tuple[str, str]:
        """("ok" | "conflict" | "error", message). `known`: the pods on `node` in the scheduling
        cycle's view; `room`: what was left there after the pod; `strict`: the pod has constraints
        beyond resources; `departed`: replicas that left the group (their claims ended with them).

        Claims of pods the cycle did not know are the only news. Another replica's is a conflict
        when either pod is strict; otherwise, and for our own commits made since the cycle, the
        placement stands if the room holds them all (Omega's fine-grained conflict check)."""
        with self._lock_for(node):
            return self._commit(pod, node, known, room, strict, departed)

    def _commit(self, pod: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
                departed: frozenset[str]) -> tuple[str, str]:
        name = claims_lease_name(self.watch.group, node)
        for attempt in range(MAX_WRITE_ATTEMPTS):
            if attempt:
                self.stats.add("retries")
            obj = self.watch.get(name)
            now = self.clock()
            claims = decode_claims(obj)
            news = [(uid, c) for uid, c in claims.items()
                    if uid not in known and uid != pod.uid and c[2] > now and c[0] not in departed]
            if news:
                why = _refused(news, room, strict, self.identity)
                if why:
                    self.stats.add("conflicts")
                    return "conflict", f"node {node}: {why}; scheduling again on the fresh view"
                self.stats.add("absorbed")
            claims = {uid: c for uid, c in self._pruned(node, claims, now).items() if c[0] not in departed}
            claims[pod.uid] = [self.identity, pod.requests, round(now + self.ttl, 3), int(strict)]
            try:
                self._write(name, node, obj, claims)
            except ApiError as exc:
                if exc.status in (404, 409):
                    self._refresh(name)
                    continue
                self.stats.add("errors")
                return "error", f"writing the claims of node {node}: {exc}"
            self.stats.add("commits")
            return "ok", ""
        self.stats.add("conflicts")
        return "conflict", f"node {node}: claims kept changing over {MAX_WRITE_ATTEMPTS} writes"

    def _pruned(self, node: str, claims: dict[str, list[Any]], now: float) -> dict[str, list[Any]]:
        """Without expired claims and our own finished ones older than the grace period."""
        done = self._finished.get(node) or {}
        old = {uid for uid, at in done.items() if at + PRUNE_GRACE_SECONDS < now}
        for uid in old:
            del done[uid]
        return {uid: c for uid, c in claims.items() if c[2] > now and not (c[0] == self.identity and uid in old)}

    def _write(self, name: str, node: str, obj: dict[str, Any] | None, claims: dict[str, list[Any]]) -> None:
        meta: dict[str, Any] = {
            "name": name, "namespace": self.watch.namespace,
            "labels": {GROUP_LABEL: self.watch.group, ROLE_LABEL: "claims"},
            "annotations": {CLAIMS_ANNOTATION: orjson.dumps(claims).decode(), NODE_ANNOTATION: node},
        }
        body: dict[str, Any] = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta, "spec": {}}
        if obj is None:
            written = self.raw.request("POST", self.watch.path, body=body, timeout=10)
        else:
            meta["resourceVersion"] = (obj.get("metadata") or {}).get("resourceVersion")
            written = self.raw.request("PUT", f"{self.watch.path}/{name}", body=body, timeout=10)
        self.stats.add("claim_writes")
        if isinstance(written, dict):
            self.watch.put(written)

    def _refresh(self, name: str) -> None:
        try:
            fresh = self.raw.request("GET", f"{self.watch.path}/{name}", timeout=10)
        except ApiError as exc:
            if exc.status == 404:
                self.watch.forget(name)
            return
        if isinstance(fresh, dict):
            self.watch.put(fresh)

    # ---- after Bind (binding workers) -------------------------------------------------
    def finished(self, pod: PodInfo, node: str, bound: bool) -> None:
        """Bound: the claim stays until it is pruned (see PRUNE_GRACE_SECONDS). Not bound: the
        claim is dropped now (best effort; it expires otherwise), as the room is free again."""
        if bound:
            with self._lock_for(node):
                self._finished.setdefault(node, {})[pod.uid] = self.clock()
            return
        name = claims_lease_name(self.watch.group, node)
        with self._lock_for(node):
            for _ in range(3):
                obj = self.watch.get(name)
                claims = decode_claims(obj)
                if obj is None or claims.get(pod.uid, [""])[0] != self.identity:
                    return
                del claims[pod.uid]
                try:
                    self._write(name, node, obj, self._pruned(node, claims, self.clock()))
                    self.stats.add("releases")
                    return
                except ApiError as exc:
                    if exc.status not in (404, 409):
                        log.info("dropping the claim of %s on %s: %s", pod.key, node, exc)
                        return
                    self._refresh(name)

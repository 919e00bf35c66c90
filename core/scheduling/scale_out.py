"""Active-active scale out on the scheduling loop's side (docs/scale-out.md).

`Scheduler.scale_out` is None in the default (leader) mode: the loop's hooks are one attribute
test each. When set, it is this object, which ties the parts to the loop:
- ownership (`Ownership`): a pending pod enters this replica's queue only if it owns it
  (EventHandlers._apply_pod_event); a new live set rebalances the queue;
- other replicas' claims (`ClaimsView`) in the node table, applied on the loop thread;
- the commit: the scheduling cycle records the claims it counted on its node
  (ScheduleOne._assume_reserve_permit), and of the other nodes of its topology domains for a pod
  whose constraints span nodes; the binding cycle commits first (BindingCycle._binding_cycle) through a `ClaimCommitter` (backends/claims_store.py's ClaimStore,
  over a Lease per node or an etcd key per node: the loop does not know which), and a conflict
  re-runs the pod's cycle at once, up to MAX_IMMEDIATE_RETRIES, then after its backoff.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..api.status import Status
from ..backends.claims_store import domain_record
from ..cache.podinfo import PodInfo
from .claims_view import ClaimsView, NodeClaims
from .ownership import ClaimFilter, Ownership
from .queue import QueuedPod

if TYPE_CHECKING:
    from .state import SchedulerState

log = logging.getLogger(__name__)

MAX_IMMEDIATE_RETRIES = 3
SEEN_KEY = "scale_out_seen"  # QueuedPod.extra: the claims the cycle counted on its node
CONFLICTS_KEY = "scale_out_conflicts"
PLUGIN = "ScaleOutCommit"  # names the commit in a binding's status (explain, traces)


def strict(pod: PodInfo) -> bool:
    """The pod has placement constraints that involve other pods or objects beyond resources
    (inter-pod affinity, topology spread, host ports, volumes, a gang, device claims): a claim made
    meanwhile on its node by another replica is then a conflict even when the room suffices."""
    spec = pod.raw.get("spec") or {}
    return bool(
        pod.affinity.get("podAffinity") or pod.affinity.get("podAntiAffinity") or pod.topology_spread_constraints
        or pod.host_ports or pod.pvc_names or pod.pod_group or (isinstance(spec, dict) and spec.get("resourceClaims"))
    )


HOSTNAME = "kubernetes.io/hostname"


def domain_keys(pod: PodInfo) -> frozenset[str]:
    """The topology keys wider than a node of the pod's hard constraints on other pods (a DoNotSchedule
    spread constraint, a required pod affinity or anti-affinity term): another replica's constrained pod
    placed meanwhile anywhere in the chosen node's domain of one of them may break it (docs/scale-out.md)."""
    keys = {c.get("topologyKey") for c in pod.topology_spread_constraints
            if c.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule"}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = (pod.affinity.get(kind) or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        keys.update(t.get("topologyKey") for t in terms if isinstance(t, dict))
    return frozenset(k for k in keys if isinstance(k, str) and k and k != HOSTNAME)


@dataclass(frozen=True)
class CycleView:
    """A scheduling cycle's knowledge of its node, checked by the commit (docs/scale-out.md), and of
    the other nodes of its topology domains (`domain`: node -> the uids known there) and of the
    domains themselves (`domains`: domain record -> the uids known anywhere in it) for a pod whose
    constraints span nodes."""

    known: frozenset[str]  # uids on the node in this replica's view (bound, assumed, counted claims)
    room: dict[str, int]  # allocatable - requested after the pod, per resource column
    strict: bool
    domain: dict[str, frozenset[str]] = field(default_factory=dict)
    domains: dict[str, frozenset[str]] = field(default_factory=dict)


# A binding with no recorded cycle view (none is expected): any claim made meanwhile conflicts.
UNKNOWN_VIEW = CycleView(frozenset(), {}, True)


class CommitConflict(Exception):
    """The node's claims changed under the cycle: its placement was not committed."""


class ClaimCommitter(Protocol):
    """The shared store of in-flight claims (backends/claims_store.py's ClaimStore, whichever
    ClaimRecords store it writes to). `ttl`: how long after it is made a claim expires."""

    ttl: float

    def commit(self, pod: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
               counted: ClaimFilter, domain: dict[str, frozenset[str]] | None = None,
               domains: dict[str, frozenset[str]] | None = None) -> tuple[str, str]: ...

    def current(self, node: str) -> NodeClaims:
        """The node's claims as the store knows them now."""
        ...

    def finished(self, pod: PodInfo, node: str, bound: bool) -> None: ...

    def reserve(self, pod: PodInfo, node: str, known: frozenset[str], counted: ClaimFilter) -> tuple[str, str]:
        """A strict claim for a preemptor on `node`, before its victims are deleted; refused when
        the node holds another replica's live claim outside `known`."""
        ...


class ScaleOut:
    """This replica's part in a group of active replicas."""

    def __init__(self, me: str, committer: ClaimCommitter, clock: Callable[[], float] = time.time) -> None:
        self.me = me
        self.committer = committer
        self.clock = clock
        self.ownership = Ownership(me, committer.ttl)
        self._sched: SchedulerState | None = None
        self._view: ClaimsView | None = None
        # uid -> when: pods deleted (or finished) here within the claim TTL. Their claims stay in
        # the store until they expire, but take no room: a commit must not count them as news.
        self._gone: dict[str, float] = {}

    def attach(self, sched: SchedulerState) -> None:
        """Bind to the loop (after Scheduler.__init__: the view works on its cluster)."""
        self._sched = sched
        self._view = ClaimsView(self.me, sched.cluster)

    @property
    def view(self) -> ClaimsView:
        assert self._view is not None, "ScaleOut.attach first"
        return self._view

    @property
    def sched(self) -> SchedulerState:
        assert self._sched is not None, "ScaleOut.attach first"
        return self._sched

    # ---- the loop thread ----------------------------------------------------------------
    def owns(self, pod: PodInfo) -> bool:
        """Schedule `pod` here: this replica owns it and no other replica has it in flight."""
        return self.ownership.owns(pod) and not self.view.claimed_elsewhere(pod.uid)

    def set_members(self, members: tuple[str, ...]) -> None:
        """A new live set: claims of replicas that left end (their pods are pending again), then
        the queue is rebalanced."""
        before = self.ownership.departed
        if not self.ownership.set_members(members):
            return
        refilter = bool(self.ownership.departed - before)
        for node, pod in self.view.set_filter(self.ownership.claims, self.clock(), refilter):
            self._freed([pod], node)
        self.rebalance()

    def set_alive(self, alive: frozenset[str], dead_before: float) -> None:
        """A membership round's raw observation (the replicas holding an unexpired member Lease):
        claims a replica outside it made before `dead_before` stop counting."""
        changed = self.ownership.set_alive(alive, dead_before)
        refilter = changed or self.view.counts_any_but(self.ownership.claims.alive or frozenset())
        for node, pod in self.view.set_filter(self.ownership.claims, self.clock(), refilter):
            self._freed([pod], node)

    def rebalance(self) -> None:
        """Queued pods this replica no longer owns leave its queue; pending pods it now owns join."""
        sched = self.sched
        queue, cluster = sched.queue, sched.cluster
        dropped = added = 0
        for uid, entry in list(queue.entries.items()):
            if entry.where != "inflight" and not self.owns(entry.pod):
                queue.delete(uid)
                dropped += 1
        for pod in list(cluster.pods.values()):
            if self._adopt(pod):
                added += 1
        log.info("scale-out: members %s; %d pods left this replica's queue, %d joined",
                 ", ".join(self.ownership.members) or "(none)", dropped, added)

    def _adopt(self, pod: PodInfo) -> bool:
        """Queue a pending pod this replica owns and does not hold yet."""
        sched = self.sched
        uid = pod.uid
        if (pod.node_name or pod.is_terminal or pod.deleting or uid in sched.cluster.placement
                or uid in sched.queue.entries or uid in sched.failed or sched.framework_for(pod) is None):
            return False
        if not self.owns(pod):
            return False
        sched.queue.add(pod)
        return True

    def apply_claims(self, node: str, claims: NodeClaims) -> None:
        """A claims Lease changed (from the LeaseWatch, through Scheduler.submit)."""
        counted, freed = self.view.apply(node, claims, self.clock())
        queue = self.sched.queue
        for pod in counted:
            entry = queue.entries.get(pod.uid)
            if entry is not None and entry.where != "inflight":
                queue.delete(pod.uid)  # in flight at another replica (ownership moved)
        self._freed(freed, node)

    def gone(self, uid: str) -> None:
        """A pod was deleted, or finished (the loop's pod events)."""
        self._gone[uid] = self.clock()

    def expire(self) -> None:
        """Claims past their expiry end (called every membership round)."""
        if self._gone:
            before = self.clock() - self.committer.ttl
            self._gone = {uid: at for uid, at in self._gone.items() if at > before}
        for pod in self.view.expire(self.clock()):
            self._freed([pod], "")

    def _freed(self, pods: list[PodInfo], node: str) -> None:
        sched = self.sched
        for pod in pods:
            if node:
                gone = copy.copy(pod)
                gone.node_name = node
                sched.queue.move_for_event("Pod/Delete", sched._interested, old=gone)
            self._adopt(pod)

    def seen_on(self, node: str) -> frozenset[str]:
        return self.view.seen_on(node)

    def cycle_view(self, pod: PodInfo, node: str) -> CycleView:
        """What the scheduling cycle knew of `node` when it placed `pod` there (the pod assumed):
        every pod on it (bound, ours in flight, other replicas' counted claims), and the pods whose
        claims the node's record still holds but which are gone here (deleted or finished, e.g. a
        preemption's victims: their claims last until they expire and must not count as news),
        and the room left; for a pod whose constraints span nodes, the same of every other node of
        the chosen node's topology domains."""
        cluster = self.sched.cluster
        row = cluster.table.row_of[node]
        table = cluster.table
        free = table.allocatable[row] - table.requested[row]
        room = {name: int(free[i]) for i, name in enumerate(table.resources)}
        is_strict = strict(pod)
        known = self._known_on(node)
        keys = domain_keys(pod) if is_strict else frozenset()
        if not keys:
            return CycleView(known, room, is_strict)
        spans = self._domains_of(row, keys)
        domain = {other: self._known_on(other) for nodes in spans.values() for other in nodes}
        domains = {record: self._known_in(record, [known, *(domain[other] for other in nodes)])
                   for record, nodes in spans.items()}
        return CycleView(known, room, is_strict, domain, domains)

    def _known_on(self, node: str) -> frozenset[str]:
        """The uids on `node` in this replica's view, and those whose claims its record still holds
        but which are gone here (they take no room and are no news)."""
        cluster = self.sched.cluster
        return self._with_gone(node, frozenset(cluster.pods_on.get(cluster.table.row_of[node], ())))

    def _known_in(self, record: str, known: list[frozenset[str]]) -> frozenset[str]:
        """The uids a domain record's entries may name that this view knows: the pods on the
        domain's nodes, and those gone here (their entries stay until the window ends)."""
        return self._with_gone(record, frozenset().union(*known))

    def _with_gone(self, record: str, known: frozenset[str]) -> frozenset[str]:
        """`known` and the uids a record (a node's claims, a domain's entries) still names that are
        gone here (deleted or finished: their claims take no room and are no news)."""
        gone = self._gone
        if not gone:
            return known
        ended = [uid for uid in self.committer.current(record) if uid in gone]
        return known.union(ended) if ended else known

    def _domains_of(self, row: int, keys: frozenset[str]) -> dict[str, set[str]]:
        """Per domain record (one per key of `keys` the node at `row` has): the domain's other nodes."""
        table = self.sched.cluster.table
        out: dict[str, set[str]] = {}
        for key in keys:
            ids, values = table.label_values(key)
            if ids[row] < 0:
                continue
            nodes = {table.names[r] or "" for r in np.flatnonzero(ids == ids[row]).tolist() if r != row}
            nodes.discard("")
            out[domain_record(key, values[ids[row]])] = nodes
        return out

    def requeue_conflict(self, entry: QueuedPod, message: str) -> None:
        """A conflict: at once on the fresh view (the loop has drained the claims since), up to
        MAX_IMMEDIATE_RETRIES in a row, then after the pod's backoff. No API write."""
        queue = self.sched.queue
        if queue.entries.get(entry.pod.uid) is not entry:
            return
        if not self.owns(entry.pod):
            queue.delete(entry.pod.uid)
            return
        n = entry.extra[CONFLICTS_KEY] = entry.extra.get(CONFLICTS_KEY, 0) + 1
        queue.requeue_error(entry, message)
        if n <= MAX_IMMEDIATE_RETRIES:
            queue.activate([entry.pod.uid])

    # ---- binding workers ----------------------------------------------------------------
    def commit(self, pod: PodInfo, node: str, view: CycleView) -> Status:
        ownership = self.ownership  # its sets are replaced whole on the loop thread
        if self.me not in ownership.members:
            message = "this replica is not a live member (its member Lease is not renewed); not committing"
            return Status.error(message, PLUGIN, CommitConflict(message))
        outcome, message = self.committer.commit(pod, node, view.known, view.room, view.strict, ownership.claims,
                                                 view.domain or None, view.domains or None)
        if outcome == "ok":
            return Status.success()
        if outcome == "conflict":
            # The claims that conflicted reach the loop before this binding's outcome does, so the
            # cycle re-runs on them even if the watch has not delivered them yet.
            for looked in (node, *view.domain):
                self.sched.submit(partial(self.apply_claims, looked, self.committer.current(looked)))
            return Status.error(message, PLUGIN, CommitConflict(message))
        return Status.error(message, PLUGIN)

    def finished(self, pod: PodInfo, node: str, bound: bool) -> None:
        self.committer.finished(pod, node, bound)

    def reserve(self, pod: PodInfo, node: str) -> str:
        """Before a preemptor's victims on `node` are deleted (the thread deleting them): the room
        they free is claimed for it, so another replica does not fill it meanwhile. Returns why
        the preemption must not go on ("" when it may): the node holds a claim of another replica
        this replica's view does not count (its preemptor reserved the node, or it placed a pod
        there, since the victims were chosen), or one for a pod still in flight there; the
        preemptor is then scheduled again, on a view that counts it. A store error is logged and the preemption goes on (as a single
        scheduler's would)."""
        ownership = self.ownership
        if self.me not in ownership.members:
            return ""
        seen = self.view.seen_on(node)  # replaced whole on the loop thread
        # Another replica's pod still in flight on the node (its preemptor's reservation, a
        # placement not bound yet) refuses it too, known or not: that replica may be deleting
        # victims there which this view still shows, and would pick the same ones. One replica
        # preempts on a node at a time.
        assumed = self.sched.cluster.assumed
        known = self._with_gone(node, frozenset(uid for uid in seen if uid not in assumed))
        outcome, message = self.committer.reserve(pod, node, known, ownership.claims)
        if outcome == "conflict":
            # As after a commit's conflict: the loop counts the claim before the preemptor's next try.
            self.sched.submit(partial(self.apply_claims, node, self.committer.current(node)))
            return message
        if outcome != "ok":
            log.warning("scale-out: %s; deleting the victims without it", message)
        return ""

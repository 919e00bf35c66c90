"""Other replicas' in-flight claims in this replica's node table (active-active scale out).

A claim of another replica for a pod this replica knows is put in the node table exactly as an
assumed pod (`ClusterState.assume`): its resources, labels and pod count are on the node for every
plugin, until the pod's bound echo confirms it (EventHandlers._confirm_assumed, as for our own
binding) or the claim ends (expired, dropped), when the pod is forgotten and is pending again.

`seen_on(node)` is the set of other replicas' claims the node table accounts for now (counted, or
already bound); a scheduling cycle records it for its node, and the commit refuses a placement when
the node's claims then hold another replica's live claim outside it (docs/scale-out.md). A claim
for a pod not known here is not counted and so never in the set: a commit there is a conflict
until the pod arrives, safe rather than blind. Loop thread only.
"""

from __future__ import annotations

from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from .ownership import ClaimFilter

# uid -> (replica, expiry in epoch seconds): one node's claims, as the claims store decodes them.
NodeClaims = dict[str, tuple[str, float]]

# A claim that disappears (pruned after its bind, expired) while its pod is still pending here stays
# counted this long: this replica's pod informer may lag its Lease watch, and the pod may be bound
# already. Its bound echo, its deletion or its replica leaving the group end it sooner.
LINGER_SECONDS = 60.0


class ClaimsView:
    """Which foreign claims are counted in the cluster's node table, per node."""

    def __init__(self, me: str, cluster: ClusterState) -> None:
        self.me = me
        self.cluster = cluster
        self.claims: dict[str, NodeClaims] = {}  # node -> its claims as last applied (all of them)
        # Whose claims count: not those of replicas seen live and then gone, nor those a replica
        # without a member Lease made before membership was last observed (ownership.ClaimFilter).
        self.filter = ClaimFilter()
        self.counted: dict[str, str] = {}  # uid -> node: foreign claims assumed in the cluster here
        self._on_node: dict[str, set[str]] = {}  # node -> the uids counted there
        self._replica: dict[str, str] = {}  # uid -> the replica whose claim is counted
        self._expiry: dict[str, float] = {}  # uid -> that claim's expiry
        self._linger: dict[str, float] = {}  # uid -> until when a vanished claim stays counted
        self._seen: dict[str, frozenset[str]] = {}

    def seen_on(self, node: str) -> frozenset[str]:
        return self._seen.get(node, frozenset())

    def claimed_elsewhere(self, uid: str) -> bool:
        """Another replica holds a live claim for this pod (it is in flight there)."""
        return uid in self.counted

    def apply(self, node: str, claims: NodeClaims, now: float) -> tuple[list[PodInfo], list[PodInfo]]:
        """Adopt `node`'s claims. Returns (pods newly counted as another replica's, pods whose
        foreign claim ended and which are pending again)."""
        cluster = self.cluster
        if claims:
            self.claims[node] = claims
        else:
            self.claims.pop(node, None)
        counts = self.filter.counts
        live = {uid: c for uid, c in claims.items() if c[0] != self.me and c[1] > now and counts(c[0], c[1])}
        seen: set[str] = set()
        counted: list[PodInfo] = []
        freed: list[PodInfo] = []
        for uid in live:
            where = self.counted.get(uid)
            if where == node and uid in cluster.pods:
                seen.add(uid)
                self._linger.pop(uid, None)
                continue
            pod = cluster.pods.get(uid)
            if where is not None:  # counted on another node before: the claim moved
                self._uncount(uid)
                if pod is not None and uid in cluster.assumed:
                    cluster.forget(pod)
            if pod is None or node not in cluster.table.row_of:
                continue  # unknown here: not counted, so a commit on this node conflicts (safe)
            if uid in cluster.placement:
                if uid not in cluster.assumed:
                    seen.add(uid)  # bound, and counted as the bound pod it is
                continue  # our own binding of it is in flight: not counted, not seen
            cluster.assume(pod, node)
            self.counted[uid] = node
            self._replica[uid], self._expiry[uid] = live[uid]
            self._on_node.setdefault(node, set()).add(uid)
            seen.add(uid)
            counted.append(pod)
        for uid in [u for u in self._on_node.get(node, ()) if u not in live]:
            pod = cluster.pods.get(uid)
            pending = pod is not None and uid in cluster.assumed
            if pending and self.filter.counts(self._replica.get(uid, ""), self._expiry.get(uid, 0.0)):
                self._linger.setdefault(uid, now + LINGER_SECONDS)  # maybe bound, not shown yet
                seen.add(uid)
                continue
            self._uncount(uid)
            if pending and pod is not None:
                cluster.forget(pod)
                freed.append(pod)
        self._seen[node] = frozenset(seen)
        return counted, freed

    def counts_any_but(self, replicas: frozenset[str]) -> bool:
        """Whether a claim of a replica outside `replicas` is counted here (or lingers)."""
        return any(r not in replicas for r in self._replica.values())

    def set_filter(self, claim_filter: ClaimFilter, now: float, refilter: bool) -> list[tuple[str, PodInfo]]:
        """Whose claims count changed (`refilter`: some stop counting). Returns (node, pod) of the
        pods pending again."""
        self.filter = claim_filter
        freed: list[tuple[str, PodInfo]] = []
        if refilter:
            for node in list(self._on_node):
                freed += [(node, pod) for pod in self.apply(node, self.claims.get(node, {}), now)[1]]
        return freed

    def expire(self, now: float) -> list[PodInfo]:
        """Drop claims past their expiry (their writer would have pruned them); returns the pods
        pending again."""
        freed: list[PodInfo] = []
        for node, claims in list(self.claims.items()):
            if any(c[1] <= now for c in claims.values()):
                freed += self.apply(node, claims, now)[1]
        cluster = self.cluster
        for uid, until in list(self._linger.items()):
            if until <= now:
                self._uncount(uid)
                pod = cluster.pods.get(uid)
                if pod is not None and uid in cluster.assumed:
                    cluster.forget(pod)
                    freed.append(pod)
        return freed

    def _uncount(self, uid: str) -> None:
        self._replica.pop(uid, None)
        self._expiry.pop(uid, None)
        self._linger.pop(uid, None)
        node = self.counted.pop(uid, None)
        if node is not None:
            on_node = self._on_node.get(node)
            if on_node is not None:
                on_node.discard(uid)
                if not on_node:
                    del self._on_node[node]

"""Active-active scale out, the loop's side (docs/scale-out.md): ownership by rendezvous hashing,
other replicas' claims in the node table, the commit hook in the binding cycle and its conflict
path. The store is a real ClaimCommitter kept in memory with the same compare-and-swap rule as the
Kubernetes ClaimStore (which tests/e2e/test_scale_out_e2e.py runs against a real API server)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.ownership import ClaimFilter, Ownership, ownership_key
from kubeberth.scheduling.scale_out import ScaleOut
from kubeberth.scheduling.scheduler import Scheduler


def pod(name: str, cpu: str = "1", group: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": "kubeberth",
                            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "1Mi"}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": spec}


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    res = {"cpu": cpu, "memory": "64Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": res, "allocatable": res}}


class MemoryClaims:
    """An in-memory claims store: per node a version and {uid: (replica, expiry)}; commit is the
    same rule as ClaimStore's (a live claim of another replica outside `seen` is a conflict)."""

    ttl = 120.0

    def __init__(self, me: str, shared: dict[str, dict[str, tuple[str, float]]]) -> None:
        self.me = me
        self.shared = shared
        self.log: list[tuple[str, str, str]] = []

    def commit(self, p: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
               counted: ClaimFilter) -> tuple[str, str]:
        claims = self.shared.setdefault(node, {})
        for uid, (replica, exp) in claims.items():  # the coarse rule: any news is a conflict
            if replica != self.me and uid not in known and uid != p.uid and counted.counts(replica, exp):
                self.log.append(("conflict", p.uid, node))
                return "conflict", f"node {node} claimed by {replica}"
        claims[p.uid] = (self.me, 1e18)
        self.log.append(("ok", p.uid, node))
        return "ok", ""

    def finished(self, p: PodInfo, node: str, bound: bool) -> None:
        if not bound:
            self.shared.get(node, {}).pop(p.uid, None)

    def reserve(self, p: PodInfo, node: str) -> tuple[str, str]:
        self.shared.setdefault(node, {})[p.uid] = (self.me, 1e18)
        self.log.append(("reserve", p.uid, node))
        return "ok", ""

    def current(self, node: str) -> dict[str, tuple[str, float]]:
        return dict(self.shared.get(node, {}))


def test_rendezvous_ownership_is_shared_and_moves_little() -> None:
    members = ["a", "b", "c"]
    views = {m: Ownership(m) for m in members}
    for o in views.values():
        o.set_members(members)
    pods = [PodInfo.from_dict(pod(f"p{i}")) for i in range(600)]
    owners = [[m for m, o in views.items() if o.owns(p)] for p in pods]
    assert all(len(o) == 1 for o in owners)  # exactly one owner each
    counts = Counter(o[0] for o in owners)
    assert min(counts.values()) > 120  # roughly a third each
    before = {p.uid: views["a"].owner_of(p.uid) for p in pods}
    views["a"].set_members(["a", "b"])  # c leaves: only c's pods move
    moved = [p for p in pods if views["a"].owner_of(p.uid) != before[p.uid]]
    assert {before[p.uid] for p in moved} == {"c"}
    assert views["a"].departed == frozenset({"c"})


def test_a_gang_has_one_owner() -> None:
    o = Ownership("a")
    o.set_members(["a", "b", "c", "d"])
    members = [PodInfo.from_dict(pod(f"g{i}", group="train")) for i in range(20)]
    assert {ownership_key(p) for p in members} == {"default/train"}
    assert len({o.owner_of(ownership_key(p)) for p in members}) == 1


def test_not_live_owns_nothing() -> None:
    o = Ownership("a")
    p = PodInfo.from_dict(pod("x"))
    assert not o.owns(p)  # before membership is observed
    o.set_members(["b"])
    assert not o.owns(p)
    o.set_members(["a"])
    assert o.owns(p)


def replica(me: str, shared: dict[str, Any], cluster: EmbeddedCluster, members: list[str]) -> tuple[Scheduler, ScaleOut]:
    sched = Scheduler(build_generation(), cluster, seed=1, binding_workers=1)
    so = ScaleOut(me, MemoryClaims(me, shared))
    so.attach(sched)
    sched.scale_out = so
    so.set_members(tuple(members))
    return sched, so


def test_two_replicas_share_pods_and_never_fill_the_same_room() -> None:
    """Two loops over one embedded cluster (the binds are the API's, refusing a bound pod), each
    owning half the pods: every claim either replica sees is counted, nothing is overcommitted."""
    cluster = EmbeddedCluster()
    for i in range(3):
        cluster.apply(node(f"n{i}"))
    for i in range(12):
        cluster.apply(pod(f"p{i}"))
    shared: dict[str, dict[str, tuple[str, float]]] = {}
    a, so_a = replica("a", shared, cluster, ["a", "b"])
    b, so_b = replica("b", shared, cluster, ["a", "b"])
    cluster.start(lambda ev: (a.submit(ev), b.submit(ev)))  # one API server, two watchers
    try:
        a.drain_events()
        b.drain_events()
        assert len(a.queue.entries) + len(b.queue.entries) == 12
        assert not set(a.queue.entries) & set(b.queue.entries)
        for _ in range(20):
            a.run_until_settled(timeout=10)
            for n, claims in shared.items():  # what the claims watch would deliver
                b.submit(lambda n=n, c=dict(claims): so_b.apply_claims(n, c))
            b.run_until_settled(timeout=10)
            for n, claims in shared.items():
                a.submit(lambda n=n, c=dict(claims): so_a.apply_claims(n, c))
            if a.stats.scheduled + b.stats.scheduled == 12:
                break
        bound = [p for p in cluster.pods() if p["spec"].get("nodeName")]
        per_node = Counter(p["spec"]["nodeName"] for p in bound)
        assert len(bound) == 12 and max(per_node.values()) <= 4
    finally:
        a.shutdown()
        b.shutdown()


def test_a_conflict_reruns_the_cycle_without_writing() -> None:
    """A claim another replica made after the cycle looked is a conflict: the pod is forgotten and
    scheduled again at once on the fresh view, with no event or status write."""
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    cluster.apply(node("n1", cpu="1"))
    cluster.apply(pod("mine"))
    cluster.apply(pod("theirs"))
    shared: dict[str, dict[str, tuple[str, float]]] = {}
    sched, so = replica("a", shared, cluster, ["a"])
    sched.start_backend()
    try:
        sched.drain_events()
        race = threading.Event()
        inner = so.committer

        class Racing:
            def commit(self, p: PodInfo, node: str, known: frozenset[str], room: dict[str, int], strict: bool,
                       counted: ClaimFilter) -> tuple[str, str]:
                if not race.is_set():  # the other replica claims this very node first
                    race.set()
                    shared.setdefault(node, {})["uid-theirs"] = ("b", 1e18)
                    sched.submit(lambda: so.apply_claims(node, dict(shared[node])))
                return inner.commit(p, node, known, room, strict, counted)

            def finished(self, p: PodInfo, node: str, bound: bool) -> None:
                inner.finished(p, node, bound)

            def current(self, node: str) -> dict[str, tuple[str, float]]:
                return inner.current(node)

        so.committer = Racing()
        events_before = len(cluster.events)
        sched.run_until_settled(timeout=10)
        outcomes = [x[0] for x in inner.log]  # type: ignore[attr-defined]
        assert outcomes == ["conflict", "ok"]
        first, second = inner.log[0][2], inner.log[1][2]  # type: ignore[attr-defined]
        assert first != second  # re-run on the fresh view: the other node
        assert cluster.store["Pod"]["default/mine"]["spec"]["nodeName"] == second
        assert not [e for e in cluster.events[events_before:] if e.get("reason") == "FailedScheduling"]
    finally:
        sched.shutdown()


@pytest.mark.parametrize("departed", [False, True])
def test_claims_of_a_departed_replica_end(departed: bool) -> None:
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    cluster.apply(pod("p"))
    sched, so = replica("a", {}, cluster, ["a", "b"])
    sched.start_backend()
    try:
        sched.drain_events()
        so.apply_claims("n0", {"uid-p": ("b", 1e18)})
        assert "uid-p" in sched.cluster.assumed and so.view.claimed_elsewhere("uid-p")
        assert "uid-p" not in sched.queue.entries
        if departed:
            so.set_members(("a",))
            assert "uid-p" not in sched.cluster.assumed  # room free again, pod ours to schedule
            assert "uid-p" in sched.queue.entries
        else:
            assert so.seen_on("n0") == frozenset({"uid-p"})
    finally:
        sched.shutdown()


def test_commit_rule_absorbs_claims_that_fit_and_refuses_the_rest() -> None:
    """Claims made since the cycle looked: fine if they all fit in the room left beside the pod,
    refused when they do not, or when a pod has constraints beyond resources."""
    from kubeberth.backends.kubernetes.claims import _refused

    news = [("u1", ["b", {"cpu": 1000}, 1e18, 0]), ("u2", ["b", {"cpu": 1000}, 1e18]), ("u3", ["a", {"cpu": 500}, 1e18])]
    room = {"cpu": 2500, "pods": 10}
    assert _refused(news, room, False, "a") == ""
    assert "cpu" in _refused(news, {"cpu": 2400, "pods": 10}, False, "a")
    assert "pods" in _refused(news, {"cpu": 9000, "pods": 2}, False, "a")
    assert "constraints" in _refused(news, room, True, "a")  # our pod is strict
    assert "constraints" in _refused([("u4", ["b", {}, 1e18, 1])], room, False, "a")  # theirs is
    assert _refused([("u5", ["a", {"cpu": 100}, 1e18])], room, True, "a") == ""  # only our own news


def test_a_vanished_claim_lingers_until_the_bound_pod_shows() -> None:
    """A claim pruned or expired while the pod still looks pending here (the pod informer may lag
    the Lease watch) keeps the room taken until the pod shows bound, or LINGER_SECONDS pass."""
    from kubeberth.scheduling.claims_view import LINGER_SECONDS

    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    cluster.apply(pod("p"))
    sched, so = replica("a", {}, cluster, ["a", "b"])
    sched.start_backend()
    try:
        sched.drain_events()
        so.apply_claims("n0", {"uid-p": ("b", 1e18)})
        so.apply_claims("n0", {})  # the claim is gone, the bound pod not seen yet
        assert "uid-p" in sched.cluster.assumed and "uid-p" not in sched.queue.entries
        so.view.expire(so.clock() + LINGER_SECONDS + 1)
        assert "uid-p" not in sched.cluster.assumed
    finally:
        sched.shutdown()


def test_claims_left_by_a_replica_never_seen_live_stop_counting_but_a_joiners_count() -> None:
    """Replicas restarted after the old ones left (a rolling update) never see the old ones live:
    their claims (kept for the claim TTL) must not hold room. A claim of a replica without a
    member Lease counts only if made within a lease duration of the observation (a joiner's)."""
    import time

    from kubeberth.scheduling.ownership import ClaimFilter

    now = time.time()
    f = ClaimFilter(ttl=120.0)
    assert f.counts("old", now + 100)  # membership not observed yet: everything counts
    f = ClaimFilter(alive=frozenset({"a"}), dead_before=now - 15, ttl=120.0)
    assert not f.counts("old", now - 30 + 120)  # made 30 s ago by a replica with no Lease: dead
    assert f.counts("joiner", now - 2 + 120)  # made 2 s ago: a replica that may have just joined
    assert f.counts("a", now - 60 + 120)

    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    cluster.apply(pod("p"))
    sched, so = replica("a", {}, cluster, ["a"])
    sched.start_backend()
    try:
        sched.drain_events()
        so.apply_claims("n0", {"uid-p": ("old", now - 30 + 120)})
        assert "uid-p" in sched.cluster.assumed  # counted until membership is observed
        so.set_alive(frozenset({"a"}), now - 15)
        assert "uid-p" not in sched.cluster.assumed and "uid-p" in sched.queue.entries
        so.apply_claims("n0", {"uid-p": ("joiner", now - 2 + 120)})
        assert "uid-p" in sched.cluster.assumed  # a recent claim of an unknown replica counts
    finally:
        sched.shutdown()


def test_a_preemptor_reserves_its_node_before_its_victims_are_deleted() -> None:
    """Active-active preemption: the room the victims free is claimed for the preemptor before the
    first victim goes, so another replica (which counts the claim as an assumed pod, or conflicts
    on it at commit) does not fill it meanwhile; the preemptor's own commit then keeps the claim."""
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    low = pod("low")
    low["spec"]["nodeName"] = "n0"
    low["spec"]["priority"] = 0
    low["spec"]["terminationGracePeriodSeconds"] = 0  # deleted at once (the embedded API's graceful wait is not the point)
    cluster.apply(low)
    high = pod("high")
    high["spec"]["priority"] = 100
    cluster.apply(high)
    shared: dict[str, dict[str, tuple[str, float]]] = {}
    sched, so = replica("a", shared, cluster, ["a"])
    deleted_with_claims: list[dict[str, tuple[str, float]]] = []
    delete = cluster.delete

    def watched_delete(kind: str, key: str) -> Any:
        if kind == "Pod" and key == "default/low":
            deleted_with_claims.append(dict(shared.get("n0", {})))
        return delete(kind, key)

    cluster.delete = watched_delete  # type: ignore[method-assign]
    sched.start_backend()
    try:
        sched.drain_events()
        for _ in range(20):
            sched.run_until_settled(timeout=10)
            if cluster.store["Pod"].get("default/high", {}).get("spec", {}).get("nodeName"):
                break
        log = so.committer.log  # type: ignore[attr-defined]
        assert ("reserve", "uid-high", "n0") in log
        assert deleted_with_claims and "uid-high" in deleted_with_claims[0]  # claimed before the victim went
        assert cluster.store["Pod"]["default/high"]["spec"]["nodeName"] == "n0"
        assert log.index(("reserve", "uid-high", "n0")) < log.index(("ok", "uid-high", "n0"))
    finally:
        sched.shutdown()

"""Active-active scale out, the loop's side (docs/scale-out.md): ownership by rendezvous hashing,
other replicas' claims in the node table, the commit hook in the binding cycle and its conflict
path. The store is a real ClaimCommitter kept in memory with the same compare-and-swap rule as the
Kubernetes ClaimStore (which tests/e2e/test_scale_out_e2e.py runs against a real API server)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest
from kubeberth import PermitResult, hookimpl
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.ownership import ClaimFilter, Ownership, ownership_key
from kubeberth.scheduling.scale_out import ScaleOut, domain_keys
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing.tester import profile_config


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
               counted: ClaimFilter, domain: dict[str, frozenset[str]] | None = None,
               domains: dict[str, frozenset[str]] | None = None) -> tuple[str, str]:
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

    def reserve(self, p: PodInfo, node: str, known: frozenset[str], counted: ClaimFilter) -> tuple[str, str]:
        claims = self.shared.setdefault(node, {})
        for uid, (replica, exp) in claims.items():  # another replica's claim unknown here: refused
            if replica != self.me and uid not in known and uid != p.uid and counted.counts(replica, exp):
                self.log.append(("refused", p.uid, node))
                return "conflict", f"node {node} claimed meanwhile by replica {replica}"
        claims[p.uid] = (self.me, 1e18)
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
                       counted: ClaimFilter, domain: dict[str, frozenset[str]] | None = None,
                       domains: dict[str, frozenset[str]] | None = None) -> tuple[str, str]:
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


def test_claims_of_deleted_pods_take_no_room_at_commit() -> None:
    """A pod bound by another replica and then deleted (a preemption's victim) keeps its claim in
    the node's record until the claim expires. The room is free: a commit there must not count
    that claim as news. Counted, it refused every placement on the node for the claim TTL (a
    preemption wave across replicas: no preemptor bound on the room its victims freed)."""
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="1"))
    old = pod("old")
    old["spec"]["nodeName"] = "n0"
    cluster.apply(old)
    shared: dict[str, dict[str, tuple[str, float]]] = {"n0": {"uid-old": ("b", 1e18)}}
    sched, so = replica("a", shared, cluster, ["a", "b"])
    sched.start_backend()
    try:
        sched.drain_events()
        so.apply_claims("n0", dict(shared["n0"]))
        cluster.delete("Pod", "default/old")
        sched.drain_events()
        cluster.apply(pod("new"))
        for _ in range(3):
            sched.run_until_settled(timeout=10)
        log = so.committer.log  # type: ignore[attr-defined]
        assert ("ok", "uid-new", "n0") in log and not [x for x in log if x[0] == "conflict"], log
        assert cluster.store["Pod"]["default/new"]["spec"]["nodeName"] == "n0"
    finally:
        sched.shutdown()


def test_a_preemption_on_a_node_another_replica_claimed_meanwhile_deletes_no_victim() -> None:
    """Another replica reserved the node for its own preemptor (or placed a pod there) and this
    replica does not count that claim yet: its preemptor deletes no victim there, it is tried
    again (two replicas preempting on one node at once both deleted victims there). Once the
    claim is counted, the victims are chosen with it and the preemption goes on."""
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="2"))
    low = pod("low")
    low["spec"].update(nodeName="n0", priority=0, terminationGracePeriodSeconds=0)
    cluster.apply(low)
    high = pod("high", cpu="2")
    high["spec"]["priority"] = 100
    cluster.apply(high)
    shared: dict[str, dict[str, tuple[str, float]]] = {"n0": {"uid-theirs": ("b", 1e18)}}  # unknown here
    sched, so = replica("a", shared, cluster, ["a", "b"])
    so.ownership.owns = lambda p: True  # type: ignore[method-assign]  # this replica schedules both pods
    sched.start_backend()
    try:
        sched.drain_events()
        log = so.committer.log  # type: ignore[attr-defined]
        for _ in range(200):  # the preemptor is tried again while the claim stands: a bounded number of cycles
            sched.step()
            sched.drain_events(block_for=0.01)
            if log.count(("refused", "uid-high", "n0")) >= 2:
                break
        assert log.count(("refused", "uid-high", "n0")) >= 2 and ("reserve", "uid-high", "n0") not in log, log
        assert "default/low" in cluster.store["Pod"]  # no victim deleted
        del shared["n0"]["uid-theirs"]  # the other replica's claim ends
        _preempts_on_n0_once_free(sched, cluster, log)
    finally:
        sched.shutdown()


def _preempts_on_n0_once_free(sched: Any, cluster: EmbeddedCluster, log: list[Any]) -> None:
    """The preemptor `high`, its reservation no longer refused, reserves n0, evicts `low` and binds there."""
    for _ in range(20):
        sched.run_until_settled(timeout=10)
        if cluster.store["Pod"].get("default/high", {}).get("spec", {}).get("nodeName"):
            break
    assert ("reserve", "uid-high", "n0") in log and "default/low" not in cluster.store["Pod"]
    assert cluster.store["Pod"]["default/high"]["spec"]["nodeName"] == "n0"


def test_no_preemption_on_a_node_where_another_replicas_preemptor_is_in_flight() -> None:
    """Another replica's preemptor reserved the node and this replica counts it (assumed there),
    but it is not bound yet: its victims may still show here, and a second preemption on the node
    would pick some of them again (a victim preempted by two replicas, and too little room for
    the second preemptor). The reservation is refused until that pod is bound."""
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="3"))
    low = pod("low")
    low["spec"].update(nodeName="n0", priority=0, terminationGracePeriodSeconds=0)
    cluster.apply(low)
    theirs = pod("theirs")
    theirs["spec"]["priority"] = 100
    cluster.apply(theirs)
    high = pod("high", cpu="2")
    high["spec"]["priority"] = 100
    cluster.apply(high)
    shared: dict[str, dict[str, tuple[str, float]]] = {"n0": {"uid-theirs": ("b", 1e18)}}
    sched, so = replica("a", shared, cluster, ["a", "b"])
    so.ownership.owns = lambda p: p.name != "theirs"  # type: ignore[method-assign]
    sched.start_backend()
    try:
        sched.drain_events()
        so.apply_claims("n0", dict(shared["n0"]))
        assert "uid-theirs" in sched.cluster.assumed  # counted: in flight at b
        log = so.committer.log  # type: ignore[attr-defined]
        for _ in range(200):
            sched.step()
            sched.drain_events(block_for=0.01)
            if ("refused", "uid-high", "n0") in log:
                break
        assert ("refused", "uid-high", "n0") in log and "default/low" in cluster.store["Pod"], log
        theirs["spec"]["nodeName"] = "n0"  # b's preemptor bound
        cluster.apply(theirs)
        _preempts_on_n0_once_free(sched, cluster, log)
    finally:
        sched.shutdown()


def gang_cluster(async_preemption: bool) -> tuple[EmbeddedCluster, Scheduler, ScaleOut, dict[str, Any]]:
    """Two 1-cpu nodes each running a low-priority pod, and a 2-member gang of 1-cpu pods of high priority
    (GenericWorkload): it fits only by preempting both."""
    from kubeberth.api.features import FeatureGates
    from kubeberth.testing import make_pod_group

    cluster = EmbeddedCluster()
    for n in ("n0", "n1"):
        cluster.apply(node(n, cpu="1"))
        low = pod(f"low-{n}")
        low["spec"].update(nodeName=n, priority=0, terminationGracePeriodSeconds=0)
        cluster.apply(low)
    group = make_pod_group("train", 2)
    group["spec"]["priority"] = 100
    cluster.apply(group)
    for i in range(2):
        member = pod(f"train-{i}", group="train")
        member["spec"]["priority"] = 100
        cluster.apply(member)
    gates = FeatureGates.parse({"GenericWorkload": True, "SchedulerAsyncPreemption": async_preemption})
    sched = Scheduler(build_generation(feature_gates=gates), cluster, seed=1, binding_workers=1)
    shared: dict[str, Any] = {}
    so = ScaleOut("a", MemoryClaims("a", shared))
    so.attach(sched)
    sched.scale_out = so
    so.set_members(("a", "b"))
    so.ownership.owns = lambda p: True  # type: ignore[method-assign]  # this replica owns the gang
    return cluster, sched, so, shared


@pytest.mark.parametrize("async_preemption", [False, True], ids=["sync", "async"])
def test_a_pod_group_reserves_every_members_node_before_its_first_victim(async_preemption: bool) -> None:
    """A gang's preemption across replicas: each nominated member's node is claimed for that member
    before any victim is deleted (as a single preemptor's node is), and while another replica holds an
    unseen claim on one of them nothing is deleted anywhere; once it ends, the gang preempts and binds."""
    cluster, sched, so, shared = gang_cluster(async_preemption)
    shared["n1"] = {"uid-theirs": ("b", 1e18)}  # another replica's claim this view does not count
    log = so.committer.log  # type: ignore[attr-defined]
    claims_at_first_delete: list[set[str]] = []
    delete = cluster.delete

    def watched_delete(kind: str, key: str) -> Any:
        if kind == "Pod" and key.startswith("default/low") and not claims_at_first_delete:
            claims_at_first_delete.append({uid for claims in shared.values() for uid in claims})
        return delete(kind, key)

    cluster.delete = watched_delete  # type: ignore[method-assign]
    sched.start_backend()
    try:
        sched.drain_events()
        for _ in range(300):
            sched.step()
            sched.drain_events(block_for=0.01)
            if [x for x in log if x[0] == "refused"]:
                break
        assert [x for x in log if x[0] == "refused"], log
        assert {"default/low-n0", "default/low-n1"} <= set(cluster.store["Pod"])  # no victim deleted anywhere
        del shared["n1"]["uid-theirs"]
        for _ in range(30):
            sched.run_until_settled(timeout=10)
            if all(cluster.store["Pod"].get(f"default/train-{i}", {}).get("spec", {}).get("nodeName") for i in range(2)):
                break
        placed = {f"uid-train-{i}": cluster.store["Pod"][f"default/train-{i}"]["spec"].get("nodeName") for i in range(2)}
        assert sorted(placed.values()) == ["n0", "n1"]
        assert not [k for k in cluster.store["Pod"] if k.startswith("default/low")]
        assert claims_at_first_delete and {"uid-train-0", "uid-train-1"} <= claims_at_first_delete[0]
        for uid, n in placed.items():  # each member reserved the node it was then placed on, before its commit
            assert log.index(("reserve", uid, n)) < log.index(("ok", uid, n)), log
    finally:
        sched.shutdown()


class _HoldAtPermit:
    """Holds the pods named held and rejected at Permit until the test ends their wait."""

    name = "HoldAtPermit"

    @hookimpl
    def permit(self, pod: Any) -> PermitResult | None:
        return PermitResult.wait(30) if pod.name in ("held", "rejected") else None


def _until(done: Any, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(done())


def test_a_pod_held_at_permit_holds_its_claim_while_it_waits() -> None:
    """The commit is the binding cycle's first step: a pod waiting at Permit (a gang member until its gang is
    complete) has its claim in the store for every replica while it waits, and it is bound on that claim once
    allowed; a wait that ends in a rejection drops the claim."""
    config = parse_configuration(profile_config([_HoldAtPermit], default_plugins=True, profile="kubeberth"))
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="2"))
    cluster.apply(pod("held"))
    cluster.apply(pod("rejected"))
    shared: dict[str, dict[str, tuple[str, float]]] = {}
    sched = Scheduler(build_generation(config=config, extra_plugins=[_HoldAtPermit]), cluster, seed=1,
                      binding_workers=2)
    so = ScaleOut("a", MemoryClaims("a", shared))
    so.attach(sched)
    sched.scale_out = so
    so.set_members(("a",))
    sched.start_backend()
    try:
        sched.drain_events()
        sched.step()
        sched.step()
        waiting = {w.pod.name: w for w in sched.waiting_pods.values()}
        assert set(waiting) == {"held", "rejected"}
        assert _until(lambda: {"uid-held", "uid-rejected"} <= set(shared.get("n0", {})))
        assert not any(p["spec"].get("nodeName") for p in cluster.pods())  # claimed while waiting, not bound
        waiting["rejected"].reject("HoldAtPermit", "not this time")
        assert _until(lambda: "uid-rejected" not in shared["n0"])
        waiting["held"].allow("HoldAtPermit")
        assert _until(lambda: bool(cluster.store["Pod"]["default/held"]["spec"].get("nodeName")))
        assert cluster.store["Pod"]["default/held"]["spec"]["nodeName"] == "n0" and "uid-held" in shared["n0"]
    finally:
        sched.shutdown()


def test_the_cycle_view_of_a_pod_whose_constraints_span_nodes_covers_its_domain() -> None:
    """domain_keys: the hard constraints' keys wider than a node; the cycle view then lists the other nodes of the
    chosen node's zone with the pods known there, and none for a pod without such constraints."""
    spread = pod("spread")
    spread["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}},
        {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "ScheduleAnyway"}]
    spread["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "region", "labelSelector": {}}]}}
    assert domain_keys(PodInfo.from_dict(spread)) == {"zone", "region"}
    cluster = EmbeddedCluster()
    for name, zone in (("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")):
        n = node(name)
        n["metadata"]["labels"]["zone"] = zone
        cluster.apply(n)
    placed = pod("placed")
    placed["spec"]["nodeName"] = "a2"
    cluster.apply(placed)
    sched, so = replica("a", {}, cluster, ["a"])
    sched.start_backend()
    try:
        sched.drain_events()
        view = so.cycle_view(PodInfo.from_dict(spread), "a1")
        assert view.strict and view.domain == {"a2": frozenset({"uid-placed"}), "a3": frozenset()}
        assert view.domains == {"domain:zone=a": frozenset({"uid-placed"})}  # a1 has no region label: no record
        assert so.cycle_view(PodInfo.from_dict(pod("plain")), "a1").domain == {}
    finally:
        sched.shutdown()


class _SlowBinds:
    """Holds every bind at PreBind until the test opens the gate."""

    name = "SlowBinds"
    gate = threading.Event()

    @hookimpl
    def pre_bind(self, pod: Any) -> None:
        self.gate.wait(30)


@pytest.mark.parametrize("active", [True, False])
def test_active_active_places_the_next_pod_only_when_a_binding_worker_is_free(active: bool) -> None:
    """A placement is committed against what its cycle saw: in active-active mode the loop does not place pods whose
    bindings would queue behind busy workers (their views would be stale at the commit, and conflict). Leader mode
    schedules ahead as before."""
    _SlowBinds.gate.clear()
    config = parse_configuration(profile_config([_SlowBinds], default_plugins=True, profile="kubeberth"))
    cluster = EmbeddedCluster()
    cluster.apply(node("n0", cpu="8"))
    for i in range(4):
        cluster.apply(pod(f"p{i}"))
    sched = Scheduler(build_generation(config=config, extra_plugins=[_SlowBinds]), cluster, seed=1, binding_workers=1)
    if active:
        so = ScaleOut("a", MemoryClaims("a", {}))
        so.attach(sched)
        sched.scale_out = so
        so.set_members(("a",))
    sched.start_backend()
    try:
        sched.drain_events()
        for _ in range(4):
            sched.step()
        # One binding held by the worker and one queued behind it (placed while the worker was busy), then no more.
        assert len(sched.cluster.assumed) == (2 if active else 4)
        _SlowBinds.gate.set()
        sched.run_until_settled(timeout=10)
        assert all(p["spec"].get("nodeName") == "n0" for p in cluster.pods())
    finally:
        _SlowBinds.gate.set()
        sched.shutdown()

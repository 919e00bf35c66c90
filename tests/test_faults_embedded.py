"""Faults on the embedded cluster: pods deleted or bound elsewhere during binding, nodes removed.

The fast, deterministic counterparts of the e2e fault suite (tests/e2e/test_faults_kubernetes.py). A PreBind
test plugin makes the fault happen while the pod's binding is in flight, the moment it happens on
a real cluster, through the embedded cluster's own API (delete, bind, node delete); each test then
checks the promises of docs/reliability.md from the cluster's objects and the scheduler's state.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from fault_promises import bound_more_than_once, key, moved, overcommitted, queued_but_gone, unbound
from kubeberth import PermitResult, hookimpl
from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import SchedulerConfiguration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.clock import VirtualClock
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import make_node, make_pod

PROFILE = "faults"


class FaultInjector:
    """PreBind: performs the fault named by the pod's `fault` label while its binding is in flight,
    acting on the cluster as another client would (a user, another scheduler, a node controller)."""

    name = "FaultInjector"
    cluster: EmbeddedCluster  # set by the fixture: the cluster the other client acts on

    def __init__(self) -> None:
        self.done: set[str] = set()  # each fault strikes once per pod

    @hookimpl
    def pre_bind(self, pod: PodInfo, node_name: str) -> None:
        if pod.uid in self.done:
            return
        self.done.add(pod.uid)
        fault = pod.labels.get("fault")
        cluster = self.cluster
        if fault == "delete":
            cluster.delete("Pod", pod.key)
        elif fault == "bound-elsewhere":  # another scheduler wins the race for this pod
            others = [n for n in sorted(n["metadata"]["name"] for n in cluster.list("Node")) if n != node_name]
            assert cluster.bind(pod, others[0]).ok
        elif fault == "node-deleted":
            cluster.delete("Node", node_name)


class HoldAtPermit:
    name = "HoldAtPermit"

    @hookimpl
    def permit(self, pod: PodInfo) -> PermitResult | None:
        return PermitResult.wait(30.0) if "hold" in pod.labels else None


def config(*plugins: str) -> SchedulerConfiguration:
    """The default profile plus the given test plugins, with short backoffs."""
    return SchedulerConfiguration.model_validate({
        "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 2,
        "profiles": [{"schedulerName": PROFILE, "plugins": {"multiPoint": {"enabled": [{"name": p} for p in plugins]}}}],
    })


@pytest.fixture
def cluster():
    made: list[Scheduler] = []

    def build(
        objects: list[dict], *plugins: str, watch: Callable[[ClusterEvent], None] | None = None
    ) -> tuple[Scheduler, EmbeddedCluster]:
        gen = build_generation(config=config(*plugins), extra_plugins=[FaultInjector, HoldAtPermit])
        backend = EmbeddedCluster(objects)
        FaultInjector.cluster = backend
        s = Scheduler(gen, backend, clock=VirtualClock(), seed=1)
        made.append(s)

        def sink(event: ClusterEvent) -> None:
            if watch is not None:
                watch(event)
            s.submit(event)

        backend.start(sink)
        return s, backend

    yield build
    for s in made:
        s.shutdown(wait=True)


def pod(name: str, cpu: str = "500m", memory: str = "256Mi", **labels: str) -> dict:
    return make_pod(name, cpu, memory, uid=name, labels=labels, schedulerName=PROFILE)


def nodes(count: int, cpu: str = "2", memory: str = "4Gi", pods: int = 10) -> list[dict]:
    return [make_node(f"n{i}", cpu, memory, pods=pods) for i in range(count)]


def broken_promises(s: Scheduler, b: EmbeddedCluster) -> list[str]:
    """Every promise of docs/reliability.md that the scheduler can keep on its own."""
    pods, node_objs = b.list("Pod"), b.list("Node")
    scheduled = [e["regarding"] for e in b.events if e["reason"] == "Scheduled"
                 for _ in range(b.event_counts[(e["regarding"], "Scheduled", e["note"])])]
    held = [k for keys in s.held_pods().values() for k in keys]
    broken = [
        *unbound(pods, PROFILE),
        *overcommitted(node_objs, pods),
        *bound_more_than_once(scheduled),
        *queued_but_gone(held, (key(p) for p in pods)),
    ]
    # The cache agrees with the cluster (kube-scheduler's cache comparer): same pods on same nodes.
    names = {n["metadata"]["name"] for n in node_objs}
    truth = {p["metadata"]["uid"]: p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName") in names}
    table = s.cluster.table
    cached = {uid: table.names[row] for uid, row in s.cluster.placement.items()}
    if cached != truth:
        broken.append(f"cache {sorted(cached.items())} != cluster {sorted(truth.items())}")
    if s.in_flight or s.cluster.assumed or s.waiting_pods:
        broken.append(f"left in flight: {s.in_flight}, assumed {s.cluster.assumed}, waiting {list(s.waiting_pods)}")
    return broken


def reports_about(b: EmbeddedCluster, name: str) -> list[str]:
    """Events written about a pod other than its successful Scheduled event."""
    return [e["note"] for e in b.events if e["regarding"] == f"default/{name}" and e["reason"] != "Scheduled"]


# ---- a pod deleted while its binding is in flight (issue: retried forever) -----------------------
def test_pod_deleted_during_binding_is_dropped_not_retried(cluster) -> None:
    s, b = cluster([*nodes(2), pod("doomed", fault="delete"), pod("kept")], "FaultInjector")
    s.run_until_settled(timeout=10)
    assert b.get("Pod", "default/doomed") is None
    assert s.stats.attempts == 2 and s.stats.bind_failures == 1  # one try, no retry
    assert reports_about(b, "doomed") == []  # no FailedScheduling, no status write for a gone pod
    assert broken_promises(s, b) == []


def test_bind_not_found_reported_before_deletion_is_seen(cluster) -> None:
    """Order: bind answers NotFound, binding reports, only then the DELETED event: no retry, no event."""
    s, b = cluster([*nodes(1), pod("p")])
    s.drain_events()
    popped = s.queue.pop()
    assert popped is not None
    # The pod disappears from the store without the scheduler hearing of it yet.
    with b.watch_lag():
        b.delete("Pod", "default/p")
        s.schedule_one(popped)
        while s.in_flight:
            s.drain_events(block_for=0.05)
        assert "p" not in s.queue.entries and not s.cluster.assumed
        assert reports_about(b, "p") == []
    s.run_until_settled(timeout=10)
    assert s.stats.attempts == 1
    assert "p" not in s.cluster.pods
    assert broken_promises(s, b) == []


def test_pod_bound_by_another_scheduler_during_binding(cluster) -> None:
    s, b = cluster([*nodes(2), pod("raced", fault="bound-elsewhere")], "FaultInjector")
    s.run_until_settled(timeout=10)
    assert s.stats.attempts == 1 and s.stats.bind_failures == 1  # the conflict is not retried
    stored = b.get("Pod", "default/raced")
    assert stored is not None and stored["spec"]["nodeName"] in ("n0", "n1")
    assert s.cluster.placement["raced"] == s.cluster.table.row_of[stored["spec"]["nodeName"]]
    assert int(s.cluster.table.requested[:, s.cluster.table.resource_index["pods"]].sum()) == 1  # counted once
    assert reports_about(b, "raced") == []
    assert broken_promises(s, b) == []


def test_pod_deleted_while_waiting_at_permit_is_released_at_once(cluster) -> None:
    s, b = cluster([*nodes(1), pod("held", hold="yes")], "HoldAtPermit")
    assert s.step()  # scheduled; now held at Permit for up to 30 s
    assert list(s.waiting_pods) == ["held"]
    b.delete("Pod", "default/held")
    s.run_until_settled(timeout=5)  # would take 30 s if the waiting pod were not rejected
    assert s.stats.attempts == 1
    assert reports_about(b, "held") == []
    assert broken_promises(s, b) == []


def test_pending_pod_marked_for_deletion_leaves_the_queue(cluster) -> None:
    """A pending pod with a finalizer lingers with deletionTimestamp set: it is not scheduled."""
    s, b = cluster([pod("going")])
    going = b.get("Pod", "default/going")
    assert going is not None
    b.apply({**going, "metadata": {**going["metadata"], "deletionTimestamp": "2026-01-01T00:00:00Z",
                                   "finalizers": ["example.com/hold"]}})
    b.apply(make_node("n0"))
    s.run_until_settled(timeout=5)
    assert s.stats.attempts == 0 and "going" not in s.queue.entries
    assert not (b.get("Pod", "default/going") or {})["spec"].get("nodeName")


# ---- nodes removed or cordoned ------------------------------------------------------------------
def test_node_deleted_during_binding_reschedules_elsewhere(cluster) -> None:
    s, b = cluster([*nodes(2), pod("p", fault="node-deleted")], "FaultInjector")
    s.run_until_settled(timeout=10)
    stored = b.get("Pod", "default/p")
    assert stored is not None
    first = next(r.node for r in s.records if r.pod == "default/p")
    assert stored["spec"].get("nodeName") not in (None, first)  # retried on the node that is left
    assert s.stats.bind_failures == 1 and s.stats.scheduled == 1
    assert broken_promises(s, b) == []
    # The node comes back: the pod assumed on it before must not come back with it.
    b.apply(make_node(first, "2", "4Gi", pods=10))
    s.drain_events()
    row = s.cluster.table.row_of[first]
    assert not s.cluster.table.requested[row].any()
    assert broken_promises(s, b) == []


def test_cordoned_and_deleted_nodes_get_nothing_afterwards(cluster) -> None:
    s, b = cluster(nodes(3, cpu="4", memory="8Gi", pods=110))
    for i in range(6):
        b.apply(pod(f"early-{i}", cpu="100m"))
    s.run_until_settled(timeout=10)
    b.delete("Node", "n0")
    cordoned = make_node("n1", "4", "8Gi", pods=110, unschedulable=True)
    b.apply(cordoned)
    for i in range(12):
        b.apply(pod(f"late-{i}", cpu="100m"))
    s.run_until_settled(timeout=10)
    late = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in b.list("Pod") if "late" in p["metadata"]["name"]}
    assert set(late.values()) == {"n2"}, late
    assert broken_promises(s, b) == []


# ---- a stream with every fault at once ----------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stream_with_deletes_conflicts_and_node_loss(cluster, seed: int) -> None:
    """300 pods streamed onto 8 small nodes; 20 % deleted while binding, 5 % deleted while queued,
    5 % bound by another scheduler while binding, and one node deleted mid-stream. Every promise holds."""
    rng = random.Random(seed)
    node_history: dict[str, list[str]] = {}

    def watch(event: ClusterEvent) -> None:  # every node each pod is ever seen on
        if event.kind == "Pod" and event.type != "SYNCED":
            node_history.setdefault(key(event.obj), []).append(event.obj["spec"].get("nodeName") or "")

    s, b = cluster(nodes(8, cpu="16", memory="16Gi", pods=110), "FaultInjector", watch=watch)
    deleted_queued: list[str] = []
    for i in range(300):
        roll = rng.random()
        labels: dict[str, str] = {}
        if roll < 0.20:
            labels = {"fault": "delete"}
        elif roll < 0.25:
            labels = {"fault": "bound-elsewhere"}
        b.apply(pod(f"p-{i:03d}", cpu=rng.choice(["100m", "250m", "500m"]), memory="128Mi", **labels))
        if rng.random() < 0.05:
            b.delete("Pod", f"default/p-{i:03d}")
            deleted_queued.append(f"p-{i:03d}")
        if i % 10 == 9:
            for _ in range(5):
                s.step()
        if i == 150:
            b.delete("Node", "n7")
    s.run_until_settled(timeout=30)
    pods = b.list("Pod")
    assert broken_promises(s, b) == []
    assert moved(node_history) == []
    assert not any(p["spec"].get("nodeName") == "n7" for p in pods if p["metadata"]["name"] > "p-150")
    assert all(reports_about(b, p) == [] for p in deleted_queued)
    # Nothing is retried for deleted pods: one attempt each, and no attempt after its deletion.
    failed_binds = s.stats.bind_failures
    s.queue.flush_unschedulable(max_age=0)
    s.run_until_settled(timeout=10)
    assert s.stats.bind_failures == failed_binds
    assert len(pods) < 300 and len(pods) > 200

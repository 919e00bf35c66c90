"""ClusterState: assume/forget, bound pods confirming assumed ones, orphans, indexes, nominations."""

from __future__ import annotations

from collections import Counter

import numpy as np
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import make_node, make_pod


def pod(name: str, cpu: str | None = "1", node: str | None = None, labels: dict | None = None, **spec) -> PodInfo:
    if node:
        spec["nodeName"] = node
    return PodInfo.from_dict(make_pod(name, cpu, uid=f"uid-{name}", labels=labels, **spec))


def cpu_used(c: ClusterState, node: str) -> int:
    t = c.table
    return int(t.requested[t.row_of[node], t.resource_index["cpu"]])


def pods_used(c: ClusterState, node: str) -> int:
    t = c.table
    return int(t.requested[t.row_of[node], t.resource_index["pods"]])


class NodeCounter:
    """A PodIndex counting placed pods per row, recording every call."""

    def __init__(self, cluster: ClusterState) -> None:
        self.rows: Counter[int] = Counter()
        self.calls: list[tuple[str, str, int]] = []

    def pod_added(self, pod: PodInfo, row: int) -> None:
        self.rows[row] += 1
        self.calls.append(("add", pod.name, row))

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        self.rows[row] -= 1
        self.calls.append(("remove", pod.name, row))


def cluster(*names: str) -> ClusterState:
    c = ClusterState()
    for n in names:
        c.upsert_node(make_node(n, "4", "8Gi"))
    return c


def test_assume_and_forget() -> None:
    c = cluster("n1", "n2")
    p = pod("a")
    c.upsert_pod(p)
    assert cpu_used(c, "n1") == 0
    c.assume(p, "n1")
    assert p.uid in c.assumed
    assert c.placement[p.uid] == c.table.row_of["n1"]
    assert cpu_used(c, "n1") == 1000 and pods_used(c, "n1") == 1
    assert list(c.node_pods(c.table.row_of["n1"])) == [p.uid]
    c.forget(p)
    assert p.uid not in c.assumed and p.uid not in c.placement
    assert cpu_used(c, "n1") == 0 and pods_used(c, "n1") == 0
    assert c.node_pods(c.table.row_of["n1"]) == {}
    c.forget(p)  # forgetting twice is harmless
    assert cpu_used(c, "n1") == 0


def test_forget_ignores_bound_pods() -> None:
    c = cluster("n1")
    p = pod("a", node="n1")
    c.upsert_pod(p)
    c.forget(p)
    assert cpu_used(c, "n1") == 1000


def test_bound_pod_confirms_assumed_once() -> None:
    c = cluster("n1", "n2")
    p = pod("a")
    c.upsert_pod(p)
    c.assume(p, "n1")
    bound = pod("a", node="n1")
    c.upsert_pod(bound)
    assert bound.uid not in c.assumed
    assert c.pods[bound.uid] is bound
    assert cpu_used(c, "n1") == 1000  # replaced, not double counted
    assert pods_used(c, "n1") == 1
    c.forget(bound)  # a late forget after confirmation must not unplace the bound pod
    assert cpu_used(c, "n1") == 1000


def test_bound_elsewhere_moves_accounting() -> None:
    c = cluster("n1", "n2")
    p = pod("a")
    c.assume(p, "n1")
    c.upsert_pod(pod("a", node="n2"))
    assert cpu_used(c, "n1") == 0 and cpu_used(c, "n2") == 1000


def test_remove_pod() -> None:
    c = cluster("n1")
    c.upsert_pod(pod("a", node="n1"))
    c.upsert_pod(pod("b", node="n1"))
    removed = c.remove_pod("uid-a")
    assert removed is not None and removed.name == "a"
    assert cpu_used(c, "n1") == 1000
    assert c.remove_pod("uid-a") is None
    assert set(c.pods) == {"uid-b"}


def test_terminal_pods_not_counted() -> None:
    c = cluster("n1")
    raw = make_pod("done", "1", uid="uid-done", nodeName="n1")
    raw["status"]["phase"] = "Succeeded"
    c.upsert_pod(PodInfo.from_dict(raw))
    assert cpu_used(c, "n1") == 0
    # a running pod that finishes releases its resources
    c.upsert_pod(pod("job", node="n1"))
    assert cpu_used(c, "n1") == 1000
    raw = make_pod("job", "1", uid="uid-job", nodeName="n1")
    raw["status"]["phase"] = "Failed"
    c.upsert_pod(PodInfo.from_dict(raw))
    assert cpu_used(c, "n1") == 0


def test_pods_on_unknown_node_counted_when_node_appears() -> None:
    c = cluster("n1")
    c.upsert_pod(pod("early", node="late"))
    c.upsert_pod(pod("early2", node="late"))
    assert "uid-early" not in c.placement
    c.remove_pod("uid-early2")
    c.upsert_node(make_node("late", "4", "8Gi"))
    assert cpu_used(c, "late") == 1000
    assert set(c.node_pods(c.table.row_of["late"])) == {"uid-early"}


def test_node_removal_and_return() -> None:
    c = cluster("n1", "n2")
    counter = c.index("counter", NodeCounter)
    c.upsert_pod(pod("a", node="n1"))
    c.upsert_pod(pod("b", node="n1"))
    row = c.table.row_of["n1"]
    c.remove_node("n1")
    assert "n1" not in c.table.row_of
    assert not c.placement
    assert counter.rows[row] == 0
    assert not c.table.requested[row].any()
    c.remove_node("n1")  # unknown node: no-op
    # pods still claim the node; they count again once it comes back
    new_row = c.upsert_node(make_node("n1", "4", "8Gi"))
    assert cpu_used(c, "n1") == 2000
    assert counter.rows[new_row] == 2
    # a pod deleted while its node was gone is not resurrected
    c.remove_node("n1")
    c.remove_pod("uid-a")
    c.upsert_node(make_node("n1", "4", "8Gi"))
    assert cpu_used(c, "n1") == 1000


def test_index_built_from_existing_placements_and_kept() -> None:
    c = cluster("n1", "n2")
    c.upsert_pod(pod("a", node="n1"))
    c.upsert_pod(pod("b", node="n2"))
    c.assume(pod("c"), "n2")
    built = []

    def factory(cluster_arg: ClusterState) -> NodeCounter:
        built.append(cluster_arg)
        return NodeCounter(cluster_arg)

    idx = c.index("counter", factory)
    assert built == [c]
    r1, r2 = c.table.row_of["n1"], c.table.row_of["n2"]
    assert idx.rows == Counter({r1: 1, r2: 2})
    assert c.index("counter", factory) is idx and len(built) == 1
    c.upsert_pod(pod("d", node="n1"))
    c.forget(c.pods["uid-c"])
    c.remove_pod("uid-a")
    assert idx.rows[r1] == 1 and idx.rows[r2] == 1
    assert idx.calls[-3:] == [("add", "d", r1), ("remove", "c", r2), ("remove", "a", r1)]


def test_label_counts() -> None:
    c = cluster("n1", "n2")
    c.upsert_pod(pod("a", node="n1", labels={"app": "web"}))
    c.upsert_pod(pod("b", node="n2", labels={"app": "web"}))
    c.upsert_pod(pod("c", node="n2", labels={"app": "db"}))
    lc = c.label_counts
    web = lc.matching_groups(lambda ns, labels: labels.get("app") == "web")
    per_node = lc.per_node(web)
    assert per_node[c.table.row_of["n1"]] == 1 and per_node[c.table.row_of["n2"]] == 1
    c.remove_pod("uid-b")
    per_node = lc.per_node(lc.matching_groups(lambda ns, labels: labels.get("app") == "web"))
    assert per_node[c.table.row_of["n2"]] == 0
    # groups whose pods are all gone are not reported
    assert lc.matching_groups(lambda ns, labels: labels.get("app") == "db") != []
    c.remove_pod("uid-c")
    assert lc.matching_groups(lambda ns, labels: labels.get("app") == "db") == []


def test_label_counts_follow_table_growth() -> None:
    c = ClusterState()
    c.upsert_node(make_node("n0"))
    c.upsert_pod(pod("a", node="n0", labels={"x": "1"}))
    for i in range(1, 100):
        c.upsert_node(make_node(f"n{i}"))
    c.upsert_pod(pod("b", node="n99", labels={"x": "1"}))
    per_node = c.label_counts.per_node(c.label_counts.matching_groups(lambda ns, labels: True))
    assert per_node.shape[0] == c.table.capacity
    assert per_node[c.table.row_of["n99"]] == 1 and per_node[c.table.row_of["n0"]] == 1
    assert int(np.sum(per_node)) == 2


def test_nominated_pods() -> None:
    c = cluster("n1", "n2")
    p = pod("a")
    c.upsert_pod(p)
    c.nominate(p, "n1")
    assert p.nominated_node_name == "n1"
    assert list(c.nominated["n1"]) == [p.uid]
    c.nominate(p, "n2")
    assert "n1" not in c.nominated and p.uid in c.nominated["n2"]  # a node left without nominations goes
    c.nominate(p, None)
    assert not c.nominated  # nothing nominated anywhere: `not cluster.nominated` turns incremental cycles back on
    # informer-reported nominations are tracked too, and cleared on assume / binding / deletion
    raw = make_pod("b", "1", uid="uid-b")
    raw["status"]["nominatedNodeName"] = "n2"
    b = PodInfo.from_dict(raw)
    c.upsert_pod(b)
    assert b.uid in c.nominated["n2"]
    c.assume(b, "n2")
    assert b.uid not in c.nominated.get("n2", {})
    c.forget(b)
    c.upsert_pod(b)
    assert b.uid in c.nominated["n2"]
    c.upsert_pod(pod("b", node="n2"))
    assert b.uid not in c.nominated.get("n2", {})
    c.nominate(p, "n1")
    c.remove_pod(p.uid)
    assert p.uid not in c.nominated.get("n1", {})


def test_an_update_without_a_nomination_keeps_the_one_made_in_memory() -> None:
    """kube-scheduler's UpdateNominatedPod: our nomination's status write may still be on its way
    behind an update of another field; an update without it after one without it keeps the
    nomination. An update that drops a nomination the informer had delivered removes it."""
    c = cluster("n1", "n2")
    c.upsert_pod(pod("a"))
    c.nominate(c.pods["uid-a"], "n1")
    condition_echo = pod("a")  # e.g. our PodScheduled condition patch, written before the nomination
    c.upsert_pod(condition_echo)
    assert condition_echo.nominated_node_name == "n1" and "uid-a" in c.nominated["n1"]
    raw = make_pod("a", "1", uid="uid-a")
    raw["status"]["nominatedNodeName"] = "n1"
    c.upsert_pod(PodInfo.from_dict(raw))  # the nomination's own echo
    cleared = pod("a")  # then someone clears it
    c.upsert_pod(cleared)
    assert not cleared.nominated_node_name and not c.nominated


def test_objects() -> None:
    c = ClusterState()
    pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "ns"}}
    pv = {"kind": "PersistentVolume", "metadata": {"name": "pv-1"}}
    c.upsert_object("PersistentVolumeClaim", pvc)
    c.upsert_object("PersistentVolume", pv)
    assert c.get_object("PersistentVolumeClaim", "ns/data") is pvc
    assert c.get_object("PersistentVolume", "pv-1") is pv
    assert c.list_objects("PersistentVolume") == [pv]
    c.remove_object("PersistentVolume", pv)
    assert c.list_objects("PersistentVolume") == []
    assert c.get_object("StorageClass", "x") is None


def test_placed_pods() -> None:
    c = cluster("n1")
    c.upsert_pod(pod("a", node="n1"))
    c.upsert_pod(pod("pending"))
    assert [(p.name, r) for p, r in c.placed_pods()] == [("a", c.table.row_of["n1"])]


def test_nominated_ghosts_follow_nominations_without_recomputing() -> None:
    """nominated_ghosts' kept answer is patched as pods are nominated and cleared: it always equals
    a fresh computation."""
    c = cluster("n1", "n2", "n3")
    asker = pod("asker")
    pods = [PodInfo.from_dict(make_pod(f"p{i}", "1", uid=f"p{i}", priority=i % 3)) for i in range(9)]
    for p in pods:
        c.upsert_pod(p)

    def fresh() -> dict[int, list[str]]:
        c._ghosts = None
        return {row: sorted(o.uid for o in found) for row, found in c.nominated_ghosts(asker).items()}

    def kept() -> dict[int, list[str]]:
        return {row: sorted(o.uid for o in found) for row, found in c.nominated_ghosts(asker).items()}

    steps = [("p0", "n1"), ("p1", "n1"), ("p2", "n2"), ("p1", "n3"), ("p0", None), ("p3", "n2"), ("p2", None)]
    c.nominated_ghosts(asker)
    for uid, node in steps:
        c.nominate(next(p for p in pods if p.uid == uid), node)
        assert c._ghosts is not None and c._ghosts[0][0] == c._nominated_version  # patched, not dropped
        got = kept()
        assert got == fresh(), (uid, node)

"""ClusterState.hypothetical: what-if placements that every reader sees and that restore exactly."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth import LabelSelector
from kubeberth.api.helpers import matching_pod_counts
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import make_node, make_pod


def placed(name: str, node: str, cpu: str = "1", app: str = "web") -> PodInfo:
    return PodInfo.from_dict(make_pod(name, cpu, uid=name, labels={"app": app}, nodeName=node))


def snapshot(cluster: ClusterState) -> tuple:
    table = cluster.table
    return (
        table.requested.copy(),
        dict(cluster.placement),
        {row: list(pods) for row, pods in cluster.pods_on.items()},
        matching_pod_counts(cluster, LabelSelector.from_set({"app": "web"})).tolist(),
    )


def assert_same(a: tuple, b: tuple) -> None:
    assert np.array_equal(a[0], b[0])
    assert a[1:] == b[1:]


@pytest.fixture
def cluster() -> ClusterState:
    c = ClusterState()
    for n in ("n1", "n2"):
        c.upsert_node(make_node(n, cpu="4"))
    for p in (placed("a", "n1"), placed("b", "n1"), placed("c", "n1"), placed("d", "n2", app="db")):
        c.upsert_pod(p)
    return c


def test_every_reader_follows_and_everything_is_restored_in_order(cluster: ClusterState) -> None:
    before = snapshot(cluster)
    table = cluster.table
    n1, n2 = table.row_of["n1"], table.row_of["n2"]
    a, b = cluster.pods["a"], cluster.pods["b"]
    ghost = PodInfo.from_dict(make_pod("ghost", "2", uid="ghost", labels={"app": "web"}))
    with cluster.hypothetical(add=[(ghost, "n2")], remove=[a, b]) as what_if:
        cpu = table.resource_index["cpu"]
        assert table.requested[n1, cpu] == 1000 and table.requested[n2, cpu] == 3000
        assert list(cluster.node_pods(n1)) == ["c"] and "ghost" in cluster.node_pods(n2)
        counts = matching_pod_counts(cluster, LabelSelector.from_set({"app": "web"}))
        assert counts[[n1, n2]].tolist() == [1, 1]
        what_if.add(a, n1)  # a reprieved victim comes back
        assert list(cluster.node_pods(n1)) == ["c", "a"]
        with pytest.raises(ValueError, match="only come back to the node it was removed from"):
            what_if.add(b, n2)
    assert_same(before, snapshot(cluster))
    assert list(cluster.node_pods(n1)) == ["a", "b", "c"]


def test_restored_when_the_block_raises(cluster: ClusterState) -> None:
    before = snapshot(cluster)
    with pytest.raises(RuntimeError), cluster.hypothetical(remove=[cluster.pods["a"]]):
        raise RuntimeError("plugin failed")
    assert_same(before, snapshot(cluster))


def test_add_requests_changes_only_requested_totals(cluster: ClusterState) -> None:
    before = snapshot(cluster)
    table = cluster.table
    rows = np.asarray([table.row_of["n1"], table.row_of["n2"]])
    delta = np.stack([-table.request_vector(cluster.pods["a"]), table.request_vector(cluster.pods["d"])])
    with cluster.hypothetical() as what_if:
        what_if.add_requests(rows, delta)
        what_if.add_requests(rows[:1], delta[:1])
        cpu = table.resource_index["cpu"]
        assert table.requested[rows, cpu].tolist() == [1000, 2000]
        assert cluster.placement == before[1]  # pods untouched
    assert_same(before, snapshot(cluster))


def test_adding_a_placed_pod_is_an_error(cluster: ClusterState) -> None:
    with pytest.raises(ValueError, match="already placed"), cluster.hypothetical(add=[(cluster.pods["a"], "n2")]):
        pass
    assert cluster.placement["a"] == cluster.table.row_of["n1"]

"""NodeTable: columnar node state kept incrementally, interned label/taint sets, zone ordering."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth import Taint
from kubeberth.cache.nodetable import NodeSpecError, NodeTable
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import make_node, make_pod

Gi = 2**30
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def pod(name: str, cpu: str | None = None, memory: str | None = None, **spec) -> PodInfo:
    return PodInfo.from_dict(make_pod(name, cpu, memory, **spec))


def col(table: NodeTable, resource: str) -> int:
    return table.resource_index[resource]


def test_upsert_node_columns() -> None:
    t = NodeTable()
    row = t.upsert_node(make_node("n1", "4", "16Gi", pods=110, labels={"a": "b"}))
    assert t.row_of == {"n1": row}
    assert t.names[row] == "n1"
    assert t.alive[row]
    assert t.allocatable[row, col(t, "cpu")] == 4000
    assert t.allocatable[row, col(t, "memory")] == 16 * Gi
    assert t.allocatable[row, col(t, "pods")] == 110
    assert t.labels_of(row) == {"a": "b", "kubernetes.io/hostname": "n1"}
    assert len(t) == 1


def test_add_remove_pod_accounting() -> None:
    t = NodeTable()
    r1 = t.upsert_node(make_node("n1", "4", "16Gi"))
    r2 = t.upsert_node(make_node("n2", "4", "16Gi"))
    a, b, none = pod("a", "500m", "1Gi"), pod("b", "250m"), pod("c")
    for p in (a, b, none):
        t.add_pod(r1, p)
    assert t.requested[r1, col(t, "cpu")] == 750
    assert t.requested[r1, col(t, "memory")] == Gi
    assert t.requested[r1, col(t, "pods")] == 3
    # non-zero: b and c have no memory request, c no cpu request
    assert t.nonzero_requested[r1].tolist() == [500 + 250 + 100, Gi + 2 * 200 * 2**20]
    assert not t.requested[r2].any() and not t.nonzero_requested[r2].any()
    t.remove_pod(r1, b)
    t.remove_pod(r1, none)
    assert t.requested[r1, col(t, "cpu")] == 500
    assert t.requested[r1, col(t, "pods")] == 1
    assert t.nonzero_requested[r1].tolist() == [500, Gi]
    t.remove_pod(r1, a)
    assert not t.requested[r1].any() and not t.nonzero_requested[r1].any()


def test_add_pod_reallocates_no_node_sized_array() -> None:
    t = NodeTable()
    for i in range(200):
        t.upsert_node(make_node(f"n{i}"))
    attrs = ("alive", "allocatable", "requested", "nonzero_requested", "unschedulable", "label_set", "taint_set",
             "image_set")
    before = {a: getattr(t, a) for a in attrs}
    version = t.version
    pods = [pod(f"p{i}", "100m", "64Mi") for i in range(50)]
    for i, p in enumerate(pods):
        t.add_pod(i % 200, p)
    for i, p in enumerate(pods):
        t.remove_pod(i % 200, p)
    for a in attrs:
        assert getattr(t, a) is before[a], a
    assert t.version == version  # pod churn never invalidates node-derived caches
    assert not t.requested.any()


def test_request_vector_is_memoised() -> None:
    t = NodeTable()
    t.upsert_node(make_node("n1"))
    p = pod("a", "1", "1Gi")
    v1 = t.request_vector(p)
    assert v1 is t.request_vector(p)
    assert v1[col(t, "pods")] == 1
    assert v1[col(t, "cpu")] == 1000
    # Pods asking the same share one read-only vector (nothing per running pod).
    assert t.request_vector(pod("b", "1", "1Gi")) is v1 and not v1.flags.writeable
    assert t.request_vector(pod("c", "2", "1Gi"))[col(t, "cpu")] == 2000


def test_rows_changed_since_matches_the_row_stamps(monkeypatch) -> None:
    """The recent stamps answer from the log; older ones (trimmed) from every row's stamp."""
    monkeypatch.setattr("kubeberth.cache.nodetable.STAMPS_KEPT", 8)
    t = NodeTable()
    for i in range(6):
        t.upsert_node(make_node(f"n{i}"))
    p = pod("a", "1", "1Gi")
    clocks = [t.row_clock]
    for row in (3, 1, 3, 5, 0, 4, 4, 2, 1, 3, 5):
        t.add_pod(row, p)
        clocks.append(t.row_clock)
    t.remove_node("n2")
    clocks.append(t.row_clock)
    for clock in [0, *clocks]:
        expected = np.flatnonzero(t.row_version[: t.size] > clock)
        assert t.rows_changed_since(clock).tolist() == expected.tolist(), clock


def test_extended_resource_columns_appended() -> None:
    t = NodeTable()
    r1 = t.upsert_node(make_node("n1"))
    base = list(t.resources)
    r2 = t.upsert_node(make_node("gpu", extra={"nvidia.com/gpu": 4}))
    assert t.resources == [*base, "nvidia.com/gpu"]
    g = col(t, "nvidia.com/gpu")
    assert t.allocatable[r2, g] == 4
    assert t.allocatable[r1, g] == 0
    # a pod asking for an unknown extended resource adds a (zero) column too
    p = PodInfo.from_dict(make_pod("x", containers=[{"name": "c", "resources": {"limits": {"example.com/foo": "3"}}}]))
    vec = t.request_vector(p)
    assert t.resources[-1] == "example.com/foo"
    assert vec.shape == (len(t.resources),)
    assert vec[col(t, "example.com/foo")] == 3
    t.add_pod(r2, p)
    assert t.requested[r2, col(t, "example.com/foo")] == 3
    assert t.allocatable.shape[1] == t.requested.shape[1] == len(t.resources)
    # a vector memoised before a column was added is rebuilt with the right length
    q = pod("q", "1")
    old = t.request_vector(q)
    t.resource_column("example.com/bar")
    new = t.request_vector(q)
    assert new.shape[0] == old.shape[0] + 1
    assert new[col(t, "cpu")] == 1000


def test_row_reuse_after_removal() -> None:
    t = NodeTable()
    rows = [t.upsert_node(make_node(f"n{i}", labels={"i": str(i)})) for i in range(3)]
    p = pod("a", "1")
    t.add_pod(rows[1], p)
    assert t.remove_node("n1") == rows[1]
    assert t.remove_node("n1") is None
    assert "n1" not in t.row_of
    assert not t.alive[rows[1]]
    assert t.names[rows[1]] is None
    assert not t.requested[rows[1]].any()
    assert len(t) == 2
    size = t.size
    r = t.upsert_node(make_node("fresh", "2", "1Gi"))
    assert r == rows[1]
    assert t.size == size  # no new row used
    assert t.alive[r] and t.names[r] == "fresh"
    assert not t.requested[r].any()
    assert t.allocatable[r, col(t, "cpu")] == 2000
    assert t.labels_of(r) == {"kubernetes.io/hostname": "fresh"}


def test_growth_keeps_rows() -> None:
    t = NodeTable(capacity=4)
    for i in range(10):
        t.upsert_node(make_node(f"n{i}", str(i + 1)))
    assert t.capacity >= 10
    for i in range(10):
        assert t.allocatable[t.row_of[f"n{i}"], col(t, "cpu")] == (i + 1) * 1000
    assert t.alive[:10].all() and not t.alive[10:].any()


def test_update_node_keeps_requested() -> None:
    t = NodeTable()
    r = t.upsert_node(make_node("n1", "4"))
    t.add_pod(r, pod("a", "1"))
    assert t.upsert_node(make_node("n1", "8")) == r
    assert t.allocatable[r, col(t, "cpu")] == 8000
    assert t.requested[r, col(t, "cpu")] == 1000


def test_interned_label_and_taint_sets_shared() -> None:
    t = NodeTable()
    taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    rows = [
        t.upsert_node(make_node(f"n{i}", labels={"kubernetes.io/hostname": "same", "pool": "a"}, taints=taints))
        for i in range(5)
    ]
    other = t.upsert_node(make_node("x", labels={"kubernetes.io/hostname": "same", "pool": "b"}))
    ids = {int(t.label_set[r]) for r in rows}
    assert len(ids) == 1
    assert t.label_set[other] not in ids
    assert len({int(t.taint_set[r]) for r in rows}) == 1
    assert t.taint_set[other] == 0  # the empty taint set
    assert t.taints_of(rows[0]) == (Taint("dedicated", "gpu", "NoSchedule"),)
    assert t.labels_of(rows[0]) is t.labels_of(rows[4])  # one dict per distinct set
    view = t.view(np.asarray([*rows, other]))
    assert len(view.distinct_label_sets()) == 2
    assert len(view.distinct_taint_sets()) == 2
    per_set = np.zeros(len(t.label_sets), dtype=bool)
    per_set[t.label_set[other]] = True
    assert view.broadcast_label_sets(per_set).tolist() == [False] * 5 + [True]


def test_label_values_cache_invalidated_on_label_change() -> None:
    t = NodeTable()
    r1 = t.upsert_node(make_node("n1", labels={ZONE: "a"}))
    r2 = t.upsert_node(make_node("n2", labels={ZONE: "b"}))
    r3 = t.upsert_node(make_node("n3"))
    ids, values = t.label_values(ZONE)
    assert values[ids[r1]] == "a" and values[ids[r2]] == "b" and ids[r3] == -1
    assert t.label_values(ZONE)[0] is ids  # cached while nothing changes
    t.upsert_node(make_node("n3", labels={ZONE: "c"}))
    ids, values = t.label_values(ZONE)
    assert values[ids[r3]] == "c"
    t.upsert_node(make_node("n1", labels={ZONE: "b"}))
    ids, values = t.label_values(ZONE)
    assert ids[r1] == ids[r2] and values[ids[r1]] == "b"
    t.remove_node("n2")
    ids, _ = t.label_values(ZONE)
    assert ids[r2] == -1
    view = t.view(np.asarray([r3, r1]))
    vids, vvalues = view.label_values(ZONE)
    assert [vvalues[i] for i in vids] == ["c", "b"]


def test_zone_interleaved_order() -> None:
    t = NodeTable()
    spec = [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("b2", "b"), ("c1", "c")]
    for name, zone in spec:
        t.upsert_node(make_node(name, labels={REGION: "r", ZONE: zone}))
    order = [t.names[r] for r in t.ordered_rows().tolist()]
    assert order == ["a1", "b1", "c1", "a2", "b2", "a3"]
    t.remove_node("b1")
    order = [t.names[r] for r in t.ordered_rows().tolist()]
    assert order == ["a1", "b2", "c1", "a2", "a3"]


def test_zones_distinguished_by_region() -> None:
    t = NodeTable()
    t.upsert_node(make_node("x1", labels={REGION: "r1", ZONE: "z"}))
    t.upsert_node(make_node("x2", labels={REGION: "r1", ZONE: "z"}))
    t.upsert_node(make_node("y1", labels={REGION: "r2", ZONE: "z"}))
    assert [t.names[r] for r in t.ordered_rows().tolist()] == ["x1", "y1", "x2"]


def test_unschedulable_and_images() -> None:
    t = NodeTable()
    node = make_node("n1", unschedulable=True)
    node["status"]["images"] = [{"names": ["nginx", "docker.io/library/nginx@sha256:abc"], "sizeBytes": 100}]
    r = t.upsert_node(node)
    assert t.unschedulable[r]
    assert t.images_of(r) == {"nginx:latest": 100, "docker.io/library/nginx@sha256:abc": 100}
    assert t.image_node_count["nginx:latest"] == 1
    t.upsert_node(make_node("n1"))
    assert not t.unschedulable[r]
    assert t.image_node_count["nginx:latest"] == 0


def test_node_view_accessors() -> None:
    t = NodeTable()
    for i in range(4):
        t.upsert_node(make_node(f"n{i}", str(i + 1)))
    r = t.row_of["n2"]
    t.add_pod(r, pod("a", "500m"))
    view = t.view(np.asarray([t.row_of["n2"], t.row_of["n0"]]))
    assert len(view) == 2
    assert view.names == ["n2", "n0"]
    assert view.allocatable("cpu").tolist() == [3000, 1000]
    assert view.requested("cpu").tolist() == [500, 0]
    assert view.subset(np.asarray([False, True])).names == ["n0"]


@pytest.mark.parametrize(
    "node",
    [
        {"metadata": {}},
        {"metadata": {"name": "bad"}, "status": {"allocatable": {"cpu": "four"}}},
    ],
)
def test_bad_nodes(node: dict) -> None:
    t = NodeTable()
    with pytest.raises(NodeSpecError):
        t.upsert_node(node)
    assert len(t) == 0


def test_node_view_unknown_resource_reads_zeros_and_follows_growth() -> None:
    """A plugin reading an extended resource no node has yet gets zeros, then the real values."""
    t = NodeTable(capacity=2)
    t.upsert_node(make_node("n0"))
    t.upsert_node(make_node("n1"))
    view = t.view(t.ordered_rows())
    columns = list(t.resources)
    for read in (view.allocatable, view.requested):
        got = read("nvidia.com/gpu")
        assert got.dtype == np.int64 and got.tolist() == [0, 0]
    assert t.resources == columns  # reading does not add a column
    t.upsert_node(make_node("gpu", extra={"nvidia.com/gpu": 4}))  # new column and row growth
    view = t.view(t.ordered_rows())
    assert dict(zip(view.names, view.allocatable("nvidia.com/gpu").tolist(), strict=True)) == {
        "n0": 0, "n1": 0, "gpu": 4,
    }
    assert view.requested("nvidia.com/gpu").tolist() == [0, 0, 0]
    assert view.allocatable("example.com/fpga").tolist() == [0, 0, 0]


def test_add_pod_with_a_resource_no_node_has() -> None:
    """Placing a pod whose request names a resource the table has no column for yet (no plugin
    asked for its vector before) adds the column and counts the request there."""
    t = NodeTable()
    row = t.upsert_node(make_node("n1", "4", "8Gi"))
    pod = make_pod("p", "100m")
    pod["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = "2"
    info = PodInfo.from_dict(pod)
    t.add_pod(row, info)
    assert t.requested[row, t.resource_index["example.com/gpu"]] == 2
    t.remove_pod(row, info)
    assert t.requested[row, t.resource_index["example.com/gpu"]] == 0

"""VolumeRestrictions: disk conflicts per node and ReadWriteOncePod claims cluster-wide."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code, CycleState
from kubeberth.builtin_plugins.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_RWOP_CONFLICT,
    VolumeRestrictions,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import cluster_of, make_node, make_pod

GCE_A = {"name": "d", "gcePersistentDisk": {"pdName": "disk-a"}}
GCE_A_RO = {"name": "d", "gcePersistentDisk": {"pdName": "disk-a", "readOnly": True}}
GCE_B = {"name": "d", "gcePersistentDisk": {"pdName": "disk-b"}}
EBS_1 = {"name": "d", "awsElasticBlockStore": {"volumeID": "vol-1"}}
EBS_1_RO = {"name": "d", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}}
EBS_2 = {"name": "d", "awsElasticBlockStore": {"volumeID": "vol-2"}}
ISCSI_A = {"name": "d", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "lun": 0}}
ISCSI_A_RO = {"name": "d", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "lun": 0, "readOnly": True}}
ISCSI_B = {"name": "d", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "lun": 0}}
RBD_A = {"name": "d", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar"}}
RBD_A_RO = {"name": "d", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "readOnly": True}}
RBD_OVERLAP = {"name": "d", "rbd": {"monitors": ["b", "c"], "pool": "foo", "image": "bar"}}
RBD_OTHER_MON = {"name": "d", "rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar"}}
RBD_OTHER_IMAGE = {"name": "d", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "baz"}}


def setup(existing: list[tuple[str, list[dict[str, Any]]]], objects: list[tuple[str, dict[str, Any]]] = ()) -> ClusterState:
    return cluster_of(
        [make_node("n1"), make_node("n2")],
        [{**obj, "kind": kind} for kind, obj in objects],
        [make_pod(f"e{i}", uid=f"e{i}", nodeName=node, volumes=volumes) for i, (node, volumes) in enumerate(existing)],
    )


def run(cluster: ClusterState, volumes: list[dict[str, Any]]) -> tuple[Any, dict[str, bool], dict[str, set[str]]]:
    plugin = VolumeRestrictions()
    pod = PodInfo.from_dict(make_pod("new", uid="new", volumes=volumes))
    state = CycleState()
    status = plugin.pre_filter(state, pod, cluster)
    if status is not None:
        return status, {}, {}
    nodes = cluster.table.view(cluster.table.ordered_rows())
    result = plugin.filter(state, pod, nodes, cluster)
    feasible = dict(zip(nodes.names, (bool(x) for x in result.feasible), strict=True))
    reasons: dict[str, set[str]] = {}
    for rej in result.rejections:
        assert rej.code == Code.UNSCHEDULABLE
        for name, hit in zip(nodes.names, rej.nodes, strict=True):
            if hit:
                reasons.setdefault(name, set()).add(rej.reason)
    return None, feasible, reasons


@pytest.mark.parametrize(
    ("existing", "new", "conflict"),
    [
        (GCE_A, GCE_A, True),
        (GCE_A, GCE_B, False),
        (GCE_A_RO, GCE_A_RO, False),  # read-only everywhere may share
        (GCE_A_RO, GCE_A, True),
        (EBS_1, EBS_1, True),
        (EBS_1_RO, EBS_1_RO, True),  # EBS never shares
        (EBS_1, EBS_2, False),
        (ISCSI_A, ISCSI_A, True),
        (ISCSI_A_RO, ISCSI_A_RO, False),
        (ISCSI_A, ISCSI_B, False),
        (RBD_A, RBD_A, True),
        (RBD_A, RBD_OVERLAP, True),  # one shared monitor is enough
        (RBD_A, RBD_OTHER_MON, False),
        (RBD_A, RBD_OTHER_IMAGE, False),
        (RBD_A_RO, RBD_A_RO, False),
        (GCE_A, EBS_1, False),
    ],
)
def test_disk_conflict(existing: dict[str, Any], new: dict[str, Any], conflict: bool) -> None:
    cluster = setup([("n1", [existing])])
    status, feasible, reasons = run(cluster, [new])
    assert status is None
    assert feasible == {"n1": not conflict, "n2": True}
    if conflict:
        assert reasons == {"n1": {ERR_REASON_DISK_CONFLICT}}


def test_disk_conflict_released_when_pod_leaves() -> None:
    cluster = setup([("n1", [GCE_A])])
    assert run(cluster, [GCE_A])[1] == {"n1": False, "n2": True}
    cluster.remove_pod("e0")
    assert run(cluster, [GCE_A])[1] == {"n1": True, "n2": True}


def test_no_volumes_skips() -> None:
    cluster = setup([("n1", [GCE_A])])
    status, _, _ = run(cluster, [])
    assert status is not None and status.code == Code.SKIP


def rwop_claim(name: str, modes: list[str]) -> tuple[str, dict[str, Any]]:
    return (
        "PersistentVolumeClaim",
        {"metadata": {"name": name, "namespace": "default"}, "spec": {"accessModes": modes}},
    )


def claim_volume(claim: str) -> dict[str, Any]:
    return {"name": "data", "persistentVolumeClaim": {"claimName": claim}}


def test_read_write_once_pod_in_use_rejects_every_node() -> None:
    cluster = setup([("n1", [claim_volume("db")])], [rwop_claim("db", ["ReadWriteOncePod"])])
    status, feasible, reasons = run(cluster, [claim_volume("db")])
    assert status is None
    assert feasible == {"n1": False, "n2": False}
    assert reasons == {"n1": {ERR_REASON_RWOP_CONFLICT}, "n2": {ERR_REASON_RWOP_CONFLICT}}


def test_read_write_once_pod_unused_or_other_mode_passes() -> None:
    cluster = setup([], [rwop_claim("db", ["ReadWriteOncePod"])])
    assert run(cluster, [claim_volume("db")])[0].code == Code.SKIP
    cluster = setup([("n1", [claim_volume("db")])], [rwop_claim("db", ["ReadWriteOnce"])])
    assert run(cluster, [claim_volume("db")])[0].code == Code.SKIP


def test_read_write_once_pod_released_after_removal() -> None:
    cluster = setup([("n2", [claim_volume("db")])], [rwop_claim("db", ["ReadWriteOncePod"])])
    assert run(cluster, [claim_volume("db")])[1] == {"n1": False, "n2": False}
    cluster.remove_pod("e0")
    assert run(cluster, [claim_volume("db")])[0].code == Code.SKIP


def test_missing_claim_is_unresolvable() -> None:
    cluster = setup([])
    status, _, _ = run(cluster, [claim_volume("nope")])
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ('persistentvolumeclaim "nope" not found',)


def test_disk_conflict_takes_precedence_over_rwop() -> None:
    cluster = setup(
        [("n1", [GCE_A]), ("n2", [claim_volume("db")])], [rwop_claim("db", ["ReadWriteOncePod"])]
    )
    _, feasible, reasons = run(cluster, [GCE_A, claim_volume("db")])
    assert feasible == {"n1": False, "n2": False}
    assert reasons == {"n1": {ERR_REASON_DISK_CONFLICT}, "n2": {ERR_REASON_RWOP_CONFLICT}}

"""VolumeZone: table tests after kube-scheduler's volume_zone_test.go semantics."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code, CycleState, Status
from kubeberth.builtin_plugins.volume_zone import ERR_REASON_CONFLICT, VolumeZone, label_zones_to_set
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import cluster_of, make_node, make_pod

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"


def pv(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"kind": "PersistentVolume", "metadata": {"name": name, "labels": labels}, "spec": {}}


def pvc(name: str, volume: str = "", storage_class: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if volume:
        spec["volumeName"] = volume
    if storage_class:
        spec["storageClassName"] = storage_class
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pod_with_claims(*claims: str) -> PodInfo:
    vols = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)]
    return PodInfo.from_dict(make_pod("p", volumes=vols))


def cluster_with(objects: list[tuple[str, dict[str, Any]]], nodes: list[dict[str, Any]]) -> ClusterState:
    return cluster_of(nodes, [{**obj, "kind": kind} for kind, obj in objects])


def run(cluster: ClusterState, pod: PodInfo) -> tuple[Status | None, list[bool], list[str]]:
    plugin = VolumeZone()
    state = CycleState()
    status = plugin.pre_filter(state, pod, cluster)
    table = cluster.table
    nodes = table.view(table.ordered_rows())
    if status is not None:
        return status, [], []
    result = plugin.filter(state, pod, nodes, cluster)
    names = nodes.names
    feasible = [bool(x) for x in result.feasible]
    reasons = sorted({r.reason for r in result.rejections})
    for r in result.rejections:
        assert r.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return None, dict(zip(names, feasible, strict=True)), reasons


@pytest.mark.parametrize(
    ("pv_labels", "node_labels", "fits"),
    [
        ({ZONE: "us-west1-a"}, {ZONE: "us-west1-a"}, True),
        ({ZONE: "us-west1-a"}, {ZONE: "us-west1-b"}, False),
        ({ZONE: "us-west1-a"}, {}, True),  # node without zone labels: single-zone cluster
        ({ZONE: "us-west1-a"}, {"other": "x"}, True),
        ({ZONE: "us-west1-a"}, {REGION: "us-west1"}, False),  # node has a topology label but not the zone
        ({ZONE: "us-west1-a__us-west1-b"}, {ZONE: "us-west1-b"}, True),
        ({ZONE: "us-west1-a__us-west1-b"}, {ZONE: "us-west1-c"}, False),
        ({BETA_ZONE: "us-west1-a"}, {ZONE: "us-west1-a"}, True),  # beta PV label vs GA node label
        ({BETA_ZONE: "us-west1-a"}, {BETA_ZONE: "us-west1-b", ZONE: "us-west1-a"}, False),
        ({BETA_REGION: "r1", BETA_ZONE: "z1"}, {BETA_REGION: "r1", BETA_ZONE: "z1"}, True),
        ({REGION: "r1", ZONE: "z1"}, {REGION: "r2", ZONE: "z1"}, False),
        ({ZONE: "a____b"}, {ZONE: "c"}, True),  # malformed label value: ignored
    ],
)
def test_zone_match(pv_labels: dict[str, str], node_labels: dict[str, str], fits: bool) -> None:
    cluster = cluster_with(
        [("PersistentVolume", pv("vol", pv_labels)), ("PersistentVolumeClaim", pvc("claim", "vol"))],
        [make_node("n1", labels=node_labels)],
    )
    status, feasible, reasons = run(cluster, pod_with_claims("claim"))
    if status is not None:  # no topology at all -> Skip
        assert status.code == Code.SKIP
        assert fits
        return
    assert feasible == {"n1": fits}
    assert reasons == ([] if fits else [ERR_REASON_CONFLICT])


def test_batch_per_label_set() -> None:
    nodes = [make_node(f"n{i}", labels={ZONE: "a" if i % 2 else "b"}) for i in range(6)]
    cluster = cluster_with(
        [("PersistentVolume", pv("vol", {ZONE: "a"})), ("PersistentVolumeClaim", pvc("claim", "vol"))], nodes
    )
    _, feasible, _ = run(cluster, pod_with_claims("claim"))
    assert feasible == {f"n{i}": bool(i % 2) for i in range(6)}


def test_pod_without_claims_or_topology_skips() -> None:
    cluster = cluster_with(
        [("PersistentVolume", pv("vol", {})), ("PersistentVolumeClaim", pvc("claim", "vol"))], [make_node("n1")]
    )
    assert run(cluster, PodInfo.from_dict(make_pod("p")))[0].code == Code.SKIP
    assert run(cluster, pod_with_claims("claim"))[0].code == Code.SKIP


@pytest.mark.parametrize(
    ("objects", "claim", "message"),
    [
        ([], "missing", 'persistentvolumeclaim "missing" not found'),
        ([("PersistentVolumeClaim", pvc("c", "nope"))], "c", 'persistentvolume "nope" not found'),
        ([("PersistentVolumeClaim", pvc("c"))], "c", "PersistentVolumeClaim had no pv name and storageClass name"),
        ([("PersistentVolumeClaim", pvc("c", storage_class="sc"))], "c", 'storageclass.storage.k8s.io "sc" not found'),
        (
            [
                ("PersistentVolumeClaim", pvc("c", storage_class="sc")),
                ("StorageClass", {"metadata": {"name": "sc"}, "volumeBindingMode": "Immediate"}),
            ],
            "c",
            "PersistentVolume had no name",
        ),
        ([], "", "PersistentVolumeClaim had no name"),
    ],
)
def test_pre_filter_errors(objects: list[tuple[str, dict[str, Any]]], claim: str, message: str) -> None:
    cluster = cluster_with(objects, [make_node("n1")])
    status, _, _ = run(cluster, pod_with_claims(claim))
    assert status is not None
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == (message,)


def test_wait_for_first_consumer_unbound_claim_is_skipped() -> None:
    cluster = cluster_with(
        [
            ("PersistentVolumeClaim", pvc("c", storage_class="wffc")),
            ("StorageClass", {"metadata": {"name": "wffc"}, "volumeBindingMode": "WaitForFirstConsumer"}),
            ("PersistentVolume", pv("vol", {ZONE: "a"})),
            ("PersistentVolumeClaim", pvc("bound", "vol")),
        ],
        [make_node("n1", labels={ZONE: "a"}), make_node("n2", labels={ZONE: "b"})],
    )
    status, feasible, _ = run(cluster, pod_with_claims("c", "bound"))
    assert status is None
    assert feasible == {"n1": True, "n2": False}


def test_label_zones_to_set() -> None:
    assert label_zones_to_set("a__b") == {"a", "b"}
    assert label_zones_to_set("a") == {"a"}
    assert label_zones_to_set("") == frozenset()
    assert label_zones_to_set("a____b") is None

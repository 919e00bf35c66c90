"""VolumeBinding end to end on the embedded cluster: the chosen PV ends up bound to the claim."""

from __future__ import annotations

from typing import Any

from kubeberth.testing import make_node, make_pod, make_pv, make_pvc


def _pod(name: str, claim: str) -> dict[str, Any]:
    return make_pod(name, "100m", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])


def test_wait_for_first_consumer_claim_binds_the_pv_on_the_chosen_node(scheduler_tester) -> None:
    objects = [
        {"kind": "StorageClass", "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"kind": "StorageClass", "metadata": {"name": "dynamic"}, "provisioner": "csi.example.com",
         "volumeBindingMode": "WaitForFirstConsumer"},
        make_node("a", "4", "8Gi", zone="z1"), make_node("b", "4", "8Gi", zone="z2"),
        make_pv("small-on-a", "1Gi", "local", nodes=["a"]), make_pv("big-on-b", "10Gi", "local", nodes=["b"]),
        make_pvc("data", "5Gi", "local"), make_pvc("scratch", "1Gi", "dynamic"),
        _pod("db", "data"), _pod("tmp", "scratch"),
    ]
    result = scheduler_tester(default_plugins=True).simulate(objects, seed=1)
    assert result.placements["default/db"] == "b"  # only big-on-b is large enough
    pv = result.backend.get("PersistentVolume", "big-on-b")
    assert pv["spec"]["claimRef"]["name"] == "data" and pv["status"]["phase"] == "Bound"
    pvc = result.backend.get("PersistentVolumeClaim", "default/data")
    assert pvc["spec"]["volumeName"] == "big-on-b" and pvc["status"]["phase"] == "Bound"
    assert "claimRef" not in result.backend.get("PersistentVolume", "small-on-a")["spec"]
    scratch = result.backend.get("PersistentVolumeClaim", "default/scratch")
    node = result.placements["default/tmp"]
    assert scratch["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node


def _capacity_objects() -> list[dict[str, Any]]:
    """A CSI driver publishing capacity, three equal nodes with 100Gi, 20Gi and 5Gi left in its pool."""
    objects: list[dict[str, Any]] = [
        {"kind": "StorageClass", "metadata": {"name": "pool"}, "provisioner": "pool.csi.example.com",
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"kind": "CSIDriver", "metadata": {"name": "pool.csi.example.com"}, "spec": {"storageCapacity": True}},
        make_pvc("data", "10Gi", "pool"), _pod("db", "data"),
    ]
    for name, free in (("a", "100Gi"), ("b", "20Gi"), ("c", "5Gi")):
        objects.append(make_node(name, "4", "8Gi"))
        objects.append({
            "kind": "CSIStorageCapacity", "metadata": {"name": f"pool-{name}", "namespace": "kube-system"},
            "storageClassName": "pool", "capacity": free,
            "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": name}},
        })
    return objects


def test_storage_capacity_rejects_full_pools_and_prefers_the_emptiest(scheduler_tester) -> None:
    """StorageCapacityScoring (on by default): c's pool cannot hold 10Gi; a's is 10% used after, b's 50%."""
    tester = scheduler_tester(default_plugins=True)
    assert {tester.simulate(_capacity_objects(), seed=seed).placements["default/db"] for seed in range(8)} == {"a"}
    result = tester.simulate(_capacity_objects(), seed=1)
    claim = result.backend.get("PersistentVolumeClaim", "default/data")
    assert claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "a"


def test_without_storage_capacity_scoring_the_capacity_check_still_filters(scheduler_tester) -> None:
    tester = scheduler_tester(default_plugins=True, feature_gates="StorageCapacityScoring=false")
    placed = {tester.simulate(_capacity_objects(), seed=seed).placements["default/db"] for seed in range(8)}
    assert placed <= {"a", "b"} and "c" not in placed

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

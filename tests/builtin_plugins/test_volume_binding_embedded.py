"""VolumeBinding end to end on the embedded cluster: the chosen PV ends up bound to the claim."""

from __future__ import annotations

from typing import Any

from kubeberth.apps.simulate import simulate
from kubeberth.runtime.generation import build_generation


def _node(name: str, zone: str) -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"kind": "Node", "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
            "status": {"allocatable": alloc}}


def _pv(name: str, node: str, size: str) -> dict[str, Any]:
    return {
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}},
        },
        "status": {"phase": "Available"},
    }


def _pvc(name: str, size: str, storage_class: str = "local") -> dict[str, Any]:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "resources": {"requests": {"storage": size}}}}


def _pod(name: str, claim: str) -> dict[str, Any]:
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]}}


def test_wait_for_first_consumer_claim_binds_the_pv_on_the_chosen_node() -> None:
    objects = [
        {"kind": "StorageClass", "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"kind": "StorageClass", "metadata": {"name": "dynamic"}, "provisioner": "csi.example.com",
         "volumeBindingMode": "WaitForFirstConsumer"},
        _node("a", "z1"), _node("b", "z2"),
        _pv("small-on-a", "a", "1Gi"), _pv("big-on-b", "b", "10Gi"),
        _pvc("data", "5Gi"), _pvc("scratch", "1Gi", storage_class="dynamic"),
        _pod("db", "data"), _pod("tmp", "scratch"),
    ]
    result = simulate(build_generation(), objects, seed=1)
    assert result.placements["default/db"] == "b"  # only big-on-b is large enough
    pv = result.backend.get("PersistentVolume", "big-on-b")
    assert pv["spec"]["claimRef"]["name"] == "data" and pv["status"]["phase"] == "Bound"
    pvc = result.backend.get("PersistentVolumeClaim", "default/data")
    assert pvc["spec"]["volumeName"] == "big-on-b" and pvc["status"]["phase"] == "Bound"
    assert "claimRef" not in result.backend.get("PersistentVolume", "small-on-a")["spec"]
    scratch = result.backend.get("PersistentVolumeClaim", "default/scratch")
    node = result.placements["default/tmp"]
    assert scratch["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node

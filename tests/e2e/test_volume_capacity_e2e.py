"""VolumeBinding with storage capacity on a real API server: kubeberth's informers see
CSIStorageCapacity objects (with config/rbac.yaml's list/watch only), reject nodes whose pool
cannot hold a claim, and prefer the emptiest pool (StorageCapacityScoring, on by default in
v1.37) as kube-scheduler v1.37.2 does.

No provisioner runs here: each scheduler's decision is read from the selected-node annotation it
writes on the claim in PreBind (where it then waits for a provisioner), and the pod and claim are
deleted before the other scheduler's turn."""

from __future__ import annotations

from typing import Any

from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

SELECTED_NODE = "volume.kubernetes.io/selected-node"


def test_storage_capacity_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str, nodes: list[str],
                                              start_kubeberth: Any) -> None:
    """Three equal nodes with 5Gi, 20Gi and 100Gi left in a CSI driver's pool: a 10Gi claim cannot
    go to the first, and both schedulers prefer the last (10% used after, against 50%)."""
    sfx = suffix()
    ns = namespace
    driver, storage_class = f"capacity-{sfx}.csi.example.com", f"pool-{sfx}"
    free = {f"vc-tiny-{sfx}": "5Gi", f"vc-small-{sfx}": "20Gi", f"vc-big-{sfx}": "100Gi"}
    big = f"vc-big-{sfx}"
    for node in free:
        api.create_node(node, "8", "16Gi")
        nodes.append(node)
    api.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": storage_class},
        "provisioner": driver, "volumeBindingMode": "WaitForFirstConsumer"})
    api.call("POST", "/apis/storage.k8s.io/v1/csidrivers", {
        "apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": driver},
        "spec": {"storageCapacity": True, "attachRequired": False}})
    for node, size in free.items():
        api.call("POST", f"/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities", {
            "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": node},
            "storageClassName": storage_class, "capacity": size,
            "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": node}}})
    start_kubeberth()

    def place(name: str) -> dict[str, str]:
        """The node each scheduler selects for a 10Gi claim (kubeberth first, then kube-scheduler)."""
        out = {}
        for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
            claim, pod = f"{prefix}-{name}-data", f"{prefix}-{name}"
            api.call("POST", f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                "spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "10Gi"}}}})
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod}, "spec": {
                    "schedulerName": scheduler,
                    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
                    "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                    "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}}}]}})

            def selected(c: str = claim) -> str | None:
                pvc = api.call("GET", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{c}")
                return ((pvc.get("metadata") or {}).get("annotations") or {}).get(SELECTED_NODE)

            out[scheduler] = wait_for(selected, 30, f"{scheduler} to select a node for {claim}")
            api.delete_pod(ns, pod)
            wait_for(lambda p=pod: api.pod(ns, p) is None, 10, f"{pod} deleted")
            api.call("DELETE", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{claim}", ok=(200, 202, 404))
        return out

    seen: list[dict[str, str]] = []

    def agreed() -> dict[str, str] | None:
        """Both informers see the CSIStorageCapacity objects at their own moment: place until both pick big."""
        seen.append(place(f"c{len(seen)}"))
        return seen[-1] if set(seen[-1].values()) == {big} else None

    try:
        assert wait_for(agreed, 60, "both schedulers to prefer the emptiest pool") == {
            PROFILE: big, "default-scheduler": big}
    except AssertionError:
        raise AssertionError(f"placements {seen}") from None
    finally:
        api.call("DELETE", f"/apis/storage.k8s.io/v1/csidrivers/{driver}", ok=(200, 202, 404))
        api.call("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{storage_class}", ok=(200, 202, 404))

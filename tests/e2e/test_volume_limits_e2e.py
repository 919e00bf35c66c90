"""NodeVolumeLimits on a real API server: kubeberth's informers see CSINodes and VolumeAttachments
(with config/rbac.yaml's list/watch only) and place pods with attachable volumes as kube-scheduler
v1.37.2 does."""

from __future__ import annotations

from typing import Any

from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

EBS = "ebs.csi.aws.com"


def _pod(name: str, scheduler: str, volume_id: str) -> dict[str, Any]:
    """A pod with an inline AWS EBS volume: migrated to CSI, so it counts against ebs.csi.aws.com."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "schedulerName": scheduler,
        "volumes": [{"name": "data", "awsElasticBlockStore": {"volumeID": volume_id}}],
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}}}]}}


def _csinode(node: str, count: int) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": node},
            "spec": {"drivers": [{"name": EBS, "nodeID": node, "allocatable": {"count": count}}]}}


def test_csi_attach_limits_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str, nodes: list[str],
                                               start_kubeberth: Any) -> None:
    """A big node every scheduler prefers by resources, with an EBS attach limit in its CSINode, and
    a small node without one: limit 0 sends the pod to the small node; limit 1 lets it on the big
    one; a VolumeAttachment of another EBS volume on the big node fills that one slot again."""
    sfx = suffix()
    big, small = f"vl-big-{sfx}", f"vl-small-{sfx}"
    api.create_node(big, "64", "128Gi")
    api.create_node(small, "4", "8Gi")
    nodes.extend([big, small])
    api.call("POST", "/apis/storage.k8s.io/v1/csinodes", _csinode(big, 0))
    start_kubeberth()
    ns = namespace

    def place(name: str) -> dict[str, str]:
        """kubeberth's choice, then kube-scheduler's on the same state."""
        out = {}
        for scheduler, pod_name in ((PROFILE, f"k-{name}"), ("default-scheduler", f"d-{name}")):
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(pod_name, scheduler, f"vol-{name}"))
            out[scheduler] = wait_for(lambda p=pod_name: api.bound(ns).get(p), 30, f"{scheduler} to bind {pod_name}")
            api.delete_pod(ns, pod_name)
            wait_for(lambda p=pod_name: api.pod(ns, p) is None, 10, f"{pod_name} deleted")
        return out

    def settled(name: str, expected: str, what: str) -> dict[str, str]:
        """Place pairs until both choose `expected`: each scheduler's informer sees a CSINode or
        VolumeAttachment change at its own moment. A pair that never agrees fails with the last."""
        seen: list[dict[str, str]] = []

        def agreed() -> dict[str, str] | None:
            seen.append(place(name))
            return seen[-1] if set(seen[-1].values()) == {expected} else None

        try:
            return wait_for(agreed, 30, what)
        except AssertionError:
            raise AssertionError(f"timed out waiting for {what}; last placements {seen[-1:]}") from None

    assert place("zero") == {PROFILE: small, "default-scheduler": small}

    csinode = api.call("GET", f"/apis/storage.k8s.io/v1/csinodes/{big}")
    csinode["spec"]["drivers"][0]["allocatable"]["count"] = 1
    api.call("PUT", f"/apis/storage.k8s.io/v1/csinodes/{big}", csinode)
    assert settled("one", big, "both schedulers to see the raised limit") == {PROFILE: big, "default-scheduler": big}

    pv = f"pv-{sfx}"
    api.call("POST", "/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "csi": {"driver": EBS, "volumeHandle": f"vol-attached-{sfx}"}}})
    va = f"va-{sfx}"
    api.call("POST", "/apis/storage.k8s.io/v1/volumeattachments", {
        "apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": va},
        "spec": {"attacher": EBS, "nodeName": big, "source": {"persistentVolumeName": pv}}})
    try:
        full = settled("full", small, "both schedulers to see the VolumeAttachment")
        assert full == {PROFILE: small, "default-scheduler": small}
    finally:
        api.call("DELETE", f"/apis/storage.k8s.io/v1/volumeattachments/{va}", ok=(200, 202, 404))
        api.call("DELETE", f"/api/v1/persistentvolumes/{pv}", ok=(200, 202, 404))
        api.call("DELETE", f"/apis/storage.k8s.io/v1/csinodes/{big}", ok=(200, 202, 404))

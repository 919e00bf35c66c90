"""PodTopologySpread's system-default constraints on a real API server: kubeberth's informers see
Services, ReplicaSets, StatefulSets and ReplicationControllers (with config/rbac.yaml's list/watch
only) and spread their pods as kube-scheduler v1.37.2 does."""

from __future__ import annotations

from typing import Any

from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix


def _pod(name: str, scheduler: str, labels: dict[str, str], cpu: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": {
        "schedulerName": scheduler, **spec,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}}


def test_service_and_replicaset_pods_spread_like_kube_scheduler(kube_scheduler: Any, api: Api, namespace: str,
                                                                nodes: list[str], start_kubeberth: Any) -> None:
    """A big node holding four `web` pods against two small busy ones: by resources the big node
    wins; with the `web` Service (or the ReplicaSet owning the pod) the default hostname spread
    sends the next `web` pod to a small node. Both schedulers must agree on every choice."""
    sfx = suffix()
    big, small = f"ds-big-{sfx}", [f"ds-s{i}-{sfx}" for i in range(2)]
    api.create_node(big, "64", "128Gi")
    for name in small:
        api.create_node(name, "4", "8Gi")
    nodes.extend([big, *small])
    ns = namespace
    for i in range(4):
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(f"web-{i}", PROFILE, {"app": "web"}, "10m", nodeName=big))
    for i, name in enumerate(small):
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", _pod(f"busy-{i}", PROFILE, {"app": "busy"}, "2", nodeName=name))
    start_kubeberth()

    def place(name: str, labels: dict[str, str], **meta: Any) -> dict[str, str]:
        """kubeberth's choice, then kube-scheduler's on the same state."""
        out = {}
        for scheduler, pod_name in ((PROFILE, f"k-{name}"), ("default-scheduler", f"d-{name}")):
            body = _pod(pod_name, scheduler, labels, "10m")
            body["metadata"].update(meta)
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", body)
            out[scheduler] = wait_for(lambda p=pod_name: api.bound(ns).get(p), 30, f"{scheduler} to bind {pod_name}")
            api.delete_pod(ns, pod_name)
            wait_for(lambda p=pod_name: api.pod(ns, p) is None, 10, f"{pod_name} deleted")
        return out

    alone = place("alone", {"app": "web"})
    assert alone == {PROFILE: big, "default-scheduler": big}, alone

    api.call("POST", f"/api/v1/namespaces/{ns}/services", {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
    with_service = wait_for(lambda: (lambda o: o if o[PROFILE] != big else None)(place("svc", {"app": "web"})), 30,
                            "kubeberth to see the Service")
    assert with_service[PROFILE] in small and with_service["default-scheduler"] in small, with_service
    api.call("DELETE", f"/api/v1/namespaces/{ns}/services/web")

    rs = api.call("POST", f"/apis/apps/v1/namespaces/{ns}/replicasets", {
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}})
    owner = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                  "uid": rs["metadata"]["uid"], "controller": True}]}
    owned = wait_for(lambda: (lambda o: o if o[PROFILE] != big else None)(place("rs", {"app": "web"}, **owner)), 30,
                     "kubeberth to see the ReplicaSet")
    assert owned[PROFILE] in small and owned["default-scheduler"] in small, owned

"""NominatedNodeNameForExpectation on a real API server: a pod whose PreBind has work (a
WaitForFirstConsumer claim to provision) shows where it goes in status.nominatedNodeName before
PreBind starts, as kube-scheduler v1.37.2 does; a pod with nothing to do in PreBind is bound
without any nomination write (read from a watch on the pod, every change in order).

No provisioner runs here: PreBind writes the claim's selected-node annotation and then waits for
one, so the pod stays in PreBind. The nomination is written (and waited for) before PreBind, so
once the annotation is visible the nomination must be too: no timing is assumed."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any

from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, suffix

SELECTED_NODE = "volume.kubernetes.io/selected-node"


def _watch_until_bound(cp: LocalControlPlane, ns: str, name: str, resource_version: str) -> list[dict[str, Any]]:
    """Every version of the pod from `resource_version` on until it has a node (a watch, in order)."""
    query = urllib.parse.urlencode({
        "watch": "true", "fieldSelector": f"metadata.name={name}", "resourceVersion": resource_version,
        "timeoutSeconds": "60", "allowWatchBookmarks": "false",
    })
    req = urllib.request.Request(f"{cp.server}/api/v1/namespaces/{ns}/pods?{query}")
    req.add_header("Authorization", f"Bearer {cp.admin_token}")
    seen: list[dict[str, Any]] = []
    with urllib.request.urlopen(req, timeout=70, context=cp._ssl) as resp:
        for line in resp:
            event = json.loads(line)
            if event.get("type") not in ("ADDED", "MODIFIED"):
                continue
            seen.append(event["object"])
            if (event["object"].get("spec") or {}).get("nodeName"):
                return seen
    raise AssertionError(f"{ns}/{name} was not bound within the watch; versions seen: {len(seen)}")


def test_nominated_node_written_before_prebind_like_kube_scheduler(
    control_plane: LocalControlPlane, kube_scheduler: Any, api: Api, namespace: str, nodes: list[str],
    start_kubeberth: Any,
) -> None:
    sfx = suffix()
    ns = namespace
    node = f"nnn-{sfx}"
    api.create_node(node, "8", "16Gi")
    nodes.append(node)
    storage_class = f"wffc-{sfx}"
    api.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": storage_class},
        "provisioner": f"nnn-{sfx}.csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"})
    start_kubeberth()
    try:
        # A pod without volumes or claims: every PreBind plugin skips, so no nomination is written.
        plain = api.create_pod(ns, "plain")
        versions = _watch_until_bound(control_plane, ns, "plain", plain["metadata"]["resourceVersion"])
        assert [v["status"].get("nominatedNodeName") for v in versions if v["status"].get("nominatedNodeName")] == []

        def in_prebind(scheduler: str, prefix: str) -> tuple[str, str]:
            """(selected node, the pod's nominatedNodeName once PreBind has selected it)."""
            claim, pod = f"{prefix}-data", f"{prefix}-pod"
            api.call("POST", f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
                "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                "spec": {"storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "1Gi"}}}})
            api.call("POST", f"/api/v1/namespaces/{ns}/pods", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod}, "spec": {
                    "schedulerName": scheduler,
                    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
                    "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                    "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}}}]}})

            def selected() -> str | None:
                pvc = api.call("GET", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{claim}")
                return ((pvc.get("metadata") or {}).get("annotations") or {}).get(SELECTED_NODE)

            chosen = wait_for(selected, 60, f"{scheduler} to reach PreBind for {pod}")
            current = api.pod(ns, pod) or {}
            assert not (current.get("spec") or {}).get("nodeName"), "bound without a provisioner"
            nominated = (current.get("status") or {}).get("nominatedNodeName") or ""
            api.delete_pod(ns, pod)
            wait_for(lambda: api.pod(ns, pod) is None, 20, f"{pod} deleted")
            api.call("DELETE", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{claim}", ok=(200, 202, 404))
            return chosen, nominated

        for scheduler, prefix in ((PROFILE, "k"), ("default-scheduler", "d")):
            chosen, nominated = in_prebind(scheduler, prefix)
            assert nominated == chosen, f"{scheduler}: nominatedNodeName {nominated!r} while provisioning on {chosen!r}"
    finally:
        api.call("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{storage_class}", ok=(200, 202, 404))

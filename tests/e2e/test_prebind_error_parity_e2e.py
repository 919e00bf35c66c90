"""A PreBind Error reported as kube-scheduler v1.37.2 reports it, on one real API server: a pod
whose WaitForFirstConsumer claim nobody provisions waits in VolumeBinding's PreBind until
bindTimeoutSeconds passes, and both schedulers then write the same FailedScheduling event and
PodScheduled condition: `running PreBind plugin "VolumeBinding": binding volumes: context
deadline exceeded` (the framework's wrapped text, reason SchedulerError)."""

from __future__ import annotations

from typing import Any

import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, suffix

TIMEOUT_PROFILE = "vb-timeout"
VB_ARGS = {"bindTimeoutSeconds": 2}
WANT = 'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded'


def test_prebind_error_text_matches_kube_scheduler(
    control_plane: LocalControlPlane, api: Api, namespace: str, nodes: list[str], start_kubeberth: Any, tmp_path: Any,
) -> None:
    sfx = suffix()
    ns = namespace
    node = f"pbe-{sfx}"
    api.create_node(node, "8", "16Gi")
    nodes.append(node)
    storage_class = f"unprovisioned-{sfx}"
    api.call("POST", "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": storage_class},
        "provisioner": f"pbe-{sfx}.csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"})
    config = tmp_path / "ks.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": TIMEOUT_PROFILE, "pluginConfig": [{"name": "VolumeBinding", "args": {
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "VolumeBindingArgs", **VB_ARGS}}]}]}))
    ks = control_plane.start_kube_scheduler(config, name=f"kube-scheduler-pbe-{sfx}")
    start_kubeberth(plugin_config=[{"name": "VolumeBinding", "args": VB_ARGS}])
    try:
        def failed(scheduler: str, prefix: str) -> tuple[str, str, str]:
            """(event note, condition reason, condition message) of the pod's first binding failure."""
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

            def event() -> str | None:
                for e in api.events(ns):
                    if (e.get("regarding") or {}).get("name") == pod and e.get("reason") == "FailedScheduling":
                        return e.get("note") or ""
                return None

            note = wait_for(event, 60, f"{scheduler}: FailedScheduling for {pod}")

            def condition() -> dict[str, Any] | None:
                current = api.pod(ns, pod) or {}
                for c in (current.get("status") or {}).get("conditions") or ():
                    if c.get("type") == "PodScheduled" and c.get("status") == "False":
                        return c
                return None

            cond = wait_for(condition, 30, f"{scheduler}: PodScheduled=False on {pod}")
            api.delete_pod(ns, pod)
            return note, cond.get("reason", ""), cond.get("message", "")

        theirs = failed(TIMEOUT_PROFILE, "k")
        ours = failed(PROFILE, "b")
        assert theirs == (WANT, "SchedulerError", WANT), theirs
        assert ours == theirs
    finally:
        ks.stop()
        if ks in control_plane.schedulers:
            control_plane.schedulers.remove(ks)
        api.call("DELETE", f"/apis/storage.k8s.io/v1/storageclasses/{storage_class}", ok=(200, 202, 404))

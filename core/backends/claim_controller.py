"""The embedded cluster's resource claim controller (kube-controller-manager's resourceclaim
controller, the part that changes where pods land): a pod naming a ResourceClaimTemplate gets its
own ResourceClaim, named in the pod's `status.resourceClaimStatuses`; when a pod goes, its
reservations go, its generated claims are deleted, and a claim nobody reserves any more is
deallocated so its devices are free again.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, Protocol


class ObjectStore(Protocol):
    """The object store the controller reads and writes: the embedded cluster (a controller's
    clientset and listers in kube-controller-manager)."""

    def get(self, kind: str, key: str) -> dict[str, Any] | None: ...

    def list(self, kind: str) -> list[dict[str, Any]]: ...

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]: ...

    def delete(self, kind: str, key: str) -> dict[str, Any] | None: ...

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> object: ...


POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # utilrand's alphanums (no vowels, no ambiguous digits)


def _suffix(seed: str) -> str:
    digest = hashlib.sha1(seed.encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:5])


def generate_claims(cluster: ObjectStore, pod: dict[str, Any]) -> None:
    """Create the claims of the pod's template references that have none yet (in place on `pod`)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("resourceClaims"), list) or spec.get("nodeName"):
        return  # nothing to do, or unreadable: the scheduler reports a malformed pod itself
    pod_claims = [c for c in spec["resourceClaims"] if isinstance(c, dict)]
    meta = pod.get("metadata") or {}
    if not isinstance(pod.get("status", {}), dict) or not isinstance((pod.get("status") or {}).get("resourceClaimStatuses", []), list):
        return
    namespace = meta.get("namespace") or "default"
    status = pod.setdefault("status", {})
    statuses = status.setdefault("resourceClaimStatuses", [])
    have = {s.get("name") for s in statuses}
    for pod_claim in pod_claims:
        template_name = pod_claim.get("resourceClaimTemplateName")
        if template_name is None or pod_claim.get("name") in have:
            continue
        template = cluster.get("ResourceClaimTemplate", f"{namespace}/{template_name}")
        if template is None:
            continue  # the controller waits for the template; the pod stays pending
        tspec = template.get("spec") or {}
        tmeta = tspec.get("metadata") or {}
        base = f"{meta.get('name')}-{pod_claim.get('name')}"[:57]
        name = f"{base}-{_suffix(str(meta.get('uid')) + str(pod_claim.get('name')))}"
        claim = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "labels": copy.deepcopy(tmeta.get("labels") or {}),
                "annotations": {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME_ANNOTATION: pod_claim.get("name")},
                "ownerReferences": [{
                    "apiVersion": "v1", "kind": "Pod", "name": meta.get("name"), "uid": meta.get("uid"),
                    "controller": True, "blockOwnerDeletion": True,
                }],
            },
            "spec": copy.deepcopy(tspec.get("spec") or {}),
        }
        cluster.apply(claim)
        statuses.append({"name": pod_claim.get("name"), "resourceClaimName": name})


def template_added(cluster: ObjectStore, template: dict[str, Any]) -> None:
    """Pods waiting for this template get their claims now."""
    meta = template.get("metadata") or {}
    namespace, name = meta.get("namespace") or "default", meta.get("name")
    for pod in cluster.list("Pod"):
        pmeta = pod.get("metadata") or {}
        if (pmeta.get("namespace") or "default") != namespace:
            continue
        if not any(c.get("resourceClaimTemplateName") == name for c in (pod.get("spec") or {}).get("resourceClaims") or ()):
            continue
        updated = copy.deepcopy(pod)
        before = len(((updated.get("status") or {}).get("resourceClaimStatuses")) or ())
        generate_claims(cluster, updated)
        if len(updated["status"]["resourceClaimStatuses"]) != before:
            cluster.apply(updated)


def pod_removed(cluster: ObjectStore, pod: dict[str, Any]) -> None:
    """Drop the pod's reservations; delete its generated claims; deallocate unused claims."""
    meta = pod.get("metadata") or {}
    uid = meta.get("uid")
    namespace = meta.get("namespace") or "default"
    for claim in cluster.list("ResourceClaim"):
        cmeta = claim.get("metadata") or {}
        if (cmeta.get("namespace") or "default") != namespace:
            continue
        key = f"{namespace}/{cmeta.get('name')}"
        if any(r.get("controller") and r.get("uid") == uid for r in cmeta.get("ownerReferences") or ()):
            cluster.delete("ResourceClaim", key)
            continue
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        if not any(r.get("uid") == uid for r in reserved):
            continue
        updated = copy.deepcopy(claim)
        status = updated["status"]
        status["reservedFor"] = [r for r in reserved if r.get("uid") != uid]
        if not status["reservedFor"]:
            status.pop("reservedFor")
            status.pop("allocation", None)
            status.pop("devices", None)
        cluster.update_object("ResourceClaim", updated, "status")

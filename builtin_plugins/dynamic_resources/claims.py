"""A pod's ResourceClaims (k8s.io/dynamic-resource-allocation/resourceclaim): names from
`spec.resourceClaims`, generated claims of templates through `status.resourceClaimStatuses`."""

from __future__ import annotations

from typing import Any

from kubeberth import ClusterState, PodInfo

__all__ = ["ClaimLookupError", "FINALIZER", "pod_claims", "pod_has_claims", "reserved_for_pod"]

FINALIZER = "resource.kubernetes.io/delete-protection"  # resourceapi.Finalizer


class ClaimLookupError(Exception):
    """A claim the pod needs is missing or not usable by it (the pod is unschedulable for now)."""


def pod_has_claims(pod: PodInfo) -> bool:
    spec = pod.raw.get("spec") or {}
    return bool(spec.get("resourceClaims"))


def claim_name(pod: PodInfo, pod_claim: dict[str, Any]) -> tuple[str | None, bool]:
    """resourceclaim.Name: (claim name or None when none was generated, must check owner)."""
    if pod_claim.get("resourceClaimName") is not None:
        return str(pod_claim["resourceClaimName"]), False
    if pod_claim.get("resourceClaimTemplateName") is not None:
        for status in (pod.raw.get("status") or {}).get("resourceClaimStatuses") or ():
            if status.get("name") == pod_claim.get("name"):
                name = status.get("resourceClaimName")
                return (str(name) if name is not None else None), True
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
    raise ClaimLookupError(
        f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.get("name", "")}": none of the supported fields are set'
    )


def _is_controlled_by(claim: dict[str, Any], pod: PodInfo) -> bool:
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") and ref.get("uid") == pod.uid:
            return True
    return False


def pod_claims(pod: PodInfo, cluster: ClusterState) -> list[dict[str, Any]]:
    """foreachPodResourceClaim: every claim of the pod that exists, in spec order; raises
    ClaimLookupError with upstream's message otherwise."""
    out = []
    pod_claims = (pod.raw.get("spec") or {}).get("resourceClaims") or ()
    if not isinstance(pod_claims, list) or not all(isinstance(c, dict) for c in pod_claims):
        raise ClaimLookupError(f'pod "{pod.namespace}/{pod.name}": spec.resourceClaims: expected a list of objects')
    for pod_claim in pod_claims:
        name, must_check_owner = claim_name(pod, pod_claim)
        if name is None:
            continue
        claim = cluster.get_object("ResourceClaim", f"{pod.namespace}/{name}")
        if claim is None:
            raise ClaimLookupError(f'resourceclaim.resource.k8s.io "{name}" not found')
        meta = claim.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            raise ClaimLookupError(f'resourceclaim "{name}" is being deleted')
        if must_check_owner:
            if (meta.get("namespace") or pod.namespace) != pod.namespace:
                raise ClaimLookupError(
                    f"ResourceClaim {meta.get('namespace')}/{name} is not in the same namespace as Pod {pod.namespace}/{pod.name}"
                )
            if not _is_controlled_by(claim, pod):
                raise ClaimLookupError(
                    f"ResourceClaim {pod.namespace}/{name} was not created for Pod {pod.namespace}/{pod.name} (Pod is not owner)"
                )
        out.append(claim)
    return out


def reserved_for_pod(claim: dict[str, Any], pod: PodInfo) -> bool:
    return any(r.get("uid") == pod.uid for r in (claim.get("status") or {}).get("reservedFor") or ())

"""A pod's ResourceClaims (k8s.io/dynamic-resource-allocation/resourceclaim): names from
`spec.resourceClaims`, generated claims of templates through `status.resourceClaimStatuses`.

With DRAWorkloadResourceClaims (beta, off by default) a claim may belong to the pod's PodGroup: a
generated claim owned by the PodGroup is the pod's too, a reservation for the PodGroup counts as
the pod's, and a pod claim the PodGroup also lists is reserved for the PodGroup (BindTo)."""

from __future__ import annotations

from typing import Any

from kubeberth import ClusterView, PodView

__all__ = [
    "ClaimLookupError",
    "FINALIZER",
    "bind_to",
    "pod_claim_entries",
    "pod_claims",
    "pod_has_claims",
    "reserved_for_pod",
]

SCHEDULING_GROUP = "scheduling.k8s.io"  # schedulingapi.GroupName

FINALIZER = "resource.kubernetes.io/delete-protection"  # resourceapi.Finalizer


class ClaimLookupError(Exception):
    """A claim the pod needs is missing or not usable by it (the pod is unschedulable for now)."""


def pod_has_claims(pod: PodView) -> bool:
    spec = pod.raw.get("spec") or {}
    return bool(spec.get("resourceClaims"))


def claim_name(pod: PodView, pod_claim: dict[str, Any]) -> tuple[str | None, bool]:
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


def _is_controlled_by(claim: dict[str, Any], pod: PodView) -> bool:
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") and ref.get("uid") == pod.uid:
            return True
    return False


def _for_pod_group(claim: dict[str, Any], pod: PodView) -> bool:
    """isForPodGroupByPod: the claim's controller is the pod's PodGroup (by name, kind and API group)."""
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return (ref.get("name") == pod.pod_group and ref.get("kind") == "PodGroup"
                    and str(ref.get("apiVersion", "")).startswith(SCHEDULING_GROUP + "/"))
    return False


def pod_claims(pod: PodView, cluster: ClusterView, accept_pod_group: bool = False) -> list[dict[str, Any]]:
    """foreachPodResourceClaim: every claim of the pod that exists, in spec order; raises
    ClaimLookupError with upstream's message otherwise."""
    return [claim for _, claim in pod_claim_entries(pod, cluster, accept_pod_group)]


def pod_claim_entries(pod: PodView, cluster: ClusterView,
                      accept_pod_group: bool = False) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """pod_claims with the pod's spec.resourceClaims entry of each claim: (pod claim, claim)."""
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
                if accept_pod_group and pod.pod_group:
                    if not _for_pod_group(claim, pod):
                        raise ClaimLookupError(
                            f"ResourceClaim {pod.namespace}/{name} was not created for Pod {pod.namespace}/{pod.name} "
                            f"(neither Pod nor PodGroup {pod.pod_group} is the owner)"
                        )
                else:
                    raise ClaimLookupError(
                        f"ResourceClaim {pod.namespace}/{name} was not created for Pod {pod.namespace}/{pod.name} (Pod is not owner)"
                    )
        out.append((pod_claim, claim))
    return out


def reserved_for_pod(claim: dict[str, Any], pod: PodView, accept_pod_group: bool = False) -> bool:
    """IsReservedForPod: the claim is reserved for the pod (or, when accepted, its PodGroup)."""
    for ref in (claim.get("status") or {}).get("reservedFor") or ():
        if ref.get("uid") == pod.uid:
            return True
        if (accept_pod_group and pod.pod_group and ref.get("apiGroup") == SCHEDULING_GROUP
                and ref.get("resource") == "podgroups" and ref.get("name") == pod.pod_group):
            return True
    return False


def bind_to(pod: PodView, pod_group: dict[str, Any] | None, pod_claim: dict[str, Any]) -> dict[str, Any]:
    """BindTo: the consumer reference a claim is reserved for — the PodGroup when it lists the same
    claim (name and source), else the pod."""
    if pod_group is not None:
        gmeta = pod_group.get("metadata") or {}
        for group_claim in (pod_group.get("spec") or {}).get("resourceClaims") or ():
            if (group_claim.get("name") == pod_claim.get("name")
                    and group_claim.get("resourceClaimName") == pod_claim.get("resourceClaimName")
                    and group_claim.get("resourceClaimTemplateName") == pod_claim.get("resourceClaimTemplateName")):
                return {"apiGroup": SCHEDULING_GROUP, "resource": "podgroups", "name": gmeta.get("name", ""),
                        "uid": gmeta.get("uid", "")}
    return {"resource": "pods", "name": pod.name, "uid": pod.uid}

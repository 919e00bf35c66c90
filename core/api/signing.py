"""Pod signatures for opportunistic batching (kube-scheduler's SignPlugin, KEP-5598).

A plugin that filters or scores signs a pod with the parts of the pod it reads (`sign_pod`):
two pods with the same signature must get the same feasibility and scores on the same nodes in
the same state. The framework joins every plugin's fragments into one signature per pod; a
consecutive pod with the same signature may then take the next node of the previous cycle's
sorted candidates instead of a full cycle.

A plugin that cannot promise that for a pod (it reads other pods, e.g. inter-pod affinity or
topology spread) refuses with a non-success Status, and the pod is scheduled without batching.
A profile with a pre_filter, filter, pre_score or score plugin that does not implement
`sign_pod` never signs pods: batching is off for it, never silently wrong.

Fragment keys are kube-scheduler's (`k8s.io/kube-scheduler/framework/signers.go`); plugins that
read the same field return the same key and value, and the framework keeps one. The signers
below are the shared ones, as upstream's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .views import PodView

__all__ = [
    "HOST_PORTS_SIGNER",
    "IMAGE_NAMES_SIGNER",
    "LABELS_SIGNER",
    "NODE_AFFINITY_SIGNER",
    "NODE_NAME_SIGNER",
    "NODE_SELECTOR_SIGNER",
    "RESOURCES_SIGNER",
    "SCHEDULER_NAME_SIGNER",
    "TOLERATIONS_SIGNER",
    "VOLUMES_SIGNER",
    "PodSignature",
    "SignFragment",
    "host_ports_signer",
    "image_names_signer",
    "node_affinity_signer",
    "resources_signer",
    "tolerations_signer",
    "volumes_signer",
]

PodSignature = bytes
"""One pod's signature: the JSON of every fragment, keys sorted (compare with ==)."""

# Signer names (kube-scheduler's fragment keys).
IMAGE_NAMES_SIGNER = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER = "v1.Pod.Labels"
NODE_NAME_SIGNER = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER = "v1.Pod.Spec.Volumes.NonSyntheticSources()"


@dataclass(frozen=True, slots=True)
class SignFragment:
    """A part of a pod's signature: `value` must be JSON-serialisable, with order-free lists sorted."""

    key: str
    value: Any


def join_fragments(scheduler_name: str, fragments: Sequence[SignFragment]) -> PodSignature:
    """The framework's SignPod: {schedulerName, fragments...} as compact JSON with sorted keys."""
    sig: dict[str, Any] = {SCHEDULER_NAME_SIGNER: scheduler_name}
    for fragment in fragments:
        sig[fragment.key] = fragment.value
    return json.dumps(sig, sort_keys=True, separators=(",", ":")).encode()


def _spec(pod: PodView) -> Mapping[str, Any]:
    return pod.raw.get("spec") or {}


def _containers(pod: PodView) -> list[Mapping[str, Any]]:
    spec = _spec(pod)
    return [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]


def host_ports_signer(pod: PodView) -> list[int]:
    """HostPortsSigner: the sorted set of host ports of every container and init container."""
    ports = {int(p.get("hostPort") or 0) for c in _containers(pod) for p in c.get("ports") or ()}
    ports.discard(0)
    return sorted(ports)


def normalized_image_name(name: str) -> str:
    """ImageLocality's normalizedImageName: a name without tag or digest gets `:latest`."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def image_names_signer(pod: PodView) -> list[str]:
    """ImageLocality's fragment: sorted set of normalized image names (containers and init containers)."""
    return sorted({normalized_image_name(c.get("image") or "") for c in _containers(pod)})


def _requirements(reqs: Sequence[Mapping[str, Any]] | None) -> list[str]:
    out = []
    for req in reqs or ():
        t = dict(req)
        if t.get("values") is not None:
            t["values"] = sorted(t["values"])
        out.append(json.dumps(t, sort_keys=True, separators=(",", ":")))
    return sorted(out)


def _term(term: Mapping[str, Any] | None) -> dict[str, list[str]]:
    term = term or {}
    return {
        "MatchExpressions": _requirements(term.get("matchExpressions")),
        "MatchFields": _requirements(term.get("matchFields")),
    }


def node_affinity_signer(pod: PodView) -> dict[str, list[str]] | None:
    """NodeAffinitySigner: required terms and weighted preferred terms, each canonical and sorted."""
    node_affinity = (_spec(pod).get("affinity") or {}).get("nodeAffinity")
    if node_affinity is None:
        return None
    compact = {"sort_keys": True, "separators": (",", ":")}
    preferred = sorted(
        json.dumps({"Weight": int(t.get("weight") or 0), "Preference": _term(t.get("preference"))}, **compact)  # type: ignore[arg-type]
        for t in node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    )
    required_terms = (node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms")
    required = sorted(json.dumps(_term(t), **compact) for t in required_terms or ())  # type: ignore[arg-type]
    return {"Required": required, "Preferred": preferred}


def tolerations_signer(pod: PodView) -> list[dict[str, Any]]:
    """TolerationsSigner: the pod's tolerations in a canonical order."""
    return [
        {"key": t.key, "operator": t.operator, "value": t.value, "effect": t.effect, "tolerationSeconds": t.toleration_seconds}
        for t in sorted(
            pod.tolerations, key=lambda t: (t.key, t.value, t.operator, t.effect, t.toleration_seconds or -1)
        )
    ]


def volumes_signer(pod: PodView) -> list[str]:
    """VolumesSigner: every volume source except configMap and secret (they never affect placement)."""
    out = []
    for vol in _spec(pod).get("volumes") or ():
        source = {k: v for k, v in vol.items() if k != "name"}
        if "configMap" in source or "secret" in source:
            continue
        out.append(json.dumps(source, sort_keys=True, separators=(",", ":")))
    return sorted(out)


def resources_signer(pod: PodView) -> dict[str, Any]:
    """computePodResourceRequest's fragment: the pod's effective requests (containers, init, overhead),
    with the non-zero cpu/memory that scoring reads (two pods may sum alike but default differently)."""
    return {"requests": sorted(pod.requests.items()), "nonzero": [pod.nonzero_cpu, pod.nonzero_memory]}

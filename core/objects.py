"""Typed shapes of the raw Kubernetes objects plugins read (`pod.raw`, `node.raw`, cluster objects).

The scheduler keeps objects as the JSON the API server sent (parsing into client model classes is
far too slow); these TypedDicts give that JSON a checked shape for the fields kubeberth and
plugins read. Every key is optional (`total=False`): read with `.get(...)`, as the API server may
omit empty fields. Unknown fields are still there at runtime, just not typed.

    def zone_of(node: NodeInfo) -> str:
        return object_meta(node.raw).get("labels", {}).get("topology.kubernetes.io/zone", "")
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = [
    "Container",
    "ContainerImage",
    "ContainerPort",
    "LabelSelectorDict",
    "LabelSelectorRequirement",
    "Node",
    "NodeSpec",
    "NodeStatus",
    "ObjectMeta",
    "OwnerReference",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodCondition",
    "PodDisruptionBudget",
    "PodGroup",
    "PodGroupSchedulingPolicy",
    "PodGroupSpec",
    "PodSpec",
    "PodStatus",
    "ResourceRequirements",
    "TaintDict",
    "TolerationDict",
    "TopologySpreadConstraint",
    "object_meta",
]


class OwnerReference(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool


class ObjectMeta(TypedDict, total=False):
    name: str
    generateName: str
    namespace: str
    uid: str
    resourceVersion: str
    labels: dict[str, str]
    annotations: dict[str, str]
    creationTimestamp: str
    deletionTimestamp: str
    ownerReferences: list[OwnerReference]


class LabelSelectorRequirement(TypedDict, total=False):
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist (Gt, Lt in node selectors)
    values: list[str]


class LabelSelectorDict(TypedDict, total=False):
    matchLabels: dict[str, str]
    matchExpressions: list[LabelSelectorRequirement]


class ResourceRequirements(TypedDict, total=False):
    requests: dict[str, str | int]  # quantities as given: "500m", "1Gi", 2
    limits: dict[str, str | int]


class ContainerPort(TypedDict, total=False):
    containerPort: int
    hostPort: int
    hostIP: str
    protocol: str


class Container(TypedDict, total=False):
    name: str
    image: str
    resources: ResourceRequirements
    ports: list[ContainerPort]
    restartPolicy: str  # "Always" on an init container makes it a sidecar


class TolerationDict(TypedDict, total=False):
    key: str
    operator: str  # Equal (default) or Exists
    value: str
    effect: str  # NoSchedule, PreferNoSchedule, NoExecute; empty = all
    tolerationSeconds: int


class TopologySpreadConstraint(TypedDict, total=False):
    maxSkew: int
    topologyKey: str
    whenUnsatisfiable: str  # DoNotSchedule or ScheduleAnyway
    labelSelector: LabelSelectorDict
    minDomains: int
    matchLabelKeys: list[str]
    nodeAffinityPolicy: str
    nodeTaintsPolicy: str


class PodSpec(TypedDict, total=False):
    schedulerName: str
    nodeName: str
    priority: int
    priorityClassName: str
    preemptionPolicy: str
    containers: list[Container]
    initContainers: list[Container]
    overhead: dict[str, str | int]
    nodeSelector: dict[str, str]
    affinity: dict[str, Any]  # nodeAffinity / podAffinity / podAntiAffinity, read by the helpers
    tolerations: list[TolerationDict]
    topologySpreadConstraints: list[TopologySpreadConstraint]
    schedulingGates: list[dict[str, str]]
    schedulingGroup: dict[str, str]  # {"podGroupName": ...}: the PodGroup the pod belongs to
    volumes: list[dict[str, Any]]


class PodCondition(TypedDict, total=False):
    type: str
    status: str  # "True", "False", "Unknown"
    reason: str
    message: str
    lastProbeTime: str | None
    lastTransitionTime: str


class PodStatus(TypedDict, total=False):
    phase: str  # Pending, Running, Succeeded, Failed
    nominatedNodeName: str
    startTime: str
    conditions: list[PodCondition]
    resourceClaimStatuses: list[dict[str, Any]]  # name, resourceClaimName (generated claims)


class Pod(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: PodSpec
    status: PodStatus


class TaintDict(TypedDict, total=False):
    key: str
    value: str
    effect: str


class NodeSpec(TypedDict, total=False):
    unschedulable: bool
    taints: list[TaintDict]


class ContainerImage(TypedDict, total=False):
    names: list[str]
    sizeBytes: int


class NodeStatus(TypedDict, total=False):
    allocatable: dict[str, str | int]
    capacity: dict[str, str | int]
    images: list[ContainerImage]


class Node(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: NodeSpec
    status: NodeStatus


class PersistentVolumeClaim(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: dict[str, Any]  # storageClassName, volumeName, accessModes, resources
    status: dict[str, Any]


class PersistentVolume(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: dict[str, Any]  # claimRef, nodeAffinity, capacity, storageClassName
    status: dict[str, Any]


class PodDisruptionBudget(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: dict[str, Any]  # selector, minAvailable, maxUnavailable
    status: dict[str, Any]  # disruptionsAllowed, disruptedPods


class PodGroupSchedulingPolicy(TypedDict, total=False):
    """Exactly one of `basic` (pods one by one) and `gang` (`{"minCount": n}`: all or nothing)."""

    basic: dict[str, Any]
    gang: dict[str, int]


class PodGroupSpec(TypedDict, total=False):
    schedulingPolicy: PodGroupSchedulingPolicy
    workloadRef: dict[str, str]  # workloadName, templateName
    parentCompositePodGroupName: str
    priority: int
    preemptionPolicy: str  # PreemptLowerPriority (default) or Never
    disruptionMode: dict[str, Any]  # `{"all": {}}`: the group's pods are evicted together
    schedulingConstraints: dict[str, Any]  # topology: [{key: ...}]


class PodGroup(TypedDict, total=False):
    """scheduling.k8s.io/v1beta1 PodGroup (GenericWorkload): pods join it through
    `spec.schedulingGroup.podGroupName`."""

    apiVersion: str
    kind: str
    metadata: ObjectMeta
    spec: PodGroupSpec
    status: dict[str, Any]  # conditions


def object_meta(obj: Mapping[str, Any]) -> ObjectMeta:
    """`obj["metadata"]`, or an empty ObjectMeta when absent (instead of `.get("metadata") or {}`)."""
    found = obj.get("metadata")
    return found if isinstance(found, dict) else ObjectMeta()  # type: ignore[return-value]

"""The backend interface: list+watch into the scheduler's event queue, and the writes it needs.

The framework never imports a Kubernetes client; `kubeberth.backends.kubernetes` and
`kubeberth.backends.embedded` implement this interface. Write methods are called from binding
workers and must be thread-safe; watch events are delivered through the sink only.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..api.features import DEFAULT_FEATURE_GATES
from ..api.status import Status
from ..cache.podinfo import PodInfo

# Kinds the scheduler keeps in its cache. Pods and Nodes are structural; the rest are looked up
# by plugins through ClusterState.objects.
WATCHED_KINDS = (
    "Node",
    "Pod",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "PodDisruptionBudget",
    "Namespace",
    "CSINode",
    # NodeVolumeLimits counts attached volumes and honours CSIDriver.preventPodSchedulingIfMissing.
    "VolumeAttachment",
    "CSIDriver",
    # VolumeBinding checks (and scores by) the storage capacity CSI drivers publish.
    "CSIStorageCapacity",
    # PodTopologySpread's system-default selector (helper.DefaultSelector) reads these.
    "Service",
    "ReplicationController",
    "ReplicaSet",
    "StatefulSet",
)
# Watched in addition when a profile enables a plugin that reads them (see `kinds_for`).
OPTIONAL_KINDS: dict[str, tuple[str, ...]] = {
    "GangScheduling": ("PodGroup",),
    # Dynamic Resource Allocation (resource.k8s.io/v1).
    "DynamicResources": ("DeviceClass", "DeviceTaintRule", "ResourceSlice", "ResourceClaim"),
}
# Optional kinds watched only while a feature gate is on (kube-scheduler starts no informer for
# them otherwise, and its ClusterRole grants no access).
GATED_KINDS: dict[str, str] = {"DeviceTaintRule": "DRADeviceTaintRules"}


def kinds_for(enabled_plugins: set[str], gates: Mapping[str, bool] | None = None) -> tuple[str, ...]:
    """WATCHED_KINDS plus the kinds the enabled plugins need: PodGroups exist only where the API
    server serves scheduling.k8s.io/v1beta1 (GenericWorkload), so they are not listed otherwise.
    A kind of GATED_KINDS is left out when `gates` (name -> enabled; the defaults when None) has
    its gate off."""
    if gates is None:
        gates = DEFAULT_FEATURE_GATES
    extra = [
        k for name, kinds in OPTIONAL_KINDS.items() if name in enabled_plugins for k in kinds
        if k not in GATED_KINDS or gates.get(GATED_KINDS[k], False)
    ]
    return (*WATCHED_KINDS, *dict.fromkeys(extra))


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """One change seen by an informer. type: ADDED | MODIFIED | DELETED | SYNCED (initial list done)."""

    kind: str
    type: str
    obj: dict[str, Any]


EventSink = Callable[[ClusterEvent], None]


class PodGone(LookupError):
    """The pod a write was about no longer exists (the API answered NotFound).

    Backends return it as the `err` of the Error status of a bind, so the scheduler drops the
    pod instead of retrying it: its deletion event may still be on the way.
    """


class BackendUnavailable(ConnectionError):
    """The API could not take a write: unreachable, overloaded (429, 5xx), or this replica may not
    write (not the leader). Backends return it as the `err` of a bind's Error status: the
    environment failed, not the plugins, so a reload's probation does not count it against them.
    """


@dataclass(frozen=True)
class ObjectRef:
    """An object other than a pod that the scheduler records events about (the Lease it leads
    with): `action` is the events.k8s.io `action` field (what kubeberth was doing)."""

    api_version: str
    kind: str
    namespace: str
    name: str
    action: str = "Reconcile"

    @property
    def uid(self) -> str:
        """A stable key for the event recorder's series (the object's uid is not needed)."""
        return f"{self.kind}/{self.namespace}/{self.name}"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def regarding(self) -> dict[str, str]:
        return {"apiVersion": self.api_version, "kind": self.kind, "namespace": self.namespace, "name": self.name}


class Backend(abc.ABC):
    """A cluster the scheduler reads from and writes bindings to."""

    @abc.abstractmethod
    def start(self, sink: EventSink) -> None:
        """List every watched kind (emitting ADDED, then one SYNCED per kind) and keep watching."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop watching; pending writes may finish."""

    @abc.abstractmethod
    def bind(self, pod: PodInfo, node_name: str, annotations: Mapping[str, str] | None = None) -> Status:
        """Bind through the Binding subresource, `annotations` on the Binding (the API server copies them onto
        the pod). Conflict/NotFound -> an Error status saying so; NotFound carries a `PodGone` as the
        status's `err`."""

    @abc.abstractmethod
    def record_event(self, pod: PodInfo, event_type: str, reason: str, message: str) -> None:
        """Record an events.k8s.io/v1 Event about the pod (Normal/Warning)."""

    def record_object_event(self, ref: ObjectRef, event_type: str, reason: str, message: str) -> None:
        """Record an Event about another object (the scheduler's Lease); ignored by default."""
        return None

    @abc.abstractmethod
    def patch_pod_condition(self, pod: PodInfo, condition: dict[str, Any]) -> None:
        """Set a pod status condition (e.g. PodScheduled=False, reason Unschedulable)."""

    def patch_pod_status(self, pod: PodInfo, condition: dict[str, Any], nominated: str | None = None) -> None:
        """kube-scheduler's updatePod in handleSchedulingFailure: the PodScheduled condition and,
        unless `nominated` is None (NominatingInfo ModeNoop), status.nominatedNodeName ("" clears
        it). A backend that writes over HTTP makes it one patch; this default writes the nomination,
        then the condition."""
        if nominated is not None:
            self.set_nominated_node(pod, nominated or None)
        self.patch_pod_condition(pod, condition)

    def mark_disruption_target(self, pod: PodInfo, condition: dict[str, Any]) -> Status:
        """Set a preemption victim's DisruptionTarget condition before it is deleted, and wait for
        the write (kube-scheduler's PreemptPod patches the status first, then deletes). A victim
        already gone, or being deleted, is a success with `PodGone` as `err` (nothing is left to delete)."""
        self.patch_pod_condition(pod, condition)
        return Status.success()

    @abc.abstractmethod
    def set_nominated_node(self, pod: PodInfo, node_name: str | None) -> None:
        """Set or clear status.nominatedNodeName (preemption)."""

    def write_nominated_node(self, pod: PodInfo, node_name: str) -> Status:
        """Set (or, with "", clear) status.nominatedNodeName now and say whether it was written:
        the binding cycle's write before PreBind (NominatedNodeNameForExpectation), made from a
        binding worker and waited for, unlike the queued `set_nominated_node`."""
        self.set_nominated_node(pod, node_name or None)
        return Status.success()

    @abc.abstractmethod
    def delete_pod(self, pod: PodInfo, reason: str) -> Status:
        """Delete a preemption victim. One gone, or found being deleted by someone else, is a success
        with `PodGone` as `err`: no Preempted event (another deletion reports it)."""

    def get_object(self, kind: str, key: str) -> dict[str, Any] | None:
        """A fresh read of one object ('ns/name' or 'name'); None when it does not exist."""
        return None

    def update_object(self, kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        """Replace an object (a plugin's owned write, e.g. a PV's claimRef); its
        metadata.resourceVersion, when set, must still be current (else an Error status).
        `subresource="status"` replaces only the status, as PUT .../status does."""
        return Status.error(f"this backend cannot write {kind} objects")

    def patch_object(self, kind: str, key: str, patch: dict[str, Any], subresource: str = "") -> Status:
        """JSON merge-patch one object ('ns/name' or 'name'), or its `subresource` ("status")."""
        return Status.error(f"this backend cannot write {kind} objects")

    def create_object(self, kind: str, obj: dict[str, Any]) -> tuple[Status, dict[str, Any] | None]:
        """Create one object; an empty metadata.name with metadata.generateName gets a generated
        name (the API server's five random characters). Returns the created object as stored."""
        return Status.error(f"this backend cannot create {kind} objects"), None

    def delete_object(self, kind: str, key: str) -> Status:
        """Delete one object ('ns/name' or 'name'); NotFound is a success."""
        return Status.error(f"this backend cannot delete {kind} objects")

    def next_timer(self) -> float | None:
        """When (on the scheduler's clock) the backend next changes by itself, e.g. a terminating
        pod's grace period ends; None if never. The embedded cluster models such timers."""
        return None

    def fire_timers(self, now: float) -> int:
        """Apply the changes due by `now`; returns how many there were."""
        return 0

    def ready(self) -> bool:
        """True once every initial list has been delivered."""
        return True

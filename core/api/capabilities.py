"""What a plugin declares about itself, instead of the framework guessing from its name.

kube-scheduler asks plugins: `EventsToRegister` (which cluster events can make a pod this plugin
rejected schedulable again) and `PreFilterExtensions` (how to keep PreFilter state current when
preemption adds or removes pods hypothetically). Here a plugin declares the same with class
attributes, all optional, read once when a generation is built:

    class GpuFit:
        name = "GpuFit"
        requeue_on = {"Node/Add", "Node/Update", "Pod/Delete"}   # EventsToRegister
        filter_scope = FilterScope.NODE_RESOURCES                  # reads its node's requests only
        pre_filter_state = PreFilterState.NO_POD_DATA              # nothing to redo on what-ifs
        queueing_hints = {"Node/Update": "gpus_added"}            # QueueingHintFn, per event
        pod_indexes = {"GpuFit.used": GpuUse}                      # cluster.index keys it reads

A queueing hint narrows `requeue_on` per pod, as kube-scheduler's QueueingHintFn does: the named
method is called as `hint(pod, old, new)` for a pod this plugin rejected, with the changed object
before and after (None for an Add's old or a Delete's new, and where the cache does not keep the
old object; pods as PodInfo, other kinds as their raw JSON), and returns True to retry the pod
(Queue) or False to leave it (QueueSkip). A hint that raises counts as True, as upstream's errors do.
A hint that also names a `cluster` parameter — `hint(pod, old, new, cluster)` — gets the scheduler's
ClusterState after the event was applied (to look up what else the pod needs, as upstream's hints
read their listers).

An event of a custom resource is named `<plural>.<version>.<group>` (kube-scheduler's GVK string, e.g.
`foos.v1.example.com`), alone for every change or with `/Add|Update|Delete`: the Kubernetes backend then
list+watches that resource (the scheduler's service account needs list and watch on it); the embedded
backend produces no such events.

`pod_indexes` names the incremental pod indexes the plugin reads with `cluster.index(key, factory)`:
the scheduler builds them once the initial lists are applied (and when a generation that declares
one is swapped in), so the first cycle that reads one does not walk every placed pod first (at
650,000 running pods, a tenth of a second). An undeclared index is built where it is first read.

The defaults are the safe ones: any event may help (requeue on everything), the filter may read
any pod anywhere, and PreFilter is re-run for every hypothetical check preemption makes.
"""

from __future__ import annotations

import enum
import inspect
import logging
import re
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)
QueueingHint = Callable[[Any, Any, Any], bool]

_EVENT = re.compile(
    r"^[A-Z][A-Za-z0-9]*(/(Add|Update|Delete))?$|^TargetPod/Update[A-Za-z]*$"
    r"|^Node/UpdateNode(Allocatable|Label|Taint|Condition|Annotation|PreemptionPolicy|DeclaredFeature)$"
    r"|^Pod/UpdatePod(Label|ScaleDown)$"
)
# A custom resource's events, as kube-scheduler's ClusterEvent with a GVK string resource:
# <plural>.<version>.<group> (e.g. foos.v1.example.com), alone or with /Add|Update|Delete.
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_CUSTOM = re.compile(rf"^({_LABEL}\.v[0-9]+[a-z0-9]*(\.{_LABEL})+)(/(Add|Update|Delete))?$")


def custom_resource(event: str) -> str | None:
    """The `<plural>.<version>.<group>` of a custom resource's event ('foos.v1.example.com/Add'), else
    None (kube-scheduler's addAllEventHandlers: the default case, a GVK string for its dynamic informers)."""
    found = _CUSTOM.match(event)
    return found.group(1) if found else None


def _is_event(event: object) -> bool:
    return isinstance(event, str) and (_EVENT.match(event) is not None or _CUSTOM.match(event) is not None)

__all__ = [
    "ASSIGNED_POD_UPDATE_EVENTS", "CLUSTER_EVENTS", "NODE_UPDATE_EVENTS", "TARGET_POD_EVENTS", "Capabilities",
    "FilterScope", "PreFilterState", "ScoreScope", "capabilities_of", "custom_resource",
]

NODE_UPDATE_EVENTS = (
    "Node/UpdateNodeAllocatable",
    "Node/UpdateNodeLabel",
    "Node/UpdateNodeTaint",
    "Node/UpdateNodeCondition",
    "Node/UpdateNodeAnnotation",
    "Node/UpdateNodePreemptionPolicy",
    "Node/UpdateNodeDeclaredFeature",
)

ASSIGNED_POD_UPDATE_EVENTS = ("Pod/UpdatePodLabel", "Pod/UpdatePodScaleDown")

TARGET_POD_EVENTS = (
    "TargetPod/UpdatePodLabel",
    "TargetPod/UpdatePodScaleDown",
    "TargetPod/UpdatePodScaleUp",
    "TargetPod/UpdatePodSchedulingGatesEliminated",
    "TargetPod/UpdatePodToleration",
    "TargetPod/UpdatePodGeneratedResourceClaim",
    "TargetPod/Update",
)

CLUSTER_EVENTS = (
    "Node/Add",
    "Node/Update",
    *NODE_UPDATE_EVENTS,
    "Node/Delete",
    "Pod/Add",
    "Pod/Update",
    *ASSIGNED_POD_UPDATE_EVENTS,
    "Pod/Delete",
    "PersistentVolume/Add",
    "PersistentVolume/Update",
    "PersistentVolume/Delete",
    "PersistentVolumeClaim/Add",
    "PersistentVolumeClaim/Update",
    "PersistentVolumeClaim/Delete",
    "StorageClass/Add",
    "StorageClass/Update",
    "StorageClass/Delete",
    "PodDisruptionBudget/Add",
    "PodDisruptionBudget/Update",
    "PodDisruptionBudget/Delete",
    "Namespace/Add",
    "Namespace/Update",
    "Namespace/Delete",
    "CSINode/Add",
    "CSINode/Update",
    "CSINode/Delete",
    "UnscheduledPod/Add",
    "PodGroup/Add",
    "PodGroup/Update",
    "PodGroup/Delete",
    "VolumeAttachment/Add",
    "VolumeAttachment/Update",
    "VolumeAttachment/Delete",
    "CSIDriver/Add",
    "CSIDriver/Update",
    "CSIDriver/Delete",
    "CSIStorageCapacity/Add",
    "CSIStorageCapacity/Update",
    "CSIStorageCapacity/Delete",
    "DeviceClass/Add",
    "DeviceClass/Update",
    "DeviceClass/Delete",
    "ResourceSlice/Add",
    "ResourceSlice/Update",
    "ResourceSlice/Delete",
    "ResourceClaim/Add",
    "ResourceClaim/Update",
    "ResourceClaim/Delete",
    *TARGET_POD_EVENTS,
)
"""The events `requeue_on` may name: `Kind/Action`, or just `Kind` for every action on it.

A node update is fired as what it changed (kube-scheduler's NodeSchedulingPropertiesChange):
`Node/UpdateNodeLabel`, `Node/UpdateNodeTaint` (a taint changed, or the node was uncordoned),
`Node/UpdateNodeAllocatable`, `Node/UpdateNodeCondition` (a condition's status),
`Node/UpdateNodeAnnotation`, `Node/UpdateNodePreemptionPolicy`, `Node/UpdateNodeDeclaredFeature`,
one event each, and not at all when none of these changed. `Node/Update` in `requeue_on` (or a
`queueing_hints` key) stands for all of them, as upstream's Update ActionType does; a hint under an
exact sub-event wins over the one under `Node/Update`. A placed pod's update is fired the same way,
as `Pod/UpdatePodLabel` and `Pod/UpdatePodScaleDown` (its requests lowered by an in-place resize),
both covered by `Pod/Update`; any other change of its spec, labels or annotations fires `Pod/Update`
itself (PodSchedulingPropertiesChange's general update), a status-only update nothing.
`Pod/Add` is a pod newly placed on a node (bound or assumed), `Pod/Delete` a placed pod gone
(or an assumed one forgotten after its binding cycle failed). `UnscheduledPod/Add` is a new pending
pod that belongs to a PodGroup (kube-scheduler fires it under GenericWorkload, where a new member
may complete a gang). `TargetPod/...` is an update of the pending pod itself, by what changed
(kube-scheduler's PodSchedulingPropertiesChange): an unschedulable pod is retried only when a
plugin that rejected it registered one of them (and its hint agrees); `TargetPod/Update` is an
update that changed none of the named properties.
"""


class FilterScope(enum.Enum):
    """What a filter's verdict on one node may depend on (preemption's dry run relies on it).

    NODE            only the node itself (labels, taints, name, images, volumes it can attach):
                    removing pods never changes the verdict.
    NODE_RESOURCES  the node and its requested resource totals (`nodes.requested(...)`), nothing
                    else about pods: preemption may evaluate many nodes in one batch call with
                    hypothetical requests.
    CLUSTER         anything, including pods on other nodes (the default).
    """

    NODE = "node"
    NODE_RESOURCES = "node-resources"
    CLUSTER = "cluster"

    @property
    def node_local(self) -> bool:
        return self is not FilterScope.CLUSTER


class ScoreScope(enum.Enum):
    """What a score plugin's raw score for one node may depend on (incremental cycles rely on it).

    NODE     the pod, that node's row (labels, taints, images, allocatable, requested) and the
             node table's structure: the raw score of a node is the same whichever other nodes
             are scored with it, and stays the same until that node changes.
    CLUSTER  anything, including pods on other nodes (the default).
    """

    NODE = "node"
    CLUSTER = "cluster"


class PreFilterState(enum.Enum):
    """How a plugin's PreFilter state relates to placed pods (kube-scheduler's PreFilterExtensions).

    NO_POD_DATA    the state holds nothing derived from placed pods: preemption reuses it as is.
    SELF_UPDATING  the filter notices placed-pod changes (see `helpers.pod_state_version`) and
                   recomputes what it needs: preemption reuses it as is.
    RERUN          anything else (the default): preemption re-runs this PreFilter for every
                   hypothetical check, the way AddPod/RemovePod would update it.
    """

    NO_POD_DATA = "no-pod-data"
    SELF_UPDATING = "self-updating"
    RERUN = "rerun"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """One plugin's declarations, normalized; `requeue_on` None means every event."""

    requeue_on: frozenset[str] | None = None
    filter_scope: FilterScope = FilterScope.CLUSTER
    pre_filter_state: PreFilterState = PreFilterState.RERUN
    queueing_hints: Mapping[str, QueueingHint] = field(default_factory=dict, compare=False, hash=False)
    score_scope: ScoreScope = ScoreScope.CLUSTER
    hints_with_cluster: frozenset[str] = frozenset()  # events whose hint takes `cluster` too
    # The pod indexes the plugin reads with `cluster.index(key, factory)`: built as the cache loads.
    pod_indexes: Mapping[Hashable, Callable[[Any], Any]] = field(default_factory=dict, compare=False, hash=False)

    def interested_in(self, event: str) -> bool:
        """Can `event` ("Kind/Action") make a pod this plugin rejected schedulable?"""
        wanted = self.requeue_on
        if wanted is None:
            return True
        return _covers(wanted, event)

    def requeues(self, event: str, pod: Any, old: Any = None, new: Any = None, cluster: Any = None) -> bool:
        """Does `event` retry `pod` (rejected by this plugin)? `requeue_on`, then the event's hint
        (for a node's or placed pod's update sub-event, the hint under it, else the one under
        `Node/Update` / `Pod/Update`)."""
        if not self.interested_in(event):
            return False
        key = event
        hint = self.queueing_hints.get(event)
        if hint is None and (parent := _parent(event)) is not None:
            key = parent
            hint = self.queueing_hints.get(key)
        if hint is None:
            return True
        try:
            if key in self.hints_with_cluster:
                return bool(hint(pod, old, new, cluster))  # type: ignore[call-arg]
            return bool(hint(pod, old, new))
        except Exception:  # noqa: BLE001 - upstream queues the pod when a hint fails
            log.exception("queueing hint for %s failed; the pod is retried", event)
            return True


def _parent(event: str) -> str | None:
    """`Node/Update` for a node update's sub-event, `Pod/Update` for a placed pod's, else None."""
    if event.startswith("Node/UpdateNode"):
        return "Node/Update"
    if event.startswith("Pod/UpdatePod"):
        return "Pod/Update"
    return None


def _covers(wanted: frozenset[str], event: str) -> bool:
    """Is `event` one of `wanted`: by name, by its kind, or a sub-event by its `Kind/Update`."""
    return event in wanted or event.split("/", 1)[0] in wanted or _parent(event) in wanted


def capabilities_of(plugin: Any) -> Capabilities:
    """Read a plugin's declarations; a value of the wrong type raises TypeError naming it."""
    requeue_on = getattr(plugin, "requeue_on", None)
    if requeue_on is not None:
        if isinstance(requeue_on, str) or not isinstance(requeue_on, Collection):
            raise TypeError(f"requeue_on must be a collection of event names like 'Node/Add', got {requeue_on!r}")
        bad = sorted(str(e) for e in requeue_on if not _is_event(e))
        if bad:
            raise TypeError(
                f"requeue_on: {bad} are not events; write Kind or Kind/Add|Update|Delete (or a sub-event such as "
                "'Node/UpdateNodeLabel', 'TargetPod/UpdatePodLabel'), e.g. 'Node/Add', or a custom resource as "
                "<plural>.<version>.<group>[/Add|Update|Delete], e.g. 'foos.v1.example.com/Add'"
            )
        requeue_on = frozenset(requeue_on)
    scope = getattr(plugin, "filter_scope", FilterScope.CLUSTER)
    if not isinstance(scope, FilterScope):
        raise TypeError(f"filter_scope must be a FilterScope, got {scope!r}")
    state = getattr(plugin, "pre_filter_state", PreFilterState.RERUN)
    if not isinstance(state, PreFilterState):
        raise TypeError(f"pre_filter_state must be a PreFilterState, got {state!r}")
    declared = getattr(plugin, "queueing_hints", None) or {}
    if not isinstance(declared, Mapping):
        raise TypeError(f"queueing_hints must map events to method names, got {declared!r}")
    hints: dict[str, QueueingHint] = {}
    with_cluster: set[str] = set()
    for event, method in declared.items():
        if not isinstance(event, str) or "/" not in event or not _is_event(event):
            raise TypeError(f"queueing_hints: {event!r} is not an event; write Kind/Add|Update|Delete, e.g. 'Node/Add'")
        if requeue_on is not None and not _covers(requeue_on, event):
            raise TypeError(f"queueing_hints: {event!r} is not in requeue_on")
        hint = getattr(plugin, method, None) if isinstance(method, str) else None
        if not callable(hint):
            raise TypeError(f"queueing_hints[{event!r}]: {method!r} is not a method of the plugin")
        hints[event] = hint
        try:
            if "cluster" in inspect.signature(hint).parameters:
                with_cluster.add(event)
        except (TypeError, ValueError):  # a builtin without a signature: called with three arguments
            pass
    score_scope = getattr(plugin, "score_scope", ScoreScope.CLUSTER)
    if not isinstance(score_scope, ScoreScope):
        raise TypeError(f"score_scope must be a ScoreScope, got {score_scope!r}")
    indexes = getattr(plugin, "pod_indexes", None) or {}
    if not isinstance(indexes, Mapping) or not all(callable(f) for f in indexes.values()):
        raise TypeError(f"pod_indexes must map index keys to factories (cluster -> index), got {indexes!r}")
    return Capabilities(requeue_on, scope, state, hints, score_scope, frozenset(with_cluster), dict(indexes))

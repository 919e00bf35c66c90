"""How cluster events change the loop's state (kube-scheduler's eventhandlers.go): the cache, the
queue, and which unschedulable pods an event may help."""

from __future__ import annotations

import dataclasses
import logging
import queue as queue_mod
import time
from dataclasses import dataclass
from typing import Any, cast

from ..backends.base import ClusterEvent
from ..cache.cluster import object_key
from ..cache.nodetable import NodeSpecError
from ..cache.podinfo import PodInfo, PodSpecError
from ..cache.shapes import describe_object
from ..objects import Pod
from ..runtime.generation import Generation
from .binding import BindingDone
from .pod_events import node_update_events, target_pod_events
from .state import SchedulerState

log = logging.getLogger(__name__)

DECISION_ANNOTATION = "kubeberth.io/last-decision"  # written by kubeberth.observability.annotations


@dataclass
class SwapGeneration:
    """Switch to this generation between cycles (cycles that started keep theirs)."""

    generation: Generation


class EventHandlers(SchedulerState):
    """The loop's side of informer, binding and reload events; runs only on the scheduling thread."""

    def drain_events(self, block_for: float = 0.0) -> int:
        handled = 0
        try:
            event = self.events.get(timeout=block_for) if block_for > 0 else self.events.get_nowait()
        except queue_mod.Empty:
            return 0
        while True:
            try:
                self._apply(event)
            except Exception:  # noqa: BLE001 - one bad event must never stop the scheduling loop
                log.exception("could not apply %s; event dropped, scheduling continues", _describe_event(event))
            handled += 1
            try:
                event = self.events.get_nowait()
            except queue_mod.Empty:
                return handled

    def _interested(self, pod: PodInfo, plugin: str, event: str, old: Any = None, new: Any = None) -> bool:
        """The plugin's declared `requeue_on` and queueing hint, in the profile of the pod it rejected."""
        fw = self.framework_for(pod) or self.generation.default_profile
        return fw.interested(plugin, event, pod, old, new, self.cluster)

    def _registered(self, pod: PodInfo, plugin: str, event: str) -> bool:
        """The plugin's declared `requeue_on` alone (no queueing hint), in the pod's profile."""
        fw = self.framework_for(pod) or self.generation.default_profile
        return fw.interested(plugin, event)

    def _apply(self, event: Any) -> None:
        if isinstance(event, ClusterEvent):
            hook = self.on_event_handled
            if hook is None or event.type == "SYNCED":
                self._apply_cluster_event(event)
                return
            label = self._event_label(event)
            t0 = time.perf_counter()
            self._apply_cluster_event(event)
            hook(label, time.perf_counter() - t0)
        elif isinstance(event, BindingDone):
            self._finish_binding(event)
        elif isinstance(event, SwapGeneration):
            self.generation = event.generation
            fw = event.generation.default_profile
            self.queue.resort(fw.queue_sort_key, self._pre_enqueue)
            if "Pod" in self.synced_kinds:
                self.build_pod_indexes()
            log.info("now scheduling with generation %s", event.generation.id)
        elif callable(event):
            event()

    def _event_label(self, ev: ClusterEvent) -> str:
        """kube-scheduler's ClusterEvent.Label() for the handler that applies `ev`: Resource+Action,
        with pods split into AssignedPod and UnscheduledPod as its two pod informers split them.
        (kube-scheduler observes a node update's handling once per sub-event, e.g.
        NodeUpdateNodeLabel; kubeberth observes it once, as NodeUpdate; the queue's incoming-pods
        metric carries the sub-event.)"""
        action = _ACTIONS.get(ev.type, ev.type)
        if ev.kind != "Pod":
            return ev.kind + action
        obj = ev.obj if isinstance(ev.obj, dict) else {}
        uid = _meta(obj).get("uid") if isinstance(_meta(obj), dict) else None
        placed = uid in self.cluster.placement
        if action == "Delete":
            return "AssignedPodDelete" if placed else "UnscheduledPodDelete"
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("nodeName"):
            return "AssignedPodUpdate" if placed and uid not in self.cluster.assumed else "AssignedPodAdd"
        return "UnscheduledPodUpdate" if uid in self.cluster.pods else "UnscheduledPodAdd"

    def _apply_cluster_event(self, ev: ClusterEvent) -> None:
        kind, typ, obj = ev.kind, ev.type, ev.obj
        if typ == "SYNCED":
            self.synced_kinds.add(kind)
            self.end_load_pause_if_synced()
            return
        verb = {"ADDED": "Add", "MODIFIED": "Update", "DELETED": "Delete"}.get(typ, typ)
        problem = _unreadable_identity(obj)
        if problem:
            log.warning("%s: %s; %s event skipped", describe_object(kind, obj), problem, typ)
            return
        if kind == "Node":
            if typ == "DELETED":
                self.cluster.remove_node(_meta(obj).get("name") or "")
                self.queue.move_for_event("Node/Delete", self._interested, old=obj)
                return
            row = self.cluster.table.row_of.get(_meta(obj).get("name") or "")
            before = self.cluster.table.raw[row] if row is not None else None  # the node's last good state
            try:
                self.cluster.upsert_node(obj)
            except NodeSpecError as exc:  # the table keeps the node's last good state
                log.warning("%s; node skipped until it is fixed", exc)
                return
            if before is None:  # new to the scheduler (a relisted node it had is an update)
                self.queue.move_for_event("Node/Add", self._interested, new=obj)
                return
            # kube-scheduler's updateNodeInCache: one move per NodeSchedulingPropertiesChange event,
            # none when nothing a plugin registers for changed.
            for node_event in node_update_events(before, obj):
                self.queue.move_for_event(node_event, self._interested, old=before, new=obj)
            return
        if kind == "Pod":
            self._apply_pod_event(typ, obj)
            return
        if kind == "DeviceTaintRule" and not self.generation.feature_gates.enabled("DRADeviceTaintRules"):
            return  # kube-scheduler runs no DeviceTaintRule informer without the gate: rules taint nothing
        # The object before the event, for queueing hints (a Delete's is the object itself).
        old = obj if typ == "DELETED" else None if typ == "ADDED" else self.cluster.get_object(kind, object_key(obj))
        try:
            if typ == "DELETED":
                slices = self.cluster.remove_object(kind, obj)
            else:
                slices = self.cluster.upsert_object(kind, obj)
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            log.warning("%s cannot be read (%s: %s); skipped until it is fixed", describe_object(kind, obj),
                        type(exc).__name__, exc)
            return
        if kind == "DeviceTaintRule":
            # kube-scheduler's resourceslice tracker: a rule that changed the taints of a slice's
            # devices is an update of that slice, seen with the rules' taints.
            for before, after in slices:
                self.queue.move_for_event("ResourceSlice/Update", self._interested, old=before, new=after)
            return
        new = None if typ == "DELETED" else obj
        if kind == "ResourceSlice" and slices:  # as the allocator sees it: with the DeviceTaintRules' taints
            before, new = slices[0]
            if typ != "ADDED" and before is not None:
                old = before
        self.queue.move_for_event(f"{kind}/{verb}", self._interested, old=old, new=new)

    def end_load_pause_if_synced(self) -> None:
        """The initial lists are applied (pods last; a custom resource that cannot be listed has
        settled without a list): the garbage collector's load pause ends."""
        if self.load_pause.active and "Pod" in self.synced_kinds and self.backend.ready():
            self.build_pod_indexes()  # still paused: what the build allocates is frozen with the cache
            self.load_pause.end()

    def build_pod_indexes(self) -> None:
        """Build the pod indexes the generation's plugins declare and the cache lacks."""
        declared = {key: f for fw in self.generation.profiles.values() for key, f in fw.pod_indexes().items()}
        self.cluster.build_indexes(declared)

    def _apply_pod_event(self, typ: str, obj: dict[str, Any]) -> None:
        """One pod watch event into the cache and the queue: a delete, a bound or finished pod, or a pending one."""
        if typ == "DELETED":
            self._pod_deleted(obj)
            return
        if self._confirm_assumed(obj):
            return
        try:
            pod = PodInfo.from_dict(obj)
        except PodSpecError as exc:
            self._skip_malformed_pod(obj, exc)
            return
        if self.skipped_pods:
            self.skipped_pods.pop(pod.uid, None)
        if pod.node_name or pod.is_terminal:
            self._pod_placed_or_finished(pod)
        else:
            self._pod_pending(pod)

    def _pod_deleted(self, obj: dict[str, Any]) -> None:
        """A deleted pod leaves the cache and the queue; a bound (or assumed) one is an AssignedPod delete."""
        uid = _meta(obj).get("uid") or _fallback_uid(obj)
        self.skipped_pods.pop(uid, None)
        assumed_row = self.cluster.placement.get(uid) if uid in self.cluster.assumed else None
        removed = self.cluster.remove_pod(uid)
        self._no_longer_pending(uid, "pod deleted")
        if self.scale_out is not None:
            self.scale_out.gone(uid)
        if removed is not None and not removed.node_name and assumed_row is not None:
            # kube-scheduler's handleAssumedPodDeletion: an assumed pod (binding, or held at Permit) deleted
            # frees its node as an AssignedPod delete does
            removed = dataclasses.replace(removed, node_name=self.cluster.table.names[assumed_row] or "")
        if removed is not None and removed.node_name:
            self.queue.move_for_event("Pod/Delete", self._interested, old=removed)

    def _pod_placed_or_finished(self, pod: PodInfo) -> None:
        """A pod bound to a node (by anyone) or terminal: cached, no longer pending, and the event it makes."""
        was_placed = pod.uid in self.cluster.placement
        previous = self.cluster.pods.get(pod.uid) if was_placed else None
        self.cluster.upsert_pod(pod)
        self._no_longer_pending(pod.uid, "pod bound elsewhere" if pod.node_name else "pod finished")
        if pod.is_terminal and self.scale_out is not None:
            self.scale_out.gone(pod.uid)
        if not was_placed and pod.node_name and not pod.is_terminal:
            self.queue.move_for_event("Pod/Add", self._interested, new=pod)
        elif previous is not None and pod.is_terminal:
            # kube-scheduler's assigned-pod informer drops finished pods: an AssignedPod delete.
            self.queue.move_for_event("Pod/Delete", self._interested, old=previous)
        elif previous is not None and pod.node_name:
            for pod_event in _placed_pod_events(previous, pod):
                self.queue.move_for_event(pod_event, self._interested, old=previous, new=pod)

    def _pod_pending(self, pod: PodInfo) -> None:
        """An unbound pod of ours: cached, then queued, updated in the queue, or left as it is."""
        if pod.deleting:
            self._no_longer_pending(pod.uid, "pod being deleted")
            return
        if self.framework_for(pod) is None:
            return
        if pod.uid in self.cluster.assumed:
            return  # binding in flight: an unbound update (e.g. our own condition patch) must not drop the reservation
        previous = self.cluster.pods.get(pod.uid)
        self.cluster.upsert_pod(pod)
        if pod.uid in self.failed:
            return
        if pod.uid not in self.queue.entries:
            if self.scale_out is not None and not self.scale_out.owns(pod):
                return  # another replica's to schedule (docs/scale-out.md)
            self.queue.add(pod)
            if pod.pod_group:
                # A new member may complete its gang (kube-scheduler's UnscheduledPodAdd move).
                self.queue.move_for_event("UnscheduledPod/Add", self._interested, skip=pod.uid, new=pod)
        elif previous is not None and not _scheduling_relevant_change(previous, pod):
            self.queue.entries[pod.uid].pod = pod  # status-only update: no requeue (isPodUpdated)
        else:
            events = target_pod_events(previous, pod) if previous is not None else ["TargetPod/Update"]
            self.queue.update(pod, self._interested, previous, events)

    def _skip_malformed_pod(self, obj: dict[str, Any], exc: PodSpecError) -> None:
        """A pod that cannot be parsed is left alone until an update fixes it: a warning, no
        scheduling of its last readable version, and a FailedScheduling event when it is ours."""
        ref = PodInfo.unparsed(obj)
        log.warning("%s; pod skipped until it is fixed", exc)
        self.skipped_pods[ref.uid] = str(exc)
        entry = self.queue.entries.get(ref.uid)
        if entry is not None and entry.where != "inflight":
            self.queue.delete(ref.uid)
        if ref.uid in self.cluster.placement or ref.uid in self.cluster.assumed:
            return  # running (or binding) on a node: its accounting stays, and it is not ours to report
        self.cluster.remove_pod(ref.uid)  # a pending pod's old version must not be nominated or counted
        if ref.name and not ref.node_name and self.framework_for(ref) is not None:
            self.backend.record_event(ref, "Warning", "FailedScheduling", f"pod cannot be scheduled as written: {exc}")

    def _confirm_assumed(self, obj: dict[str, Any]) -> bool:
        """Fast path for the informer echo of our own binding: the assumed pod is now bound where
        we put it, so its accounting stays as is (no re-parse, no re-index)."""
        uid = _meta(obj).get("uid")
        cluster = self.cluster
        if uid not in cluster.assumed:
            return False
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if not isinstance(spec, dict) or not isinstance(status, dict):
            return False  # malformed: the full parse names the field
        node = spec.get("nodeName")
        row = cluster.placement.get(uid)
        pod = cluster.pods.get(uid)
        if not node or row is None or pod is None or cluster.table.names[row] != node:
            return False
        if status.get("phase") in ("Succeeded", "Failed") or _meta(obj).get("deletionTimestamp"):
            return False
        cluster.assumed.discard(uid)
        pod.node_name = node
        pod.raw = cast(Pod, obj)
        self.queue.done(uid)  # even before its binding reports: a failure then has nothing to retry
        # Our own binding is an assigned pod added all the same (kube-scheduler's updatePod ->
        # addAssignedPodToCache -> EventAssignedPodAdd): a pod waiting for it (pod affinity) is retried.
        self.queue.move_for_event("Pod/Add", self._interested, new=pod)
        return True

    def _no_longer_pending(self, uid: str, why: str) -> None:
        """The pod needs no scheduling any more (deleted, being deleted, bound, finished).

        Its queue entry goes at once, even while its binding is in flight: the binding cycle,
        when it reports, finds the entry gone and neither retries nor reports the pod
        (kube-scheduler checks its informer cache the same way before requeueing). A pod held
        at Permit is rejected now rather than at its timeout (kube-scheduler's RejectWaitingPod).
        """
        self.queue.delete(uid)
        self.failed.pop(uid, None)
        waiting = self.waiting_pods.pop(uid, None)
        if waiting is not None:
            waiting.reject("", why)


_ACTIONS = {"ADDED": "Add", "MODIFIED": "Update", "DELETED": "Delete"}


def _placed_pod_events(old: PodInfo, new: PodInfo) -> list[str]:
    """The updates of a placed pod that a default plugin registers for (kube-scheduler's AssignedPod
    UpdatePodLabel and UpdatePodScaleDown, in PodSchedulingPropertiesChange's order): new labels, a
    request scaled down (an in-place resize; requests count the resources the kubelet allocated).
    Any other change of the pod (its spec, annotations) is PodSchedulingPropertiesChange's general
    `Pod/Update`, which only plugins registering Pod/Update (or every Pod event) hear; a status-only
    update, or one of kubeberth's decision annotation, fires nothing (kube-scheduler fires the general
    update for those too: kubelet status churn would scan the unschedulable pool for nothing)."""
    events = []
    if old.labels != new.labels:
        events.append("Pod/UpdatePodLabel")
    if any(value > new.requests.get(name, 0) for name, value in old.requests.items()):
        events.append("Pod/UpdatePodScaleDown")
    if not events and _scheduling_relevant_change(old, new):
        events.append("Pod/Update")
    return events


def _scheduling_relevant_change(old: PodInfo, new: PodInfo) -> bool:
    """kube-scheduler ignores updates that only touch status or resourceVersion, except the names of
    the pod's generated ResourceClaims (UpdatePodGeneratedResourceClaim); kubeberth also ignores its
    own decision annotation, so writing it never requeues the pod."""
    a, b = old.raw, new.raw
    if a.get("spec") != b.get("spec"):
        return True
    sa, sb = a.get("status") or {}, b.get("status") or {}
    if sa.get("resourceClaimStatuses") != sb.get("resourceClaimStatuses") or sa.get(
        "extendedResourceClaimStatus"
    ) != sb.get("extendedResourceClaimStatus"):
        return True  # UpdatePodGeneratedResourceClaim: the pod's generated claims got their names
    ma, mb = a.get("metadata") or {}, b.get("metadata") or {}
    if ma.get("labels") != mb.get("labels"):
        return True
    aa, ab = ma.get("annotations") or {}, mb.get("annotations") or {}
    if aa == ab:
        return False
    return {k: v for k, v in aa.items() if k != DECISION_ANNOTATION} != {
        k: v for k, v in ab.items() if k != DECISION_ANNOTATION
    }


def _fallback_uid(obj: dict[str, Any]) -> str:
    meta = _meta(obj)
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _meta(obj: dict[str, Any]) -> Any:
    return obj.get("metadata") or {}


def _unreadable_identity(obj: Any) -> str:
    """Why an object cannot even be told apart from others (the rest is checked where it is read)."""
    if not isinstance(obj, dict):
        return f"expected an object, got {type(obj).__name__}"
    meta = _meta(obj)
    if not isinstance(meta, dict):
        return f"metadata: expected a mapping, got {type(meta).__name__}"
    for key in ("name", "namespace", "uid"):
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            return f"metadata.{key}: expected a string, got {type(value).__name__}"
    return ""


def _describe_event(event: Any) -> str:
    if isinstance(event, ClusterEvent):
        return f"{event.type} of {describe_object(event.kind, event.obj)}"
    return type(event).__name__

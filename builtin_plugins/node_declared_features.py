"""NodeDeclaredFeatures: a pod that needs a node feature only lands on nodes that declare it.

kube-scheduler v1.37.2's plugin (framework/plugins/nodedeclaredfeatures) over component-helpers'
nodedeclaredfeatures framework: each registered feature may infer, from the pod's spec, that the
pod requires it; a node qualifies when `status.declaredFeatures` holds every required feature.
Of v1.37.2's registry three features infer requirements for scheduling (RestartAllContainersOnContainerExits,
UserNamespacesHostNetworkSupport, VolumeBindMountOptions); the others only matter to the kubelet.

Cost: the requirements are inferred once per pod (memoised) at PreFilter, which skips the Filter
for the pods that require nothing — almost all of them. Only a pod with requirements reads the
candidate nodes' declared features.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from kubeberth import (
    Code,
    FeatureGates,
    FilterResult,
    FilterScope,
    MemoKey,
    NodeView,
    PodView,
    PreFilterState,
    Status,
    hookimpl,
    is_pod,
)
from kubeberth.api.capabilities import TARGET_POD_EVENTS
from kubeberth.api.signing import SignFragment

log = logging.getLogger(__name__)
FEATURES_SIGNER = "v1.Pod.Spec.RequiredFeatures()"  # kube-scheduler's FeaturesSignerName

NAME = "NodeDeclaredFeatures"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"
# The scheduler version features are inferred for (component-base's version.Get()).
SCHEDULER_VERSION = (1, 37, 2)

Version = tuple[int, int, int]


@dataclass(frozen=True)
class NodeFeature:
    """One nodedeclaredfeatures types.Feature, as far as scheduling uses it."""

    name: str
    infer_for_scheduling: Callable[[Mapping[str, Any]], bool]
    max_version: Version | None = None


def _containers(spec: Mapping[str, Any], *kinds: str) -> Iterable[Mapping[str, Any]]:
    for kind in kinds:
        yield from spec.get(kind) or ()


def _restart_all_containers(spec: Mapping[str, Any]) -> bool:
    """restartallcontainers: a restartPolicyRules entry with action RestartAllContainers."""
    return any(
        rule.get("action") == "RestartAllContainers"
        for c in _containers(spec, "containers", "initContainers")
        for rule in c.get("restartPolicyRules") or ()
    )


def _user_namespaces_host_network(spec: Mapping[str, Any]) -> bool:
    """usernamespaceshostnetwork: hostNetwork with hostUsers: false."""
    return bool(spec.get("hostNetwork")) and spec.get("hostUsers") is False


def _volume_bind_mount_options(spec: Mapping[str, Any]) -> bool:
    """volumebindmountoptions: a volumeMount with bindMountOptions."""
    return any(
        m.get("bindMountOptions")
        for c in _containers(spec, "containers", "initContainers", "ephemeralContainers")
        for m in c.get("volumeMounts") or ()
    )


def _never(spec: Mapping[str, Any]) -> bool:
    return False


# component-helpers' features.AllFeatures (v0.37.2).
ALL_FEATURES: tuple[NodeFeature, ...] = (
    NodeFeature("RestartAllContainersOnContainerExits", _restart_all_containers),
    NodeFeature("InPlacePodLevelResourcesVerticalScaling", _never),
    NodeFeature("ExtendWebSocketsToKubelet", _never),
    NodeFeature("InPlacePodVerticalScalingInitContainers", _never),
    NodeFeature("InPlacePodVerticalScalingMemoryBackedVolumes", _never),
    NodeFeature("UserNamespacesHostNetworkSupport", _user_namespaces_host_network),
    NodeFeature("DRANodeAllocatableResources", _never),
    NodeFeature("VolumeBindMountOptions", _volume_bind_mount_options),
    NodeFeature("DRAOptionalNodeOperations", _never),
)


class FeatureFramework:
    """nodedeclaredfeatures.Framework: the registry sorted by name, and inference over it."""

    def __init__(self, registry: Sequence[NodeFeature] = ALL_FEATURES) -> None:
        self.registry = tuple(sorted(registry, key=lambda f: f.name))

    def infer_for_pod_scheduling(self, spec: Mapping[str, Any], version: Version | None) -> frozenset[str]:
        """InferForPodScheduling: the features the pod requires; features past their MaxVersion
        are assumed everywhere and never required."""
        if version is None:
            raise ValueError("target version cannot be nil")
        return frozenset(
            f.name
            for f in self.registry
            if not (f.max_version is not None and version > f.max_version) and f.infer_for_scheduling(spec)
        )


DEFAULT_FRAMEWORK = FeatureFramework()
_REQUIREMENTS: MemoKey[frozenset[str]] = MemoKey("NodeDeclaredFeatures.requirements")
# Inference reads the spec only, and a workload's pods share theirs: one answer per distinct spec.
_BY_SPEC: dict[tuple[Version | None, str], frozenset[str]] = {}
_BY_SPEC_LIMIT = 4096


def is_resize_deferred(pod: PodView) -> bool:
    """component-helpers' IsPodResizeDeferred: a PodResizePending condition with reason Deferred."""
    for cond in (pod.raw.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "PodResizePending":
            return cond.get("reason") == "Deferred"
    return False


def declared_features(node: Mapping[str, Any] | None) -> list[str]:
    return list(((node or {}).get("status") or {}).get("declaredFeatures") or ())


class NodeDeclaredFeatures:
    """Rejects nodes that do not declare every feature the pod requires (UnschedulableAndUnresolvable)."""

    name = NAME
    filter_scope = FilterScope.NODE  # the node's declared features only
    pre_filter_state = PreFilterState.NO_POD_DATA

    def __init__(
        self,
        feature_gates: FeatureGates | None = None,
        *,
        framework: FeatureFramework = DEFAULT_FRAMEWORK,
        version: Version | None = SCHEDULER_VERSION,
        enabled: bool | None = None,
    ) -> None:
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.enabled = gates.enabled("NodeDeclaredFeatures") if enabled is None else enabled
        self.skip_deferred_resize = gates.enabled("InPlacePodVerticalScalingSchedulerPreemption")
        self.framework = framework
        self.version = version
        # EventsToRegister: Node Add|UpdateNodeDeclaredFeature, and any update of the pending pod
        # itself (TargetPod Update), narrowed by `hint_pod_updated`, upstream's hint for it.
        self.requeue_on = (
            frozenset({"Node/Add", "Node/UpdateNodeDeclaredFeature", "TargetPod"}) if self.enabled else frozenset()
        )
        self.queueing_hints = (
            {"Node/Add": "hint_node_changed", "Node/UpdateNodeDeclaredFeature": "hint_node_changed"}
            | dict.fromkeys(TARGET_POD_EVENTS, "hint_pod_updated")
            if self.enabled
            else {}
        )

    def requirements(self, pod: PodView) -> frozenset[str]:
        """The pod's required features (memoised per pod for the default framework)."""
        if self.framework is not DEFAULT_FRAMEWORK:
            return self.framework.infer_for_pod_scheduling(pod.raw.get("spec") or {}, self.version)
        found = _REQUIREMENTS.get(pod)
        if found is None:
            spec = pod.raw.get("spec") or {}
            try:
                key = (self.version, orjson.dumps(spec, option=orjson.OPT_SORT_KEYS).decode())  # str: compact
            except TypeError:  # not plain JSON: infer without sharing
                key = None
            found = _BY_SPEC.get(key) if key is not None else None
            if found is None:
                found = self.framework.infer_for_pod_scheduling(spec, self.version)
                if key is not None:
                    if len(_BY_SPEC) >= _BY_SPEC_LIMIT:
                        _BY_SPEC.clear()
                    _BY_SPEC[key] = found
            _REQUIREMENTS.set(pod, found)
        return found

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment] | Status:
        """kube-scheduler's SignPod: the features the pod requires."""
        try:
            return [SignFragment(FEATURES_SIGNER, sorted(self.requirements(pod)))]
        except ValueError as exc:
            return Status.error(str(exc))

    @hookimpl
    def pre_filter(self, state: dict[str, Any], pod: PodView) -> Status | None:
        if self.skip_deferred_resize and is_resize_deferred(pod):
            return Status.skip()
        if not self.enabled:
            return Status.skip()
        try:
            reqs = self.requirements(pod)
        except ValueError as exc:
            return Status.error(str(exc))
        if not reqs:
            return Status.skip()
        state[PRE_FILTER_STATE_KEY] = reqs
        return None

    @hookimpl
    def filter(self, state: dict[str, Any], pod: PodView, nodes: NodeView) -> FilterResult | Status | None:
        if (self.skip_deferred_resize and is_resize_deferred(pod)) or not self.enabled:
            return None
        reqs = state.get(PRE_FILTER_STATE_KEY)
        if reqs is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        raw = nodes.table.raw
        seen: dict[tuple[str, ...], bool] = {}
        missing = np.zeros(len(nodes), dtype=bool)
        for i, row in enumerate(nodes.rows.tolist()):
            declared = tuple(declared_features(raw[row]))
            ok = seen.get(declared)
            if ok is None:
                ok = seen[declared] = reqs <= set(declared)
            missing[i] = not ok
        return FilterResult.reject_where(missing, ERR_REASON_UNSATISFIED_REQUIREMENTS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    # ---- queueing hints (kube-scheduler's QueueingHintFns) -------------------------------
    def hint_node_changed(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: a new node, or one whose declared features changed."""
        return old is None or declared_features(old) != declared_features(new)

    def hint_pod_updated(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterTargetPodUpdate: the rejected pod's own update changed its requirements
        (an inference error queues it)."""
        try:
            before = self.framework.infer_for_pod_scheduling(_spec(old), self.version)
            after = self.framework.infer_for_pod_scheduling(_spec(new), self.version)
        except ValueError as exc:
            log.error("failed to infer pod feature requirements for %s: %s; queueing it", pod.key, exc)
            return True
        return before != after


def _spec(obj: Any) -> Mapping[str, Any]:
    raw = obj.raw if is_pod(obj) else (obj or {})
    return raw.get("spec") or {}

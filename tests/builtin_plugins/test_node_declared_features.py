"""NodeDeclaredFeatures: kube-scheduler v1.37.2's nodedeclaredfeatures_test.go cases, fixtures verbatim,
plus the inference of v1.37.2's registry and a run through the framework."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from kubeberth import Code, FeatureGates
from kubeberth.builtin_plugins.node_declared_features import (
    ERR_REASON_UNSATISFIED_REQUIREMENTS,
    PRE_FILTER_STATE_KEY,
    FeatureFramework,
    NodeDeclaredFeatures,
    NodeFeature,
)
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import Verdict, all_nodes, cluster_of, make_node, make_pod

FEATURE1, FEATURE2 = "TestFeature1", "TestFeature2"


def mock(name: str, infer: bool, max_version: tuple[int, int, int] | None = None) -> NodeFeature:
    """createMockFeature."""
    return NodeFeature(name, lambda spec: infer, max_version)


def node(name: str, features: list[str] | None = None) -> dict[str, Any]:
    obj = make_node(name)
    if features is not None:
        obj.setdefault("status", {})["declaredFeatures"] = features
    return obj


def test_pod() -> PodInfo:
    return PodInfo.from_dict(make_pod("test-pod"))


test_pod.__test__ = False  # type: ignore[attr-defined]

# (id, pluginEnabled, componentVersion, features, expected Skip?, expected state)
PRE_FILTER = [
    ("TestPreFilter/plugin disabled", False, (1, 35, 0), [mock(FEATURE1, True), mock(FEATURE2, False)], True, None),
    ("TestPreFilter/Pod with feature requirements", True, (1, 35, 0),
     [mock(FEATURE1, True), mock(FEATURE2, False)], False, {FEATURE1}),
    ("TestPreFilter/Pod with multiple feature requirements", True, (1, 35, 0),
     [mock(FEATURE1, True, (1, 38, 0)), mock(FEATURE2, True, (1, 38, 0))], False, {FEATURE1, FEATURE2}),
    ("TestPreFilter/Pod with no requirements", True, (1, 35, 0), [mock(FEATURE1, False), mock(FEATURE2, False)],
     True, None),
    ("TestPreFilter/Feature not required, version > MaxVersion", True, (1, 34, 0),
     [mock(FEATURE1, True, (1, 33, 0)), mock(FEATURE2, False)], True, None),
]


@pytest.mark.parametrize(("enabled", "version", "features", "skip", "want_state"),
                         [pytest.param(*c[1:], id=c[0]) for c in PRE_FILTER])
def test_pre_filter(enabled, version, features, skip, want_state) -> None:
    plugin = NodeDeclaredFeatures(framework=FeatureFramework(features), version=version, enabled=enabled)
    state: dict[str, Any] = {}
    status = plugin.pre_filter(state, test_pod())
    assert (status is not None and status.code == Code.SKIP) is skip
    assert state.get(PRE_FILTER_STATE_KEY) == (frozenset(want_state) if want_state is not None else None)


A, B, C = "FeatureA", "FeatureB", "FeatureC"
UNRESOLVABLE = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSATISFIED_REQUIREMENTS)
# (id, pluginEnabled, node, preFilterReqs, expected (code, message) or None for Success)
FILTER = [
    ("TestFilter/plugin disabled", False, node("node-1", [A, B]), None, None),
    ("TestFilter/Node matches requirements", True, node("node-1", [A, B]), [A], None),
    ("TestFilter/Node does not match requirements", True, node("node-1", [B]), [A], UNRESOLVABLE),
    ("TestFilter/Node with multiple features, pod requires subset", False, node("node-multi", [A, B, C]), [A, C], None),
    ("TestFilter/Node has no declared features", True, node("node-1"), [A], UNRESOLVABLE),
    ("TestFilter/Node with some but not all required features", True, node("node-1", [A]), [A, B], UNRESOLVABLE),
    ("TestFilter/Error getting pre-filter state", True, node("node-1"), None,
     (Code.ERROR, f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')),
]


@pytest.mark.parametrize(("enabled", "the_node", "reqs", "want"), [pytest.param(*c[1:], id=c[0]) for c in FILTER])
def test_filter(enabled, the_node, reqs, want) -> None:
    plugin = NodeDeclaredFeatures(enabled=enabled)
    state: dict[str, Any] = {} if reqs is None else {PRE_FILTER_STATE_KEY: frozenset(reqs)}
    cluster = cluster_of([the_node])
    result = plugin.filter(state, test_pod(), all_nodes(cluster))
    if result is None or (not isinstance(result, tuple) and hasattr(result, "feasible") and result.feasible.all()):
        got = None
    elif hasattr(result, "feasible"):
        [rej] = result.rejections
        got = (rej.code, rej.reason)
    else:
        got = (result.code, result.message)
    assert got == want


NODE_UPDATE = [
    ("TestEnqueueExtensionsNodeUpdate/Node Add with feature", None, node("node-1", ["FeatureA"]), True),
    ("TestEnqueueExtensionsNodeUpdate/Node Update (Features Added)", node("node-1"), node("node-1", ["FeatureA"]), True),
    ("TestEnqueueExtensionsNodeUpdate/Node Update (Features Unchanged)", node("node-1", ["FeatureA"]),
     node("node-1", ["FeatureA"]), False),
]


@pytest.mark.parametrize(("old", "new", "want"), [pytest.param(*c[1:], id=c[0]) for c in NODE_UPDATE])
def test_enqueue_extensions_node_update(old, new, want) -> None:
    plugin = NodeDeclaredFeatures(framework=FeatureFramework([]), version=(1, 35, 0), enabled=True)
    assert plugin.hint_node_changed(test_pod(), old, new) is want


def _sequence(*answers: bool) -> NodeFeature:
    """A mock feature whose inference answers in turn (and fails on an unexpected call)."""
    calls = iter(answers)
    return NodeFeature("TestFeature", lambda spec: next(calls))


_target = make_pod("test-pod", uid="123")
_labelled = make_pod("test-pod", uid="123", labels={"foo": "bar"})
TARGET_POD_UPDATE = [
    ("TestIsSchedulableAfterTargetPodUpdate/Pod Update adds requirement", _target, _labelled, (1, 35, 0),
     _sequence(False, True), True, None),
    ("TestIsSchedulableAfterTargetPodUpdate/Pod Update removes requirement", _labelled, _target, (1, 35, 0),
     _sequence(True, False), True, None),
    ("TestIsSchedulableAfterTargetPodUpdate/Pod Update with no change in requirements", _target, _target, (1, 35, 0),
     NodeFeature("TestFeature", lambda spec: False), False, None),
    ("TestIsSchedulableAfterTargetPodUpdate/Infer returns error", _target, _labelled, None,
     NodeFeature("TestFeature", lambda spec: True), True, "target version cannot be nil"),
]


@pytest.mark.parametrize(("old", "new", "version", "feature", "want", "error"),
                         [pytest.param(*c[1:], id=c[0]) for c in TARGET_POD_UPDATE])
def test_is_schedulable_after_target_pod_update(old, new, version, feature, want, error, caplog) -> None:
    plugin = NodeDeclaredFeatures(framework=FeatureFramework([feature]), version=version, enabled=True)
    with caplog.at_level(logging.ERROR):
        assert plugin.hint_pod_updated(PodInfo.from_dict(_target), old, new) is want
    assert (error in caplog.text) if error else not caplog.records


@pytest.mark.parametrize(("enabled", "count"), [
    pytest.param(False, 0, id="TestEventsToRegister/plugin disabled"),
    pytest.param(True, 2, id="TestEventsToRegister/plugin enabled"),
])
def test_events_to_register(enabled: bool, count: int) -> None:
    """Upstream's two registrations are Node Add|UpdateNodeDeclaredFeature and TargetPod Update (the
    pod's own update); `requeue_on` names them per kind (Node/Add, Node/Update; TargetPod), so the
    count is of the kinds registered."""
    assert len({event.split("/", 1)[0] for event in NodeDeclaredFeatures(enabled=enabled).requeue_on}) == count


def test_node_declared_features_deferred_resize_skipped() -> None:
    """TestNodeDeclaredFeatures_DeferredResizeSkipped (a table-less upstream test)."""
    deferred = make_pod("p", uid="p")
    deferred["status"] = {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}
    pod = PodInfo.from_dict(deferred)
    plugin = NodeDeclaredFeatures(FeatureGates({"InPlacePodVerticalScalingSchedulerPreemption": True}), enabled=True)
    assert plugin.pre_filter({}, pod).code == Code.SKIP
    assert plugin.filter({}, pod, all_nodes(cluster_of([node("node1")]))) is None


# ---- v1.37.2's registry -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "required"),
    [
        ({}, set()),
        ({"containers": [{"name": "c", "restartPolicyRules": [{"action": "RestartAllContainers"}]}]},
         {"RestartAllContainersOnContainerExits"}),
        ({"initContainers": [{"name": "i", "restartPolicyRules": [{"action": "RestartAllContainers"}]}]},
         {"RestartAllContainersOnContainerExits"}),
        ({"containers": [{"name": "c", "restartPolicyRules": [{"action": "Restart"}]}]}, set()),
        ({"hostNetwork": True, "hostUsers": False}, {"UserNamespacesHostNetworkSupport"}),
        ({"hostNetwork": True}, set()),
        ({"hostUsers": False}, set()),
        ({"ephemeralContainers": [{"name": "e", "volumeMounts": [{"name": "v", "bindMountOptions": ["ro"]}]}]},
         {"VolumeBindMountOptions"}),
    ],
)
def test_default_registry_inference(spec: dict[str, Any], required: set[str]) -> None:
    assert NodeDeclaredFeatures().requirements(PodInfo.from_dict({"metadata": {"name": "p"}, "spec": spec})) == required


def test_through_the_framework(scheduler_tester) -> None:
    nodes = [node("old"), node("new", ["UserNamespacesHostNetworkSupport"])]
    t = scheduler_tester(["NodeDeclaredFeatures"], objects=nodes)
    wants = PodInfo.from_dict(make_pod("p", hostNetwork=True, hostUsers=False))
    ev = t.evaluate(wants)
    assert ev.verdicts == {
        "old": Verdict("NodeDeclaredFeatures", ERR_REASON_UNSATISFIED_REQUIREMENTS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
        "new": None,
    }
    assert t.evaluate(PodInfo.from_dict(make_pod("q"))).feasible == ["old", "new"]

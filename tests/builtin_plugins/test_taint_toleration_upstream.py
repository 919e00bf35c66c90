"""TaintToleration: kube-scheduler v1.37.2's TestIsSchedulableAfterNodeChange (taint_toleration_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.taint_toleration import TaintToleration
from kubeberth.cache.podinfo import PodInfo
from st import fwk, v1
from test_node_unschedulable_upstream import requeues
from upstream import cases


def nodeWithTaints(nodeName: str, taints: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Node", "metadata": {"name": nodeName}, "spec": {"taints": taints}}


def podWithTolerations(podName: str, tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Pod", "metadata": {"name": podName}, "spec": {"tolerations": tolerations}}


TestIsSchedulableAfterNodeChange = [
    {
        "name": "TestIsSchedulableAfterNodeChange/backoff-wrong-new-object",
        "newObj": "not-a-node",
        "expectedHint": fwk.Queue,
        "wantErr": True,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/backoff-wrong-old-object",
        "newObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]),
        "oldObj": "not-a-node",
        "expectedHint": fwk.Queue,
        "wantErr": True,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/skip-queue-on-untoleratedtaint-node-added",
        "pod": podWithTolerations(
            "pod1", [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}]
        ),
        "newObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/queue-on-toleratedtaint-node-added",
        "pod": podWithTolerations(
            "pod1", [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}]
        ),
        "newObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user2", "effect": "NoSchedule"}]),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/skip-unrelated-change",
        "pod": podWithTolerations(
            "pod1", [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}]
        ),
        "newObj": nodeWithTaints(
            "nodeA",
            [
                {"key": "dedicated", "value": "user1", "effect": "NoSchedule"},
                {"key": "dedicated", "value": "user3", "effect": "NoSchedule"},
            ],
        ),
        "oldObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/queue-on-taint-change",
        "pod": podWithTolerations(
            "pod1", [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}]
        ),
        "newObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user2", "effect": "NoSchedule"}]),
        "oldObj": nodeWithTaints("nodeA", [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]),
        "expectedHint": fwk.Queue,
    },
]


@pytest.mark.parametrize("test", cases(TestIsSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(test: dict[str, Any]) -> None:
    assert requeues(TaintToleration(), test) == test["expectedHint"]


# ---- Test_isSchedulableAfterTargetPodTolerationChange (a map keyed by case name upstream) ------------------------
Test_isSchedulableAfterTargetPodTolerationChange = [
    {
        "name": "Test_isSchedulableAfterTargetPodTolerationChange/queue-on-toleration-added",
        "pod": {"metadata": {"name": "pod-1", "namespace": "ns-1"}},
        "oldObj": {"metadata": {"name": "pod-1", "namespace": "ns-1"}},
        "newObj": {"metadata": {"name": "pod-1", "namespace": "ns-1"},
                   "spec": {"tolerations": [{"key": "foo", "effect": v1.TaintEffectNoSchedule}]}},
        "expectedHint": fwk.Queue,
    },
]


@pytest.mark.parametrize("test", cases(Test_isSchedulableAfterTargetPodTolerationChange))
def test_is_schedulable_after_target_pod_toleration_change(test: dict[str, Any]) -> None:
    """As the queue calls it for the pending pod's own TargetPod/UpdatePodToleration."""
    plugin = TaintToleration()
    pod, old, new = (PodInfo.from_dict(test[k]) for k in ("pod", "oldObj", "newObj"))
    assert plugin.is_schedulable_after_target_pod_toleration_change(pod, old, new) == test["expectedHint"]
    assert capabilities_of(plugin).requeues("TargetPod/UpdatePodToleration", pod, old, new) == test["expectedHint"]

"""TaintToleration: kube-scheduler v1.37.2's TestIsSchedulableAfterNodeChange (taint_toleration_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.builtin_plugins.taint_toleration import TaintToleration
from st import fwk
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

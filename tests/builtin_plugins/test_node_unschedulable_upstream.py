"""NodeUnschedulable: kube-scheduler v1.37.2's TestIsSchedulableAfterNodeChange (node_unschedulable_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import PodInfo
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.node_unschedulable import NodeUnschedulable
from st import fwk, v1
from upstream import cases

TestIsSchedulableAfterNodeChange = [
    {
        "name": "TestIsSchedulableAfterNodeChange/error-wrong-new-object",
        "pod": {"kind": "Pod"},
        "newObj": "not-a-node",
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/error-wrong-old-object",
        "pod": {"kind": "Pod"},
        "newObj": {"kind": "Node", "spec": {"unschedulable": True}},
        "oldObj": "not-a-node",
        "expectedHint": fwk.Queue,
        "expectedErr": True,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/skip-queue-on-unschedulable-node-added",
        "pod": {"kind": "Pod"},
        "newObj": {"kind": "Node", "spec": {"unschedulable": True}},
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/queue-on-schedulable-node-added",
        "pod": {"kind": "Pod"},
        "newObj": {"kind": "Node", "spec": {"unschedulable": False}},
        "expectedHint": fwk.Queue,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/skip-unrelated-change-unschedulable-true",
        "pod": {"kind": "Pod"},
        "newObj": {
            "kind": "Node",
            "spec": {
                "unschedulable": True,
                "taints": [{"key": v1.TaintNodeNotReady, "effect": v1.TaintEffectNoExecute}],
            },
        },
        "oldObj": {"kind": "Node", "spec": {"unschedulable": True}},
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/skip-unrelated-change-unschedulable-false",
        "pod": {"kind": "Pod"},
        "newObj": {
            "kind": "Node",
            "spec": {
                "unschedulable": False,
                "taints": [{"key": v1.TaintNodeNotReady, "effect": v1.TaintEffectNoExecute}],
            },
        },
        "oldObj": {"kind": "Node", "spec": {"unschedulable": False}},
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "TestIsSchedulableAfterNodeChange/queue-on-unschedulable-field-change",
        "pod": {"kind": "Pod"},
        "newObj": {"kind": "Node", "spec": {"unschedulable": False}},
        "oldObj": {"kind": "Node", "spec": {"unschedulable": True}},
        "expectedHint": fwk.Queue,
    },
]


def requeues(plugin: Any, test: dict[str, Any]) -> bool:
    """The plugin's queueing hint for a node event, as the queue calls it (a hint that fails queues the pod)."""
    old, new = test.get("oldObj"), test.get("newObj")
    pod = PodInfo.from_dict(test["pod"]) if test.get("pod") else None
    return capabilities_of(plugin).requeues("Node/Update" if old is not None else "Node/Add", pod, old, new)


@pytest.mark.parametrize("test", cases(TestIsSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(test: dict[str, Any]) -> None:
    assert requeues(NodeUnschedulable(), test) == test["expectedHint"]

"""NodeUnschedulable: kube-scheduler v1.37.2's TestIsSchedulableAfterNodeChange (node_unschedulable_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.node_unschedulable import NodeUnschedulable
from kubeberth.cache.podinfo import PodInfo
from st import fwk, v1
from upstream import cases, update_event

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
    return capabilities_of(plugin).requeues(update_event(plugin, "Node") if old is not None else "Node/Add", pod, old, new)


@pytest.mark.parametrize("test", cases(TestIsSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(test: dict[str, Any]) -> None:
    assert requeues(NodeUnschedulable(), test) == test["expectedHint"]


# ---- TestIsSchedulableAfterPodTolerationChange ------------------------------------------------------
TestIsSchedulableAfterPodTolerationChange = [
    {"name": "TestIsSchedulableAfterPodTolerationChange/error-wrong-new-object", "pod": {},
     "newObj": "not-a-pod", "expectedHint": fwk.Queue, "expectedErr": True},
    {"name": "TestIsSchedulableAfterPodTolerationChange/error-wrong-old-object", "pod": {},
     "newObj": {}, "oldObj": "not-a-pod", "expectedHint": fwk.Queue, "expectedErr": True},
    {"name": "TestIsSchedulableAfterPodTolerationChange/queue-when-the-unsched-pod-gets-toleration",
     "pod": st.MakePod().UID("uid").Obj(),
     "newObj": st.MakePod().UID("uid").Toleration(v1.TaintNodeUnschedulable).Obj(),
     "oldObj": st.MakePod().UID("uid").Obj(),
     "expectedHint": fwk.Queue},
    {"name": "TestIsSchedulableAfterPodTolerationChange/skip-when-the-unsched-pod-gets-unrelated-toleration",
     "pod": st.MakePod().UID("uid").Obj(),
     "newObj": st.MakePod().UID("uid").Toleration("unrelated-key").Obj(),
     "oldObj": st.MakePod().UID("uid").Obj(),
     "expectedHint": fwk.QueueSkip},
]


@pytest.mark.parametrize("test", cases(TestIsSchedulableAfterPodTolerationChange))
def test_is_schedulable_after_pod_toleration_change(test: dict[str, Any]) -> None:
    """isSchedulableAfterTargetPodTolerationChange, as the queue calls it for TargetPod/UpdatePodToleration
    (pods as PodInfo; a wrong object fails the hint, which queues the pod)."""
    plugin = NodeUnschedulable()

    def as_pod(obj: Any) -> Any:
        return PodInfo.from_dict({"kind": "Pod", **obj}) if isinstance(obj, dict) else obj

    pod, old, new = as_pod(test["pod"]), as_pod(test.get("oldObj")), as_pod(test["newObj"])
    if test.get("expectedErr"):
        with pytest.raises(TypeError):
            plugin.is_schedulable_after_target_pod_toleration_change(pod, old, new)
    got = capabilities_of(plugin).requeues("TargetPod/UpdatePodToleration", pod, old, new)
    assert got == test["expectedHint"]

"""NodePorts: kube-scheduler v1.37.2's node_ports_test.go Test_isSchedulableAfterAssignedPodDeleted, case by
case (the other NodePorts tables are ported in test_node_ports.py)."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.node_ports import NodePorts
from st import fwk
from upstream import cases


# ---- Test_isSchedulableAfterAssignedPodDeleted (a map keyed by case name upstream; keyed here by test id) ------
def _Test_isSchedulableAfterAssignedPodDeleted() -> dict[str, dict[str, Any]]:
    podWithHostPort = st.MakePod().HostPort(8080)
    testcases: dict[str, dict[str, Any]] = {
        "Test_isSchedulableAfterAssignedPodDeleted/backoff-wrong-old-object": {
            "pod": podWithHostPort.Obj(), "oldObj": "not-a-pod", "expectedHint": fwk.Queue, "expectedErr": True,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-queue-on-unscheduled": {
            "pod": podWithHostPort.Obj(), "oldObj": st.MakePod().Obj(), "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-queue-on-non-hostport": {
            "pod": podWithHostPort.Obj(), "oldObj": st.MakePod().Node("fake-node").Obj(), "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/skip-queue-on-unrelated-hostport": {
            "pod": podWithHostPort.Obj(), "oldObj": st.MakePod().Node("fake-node").HostPort(8081).Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterAssignedPodDeleted/queue-on-released-hostport": {
            "pod": podWithHostPort.Obj(), "oldObj": st.MakePod().Node("fake-node").HostPort(8080).Obj(),
            "expectedHint": fwk.Queue,
        },
    }
    return {k: {"name": k, **v} for k, v in testcases.items()}


Test_isSchedulableAfterAssignedPodDeleted = _Test_isSchedulableAfterAssignedPodDeleted()


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodDeleted))
def test_is_schedulable_after_assigned_pod_deleted(tc: dict[str, Any]) -> None:
    """The hint as the queue calls it for a placed pod's Pod/Delete: a wrong object is upstream's error,
    a TypeError here, and the queue retries the pod (Queue)."""
    plugin = NodePorts()
    pod = st.pod_info(tc["pod"])
    old = st.pod_info(tc["oldObj"]) if isinstance(tc["oldObj"], dict) else tc["oldObj"]
    if tc.get("expectedErr"):
        with pytest.raises(TypeError):
            plugin.is_schedulable_after_assigned_pod_deleted(pod, old, None)
    else:
        assert plugin.is_schedulable_after_assigned_pod_deleted(pod, old, None) == tc["expectedHint"]
    assert capabilities_of(plugin).requeues("Pod/Delete", pod, old, None) == tc["expectedHint"]


def test_events_to_register() -> None:
    """EventsToRegister: AssignedPod Delete with its hint, Node Add without (pod updates are ignored)."""
    caps = capabilities_of(NodePorts())
    assert caps.requeue_on == {"Pod/Delete", "Node/Add"}
    assert set(caps.queueing_hints) == {"Pod/Delete"}

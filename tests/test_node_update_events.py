"""A node's update, and a placed pod's, fired as what they changed (kube-scheduler's
NodeSchedulingPropertiesChange and PodSchedulingPropertiesChange): only the plugins that registered
that sub-event (`Node/UpdateNodeLabel`, ...) are asked, and an update that changes none of them
retries nothing. Through the real scheduler on the embedded cluster."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.api.capabilities import Capabilities, capabilities_of
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.eventhandlers import _placed_pod_events
from kubeberth.scheduling.pod_events import node_update_events
from kubeberth.scheduling.queue import event_label
from kubeberth.testing import SchedulerTester, make_node, make_pod


def _node(**changes: Any) -> dict[str, Any]:
    node = make_node("n1", cpu="4", labels={"zone": "a"})
    node["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-01T00:00:00Z"}]
    for path, value in changes.items():
        target = node
        *parents, leaf = path.split("__")
        for key in parents:
            target = target.setdefault(key, {})
        target[leaf] = value
    return node


@pytest.mark.parametrize(("changes", "events"), [
    ({}, []),
    ({"metadata__labels": {"zone": "b"}}, ["Node/UpdateNodeLabel"]),
    ({"metadata__resourceVersion": "9"}, []),
    ({"spec__taints": [{"key": "k", "effect": "NoSchedule"}]}, ["Node/UpdateNodeTaint"]),
    ({"spec__unschedulable": True}, []),  # cordoning: no event (only an uncordon is one)
    ({"status__allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}, ["Node/UpdateNodeAllocatable"]),
    ({"status__conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-01T00:01:00Z"}]}, []),
    ({"status__conditions": [{"type": "Ready", "status": "False"}]}, ["Node/UpdateNodeCondition"]),
    ({"metadata__annotations": {"a": "b"}}, ["Node/UpdateNodeAnnotation"]),
    ({"status__declaredFeatures": ["F"]}, ["Node/UpdateNodeDeclaredFeature"]),
    ({"metadata__labels": {"zone": "b"}, "spec__taints": [{"key": "k", "effect": "NoSchedule"}]},
     ["Node/UpdateNodeLabel", "Node/UpdateNodeTaint"]),
], ids=["nothing", "label", "resource-version-only", "taint", "cordon", "allocatable", "heartbeat-only",
        "condition-status", "annotation", "declared-feature", "label-and-taint"])
def test_node_update_events_name_what_changed(changes: dict[str, Any], events: list[str]) -> None:
    assert node_update_events(_node(), _node(**changes)) == events


def test_uncordon_and_a_taint_change_are_two_taint_events_and_quantities_compare_by_value() -> None:
    cordoned = _node(spec__unschedulable=True)
    uncordoned_and_tainted = _node(spec__taints=[{"key": "k", "effect": "NoSchedule"}])
    assert node_update_events(cordoned, uncordoned_and_tainted) == ["Node/UpdateNodeTaint", "Node/UpdateNodeTaint"]
    old = _node(status__allocatable={"cpu": "1", "memory": "1Gi", "pods": "110"})
    new = _node(status__allocatable={"cpu": "1000m", "memory": "1024Mi", "pods": "110"})
    assert node_update_events(old, new) == []


def test_placed_pod_events_and_labels() -> None:
    base = PodInfo.from_dict(make_pod("p", "200m", uid="p", node="n1"))
    relabelled_raw = make_pod("p", "100m", uid="p", node="n1")
    relabelled_raw["metadata"]["labels"] = {"app": "x"}
    assert _placed_pod_events(base, PodInfo.from_dict(relabelled_raw)) == ["Pod/UpdatePodLabel", "Pod/UpdatePodScaleDown"]
    assert _placed_pod_events(base, base) == []
    annotated_raw = make_pod("p", "200m", uid="p", node="n1")
    annotated_raw["metadata"]["annotations"] = {"foo": "bar"}  # plugins_test.go TestPreEnqueuePluginEventsToRegister
    assert _placed_pod_events(base, PodInfo.from_dict(annotated_raw)) == ["Pod/Update"]
    status_only = make_pod("p", "200m", uid="p", node="n1")
    status_only["status"] = {"phase": "Running"}
    assert _placed_pod_events(base, PodInfo.from_dict(status_only)) == []
    assert event_label("Pod/Delete") == "AssignedPodDelete"
    assert event_label("Pod/UpdatePodLabel") == "AssignedPodUpdatePodLabel"
    assert event_label("Node/UpdateNodeLabel") == "NodeUpdateNodeLabel"


def test_node_update_covers_its_sub_events_for_third_party_plugins() -> None:
    """A plugin that registered `Node/Update` (one hint under it) is asked for every sub-event."""
    class Plugin:
        name = "P"
        requeue_on = frozenset({"Node/Update"})
        queueing_hints = {"Node/Update": "hint"}

        def hint(self, pod: Any, old: Any, new: Any) -> bool:
            return bool(new.get("ok"))

    caps = capabilities_of(Plugin())
    assert caps.requeues("Node/UpdateNodeTaint", "pod", {}, {"ok": True})
    assert not caps.requeues("Node/UpdateNodeLabel", "pod", {}, {})
    assert not caps.requeues("Node/Add", "pod", None, {"ok": True})
    assert Capabilities(frozenset({"Pod/Update"})).interested_in("Pod/UpdatePodScaleDown")
    assert not Capabilities(frozenset({"Node/UpdateNodeLabel"})).interested_in("Node/UpdateNodeTaint")


def test_a_taint_only_update_leaves_a_pod_node_affinity_rejected_and_a_label_update_retries_it() -> None:
    """NodeAffinity registers Node Add|UpdateNodeLabel: a taint added to the node (PreferNoSchedule, so
    it filters nothing) is a move that asks no hint of it, a heartbeat is no move at all; the label the
    pod wants retries it."""
    node = _node()
    with SchedulerTester(default_plugins=True, objects=[node]) as t:
        pod = make_pod("p", "100m", uid="p")
        pod["spec"]["nodeSelector"] = {"zone": "b"}
        assert t.schedule(pod) == {"p": None}
        entry = t.scheduler.queue.entries["p"]
        assert entry.where == "unschedulable" and entry.unschedulable_plugins == {"NodeAffinity"}
        moves = t.scheduler.queue.move_seq
        t.add(_node(spec__taints=[{"key": "k", "effect": "PreferNoSchedule"}]))
        t.add(_node(spec__taints=[{"key": "k", "effect": "PreferNoSchedule"}],
                    status__conditions=[{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-02T00:00:00Z"}]))
        t.sync()
        assert t.scheduler.queue.move_seq == moves + 1  # the taint event; the heartbeat fired none
        assert t.scheduler.queue.entries["p"].where == "unschedulable"
        t.add(_node(metadata__labels={"zone": "b"}, spec__taints=[{"key": "k", "effect": "PreferNoSchedule"}]))
        t.sync()
        assert t.scheduler.queue.entries["p"].where in ("active", "backoff")
        t.settle()
        assert t.node_of("default/p") == "n1"

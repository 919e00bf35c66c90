"""The pod status writer of the Kubernetes backend: kube-scheduler's updatePod, one patch of
pods/status with the PodScheduled condition and the nomination, each only when it changes.

Ported: pkg/scheduler/schedule_one_test.go TestUpdatePodStatus (v1.37.2), every case, fixtures
verbatim. kubeberth sends the whole condition in a strategic merge patch rather than upstream's
computed two-way diff, and writes lastProbeTime as null (the scheduler's own conditions never carry
one), so each case checks what the patch changes: whether one is made, which status fields it
carries, the condition's status/reason/message and whether lastTransitionTime is kept."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from kubeberth.backends.kubernetes.client import WriteStats
from kubeberth.backends.kubernetes.status import StatusWriter
from kubeberth.cache.podinfo import PodInfo


def cond(type_: str, status: str, probe: str, transition: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": type_, "status": status, "lastProbeTime": probe, "lastTransitionTime": transition,
            "reason": reason, "message": message}


OTHER = cond("someOtherType", "someOtherTypeStatus", "2020-05-11T00:00:00Z", "2020-05-10T00:00:00Z",
             "someOtherTypeReason", "someOtherTypeMessage")
CURRENT = cond("currentType", "currentStatus", "2020-05-13T00:00:00Z", "2020-05-12T00:00:00Z",
               "currentReason", "currentMessage")
NEW = cond("newType", "newStatus", "2020-05-13T01:01:01Z", "2020-05-12T01:01:01Z", "newReason", "newMessage")
CURRENT_TO_NEW_STATUS = cond("currentType", "newStatus", "2020-05-13T01:01:01Z", "2020-05-12T01:01:01Z",
                             "newReason", "newMessage")
SAME_STATUS_NEW_REASON = cond("currentType", "currentStatus", "2020-05-13T01:01:01Z", "2020-05-12T00:00:00Z",
                              "newReason", "newMessage")

# (id, current conditions, new condition, current nominatedNodeName, new nomination (None: nominatingInfo nil),
#  expected status fields patched (None: no patch), transition time kept from the current condition)
CASES = [
    ("TestUpdatePodStatus/Should make patch request to add pod condition when there are none currently",
     [], NEW, "", None, ["conditions"], False),
    ("TestUpdatePodStatus/Should make patch request to add a new pod condition when there is already one with "
     "another type", [OTHER], NEW, "", None, ["conditions"], False),
    ("TestUpdatePodStatus/Should make patch request to update an existing pod condition",
     [CURRENT], CURRENT_TO_NEW_STATUS, "", None, ["conditions"], False),
    ("TestUpdatePodStatus/Should make patch request to update an existing pod condition, but the transition time "
     "should remain unchanged because the status is the same", [CURRENT], SAME_STATUS_NEW_REASON, "", None,
     ["conditions"], True),
    ("TestUpdatePodStatus/Should not make patch request if pod condition already exists and is identical and "
     "nominated node name is not set", [CURRENT], CURRENT, "node1", None, None, False),
    ("TestUpdatePodStatus/Should make patch request if pod condition already exists and is identical but nominated "
     "node name is set and different", [CURRENT], CURRENT, "", "node1", ["nominatedNodeName"], False),
    ("TestUpdatePodStatus/Should not update nominated node name when nominatingInfo is nil",
     [CURRENT], CURRENT_TO_NEW_STATUS, "existing-node", None, ["conditions"], False),
    ("TestUpdatePodStatus/Should not make patch request when nominatingInfo is nil and pod condition is unchanged",
     [CURRENT], CURRENT, "existing-node", None, None, False),
]


def _writer() -> tuple[StatusWriter, list[dict[str, Any]]]:
    patches: list[dict[str, Any]] = []
    writer = StatusWriter(None, WriteStats(), threading.Event())  # type: ignore[arg-type]  # no HTTP: patches kept

    def patch(pod: PodInfo, body: dict[str, Any]) -> bool:
        patches.append(body)
        return True

    writer._patch_status = patch  # type: ignore[method-assign]
    return writer, patches


def _pod(conditions: list[dict[str, Any]], nominated: str) -> PodInfo:
    status: dict[str, Any] = {"conditions": conditions}
    if nominated:
        status["nominatedNodeName"] = nominated
    return PodInfo.from_dict({"apiVersion": "v1", "kind": "Pod",
                              "metadata": {"name": "foo", "namespace": "", "uid": "foo-uid"},
                              "spec": {"containers": [{"name": "c"}]}, "status": status})


@pytest.mark.parametrize(("current", "new", "current_nnn", "nominated", "fields", "keeps_transition"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_update_pod_status(current: list[dict[str, Any]], new: dict[str, Any], current_nnn: str,
                           nominated: str | None, fields: list[str] | None, keeps_transition: bool) -> None:
    writer, patches = _writer()
    writer._write_status(_pod(current, current_nnn), new, nominated)
    if fields is None:
        assert patches == []
        return
    (body,) = patches
    assert body["metadata"] == {"uid": "foo-uid"}
    assert sorted(body["status"]) == fields
    if "nominatedNodeName" in fields:
        assert body["status"]["nominatedNodeName"] == nominated
    if "conditions" in fields:
        (written,) = body["status"]["conditions"]
        assert {k: written[k] for k in ("type", "status", "reason", "message")} == {
            k: new[k] for k in ("type", "status", "reason", "message")}
        old = next((c for c in current if c["type"] == new["type"]), None)
        kept = old is not None and written["lastTransitionTime"] == old["lastTransitionTime"]
        assert kept == keeps_transition


def test_preemptor_condition_and_nomination_in_one_patch() -> None:
    """handleSchedulingFailure after a preemption: a new Unschedulable condition and the
    nomination (ModeOverride) together make one patch; clearing ("") is written as null."""
    writer, patches = _writer()
    unschedulable = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}
    writer._write_status(_pod([], ""), unschedulable, "node1")
    writer._write_status(_pod([], "node1"), {**unschedulable, "message": "0/2 nodes"}, "")
    assert [sorted(p["status"]) for p in patches] == [["conditions", "nominatedNodeName"]] * 2
    assert [p["status"]["nominatedNodeName"] for p in patches] == ["node1", None]
    assert writer.stats.counts["status_patches"] == 2


def test_the_loop_writes_a_preemptors_nomination_with_its_condition() -> None:
    """handleSchedulingFailure's single updatePod: the nomination DefaultPreemption makes for the
    pod in the cycle reaches the backend with the Unschedulable condition (patch_pod_status), not
    as a write of its own; the embedded cluster still applies both."""
    from kubeberth.testing import SchedulerTester, make_node, make_pod

    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1", cpu="2"), make_pod("victim", "1500m", priority=0, nodeName="n1"))
        t.sync()
        backend = t.scheduler.backend
        calls: list[tuple[str, str, Any]] = []
        own_nominate, own_status = backend.set_nominated_node, backend.patch_pod_status

        def set_nominated_node(pod: PodInfo, node_name: str | None) -> None:
            calls.append(("set_nominated_node", pod.name, node_name))
            own_nominate(pod, node_name)

        def patch_pod_status(pod: PodInfo, condition: dict[str, Any], nominated: str | None = None) -> None:
            calls.append(("patch_pod_status", pod.name, (condition["reason"], nominated)))
            own_status(pod, condition, nominated)

        backend.set_nominated_node, backend.patch_pod_status = set_nominated_node, patch_pod_status
        t.add(make_pod("preemptor", "1", priority=100))
        t.sync()
        assert t.step()
        # the embedded cluster's patch_pod_status (Backend's default) applies the nomination itself
        assert calls == [("patch_pod_status", "preemptor", ("Unschedulable", "n1")),
                         ("set_nominated_node", "preemptor", "n1")]
        status = t.pod("default/preemptor")["status"]
        assert status["nominatedNodeName"] == "n1"
        assert [(c["type"], c["reason"]) for c in status["conditions"]] == [("PodScheduled", "Unschedulable")]

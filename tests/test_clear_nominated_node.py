"""kube-scheduler's clearNominatedNode in the scheduling cycle (schedule_one.go v1.37.2): a pod's
nomination is dropped (status.nominatedNodeName and the nominator) when the cycle fails with no node
at all (ErrNoNodesAvailable), with no PostFilter plugin to run, with an error, or at Reserve/Permit.
Found porting the integration test TestNominatedNode ("mid-priority pod preempts low-priority pod,
followed by a node deletion": the nomination must be cleared once the nominated node is gone)."""

from __future__ import annotations

from typing import Any

from kubeberth import Status, hookimpl
from kubeberth.testing import SchedulerTester, make_node, make_pod


def _nominated(name: str, cpu: str, node: str, **spec: Any) -> dict[str, Any]:
    pod = make_pod(name, cpu, **spec)
    pod["status"] = {"nominatedNodeName": node}
    return pod


def _cleared(t: SchedulerTester, key: str) -> bool:
    return not t.pod(key)["status"].get("nominatedNodeName") and not t.cluster.nominated


def test_no_node_at_all_clears_the_nomination() -> None:
    with SchedulerTester(default_plugins=True) as t:
        t.add(_nominated("medium", "1", "fake-node", priority=200))
        t.sync()
        assert t.cluster.nominated  # the nominator knows it before the attempt
        assert t.step()
        assert t.events("default/medium", "FailedScheduling") == ["0/0 nodes are available: no nodes available to "
                                                                  "schedule pods."]
        assert _cleared(t, "default/medium")


def test_a_failure_without_post_filter_plugins_clears_the_nomination() -> None:
    with SchedulerTester(["NodeResourcesFit"]) as t:
        t.add(make_node("n1", cpu="1"), _nominated("big", "2", "n1"))
        t.sync()
        assert t.step()
        assert t.node_of("default/big") is None
        assert _cleared(t, "default/big")


def test_a_failure_with_post_filter_keeps_what_preemption_decides() -> None:
    """DefaultPreemption runs and nominates: the nomination is its, not cleared."""
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1", cpu="2"), make_pod("victim", "1500m", priority=0, nodeName="n1"))
        t.add(_nominated("preemptor", "1", "elsewhere", priority=100))
        t.sync()
        assert t.step()
        assert t.pod("default/preemptor")["status"]["nominatedNodeName"] == "n1"


class RejectReserve:
    name = "RejectReserve"

    @hookimpl
    def reserve(self) -> Status:
        return Status.unschedulable("rejected at Reserve")


class FailReserve:
    name = "FailReserve"

    @hookimpl
    def reserve(self) -> Status:
        return Status.error("failed at Reserve")


def test_a_reserve_rejection_clears_the_nomination() -> None:
    with SchedulerTester(["NodeResourcesFit", RejectReserve]) as t:
        t.add(make_node("n1", cpu="2"), _nominated("pod", "1", "n1"))
        t.sync()
        assert t.step()
        assert t.node_of("default/pod") is None
        assert _cleared(t, "default/pod")


def test_a_reserve_error_clears_the_nomination() -> None:
    with SchedulerTester(["NodeResourcesFit", FailReserve], max_errors_per_pod=1) as t:
        t.add(make_node("n1", cpu="2"), _nominated("pod", "1", "n1"))
        t.sync()
        assert t.step()
        assert t.pod("default/pod")["status"]["conditions"][0]["reason"] == "SchedulerError"
        assert _cleared(t, "default/pod")

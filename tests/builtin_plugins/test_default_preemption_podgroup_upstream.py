"""DefaultPreemption's PodGroupPostFilter: kube-scheduler v1.37.2's default_preemption_test.go
TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts, case by case.

The Go test replaces the plugin's podGroupEvaluator with a mock answering a fixed status and checks that
one PodGroupPostFilter call moves scheduler_workload_preemption_attempts_total{result=<code>} by one. Here
the mock replaces DefaultPreemption.preempt_pod_group, the call is a real pod group cycle (one scheduling
step of a gang that does not fit, GenericWorkload on), and the counter is read from kubeberth's /metrics
families, fed from that cycle's decision records as the running scheduler feeds them.
"""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import Code, Status
from kubeberth.api.placement import PodGroupPostFilterResult
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.testing import make_node, make_pod
from kubeberth.testing.tester import SchedulerTester
from st import fwk
from upstream import cases

TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts = [
    {
        "name": "TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts/preemption success",
        "status": fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts/preemption unschedulable",
        "status": fwk.NewStatus(fwk.Unschedulable),
    },
    {
        "name": "TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts/preemption error",
        "status": fwk.NewStatus(fwk.Error),
    },
]
CODE_STRING = {Code.SUCCESS: "Success", Code.UNSCHEDULABLE: "Unschedulable", Code.ERROR: "Error"}


def captureWorkloadPreemptionAttempts(metrics: SchedulerMetrics, status: str) -> int:  # noqa: N802
    return int(metrics.workload_preemption_attempts.values.get((status,), 0))


@pytest.mark.parametrize("tt", cases(TestDefaultPreemption_PodGroupPostFilter_WorkloadPreemptionAttempts))
def test_pod_group_post_filter_workload_preemption_attempts(tt: dict[str, Any]) -> None:
    want = Status(tt["status"].code, tt["status"].reasons)  # the mock's *fwk.Status
    pg = st.MakePodGroup().Name("pg").Namespace("default").MinCount(1).Obj()
    member = make_pod("m", "8", schedulingGroup={"podGroupName": "pg"})
    with SchedulerTester(["NodeResourcesFit", "GangScheduling", "DefaultPreemption"],
                         objects=[make_node("n1", cpu="4")], feature_gates={"GenericWorkload": True}) as tester:
        plugin = tester.generation.default_profile.plugins["DefaultPreemption"]
        calls: list[Any] = []

        def mock(pod_group: Any, schedule: Any, cluster: Any, handle: Any) -> PodGroupPostFilterResult:
            calls.append(pod_group.name)
            return PodGroupPostFilterResult(want)

        plugin.preempt_pod_group = mock
        metrics = SchedulerMetrics(sample_percent=100)
        expectedStatus = CODE_STRING[want.code]
        stateBefore = captureWorkloadPreemptionAttempts(metrics, expectedStatus)
        tester.add(pg, member)
        while not tester.records("m"):
            assert tester.step()
        for record in tester.records("m"):
            metrics.cycle_done(record)
        stateAfter = captureWorkloadPreemptionAttempts(metrics, expectedStatus)
    assert calls == ["pg"]
    assert stateAfter - stateBefore == 1, f"Expected {expectedStatus} count delta to be 1"

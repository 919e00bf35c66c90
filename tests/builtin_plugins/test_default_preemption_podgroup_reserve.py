"""A pod group's preemption reprieves a victim only when its members fit with those before them assumed and
reserved: kube-scheduler's reprieveVictim (framework/preemption/podgrouppreemption.go) runs the Reserve plugins
for each member it simulates on its node (and Unreserve after), so a stateful Reserve plugin sees them. The case of
the integration test TestPodGroupPreemption/"Reserve plugins are called during preemption simulation, so second pod
fails", on the evaluator alone."""

from __future__ import annotations

import threading
from typing import Any

import st
from kubeberth import Code, CycleState, NodeInfo, Status, hookimpl
from kubeberth.api.placement import ProposedAssignment
from kubeberth.builtin_plugins.default_preemption.podgroup import PodGroupEvaluator, PodGroupPreemption
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from test_default_preemption import FakeHandle
from test_default_preemption_podgroup_evaluator_upstream import makePodGroupPreemptor, mockFilterPlugin
from upstream import snapshot


class mockReservePlugin:  # noqa: N801 - podgrouppreemption_test.go's
    """Counts the reserved pods labelled test-plugin; Filter rejects such a pod once the reserved ones and the
    node's pods labelled resource-taken reach maxPods."""

    name = "mockReservePlugin"

    def __init__(self, max_pods: int) -> None:
        self.max_pods, self.reserved, self.calls = max_pods, 0, 0
        self.lock = threading.Lock()

    @hookimpl
    def reserve(self, pod: PodInfo) -> None:
        if pod.labels.get("test-plugin") == "true":
            with self.lock:
                self.reserved += 1
                self.calls += 1

    @hookimpl
    def unreserve(self, pod: PodInfo) -> None:
        if pod.labels.get("test-plugin") == "true":
            with self.lock:
                self.reserved -= 1

    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        if pod.labels.get("test-plugin") != "true":
            return None
        taken = sum(1 for p in node.pods if p.labels.get("resource-taken") == "true")
        with self.lock:
            if self.reserved + taken >= self.max_pods:
                return Status(Code.UNSCHEDULABLE, ("already reserved",))
        return None


def _framework(reserve: mockReservePlugin, capacity: mockFilterPlugin) -> Any:
    plugins = {"multiPoint": {"disabled": [{"name": "*"}]},
               "queueSort": {"enabled": [{"name": "PrioritySort"}], "disabled": [{"name": "*"}]},
               "bind": {"enabled": [{"name": "DefaultBinder"}], "disabled": [{"name": "*"}]},
               "filter": {"enabled": [{"name": capacity.name}, {"name": reserve.name}], "disabled": [{"name": "*"}]},
               "reserve": {"enabled": [{"name": reserve.name}], "disabled": [{"name": "*"}]}}
    config = parse_configuration({"profiles": [{"schedulerName": "kubeberth", "plugins": plugins}]})
    return build_generation(config=config, extra_plugins=[capacity, reserve]).default_profile


def test_reprieve_runs_reserve_for_the_members_placed() -> None:
    """One node of capacity 3 with v1 (priority 15, resource-taken) and v2 (priority 10); the group p-a, p-b
    (minCount 2, priority 100, test-plugin), maxPods 2. Reprieving v1 leaves p-a reserved and v1 taken: p-b
    fails, so v1 is the victim and v2 is reprieved. (Without Reserve in the reprieve, p-b passes with v1 back and
    v2 is the victim.) The reserved count is back to 0 afterwards."""
    nodes = [st.MakeNode().Name("node1").Obj()]
    pods = [st.MakePod().Name("v1").UID("v1").Node("node1").Label("resource-taken", "true").Priority(15).Obj(),
            st.MakePod().Name("v2").UID("v2").Node("node1").Priority(10).Obj()]
    group = st.MakePodGroup().Name("preemptor-pg").Priority(100).MinCount(2).Obj()
    preemptor = makePodGroupPreemptor(group, [
        st.MakePod().Name(n).UID(n).Label("test-plugin", "true").Priority(100).Obj() for n in ("p-a", "p-b")])
    cluster = snapshot(pods, nodes, {**group, "metadata": {**group["metadata"], "namespace": "default"}})
    reserve = mockReservePlugin(2)
    handle = FakeHandle(_framework(reserve, mockFilterPlugin([{"nodeName": "node1", "capacity": 3}])), cluster)

    def schedule() -> tuple[list[ProposedAssignment], Status]:
        return [ProposedAssignment(p, "node1", CycleState()) for p in preemptor.members], Status.success()

    res = PodGroupEvaluator(preemptor, cluster, handle, []).select_victims(schedule)
    assert isinstance(res, PodGroupPreemption), res
    assert [p.name for p in res.victims] == ["v1"]
    assert res.nominations == {"p-a": "node1", "p-b": "node1"}
    assert reserve.calls > 0 and reserve.reserved == 0

"""Workload-aware preemption (GenericWorkload): a PodGroup that fails its pod group cycle preempts as a
whole (DefaultPreemption's PodGroupPostFilter), and a gang disrupted as a whole is evicted whole, as
kube-scheduler v1.37.2's podgrouppreemption.go does."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.observability.explain import render
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.testing import make_node, make_pod, make_pod_group
from kubeberth.testing.tester import SchedulerTester

PLUGINS = ["NodeResourcesFit", "GangScheduling", "DefaultPreemption"]


def gang(name: str, size: int, cpu: str, priority: int, *, all_or_nothing: bool = True, **group: Any) -> list[dict[str, Any]]:
    pg = make_pod_group(name, size)
    pg["spec"]["priority"] = priority
    if all_or_nothing:
        pg["spec"]["disruptionMode"] = {"all": {}}
    pg["spec"].update(group)
    return [pg] + [
        make_pod(f"{name}-{i}", cpu, schedulingGroup={"podGroupName": name}, priority=priority) for i in range(size)
    ]


@pytest.fixture(params=[False, True], ids=["sync", "async"])
def tester(request: pytest.FixtureRequest):
    gates = {"GenericWorkload": True, "SchedulerAsyncPreemption": request.param}
    with SchedulerTester(PLUGINS, objects=[make_node("n1", cpu="4"), make_node("n2", cpu="4")],
                         feature_gates=gates) as t:
        yield t


def test_a_high_priority_gang_preempts_a_low_priority_gang_whole(tester: SchedulerTester) -> None:
    """low: 4 x 1500m, two per node, disrupted as a whole. high: 2 x 3 cpu needs one whole node each, so
    every low member must go (never half the gang); then high binds, nominated first."""
    placed = tester.schedule(*gang("low", 4, "1500m", 10))
    assert all(placed.values())
    placed = tester.schedule(*gang("high", 2, "3", 1000))
    assert sorted(placed.values()) == ["n1", "n2"]
    assert [p for p, n in tester.placements().items() if p.startswith("default/low") and n] == []
    preemption = next(r.preemption for r in tester.records("high-0") if r.preemption)
    assert preemption["pod_group"] == "default/high"
    assert sorted(preemption["victims"]) == [f"default/low-{i}" for i in range(4)]
    assert sorted(preemption["nominations"].values()) == ["n1", "n2"]
    shown = render(next(r for r in tester.records("high-0") if r.preemption).as_dict())
    line = next(x for x in shown.splitlines() if x.startswith("Pod group preemption"))
    head, victims = line.split(" victim(s): ")
    assert head == "Pod group preemption (DefaultPreemption) for PodGroup default/high: 2 member(s) nominated (n1, n2), 4"
    assert sorted(victims.split(", ")) == [f"default/low-{i}" for i in range(4)]  # a gang's order is its members'

    # high-0 found no node (its own fit error); high-1, not tried, carries the group's status.
    assert tester.events("high-0", "FailedScheduling")[0] == "0/2 nodes are available: 2 Insufficient cpu."
    waiting = tester.events("high-1", "FailedScheduling")[0]
    assert waiting.endswith("pod group preemption: found a placement for podgroup, preempting 4 victims"), waiting
    # Each group attempt is counted once, from its first member's decision record (the /metrics path):
    # the preemption, then "ongoing preemption" while the victims terminate (Success too, as upstream).
    metrics = SchedulerMetrics(sample_percent=100)
    attempts = 0
    for i in range(2):
        for record in tester.records(f"high-{i}"):
            metrics.cycle_done(record)
            attempts += sum(step[0] == "PodGroupPostFilter" for step in record.steps)
    assert attempts >= 1 and all(not r.steps or r.steps[-1][0] != "PodGroupPostFilter" for r in tester.records("high-1"))
    text = metrics.exposition()[2].decode()
    assert f'scheduler_workload_preemption_attempts_total{{result="Success"}} {float(attempts)}' in text
    assert "scheduler_workload_preemption_victims_sum 4.0" in text
    assert "scheduler_preemption_attempts_total 0.0" in text  # no pod-by-pod PostFilter for a gang's members


def test_a_gang_disrupted_pod_by_pod_loses_only_what_the_preemptor_needs(tester: SchedulerTester) -> None:
    """disruptionMode single: the low gang's pods are victims one by one; one 3-cpu pod group member
    needs one node's two low pods only."""
    assert all(tester.schedule(*gang("low", 4, "1500m", 10, all_or_nothing=False)).values())
    placed = tester.schedule(*gang("high", 1, "3", 1000))
    assert list(placed.values())[0] in ("n1", "n2")
    left = [p for p, n in tester.placements().items() if p.startswith("default/low") and n]
    assert len(left) == 2


def test_a_gang_with_preemption_policy_never_preempts_nobody(tester: SchedulerTester) -> None:
    assert all(tester.schedule(*gang("low", 4, "1500m", 10)).values())
    high = gang("high", 2, "3", 1000)
    for pod in high[1:]:
        pod["spec"]["preemptionPolicy"] = "Never"
    placed = tester.schedule(*high)
    assert set(placed.values()) == {None}
    assert all(n for p, n in tester.placements().items() if p.startswith("default/low"))
    assert any("pod group preemption: not eligible due to preemptionPolicy=Never." in e
               for e in tester.events("high-1", "FailedScheduling"))


def test_lower_priority_only(tester: SchedulerTester) -> None:
    """A gang of higher priority is no victim: the group stays pending, nothing is evicted."""
    assert all(tester.schedule(*gang("busy", 4, "1500m", 2000)).values())
    placed = tester.schedule(*gang("high", 2, "3", 1000))
    assert set(placed.values()) == {None}
    assert all(n for p, n in tester.placements().items() if p.startswith("default/busy"))
    assert any("No preemption victims found for incoming preemptor" in e
               for e in tester.events("high-1", "FailedScheduling"))


def test_a_single_pod_preempting_takes_a_whole_gang_across_nodes_and_plain_pods_alike() -> None:
    """GenericWorkload, a pod of no PodGroup preempting (DefaultPreemption.PostFilter): n1 holds three
    plain pods (its candidate costs three victims), n2 and n3 one member each of a gang disrupted as a
    whole (either candidate costs the gang: two victims, one on the other node). Fewest victims wins:
    n2 or n3, and the gang goes whole. Gate off, the gang's members are single victims: one, on the
    nominated node."""
    gang = make_pod_group("gang", 2)
    gang["spec"].update({"priority": 0, "disruptionMode": {"all": {}}})

    def placed(name: str, cpu: str, node: str, group: str = "") -> dict[str, Any]:
        extra = {"schedulingGroup": {"podGroupName": group}} if group else {}
        return {**make_pod(name, cpu, nodeName=node, priority=0, **extra), "status": {"phase": "Running"}}

    objects = [make_node(n, cpu="4") for n in ("n1", "n2", "n3")] + [gang] + [
        placed(f"plain-{i}", "1000m", "n1") for i in range(3)
    ] + [placed("gang-0", "3000m", "n2", "gang"), placed("gang-1", "3000m", "n3", "gang")]
    on_node = {"gang-0": "n2", "gang-1": "n3"}
    for gates in ({"GenericWorkload": True}, {}):
        with SchedulerTester(["NodeResourcesFit", "GangScheduling", "DefaultPreemption"], objects=objects,
                             feature_gates={**gates, "SchedulerAsyncPreemption": False}) as tester:
            tester.schedule(make_pod("high", "3500m", priority=100))
            pre = next(r.preemption for r in tester.records("high") if r.preemption)
            victims = {v.split("/")[1] for v in pre["victims"]}
            assert pre["nominated_node"] in ("n2", "n3")
            if gates:
                assert victims == {"gang-0", "gang-1"}
            else:
                assert [on_node[v] for v in victims] == [pre["nominated_node"]]
            assert tester.node_of("high") == pre["nominated_node"]

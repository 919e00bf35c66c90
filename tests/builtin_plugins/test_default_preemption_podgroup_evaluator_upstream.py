"""DefaultPreemption's pod group preemption: kube-scheduler v1.37.2's framework/preemption
podgrouppreemption_test.go TestPodGroupEvaluator_SelectVictimsOnDomain and TestPodGroupEvaluator_Preempt,
case by case, against default_preemption/podgroup.py (PodGroupEvaluator) and
DefaultPreemption.preempt_pod_group.

The tables are the Go tables transcribed expression by expression. The Go test's mockFilterPlugin (a node
holds pods up to its capacity, a pod's size from its "size" label, default 1) is a kubeberth filter plugin;
its mockSchedulingFunc (members placed round-robin where they fit, Unschedulable below the gang's minCount)
is the `schedule` function PodGroupPostFilter hands the evaluator, reading the cluster as it is then (with
the victims taken off).
"""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import Code, CycleState, FeatureGates, FilterScope, NodeInfo, Status, hookimpl
from kubeberth.api.placement import PodGroupInfo, ProposedAssignment
from kubeberth.builtin_plugins.default_preemption import PDB, DefaultPreemption
from kubeberth.builtin_plugins.default_preemption.podgroup import (
    PodGroupEvaluator,
    PodGroupPreemption,
    PodGroupPreemptor,
)
from kubeberth.builtin_plugins.default_preemption.victims import pod_group_priority
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from st import fwk, v1
from test_default_preemption import FakeHandle
from upstream import cases, pod_info, snapshot

lowPriority, midPriority, highPriority = 10, 100, 1000  # the preemption package's test priorities
v1.DisruptionTarget = "DisruptionTarget"  # type: ignore[attr-defined]
v1.ConditionTrue = "True"  # type: ignore[attr-defined]
v1.PodReasonPreemptionByScheduler = "PreemptionByScheduler"  # type: ignore[attr-defined]
fwk.ModeOverride = "ModeOverride"  # type: ignore[attr-defined]
v1.NamespaceDefault = "default"  # type: ignore[attr-defined]


class schedulingv1beta1:  # noqa: N801
    PreemptNever = "Never"
    PreemptLowerPriority = "PreemptLowerPriority"


class metav1:  # noqa: N801
    @staticmethod
    def Unix(sec: int, nsec: int) -> str:  # noqa: N802
        from datetime import UTC, datetime

        return f"{datetime.fromtimestamp(sec, UTC):%Y-%m-%dT%H:%M:%S}.{nsec:09d}Z"

    @staticmethod
    def LabelSelector(MatchLabels: dict[str, str]) -> dict[str, Any]:  # noqa: N802, N803
        return {"matchLabels": MatchLabels}


class policy:  # noqa: N801 - k8s.io/api/policy/v1 as raw objects
    @staticmethod
    def PodDisruptionBudgetSpec(Selector: dict[str, Any]) -> dict[str, Any]:  # noqa: N802, N803
        return {"selector": Selector}

    @staticmethod
    def PodDisruptionBudgetStatus(DisruptionsAllowed: int) -> dict[str, Any]:  # noqa: N802, N803
        return {"disruptionsAllowed": DisruptionsAllowed}


class types:  # noqa: N801
    @staticmethod
    def NamespacedName(namespace: str, name: str) -> tuple[str, str]:  # noqa: N802
        return (namespace, name)


def makePodGroupPreemptorWithPreemptionPolicy(pg: dict[str, Any], pods: list[dict[str, Any]],  # noqa: N802
                                              policy_: str) -> PodGroupPreemptor:
    meta = pg["metadata"]
    return PodGroupPreemptor(meta.get("namespace") or "default", meta["name"], meta.get("uid") or meta["name"],
                             pod_group_priority(pg), policy_, tuple(pod_info(p) for p in pods), pg)


def makePodGroupPreemptor(pg: dict[str, Any], pods: list[dict[str, Any]]) -> PodGroupPreemptor:  # noqa: N802
    return makePodGroupPreemptorWithPreemptionPolicy(pg, pods, schedulingv1beta1.PreemptLowerPriority)


def getCapacity(pod: PodInfo) -> int:  # noqa: N802
    v = pod.labels.get("size")
    return int(v) if v is not None and v.lstrip("-").isdigit() else 1


class mockFilterPlugin:  # noqa: N801
    """Filter: the pod fits while the node's pods' sizes plus its own stay within the node's capacity."""

    name = "mockFilterPlugin"
    filter_scope = FilterScope.NODE

    def __init__(self, nodeCapacities: list[dict[str, Any]]) -> None:  # noqa: N803
        self.capacities: dict[str, int] = {}
        for c in nodeCapacities:  # the first entry naming a node wins, as the Go loop's break
            self.capacities.setdefault(c["nodeName"], c["capacity"])

    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        current = sum(getCapacity(p) for p in node.pods)
        if current + getCapacity(pod) > self.capacities.get(node.name, 0):
            return Status(Code.UNSCHEDULABLE, ("not enough capacity",))
        return None


def new_framework(extra: list[Any]) -> Any:
    """tf.NewFramework with queue sort, the test's filter (if any) and bind."""
    plugins: dict[str, Any] = {"multiPoint": {"disabled": [{"name": "*"}]},
                               "queueSort": {"enabled": [{"name": "PrioritySort"}], "disabled": [{"name": "*"}]},
                               "bind": {"enabled": [{"name": "DefaultBinder"}], "disabled": [{"name": "*"}]}}
    if extra:
        plugins["filter"] = {"enabled": [{"name": p.name} for p in extra], "disabled": [{"name": "*"}]}
    config = parse_configuration({"profiles": [{"schedulerName": "kubeberth", "plugins": plugins}]})
    return build_generation(config=config, extra_plugins=extra).default_profile


def groups_of(tt: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's PodGroups, in the namespace its pods without one are in: kubeberth's cache gives such pods
    "default" (the Go tests' PodGroup lister ignores namespaces)."""
    out = []
    for pg in tt.get("initPodGroups") or []:
        meta = pg["metadata"]
        out.append({**pg, "metadata": {**meta, "namespace": meta.get("namespace") or "default"}})
    return out


def pdbs_of(raw: list[dict[str, Any]] | None) -> list[PDB]:
    return [PDB.from_dict({"kind": "PodDisruptionBudget", "metadata": {}, "spec": p.get("Spec") or {},
                           "status": p.get("Status") or {}}) for p in raw or ()]


# ---- TestPodGroupEvaluator_SelectVictimsOnDomain ------------------------------------------------------

TestPodGroupEvaluator_SelectVictimsOnDomain = [
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Priority: mix of no groups and pod groups",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Labels({"size": "1"}).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node1").Priority(lowPriority).Labels({"size": "1"}).PodGroupName("pg1").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Labels({"size": "1"}).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims": ["p1"], # p1 is less important than p2 because it's not part of a pod group
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Priority: StartTime of pods from same group with disruption mode single ",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("pg1").StartTime(metav1.Unix(1, 0)).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node1").Priority(lowPriority).PodGroupName("pg1").StartTime(metav1.Unix(0, 0)).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims":                ["p1"], # p1 is less important than p2 because of later StartTime
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Pod group with disruption mode group not reprieved",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["p1", "p2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Complex Mixed: Shared, different, and no groups",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
            st.MakeNode().Name("node4").Obj(),
            st.MakeNode().Name("node5").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("pg1").StartTime(metav1.Unix(2, 0)).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").StartTime(metav1.Unix(1, 0)).Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").StartTime(metav1.Unix(0, 0)).Obj(),
            st.MakePod().Name("p4").UID("v4").Node("node4").Priority(midPriority).Obj(),
            st.MakePod().Name("p5").UID("v5").Node("node5").Priority(highPriority).PodGroupName("pg3").StartTime(metav1.Unix(0, 0)).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
            st.MakePodGroup().Name("pg2").UID("pg2").DisruptionModeSingle().Priority(lowPriority).Obj(),
            st.MakePodGroup().Name("pg3").UID("pg3").DisruptionModeSingle().Priority(highPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [
                st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).Obj(),
                st.MakePod().Name("p-2").UID("p-2").Priority(highPriority).Obj(),
                st.MakePod().Name("p-3").UID("p-3").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 2,
            },
            {
                "nodeName": "node4",
                "capacity": 2,
            },
            {
                "nodeName": "node5",
                "capacity": 2,
            },
        ],
        "expectedVictims":                ["p2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PDB: Mixed groups",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim-pdb").UID("v1").Node("node1").Label("app", "foo").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("victim-no-pdb").UID("v2").Node("node1").Priority(lowPriority).PodGroupName("pg1").Obj(),
        ],
        "pdbs": [
            {
                "Spec":   policy.PodDisruptionBudgetSpec(Selector= metav1.LabelSelector(MatchLabels= {"app": "foo"})),
                "Status": policy.PodDisruptionBudgetStatus(DisruptionsAllowed= 0),
            },
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims":                ["victim-no-pdb"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "preemptor": makePodGroupPreemptorWithPreemptionPolicy(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).Obj()],
            schedulingv1beta1.PreemptLowerPriority,
        ),
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 1},
            {"nodeName": "node2", "capacity": 1},
            {"nodeName": "node3", "capacity": 1},
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption, ignoring member pod preemption policy",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "preemptor": makePodGroupPreemptorWithPreemptionPolicy(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).PreemptionPolicy(schedulingv1beta1.PreemptLowerPriority).Obj(),
            [
                st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).PreemptionPolicy(v1.PreemptNever).Obj(),
            ],
            schedulingv1beta1.PreemptLowerPriority,
        ),
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 1},
            {"nodeName": "node2", "capacity": 1},
            {"nodeName": "node3", "capacity": 1},
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Preemptor group is eligible if terminating pods are on non-nominated nodes",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node2").Priority(lowPriority).Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
            st.MakePod().Name("other-victim").UID("v2").Node("node1").Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [
                st.MakePod().Name("p1").UID("p1").Priority(highPriority).Obj(),
                st.MakePod().Name("p2").UID("p2").Priority(highPriority).NominatedNodeName("node1").Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims": ["other-victim", "victim"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Preemptor group is eligible if nominated node has terminating pod belonging to a pod group of higher priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("victim-pg").Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
            st.MakePod().Name("other-victim").UID("v2").Node("node1").Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Priority(highPriority).DisruptionModeAll().Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [
                st.MakePod().Name("p1").UID("p1").Priority(midPriority).Obj(),
                st.MakePod().Name("p2").UID("p2").Priority(midPriority).NominatedNodeName("node1").Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims": ["other-victim"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Preemptor group is eligible if nominated node has terminating pod belonging to a pod group of higher priority with nil DisruptionMode",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("victim-pg").Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
            st.MakePod().Name("other-victim").UID("v2").Node("node1").Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Priority(highPriority).DisruptionModeSingle().Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [
                st.MakePod().Name("p1").UID("p1").Priority(midPriority).Obj(),
                st.MakePod().Name("p2").UID("p2").Priority(midPriority).NominatedNodeName("node1").Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims": ["other-victim"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Preempt single lower priority pod",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Priority: Prefer lower priority victim",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node1").Priority(midPriority).Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node1").Priority(highPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims": ["p1", "p2"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Efficiency: Preempt minimum number of victims",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p4").UID("v4").Node("node1").Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 3,
            },
        ],
        "expectedVictims": ["p3", "p4"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PDB: Prefer non-violating victim",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim-pdb").UID("v1").Node("node1").Label("app", "foo").Priority(lowPriority).Obj(),
            st.MakePod().Name("victim-no-pdb").UID("v2").Node("node1").Priority(lowPriority).Obj(),
        ],
        "pdbs": [
            {
                "Spec":   policy.PodDisruptionBudgetSpec(Selector= metav1.LabelSelector(MatchLabels= {"app": "foo"})),
                "Status": policy.PodDisruptionBudgetStatus(DisruptionsAllowed= 0),
            },
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 2},
        ],
        "expectedVictims": ["victim-no-pdb"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PDB: Prefer removing non-violating victim over lower priority violating victim",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim-pdb").UID("v1").Node("node1").Label("app", "foo").Priority(lowPriority).Obj(),
            st.MakePod().Name("victim-no-pdb").UID("v2").Node("node1").Priority(midPriority).Obj(),
        ],
        "pdbs": [
            {
                "Spec":   policy.PodDisruptionBudgetSpec(Selector= metav1.LabelSelector(MatchLabels= {"app": "foo"})),
                "Status": policy.PodDisruptionBudgetStatus(DisruptionsAllowed= 0),
            },
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 2},
        ],
        "expectedVictims": ["victim-no-pdb"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption with PodGroup victims",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
            st.MakePodGroup().Name("pg2").UID("pg2").DisruptionModeSingle().Priority(lowPriority).Obj(),
        ],
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 1},
            {"nodeName": "node2", "capacity": 1},
            {"nodeName": "node3", "capacity": 1},
        ],
        "preemptor": makePodGroupPreemptorWithPreemptionPolicy(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [
                st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).Obj(),
            ],
            schedulingv1beta1.PreemptLowerPriority,
        ),
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption with PodGroup victims, ignoring member pod preemption policy",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
            st.MakePodGroup().Name("pg2").UID("pg2").DisruptionModeSingle().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptorWithPreemptionPolicy(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [
                st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).PreemptionPolicy(v1.PreemptNever).Obj(),
            ],
            schedulingv1beta1.PreemptLowerPriority,
        ),
        "nodeCapacities": [
            {"nodeName": "node1", "capacity": 1},
            {"nodeName": "node2", "capacity": 1},
            {"nodeName": "node3", "capacity": 1},
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PDB: Prefer lower priority pod for preemption, when preemption without pdb violation is not possible",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Label("app", "foo").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node1").Label("app", "foo").Priority(midPriority).Obj(),
        ],
        "pdbs": [
            {
                "Spec":   policy.PodDisruptionBudgetSpec(Selector= metav1.LabelSelector(MatchLabels= {"app": "foo"})),
                "Status": policy.PodDisruptionBudgetStatus(DisruptionsAllowed= 0),
            },
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims":          ["p1"],
        "expectedStatus":           fwk.NewStatus(fwk.Success),
        "expectedNumPDBViolations": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup: Preempt group as a whole",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        # preemptor will be assigned to p1.
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node1",
                "capacity": 2,
            },
        ],
        "expectedVictims":                ["p1", "p2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup: Prefer single pod over podGroup for preemption candidate",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("g1-1").UID("g1").Node("node1").PodGroupName("pg1").Priority(lowPriority).Obj(),
            st.MakePod().Name("g1-2").UID("g2").Node("node1").PodGroupName("pg1").Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        # node 1 can fit preemptor + pg1 or preemptor + p1
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 3,
            },
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PodGroup: Preempt group as a whole on single node",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("g1-1").UID("g1").Node("node1").PodGroupName("pg1").Priority(lowPriority).Obj(),
            st.MakePod().Name("g1-2").UID("g2").Node("node1").PodGroupName("pg1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(lowPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        # node 1 can fit preemptor + pg1 or preemptor + p1
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 3,
            },
        ],
        "expectedVictims":                ["g1-1", "g1-2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/PDB: Unit violation if any member violates",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("g1-1").UID("g1").Node("node1").Label("app", "foo").PodGroupName("pg1").Priority(lowPriority).Obj(),
            st.MakePod().Name("g1-2").UID("g2").Node("node1").PodGroupName("pg1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(lowPriority).Obj(),
        ],
        "pdbs": [
            {
                "Spec":   policy.PodDisruptionBudgetSpec(Selector= metav1.LabelSelector(MatchLabels= {"app": "foo"})),
                "Status": policy.PodDisruptionBudgetStatus(DisruptionsAllowed= 0),
            },
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        # node 1 can fit preemptor + pg1 or preemptor + p1
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 3,
            },
        ],
        "expectedVictims": ["p1"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Failure: Cannot preempt the victim with higher priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(highPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(midPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 100,
            },
        ],
        "expectedVictims": [],
        "expectedStatus":  fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Failure: Cannot preempt the victim with equal priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(midPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(midPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 100,
            },
        ],
        "expectedVictims": [],
        "expectedStatus":  fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Failure: Cannot preempt if node is empty",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(midPriority).Obj()],
        ),
        # This test paths that aborts the preemption if there are no victims.
        # even if there is enough space on nodes
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 100,
            },
        ],
        "expectedVictims": [],
        "expectedStatus":  fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Priority divergence: candidate victim PodGroup has lower priority than the Pods from that group",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(highPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(highPriority).PodGroupName("pg1").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(midPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(highPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["p1", "p2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Priority divergence: candidate victim PodGroup has higher priority than the Pods from that group",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeAll().Priority(midPriority).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(midPriority).Obj(),
            [st.MakePod().Name("p").UID("p").Priority(midPriority).Obj()],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
        ],
        "expectedVictims": [],
        "expectedStatus":  fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Gang scheduling: schedule as many pods as possible without preempting higher priority pods, but still more than minCount",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
            st.MakeNode().Name("node4").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(highPriority).Obj(),
            st.MakePod().Name("p4").UID("v4").Node("node4").Priority(highPriority).Obj(),
        ],
        "initPodGroups": [],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).MinCount(1).Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
            {
                "nodeName": "node4",
                "capacity": 1,
            },
        ],
        # Preemptor has 3 pods and minCount of 1, but maxScheduledCount will be 2, because there are higher priority pods p3, p4.
        "expectedVictims": ["p1", "p2"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Gang scheduling: do not reprieve victim pod group of lower priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("v1").UID("v1").Node("node1").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v2").UID("v2").Node("node2").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v3").UID("v3").Node("node3").Namespace(v1.NamespaceDefault).Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Namespace(v1.NamespaceDefault).Priority(midPriority).DisruptionModeAll().MinCount(1).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).MinCount(1).Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["v1", "v2", "v3"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Gang scheduling: preempt a pod group victim but do not schedule full pod group",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
            st.MakeNode().Name("node4").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("v1").UID("v1").Node("node1").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v2").UID("v2").Node("node2").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v3").UID("v3").Node("node3").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg2").Priority(highPriority).Obj(),
            st.MakePod().Name("v4").UID("v4").Node("node4").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg2").Priority(highPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Namespace(v1.NamespaceDefault).Priority(midPriority).DisruptionModeAll().MinCount(2).Obj(),
            st.MakePodGroup().Name("victim-pg2").UID("victim-pg2").Namespace(v1.NamespaceDefault).Priority(highPriority).DisruptionModeAll().MinCount(2).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).MinCount(1).DisruptionModeAll().Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
            {
                "nodeName": "node4",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["v1", "v2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Basic scheduling: schedule as many pods as possible without preempting higher priority pods",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
            st.MakeNode().Name("node4").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(highPriority).Obj(),
            st.MakePod().Name("p4").UID("v4").Node("node4").Priority(highPriority).Obj(),
        ],
        "initPodGroups": [],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).BasicPolicy().Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
            {
                "nodeName": "node4",
                "capacity": 1,
            },
        ],
        "expectedVictims": ["p1", "p2"],
        "expectedStatus":  fwk.NewStatus(fwk.Success),
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Basic scheduling: do not reprieve victim pod group of lower priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("v1").UID("v1").Node("node1").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v2").UID("v2").Node("node2").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v3").UID("v3").Node("node3").Namespace(v1.NamespaceDefault).Priority(lowPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Namespace(v1.NamespaceDefault).Priority(midPriority).DisruptionModeAll().MinCount(1).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).BasicPolicy().Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["v1", "v2", "v3"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    },
    {
        "name": "TestPodGroupEvaluator_SelectVictimsOnDomain/Basic scheduling: preempt a pod group victim but do not schedule full pod group",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
            st.MakeNode().Name("node4").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("v1").UID("v1").Node("node1").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v2").UID("v2").Node("node2").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg").Priority(midPriority).Obj(),
            st.MakePod().Name("v3").UID("v3").Node("node3").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg2").Priority(highPriority).Obj(),
            st.MakePod().Name("v4").UID("v4").Node("node4").Namespace(v1.NamespaceDefault).PodGroupName("victim-pg2").Priority(highPriority).Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Namespace(v1.NamespaceDefault).Priority(midPriority).DisruptionModeAll().MinCount(2).Obj(),
            st.MakePodGroup().Name("victim-pg2").UID("victim-pg2").Namespace(v1.NamespaceDefault).Priority(highPriority).DisruptionModeAll().MinCount(2).Obj(),
        ],
        "preemptor": makePodGroupPreemptor(
            st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).BasicPolicy().DisruptionModeAll().Obj(),
            [
                st.MakePod().Name("p-a").UID("p-a").Priority(highPriority).Obj(),
                st.MakePod().Name("p-b").UID("p-b").Priority(highPriority).Obj(),
                st.MakePod().Name("p-c").UID("p-c").Priority(highPriority).Obj(),
            ],
        ),
        "nodeCapacities": [
            {
                "nodeName": "node1",
                "capacity": 1,
            },
            {
                "nodeName": "node2",
                "capacity": 1,
            },
            {
                "nodeName": "node3",
                "capacity": 1,
            },
            {
                "nodeName": "node4",
                "capacity": 1,
            },
        ],
        "expectedVictims":                ["v1", "v2"],
        "expectedStatus":                 fwk.NewStatus(fwk.Success),
        "expectedNumPodGroupDisruptions": 1,
    }
]


@pytest.mark.parametrize("tt", cases(TestPodGroupEvaluator_SelectVictimsOnDomain))
def test_select_victims_on_domain(tt: dict[str, Any]) -> None:
    cluster = snapshot(tt.get("initPods"), tt["nodes"], *groups_of(tt))
    fw = new_framework([mockFilterPlugin(tt["nodeCapacities"])])
    handle = FakeHandle(fw, cluster)
    preemptor: PodGroupPreemptor = tt["preemptor"]
    nodes = [n["metadata"]["name"] for n in tt["nodes"]]
    capacities = [c["capacity"] for c in tt["nodeCapacities"]]
    table = cluster.table

    def mockSchedulingFunc() -> tuple[list[ProposedAssignment], Status]:  # noqa: N802
        minCount = 1
        gang = ((preemptor.pod_group or {}).get("spec") or {}).get("schedulingPolicy", {}).get("gang")
        if gang is not None:
            minCount = int(gang.get("minCount") or 0)
        assignedSizes = {n: sum(getCapacity(p) for p in cluster.node_pods(table.row_of[n]).values()) for n in nodes}
        assignments: list[ProposedAssignment] = []
        nodeIdx = 0
        numNodes = len(nodes)
        for p in preemptor.members:
            pSize = getCapacity(p)
            for step in range(numNodes):
                i = (nodeIdx + step) % numNodes
                n = nodes[i]
                if assignedSizes[n] + pSize <= capacities[i]:
                    assignments.append(ProposedAssignment(p, n, CycleState()))
                    assignedSizes[n] += pSize
                    nodeIdx = (i + 1) % numNodes
                    break
        if len(assignments) >= minCount:
            return assignments, Status.success()
        return [], Status(Code.UNSCHEDULABLE)

    pl = PodGroupEvaluator(preemptor, cluster, handle, pdbs_of(tt.get("pdbs")))
    res = pl.select_victims(mockSchedulingFunc)
    gotCode = res.code if isinstance(res, Status) else Code.SUCCESS
    assert gotCode == tt["expectedStatus"].code
    if gotCode != Code.SUCCESS:
        return
    assert isinstance(res, PodGroupPreemption)
    assert {p.name for p in res.victims} == set(tt.get("expectedVictims") or [])
    assert res.num_group_disruptions == tt.get("expectedNumPodGroupDisruptions", 0)
    assert res.num_pdb_violations == tt.get("expectedNumPDBViolations", 0)


# ---- TestPodGroupEvaluator_Preempt --------------------------------------------------------------------

TestPodGroupEvaluator_Preempt = [
    {
        "name": "TestPodGroupEvaluator_Preempt/Preemptor group returns success with current nominating infos if member has nominated node with terminating pods",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(lowPriority).Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
        ],
        "preemptorPodGroup": st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
        "preemptorPods": [
            st.MakePod().Name("p1").UID("p1").Priority(highPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Priority(highPriority).NominatedNodeName("node1").Obj(),
        ],
        "expectedStatus": fwk.NewStatus(fwk.Success, "ongoing preemption on nominated nodes"),
        "expectedNominating": {
            types.NamespacedName("", "p1"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": ""},
            types.NamespacedName("", "p2"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": "node1"},
        },
    },
    {
        "name": "TestPodGroupEvaluator_Preempt/Preemptor group returns success with current nominating infos if nominated node has terminating pod belonging to a pod group of lower priority",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(highPriority).PodGroupName("victim-pg").Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Priority(lowPriority).DisruptionModeAll().Obj(),
        ],
        "preemptorPodGroup": st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
        "preemptorPods": [
            st.MakePod().Name("p1").UID("p1").Priority(highPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Priority(highPriority).NominatedNodeName("node1").Obj(),
        ],
        "expectedStatus": fwk.NewStatus(fwk.Success, "ongoing preemption on nominated nodes"),
        "expectedNominating": {
            types.NamespacedName("", "p1"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": ""},
            types.NamespacedName("", "p2"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": "node1"},
        },
    },
    {
        "name": "TestPodGroupEvaluator_Preempt/Preemptor group returns success with current nominating infos if nominated node has terminating pod belonging to a pod group of lower priority with DisruptionModePod",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(highPriority).PodGroupName("victim-pg").Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler).Terminating().Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("victim-pg").UID("victim-pg").Priority(lowPriority).DisruptionModeSingle().Obj(),
        ],
        "preemptorPodGroup": st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).Obj(),
        "preemptorPods": [
            st.MakePod().Name("p1").UID("p1").Priority(highPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Priority(highPriority).NominatedNodeName("node1").Obj(),
        ],
        "expectedStatus": fwk.NewStatus(fwk.Success, "ongoing preemption on nominated nodes"),
        "expectedNominating": {
            types.NamespacedName("", "p1"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": ""},
            types.NamespacedName("", "p2"): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": "node1"},
        },
    },
    {
        "name": "TestPodGroupEvaluator_Preempt/PodGroup preemptor with PreemptNever policy does not perform preemption",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "preemptorPodGroup": st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
        "preemptorPods": [
            st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).Obj(),
            st.MakePod().Name("p-2").UID("p-2").Priority(highPriority).Obj(),
        ],
        "expectedStatus": fwk.NewStatus(fwk.Unschedulable, "not eligible due to preemptionPolicy=Never."),
    },
    {
        "name": "TestPodGroupEvaluator_Preempt/PodGroup preemptor with PreemptNever preemption policy does not perform preemption with PodGroup victims",
        "nodes": [
            st.MakeNode().Name("node1").Obj(),
            st.MakeNode().Name("node2").Obj(),
            st.MakeNode().Name("node3").Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("v1").Node("node1").Priority(lowPriority).Obj(),
            st.MakePod().Name("p2").UID("v2").Node("node2").Priority(lowPriority).PodGroupName("pg1").Obj(),
            st.MakePod().Name("p3").UID("v3").Node("node3").Priority(lowPriority).PodGroupName("pg2").Obj(),
        ],
        "initPodGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").DisruptionModeSingle().Priority(lowPriority).Obj(),
            st.MakePodGroup().Name("pg2").UID("pg2").DisruptionModeSingle().Priority(lowPriority).Obj(),
        ],
        "preemptorPodGroup": st.MakePodGroup().Name("preemptor-pg").Priority(highPriority).PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
        "preemptorPods": [
            st.MakePod().Name("p-1").UID("p-1").Priority(highPriority).Obj(),
            st.MakePod().Name("p-2").UID("p-2").Priority(highPriority).Obj(),
        ],
        "expectedStatus": fwk.NewStatus(fwk.Unschedulable, "not eligible due to preemptionPolicy=Never."),
    }
]


@pytest.mark.parametrize("tt", cases(TestPodGroupEvaluator_Preempt))
def test_preempt(tt: dict[str, Any]) -> None:
    cluster = snapshot(tt.get("initPods"), tt["nodes"], *groups_of(tt))
    handle = FakeHandle(new_framework([]), cluster)
    pl = DefaultPreemption(feature_gates=FeatureGates({"GenericWorkload": True, "PodGroupPreemptionPolicy": True}))
    pg = tt["preemptorPodGroup"]
    info = PodGroupInfo(pg["metadata"].get("namespace", ""), pg["metadata"]["name"], pg,
                        tuple(pod_info(p) for p in tt["preemptorPods"]))

    def mockSchedulingFunc() -> tuple[list[ProposedAssignment], Status]:  # noqa: N802
        raise AssertionError("podGroupSchedulingFunc should not be called when ongoing preemption is detected")

    gotResult = pl.preempt_pod_group(info, mockSchedulingFunc, cluster, handle)
    want = tt["expectedStatus"]
    gotStatus = gotResult.status
    assert (gotStatus.code, gotStatus.message) == (want.code, ", ".join(want.reasons))
    if gotStatus.code != Code.SUCCESS:
        return
    names = {p.uid: p.name for p in info.unscheduled_pods}
    got = {("", names[uid]): {"NominatingMode": fwk.ModeOverride, "NominatedNodeName": node}
           for uid, node in gotResult.nominations.items()}
    assert got == tt["expectedNominating"]

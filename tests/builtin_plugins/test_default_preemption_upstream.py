"""DefaultPreemption: kube-scheduler v1.37.2's default_preemption_test.go TestSelectVictimsOnNode and
TestPodEligibleToPreemptOthers, case by case, the workload-aware ones (GenericWorkload: PodGroups preempted
as a unit) with the gate on. CompositePodGroup cases are listed in upstream_unported.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import st
from kubeberth import CycleState, Diagnosis, FeatureGates
from kubeberth.builtin_plugins.default_preemption import PDB, DefaultPreemption
from kubeberth.builtin_plugins.default_preemption.evaluator import Evaluator
from st import fwk, sets, v1
from test_default_preemption import FakeHandle, framework
from upstream import cases, pod_info, snapshot

negPriority, lowPriority, midPriority, highPriority, veryHighPriority = -100, 0, 100, 1000, 10000
smallRes = {v1.ResourceCPU: "100m", v1.ResourceMemory: "100"}
mediumRes = {v1.ResourceCPU: "200m", v1.ResourceMemory: "200"}
largeRes = {v1.ResourceCPU: "300m", v1.ResourceMemory: "300"}
veryLargeRes = {v1.ResourceCPU: "500m", v1.ResourceMemory: "500"}
labelKeys = ["hostname", "zone", "region"]
v1.NamespaceDefault = "default"  # type: ignore[attr-defined]
v1.DisruptionTarget = "DisruptionTarget"  # type: ignore[attr-defined]
v1.ConditionTrue = "True"  # type: ignore[attr-defined]
v1.PodReasonPreemptionByScheduler = "PreemptionByScheduler"  # type: ignore[attr-defined]


class tainttoleration:  # noqa: N801 - its ErrReasonNotMatch
    ErrReasonNotMatch = "node(s) had untolerated taint(s)"


class _Unported:
    """Names the Go table uses only in its CompositePodGroup cases (unported)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: self

    def __getitem__(self, key: Any) -> Any:
        return self


class tf:  # noqa: N801 - tf.RegisterPluginAsExtensions: the kubeberth plugin of that name, enabled
    @staticmethod
    def RegisterPluginAsExtensions(name: str, factory: Any, *extensions: str) -> str:  # noqa: N802
        return name


class frameworkruntime:  # noqa: N801
    @staticmethod
    def FactoryAdapter(features: Any, new: Any) -> None:  # noqa: N802
        return None


class feature:  # noqa: N801
    @staticmethod
    def Features(**gates: bool) -> dict[str, bool]:  # noqa: N802
        return gates


class interpodaffinity:  # noqa: N801
    Name = "InterPodAffinity"
    New = None


class podtopologyspread:  # noqa: N801
    Name = "PodTopologySpread"


podTopologySpreadFunc = None
names = _Unported()


def gates(features: dict[str, bool] | None) -> FeatureGates:
    """feature.Features as the process's gates (EnableGenericWorkload -> GenericWorkload)."""
    on = {k.removeprefix("enable").removeprefix("Enable"): v for k, v in (features or {}).items() if v}
    return FeatureGates(on)


TestSelectVictimsOnNode = [
    {
        "name": "TestSelectVictimsOnNode/Basic: Preempt single lower priority pod",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [
            st.MakePod().Name("victim").UID("v1").Node("node1").Priority(lowPriority).Req(largeRes).Obj()
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("victim"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Priority: Prefer lower priority victim",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [
            st.MakePod().Name("high-prio").UID("v3").Node("node1").Priority(highPriority).Req(smallRes).Obj(),
            st.MakePod().Name("mid-prio").UID("v2").Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("low-prio").UID("v1").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("low-prio"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/PDB: Prefer non-violating victim with higher priority over violating victim with lower priority",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [
            st.MakePod()
            .Name("victim-pdb")
            .UID("v1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("victim-no-pdb")
            .UID("v2")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            {
                "kind": "PodDisruptionBudget",
                "spec": {"selector": {"matchLabels": {"app": "foo"}}},
                "status": {"disruptionsAllowed": 0},
            }
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("victim-no-pdb"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/PDB: Prefer lower prioirity pod for preemption, when preemption without pdb violation is not possible",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            {
                "kind": "PodDisruptionBudget",
                "spec": {"selector": {"matchLabels": {"app": "foo"}}},
                "status": {"disruptionsAllowed": 0},
            }
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("v1"),
        "expectedNumViolatingVictim": 1,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: Atomic preemption of PodGroup",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("g1-1")
            .UID("g1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .Obj(),
            st.MakePod()
            .Name("g1-2")
            .UID("g2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("g1-1", "g1-2"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: prefer single pod over podGroup for preemption candidate",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod()
            .Name("g1-1")
            .UID("g1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .Obj(),
            st.MakePod()
            .Name("g1-2")
            .UID("g2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("p1"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: preempt lower priority pod group instead of higher priority single pod",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(highPriority).Req(mediumRes).Obj(),
            st.MakePod()
            .Name("g1-1")
            .UID("g1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(veryHighPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("g1-1"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: preempt lower priority single pod instead of higher priority pod group",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(highPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(lowPriority).Req(mediumRes).Obj(),
            st.MakePod()
            .Name("g1-1")
            .UID("g1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(highPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(veryHighPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("p1"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: PDB: PodGroup as victim with 2 PDB violations",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("g1-1")
            .UID("g1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("app", "foo")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("g1-2")
            .UID("g2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("app", "foo")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            {
                "kind": "PodDisruptionBudget",
                "metadata": {"namespace": v1.NamespaceDefault},
                "spec": {"selector": {"matchLabels": {"app": "foo"}}},
                "status": {"disruptionsAllowed": 0},
            }
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("g1-1", "g1-2"),
        "expectedNumViolatingVictim": 2,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup (DisruptionModeAll)",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg-violating")
            .Namespace(v1.NamespaceDefault)
            .UID("pg-violating")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj(),
            st.MakePodGroup()
            .Name("pg-non-violating")
            .Namespace(v1.NamespaceDefault)
            .UID("pg-non-violating")
            .Priority(midPriority)
            .DisruptionModeAll()
            .Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("g1-1")
            .UID("g1-1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("app", "foo")
            .PodGroupName("pg-violating")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("g2-1")
            .UID("g2-1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-non-violating")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            {
                "kind": "PodDisruptionBudget",
                "metadata": {"namespace": v1.NamespaceDefault},
                "spec": {"selector": {"matchLabels": {"app": "foo"}}},
                "status": {"disruptionsAllowed": 0},
            }
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("g2-1"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup (DisruptionModeSingle)",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg-violating")
            .Namespace(v1.NamespaceDefault)
            .UID("pg-violating")
            .Priority(lowPriority)
            .DisruptionModeSingle()
            .Obj(),
            st.MakePodGroup()
            .Name("pg-non-violating")
            .Namespace(v1.NamespaceDefault)
            .UID("pg-non-violating")
            .Priority(midPriority)
            .DisruptionModeSingle()
            .Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("g1-1")
            .UID("g1-1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("app", "foo")
            .PodGroupName("pg-violating")
            .Priority(lowPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("g2-1")
            .UID("g2-1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-non-violating")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            {
                "kind": "PodDisruptionBudget",
                "metadata": {"namespace": v1.NamespaceDefault},
                "spec": {"selector": {"matchLabels": {"app": "foo"}}},
                "status": {"disruptionsAllowed": 0},
            }
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("g2-1"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Failure: Cannot preempt the victim with higher priority",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [st.MakePod().Name("victim").UID("v1").Node("node1").Priority(highPriority).Obj()],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(midPriority).Obj(),
        "expectedPods": None,
        "expectedNumViolatingVictim": 0,
        "expectedStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestSelectVictimsOnNode/Failure: Cannot preempt if node is empty",
        "nodeNames": ["node1"],
        "mainNode": "node1",
        "initPods": [],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(midPriority).Obj(),
        "expectedPods": None,
        "expectedNumViolatingVictim": 0,
        "expectedStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-a",
        "nodeNames": ["node-a/zone1", "node-b/zone1"],
        "mainNode": "node-a",
        "features": {"enableGenericWorkload": True},
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                interpodaffinity.Name,
                frameworkruntime.FactoryAdapter({}, interpodaffinity.New),
                "Filter",
                "PreFilter",
            )
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-x")
            .UID("pod-x")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-y")
            .UID("pod-y")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "preemptor": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedPods": sets.New("pod-x", "pod-y"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-b",
        "nodeNames": ["node-a/zone1", "node-b/zone1"],
        "mainNode": "node-b",
        "features": {"enableGenericWorkload": True},
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                interpodaffinity.Name,
                frameworkruntime.FactoryAdapter({}, interpodaffinity.New),
                "Filter",
                "PreFilter",
            )
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-x")
            .UID("pod-x")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-y")
            .UID("pod-y")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "preemptor": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedPods": sets.New("pod-x", "pod-y"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: zone anti-affinity reprieve succeeds when remote pod lacks constraint label (negative control)",
        "nodeNames": ["node-a/zone1", "node-b/zone1"],
        "mainNode": "node-a",
        "features": {"enableGenericWorkload": True},
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                interpodaffinity.Name,
                frameworkruntime.FactoryAdapter({}, interpodaffinity.New),
                "Filter",
                "PreFilter",
            )
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-x")
            .UID("pod-x")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-y")
            .UID("pod-y")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "preemptor": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedPods": None,
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-a",
        "nodeNames": ["node-a/zone1", "node-b/zone1", "node-c/zone2"],
        "mainNode": "node-a",
        "features": {"enableGenericWorkload": True},
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                podtopologyspread.Name, podTopologySpreadFunc, "PreFilter", "Filter"
            )
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-a")
            .UID("pod-a")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-b")
            .UID("pod-b")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-c")
            .UID("pod-c")
            .Namespace(v1.NamespaceDefault)
            .Node("node-c")
            .Label("foo", "")
            .Priority(veryHighPriority)
            .Obj(),
        ],
        "preemptor": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace(v1.NamespaceDefault)
        .Label("foo", "")
        .Priority(highPriority)
        .SpreadConstraint(
            1, "zone", v1.DoNotSchedule, st.MakeLabelSelector().Exists("foo").Obj(), None, None, None, None
        )
        .Obj(),
        "expectedPods": sets.New("pod-a", "pod-b"),
        "expectedNumViolatingVictim": 0,
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-c",
        "nodeNames": ["node-a/zone1", "node-b/zone1", "node-c/zone2"],
        "mainNode": "node-c",
        "features": {"enableGenericWorkload": True},
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                podtopologyspread.Name, podTopologySpreadFunc, "PreFilter", "Filter"
            )
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-a")
            .UID("pod-a")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-b")
            .UID("pod-b")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .Label("foo", "")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-c")
            .UID("pod-c")
            .Namespace(v1.NamespaceDefault)
            .Node("node-c")
            .Label("foo", "")
            .Priority(veryHighPriority)
            .Obj(),
        ],
        "preemptor": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace(v1.NamespaceDefault)
        .Label("foo", "")
        .Priority(highPriority)
        .SpreadConstraint(
            1, "zone", v1.DoNotSchedule, st.MakeLabelSelector().Exists("foo").Obj(), None, None, None, None
        )
        .Obj(),
        "expectedPods": None,
        "expectedNumViolatingVictim": 0,
        "expectedStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
    },
    {
        "name": "TestSelectVictimsOnNode/Cross-node PodGroup: whole pod group across multiple nodes expected to be preempted",
        "nodeNames": ["node-a", "node-b"],
        "mainNode": "node-a",
        "features": {"enableGenericWorkload": True},
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .Namespace(v1.NamespaceDefault)
            .UID("pg1")
            .Priority(lowPriority)
            .DisruptionModeAll()
            .Obj()
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-a")
            .UID("pod-a")
            .Namespace(v1.NamespaceDefault)
            .Node("node-a")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(largeRes)
            .Obj(),
            st.MakePod()
            .Name("pod-b")
            .UID("pod-b")
            .Namespace(v1.NamespaceDefault)
            .Node("node-b")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(largeRes)
            .Obj(),
        ],
        "preemptor": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "expectedPods": sets.New("pod-a", "pod-b"),
        "expectedNumViolatingVictim": 0,
    },
]



TestPodEligibleToPreemptOthers = [
    {
        "name": "TestPodEligibleToPreemptOthers/Pod with nominated node",
        "pod": st.MakePod()
        .Name("p_with_nominated_node")
        .UID("p")
        .Priority(highPriority)
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [st.MakePod().Name("p1").UID("p1").Priority(lowPriority).Node("node1").Terminating().Obj()],
        "nodes": ["node1"],
        "nominatedNodeStatus": fwk.NewStatus(
            fwk.UnschedulableAndUnresolvable, tainttoleration.ErrReasonNotMatch
        ),
        "expected": True,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Pod without nominated node",
        "pod": st.MakePod().Name("p_without_nominated_node").UID("p").Priority(highPriority).Obj(),
        "pods": [],
        "nodes": [],
        "nominatedNodeStatus": None,
        "expected": True,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Pod with 'PreemptNever' preemption policy",
        "pod": st.MakePod()
        .Name("p_with_preempt_never_policy")
        .UID("p")
        .Priority(highPriority)
        .PreemptionPolicy(v1.PreemptNever)
        .Obj(),
        "pods": [],
        "nodes": [],
        "nominatedNodeStatus": None,
        "expected": False,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition",
        "pod": st.MakePod()
        .Name("p_with_nominated_node")
        .UID("p")
        .Priority(highPriority)
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("p1")
            .UID("p1")
            .Priority(lowPriority)
            .Node("node1")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "nodes": ["node1"],
        "expected": False,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/non-victim Pods terminating",
        "pod": st.MakePod()
        .Name("p_with_nominated_node")
        .UID("p")
        .Priority(highPriority)
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [st.MakePod().Name("p1").UID("p1").Priority(lowPriority).Node("node1").Terminating().Obj()],
        "nodes": ["node1"],
        "expected": True,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by PodGroup in victim namespace",
        "pod": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace("ns1")
        .Priority(highPriority)
        .PodGroupName("pg1")
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace("ns2")
            .Node("node1")
            .Priority(veryHighPriority)
            .PodGroupName("pg1")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "podGroups": [st.MakePodGroup().Name("pg1").UID("pg1").Namespace("ns2").Priority(lowPriority).Obj()],
        "nodes": ["node1"],
        "features": {"enableGenericWorkload": True},
        "expected": False,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by CompositePodGroup in victim namespace",
        "pod": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace("ns1")
        .Priority(highPriority)
        .PodGroupName("pg1")
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace("ns2")
            .Node("node1")
            .Priority(veryHighPriority)
            .PodGroupName("pg1")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .UID("pg1")
            .Namespace("ns2")
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj()
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup().Name("cpg1").UID("cpg1").Namespace("ns2").Priority(lowPriority).Obj()
        ],
        "nodes": ["node1"],
        "features": {"enableGenericWorkload": True, "enableCompositePodGroup": True},
        "expected": False,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, CompositePodGroup not found in victim namespace, fallback to PodGroup priority",
        "pod": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace("ns1")
        .Priority(highPriority)
        .PodGroupName("pg1")
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace("ns2")
            .Node("node1")
            .Priority(veryHighPriority)
            .PodGroupName("pg1")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .UID("pg1")
            .Namespace("ns2")
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj()
        ],
        "nodes": ["node1"],
        "features": {"enableGenericWorkload": True, "enableCompositePodGroup": True},
        "expected": False,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, PodGroup not found in victim namespace, fallback to pod priority when CompositePodGroup is enabled",
        "pod": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace("ns1")
        .Priority(highPriority)
        .PodGroupName("pg1")
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace("ns2")
            .Node("node1")
            .Priority(veryHighPriority)
            .PodGroupName("pg1")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "nodes": ["node1"],
        "features": {"enableGenericWorkload": True, "enableCompositePodGroup": True},
        "expected": True,
    },
    {
        "name": "TestPodEligibleToPreemptOthers/Preemptor with SchedulingGroup, victim priority overridden by root CompositePodGroup in multi-level CPG hierarchy",
        "pod": st.MakePod()
        .Name("p")
        .UID("p")
        .Namespace("ns1")
        .Priority(highPriority)
        .PodGroupName("pg1")
        .NominatedNodeName("node1")
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace("ns2")
            .Node("node1")
            .Priority(veryHighPriority)
            .PodGroupName("leaf-pg")
            .Terminating()
            .Condition(v1.DisruptionTarget, v1.ConditionTrue, v1.PodReasonPreemptionByScheduler)
            .Obj()
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("leaf-pg")
            .UID("leaf-pg")
            .Namespace("ns2")
            .ParentCompositePodGroup("child-cpg")
            .Priority(veryHighPriority)
            .Obj()
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup()
            .Name("child-cpg")
            .UID("child-cpg")
            .Namespace("ns2")
            .ParentCompositePodGroup("root-cpg")
            .Priority(veryHighPriority)
            .Obj(),
            st.MakeCompositePodGroup()
            .Name("root-cpg")
            .UID("root-cpg")
            .Namespace("ns2")
            .Priority(lowPriority)
            .Obj(),
        ],
        "nodes": ["node1"],
        "features": {"enableGenericWorkload": True, "enableCompositePodGroup": True},
        "expected": False,
    },
]


@pytest.mark.parametrize("tt", cases(TestSelectVictimsOnNode))
def test_select_victims_on_node(tt: dict[str, Any]) -> None:
    nodes = []
    for node_name in tt["nodeNames"]:
        keys = node_name.split("/")
        w = st.MakeNode().Capacity(veryLargeRes).Name(keys[0])
        for i, value in enumerate(keys):
            w.Label(labelKeys[i], value)
        nodes.append(w.Obj())
    pdbs = [{**p, "kind": "PodDisruptionBudget"} for p in tt.get("pdbs") or []]
    cluster = snapshot(tt.get("initPods"), nodes, *pdbs, *(tt.get("podGroups") or []))
    plugins = ["PrioritySort", "NodeResourcesFit", *(tt.get("registerPlugins") or []), "DefaultPreemption", "DefaultBinder"]
    fw = framework(plugins=plugins)
    handle = FakeHandle(fw, cluster)
    preemptor = pod_info(tt["preemptor"])
    state = CycleState()
    table = cluster.table
    status, _ = fw.run_pre_filter(state, preemptor, table.view(table.ordered_rows()), cluster, handle, None)
    assert status.ok
    workload = gates(tt.get("features")).enabled("GenericWorkload")
    evaluator = Evaluator("DefaultPreemption", preemptor, cluster, handle, table.ordered_rows(),
                          [PDB.from_dict(p) for p in pdbs], workload=workload)
    row = table.row_of[tt["mainNode"]]
    # GetVictimsOnNode and the victims allowed (lower priority); none is kube-scheduler's
    # UnschedulableAndUnresolvable "No preemption victims found for incoming pod"
    if workload:
        lower: list[Any] = evaluator.victims_on_row(row)
    else:
        lower = [p for p in cluster.node_pods(row).values() if p.priority < preemptor.priority]
    want = tt.get("expectedStatus")
    if not lower:
        assert want is not None and want.code == fwk.UnschedulableAndUnresolvable
        return
    if workload:
        victims, num_violating, _ = evaluator.select_victim_units_on_node(row, lower)
    else:
        victims, num_violating, _ = evaluator.select_victims_on_node(row, lower)
    assert victims is not None and (want is None or want.code == fwk.Success)
    assert num_violating == tt.get("expectedNumViolatingVictim", 0)
    assert frozenset(v.name for v in victims) == (tt["expectedPods"] or frozenset())


@pytest.mark.parametrize("test", cases(TestPodEligibleToPreemptOthers))
def test_pod_eligible_to_preempt_others(test: dict[str, Any]) -> None:
    nodes = [st.MakeNode().Name(n).Obj() for n in test.get("nodes") or []]
    cluster = snapshot(test.get("pods"), nodes, *(test.get("podGroups") or []))
    plugin = DefaultPreemption(feature_gates=gates(test.get("features")))
    pod = pod_info(test["pod"])
    diagnosis = Diagnosis(num_all_nodes=len(nodes))
    status = test.get("nominatedNodeStatus")
    if status is not None and pod.nominated_node_name in cluster.table.row_of:
        rows = np.asarray([cluster.table.row_of[pod.nominated_node_name]], dtype=np.int64)
        diagnosis.add("TaintToleration", status.reasons[0], rows, status.code)
    assert plugin.eligible(pod, cluster, diagnosis)[0] == test["expected"]

"""DefaultPreemption: kube-scheduler v1.37.2's default_preemption_test.go TestDryRunPreemption,
TestSelectBestCandidate, TestCustomSelection and TestCustomOrdering, case by case.

The tables are the Go tables transcribed expression by expression (see st.py); the Go test's
framework (`tf.NewFramework` with a FakeFilter counting its calls, queue sort, bind and the case's
plugins) is a kubeberth profile enabling the same plugins at the same extension points; workload-aware
cases (PodGroup victims) run with GenericWorkload on. Cases that need CompositePodGroup or the
DRANodeAllocatableResources alpha gate are listed in upstream_unported.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
import st as _st
from kubeberth import Code, Diagnosis, FeatureGates, FilterScope, NodeInfo, PostFilterResult, Status, hookimpl
from kubeberth.builtin_plugins.default_preemption import (
    PDB,
    Candidate,
    DefaultPreemption,
    IsEligibleVictim,
    Victim,
    more_important_victim,
    pick_one_node_for_preemption,
    start_time,
)
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod
from st import fwk, v1
from test_default_preemption import FakeHandle, attempt, setup
from test_default_preemption import pod as placed
from upstream import cases, pod_info, snapshot

# ---- the Go names the tables use --------------------------------------------------------


# pkg/scheduler/testing as the tables spell it
st = SimpleNamespace(**{k: v for k, v in vars(_st).items() if not k.startswith("__")})


v1.NamespaceDefault = "default"  # type: ignore[attr-defined]


class time:  # noqa: N801 - Go's time, as RFC 3339 strings with nanoseconds (metav1.Time's wire form)
    @staticmethod
    def Unix(sec: int, nsec: int) -> str:
        return f"{datetime.fromtimestamp(sec, UTC):%Y-%m-%dT%H:%M:%S}.{nsec:09d}Z"

    @staticmethod
    def Now() -> str:
        return "2026-01-01T00:00:00Z"


class metav1:  # noqa: N801
    @staticmethod
    def NewTime(t: str) -> str:
        return t

    @staticmethod
    def Time(Time: str) -> str:  # noqa: N803
        return Time

    @staticmethod
    def LabelSelector(MatchLabels: dict[str, str]) -> dict[str, Any]:  # noqa: N803
        return {"matchLabels": MatchLabels}


class policy:  # noqa: N801 - k8s.io/api/policy/v1 as raw objects
    @staticmethod
    def PodDisruptionBudget(Spec: dict[str, Any], Status: dict[str, Any]) -> dict[str, Any]:  # noqa: N803
        return {"kind": "PodDisruptionBudget", "metadata": {"name": "pdb"}, "spec": Spec, "status": Status}

    @staticmethod
    def PodDisruptionBudgetSpec(Selector: dict[str, Any]) -> dict[str, Any]:  # noqa: N803
        return {"selector": Selector}

    @staticmethod
    def PodDisruptionBudgetStatus(
        DisruptionsAllowed: int, DisruptedPods: dict[str, str] | None = None
    ) -> dict[str, Any]:  # noqa: N803
        return {"disruptionsAllowed": DisruptionsAllowed, "disruptedPods": DisruptedPods or {}}


class config:  # noqa: N801
    @staticmethod
    def DefaultPreemptionArgs(
        MinCandidateNodesPercentage: int, MinCandidateNodesAbsolute: int
    ) -> DefaultPreemption.Args:  # noqa: N803
        return DefaultPreemption.Args(
            minCandidateNodesPercentage=MinCandidateNodesPercentage,
            minCandidateNodesAbsolute=MinCandidateNodesAbsolute,
        )


def getDefaultDefaultPreemptionArgs() -> DefaultPreemption.Args:  # noqa: N802
    return DefaultPreemption.Args()


def gates_of(features: dict[str, bool] | None) -> FeatureGates:
    """feature.Features as the process's gates (EnableGenericWorkload -> GenericWorkload)."""
    return FeatureGates({k.removeprefix("Enable"): True for k, on in (features or {}).items() if on})


def Pods(victim: Any) -> list[PodInfo]:  # noqa: N802 - Victim.Pods(): a pod alone when victims are pods
    return list(victim.pods) if isinstance(victim, Victim) else [victim]


def IsGroup(victim: Any) -> bool:  # noqa: N802
    return isinstance(victim, Victim) and victim.is_group


class feature:  # noqa: N801
    @staticmethod
    def Features(**gates: bool) -> dict[str, bool]:
        return gates


@dataclasses.dataclass
class Victims:
    """extenderv1.Victims"""

    Pods: list[dict[str, Any]]
    NumPDBViolations: int = 0


class extenderv1:  # noqa: N801
    Victims = Victims


@dataclasses.dataclass
class candidate:  # noqa: N801 - the Go test's candidate{victims, name}
    victims: Victims
    name: str


# ---- pkg/scheduler/testing/framework: fake filter plugins and registration ------------------

ErrReasonFake = "Nodes failed the fake plugin"


class _NodeFilter:
    """A test filter in kube-scheduler's per-node form (one call per node, as NumFilterCalled counts)."""

    filter_scope = FilterScope.NODE

    def __init__(self, name: str) -> None:
        self.name = name


class FakeFilterPlugin(_NodeFilter):
    """tf.FakeFilterPlugin: counts its calls; fails the nodes of FailedNodeReturnCodeMap with their code."""

    def __init__(self, name: str, FailedNodeReturnCodeMap: dict[str, Code]) -> None:  # noqa: N803
        super().__init__(name)
        self.FailedNodeReturnCodeMap = FailedNodeReturnCodeMap
        self.NumFilterCalled = 0

    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        self.NumFilterCalled += 1
        code = self.FailedNodeReturnCodeMap.get(node.name)
        if code is None or code == Code.SUCCESS:
            return None
        return Status(code, (f"injecting failure for pod {pod.name}",))


class FalseFilterPlugin(_NodeFilter):
    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        return Status(Code.UNSCHEDULABLE, (ErrReasonFake,))


class TrueFilterPlugin(_NodeFilter):
    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        return None


class MatchFilterPlugin(_NodeFilter):
    @hookimpl
    def filter_node(self, pod: PodInfo, node: NodeInfo) -> Status | None:
        return None if pod.name == node.name else Status(Code.UNSCHEDULABLE, (ErrReasonFake,))


@dataclasses.dataclass(frozen=True)
class Registration:
    """A tf.RegisterPluginFunc: the plugin's name, a factory for a test plugin (None for a built-in), and
    the extension points it is enabled at."""

    name: str
    factory: Callable[[str], Any] | None
    extensions: tuple[str, ...]


class tf:  # noqa: N801
    NewFalseFilterPlugin = FalseFilterPlugin
    NewTrueFilterPlugin = TrueFilterPlugin
    NewMatchFilterPlugin = MatchFilterPlugin

    @staticmethod
    def RegisterFilterPlugin(name: str, factory: Callable[[str], Any]) -> Registration:
        return Registration(name, factory, ("Filter",))

    @staticmethod
    def RegisterPluginAsExtensions(name: str, factory: Any, *extensions: str) -> Registration:
        return Registration(name, None, extensions)

    @staticmethod
    def RegisterQueueSortPlugin(name: str, factory: Any) -> Registration:
        return Registration(name, None, ("QueueSort",))

    @staticmethod
    def RegisterBindPlugin(name: str, factory: Any) -> Registration:
        return Registration(name, None, ("Bind",))


class frameworkruntime:  # noqa: N801
    @staticmethod
    def FactoryAdapter(features: Any, new: Any) -> None:
        return None


class noderesources:  # noqa: N801
    Name = "NodeResourcesFit"


class interpodaffinity:  # noqa: N801
    Name = "InterPodAffinity"
    New = None


class podtopologyspread:  # noqa: N801
    Name = "PodTopologySpread"


class queuesort:  # noqa: N801
    Name = "PrioritySort"
    New = None


class defaultbinder:  # noqa: N801
    Name = "DefaultBinder"
    New = None


nodeResourcesFitFunc = podTopologySpreadFunc = None


def new_framework(registrations: list[Registration]) -> Any:
    """tf.NewFramework: a profile enabling exactly the registered plugins at their extension points, in
    registration order (the order kube-scheduler runs them in)."""
    points: dict[str, list[dict[str, str]]] = {}
    extra = []
    for reg in registrations:
        for ext in reg.extensions:
            points.setdefault(ext[0].lower() + ext[1:], []).append({"name": reg.name})
        if reg.factory is not None:
            extra.append(reg.factory(reg.name))
    plugins: dict[str, Any] = {"multiPoint": {"disabled": [{"name": "*"}]}}
    for point, enabled in points.items():
        plugins[point] = {"enabled": enabled, "disabled": [{"name": "*"}]}
    config_ = parse_configuration({"profiles": [{"schedulerName": "kubeberth", "plugins": plugins}]})
    return build_generation(config=config_, extra_plugins=extra).default_profile


negPriority, lowPriority, midPriority, highPriority, veryHighPriority = -100, 0, 100, 1000, 10000
smallRes = {v1.ResourceCPU: "100m", v1.ResourceMemory: "100"}
mediumRes = {v1.ResourceCPU: "200m", v1.ResourceMemory: "200"}
largeRes = {v1.ResourceCPU: "300m", v1.ResourceMemory: "300"}
veryLargeRes = {v1.ResourceCPU: "500m", v1.ResourceMemory: "500"}

epochTime = metav1.NewTime(time.Unix(0, 0))
epochTime1 = metav1.NewTime(time.Unix(0, 1))
epochTime2 = metav1.NewTime(time.Unix(0, 2))
epochTime3 = metav1.NewTime(time.Unix(0, 3))
epochTime4 = metav1.NewTime(time.Unix(0, 4))
epochTime5 = metav1.NewTime(time.Unix(0, 5))
epochTime6 = metav1.NewTime(time.Unix(0, 6))

# Go's rand.New(rand.NewSource(4)).Int31n(n), the first draws per n: the tests' getOffsetRand (the
# Go table's comments name the offsets for 5 nodes: 4, 1, 3).
GO_SEED4_INT31N = {1: [0, 0, 0], 2: [1, 0, 1], 3: [1, 1, 1], 4: [1, 0, 1], 5: [4, 1, 3]}


def getOffsetRand() -> Callable[[int], int]:  # noqa: N802
    draws: dict[int, int] = {}

    def int31n(n: int) -> int:
        i = draws.get(n, 0)
        draws[n] = i + 1
        return GO_SEED4_INT31N[n][i]

    return int31n


# ---- TestDryRunPreemption ------------------------------------------------------------------

victimPodWithDRANodeAllocatable = (
    st.MakePod()
    .Name("victimPod")
    .UID("p1")
    .Node("node1")
    .Priority(midPriority)
    .Req({v1.ResourceCPU: "1"})
    .Obj()
)
victimPodWithDRANodeAllocatable["status"]["nodeAllocatableResourceClaimStatuses"] = [
    {
        "resourceClaimName": "claim-1",
        "mapping": [
            {"name": v1.ResourceCPU, "quantity": "2"},
        ],
    },
]
victimPodStandard = (
    st.MakePod()
    .Name("victimPodStandard")
    .UID("p2")
    .Node("node1")
    .Priority(midPriority)
    .Req({v1.ResourceCPU: "1"})
    .Obj()
)

TestDryRunPreemption = [
    {
        "name": "TestDryRunPreemption/a pod that does not fit on any node",
        "registerPlugins": [
            tf.RegisterFilterPlugin("FalseFilter", tf.NewFalseFilterPlugin),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Obj(),
        ],
        "expected": [[]],
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/a pod that fits with no preemption",
        "registerPlugins": [
            tf.RegisterFilterPlugin("TrueFilter", tf.NewTrueFilterPlugin),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Obj(),
        ],
        "expected": [[]],
        "fakeFilterRC": fwk.Unschedulable,
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/a pod that fits on one node with no preemption",
        "registerPlugins": [
            tf.RegisterFilterPlugin("MatchFilter", tf.NewMatchFilterPlugin),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            # Name the pod as "node1" to fit "MatchFilter" plugin.
            st.MakePod().Name("node1").UID("node1").Priority(highPriority).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Obj(),
        ],
        "expected": [[]],
        "fakeFilterRC": fwk.Unschedulable,
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/a pod that fits on both nodes when lower priority pods are preempted",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1")
                            .UID("p1")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                    name="node1",
                ),
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p2")
                            .UID("p2")
                            .Node("node2")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                    name="node2",
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],
    },
    {
        "name": "TestDryRunPreemption/a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(lowPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "expected": [[]],
        "expectedNumFilterCalled": [0],
    },
    {
        "name": "TestDryRunPreemption/medium priority pod is preempted, but lower priority one stays as it is small",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1.1").UID("p1.1").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                    name="node1",
                ),
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p2")
                            .UID("p2")
                            .Node("node2")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                    name="node2",
                ),
            ],
        ],
        "expectedNumFilterCalled": [5],
    },
    {
        "name": "TestDryRunPreemption/mixed priority pods are preempted",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1.1").UID("p1.1").Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.3").UID("p1.3").Node("node1").Priority(midPriority).Req(mediumRes).Obj(),
            st.MakePod().Name("p1.4").UID("p1.4").Node("node1").Priority(highPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Priority(lowPriority)
                            .Req(smallRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.3")
                            .UID("p1.3")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                        ],
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],
    },
    {
        "name": "TestDryRunPreemption/mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime5)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime4)
            .Obj(),
            st.MakePod()
            .Name("p1.3")
            .UID("p1.3")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime3)
            .Obj(),
            st.MakePod()
            .Name("p1.4")
            .UID("p1.4")
            .Node("node1")
            .Priority(highPriority)
            .Req(smallRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("p2")
            .UID("p2")
            .Node("node2")
            .Priority(highPriority)
            .Req(largeRes)
            .StartTime(epochTime1)
            .Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Priority(lowPriority)
                            .Req(smallRes)
                            .StartTime(epochTime5)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.3")
                            .UID("p1.3")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .StartTime(epochTime3)
                            .Obj(),
                        ],
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],  # no preemption would happen on node2 and no filter call is counted.
    },
    {
        "name": "TestDryRunPreemption/pod with anti-affinity is preempted",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
            tf.RegisterPluginAsExtensions(
                interpodaffinity.Name,
                frameworkruntime.FactoryAdapter(feature.Features(), interpodaffinity.New),
                "Filter",
                "PreFilter",
            ),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Label("foo", "").Priority(highPriority).Req(smallRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Label("foo", "")
            .Priority(lowPriority)
            .Req(smallRes)
            .PodAntiAffinityExists("foo", "hostname", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.3").UID("p1.3").Node("node1").Priority(highPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(highPriority).Req(smallRes).Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Label("foo", "")
                            .Priority(lowPriority)
                            .Req(smallRes)
                            .PodAntiAffinityExists("foo", "hostname", st.PodAntiAffinityWithRequiredReq)
                            .Obj(),
                        ],
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [3],  # no preemption would happen on node2 and no filter call is counted.
    },
    {
        "name": "TestDryRunPreemption/preemption to resolve pod topology spread filter failure",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(
                podtopologyspread.Name, podTopologySpreadFunc, "PreFilter", "Filter"
            ),
        ],
        "nodeNames": ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        "testPods": [
            st.MakePod()
            .Name("p")
            .UID("p")
            .Label("foo", "")
            .Priority(highPriority)
            .SpreadConstraint(
                1,
                "zone",
                v1.DoNotSchedule,
                st.MakeLabelSelector().Exists("foo").Obj(),
                None,
                None,
                None,
                None,
            )
            .SpreadConstraint(
                1,
                "hostname",
                v1.DoNotSchedule,
                st.MakeLabelSelector().Exists("foo").Obj(),
                None,
                None,
                None,
                None,
            )
            .Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("pod-a1")
            .UID("pod-a1")
            .Node("node-a")
            .Label("foo", "")
            .Priority(midPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-a2")
            .UID("pod-a2")
            .Node("node-a")
            .Label("foo", "")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-b1")
            .UID("pod-b1")
            .Node("node-b")
            .Label("foo", "")
            .Priority(lowPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-x1")
            .UID("pod-x1")
            .Node("node-x")
            .Label("foo", "")
            .Priority(highPriority)
            .Obj(),
            st.MakePod()
            .Name("pod-x2")
            .UID("pod-x2")
            .Node("node-x")
            .Label("foo", "")
            .Priority(highPriority)
            .Obj(),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("pod-a2")
                            .UID("pod-a2")
                            .Node("node-a")
                            .Label("foo", "")
                            .Priority(lowPriority)
                            .Obj()
                        ],
                    ),
                    name="node-a",
                ),
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("pod-b1")
                            .UID("pod-b1")
                            .Node("node-b")
                            .Label("foo", "")
                            .Priority(lowPriority)
                            .Obj()
                        ],
                    ),
                    name="node-b",
                ),
            ],
        ],
        "expectedNumFilterCalled": [5],  # node-a (3), node-b (2), node-x (0)
    },
    {
        "name": "TestDryRunPreemption/get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "fakeFilterRC": fwk.Unschedulable,
        "expected": [[]],
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/preemption with violation of same pdb",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            policy.PodDisruptionBudget(
                Spec=policy.PodDisruptionBudgetSpec(
                    Selector=metav1.LabelSelector(MatchLabels={"app": "foo"})
                ),
                Status=policy.PodDisruptionBudgetStatus(DisruptionsAllowed=1),
            ),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                        ],
                        NumPDBViolations=1,
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [3],
    },
    {
        "name": "TestDryRunPreemption/preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't belong to DisruptedPods",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            policy.PodDisruptionBudget(
                Spec=policy.PodDisruptionBudgetSpec(
                    Selector=metav1.LabelSelector(MatchLabels={"app": "foo"})
                ),
                Status=policy.PodDisruptionBudgetStatus(
                    DisruptionsAllowed=1, DisruptedPods={"p2": metav1.Time(Time=time.Now())}
                ),
            ),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                        ],
                        NumPDBViolations=1,
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [3],
    },
    {
        "name": "TestDryRunPreemption/preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to DisruptedPods",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            policy.PodDisruptionBudget(
                Spec=policy.PodDisruptionBudgetSpec(
                    Selector=metav1.LabelSelector(MatchLabels={"app": "foo"})
                ),
                Status=policy.PodDisruptionBudgetStatus(
                    DisruptionsAllowed=1, DisruptedPods={"p1.2": metav1.Time(Time=time.Now())}
                ),
            ),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                        ],
                        NumPDBViolations=0,
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [3],
    },
    {
        "name": "TestDryRunPreemption/preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'",
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
            st.MakePod()
            .Name("p1.3")
            .UID("p1.3")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(mediumRes)
            .Obj(),
        ],
        "pdbs": [
            policy.PodDisruptionBudget(
                Spec=policy.PodDisruptionBudgetSpec(
                    Selector=metav1.LabelSelector(MatchLabels={"app": "foo"})
                ),
                Status=policy.PodDisruptionBudgetStatus(
                    DisruptionsAllowed=1, DisruptedPods={"p1.3": metav1.Time(Time=time.Now())}
                ),
            ),
        ],
        "expected": [
            [
                candidate(
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1.1")
                            .UID("p1.1")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.2")
                            .UID("p1.2")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                            st.MakePod()
                            .Name("p1.3")
                            .UID("p1.3")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(mediumRes)
                            .Obj(),
                        ],
                        NumPDBViolations=1,
                    ),
                    name="node1",
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],
    },
    {
        "name": "TestDryRunPreemption/all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        "args": config.DefaultPreemptionArgs(MinCandidateNodesPercentage=40, MinCandidateNodesAbsolute=1),
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2", "node3", "node4", "node5"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3").UID("p3").Node("node3").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p4").UID("p4").Node("node4").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p5").UID("p5").Node("node5").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "disableParallelism": True,
        "expected": [
            [
                # cycle=0 => offset=4 => node5 (yes), node1 (yes)
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1")
                            .UID("p1")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node5",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p5")
                            .UID("p5")
                            .Node("node5")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],
    },
    {
        "name": "TestDryRunPreemption/some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        "args": config.DefaultPreemptionArgs(MinCandidateNodesPercentage=40, MinCandidateNodesAbsolute=1),
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2", "node3", "node4", "node5"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(veryHighPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3").UID("p3").Node("node3").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p4").UID("p4").Node("node4").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p5").UID("p5").Node("node5").Priority(veryHighPriority).Req(largeRes).Obj(),
        ],
        "disableParallelism": True,
        "expected": [
            [
                # cycle=0 => offset=4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1")
                            .UID("p1")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node3",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p3")
                            .UID("p3")
                            .Node("node3")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
            ],
        ],
        "expectedNumFilterCalled": [4],
    },
    {
        "name": "TestDryRunPreemption/preemption offset across multiple scheduling cycles and wrap around",
        "args": config.DefaultPreemptionArgs(MinCandidateNodesPercentage=40, MinCandidateNodesAbsolute=1),
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2", "node3", "node4", "node5"],
        "testPods": [
            st.MakePod().Name("tp1").UID("tp1").Priority(highPriority).Req(largeRes).Obj(),
            st.MakePod().Name("tp2").UID("tp2").Priority(highPriority).Req(largeRes).Obj(),
            st.MakePod().Name("tp3").UID("tp3").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod().Name("p1").UID("p1").Node("node1").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p2").UID("p2").Node("node2").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3").UID("p3").Node("node3").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p4").UID("p4").Node("node4").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p5").UID("p5").Node("node5").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "disableParallelism": True,
        "expected": [
            [
                # cycle=0 => offset=4 => node5 (yes), node1 (yes)
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1")
                            .UID("p1")
                            .Node("node1")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node5",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p5")
                            .UID("p5")
                            .Node("node5")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
            ],
            [
                # cycle=1 => offset=1 => node2 (yes), node3 (yes)
                candidate(
                    name="node2",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p2")
                            .UID("p2")
                            .Node("node2")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node3",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p3")
                            .UID("p3")
                            .Node("node3")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
            ],
            [
                # cycle=2 => offset=3 => node4 (yes), node5 (yes)
                candidate(
                    name="node4",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p4")
                            .UID("p4")
                            .Node("node4")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node5",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p5")
                            .UID("p5")
                            .Node("node5")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
            ],
        ],
        "expectedNumFilterCalled": [4, 4, 4],
    },
    {
        "name": "TestDryRunPreemption/preemption looks past numCandidates until a non-PDB violating node is found",
        "args": config.DefaultPreemptionArgs(MinCandidateNodesPercentage=40, MinCandidateNodesAbsolute=2),
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "nodeNames": ["node1", "node2", "node3", "node4", "node5"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        ],
        "initPods": [
            st.MakePod()
            .Name("p1")
            .UID("p1")
            .Node("node1")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(largeRes)
            .Obj(),
            st.MakePod()
            .Name("p2")
            .UID("p2")
            .Node("node2")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(largeRes)
            .Obj(),
            st.MakePod().Name("p3").UID("p3").Node("node3").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p4").UID("p4").Node("node4").Priority(midPriority).Req(largeRes).Obj(),
            st.MakePod()
            .Name("p5")
            .UID("p5")
            .Node("node5")
            .Label("app", "foo")
            .Priority(midPriority)
            .Req(largeRes)
            .Obj(),
        ],
        "pdbs": [
            policy.PodDisruptionBudget(
                Spec=policy.PodDisruptionBudgetSpec(
                    Selector=metav1.LabelSelector(MatchLabels={"app": "foo"})
                ),
                Status=policy.PodDisruptionBudgetStatus(DisruptionsAllowed=0),
            ),
        ],
        "disableParallelism": True,
        "expected": [
            [
                # Even though the DefaultPreemptionArgs constraints suggest that the
                # minimum number of candidates is 2, we get three candidates here
                # because we're okay with being a little over (in production, if a
                # non-PDB violating candidate isn't found close to the offset, the
                # number of additional candidates returned will be at most
                # approximately equal to the parallelism in dryRunPreemption).
                # cycle=0 => offset=4 => node5 (yes, pdb), node1 (yes, pdb), node2 (no, pdb), node3 (yes)
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p1")
                            .UID("p1")
                            .Node("node1")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                        NumPDBViolations=1,
                    ),
                ),
                candidate(
                    name="node3",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p3")
                            .UID("p3")
                            .Node("node3")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                    ),
                ),
                candidate(
                    name="node5",
                    victims=extenderv1.Victims(
                        Pods=[
                            st.MakePod()
                            .Name("p5")
                            .UID("p5")
                            .Node("node5")
                            .Label("app", "foo")
                            .Priority(midPriority)
                            .Req(largeRes)
                            .Obj()
                        ],
                        NumPDBViolations=1,
                    ),
                ),
            ],
        ],
        "expectedNumFilterCalled": [8],
    },
    {
        "name": "TestDryRunPreemption/Preemption with DRA Node Allocatable: victim pod has DRA, preemptor does not",
        "enableDRANodeAllocatableResources": True,
        "nodeCapacity": {v1.ResourceCPU: "5", v1.ResourceMemory: "500"},
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req({v1.ResourceCPU: "3"}).Obj(),
        ],
        # victimPodWithDRANodeAllocatable consumes 3 CPUs (out of the 5 CPUs on the node) - 1 through standard request and 2 through DRA claim
        "initPods": [victimPodWithDRANodeAllocatable],
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        "expected": [
            [
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[victimPodWithDRANodeAllocatable],
                    ),
                ),
            ],
        ],
        # Filter is called 2 times:
        # 1. To check if the preemptor fits on the simulated node after evicting the victim.
        # 2. To check if the preemptor still fits when the victim is reprieved (added back).
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/Preemption with DRA Node Allocatable: victim pod has DRA but feature gate is disabled",
        "enableDRANodeAllocatableResources": False,
        "nodeCapacity": {v1.ResourceCPU: "5", v1.ResourceMemory: "500"},
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req({v1.ResourceCPU: "3"}).Obj(),
        ],
        "initPods": [victimPodWithDRANodeAllocatable],
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        # Since feature gate is disabled, DRA footprint (2 CPUs) is ignored.
        # Remaining capacity with victim reprieved = 5 - 1 = 4 CPUs.
        # Preemptor (3 CPUs) fits, so reprieve check succeeds.
        # No candidates are returned since the preemptor can schedule via reprieve (no eviction needed).
        "expected": [
            [],
        ],
        "expectedNumFilterCalled": [2],
    },
    {
        "name": "TestDryRunPreemption/Preemption with DRA Node Allocatable: two victims, one with DRA is evicted, standard one is reprieved",
        "enableDRANodeAllocatableResources": True,
        "nodeCapacity": {v1.ResourceCPU: "5", v1.ResourceMemory: "500"},
        "nodeNames": ["node1"],
        "testPods": [
            st.MakePod().Name("p").UID("p").Priority(highPriority).Req({v1.ResourceCPU: "3"}).Obj(),
        ],
        "initPods": [
            victimPodWithDRANodeAllocatable,  # 1 CPU standard + 2 CPU DRA = 3 CPU total
            victimPodStandard,  # 1 CPU standard
        ],
        "registerPlugins": [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        ],
        # Reprieve victimPodStandard (1 CPU): requested = 1, remaining = 4. Preemptor fits. Reprieved!
        # Reprieve victimPodWithDRANodeAllocatable (3 CPU): requested = 3 + 1 (standard) = 4, remaining = 1. Preemptor does not fit. Not reprieved!
        # So only victimPodWithDRANodeAllocatable is evicted.
        "expected": [
            [
                candidate(
                    name="node1",
                    victims=extenderv1.Victims(
                        Pods=[victimPodWithDRANodeAllocatable],
                    ),
                ),
            ],
        ],
        # Filter is called 3 times:
        # 1. To check if the preemptor fits on the simulated node after evicting both victims.
        # 2. To check if the preemptor still fits when the standard victim is reprieved (added back).
        # 3. To check if the preemptor still fits when the DRA victim is reprieved (added back).
        "expectedNumFilterCalled": [3],
    },
]


labelKeys = ["hostname", "zone", "region"]


def _victims(got: Candidate) -> candidate:
    """A kubeberth candidate as the Go test's candidate (victims sorted by name, as the Go test sorts them)."""
    pods = sorted((v.raw for v in got.victims), key=lambda p: p["metadata"]["name"])
    return candidate(victims=Victims(Pods=pods, NumPDBViolations=got.num_pdb_violations), name=got.node)


@pytest.mark.parametrize("tt", cases(TestDryRunPreemption))
def test_dry_run_preemption(tt: dict[str, Any]) -> None:
    nodes = []
    fakeFilterRCMap: dict[str, Code] = {}
    for nodeName in tt["nodeNames"]:
        capacity = tt.get("nodeCapacity") or veryLargeRes
        nodeWrapper = st.MakeNode().Capacity(capacity)
        # Split node name by '/' to form labels in a format of
        # {"hostname": tpKeys[0], "zone": tpKeys[1], "region": tpKeys[2]}
        tpKeys = nodeName.split("/")
        nodeWrapper.Name(tpKeys[0])
        for i, labelVal in enumerate(nodeName.split("/")):
            nodeWrapper.Label(labelKeys[i], labelVal)
        nodes.append(nodeWrapper.Obj())
        fakeFilterRCMap[nodeName] = tt.get("fakeFilterRC", fwk.Success)
    pdbs = tt.get("pdbs") or []
    cluster = snapshot(tt["initPods"], nodes, *pdbs)

    # For each test, register a FakeFilterPlugin along with essential plugins and tt.registerPlugins.
    fakePlugin = FakeFilterPlugin("FakeFilter", FailedNodeReturnCodeMap=fakeFilterRCMap)
    registeredPlugins = [
        tf.RegisterFilterPlugin("FakeFilter", lambda _name: fakePlugin),
        tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
        tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
        *tt["registerPlugins"],
    ]
    fw = new_framework(registeredPlugins)
    handle = FakeHandle(fw, cluster)
    table = cluster.table
    # The snapshot's NodeInfos sorted by name: every node is a potential node.
    nodeInfos = sorted(table.row_of.values(), key=lambda row: table.names[row])

    pl = DefaultPreemption(tt.get("args") or getDefaultDefaultPreemptionArgs())
    if tt.get("disableParallelism"):
        # We need disableParallelism because of the non-deterministic nature
        # of the results of tests that set custom minCandidateNodesPercentage
        # or minCandidateNodesAbsolute. This is only done in a handful of tests.
        # (kubeberth: the dry run evaluates one node at a time, as kube-scheduler with parallelism 1.)
        pl.dry_run_chunk = 1
    pl.offset_rand = getOffsetRand()
    prevNumFilterCalled = 0
    for cycle, pod in enumerate(tt["testPods"]):
        preemptor = pod_info(pod)
        offset, numCandidates = pl.get_offset_and_num_candidates(len(nodeInfos))
        evaluator = pl.evaluator(preemptor, cluster, handle, [PDB.from_dict(p) for p in pdbs])
        got = evaluator.dry_run(nodeInfos, offset, numCandidates, {})
        candidates = sorted((_victims(c) for c in got), key=lambda c: c.name)
        assert fakePlugin.NumFilterCalled - prevNumFilterCalled == tt["expectedNumFilterCalled"][cycle], (
            f"cycle {cycle}"
        )
        prevNumFilterCalled = fakePlugin.NumFilterCalled
        assert candidates == tt["expected"][cycle], f"cycle {cycle}"


# ---- TestSelectBestCandidate ---------------------------------------------------------------

TestSelectBestCandidate = [
    {
        "name": "TestSelectBestCandidate/a pod that fits on both nodes when lower priority pods are preempted",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1")
            .UID("p1")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2")
            .UID("p2")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node1", "node2"],
    },
    {
        "name": "TestSelectBestCandidate/node with min highest priority pod is picked",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node3"],
    },
    {
        "name": "TestSelectBestCandidate/when highest priorities are the same, minimum sum of priorities is picked",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node2"],
    },
    {
        "name": "TestSelectBestCandidate/when highest priority and sum are the same, minimum number of pods is picked",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.3")
            .UID("p1.3")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.4")
            .UID("p1.4")
            .Node("node1")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(negPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.3")
            .UID("p3.3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node2"],
    },
    {
        # pickOneNodeForPreemption adjusts pod priorities when finding the sum of the victims. This
        # test ensures that the logic works correctly.
        "name": "TestSelectBestCandidate/sum of adjusted priorities is considered",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.3")
            .UID("p1.3")
            .Node("node1")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(negPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.3")
            .UID("p3.3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node2"],
    },
    {
        "name": "TestSelectBestCandidate/non-overlapping lowest high priority, sum priorities, and number of pods",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3", "node4"],
        "pod": st.MakePod().Name("p").UID("p").Priority(veryHighPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p1.3")
            .UID("p1.3")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(highPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.3")
            .UID("p3.3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p3.4")
            .UID("p3.4")
            .Node("node3")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p4.1")
            .UID("p4.1")
            .Node("node4")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p4.2")
            .UID("p4.2")
            .Node("node4")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p4.3")
            .UID("p4.3")
            .Node("node4")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("p4.4")
            .UID("p4.4")
            .Node("node4")
            .Priority(negPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": ["node1"],
    },
    {
        "name": "TestSelectBestCandidate/same priority, same number of victims, different start time for each node's pod",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime3)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime3)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
        ],
        "expected": ["node2"],
    },
    {
        "name": "TestSelectBestCandidate/same priority, same number of victims, different start time for all pods",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime4)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime5)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime3)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime6)
            .Obj(),
        ],
        "expected": ["node3"],
    },
    {
        "name": "TestSelectBestCandidate/different priority, same number of victims, different start time for all pods",
        "registerPlugin": tf.RegisterPluginAsExtensions(
            noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"
        ),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p").UID("p").Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("p1.1")
            .UID("p1.1")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime4)
            .Obj(),
            st.MakePod()
            .Name("p1.2")
            .UID("p1.2")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("p2.1")
            .UID("p2.1")
            .Node("node2")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime6)
            .Obj(),
            st.MakePod()
            .Name("p2.2")
            .UID("p2.2")
            .Node("node2")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
            st.MakePod()
            .Name("p3.1")
            .UID("p3.1")
            .Node("node3")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime3)
            .Obj(),
            st.MakePod()
            .Name("p3.2")
            .UID("p3.2")
            .Node("node3")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime5)
            .Obj(),
        ],
        "expected": ["node2"],
    },
]


@pytest.mark.parametrize("tt", cases(TestSelectBestCandidate))
def test_select_best_candidate(tt: dict[str, Any]) -> None:
    nodes = [st.MakeNode().Name(nodeName).Capacity(veryLargeRes).Obj() for nodeName in tt["nodeNames"]]
    cluster = snapshot(tt["pods"], nodes)
    fw = new_framework(
        [
            tt["registerPlugin"],
            tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
            tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
        ]
    )
    handle = FakeHandle(fw, cluster)
    nodeInfos = list(cluster.table.ordered_rows().tolist())
    pl = DefaultPreemption(getDefaultDefaultPreemptionArgs())
    pl.offset_rand = getOffsetRand()
    offset, numCandidates = pl.get_offset_and_num_candidates(len(nodeInfos))
    candidates = pl.evaluator(pod_info(tt["pod"]), cluster, handle, []).dry_run(
        nodeInfos, offset, numCandidates, {}
    )
    s = pick_one_node_for_preemption(candidates)
    assert s is not None and s.node, f"expected any node in {tt['expected']}, but candidate is missing"
    assert s.node in tt["expected"]


# ---- TestCustomSelection -------------------------------------------------------------------


def SelectCandidate(candidates: list[Candidate]) -> Candidate | None:  # noqa: N802
    """Evaluator.SelectCandidate: none, the only one, or pickOneNodeForPreemption's choice."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    return pick_one_node_for_preemption(candidates)


# The Go test's IsEligiblePodFuncs over DefaultPreemption.is_eligible_victim (a pod, or under
# GenericWorkload a Victim unit: Pods() above).


def victimLabelsAreEligible(key: str, val: str) -> IsEligibleVictim:  # noqa: N802
    def eligible(nodeInfo: NodeInfo, victim: Any, preemptor: PodInfo) -> bool:
        for pod in Pods(victim):
            pval = pod.labels.get(key)
            if pval is None:
                return False
            if pval != val:
                return False
        return True

    return eligible


def nodeNameIsEligible(name: str) -> IsEligibleVictim:  # noqa: N802
    def eligible(nodeInfo: NodeInfo, victim: Any, preemptor: PodInfo) -> bool:
        return nodeInfo.name == name

    return eligible


def priorityBelowThresholdCannotPreempt(minPreempting: int) -> IsEligibleVictim:  # noqa: N802, N803
    def eligible(nodeInfo: NodeInfo, victim: Any, preemptor: PodInfo) -> bool:
        return preemptor.priority >= minPreempting

    return eligible


def priorityAboveThresholdCannotBePreempted(maxPreemptible: int) -> IsEligibleVictim:  # noqa: N802, N803
    def eligible(nodeInfo: NodeInfo, victim: Any, preemptor: PodInfo) -> bool:
        return victim.priority <= maxPreemptible

    return eligible


TestCustomSelection = [
    {
        "name": "TestCustomSelection/filter for matching pod label: high priority",
        "eligiblePods": victimLabelsAreEligible("preemptible", "yes"),
        "nodeNames": ["node1", "node2", "node3", "node4"],
        "pod": st.MakePod().Name("p1").UID("p1").Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Label("preemptible", "no")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Label("preemptible", "yes")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Label("preemptible", "yes")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node4")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {"node2": ["v2"], "node3": ["v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching pod label: mid priority",
        "eligiblePods": victimLabelsAreEligible("preemptible", "yes"),
        "nodeNames": ["node1", "node2", "node3", "node4"],
        "pod": st.MakePod().Name("p2").UID("p2").Priority(midPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Label("preemptible", "no")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Label("preemptible", "yes")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Label("preemptible", "yes")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node4")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {"node3": ["v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching pod label: low priority",
        "eligiblePods": victimLabelsAreEligible("preemptible", "yes"),
        "nodeNames": ["node1", "node2", "node3", "node4"],
        "pod": st.MakePod().Name("p3").UID("p3").Priority(lowPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Label("preemptible", "no")
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Label("preemptible", "yes")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Label("preemptible", "yes")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node4")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {},
    },
    {
        "name": "TestCustomSelection/filter for matching victim node: high priority",
        "eligiblePods": nodeNameIsEligible("node1"),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p3").UID("p3").Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v5")
            .UID("v5")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {"node1": ["v2", "v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching victim node: mid priority",
        "eligiblePods": nodeNameIsEligible("node1"),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p3").UID("p3").Priority(midPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v5")
            .UID("v5")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {"node1": ["v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching victim node: low priority",
        "eligiblePods": nodeNameIsEligible("node1"),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p3").UID("p3").Priority(lowPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node1")
            .Priority(midPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v4")
            .UID("v4")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v5")
            .UID("v5")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "expected": {},
    },
    {
        "name": "TestCustomSelection/only pods at or above specified priority can preempted: high priority",
        "eligiblePods": priorityBelowThresholdCannotPreempt(highPriority),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p1").UID("p1").Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        # highPriority can preempt anything, but not other highPriority
        "expected": {"node2": ["v2"], "node3": ["v3"]},
    },
    {
        "name": "TestCustomSelection/only pods at or above specified priority can preempted: mid priority",
        "eligiblePods": priorityBelowThresholdCannotPreempt(highPriority),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p2").UID("p2").Priority(midPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        # midPriority can't preempt anything
        "expected": {},
    },
    {
        "name": "TestCustomSelection/only pods at or below specified priority can be preempted: high priority",
        "eligiblePods": priorityAboveThresholdCannotBePreempted(midPriority),
        "nodeNames": ["node1", "node2", "node3"],
        "pod": st.MakePod().Name("p1").UID("p1").Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(highPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node2")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node3")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        # the lowPriority and midPriority pods can be preempted but not the highPriority pod
        "expected": {"node2": ["v2"], "node3": ["v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching pod group: all affected nodes eligible",
        "eligiblePods": victimLabelsAreEligible("preemptible", "yes"),
        "nodeNames": ["node1", "node2"],
        "pod": st.MakePod()
        .Name("p1")
        .UID("p1")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("preemptible", "yes")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node2")
            .Label("preemptible", "yes")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).DisruptionModeAll().Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        "expected": {"node1": ["v1", "v2"], "node2": ["v1", "v2"]},
    },
    {
        "name": "TestCustomSelection/filter for matching pod group: one node ineligible rejects entire pod group",
        "eligiblePods": nodeNameIsEligible("node1"),
        "nodeNames": ["node1", "node2"],
        "pod": st.MakePod()
        .Name("p1")
        .UID("p1")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node2")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).DisruptionModeAll().Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        "expected": {"node1": ["v3"]},
    },
    {
        "name": "TestCustomSelection/filter for matching composite pod group: all affected nodes eligible",
        "eligiblePods": victimLabelsAreEligible("preemptible", "yes"),
        "nodeNames": ["node1", "node2"],
        "pod": st.MakePod()
        .Name("p1")
        .UID("p1")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Label("preemptible", "yes")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node2")
            .Label("preemptible", "yes")
            .PodGroupName("pg2")
            .Priority(lowPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .UID("pg1")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePodGroup()
            .Name("pg2")
            .UID("pg2")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup()
            .Name("cpg1")
            .UID("cpg1")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Priority(lowPriority)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "expected": {"node1": ["v1", "v2"], "node2": ["v1", "v2"]},
    },
    {
        "name": "TestCustomSelection/filter for matching composite pod group: one node ineligible rejects entire composite pod group",
        "eligiblePods": nodeNameIsEligible("node1"),
        "nodeNames": ["node1", "node2"],
        "pod": st.MakePod()
        .Name("p1")
        .UID("p1")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node2")
            .PodGroupName("pg2")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Priority(midPriority)
            .Req(largeRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .UID("pg1")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePodGroup()
            .Name("pg2")
            .UID("pg2")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup()
            .Name("cpg1")
            .UID("cpg1")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Priority(lowPriority)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "expected": {"node1": ["v3"]},
    },
]


def _framework_with_fit() -> Any:
    return new_framework(
        [
            tf.RegisterPluginAsExtensions(noderesources.Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
            tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
            tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
        ]
    )


@pytest.mark.parametrize("tt", cases(TestCustomSelection))
def test_custom_selection(tt: dict[str, Any]) -> None:
    nodes = [st.MakeNode().Name(nodeName).Capacity(veryLargeRes).Obj() for nodeName in tt["nodeNames"]]
    cluster = snapshot(tt["pods"], nodes, *(tt.get("podGroups") or []))
    handle = FakeHandle(_framework_with_fit(), cluster)
    nodeInfos = cluster.table.ordered_rows().tolist()
    pl = DefaultPreemption(getDefaultDefaultPreemptionArgs(), gates_of(tt.get("features")))
    # Override eligibility logic
    if tt.get("eligiblePods") is not None:
        pl.is_eligible_victim = tt["eligiblePods"]
    offset, numCandidates = pl.get_offset_and_num_candidates(len(nodeInfos))
    candidates = pl.evaluator(pod_info(tt["pod"]), cluster, handle, []).dry_run(
        nodeInfos, offset, numCandidates, {}
    )
    # check that the candidates match what's expected
    assert len(tt["expected"]) == len(candidates), (tt["expected"], [c.node for c in candidates])
    while candidates:
        selected = SelectCandidate(candidates)
        assert selected is not None
        assert selected.node in tt["expected"], (
            f"got unexpected candidate {selected.node}, expected {tt['expected']}"
        )
        expectVictims = tt["expected"][selected.node]
        gotVictims = sorted(p.name for p in selected.victims)
        assert gotVictims == sorted(expectVictims), f"unexpected victims on node {selected.node}"
        # remove selected from candidates
        candidates = [c for c in candidates if c.node != selected.node]


# ---- TestCustomOrdering --------------------------------------------------------------------

# Two arbitrary examples of custom selection ordering to check that they behave as expected (over
# DefaultPreemption.more_important_victim: pods, or Victim units under GenericWorkload). The Go functions
# sort each victim's pods in place first; here each compares over its sorted copy.


def orderByOldestStart(pod1: PodInfo, pod2: PodInfo) -> bool:  # noqa: N802
    # util.GetPodStartTime(pod1).Before(util.GetPodStartTime(pod2))
    return start_time(pod1) < start_time(pod2)


def _by_start(vi: Any) -> list[PodInfo]:
    return sorted(Pods(vi), key=start_time)


def _by_name(vi: Any) -> list[PodInfo]:
    return sorted(Pods(vi), key=lambda p: p.name)


def orderByOldestStartVictim(vi1: Any, vi2: Any) -> bool:  # noqa: N802
    return orderByOldestStart(_by_start(vi1)[0], _by_start(vi2)[0])


def orderByPodNameVictim(vi1: Any, vi2: Any) -> bool:  # noqa: N802
    return _by_name(vi1)[0].name < _by_name(vi2)[0].name


def orderByStandaloneOverPodGroupVictim(vi1: Any, vi2: Any) -> bool:  # noqa: N802
    if IsGroup(vi1) != IsGroup(vi2):
        return not IsGroup(vi1)
    return more_important_victim(vi1, vi2)


def orderBySmallerPodGroupOverLargerVictim(vi1: Any, vi2: Any) -> bool:  # noqa: N802
    if IsGroup(vi1) and IsGroup(vi2) and len(Pods(vi1)) != len(Pods(vi2)):
        return len(Pods(vi1)) < len(Pods(vi2))
    return more_important_victim(vi1, vi2)


def orderByPodGroupNameVictim(vi1: Any, vi2: Any) -> bool:  # noqa: N802
    if IsGroup(vi1) and IsGroup(vi2):
        pg1, pg2 = _by_name(vi1)[0].pod_group, _by_name(vi2)[0].pod_group
        if pg1 and pg2 and pg1 != pg2:
            return pg1 < pg2
    return more_important_victim(vi1, vi2)

TestCustomOrdering = [
    {
        "name": "TestCustomOrdering/select newest pods",
        "orderVictims": orderByOldestStartVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod().Name("p2").UID("p2").Priority(highPriority).Req(largeRes).Obj(),
        # size victims to require at least two to be preempted
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime2)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        # the two newest pods (v1, v3) are selected; v2 (oldest) is reprieved
        "expectedPods": ["v3", "v1"],
    },
    {
        "name": "TestCustomOrdering/select alphabetically-last pods",
        "orderVictims": orderByPodNameVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod().Name("p2").UID("p2").Priority(highPriority).Req(largeRes).Obj(),
        # size victims to require at least two to be preempted
        "pods": [
            st.MakePod()
            .Name("foo")
            .UID("v1")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("bar")
            .UID("v2")
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("baz")
            .UID("v3")
            .Node("node1")
            .Priority(midPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        # the last pods in alphabetic order are selected, despite one with higher priority
        "expectedPods": ["baz", "foo"],
    },
    {
        "name": "TestCustomOrdering/select pod group over standalone pod due to custom ordering",
        "orderVictims": orderByStandaloneOverPodGroupVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod()
        .Name("p2")
        .UID("p2")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).DisruptionModeAll().Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        # v1 (standalone) is reprieved because it is more important than pg1 in this custom ordering; pg1 pods (v2, v3) are selected
        "expectedPods": ["v2", "v3"],
    },
    {
        "name": "TestCustomOrdering/select larger pod group over smaller pod group due to custom ordering",
        "orderVictims": orderBySmallerPodGroupOverLargerVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod()
        .Name("p2")
        .UID("p2")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-small")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-large")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-large")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg-small")
            .UID("pg-small")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Obj(),
            st.MakePodGroup()
            .Name("pg-large")
            .UID("pg-large")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        # pg-small is reprieved because smaller groups are more important in this custom ordering; pg-large pods (v2, v3) are selected
        "expectedPods": ["v2", "v3"],
    },
    {
        "name": "TestCustomOrdering/select pod group by name alphabetically due to custom ordering",
        "orderVictims": orderByPodGroupNameVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod()
        .Name("p2")
        .UID("p2")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-a")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime1)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-z")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg-a")
            .UID("pg-a")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Obj(),
            st.MakePodGroup()
            .Name("pg-z")
            .UID("pg-z")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True),
        # pg-a is reprieved because it is alphabetically earlier; pg-z pod (v2) is selected
        "expectedPods": ["v2"],
    },
    {
        "name": "TestCustomOrdering/select composite pod group over standalone pod due to custom ordering",
        "orderVictims": orderByStandaloneOverPodGroupVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod()
        .Name("p2")
        .UID("p2")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .Priority(lowPriority)
            .Req(mediumRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg2")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg1")
            .UID("pg1")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
            st.MakePodGroup()
            .Name("pg2")
            .UID("pg2")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg1")
            .Priority(lowPriority)
            .Obj(),
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup()
            .Name("cpg1")
            .UID("cpg1")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Priority(lowPriority)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "expectedPods": ["v2", "v3"],
    },
    {
        "name": "TestCustomOrdering/select larger composite pod group over smaller composite pod group due to custom ordering",
        "orderVictims": orderBySmallerPodGroupOverLargerVictim,
        "nodeNames": ["node1"],
        "preemptor": st.MakePod()
        .Name("p2")
        .UID("p2")
        .Namespace(v1.NamespaceDefault)
        .Priority(highPriority)
        .Req(largeRes)
        .Obj(),
        "pods": [
            st.MakePod()
            .Name("v1")
            .UID("v1")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-small")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v2")
            .UID("v2")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-large1")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
            st.MakePod()
            .Name("v3")
            .UID("v3")
            .Namespace(v1.NamespaceDefault)
            .Node("node1")
            .PodGroupName("pg-large2")
            .Priority(lowPriority)
            .Req(smallRes)
            .StartTime(epochTime)
            .Obj(),
        ],
        "podGroups": [
            st.MakePodGroup()
            .Name("pg-small")
            .UID("pg-small")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg-small")
            .Priority(lowPriority)
            .Obj(),
            st.MakePodGroup()
            .Name("pg-large1")
            .UID("pg-large1")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg-large")
            .Priority(lowPriority)
            .Obj(),
            st.MakePodGroup()
            .Name("pg-large2")
            .UID("pg-large2")
            .Namespace(v1.NamespaceDefault)
            .ParentCompositePodGroup("cpg-large")
            .Priority(lowPriority)
            .Obj(),
        ],
        "compositePodGroups": [
            st.MakeCompositePodGroup()
            .Name("cpg-small")
            .UID("cpg-small")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Priority(lowPriority)
            .Obj(),
            st.MakeCompositePodGroup()
            .Name("cpg-large")
            .UID("cpg-large")
            .Namespace(v1.NamespaceDefault)
            .DisruptionModeAll()
            .Priority(lowPriority)
            .Obj(),
        ],
        "features": feature.Features(EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "expectedPods": ["v2", "v3"],
    },
]


@pytest.mark.parametrize("tt", cases(TestCustomOrdering))
def test_custom_ordering(tt: dict[str, Any]) -> None:
    nodes = [st.MakeNode().Name(nodeName).Capacity(veryLargeRes).Obj() for nodeName in tt["nodeNames"]]
    cluster = snapshot(tt["pods"], nodes, *(tt.get("podGroups") or []))
    handle = FakeHandle(_framework_with_fit(), cluster)
    nodeInfos = cluster.table.ordered_rows().tolist()
    pl = DefaultPreemption(getDefaultDefaultPreemptionArgs(), gates_of(tt.get("features")))
    # Override ordering logic
    if tt.get("orderVictims") is not None:
        pl.more_important_victim = tt["orderVictims"]
    offset, numCandidates = pl.get_offset_and_num_candidates(len(nodeInfos))
    candidates = pl.evaluator(pod_info(tt["preemptor"]), cluster, handle, []).dry_run(
        nodeInfos, offset, numCandidates, {}
    )
    assert len(candidates) == 1, f"expected exactly one node but got {candidates}"
    podNames = [p.name for p in candidates[0].victims]
    # For PodGroups, the order of pods within a group is indeterminate (ScheduledPods() is a map upstream).
    # For standalone pods, MoreImportantVictim establishes a deterministic order that must be preserved.
    if tt.get("podGroups"):
        assert sorted(podNames) == sorted(tt["expectedPods"])
    else:
        assert podNames == tt["expectedPods"]


# ---- the customization points through PostFilter (kubeberth's public API) ---------------------


class TeamPreemption(DefaultPreemption):
    """A preemption plugin built on DefaultPreemption: victims only from the preemptor's team, the newest
    pods the most important (kept first)."""

    name = "TeamPreemption"

    def is_eligible_victim(self, node: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        return victim.labels.get("team") == preemptor.labels.get("team")

    def more_important_victim(self, a: PodInfo, b: PodInfo) -> bool:
        return start_time(a) > start_time(b)


def test_subclass_chooses_eligible_victims_and_their_order() -> None:
    nodes = [make_node("n1", cpu="4"), make_node("n2", cpu="4")]
    pods = [
        placed("red", "3", 0, "n1", labels={"team": "red"}),
        placed("blue-old", "2", 0, "n2", start="2026-01-01T00:00:00Z", labels={"team": "blue"}),
        placed("blue-new", "2", 0, "n2", start="2026-01-01T00:00:01Z", labels={"team": "blue"}),
    ]
    preemptor = placed("high", "2", 10, labels={"team": "blue"})
    result, handle = attempt(setup(nodes, pods), preemptor, plugin=TeamPreemption())
    assert isinstance(result, PostFilterResult) and result.nominated_node == "n2"
    assert handle.deleted == ["blue-old"]  # blue-new, the most important here, is reprieved
    # DefaultPreemption: one victim either way (red on n1, or blue-new with blue-old kept on n2); red, not
    # started, is the later start, so n1 wins.
    result, handle = attempt(setup(nodes, pods), preemptor)
    assert handle.deleted == ["red"]


def test_terminating_ineligible_pods_do_not_block_preempting_again() -> None:
    low = make_pod("low", "3", uid="low", nodeName="n1", priority=0, labels={"team": "red"})
    low["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    low["status"] = {
        "phase": "Running",
        "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}],
    }
    cluster = setup([make_node("n1", cpu="4")], [PodInfo.from_dict(low)])
    high = make_pod("high", "2", uid="high", priority=10, labels={"team": "blue"})
    high["status"]["nominatedNodeName"] = "n1"
    plugin = TeamPreemption()
    assert plugin.eligible(PodInfo.from_dict(high), cluster, Diagnosis(num_all_nodes=1)) == (True, "")
    assert DefaultPreemption().eligible(PodInfo.from_dict(high), cluster, Diagnosis(num_all_nodes=1))[0] is False

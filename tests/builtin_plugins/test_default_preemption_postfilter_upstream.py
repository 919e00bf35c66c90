"""DefaultPreemption: kube-scheduler v1.37.2's default_preemption_test.go TestPostFilter, TestPreempt and
TestPreEnqueue, case by case, with the plugin over the real framework, a real embedded cluster backend (victims
are marked DisruptionTarget and deleted there) and real HTTP extenders on loopback (tests/extender_server.py).

Excluded cases (PodGroup preemption, the deferred-resize alpha gate, PreFilterExtensions errors) are listed in
upstream_unported.py. The Go test runs every case with SchedulerAsyncAPICalls on and off; kubeberth's API calls
have one path, so each case runs once (TestPreempt still runs with SchedulerAsyncPreemption on and off).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import numpy as np
import pytest
import st
from extender_server import ExtenderServer, Policy
from kubeberth import Code, CycleState, Diagnosis, FeatureGates, PostFilterResult, Status
from kubeberth.api.placement import PodGroupInfo, ProposedAssignment
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.builtin_plugins.default_preemption import DefaultPreemption
from kubeberth.builtin_plugins.default_preemption.plugin import Preempted
from kubeberth.cache.podinfo import PodInfo
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.handle import FrameworkHandle
from st import GoStatus, fwk, v1
from upstream import cases, pod_info, snapshot

negPriority, lowPriority, midPriority, highPriority, veryHighPriority = -100, 0, 100, 1000, 10000
smallRes = {v1.ResourceCPU: "100m", v1.ResourceMemory: "100"}
mediumRes = {v1.ResourceCPU: "200m", v1.ResourceMemory: "200"}
largeRes = {v1.ResourceCPU: "300m", v1.ResourceMemory: "300"}
veryLargeRes = {v1.ResourceCPU: "500m", v1.ResourceMemory: "500"}
onePodRes = {v1.ResourcePods: "1"}
nodeRes = {v1.ResourceCPU: "200m", v1.ResourceMemory: "400"}
LabelKeyIsViolatingPDB = "test.kubernetes.io/is-violating-pdb"
LabelValueViolatingPDB = "violating"
LabelValueNonViolatingPDB = "non-violating"
v1.NamespaceDefault = "default"  # type: ignore[attr-defined]
v1.PodResizePending = "PodResizePending"  # type: ignore[attr-defined]
v1.ConditionTrue = "True"  # type: ignore[attr-defined]
v1.PodReasonDeferred = "Deferred"  # type: ignore[attr-defined]
math.MaxInt32 = 2**31 - 1  # type: ignore[attr-defined]


class _Unported:
    """Names the Go tables use only in excluded cases (custom plugins, PodGroups): never evaluated."""

    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: self

    def __getitem__(self, key: Any) -> Any:
        return self


tf_unported = _Unported()
newTestPlugin = newSkipOnDeferredFilterPlugin = tf_unported


def newPGInfo(pg: dict[str, Any], *pods: dict[str, Any]) -> PodGroupInfo:  # noqa: N802
    """framework.PodGroupInfo of a standalone PodGroup."""
    meta = pg["metadata"]
    return PodGroupInfo(meta.get("namespace", ""), meta["name"], pg, tuple(pod_info(p) for p in pods))


def newCPGInfo(*args: Any) -> Any:
    return _Unported()


class feature:
    """pkg/scheduler/framework/plugins/feature: the plugins' view of the feature gates."""

    @staticmethod
    def Features(**enabled: bool) -> dict[str, bool]:
        return enabled


_GATES = {
    "EnableAsyncPreemption": "SchedulerAsyncPreemption",
    "EnableGenericWorkload": "GenericWorkload",
    "EnableTopologyAwareWorkloadScheduling": "TopologyAwareWorkloadScheduling",
    "EnableCompositePodGroup": "CompositePodGroup",
    "EnableInPlacePodVerticalScalingSchedulerPreemption": "InPlacePodVerticalScalingSchedulerPreemption",
}


def gates_of(features: dict[str, bool] | None) -> FeatureGates:
    """feature.Features as the process's gates: a field the Go struct leaves unset is false."""
    features = features or {}
    overrides = {"SchedulerAsyncPreemption": features.get("EnableAsyncPreemption", False)}
    overrides.update({_GATES[k]: True for k, on in features.items() if on})
    return FeatureGates(overrides)


class NodeToStatus:
    """framework.NodeToStatus: per-node statuses, and the status of nodes absent from the map."""

    def __init__(self, statuses: dict[str, GoStatus], absent: GoStatus) -> None:
        self.statuses, self.absent = statuses, absent

    def diagnosis(self, table: Any, num_nodes: int) -> Diagnosis:
        """The same statuses as a kubeberth Diagnosis; absent nodes must be UnschedulableAndUnresolvable,
        which a Diagnosis reads absent rows as (neither rejected-but-resolvable nor candidates)."""
        assert self.absent.code == fwk.UnschedulableAndUnresolvable
        diagnosis = Diagnosis(num_all_nodes=num_nodes)
        for name, status in self.statuses.items():
            rows = np.asarray([table.row_of[name]], dtype=np.int64)
            diagnosis.add("", status.reasons[0] if status.reasons else "", rows, status.code)
        return diagnosis


class framework:
    """kube-scheduler's framework package: the names the tables use."""

    @staticmethod
    def NewNodeToStatus(statuses: dict[str, GoStatus], absent: GoStatus) -> NodeToStatus:
        return NodeToStatus(statuses, absent)

    @staticmethod
    def NewDefaultNodeToStatus() -> NodeToStatus:
        return NodeToStatus({}, fwk.NewStatus(fwk.UnschedulableAndUnresolvable))

    @staticmethod
    def NewPostFilterResultWithNominatedNode(name: str) -> str:
        return name


# ---- tf.FakeExtender over a real HTTP extender ---------------------------------------------
Predicate = Callable[[dict[str, Any], str], "GoStatus"]


class tf:
    """pkg/scheduler/testing/framework: FakeExtender and its predicates, plus the plugin registrations."""

    @staticmethod
    def ErrorPredicateExtender(pod: dict[str, Any], node: str) -> GoStatus:
        return fwk.NewStatus(fwk.Error, "some error")

    @staticmethod
    def FalsePredicateExtender(pod: dict[str, Any], node: str) -> GoStatus:
        return fwk.NewStatus(fwk.Unschedulable, f'pod is unschedulable on the node "{node}"')

    @staticmethod
    def TruePredicateExtender(pod: dict[str, Any], node: str) -> GoStatus:
        return fwk.NewStatus(fwk.Success)

    @staticmethod
    def Node1PredicateExtender(pod: dict[str, Any], node: str) -> GoStatus:
        if node == "node1":
            return fwk.NewStatus(fwk.Success)
        return fwk.NewStatus(fwk.Unschedulable, f'node "{node}" is not allowed')

    @staticmethod
    def FakeExtender(ExtenderName: str = "", Predicates: list[Predicate] | None = None, Ignorable: bool = False,
                     UnInterested: bool = False) -> dict[str, Any]:
        return {"name": ExtenderName, "predicates": Predicates or [], "ignorable": Ignorable,
                "uninterested": UnInterested}

    @staticmethod
    def RegisterPluginAsExtensions(name: str, *args: Any) -> str:
        return name


def _fits(predicates: list[Predicate], pod: dict[str, Any], node: str) -> bool:
    """FakeExtender.runPredicate on a node that is not cache capable: every predicate must pass."""
    return all(p(pod, node).code == fwk.Success for p in predicates)


@contextmanager
def serving(extenders: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Each FakeExtender as a real HTTP extender with a preemptVerb; `extenders:` entries in order.

    An ErrorPredicateExtender answers HTTP 500 (an error, as the extender protocol reports one); UnInterested is managedResources the pods never ask for."""
    with ExitStack() as stack:
        config = []
        for ext in extenders:
            preds = ext["predicates"]
            failing = any(p(None, "node1").code == fwk.Error for p in preds)  # type: ignore[arg-type]
            server = stack.enter_context(
                ExtenderServer(Policy(preempt_fits=lambda pod, node, preds=preds: _fits(preds, pod, node)),
                               mode="broken" if failing else "normal")
            )
            entry: dict[str, Any] = {"urlPrefix": server.url, "preemptVerb": "preempt", "weight": 0,
                                     "ignorable": ext["ignorable"]}
            if ext["uninterested"]:
                entry["managedResources"] = [{"name": "example.com/not-requested"}]
            config.append(entry)
        yield config


# ---- the framework under test ------------------------------------------------------------------
def new_framework(plugins: list[str], extenders: list[dict[str, Any]] | None = None,
                  gates: FeatureGates | None = None) -> Any:
    profile = {"schedulerName": "default-scheduler",
               "plugins": {"multiPoint": {"enabled": [{"name": n} for n in plugins], "disabled": [{"name": "*"}]}}}
    config = parse_configuration({"profiles": [profile], "extenders": extenders or []})
    return build_generation(config=config, feature_gates=gates or FeatureGates()).default_profile


class AsyncHandle(FrameworkHandle):
    """The runtime's Handle over an embedded cluster; run_async's work runs on a real thread and its `then`
    on the test's thread once `finish_async` is called (the scheduling loop's part)."""

    def __init__(self, fw: Any, cluster: Any, backend: EmbeddedCluster) -> None:
        super().__init__(fw, backend, cluster, lambda: 0.0, {}, None, None, self._spawn)
        self._running: list[tuple[threading.Thread, Callable[[], None] | None]] = []

    def _spawn(self, work: Callable[[], None], then: Callable[[], None] | None) -> None:
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        self._running.append((thread, then))

    def finish_async(self) -> None:
        while self._running:
            thread, then = self._running.pop(0)
            thread.join(timeout=30)
            assert not thread.is_alive(), "async preemption did not finish"
            if then is not None:
                then()


def status_and_result(got: PostFilterResult | Status) -> tuple[Status, str | None]:
    """kube-scheduler's (PostFilterResult, Status): the nominated node of the result, None for a nil result."""
    if isinstance(got, PostFilterResult):
        return got.status, got.nominated_node
    return got, None


# ---- TestPostFilter -------------------------------------------------------------------------
TestPostFilter = [
    {
        "name": "TestPostFilter/pod with higher priority can be made schedulable",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node1"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node1, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/pod with tied priority is still unschedulable",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."),
    },
    {
        "name": "TestPostFilter/preemption should respect filteredNodesStatuses",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    },
    {
        "name": "TestPostFilter/preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewDefaultNodeToStatus(),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    },
    {
        "name": "TestPostFilter/pod can be made schedulable on one node",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(midPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Priority(highPriority).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Priority(lowPriority).Node("node2").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
            st.MakeNode().Name("node2").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node2"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node2, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/pod can be made schedulable on minHighestPriority node",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(veryHighPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Label(LabelKeyIsViolatingPDB, LabelValueNonViolatingPDB).Namespace(v1.NamespaceDefault).Priority(highPriority).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Label(LabelKeyIsViolatingPDB, LabelValueViolatingPDB).Namespace(v1.NamespaceDefault).Priority(lowPriority).Node("node1").Obj(),
            st.MakePod().Name("p3").UID("p3").Label(LabelKeyIsViolatingPDB, LabelValueViolatingPDB).Namespace(v1.NamespaceDefault).Priority(midPriority).Node("node2").Obj(),
        ],
        "pdbs": [
            st.MakePDB().Name("violating-pdb").Namespace(v1.NamespaceDefault).MatchLabel(LabelKeyIsViolatingPDB, LabelValueViolatingPDB).MinAvailable("100%").Obj(),
            st.MakePDB().Name("non-violating-pdb").Namespace(v1.NamespaceDefault).MatchLabel(LabelKeyIsViolatingPDB, LabelValueNonViolatingPDB).MinAvailable("0").DisruptionsAllowed(math.MaxInt32).Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
            st.MakeNode().Name("node2").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node2"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node2, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/preemption result filtered out by extenders",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Node("node2").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
            st.MakeNode().Name("node2").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "extender": tf.FakeExtender(
            ExtenderName="FakeExtender1",
            Predicates=[tf.Node1PredicateExtender],
        ),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node1"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node1, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/no candidate nodes found, no enough resource after removing low priority pods",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Node("node2").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(nodeRes).Obj(),  # no enough CPU resource
            st.MakeNode().Name("node2").Capacity(nodeRes).Obj(),  # no enough CPU resource
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    },
    {
        "name": "TestPostFilter/no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Node("node2").Obj(),
            st.MakePod().Name("p3").UID("p3").Namespace(v1.NamespaceDefault).Node("node3").Priority(highPriority).Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),  # no pod will be preempted
            st.MakeNode().Name("node2").Capacity(nodeRes).Obj(),  # no enough CPU resource
            st.MakeNode().Name("node3").Capacity(onePodRes).Obj(),  # no pod will be preempted
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
            "node3": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."),
    },
    {
        "name": "TestPostFilter/no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Node("node2").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(nodeRes).Obj(),
            st.MakeNode().Name("node2").Capacity(nodeRes).Obj(),
            st.MakeNode().Name("node3").Capacity(nodeRes).Obj(),
            st.MakeNode().Name("node4").Capacity(nodeRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
            "node4": fwk.NewStatus(fwk.UnschedulableAndUnresolvable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."),
    },
    {
        "name": "TestPostFilter/only one node but failed with TestPlugin",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        # label the node with key as "error" so that the TestPlugin will fail with error.
        "nodes": [st.MakeNode().Name("node1").Capacity(largeRes).Label("error", "true").Obj()],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": None,
        "wantStatus": fwk.AsStatus("preemption: running RemovePod on PreFilter plugin \"test-plugin\": failed to remove pod: p"),
    },
    {
        "name": "TestPostFilter/one failed with TestPlugin and the other pass",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(largeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Node("node2").Req(mediumRes).Obj(),
        ],
        # even though node1 will fail with error but node2 will still be returned as a valid nominated node.
        "nodes": [
            st.MakeNode().Name("node1").Capacity(largeRes).Label("error", "true").Obj(),
            st.MakeNode().Name("node2").Capacity(largeRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
            "node2": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node2"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node2, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/pod with SchedulingGroup with GenericWorkload and TAS disabled should preempt",
        "pod": st.MakePod().Name("p-with-podgroup").PodGroupName("foo").Priority(highPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity(onePodRes).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "features": feature.Features(EnableGenericWorkload=False, EnableTopologyAwareWorkloadScheduling=False),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node1"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node1, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/deferred pod resize preemption success (mitigates double counting)",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
            v1.ResourceCPU: "200m",
            v1.ResourceMemory: "200",
        }).Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred).Obj(),
        "pods": [
            # Resizing pod itself is running on node1 with cached resource requests
            st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
            # Victim pod to preempt
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Priority(lowPriority).Node("node1").Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity({
                v1.ResourceCPU: "200m",
                v1.ResourceMemory: "200",
            }).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "features": feature.Features(
            EnableInPlacePodVerticalScalingSchedulerPreemption=True,
        ),
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node1"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node1, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/deferred pod resize preemption success (bypasses skipped filter plugins)",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
            v1.ResourceCPU: "200m",
            v1.ResourceMemory: "200",
        }).Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred).Obj(),
        "pods": [
            st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
            st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Priority(lowPriority).Node("node1").Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity({
                v1.ResourceCPU: "200m",
                v1.ResourceMemory: "200",
            }).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),
        "features": feature.Features(
            EnableInPlacePodVerticalScalingSchedulerPreemption=True,
        ),
        "registerPlugins": [
            tf.RegisterPluginAsExtensions("skip-on-deferred", newSkipOnDeferredFilterPlugin, "Filter", "PreFilter"),
        ],
        "wantResult": framework.NewPostFilterResultWithNominatedNode("node1"),
        "wantStatus": fwk.NewStatus(fwk.Success, "preemption: found a potential placement for pod on node node1, preempting 1 victims"),
    },
    {
        "name": "TestPostFilter/deferred pod resize preemption fails because victim search is isolated to host node",
        "pod": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
            v1.ResourceCPU: "200m",
            v1.ResourceMemory: "200",
        }).Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred).Obj(),
        "pods": [
            st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Node("node1").Priority(highPriority).Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
            # p2 is a low priority victim running on node2 (not the host node!)
            st.MakePod().Name("p2").UID("p2").Namespace(v1.NamespaceDefault).Priority(lowPriority).Node("node2").Req({
                v1.ResourceCPU: "100m",
                v1.ResourceMemory: "100",
            }).Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node1").Capacity({
                v1.ResourceCPU: "200m",
                v1.ResourceMemory: "200",
            }).Obj(),
            st.MakeNode().Name("node2").Capacity({
                v1.ResourceCPU: "200m",
                v1.ResourceMemory: "200",
            }).Obj(),
        ],
        "filteredNodesStatuses": framework.NewNodeToStatus({
            "node1": fwk.NewStatus(fwk.Unschedulable),
        }, fwk.NewStatus(fwk.UnschedulableAndUnresolvable)),  # node2 is absent, so it defaults to UnschedulableAndUnresolvable
        "features": feature.Features(
            EnableInPlacePodVerticalScalingSchedulerPreemption=True,
        ),
        "wantResult": framework.NewPostFilterResultWithNominatedNode(""),
        "wantStatus": fwk.NewStatus(fwk.Unschedulable, "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."),
    },
]

POST_FILTER_PLUGINS = ["PrioritySort", "NodeResourcesFit", "DefaultBinder"]


def run_post_filter(plugin: DefaultPreemption, fw: Any, preemptor: dict[str, Any], cluster: Any, handle: Any,
                    statuses: NodeToStatus) -> PostFilterResult | Status:
    """RunPreFilterPlugins into a fresh CycleState (must succeed), then PostFilter with the node statuses."""
    pod = pod_info(preemptor)
    table = cluster.table
    state = CycleState()
    status, _ = fw.run_pre_filter(state, pod, table.view(table.ordered_rows()), cluster, handle, None)
    assert status.ok, f"Unexpected PreFilter Status: {status}"
    return plugin.post_filter(state, pod, cluster, handle, statuses.diagnosis(table, len(table.row_of)))


@pytest.mark.parametrize("tt", cases(TestPostFilter))
def test_post_filter(tt: dict[str, Any]) -> None:
    gates = gates_of(tt.get("features"))
    cluster = snapshot(tt["pods"], tt["nodes"], *(tt.get("pdbs") or ()))
    backend = EmbeddedCluster([*tt["nodes"], *tt["pods"], tt["pod"], *(tt.get("pdbs") or ())])
    with serving([tt["extender"]] if tt.get("extender") else []) as extenders:
        fw = new_framework(POST_FILTER_PLUGINS, extenders, gates)
        handle = AsyncHandle(fw, cluster, backend)
        plugin = DefaultPreemption(feature_gates=gates)
        got = run_post_filter(plugin, fw, tt["pod"], cluster, handle, tt["filteredNodesStatuses"])
        handle.finish_async()
    status, result = status_and_result(got)
    want: GoStatus = tt["wantStatus"]
    if status.code == Code.ERROR:
        assert status.reasons == want.reasons
    else:
        assert (status.code, status.reasons) == (want.code, want.reasons)
    assert result == tt["wantResult"]


# ---- TestPreempt ---------------------------------------------------------------------------
nodeResourcesFitFunc = podTopologySpreadFunc = None
noderesources_Name, podtopologyspread_Name = "NodeResourcesFit", "PodTopologySpread"

TestPreempt = [
    {
        "name": "TestPreempt/basic preemption logic",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Node("node2").Priority(highPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3.1").UID("p3.1").Node("node3").Priority(midPriority).Req(mediumRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": framework.NewPostFilterResultWithNominatedNode("node1"),
        "expectedPods": ["p1.1", "p1.2"],
    },
    {
        "name": "TestPreempt/preemption for topology spread constraints",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Label("foo", "").Priority(highPriority)
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, st.MakeLabelSelector().Exists("foo").Obj(), None, None, None, None)
        .SpreadConstraint(1, "hostname", v1.DoNotSchedule, st.MakeLabelSelector().Exists("foo").Obj(), None, None, None, None)
        .Obj(),
        "pods": [
            st.MakePod().Name("p-a1").UID("p-a1").Namespace(v1.NamespaceDefault).Node("node-a").Label("foo", "").Priority(highPriority).Obj(),
            st.MakePod().Name("p-a2").UID("p-a2").Namespace(v1.NamespaceDefault).Node("node-a").Label("foo", "").Priority(highPriority).Obj(),
            st.MakePod().Name("p-b1").UID("p-b1").Namespace(v1.NamespaceDefault).Node("node-b").Label("foo", "").Priority(lowPriority).Obj(),
            st.MakePod().Name("p-x1").UID("p-x1").Namespace(v1.NamespaceDefault).Node("node-x").Label("foo", "").Priority(highPriority).Obj(),
            st.MakePod().Name("p-x2").UID("p-x2").Namespace(v1.NamespaceDefault).Node("node-x").Label("foo", "").Priority(highPriority).Obj(),
        ],
        "nodeNames": ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        "registerPlugin": tf.RegisterPluginAsExtensions(podtopologyspread_Name, podTopologySpreadFunc, "PreFilter", "Filter"),
        "want": framework.NewPostFilterResultWithNominatedNode("node-b"),
        "expectedPods": ["p-b1"],
    },
    {
        "name": "TestPreempt/Scheduler extenders allow only node1, otherwise node3 would have been chosen",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node3").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "extenders": [
            tf.FakeExtender(
                ExtenderName="FakeExtender1",
                Predicates=[tf.TruePredicateExtender],
            ),
            tf.FakeExtender(
                ExtenderName="FakeExtender2",
                Predicates=[tf.Node1PredicateExtender],
            ),
        ],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": framework.NewPostFilterResultWithNominatedNode("node1"),
        "expectedPods": ["p1.1", "p1.2"],
    },
    {
        "name": "TestPreempt/Scheduler extenders do not allow any preemption",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "extenders": [
            tf.FakeExtender(
                ExtenderName="FakeExtender1",
                Predicates=[tf.FalsePredicateExtender],
            ),
        ],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": None,
        "expectedPods": [],
    },
    {
        "name": "TestPreempt/One scheduler extender allows only node1, the other returns error but ignorable. Only node1 would be chosen",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "extenders": [
            tf.FakeExtender(
                Predicates=[tf.ErrorPredicateExtender],
                Ignorable=True,
                ExtenderName="FakeExtender1",
            ),
            tf.FakeExtender(
                Predicates=[tf.Node1PredicateExtender],
                ExtenderName="FakeExtender2",
            ),
        ],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": framework.NewPostFilterResultWithNominatedNode("node1"),
        "expectedPods": ["p1.1", "p1.2"],
    },
    {
        "name": "TestPreempt/One scheduler extender allows only node1, but it is not interested in given pod, otherwise node1 would have been chosen",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(midPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node2").Priority(midPriority).Req(largeRes).Obj(),
        ],
        "nodeNames": ["node1", "node2"],
        "extenders": [
            tf.FakeExtender(
                ExtenderName="FakeExtender1",
                Predicates=[tf.Node1PredicateExtender],
                UnInterested=True,
            ),
            tf.FakeExtender(
                ExtenderName="FakeExtender2",
                Predicates=[tf.TruePredicateExtender],
            ),
        ],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        # sum of priorities of all victims on node1 is larger than node2, node2 is chosen.
        "want": framework.NewPostFilterResultWithNominatedNode("node2"),
        "expectedPods": ["p2.1"],
    },
    {
        "name": "TestPreempt/no preempting in pod",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).PreemptionPolicy(v1.PreemptNever).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node2").Priority(highPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3.1").UID("p3.1").Namespace(v1.NamespaceDefault).Node("node3").Priority(midPriority).Req(mediumRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": None,
        "expectedPods": None,
    },
    {
        "name": "TestPreempt/PreemptionPolicy is nil",
        "preemptor": st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Req(veryLargeRes).Obj(),
        "pods": [
            st.MakePod().Name("p1.1").UID("p1.1").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p1.2").UID("p1.2").Namespace(v1.NamespaceDefault).Node("node1").Priority(lowPriority).Req(smallRes).Obj(),
            st.MakePod().Name("p2.1").UID("p2.1").Namespace(v1.NamespaceDefault).Node("node2").Priority(highPriority).Req(largeRes).Obj(),
            st.MakePod().Name("p3.1").UID("p3.1").Namespace(v1.NamespaceDefault).Node("node3").Priority(midPriority).Req(mediumRes).Obj(),
        ],
        "nodeNames": ["node1", "node2", "node3"],
        "registerPlugin": tf.RegisterPluginAsExtensions(noderesources_Name, nodeResourcesFitFunc, "Filter", "PreFilter"),
        "want": framework.NewPostFilterResultWithNominatedNode("node1"),
        "expectedPods": ["p1.1", "p1.2"],
    },
]

labelKeys = ["hostname", "zone", "region"]


def _terminating_or_gone(backend: EmbeddedCluster, pod: dict[str, Any]) -> bool:
    meta = pod["metadata"]
    now = backend.get("Pod", f"{meta.get('namespace') or 'default'}/{meta['name']}")
    return now is None or bool(now["metadata"].get("deletionTimestamp"))


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("test", cases(TestPreempt))
def test_preempt(test: dict[str, Any], async_preemption: bool) -> None:
    nodes = []
    for name in test["nodeNames"]:
        node = st.MakeNode().Name(name).Capacity(veryLargeRes).Obj()
        # Split node name by '/' to form labels in a format of
        # {"hostname": node.Name[0], "zone": node.Name[1], "region": node.Name[2]}
        node["metadata"]["labels"] = {labelKeys[i]: label for i, label in enumerate(name.split("/"))}
        node["metadata"]["name"] = node["metadata"]["labels"]["hostname"]
        nodes.append(node)
    test_pods = [copy_of(p) for p in test["pods"]]
    cluster = snapshot(test_pods, nodes)
    backend = EmbeddedCluster([*nodes, *test_pods, copy_of(test["preemptor"])])
    gates = gates_of(feature.Features(EnableAsyncPreemption=async_preemption))
    with serving(test.get("extenders") or []) as extenders:
        fw = new_framework(["PrioritySort", test["registerPlugin"], "DefaultBinder"], extenders, gates)
        handle = AsyncHandle(fw, cluster, backend)
        plugin = DefaultPreemption(feature_gates=gates)
        # so that these nodes are eligible for preemption, we set their status to Unschedulable.
        statuses = framework.NewNodeToStatus({n["metadata"]["name"]: fwk.NewStatus(fwk.Unschedulable) for n in nodes},
                                             fwk.NewStatus(fwk.UnschedulableAndUnresolvable))
        got = run_post_filter(plugin, fw, test["preemptor"], cluster, handle, statuses)
        status, res = status_and_result(got)
        assert status.ok or status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE), status
        assert res == test["want"]
        handle.finish_async()  # wait for the victims' preemption (async: off the scheduling thread)

    expected = test["expectedPods"] or []
    deleted = {p["metadata"]["name"] for p in test_pods if _terminating_or_gone(backend, p)}
    patched = {}
    for p in test_pods:
        now = backend.get("Pod", f"{p['metadata'].get('namespace') or 'default'}/{p['metadata']['name']}")
        conditions = [c for c in ((now or {}).get("status") or {}).get("conditions") or () if c["type"] == "DisruptionTarget"]
        if conditions:
            patched[p["metadata"]["name"]] = (now, conditions[0])
    assert len(deleted) == len(expected)
    assert sorted(patched) == sorted(deleted)
    # Make sure that the DisruptionTarget condition has been added to the pod status
    for patched_pod, condition in patched.values():
        scheduler_name = patched_pod["spec"].get("schedulerName", "")
        assert {k: condition.get(k) for k in ("type", "status", "reason", "message")} == {
            "type": "DisruptionTarget",
            "status": v1.ConditionTrue,  # type: ignore[attr-defined]
            "reason": "PreemptionByScheduler",
            "message": f"{scheduler_name}: preempting to accommodate a higher priority pod",
        }
    assert deleted <= set(expected)

    # Call preempt again (the deleted pods terminating, the preemptor nominated) and make sure it
    # doesn't preempt any more pods.
    preemptor = copy_of(test["preemptor"])
    if res:
        preemptor["status"]["nominatedNodeName"] = res
    for p in test_pods:
        if p["metadata"]["name"] in deleted:
            p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
            cluster.upsert_pod(PodInfo.from_dict(p))
    with serving(test.get("extenders") or []) as extenders:
        fw = new_framework(["PrioritySort", test["registerPlugin"], "DefaultBinder"], extenders, gates)
        handle = AsyncHandle(fw, cluster, backend)
        got = run_post_filter(plugin, fw, preemptor, cluster, handle, framework.NewDefaultNodeToStatus())
        handle.finish_async()
    status, res = status_and_result(got)
    assert status.ok or status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE), status
    assert {p["metadata"]["name"] for p in test_pods if _terminating_or_gone(backend, p)} == deleted


def copy_of(raw: dict[str, Any]) -> dict[str, Any]:
    import copy

    return copy.deepcopy(raw)


# ---- TestPreEnqueue ---------------------------------------------------------------------------
podP = st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()
podPOther = st.MakePod().Name("p_other").UID("p_other").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()

podPGroup1 = st.MakePod().Name("p").UID("p").Namespace(v1.NamespaceDefault).PodGroupName("pg1").Priority(highPriority).Obj()
podPOtherGroup1 = st.MakePod().Name("p_other").UID("p_other").Namespace(v1.NamespaceDefault).PodGroupName("pg1").Priority(highPriority).Obj()
podPOtherGroup2 = st.MakePod().Name("p_other").UID("p_other").Namespace(v1.NamespaceDefault).PodGroupName("pg2").Priority(highPriority).Obj()
podPOtherGroupMissing = st.MakePod().Name("p_other").UID("p_other").Namespace(v1.NamespaceDefault).PodGroupName("pg_missing").Priority(highPriority).Obj()

pg1 = st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()
pg2 = st.MakePodGroup().Name("pg2").UID("pg2").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()

pg1WithParentCpg1 = st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("cpg1").Priority(highPriority).Obj()
pg2WithParentCpg1 = st.MakePodGroup().Name("pg2").UID("pg2").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("cpg1").Priority(highPriority).Obj()
pg2WithParentCpg2 = st.MakePodGroup().Name("pg2").UID("pg2").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("cpg2").Priority(highPriority).Obj()
pg1WithParentMissing = st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("cpg_missing").Priority(highPriority).Obj()

cpg1 = st.MakeCompositePodGroup().Name("cpg1").UID("cpg1").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()
cpg2 = st.MakeCompositePodGroup().Name("cpg2").UID("cpg2").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()

rootCpg = st.MakeCompositePodGroup().Name("root-cpg").UID("root-cpg").Namespace(v1.NamespaceDefault).Priority(highPriority).Obj()
childCpg1 = st.MakeCompositePodGroup().Name("child-cpg1").UID("child-cpg1").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("root-cpg").Priority(highPriority).Obj()
childCpg2 = st.MakeCompositePodGroup().Name("child-cpg2").UID("child-cpg2").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("root-cpg").Priority(highPriority).Obj()
childCpgMissingRoot = st.MakeCompositePodGroup().Name("child-cpg-missing").UID("child-cpg-missing").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("missing-root").Priority(highPriority).Obj()

pg1WithNestedCpg = st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("child-cpg1").Priority(highPriority).Obj()
pg2WithNestedCpg = st.MakePodGroup().Name("pg2").UID("pg2").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("child-cpg2").Priority(highPriority).Obj()
pgWithIntermediateMissing = st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).ParentCompositePodGroup("child-cpg-missing").Priority(highPriority).Obj()

TestPreEnqueue = [
    {
        "name": "TestPreEnqueue/AsyncPreemption disabled, returns nil",
        "podToTriggerPreemption": podP,
        "podToCheck": podP,
        "features": feature.Features(EnableAsyncPreemption=False),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/AsyncPreemption enabled, same pod, returns UnschedulableAndUnresolvable",
        "podToTriggerPreemption": podP,
        "podToCheck": podP,
        "features": feature.Features(EnableAsyncPreemption=True),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished"),
    },
    {
        "name": "TestPreEnqueue/AsyncPreemption enabled, different pod, returns nil",
        "podToTriggerPreemption": podP,
        "podToCheck": podPOther,
        "features": feature.Features(EnableAsyncPreemption=True),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/GenericWorkload enabled, pod in same PodGroup, returns UnschedulableAndUnresolvable",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup1,
        "pgInfo": newPGInfo(pg1, podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod group to be finished"),
    },
    {
        "name": "TestPreEnqueue/GenericWorkload disabled, pod in same PodGroup, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup1,
        "pgInfo": newPGInfo(st.MakePodGroup().Name("pg1").UID("pg1").Namespace(v1.NamespaceDefault).Obj(), podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=False),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/GenericWorkload enabled, pod in different PodGroup, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup2,
        "pgInfo": newPGInfo(pg1, podPGroup1),
        "extraPgInfos": [newPGInfo(pg2)],
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/GenericWorkload enabled, pod group not found, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroupMissing,
        "pgInfo": newPGInfo(pg1, podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup but same root CompositePodGroup, returns UnschedulableAndUnresolvable",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup2,
        "pgInfo": newCPGInfo(cpg1, [
            newPGInfo(pg1WithParentCpg1, podPGroup1),
            newPGInfo(pg2WithParentCpg1),
        ], podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod group to be finished"),
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup and different root CompositePodGroup, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup2,
        "pgInfo": newCPGInfo(cpg1, [
            newPGInfo(pg1WithParentCpg1, podPGroup1),
        ], podPGroup1),
        "extraPgInfos": [
            newCPGInfo(cpg2, [
                newPGInfo(pg2WithParentCpg2),
            ]),
        ],
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup disabled, pod in different leaf PodGroup but same root CompositePodGroup, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup2,
        "pgInfo": newCPGInfo(cpg1, [
            newPGInfo(pg1WithParentCpg1, podPGroup1),
            newPGInfo(pg2WithParentCpg1),
        ], podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=False),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup enabled, parent CompositePodGroup is missing, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup1,
        "pgInfo": newPGInfo(pg1WithParentMissing, podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "wantStatus": None,
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup enabled, pod in different leaf PodGroup under multi-level CompositePodGroup hierarchy, returns UnschedulableAndUnresolvable",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup2,
        "pgInfo": newCPGInfo(rootCpg, [
            newCPGInfo(childCpg1, [
                newPGInfo(pg1WithNestedCpg, podPGroup1),
            ], podPGroup1),
            newCPGInfo(childCpg2, [
                newPGInfo(pg2WithNestedCpg),
            ]),
        ], podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod group to be finished"),
    },
    {
        "name": "TestPreEnqueue/CompositePodGroup enabled, intermediate parent CompositePodGroup missing, returns nil",
        "podToTriggerPreemption": podPGroup1,
        "podToCheck": podPOtherGroup1,
        "pgInfo": newCPGInfo(childCpgMissingRoot, [
            newPGInfo(pgWithIntermediateMissing, podPGroup1),
        ], podPGroup1),
        "features": feature.Features(EnableAsyncPreemption=True, EnableGenericWorkload=True, EnableCompositePodGroup=True),
        "wantStatus": None,
    },
]


@pytest.mark.parametrize("tt", cases(TestPreEnqueue))
def test_pre_enqueue(tt: dict[str, Any]) -> None:
    pods = [st.MakePod().Name("p1").UID("p1").Namespace(v1.NamespaceDefault).Node("node1").Obj()]
    filtered = framework.NewNodeToStatus({"node1": fwk.NewStatus(fwk.Unschedulable)},
                                         fwk.NewStatus(fwk.UnschedulableAndUnresolvable))
    nodes = [st.MakeNode().Name("node1").Capacity(onePodRes).Obj()]
    groups = [info.pod_group for info in [tt.get("pgInfo"), *(tt.get("extraPgInfos") or [])]
              if isinstance(info, PodGroupInfo)]
    cluster = snapshot(copy_of(pods), nodes, *groups)
    backend = EmbeddedCluster([*nodes, *copy_of(pods), copy_of(tt["podToTriggerPreemption"])])
    gates = gates_of(tt["features"])
    fw = new_framework(["PrioritySort", "NodeResourcesFit", "DefaultBinder"], gates=gates)
    handle = AsyncHandle(fw, cluster, backend)
    p = DefaultPreemption(feature_gates=gates)
    finish_preemption = threading.Event()

    def preempt_pod(victim: PodInfo, preemptor: PodInfo, node: str, handle: Any, pod_group: Any = None) -> Preempted:
        if gates.enabled("SchedulerAsyncPreemption"):
            assert finish_preemption.wait(timeout=30)
        return Preempted(False, Status.success())

    p.preempt_pod = preempt_pod
    # Trigger preemption. Given the custom preempt_pod, the async preemption does not finish until
    # finish_preemption is set.
    trigger = tt["podToTriggerPreemption"]
    if gates.enabled("GenericWorkload") and pod_info(trigger).pod_group and tt.get("pgInfo") is not None:

        def pgSchedulingFunc() -> tuple[list[ProposedAssignment], Status]:  # noqa: N802
            if not cluster.node_pods(cluster.table.row_of["node1"]):
                return [ProposedAssignment(pod_info(trigger), "node1", CycleState()),
                        ProposedAssignment(pod_info(tt["podToCheck"]), "node1", CycleState())], Status.success()
            return [], Status(Code.UNSCHEDULABLE, ("need to preempt",))

        p.pod_group_post_filter(CycleState(), tt["pgInfo"], pgSchedulingFunc, cluster, handle)
    else:
        run_post_filter(p, fw, trigger, cluster, handle, filtered)
    status = p.pre_enqueue(pod_info(tt["podToCheck"]), handle)
    finish_preemption.set()
    handle.finish_async()
    want = tt["wantStatus"]
    assert (None if status is None else (status.code, status.reasons)) == (None if want is None else (want.code, want.reasons))

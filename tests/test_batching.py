"""Opportunistic batching: kube-scheduler v1.37.2's framework/runtime/batch_test.go cases, ported.

The batch is driven as upstream's tests drive it (GetNodeHint / StoreScheduleResults with a
cycle count), over the real framework with upstream's test plugins: `batchTest` (a node holds at
most one pod whose uid starts with "b"), `configurableFilter` and `configurableScore` (PreScore
records the nodes it saw; NormalizeScore fails for a node PreScore did not see). The snapshot's
node lister is the embedded cluster's node table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from kubeberth import CycleState, NodeView, Status, hookimpl
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.batch import OpportunisticBatch, ScoredCandidates
from kubeberth.testing import SchedulerTester, make_node, make_pod
from kubeberth.testing.builders import pod_info

BLOCKING = "b"
NON_BLOCKING = "a"


def blocking_pod_id(suffix: str) -> str:
    return f"{BLOCKING}-{suffix}"


def non_blocking_pod_id(suffix: str) -> str:
    return f"{NON_BLOCKING}-{suffix}"


class BatchTest:
    """Each node can hold only one pod whose uid begins with the blocking prefix."""

    name = "batchTest"

    @hookimpl
    def filter_node(self, pod: PodInfo, node) -> Status | None:  # noqa: ANN001 - NodeInfo
        for other in node.pods:
            if pod.uid[0] == BLOCKING and other.uid[0] == BLOCKING:
                return Status.unschedulable("unsched")
        return None


class ConfigurableFilter:
    name = "configurableFilter"
    filter_err = False

    @hookimpl
    def filter(self, nodes: NodeView) -> Status | None:
        if self.filter_err:
            return Status.error("injected filter error")
        return None


_SEEN = "configurableScorePlugin/preScoreSeenNodes"


class ConfigurableScore:
    name = "configurableScore"
    score_value = 0
    pre_score_err = False
    score_err = False
    norm_err = False

    @hookimpl
    def pre_score(self, state: CycleState, nodes: NodeView) -> Status | None:
        if self.pre_score_err:
            return Status.error("injected prescore error")
        state[_SEEN] = set(nodes.names)
        return None

    @hookimpl
    def score(self, nodes: NodeView) -> np.ndarray | Status:
        if self.score_err:
            return Status.error("injected score error")
        return np.full(len(nodes), self.score_value, dtype=np.int64)

    @hookimpl
    def normalize_score(self, state: CycleState, nodes: NodeView, scores: np.ndarray) -> Status | None:
        if self.norm_err:
            return Status.error("injected normalize error")
        seen = state.get(_SEEN)
        if seen is None:
            return Status.error("NormalizeScore: missing PreScore state")
        for name in nodes.names:
            if name not in seen:
                return Status.error(f"NormalizeScore called for node {name!r} which was not passed to PreScore")
        return None


def new_batch_test_framework(
    score: bool = False, filter_: bool = False, generic_workload: bool = False
) -> tuple[SchedulerTester, OpportunisticBatch]:
    plugins: list[object] = [BatchTest]
    if filter_:
        plugins.append(ConfigurableFilter)
    if score:
        plugins.append((ConfigurableScore, 1))
    t = SchedulerTester(plugins)
    fw = t.framework
    batch = OpportunisticBatch(fw, t.cluster, t.scheduler.handle_for(fw), t.clock.now, generic_workload)
    return t, batch


def new_test_nodes(t: SchedulerTester, names: list[str] | None, raw: dict[str, list[int]] | None = None) -> ScoredCandidates | None:
    """upstream's newTestNodes: a list popped in the given order (rows of nodes not in the table are -1)."""
    if names is None:
        return None
    rows = np.asarray([t.cluster.table.row_of.get(n, -1) for n in names], dtype=np.int64)
    scores = {p: np.asarray(v, dtype=np.int64) for p, v in (raw or {}).items()}
    return ScoredCandidates(rows, np.asarray(names, dtype=object), scores, np.zeros(len(names), dtype=np.int64), -1)


def set_nodes(t: SchedulerTester, nodes: dict[str, list[PodInfo]]) -> None:
    """The snapshot's nodes (lister.nodes = ...): exactly these nodes, holding these pods."""
    for name in list(t.cluster.table.row_of):
        if name not in nodes:
            t.delete("Node", name)
    for name in nodes:
        if name not in t.cluster.table.row_of:
            t.add(make_node(name, "4", "8Gi"))
    t.sync()
    for name, pods in nodes.items():
        for pod in pods:
            t.cluster.assume(pod, name)


def a_pod(name: str, uid: str, nominated: str = "") -> PodInfo:
    obj = make_pod(name, uid=uid)
    if nominated:
        obj["status"]["nominatedNodeName"] = nominated
    return pod_info(obj)


@dataclass
class BasicCase:
    name: str
    first_pod_id: str
    first_sig: str
    first_pod_scheduled_successfully: bool
    first_chosen_node: str
    first_other_nodes: list[str] | None
    second_pod_id: str
    second_sig: str
    second_chosen_node: str
    expected_hint: str
    same_cycle: bool = False
    skip_pod: bool = False
    second_pod_nominated_node_name: str = ""
    second_other_nodes: list[str] | None = None
    generic_workload_enabled: bool = False
    expected_state: tuple[str, list[str]] | None = None  # (signature, remaining nodes)
    extra: dict[str, object] = field(default_factory=dict)


BASIC_CASES = [
    BasicCase(
        "TestBatchBasic/a second pod with the same signature gets a hint",
        blocking_pod_id("1"), "sig", True, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "n1",
    ),
    BasicCase(
        "TestBatchBasic/a second pod with a different signature doesn't get a hint",
        non_blocking_pod_id("1"), "sig", True, "n3", ["n1"], non_blocking_pod_id("2"), "sig2", "n1", "",
    ),
    BasicCase(
        "TestBatchBasic/pod doesn't get hint if previous pod didn't scheduled",
        blocking_pod_id("1"), "sig", False, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "",
    ),
    BasicCase(
        "TestBatchBasic/empty list",
        blocking_pod_id("1"), "sig", True, "n3", [], blocking_pod_id("2"), "sig", "n4", "",
    ),
    BasicCase(
        "TestBatchBasic/nil list",
        blocking_pod_id("1"), "sig", True, "n3", None, blocking_pod_id("2"), "sig", "n4", "",
    ),
    BasicCase(
        "TestBatchBasic/pod doesn't get hint because the previous pod is to a different profile",
        blocking_pod_id("1"), "sig", True, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "", skip_pod=True,
    ),
    BasicCase(
        "TestBatchBasic/pod doesn't use batch from preceding pod when they are from the same cycle state, "
        "but GenericWorkload is disabled",
        blocking_pod_id("1"), "sig", True, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "",
        same_cycle=True, generic_workload_enabled=False,
    ),
    BasicCase(
        "TestBatchBasic/pod uses batch from preceding pod when they are from the same cycle state and "
        "GenericWorkload is enabled",
        blocking_pod_id("1"), "sig", True, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "n1",
        same_cycle=True, generic_workload_enabled=True,
    ),
    BasicCase(
        "TestBatchBasic/pod uses batch from preceding pod and leaves remaining batch to next pod",
        blocking_pod_id("1"), "sig", True, "n3", ["n1", "n2"], blocking_pod_id("2"), "sig", "n1", "n1",
        expected_state=("sig", ["n2"]),
    ),
    BasicCase(
        "TestBatchBasic/a second pod with a nominated node does not get a hint",
        blocking_pod_id("1"), "sig", True, "n3", ["n1"], blocking_pod_id("2"), "sig", "n1", "",
        second_pod_nominated_node_name="n1",
    ),
]


@pytest.mark.parametrize("tt", BASIC_CASES, ids=[c.name for c in BASIC_CASES])
def test_batch_basic(tt: BasicCase) -> None:
    t, batch = new_batch_test_framework(generic_workload=tt.generic_workload_enabled)
    with t:
        pod = a_pod("pod", tt.first_pod_id)
        state = CycleState()
        # Run the first "pod" through.
        hint = batch.get_node_hint(pod, tt.first_sig.encode(), state, 1).node
        assert hint == ""
        if tt.first_pod_scheduled_successfully:
            batch.store_schedule_results(tt.first_sig.encode(), hint, tt.first_chosen_node, new_test_nodes(t, tt.first_other_nodes), 1)
        cycle = 3 if tt.skip_pod else 1 if tt.same_cycle else 2
        # Run the second pod; the snapshot holds the first pod's chosen node with the first pod on it.
        pod2 = a_pod("pod2", tt.second_pod_id, tt.second_pod_nominated_node_name)
        set_nodes(t, {tt.first_chosen_node: [pod]})
        hint = batch.get_node_hint(pod2, tt.second_sig.encode(), state, cycle).node
        assert hint == tt.expected_hint
        batch.store_schedule_results(
            tt.second_sig.encode(), hint, tt.second_chosen_node, new_test_nodes(t, tt.second_other_nodes), cycle
        )
        empty = batch.state is None or len(batch.state.candidates) == 0
        assert empty == (tt.expected_state is None)
        if tt.expected_state is not None:
            assert batch.state is not None
            assert batch.state.signature == tt.expected_state[0].encode()
            assert batch.state.candidates.remaining_names() == tt.expected_state[1]


@dataclass
class RescoreCase:
    name: str
    expected_hint: str
    expected_remaining_nodes: list[str]
    score: int = 0
    filter_err: bool = False
    pre_score_err: bool = False
    score_err: bool = False
    norm_err: bool = False
    chosen_node_missing: bool = False
    cached_node_missing: bool = False


N1_CACHED_SCORE = 50  # fixed cached score for n1 across all test cases

RESCORE_CASES = [
    RescoreCase("TestBatchRescore/rescored node wins", "n2", ["n1"], score=100),
    RescoreCase("TestBatchRescore/rescored node loses", "n1", ["n2"], score=10),
    RescoreCase("TestBatchRescore/filter error gives no hint", "", ["n1"], score=100, filter_err=True),
    RescoreCase("TestBatchRescore/prescore error gives no hint", "", ["n1"], pre_score_err=True),
    RescoreCase("TestBatchRescore/score error gives no hint", "", ["n1"], score_err=True),
    RescoreCase("TestBatchRescore/normalize error gives no hint", "", ["n1"], norm_err=True),
    RescoreCase("TestBatchRescore/chosen node missing from lister gives no hint", "", ["n1"], chosen_node_missing=True),
    RescoreCase(
        "TestBatchRescore/cached node missing from lister gives no hint", "", ["n1"], score=100, cached_node_missing=True
    ),
]


@pytest.mark.parametrize("tt", RESCORE_CASES, ids=[c.name for c in RESCORE_CASES])
def test_batch_rescore(tt: RescoreCase) -> None:
    t, batch = new_batch_test_framework(score=True, filter_=True)
    with t:
        score = t.plugin("configurableScore")
        score.score_value, score.pre_score_err, score.score_err, score.norm_err = (
            tt.score, tt.pre_score_err, tt.score_err, tt.norm_err,
        )
        t.plugin("configurableFilter").filter_err = tt.filter_err
        # First pod: non-blocking, chosen node is n2, n1 left as other candidate.
        pod1 = a_pod("pod1", non_blocking_pod_id("1"))
        sig = b"sig"
        set_nodes(t, {"n1": []})  # n1's row, for the cached candidate
        cached = new_test_nodes(t, ["n1"], {"configurableScore": [N1_CACHED_SCORE]})
        batch.get_node_hint(pod1, sig, CycleState(), 1)
        batch.store_schedule_results(sig, "", "n2", cached, 1)
        # n2 (last chosen node) must be in the lister for the refresh to proceed; n1 (cached) is
        # left out when cached_node_missing is set to exercise the resolve abort path.
        if tt.chosen_node_missing:
            set_nodes(t, {})
        elif tt.cached_node_missing:
            set_nodes(t, {"n2": [pod1]})
        else:
            set_nodes(t, {"n1": [], "n2": [pod1]})
        pod2 = a_pod("pod2", non_blocking_pod_id("2"))
        hint = batch.get_node_hint(pod2, sig, CycleState(), 2).node
        assert hint == tt.expected_hint
        assert batch.state is not None
        assert batch.state.candidates.remaining_names() == tt.expected_remaining_nodes


def test_batch_rescore_chain() -> None:
    """TestBatchRescoreChain: a three-pod sequence where rescore fires on each cycle."""
    t, batch = new_batch_test_framework(score=True)
    with t:
        t.plugin("configurableScore").score_value = 100  # n2 rescores to 100, always beating n1's 50
        sig = b"sig"
        set_nodes(t, {"n1": []})
        pod1 = a_pod("pod1", non_blocking_pod_id("1"))
        others = new_test_nodes(t, ["n1"], {"configurableScore": [N1_CACHED_SCORE]})
        batch.get_node_hint(pod1, sig, CycleState(), 1)
        batch.store_schedule_results(sig, "", "n2", others, 1)
        set_nodes(t, {"n1": [], "n2": [pod1]})
        # Pod2: rescore fires (n2 still feasible), n2 wins.
        pod2 = a_pod("pod2", non_blocking_pod_id("2"))
        hint2 = batch.get_node_hint(pod2, sig, CycleState(), 2).node
        assert hint2 == "n2"
        batch.store_schedule_results(sig, hint2, "n2", None, 2)
        # Pod3: rescore fires again, n2 wins again; n1 must remain for a potential pod4.
        pod3 = a_pod("pod3", non_blocking_pod_id("3"))
        hint3 = batch.get_node_hint(pod3, sig, CycleState(), 3).node
        assert hint3 == "n2"
        assert batch.state is not None and batch.state.candidates.remaining_names() == ["n1"]

"""TaintToleration: cases from kube-scheduler's taint_toleration_test.go."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import Code
from kubeberth.builtin_plugins.taint_toleration import TaintToleration
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import all_nodes, make_node, make_pod
from kubeberth.testing import cluster_of as kit_cluster_of


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, op: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "operator": op, "value": value, "effect": effect}


def nodes_of(*nodes: tuple[str, list[dict[str, str]]]) -> list[dict[str, Any]]:
    return [make_node(name, taints=taints) for name, taints in nodes]


def cluster_of(*nodes: tuple[str, list[dict[str, str]]]) -> ClusterState:
    return kit_cluster_of(nodes_of(*nodes))


UNTOLERATED = "node(s) had untolerated taint(s)"

# TestTaintTolerationFilter and TestTaintTolerationFilterWithFeatureGate, v1.37.2, verbatim (the
# TaintTolerationComparisonOperators cases with the gate on are listed in tests/upstream_unported.py).
FILTER_CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, str]], str | None]] = [
    ("TestTaintTolerationFilter/A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     [], [taint("dedicated", "user1", "NoSchedule")], UNTOLERATED),
    ("TestTaintTolerationFilter/A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [tol("dedicated", "", "user1", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")], None),
    ("TestTaintTolerationFilter/A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     [tol("dedicated", "Equal", "user2", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")], UNTOLERATED),
    ("TestTaintTolerationFilter/A pod can be scheduled onto the node, with a toleration uses operator Exists that "
     "tolerates the taints on the node",
     [tol("foo", "Exists", "", "NoSchedule")], [taint("foo", "bar", "NoSchedule")], None),
    ("TestTaintTolerationFilter/A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
     "pod can be scheduled onto the node",
     [tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")],
     [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], None),
    ("TestTaintTolerationFilter/A pod has a toleration that keys and values match the taint on the node, but (non-empty) "
     "effect doesn't match, can't be scheduled onto the node",
     [tol("foo", "Equal", "bar", "PreferNoSchedule")], [taint("foo", "bar", "NoSchedule")], UNTOLERATED),
    ("TestTaintTolerationFilter/The pod has a toleration that keys and values match the taint on the node, the effect of "
     "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
     [tol("foo", "Equal", "bar", "")], [taint("foo", "bar", "NoSchedule")], None),
    ("TestTaintTolerationFilter/The pod has a toleration that key and value don't match the taint on the node, but the "
     "effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [tol("dedicated", "Equal", "user2", "NoSchedule")], [taint("dedicated", "user1", "PreferNoSchedule")], None),
    ("TestTaintTolerationFilter/The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can "
     "be scheduled onto the node",
     [], [taint("dedicated", "user1", "PreferNoSchedule")], None),
    ("TestTaintTolerationFilterWithFeatureGate/Pod with Gt toleration cannot be scheduled when feature gate is disabled",
     [tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")], [taint("node.kubernetes.io/sla", "950", "NoSchedule")],
     UNTOLERATED),
    ("TestTaintTolerationFilterWithFeatureGate/Pod with Lt toleration cannot be scheduled when feature gate is disabled",
     [tol("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")], [taint("node.kubernetes.io/sla", "800", "NoSchedule")],
     UNTOLERATED),
    ("TestTaintTolerationFilterWithFeatureGate/Pod with mixed tolerations (Equal and Gt) when feature gate is disabled "
     "- only Equal is honored",
     [tol("dedicated", "Equal", "user1", "NoSchedule"), tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")],
     [taint("dedicated", "user1", "NoSchedule")], None),
    ("TestTaintTolerationFilterWithFeatureGate/Pod with mixed tolerations, Gt toleration needed but filtered out when "
     "feature gate is disabled",
     [tol("dedicated", "Equal", "user1", "NoSchedule"), tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")],
     [taint("dedicated", "user1", "NoSchedule"), taint("node.kubernetes.io/sla", "950", "NoSchedule")], UNTOLERATED),
    # kubeberth's own cases.
    ("NoExecute filters", [], [taint("foo", "bar", "NoExecute")], UNTOLERATED),
    ("empty key Exists tolerates everything", [{"operator": "Exists"}],
     [taint("a", "b", "NoSchedule"), taint("c", "", "NoExecute")], None),
]


@pytest.mark.parametrize(("name", "tolerations", "taints", "reason"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_filter(
    scheduler_tester, name: str, tolerations: list[dict[str, Any]], taints: list[dict[str, str]], reason: str | None
) -> None:
    cluster = cluster_of(("nodeA", taints), ("clean", []))
    pod = PodInfo.from_dict(make_pod("p", tolerations=tolerations))
    nodes = all_nodes(cluster)
    result = TaintToleration().filter(pod=pod, nodes=nodes)
    got = {name: None for name in nodes.names}
    for rej in result.rejections:
        assert rej.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        for i in np.flatnonzero(rej.nodes):
            got[nodes.names[i]] = rej.reason
    assert got == {"nodeA": reason, "clean": None}
    assert result.feasible.tolist() == [got[n] is None for n in nodes.names]
    # The same verdicts through the framework, as a profile runs the plugin.
    ev = scheduler_tester(["TaintToleration"], objects=nodes_of(("nodeA", taints), ("clean", []))).evaluate(pod)
    assert ev.reasons == got
    assert {v.code for v in ev.verdicts.values() if v} <= {Code.UNSCHEDULABLE_AND_UNRESOLVABLE}


def test_filter_counts_all_untolerated_taints_in_one_bucket() -> None:
    """v1.37: nodes rejected for different taints share one reason, so the message has one count."""
    cluster = cluster_of(
        ("a", [taint("x", "1", "NoSchedule")]), ("b", [taint("x", "1", "NoSchedule")]), ("c", [taint("y", "2", "NoExecute")])
    )
    result = TaintToleration().filter(pod=PodInfo.from_dict(make_pod("p")), nodes=all_nodes(cluster))
    assert [(r.reason, int(r.nodes.sum())) for r in result.rejections] == [(UNTOLERATED, 3)]


@pytest.fixture
def scores(scheduler_tester):
    """Normalized TaintToleration scores per node, from a cycle of a profile running only it."""

    def run(pod: PodInfo, nodes: list[dict[str, Any]]) -> dict[str, int]:
        ev = scheduler_tester(["TaintToleration"], objects=nodes).evaluate(pod)
        assert ev.feasible == [n["metadata"]["name"] for n in nodes]  # every node scored
        return ev.scores["TaintToleration"]

    return run


def test_score_tolerated_prefer_no_schedule(scores) -> None:
    nodes = nodes_of(("nodeA", [taint("foo", "bar", "PreferNoSchedule")]), ("nodeB", [taint("foo", "blah", "PreferNoSchedule")]))
    pod = PodInfo.from_dict(make_pod("p", tolerations=[tol("foo", "Equal", "bar", "PreferNoSchedule")]))
    assert scores(pod, nodes) == {"nodeA": 100, "nodeB": 0}


def test_score_more_intolerable_taints_lower_score(scores) -> None:
    nodes = nodes_of(
        ("nodeA", []),
        ("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
        ("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"), taint("disk-type", "ssd", "PreferNoSchedule")]),
    )
    pod = PodInfo.from_dict(make_pod("p", tolerations=[tol("cpu-type", "Equal", "arm64", "PreferNoSchedule")]))
    assert scores(pod, nodes) == {"nodeA": 100, "nodeB": 100, "nodeC": 0}


def test_score_only_prefer_no_schedule_counts(scores) -> None:
    nodes = nodes_of(
        ("nodeA", []),
        ("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]),
        ("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"), taint("disk-type", "ssd", "PreferNoSchedule")]),
    )
    pod = PodInfo.from_dict(make_pod("p", tolerations=[
        tol("cpu-type", "Equal", "arm64", "NoSchedule"), tol("disk-type", "Equal", "ssd", "NoSchedule")]))
    assert scores(pod, nodes) == {"nodeA": 100, "nodeB": 100, "nodeC": 0}


def test_score_no_taints_all_max(scores) -> None:
    nodes = nodes_of(("nodeA", []), ("nodeB", []))
    assert scores(PodInfo.from_dict(make_pod("p")), nodes) == {"nodeA": 100, "nodeB": 100}


def test_score_three_levels(scores) -> None:
    pns = [taint(k, "v", "PreferNoSchedule") for k in ("a", "b", "c")]
    nodes = nodes_of(("n0", []), ("n1", pns[:1]), ("n2", pns[:2]), ("n3", pns))
    assert scores(PodInfo.from_dict(make_pod("p")), nodes) == {"n0": 100, "n1": 67, "n2": 34, "n3": 0}


# TestTaintTolerationScore, v1.37.2, verbatim (the Gt/Lt cases are in tests/upstream_unported.py).
PNS = "PreferNoSchedule"
CPU_ARM = taint("cpu-type", "arm64", PNS)
DISK_SSD = taint("disk-type", "ssd", PNS)
SCORE_CASES = [
    ("TestTaintTolerationScore/node with taints tolerated by the pod, gets a higher score than those node with "
     "intolerable taints",
     [tol("foo", "Equal", "bar", PNS)],
     [("nodeA", [taint("foo", "bar", PNS)]), ("nodeB", [taint("foo", "blah", PNS)])], {"nodeA": 100, "nodeB": 0}),
    ("TestTaintTolerationScore/the nodes that all of their taints are tolerated by the pod, get the same score, no "
     "matter how many tolerable taints a node has",
     [tol("cpu-type", "Equal", "arm64", PNS), tol("disk-type", "Equal", "ssd", PNS)],
     [("nodeA", []), ("nodeB", [CPU_ARM]), ("nodeC", [CPU_ARM, DISK_SSD])], {"nodeA": 100, "nodeB": 100, "nodeC": 100}),
    ("TestTaintTolerationScore/the more intolerable taints a node has, the lower score it gets.",
     [tol("foo", "Equal", "bar", PNS)],
     [("nodeA", []), ("nodeB", [CPU_ARM]), ("nodeC", [CPU_ARM, DISK_SSD])], {"nodeA": 100, "nodeB": 50, "nodeC": 0}),
    ("TestTaintTolerationScore/only taints and tolerations that have effect PreferNoSchedule are checked by "
     "taints-tolerations priority function",
     [tol("cpu-type", "Equal", "arm64", "NoSchedule"), tol("disk-type", "Equal", "ssd", "NoSchedule")],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]), ("nodeC", [CPU_ARM, DISK_SSD])],
     {"nodeA": 100, "nodeB": 100, "nodeC": 0}),
    ("TestTaintTolerationScore/Default behaviour No taints and tolerations, lands on node with no taints",
     [], [("nodeA", []), ("nodeB", [CPU_ARM])], {"nodeA": 100, "nodeB": 0}),
]


@pytest.mark.parametrize(("tolerations", "nodes", "expected"), [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_upstream_score(scores, tolerations: list[dict[str, str]], nodes: list, expected: dict[str, int]) -> None:
    assert scores(PodInfo.from_dict(make_pod("pod1", tolerations=tolerations)), nodes_of(*nodes)) == expected

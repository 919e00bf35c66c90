"""NodeUnschedulable: kube-scheduler's node_unschedulable_test cases."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import Code
from kubeberth.builtin_plugins.node_unschedulable import NodeUnschedulable
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import Verdict, all_nodes, make_node, make_pod
from kubeberth.testing import cluster_of as kit_cluster_of


def nodes_of(*unschedulable: bool) -> list[dict[str, Any]]:
    return [make_node(f"n{i}", unschedulable=flag) for i, flag in enumerate(unschedulable)]


def cluster_of(*unschedulable: bool) -> ClusterState:
    return kit_cluster_of(nodes_of(*unschedulable))


def pod(tolerations: list[dict[str, Any]] | None = None) -> PodInfo:
    return PodInfo.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [], "tolerations": tolerations or []}})


def run(cluster: ClusterState, p: PodInfo):
    view = all_nodes(cluster)
    return NodeUnschedulable().filter(pod=p, nodes=view)


UNSCHEDULABLE_TOLERATION = {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("tolerations", "rejected"),
    [
        (None, True),
        ([UNSCHEDULABLE_TOLERATION], False),
        ([{"operator": "Exists"}], False),  # empty key + Exists tolerates everything
        ([{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}], True),
        ([{"key": "node.kubernetes.io/unschedulable", "operator": "Equal", "value": "x", "effect": "NoSchedule"}], True),
        ([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}], False),  # Equal "" == ""
    ],
)
def test_tolerations(scheduler_tester, tolerations, rejected):
    result = run(cluster_of(False, True, False), pod(tolerations))
    ev = scheduler_tester(["NodeUnschedulable"], objects=nodes_of(False, True, False)).evaluate(pod(tolerations))
    cordoned = Verdict("NodeUnschedulable", "node(s) were unschedulable", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    assert ev.verdicts == {"n0": None, "n1": cordoned if rejected else None, "n2": None}
    if not rejected:
        assert result is None
        return
    assert result.feasible.tolist() == [True, False, True]
    [rej] = result.rejections
    assert rej.reason == "node(s) were unschedulable"
    assert rej.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert rej.nodes.tolist() == [False, True, False]


def test_schedulable_nodes_pass():
    assert run(cluster_of(False, False), pod()) is None


def test_uncordon_is_seen(scheduler_tester):
    cluster = cluster_of(True)
    assert run(cluster, pod()) is not None
    cluster.upsert_node({"metadata": {"name": "n0"}, "spec": {}})
    assert run(cluster, pod()) is None
    # through the scheduler: the cordoned node is an update event, and the pending pod lands after it
    t = scheduler_tester(["NodeUnschedulable"], objects=nodes_of(True))
    assert t.schedule(make_pod("p")) == {"p": None}
    t.add(make_node("n0"))
    t.settle()
    assert t.node_of("p") == "n0"


# TestNodeUnschedulable, v1.37.2, verbatim: one node per case.
UPSTREAM = [
    ("TestNodeUnschedulable/Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
     [], True, "node(s) were unschedulable"),
    ("TestNodeUnschedulable/Schedule pod to normal node", [], False, None),
    ("TestNodeUnschedulable/Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
     [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}], True, None),
]


@pytest.mark.parametrize(("tolerations", "unschedulable", "reason"), [c[1:] for c in UPSTREAM], ids=[c[0] for c in UPSTREAM])
def test_upstream_filter(tolerations: list[dict[str, Any]], unschedulable: bool, reason: str | None) -> None:
    result = run(cluster_of(unschedulable), pod(tolerations))
    if reason is None:
        assert result is None or result.feasible.tolist() == [True]
    else:
        assert result.feasible.tolist() == [False]
        assert [(r.reason, r.code) for r in result.rejections] == [(reason, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]

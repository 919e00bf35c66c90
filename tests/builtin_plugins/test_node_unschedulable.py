"""NodeUnschedulable: kube-scheduler's node_unschedulable_test cases."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import ClusterState, Code, PodInfo
from kubeberth.builtin_plugins.node_unschedulable import NodeUnschedulable
from kubeberth.testing import all_nodes


def cluster_of(*unschedulable: bool) -> ClusterState:
    cluster = ClusterState()
    for i, flag in enumerate(unschedulable):
        cluster.upsert_node({"metadata": {"name": f"n{i}"}, "spec": {"unschedulable": flag}})
    return cluster


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
def test_tolerations(tolerations, rejected):
    result = run(cluster_of(False, True, False), pod(tolerations))
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


def test_uncordon_is_seen():
    cluster = cluster_of(True)
    assert run(cluster, pod()) is not None
    cluster.upsert_node({"metadata": {"name": "n0"}, "spec": {}})
    assert run(cluster, pod()) is None

"""NodeName: kube-scheduler's node_name_test cases."""

from __future__ import annotations

import numpy as np
import pytest
import st
from kubeberth import Code
from kubeberth.builtin_plugins.node_name import NodeName
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import Verdict, all_nodes, cluster_of, make_node


def setup(*names: str):
    cluster = cluster_of([make_node(n) for n in names])
    return cluster, all_nodes(cluster)


def pending(node_name: str | None) -> PodInfo:
    spec = {"containers": []}
    if node_name is not None:
        spec["nodeName"] = node_name
    p = PodInfo.from_dict({"metadata": {"name": "p"}, "spec": spec})
    p.node_name = ""  # as the scheduler sees a pending pod
    return p


def test_no_host_specified():
    _, view = setup("foo", "bar")
    assert NodeName().filter(pod=pending(None), nodes=view) is None


def test_host_matches_one_node():
    _, view = setup("foo", "bar", "baz")
    result = NodeName().filter(pod=pending("bar"), nodes=view)
    assert result.feasible.tolist() == [False, True, False]
    [rej] = result.rejections
    assert rej.reason == "node(s) didn't match the requested node name"
    assert rej.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_through_the_framework(scheduler_tester):
    t = scheduler_tester(["NodeName"], objects=[make_node(n) for n in ("foo", "bar", "baz")])
    # v1.37: NodeName's PreFilter narrows to the named node; the others are reported as kube-scheduler does
    left_out = Verdict("NodeName", "node(s) didn't satisfy plugin(s) [NodeName]", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    assert t.evaluate(pending("bar")).verdicts == {"foo": left_out, "bar": None, "baz": left_out}
    ev = t.evaluate(pending("qux"))
    assert ev.feasible == []
    assert ev.message == "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeName]."
    assert t.evaluate(pending(None)).feasible == ["foo", "bar", "baz"]


def test_host_not_in_cluster_rejects_all():
    _, view = setup("foo", "bar")
    result = NodeName().filter(pod=pending("qux"), nodes=view)
    assert result.feasible.tolist() == [False, False]


def test_subset_view_without_the_node():
    cluster, view = setup("foo", "bar", "baz")
    sub = view.subset(np.asarray([True, False, True]))
    result = NodeName().filter(pod=pending("bar"), nodes=sub)
    assert result.feasible.tolist() == [False, False]


# TestNodeName, v1.37.2, verbatim: one node per case, the pod's spec.nodeName against it.
UPSTREAM_FILTER = [
    ("TestNodeName/no host specified", None, "foo", None),
    ("TestNodeName/host matches", "foo", "foo", None),
    ("TestNodeName/host doesn't match", "bar", "foo", "node(s) didn't match the requested node name"),
]


@pytest.mark.parametrize(("pod_node", "node", "reason"), [c[1:] for c in UPSTREAM_FILTER], ids=[c[0] for c in UPSTREAM_FILTER])
def test_upstream_filter(pod_node: str | None, node: str, reason: str | None) -> None:
    _, view = setup(node)
    result = NodeName().filter(pod=pending(pod_node), nodes=view)
    if reason is None:
        assert result is None or result.feasible.tolist() == [True]
    else:
        assert result.feasible.tolist() == [False]
        assert [(r.reason, r.code) for r in result.rejections] == [(reason, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)]


# TestNodeName_PreFilter, v1.37.2, verbatim
PRE_FILTER_CASES = [
    ("TestNodeName_PreFilter/assigned pod with nodeName set, prefilter restricts to assigned node",
     st.MakePod().Node("foo").Obj(), frozenset({"foo"})),
    ("TestNodeName_PreFilter/unassigned pod without nodeName set, prefilter returns nil", st.MakePod().Obj(), None),
]


@pytest.mark.parametrize(("pod", "want"), [c[1:] for c in PRE_FILTER_CASES], ids=[c[0] for c in PRE_FILTER_CASES])
def test_upstream_pre_filter(pod, want):
    got = NodeName().pre_filter(pod=PodInfo.from_dict(pod))
    assert (got.node_names if got is not None else None) == want

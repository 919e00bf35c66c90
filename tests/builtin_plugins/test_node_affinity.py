"""NodeAffinity: cases from kube-scheduler's node_affinity_test.go semantics."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState, PreFilterResult, Status
from kubeberth.builtin_plugins.node_affinity import (
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeAffinityArgs,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, Verdict, all_nodes, make_node, make_pod

REASON = ERR_REASON_POD


def cluster_of(*nodes: tuple[str, dict[str, str]]) -> ClusterState:
    cluster = ClusterState()
    for name, labels in nodes:
        cluster.upsert_node(make_node(name, labels=labels))
    return cluster


def filter_outcome(plugin: NodeAffinity, pod: PodInfo, cluster: ClusterState) -> dict[str, str | None]:
    nodes = all_nodes(cluster)
    result = plugin.filter(pod=pod, nodes=nodes)
    out: dict[str, str | None] = {name: None for name in nodes.names}
    for rej in result.rejections:
        assert rej.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        for i in np.flatnonzero(rej.nodes):
            out[nodes.names[i]] = rej.reason
    assert [out[n] is None for n in nodes.names] == result.feasible.tolist()
    return out


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


CASES = [
    ("no selector", {}, {"foo": "bar"}, True),
    ("nodeSelector mismatch", {"nodeSelector": {"foo": "bar"}}, {"baz": "blah"}, False),
    ("nodeSelector match", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar"}, True),
    ("In matches", {"affinity": required({"matchExpressions": [expr("foo", "In", "value1", "bar")]})}, {"foo": "bar"}, True),
    ("In misses", {"affinity": required({"matchExpressions": [expr("foo", "In", "value1", "value2")]})}, {"foo": "bar"}, False),
    ("Gt numeric", {"affinity": required({"matchExpressions": [expr("kernel-version", "Gt", "0204")]})}, {"kernel-version": "0206"}, True),
    ("Gt not greater", {"affinity": required({"matchExpressions": [expr("kernel-version", "Gt", "0206")]})}, {"kernel-version": "0206"}, False),
    ("Lt non-integer label", {"affinity": required({"matchExpressions": [expr("v", "Lt", "5")]})}, {"v": "abc"}, False),
    ("NotIn", {"affinity": required({"matchExpressions": [expr("mem-type", "NotIn", "DDR", "DDR2")]})}, {"mem-type": "DDR3"}, True),
    ("NotIn absent key matches", {"affinity": required({"matchExpressions": [expr("mem-type", "NotIn", "DDR")]})}, {}, True),
    ("Exists", {"affinity": required({"matchExpressions": [expr("GPU", "Exists")]})}, {"GPU": "NVIDIA-GRID-K1"}, True),
    ("DoesNotExist", {"affinity": required({"matchExpressions": [expr("GPU", "DoesNotExist")]})}, {"GPU": "x"}, False),
    (
        "expressions ANDed",
        {"affinity": required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]})},
        {"GPU": "NVIDIA-GRID-K1"},
        True,
    ),
    (
        "expressions ANDed, one fails",
        {"affinity": required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]})},
        {"GPU": "NVIDIA-GRID-K1"},
        False,
    ),
    (
        "terms ORed",
        {"affinity": required({"matchExpressions": [expr("foo", "In", "bar", "value2")]},
                              {"matchExpressions": [expr("diffkey", "In", "wrong", "value2")]})},
        {"foo": "bar"},
        True,
    ),
    ("empty terms list matches nothing", {"affinity": required()}, {"foo": "bar"}, False),
    ("empty term matches nothing", {"affinity": required({"matchExpressions": []})}, {"foo": "bar"}, False),
    ("no required: everything", {"affinity": {"nodeAffinity": {}}}, {"foo": "bar"}, True),
    (
        "nodeSelector AND affinity",
        {"nodeSelector": {"foo": "bar"}, "affinity": required({"matchExpressions": [expr("foo", "Exists")]})},
        {"foo": "bar"},
        True,
    ),
    (
        "nodeSelector AND affinity, selector fails",
        {"nodeSelector": {"foo": "baz"}, "affinity": required({"matchExpressions": [expr("foo", "Exists")]})},
        {"foo": "bar"},
        False,
    ),
    ("invalid term never matches", {"affinity": required({"matchExpressions": [expr("foo", "In")]})}, {"foo": "bar"}, False),
]


@pytest.mark.parametrize(("name", "spec", "labels", "fits"), CASES, ids=[c[0] for c in CASES])
def test_filter(scheduler_tester, name: str, spec: dict[str, Any], labels: dict[str, str], fits: bool) -> None:
    cluster = cluster_of(("node1", labels))
    pod = PodInfo.from_dict(make_pod("p", **spec))
    out = filter_outcome(NodeAffinity(), pod, cluster)
    assert out["node1"] == (None if fits else REASON)
    # through the framework (PreFilter, then Filter), as a profile runs it
    ev = scheduler_tester(["NodeAffinity"], objects=[make_node("node1", labels=labels)]).evaluate(pod)
    assert ev.verdicts["node1"] == (None if fits else Verdict("NodeAffinity", REASON, Code.UNSCHEDULABLE_AND_UNRESOLVABLE))


def test_match_fields_and_prefilter_narrowing() -> None:
    cluster = cluster_of(("node1", {"foo": "bar"}), ("node2", {"foo": "bar"}))
    term = {"matchFields": [expr("metadata.name", "In", "node1")]}
    pod = PodInfo.from_dict(make_pod("p", affinity=required(term)))
    plugin = NodeAffinity()
    assert plugin.pre_filter(pod=pod) == PreFilterResult(node_names=frozenset({"node1"}))
    assert filter_outcome(plugin, pod, cluster) == {"node1": None, "node2": REASON}
    # matchFields and matchExpressions in one term are ANDed
    both = {"matchFields": [expr("metadata.name", "In", "node1")], "matchExpressions": [expr("foo", "In", "baz")]}
    pod = PodInfo.from_dict(make_pod("p2", affinity=required(both)))
    assert filter_outcome(plugin, pod, cluster) == {"node1": REASON, "node2": REASON}
    # NotIn on the name
    pod = PodInfo.from_dict(make_pod("p3", affinity=required({"matchFields": [expr("metadata.name", "NotIn", "node1")]})))
    assert filter_outcome(plugin, pod, cluster) == {"node1": REASON, "node2": None}


def test_prefilter_union_conflict_and_skip() -> None:
    plugin = NodeAffinity()
    union = required(
        {"matchFields": [expr("metadata.name", "In", "node1")]},
        {"matchFields": [expr("metadata.name", "In", "node2")]},
    )
    assert plugin.pre_filter(pod=PodInfo.from_dict(make_pod("p", affinity=union))).node_names == {"node1", "node2"}
    # a term without a name pin lets every node through
    mixed = required({"matchFields": [expr("metadata.name", "In", "node1")]}, {"matchExpressions": [expr("foo", "Exists")]})
    assert plugin.pre_filter(pod=PodInfo.from_dict(make_pod("p", affinity=mixed))) is None
    conflict = required({"matchFields": [expr("metadata.name", "In", "node1"), expr("metadata.name", "In", "node2")]})
    status = plugin.pre_filter(pod=PodInfo.from_dict(make_pod("p", affinity=conflict)))
    assert isinstance(status, Status)
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("pod affinity terms conflict",)
    assert plugin.pre_filter(pod=PodInfo.from_dict(make_pod("p"))).code == Code.SKIP


def test_added_affinity_enforced() -> None:
    args = NodeAffinityArgs.model_validate(
        {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "foo")]}]}}}
    )
    plugin = NodeAffinity(args)
    cluster = cluster_of(("node1", {"zone": "foo"}), ("node2", {"zone": "bar", "foo": "x"}), ("node3", {"zone": "foo"}))
    pod = PodInfo.from_dict(make_pod("p", nodeSelector={"foo": "x"}))
    assert plugin.pre_filter(pod=PodInfo.from_dict(make_pod("q"))) is None  # added affinity: no skip
    out = filter_outcome(plugin, pod, cluster)
    assert out == {"node1": REASON, "node2": ERR_REASON_ENFORCED, "node3": REASON}


def test_args_validation() -> None:
    with pytest.raises(ValueError):
        NodeAffinityArgs.model_validate(
            {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "Bogus", "foo")]}]}}}
        )


def preferred(*terms: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": exprs}} for w, exprs in terms
    ]}}


def scores(plugin: NodeAffinity, pod: PodInfo, cluster: ClusterState, args: dict[str, Any] | None = None) -> dict[str, int]:
    """The plugin's normalized scores called directly; checked against a cycle of a profile running it with `args`."""
    nodes = all_nodes(cluster)
    state = CycleState()
    assert plugin.pre_score(state=state, pod=pod) is None
    raw = plugin.score(pod=pod, nodes=nodes)
    direct = dict(zip(nodes.names, plugin.normalize_score(scores=raw).tolist(), strict=True))
    objects = [cluster.table.raw[int(r)] for r in nodes.rows]
    with SchedulerTester(["NodeAffinity"], args={"NodeAffinity": args} if args else None, objects=objects) as t:
        assert t.evaluate(pod).scores["NodeAffinity"] == direct
    return direct


AFFINITY1 = preferred((2, [expr("foo", "In", "bar")]))
AFFINITY2 = preferred(
    (2, [expr("foo", "In", "bar")]),
    (4, [expr("key", "In", "value")]),
    (5, [expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")]),
)


def test_score_only_one_node_matches() -> None:
    cluster = cluster_of(("m1", {"foo": "bar"}), ("m2", {"key": "value"}), ("m3", {"az": "az1"}))
    pod = PodInfo.from_dict(make_pod("p", affinity=AFFINITY1))
    assert scores(NodeAffinity(), pod, cluster) == {"m1": 100, "m2": 0, "m3": 0}


def test_score_different_priorities() -> None:
    cluster = cluster_of(
        ("m1", {"foo": "bar"}), ("m5", {"foo": "bar", "key": "value", "az": "az1"}), ("m2", {"key": "value"})
    )
    pod = PodInfo.from_dict(make_pod("p", affinity=AFFINITY2))
    assert scores(NodeAffinity(), pod, cluster) == {"m1": 18, "m5": 100, "m2": 36}


ADDED = {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 5, "preference": {"matchExpressions": [{"key": "key", "operator": "In", "values": ["value"]}]}}]}}


def test_score_added_preferred_and_skip() -> None:
    args = NodeAffinityArgs.model_validate(ADDED)
    cluster = cluster_of(("m1", {"foo": "bar"}), ("m2", {"key": "value"}), ("m3", {}))
    pod = PodInfo.from_dict(make_pod("p", affinity=AFFINITY1))
    assert scores(NodeAffinity(args), pod, cluster, ADDED) == {"m1": 40, "m2": 100, "m3": 0}
    plain = PodInfo.from_dict(make_pod("q"))
    assert NodeAffinity().pre_score(state=CycleState(), pod=plain).code == Code.SKIP
    assert scores(NodeAffinity(args), plain, cluster, ADDED) == {"m1": 0, "m2": 100, "m3": 0}


# ---- invalid terms: upstream cases, v1.37.2, verbatim ---------------------------------------
def test_upstream_invalid_value_in_required_term_does_not_match() -> None:
    """TestNodeAffinity/Pod with an invalid value in Affinity term won't be scheduled onto the node"""
    spec = {"affinity": required({"matchExpressions": [expr("foo", "NotIn", "invalid value: ___@#$%^")]})}
    pod = PodInfo.from_dict(make_pod("p", **spec))
    plugin = NodeAffinity()
    assert plugin.pre_filter(pod=pod) is None
    assert filter_outcome(plugin, pod, cluster_of(("node1", {"foo": "bar"}))) == {"node1": ERR_REASON_POD}


def test_upstream_broken_preferred_affinity_fails_pre_score() -> None:
    """TestNodeAffinityPriority/PreScore returns error when an incoming Pod has a broken affinity"""
    pod = PodInfo.from_dict(make_pod("p", affinity=preferred((2, [expr("invalid key", "In", "bar")]))))
    status = NodeAffinity().pre_score(state=CycleState(), pod=pod)
    assert status is not None and status.code == Code.ERROR
    assert status.reasons == (
        '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    )

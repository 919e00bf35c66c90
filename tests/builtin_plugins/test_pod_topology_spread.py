"""PodTopologySpread: filter and score cases from kube-scheduler's filtering_test.go / scoring_test.go."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState
from kubeberth.builtin_plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpread,
    PodTopologySpreadArgs,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, cluster_of, make_node, make_pod

HOST = "kubernetes.io/hostname"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
SKEW = ERR_REASON_CONSTRAINTS_NOT_MATCH
MISSING = ERR_REASON_NODE_LABEL_NOT_MATCH


def spread(skew: int, key: str, when: str, selector: dict[str, Any] | None = FOO, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        out["labelSelector"] = selector
    out.update(extra)
    return out


def build(nodes: list[tuple[str, dict[str, str]]], placed: dict[str, int | list[dict[str, str]]],
          taints: dict[str, list[dict[str, str]]] | None = None) -> ClusterState:
    """placed: node -> number of {foo: ""} pods, or a list of label dicts."""
    on_nodes = [(node, labels) for node, pods in placed.items()
                for labels in ([{"foo": ""}] * pods if isinstance(pods, int) else pods)]
    return cluster_of(
        [make_node(name, labels=labels, taints=(taints or {}).get(name)) for name, labels in nodes],
        [make_pod(f"p{i}", labels=labels, nodeName=node) for i, (node, labels) in enumerate(on_nodes, 1)],
    )


def view(cluster: ClusterState, names: list[str] | None = None):
    table = cluster.table
    names = names if names is not None else sorted(table.row_of)
    return table.view(np.asarray([table.row_of[n] for n in names], dtype=np.int64))


def run_filter(pod: PodInfo, cluster: ClusterState, plugin: PodTopologySpread | None = None) -> dict[str, str | None]:
    plugin = plugin or PodTopologySpread()
    state = CycleState()
    status = plugin.pre_filter(state=state, pod=pod, cluster=cluster)
    assert status is None, status
    nodes = view(cluster)
    result = plugin.filter(state=state, pod=pod, nodes=nodes, cluster=cluster)
    out: dict[str, str | None] = {n: None for n in nodes.names}
    for rej in result.rejections:
        expected = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if rej.reason == MISSING else Code.UNSCHEDULABLE
        assert rej.code == expected
        for i in np.flatnonzero(rej.nodes):
            assert out[nodes.names[i]] is None
            out[nodes.names[i]] = rej.reason
    assert result.feasible.tolist() == [out[n] is None for n in nodes.names]
    return out


ZONES = [("node-a", {"zone": "zone1"}), ("node-b", {"zone": "zone1"}), ("node-x", {"zone": "zone2"}), ("node-y", {"zone": "zone2"})]


def pod_with(*constraints: dict[str, Any], labels: dict[str, str] | None = None, **spec: Any) -> PodInfo:
    return PodInfo.from_dict(make_pod("p", labels={"foo": ""} if labels is None else labels,
                                      topologySpreadConstraints=list(constraints), **spec))


def test_filter_zone_skew() -> None:
    # zone1 holds 3 matching pods, zone2 2: with self-match only zone2 keeps skew <= 1
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-y": 2})
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule")), cluster)
    assert out == {"node-a": SKEW, "node-b": SKEW, "node-x": None, "node-y": None}


def test_filter_no_existing_pods_all_fit() -> None:
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule")), build(ZONES, {}))
    assert set(out.values()) == {None}


def test_filter_missing_label_is_unresolvable() -> None:
    cluster = build([*ZONES, ("node-z", {})], {"node-a": 1})
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule")), cluster)
    assert out["node-z"] == MISSING
    assert out["node-x"] is None


def test_filter_hostname_constraint() -> None:
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-x": 0})
    out = run_filter(pod_with(spread(1, HOST, "DoNotSchedule")), cluster)
    # min is 0 (node-x, node-y): a=2+1, b=1+1 exceed 1
    assert out == {"node-a": SKEW, "node-b": SKEW, "node-x": None, "node-y": None}


def test_filter_self_not_matching_selector() -> None:
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-y": 2})
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule"), labels={"other": ""}), cluster)
    # skew without self-match: zone1 3-2=1 is fine
    assert set(out.values()) == {None}


def test_filter_min_domains() -> None:
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-y": 2})
    assert set(run_filter(pod_with(spread(2, "zone", "DoNotSchedule")), cluster).values()) == {None}
    out = run_filter(pod_with(spread(2, "zone", "DoNotSchedule", minDomains=3)), cluster)
    # fewer domains (2) than minDomains (3): the global minimum is treated as 0
    assert out == {"node-a": SKEW, "node-b": SKEW, "node-x": SKEW, "node-y": SKEW}


def test_filter_node_affinity_policy() -> None:
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-y": 2})
    selector = {"zone": "zone1"}
    honor = run_filter(pod_with(spread(1, "zone", "DoNotSchedule"), nodeSelector=selector), cluster)
    # zone2 is outside the pod's node selector: only zone1 counts, its min is itself
    assert honor["node-a"] is None and honor["node-b"] is None
    ignore = run_filter(pod_with(spread(1, "zone", "DoNotSchedule", nodeAffinityPolicy="Ignore"), nodeSelector=selector), cluster)
    assert ignore["node-a"] == SKEW and ignore["node-b"] == SKEW


def test_filter_node_taints_policy() -> None:
    taints = {"node-x": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
              "node-y": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}
    cluster = build(ZONES, {"node-a": 2, "node-b": 1, "node-y": 2}, taints)
    ignore = run_filter(pod_with(spread(1, "zone", "DoNotSchedule")), cluster)
    assert ignore["node-a"] == SKEW
    honor = run_filter(pod_with(spread(1, "zone", "DoNotSchedule", nodeTaintsPolicy="Honor")), cluster)
    assert honor["node-a"] is None and honor["node-b"] is None


def test_filter_match_label_keys() -> None:
    placed = {"node-a": [{"foo": "", "version": "v1"}] * 3, "node-x": [{"foo": "", "version": "v2"}]}
    cluster = build(ZONES, placed)
    plain = run_filter(pod_with(spread(1, "zone", "DoNotSchedule"), labels={"foo": "", "version": "v2"}), cluster)
    assert plain["node-a"] == SKEW and plain["node-x"] is None
    keyed = run_filter(pod_with(spread(1, "zone", "DoNotSchedule", matchLabelKeys=["version"]),
                                labels={"foo": "", "version": "v2"}), cluster)
    # only version=v2 pods count now: zone1 0, zone2 1
    assert keyed["node-a"] is None and keyed["node-x"] == SKEW


def test_filter_other_namespace_and_terminating_not_counted() -> None:
    cluster = build(ZONES, {"node-y": 1})
    for i in range(3):
        cluster.upsert_pod(PodInfo.from_dict(make_pod(f"o{i}", namespace="other", labels={"foo": ""}, nodeName="node-a")))
    dying = make_pod("dying", labels={"foo": ""}, nodeName="node-b")
    dying["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    cluster.upsert_pod(PodInfo.from_dict(dying))
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule")), cluster)
    assert out == {"node-a": None, "node-b": None, "node-x": SKEW, "node-y": SKEW}


def test_filter_constraint_order_decides_reason() -> None:
    nodes = [("node-a", {"zone": "zone1", "rack": "r1"}), ("node-b", {"zone": "zone1"}), ("node-x", {"zone": "zone2", "rack": "r2"})]
    cluster = build(nodes, {"node-a": 2, "node-b": 2})
    # node-b lacks "rack": excluded from counting (zone1 holds 2, zone2 0); the first failing
    # constraint in order gives the reason
    out = run_filter(pod_with(spread(1, "zone", "DoNotSchedule"), spread(1, "rack", "DoNotSchedule")), cluster)
    assert out == {"node-a": SKEW, "node-b": SKEW, "node-x": None}
    out = run_filter(pod_with(spread(5, "zone", "DoNotSchedule"), spread(1, "rack", "DoNotSchedule")), cluster)
    assert out == {"node-a": SKEW, "node-b": MISSING, "node-x": None}


def test_pre_filter_skips_without_hard_constraints() -> None:
    pod = pod_with(spread(1, "zone", "ScheduleAnyway"))
    assert PodTopologySpread().pre_filter(state=CycleState(), pod=pod, cluster=build(ZONES, {})).code == Code.SKIP
    plain = PodInfo.from_dict(make_pod("p"))
    assert PodTopologySpread().pre_filter(state=CycleState(), pod=plain, cluster=build(ZONES, {})).code == Code.SKIP


def test_filter_recomputes_after_placements_change() -> None:
    cluster = build(ZONES, {"node-a": 1, "node-x": 1})
    pod = pod_with(spread(1, "zone", "DoNotSchedule"))
    plugin = PodTopologySpread()
    state = CycleState()
    plugin.pre_filter(state=state, pod=pod, cluster=cluster)
    assert plugin.filter(state=state, pod=pod, nodes=view(cluster), cluster=cluster).feasible.all()
    cluster.upsert_pod(PodInfo.from_dict(make_pod("late", labels={"foo": ""}, nodeName="node-b")))
    result = plugin.filter(state=state, pod=pod, nodes=view(cluster), cluster=cluster)
    assert result.feasible.tolist() == [False, False, True, True]


# ---- scoring ------------------------------------------------------------------------------
def run_score(pod: PodInfo, cluster: ClusterState, feasible: list[str], plugin: PodTopologySpread | None = None) -> dict[str, int]:
    plugin = plugin or PodTopologySpread()
    state = CycleState()
    nodes = view(cluster, feasible)
    status = plugin.pre_score(state=state, pod=pod, nodes=nodes, cluster=cluster)
    assert status is None, status
    raw = plugin.score(state=state, nodes=nodes)
    out = plugin.normalize_score(state=state, nodes=nodes, scores=raw)
    return dict(zip(nodes.names, out.tolist(), strict=True))


HOSTS4 = [("node-a", {}), ("node-b", {}), ("node-c", {}), ("node-d", {})]


def test_score_no_existing_pods() -> None:
    pod = pod_with(spread(1, HOST, "ScheduleAnyway"))
    assert run_score(pod, build(HOSTS4[:2], {}), ["node-a", "node-b"]) == {"node-a": 100, "node-b": 100}


def test_score_only_one_candidate() -> None:
    pod = pod_with(spread(1, HOST, "ScheduleAnyway"))
    assert run_score(pod, build(HOSTS4[:2], {"node-a": 2, "node-b": 1}), ["node-a"]) == {"node-a": 100}


@pytest.mark.parametrize(
    ("skew", "placed", "want"),
    [
        (1, {"node-a": 2, "node-b": 1, "node-d": 3}, [20, 60, 100, 0]),
        (2, {"node-a": 2, "node-b": 1, "node-d": 3}, [33, 66, 100, 16]),
        (3, {"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}, [44, 66, 77, 100]),
    ],
)
def test_score_hostname_all_candidates(skew: int, placed: dict[str, int], want: list[int]) -> None:
    pod = pod_with(spread(skew, HOST, "ScheduleAnyway"))
    got = run_score(pod, build(HOSTS4, placed), ["node-a", "node-b", "node-c", "node-d"])
    assert list(got.values()) == want


def test_score_null_selector_all_equal() -> None:
    pod = pod_with(spread(1, HOST, "ScheduleAnyway", selector=None))
    got = run_score(pod, build(HOSTS4, {"node-a": 2, "node-b": 1, "node-d": 3}), ["node-a", "node-b", "node-c", "node-d"])
    assert set(got.values()) == {100}


def test_score_three_of_four_candidates() -> None:
    hosts = [("node-a", {}), ("node-b", {}), ("node-x", {}), ("node-y", {})]
    pod = pod_with(spread(1, HOST, "ScheduleAnyway"))
    got = run_score(pod, build(hosts, {"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}), ["node-a", "node-b", "node-x"])
    assert got == {"node-a": 33, "node-b": 83, "node-x": 100}


def test_score_candidate_missing_topology_key() -> None:
    # kube-scheduler's case with topologyKey "node" (our table always sets the hostname label)
    nodes = [("node-a", {"node": "node-a"}), ("node-b", {"n": "node-b"}), ("node-x", {"node": "node-x"}), ("node-y", {"node": "node-y"})]
    pod = pod_with(spread(1, "node", "ScheduleAnyway"))
    got = run_score(pod, build(nodes, {"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}), ["node-a", "node-b", "node-x"])
    assert got == {"node-a": 16, "node-b": 0, "node-x": 100}


def test_score_zone_three_of_four() -> None:
    pod = pod_with(spread(1, "zone", "ScheduleAnyway"))
    got = run_score(pod, build(ZONES, {"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}), ["node-a", "node-b", "node-x"])
    assert got == {"node-a": 75, "node-b": 75, "node-x": 100}


def test_score_two_constraints_two_candidates() -> None:
    pod = pod_with(spread(1, "zone", "ScheduleAnyway"), spread(1, HOST, "ScheduleAnyway"))
    got = run_score(pod, build(ZONES, {"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}), ["node-a", "node-x"])
    assert got == {"node-a": 100, "node-x": 63}


def test_score_two_constraints_different_selectors() -> None:
    pod = pod_with(spread(1, "zone", "ScheduleAnyway"), spread(1, HOST, "ScheduleAnyway", selector=BAR),
                   labels={"foo": "", "bar": ""})
    placed = {"node-a": [{"foo": ""}], "node-b": [{"foo": "", "bar": ""}], "node-y": [{"foo": ""}, {"bar": ""}]}
    got = run_score(pod, build(ZONES, placed), ["node-a", "node-b", "node-x", "node-y"])
    assert got == {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}
    placed = {"node-b": [{"bar": ""}], "node-x": [{"foo": ""}], "node-y": [{"foo": "", "bar": ""}]}
    got = run_score(pod, build(ZONES, placed), ["node-a", "node-b", "node-x", "node-y"])
    assert got == {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}


def test_score_system_default_uses_service_selector() -> None:
    cluster = build(HOSTS4, {"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1})
    pod = PodInfo.from_dict(make_pod("p", labels={"foo": ""}))
    assert PodTopologySpread().pre_score(state=CycleState(), pod=pod, nodes=view(cluster), cluster=cluster).code == Code.SKIP
    cluster.upsert_object("Service", {"kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
                                      "spec": {"selector": {"foo": ""}}})
    got = run_score(pod, cluster, ["node-a", "node-b", "node-c", "node-d"])
    # nodes have no zone label: only hostname spreading applies (same as one constraint)
    assert list(got.values()) == [44, 66, 77, 100]


def test_default_selector_from_replicaset_owner() -> None:
    cluster = build(HOSTS4, {"node-a": [{"app": "x"}] * 2, "node-b": [{"app": "y"}] * 2})
    cluster.upsert_object("ReplicaSet", {"kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default"},
                                         "spec": {"selector": {"matchLabels": {"app": "x"}}}})
    raw = make_pod("p", labels={"app": "x"})
    raw["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": True}]
    got = run_score(PodInfo.from_dict(raw), cluster, ["node-a", "node-b", "node-c"])
    assert got["node-a"] < got["node-b"] == got["node-c"] == 100


def test_list_defaulting_and_args_validation() -> None:
    args = PodTopologySpreadArgs.model_validate({"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})
    plugin = PodTopologySpread(args)
    cluster = build(ZONES, {"node-a": 2})
    cluster.upsert_object("Service", {"kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
                                      "spec": {"selector": {"foo": ""}}})
    out = run_filter(PodInfo.from_dict(make_pod("p", labels={"foo": ""})), cluster, plugin)
    assert out == {"node-a": SKEW, "node-b": SKEW, "node-x": None, "node-y": None}
    with pytest.raises(ValueError):
        PodTopologySpreadArgs.model_validate({"defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})
    with pytest.raises(ValueError):
        PodTopologySpreadArgs.model_validate({"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})


@pytest.mark.parametrize(("gate", "where"), [(True, "n-b"), (False, "n-a")])
def test_match_label_keys_gate_read_from_the_scheduler_gates(gate: bool, where: str) -> None:
    """MatchLabelKeysInPodTopologySpread reaches the plugin from --feature-gates: on, the pod spreads
    against its own revision (one in zone a, none in b: b); off, matchLabelKeys is ignored and it
    spreads against every app=x pod (one in a, two in b: a)."""
    gates = {"MatchLabelKeysInPodTopologySpread": gate, "MatchLabelKeysInPodTopologySpreadSelectorMerge": gate}
    nodes = [make_node(name, cpu="8", labels={"zone": zone}) for name, zone in (("n-a", "a"), ("n-b", "b"))]
    placed = [make_pod("x1", labels={"app": "x", "rev": "1"}, nodeName="n-a"),
              make_pod("x2", labels={"app": "x", "rev": "2"}, nodeName="n-b"),
              make_pod("x3", labels={"app": "x", "rev": "2"}, nodeName="n-b")]
    constraint = spread(1, "zone", "DoNotSchedule", {"matchLabels": {"app": "x"}}, matchLabelKeys=["rev"])
    with SchedulerTester(["PodTopologySpread"], objects=[*nodes, *placed], feature_gates=gates) as t:
        assert t.generation.default_profile.plugins["PodTopologySpread"].match_label_keys is gate
        pod = make_pod("new", labels={"app": "x", "rev": "1"}, topologySpreadConstraints=[constraint])
        assert t.schedule(pod) == {"new": where}

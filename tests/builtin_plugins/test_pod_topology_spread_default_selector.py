"""PodTopologySpread's default constraints with helper.DefaultSelector: the selector comes from the
pod's Services and its controlling ReplicationController, ReplicaSet or StatefulSet. Upstream cases
(filtering_test.go / scoring_test.go, v1.37.2) verbatim, plus the same objects reaching the plugin
through the embedded cluster (as `kubeberth simulate` manifests and the Kubernetes informers do)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from kubeberth import Code, CycleState, LabelSelector, PodInfo
from kubeberth.builtin_plugins.pod_topology_spread import PodTopologySpread, PodTopologySpreadArgs
from kubeberth.testing import SchedulerTester, all_nodes, cluster_of, make_node, make_pod

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO_EXISTS = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}  # upstream's fooSelector


def pod(labels: dict[str, str], owner: tuple[str, str] | None = None, spread: list[dict[str, Any]] | None = None,
        namespace: str = "default") -> PodInfo:
    raw = make_pod("p", namespace=namespace, labels=labels)
    if owner:
        kind, name = owner
        api = "v1" if kind == "ReplicationController" else "apps/v1"
        raw["metadata"]["ownerReferences"] = [
            {"apiVersion": api, "kind": kind, "name": name, "uid": name, "controller": True}]
    if spread:
        raw["spec"]["topologySpreadConstraints"] = spread
    return PodInfo.from_dict(raw)


def constraint(skew: int, key: str, when: str, selector: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        out["labelSelector"] = selector
    return out


def service(selector: dict[str, str], namespace: str = "default", name: str = "svc") -> dict[str, Any]:
    return {"kind": "Service", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": selector}}


def replica_set(name: str, selector: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector}}


def plugin(defaults: list[dict[str, Any]] | None) -> PodTopologySpread:
    if defaults is None:
        return PodTopologySpread(PodTopologySpreadArgs(defaultingType="System"))
    return PodTopologySpread(PodTopologySpreadArgs(defaultingType="List", defaultConstraints=defaults))


def shape(constraints: list[Any]) -> list[tuple[int, str, LabelSelector]]:
    return [(c.constraint.max_skew, c.constraint.topology_key, c.constraint.selector) for c in constraints]


# TestPreFilterState, v1.37.2 (filtering_test.go), verbatim. Upstream's Service has no namespace
# and neither has its pod: both are in the same (default) namespace here.
PRE_FILTER_CASES = [
    (
        "TestPreFilterState/default constraints and a service",
        {"foo": "bar", "baz": "kar"}, None,
        [constraint(3, "node", "DoNotSchedule"), constraint(2, "node", "ScheduleAnyway"),
         constraint(5, "rack", "DoNotSchedule")],
        [service({"foo": "bar"})],
        [(3, "node", LabelSelector.from_set({"foo": "bar"})), (5, "rack", LabelSelector.from_set({"foo": "bar"}))],
    ),
    (
        "TestPreFilterState/default constraints and a service that doesn't match",
        {"foo": "bar"}, None, [constraint(3, "node", "DoNotSchedule")], [service({"baz": "kep"})], "skip",
    ),
    (
        "TestPreFilterState/default constraints and a service, but pod has constraints",
        {"foo": "bar", "baz": "tar"},
        [constraint(1, "zone", "DoNotSchedule", {"matchLabels": {"baz": "tar"}}),
         constraint(2, "planet", "ScheduleAnyway", {"matchLabels": {"fot": "rok"}})],
        [constraint(2, "node", "DoNotSchedule")],
        [service({"foo": "bar"})],
        [(1, "zone", LabelSelector.from_set({"baz": "tar"}))],
    ),
    (
        "TestPreFilterState/default soft constraints and a service",
        {"foo": "bar"}, None, [constraint(2, "node", "ScheduleAnyway")], [service({"foo": "bar"})], "skip",
    ),
]


@pytest.mark.parametrize(("labels", "spread", "defaults", "objects", "want"), [c[1:] for c in PRE_FILTER_CASES],
                         ids=[c[0] for c in PRE_FILTER_CASES])
def test_pre_filter_default_selector(labels, spread, defaults, objects, want) -> None:
    cluster = cluster_of(*objects)
    state = CycleState()
    status = plugin(defaults).pre_filter(state=state, pod=pod(labels, spread=spread), cluster=cluster)
    if want == "skip":
        assert status is not None and status.code == Code.SKIP
        return
    assert status is None
    assert shape(state["PodTopologySpread.preFilter"].constraints) == want


# TestPreScoreSkip and TestPreScoreStateEmptyNodes, v1.37.2 (scoring_test.go), verbatim: the
# constraints and their normalizing weights (topologyNormalizingWeight(size) = log(size + 2)).
PRE_SCORE_CASES = [
    (
        "TestPreScoreSkip/default constraints and a replicaset that doesn't match",
        pod({"foo": "bar", "baz": "sup"}, ("ReplicaSet", "rs2")),
        [constraint(2, "planet", "ScheduleAnyway")],
        [make_node("node-a", labels={"planet": "mars"})],
        [replica_set("rs1", {"matchExpressions": [{"key": "tar", "operator": "Exists"}]})],
        "skip",
    ),
    (
        "TestPreScoreStateEmptyNodes/system default constraints and a replicaset",
        pod({"foo": "tar", "baz": "sup"}, ("ReplicaSet", "rs1")),
        None,
        [make_node("node-a", labels={HOST: "node-a", ZONE: "mars"}), make_node("node-b", labels={HOST: "node-b", ZONE: "mars"}),
         make_node("node-c", labels={HOST: "node-c"}), make_node("node-d", labels={HOST: "node-d"})],
        [replica_set("rs1", FOO_EXISTS)],
        ([(3, HOST, LabelSelector.from_api(FOO_EXISTS)), (5, ZONE, LabelSelector.from_api(FOO_EXISTS))],
         [math.log(4 + 2), math.log(2 + 2)]),
    ),
    (
        "TestPreScoreStateEmptyNodes/default constraints and a replicaset",
        pod({"foo": "tar", "baz": "sup"}, ("ReplicaSet", "rs1")),
        [constraint(1, HOST, "ScheduleAnyway"), constraint(2, "rack", "DoNotSchedule"),
         constraint(2, "planet", "ScheduleAnyway")],
        [make_node("node-a", labels={"rack": "rack1", HOST: "node-a", "planet": "mars"})],
        [replica_set("rs1", FOO_EXISTS)],
        ([(1, HOST, LabelSelector.from_api(FOO_EXISTS)), (2, "planet", LabelSelector.from_api(FOO_EXISTS))],
         [math.log(1 + 2), math.log(1 + 2)]),
    ),
    (
        "TestPreScoreStateEmptyNodes/default constraints and a replicaset, but pod has constraints",
        pod({"foo": "bar", "baz": "sup"}, ("ReplicaSet", "rs1"),
            [constraint(1, "zone", "DoNotSchedule", {"matchLabels": {"bar": ""}}),
             constraint(2, "planet", "ScheduleAnyway", {"matchLabels": {"baz": "sup"}})]),
        [constraint(2, "galaxy", "ScheduleAnyway")],
        [make_node("node-a", labels={"planet": "mars", "galaxy": "andromeda"})],
        [replica_set("rs1", FOO_EXISTS)],
        ([(2, "planet", LabelSelector.from_set({"baz": "sup"}))], [math.log(1 + 2)]),
    ),
]


@pytest.mark.parametrize(("incoming", "defaults", "nodes", "objects", "want"), [c[1:] for c in PRE_SCORE_CASES],
                         ids=[c[0] for c in PRE_SCORE_CASES])
def test_pre_score_default_selector(incoming, defaults, nodes, objects, want) -> None:
    cluster = cluster_of(*nodes, *objects)
    state = CycleState()
    status = plugin(defaults).pre_score(state=state, pod=incoming, nodes=all_nodes(cluster), cluster=cluster)
    if want == "skip":
        assert status is not None and status.code == Code.SKIP
        return
    assert status is None
    computed = state["PodTopologySpread.preScore"].constraints
    assert (shape(computed), [c.weight for c in computed]) == want


def test_default_selector_objects_reach_the_plugin_through_the_cluster() -> None:
    """Services and controllers applied to the embedded cluster (a simulate manifest, or the
    Kubernetes informers) feed the system-default spreading: pods of one Service spread over
    hostnames even though they carry no constraints of their own; a pod of no Service does not."""
    nodes = [make_node(f"n{i}", cpu="8", labels={HOST: f"n{i}"}) for i in range(3)]
    placed = [make_pod(f"web-{i}", "100m", labels={"app": "web"}, nodeName="n0") for i in range(4)]
    with SchedulerTester(default_plugins=True, objects=[*nodes, *placed, service({"app": "web"}, name="web")]) as t:
        scores = t.evaluate(make_pod("web-new", "100m", labels={"app": "web"})).scores["PodTopologySpread"]
        assert scores["n0"] < scores["n1"] == scores["n2"]
        other = t.evaluate(make_pod("batch", "100m", labels={"app": "batch"})).scores
        assert "PodTopologySpread" not in other or len(set(other["PodTopologySpread"].values())) == 1
        t.delete("Service", "default/web")
        t.sync()
        gone = t.evaluate(make_pod("web-later", "100m", labels={"app": "web"})).scores
        assert "PodTopologySpread" not in gone or len(set(gone["PodTopologySpread"].values())) == 1

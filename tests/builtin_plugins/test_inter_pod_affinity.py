"""InterPodAffinity: filter and score cases after kube-scheduler's filtering_test.go / scoring_test.go."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState
from kubeberth.builtin_plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
    InterPodAffinityArgs,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import cluster_of, make_node, make_pod

CHINA = {"region": "China"}
INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}
HOST = "kubernetes.io/hostname"


def term(key: str, op: str, values: list[str], topology: str, **extra: Any) -> dict[str, Any]:
    expr: dict[str, Any] = {"key": key, "operator": op}
    if values:
        expr["values"] = values
    return {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology, **extra}


def affinity(required: list[dict[str, Any]] = (), anti: list[dict[str, Any]] = (),  # type: ignore[assignment]
             preferred: list[tuple[int, dict[str, Any]]] = (), preferred_anti: list[tuple[int, dict[str, Any]]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    out: dict[str, Any] = {}
    if required or preferred:
        out["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(required),
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": w, "podAffinityTerm": t} for w, t in preferred],
        }
    if anti or preferred_anti:
        out["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti),
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": w, "podAffinityTerm": t} for w, t in preferred_anti],
        }
    return out


def build(nodes: list[tuple[str, dict[str, str]]], placed: list[tuple[str, dict[str, Any]]],
          namespaces: dict[str, dict[str, str]] | None = None) -> ClusterState:
    """placed: (node, make_pod kwargs)."""
    return cluster_of(
        [make_node(name, labels=labels) for name, labels in nodes],
        [{"kind": "Namespace", "metadata": {"name": name, "labels": labels}} for name, labels in (namespaces or {}).items()],
        [make_pod(f"existing{i}", nodeName=node, **kwargs) for i, (node, kwargs) in enumerate(placed)],
    )


def view(cluster: ClusterState, names: list[str] | None = None):
    table = cluster.table
    names = names if names is not None else sorted(table.row_of)
    return table.view(np.asarray([table.row_of[n] for n in names], dtype=np.int64))


CODES = {ERR_REASON_AFFINITY: Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ANTI_AFFINITY: Code.UNSCHEDULABLE,
         ERR_REASON_EXISTING_ANTI_AFFINITY: Code.UNSCHEDULABLE}


def run_filter(pod: PodInfo, cluster: ClusterState) -> dict[str, str | None] | None:
    """Reasons per node; None when pre_filter skips the plugin."""
    plugin = InterPodAffinity()
    state = CycleState()
    status = plugin.pre_filter(state=state, pod=pod, cluster=cluster)
    if status is not None:
        assert status.code == Code.SKIP
        return None
    nodes = view(cluster)
    result = plugin.filter(state=state, pod=pod, nodes=nodes, cluster=cluster)
    out: dict[str, str | None] = {n: None for n in nodes.names}
    for rej in result.rejections:
        assert rej.code == CODES[rej.reason]
        for i in np.flatnonzero(rej.nodes):
            assert out[nodes.names[i]] is None
            out[nodes.names[i]] = rej.reason
    assert result.feasible.tolist() == [out[n] is None for n in nodes.names]
    return out


def incoming(labels: dict[str, str] | None = None, namespace: str = "default", **aff: Any) -> PodInfo:
    return PodInfo.from_dict(make_pod("incoming", labels=labels, namespace=namespace, affinity=affinity(**aff)))


NODES3 = [("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)]


def test_skip_when_nothing_applies() -> None:
    cluster = build(NODES3, [("node1", {"labels": S1})])
    assert run_filter(incoming(S1), cluster) is None


def test_required_affinity_by_region() -> None:
    cluster = build(NODES3, [("node1", {"labels": S1})])
    pod = incoming(required=[term("security", "In", ["S1"], "region")])
    assert run_filter(pod, cluster) == {"node1": None, "node2": None, "node3": ERR_REASON_AFFINITY}


def test_required_affinity_all_terms_must_match_one_pod() -> None:
    cluster = build(NODES3, [("node1", {"labels": S1}), ("node3", {"labels": {"team": "a"}})])
    pod = incoming(required=[term("security", "In", ["S1"], "region"), term("team", "In", ["a"], "region")])
    # no single pod matches both terms, and the incoming pod does not match them itself
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_AFFINITY, "node2": ERR_REASON_AFFINITY, "node3": ERR_REASON_AFFINITY}


def test_required_affinity_topology_key_missing_on_node() -> None:
    cluster = build([("node1", CHINA), ("node2", AZ1)], [("node1", {"labels": S1})])
    pod = incoming(required=[term("security", "In", ["S1"], "region")])
    assert run_filter(pod, cluster) == {"node1": None, "node2": ERR_REASON_AFFINITY}


def test_first_pod_of_a_series_matches_its_own_term() -> None:
    cluster = build([("node1", CHINA), ("node2", AZ1)], [("node1", {"labels": S2})])
    pod = incoming(S1, required=[term("security", "In", ["S1"], "region")])
    # nobody matches, but the pod matches its own term: nodes carrying the key pass
    assert run_filter(pod, cluster) == {"node1": None, "node2": ERR_REASON_AFFINITY}
    other = incoming(S2, required=[term("security", "In", ["S1"], "region")])
    assert run_filter(other, cluster) == {"node1": ERR_REASON_AFFINITY, "node2": ERR_REASON_AFFINITY}


def test_self_match_does_not_apply_once_a_matching_pod_exists() -> None:
    cluster = build([("node1", CHINA), ("node3", INDIA)], [("node3", {"labels": S1})])
    pod = incoming(S1, required=[term("security", "In", ["S1"], "region")])
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_AFFINITY, "node3": None}


def test_required_anti_affinity() -> None:
    cluster = build(NODES3, [("node1", {"labels": S1})])
    pod = incoming(anti=[term("security", "In", ["S1"], HOST)])
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_ANTI_AFFINITY, "node2": None, "node3": None}
    pod = incoming(anti=[term("security", "In", ["S1"], "region")])
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_ANTI_AFFINITY, "node2": ERR_REASON_ANTI_AFFINITY, "node3": None}


def test_existing_pods_anti_affinity_symmetry() -> None:
    existing = {"labels": {"app": "db"}, "affinity": affinity(anti=[term("security", "In", ["S1"], "region")])}
    cluster = build(NODES3, [("node1", existing)])
    assert run_filter(incoming(S1), cluster) == {
        "node1": ERR_REASON_EXISTING_ANTI_AFFINITY, "node2": ERR_REASON_EXISTING_ANTI_AFFINITY, "node3": None}
    assert run_filter(incoming(S2), cluster) is None  # the existing term does not select S2
    # the placed pod leaves: the symmetry constraint goes with it
    cluster.remove_pod(next(iter(cluster.pods)))
    assert run_filter(incoming(S1), cluster) is None


def test_reason_precedence_affinity_first() -> None:
    existing = {"labels": S1, "affinity": affinity(anti=[term("security", "In", ["S1"], HOST)])}
    cluster = build(NODES3, [("node1", existing), ("node3", {"labels": {"x": "y"}})])
    pod = incoming(S1, required=[term("x", "In", ["y"], "region")], anti=[term("security", "In", ["S1"], HOST)])
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_AFFINITY, "node2": ERR_REASON_AFFINITY, "node3": None}
    pod = incoming(S1, anti=[term("security", "In", ["S1"], HOST)])
    assert run_filter(pod, cluster) == {"node1": ERR_REASON_ANTI_AFFINITY, "node2": None, "node3": None}


def test_namespaces_and_namespace_selector() -> None:
    nss = {"team-a": {"team": "a"}, "team-b": {"team": "b"}, "default": {}}
    cluster = build(NODES3, [("node1", {"labels": S1, "namespace": "team-a"})], nss)
    plain = incoming(anti=[term("security", "In", ["S1"], HOST)])
    assert run_filter(plain, cluster) is None or set(run_filter(plain, cluster).values()) == {None}
    listed = incoming(anti=[term("security", "In", ["S1"], HOST, namespaces=["team-a"])])
    assert run_filter(listed, cluster)["node1"] == ERR_REASON_ANTI_AFFINITY
    selected = incoming(anti=[term("security", "In", ["S1"], HOST, namespaceSelector={"matchLabels": {"team": "a"}})])
    assert run_filter(selected, cluster)["node1"] == ERR_REASON_ANTI_AFFINITY
    other = incoming(anti=[term("security", "In", ["S1"], HOST, namespaceSelector={"matchLabels": {"team": "b"}})])
    assert run_filter(other, cluster)["node1"] is None
    everything = incoming(anti=[term("security", "In", ["S1"], HOST, namespaceSelector={})])
    assert run_filter(everything, cluster)["node1"] == ERR_REASON_ANTI_AFFINITY


def test_existing_term_namespace_selector_uses_incoming_namespace_labels() -> None:
    nss = {"team-a": {"team": "a"}, "team-b": {"team": "b"}}
    existing = {"labels": {"app": "db"}, "affinity": affinity(
        anti=[term("security", "In", ["S1"], HOST, namespaceSelector={"matchLabels": {"team": "a"}})])}
    cluster = build(NODES3, [("node1", existing)], nss)
    assert run_filter(incoming(S1, namespace="team-a"), cluster)["node1"] == ERR_REASON_EXISTING_ANTI_AFFINITY
    assert run_filter(incoming(S1, namespace="team-b"), cluster) is None


def test_invalid_selector_is_unresolvable() -> None:
    pod = incoming(required=[term("security", "Bogus", ["S1"], "region")])
    status = InterPodAffinity().pre_filter(state=CycleState(), pod=pod, cluster=build(NODES3, []))
    assert status is not None and status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons[0].startswith("parsing pod:")


# ---- scoring ------------------------------------------------------------------------------
def run_score(pod: PodInfo, cluster: ClusterState, args: InterPodAffinityArgs | None = None) -> dict[str, int] | None:
    plugin = InterPodAffinity(args)
    state = CycleState()
    nodes = view(cluster)
    status = plugin.pre_score(state=state, pod=pod, nodes=nodes, cluster=cluster)
    if status is not None:
        assert status.code == Code.SKIP
        return None
    raw = plugin.score(state=state, nodes=nodes)
    return dict(zip(nodes.names, plugin.normalize_score(scores=raw).tolist(), strict=True))


STAY_WITH_S1_IN_REGION = [(5, term("security", "In", ["S1"], "region"))]
AVOID_S1_IN_REGION = [(5, term("security", "In", ["S1"], "region"))]


def test_score_no_affinity_skips() -> None:
    cluster = build(NODES3, [("node1", {"labels": S1})])
    assert run_score(incoming(S1), cluster) is None


def test_score_affinity_matching_topology_gets_high_score() -> None:
    cluster = build([("node1", CHINA), ("node2", INDIA), ("node3", AZ1)], [("node1", {"labels": S1})])
    assert run_score(incoming(preferred=STAY_WITH_S1_IN_REGION), cluster) == {"node1": 100, "node2": 0, "node3": 0}


def test_score_same_topology_value_same_score() -> None:
    cluster = build([("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)], [("node1", {"labels": S1})])
    assert run_score(incoming(preferred=STAY_WITH_S1_IN_REGION), cluster) == {"node1": 100, "node2": 100, "node3": 0}


def test_score_weights_accumulate() -> None:
    nodes = [("node1", CHINA), ("node2", INDIA), ("node3", {"region": "US"})]
    placed = [("node1", {"labels": S1}), ("node1", {"labels": S1}), ("node2", {"labels": S1})]
    got = run_score(incoming(preferred=STAY_WITH_S1_IN_REGION), build(nodes, placed))
    assert got == {"node1": 100, "node2": 50, "node3": 0}


def test_score_anti_affinity() -> None:
    cluster = build([("node1", CHINA), ("node2", INDIA)], [("node1", {"labels": S1}), ("node2", {"labels": S2})])
    assert run_score(incoming(preferred_anti=AVOID_S1_IN_REGION), cluster) == {"node1": 0, "node2": 100}


def test_score_affinity_and_anti_affinity_combined() -> None:
    nodes = [("node1", CHINA), ("node2", INDIA), ("node3", {"region": "US"})]
    placed = [("node1", {"labels": S1}), ("node2", {"labels": S2})]
    pod = incoming(preferred=[(5, term("security", "In", ["S1"], "region"))],
                   preferred_anti=[(3, term("security", "In", ["S2"], "region"))])
    # raw: node1 +5, node2 -3, node3 0 -> min-max over [-3, 5]
    assert run_score(pod, build(nodes, placed)) == {"node1": 100, "node2": 0, "node3": 37}


def test_score_existing_pods_preferred_terms_symmetry() -> None:
    existing = {"labels": {"app": "web"}, "affinity": affinity(preferred=[(5, term("security", "In", ["S1"], "region"))])}
    cluster = build([("node1", CHINA), ("node2", INDIA)], [("node1", existing)])
    assert run_score(incoming(S1), cluster) == {"node1": 100, "node2": 0}
    assert run_score(incoming(S1), cluster, InterPodAffinityArgs(ignorePreferredTermsOfExistingPods=True)) is None
    anti = {"labels": {"app": "web"}, "affinity": affinity(preferred_anti=[(5, term("security", "In", ["S1"], "region"))])}
    cluster = build([("node1", CHINA), ("node2", INDIA)], [("node1", anti)])
    assert run_score(incoming(S1), cluster) == {"node1": 0, "node2": 100}


def test_score_hard_pod_affinity_weight() -> None:
    existing = {"labels": {"app": "web"}, "affinity": affinity(required=[term("security", "In", ["S1"], "region")])}
    cluster = build([("node1", CHINA), ("node2", CHINA_AZ1), ("node3", INDIA)], [("node1", existing)])
    assert run_score(incoming(S1), cluster) == {"node1": 100, "node2": 100, "node3": 0}
    assert run_score(incoming(S1), cluster, InterPodAffinityArgs(hardPodAffinityWeight=0)) is None
    assert run_score(incoming(S2), cluster) is None


def test_score_index_follows_pod_removal() -> None:
    existing = {"labels": {"app": "web"}, "affinity": affinity(preferred=[(5, term("security", "In", ["S1"], "region"))])}
    cluster = build([("node1", CHINA), ("node2", INDIA)], [("node1", existing), ("node2", existing)])
    assert run_score(incoming(S1), cluster) == {"node1": 0, "node2": 0}
    cluster.remove_pod(next(uid for uid, p in cluster.pods.items() if p.node_name == "node2"))
    assert run_score(incoming(S1), cluster) == {"node1": 100, "node2": 0}


# ---- invalid terms: upstream cases, v1.37.2, verbatim ---------------------------------------
BAD_VALUE_ERROR = (
    'values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be an empty string or consist of '
    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
    "'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
INVALID_PRE_FILTER = [
    ("TestRequiredAffinitySingleNode/PodAffinity fails PreFilter with an invalid affinity label syntax",
     [term("service", "In", ["{{.bad-value.}}"], "region"), term("service", "In", ["antivirusscan", "value2"], "node")]),
    ("TestRequiredAffinitySingleNode/PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
     [term("service", "In", ["foo"], "region"), term("service", "In", ["{{.bad-value.}}"], "node")]),
]


@pytest.mark.parametrize("required", [c[1] for c in INVALID_PRE_FILTER], ids=[c[0] for c in INVALID_PRE_FILTER])
def test_upstream_invalid_required_term_fails_pre_filter(required: list[dict[str, Any]]) -> None:
    pod = incoming({"service": "securityscan"}, required=required)
    status = InterPodAffinity().pre_filter(
        state=CycleState(), pod=pod, cluster=build([("node1", {"region": "r1", "zone": "z11"})], [])
    )
    assert status is not None and status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == (f"parsing pod: requiredAffinityTerms: {BAD_VALUE_ERROR}",)


def _bad(key: str) -> dict[str, Any]:
    return term("security", "In", ["{{.bad-value.}}"], key)


INVALID_PRE_SCORE = [
    ("TestPreferredAffinity/invalid Affinity fails PreScore", {"preferred": [(8, _bad("region"))]}),
    ("TestPreferredAffinity/invalid AntiAffinity fails PreScore", {"preferred_anti": [(5, _bad("az"))]}),
]


@pytest.mark.parametrize("aff", [c[1] for c in INVALID_PRE_SCORE], ids=[c[0] for c in INVALID_PRE_SCORE])
def test_upstream_invalid_preferred_term_fails_pre_score(aff: dict[str, Any]) -> None:
    cluster = build([("node1", {"region": "China"}), ("node2", {"region": "China"})], [])
    status = InterPodAffinity().pre_score(
        state=CycleState(), pod=incoming(**aff), nodes=view(cluster), cluster=cluster
    )
    assert status is not None and status.code == Code.ERROR
    assert 'Invalid value: "{{.bad-value.}}"' in status.reasons[0]

"""InterPodAffinity: kube-scheduler v1.37.2's filtering_test.go PreFilter-state tables, case by case.

The Go tests read the PreFilter state's topology-pair counts (topologyToMatchedTermCount). kubeberth keeps
them per term as per-domain count columns; `pair_counts` folds those into the same {(key, value): count}
maps. The Go tables run twice (InterPodAffinityHostnameFastPath on and off) with the same expectations; that
gate is an implementation detail of Go's per-node loop, so each case runs once.
"""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import CycleState
from kubeberth.builtin_plugins.inter_pod_affinity import InterPodAffinity, InterPodAffinityArgs, pod_terms
from st import metav1, v1
from upstream import cases, snapshot, view

_PRE_FILTER_KEY = "InterPodAffinity.preFilter"


def _fold(cluster: Any, per_term: list[tuple[str, Any]]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for key, counts in per_term:
        _, values = cluster.table.label_values(key)
        for i, value in enumerate(values):
            c = int(counts[i]) if i < len(counts) else 0
            if c:
                out[(key, value)] = out.get((key, value), 0) + c
    return out


def pair_counts(cluster: Any, pod: Any, computed: Any) -> dict[str, dict[tuple[str, str], int]]:
    """The Go preFilterState's count maps, from kubeberth's PreFilter state."""
    terms = pod_terms(pod)
    return {
        "clusterWideAffinityCounts": _fold(cluster, [
            (t.topology_key, dom) for t, (_ids, dom) in zip(terms.required_affinity, computed.affinity, strict=True)
        ]),
        "clusterWideAntiAffinityCounts": _fold(cluster, [
            (t.topology_key, dom) for t, (_ids, dom) in zip(terms.required_anti, computed.anti, strict=True)
        ]),
        "existingClusterWideAntiAffinityCounts": _fold(cluster, [
            (_key_of(cluster, ids), dom) for ids, dom in computed.existing
        ]),
    }


def _key_of(cluster: Any, ids: Any) -> str:
    """The topology key of an existing-anti-affinity column (kubeberth keys it by the label's domain ids)."""
    keys = {k for row in cluster.table.row_of.values() for k in cluster.table.labels_of(row)}
    for key in sorted(keys):
        if cluster.table.label_values(key)[0] is ids:
            return key
    raise AssertionError("no label key for an existing anti-affinity column")


# ---- TestGetTPMapMatchingIncomingAffinityAntiAffinity ------------------------------------------------------
def newPod(*labels: str) -> dict[str, Any]:  # noqa: N802
    pod = st.MakePod().Name("normal").Node("nodeA")
    for label in labels:
        pod.Label(label, "")
    return pod.Obj()


normalPodA = newPod("aaa")
normalPodB = newPod("bbb")
normalPodAB = newPod("aaa", "bbb")
nodeA = {"kind": "Node", "metadata": {"name": "nodeA", "labels": {v1.LabelHostname: "nodeA"}}}
R, AR = st.PodAffinityWithRequiredReq, st.PodAntiAffinityWithRequiredReq

TestGetTPMapMatchingIncomingAffinityAntiAffinity = [
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/nil test",
        "nodes": [nodeA],
        "pod": st.MakePod().Name("aaa-normal").Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod without affinity/anti-affinity causes a no-op",
        "existingPods": [normalPodA],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("aaa-normal").Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/no pod has label that violates incoming pod's affinity "
        "and anti-affinity",
        "existingPods": [normalPodB],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("aaa-anti").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAntiAffinityExists("aaa", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod matches incoming pod's affinity and "
        "anti-affinity - single term case",
        "existingPods": [normalPodA],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAntiAffinityExists("aaa", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
        "wantAntiAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod matches incoming pod's affinity and "
        "anti-affinity - multiple terms case",
        "existingPods": [normalPodAB],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAffinityExists("bbb", v1.LabelHostname, R).PodAntiAffinityExists("aaa", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 2},  # 2 one for each term.
        "wantAntiAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/existing pod not match incoming pod's affinity but "
        "matches anti-affinity",
        "existingPods": [normalPodA],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAffinityExists("bbb", v1.LabelHostname, R)
        .PodAntiAffinityExists("aaa", v1.LabelHostname, AR)
        .PodAntiAffinityExists("bbb", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod's anti-affinity has more than one term - "
        "existing pod violates partial term - case 1",
        "existingPods": [normalPodAB],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("anaffi-antiaffiti").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAffinityExists("ccc", v1.LabelHostname, R)
        .PodAntiAffinityExists("aaa", v1.LabelHostname, AR)
        .PodAntiAffinityExists("ccc", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
    },
    {
        "name": "TestGetTPMapMatchingIncomingAffinityAntiAffinity/incoming pod's anti-affinity has more than one term - "
        "existing pod violates partial term - case 2",
        "existingPods": [normalPodB],
        "nodes": [nodeA],
        "pod": st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", v1.LabelHostname, R)
        .PodAffinityExists("bbb", v1.LabelHostname, R)
        .PodAntiAffinityExists("aaa", v1.LabelHostname, AR)
        .PodAntiAffinityExists("bbb", v1.LabelHostname, AR).Obj(),
        "wantAffinityPodsMap": {},
        "wantAntiAffinityPodsMap": {(v1.LabelHostname, "nodeA"): 1},
    },
]


@pytest.mark.parametrize("tt", cases(TestGetTPMapMatchingIncomingAffinityAntiAffinity))
def test_get_tp_map_matching_incoming_affinity_anti_affinity(tt: dict[str, Any]) -> None:
    cluster = snapshot(tt.get("existingPods"), tt["nodes"])
    pod = st.pod_info(tt["pod"])
    plugin = InterPodAffinity(InterPodAffinityArgs())
    # getIncomingAffinityAntiAffinityCounts: the incoming pod's term counts PreFilter computes.
    got = pair_counts(cluster, pod, plugin._pre_filter_state(pod, pod_terms(pod), cluster))
    assert got["clusterWideAffinityCounts"] == tt["wantAffinityPodsMap"]
    assert got["clusterWideAntiAffinityCounts"] == tt["wantAntiAffinityPodsMap"]


# ---- TestPreFilterStateAddRemovePod --------------------------------------------------------------------------
label1 = {"region": "r1", "zone": "z11"}
label2 = {"region": "r1", "zone": "z12"}
label3 = {"region": "r2", "zone": "z21"}
selector1 = {"foo": "bar"}


def _term(key: str, op: str, values: list[str], topology: str) -> dict[str, Any]:
    return {"labelSelector": {"matchExpressions": [{"key": key, "operator": op, "values": values}]},
            "topologyKey": topology}


antiAffinityFooBar = {"requiredDuringSchedulingIgnoredDuringExecution": [
    _term("foo", metav1.LabelSelectorOpIn, ["bar"], "region"),
]}
antiAffinityComplex = {"requiredDuringSchedulingIgnoredDuringExecution": [
    _term("foo", metav1.LabelSelectorOpIn, ["bar", "buzz"], "region"),
    _term("service", metav1.LabelSelectorOpNotIn, ["bar", "security", "test"], "zone"),
]}
affinityComplex = {"requiredDuringSchedulingIgnoredDuringExecution": [
    _term("foo", metav1.LabelSelectorOpIn, ["bar", "buzz"], "region"),
    _term("service", metav1.LabelSelectorOpNotIn, ["bar", "security", "test"], "zone"),
]}


def _pod(name: str, labels: dict[str, str] | None = None, node: str = "", **affinity: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if node:
        spec["nodeName"] = node
    if affinity:
        spec["affinity"] = affinity
    meta: dict[str, Any] = {"name": name}
    if labels is not None:
        meta["labels"] = labels
    return {"kind": "Pod", "metadata": meta, "spec": spec}


def _node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"kind": "Node", "metadata": {"name": name, "labels": labels}}


_ADD_REMOVE = "TestPreFilterStateAddRemovePod/preFilterState anti-affinity terms are updated correctly after adding and removing a pod"
TestPreFilterStateAddRemovePod = [
    {
        "name": _ADD_REMOVE,
        "pendingPod": _pod("pending", selector1, podAntiAffinity=antiAffinityFooBar),
        "existingPods": [
            _pod("p1", selector1, "nodeA"),
            _pod("p2", None, "nodeC", podAntiAffinity=antiAffinityFooBar),
        ],
        "addedPod": _pod("addedPod", selector1, "nodeB", podAntiAffinity=antiAffinityFooBar),
        "nodes": [_node("nodeA", label1), _node("nodeB", label2), _node("nodeC", label3)],
        "expectedAntiAffinity": {("region", "r1"): 2},
        "expectedAffinity": {},
    },
    {
        "name": _ADD_REMOVE,
        "pendingPod": _pod("pending", selector1, podAntiAffinity=antiAffinityComplex),
        "existingPods": [
            _pod("p1", selector1, "nodeA"),
            _pod("p2", None, "nodeC", podAntiAffinity=antiAffinityFooBar),
        ],
        "addedPod": _pod("addedPod", selector1, "nodeA", podAntiAffinity=antiAffinityComplex),
        "nodes": [_node("nodeA", label1), _node("nodeB", label2), _node("nodeC", label3)],
        "expectedAntiAffinity": {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        "expectedAffinity": {},
    },
    {
        "name": "TestPreFilterStateAddRemovePod/preFilterState matching pod affinity and anti-affinity are updated "
        "correctly after adding and removing a pod",
        "pendingPod": _pod("pending", selector1, podAffinity=affinityComplex),
        "existingPods": [
            _pod("p1", selector1, "nodeA"),
            _pod("p2", None, "nodeC", podAntiAffinity=antiAffinityFooBar, podAffinity=affinityComplex),
        ],
        "addedPod": _pod("addedPod", selector1, "nodeA", podAntiAffinity=antiAffinityComplex),
        "nodes": [_node("nodeA", label1), _node("nodeB", label2), _node("nodeC", label3)],
        "expectedAntiAffinity": {},
        "expectedAffinity": {("region", "r1"): 2, ("zone", "z11"): 2},
    },
    {
        "name": "TestPreFilterStateAddRemovePod/preFilterState anti-affinity terms with both hostname and non-hostname "
        "are updated correctly after adding and removing a pod",
        "pendingPod": _pod("pending", selector1, podAntiAffinity=antiAffinityFooBar),
        "existingPods": [_pod("p1", selector1, "nodeA")],
        "addedPod": _pod("addedPod", selector1, "nodeA", podAntiAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [
            _term("foo", metav1.LabelSelectorOpIn, ["bar"], "region"),
            _term("foo", metav1.LabelSelectorOpIn, ["bar"], v1.LabelHostname),
        ]}),
        "nodes": [
            _node("nodeA", {"region": "r1", "zone": "z11", v1.LabelHostname: "nodeA"}),
            _node("nodeB", {"region": "r1", "zone": "z12", v1.LabelHostname: "nodeB"}),
        ],
        "expectedAntiAffinity": {("region", "r1"): 2},
        "expectedAffinity": {},
    },
]


def _state(plugin: InterPodAffinity, cluster: Any, pending: Any, state: CycleState | None = None) -> Any:
    """PreFilter (or, on an existing CycleState, Filter's refresh after a cluster change) and its counts."""
    if state is None:
        state = CycleState()
        assert plugin.pre_filter(state=state, pod=pending, cluster=cluster) is None
    else:
        plugin.filter(state=state, pod=pending, nodes=view(cluster), cluster=cluster)
    return state, pair_counts(cluster, pending, state[_PRE_FILTER_KEY])


@pytest.mark.parametrize("test", cases(TestPreFilterStateAddRemovePod))
def test_pre_filter_state_add_remove_pod(test: dict[str, Any]) -> None:
    """AddPod/RemovePod: kubeberth's PreFilter state follows the cluster (PreFilterState.SELF_UPDATING), so the
    pod is added to and removed from the cluster and Filter reads the state recomputed."""
    plugin = InterPodAffinity(InterPodAffinityArgs())
    pending = st.pod_info(test["pendingPod"])
    added = st.pod_info({**test["addedPod"], "metadata": {**test["addedPod"]["metadata"], "uid": "default/addedPod"}})
    # allPodsState: PreFilter given every pod, the added one included.
    _, all_pods_state = _state(plugin, snapshot([*test["existingPods"], test["addedPod"]], test["nodes"]), pending)
    cluster = snapshot(test["existingPods"], test["nodes"])
    state, original_state = _state(plugin, cluster, pending)

    cluster.upsert_pod(added)
    _, new_state = _state(plugin, cluster, pending, state)
    assert new_state["clusterWideAntiAffinityCounts"] == test["expectedAntiAffinity"]
    assert new_state["clusterWideAffinityCounts"] == test["expectedAffinity"]
    assert new_state == all_pods_state

    assert cluster.remove_pod(added.uid) is not None
    assert _state(plugin, cluster, pending, state)[1] == original_state

    # Pure RemovePod: start from every pod, remove the added one.
    cluster2 = snapshot([*test["existingPods"], test["addedPod"]], test["nodes"])
    state2, _ = _state(plugin, cluster2, pending)
    assert cluster2.remove_pod("default/addedPod") is not None
    assert _state(plugin, cluster2, pending, state2)[1] == original_state

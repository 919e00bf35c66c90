"""kubeberth.api.helpers: the public selector, toleration, topology and scoring helpers."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from kubeberth import StrictArgs, Taint, helpers
from kubeberth.api.helpers import (
    LabelSelector,
    NodeSelector,
    SelectorError,
    default_normalize_score,
    domain_sums,
    first_untolerated,
    label_selector_matches,
    matching_pod_counts,
    required_node_affinity,
    untolerated_taint_sets,
)
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.nodetable import NodeTable
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import make_node, make_pod
from pydantic import ValidationError


def test_docstring_examples() -> None:
    import importlib
    import pkgutil

    modules = [helpers] + [importlib.import_module(f"{helpers.__name__}.{m.name}") for m in pkgutil.iter_modules(helpers.__path__)]
    results = [doctest.testmod(m) for m in modules]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 5


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        (None, {"a": "1"}, False),  # nil selects nothing
        ({}, {"a": "1"}, True),  # empty selects everything
        ({"matchLabels": {"a": "1"}}, {"a": "1"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}, {"a": "5"}, False),  # not a label op
    ],
)
def test_label_selector_matches(selector, labels, expected) -> None:
    assert label_selector_matches(selector, labels) is expected


def test_invalid_selector_raises_on_parse() -> None:
    with pytest.raises(SelectorError, match="values set can't be empty"):
        LabelSelector.from_api({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})


def test_node_selector_row_mask_matches_per_node_evaluation() -> None:
    table = NodeTable()
    for i, zone in enumerate(["a", "b", "a", "c"]):
        table.upsert_node(make_node(f"n{i}", labels={"zone": zone, "size": str(i)}))
    selector = NodeSelector.parse(
        {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
                {"matchExpressions": [{"key": "size", "operator": "Gt", "values": ["2"]}]},
            ]
        }
    )
    rows = table.ordered_rows()
    mask = selector.row_mask(table, rows)
    expected = [selector.matches(table.labels_of(r), table.names[r] or "") for r in rows.tolist()]
    assert mask.tolist() == expected
    assert sorted(table.names[r] for r in rows[mask].tolist()) == ["n0", "n2", "n3"]


def test_required_node_affinity_combines_node_selector_and_terms() -> None:
    table = NodeTable()
    table.upsert_node(make_node("a", labels={"disk": "ssd", "zone": "z1"}))
    table.upsert_node(make_node("b", labels={"disk": "ssd", "zone": "z2"}))
    pod = PodInfo.from_dict(
        make_pod(
            "p",
            nodeSelector={"disk": "ssd"},
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}]
                    }
                }
            },
        )
    )
    required = required_node_affinity(pod)
    assert required is required_node_affinity(pod)  # parsed once per pod
    assert required.row_mask(table, table.ordered_rows()).tolist() == [False, True]


def test_first_untolerated_and_taint_sets() -> None:
    taints = (Taint("gpu", "true", "NoSchedule"), Taint("spot", "", "PreferNoSchedule"))
    assert first_untolerated(taints, ()) == taints[0]
    pod = PodInfo.from_dict(make_pod("p", tolerations=[{"key": "gpu", "operator": "Exists"}]))
    assert first_untolerated(taints, pod.tolerations) is None
    table = NodeTable()
    table.upsert_node(make_node("plain"))
    table.upsert_node(make_node("gpu", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]))
    per_set = untolerated_taint_sets(table, ())
    view = table.view(table.ordered_rows())
    assert view.broadcast_taint_sets(per_set).tolist() == [False, True]


def test_matching_pod_counts_per_node() -> None:
    cluster = ClusterState()
    cluster.upsert_node(make_node("n1"))
    cluster.upsert_node(make_node("n2"))
    for i, (node, app) in enumerate([("n1", "web"), ("n1", "web"), ("n2", "db"), ("n2", "web")]):
        raw = make_pod(f"p{i}", labels={"app": app}, uid=f"u{i}", nodeName=node)
        cluster.upsert_pod(PodInfo.from_dict(raw))
    counts = matching_pod_counts(cluster, LabelSelector.from_set({"app": "web"}))
    rows = [cluster.table.row_of["n1"], cluster.table.row_of["n2"]]
    assert counts[rows].tolist() == [2, 1]


def test_domain_sums_and_normalize() -> None:
    ids = np.asarray([0, 1, -1, 0])
    assert domain_sums(ids, np.asarray([1, 2, 5, 3]), 3).tolist() == [4, 2, 0]
    assert default_normalize_score(np.asarray([0, 5, 10]), reverse=False).tolist() == [0, 50, 100]
    assert default_normalize_score(np.asarray([0, 5, 10]), reverse=True).tolist() == [100, 50, 0]
    assert default_normalize_score(np.asarray([0, 0]), reverse=True).tolist() == [100, 100]


def test_strict_args_rejects_unknown_keys() -> None:
    class Args(StrictArgs):
        label: str = "team"

    assert Args.model_validate({"label": "x"}).label == "x"
    with pytest.raises(ValidationError, match="podLabel"):
        Args.model_validate({"podLabel": "x"})


# ---- one selector engine: what a nil selector means is the caller's to say --------------------
def test_nil_selector_semantics_are_explicit() -> None:
    from kubeberth.api.helpers import compile_label_selector

    assert not label_selector_matches(None, {"a": "b"})  # LabelSelectorAsSelector(nil): Nothing
    assert label_selector_matches(None, {"a": "b"}, none_is_everything=True)  # no selector: no restriction
    assert label_selector_matches({}, {"a": "b"})
    assert compile_label_selector(None).nothing
    assert compile_label_selector(None, none_is_everything=True).everything
    # an invalid selector matches nothing either way (callers skip what they cannot parse)
    bad = {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}
    assert not label_selector_matches(bad, {"a": "b"}, none_is_everything=True)
    assert compile_label_selector(bad, none_is_everything=True).nothing


def test_node_selector_terms_match_parses_once_and_matches_fields_by_name() -> None:
    from kubeberth.api.helpers import node_selector_terms, node_selector_terms_match

    terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
             {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]
    assert node_selector_terms(terms) is node_selector_terms([dict(t) for t in terms])  # memoised by content
    assert node_selector_terms_match(terms, {"zone": "a"})
    assert node_selector_terms_match(terms, {}, "n1")
    assert not node_selector_terms_match(terms, {}, "n2")
    assert not node_selector_terms_match([{}], {"zone": "a"})  # an empty term matches nothing
    assert not node_selector_terms_match([{"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["x"]}]}],
                                         {"k": "6"})  # unparsable: nothing


def test_shape_table_and_args_error() -> None:
    from kubeberth.api.helpers import UtilizationShapePoint, args_error, shape_table, validate_shape

    shape = [UtilizationShapePoint(utilization=0, score=10), UtilizationShapePoint(utilization=100, score=0)]
    table = shape_table(shape)
    assert table[0] == 100 and table[50] == 50 and table[100] == 0
    assert str(args_error("a.b", "bad")) == "a.b: bad"
    with pytest.raises(Exception, match=r"shape\[1\]\.utilization: values must be sorted"):
        validate_shape([shape[1], shape[0]], "shape")


def test_object_accessors() -> None:
    from kubeberth.api.helpers import annotations_of, claim_class, meta_of, object_key, pv_class, spec_of

    pvc = {"metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "beta"}},
           "spec": {"storageClassName": "ga"}}
    assert claim_class(pvc) == "beta" and pv_class({"spec": {"storageClassName": "ga"}}) == "ga"
    assert claim_class({}) == "" and meta_of({}) == {} and spec_of({}) == {} and annotations_of({}) == {}
    assert object_key(pvc) == "default/c"

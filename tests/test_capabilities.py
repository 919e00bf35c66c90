"""Declared capabilities: requeue interest per profile, filter scope and PreFilter state, validation."""

from __future__ import annotations

import pytest
from kubeberth import Capabilities, FilterScope, PreFilterState, hookimpl
from kubeberth.api.capabilities import capabilities_of
from kubeberth.errors import PluginLoadError
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import SchedulerTester, make_node, make_pod


class Picky:
    name = "Picky"
    requeue_on = {"Node/Update", "PersistentVolume"}
    filter_scope = FilterScope.NODE
    pre_filter_state = PreFilterState.NO_POD_DATA

    @hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


class Plain:
    name = "Plain"

    @hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


def test_declarations_are_read_and_defaults_are_safe() -> None:
    caps = capabilities_of(Picky())
    assert caps == Capabilities(frozenset({"Node/Update", "PersistentVolume"}), FilterScope.NODE, PreFilterState.NO_POD_DATA)
    assert caps.interested_in("Node/Update") and caps.interested_in("PersistentVolume/Add")
    assert not caps.interested_in("Node/Add") and not caps.interested_in("Pod/Delete")
    plain = capabilities_of(Plain())
    assert plain == Capabilities(None, FilterScope.CLUSTER, PreFilterState.RERUN)
    assert plain.interested_in("Pod/Delete") and not plain.filter_scope.node_local


@pytest.mark.parametrize(
    ("attr", "value", "message"),
    [
        ("requeue_on", "Node/Add", "requeue_on must be a collection of event names"),
        ("requeue_on", {"Node/Added"}, "requeue_on: ['Node/Added'] are not events"),
        ("filter_scope", "node", "filter_scope must be a FilterScope, got 'node'"),
        ("pre_filter_state", True, "pre_filter_state must be a PreFilterState, got True"),
        ("pod_indexes", {"Plain.used": "UsedIndex"}, "pod_indexes must map index keys to factories"),
    ],
)
def test_a_bad_declaration_fails_the_generation_naming_the_plugin(attr: str, value: object, message: str) -> None:
    bad = Plain()
    setattr(bad, attr, value)
    config = parse_configuration(
        {"profiles": [{"schedulerName": "s", "plugins": {"filter": {"enabled": [{"name": "Plain"}]}}}]}
    )
    with pytest.raises(PluginLoadError, match="plugin 'Plain'") as err:
        build_generation(config=config, extra_plugins=[bad])
    assert message in str(err.value)


def test_requeue_interest_is_per_profile() -> None:
    """Two profiles enable same-named plugins declared differently: each pod's own profile decides."""

    class Strict(Plain):
        requeue_on = ("Node/Update",)

    config = parse_configuration(
        {
            "profiles": [
                {"schedulerName": "a", "plugins": {"filter": {"enabled": [{"name": "Plain"}]}}},
                {"schedulerName": "b", "plugins": {"filter": {"enabled": [{"name": "Plain"}]}}},
            ]
        }
    )
    gen = build_generation(config=config, extra_plugins=[Plain()])
    a, b = gen.profiles["a"], gen.profiles["b"]
    b.capabilities["Plain"] = capabilities_of(Strict())
    assert a.interested("Plain", "Node/Add") and not b.interested("Plain", "Node/Add")
    assert b.interested("Plain", "Node/Update")


def test_builtins_declare_what_preemption_needs() -> None:
    gen = build_generation()
    fw = gen.default_profile
    scopes = {name: fw.capabilities_of(name).filter_scope for name in fw.enabled("filter")}
    assert scopes["NodeResourcesFit"] is FilterScope.NODE_RESOURCES
    assert {n for n, s in scopes.items() if s is FilterScope.NODE} == {
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "VolumeBinding", "VolumeZone",
        "NodeDeclaredFeatures",
    }
    rerun = [n for n in fw.enabled("pre_filter") if fw.capabilities_of(n).pre_filter_state is PreFilterState.RERUN]
    assert rerun == ["VolumeRestrictions"]


class Hinted:
    name = "Hinted"
    requeue_on = frozenset({"Node/Update", "PodGroup"})
    queueing_hints = {"Node/Update": "node_update", "PodGroup/Add": "boom"}

    def node_update(self, pod, old, new) -> bool:
        return bool(new and new.get("gpus"))

    def boom(self, pod, old, new) -> bool:
        raise RuntimeError("broken hint")


def test_queueing_hints_narrow_requeue_on_per_pod() -> None:
    caps = capabilities_of(Hinted())
    assert caps.requeues("Node/Update", "pod", None, {"gpus": 1})
    assert not caps.requeues("Node/Update", "pod", None, {})
    assert not caps.requeues("Node/Add", "pod", None, {"gpus": 1})  # not in requeue_on
    assert caps.requeues("PodGroup/Update", "pod")  # registered, no hint: always
    assert caps.requeues("PodGroup/Add", "pod")  # a hint that raises retries the pod, as upstream


@pytest.mark.parametrize(
    ("hints", "message"),
    [
        ({"Node": "node_update"}, "is not an event"),
        ({"Pod/Add": "node_update"}, "is not in requeue_on"),
        ({"Node/Update": "missing"}, "is not a method of the plugin"),
        (["Node/Update"], "must map events to method names"),
    ],
)
def test_bad_queueing_hints_name_the_problem(hints: object, message: str) -> None:
    plugin = Hinted()
    plugin.queueing_hints = hints  # type: ignore[assignment]
    with pytest.raises(TypeError, match=message):
        capabilities_of(plugin)


class Counted:
    """A PodIndex that counts the pods it was given."""

    def __init__(self, _cluster: object) -> None:
        self.added = 0

    def pod_added(self, pod: object, row: int) -> None:
        self.added += 1

    def pod_removed(self, pod: object, row: int) -> None:
        self.added -= 1


class Indexed:
    name = "Indexed"
    pod_indexes = {"Indexed.counted": Counted}

    @hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


def test_declared_pod_indexes_are_built_once_the_initial_lists_are_applied() -> None:
    placed = [make_pod(f"r{i}", "100m", "64Mi", nodeName="n1") for i in range(3)]
    with SchedulerTester([Indexed], objects=[make_node("n1"), *placed]) as t:
        t.sync()
        indexes = t.cluster._indexes
        assert indexes["Indexed.counted"].added == 3  # before any cycle read it
        assert "InterPodAffinity.existingTerms" not in indexes  # not enabled here: not built
        t.add(make_pod("r3", "100m", "64Mi", nodeName="n1"))
        t.sync()
        assert indexes["Indexed.counted"].added == 4  # then kept as pods come and go
    with SchedulerTester(default_plugins=True, objects=[make_node("n1"), *placed]) as t:
        t.sync()
        assert {"InterPodAffinity.existingTerms", "PodTopologySpread.terminating"} <= set(t.cluster._indexes)

"""kubeberth.testing: builders, SchedulerTester (evaluate / schedule / simulate) and the pytest plugin."""

from __future__ import annotations

import numpy as np
import pytest
from kubeberth import Code, FilterResult, NodeView, PodView, PreFilterResult, Status, hookimpl
from kubeberth.errors import ConfigError
from kubeberth.testing import (
    PluginError,
    SchedulerTester,
    Verdict,
    all_nodes,
    cluster_of,
    load_objects,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    parse_taint,
    parse_toleration,
    pod_info,
    profile_config,
)
from pydantic import BaseModel


class TeamNodes:
    """Pods labelled team=X only run on nodes labelled team=X; prefer nodes with more free pod slots."""

    name = "TeamNodes"

    class Args(BaseModel):
        label: str = "team"

    def __init__(self, args: Args | None = None) -> None:
        self.label = (args or self.Args()).label

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        team = pod.labels.get(self.label)
        if team is None:
            return None
        ids, values = nodes.label_values(self.label)
        wanted = values.index(team) if team in values else -2
        return FilterResult.reject_where(ids != wanted, f"node(s) are not for team {team}")

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView) -> np.ndarray:
        return nodes.allocatable("pods") - nodes.requested("pods")

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        top = scores.max() if scores.size else 0
        return scores * 100 // top if top else scores


class OnlyNodes:
    """PreFilter narrowing to the nodes named in the pod's `only` label (dot-separated)."""

    name = "OnlyNodes"

    @hookimpl
    def pre_filter(self, pod: PodView) -> PreFilterResult | Status | None:
        only = pod.labels.get("only")
        if only == "none":
            return Status.unschedulable("pod wants no node", unresolvable=True)
        return PreFilterResult(node_names=frozenset(only.split("."))) if only else None


class Crashes:
    name = "Crashes"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        raise RuntimeError("boom")


# ---- builders ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "taint"),
    [
        ("dedicated=gpu:NoSchedule", {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
        ("maintenance:PreferNoSchedule", {"key": "maintenance", "effect": "PreferNoSchedule"}),
        ({"key": "k", "value": "v", "effect": "NoExecute"}, {"key": "k", "value": "v", "effect": "NoExecute"}),
    ],
)
def test_parse_taint(spec, taint) -> None:
    assert parse_taint(spec) == taint


@pytest.mark.parametrize("spec", ["dedicated=gpu", "k=v:Sometimes", ""])
def test_parse_taint_rejects_what_kubectl_would(spec) -> None:
    with pytest.raises(ValueError, match="expected key"):
        parse_taint(spec)


@pytest.mark.parametrize(
    ("spec", "toleration"),
    [
        ("dedicated=gpu:NoSchedule", {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}),
        ("dedicated:NoSchedule", {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}),
        ("dedicated", {"key": "dedicated", "operator": "Exists"}),
    ],
)
def test_parse_toleration(spec, toleration) -> None:
    assert parse_toleration(spec) == toleration


def test_make_node_and_pod_parse_as_the_scheduler_sees_them() -> None:
    node = make_node("n1", cpu="4", memory="8Gi", labels={"team": "a"}, taints=["dedicated=gpu:NoSchedule"],
                     extra={"nvidia.com/gpu": 2}, zone="z1", images={"nginx:1": 100})
    cluster = cluster_of(node)
    view = all_nodes(cluster)
    assert view.names == ["n1"]
    assert view.allocatable("cpu").tolist() == [4000]
    assert view.allocatable("memory").tolist() == [8 * 1024**3]
    assert view.allocatable("nvidia.com/gpu").tolist() == [2]
    assert cluster.table.labels_of(int(view.rows[0])) == {
        "team": "a", "topology.kubernetes.io/zone": "z1", "kubernetes.io/hostname": "n1"}  # hostname as the kubelet sets it
    [taint] = cluster.table.taints_of(int(view.rows[0]))
    assert (taint.key, taint.value, taint.effect) == ("dedicated", "gpu", "NoSchedule")
    pod = pod_info(make_pod("p", "500m", "1Gi", requests={"nvidia.com/gpu": 1}, tolerations=["dedicated:NoSchedule"],
                            priority=7))
    assert pod.requests == {"cpu": 500, "memory": 1024**3, "nvidia.com/gpu": 1}
    assert pod.priority == 7
    assert pod.tolerations[0].tolerates("dedicated", "gpu", "NoSchedule")


def test_cluster_of_places_pods_with_node_name_and_keeps_other_objects() -> None:
    cluster = cluster_of([make_node("n1"), make_node("n2")], make_pod("p", "1", nodeName="n2"),
                         make_pvc("claim"), make_pv("vol", nodes=["n1"]))
    assert all_nodes(cluster).requested("cpu").tolist() == [0, 1000]
    # without a kind: a spec with containers is a pod, anything else a node
    bare = cluster_of({"metadata": {"name": "n"}}, {"metadata": {"name": "q", "uid": "q"},
                                                     "spec": {"nodeName": "n", "containers": []}})
    assert all_nodes(bare).names == ["n"] and list(bare.pods) == ["q"]
    assert cluster.get_object("PersistentVolumeClaim", "default/claim")["spec"]["resources"] == {
        "requests": {"storage": "1Gi"}}
    affinity = cluster.get_object("PersistentVolume", "vol")["spec"]["nodeAffinity"]
    assert affinity["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["n1"]


def test_load_objects_flattens_lists_and_streams(tmp_path) -> None:
    text = """
apiVersion: v1
kind: List
items:
- {kind: Node, metadata: {name: a}}
- {kind: Node, metadata: {name: b}}
---
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
"""
    assert [o["metadata"]["name"] for o in load_objects(text)] == ["a", "b", "p"]
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert len(load_objects(path)) == len(load_objects(str(path))) == 3


def test_profile_config_enables_only_the_plugins_under_test() -> None:
    config = profile_config([TeamNodes, ("NodeResourcesFit", 3)], args={"TeamNodes": {"label": "x"}})
    [profile] = config["profiles"]
    assert profile["plugins"]["multiPoint"] == {
        "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}, {"name": "TeamNodes"},
                    {"name": "NodeResourcesFit", "weight": 3}],
        "disabled": [{"name": "*"}],
    }
    assert profile["pluginConfig"] == [{"name": "TeamNodes", "args": {"label": "x"}}]


# ---- evaluate -----------------------------------------------------------------------------------
def test_evaluate_gives_every_nodes_verdict_and_scores(scheduler_tester) -> None:
    t = scheduler_tester([TeamNodes], objects=[
        make_node("a1", pods=10, labels={"team": "a"}),
        make_node("b", labels={"team": "b"}),
        make_node("a2", pods=20, labels={"team": "a"}),
        make_node("none"),
    ])
    ev = t.evaluate(make_pod("p", labels={"team": "a"}))
    assert ev.reasons == {"a1": None, "b": "node(s) are not for team a", "a2": None, "none": "node(s) are not for team a"}
    assert ev.verdicts["b"] == Verdict("TeamNodes", "node(s) are not for team a", Code.UNSCHEDULABLE)
    assert ev.feasible == ["a1", "a2"]
    assert ev.rejected_by("TeamNodes") == {"b": "node(s) are not for team a", "none": "node(s) are not for team a"}
    assert ev.scores == {"TeamNodes": {"a1": 50, "a2": 100}}  # normalized by the plugin's own normalize_score
    assert ev.totals == {"a1": 50, "a2": 100}
    assert ev.best == ["a2"]
    assert ev.pre_filter.ok and ev.message == ""


def test_evaluate_uses_plugin_args_and_weights(scheduler_tester) -> None:
    t = scheduler_tester([(TeamNodes, 3), "NodeResourcesFit"], args={"TeamNodes": {"label": "squad"}}, objects=[
        make_node("a", cpu="2", pods=10, labels={"squad": "x"}),
        make_node("b", cpu="8", pods=20, labels={"squad": "x"})])
    assert t.plugin("TeamNodes").label == "squad"
    ev = t.evaluate(make_pod("p", "1", labels={"squad": "x"}))
    assert ev.scores["TeamNodes"] == {"a": 50, "b": 100}
    fit = ev.scores["NodeResourcesFit"]
    assert ev.totals == {n: 3 * ev.scores["TeamNodes"][n] + fit[n] for n in ("a", "b")}


def test_evaluate_reports_the_fit_error_message_when_nothing_fits(scheduler_tester) -> None:
    t = scheduler_tester([TeamNodes, "NodeResourcesFit"], objects=[make_node("a", cpu="1", labels={"team": "a"}),
                                                                   make_node("b", cpu="8")])
    ev = t.evaluate(make_pod("p", "2", labels={"team": "a"}))
    assert ev.reasons == {"a": "Insufficient cpu", "b": "node(s) are not for team a"}
    assert ev.message == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) are not for team a."
    assert ev.scores == {} and ev.best == []


def test_evaluate_pre_filter_narrowing_and_rejection(scheduler_tester) -> None:
    t = scheduler_tester([OnlyNodes, TeamNodes], objects=[make_node(n) for n in ("a", "b", "c")])
    ev = t.evaluate(make_pod("p", labels={"only": "a.c"}))
    assert ev.feasible == ["a", "c"]
    assert ev.verdicts["b"] == Verdict("OnlyNodes", "node(s) didn't satisfy plugin(s) [OnlyNodes]",
                                       Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    ev = t.evaluate(make_pod("p", labels={"only": "none"}))
    assert ev.pre_filter.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert set(ev.reasons.values()) == {"pod wants no node"}
    assert ev.message == "0/3 nodes are available: pod wants no node."


def test_evaluate_raises_the_plugins_exception(scheduler_tester) -> None:
    t = scheduler_tester([Crashes], objects=[make_node("a")])
    with pytest.raises(PluginError, match="plugin Crashes raised RuntimeError: boom") as exc:
        t.evaluate(make_pod("p"))
    assert isinstance(exc.value.__cause__, RuntimeError)


def test_evaluate_sees_changes_and_changes_nothing(scheduler_tester) -> None:
    t = scheduler_tester(["NodeResourcesFit"], objects=[make_node("a", cpu="2"), make_node("b", cpu="2")])
    t.add(make_pod("big", "2", nodeName="a"))
    assert t.evaluate(make_pod("p", "1")).reasons == {"a": "Insufficient cpu", "b": None}
    assert t.evaluate(make_pod("p", "1")).feasible == ["b"]  # nothing was reserved by the first evaluation
    assert t.placements() == {"default/big": "a"}


def test_bad_args_are_the_configuration_error_a_user_would_see() -> None:
    with pytest.raises(ConfigError, match=r"pluginConfig\[0\]\.args\.label: Input should be a valid string"):
        SchedulerTester([TeamNodes], args={"TeamNodes": {"label": 3}})


# ---- schedule and simulate ---------------------------------------------------------------------
def test_schedule_runs_the_whole_loop(scheduler_tester) -> None:
    t = scheduler_tester([TeamNodes], objects=[make_node("a", labels={"team": "a"}), make_node("b")])
    placed = t.schedule(make_pod("p", labels={"team": "a"}), make_pod("q", labels={"team": "c"}),
                        make_pod("r", namespace="other"))
    assert placed["p"] == "a" and placed["q"] is None and placed["other/r"] in ("a", "b")
    assert t.events("q", "FailedScheduling") == ["0/2 nodes are available: 2 node(s) are not for team c."]
    [record] = t.records("p")
    assert (record.result, record.node) == ("Scheduled", "a")
    assert t.pod("p")["status"]["conditions"] == [{"type": "PodScheduled", "status": "True"}]


def test_schedule_takes_yaml(scheduler_tester) -> None:
    t = scheduler_tester(["NodeResourcesFit"])
    t.add("""
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
""")
    assert t.schedule("""
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
---
kind: Pod
metadata: {name: q}
spec: {containers: [{name: c, resources: {requests: {cpu: 800m}}}]}
""") == {"p": "n1", "q": None}


def test_simulate_with_the_testers_plugins(scheduler_tester) -> None:
    t = scheduler_tester([TeamNodes])
    result = t.simulate([make_node("a", labels={"team": "a"}), make_node("b", labels={"team": "b"})],
                        [make_pod(f"p{i}", labels={"team": "b"}) for i in range(3)])
    assert result.placements == {f"default/p{i}": "b" for i in range(3)}
    assert result.summary["scheduled"] == 3
    assert result.summary["plugins"]["filter"] == ["TeamNodes"]


def test_config_file_and_default_plugins(tmp_path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("profiles:\n- schedulerName: mine\n  plugins:\n    multiPoint:\n      enabled: [{name: TeamNodes}]\n")
    with SchedulerTester([TeamNodes], config=path) as t:
        assert t.framework.profile == "mine"
        assert "NodeResourcesFit" in t.framework.enabled("filter") and t.framework.enabled("filter")[-1] == "TeamNodes"
    with pytest.raises(TypeError, match="either config= or args="):
        SchedulerTester([TeamNodes], config=path, args={"TeamNodes": {"label": "x"}})
    with SchedulerTester([TeamNodes], default_plugins=True) as t:
        assert t.framework.enabled("filter")[-1] == "TeamNodes"
        assert "TaintToleration" in t.framework.enabled("filter")


def test_factory_fixtures_are_the_builders(node_factory, pod_factory) -> None:
    assert node_factory is make_node and pod_factory is make_pod


def test_pytest_plugin_loads_without_the_scheduler() -> None:
    """The plugin loads in every pytest run of an environment with kubeberth: it must stay light."""
    import subprocess
    import sys

    code = ("import sys, kubeberth.testing.plugin; "
            "print(sorted(m for m in sys.modules if m.startswith(('kubeberth.scheduling', 'kubeberth.testing.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.strip() == "['kubeberth.testing.plugin']"


GREETER = '''
from kubeberth import hookimpl


class Greeter:
    name = "Greeter"

    @hookimpl
    def filter(self, pod, nodes):
        return None
'''


def test_plugin_site_installs_a_distribution_discovery_finds(plugin_site, scheduler_tester) -> None:
    plugin_site.add_distribution("kubeberth-greeter", "2.0", files={"greeter/__init__.py": GREETER},
                                 plugins={"Greeter": "greeter:Greeter"})
    t = scheduler_tester(["Greeter"])
    assert t.generation.registry["Greeter"].source == "entrypoint:kubeberth-greeter==2.0"
    assert t.framework.enabled("filter") == ["Greeter"]
    import sys

    assert "greeter" in sys.modules
    assert plugin_site.forget_modules() == ["greeter"]
    assert "greeter" not in sys.modules


def test_evaluate_with_preemption_is_a_dry_run() -> None:
    """evaluate(preemption=True) says where preemption would nominate the pod and whom it would
    delete, and writes nothing: the victim keeps running, the pod is not nominated."""
    from kubeberth.testing import SchedulerTester, make_node, make_pod

    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1", cpu="4"), make_node("n2", cpu="4"),
              make_pod("low", "3", nodeName="n1", priority=1), make_pod("mid", "3", nodeName="n2", priority=5))
        ev = t.evaluate(make_pod("high", "2", priority=10), preemption=True)
        assert (ev.feasible, ev.nominated_node, ev.victims) == ([], "n1", ["default/low"])
        assert ev.message == ("0/2 nodes are available: 2 Insufficient cpu. "
                              "preemption: found a potential placement for pod on node n1, preempting 1 victims")
        assert not t.pod("low")["metadata"].get("deletionTimestamp")
        plain = t.evaluate(make_pod("high2", "2", priority=0), preemption=True)
        assert plain.nominated_node == "" and plain.message == (
            "0/2 nodes are available: 2 Insufficient cpu. "
            "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")

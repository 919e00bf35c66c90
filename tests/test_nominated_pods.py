"""Pods nominated by preemption are accounted per node, as kube-scheduler's
RunFilterPluginsWithNominatedPods does: on a node with nominated pods of equal or higher priority
the filters run with them placed there (AddPod on a clone of the PreFilter state), then without
them, and the node must pass both; every other node is filtered without any nominated pod."""

from __future__ import annotations

from typing import Any

from kubeberth.testing import SchedulerTester, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def nominated(name: str, node: str, priority: int, **kw: Any) -> dict[str, Any]:
    raw = make_pod(name, kw.pop("cpu", "100m"), priority=priority, **kw)
    raw["status"] = {"nominatedNodeName": node}
    return raw


def test_a_nominated_pod_counts_only_on_its_own_node() -> None:
    """Zone a has one `app=web` pod, zone b none; a higher-priority web pod is nominated on b1.
    Evaluating a1 without it, zone b's count is 0, so a1 would break maxSkew 1; on b1 it counts
    (and b1 passes both ways). Placing it in the counts of every node would accept a1."""
    spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("a1", labels={ZONE: "a"}), make_node("a2", labels={ZONE: "a"}),
              make_node("b1", labels={ZONE: "b"}), make_node("b2", labels={ZONE: "b"}),
              make_pod("web-0", "100m", labels={"app": "web"}, nodeName="a1"),
              nominated("web-hi", "b1", 100, labels={"app": "web"}))
        ev = t.evaluate(make_pod("web-1", "100m", labels={"app": "web"}, priority=0, topologySpreadConstraints=spread))
        assert ev.feasible == ["b1", "b2"]
        assert ev.reasons["a1"] == ev.reasons["a2"] == "node(s) didn't match pod topology spread constraints"


def test_a_node_must_pass_without_its_nominated_pods_too() -> None:
    """The only `app=cache` pod is nominated on n1: required affinity to it holds with the
    nominated pod placed, not without it, so no node fits (kube-scheduler's second pass)."""
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1"), make_node("n2"), nominated("cache", "n1", 100, labels={"app": "cache"}))
        ev = t.evaluate(make_pod("app", "100m", priority=0, affinity=affinity))
        assert ev.feasible == []
        assert ev.message == "0/2 nodes are available: 2 node(s) didn't match pod affinity rules."


def test_only_equal_or_higher_priority_nominations_take_room() -> None:
    """A 3-core pod nominated on n1 (of a 4-core pair) leaves no room for a 2-core pod of lower
    or equal priority there; a nomination of lower priority than the incoming pod does not count."""
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1", cpu="4"), make_node("n2", cpu="4"), nominated("big", "n1", 10, cpu="3"))
        for priority, feasible in ((0, ["n2"]), (10, ["n2"]), (11, ["n1", "n2"])):
            ev = t.evaluate(make_pod(f"p{priority}", "2", priority=priority))
            assert ev.feasible == feasible, priority
        assert t.evaluate(make_pod("q", "2", priority=0)).reasons["n1"] == "Insufficient cpu"


def test_the_scheduling_loop_places_around_a_nomination() -> None:
    """The same through the whole loop: a lower-priority pod does not take the nominated room."""
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1", cpu="4"), make_node("n2", cpu="1"),
              nominated("big", "n1", 10, cpu="3", schedulerName="someone-else"))
        placed = t.schedule(make_pod("small", "2", priority=0))
        assert placed == {"small": None}
        assert "0/2 nodes are available: 2 Insufficient cpu." in t.events("small", "FailedScheduling")[0]


def test_a_plugin_that_skipped_the_pod_ignores_nominated_pods() -> None:
    """kube-scheduler updates the cycle's PreFilter state for nominated pods through AddPod, and
    RunPreFilterExtensionAddPod passes over the plugins that returned Skip for the pod. No placed
    pod has anti-affinity and `web` has no terms, so InterPodAffinity skips it: the anti-affinity
    of the pod nominated on n1 is not checked, and n1 stays feasible (only its room would count)."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("n1"), make_node("n2"), nominated("guard", "n1", 100, affinity=anti))
        ev = t.evaluate(make_pod("web", "100m", priority=0, labels={"app": "web"}))
        assert ev.feasible == ["n1", "n2"]
        # With a placed pod whose anti-affinity selects `web`, the plugin runs, and so does its
        # first pass with the nominated pod placed.
        t.add(make_pod("guard-0", "100m", nodeName="n2", affinity=anti))
        ev = t.evaluate(make_pod("web", "100m", priority=0, labels={"app": "web"}))
        assert ev.feasible == []
        assert ev.reasons == dict.fromkeys(("n1", "n2"), "node(s) didn't satisfy existing pods anti-affinity rules")

"""PodTopologySpread's system-default constraints select by helper.DefaultSelector: the pod's
Services and its controlling ReplicationController, ReplicaSet or StatefulSet. The upstream cases
(TestPreFilterState, TestPreScoreSkip, TestPreScoreStateEmptyNodes) are in
test_pod_topology_spread_upstream.py; this checks that the objects reach the plugin through the
embedded cluster, as `kubeberth simulate` manifests and the Kubernetes informers deliver them."""

from __future__ import annotations

from typing import Any

from kubeberth.testing import SchedulerTester, make_node, make_pod

HOST = "kubernetes.io/hostname"


def service(selector: dict[str, str], namespace: str = "default", name: str = "svc") -> dict[str, Any]:
    return {"kind": "Service", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": selector}}


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


def test_a_service_created_later_reaches_pods_of_the_same_labels() -> None:
    """The plugin remembers each workload's default selector only while the cluster's objects are
    unchanged: a Service created after a first pod was scored applies to the next one."""
    nodes = [make_node(f"n{i}", cpu="8", labels={HOST: f"n{i}"}) for i in range(3)]
    placed = [make_pod(f"api-{i}", "100m", labels={"app": "api"}, nodeName="n0") for i in range(4)]
    with SchedulerTester(default_plugins=True, objects=[*nodes, *placed]) as t:
        before = t.evaluate(make_pod("api-new", "100m", labels={"app": "api"})).scores
        assert "PodTopologySpread" not in before or len(set(before["PodTopologySpread"].values())) == 1
        t.add(service({"app": "api"}, name="api"))
        t.sync()
        scores = t.evaluate(make_pod("api-later", "100m", labels={"app": "api"})).scores["PodTopologySpread"]
        assert scores["n0"] < scores["n1"] == scores["n2"]

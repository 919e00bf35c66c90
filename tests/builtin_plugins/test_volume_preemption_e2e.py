"""Volume and preemption plugins through the whole scheduler over the embedded cluster."""

from __future__ import annotations

from typing import Any

from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.scheduler import Scheduler, VirtualClock
from kubeberth.testing import make_node, make_pod

PLUGINS = ["PrioritySort", "NodeResourcesFit", "VolumeRestrictions", "VolumeBinding", "VolumeZone", "DefaultPreemption", "DefaultBinder"]
ZONE = "topology.kubernetes.io/zone"


def generation():
    profile = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": n} for n in PLUGINS], "disabled": [{"name": "*"}]}},
    }
    return build_generation(config=parse_configuration({"profiles": [profile]}))


def run(objects: list[dict[str, Any]], later: list[dict[str, Any]] = ()) -> tuple[EmbeddedCluster, Scheduler]:
    backend = EmbeddedCluster(objects)
    scheduler = Scheduler(generation(), backend, clock=VirtualClock(), seed=0, binding_workers=1)
    try:
        scheduler.start_backend()
        scheduler.run_until_settled(timeout=30)
        for obj in later:
            backend.apply(obj)
        scheduler.run_until_settled(timeout=30)
    finally:
        scheduler.shutdown()
    return backend, scheduler


def placed(backend: EmbeddedCluster) -> dict[str, str]:
    return {p["metadata"]["name"]: (p.get("spec") or {}).get("nodeName", "") for p in backend.pods()}


def test_high_priority_pod_preempts_and_lands_on_nominated_node() -> None:
    nodes = [make_node("n1", cpu="4"), make_node("n2", cpu="4")]
    lows = [make_pod("low1", "3", priority=0, nodeName="n1"), make_pod("low2", "3", priority=5, nodeName="n2")]
    high = make_pod("high", "2", priority=100)
    backend, scheduler = run([*nodes, *lows], [high])
    where = placed(backend)
    assert where.get("high") == "n1"  # the node whose victim has the lowest priority
    assert "low1" not in where and where["low2"] == "n2"
    assert any(e["reason"] == "Preempted" and e["regarding"] == "default/low1" for e in backend.events)


def test_preemption_policy_never_stays_pending_with_kube_message() -> None:
    nodes = [make_node("n1", cpu="4")]
    low = make_pod("low", "3", priority=0, nodeName="n1")
    never = make_pod("never", "2", priority=100, preemptionPolicy="Never")
    backend, _ = run([*nodes, low], [never])
    assert placed(backend) == {"low": "n1", "never": ""}
    messages = [e["note"] for e in backend.events if e["regarding"] == "default/never" and e["reason"] == "FailedScheduling"]
    # kube-scheduler appends the PostFilter message with " %v." (so it ends in ".."); the trailing
    # punctuation is the framework's business, the text is this plugin's.
    assert messages and messages[-1].startswith(
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
    )


def test_wait_for_first_consumer_pods_take_distinct_pvs() -> None:
    sc = {"kind": "StorageClass", "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
          "volumeBindingMode": "WaitForFirstConsumer"}

    def pv(name: str, zone: str) -> dict[str, Any]:
        return {
            "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {
                "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": ZONE, "operator": "In", "values": [zone]}]}]}},
            },
            "status": {"phase": "Available"},
        }

    def pvc(name: str) -> dict[str, Any]:
        return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                         "resources": {"requests": {"storage": "1Gi"}}}}

    def claim_pod(name: str, claim: str) -> dict[str, Any]:
        return make_pod(name, "100m", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])

    nodes = [make_node("na", labels={ZONE: "a"}), make_node("nb", labels={ZONE: "b"})]
    objects = [*nodes, sc, pv("pv-a", "a"), pv("pv-b", "b"), pvc("c1"), pvc("c2"), pvc("c3"),
               claim_pod("p1", "c1"), claim_pod("p2", "c2"), claim_pod("p3", "c3")]
    backend, _ = run(objects)
    where = placed(backend)
    bound = sorted(n for n in where.values() if n)
    assert bound == ["na", "nb"]  # two PVs, one per zone: two pods land, one in each zone
    pending = [p for p, n in where.items() if not n]
    assert len(pending) == 1
    notes = [e["note"] for e in backend.events if e["regarding"] == f"default/{pending[0]}" and e["reason"] == "FailedScheduling"]
    assert notes and notes[-1].startswith(
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind."
    )

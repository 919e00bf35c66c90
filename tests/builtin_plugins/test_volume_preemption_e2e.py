"""Volume and preemption plugins through the whole scheduler over the embedded cluster."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.testing import SchedulerTester, make_node, make_pod, make_pv, make_pvc

PLUGINS = ["NodeResourcesFit", "VolumeRestrictions", "VolumeBinding", "VolumeZone", "DefaultPreemption"]
ZONE = "topology.kubernetes.io/zone"


@pytest.fixture
def run(scheduler_tester):
    """Schedule `objects` until settled, then add `later` and settle again (one binding worker)."""

    def start(objects: list[dict[str, Any]], later: list[dict[str, Any]] = ()) -> SchedulerTester:
        t = scheduler_tester(PLUGINS, objects=objects, seed=0, binding_workers=1)
        t.settle()
        t.schedule(*later)
        return t

    return start


def test_high_priority_pod_preempts_and_lands_on_nominated_node(run) -> None:
    nodes = [make_node("n1", cpu="4"), make_node("n2", cpu="4")]
    lows = [make_pod("low1", "3", priority=0, nodeName="n1"), make_pod("low2", "3", priority=5, nodeName="n2")]
    high = make_pod("high", "2", priority=100)
    t = run([*nodes, *lows], [high])
    assert t.placements() == {"default/high": "n1", "default/low2": "n2"}  # low1, the lowest priority victim, is gone
    assert t.events("low1", "Preempted")


def test_preemption_policy_never_stays_pending_with_kube_message(run) -> None:
    nodes = [make_node("n1", cpu="4")]
    low = make_pod("low", "3", priority=0, nodeName="n1")
    never = make_pod("never", "2", priority=100, preemptionPolicy="Never")
    t = run([*nodes, low], [never])
    assert t.placements() == {"default/low": "n1", "default/never": None}
    messages = t.events("never", "FailedScheduling")
    # kube-scheduler appends the PostFilter message with " %v." (so it ends in ".."); the trailing
    # punctuation is the framework's business, the text is this plugin's.
    assert messages and messages[-1].startswith(
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
    )


def test_wait_for_first_consumer_pods_take_distinct_pvs(run) -> None:
    sc = {"kind": "StorageClass", "metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner",
          "volumeBindingMode": "WaitForFirstConsumer"}

    def claim_pod(name: str, claim: str) -> dict[str, Any]:
        return make_pod(name, "100m", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])

    nodes = [make_node("na", labels={ZONE: "a"}), make_node("nb", labels={ZONE: "b"})]
    pvs = [make_pv("pv-a", "10Gi", "local", zones=["a"]), make_pv("pv-b", "10Gi", "local", zones=["b"])]
    objects = [*nodes, sc, *pvs, *(make_pvc(c, "1Gi", "local") for c in ("c1", "c2", "c3")),
               claim_pod("p1", "c1"), claim_pod("p2", "c2"), claim_pod("p3", "c3")]
    t = run(objects)
    where = t.placements()
    bound = sorted(n for n in where.values() if n)
    assert bound == ["na", "nb"]  # two PVs, one per zone: two pods land, one in each zone
    pending = [p for p, n in where.items() if not n]
    assert len(pending) == 1
    notes = t.events(pending[0], "FailedScheduling")
    assert notes and notes[-1].startswith(
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind."
    )

"""An unschedulable pod's own update, through the real scheduler on the embedded cluster: what
changed (kube-scheduler's PodSchedulingPropertiesChange) decides whether it is retried."""

from __future__ import annotations

import copy

from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.pod_events import target_pod_events
from kubeberth.testing import SchedulerTester, make_node, make_pod

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def test_target_pod_events_name_what_changed() -> None:
    base = make_pod("p", "100m", uid="p")
    relabelled = copy.deepcopy(base)
    relabelled["metadata"]["labels"] = {"app": "x"}
    tolerating = copy.deepcopy(base)
    tolerating["spec"]["tolerations"] = [{"key": UNSCHEDULABLE_TAINT, "operator": "Exists"}]
    bigger = make_pod("p", "200m", uid="p")
    annotated = copy.deepcopy(base)
    annotated["metadata"]["annotations"] = {"note": "x"}
    old = PodInfo.from_dict(base)
    assert target_pod_events(old, PodInfo.from_dict(relabelled)) == ["TargetPod/UpdatePodLabel"]
    assert target_pod_events(old, PodInfo.from_dict(tolerating)) == ["TargetPod/UpdatePodToleration"]
    assert target_pod_events(old, PodInfo.from_dict(bigger)) == ["TargetPod/UpdatePodScaleUp"]
    assert target_pod_events(PodInfo.from_dict(bigger), old) == ["TargetPod/UpdatePodScaleDown"]
    assert target_pod_events(old, PodInfo.from_dict(annotated)) == ["TargetPod/Update"]


def test_a_cordoned_cluster_retries_the_pod_when_it_tolerates_cordoning() -> None:
    """NodeUnschedulable rejected the pod: a new label leaves it waiting, the toleration of the
    unschedulable taint retries it (and it binds)."""
    node = make_node("n1", cpu="4")
    node["spec"]["unschedulable"] = True
    with SchedulerTester(default_plugins=True, objects=[node]) as t:
        pod = make_pod("p", "100m", uid="p")
        assert t.schedule(pod) == {"p": None}
        entry = t.scheduler.queue.entries["p"]
        assert entry.where == "unschedulable" and "NodeUnschedulable" in entry.unschedulable_plugins
        relabelled = copy.deepcopy(pod)
        relabelled["metadata"]["labels"] = {"app": "x"}
        t.add(relabelled)
        t.sync()
        assert t.scheduler.queue.entries["p"].where == "unschedulable"
        tolerating = copy.deepcopy(relabelled)
        tolerating["spec"]["tolerations"] = [{"key": UNSCHEDULABLE_TAINT, "operator": "Exists", "effect": "NoSchedule"}]
        t.add(tolerating)
        t.sync()
        assert t.scheduler.queue.entries["p"].where in ("active", "backoff")
        t.settle()
        assert t.node_of("default/p") == "n1"

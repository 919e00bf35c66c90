"""The runtime's Handle implements the public Handle protocol from injected services only."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from kubeberth import Code, CycleState, Handle, PermitResult, Status, hookimpl
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import SchedulerTester, make_node, make_pod
from kubeberth.testing.builders import pod_info


def protocol_members() -> set[str]:
    return {n for n in vars(Handle) if not n.startswith("_")}


def test_framework_handle_implements_every_member_with_the_same_parameters() -> None:
    for name in sorted(protocol_members()):
        declared = getattr(Handle, name)
        implemented = getattr(FrameworkHandle, name, None)
        assert implemented is not None, f"FrameworkHandle lacks {name}"
        if callable(declared) and not isinstance(declared, property):
            assert list(inspect.signature(implemented).parameters) == list(inspect.signature(declared).parameters), name


def test_the_handle_plugins_get_holds_no_scheduler() -> None:
    with SchedulerTester([]) as t:
        t.add(make_node("n1"), make_pod("p", uid="p"))
        t.sync()
        handle = t.scheduler.handle_for(t.framework)
        assert isinstance(handle, Handle)
        held = [getattr(handle, slot) for slot in FrameworkHandle.__slots__]
        assert not any(isinstance(v, Scheduler) for v in held)
        assert handle.cluster is t.scheduler.cluster and handle.profile == t.framework.profile
        assert handle.get_object("Pod", "default/p")["metadata"]["name"] == "p"
        assert handle.plugins_at("bind") == ["DefaultBinder"]


def test_create_patch_status_and_delete_objects_on_the_embedded_cluster() -> None:
    """Handle.create_object names an object from its generateName as the API server does (base plus
    five characters), sets uid and resourceVersion, and the watch sees it; patch_object with
    subresource="status" changes only the status; delete_object of a missing object succeeds."""
    from kubeberth.backends.base import ClusterEvent
    from kubeberth.backends.embedded import EmbeddedCluster
    from kubeberth.cache.cluster import ClusterState
    from kubeberth.runtime.generation import build_generation

    backend = EmbeddedCluster([make_pod("p", "100m")])
    seen: list[ClusterEvent] = []
    backend.start(seen.append)
    fw = build_generation().default_profile
    handle = FrameworkHandle(fw, backend, ClusterState(), lambda: 0.0, {})
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"generateName": "p-extended-resources-", "namespace": "default"}, "spec": {}}
    status, created = handle.create_object("ResourceClaim", claim)
    assert status.ok and created is not None
    name = created["metadata"]["name"]
    assert name.startswith("p-extended-resources-") and len(name) == len("p-extended-resources-") + 5
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    assert seen[-1].kind == "ResourceClaim" and seen[-1].type == "ADDED" and seen[-1].obj["metadata"]["name"] == name
    again, _ = handle.create_object("ResourceClaim", {**claim, "metadata": {"name": name, "namespace": "default"}})
    assert not again.ok and "already exists" in again.message
    uid_set, _ = handle.create_object("ResourceClaim", {**claim, "metadata": {**claim["metadata"], "uid": "x"}})
    assert not uid_set.ok

    patched = handle.patch_object("Pod", "default/p", {"metadata": {"labels": {"x": "y"}},
                                                        "status": {"extendedResourceClaimStatus": {"resourceClaimName": name}}},
                                  subresource="status")
    assert patched.ok
    pod = backend.get("Pod", "default/p")
    assert pod["status"]["extendedResourceClaimStatus"] == {"resourceClaimName": name}
    assert "x" not in (pod["metadata"].get("labels") or {})  # the status subresource ignores the rest

    assert handle.delete_object("ResourceClaim", f"default/{name}").ok
    assert backend.get("ResourceClaim", f"default/{name}") is None
    assert seen[-1].type == "DELETED"
    assert handle.delete_object("ResourceClaim", f"default/{name}").ok  # already gone


class _TwoScores:
    """A score plugin with a normalizer, and a PostFilter that scores through the handle."""

    name = "TwoScores"
    fail = False

    @hookimpl
    def score_node(self, node: Any) -> int:
        if self.fail:
            raise RuntimeError("score failed")
        return 10 if node.name == "n1" else 20

    @hookimpl
    def normalize_score(self, scores: Any) -> Any:
        return scores * 2


def test_run_scores_scores_and_normalizes_or_returns_the_error() -> None:
    """Handle.run_scores (kube-scheduler's RunScorePlugins): Score then NormalizeScore, weighted; a failing
    plugin's Error comes back as a status, the totals zero."""
    with SchedulerTester([(_TwoScores, 3)]) as t:
        t.add(make_node("n1"), make_node("n2"), make_pod("p", uid="p"))
        t.sync()
        handle = t.scheduler.handle_for(t.framework)
        table = t.cluster.table
        nodes = table.view(np.arange(len(table.names)))
        pod = pod_info(make_pod("q", uid="q"))
        totals, status = handle.run_scores(CycleState(), pod, nodes)
        assert status.ok and dict(zip(table.names, totals.tolist(), strict=True)) == {"n1": 60, "n2": 120}
        t.plugin("TwoScores").fail = True
        totals, status = handle.run_scores(CycleState(), pod, nodes, plugins=["TwoScores"])
        assert status.code == Code.ERROR and "score failed" in status.message and totals.tolist() == [0, 0]


class _Job:
    """plugins_test.go's JobPlugin: executors wait for a driver; the driver's PostBind activates them."""

    name = "Job"
    requeue_on = ("Node/Add",)  # no pod event brings an executor back: only the activation

    def __init__(self) -> None:
        self.driver = False
        self.rejected: list[Any] = []

    @hookimpl
    def pre_filter(self, pod: Any) -> Status | None:
        if "driver" in pod.labels:
            self.driver = True
        elif not self.driver:
            self.rejected.append(pod)
            return Status.unschedulable("unable to find driver pod", unresolvable=True)
        return None

    @hookimpl
    def post_bind(self, pod: Any, handle: Handle) -> None:
        if "driver" in pod.labels:
            handle.activate(self.rejected)


def test_activate_from_post_bind_moves_the_pods_between_cycles() -> None:
    """Handle.activate from a binding cycle (kube-scheduler's PodsToActivate after PostBind): the executors
    rejected before the driver existed are scheduled once the driver is bound, with no event for them."""
    with SchedulerTester([_Job]) as t:
        t.add(make_node("n1"))
        executors = [make_pod(f"executor-{i}", uid=f"e{i}", labels={"executor": ""}) for i in (1, 2)]
        assert t.schedule(*executors) == {"executor-1": None, "executor-2": None}
        t.schedule(make_pod("driver", uid="d", labels={"driver": ""}))
        t.settle()
        assert t.placements()["default/executor-1"] == "n1" and t.placements()["default/executor-2"] == "n1"


class _AnnotatingBinder:
    """plugins_test.go's BindPlugin: binds through a Binding carrying the annotation bindPluginName."""

    name = "AnnotatingBinder"

    @hookimpl
    def bind(self, pod: Any, node_name: str, handle: Handle) -> Status:
        return handle.bind(pod, node_name, annotations={"bindPluginName": self.name})


def test_bind_annotations_land_on_the_pod() -> None:
    """Handle.bind(annotations=...): the Binding's annotations are set on the bound pod, beside its own."""
    config = {"profiles": [{"schedulerName": "default-scheduler", "plugins": {
        "bind": {"enabled": [{"name": "AnnotatingBinder"}], "disabled": [{"name": "DefaultBinder"}]}}}]}
    with SchedulerTester(config=config, register=[_AnnotatingBinder]) as t:
        t.add(make_node("n1"))
        pod = make_pod("p", uid="p")
        pod["metadata"]["annotations"] = {"mine": "kept"}
        assert t.schedule(pod) == {"p": "n1"}
        assert t.pod("default/p")["metadata"]["annotations"] == {"mine": "kept", "bindPluginName": "AnnotatingBinder"}


class _Hold:
    """Holds the pod named waiter at Permit."""

    name = "Hold"

    @hookimpl
    def permit(self, pod: Any) -> PermitResult | None:
        return PermitResult.wait(600) if pod.name == "waiter" else None


def test_deleting_a_pod_held_at_permit_frees_its_node_for_the_unschedulable() -> None:
    """kube-scheduler's handleAssumedPodDeletion (plugins_test.go TestPreemptWithPermitPlugin, "deleting a waiting
    pod"): an assumed pod deleted is an AssignedPod delete on its node, so a pod it crowded out is retried."""
    with SchedulerTester([_Hold], default_plugins=True) as t:
        t.add(make_node("n1", "1", "1Gi"), make_pod("waiter", "600m", uid="w"))
        for _ in range(5):
            t.step()
        t.add(make_pod("other", "600m", uid="o"))
        for _ in range(5):
            t.step()
        assert t.placements()["default/other"] is None
        t.delete("Pod", "default/waiter")
        for _ in range(20):
            t.step()
        assert t.placements() == {"default/other": "n1"}


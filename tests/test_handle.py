"""The runtime's Handle implements the public Handle protocol from injected services only."""

from __future__ import annotations

import inspect

from kubeberth import Handle
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import SchedulerTester, make_node, make_pod


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

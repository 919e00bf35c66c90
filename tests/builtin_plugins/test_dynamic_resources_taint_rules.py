"""DeviceTaintRules (DRADeviceTaintRules, GA in v1.37) in the scheduler: a rule's taint blocks the
devices it selects unless the request tolerates it, a rule that goes or changes retries the pods
waiting for those devices (the ResourceSlice update kube-scheduler's resourceslice tracker reports),
and with the gate off rules are neither watched nor applied."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth import FeatureGates
from kubeberth.scheduling.swap import watched_kinds
from kubeberth.testing import SchedulerTester, make_node
from test_dynamic_resources import claim, device_class, exactly, gpu, gpu_pod, node_slice

DRIVER = "gpu.example.com"


def rule(name: str, effect: str = "NoSchedule", **selector: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": selector,
                     "taint": {"key": "example.com/maintenance", "value": "true", "effect": effect}}}


def cluster() -> list[dict[str, Any]]:
    return [make_node("n1", cpu="4"), device_class(), node_slice("n1", gpu("gpu-0")),
            claim("c1", exactly())]


def slice_updates(tester: SchedulerTester) -> list[tuple[str, Any, Any]]:
    """Record the ResourceSlice events the loop fires, with what a queueing hint would see."""
    seen: list[tuple[str, Any, Any]] = []
    move = tester.scheduler.queue.move_for_event

    def record(event: str, interested: Any, skip: str = "", old: Any = None, new: Any = None, **kw: Any) -> Any:
        if event.startswith("ResourceSlice/"):
            seen.append((event, old, new))
        return move(event, interested, skip=skip, old=old, new=new, **kw)

    tester.scheduler.queue.move_for_event = record  # type: ignore[method-assign]
    return seen


def taints_of(obj: dict[str, Any]) -> list[list[str]]:
    return [[t["key"] for t in d.get("taints") or ()] for d in obj["spec"]["devices"]]


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_rule_blocks_device_until_deleted(effect: str) -> None:
    with SchedulerTester(["DynamicResources"], objects=[*cluster(), rule("maint", effect, driver=DRIVER)]) as t:
        seen = slice_updates(t)
        assert t.schedule(gpu_pod("p", claim_name="c1")) == {"p": None}
        assert t.cluster.get_object("DeviceTaintRule", "maint") is not None
        # A rule for another driver taints nothing here: no slice changes, the pod stays where it is.
        t.add(rule("other", driver="other.example.com"))
        t.settle()
        assert t.node_of("default/p") is None and seen == []
        t.delete("DeviceTaintRule", "maint")
        t.settle()
        assert t.node_of("default/p") == "n1"
        [(event, old, new)] = seen
        assert event == "ResourceSlice/Update"
        assert taints_of(old) == [["example.com/maintenance"]] and taints_of(new) == [[]]


def test_rule_changed_to_another_pool_retries_the_pod() -> None:
    with SchedulerTester(["DynamicResources"], objects=[*cluster(), rule("maint", pool="n1")]) as t:
        assert t.schedule(gpu_pod("p", claim_name="c1")) == {"p": None}
        t.add(rule("maint", pool="n2"))
        t.settle()
        assert t.node_of("default/p") == "n1"


def test_request_tolerating_the_rule_taint_gets_the_device() -> None:
    tolerant = exactly()
    tolerant["exactly"]["tolerations"] = [{"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    objects = [*cluster()[:3], claim("c1", tolerant), rule("maint", device="gpu-0")]
    with SchedulerTester(["DynamicResources"], objects=objects) as t:
        assert t.schedule(gpu_pod("p", claim_name="c1")) == {"p": "n1"}


def test_rule_added_later_blocks_the_next_pod() -> None:
    with SchedulerTester(["DynamicResources"], objects=[*cluster(), node_slice("n1", gpu("gpu-1"), name="n1-b", pool="b"),
                                                        claim("c2", exactly())]) as t:
        t.add(rule("maint", pool="b"))
        assert t.schedule(gpu_pod("p1", claim_name="c1")) == {"p1": "n1"}
        assert t.schedule(gpu_pod("p2", claim_name="c2")) == {"p2": None}  # gpu-0 taken, gpu-1 tainted


def test_gate_off_rules_are_neither_watched_nor_applied() -> None:
    gates = {"DRADeviceTaintRules": False}
    with SchedulerTester(["DynamicResources"], objects=[*cluster(), rule("maint")], feature_gates=gates) as t:
        assert "DeviceTaintRule" not in watched_kinds(t.generation)
        assert t.schedule(gpu_pod("p", claim_name="c1")) == {"p": "n1"}
        assert t.cluster.get_object("DeviceTaintRule", "maint") is None
    with SchedulerTester(["DynamicResources"]) as t:
        assert "DeviceTaintRule" in watched_kinds(t.generation)


def test_watched_only_with_dynamic_resources_and_the_gate() -> None:
    """kube-scheduler's TestAddAllEventHandlers ("all DRA events enabled", "DRA device taints
    partially enabled", "DRA events disabled"): the DeviceTaintRule informer exists only with DRA
    and DRADeviceTaintRules; kubeberth watches DRA kinds when a profile enables DynamicResources."""
    with SchedulerTester(["NodeResourcesFit"]) as t:
        assert "DeviceTaintRule" not in watched_kinds(t.generation)
    off = FeatureGates({"DRADeviceTaintRules": False})
    with SchedulerTester(["DynamicResources"], feature_gates=dict(off.overrides)) as t:
        kinds = watched_kinds(t.generation)
        assert "ResourceSlice" in kinds and "DeviceTaintRule" not in kinds

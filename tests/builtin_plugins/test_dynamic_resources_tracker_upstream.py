"""k8s.io/dynamic-resource-allocation v0.37.2's resourceslice tracker table
(resourceslice/tracker/tracker_test.go, TestListPatchedResourceSlices), ported verbatim: case names
are upstream's map keys, fixtures and expected values unchanged.

kube-scheduler reads ResourceSlices through that tracker when DRADeviceTaintRules is on: each slice
with the taints of the DeviceTaintRules selecting its devices, and a rule that changes a slice's
device taints reported as that slice's update. kubeberth's counterpart is the cache's DeviceState
(kubeberth.cache.device_taint_rules). As upstream, every order of a case's events that keeps the
order inside its nested lists must end with the expected slices (run on the cache, as the Go test
runs each permutation on a fresh tracker), and the events a handler sees are checked for the
order as written: here the ResourceSlice events the scheduling loop fires after the embedded
cluster's watch events (kubeberth.testing.SchedulerTester), what kube-scheduler's handlers get.

Not ported: expectEvents and expectUnhandledErrors (Kubernetes Events for CEL errors and errors
handed to HandleError; no case expects any, and kubeberth's patching evaluates no CEL).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from kubeberth.cache.cluster import ClusterState
from kubeberth.testing import SchedulerTester

handlerEventAdd = "add"
handlerEventUpdate = "update"
handlerEventDelete = "delete"


def handlerEvent(event: str, oldObj: dict[str, Any] | None = None, newObj: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"event": event, "oldObj": oldObj, "newObj": newObj}


def add(obj: dict[str, Any]) -> tuple[None, dict[str, Any]]:
    return (None, obj)


def remove(obj: dict[str, Any]) -> tuple[dict[str, Any], None]:
    return (obj, None)


def update(oldObj: dict[str, Any], newObj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return (oldObj, newObj)


class removeRule(str):  # noqa: N801 - removeRule(<name>) removes a DeviceTaintRule by name (a tombstone)
    __slots__ = ()


now = "2006-01-02T15:04:05Z"
driver1 = "driver1.example.com"
driver2 = "driver2.example.com"
pool1 = "pool-1"
pool2 = "pool-2"
device0Name = "device-0"
device1Name = "device-1"
device2Name = "device-2"


def sliceWithDevices(slice_: dict[str, Any], devices: list[dict[str, Any]]) -> dict[str, Any]:
    slice_ = copy.deepcopy(slice_)
    slice_["spec"]["devices"] = copy.deepcopy(devices)
    return slice_


slice1NoDevices = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s1"},
    "spec": {"driver": driver1, "pool": {"name": pool1}},
}
slice2NoDevices = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s2"},
    "spec": {"driver": driver2, "pool": {"name": pool2}},
}
unchangedSlice = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "no-change"},
                  "spec": {}}


def deviceWithName(device: dict[str, Any], name: str) -> dict[str, Any]:
    return {**device, "name": name}


def deviceWithTaints(device: dict[str, Any], taints: list[dict[str, Any]]) -> dict[str, Any]:
    return {**device, "taints": taints}


emptyDevice: dict[str, Any] = {}
device0 = deviceWithName(emptyDevice, device0Name)
device1 = deviceWithName(emptyDevice, device1Name)
device2 = deviceWithName(emptyDevice, device2Name)

deviceTaint1 = {"key": "example.com/taint", "value": "tainted", "effect": "NoExecute", "timeAdded": now}
deviceTaint2 = {"key": "example.com/taint2", "value": "tainted2", "effect": "NoExecute", "timeAdded": now}
deviceTaints = [deviceTaint1]
device1Tainted = deviceWithTaints(device1, deviceTaints)
device2Tainted = deviceWithTaints(device2, deviceTaints)
devices = [device1]
threeDevices = [device0, device1, device2]
threeDevicesOneTainted = [device0, device1Tainted, device2]
devices2 = [device2]
taintedDevices = [device1Tainted]
taintedDevices2 = [device2Tainted]

existingDeviceTaints = [deviceTaint2]
existingDevice1Tainted = deviceWithTaints(device1, existingDeviceTaints)
existingTaintedDevices = [existingDevice1Tainted]
mergedDeviceTaints = [deviceTaint2, deviceTaint1]
mergedDevice1Tainted = deviceWithTaints(device1, mergedDeviceTaints)
mergedTaintedDevices = [mergedDevice1Tainted]

slice1 = sliceWithDevices(slice1NoDevices, devices)
slice1Tainted = sliceWithDevices(slice1, taintedDevices)
slice1AlreadyTainted = sliceWithDevices(slice1, existingTaintedDevices)
slice1MergedTaints = sliceWithDevices(slice1, mergedTaintedDevices)
slice2 = sliceWithDevices(slice2NoDevices, devices2)
slice2Tainted = sliceWithDevices(slice2, taintedDevices2)


def deviceTaint(taint: dict[str, Any]) -> dict[str, Any]:
    return {"key": taint["key"], "value": taint["value"], "effect": taint["effect"], "timeAdded": taint["timeAdded"]}


taintAllDevicesRule = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
    "metadata": {"name": "rule"},
    "spec": {"deviceSelector": {}, "taint": deviceTaint(deviceTaint1)},
}
taintNoSelectorRule = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
    "metadata": {"name": "rule-no-selector"},
    "spec": {"taint": deviceTaint(deviceTaint1)},
}


def taintPoolDevicesRule(rule: dict[str, Any], pool: str) -> dict[str, Any]:
    rule = copy.deepcopy(rule)
    rule["spec"]["deviceSelector"] = {"pool": pool}
    return rule


def taintDriverDevicesRule(rule: dict[str, Any], driver: str) -> dict[str, Any]:
    rule = copy.deepcopy(rule)
    rule["spec"]["deviceSelector"] = {"driver": driver}
    return rule


def taintNamedDevicesRule(rule: dict[str, Any], name: str) -> dict[str, Any]:
    rule = copy.deepcopy(rule)
    rule["spec"]["deviceSelector"] = {"device": name}
    return rule


taintPool1DevicesRule = taintPoolDevicesRule(taintAllDevicesRule, pool1)
taintPool2DevicesRule = taintPoolDevicesRule(taintAllDevicesRule, pool2)
taintDriver1DevicesRule = taintDriverDevicesRule(taintAllDevicesRule, driver1)
taintDevice1Rule = taintNamedDevicesRule(taintAllDevicesRule, device1Name)


TestListPatchedResourceSlices: dict[str, dict[str, Any]] = {
    "add-slices-no-patches": {
        "events": [
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
    "update-slices-no-patches": {
        "events": [
            [
                add(slice1NoDevices),
                update(slice1NoDevices, slice1),
            ],
            [
                add(slice2NoDevices),
                update(slice2NoDevices, slice2),
            ],
            add(unchangedSlice),
        ],
        "expectedPatchedSlices": [
            slice1,
            slice2,
            unchangedSlice,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1NoDevices),
            handlerEvent(handlerEventUpdate, oldObj=slice1NoDevices, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2NoDevices),
            handlerEvent(handlerEventUpdate, oldObj=slice2NoDevices, newObj=slice2),
            handlerEvent(handlerEventAdd, newObj=unchangedSlice),
        ],
    },
    "delete-slices": {
        "events": [
            [add(slice1), remove(slice1)],
            [add(slice2), remove(slice2)],
            add(unchangedSlice),
        ],
        "expectedPatchedSlices": [
            unchangedSlice,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventDelete, oldObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2),
            handlerEvent(handlerEventDelete, oldObj=slice2),
            handlerEvent(handlerEventAdd, newObj=unchangedSlice),
        ],
    },
    "patch-all-slices": {
        "events": [
            add(slice1),
            add(taintAllDevicesRule),
        ],
        "expectedPatchedSlices": [
            slice1Tainted,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventUpdate, oldObj=slice1, newObj=slice1Tainted),
        ],
    },
    "update-patch": {
        "events": [
            [
                add(taintPool1DevicesRule),
                update(taintPool1DevicesRule, taintPool2DevicesRule),
            ],
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1,
            slice2Tainted,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2Tainted),
        ],
    },
    "remove-patch-known-deleted-rule": {
        "events": [[
            add(taintPool2DevicesRule),
            add(slice1),
            add(slice2),
            remove(taintPool2DevicesRule),
        ]],
        "expectedPatchedSlices": [
            slice1,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2Tainted),
            handlerEvent(handlerEventUpdate, oldObj=slice2Tainted, newObj=slice2),
        ],
    },
    "remove-patch-unknown-deleted-rule": {
        "events": [[
            add(taintPool2DevicesRule),
            add(slice1),
            add(slice2),
            removeRule(taintPool2DevicesRule["metadata"]["name"]),
        ]],
        "expectedPatchedSlices": [
            slice1,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2Tainted),
            handlerEvent(handlerEventUpdate, oldObj=slice2Tainted, newObj=slice2),
        ],
    },
    "merge-taints": {
        "events": [
            add(taintAllDevicesRule),
            add(slice1AlreadyTainted),
        ],
        "expectedPatchedSlices": [
            slice1MergedTaints,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1MergedTaints),
        ],
    },
    "add-taint-for-driver": {
        "events": [
            add(taintDriver1DevicesRule),
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1Tainted,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1Tainted),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
    "add-taint-for-pool": {
        "events": [
            add(taintPool1DevicesRule),
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1Tainted,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1Tainted),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
    "add-taint-for-device": {
        "events": [
            add(taintDevice1Rule),
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1Tainted,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1Tainted),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
    "filter-all-criteria": {
        "events": [
            add(
                taintDriverDevicesRule(
                    taintPoolDevicesRule(
                        taintNamedDevicesRule(
                            taintAllDevicesRule,
                            device1Name,
                        ),
                        pool1,
                    ),
                    driver1,
                ),
            ),
            add(slice1),
            add(slice2),
        ],
        "expectedPatchedSlices": [
            slice1Tainted,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1Tainted),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
    "update-patched-slice": {
        "events": [
            add(taintDevice1Rule),
            [
                add(slice1),
                update(slice1, sliceWithDevices(slice1, threeDevices)),
            ],
            [
                add(sliceWithDevices(slice2, threeDevices)),
                update(sliceWithDevices(slice2, threeDevices), sliceWithDevices(slice2, devices)),
            ],
        ],
        "expectedPatchedSlices": [
            sliceWithDevices(slice1, threeDevicesOneTainted),
            sliceWithDevices(slice2, taintedDevices),
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1Tainted),
            handlerEvent(handlerEventUpdate, oldObj=slice1Tainted, newObj=sliceWithDevices(slice1, threeDevicesOneTainted)),
            handlerEvent(handlerEventAdd, newObj=sliceWithDevices(slice2, threeDevicesOneTainted)),
            handlerEvent(handlerEventUpdate, oldObj=sliceWithDevices(slice2, threeDevicesOneTainted), newObj=sliceWithDevices(slice2, taintedDevices)),
        ],
    },
    "nil-selector-matches-none": {
        "events": [
            add(slice1),
            add(slice2),
            add(taintNoSelectorRule),
        ],
        "expectedPatchedSlices": [
            slice1,
            slice2,
        ],
        "expectedHandlerEvents": [
            handlerEvent(handlerEventAdd, newObj=slice1),
            handlerEvent(handlerEventAdd, newObj=slice2),
        ],
    },
}


# ---- the Go test's machinery ------------------------------------------------------------------
def flatten(events: list[Any]) -> tuple[list[Any], list[tuple[int, int]]]:
    """One level of flattening, and the index ranges that came from a nested list (whose order stays)."""
    flat: list[Any] = []
    ranges: list[tuple[int, int]] = []
    for e in events:
        if isinstance(e, list):
            ranges.append((len(flat), len(flat) + len(e)))
            flat.extend(e)
        else:
            flat.append(e)
    return flat, ranges


def permutations(events: list[Any]) -> list[list[Any]]:
    """Every order of the flattened events that keeps each nested list's order (the first one is the
    order as written); a single top-level entry has just that order, as upstream."""
    flat, ranges = flatten(events)
    if len(events) <= 1:
        return [flat]
    out = []
    for order in itertools.permutations(range(len(flat))):
        position = {i: n for n, i in enumerate(order)}
        if all(position[i] < position[i + 1] for lo, hi in ranges for i in range(lo, hi - 1)):
            out.append([flat[i] for i in order])
    return out


def _kind(pair: Any) -> str:
    if isinstance(pair, removeRule):
        return "DeviceTaintRule"
    obj = pair[1] if pair[1] is not None else pair[0]
    return str(obj["kind"])


def apply_to_cache(cluster: ClusterState, event: Any) -> None:
    """applyEventPair on the cache: the store change, then the handler (here one call does both)."""
    if isinstance(event, removeRule):
        cluster.remove_object("DeviceTaintRule", {"metadata": {"name": str(event)}})  # only the key is known
        return
    old, new = event
    if new is None:
        cluster.remove_object(_kind(event), old)
    else:
        cluster.upsert_object(_kind(event), new)


def apply_to_cluster(tester: SchedulerTester, event: Any) -> None:
    """The same event as a change in the embedded cluster, seen through the scheduler's watch."""
    if isinstance(event, removeRule):
        tester.delete("DeviceTaintRule", str(event))
    else:
        old, new = event
        if new is None:
            tester.delete(_kind(event), old["metadata"]["name"])
        else:
            tester.add(new)
    tester.sync()


def _as_published(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """An object without the uid the embedded API server gives it (the Go fixtures have none)."""
    if obj is None:
        return None
    meta = {k: v for k, v in obj["metadata"].items() if k != "uid"}
    return {**obj, "metadata": meta}


def by_name(slices: Any) -> list[dict[str, Any]]:
    return sorted(slices, key=lambda s: s["metadata"]["name"])


@pytest.mark.parametrize("name", list(TestListPatchedResourceSlices))
def test_list_patched_resource_slices(name: str) -> None:
    test = TestListPatchedResourceSlices[name]
    orders = permutations(test["events"])
    for order in orders:
        cluster = ClusterState()
        for event in order:
            apply_to_cache(cluster, event)
        assert by_name(cluster.devices.slices.values()) == by_name(test["expectedPatchedSlices"]), order

    # Handler events, for the order as written only (as upstream).
    with SchedulerTester(["DynamicResources"]) as tester:
        seen: list[dict[str, Any]] = []
        move = tester.scheduler.queue.move_for_event

        def record(event: str, interested: Any, skip: str = "", old: Any = None, new: Any = None, **kw: Any) -> Any:
            if event.startswith("ResourceSlice/"):
                kind = {"Add": handlerEventAdd, "Update": handlerEventUpdate, "Delete": handlerEventDelete}
                verb = kind[event.split("/", 1)[1]]
                seen.append(handlerEvent(verb, oldObj=_as_published(old) if verb != handlerEventAdd else None,
                                         newObj=_as_published(new) if verb != handlerEventDelete else None))
            return move(event, interested, skip=skip, old=old, new=new, **kw)

        tester.scheduler.queue.move_for_event = record  # type: ignore[method-assign]
        tester.sync()
        for event in orders[0]:
            apply_to_cluster(tester, event)
        assert seen == test["expectedHandlerEvents"]
        published = [_as_published(s) for s in tester.cluster.devices.slices.values()]
        assert by_name(published) == by_name(test["expectedPatchedSlices"])

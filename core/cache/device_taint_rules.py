"""DeviceTaintRules (resource.k8s.io/v1; DRADeviceTaintRules, GA in v1.37): taints an administrator
puts on devices, selected by driver, pool and device name, that the driver's ResourceSlices do not
carry themselves.

kube-scheduler reads slices through the resourceslice tracker of k8s.io/dynamic-resource-allocation
(resourceslice/tracker): every ResourceSlice with the taints of the rules that select its devices
appended to each device's own (`applyPatches`), and a slice whose devices' taints a rule event
changed reported to the scheduler's handlers as an update of that slice. The allocator then treats
those taints as any device taint (NoSchedule and NoExecute block a device unless the request
tolerates them). `DeviceState` keeps the slices patched with these functions; the scheduling loop
fires ResourceSlice/Update for each slice a rule event changed, so a pod waiting for a tainted
device is retried when its rule goes or changes.

A rule without `deviceSelector` selects no device; an unset driver, pool or device selects any.
Rules apply in name order (upstream's informer lists them in no set order).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["SliceChange", "patch_slice", "rule_selects_slice", "taints_changed"]

SliceChange = tuple[dict[str, Any] | None, dict[str, Any] | None]
"""(before, after) of one ResourceSlice as the allocator sees it: (None, new) added, (old, None)
deleted."""


def _selector(rule: dict[str, Any]) -> dict[str, Any] | None:
    selector = (rule.get("spec") or {}).get("deviceSelector")
    return selector if isinstance(selector, dict) else None


def rule_selects_slice(rule: dict[str, Any], slice_: dict[str, Any]) -> bool:
    """Whether the rule's driver and pool (when set) are the slice's: it may taint its devices."""
    selector = _selector(rule)
    if selector is None:
        return False  # no selector matches no devices
    spec = slice_.get("spec") or {}
    driver, pool = selector.get("driver"), selector.get("pool")
    if driver is not None and driver != spec.get("driver"):
        return False
    return pool is None or pool == (spec.get("pool") or {}).get("name")


def patch_slice(slice_: dict[str, Any], rules: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The slice with each rule's taint appended to the devices it selects (applyPatches); the slice
    itself, not a copy, when no rule selects any of its devices."""
    devices: list[dict[str, Any]] | None = None
    published = (slice_.get("spec") or {}).get("devices") or []
    for rule in rules:
        if not rule_selects_slice(rule, slice_):
            continue
        name = (_selector(rule) or {}).get("device")
        taint = (rule.get("spec") or {}).get("taint") or {}
        for i, device in enumerate(published):
            if name is not None and name != device.get("name"):
                continue
            if devices is None:
                devices = list(published)
            devices[i] = {**devices[i], "taints": [*(devices[i].get("taints") or ()), taint]}
    if devices is None:
        return slice_
    return {**slice_, "spec": {**(slice_.get("spec") or {}), "devices": devices}}


def taints_changed(before: dict[str, Any] | None, after: dict[str, Any] | None) -> bool:
    """Whether any device's taints differ between two patchings of one slice (upstream compares
    key, value, effect and timeAdded; the taints here are the API's objects, compared whole)."""

    def taints(slice_: dict[str, Any] | None) -> list[Any]:
        devices = ((slice_ or {}).get("spec") or {}).get("devices") or ()
        return [d.get("taints") or [] for d in devices]

    return taints(before) != taints(after)

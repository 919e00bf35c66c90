"""CEL evaluation contexts of ResourceSlice devices for the allocator's selectors, and the device
names its errors use (structured/internal's device IDs and cel.EnhanceRuntimeError)."""

from __future__ import annotations

from typing import Any

from kubeberth.api.dra import DeviceContext, SelectorCache, device_context

from .pools import kobj


def did(driver: str, pool: str, device: str) -> str:
    return f"{driver}/{pool}/{device}"


def enhance(message: str) -> str:
    """cel.EnhanceRuntimeError: a hint for selectors reading a key the device lacks."""
    if "no such key:" in message:
        return message + ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
    return message


class DeviceContexts:
    """CEL contexts per ResourceSlice device, built once per slice object (shared by all cycles)."""

    def __init__(self, selectors: SelectorCache) -> None:
        self.selectors = selectors
        self._by_slice: dict[str, tuple[dict[str, Any], list[DeviceContext | None]]] = {}

    def get(self, slice_: dict[str, Any], index: int) -> DeviceContext:
        key = kobj(slice_)
        entry = self._by_slice.get(key)
        if entry is None or entry[0] is not slice_:
            devices = (slice_.get("spec") or {}).get("devices") or ()
            entry = (slice_, [None] * len(devices))
            self._by_slice[key] = entry
            if len(self._by_slice) > 100_000:
                self._by_slice.clear()
                self._by_slice[key] = entry
        ctx = entry[1][index]
        domains = self.selectors.domains
        if ctx is None or not domains <= ctx.domains:
            spec = slice_.get("spec") or {}
            ctx = device_context(str(spec.get("driver", "")), spec["devices"][index], domains)
            entry[1][index] = ctx
        return ctx

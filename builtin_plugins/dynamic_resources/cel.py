"""Device selectors in CEL: moved to the public `kubeberth.api.dra`; re-exported here for imports
that still name this module."""

from kubeberth.api.dra import (
    CelError,
    CompiledSelector,
    DeviceContext,
    SelectorCache,
    device_context,
    quantity_value,
    semver_value,
)

__all__ = [
    "CelError",
    "CompiledSelector",
    "DeviceContext",
    "SelectorCache",
    "device_context",
    "quantity_value",
    "semver_value",
]

"""The allocator's feature switches and its errors (structured.Features, ErrFailedAllocationOnNode)."""

from __future__ import annotations

from dataclasses import dataclass

from .pools import AllocationError


class FailedOnNode(AllocationError):
    """Allocation failed on this node only (upstream's ErrFailedAllocationOnNode)."""


class FilterTimedOut(Exception):
    """The filter timeout passed during the search (upstream's context.DeadlineExceeded)."""


@dataclass(frozen=True, slots=True)
class AllocatorFeatures:
    """structured.Features: the gates the allocator honours."""

    admin_access: bool = True
    device_taints: bool = True
    binding_conditions: bool = True  # DeviceBindingAndStatus
    partitionable_devices: bool = False
    consumable_capacity: bool = False
    fractional_capacity_range: bool = False
    prioritized_list: bool = True  # the plugin refuses subrequests itself when the gate is off
    # The incubating variant's search (pools sorted by ID, slices by name, each request's devices
    # taken in pool/slice/device order): kube-scheduler's choice once a gate the stable variant
    # lacks is on. None: on when partitionable devices or consumable capacity are.
    incubating: bool | None = None

    @property
    def use_incubating(self) -> bool:
        if self.incubating is not None:
            return self.incubating
        return self.partitionable_devices or self.consumable_capacity

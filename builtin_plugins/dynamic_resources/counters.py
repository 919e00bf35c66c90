"""Counter sets of partitionable devices (DRAPartitionableDevices): what the pool's allocated devices
left, and what the devices being allocated on this node take (structured/internal's
checkAvailableCounters and availableCounters)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from kubeberth.api.helpers import parse_quantity

from .pools import Pool

if TYPE_CHECKING:
    from .allocator import Allocator

CountersByPool = dict[tuple[str, str], dict[str, dict[str, Decimal]]]  # (driver, pool) -> counter set -> counter -> value


def reserve_counters(alloc: Allocator, consumed_counters: CountersByPool, pool: Pool, device: dict[str, Any]) -> bool:
    """checkAvailableCounters: take the device's counters unless some counter would go short."""
    available = alloc.available_counters.get((pool.driver, pool.pool))
    if available is None:
        available = {name: dict(counters) for name, counters in pool.counter_sets.items()}
        for slice_ in (*pool.slices, *pool.other_slices):
            spec = slice_.get("spec") or {}
            for other in spec.get("devices") or ():
                if not alloc.is_allocated((str(spec.get("driver", "")), str((spec.get("pool") or {}).get("name", "")), str(other.get("name", "")))):
                    continue
                for consumption in other.get("consumesCounters") or ():
                    counters = available.get(str(consumption.get("counterSet", "")), {})
                    for cname, c in (consumption.get("counters") or {}).items():
                        if cname in counters:
                            counters[cname] -= parse_quantity(str((c or {}).get("value", "0")))
        alloc.available_counters[(pool.driver, pool.pool)] = available
    consumed = consumed_counters.setdefault((pool.driver, pool.pool), {})
    for consumption in device.get("consumesCounters") or ():
        counters = consumed.setdefault(str(consumption.get("counterSet", "")), {})
        for cname, c in (consumption.get("counters") or {}).items():
            counters[cname] = counters.get(cname, Decimal(0)) + parse_quantity(str((c or {}).get("value", "0")))
    for set_name, counters in available.items():
        taken = consumed.get(set_name, {})
        for cname, value in counters.items():
            if value < taken.get(cname, Decimal(0)):
                release_counters(consumed_counters, pool, device)
                return False
    return True


def release_counters(consumed_counters: CountersByPool, pool: Pool, device: dict[str, Any]) -> None:
    """Give back the counters reserve_counters took for the device."""
    consumed = consumed_counters[(pool.driver, pool.pool)]
    for consumption in device.get("consumesCounters") or ():
        counters = consumed[str(consumption.get("counterSet", ""))]
        for cname, c in (consumption.get("counters") or {}).items():
            counters[cname] -= parse_quantity(str((c or {}).get("value", "0")))


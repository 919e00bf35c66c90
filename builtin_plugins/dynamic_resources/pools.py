"""Resource pools for one node (structured.GatherPools): the newest generation of each pool whose
slices may serve the node, complete and valid, in the order the allocator walks them.

Two variants, as upstream keeps them: `gather_pools` is kubeberth's long-standing order (the stable
variant: pools as first seen, slices as listed, pools with binding conditions last);
`gather_pools_incubating` is the incubating variant that kube-scheduler picks once
DRAPartitionableDevices or DRAConsumableCapacity are on: pools sorted by driver and pool name,
slices sorted by name, slices with shared counters (counter sets) and per-device node selection,
and each pool's slices that do not target the node kept for counter accounting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from kubeberth import NodeSelector
from kubeberth.api.helpers import parse_quantity

__all__ = ["AllocationError", "Pool", "gather_pools", "gather_pools_incubating", "kobj", "node_matches"]


class AllocationError(Exception):
    """The claims or classes cannot be handled at all (upstream: a non-nil error from Allocate)."""


def kobj(obj: dict[str, Any]) -> str:
    """klog.KObj: namespace/name (name alone for cluster-scoped objects)."""
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


@dataclass(slots=True)
class Pool:
    driver: str
    pool: str
    slices: list[dict[str, Any]] = field(default_factory=list)
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    # Incubating variant only: the pool's slices that do not target the node, and its counter
    # sets (name -> counter -> value) from slices with sharedCounters.
    other_slices: list[dict[str, Any]] = field(default_factory=list)
    counter_sets: dict[str, dict[str, Decimal]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.pool}"


def node_matches(node_name: str, labels: dict[str, str], name_to_match: str, all_nodes: bool,
                 selector: dict[str, Any] | None) -> bool:
    """structured.NodeMatches."""
    if name_to_match:
        return node_name == name_to_match
    if all_nodes:
        return True
    if selector is not None:
        parsed = NodeSelector.parse(selector)
        bad = next((t for t in parsed.terms if not t.valid), None)
        if bad is not None:
            raise AllocationError(f"failed to parse node selector: {bad.error}")
        return parsed.matches(labels, node_name)
    return False


def _pool_of(slice_: dict[str, Any]) -> tuple[str, str, int, int]:
    spec = slice_.get("spec") or {}
    pool = spec.get("pool") or {}
    return (str(spec.get("driver", "")), str(pool.get("name", "")), int(pool.get("generation") or 0),
            int(pool.get("resourceSliceCount") or 0))


def _add_to_pool(pools: dict[tuple[str, str], list[dict[str, Any]]], slice_: dict[str, Any]) -> None:
    """addSlice: a pool keeps only the slices of its newest generation."""
    driver, pool, generation, _count = _pool_of(slice_)
    found = pools.get((driver, pool))
    if found is None:
        pools[(driver, pool)] = [slice_]
        return
    current = _pool_of(found[0])[2]
    if generation > current:
        pools[(driver, pool)] = [slice_]
    elif generation == current:
        found.append(slice_)


def gather_pools(slices: Iterable[dict[str, Any]], node_name: str, labels: dict[str, str],
                 all_slices: Callable[[], Iterable[dict[str, Any]]]) -> list[Pool]:
    """GatherPools: the pools (newest generation, complete, valid) whose slices target the node."""
    pools: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for slice_ in slices:
        spec = slice_.get("spec") or {}
        if spec.get("perDeviceNodeSelection") is not None or spec.get("sharedCounters"):
            continue  # DRAPartitionableDevices (beta) is not implemented: as if disabled
        name, all_nodes, selector = str(spec.get("nodeName") or ""), bool(spec.get("allNodes")), spec.get("nodeSelector")
        if not (name or all_nodes or selector is not None):
            continue
        try:
            match = node_matches(node_name, labels, name, all_nodes, selector)
        except AllocationError as exc:
            raise AllocationError(f"failed to perform node selection for slice {kobj(slice_)}: {exc}") from None
        if not match:
            continue
        _add_to_pool(pools, slice_)
    result: list[Pool] = []
    with_conditions: list[Pool] = []  # poolHasBindingConditions: tried after every other pool
    for (driver, pool), members in pools.items():
        _d, _p, generation, count = _pool_of(members[0])
        if len(members) != count:
            obsolete = False
            same_generation = 0
            for other in all_slices():
                od, op, og, _c = _pool_of(other)
                if (od, op) != (driver, pool):
                    continue
                if og == generation:
                    same_generation += 1
                elif og > generation:
                    obsolete = True
                    break
            if obsolete:
                continue
            if same_generation != count:
                result.append(Pool(driver, pool, incomplete=True))
                continue
        names: set[str] = set()
        invalid = ""
        for s in members:
            for device in (s.get("spec") or {}).get("devices") or ():
                dname = str(device.get("name", ""))
                if dname in names:
                    invalid = f"duplicate device name {dname}"
                    break
                names.add(dname)
            if invalid:
                break
        if invalid:
            result.append(Pool(driver, pool, invalid=True, invalid_reason=invalid))
        elif any(d.get("bindingConditions") is not None for s in members for d in (s.get("spec") or {}).get("devices") or ()):
            with_conditions.append(Pool(driver, pool, members))
        else:
            result.append(Pool(driver, pool, members))
    return result + with_conditions




# ---- the incubating variant ---------------------------------------------------------------------
def uses_compatibility_groups(slice_: dict[str, Any]) -> bool:
    """sliceUsesCompatibilityGroups: DRADeviceCompatibilityGroups (alpha) is off, so such slices
    are ignored (and their pool counts as incomplete)."""
    return any(
        c.get("compatibilityGroups")
        for device in (slice_.get("spec") or {}).get("devices") or ()
        for c in device.get("consumesCounters") or ()
    )


def _slice_name(slice_: dict[str, Any]) -> str:
    return str((slice_.get("metadata") or {}).get("name", ""))


def gather_pools_incubating(slices: Iterable[dict[str, Any]], node_name: str, labels: dict[str, str],
                            all_slices: Callable[[], Iterable[dict[str, Any]]], partitionable: bool) -> list[Pool]:
    """GatherPools of the incubating variant."""
    pools: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for slice_ in slices:
        spec = slice_.get("spec") or {}
        if not partitionable and (spec.get("perDeviceNodeSelection") is not None or spec.get("sharedCounters")):
            continue
        if uses_compatibility_groups(slice_):
            continue
        name, all_nodes, selector = str(spec.get("nodeName") or ""), bool(spec.get("allNodes")), spec.get("nodeSelector")
        if name or all_nodes or selector is not None:
            try:
                relevant = node_matches(node_name, labels, name, all_nodes, selector)
            except AllocationError as exc:
                raise AllocationError(f"failed to perform node selection for slice {_slice_name(slice_)}: {exc}") from None
        elif spec.get("perDeviceNodeSelection"):
            relevant = False
            for device in spec.get("devices") or ():
                try:
                    match = node_matches(node_name, labels, str(device.get("nodeName") or ""),
                                         bool(device.get("allNodes")), device.get("nodeSelector"))
                except AllocationError as exc:
                    raise AllocationError(
                        f"failed to perform node selection for device {device.get('name', '')} in slice {_slice_name(slice_)}: {exc}"
                    ) from None
                if match:
                    relevant = True
                    break
        else:
            continue
        if not relevant:
            continue
        _add_to_pool(pools, slice_)
    result: list[Pool] = []
    with_conditions: list[Pool] = []
    for (driver, pool), members in pools.items():
        _d, _p, generation, count = _pool_of(members[0])
        everything: list[dict[str, Any]] | None = None
        if len(members) != count:
            obsolete = False
            everything = []
            for other in all_slices():
                od, op, og, _c = _pool_of(other)
                if (od, op) != (driver, pool):
                    continue
                if og == generation:
                    everything.append(other)
                elif og > generation:
                    obsolete = True
                    break
            if obsolete:
                continue
            everything = [s for s in everything if not uses_compatibility_groups(s)]
            if len(everything) != count:
                result.append(Pool(driver, pool, incomplete=True))
                continue
        built = _build_pool(driver, pool, members, everything or [], partitionable)
        if any(d.get("bindingConditions") is not None for s in built.slices for d in (s.get("spec") or {}).get("devices") or ()):
            with_conditions.append(built)
        else:
            result.append(built)
    result.sort(key=lambda p: (p.driver, p.pool))
    with_conditions.sort(key=lambda p: (p.driver, p.pool))
    return result + with_conditions


def _build_pool(driver: str, pool: str, members: list[dict[str, Any]], everything: list[dict[str, Any]],
                partitionable: bool) -> Pool:
    """buildPool: device slices sorted by name, counter sets validated against every device."""
    members = sorted(members, key=_slice_name)
    device_slices: list[dict[str, Any]] = []
    counter_slices: list[dict[str, Any]] = []
    for s in members:
        (counter_slices if partitionable and (s.get("spec") or {}).get("sharedCounters") else device_slices).append(s)
    other: list[dict[str, Any]] = []
    if len(members) < len(everything):
        names = {_slice_name(s) for s in members}
        for s in everything:
            if _slice_name(s) in names:
                continue
            (counter_slices if partitionable and (s.get("spec") or {}).get("sharedCounters") else other).append(s)
    seen: set[str] = set()
    for s in device_slices:
        for device in (s.get("spec") or {}).get("devices") or ():
            dname = str(device.get("name", ""))
            if dname in seen:
                return Pool(driver, pool, invalid=True, invalid_reason=f"duplicate device name {dname}")
            seen.add(dname)
    if not partitionable:
        return Pool(driver, pool, device_slices)
    counter_sets: dict[str, dict[str, Decimal]] = {}
    for s in counter_slices:
        for cs in (s.get("spec") or {}).get("sharedCounters") or ():
            cname = str(cs.get("name", ""))
            if cname in counter_sets:
                return Pool(driver, pool, invalid=True, invalid_reason=f"duplicate counter set name {cname}")
            counter_sets[cname] = {
                str(n): parse_quantity(str((c or {}).get("value", "0"))) for n, c in (cs.get("counters") or {}).items()
            }
    for group in (device_slices, other):
        for s in group:
            for device in (s.get("spec") or {}).get("devices") or ():
                for consumption in device.get("consumesCounters") or ():
                    set_name = str(consumption.get("counterSet", ""))
                    counters = counter_sets.get(set_name)
                    if counters is None:
                        return Pool(driver, pool, invalid=True, invalid_reason=f"counter set {set_name} not found")
                    for cname in consumption.get("counters") or {}:
                        if cname not in counters:
                            return Pool(driver, pool, invalid=True,
                                        invalid_reason=f"counter {cname} not found in counter set {set_name}")
    return Pool(driver, pool, device_slices, other_slices=other, counter_sets=counter_sets)

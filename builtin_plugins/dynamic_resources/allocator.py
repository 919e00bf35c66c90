"""The structured-parameters allocator (k8s.io/dynamic-resource-allocation/structured v0.37.2) for
one node: an exhaustive, first-solution search over the devices of the resource pools the node can
use, exactly as upstream orders it (claims, requests, subrequests, devices; pools, slices, devices).

Two variants, chosen from the gates as upstream's NewAllocator chooses: with DRAPartitionableDevices
or DRAConsumableCapacity on (both beta and on by default in v1.37) the "incubating" variant (pools
sorted by driver and pool, slices by name, a request's next device looked for after the previous
one); with both off kubeberth's long-standing "stable" order (pools as first seen).

Covered: ExactCount and All allocation modes, firstAvailable subrequests (DRAPrioritizedList, GA),
admin access (DRAAdminAccess, GA), device taints and request tolerations (DRADeviceTaints, GA),
device binding conditions (DRADeviceBindingConditions, beta: pools with such devices last),
matchAttribute constraints, class and claim configuration, the allocation's node selector, pool
generations and completeness (resourceSliceCount), invalid pools (duplicate device names, counter
sets), the filter timeout (a deadline checked at every search step), and with their gates on:
- partitionable devices (DRAPartitionableDevices): slices with sharedCounters (counter sets),
  devices' consumesCounters checked against what allocated and in-flight devices of the pool
  already consume, perDeviceNodeSelection (a device's nodeName, nodeSelector or allNodes);
- consumable capacity (DRAConsumableCapacity, DRAFractionalCapacityRange): devices with
  allowMultipleAllocations shared by capacity, requestPolicy (default, validRange, validValues),
  requests' capacity.requests, results' consumedCapacity and shareID, the distinctAttribute
  constraint, capacity consumed by allocated and in-flight shares.
`AllocatorFeatures` carries the gates, as upstream's Features.

Not covered (alpha in v1.37, so they behave as if their gate were off): list-type attributes in
constraints, derived attributes, compatibility groups (slices using them are ignored), optional
node operations.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any

from kubeberth.api.dra import CelError, SelectorCache

from .capacity import (
    CapacityError,
    Quantity,
    add_capacity,
    cmp_request_over_capacity,
    consumed_capacity_from_request,
    remove_capacity,
)
from .contexts import DeviceContexts, did, enhance
from .counters import release_counters, reserve_counters
from .features import AllocatorFeatures, FailedOnNode, FilterTimedOut
from .pools import AllocationError, Pool, gather_pools, gather_pools_incubating, kobj, node_matches
from .requests import (
    ALL,
    EXACT_COUNT,
    DeviceID,
    DeviceResult,
    DistinctAttribute,
    MatchAttribute,
    Request,
    RequestData,
    taint_prevents,
)
from .results import allocation_result

__all__ = [
    "AllocationError",
    "Allocator",
    "AllocatorFeatures",
    "DeviceContexts",
    "FailedOnNode",
    "FilterTimedOut",
    "Pool",
    "gather_pools",
    "gather_pools_incubating",
    "kobj",
]

ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize


# ---- the allocator ----------------------------------------------------------------------------
@dataclass
class Allocator:
    """Allocates a pod's pending claims on one node at a time (structured.Allocator)."""

    claims: list[dict[str, Any]]
    allocated: set[DeviceID]
    get_class: Callable[[str], dict[str, Any] | None]
    selectors: SelectorCache
    contexts: DeviceContexts
    all_slices: Callable[[], Iterable[dict[str, Any]]]
    features: AllocatorFeatures = AllocatorFeatures()
    # (device, claim, request, subrequest) -> selectable; selectors do not depend on the node.
    matches: dict[tuple[DeviceID, int, int, int], bool] = field(default_factory=dict)
    # AllocatedState's other two parts (DRAConsumableCapacity): shares of devices that allow
    # multiple allocations, (driver, pool, device, shareID), and the capacity they consume.
    shared: set[tuple[str, str, str, str]] = field(default_factory=set)
    capacity: dict[DeviceID, dict[str, Decimal]] = field(default_factory=dict)
    # Counters left per pool (counter set -> counter -> value) after the allocated devices took
    # theirs; computed once per pool, as upstream's availableCounters.
    available_counters: dict[tuple[str, str], dict[str, dict[str, Decimal]]] = field(default_factory=dict)
    _shared_devices: set[DeviceID] | None = None
    invocations: int = 0  # allocateOne calls (upstream's Stats.NumAllocateOneInvocations)

    def shared_devices(self) -> set[DeviceID]:
        if self._shared_devices is None:
            self._shared_devices = {(d, p, n) for d, p, n, _share in self.shared}
        return self._shared_devices

    def is_allocated(self, device_id: DeviceID) -> bool:
        """internal.IsDeviceAllocated: dedicated, shared or with consumed capacity."""
        return device_id in self.allocated or device_id in self.shared_devices() or device_id in self.capacity

    def allocate(self, node_name: str, labels: dict[str, str], slices: Iterable[dict[str, Any]],
                 deadline: float | None = None) -> list[dict[str, Any]] | None:
        """AllocationResults for every claim, or None when the node cannot hold them; raises
        AllocationError (FailedOnNode for this node only), FilterTimedOut once time.monotonic()
        passes `deadline`."""
        if self.features.use_incubating:
            pools = gather_pools_incubating(slices, node_name, labels, self.all_slices, self.features.partitionable_devices)
        else:
            pools = gather_pools(slices, node_name, labels, self.all_slices)
        return _Run(self, node_name, labels, pools, deadline).allocate()


class _Run:
    """One Allocate call: the search state (upstream's unexported allocator struct)."""

    def __init__(self, alloc: Allocator, node_name: str, labels: dict[str, str], pools: list[Pool],
                 deadline: float | None = None) -> None:
        self.a = alloc
        self.deadline = deadline
        self.node_name = node_name
        self.labels = labels
        self.pools = pools
        self.claims = alloc.claims
        self.request_data: dict[tuple[int, int, int], RequestData] = {}
        self.constraints: list[list[MatchAttribute]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.result: list[list[DeviceResult]] = [[] for _ in self.claims]
        self.incubating = alloc.features.use_incubating
        self.consumable = alloc.features.consumable_capacity
        self.consumed_counters: dict[tuple[str, str], dict[str, dict[str, Decimal]]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Decimal]] = {}
        self.node_match: dict[DeviceID, bool] = {}  # per-device node selection on this node

    # ---- validation ----------------------------------------------------------------------
    def allocate(self) -> list[dict[str, Any]] | None:
        for ci, claim in enumerate(self.claims):
            self._validate_claim(ci, claim)
        try:
            done = self._allocate_one(0, 0, 0, 0, False, _START)
        except _MaxSize:
            done = False
        if not done:
            if any(p.invalid for p in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        binding_conditions = self.a.features.binding_conditions
        return [
            allocation_result(ci, claim, self.result[ci], self.request_data, binding_conditions, self.incubating,
                              self.node_name)
            for ci, claim in enumerate(self.claims)
        ]

    def _validate_claim(self, ci: int, claim: dict[str, Any]) -> None:
        """The claim's requests (request data per request and subrequest, the result size limit) and
        constraints, before the search."""
        devices = ((claim.get("spec") or {}).get("devices")) or {}
        min_per_claim = 0
        for ri, request in enumerate(devices.get("requests") or ()):
            subs = request.get("firstAvailable") or ()
            if self.incubating and subs and not self.a.features.prioritized_list:
                raise AllocationError(f"claim {kobj(claim)}, request {request.get('name', '')}: has subrequests, but the DRAPrioritizedList feature is disabled")
            if self.incubating and not self.consumable:
                if (request.get("exactly") or {}).get("capacity") is not None:
                    raise AllocationError(f"claim {kobj(claim)}, request {request.get('name', '')}: has capacity requests, but the DRAConsumableCapacity feature is disabled")
                for sub in subs:
                    if sub.get("capacity") is not None:
                        raise AllocationError(f"claim {kobj(claim)}, subrequest {sub.get('name', '')}: has capacity requests, but the DRAConsumableCapacity feature is disabled")
            if subs:
                min_per_request = 1 << 62
                for si, sub in enumerate(subs):
                    data = self._validate(Request.of(sub, str(sub.get("name", "")), False),
                                          str(request.get("name", "")), (ci, ri, si))
                    self.request_data[(ci, ri, si)] = data
                    min_per_request = min(min_per_request, data.num_devices)
            else:
                exactly = request.get("exactly")
                if exactly is None:
                    raise AllocationError(f"claim {kobj(claim)}, request {request.get('name', '')}: missing device class name (unsupported request type?)")
                data = self._validate(Request.of(exactly, str(request.get("name", "")), True), None, (ci, ri, 0))
                self.request_data[(ci, ri, 0)] = data
                min_per_request = data.num_devices
            if min_per_request > ALLOCATION_RESULTS_MAX_SIZE - min_per_claim:
                raise AllocationError(
                    f"claim {kobj(claim)}, request {request.get('name', '')}: adding {min_per_request} devices exceeds "
                    f"the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}, with {min_per_claim} already accounted for")
            min_per_claim += min_per_request
        constraints = []
        for i, c in enumerate(devices.get("constraints") or ()):
            if c.get("matchAttribute"):
                constraints.append(MatchAttribute(list(c.get("requests") or ()), str(c["matchAttribute"])))
            elif self.incubating and c.get("distinctAttribute"):
                constraints.append(DistinctAttribute(list(c.get("requests") or ()), str(c["distinctAttribute"])))
            else:
                raise AllocationError(f"claim {kobj(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)")
        self.constraints.append(constraints)

    def _validate(self, request: Request, parent: str | None, key: tuple[int, int, int]) -> RequestData:
        claim = self.claims[key[0]]
        name = request.name
        data = RequestData(request, parent)
        if request.admin_access and not self.a.features.admin_access:
            raise AllocationError(f"claim {kobj(claim)}, request {name}: admin access is requested, but the feature is disabled")
        if request.derived:
            raise AllocationError(f"claim {kobj(claim)}, request {name}: cannot handle request with derived attributes, the feature is disabled")
        for i, selector in enumerate(request.selectors):
            if not (selector.get("cel") or {}).get("expression"):
                raise AllocationError(f"claim {kobj(claim)}, request {name}, selector #{i}: CEL expression empty (unsupported selector type?)")
        if not request.class_name:
            raise AllocationError(f"claim {kobj(claim)}, request {name}: missing device class name (unsupported request type?)")
        cls = self.a.get_class(request.class_name)
        if cls is None:
            raise AllocationError(f'claim {kobj(claim)}, request {name}: could not retrieve device class {request.class_name}: deviceclass.resource.k8s.io "{request.class_name}" not found')
        data.cls = cls
        if request.mode == EXACT_COUNT:
            data.num_devices = request.count
        elif request.mode == ALL:
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(f"claim {kobj(claim)}, request {name}: asks for all devices, but resource pool {pool.id} is currently being updated")
                if pool.invalid:
                    raise AllocationError(f"claim {kobj(claim)}, request {name}: asks for all devices, but resource pool {pool.id} is currently invalid")
                for slice_ in pool.slices:
                    for di, device in enumerate((slice_.get("spec") or {}).get("devices") or ()):
                        if self._selectable(key, data, slice_, di):
                            device_id = (pool.driver, pool.pool, str(device.get("name", "")))
                            if self.consumable:
                                try:
                                    fits = cmp_request_over_capacity({}, request.capacity, device.get("capacity"), {},
                                                                     self.a.features.fractional_capacity_range)
                                except CapacityError as exc:
                                    raise AllocationError(f"claim {kobj(claim)}, request {name}: checking capacity for device {device.get('name', '')}: {exc}") from None
                                if not fits:
                                    continue
                            data.all_devices.append((device_id, device, slice_, pool))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"claim {kobj(claim)}, request {name}: unsupported count mode {request.mode}")
        return data

    # ---- search ------------------------------------------------------------------------
    def _allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int, int]) -> bool:
        """allocateOne; `start` (pool, slice, device) is where the incubating variant continues
        looking for a request's next device (the stable one always starts over)."""
        self.a.invocations += 1
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise FilterTimedOut
        if ci >= len(self.claims):
            return True
        requests = ((self.claims[ci].get("spec") or {}).get("devices") or {}).get("requests") or ()
        if ri >= len(requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False, _START)
            except _MaxSize:
                return False
        data = self.request_data[(ci, ri, si)]
        if not in_sub and data.parent is not None:
            return self._allocate_subrequests(ci, ri, di)
        request = data.request
        do_all = request.mode == ALL
        if do_all and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False, _START)
        if data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE - len(self.result[ci]):
            raise _MaxSize
        if do_all:
            return self._allocate_all_next(ci, ri, si, di, in_sub, data)
        pools = self.pools
        for pi in range(start[0], len(pools)):
            pool = pools[pi]
            if pool.incomplete or pool.invalid:
                continue
            slices = pool.slices
            for sli in range(start[1] if pi == start[0] else 0, len(slices)):
                slice_ = slices[sli]
                devices = (slice_.get("spec") or {}).get("devices") or ()
                for index in range(start[2] if pi == start[0] and sli == start[1] else 0, len(devices)):
                    device = devices[index]
                    device_id = (pool.driver, pool.pool, str(device.get("name", "")))
                    if request.admin_access:
                        if ci in self.allocating.get(device_id, ()):
                            continue
                    elif self._in_use(device_id):
                        continue
                    if not self._selectable((ci, ri, si), data, slice_, index):
                        continue
                    if self.consumable and not self._capacity_fits(ci, request, device_id, device, "checking"):
                        continue
                    undo = self._allocate_device(ci, ri, si, device_id, device, slice_, must=False, pool=pool)
                    if undo is None:
                        continue
                    after = (pi, sli, index + 1) if self.incubating else _START
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, in_sub, after)
                    except Exception:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _allocate_subrequests(self, ci: int, ri: int, di: int) -> bool:
        """A request with firstAvailable subrequests: the first subrequest that allocates wins (its
        index recorded); _MaxSize only when every subrequest exceeded the result size limit."""
        all_exceeded = True
        sub = 0
        while (ci, ri, sub) in self.request_data:
            try:
                ok = self._allocate_one(ci, ri, sub, di, True, _START)
            except _MaxSize:
                sub += 1
                continue
            all_exceeded = False
            if ok:
                self.request_data[(ci, ri, 0)].selected_sub = sub
                return True
            sub += 1
        if all_exceeded:
            raise _MaxSize
        return False

    def _allocate_all_next(self, ci: int, ri: int, si: int, di: int, in_sub: bool, data: RequestData) -> bool:
        """Allocation mode All: the di-th matching device must be allocated, then the search goes on."""
        device_id, device, slice_, in_pool = data.all_devices[di]
        undo = self._allocate_device(ci, ri, si, device_id, device, slice_, must=True, pool=in_pool)
        if undo is None:
            return False
        try:
            done = self._allocate_one(ci, ri, si, di + 1, in_sub, _START)
        except Exception:
            undo()
            raise
        if not done:
            undo()
        return done

    def _take_share(
        self, ci: int, request: Request, device_id: DeviceID, device: dict[str, Any]
    ) -> tuple[str, dict[str, Quantity], Callable[[], None]]:
        """A share of a device that allows multiple allocations: its ID, the capacity the request
        consumes (held while this node's search goes on), and the function giving it back."""
        try:
            consumed = consumed_capacity_from_request(request.capacity, device.get("capacity"),
                                                      self.a.features.fractional_capacity_range)
        except CapacityError as exc:
            raise AllocationError(f"claim {kobj(self.claims[ci])}, request {request.name}: computing consumed capacity for device {did(*device_id)}: {exc}") from None
        share_id = str(uuid.uuid4())
        existed = device_id in self.allocating_capacity
        entry = self.allocating_capacity.setdefault(device_id, {})
        add_capacity(entry, consumed)

        def give_back() -> None:
            left = self.allocating_capacity[device_id]
            if remove_capacity(left, consumed) and not existed:
                del self.allocating_capacity[device_id]

        return share_id, consumed, give_back

    def _in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated or bool(self.allocating.get(device_id))

    def _selectable(self, key: tuple[int, int, int], data: RequestData, slice_: dict[str, Any], index: int) -> bool:
        device = slice_["spec"]["devices"][index]
        if device.get("bindingConditions") and not self.a.features.binding_conditions:
            return False  # devices with binding conditions are not supported, feature is off
        spec = slice_["spec"]
        device_id = (str(spec.get("driver", "")), str((spec.get("pool") or {}).get("name", "")), str(device.get("name", "")))
        mkey = (device_id, *key)
        ok = self.a.matches.get(mkey)
        if ok is None:
            ok = True
            if data.cls is not None:
                ok = self._selectors_match(key, slice_, index, device_id, data.cls, ((data.cls.get("spec") or {}).get("selectors")) or ())
            if ok:
                ok = self._selectors_match(key, slice_, index, device_id, None, data.request.selectors)
            self.a.matches[mkey] = ok
        if ok and spec.get("perDeviceNodeSelection") and self.incubating:
            match = self.node_match.get(device_id)
            if match is None:
                match = node_matches(self.node_name, self.labels, str(device.get("nodeName") or ""),
                                     bool(device.get("allNodes")), device.get("nodeSelector"))
                self.node_match[device_id] = match
            return match
        return ok

    def _capacity_fits(self, ci: int, request: Request, device_id: DeviceID, device: dict[str, Any], verb: str) -> bool:
        """allocator.CmpRequestOverCapacity: the request fits next to allocated and allocating shares."""
        if not request.capacity and not device.get("capacity"):
            return True  # nothing to consume and nothing requested: always fits
        try:
            return cmp_request_over_capacity(self.a.capacity.get(device_id, {}), request.capacity, device.get("capacity"),
                                             self.allocating_capacity.get(device_id), self.a.features.fractional_capacity_range)
        except CapacityError as exc:
            raise AllocationError(f"claim {kobj(self.claims[ci])}, request {request.name}: {verb} capacity for device {did(*device_id)}: {exc}") from None

    def _capacity_in_use(self, device_id: DeviceID) -> bool:
        """deviceCapacityInUse: some share of the device is allocated or being allocated."""
        return device_id in self.a.capacity or device_id in self.a.shared_devices() or device_id in self.allocating_capacity

    def _selectors_match(self, key: tuple[int, int, int], slice_: dict[str, Any], index: int, device_id: DeviceID,
                         cls: dict[str, Any] | None, selectors: Iterable[dict[str, Any]]) -> bool:
        owner = f"class {kobj(cls)}" if cls is not None else f"claim {kobj(self.claims[key[0]])}"
        for i, selector in enumerate(selectors):
            expr = self.a.selectors.get(str((selector.get("cel") or {}).get("expression", "")))
            if expr.error:
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {expr.error}")
            try:
                ctx = self.a.contexts.get(slice_, index)
                ok = expr.matches(ctx)
            except CelError as exc:
                raise AllocationError(f"{owner}: selector #{i} on device {did(*device_id)}: CEL runtime error: {enhance(str(exc))}") from None
            if not ok:
                return False
        return True

    def _allocate_device(self, ci: int, ri: int, si: int, device_id: DeviceID, device: dict[str, Any],
                         slice_: dict[str, Any], must: bool, pool: Pool | None = None) -> Callable[[], None] | None:
        """allocateDevice: the device joins the claim's result, or None; the returned function undoes it."""
        data = self.request_data[(ci, ri, si)]
        request = data.request
        multi = self.consumable and bool(device.get("allowMultipleAllocations"))
        if request.admin_access:
            if not multi and ci in self.allocating.get(device_id, ()):
                return None
        elif self._in_use(device_id):
            return None
        consumes = device.get("consumesCounters")
        if consumes and not self.a.features.partitionable_devices:
            return None  # DRAPartitionableDevices is off
        undo_steps: list[Callable[[], None]] = []

        def undo() -> None:
            for step in reversed(undo_steps):
                step()

        if consumes and pool is not None and not (multi and self._capacity_in_use(device_id)):
            if not reserve_counters(self.a, self.consumed_counters, pool, device):
                return None
            undo_steps.append(lambda: release_counters(self.consumed_counters, pool, device))
        base, sub = (data.parent, request.name) if data.parent else (request.name, "")
        if self.a.features.device_taints and taint_prevents(device, request):
            undo()
            return None
        for c in self.constraints[ci]:
            if not c.add(base, sub, device, device_id):
                undo()
                if must:
                    raise AllocationError(f"claim {kobj(self.claims[ci])}, request {request.name}: cannot add device {did(*device_id)} because a claim constraint would not be satisfied")
                return None
            undo_steps.append(partial(c.remove, base, sub))
        if not multi:
            self.allocating.setdefault(device_id, set()).add(ci)
            undo_steps.append(lambda: self.allocating[device_id].discard(ci))
        share_id: str | None = None
        consumed: dict[str, Quantity] | None = None
        if self.consumable:
            try:
                fits = self._capacity_fits(ci, request, device_id, device, "rechecking")
            except AllocationError:
                undo()
                raise
            if not fits:
                undo()
                return None
            if multi:
                try:
                    share_id, consumed, give_back = self._take_share(ci, request, device_id, device)
                except AllocationError:
                    undo()
                    raise
                undo_steps.append(give_back)
        results = self.result[ci]
        before = len(results)
        results.append(DeviceResult(request.name, data.parent or "", device_id, device, slice_,
                                    True if request.admin_access else None, share_id, consumed or None))
        undo_steps.append(lambda: results.__delitem__(slice(before, None)))
        return undo


_START = (0, 0, 0)


class _MaxSize(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack harder."""

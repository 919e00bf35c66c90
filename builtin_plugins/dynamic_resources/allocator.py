"""The structured-parameters allocator (k8s.io/dynamic-resource-allocation/structured, the "stable"
variant of v0.37.2) for one node: an exhaustive, first-solution search over the devices of the
resource pools the node can use, exactly as upstream orders it (claims, requests, subrequests,
devices; pools, slices, devices in slice order).

Covered: ExactCount and All allocation modes, firstAvailable subrequests (DRAPrioritizedList, GA),
admin access (DRAAdminAccess, GA), device taints and request tolerations (DRADeviceTaints, GA),
device binding conditions (DRADeviceBindingConditions, beta: the incubating variant's results and
pool order, pools with such devices last), matchAttribute constraints, class and claim
configuration, the allocation's node selector, pool generations and completeness
(resourceSliceCount), invalid pools (duplicate device names), the filter timeout (a deadline
checked at every search step). `AllocatorFeatures` carries the gates, as upstream's Features.

Not covered (beta or alpha in v1.37, so they behave as if their gate were off): partitionable
devices (slices with sharedCounters or perDeviceNodeSelection are ignored, devices consuming
counters are never picked), consumable capacity, list-type and derived attributes, compatibility
groups.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubeberth import NodeSelector
from kubeberth.api.dra import CelError, DeviceContext, SelectorCache, device_context

__all__ = ["AllocationError", "Allocator", "AllocatorFeatures", "FailedOnNode", "FilterTimedOut", "Pool", "gather_pools"]

ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize
EXACT_COUNT = "ExactCount"
ALL = "All"

DeviceID = tuple[str, str, str]


class AllocationError(Exception):
    """The claims or classes cannot be handled at all (upstream: a non-nil error from Allocate)."""


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


def kobj(obj: dict[str, Any]) -> str:
    """klog.KObj: namespace/name (name alone for cluster-scoped objects)."""
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


def did(driver: str, pool: str, device: str) -> str:
    return f"{driver}/{pool}/{device}"


def enhance(message: str) -> str:
    """cel.EnhanceRuntimeError: a hint for selectors reading a key the device lacks."""
    if "no such key:" in message:
        return message + ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"
    return message


# ---- pools ------------------------------------------------------------------------------------
@dataclass(slots=True)
class Pool:
    driver: str
    pool: str
    slices: list[dict[str, Any]] = field(default_factory=list)
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""

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
        driver, pool, generation, _count = _pool_of(slice_)
        found = pools.get((driver, pool))
        if found is None:
            pools[(driver, pool)] = [slice_]
            continue
        current = _pool_of(found[0])[2]
        if generation < current:
            continue
        if generation > current:
            pools[(driver, pool)] = [slice_]
            continue
        found.append(slice_)
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


# ---- requests ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Request:
    """A request or subrequest, with the API's defaults applied."""

    name: str
    class_name: str
    mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    selectors: list[dict[str, Any]]
    tolerations: list[dict[str, Any]]
    derived: bool

    @classmethod
    def of(cls, spec: dict[str, Any], name: str, allow_admin: bool) -> Request:
        mode = spec.get("allocationMode") or EXACT_COUNT
        count = spec.get("count")
        if count is None and mode == EXACT_COUNT:
            count = 1
        admin = spec.get("adminAccess") if allow_admin else None
        return cls(name, str(spec.get("deviceClassName") or ""), mode, int(count or 0), bool(admin),
                   admin is not None, list(spec.get("selectors") or ()), list(spec.get("tolerations") or ()),
                   bool(spec.get("derivedAttributes")))


@dataclass(slots=True)
class RequestData:
    request: Request
    parent: str | None  # name of the parent request for a subrequest
    cls: dict[str, Any] | None = None
    num_devices: int = 0
    selected_sub: int = 0
    all_devices: list[tuple[DeviceID, dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent else self.request.name


@dataclass(slots=True)
class DeviceResult:
    request: str
    parent: str
    id: DeviceID
    device: dict[str, Any]
    slice: dict[str, Any]
    admin_access: bool | None

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent else self.request


class MatchAttribute:
    """matchAttributeConstraint: every device of the named requests has the same attribute value."""

    def __init__(self, requests: list[str], attribute: str) -> None:
        self.requests = set(requests)
        self.attribute = attribute
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        if not sub:
            return request in self.requests
        return request in self.requests or f"{request}/{sub}" in self.requests

    def add(self, request: str, sub: str, device: dict[str, Any], device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.count == 0:
            self.value = attr
            self.count = 1
            return True
        if attr[0] not in ("int", "bool", "string", "version") or self.value != attr:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if self._applies(request, sub):
            self.count -= 1


def lookup_attribute(device: dict[str, Any], device_id: DeviceID, name: str) -> tuple[str, Any] | None:
    attrs = device.get("attributes") or {}
    attr = attrs.get(name)
    if attr is None:
        domain, sep, ident = name.partition("/")
        if not sep or domain != device_id[0]:
            return None
        attr = attrs.get(ident)
        if attr is None:
            return None
    for kind in ("string", "int", "bool", "version"):
        if kind in attr:
            return (kind, attr[kind])
    return ("", None)


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """resourceclaim.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def taint_prevents(device: dict[str, Any], request: Request) -> bool:
    for taint in device.get("taints") or ():
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not any(
            tolerates(t, taint) for t in request.tolerations
        ):
            return True
    return False


# ---- the allocator ----------------------------------------------------------------------------
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

    def allocate(self, node_name: str, labels: dict[str, str], slices: Iterable[dict[str, Any]],
                 deadline: float | None = None) -> list[dict[str, Any]] | None:
        """AllocationResults for every claim, or None when the node cannot hold them; raises
        AllocationError (FailedOnNode for this node only), FilterTimedOut once time.monotonic()
        passes `deadline`."""
        run = _Run(self, node_name, labels, gather_pools(slices, node_name, labels, self.all_slices), deadline)
        return run.allocate()


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

    # ---- validation ----------------------------------------------------------------------
    def allocate(self) -> list[dict[str, Any]] | None:
        for ci, claim in enumerate(self.claims):
            devices = ((claim.get("spec") or {}).get("devices")) or {}
            min_per_claim = 0
            for ri, request in enumerate(devices.get("requests") or ()):
                subs = request.get("firstAvailable") or ()
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
                else:
                    raise AllocationError(f"claim {kobj(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)")
            self.constraints.append(constraints)
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSize:
            done = False
        if not done:
            if any(p.invalid for p in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

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
                            data.all_devices.append((device_id, device, slice_))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"claim {kobj(claim)}, request {name}: unsupported count mode {request.mode}")
        return data

    # ---- search ------------------------------------------------------------------------
    def _allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise FilterTimedOut
        if ci >= len(self.claims):
            return True
        requests = ((self.claims[ci].get("spec") or {}).get("devices") or {}).get("requests") or ()
        if ri >= len(requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSize:
                return False
        data = self.request_data[(ci, ri, si)]
        if not in_sub and data.parent is not None:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.request_data:
                try:
                    ok = self._allocate_one(ci, ri, sub, di, True)
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
        request = data.request
        do_all = request.mode == ALL
        if do_all and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE - len(self.result[ci]):
            raise _MaxSize
        if do_all:
            device_id, device, slice_ = data.all_devices[di]
            undo = self._allocate_device(ci, ri, si, device_id, device, slice_, must=True)
            if undo is None:
                return False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, in_sub)
            except Exception:
                undo()
                raise
            if not done:
                undo()
            return done
        for pool in self.pools:
            if pool.incomplete or pool.invalid:
                continue
            for slice_ in pool.slices:
                for index, device in enumerate((slice_.get("spec") or {}).get("devices") or ()):
                    device_id = (pool.driver, pool.pool, str(device.get("name", "")))
                    if request.admin_access:
                        if ci in self.allocating.get(device_id, ()):
                            continue
                    elif self._in_use(device_id):
                        continue
                    if not self._selectable((ci, ri, si), data, slice_, index):
                        continue
                    undo = self._allocate_device(ci, ri, si, device_id, device, slice_, must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, in_sub)
                    except Exception:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated or bool(self.allocating.get(device_id))

    def _selectable(self, key: tuple[int, int, int], data: RequestData, slice_: dict[str, Any], index: int) -> bool:
        device = slice_["spec"]["devices"][index]
        if device.get("bindingConditions") and not self.a.features.binding_conditions:
            return False  # devices with binding conditions are not supported, feature is off
        spec = slice_["spec"]
        device_id = (str(spec.get("driver", "")), str((spec.get("pool") or {}).get("name", "")), str(device.get("name", "")))
        mkey = (device_id, *key)
        found = self.a.matches.get(mkey)
        if found is not None:
            return found
        ok = True
        if data.cls is not None:
            ok = self._selectors_match(key, slice_, index, device_id, data.cls, ((data.cls.get("spec") or {}).get("selectors")) or ())
        if ok:
            ok = self._selectors_match(key, slice_, index, device_id, None, data.request.selectors)
        self.a.matches[mkey] = ok
        return ok

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
                         slice_: dict[str, Any], must: bool) -> Callable[[], None] | None:
        data = self.request_data[(ci, ri, si)]
        request = data.request
        if request.admin_access:
            if ci in self.allocating.get(device_id, ()):
                return None
        elif self._in_use(device_id):
            return None
        if device.get("consumesCounters"):
            return None  # DRAPartitionableDevices (beta) is not implemented: as if disabled
        base, sub = (data.parent, request.name) if data.parent else (request.name, "")
        if self.a.features.device_taints and taint_prevents(device, request):
            return None
        added: list[MatchAttribute] = []
        for c in self.constraints[ci]:
            if not c.add(base, sub, device, device_id):
                for done in reversed(added):
                    done.remove(base, sub)
                if must:
                    raise AllocationError(f"claim {kobj(self.claims[ci])}, request {request.name}: cannot add device {did(*device_id)} because a claim constraint would not be satisfied")
                return None
            added.append(c)
        self.allocating.setdefault(device_id, set()).add(ci)
        results = self.result[ci]
        before = len(results)
        results.append(DeviceResult(request.name, data.parent or "", device_id, device, slice_,
                                    True if request.admin_access else None))

        def undo() -> None:
            del results[before:]
            self.allocating[device_id].discard(ci)
            for c in reversed(added):
                c.remove(base, sub)

        return undo

    # ---- results -----------------------------------------------------------------------
    def _request_of(self, claim: dict[str, Any], res: DeviceResult) -> Request | None:
        name = res.parent or res.request
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            if request.get("name") != name:
                continue
            if not res.parent:
                return Request.of(request.get("exactly") or {}, name, True)
            for sub in request.get("firstAvailable") or ():
                if sub.get("name") == res.request:
                    return Request.of(sub, res.request, False)
        return None

    def _result(self, ci: int, claim: dict[str, Any]) -> dict[str, Any]:
        results = []
        for res in self.result[ci]:
            entry: dict[str, Any] = {"request": res.request_name, "driver": res.id[0], "pool": res.id[1], "device": res.id[2]}
            if res.admin_access is not None:
                entry["adminAccess"] = res.admin_access
            request = self._request_of(claim, res)
            if request is not None and request.tolerations:
                entry["tolerations"] = request.tolerations
            if self.a.features.binding_conditions:
                for key in ("bindingConditions", "bindingFailureConditions"):
                    if res.device.get(key):
                        entry[key] = list(res.device[key])
            results.append(entry)
        devices = ((claim.get("spec") or {}).get("devices")) or {}
        requests = list(devices.get("requests") or ())
        config: list[dict[str, Any]] = []
        ranges: dict[str, tuple[int, int]] = {}
        for ri in range(len(requests)):
            data = self.request_data[(ci, ri, 0)]
            if data.parent is not None:
                data = self.request_data[(ci, ri, data.selected_sub)]
            cls = data.cls
            if cls is None:
                continue
            cname = kobj(cls)
            if cname in ranges:
                start, end = ranges[cname]
                for i in range(start, end):
                    config[i]["requests"].append(data.request_name)
                continue
            start = len(config)
            for c in (cls.get("spec") or {}).get("config") or ():
                config.append({"source": "FromClass", "requests": [data.request_name], **{k: v for k, v in c.items()}})
            ranges[cname] = (start, len(config))
        for c in devices.get("config") or ():
            wanted = list(c.get("requests") or ())
            body = {k: v for k, v in c.items() if k != "requests"}
            if not wanted:
                config.append({"source": "FromClaim", **body})
                continue
            for ri, request in enumerate(requests):
                if request.get("name") in wanted:
                    config.append({"source": "FromClaim", "requests": wanted, **body})
                    break
                data = self.request_data[(ci, ri, 0)]
                if data.parent is None:
                    continue
                sub = (request.get("firstAvailable") or ())[data.selected_sub]
                if f"{request.get('name')}/{sub.get('name')}" in wanted:
                    config.append({"source": "FromClaim", "requests": wanted, **body})
                    break
        for c in config:
            wanted = c.get("requests")
            if not wanted:
                continue
            applies = True
            for ri, request in enumerate(requests):
                if request.get("name") in wanted:
                    continue
                data = self.request_data[(ci, ri, 0)]
                if data.parent is not None:
                    sub = (request.get("firstAvailable") or ())[data.selected_sub]
                    if f"{request.get('name')}/{sub.get('name')}" in wanted:
                        continue
                applies = False
                break
            if applies:
                c.pop("requests", None)
        allocation: dict[str, Any] = {"devices": {"results": results}}
        if config:
            allocation["devices"]["config"] = config
        selector = self._node_selector(ci, claim)
        if selector is not None:
            allocation["nodeSelector"] = selector
        return allocation

    def _node_selector(self, ci: int, claim: dict[str, Any]) -> dict[str, Any] | None:
        fields: list[dict[str, Any]] = []
        exprs: list[dict[str, Any]] = []
        for res in self.result[ci]:
            spec = res.slice.get("spec") or {}
            name = spec.get("nodeName")
            selector = spec.get("nodeSelector")
            if name or (self.a.features.binding_conditions and res.device.get("bindsToNode")):
                # Local to one node, or binds to the node it is allocated for.
                return {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [name or self.node_name]}]}]}
            if selector is not None:
                terms = selector.get("nodeSelectorTerms") or []
                if len(terms) > 1:
                    raise AllocationError(f"create NodeSelector for claim {(claim.get('metadata') or {}).get('name', '')}: unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
                if terms:
                    _add_requirements(terms[0].get("matchFields") or (), fields)
                    _add_requirements(terms[0].get("matchExpressions") or (), exprs)
        if fields or exprs:
            term: dict[str, Any] = {}
            if exprs:
                term["matchExpressions"] = exprs
            if fields:
                term["matchFields"] = fields
            return {"nodeSelectorTerms": [term]}
        return None


class _MaxSize(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack harder."""


def _add_requirements(source: Iterable[dict[str, Any]], target: list[dict[str, Any]]) -> None:
    for req in source:
        values = set(req.get("values") or ())
        if not any(
            r.get("key") == req.get("key") and r.get("operator") == req.get("operator") and set(r.get("values") or ()) == values
            for r in target
        ):
            target.append(req)

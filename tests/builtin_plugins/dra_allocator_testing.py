"""k8s.io/dynamic-resource-allocation v0.37.2 structured/internal/allocatortesting, ported: the
fixture helpers of allocator_testing.go (same names, same objects, as resource.k8s.io/v1 JSON) and
RunTestAllocator's checks, so the shared TestAllocator table runs against kubeberth's allocator as
it runs against upstream's incubating variant."""

# ruff: noqa: N802, N803, N806, N816, E741
from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from kubeberth.api.dra import SelectorCache
from kubeberth.builtin_plugins.dynamic_resources.allocator import (
    AllocationError,
    Allocator,
    AllocatorFeatures,
    DeviceContexts,
)
from kubeberth.builtin_plugins.dynamic_resources.capacity import quantity

# ---- constants ---------------------------------------------------------------------------------
region1, region2 = "region-1", "region-2"
node1, node2 = "node-1", "node-2"
classA, classB = "class-a", "class-b"
driverA, driverB = "driver-a", "driver-b"
pool1, pool2, pool3, pool4 = "pool-1", "pool-2", "pool-3", "pool-4"
req0, req1, req2, req3 = "req-0", "req-1", "req-2", "req-3"
subReq0, subReq1 = "subReq-0", "subReq-1"
req0SubReq0, req0SubReq1 = "req-0/subReq-0", "req-0/subReq-1"
req1SubReq0, req1SubReq1 = "req-1/subReq-0", "req-1/subReq-1"
req2SubReq0, req2SubReq1 = "req-2/subReq-0", "req-2/subReq-1"
claim0, claim1 = "claim-0", "claim-1"
slice1, slice2, slice3, slice4 = "slice-1", "slice-2", "slice-3", "slice-4"
device0, device1, device2, device3, device4 = "device-0", "device-1", "device-2", "device-3", "device-4"
counterSet1, counterSet2 = "counter-set-1", "counter-set-2"
capacity0, capacity1 = "capacity-0", "capacity-1"
fixedShareID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"

# resource.Quantity values as the API writes them (NewQuantity(n, BinarySI) renders as "n").
zero, one, two, three, four = "0", "1", "2", "3", "4"
pointOne, pointTwo, pointTwoFive, pointThree = "100m", "200m", "250m", "300m"

fieldNameKey = "metadata.name"
regionKey = "region"
planetKey = "planet"
planetValueEarth = "earth"
fromCounters = "fromCounters"
nodeSelectionAll = "nodeSelectionAll"
nodeSelectionPerDevice = "nodeSelectionPerDevice"

resourceapi_DeviceAllocationModeAll = "All"
resourceapi_DeviceAllocationModeExactCount = "ExactCount"
resourceapi_DeviceTaintEffectNoSchedule = "NoSchedule"
resourceapi_DeviceTaintEffectNoExecute = "NoExecute"
resourceapi_DeviceTaintEffectNone = "None"
resourceapi_DeviceTolerationOpExists = "Exists"
resourceapi_DeviceTolerationOpEqual = "Equal"
resourceapi_AllocationConfigSourceClaim = "FromClaim"
resourceapi_AllocationConfigSourceClass = "FromClass"
resourceapi_AllocationResultsMaxSize = 32
resourceapi_SkipNodeOperationAll = "All"
v1_NodeSelectorOpIn = "In"
resource_BinarySI = "BinarySI"
resource_DecimalSI = "DecimalSI"
math_MaxInt = 2**63 - 1
internal_Stable, internal_Incubating, internal_Experimental = "stable", "incubating", "experimental"

# TestAllocator's locals.
nonExistentAttribute = driverA + "/" + "NonExistentAttribute"
boolAttribute = driverA + "/" + "boolAttribute"
stringAttribute = driverA + "/" + "stringAttribute"
versionAttribute = driverA + "/" + "driverVersion"
intAttribute = driverA + "/" + "numa"
numaNodeAttribute = "resource.kubernetes.io/numaNode"
taintKey, taintValue, taintValue2 = "taint-key", "taint-value", "taint-value-2"
taintNone = {"key": taintKey, "value": taintValue, "effect": "None"}
taintNoSchedule = {"key": taintKey, "value": taintValue, "effect": "NoSchedule"}
taintNoExecute = {"key": taintKey, "value": taintValue2, "effect": "NoExecute"}
tolerationNoSchedule = {"operator": "Exists", "key": taintKey, "effect": "NoSchedule"}
tolerationNoExecute = {"operator": "Equal", "key": taintKey, "value": taintValue2, "effect": "NoExecute"}
tolerationNoScheduleKey1 = {"operator": "Exists", "key": "key1", "effect": "NoSchedule"}


# ---- Go literals ---------------------------------------------------------------------------------
_JSON_NAMES = {
    "IntValue": "int",
    "StringValue": "string",
    "BoolValue": "bool",
    "VersionValue": "version",
    "CEL": "cel",
    "ShareID": "shareID",
    "IntValues": "ints",
    "StringValues": "strings",
    "BoolValues": "bools",
    "VersionValues": "versions",
}


def S(_type: str | None, **fields: Any) -> dict[str, Any]:
    """A Go struct literal as its JSON object (nil fields left out, embedded structs inlined)."""
    if _type == "Features":
        return dict(fields)
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None:
            continue
        if (
            name in ("DeviceConfiguration", "ObjectMeta")
            and isinstance(value, dict)
            and _type != "resourceapi_DeviceClass"
        ):
            out.update(value) if name == "DeviceConfiguration" else out.setdefault("metadata", {}).update(
                value
            )
            continue
        if name == "ObjectMeta":
            out["metadata"] = value
            continue
        out[_JSON_NAMES.get(name, name[:1].lower() + name[1:])] = value
    return out


def go_ptr(value: Any) -> Any:
    return value


def go_int(value: Any) -> Any:
    return value


def go_sprintf(fmt: str, *args: Any) -> str:
    def conv(a: Any) -> Any:
        return ("true" if a else "false") if isinstance(a, bool) else a

    return re.sub(r"%[sdv]", "%s", fmt) % tuple(conv(a) for a in args)


def resource_MustParse(text: str) -> str:
    return text


def resource_NewQuantity(value: int, fmt: str) -> str:
    return str(value)


def resourceapi_FullyQualifiedName(name: str) -> str:
    return name


def MakeDeviceID(driver: str, pool: str, device: str) -> tuple[str, str, str]:
    return (driver, pool, device)


def internal_MakeSharedDeviceID(
    device_id: tuple[str, str, str], share_id: str | None
) -> tuple[str, str, str, str]:
    return (*device_id, share_id or "")


def sets_New(*items: Any) -> set[Any]:
    return set(items)


def slices_Concat(*lists: list[Any]) -> list[Any]:
    return [x for lst in lists for x in lst]


def objects(*objs: Any) -> list[Any]:
    return list(objs)


def unwrap(*objs: Any) -> list[Any]:
    return [o.obj() if hasattr(o, "obj") else o for o in objs]


def unwrapResourceSlices(*objs: Any) -> list[dict[str, Any]]:
    return [o.obj() if hasattr(o, "obj") else o for o in objs]


# ---- object generators -------------------------------------------------------------------------
def node(name: str, region: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {regionKey: region, planetKey: planetValueEarth}}}


def nodeWithDRAOptionalNodeOperations(name: str, region: str) -> dict[str, Any]:
    n = node(name, region)
    n["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
    return n


def klass(name: str, driver: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
    }


def classWithAllowMultipleAllocations(name: str, driver: str, multialloc: bool) -> dict[str, Any]:
    expression = f'device.driver == "{driver}" && device.allowMultipleAllocations == {"true" if multialloc else "false"}'
    return {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def deviceConfiguration(driver: str, attribute: str) -> dict[str, Any]:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def classWithConfig(name: str, driver: str, attribute: str) -> dict[str, Any]:
    c = klass(name, driver)
    c["spec"]["config"] = [deviceConfiguration(driver, attribute)]
    return c


class wrapResourceClaim:
    def __init__(self, claim: dict[str, Any]) -> None:
        self.claim = claim

    def obj(self) -> dict[str, Any]:
        return self.claim

    def _devices(self, out: dict[str, Any]) -> dict[str, Any]:
        return out.setdefault("spec", {}).setdefault("devices", {})

    def withTolerations(self, *tolerations: dict[str, Any]) -> wrapResourceClaim:
        out = copy.deepcopy(self.claim)
        for r in self._devices(out).get("requests") or ():
            r["exactly"].setdefault("tolerations", []).extend(tolerations)
        return wrapResourceClaim(out)

    def withRequests(self, *requests: wrapDeviceRequest) -> wrapResourceClaim:
        out = copy.deepcopy(self.claim)
        self._devices(out)["requests"] = [copy.deepcopy(r.obj()) for r in requests]
        return wrapResourceClaim(out)

    def withConstraints(self, *constraints: dict[str, Any]) -> wrapResourceClaim:
        out = copy.deepcopy(self.claim)
        self._devices(out)["constraints"] = list(constraints)
        return wrapResourceClaim(out)

    def withConfigs(self, configs: list[dict[str, Any]]) -> wrapResourceClaim:
        out = copy.deepcopy(self.claim)
        self._devices(out)["config"] = list(configs)
        return wrapResourceClaim(out)


def claimWithRequests(
    name: str, constraints: list[dict[str, Any]] | None, *requests: Any
) -> wrapResourceClaim:
    devices: dict[str, Any] = {"requests": [r.obj() if hasattr(r, "obj") else r for r in requests]}
    if constraints:
        devices["constraints"] = list(constraints)
    return wrapResourceClaim({"metadata": {"name": name}, "spec": {"devices": devices}})


def request(name: str, class_: str, count: int, *selectors: dict[str, Any]) -> dict[str, Any]:
    exactly: dict[str, Any] = {"count": count, "allocationMode": "ExactCount", "deviceClassName": class_}
    if selectors:
        exactly["selectors"] = list(selectors)
    return {"name": name, "exactly": exactly}


class wrapDeviceRequest:
    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request

    def obj(self) -> dict[str, Any]:
        return self.request

    def withCapacityRequest(self, q: str | None) -> wrapDeviceRequest:
        out = copy.deepcopy(self.request)
        out["exactly"]["capacity"] = capacityRequests(q)
        return wrapDeviceRequest(out)

    def withSelectors(self, *selectors: dict[str, Any]) -> wrapDeviceRequest:
        out = copy.deepcopy(self.request)
        out["exactly"]["selectors"] = list(selectors)
        return wrapDeviceRequest(out)


def deviceRequest(name: str, class_: str, count: int) -> wrapDeviceRequest:
    return wrapDeviceRequest(request(name, class_, count))


def allDeviceRequest(name: str, class_: str) -> wrapDeviceRequest:
    return wrapDeviceRequest({"name": name, "exactly": {"allocationMode": "All", "deviceClassName": class_}})


class wrapDeviceSubRequest:
    def __init__(self, sub: dict[str, Any]) -> None:
        self.sub = sub

    def obj(self) -> dict[str, Any]:
        return self.sub

    def withAllocationMode(self, mode: str) -> wrapDeviceSubRequest:
        out = copy.deepcopy(self.sub)
        out["allocationMode"] = mode
        return wrapDeviceSubRequest(out)

    def withCapacityRequest(self, q: str | None) -> wrapDeviceSubRequest:
        out = copy.deepcopy(self.sub)
        out["capacity"] = capacityRequests(q)
        return wrapDeviceSubRequest(out)


def subRequest(name: str, class_: str, count: int, *fields: Any) -> wrapDeviceSubRequest:
    sub: dict[str, Any] = {
        "name": name,
        "count": count,
        "allocationMode": "ExactCount",
        "deviceClassName": class_,
    }
    for f in fields:
        if isinstance(f, list):
            sub.setdefault("derivedAttributes", []).extend(f)
        elif "cel" in f:
            sub.setdefault("selectors", []).append(f)
        else:
            sub.setdefault("tolerations", []).append(f)
    return wrapDeviceSubRequest(sub)


def requestWithPrioritizedList(name: str, *subs: wrapDeviceSubRequest) -> wrapDeviceRequest:
    return wrapDeviceRequest({"name": name, "firstAvailable": [s.obj() for s in subs]})


def requestWithDerivedAttributes(
    name: str, class_: str, count: int, derived: list[dict[str, Any]], *selectors: dict[str, Any]
) -> dict[str, Any]:
    r = request(name, class_, count, *selectors)
    r["exactly"]["derivedAttributes"] = derived
    return r


def claimWithRequest(name: str, req: str, class_: str, *constraints: dict[str, Any]) -> wrapResourceClaim:
    return claimWithRequests(name, list(constraints), request(req, class_, 1))


def claim(name: str) -> wrapResourceClaim:
    return wrapResourceClaim({"metadata": {"name": name}})


def claimWithDeviceConfig(
    name: str, request_: str, class_: str, driver: str, attribute: str
) -> wrapResourceClaim:
    c = claimWithRequest(name, request_, class_)
    c.claim["spec"]["devices"]["config"] = [deviceConfiguration(driver, attribute)]
    return c


def deviceClaimConfig(requests: list[str], config: dict[str, Any]) -> dict[str, Any]:
    return {"requests": requests, **config}


def toDeviceCapacity(capacity: dict[str, str]) -> dict[str, Any]:
    return {name: {"value": q} for name, q in capacity.items()}


def toCounters(counters: dict[str, str]) -> dict[str, Any]:
    return {name: {"value": q} for name, q in (counters or {}).items()}


class wrapDevice:
    def __init__(self, device: dict[str, Any], from_counters: bool = False) -> None:
        self.device = device
        self.from_counters = from_counters

    def obj(self) -> dict[str, Any]:
        return self.device

    def _copy(self) -> dict[str, Any]:
        return copy.deepcopy(self.device)

    def withTaints(self, *taints: dict[str, Any]) -> wrapDevice:
        d = self._copy()
        d.setdefault("taints", []).extend(taints)
        return wrapDevice(d)

    def withDeviceCounterConsumption(self, *consumption: dict[str, Any]) -> wrapDevice:
        d = self._copy()
        d.setdefault("consumesCounters", []).extend(copy.deepcopy(list(consumption)))
        if self.from_counters:
            d["capacity"] = {
                name: {"value": c["value"]}
                for dcc in d["consumesCounters"]
                for name, c in dcc["counters"].items()
            }
        return wrapDevice(d)

    def withNodeSelection(self, selection: Any) -> wrapDevice:
        d = self._copy()
        if isinstance(selection, dict):
            d["nodeSelector"] = selection
        elif selection == nodeSelectionAll:
            d["allNodes"] = True
        else:
            d["nodeName"] = selection
        return wrapDevice(d)

    def withBindingConditions(self, conditions: list[str] | None, failure: list[str] | None) -> wrapDevice:
        d = self._copy()
        d["bindingConditions"] = conditions
        d["bindingFailureConditions"] = failure
        return wrapDevice({k: v for k, v in d.items() if v is not None})

    def withBindsToNode(self, binds: bool) -> wrapDevice:
        d = self._copy()
        d["bindsToNode"] = binds
        return wrapDevice(d)

    def withAllowMultipleAllocations(self) -> wrapDevice:
        d = self._copy()
        d["allowMultipleAllocations"] = True
        return wrapDevice(d)

    def _policy(self, capacity: dict[str, str], policy: dict[str, Any]) -> wrapDevice:
        d = self._copy()
        caps = d.setdefault("capacity", {})
        for name, q in capacity.items():
            caps[name] = {"value": q, "requestPolicy": copy.deepcopy(policy)}
        return wrapDevice(d)

    def withCapacityRequestPolicyRange(self, capacity: dict[str, str]) -> wrapDevice:
        return self._policy(capacity, {"default": two, "validRange": {"min": two, "step": two, "max": four}})

    def withFractionalCapacityRequestPolicyRange(self, capacity: dict[str, str]) -> wrapDevice:
        return self._policy(
            capacity, {"default": pointTwo, "validRange": {"min": pointTwo, "step": pointOne, "max": one}}
        )

    def withCapacityRequestPolicyValidValues(
        self, default: str, capacity: dict[str, str], additional: list[str]
    ) -> wrapDevice:
        return self._policy(capacity, {"default": default, "validValues": [default, *(additional or [])]})


def device(name: str, capacity: Any, attributes: dict[str, Any] | None) -> wrapDevice:
    d: dict[str, Any] = {"name": name}
    if attributes is not None:
        d["attributes"] = attributes
    if capacity == fromCounters:
        return wrapDevice(d, from_counters=True)
    if isinstance(capacity, dict):
        d["capacity"] = {n: (c if isinstance(c, dict) else {"value": c}) for n, c in capacity.items()}
    return wrapDevice(d)


def deviceCounterConsumption(counter_set: str, counters: dict[str, str]) -> dict[str, Any]:
    return {"counterSet": counter_set, "counters": toCounters(counters)}


def deviceCounterConsumptionWithGroups(
    counter_set: str, counters: dict[str, str], *groups: str
) -> dict[str, Any]:
    return {"counterSet": counter_set, "counters": toCounters(counters), "compatibilityGroups": list(groups)}


def slice_(name: str, selection: Any, pool: Any, driver: str) -> dict[str, Any]:
    if isinstance(pool, str):
        pool = {"name": pool, "resourceSliceCount": 1, "generation": 1}
    spec: dict[str, Any] = {"driver": driver, "pool": pool}
    if isinstance(selection, dict):
        spec["nodeSelector"] = selection
    elif selection == nodeSelectionAll:
        spec["allNodes"] = True
    elif selection == nodeSelectionPerDevice:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = selection
    return {"metadata": {"name": name}, "spec": spec}


class wrapResourceSlice:
    def __init__(self, s: dict[str, Any]) -> None:
        self.s = s

    def obj(self) -> dict[str, Any]:
        return self.s

    def withSkipNodeOperations(self, *skip: str) -> wrapResourceSlice:
        out = copy.deepcopy(self.s)
        out["spec"]["skipNodeOperations"] = list(skip)
        return wrapResourceSlice(out)


def sliceWithDevices(
    name: str, selection: Any, pool: Any, driver: str, *devices: wrapDevice
) -> wrapResourceSlice:
    s = slice_(name, selection, pool, driver)
    if devices:
        s["spec"]["devices"] = [copy.deepcopy(d.obj()) for d in devices]
    return wrapResourceSlice(s)


def sliceWithCounterSets(
    name: str, selection: Any, pool: Any, driver: str, *counter_sets: dict[str, Any]
) -> wrapResourceSlice:
    s = slice_(name, selection, pool, driver)
    s["spec"]["sharedCounters"] = list(counter_sets)
    return wrapResourceSlice(s)


def sliceWithNoDevices(name: str, selection: Any, pool: Any, driver: str) -> wrapResourceSlice:
    return sliceWithDevices(name, selection, pool, driver)


def sliceWithOneDevice(name: str, selection: Any, pool: Any, driver: str) -> wrapResourceSlice:
    return sliceWithDevices(name, selection, pool, driver, device(device1, None, None))


def sliceWithMultipleDevices(
    name: str, selection: Any, pool: Any, driver: str, count: int
) -> wrapResourceSlice:
    return sliceWithDevices(
        name, selection, pool, driver, *(device(f"device-{i}", None, None) for i in range(count))
    )


def resourcePool(name: str, count: int) -> dict[str, Any]:
    return {"name": name, "resourceSliceCount": count, "generation": 1}


def counterSet(name: str, counters: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "counters": toCounters(counters)}


def deviceAllocationResult(
    request_: str, driver: str, pool: str, device_: str, admin: bool, *tolerations: dict[str, Any]
) -> dict[str, Any]:
    r: dict[str, Any] = {"request": request_, "driver": driver, "pool": pool, "device": device_}
    if tolerations:
        r["tolerations"] = list(tolerations)
    if admin:
        r["adminAccess"] = True
    return r


def deviceAllocationResultWithSkipNodeOperations(
    request_: str, driver: str, pool: str, device_: str, *skip: str
) -> dict[str, Any]:
    r = deviceAllocationResult(request_, driver, pool, device_, False)
    r["skipNodeOperations"] = list(skip)
    return r


class wrapDeviceRequestAllocationResult:
    def __init__(self, r: dict[str, Any]) -> None:
        self.r = r

    def obj(self) -> dict[str, Any]:
        return self.r

    def withConsumedCapacity(self, share_id: str | None, consumed: dict[str, str] | None) -> dict[str, Any]:
        out = copy.deepcopy(self.r)
        if share_id is not None:
            out["shareID"] = share_id
        if consumed is not None:
            out["consumedCapacity"] = dict(consumed)
        return out


def deviceRequestAllocationResult(
    request_: str, driver: str, pool: str, device_: str
) -> wrapDeviceRequestAllocationResult:
    return wrapDeviceRequestAllocationResult(
        {"request": request_, "driver": driver, "pool": pool, "device": device_}
    )


def deviceRequestAllocationResultWithBindingConditions(
    request_: str,
    driver: str,
    pool: str,
    device_: str,
    conditions: list[str] | None,
    failure: list[str] | None,
    *tolerations: dict[str, Any],
) -> dict[str, Any]:
    r: dict[str, Any] = {"request": request_, "driver": driver, "pool": pool, "device": device_}
    if conditions is not None:
        r["bindingConditions"] = conditions
    if failure is not None:
        r["bindingFailureConditions"] = failure
    if tolerations:
        r["tolerations"] = list(tolerations)
    return r


def capacityRequests(q: str | None) -> dict[str, Any]:
    return {"requests": requirements(q)}


def requirements(q: str | None) -> dict[str, str]:
    return {capacity0: q} if q is not None else {}


def multipleDeviceAllocationResults(
    request_: str, driver: str, pool: str, count: int, start: int
) -> list[dict[str, Any]]:
    return [
        deviceAllocationResult(request_, driver, pool, f"device-{i}", False)
        for i in range(start, start + count)
    ]


def nodeLabelSelector(key: str, *values: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]
    }


def localNodeSelector(node_name: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": fieldNameKey, "operator": "In", "values": [node_name]}]}
        ]
    }


# ---- matchers ----------------------------------------------------------------------------------
def _norm_result(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in r.items() if v not in (None, [], {})}
    if "consumedCapacity" in out:
        out["consumedCapacity"] = {k: str(quantity(v)) for k, v in out["consumedCapacity"].items()}
    if out.get("adminAccess") is False:
        del out["adminAccess"]
    return out


def _same_multiset(actual: list[Any], expected: list[Any], eq: Callable[[Any, Any], bool]) -> bool:
    left = list(actual)
    if len(left) != len(expected):
        return False
    for e in expected:
        for i, a in enumerate(left):
            if eq(a, e):
                del left[i]
                break
        else:
            return False
    return True


def _requirements_match(actual: list[dict[str, Any]] | None, expected: list[dict[str, Any]] | None) -> bool:
    return _same_multiset(
        actual or [],
        expected or [],
        lambda a, e: (
            a.get("key") == e.get("key")
            and a.get("operator") == e.get("operator")
            and sorted(a.get("values") or []) == sorted(e.get("values") or [])
        ),
    )


def _selector_match(actual: dict[str, Any] | None, expected: dict[str, Any] | None) -> bool:
    if expected is None:
        return actual is None
    if actual is None:
        return False
    return _same_multiset(
        actual.get("nodeSelectorTerms") or [],
        expected.get("nodeSelectorTerms") or [],
        lambda a, e: (
            _requirements_match(a.get("matchExpressions"), e.get("matchExpressions"))
            and _requirements_match(a.get("matchFields"), e.get("matchFields"))
        ),
    )


@dataclass
class allocationResultMatcher:
    """allocationResult: results in any order, no config, the node selector's terms in any order."""

    selector: dict[str, Any] | None
    results: list[dict[str, Any]]

    def matches(self, actual: dict[str, Any]) -> bool:
        devices = actual.get("devices") or {}
        return (
            devices.get("config") is None
            and _same_multiset(
                [_norm_result(r) for r in devices.get("results") or []],
                [_norm_result(r) for r in self.results],
                lambda a, e: a == e,
            )
            and _selector_match(actual.get("nodeSelector"), self.selector)
        )


def allocationResult(selector: dict[str, Any] | None, *results: dict[str, Any]) -> allocationResultMatcher:
    return allocationResultMatcher(selector, list(results))


@dataclass
class exactResult:
    """A plain resourceapi.AllocationResult: compared field by field (results in order)."""

    expected: dict[str, Any]

    def matches(self, actual: dict[str, Any]) -> bool:
        e_devices = self.expected.get("devices") or {}
        a_devices = actual.get("devices") or {}
        if [_norm_result(r) for r in a_devices.get("results") or []] != [
            _norm_result(r) for r in e_devices.get("results") or []
        ]:
            return False
        if (a_devices.get("config") or None) != (e_devices.get("config") or None):
            return False
        return actual.get("nodeSelector") == self.expected.get("nodeSelector")


def allocationResultWithConfig(
    selector: dict[str, Any] | None, driver: str, source: str, attribute: str, *results: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "devices": {
            "results": list(results),
            "config": [{"source": source, **deviceConfiguration(driver, attribute)}],
        }
    }
    if selector is not None:
        out["nodeSelector"] = selector
    return out


def allocationResultWithConfigs(
    selector: dict[str, Any] | None, results: list[dict[str, Any]], configs: list[dict[str, Any]]
) -> dict[str, Any]:
    out: dict[str, Any] = {"devices": {"results": results, "config": configs}}
    if selector is not None:
        out["nodeSelector"] = selector
    return out


@dataclass
class ErrorMatcher:
    substrings: list[str]

    def matches(self, message: str) -> bool:
        return all(s in message for s in self.substrings)


def gomega_ContainSubstring(text: str) -> ErrorMatcher:
    return ErrorMatcher([text])


def gomega_And(*matchers: ErrorMatcher) -> ErrorMatcher:
    return ErrorMatcher([s for m in matchers for s in m.substrings])


def gomega_MatchError(matcher: ErrorMatcher) -> ErrorMatcher:
    return matcher


# ---- the test case and its runner ----------------------------------------------------------------
# The gates kubeberth's allocator implements (the incubating variant's SupportedFeatures);
# a case needing another is skipped, as RunTestAllocator skips it for the incubating variant.
SUPPORTED = {
    "AdminAccess",
    "PrioritizedList",
    "PartitionableDevices",
    "DeviceTaints",
    "DeviceBindingAndStatus",
    "ConsumableCapacity",
    "FractionalCapacityRange",
}


@dataclass
class Case:
    features: dict[str, bool] = field(default_factory=dict)
    claimsToAllocate: list[Any] = field(default_factory=list)
    allocatedDevices: list[tuple[str, str, str]] = field(default_factory=list)
    allocatedSharedDeviceIDs: set[tuple[str, str, str, str]] | None = None
    allocatedCapacityDevices: dict[tuple[str, str, str], dict[str, str]] | None = None
    classes: list[dict[str, Any]] = field(default_factory=list)
    slices: list[dict[str, Any]] | None = None
    node: dict[str, Any] | None = None
    expectResults: list[Any] | None = None
    expectError: ErrorMatcher | None = None
    expectNumAllocateOneInvocations: int = 0
    expectNumAllocateOneInvocationsByChannel: dict[str, int] | None = None


def missing_features(tc: Case) -> list[str]:
    return sorted(name for name, on in tc.features.items() if on and name not in SUPPORTED)


def run_case(tc: Case) -> None:
    """RunTestAllocator for one case against the incubating-variant search."""
    f = tc.features
    features = AllocatorFeatures(
        admin_access=f.get("AdminAccess", False),
        device_taints=f.get("DeviceTaints", False),
        binding_conditions=f.get("DeviceBindingAndStatus", False),
        partitionable_devices=f.get("PartitionableDevices", False),
        consumable_capacity=f.get("ConsumableCapacity", False),
        fractional_capacity_range=f.get("FractionalCapacityRange", False),
        prioritized_list=f.get("PrioritizedList", False),
        incubating=True,
    )
    classes = {c["metadata"]["name"]: copy.deepcopy(c) for c in tc.classes or ()}
    slices = copy.deepcopy(tc.slices or [])
    claims = [copy.deepcopy(c.obj() if hasattr(c, "obj") else c) for c in tc.claimsToAllocate or ()]
    before = copy.deepcopy((claims, slices, classes))
    capacity = {
        d: {n: Decimal(quantity(v).value) for n, v in caps.items()}
        for d, caps in (tc.allocatedCapacityDevices or {}).items()
    }
    selectors = SelectorCache()
    allocator = Allocator(
        claims,
        set(tc.allocatedDevices),
        classes.get,
        selectors,
        DeviceContexts(selectors),
        lambda: slices,
        features,
        shared=set(tc.allocatedSharedDeviceIDs or ()),
        capacity=capacity,
    )
    n = tc.node or node(node1, region1)
    meta = n["metadata"]
    own = [s for s in slices if (s.get("spec") or {}).get("nodeName") == meta["name"]]
    shared = [s for s in slices if not (s.get("spec") or {}).get("nodeName")]
    error: str | None = None
    results: list[dict[str, Any]] | None = None
    try:
        results = allocator.allocate(meta["name"], dict(meta.get("labels") or {}), [*own, *shared])
    except AllocationError as exc:
        error = str(exc)
    if tc.expectError is None:
        assert error is None, f"unexpected error: {error}"
    else:
        assert error is not None, (
            f"expected an error matching {tc.expectError.substrings}, got results {results}"
        )
        assert tc.expectError.matches(error), f"error {error!r} does not contain {tc.expectError.substrings}"
    for r in results or ():
        for d in r["devices"]["results"]:
            if d.get("shareID") is not None:
                d["shareID"] = fixedShareID
    expected = [m if hasattr(m, "matches") else exactResult(m) for m in (tc.expectResults or [])]
    actual = list(results or [])
    assert _same_multiset(actual, expected, lambda a, e: e.matches(a)), (
        f"results {actual}\n  expected {expected}"
    )
    assert (claims, slices, classes) == before, "the allocator modified its inputs"
    if tc.expectNumAllocateOneInvocations > 0:
        want = (tc.expectNumAllocateOneInvocationsByChannel or {}).get(
            "incubating", tc.expectNumAllocateOneInvocations
        )
        assert allocator.invocations == want


# ---- Go statements in fixture closures ---------------------------------------------------------
def _path(root: Any, path: str) -> tuple[Any, str | int]:
    """The container and key a Go field path (`Spec.Devices.Requests[0].Exactly.Count`) names in
    an object's JSON; a top-level `Name` is the object's metadata.name."""
    obj = root.obj() if hasattr(root, "obj") else root
    parts: list[str | int] = []
    for segment in path.split("."):
        name, _, rest = segment.partition("[")
        parts.append(_JSON_NAMES.get(name, name[:1].lower() + name[1:]))
        for index in re.findall(r"(\d+)\]", "[" + rest) if rest else ():
            parts.append(int(index))
    if parts == ["name"]:
        parts = ["metadata", "name"]
    for part in parts[:-1]:
        obj = obj[part]
    return obj, parts[-1]


def go_get(root: Any, path: str) -> Any:
    container, key = _path(root, path)
    return container[key]


def go_set(root: Any, path: str, value: Any) -> None:
    container, key = _path(root, path)
    container[key] = value


def resourceapi_DeviceAllocationMode(mode: str) -> str:
    return mode

"""k8s.io/dynamic-resource-allocation v0.37.2's shared allocator test table
(structured/internal/allocatortesting/allocator_testing.go, TestAllocator), ported verbatim: case
names are upstream's map keys, fixtures and expected values unchanged, built with the helpers of
dra_allocator_testing.py. Each case runs against kubeberth's allocator with the case's gates and
the incubating variant's search, as upstream runs it against its incubating allocator; a case that
needs a gate the incubating variant lacks is skipped as upstream skips it."""

# ruff: noqa: F403, F405, E501
from __future__ import annotations

import copy
from typing import Any

import pytest
from dra_allocator_testing import *


# Fixtures upstream builds with closures (func() T { ... }()), one function each.
def _closure_0() -> Any:
    v_slice = sliceWithDevices(
        "slice-1-obsolete",
        node1,
        resourcePool(pool1, 2),
        driverA,
        device(device2, None, None),
    )
    go_set(v_slice, "Spec.Pool.Generation", go_get(v_slice, "Spec.Pool.Generation") + 1)
    return v_slice


def _closure_1() -> Any:
    v_sliceA = sliceWithOneDevice(slice1, node1, pool1, driverA).obj()
    go_set(v_sliceA, "Spec.Pool.ResourceSliceCount", 2)
    v_sliceB = copy.deepcopy(v_sliceA)
    go_set(v_sliceB, "Name", go_get(v_sliceB, "Name") + "-2")
    return [v_sliceA, v_sliceB]


def _closure_2() -> Any:
    v_slice = sliceWithOneDevice(slice1, node1, pool1, driverA)
    go_set(v_slice, "Spec.Pool.ResourceSliceCount", go_get(v_slice, "Spec.Pool.ResourceSliceCount") + 1)
    return v_slice


def _closure_3() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AllocationMode", resourceapi_DeviceAllocationModeAll)
    return [v_c]


def _closure_4() -> Any:
    v_c = claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    go_set(v_c, "Spec.Devices.Requests[1].Exactly.AdminAccess", go_ptr(True))
    go_set(v_c, "Spec.Devices.Requests[1].Exactly.AllocationMode", resourceapi_DeviceAllocationModeAll)
    return [v_c]


def _closure_5() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AllocationMode", resourceapi_DeviceAllocationModeExactCount)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.Count", 2)
    return [v_c]


def _closure_6() -> Any:
    v_c1 = claimWithRequest(claim0, req0, classA)
    go_set(v_c1, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    v_c2 = claimWithRequest(claim1, req0, classA)
    go_set(v_c2, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [v_c1, v_c2]


def _closure_7() -> Any:
    v_admin = claimWithRequest(claim1, req0, classA)
    go_set(v_admin, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [claimWithRequest(claim0, req0, classA), v_admin]


def _closure_8() -> Any:
    v_claim = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0,
            subRequest(subReq0, classA, 1),
            subRequest(subReq1, classB, 1),
        ),
    )
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode",
        resourceapi_DeviceAllocationModeAll,
    )
    go_set(v_claim, "Spec.Devices.Requests[0].FirstAvailable[0].Count", 0)
    return v_claim


def _closure_9() -> Any:
    v_claim = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0,
            subRequest(subReq0, classA, 1),
            subRequest(subReq1, classB, 1),
        ),
    )
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode",
        resourceapi_DeviceAllocationModeAll,
    )
    go_set(v_claim, "Spec.Devices.Requests[0].FirstAvailable[0].Count", 0)
    return v_claim


def _closure_10() -> Any:
    v_claim = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0,
            subRequest(subReq0, classA, 1),
            subRequest(subReq1, classB, 1),
        ),
    )
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode",
        resourceapi_DeviceAllocationModeAll,
    )
    go_set(v_claim, "Spec.Devices.Requests[0].FirstAvailable[0].Count", 0)
    return v_claim


def _closure_11() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [v_c]


def _closure_12() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [v_c]


def _closure_13() -> Any:
    v_claim = claimWithRequests(
        claim0,
        [S(None, MatchAttribute=intAttribute)],
        request(req0, classA, 0),
    )
    go_set(v_claim, "Spec.Devices.Requests[0].Exactly.AllocationMode", resourceapi_DeviceAllocationModeAll)
    return v_claim


def _closure_14() -> Any:
    v_claim = claimWithRequests(
        claim0,
        [S(None, MatchAttribute=intAttribute)],
        request(req0, classA, 0),
    )
    go_set(v_claim, "Spec.Devices.Requests[0].Exactly.AllocationMode", resourceapi_DeviceAllocationModeAll)
    return v_claim


def _closure_15() -> Any:
    v_c = claimWithRequests(
        claim0, None, request(req0, classA, 1), request(req1, classA, 1), request(req2, classA, 1)
    )
    go_set(
        v_c,
        "Spec.Devices.Config",
        [
            S(
                None,
                Requests=[req0, req1],
                DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"),
            ),
        ],
    )
    return [v_c]


def _closure_16() -> Any:
    v_claim = claimWithRequest(claim0, req0, classA)
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].Exactly.Selectors",
        [
            S(None),
        ],
    )
    return v_claim


def _closure_17() -> Any:
    v_claim = claimWithRequest(claim0, req0, classA)
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].Exactly.AllocationMode",
        resourceapi_DeviceAllocationMode("future-mode"),
    )
    return v_claim


def _closure_18() -> Any:
    v_claim = claimWithRequest(claim0, req0, classA)
    go_set(
        v_claim,
        "Spec.Devices.Constraints",
        [
            S(None),
        ],
    )
    return v_claim


def _closure_19() -> Any:
    v_claim = claimWithRequest(claim0, req0, classA)
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].Exactly.Selectors",
        [
            S(None, CEL=S("resourceapi_CELDeviceSelector", Expression="noSuchVar")),
        ],
    )
    return v_claim


def _closure_20() -> Any:
    v_c = klass(classA, driverA)
    go_set(v_c, "Spec.Selectors[0].CEL.Expression", "noSuchVar")
    return v_c


def _closure_21() -> Any:
    v_claim = claimWithRequest(claim0, req0, classA)
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].Exactly.Selectors",
        [
            S(None, CEL=S("resourceapi_CELDeviceSelector", Expression="noSuchVar")),
        ],
    )
    go_set(v_claim, "Spec.Devices.Requests[0].Exactly.AllocationMode", resourceapi_DeviceAllocationModeAll)
    return v_claim


def _closure_22() -> Any:
    v_claim = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0,
            subRequest(subReq0, classA, 1),
            subRequest(subReq1, classA, 1),
        ),
    )
    go_set(
        v_claim,
        "Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode",
        resourceapi_DeviceAllocationModeAll,
    )
    go_set(v_claim, "Spec.Devices.Requests[0].FirstAvailable[0].Count", 0)
    return v_claim


def _closure_23() -> Any:
    v_claim = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0,
            subRequest(subReq0, classA, 1),
        ),
    )
    return v_claim


def _closure_24() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [v_c]


def _closure_25() -> Any:
    v_c = claimWithRequest(claim0, req0, classA)
    go_set(v_c, "Spec.Devices.Requests[0].Exactly.AdminAccess", go_ptr(True))
    return [v_c]


def _closure_26() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node1,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_27() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node2,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_28() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node1,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_29() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node1,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_30() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node2,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_31() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node2,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_32() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node2,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_33() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node2,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_34() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node1,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_35() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node1,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_36() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node1,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_37() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node1,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_38() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node2,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_39() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node2,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_40() -> Any:
    v_s = sliceWithDevices(
        slice1,
        node2,
        pool1,
        driverA,
        device(device2, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 1)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


def _closure_41() -> Any:
    v_s = sliceWithDevices(
        slice2,
        node1,
        pool1,
        driverA,
        device(device1, None, None),
    )
    go_set(v_s, "Spec.Pool.Generation", 2)
    go_set(v_s, "Spec.Pool.ResourceSliceCount", 2)
    return v_s


CASES: dict[str, Case] = {
    "empty": Case(),
    "compatibility-groups-compatible": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-incompatible": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-taint-rollback": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True, DeviceTaints=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withTaints(taintNoSchedule)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-incompatible-with-allocated-peer": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-compatible-with-allocated-peer": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-disabled-skips-grouped-pool": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=False),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverA,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {capacity0: two}),
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverA,
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
            )
        ],
    ),
    "compatibility-groups-disabled-skips-ungrouped-device-in-grouped-pool": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=False),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: one}),
                ),
            ),
            sliceWithCounterSets(
                slice3,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-multiple-counter-sets": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet2, {capacity0: two}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-multiple-counter-sets-spanning-device": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                    deviceCounterConsumptionWithGroups(counterSet2, {capacity0: one}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-with-prioritized-list": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, 2),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-with-consumable-capacity": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one)),
                deviceRequest(req1, classA, 1).withCapacityRequest(go_ptr(one)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                )
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                )
                .withAllowMultipleAllocations(),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "compatibility-groups-multiple-claims": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA),
            claimWithRequest(claim1, req0, classA),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False)
            ),
        ],
    ),
    "compatibility-groups-multiple-claims-incompatible": Case(
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA),
            claimWithRequest(claim1, req0, classA),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig"),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "simple": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "optional-node-operations": Case(
        features=S("Features", OptionalNodeOperations=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA).withSkipNodeOperations(
                resourceapi_SkipNodeOperationAll
            )
        ),
        node=nodeWithDRAOptionalNodeOperations(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResultWithSkipNodeOperations(
                    req0, driverA, pool1, device1, resourceapi_SkipNodeOperationAll
                ),
            )
        ],
    ),
    "optional-node-operations-missing-feature": Case(
        features=S("Features", OptionalNodeOperations=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA).withSkipNodeOperations(
                resourceapi_SkipNodeOperationAll
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "other-node": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverB),
            sliceWithOneDevice(slice2, node2, pool2, driverA),
        ),
        node=node(node2, region2),
        expectResults=[
            allocationResult(
                localNodeSelector(node2),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "small-and-large": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("1Gi"),
                    },
                    None,
                ),
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    None,
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-requests": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    None,
                ),
                device(
                    device1,
                    {
                        "memory": resource_MustParse("1Gi"),
                    },
                    None,
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-claims": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    None,
                ),
                device(
                    device1,
                    {
                        "memory": resource_MustParse("1Gi"),
                    },
                    None,
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2, False)
            ),
        ],
    ),
    "devices-split-across-different-slices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        Count=2,
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "obsolete-slice": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                "slice-1-obsolete",
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            _closure_0(),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "duplicate-slice": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=_closure_1(),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "no-slices": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "not-enough-suitable-devices": Case(
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req1, classA)
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "no-classes": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=None,
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(gomega_ContainSubstring("could not retrieve device class class-a")),
    ),
    "unknown-class": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "unknown-class")),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring("could not retrieve device class unknown-class")
        ),
    ),
    "empty-class": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "")),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: missing device class name (unsupported request type?)"
            )
        ),
    ),
    "no-claims-to-allocate": Case(
        claimsToAllocate=None,
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-single": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "all-devices-with-consumed-counters": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "all-devices-many": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "all-devices-of-the-incomplete-pool": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_2(),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"
            )
        ),
    ),
    "all-devices-plus-another": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-plus-another-reversed": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-many-plus-another": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-many-plus-another-reversed": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
        ],
    ),
    "all-devices-no-solution": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
        ),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
        ),
        node=node(node1, region1),
    ),
    "all-devices-no-solution-reversed": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(
            klass(classA, driverA),
        ),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
        ),
        node=node(node1, region1),
    ),
    "all-devices-slice-without-devices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithNoDevices(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-no-slices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated-admin-access": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_3(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "all-devices-some-allocating-admin-access": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_4(),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "count-devices-some-allocated-admin-access": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_5(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "separate-claims-share-device-admin-access": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_6(),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
        ],
    ),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_7(),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
        ],
    ),
    "all-devices-slice-without-devices-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            _closure_8(),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithNoDevices(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "all-devices-no-slices-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            _closure_9(),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "all-devices-some-allocated-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            _closure_10(),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "network-attached-device": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                nodeLabelSelector(regionKey, region1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "unsuccessful-allocation-network-attached-device": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node2, region2),
        expectResults=None,
    ),
    "many-network-attached-devices": Case(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 4))),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, nodeSelectionAll, pool2, driverA),
            sliceWithOneDevice(slice1, nodeLabelSelector(planetKey, planetValueEarth), pool3, driverA),
            sliceWithOneDevice(slice1, localNodeSelector(node1), pool4, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "v1_NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            None,
                            MatchExpressions=[
                                S(None, Key=regionKey, Operator=v1_NodeSelectorOpIn, Values=[region1]),
                                S(
                                    None,
                                    Key=planetKey,
                                    Operator=v1_NodeSelectorOpIn,
                                    Values=[planetValueEarth],
                                ),
                            ],
                            MatchFields=[
                                S(None, Key=fieldNameKey, Operator=v1_NodeSelectorOpIn, Values=[node1]),
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
                deviceAllocationResult(req0, driverA, pool3, device1, False),
                deviceAllocationResult(req0, driverA, pool4, device1, False),
            )
        ],
    ),
    "local-and-network-attached-devices": Case(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "several-different-drivers": Case(
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req0, classB)
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
        ],
    ),
    "already-allocated-devices": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "admin-access-disabled": Case(
        features=S(
            "Features",
            AdminAccess=False,
        ),
        claimsToAllocate=_closure_11(),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: admin access is requested, but the feature is disabled"
            )
        ),
    ),
    "admin-access-enabled": Case(
        features=S(
            "Features",
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_12(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            ),
        ],
    ),
    "with-constraint": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(None, MatchAttribute=intAttribute),
                    S(None, MatchAttribute=versionAttribute),
                    S(None, MatchAttribute=stringAttribute),
                    S(None, MatchAttribute=boolAttribute),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue")),
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue")),
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-non-existent-attribute": Case(
        claimsToAllocate=objects(
            claimWithRequest(
                claim0,
                req0,
                classA,
                S(
                    "resourceapi_DeviceConstraint",
                    MatchAttribute=nonExistentAttribute,
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute": Case(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=intAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute-all-devices": Case(
        claimsToAllocate=objects(
            _closure_13(),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    "partitionable-all-mode-constraint-must-error-with-reserved-counter": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            _closure_14(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    "with-constraint-not-matching-string-attribute": Case(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue2")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-bool-attribute": Case(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=boolAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "boolAttribute": S(None, BoolValue=go_ptr(False)),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-version-attribute": Case(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=versionAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("2.0.0")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-for-request": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0],
                        MatchAttribute=versionAttribute,
                    ),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("2.0.0")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-for-request-retry": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0],
                        MatchAttribute=versionAttribute,
                    ),
                    S(
                        None,
                        MatchAttribute=stringAttribute,
                    ),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                        "stringAttribute": S(None, StringValue=go_ptr("a")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("2.0.0")),
                        "stringAttribute": S(None, StringValue=go_ptr("b")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("3.0.0")),
                        "stringAttribute": S(None, StringValue=go_ptr("b")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "with-class-device-config": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(classWithConfig(classA, driverA, "classAttribute")),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(deviceAllocationResult(req0, driverA, pool1, device1, False)),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute"),
                    ),
                ],
            ),
        ],
    ),
    "with-class-device-config-with-multiple-request-and-configs": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, [], request(req0, classA, 1), request(req1, classA, 1), request(req2, classB, 1)
            )
        ),
        classes=objects(
            classWithConfig(classA, driverA, "classAttribute-A"),
            classWithConfig(classB, driverB, "classAttribute-B"),
        ),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2),
            sliceWithOneDevice(slice2, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverB, pool1, device1, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClass,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute-A"),
                    ),
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClass,
                        Requests=[req2],
                        DeviceConfiguration=deviceConfiguration(driverB, "classAttribute-B"),
                    ),
                ],
            ),
        ],
    ),
    "with-claim-config-for-two-requests": Case(
        claimsToAllocate=_closure_15(),
        classes=objects(
            klass(classA, driverA),
        ),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 3),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverA, pool1, device2, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClaim,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"),
                    ),
                ],
            ),
        ],
    ),
    "claim-with-device-config": Case(
        claimsToAllocate=objects(claimWithDeviceConfig(claim0, req0, classA, driverA, "deviceAttribute")),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfig(
                localNodeSelector(node1),
                driverA,
                resourceapi_AllocationConfigSourceClaim,
                "deviceAttribute",
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "unknown-selector": Case(
        claimsToAllocate=objects(
            _closure_16(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(
            gomega_ContainSubstring("CEL expression empty (unsupported selector type?)")
        ),
    ),
    "unknown-allocation-mode": Case(
        claimsToAllocate=objects(
            _closure_17(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("unsupported count mode future-mode")),
    ),
    "unknown-constraint": Case(
        claimsToAllocate=objects(
            _closure_18(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(
            gomega_ContainSubstring("empty constraint (unsupported constraint type?)")
        ),
    ),
    "invalid-CEL-one-device": Case(
        claimsToAllocate=objects(
            _closure_19(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-one-device-class": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(
            _closure_20(),
        ),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-all-devices": Case(
        claimsToAllocate=objects(
            _closure_21(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("undeclared reference")),
    ),
    "too-many-devices-single-request": Case(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(gomega_ContainSubstring("exceeds the claim limit")),
    ),
    "many-devices-okay": Case(
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, resourceapi_AllocationResultsMaxSize))
        ),
        classes=objects(klass(classA, driverA)),
    ),
    "too-many-devices-total": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, resourceapi_AllocationResultsMaxSize),
                request(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi_AllocationResultsMaxSize + 1)
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-total-overflows-claim-limit": Case(
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, go_int(math_MaxInt // 2 + 1)),
                deviceRequest(req1, classA, go_int(math_MaxInt // 2 + 1)),
            )
        ),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(gomega_ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-total-would-wrap-to-zero": Case(
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, go_int(math_MaxInt // 2 + 1)),
                deviceRequest(req1, classA, go_int(math_MaxInt // 2 + 1)),
                deviceRequest(req2, classA, go_int(math_MaxInt // 2 + 1)),
                deviceRequest(req3, classA, go_int(math_MaxInt // 2 + 1)),
            )
        ),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(gomega_ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-sum-exceeds-claim-limit": Case(
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 20),
                deviceRequest(req1, classA, 20),
            )
        ),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(
            gomega_And(
                gomega_ContainSubstring("request " + req1),
                gomega_ContainSubstring("exceeds the claim limit"),
            )
        ),
    ),
    "exact-count-sum-exactly-fills-claim-limit": Case(
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, resourceapi_AllocationResultsMaxSize // 2),
                deviceRequest(req1, classA, resourceapi_AllocationResultsMaxSize // 2),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi_AllocationResultsMaxSize)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *slices_Concat(
                    multipleDeviceAllocationResults(
                        req0, driverA, pool1, resourceapi_AllocationResultsMaxSize // 2, 0
                    ),
                    multipleDeviceAllocationResults(
                        req1,
                        driverA,
                        pool1,
                        resourceapi_AllocationResultsMaxSize // 2,
                        resourceapi_AllocationResultsMaxSize // 2,
                    ),
                ),
            )
        ],
    ),
    "all-devices-invalid-CEL": Case(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(gomega_ContainSubstring("exceeds the claim limit")),
    ),
    "prioritized-list-first-unavailable": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classB, 1),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-non-available": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classB, 2),
                    subRequest(subReq1, classA, 2),
                )
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "prioritized-list-device-config": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1),
                    subRequest(subReq1, classB, 2),
                ),
            )
            .withConfigs(
                objects(
                    deviceClaimConfig([req0SubReq0], deviceConfiguration(driverA, "foo")),
                    deviceClaimConfig([req0SubReq1], deviceConfiguration(driverB, "bar")),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverB,
                device(device1, None, {}),
                device(device2, None, {}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    ),
                ],
            )
        ],
    ),
    "prioritized-list-class-config": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 2),
                    subRequest(subReq1, classB, 2),
                )
            )
        ),
        classes=objects(
            classWithConfig(classA, driverA, "foo"),
            classWithConfig(classB, driverB, "bar"),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverB,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(device3, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    ),
                ],
            )
        ],
    ),
    "claim-config-scoped-to-subrequests-of-one-request": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1),
                    subRequest(subReq1, classB, 1),
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(
                objects(
                    deviceClaimConfig([req0SubReq0, req0SubReq1], deviceConfiguration(driverA, "scoped")),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClaim,
                        Requests=[req0SubReq0, req0SubReq1],
                        DeviceConfiguration=deviceConfiguration(driverA, "scoped"),
                    ),
                ],
            )
        ],
    ),
    "claim-config-covering-all-requests-is-cleared": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1),
                    subRequest(subReq1, classB, 1),
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(
                objects(
                    deviceClaimConfig([req0SubReq0, req1], deviceConfiguration(driverA, "all")),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        None,
                        Source=resourceapi_AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "all"),
                    ),
                ],
            )
        ],
    ),
    "prioritized-list-subrequests-with-expressions": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        2,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    None,
                ),
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    None,
                ),
                device(
                    device3,
                    {
                        "memory": resource_MustParse("1Gi"),
                    },
                    None,
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S(
                    "resourceapi_DeviceConstraint",
                    Requests=[req0, req1],
                    MatchAttribute=versionAttribute,
                ),
            )
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("2.0.0")),
                    },
                ),
                device(
                    device3,
                    {
                        "memory": resource_MustParse("1Gi"),
                    },
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device3, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S(
                    "resourceapi_DeviceConstraint",
                    Requests=[req0, req1SubReq0],
                    MatchAttribute=versionAttribute,
                ),
            )
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("2Gi"),
                    },
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("2.0.0")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-allocation-mode-all": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            _closure_22(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-multiple-requests": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 1),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-disabled": Case(
        features=S(
            "Features",
            PrioritizedList=False,
        ),
        claimsToAllocate=objects(
            _closure_23(),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled"
            )
        ),
    ),
    "prioritized-list-multi-request": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                    {},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("4Gi"),
                    },
                    {},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-with-backtracking": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                    {},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {
                        "memory": resource_MustParse("4Gi"),
                    },
                    {},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-too-many-in-first-subrequest": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classB, 500),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-minimum-sum-exceeds-claim-limit": Case(
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 20),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, 20),
                    subRequest(subReq1, classA, 24),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        expectError=gomega_MatchError(
            gomega_And(
                gomega_ContainSubstring("request " + req1),
                gomega_ContainSubstring("exceeds the claim limit"),
            )
        ),
    ),
    "prioritized-list-overflowing-first-subrequest-is-pruned": Case(
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, go_int(math_MaxInt)),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
        expectNumAllocateOneInvocations=8,
    ),
    "partitionable-devices-single-device": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-counter-quantities-are-not-modified": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("9000000000000000000")}),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("10000000000000000000")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-counter-cache-scoped-by-pool-ID": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req1, classB, 1)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool1, 2),
                driverB,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("2")}),
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool1, 2),
                driverB,
                counterSet(counterSet1, {"c": resource_MustParse("2")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req1, driverB, pool1, device2, False)
            ),
        ],
    ),
    "partitionable-devices-counter-cache-not-crossed-between-driver-schemas": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req1, classB, 1)),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool1, 2),
                driverB,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"d": resource_MustParse("2")}),
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool1, 2),
                driverB,
                counterSet(counterSet2, {"d": resource_MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "partitionable-devices-taint-releases-counter": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withTaints(taintNoSchedule)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-constraint-releases-counter": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("red")),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("blue")),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("blue")),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("2")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-consumable-capacity-backtrack-releases-counter": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].kind == "shared"', driverA),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].kind == "counteronly"', driverA),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("shared")),
                    },
                )
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
                device(
                    device2,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("shared")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("counteronly")),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "consumable-capacity-rejection-rolls-back-constraints": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1)
                .withCapacityRequest(go_ptr(two))
                .withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.attributes["%s"].stringAttribute == "cap"', driverA
                            ),
                        ),
                    )
                ),
            ),
            claim(claim1)
            .withConstraints(S("resourceapi_DeviceConstraint", MatchAttribute=stringAttribute))
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.attributes["%s"].stringAttribute == "cap"', driverA
                                ),
                            ),
                        ),
                    )
                    .withAllocationMode(resourceapi_DeviceAllocationModeAll)
                    .withCapacityRequest(go_ptr(two)),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.attributes["%s"].stringAttribute == "fb"', driverA
                                ),
                            ),
                        ),
                    ),
                )
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {capacity0: two},
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("cap")),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("fb")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False)
            ),
        ],
    ),
    "partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].kind == "shared"', driverA),
                        ),
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                [
                    S(None, MatchAttribute=stringAttribute, Requests=[req1, req2]),
                ],
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf(
                                'device.attributes["%s"].kind == "shared" || device.attributes["%s"].kind == "fallback"',
                                driverA,
                                driverA,
                            ),
                        ),
                    ),
                ),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].kind == "gate"', driverA),
                        ),
                    ),
                ),
                request(
                    req3,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].kind == "shared"', driverA),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("shared")),
                        "stringAttribute": S(None, StringValue=go_ptr("red")),
                    },
                )
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource_MustParse("1")}),
                ),
                device(
                    device2,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("fallback")),
                        "stringAttribute": S(None, StringValue=go_ptr("blue")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "kind": S(None, StringValue=go_ptr("gate")),
                        "stringAttribute": S(None, StringValue=go_ptr("blue")),
                    },
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource_MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceAllocationResult(req2, driverA, pool1, device3, False),
                deviceRequestAllocationResult(req3, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
        ],
    ),
    "partitionable-devices-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-devices": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
                request(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-capacity-pools": Case(
        features=S(
            "Features",
            PrioritizedList=True,
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("4"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("6"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("4"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
                counterSet(
                    counterSet2,
                    {
                        "cpus": resource_MustParse("8"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-counters": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
                request(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                            "cpus": resource_MustParse("6"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("4"),
                            "memory": resource_MustParse("2Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                            "cpus": resource_MustParse("4"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("6"),
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                            "cpus": resource_MustParse("4"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "cpus": resource_MustParse("4"),
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpus": resource_MustParse("8"),
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
                counterSet(
                    counterSet2,
                    {
                        "cpus": resource_MustParse("12"),
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-pools": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
                request(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("6"),
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("4"),
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("4"),
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpus": resource_MustParse("8"),
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("6"),
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("1"),
                            "memory": resource_MustParse("7Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpus": resource_MustParse("1"),
                            "memory": resource_MustParse("7Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpus": resource_MustParse("8"),
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
            MakeDeviceID(driverA, pool1, device3),
            MakeDeviceID(driverA, pool2, device1),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool2, device3, False),
            )
        ],
    ),
    "partitionable-devices-unused-counters-in-counter-set": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("5Gi"),
                        },
                    ),
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                        "unused": resource_MustParse("1Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-no-capacity-available": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("16Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
        ],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-overallocated-capacity-pool": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("20Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
        ],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-device-consumes-counters": Case(
        features=S(
            "Features",
            PartitionableDevices=False,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": Case(
        features=S(
            "Features",
            PartitionableDevices=False,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, None, None),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-disabled-per-device-node-selection": Case(
        features=S(
            "Features",
            PartitionableDevices=False,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                pool1,
                driverA,
                device(device2, None, None).withNodeSelection(node1),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-per-device-node-selection-nodename": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withNodeSelection(node1),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                )
                .withNodeSelection(node2),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "v1_NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            None,
                            MatchExpressions=[
                                S(None, Key=regionKey, Operator=v1_NodeSelectorOpIn, Values=[region1]),
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 3),
                request(req1, classB, 3),
            ),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withNodeSelection(node1),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withNodeSelection(nodeSelectionAll),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("18Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverB,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverB,
                counterSet(
                    counterSet2,
                    {
                        "memory": resource_MustParse("12Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "v1_NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            None,
                            MatchFields=[
                                S(None, Key=fieldNameKey, Operator=v1_NodeSelectorOpIn, Values=[node1]),
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverB, pool2, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device2, False),
                deviceAllocationResult(req1, driverB, pool2, device3, False),
            )
        ],
    ),
    "tainted-two-devices": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-one-device-two-taints": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-two-devices-tolerated": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA).withTolerations(tolerationNoExecute)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False, tolerationNoExecute),
            )
        ],
    ),
    "tainted-two-devices-prioritized-list-tolerated": Case(
        features=S(
            "Features",
            DeviceTaints=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1),
                    subRequest(subReq1, classA, 1, tolerationNoExecute),
                )
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False, tolerationNoExecute),
            )
        ],
    ),
    "tainted-no-effect": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNone),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-one-device-two-taints-both-tolerated": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA).withTolerations(tolerationNoSchedule, tolerationNoExecute)
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(
                    req0, driverA, pool1, device1, False, tolerationNoSchedule, tolerationNoExecute
                ),
            )
        ],
    ),
    "tainted-disabled": Case(
        features=S(
            "Features",
            DeviceTaints=False,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-prioritized-list": Case(
        features=S(
            "Features",
            DeviceTaints=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classB, 1),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-prioritized-list-disabled": Case(
        features=S(
            "Features",
            DeviceTaints=False,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classB, 1),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-admin-access": Case(
        features=S(
            "Features",
            DeviceTaints=True,
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_24(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-admin-access-disabled": Case(
        features=S(
            "Features",
            DeviceTaints=False,
            AdminAccess=True,
        ),
        claimsToAllocate=_closure_25(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            )
        ],
    ),
    "tainted-all-devices-single": Case(
        features=S(
            "Features",
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-all-devices-single-disabled": Case(
        features=S(
            "Features",
            DeviceTaints=False,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 1),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v6"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v5"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v6"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v5"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device1, False),
            ),
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v6"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v5"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node2,
                pool2,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v6")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            ),
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v6"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].generation == "v5"', driverA),
                            ),
                        ),
                    ).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                ),
            ),
        ),
        classes=objects(
            S(
                "resourceapi_DeviceClass",
                ObjectMeta=S(
                    "metav1_ObjectMeta",
                    Name=classA,
                ),
                Spec=S(
                    "resourceapi_DeviceClassSpec",
                    Selectors=[
                        S(
                            None,
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.driver == "%s" && device.attributes["%s"].selected',
                                    driverA,
                                    driverA,
                                ),
                            ),
                        ),
                    ],
                ),
            ),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v6")),
                        "selected": S(None, BoolValue=go_ptr(False)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                        "selected": S(None, BoolValue=go_ptr(False)),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "generation": S(None, StringValue=go_ptr("v5")),
                        "selected": S(None, BoolValue=go_ptr(True)),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device3, False),
            ),
        ],
    ),
    "max-number-devices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, resourceapi_AllocationResultsMaxSize),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi_AllocationResultsMaxSize)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *multipleDeviceAllocationResults(
                    req0, driverA, pool1, resourceapi_AllocationResultsMaxSize, 0
                ),
            )
        ],
    ),
    "partitionable-devices-with-attribute-selector": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 2),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].special', driverA),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "special": S(
                            None,
                            BoolValue=go_ptr(True),
                        ),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpu1": resource_MustParse("1"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "mem": resource_MustParse("10Gi"),
                        },
                    ),
                ),
                device(
                    device2,
                    None,
                    {
                        "special": S(
                            None,
                            BoolValue=go_ptr(False),
                        ),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpu2": resource_MustParse("1"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "mem": resource_MustParse("10Gi"),
                        },
                    ),
                ),
                device(
                    device3,
                    None,
                    {
                        "special": S(
                            None,
                            BoolValue=go_ptr(False),
                        ),
                    },
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "cpu3": resource_MustParse("1"),
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "mem": resource_MustParse("10Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpu1": resource_MustParse("1"),
                        "cpu2": resource_MustParse("1"),
                        "cpu3": resource_MustParse("1"),
                    },
                ),
                counterSet(
                    counterSet2,
                    {
                        "mem": resource_MustParse("30Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-max-allocation-limit-request": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, resourceapi_AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi_AllocationResultsMaxSize // 2),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, resourceapi_AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi_AllocationResultsMaxSize // 2),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi_AllocationResultsMaxSize * 2)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *slices_Concat(
                    multipleDeviceAllocationResults(
                        req0SubReq1, driverA, pool1, resourceapi_AllocationResultsMaxSize // 2, 0
                    ),
                    multipleDeviceAllocationResults(
                        req1SubReq1,
                        driverA,
                        pool1,
                        resourceapi_AllocationResultsMaxSize // 2,
                        resourceapi_AllocationResultsMaxSize // 2,
                    ),
                ),
            )
        ],
        expectNumAllocateOneInvocations=75,
    ),
    "prioritized-list-max-allocation-allocation-mode-all": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi_DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 2),
                ),
                deviceRequest(req1, classB, 2),
            ),
        ),
        classes=objects(klass(classA, driverA), klass(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi_AllocationResultsMaxSize - 1),
            sliceWithMultipleDevices(slice2, node1, pool2, driverB, 2),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-0", False),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-1", False),
                deviceAllocationResult(req1, driverB, pool2, "device-0", False),
                deviceAllocationResult(req1, driverB, pool2, "device-1", False),
            )
        ],
        expectNumAllocateOneInvocations=42,
    ),
    "device-binding-conditions": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "binding-conditions-multiple-devices": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2), request(req1, classA, 1))
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, None, None).withBindingConditions(["IsPrepare2"], ["BindingFailed2"]),
                device(device3, None, None).withBindingConditions(["IsPrepare3"], ["BindingFailed3"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device3, ["IsPrepare3"], ["BindingFailed3"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "binding-conditions-with-and-without": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceAllocationResult(req0, driverA, pool1, device1, False),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device2, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "binding-conditions-without-feature-gate": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=False,
        ),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "node-restriction": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeLabelSelector(planetKey, planetValueEarth),
                pool1,
                driverA,
                device(device1, None, None).withBindsToNode(True),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "partitionable-devices-with-binding-conditions-multiple": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 2),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare2"], ["BindingFailed2"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 3),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("2Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("2Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsReady"], ["BindingTimeout"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device3, ["IsReady"], ["BindingTimeout"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "partitionable-devices-with-binding-conditions-multi-slices": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice4,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice3,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(
                    counterSet2,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "partitionable-devices-with-binding-conditions-and-taints": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(
                    S(
                        "resourceapi_DeviceTaint",
                        Key="key1",
                        Value="value1",
                        Effect=resourceapi_DeviceTaintEffectNoSchedule,
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            DeviceBindingAndStatus=True,
            DeviceTaints=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)).withTolerations(
                tolerationNoScheduleKey1
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(
                    S(
                        "resourceapi_DeviceTaint",
                        Key="key1",
                        Value="value1",
                        Effect=resourceapi_DeviceTaintEffectNoSchedule,
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "resourceapi_AllocationResult",
                Devices=S(
                    "resourceapi_DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0,
                            driverA,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                            tolerationNoScheduleKey1,
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None, tolerationNoScheduleKey1
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            ),
        ],
    ),
    "consumable-capacity-disabled-feature": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-disabled-feature-with-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(go_ptr(one)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(go_ptr(one)),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(
            gomega_ContainSubstring(
                "claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource_NewQuantity(3, resource_BinarySI))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: four}
                ),
            ),
        ],
    ),
    "consumable-capacity-range-policy-request-above-int64-rejected": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    go_ptr(resource_MustParse("18446744073709551616"))
                )
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-rounded-value-overflow-rejected": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    go_ptr(resource_MustParse("9223372036854775807"))
                )
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-overflow-aborts-not-skip": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    go_ptr(resource_MustParse("18446744073709551616"))
                )
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
                device(
                    device2, {capacity0: resource_MustParse("36893488147419103232")}, None
                ).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-allocation-mode-all-overflow-aborts": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(
                    go_ptr(resource_MustParse("18446744073709551616"))
                )
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-negative-request-aborts": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(resource_MustParse("-5")))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: resource_MustParse("10")}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("negative")),
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource_NewQuantity(2, resource_BinarySI))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: four}, [two]),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource_NewQuantity(2, resource_BinarySI))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: three}, [three]),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: three}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource_NewQuantity(6, resource_BinarySI))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: resource_NewQuantity(10, resource_BinarySI)}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two))),
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(two),
            },
        },
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two))),
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(two),
            },
        },
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(device2, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-with-multi-allocatable-device-backtrack": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("resourceapi_DeviceConstraint", MatchAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(go_ptr(two)),
            ),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two))),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue1")),
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue2")),
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-subrequest": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(go_ptr(four)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(go_ptr(two)),
                    subRequest(subReq1, classA, 1),
                ),
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0SubReq1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two))),
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(two),
            },
        },
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(go_ptr(two))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, None, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(go_ptr(two))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(go_ptr(one)),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(one),
            },
        },
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(go_ptr(one)),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(go_ptr(one)),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(one),
            },
        },
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(go_ptr(one)),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-requests-are-not-modified": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(
                    go_ptr(resource_MustParse("1000000000000000000000"))
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        capacity0: S(
                            None,
                            Value=resource_MustParse("1000000000000000000002"),
                            RequestPolicy=S(
                                "resourceapi_CapacityRequestPolicy",
                                Default=go_ptr(resource_MustParse("1000000000000000000000")),
                                ValidRange=S(
                                    "resourceapi_CapacityRequestPolicyRange",
                                    Min=two,
                                ),
                            ),
                        ),
                    },
                    None,
                ).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: resource_MustParse("1000000000000000000000")}
                ),
            )
        ],
    ),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one))),
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(one),
            },
        },
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-with-partitionable-device": Case(
        features=S(
            "Features",
            PrioritizedList=True,
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                )
                .withAllowMultipleAllocations(),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("4Gi"),
                        },
                    ),
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {"memory": resource_MustParse("4Gi")}
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {"memory": resource_MustParse("4Gi")}
                ),
            )
        ],
    ),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1)
                .withCapacityRequest(go_ptr(one))
                .withSelectors(
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].mode == "b"', driverA),
                        ),
                    )
                ),
            ),
        ),
        allocatedSharedDeviceIDs=sets_New(
            internal_MakeSharedDeviceID(MakeDeviceID(driverA, pool1, device1), fixedShareID),
        ),
        allocatedCapacityDevices={
            MakeDeviceID(driverA, pool1, device1): {
                capacity0: go_ptr(one),
            },
        },
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    fromCounters,
                    {
                        "mode": S(None, StringValue=go_ptr("a")),
                    },
                )
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            capacity0: one,
                        },
                    ),
                )
                .withAllowMultipleAllocations(),
                device(
                    device2,
                    fromCounters,
                    {
                        "mode": S(None, StringValue=go_ptr("b")),
                    },
                )
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            capacity0: one,
                        },
                    ),
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        capacity0: one,
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "partitionable-consumable-capacity-shared-device-counter-not-recharged": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        allocatedSharedDeviceIDs=sets_New(
            internal_MakeSharedDeviceID(MakeDeviceID(driverA, pool1, device1), fixedShareID),
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "c": resource_MustParse("1"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "c": resource_MustParse("1"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": Case(
        features=S(
            "Features",
            PrioritizedList=True,
            PartitionableDevices=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one)),
                deviceRequest(req2, classA, 1).withCapacityRequest(go_ptr(two)),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("4")) >= 0',
                                    driverA,
                                    capacity0,
                                ),
                            ),
                        ),
                    ).withCapacityRequest(go_ptr(one)),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("2")) >= 0',
                                    driverA,
                                    capacity0,
                                ),
                            ),
                        ),
                    ).withCapacityRequest(go_ptr(one)),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            capacity0: two,
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            capacity1: four,
                        },
                    ),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            capacity0: four,
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            capacity1: four,
                        },
                    ),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            capacity0: two,
                        },
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            capacity1: four,
                        },
                    ),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        capacity0: four,
                    },
                ),
                counterSet(
                    counterSet2,
                    {
                        capacity1: resource_MustParse("8"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one, capacity1: two}
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {capacity0: two, capacity1: two}
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one, capacity1: two}
                ),
            )
        ],
    ),
    "with-distinct-constraints": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("resourceapi_DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0, req1]),
                S(
                    "resourceapi_DeviceConstraint",
                    DistinctAttribute=versionAttribute,
                    Requests=[req0, req1, req2],
                ),
                S(
                    "resourceapi_DeviceConstraint",
                    DistinctAttribute=intAttribute,
                    Requests=[req0, req1, req2, req3],
                ),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
                deviceRequest(req2, classA, 1),
                deviceRequest(req3, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                        "numa": S(None, IntValue=go_ptr(go_int(0))),
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.1")),
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                        "boolAttribute": S(None, BoolValue=go_ptr(False)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.2")),
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device4,
                    None,
                    {
                        "driverVersion": S(None, VersionValue=go_ptr("1.0.0")),
                        "numa": S(None, IntValue=go_ptr(go_int(3))),
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req3, driverA, pool1, device4).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "distinct-constraint-single-request-count-3-not-distinct": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "distinct-constraint-single-request-count-3-all-distinct": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value3")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "distinct-constraint-two-requests-with-count-not-distinct": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("resourceapi_DeviceConstraint", DistinctAttribute=stringAttribute, Requests=[req0, req1]),
            )
            .withRequests(
                deviceRequest(req0, classA, 2),
                deviceRequest(req1, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-distinct-constraints-attribute-not-set": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("resourceapi_DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0]),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "with-distinct-constraints-unknown-type-attribute": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("resourceapi_DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0]),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S(None)}).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
        expectError=gomega_MatchError(gomega_ContainSubstring("unsupported attribute value")),
    ),
    "with-distinct-constraints-with-subrequests": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("resourceapi_DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0, req1])
            )
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].boolAttribute', driverA),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].boolAttribute', driverA),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].boolAttribute', driverA),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "boolAttribute": S(None, BoolValue=go_ptr(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device2,
                    None,
                    {
                        "boolAttribute": S(None, BoolValue=go_ptr(False)),
                    },
                ).withAllowMultipleAllocations(),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0SubReq0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req2SubReq0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "distinct-constraint-single-request-multiple-devices-attribute-not-set": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-single-request-not-enough-distinct-values": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
                device(
                    device4,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-single-request-multiple-devices-attribute-set": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(2))),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
                device(
                    device4,
                    None,
                    {
                        "numa": S(None, IntValue=go_ptr(go_int(3))),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device4, False),
            )
        ],
    ),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("resourceapi_DeviceConstraint", DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(one)),
                deviceRequest(req1, classA, 1).withCapacityRequest(go_ptr(one)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue"))},
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("resourceapi_DeviceConstraint", DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(go_ptr(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(go_ptr(two)),
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue1"))},
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device2,
                    None,
                    {"stringAttribute": S(None, StringValue=go_ptr("stringAttributeValue2"))},
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-fractional-range-gate-disabled": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(pointTwo)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withFractionalCapacityRequestPolicyRange(
                    {capacity0: one},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID,
                    {
                        capacity0: resource_NewQuantity(1, resource_DecimalSI),
                    },
                ),
            ),
        ],
    ),
    "consumable-capacity-fractional-range-gate-enabled-round-up": Case(
        features=S(
            "Features",
            ConsumableCapacity=True,
            FractionalCapacityRange=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(pointTwoFive)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withFractionalCapacityRequestPolicyRange(
                    {capacity0: one},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID,
                    {
                        capacity0: pointThree,
                    },
                ),
            ),
        ],
    ),
    "list-attributes-match-constaint-scalar-string-values": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2", "value3"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3", "value4"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-with-partially-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value3", "value1"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constraint-backtrack-needs-intersection-restore": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, MatchAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2"]),
                    },
                ),
                device(
                    device4,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req0, driverA, pool1, device4, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-without-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, MatchAttribute=stringAttribute)],
                request(req0, classA, 1),
                request(req0, classA, 1),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value3", "value4"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(None, MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-int-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=intAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValues=[0, 1, 2]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValues=[1, 2, 3]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "numanode-matchattribute-overlapping-lists-are-co-placed": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=numaNodeAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(None, IntValues=[4]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(None, IntValues=[4, 5, 6, 7]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "numanode-matchattribute-disjoint-lists-are-not-allocated": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=numaNodeAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(None, IntValues=[0]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(None, IntValues=[4, 5, 6, 7]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-bool-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=boolAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "boolAttribute": S(None, BoolValues=[True, False]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "boolAttribute": S(None, BoolValues=[True]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-version-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=versionAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=["1.0.0", "1.1.0", "2.0.0"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=["1.1.0", "2.0.0", "2.1.0"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-with-empty-or-unknown-type": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=[]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(gomega_ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-match-constraint-with-lists": Case(
        features=S(
            "Features",
            ListTypeAttributes=False,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, MatchAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2", "value3"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3", "value4"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-scalar-string-values-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-scalar-string-values-not-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-single-request-count-3-not-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-single-request-count-3-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 3)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value2")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value3")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-string-values-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value3", "value4"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-string-values-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2", "value3"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value4", "value5"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValue=go_ptr("value1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-list-of-int-values-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=intAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, IntValues=[0, 1]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, IntValues=[1, 2]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "numa": S(None, IntValues=[2, 3]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-bool-values-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=boolAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "boolAttribute": S(None, BoolValues=[True]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "boolAttribute": S(None, BoolValues=[True, False]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "boolAttribute": S(None, BoolValues=[False]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-version-values-all-distinct": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, [S(None, DistinctAttribute=versionAttribute)], request(req0, classA, 2)
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=["1.0.0", "1.1.0"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=["1.1.0", "2.0.0"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=["2.0.0", "2.1.0"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constaint-with-empty-or-unknown-type": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, [S(None, DistinctAttribute=versionAttribute)], request(req0, classA, 2)
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=[]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(None, VersionValues=None),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega_MatchError(gomega_ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-distinct-constraint-with-lists": Case(
        features=S(
            "Features",
            ListTypeAttributes=False,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(None, DistinctAttribute=stringAttribute)], request(req0, classA, 2)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2", "value3"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value2", "value3", "value4"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-backtrack-needs-remove": Case(
        features=S(
            "Features",
            ListTypeAttributes=True,
            ConsumableCapacity=True,
        ),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S(
                    "resourceapi_DeviceConstraint",
                    Requests=[req0, req1, req2],
                    DistinctAttribute=stringAttribute,
                ),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
                deviceRequest(req2, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2", "value3"]),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value3", "value4", "value5"]),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value1", "value2"]),
                    },
                ),
                device(
                    device4,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value3", "value4"]),
                    },
                ),
                device(
                    device0,
                    None,
                    {
                        "stringAttribute": S(None, StringValues=["value5", "value6"]),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverA, pool1, device4, False),
                deviceAllocationResult(req2, driverA, pool1, device0, False),
            )
        ],
    ),
    "allocation-mode-all-with-multi-host-resource-pool": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "resourceapi_DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "resourceapi_ExactDeviceRequest",
                        AllocationMode=resourceapi_DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node2,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "multi-host-resource-pool-with-stale-slice-for-current-node": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_26(),
            _closure_27(),
        ),
        node=node(node1, region1),
    ),
    "multi-host-resource-pool-complete-update-from-node-1-to-node-2": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_28(),
            _closure_29(),
            _closure_30(),
            _closure_31(),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "multi-host-resource-pool-complete-update-from-node-2-to-node-1": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_32(),
            _closure_33(),
            _closure_34(),
            _closure_35(),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_36(),
            _closure_37(),
            _closure_38(),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1": Case(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            _closure_39(),
            _closure_40(),
            _closure_41(),
        ),
        node=node(node1, region1),
    ),
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device1, None, None),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet1, None),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device2, None, None),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet1, None),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, None),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, None),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("8Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "other-memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("8Gi"),
                        },
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool2,
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("2Gi"),
                        },
                    ),
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device3),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-devices-consume-counter-set-in-different-nodes": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("2Gi"),
                        },
                    ),
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
        ],
        node=node(node2, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node2),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-validation-error-on-non-targeting-slice": Case(
        features=S(
            "Features",
            PartitionableDevices=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "memory": resource_MustParse("8Gi"),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet2,
                        {
                            "memory": resource_MustParse("6Gi"),
                        },
                    ),
                ),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "different-resourceslices-in-pool-can-target-different-nodes": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node2,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 1),
                driverA,
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
            )
        ],
    ),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 1),
                driverA,
                device(device2, None, None),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool2, device2),
        ],
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("invalid resource pools were encountered")),
    ),
    "no-allocation-from-incomplete-pools": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 1),
            ),
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
        ),
        node=node(node1, region1),
    ),
    "check-combinations-within-single-request-single-pool-single-slice": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 5),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
                device(device4, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 65,
        },
    ),
    "check-combinations-within-single-request-single-pool-multiple-slices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 5),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 65,
        },
    ),
    "check-combinations-within-single-request-multiple-pools-multiple-slices": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 5),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool2,
                driverA,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 65,
        },
    ),
    "check-combinations-within-single-request-many-pools": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 5),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool3,
                driverA,
                device(device3, None, None),
            ),
            sliceWithDevices(
                slice4,
                node1,
                pool4,
                driverA,
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 65,
        },
    ),
    "check-combinations-with-backtracking": Case(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].type == "X"', driverA),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("X")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 14,
        },
    ),
    "check-combinations-with-backtracking-across-slices-and-pools": Case(
        features=S(
            "Features",
            DeviceBindingAndStatus=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "resourceapi_DeviceSelector",
                        CEL=S(
                            "resourceapi_CELDeviceSelector",
                            Expression=go_sprintf('device.attributes["%s"].type == "X"', driverA),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("X")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device2,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ),
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool2,
                driverA,
                device(
                    device3,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ).withBindingConditions(["IsPrepare"], []),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceRequestAllocationResultWithBindingConditions(
                    req1, driverA, pool2, device3, ["IsPrepare"], []
                ),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 14,
        },
    ),
    "check-combinations-with-prioritized-list": Case(
        features=S(
            "Features",
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        3,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].type == "Y"', driverA),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 2),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(subReq0, classA, 2),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "resourceapi_DeviceSelector",
                            CEL=S(
                                "resourceapi_CELDeviceSelector",
                                Expression=go_sprintf('device.attributes["%s"].type == "X"', driverA),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("X")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "type": S(None, StringValue=go_ptr("Y")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
                deviceAllocationResult(req2SubReq1, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=26,
        expectNumAllocateOneInvocationsByChannel={
            internal_Stable: 32,
        },
    ),
    "derived-attributes": Case(
        features=S(
            "Features",
            DerivedAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0, req1],
                        MatchAttribute=go_ptr(resourceapi_FullyQualifiedName("derived/sharedNumaNode")),
                    ),
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            None,
                            Name="derived/sharedNumaNode",
                            Expression=go_sprintf('device.attributes["%s"]["numa"]', driverA),
                        ),
                    ],
                ),
                requestWithDerivedAttributes(
                    req1,
                    classB,
                    1,
                    [
                        S(
                            None,
                            Name="derived/sharedNumaNode",
                            Expression=go_sprintf('device.attributes["%s"]["numaNode"]', driverB),
                        ),
                    ],
                ),
            )
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device2,
                    None,
                    {
                        "numa": S(None, StringValue=go_ptr("numa-0")),
                    },
                ),
                device(
                    device1,
                    None,
                    {
                        "numa": S(None, StringValue=go_ptr("numa-1")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverB,
                device(
                    device3,
                    None,
                    {
                        "numaNode": S(None, StringValue=go_ptr("numa-1")),
                    },
                ),
                device(
                    device4,
                    None,
                    {
                        "numaNode": S(None, StringValue=go_ptr("numa-2")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device3, False),
            )
        ],
    ),
    "derived-attributes-with-prioritized-list": Case(
        features=S(
            "Features",
            DerivedAttributes=True,
            PrioritizedList=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0, req1],
                        MatchAttribute=go_ptr(resourceapi_FullyQualifiedName("derived/match")),
                    ),
                ],
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        [
                            S(
                                None,
                                Name=resourceapi_FullyQualifiedName("derived/match"),
                                Expression=go_sprintf('device.attributes["%s"]["foo"]', driverA),
                            ),
                        ],
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        [
                            S(
                                None,
                                Name=resourceapi_FullyQualifiedName("derived/match"),
                                Expression=go_sprintf('device.attributes["%s"]["bar"]', driverA),
                            ),
                        ],
                    ),
                ).obj(),
                requestWithDerivedAttributes(
                    req1,
                    classB,
                    1,
                    [
                        S(
                            None,
                            Name=resourceapi_FullyQualifiedName("derived/match"),
                            Expression=go_sprintf('device.attributes["%s"]["baz"]', driverB),
                        ),
                    ],
                ),
            )
        ),
        classes=objects(
            klass(classA, driverA),
            klass(classB, driverB),
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "foo": S(None, StringValue=go_ptr("A")),
                        "bar": S(None, StringValue=go_ptr("B")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverB,
                device(
                    device2,
                    None,
                    {
                        "baz": S(None, StringValue=go_ptr("B")),
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device2, False),
            )
        ],
    ),
    "derived-attributes-override": Case(
        features=S(
            "Features",
            DerivedAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0, req1],
                        MatchAttribute=go_ptr(resourceapi_FullyQualifiedName("dra.example.com/myAttr")),
                    ),
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            None,
                            Name=resourceapi_FullyQualifiedName("dra.example.com/myAttr"),
                            Expression='"value-2"',
                        ),
                    ],
                ),
                request(req1, classA, 1),
            )
        ),
        classes=objects(klass(classA, "dra.example.com")),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                "dra.example.com",
                device(
                    device1,
                    None,
                    {
                        "myAttr": S(None, StringValue=go_ptr("value-1")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "myAttr": S(None, StringValue=go_ptr("value-2")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, "dra.example.com", pool1, device1, False),
                deviceAllocationResult(req1, "dra.example.com", pool1, device2, False),
            )
        ],
    ),
    "derived-attributes-cel-missing-attribute": Case(
        features=S(
            "Features",
            DerivedAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0],
                        MatchAttribute=go_ptr(resourceapi_FullyQualifiedName("derived/missing")),
                    ),
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            None,
                            Name=resourceapi_FullyQualifiedName("derived/missing"),
                            Expression=go_sprintf('device.attributes["%s"]["missingAttr"]', driverA),
                        ),
                    ],
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "existingAttr": S(None, StringValue=go_ptr("yes")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectError=gomega_MatchError(gomega_ContainSubstring("no such key: missingAttr")),
    ),
    "derived-attributes-type-mismatch": Case(
        features=S(
            "Features",
            DerivedAttributes=True,
        ),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        None,
                        Requests=[req0],
                        MatchAttribute=go_ptr(resourceapi_FullyQualifiedName("derived/myAttr")),
                    ),
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    2,
                    [
                        S(
                            None,
                            Name=resourceapi_FullyQualifiedName("derived/myAttr"),
                            Expression=go_sprintf('device.attributes["%s"]["static"]', driverA),
                        ),
                    ],
                ),
            )
        ),
        classes=objects(klass(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "static": S(None, StringValue=go_ptr("value")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "static": S(None, IntValue=go_ptr(go_int(1))),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
}


# Cases kubeberth cannot run as upstream does, and why.
_CEL_UNDECLARED = (
    "expects the CEL compile error `undeclared reference to 'noSuchVar'`: cel-go type-checks a selector "
    "against the DRA environment when compiling it; kubeberth's CEL interpreter (common-expression-language) "
    "has no checker, so the unknown variable is reported at evaluation as `Undefined variable or function` "
    "(the claim still fails with a CEL error for the same selector)"
)
UNPORTED: dict[str, str] = {
    "invalid-CEL-all-devices": _CEL_UNDECLARED,
    "invalid-CEL-one-device": _CEL_UNDECLARED,
    "invalid-CEL-one-device-class": _CEL_UNDECLARED,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator(name: str) -> None:
    tc = CASES[name]
    if name in UNPORTED:
        pytest.skip(UNPORTED[name])
    missing = missing_features(tc)
    if missing:
        pytest.skip(f"required feature(s) {missing} not supported by the incubating allocator")
    run_case(tc)


@pytest.mark.parametrize("name", ["off", "timeout", "deadline", "cancel"])
def test_allocator_interrupt(name: str) -> None:
    """Upstream's TestAllocator/interrupt: an Allocate whose context is done returns that error (kubeberth:
    FilterTimedOut once its deadline has passed, checked at every search step); without one, the
    search (6 of 5 devices: no solution, 0.07 s upstream) completes without an error."""
    import time

    from kubeberth.api.dra import SelectorCache
    from kubeberth.builtin_plugins.dynamic_resources.allocator import (
        Allocator,
        AllocatorFeatures,
        DeviceContexts,
        FilterTimedOut,
    )

    classes = {classA: klass(classA, driverA)}
    claims = unwrap(claimWithRequests(claim0, None, request(req0, classA, 6)))
    slices = unwrapResourceSlices(
        sliceWithDevices(
            slice1,
            node1,
            pool1,
            driverA,
            device(device1, None, None),
            device(device2, None, None),
            device(device3, None, None),
            device(device4, None, None),
            device("device-5", None, None),
        )
    )
    n = node(node1, region1)
    # timeout (1ns), deadline (now) and cancel (done before the call) all end before the search starts.
    deadline = None if name == "off" else time.monotonic() - 1
    selectors = SelectorCache()
    allocator = Allocator(claims, set(), classes.get, selectors, DeviceContexts(selectors), lambda: slices,
                          AllocatorFeatures(admin_access=False, device_taints=False, binding_conditions=False,
                                            prioritized_list=False, incubating=True))
    if deadline is None:
        assert allocator.allocate(n["metadata"]["name"], n["metadata"]["labels"], slices) is None
        return
    with pytest.raises(FilterTimedOut):
        allocator.allocate(n["metadata"]["name"], n["metadata"]["labels"], slices, deadline=deadline)

"""kube-scheduler v1.37.2's TestGatherAllocatedState (dynamicresources_test.go), ported verbatim:
what the claim cache hands the allocator as AllocatedState — whole devices, shares of devices
that allow multiple allocations (DRAConsumableCapacity) and the capacity those shares consume —
from allocated claims and in-flight allocations."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest
from kubeberth.cache.devices import DeviceState
from test_dynamic_resources_upstream import (
    DRIVER,
    NODE_NAME,
    _from,
    _node_selector,
    allocatedClaim,
    pendingClaim,
)

sharedDeviceName = "shared-instance"
capacityName = "my-cap"


def _shared_result(share_id: str, consumed: dict[str, str] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"driver": DRIVER, "pool": NODE_NAME, "device": sharedDeviceName, "request": "req-1",
                              "shareID": share_id}
    if consumed is not None:
        result["consumedCapacity"] = consumed
    return result


allocationResultWithSharedDevice = {"devices": {"results": [_shared_result("share-123")]}, "nodeSelector": _node_selector()}
allocationResultWithConsumedCapacity = {"devices": {"results": [_shared_result("share-123", {capacityName: "1"})]},
                                        "nodeSelector": _node_selector()}
allocationResultWithConsumedCapacity2 = {"devices": {"results": [_shared_result("share-456", {capacityName: "1"})]},
                                         "nodeSelector": _node_selector()}
allocatedClaimWithSharedDevice = _from(pendingClaim).Allocation(copy.deepcopy(allocationResultWithSharedDevice)).Obj()
allocatedClaimWithConsumedCapacity = _from(pendingClaim).Allocation(copy.deepcopy(allocationResultWithConsumedCapacity)).Obj()
allocatedClaimWithConsumedCapacity2 = _from(pendingClaim).Allocation(copy.deepcopy(allocationResultWithConsumedCapacity2)).Obj()

CASES: dict[str, dict[str, Any]] = {
    "TestGatherAllocatedState/no-claims": {
        "expectedIDAllocated": 0,
        "expectedSharedIDAllocated": 0,
    },
    "TestGatherAllocatedState/single-allocated-claim": {
        "allocatedResourceClaims": [allocatedClaim],
        "expectedIDAllocated": 1,
        "expectedSharedIDAllocated": 0,
    },
    "TestGatherAllocatedState/single-allocated-claim-with-shared-device": {
        "enabledConsumableCapacity": True,
        "allocatedResourceClaims": [allocatedClaimWithSharedDevice],
        "expectedIDAllocated": 0,
        "expectedSharedIDAllocated": 1,
    },
    "TestGatherAllocatedState/single-allocated-claim-with-capacity": {
        "enabledConsumableCapacity": True,
        "allocatedResourceClaims": [allocatedClaimWithConsumedCapacity],
        "expectedIDAllocated": 0,
        "expectedSharedIDAllocated": 1,
        "expectedConsumedCapacity": "1",
    },
    "TestGatherAllocatedState/disabled-single-allocated-claim-with-capacity": {
        "enabledConsumableCapacity": False,
        "allocatedResourceClaims": [allocatedClaimWithConsumedCapacity],
        "expectedIDAllocated": 1,
        "expectedSharedIDAllocated": 0,
        "expectedConsumedCapacity": "",
    },
}


@pytest.mark.parametrize("name", list(CASES))
def test_gather_allocated_state(name: str) -> None:
    tc = CASES[name]
    devices = DeviceState()
    for obj in tc.get("allocatedResourceClaims") or ():
        devices.upsert_claim(copy.deepcopy(obj))
    for uid, obj in (tc.get("inflightResourceClaims") or {}).items():
        meta = obj["metadata"]
        devices.assume_allocation(uid, f"{meta['namespace']}/{meta['name']}", copy.deepcopy(obj), "pod-uid")
    state = devices.allocated_state(tc.get("enabledConsumableCapacity", False))
    assert len(state.devices) == tc["expectedIDAllocated"]
    assert len(state.shared) == tc["expectedSharedIDAllocated"]
    assert state.capacity is not None
    if tc.get("expectedConsumedCapacity"):
        assert state.capacity, "expected consumed capacity, got empty"
        capacity = state.capacity.get((DRIVER, NODE_NAME, sharedDeviceName))
        assert capacity is not None
        assert capacity.get(capacityName) == Decimal(tc["expectedConsumedCapacity"])
    else:
        assert not state.capacity, "got unexpected consumed capacity"


def test_shares_leave_with_their_claim() -> None:
    """A claim's shares and capacity go when the claim does, and come back with an in-flight
    allocation of another share of the same device."""
    devices = DeviceState()
    devices.upsert_claim(copy.deepcopy(allocatedClaimWithConsumedCapacity))
    devices.assume_allocation("claim-2-uid", "default/other", copy.deepcopy(allocatedClaimWithConsumedCapacity2), "pod")
    state = devices.allocated_state(True)
    assert len(state.shared) == 2
    assert state.capacity[(DRIVER, NODE_NAME, sharedDeviceName)][capacityName] == Decimal(2)
    devices.remove_claim(copy.deepcopy(allocatedClaimWithConsumedCapacity))
    state = devices.allocated_state(True)
    assert state.shared == {(DRIVER, NODE_NAME, sharedDeviceName, "share-456")}
    assert state.capacity[(DRIVER, NODE_NAME, sharedDeviceName)][capacityName] == Decimal(1)
    devices.release("claim-2-uid", "pod")
    state = devices.allocated_state(True)
    assert not state.shared and not state.capacity and not state.devices

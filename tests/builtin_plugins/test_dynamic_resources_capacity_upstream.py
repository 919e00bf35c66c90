"""k8s.io/dynamic-resource-allocation v0.37.2's TestConsumableCapacity
(structured/internal/incubating/consumable_capacity_test.go), ported verbatim: how much of a
device's capacity a request consumes under its requestPolicy, and when a request cannot be
represented."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from kubeberth.builtin_plugins.dynamic_resources.capacity import (
    CapacityError,
    Quantity,
    add_capacity,
    calculate_consumed_capacity,
    cmp_request_over_capacity,
    consumed_capacity_from_request,
    quantity,
    remove_capacity,
    safe_milli_value,
    use_milli,
    violates_policy,
)

driverA, pool1, device1 = "driver-a", "pool-1", "device-1"
capacity0, capacity1 = "capacity-0", "capacity-1"
one, two, three, zero = "1", "2", "3", "0"
maxInt64Q = "9223372036854775807"
maxInt64P1 = "9223372036854775808"
twoPow64P3 = "18446744073709551619"
maxInt64M1 = "9223372036854775806"
pointTwoFive, pointFour, pointThree, pointTwo, pointOne = "250m", "400m", "300m", "200m", "100m"
tooBigForMilli = "9224372036854776E3"  # ~9.22e21, well above MaxInt64 (9.22e18)
MAX_INT64 = 2**63 - 1


def _policy(default: str | None = None, valid_range: dict[str, str] | None = None,
            valid_values: list[str] | None = None) -> dict[str, Any]:
    policy: dict[str, Any] = {}
    if default is not None:
        policy["default"] = default
    if valid_range is not None:
        policy["validRange"] = valid_range
    if valid_values is not None:
        policy["validValues"] = valid_values
    return policy


def test_add_sub_allocating_consumed_capacity() -> None:
    allocated: dict[str, Decimal] = {}
    assert all(v == 0 for v in allocated.values()), "allocated capacity should start from zero"
    add_capacity(allocated, {capacity0: one})
    assert not all(v == 0 for v in allocated.values()), "capacity is added"
    assert remove_capacity(allocated, {capacity0: one}), "capacity is subtracted to zero"


def test_insert_remove_allocating_consumed_capacity_collection() -> None:
    aggregated: dict[tuple[str, str, str], dict[str, Decimal]] = {}
    device_id = (driverA, pool1, device1)
    for _ in range(2):
        add_capacity(aggregated.setdefault(device_id, {}), {capacity0: one})
    assert device_id in aggregated, "expected deviceID to be found"
    assert aggregated[device_id][capacity0] == Decimal(2)
    if remove_capacity(aggregated[device_id], {capacity0: one}):
        del aggregated[device_id]
    assert aggregated[device_id][capacity0] == Decimal(1)


def test_get_consumed_capacity_from_request() -> None:
    requested = {"requests": {capacity0: one, "dummy": one}}
    consumable = {
        capacity0: {"value": two, "requestPolicy": _policy(two, {"min": one})},  # with request and default: requested
        capacity1: {"value": two, "requestPolicy": _policy(one, {"min": one})},  # no request, with default: default
        "dummy": {"value": one},  # no request, no policy: the capacity's value
    }
    consumed = consumed_capacity_from_request(requested, consumable, False)
    assert len(consumed) == 3
    for name, value in consumed.items():
        assert name in (capacity0, capacity1, "dummy")
        assert value.value == Decimal(1)


def test_cmp_request_over_capacity_fatal_beats_soft() -> None:
    capacity = {
        capacity0: {"value": one},  # no policy; the request of 2 over-fills the value of 1 (soft)
        capacity1: {"value": maxInt64P1, "requestPolicy": _policy(valid_range={"min": zero, "step": two})},
    }
    request = {"requests": {capacity0: two, capacity1: maxInt64Q}}
    for order in (capacity, dict(reversed(list(capacity.items())))):
        with pytest.raises(CapacityError, match="cannot be represented"):
            cmp_request_over_capacity({}, request, order, {}, False)


SAFE_MILLI = {
    "whole number": (one, 1000),
    "fractional milli": (pointOne, 100),
    "too large for milli (overflows int64)": (tooBigForMilli, None),
}


@pytest.mark.parametrize("name", list(SAFE_MILLI))
def test_safe_milli_value(name: str) -> None:
    q, expect = SAFE_MILLI[name]
    assert safe_milli_value(quantity(q)) == expect


USE_MILLI = {
    "fractional disabled": ({"min": pointTwo, "max": one, "step": pointOne}, False, False),
    "all fractional, fits in milli": ({"min": pointTwo, "max": one, "step": pointOne}, True, True),
    "all integer, fits in milli (no hasFractional gate any more)": ({"min": one, "max": three, "step": one}, True, True),
    "min overflows milli, falls back to integer": ({"min": tooBigForMilli, "step": one}, True, False),
    "step too small (sub-milli)": ({"min": one, "step": "0"}, True, False),
}


@pytest.mark.parametrize("name", list(USE_MILLI))
def test_use_milli(name: str) -> None:
    valid_range, fractional, expect = USE_MILLI[name]
    assert use_milli(valid_range, fractional) is expect


VIOLATE = {
    "no constraint": (one, None, False, False),
    "less than maximum": (one, _policy(one, {"min": one, "max": two}), False, False),
    "more than maximum": (two, _policy(one, {"min": one, "max": one}), False, True),
    "in set": (one, _policy(one, valid_values=[one]), False, False),
    "not in set": (two, _policy(one, valid_values=[one]), False, True),
    "fractional step aligned (0.3 = min+1*step)": (
        pointThree, _policy(pointTwo, {"min": pointTwo, "max": one, "step": pointOne}), True, False),
    "fractional step not aligned (0.25 is not a multiple of 0.1 from 0.2)": (
        pointTwoFive, _policy(pointTwo, {"min": pointTwo, "max": one, "step": pointOne}), True, True),
    "requested value overflows milli representation": (
        tooBigForMilli, _policy(one, {"min": one, "step": one}), True, True),
}


@pytest.mark.parametrize("name", list(VIOLATE))
def test_violate_capacity_sharing(name: str) -> None:
    requested, policy, fractional, expect = VIOLATE[name]
    assert violates_policy(quantity(requested), policy, fractional) is expect


_ROUND = {"min": pointTwo, "max": one, "step": pointOne}
CALCULATE: dict[str, tuple[Any, str, dict[str, Any] | None, bool, str | None]] = {
    # requestedVal, capacityValue, requestPolicy, fractionalCapacityRange, expectResult (None: expect an error)
    "empty": (None, one, {}, False, one),
    "request-above-maxint64-is-rejected": (twoPow64P3, twoPow64P3, _policy(zero, {"min": zero, "step": three}), False, None),
    "rounded-value-above-maxint64-is-rejected": (maxInt64Q, maxInt64P1, _policy(zero, {"min": zero, "step": two}), False, None),
    "max-safe-boundary-rounds-to-maxint64": (maxInt64M1, maxInt64Q, _policy(one, {"min": one, "step": two}), False, maxInt64Q),
    "min in range": (None, two, _policy(one, {"min": one}), False, one),
    "default in set": (None, two, _policy(one, valid_values=[one]), False, one),
    "more than min in range": (two, two, _policy(one, {"min": one}), False, two),
    "less than min in range": (one, two, _policy(one, {"min": two}), False, two),
    "with step (round up)": (two, three, _policy(one, {"min": one, "step": two}), False, three),
    "with step (no remaining)": (two, two, _policy(one, {"min": one, "step": one}), False, two),
    "fractional step round up (0.25 to 0.3)": (pointTwoFive, "1", _policy(pointTwo, _ROUND), True, "300m"),
    "fractional step already aligned (0.4 = min+2*step)": (pointFour, "1", _policy(pointTwo, _ROUND), True, "400m"),
    "valid value in set": (two, three, _policy(one, valid_values=[one, two, three]), False, two),
    "set (round up)": (two, three, _policy(one, valid_values=[one, three]), False, three),
    "larger than set": (three, three, _policy(one, valid_values=[one, two]), False, three),
    "fractional-step-request-not-milli-representable-is-rejected": (
        tooBigForMilli, tooBigForMilli, _policy(one, {"min": pointOne, "step": pointOne}), True, None),
    # resource.NewMilliQuantity(math.MaxInt64-1, resource.DecimalSI) requested of NewMilliQuantity(MaxInt64).
    "fractional-step-rounded-value-passes-milli-range-is-rejected": (
        Quantity(Decimal(MAX_INT64 - 1) / 1000), str(Decimal(MAX_INT64) / 1000),
        _policy(pointOne, {"min": pointOne, "step": pointOne}), True, None),
}


@pytest.mark.parametrize("name", list(CALCULATE))
def test_calculate_consumed_capacity(name: str) -> None:
    requested, value, policy, fractional, expect = CALCULATE[name]
    capacity: dict[str, Any] = {"value": value}
    if policy is not None:
        capacity["requestPolicy"] = policy
    req = quantity(requested) if requested is not None else None
    if expect is None:
        with pytest.raises(CapacityError, match="cannot be represented"):
            calculate_consumed_capacity(req, capacity, fractional)
        return
    assert calculate_consumed_capacity(req, capacity, fractional).value == quantity(expect).value


CANONICAL = {
    "1Gi": "1Gi", "1024Mi": "1Gi", "1536Mi": "1536Mi", "1.5Gi": "1536Mi", "1000": "1k", "1500m": "1500m",
    "0.5": "500m", "100m": "100m", "0": "0", "512": "512", "1e3": "1e3", "2": "2", "1M": "1M",
}


@pytest.mark.parametrize("text", list(CANONICAL))
def test_quantity_canonical_form(text: str) -> None:
    """What resource.Quantity.String() writes for a parsed quantity (consumedCapacity in results)."""
    assert str(quantity(text)) == CANONICAL[text]

"""Consumable capacity (DRAConsumableCapacity, beta in v1.37): how much of a device's capacity a
request consumes and whether it still fits, ported from the incubating allocator's
consumable_capacity.go (k8s.io/dynamic-resource-allocation v0.37.2).

Quantities keep the format they were written in (BinarySI "1Gi", DecimalSI "500m", DecimalExponent
"1e3") because an allocation result's `consumedCapacity` is written back in it, canonicalised the
way resource.Quantity.String() does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Any

from kubeberth.api.helpers import parse_quantity

__all__ = [
    "CapacityError",
    "Quantity",
    "add_capacity",
    "calculate_consumed_capacity",
    "cmp_request_over_capacity",
    "consumed_capacity_from_request",
    "quantity",
    "remove_capacity",
    "safe_milli_value",
    "use_milli",
    "violates_policy",
]

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"
_MAX_INT64 = 2**63 - 1
_DEC_SUFFIX = {0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E", -3: "m", -6: "u", -9: "n"}
_BIN_SUFFIX = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}


class CapacityError(Exception):
    """A capacity request the device's range arithmetic cannot represent (upstream's error)."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """resource.Quantity: an exact value and the format String() renders it in."""

    value: Decimal
    format: str = DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self.value, self.format)


def quantity(text: Any) -> Quantity:
    """resource.ParseQuantity: the value and the format its suffix implies."""
    if isinstance(text, Quantity):
        return text
    raw = str(text).strip()
    fmt = DECIMAL_SI
    if raw.endswith(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")):
        fmt = BINARY_SI
    elif "e" in raw.lstrip("+-") or "E" in raw.lstrip("+-")[:-1]:
        fmt = DECIMAL_EXPONENT
    value = parse_quantity(raw)
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -9:  # precision beyond nano rounds up
        value = value.quantize(Decimal("1e-9"), rounding=ROUND_CEILING)
    return Quantity(value, fmt)


def canonical(value: Decimal, fmt: str) -> str:
    """Quantity.CanonicalizeBytes: the shortest exact form in the quantity's format."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = -value if value < 0 else value
    if fmt == BINARY_SI and (magnitude < 1024 or magnitude != magnitude.to_integral_value()):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        number, exponent = int(magnitude), 0
        while number % 1024 == 0 and exponent < 6:
            number //= 1024
            exponent += 1
        return f"{sign}{number}{_BIN_SUFFIX[exponent]}"
    _sign, digits, exp = magnitude.normalize().as_tuple()
    number = int("".join(map(str, digits)))
    exponent = int(exp)
    while number % 10 == 0:
        number //= 10
        exponent += 1
    if exponent % 3 == 1:
        number, exponent = number * 10, exponent - 1
    elif exponent % 3 == 2:
        number, exponent = number * 100, exponent - 2
    if fmt == DECIMAL_SI and exponent in _DEC_SUFFIX:
        return f"{sign}{number}{_DEC_SUFFIX[exponent]}"
    return f"{sign}{number}" if exponent == 0 else f"{sign}{number}e{exponent}"


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def _requests(requirements: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (requirements or {}).get("requests") or {}


def safe_milli_value(q: Quantity) -> int | None:
    """safeMilliValue: the value in thousandths, None when that is not exact."""
    milli = q.value * 1000
    if milli != milli.to_integral_value() or not -(2**63) <= milli <= _MAX_INT64:
        return None
    return int(milli)


def use_milli(valid_range: Mapping[str, Any], fractional: bool) -> bool:
    if not fractional:
        return False
    for key in ("min", "max", "step"):
        if valid_range.get(key) is None:
            continue
        milli = safe_milli_value(quantity(valid_range[key]))
        if milli is None or (key == "step" and milli < 1):
            return False
    return True


def _round_up_range(requested: Quantity, valid_range: Mapping[str, Any], fractional: bool) -> Quantity:
    minimum = quantity(valid_range["min"])
    if requested.value < minimum.value:
        return minimum
    if valid_range.get("step") is None:
        return requested
    step = quantity(valid_range["step"])
    if use_milli(valid_range, fractional):
        requested_milli = safe_milli_value(requested)
        if requested_milli is None:
            raise CapacityError(f"capacity request cannot be represented in the device's range arithmetic: request {requested} is not a representable milli value")
        step_milli, min_milli = _ceil(step.value * 1000), _ceil(minimum.value * 1000)
        added = requested_milli - min_milli
        n = _go_div_up(added, step_milli)
        if n > (_MAX_INT64 - min_milli) // step_milli:
            raise CapacityError(f"capacity request cannot be represented in the device's range arithmetic: rounding request {requested} up to the next step passes the milli-value range")
        value_milli = min_milli + step_milli * n
        return Quantity(Decimal(value_milli) / 1000, step.format)
    if requested.value > _MAX_INT64:
        raise CapacityError(f"capacity request cannot be represented in the device's range arithmetic: request {requested} exceeds MaxInt64")
    requested_int, step_int, min_int = _ceil(requested.value), _ceil(step.value), _ceil(minimum.value)
    n = _go_div_up(requested_int - min_int, step_int)
    if min_int >= 0 and n > (_MAX_INT64 - min_int) // step_int:
        raise CapacityError(f"capacity request cannot be represented in the device's range arithmetic: rounding request {requested} up to the next step passes MaxInt64")
    return Quantity(Decimal(min_int + step_int * n), step.format)


def _go_div_up(added: int, step: int) -> int:
    """Go's truncating `added / step`, plus one when a remainder is left."""
    n = abs(added) // abs(step)
    if (added < 0) != (step < 0):
        n = -n
    if added - n * step != 0:
        n += 1
    return n


def _go_rem(a: int, b: int) -> int:
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def calculate_consumed_capacity(requested: Quantity | None, capacity: Mapping[str, Any], fractional: bool) -> Quantity:
    """calculateConsumedCapacity."""
    policy = capacity.get("requestPolicy")
    if requested is None:
        if policy is not None and policy.get("default") is not None:
            return quantity(policy["default"])
        return quantity(capacity.get("value", "0"))
    if policy is None:
        return requested
    valid_range = policy.get("validRange")
    if valid_range is not None and valid_range.get("min") is not None:
        return _round_up_range(requested, valid_range, fractional)
    if policy.get("validValues") is not None:
        for valid in policy["validValues"]:
            q = quantity(valid)
            if requested.value <= q.value:
                return q
    return requested


def violates_policy(consumed: Quantity, policy: Mapping[str, Any] | None, fractional: bool) -> bool:
    if policy is None:
        return False
    if policy.get("default") is not None and quantity(policy["default"]) == consumed:
        return False
    valid_range = policy.get("validRange")
    if valid_range is not None:
        if valid_range.get("max") is not None and consumed.value > quantity(valid_range["max"]).value:
            return True
        if valid_range.get("step") is not None:
            step, minimum = quantity(valid_range["step"]), quantity(valid_range.get("min", "0"))
            if use_milli(valid_range, fractional):
                requested = safe_milli_value(consumed)
                if requested is None:
                    return True
                step_v, min_v = _ceil(step.value * 1000), _ceil(minimum.value * 1000)
            else:
                requested, step_v, min_v = _ceil(consumed.value), _ceil(step.value), _ceil(minimum.value)
            if _go_rem(requested - min_v, step_v) != 0:
                return True
        return False
    valid_values = policy.get("validValues") or ()
    if valid_values:
        return not any(consumed.value == quantity(v).value for v in valid_values)
    return False


def cmp_request_over_capacity(current: Mapping[str, Decimal], requirements: Mapping[str, Any] | None,
                              capacity: Mapping[str, Any] | None, allocating: Mapping[str, Decimal] | None,
                              fractional: bool) -> bool:
    """CmpRequestOverCapacity: the request fits the device next to what `current` (allocated) and
    `allocating` (this search) already consume; raises CapacityError for unrepresentable requests."""
    capacity = capacity or {}
    requests = _requests(requirements)
    if any(name not in capacity for name in requests):
        return False
    consumed: dict[str, Quantity] = {}
    for name, cap in capacity.items():
        requested = quantity(requests[name]) if name in requests else None
        try:
            value = calculate_consumed_capacity(requested, cap or {}, fractional)
        except CapacityError as exc:
            raise CapacityError(f'capacity "{name}": {exc}') from None
        if value.value < 0:
            raise CapacityError(f'capacity "{name}": capacity value is negative')
        consumed[name] = value
    for name, cap in capacity.items():
        value = consumed[name]
        if violates_policy(value, (cap or {}).get("requestPolicy"), fractional):
            return False
        total = current.get(name, Decimal(0)) + value.value + (allocating or {}).get(name, Decimal(0))
        if total > quantity((cap or {}).get("value", "0")).value:
            return False
    return True


def consumed_capacity_from_request(requirements: Mapping[str, Any] | None, capacity: Mapping[str, Any] | None,
                                   fractional: bool) -> dict[str, Quantity]:
    """GetConsumedCapacityFromRequest: what a share of the device consumes, per capacity."""
    requests = _requests(requirements)
    out: dict[str, Quantity] = {}
    for name, cap in (capacity or {}).items():
        requested = quantity(requests[name]) if name in requests else None
        try:
            out[name] = calculate_consumed_capacity(requested, cap or {}, fractional)
        except CapacityError as exc:
            raise CapacityError(f'capacity "{name}": {exc}') from None
    return out


def add_capacity(target: dict[str, Decimal], consumed: Mapping[str, Any]) -> None:
    """ConsumedCapacity.Add."""
    for name, value in consumed.items():
        target[name] = target.get(name, Decimal(0)) + (value.value if isinstance(value, Quantity) else quantity(value).value)


def remove_capacity(target: dict[str, Decimal], consumed: Mapping[str, Any]) -> bool:
    """ConsumedCapacity.Sub; True when nothing is left (the collection then drops the device)."""
    for name, value in consumed.items():
        if name in target:
            target[name] -= value.value if isinstance(value, Quantity) else quantity(value).value
    return all(v == 0 for v in target.values())

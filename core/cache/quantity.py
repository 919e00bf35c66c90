"""Kubernetes resource quantities ("500m", "1Gi", "1e3", "0.5") parsed exactly as the API does.

Equivalent to `kubernetes.utils.parse_quantity` (the test suite checks they agree), without
importing the Kubernetes client into the framework.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@lru_cache(maxsize=65536)
def parse_quantity(value: str | int | float) -> Decimal:
    """Exact decimal value of a quantity; raises QuantityError with the offending text."""
    if isinstance(value, bool):
        raise QuantityError(f"invalid quantity {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    match = _QUANTITY.match(value.strip())
    if not match:
        raise QuantityError(f"invalid quantity {value!r}")
    number, suffix = match.group(1), match.group(2) or ""
    try:
        base = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the regex already guards this
        raise QuantityError(f"invalid quantity {value!r}") from exc
    if suffix in _BINARY:
        return base * _BINARY[suffix]
    if suffix in _DECIMAL:
        return base * _DECIMAL[suffix]
    return base * (Decimal(10) ** int(suffix[1:]))


def milli_value(value: str | int | float) -> int:
    """Quantity in thousandths, rounded up (resource.Quantity.MilliValue): cpu millicores."""
    return int((parse_quantity(value) * 1000).to_integral_value(rounding=ROUND_CEILING))


def int_value(value: str | int | float) -> int:
    """Quantity rounded up to an integer (resource.Quantity.Value): bytes, counts."""
    return int(parse_quantity(value).to_integral_value(rounding=ROUND_CEILING))


# The node table's columns are int64 (as resource.Quantity's MilliValue/Value): a quantity beyond
# them cannot be accounted and is refused with the resource named, never an OverflowError later.
# Requests, overhead and allocatable are never negative (the API server validates them so).
_INT64 = 2**63


@lru_cache(maxsize=4096, typed=True)  # a cluster's pods share few quantities; typed: True is no 1
def resource_value(resource: str, value: str | int | float) -> int:
    """The integer the scheduler accounts a resource in: millicores for cpu, units otherwise.

    Raises QuantityError naming the resource for text that is not a quantity and for a value
    that is negative or beyond int64."""
    try:
        result = milli_value(value) if resource == "cpu" else int_value(value)
    except QuantityError as exc:
        raise QuantityError(f"{resource}: {exc}") from None
    if 0 <= result < _INT64:
        return result
    if result < 0:  # the API server refuses negative requests and allocatable (scores would leave [0, 100])
        raise QuantityError(f"{resource}: quantity {value!r} is negative")
    raise QuantityError(f"{resource}: quantity {value!r} is out of range")

"""Resource quantities and the resource names the scheduler counts (cpu in millicores, the rest in
units), as the cache parses them (apimachinery's resource.Quantity)."""

from __future__ import annotations

from ...cache.podinfo import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from ...cache.quantity import QuantityError, int_value, milli_value, parse_quantity

__all__ = ["CPU", "EPHEMERAL_STORAGE", "MEMORY", "PODS", "QuantityError", "int_value", "milli_value", "parse_quantity"]

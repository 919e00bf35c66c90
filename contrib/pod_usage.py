"""A pod's predicted resource usage from its spec, as Trimaran predicts it (memoised per pod)."""

from __future__ import annotations

import math
from typing import Any

from kubeberth import PodView
from kubeberth.api.helpers import parse_quantity


def _millis(quantity: Any) -> int:
    return math.ceil(parse_quantity(quantity) * 1000)


def predicted_cpu_millis(pod: PodView, default_millis: int, multiplier: float) -> int:
    """Trimaran's PredictUtilisation summed over containers, plus overhead: a container's CPU limit,
    else its request × multiplier, else `default_millis`."""
    key = ("contrib.predicted_cpu", default_millis, multiplier)
    found = pod.memo.get(key)
    if found is not None:
        return found
    spec = pod.raw.get("spec") or {}
    total = 0
    for container in spec.get("containers") or ():
        resources = container.get("resources") or {}
        limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
        if "cpu" in limits:
            total += _millis(limits["cpu"])
        elif "cpu" in requests:
            total += round(_millis(requests["cpu"]) * multiplier)
        else:
            total += default_millis
    overhead = (spec.get("overhead") or {}).get("cpu")
    if overhead is not None:
        total += _millis(overhead)
    pod.memo[key] = total
    return total

"""LeastAllocated (least_allocated.go): prefer nodes with the most free capacity after the pod."""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE

from .resource_allocation import weighted_floor


def least_allocated(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """leastResourceScorer: (allocatable - requested) * 100 / allocatable per resource, weighted."""
    if alloc.all():  # common case: every scored resource is allocatable on every node
        # floor((alloc - req) * 100 / alloc) is negative exactly when req > alloc, which scores 0
        per = np.maximum((alloc - req) * MAX_NODE_SCORE // alloc, 0)
        return (per * weights).sum(axis=1) // int(weights.sum())
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    per = np.where(req > alloc, 0, (alloc - req) * MAX_NODE_SCORE // safe)
    return weighted_floor(per, valid, weights)

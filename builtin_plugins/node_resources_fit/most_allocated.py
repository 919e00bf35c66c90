"""MostAllocated (most_allocated.go): prefer nodes with the least free capacity after the pod."""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE

from .resource_allocation import weighted_floor


def most_allocated(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """mostResourceScorer: min(requested, allocatable) * 100 / allocatable per resource, weighted."""
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    per = np.minimum(req, alloc) * MAX_NODE_SCORE // safe
    return weighted_floor(per, valid, weights)

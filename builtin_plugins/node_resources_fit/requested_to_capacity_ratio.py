"""RequestedToCapacityRatio (requested_to_capacity_ratio.go): score each resource's utilization
along the args' shape (kubeberth.api.helpers.shape_table), weighted and rounded."""

from __future__ import annotations

import numpy as np
from kubeberth.api.helpers import MAX_UTILIZATION


def requested_to_capacity_ratio(alloc: np.ndarray, req: np.ndarray, weights: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """requestedToCapacityRatioScorer: `lut` maps utilization 0..100 to a score (0 = not counted)."""
    valid = alloc != 0
    safe = np.where(valid, alloc, 1)
    util = np.where(req > alloc, MAX_UTILIZATION, req * MAX_UTILIZATION // safe)
    per = lut[np.clip(util, 0, MAX_UTILIZATION)]
    counted = valid & (per > 0)
    w = np.where(counted, weights, 0)
    total = (per * w).sum(axis=1)
    wsum = w.sum(axis=1)
    # math.Round(total / wsum) for non-negative values: round half up
    return np.where(wsum > 0, (2 * total + wsum) // np.maximum(2 * wsum, 1), 0)

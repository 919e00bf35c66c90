"""Score helpers every scoring plugin shares: kube-scheduler's plugins/helper normalize_score.go
(DefaultNormalizeScore) and shape_score.go (a broken-linear function of utilization), with the
args model of a shape point and its validation (NodeResourcesFit's RequestedToCapacityRatio and
VolumeBinding's StorageCapacityScoring both score along such a shape)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..types import MAX_NODE_SCORE
from .args import StrictArgs, args_error

__all__ = [
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_UTILIZATION",
    "UtilizationShapePoint",
    "broken_linear_table",
    "default_normalize_score",
    "go_div",
    "shape_table",
    "validate_shape",
]

MAX_CUSTOM_PRIORITY_SCORE = 10
"""Shape scores are 0..10 in the args, scaled by MaxNodeScore / 10 (config's MaxCustomPriorityScore)."""
MAX_UTILIZATION = 100


def default_normalize_score(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """helper.DefaultNormalizeScore: scale [0, max] to [0, 100], optionally reversed."""
    scores = np.asarray(scores, dtype=np.int64)
    top = int(scores.max()) if scores.size else 0
    if top == 0:
        return np.full(scores.shape, MAX_NODE_SCORE, dtype=np.int64) if reverse else scores
    out = MAX_NODE_SCORE * scores // top
    return MAX_NODE_SCORE - out if reverse else out


class UtilizationShapePoint(StrictArgs):
    """config.UtilizationShapePoint: a utilization (0..100) and its score (0..10)."""

    utilization: int
    score: int


def validate_shape(shape: Sequence[UtilizationShapePoint], path: str) -> None:
    """validateFunctionShape: at least one point, utilizations strictly increasing, all in range.

    Raises `args_error` (for an args model's validator) naming the offending field under `path`."""
    if not shape:
        raise args_error(path, "at least one point must be specified")
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            raise args_error(f"{path}[{i}].utilization", "values must be sorted in increasing order")
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= MAX_UTILIZATION:
            raise args_error(f"{path}[{i}].utilization", f"not in valid range [0, {MAX_UTILIZATION}]")
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            raise args_error(f"{path}[{i}].score", f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on int64."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def broken_linear_table(shape: Sequence[tuple[int, int]]) -> np.ndarray:
    """helper.BuildBrokenLinearFunction evaluated at every utilization 0..100 (a lookup table).

    `shape` is (utilization, score) points, scores already on the 0..MaxNodeScore scale."""
    out = np.zeros(MAX_UTILIZATION + 1, dtype=np.int64)
    for p in range(MAX_UTILIZATION + 1):
        value = shape[-1][1]
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    value = shape[0][1]
                else:
                    pu, ps = shape[i - 1]
                    value = ps + go_div((score - ps) * (p - pu), util - pu)
                break
        out[p] = value
    return out


def shape_table(shape: Sequence[UtilizationShapePoint]) -> np.ndarray:
    """The lookup table of an args shape: its 0..10 scores scaled to 0..MaxNodeScore, as both
    NodeResourcesFit (RequestedToCapacityRatio) and VolumeBinding build their scorer."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return broken_linear_table([(p.utilization, p.score * scale) for p in shape])

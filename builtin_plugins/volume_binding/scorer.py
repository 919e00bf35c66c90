"""StorageCapacityScoring (scorer.go): a node scores by how full the chosen PVs, or the provisioning
pools, would be, along the args' utilization shape (kubeberth.api.helpers' shape_score)."""

from __future__ import annotations

from collections.abc import Callable

from kubeberth.api.helpers import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    UtilizationShapePoint,
    broken_linear_table,
    spec_of,
)

from .state import NodeVolumes
from .volumes import claim_request, pv_capacity, storage_bytes

__all__ = ["DEFAULT_SHAPE", "capacity_scorer", "score_node_volumes"]


def capacity_scorer(shape: list[tuple[int, int]]) -> Callable[[dict[str, list[int]]], int]:
    """buildScorerFunction over a helper.FunctionShape ((utilization, score 0..MaxNodeScore) points):
    each storage class ([requested, capacity]) scores its utilization along the shape; the node's
    score is the classes' rounded mean."""
    table = broken_linear_table(shape)

    def score(classes: dict[str, list[int]]) -> int:
        if not classes:
            return 0
        total = 0
        for requested, capacity in classes.values():
            if capacity == 0 or requested > capacity:
                total += int(table[MAX_UTILIZATION])
            else:
                total += int(table[requested * MAX_UTILIZATION // capacity])
        return (2 * total + len(classes)) // (2 * len(classes))  # math.Round of the mean (total >= 0)

    return score


DEFAULT_SHAPE = [
    UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
    UtilizationShapePoint(utilization=MAX_UTILIZATION, score=0),
]


def score_node_volumes(result: NodeVolumes, scorer: Callable[[dict[str, list[int]]], int]) -> int:
    """VolumeBinding.Score: static bindings by PV class (requested vs PV capacity); without
    any, dynamic provisions by claim class against the chosen CSIStorageCapacity."""
    if result.reasons:
        return 0
    if result.score is None:
        classes: dict[str, list[int]] = {}
        if result.bindings:
            for pvc, pv in result.bindings:
                entry = classes.setdefault(spec_of(pv).get("storageClassName") or "", [0, 0])
                entry[0] += claim_request(pvc)
                entry[1] += pv_capacity(pv)
        else:
            for pvc, capacity in zip(result.provisions, result.capacities, strict=True):
                if capacity is None:
                    continue
                entry = classes.setdefault(spec_of(pvc).get("storageClassName") or "", [0, 0])
                entry[1] = storage_bytes(capacity.get("capacity"))  # the pool, once per class
                entry[0] += claim_request(pvc)
        result.score = scorer(classes)
    return result.score

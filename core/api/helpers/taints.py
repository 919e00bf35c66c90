"""Taints and tolerations (v1helper's FindMatchingUntoleratedTaint), per node and per taint set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...cache.nodetable import Taint
from ...cache.podinfo import Toleration

if TYPE_CHECKING:
    from ..views import NodeTableView

__all__ = ["DO_NOT_SCHEDULE_EFFECTS", "first_untolerated", "untolerated_taint_sets"]

DO_NOT_SCHEDULE_EFFECTS = ("NoSchedule", "NoExecute")


def first_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: Sequence[str] = DO_NOT_SCHEDULE_EFFECTS
) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint restricted to `effects`."""
    for taint in taints:
        if taint.effect not in effects:
            continue
        if not any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations):
            return taint
    return None


def untolerated_taint_sets(table: NodeTableView, tolerations: Sequence[Toleration]) -> np.ndarray:
    """Per taint set id: does it carry a NoSchedule/NoExecute taint the tolerations miss?"""
    sets = table.taint_sets.values
    return np.fromiter(
        (first_untolerated(s, tolerations) is not None for s in sets), dtype=bool, count=len(sets)
    )


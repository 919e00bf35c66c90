"""Filter's allocator runs over the candidate nodes: one run per node that publishes devices, and
one run for all the nodes without a ResourceSlice of their own when no node-independent slice
exists (the outcome cannot depend on such a node then), so cost scales with the nodes that publish
devices, not with the cluster."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from kubeberth import DeviceStateView, NodeView

from .allocator import Allocator, FailedOnNode, FilterTimedOut

__all__ = ["REASON_CANNOT_ALLOCATE", "allocate_nodes", "allocate_on"]

REASON_CANNOT_ALLOCATE = "cannot allocate all claims"


def allocate_on(allocator: Allocator, node: str, labels: dict[str, str], slices: list[dict[str, Any]],
                label: str, timeout: float) -> list[dict[str, Any]] | str:
    """The allocation results, or the reason this node cannot hold the claims; raises
    FilterTimedOut (naming `label`) when `timeout` seconds (0: none) pass."""
    deadline = time.monotonic() + timeout if timeout > 0 else None
    try:
        results = allocator.allocate(node, labels, slices, deadline)
    except FailedOnNode as exc:
        return str(exc)
    except FilterTimedOut:
        raise FilterTimedOut(label) from None
    if results is None or len(results) != len(allocator.claims):
        return REASON_CANNOT_ALLOCATE
    return results


def allocate_nodes(allocator: Allocator, members: np.ndarray, nodes: NodeView, devices: DeviceStateView,
                   timeout: float, node_allocations: dict[str, list[dict[str, Any]]],
                   failed: dict[str, np.ndarray]) -> None:
    """Allocate on the `members` (a mask over `nodes`): results go to `node_allocations` by node
    name, and each failure reason's node mask to `failed`."""
    table = nodes.table
    names = nodes.names
    n = len(nodes)

    def record(outcome: list[dict[str, Any]] | str, idx: np.ndarray) -> None:
        if isinstance(outcome, str):
            mask = failed.get(outcome)
            if mask is None:
                mask = failed[outcome] = np.zeros(n, dtype=bool)
            mask[idx] = True
            return
        for i in idx.tolist():
            node_allocations[names[i]] = outcome

    def run(i: int) -> None:
        row = int(nodes.rows[i])
        record(allocate_on(allocator, names[i], table.labels_of(row), devices.slices_for(names[i]), names[i], timeout),
               np.asarray([i]))

    own = [i for i in np.flatnonzero(members).tolist() if names[i] in devices.by_node]
    others = members.copy()
    others[own] = False
    if others.any():
        if not devices.node_independent:
            first = int(np.flatnonzero(others)[0])
            record(allocate_on(allocator, "", {}, [], names[first], timeout), np.flatnonzero(others))
        else:
            for i in np.flatnonzero(others).tolist():
                run(i)
    for i in own:
        run(i)

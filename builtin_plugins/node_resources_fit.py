"""NodeResourcesFit: rejects nodes without room for the pod's requests; scores by allocation.

Batch form: one vectorised comparison of the pod's request vector against every candidate
row's (allocatable - requested).
"""

from __future__ import annotations

import numpy as np

from kubeberth import MAX_NODE_SCORE, FilterResult, NodeView, PodInfo, hookimpl


class NodeResourcesFit:
    name = "NodeResourcesFit"

    @hookimpl
    def filter(self, pod: PodInfo, nodes: NodeView) -> FilterResult:
        table = nodes.table
        want = table.request_vector(pod)
        cols = np.flatnonzero(want)
        free = table.allocatable[nodes.rows[:, None], cols] - table.requested[nodes.rows[:, None], cols]
        short = free < want[cols]
        rejected = {}
        for j, col in enumerate(cols.tolist()):
            resource = table.resources[col]
            reason = "Too many pods" if resource == "pods" else f"Insufficient {resource}"
            rejected[reason] = short[:, j]
        return FilterResult.from_rejections(len(nodes), rejected)

    @hookimpl
    def score(self, pod: PodInfo, nodes: NodeView) -> np.ndarray:
        """LeastAllocated over cpu and memory (equal weights), using non-zero requests."""
        table = nodes.table
        alloc = table.allocatable[nodes.rows][:, :2]
        used = table.nonzero_requested[nodes.rows] + np.array([pod.nonzero_cpu, pod.nonzero_memory])
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(alloc > 0, (alloc - used) * MAX_NODE_SCORE // np.maximum(alloc, 1), 0)
        frac = np.clip(frac, 0, MAX_NODE_SCORE)
        return frac.sum(axis=1) // 2

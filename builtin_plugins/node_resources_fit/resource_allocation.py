"""kube-scheduler's resourceAllocationScorer (resource_allocation.go): per scored resource, the
node's allocatable and what is requested there with the pod, read from the NodeTableView for every
candidate row at once; the strategies (least_allocated, most_allocated,
requested_to_capacity_ratio) turn them into scores. Shared with NodeResourcesBalancedAllocation."""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import ClusterView, DeviceStateView, NodeTableView, PodView
from kubeberth.api.device_counts import device_totals
from kubeberth.api.helpers import CPU, EPHEMERAL_STORAGE, MEMORY

from .resources import is_dra_extended_resource_name, is_scalar_resource, node_allocatable

DraResources = list[tuple[int, dict[str, Any]]]
"""Scored resources a DeviceClass serves: (index in the scorer's resources, the DeviceClass)."""


class ResourceAllocationScorer:
    """kube-scheduler's resourceAllocationScorer over a NodeView: allocatable/requested per resource.

    `use_requested=False` (NodeResourcesFit) scores cpu/memory with the non-zero requests
    (100m / 200Mi for containers without requests); BalancedAllocation uses the real requests.
    """

    def __init__(self, resources: list[tuple[str, int]], use_requested: bool) -> None:
        self.names = [name for name, _ in resources]
        self.weights = np.asarray([weight for _, weight in resources], dtype=np.int64)
        self.use_requested = use_requested
        self._may_be_dra = any(is_dra_extended_resource_name(n) for n in self.names)
        self._dra_seen: tuple[DeviceStateView | None, int, DraResources | None] = (None, -1, None)

    def dra_resources(self, devices: DeviceStateView) -> DraResources | None:
        """getDRAPreScoredParams: the scored resources a DeviceClass serves, as (index, class);
        None when there are none (the common case, answered without a lookup while the cluster
        has no DeviceClass or the scored resources are all native)."""
        if not self._may_be_dra or not devices.has_extended_resource_classes():
            return None
        seen_devices, seen_version, seen = self._dra_seen
        if seen_devices is not None and seen_devices is devices and seen_version == devices.classes_version:
            return seen
        found = [(i, cls) for i, name in enumerate(self.names)
                 if is_dra_extended_resource_name(name) and (cls := devices.device_class_for(name)) is not None]
        result = found or None
        self._dra_seen = (devices, devices.classes_version, result)
        return result

    def pod_requests(self, pod: PodView) -> list[int]:
        out = []
        for name in self.names:
            if not self.use_requested and name == CPU:
                out.append(pod.nonzero_cpu)
            elif not self.use_requested and name == MEMORY:
                out.append(pod.nonzero_memory)
            else:
                out.append(int(pod.requests.get(name, 0)))
        return out

    def allocatable_requested(
        self, table: NodeTableView, rows: np.ndarray, pod_requests: list[int],
        dra: DraResources | None = None, cluster: ClusterView | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(allocatable, requested incl. the pod) as (nodes, resources) int64; allocatable 0 = skip.

        `dra` (from `dra_resources`, with `cluster`): on rows whose allocatable for such a resource
        is 0, its allocatable and requested are the class's devices there and those allocated
        (calculateDRAExtendedResourceAllocatableRequest)."""
        alloc, req = self._from_table(table, rows, pod_requests)
        if dra is not None and cluster is not None:
            for i, device_class in dra:
                if pod_requests[i] == 0:
                    continue  # a scalar resource the pod does not request is not scored
                at = np.flatnonzero(alloc[:, i] == 0)
                if not len(at):
                    continue
                capacity, allocated = device_totals(cluster, device_class, rows[at])
                alloc[at, i] = capacity
                req[at, i] = np.where(capacity > 0, allocated + pod_requests[i], 0)
        return alloc, req

    def allocatable_allocated(self, cluster: ClusterView, node: str, name: str,
                              dra: DraResources | None = None) -> tuple[int, int]:
        """calculateResourceAllocatableRequest: one resource's (allocatable, allocated) on one node,
        the per-resource read `allocatable_requested` does for every row at once (a slow path,
        for explanations and tests)."""
        table = cluster.table
        row = table.row_of[node]
        col = table.resource_index.get(name)
        if name in (CPU, MEMORY):
            assert col is not None
            used = table.requested[row, col] if self.use_requested else table.nonzero_requested[row, 0 if name == CPU else 1]
            return int(table.allocatable[row, col]), int(used)
        if name == EPHEMERAL_STORAGE:
            assert col is not None
            return int(table.allocatable[row, col]), int(table.requested[row, col])
        if not is_scalar_resource(name):
            return 0, 0
        allocatable = int(table.allocatable[row, col]) if col is not None else 0
        served = [cls for i, cls in dra or () if self.names[i] == name]
        if allocatable == 0 and served:
            capacity, allocated = device_totals(cluster, served[0], np.asarray([row], dtype=np.int64))
            if capacity[0] > 0:
                return int(capacity[0]), int(allocated[0])
        if name in node_allocatable(table.raw[row] or {}):
            return allocatable, int(table.requested[row, col]) if col is not None else 0
        return 0, 0

    def _from_table(self, table: NodeTableView, rows: np.ndarray, pod_requests: list[int]) -> tuple[np.ndarray, np.ndarray]:
        index = table.resource_index
        # Per scored resource: (allocatable column, source of the requested amount, its column);
        # source "r" = table.requested, "z" = table.nonzero_requested, None = not scored.
        picks: list[tuple[int, str | None, int]] = []
        for name, pod_req in zip(self.names, pod_requests, strict=True):
            if name in (CPU, MEMORY):
                col = index[name]
                picks.append((col, "r", col) if self.use_requested else (col, "z", 0 if name == CPU else 1))
            elif name == EPHEMERAL_STORAGE or (is_scalar_resource(name) and pod_req != 0 and name in index):
                col = index[name]
                picks.append((col, "r", col))
            else:  # scalar the pod does not request, unknown or non-scalar (e.g. pods): not scored
                picks.append((-1, None, -1))
        # One contiguous row gather per source matrix, then column picks (no 2-D fancy indexing).
        sources = {src for _, src, _ in picks}
        alloc_all = table.allocatable.take(rows, axis=0)
        gathered = {
            "r": table.requested.take(rows, axis=0) if "r" in sources else None,
            "z": table.nonzero_requested.take(rows, axis=0) if "z" in sources else None,
        }
        if None not in sources and len(sources) == 1:
            src = sources.pop()
            alloc = alloc_all[:, [c for c, _, _ in picks]]
            req = gathered[src][:, [c for _, _, c in picks]]  # type: ignore[index]
            req += np.asarray(pod_requests, dtype=np.int64)
            return alloc, req
        n = rows.shape[0]
        alloc = np.zeros((n, len(self.names)), dtype=np.int64)
        req = np.zeros((n, len(self.names)), dtype=np.int64)
        for i, ((col, src, rcol), pod_req) in enumerate(zip(picks, pod_requests, strict=True)):
            if src is None:
                continue
            alloc[:, i] = alloc_all[:, col]
            req[:, i] = gathered[src][:, rcol] + pod_req  # type: ignore[index]
        return alloc, req


def weighted_floor(per: np.ndarray, valid: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Sum of per-resource scores times weights over the resources that count, floored mean."""
    w = np.where(valid, weights, 0)
    total = (per * w).sum(axis=1)
    wsum = w.sum(axis=1)
    return np.where(wsum > 0, total // np.maximum(wsum, 1), 0)

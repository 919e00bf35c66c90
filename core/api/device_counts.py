"""How many devices a DeviceClass serves on each node, and how many of them are allocated:
kube-scheduler's calculateDRAResourceTotals (noderesources/resource_allocation.go), over the node
table.

Public because more than one scorer reads it: NodeResourcesFit's strategies and
NodeResourcesBalancedAllocation score an extended resource that a DeviceClass serves
(DRAExtendedResource) from these counts when a node's allocatable for it is 0.

Upstream walks every ResourceSlice for every scored node. Here one pass over the slices fills a
per-row answer for the whole table, kept while the DRA state (DeviceState.version), the class
object and the table's structure (nodes, labels) stay the same, so all pods and cycles in between
share it:

- a slice published for one node (`spec.nodeName`) counts on that node's row only;
- node-independent slices (`allNodes`, `nodeSelector`, `perDeviceNodeSelection`) are applied
  with vectorised node-selector masks;
- each device is matched against the class's CEL selectors once per slice object (the answers
  live as long as the slice object), in the DRA CEL environment of `kubeberth.api.dra`.

A selector that fails on a device, or a node selector that does not parse, makes the count of the
nodes it applies to (0, 0), as upstream's error return does.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..cache.devices import DEVICE_CLASS_RESOURCE_PREFIX
from .dra import CelError, CompiledSelector, SelectorCache, device_context
from .helpers import NodeSelector

if TYPE_CHECKING:
    from .views import ClusterView, DeviceStateView, NodeTableView

__all__ = ["DEVICE_CLASS_RESOURCE_PREFIX", "DeviceCounts", "device_totals"]

_MATCH, _NO_MATCH, _ERROR = 1, 0, -1


@dataclass(slots=True)
class _SliceAnswer:
    """One slice object's devices against one class's selectors: per device 1 / 0 / -1 (error)."""

    slice_: dict[str, Any]
    verdicts: list[int]
    ids: list[tuple[str, str, str]]


@dataclass(slots=True)
class _Layout:
    """Where one class's devices count on a table: per-row capacity, rows whose count failed, and
    each matched device's row (or rows) for the allocated count. Valid while the class object, the
    slice objects and the table's structure stay the same; `allocated` while DeviceState.version does."""

    device_class: dict[str, Any]
    slices: list[dict[str, Any]]
    table_version: int
    size: int
    capacity: np.ndarray
    failed: np.ndarray
    on_row: dict[tuple[str, str, str], int]  # a matched device of a single node's slice -> its row
    on_rows: dict[tuple[str, str, str], np.ndarray]  # a matched node-independent device -> its rows
    devices_version: int = -1
    allocated: np.ndarray | None = None


class DeviceCounts:
    """Per-row device capacity and allocation for DeviceClasses over one cluster's DRA state."""

    def __init__(self, selectors: SelectorCache | None = None) -> None:
        self.selectors = selectors if selectors is not None else SelectorCache()
        self._answers: dict[tuple[str, tuple[str, ...]], _SliceAnswer] = {}
        self._layouts: weakref.WeakKeyDictionary[NodeTableView, dict[str, _Layout]] = weakref.WeakKeyDictionary()

    def totals(self, cluster: ClusterView, device_class: dict[str, Any], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(capacity, allocated) of `device_class`'s devices for each row of `rows` (int64)."""
        table, devices = cluster.table, cluster.devices
        per_table = self._layouts.get(table)
        if per_table is None:
            per_table = self._layouts[table] = {}
        name = str((device_class.get("metadata") or {}).get("name") or "")
        found = per_table.get(name)
        moved = found is None or found.devices_version != devices.version
        slices = list(devices.slices.values()) if moved else []
        if (
            found is None
            or found.device_class is not device_class
            or found.table_version != table.version
            or found.size != table.size
            # slices change only with DeviceState.version; a claim moves it too, so compare them
            or (moved and (len(found.slices) != len(slices) or not all(map(operator.is_, found.slices, slices))))
        ):
            found = per_table[name] = self._layout(table, devices, device_class, slices or list(devices.slices.values()))
        if found.allocated is None or found.devices_version != devices.version:
            found.allocated = self._allocated(found, devices)
            found.devices_version = devices.version
        assert found.allocated is not None
        return found.capacity.take(rows), found.allocated.take(rows)

    # ---- building ------------------------------------------------------------------------
    def _layout(self, table: NodeTableView, devices: DeviceStateView, device_class: dict[str, Any],
                slices: list[dict[str, Any]]) -> _Layout:
        n = table.size
        layout = _Layout(device_class, slices, table.version, n, np.zeros(n, dtype=np.int64),
                         np.zeros(n, dtype=bool), {}, {})
        expressions = tuple(
            str((s.get("cel") or {}).get("expression", ""))
            for s in ((device_class.get("spec") or {}).get("selectors") or ())
            if (s or {}).get("cel") is not None
        )
        compiled = [self.selectors.get(e) for e in expressions]
        everywhere = np.arange(n)
        for node_name, by_name in devices.by_node.items():
            row = table.row_of.get(node_name)
            if row is None:
                continue
            for slice_ in by_name.values():
                answer = self._answer(slice_, expressions, compiled)
                if _ERROR in answer.verdicts:
                    layout.failed[row] = True
                    continue
                for verdict, device_id in zip(answer.verdicts, answer.ids, strict=True):
                    if verdict == _MATCH:
                        layout.capacity[row] += 1
                        layout.on_row[device_id] = row
        for slice_ in devices.node_independent.values():
            spec = slice_.get("spec") or {}
            answer = self._answer(slice_, expressions, compiled)
            if spec.get("perDeviceNodeSelection"):
                for i, device in enumerate(spec.get("devices") or ()):
                    _add(layout, _device_rows(table, device, everywhere), answer, (i,))
                continue
            # allNodes, or (a slice naming no node at all) every node, as upstream's checks fall through
            everyone = spec.get("allNodes") or spec.get("nodeSelector") is None
            where = everywhere if everyone else _selector_rows(table, spec["nodeSelector"], everywhere)
            _add(layout, where, answer, range(len(answer.verdicts)))
        layout.capacity[layout.failed] = 0
        return layout

    @staticmethod
    def _allocated(layout: _Layout, devices: DeviceStateView) -> np.ndarray:
        """IsDeviceAllocated over the class's matched devices: held whole or shared, by claims in
        the cache or allocations in flight (admin access does not count)."""
        taken = devices.allocated_devices()
        on_row = layout.on_row
        rows = [on_row[d] for d in taken if d in on_row]
        allocated = np.bincount(np.asarray(rows, dtype=np.int64), minlength=layout.size).astype(np.int64)
        for device_id, where in layout.on_rows.items():
            if device_id in taken:
                allocated[where] += 1
        allocated[layout.failed] = 0
        return allocated

    def _answer(self, slice_: dict[str, Any], expressions: tuple[str, ...], compiled: Sequence[CompiledSelector]) -> _SliceAnswer:
        meta = slice_.get("metadata") or {}
        key = (str(meta.get("name") or ""), expressions)
        found = self._answers.get(key)
        if found is not None and found.slice_ is slice_:
            return found
        spec = slice_.get("spec") or {}
        driver = str(spec.get("driver", ""))
        pool = str((spec.get("pool") or {}).get("name", ""))
        listed = list(spec.get("devices") or ())
        verdicts = [_matches(self.selectors, compiled, driver, d) for d in listed]
        found = _SliceAnswer(slice_, verdicts, [(driver, pool, str(d.get("name", ""))) for d in listed])
        if len(self._answers) > 100_000:
            self._answers.clear()
        self._answers[key] = found
        return found


def _matches(selectors: SelectorCache, compiled: Sequence[CompiledSelector], driver: str, device: dict[str, Any]) -> int:
    """deviceMatchesClass: every CEL selector true (no selectors: every device)."""
    ctx = None
    try:
        for selector in compiled:  # in order, the first false one decides (a later one is not compiled)
            if selector.error:
                return _ERROR
            if ctx is None:
                ctx = device_context(driver, device, selectors.domains)
            if not selector.matches(ctx):
                return _NO_MATCH
    except CelError:
        return _ERROR
    return _MATCH


def _add(layout: _Layout, where: np.ndarray | None, answer: _SliceAnswer, indices: Iterable[int]) -> None:
    """Count the devices `indices` of a node-independent slice on rows `where` (None: a node
    selector that does not parse, which fails every node it is evaluated for)."""
    if where is None:
        layout.failed[:] = True
        return
    if not len(where):
        return
    indices = list(indices)
    if any(answer.verdicts[i] == _ERROR for i in indices):
        layout.failed[where] = True
        return
    for i in indices:
        if answer.verdicts[i] == _MATCH:
            layout.capacity[where] += 1
            found = layout.on_rows.get(answer.ids[i])
            layout.on_rows[answer.ids[i]] = where if found is None else np.concatenate([found, where])


def _selector_rows(table: NodeTableView, selector: dict[str, Any], everywhere: np.ndarray) -> np.ndarray | None:
    """Rows a node selector matches (structured.NodeMatches); None when it does not parse."""
    parsed = NodeSelector.parse(selector)
    if any(not t.valid for t in parsed.terms):
        return None
    alive = everywhere[table.alive[: table.size]]
    rows: np.ndarray = alive[parsed.row_mask(table, alive)]
    return rows


def _device_rows(table: NodeTableView, device: dict[str, Any], everywhere: np.ndarray) -> np.ndarray | None:
    """Rows a device of a perDeviceNodeSelection slice serves: allNodes, its nodeName, or its
    nodeSelector (nothing when it names none)."""
    if device.get("allNodes"):
        return everywhere
    node_name = device.get("nodeName")
    if node_name:
        row = table.row_of.get(str(node_name))
        return np.asarray([row] if row is not None else [], dtype=np.int64)
    selector = device.get("nodeSelector")
    if selector is not None:
        return _selector_rows(table, selector, everywhere)
    return np.zeros(0, dtype=np.int64)


_SHARED: weakref.WeakKeyDictionary[DeviceStateView, DeviceCounts] = weakref.WeakKeyDictionary()


def device_totals(cluster: ClusterView, device_class: dict[str, Any], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(capacity, allocated) per row of `rows` for `device_class`, from one DeviceCounts per
    cluster (shared by every plugin, so a cycle computes each class's answer once)."""
    counts = _SHARED.get(cluster.devices)
    if counts is None:
        counts = _SHARED[cluster.devices] = DeviceCounts()
    return counts.totals(cluster, device_class, rows)

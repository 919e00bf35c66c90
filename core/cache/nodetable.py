"""NodeTable: node state as numpy columns, updated incrementally, read by batch plugins.

Rows are stable for a node's lifetime (a removed node's row is reused later). Label, taint and
image sets are interned: plugins evaluate a selector once per distinct set and broadcast the
answer to nodes through the integer id columns, so cost follows the number of distinct sets, not
the number of nodes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .podinfo import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, PodInfo
from .quantity import QuantityError, resource_value
from .shapes import NODE, describe_object, malformed

if TYPE_CHECKING:
    from ..api.views import NodeTableView, PodView

BASE_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"


class NodeSpecError(ValueError):
    """A node object that cannot be represented (e.g. a malformed allocatable quantity)."""


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        return f"{{{self.key}: {self.value}}}"


class _Interner:
    """Maps equal values to one small integer id; ids are never reused."""

    __slots__ = ("values", "_ids")

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._ids: dict[Any, int] = {}

    def intern(self, key: Any, value: Any) -> int:
        found = self._ids.get(key)
        if found is None:
            found = len(self.values)
            self._ids[key] = found
            self.values.append(value)
        return found

    def __len__(self) -> int:
        return len(self.values)


STAMPS_KEPT = 1 << 16  # recent row stamps kept for rows_changed_since
VECTORS_KEPT = 4096  # distinct request vectors kept


class NodeTable:
    """Columnar node cache. Written only by the scheduling thread (see Scheduler)."""

    def __init__(self, capacity: int = 64) -> None:
        # Request vectors by the requests they stand for (pods of one template share one): aligned
        # with this table's columns, rebuilt when a column is added.
        self._vectors: dict[tuple[tuple[str, int], ...], np.ndarray] = {}
        self.resources: list[str] = list(BASE_RESOURCES)
        self.resource_index: dict[str, int] = {r: i for i, r in enumerate(self.resources)}
        self.capacity = capacity
        self.size = 0  # high-water mark of used rows
        self.names: list[str | None] = []
        self.row_of: dict[str, int] = {}
        self.raw: list[dict[str, Any] | None] = []
        self._free_rows: list[int] = []
        self.alive = np.zeros(capacity, dtype=bool)
        self.allocatable = np.zeros((capacity, len(self.resources)), dtype=np.int64)
        self.requested = np.zeros((capacity, len(self.resources)), dtype=np.int64)
        self.nonzero_requested = np.zeros((capacity, 2), dtype=np.int64)  # cpu, memory
        self.unschedulable = np.zeros(capacity, dtype=bool)
        self.label_set = np.zeros(capacity, dtype=np.int32)
        self.taint_set = np.zeros(capacity, dtype=np.int32)
        self.image_set = np.zeros(capacity, dtype=np.int32)
        self.label_sets = _Interner()
        self.taint_sets = _Interner()
        self.image_sets = _Interner()
        self.label_sets.intern(frozenset(), {})
        self.taint_sets.intern((), ())
        self.image_sets.intern(frozenset(), {})
        self.image_node_count: Counter[str] = Counter()  # nodes holding each image (ImageLocality)
        self.version = 0  # bumped when node membership, labels, taints, images or order change
        # Per-row change stamps: a row's stamp moves when its node is updated or a pod is placed on
        # or removed from it (incremental cycles re-evaluate only rows stamped after their snapshot).
        self.row_clock = 0
        self.row_version = np.zeros(capacity, dtype=np.int64)
        # The rows stamped since `_stamps_from`, in stamp order (`_stamps[i]` got stamp
        # `_stamps_from + i + 1`): who asks what changed since a recent stamp reads the tail here
        # instead of comparing every row's stamp (O(nodes) per scheduling cycle).
        self._stamps: list[int] = []
        self._stamps_from = 0
        self._cache: dict[Any, Any] = {}

    # ---- structure -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.row_of)

    def _grow_rows(self) -> None:
        new = self.capacity * 2
        for attr in ("alive", "unschedulable", "label_set", "taint_set", "image_set", "row_version"):
            old = getattr(self, attr)
            grown = np.zeros(new, dtype=old.dtype)
            grown[: self.capacity] = old
            setattr(self, attr, grown)
        for attr in ("allocatable", "requested", "nonzero_requested"):
            old = getattr(self, attr)
            grown = np.zeros((new, old.shape[1]), dtype=old.dtype)
            grown[: self.capacity] = old
            setattr(self, attr, grown)
        self.capacity = new

    def resource_column(self, resource: str) -> int:
        """Column of a resource, adding one (all zeros) for a new extended resource."""
        col = self.resource_index.get(resource)
        if col is None:
            col = len(self.resources)
            self.resources.append(resource)
            self.resource_index[resource] = col
            pad = np.zeros((self.capacity, 1), dtype=np.int64)
            self.allocatable = np.hstack([self.allocatable, pad])
            self.requested = np.hstack([self.requested, pad])
        return col

    def request_vector(self, pod: PodView) -> np.ndarray:
        """The pod's requests aligned with the resource columns (pods column = 1); memoised."""
        key = tuple(pod.requests.items())
        cached = self._vectors.get(key)
        if cached is not None and cached.shape[0] == len(self.resources):
            return cached
        for name in pod.requests:
            self.resource_column(name)
        vec = np.zeros(len(self.resources), dtype=np.int64)
        for name, value in pod.requests.items():
            vec[self.resource_index[name]] = value
        vec[self.resource_index[PODS]] = 1
        vec.flags.writeable = False  # shared by every pod asking the same
        if len(self._vectors) >= VECTORS_KEPT:
            self._vectors.clear()
        self._vectors[key] = vec
        return vec

    # ---- nodes ---------------------------------------------------------------------
    def upsert_node(self, node: dict[str, Any]) -> int:
        """Add or update a node from its JSON; returns its row. Requested totals are kept.

        Everything is read before the table changes, so a malformed node (NodeSpecError naming the
        field) leaves the table exactly as it was.
        """
        try:
            parsed = _parse_node(node)
        except NodeSpecError:
            raise
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            problem = malformed(node, NODE) or f"cannot be read ({type(exc).__name__}: {exc})"
            raise NodeSpecError(f"{describe_object('Node', node)}: {problem}") from None
        name, values, unschedulable, labels, taints, images = parsed
        row = self.row_of.get(name)
        if row is None:
            if self._free_rows:
                row = self._free_rows.pop()
            else:
                if self.size == self.capacity:
                    self._grow_rows()
                row = self.size
                self.size += 1
                self.names.append(None)
                self.raw.append(None)
            self.row_of[name] = row
            self.names[row] = name
            self.alive[row] = True
            self.requested[row] = 0
            self.nonzero_requested[row] = 0
            self.version += 1
        else:
            self._drop_images(row)
        for r in values:
            self.resource_column(r)
        self.allocatable[row] = 0
        for r, v in values.items():
            self.allocatable[row, self.resource_index[r]] = v
        self.unschedulable[row] = unschedulable
        label_id = self.label_sets.intern(frozenset(labels.items()), labels)
        taint_id = self.taint_sets.intern(taints, taints)
        image_id = self.image_sets.intern(frozenset(images.items()), images)
        if label_id != self.label_set[row] or taint_id != self.taint_set[row] or image_id != self.image_set[row]:
            self.version += 1  # images too: ImageLocality's spread reads every node's images
        self._touch(row)
        self.label_set[row] = label_id
        self.taint_set[row] = taint_id
        self.image_set[row] = image_id
        self.image_node_count.update(images.keys())
        self.raw[row] = node
        return row

    def remove_node(self, name: str) -> int | None:
        row = self.row_of.pop(name, None)
        if row is None:
            return None
        self._drop_images(row)
        self.alive[row] = False
        self.names[row] = None
        self.raw[row] = None
        self.allocatable[row] = 0
        self.requested[row] = 0
        self.nonzero_requested[row] = 0
        self.label_set[row] = 0
        self.taint_set[row] = 0
        self.image_set[row] = 0
        self._free_rows.append(row)
        self.version += 1
        self._touch(row)
        return row

    def _touch(self, row: int) -> None:
        self.row_clock += 1
        self.row_version[row] = self.row_clock
        stamps = self._stamps
        stamps.append(row)
        if len(stamps) > STAMPS_KEPT:  # who asks about older stamps compares every row instead
            del stamps[: STAMPS_KEPT // 2]
            self._stamps_from = self.row_clock - len(stamps)

    def rows_changed_since(self, clock: int) -> np.ndarray:
        """The rows whose stamp is above `clock` (`row_version[row] > clock`), ascending, each once."""
        if clock >= self.row_clock:
            return np.zeros(0, dtype=np.int64)
        if clock >= self._stamps_from:
            tail = self._stamps[clock - self._stamps_from :]
            if len(tail) > 1024:
                return np.unique(np.asarray(tail, dtype=np.int64))
            return np.asarray(sorted(set(tail)), dtype=np.int64)  # a few rows: cheaper than np.unique
        return np.flatnonzero(self.row_version[: self.size] > clock)

    def _drop_images(self, row: int) -> None:
        self.image_node_count.subtract(self.image_sets.values[self.image_set[row]].keys())

    # ---- pods (incremental accounting, O(resources) per call) -------------------------
    def add_pod(self, row: int, pod: PodInfo) -> None:
        self._touch(row)
        vec = self.request_vector(pod)  # first: a new resource column replaces `requested`
        self.requested[row] += vec
        self.nonzero_requested[row, 0] += pod.nonzero_cpu
        self.nonzero_requested[row, 1] += pod.nonzero_memory

    def remove_pod(self, row: int, pod: PodInfo) -> None:
        self._touch(row)
        vec = self.request_vector(pod)
        self.requested[row] -= vec
        self.nonzero_requested[row, 0] -= pod.nonzero_cpu
        self.nonzero_requested[row, 1] -= pod.nonzero_memory

    # ---- views ---------------------------------------------------------------------
    def cached(self, key: Any, build: Any) -> Any:
        """Memoise a derived structure until node membership, labels or taints change."""
        entry = self._cache.get(key)
        if entry is not None and entry[0] == self.version:
            return entry[1]
        value = build()
        self._cache[key] = (self.version, value)
        return value

    def ordered_rows(self) -> np.ndarray:
        """Live rows, interleaved across zones like kube-scheduler's node tree."""
        return self.cached("ordered_rows", self._zone_interleaved_rows)

    def _zone_interleaved_rows(self) -> np.ndarray:
        zones: dict[str, list[int]] = {}
        for row in self.row_of.values():
            labels = self.label_sets.values[self.label_set[row]]
            zone = f"{labels.get(REGION_LABEL, '')}:\x00:{labels.get(ZONE_LABEL, '')}"
            zones.setdefault(zone, []).append(row)
        lists = list(zones.values())
        out: list[int] = []
        depth = max((len(z) for z in lists), default=0)
        for i in range(depth):
            for z in lists:
                if i < len(z):
                    out.append(z[i])
        return np.asarray(out, dtype=np.int64)

    def label_values(self, key: str) -> tuple[np.ndarray, list[str]]:
        """Per-row interned value of a label: (ids over all rows, -1 if absent; id -> value)."""
        return self.cached(("label_values", key), lambda: self._label_values(key))

    def _label_values(self, key: str) -> tuple[np.ndarray, list[str]]:
        values: list[str] = []
        index: dict[str, int] = {}
        per_set = np.full(len(self.label_sets), -1, dtype=np.int32)
        for set_id, labels in enumerate(self.label_sets.values):
            value = labels.get(key)
            if value is not None:
                if value not in index:
                    index[value] = len(values)
                    values.append(value)
                per_set[set_id] = index[value]
        ids = per_set[self.label_set[: self.capacity]]
        ids[~self.alive[: self.capacity]] = -1
        return ids, values

    def labels_of(self, row: int) -> dict[str, str]:
        return self.label_sets.values[self.label_set[row]]

    def taints_of(self, row: int) -> tuple[Taint, ...]:
        return self.taint_sets.values[self.taint_set[row]]

    def images_of(self, row: int) -> dict[str, int]:
        return self.image_sets.values[self.image_set[row]]

    def view(self, rows: np.ndarray) -> NodeView:
        return NodeView(self, rows)


def _parse_node(
    node: dict[str, Any],
) -> tuple[str, dict[str, int], bool, dict[str, str], tuple[Taint, ...], dict[str, int]]:
    """(name, allocatable, unschedulable, labels, taints, images) of a node's JSON."""
    meta = node.get("metadata") or {}
    name = meta.get("name")
    if not name or not isinstance(name, str):
        raise NodeSpecError("node without metadata.name")
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    try:
        values = {r: resource_value(r, q) for r, q in allocatable.items()}
    except QuantityError as exc:
        raise NodeSpecError(f"node {name}: status.allocatable: {exc}") from None
    labels = meta.get("labels") or {}
    if not isinstance(labels, dict):
        raise TypeError("labels are not a mapping")
    labels = dict(labels)
    taints = tuple(
        Taint(t.get("key") or "", t.get("value") or "", t.get("effect") or "") for t in spec.get("taints") or ()
    )
    # Checked before the table changes: the table interns (hashes), sorts and compares them as strings.
    if not all(type(v) is str for v in labels.values()):
        raise TypeError("a label value is not a string")
    if not all(type(t.key) is str and type(t.value) is str and type(t.effect) is str for t in taints):
        raise TypeError("a taint field is not a string")
    images: dict[str, int] = {}
    for image in status.get("images") or ():
        for image_name in image.get("names") or ():
            images[_normalized_image(image_name)] = int(image.get("sizeBytes") or 0)
    return name, values, bool(spec.get("unschedulable")), labels, taints, images


def _normalized_image(name: str) -> str:
    """Image names as ImageLocality compares them: a missing tag means ':latest'."""
    tail = name.rsplit("/", 1)[-1]
    if "@" in tail or ":" in tail:
        return name
    return f"{name}:latest"


class NodeView:
    """A set of candidate rows of a NodeTable; what batch hooks receive as `nodes`.

    Arrays a plugin returns (masks, scores) are aligned with `rows`: element i is about node
    `names[i]`, `len(nodes)` long. Column accessors gather only the candidate rows.

    Units are the resource's base unit as integers: cpu in millicores (`"1.5"` -> 1500), memory
    and ephemeral-storage in bytes (`"1Gi"` -> 1073741824), pods and extended resources
    (`nvidia.com/gpu`) as counts. A resource no node has and no pod asked for reads as zeros.

        free_cpu = nodes.allocatable("cpu") - nodes.requested("cpu")     # millicores, per node
        ids, values = nodes.label_values("topology.kubernetes.io/zone")   # ids[i] == -1: label missing
        zones = [values[i] if i >= 0 else None for i in ids.tolist()]
        ok = FilterResult.reject_where(free_cpu < 500, "node(s) had little cpu left")

    `rows` are NodeTable row numbers (stable for a node's lifetime), for per-row tables such as
    `ClusterState.label_counts` or `helpers.matching_pod_counts(...)[nodes.rows]`.
    """

    __slots__ = ("table", "rows", "_names")
    table: NodeTableView  # read-only for plugins: what `nodes.table` offers them is the view

    def __init__(self, table: NodeTableView, rows: np.ndarray) -> None:
        self.table = table
        self.rows = rows
        self._names: list[str] | None = None

    def __len__(self) -> int:
        """The number of candidate nodes (the length every returned mask or score array must have)."""
        return int(self.rows.shape[0])

    @property
    def names(self) -> list[str]:
        """Node names aligned with `rows` (built once per view)."""
        if self._names is None:
            names = self.table.names
            self._names = [names[r] for r in self.rows.tolist()]
        return self._names

    def allocatable(self, resource: str) -> np.ndarray:
        """Allocatable `resource` per candidate, int64 in base units (cpu millicores, memory bytes,
        pods and extended resources as counts); zeros for a resource no node has."""
        return self._column(self.table.allocatable, resource)

    def requested(self, resource: str) -> np.ndarray:
        """Sum of the requests of the pods placed (bound or assumed) on each candidate, int64 in base
        units (cpu millicores, memory bytes); zeros for a resource no pod asked for."""
        return self._column(self.table.requested, resource)

    def _column(self, matrix: np.ndarray, resource: str) -> np.ndarray:
        # A read never adds a column: growing the table here would swap the arrays out from under
        # the caller (and any view already holding them).
        col = self.table.resource_index.get(resource)
        if col is None:
            return np.zeros(self.rows.shape[0], dtype=matrix.dtype)
        return matrix[self.rows, col]

    def label_values(self, key: str) -> tuple[np.ndarray, list[str]]:
        """The `key` label per candidate as (ids, values): `values[ids[i]]` is node i's value, and
        `ids[i] == -1` means node i has no such label (an empty value is a value)."""
        ids, values = self.table.label_values(key)
        return ids[self.rows], values

    def broadcast_label_sets(self, per_set: np.ndarray) -> np.ndarray:
        """Map a per-label-set answer (indexed by label set id) onto the candidate rows.

        Nodes share interned label sets, so a selector is evaluated once per distinct set
        (`helpers.node_columns(nodes.table).mask(selector)`) and broadcast here.
        """
        return per_set[self.table.label_set[self.rows]]

    def broadcast_taint_sets(self, per_set: np.ndarray) -> np.ndarray:
        """Map a per-taint-set answer (e.g. `helpers.untolerated_taint_sets`) onto the candidate rows."""
        return per_set[self.table.taint_set[self.rows]]

    def distinct_label_sets(self) -> np.ndarray:
        """The label set ids the candidates use (evaluate only these)."""
        return np.unique(self.table.label_set[self.rows])

    def distinct_taint_sets(self) -> np.ndarray:
        """The taint set ids the candidates use."""
        return np.unique(self.table.taint_set[self.rows])

    def subset(self, mask: np.ndarray) -> NodeView:
        """The candidates where `mask` (aligned with this view) is True."""
        return NodeView(self.table, self.rows[mask])

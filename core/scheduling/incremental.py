"""Incremental full cycles: a full scheduling cycle's exact result, from the previous same-shaped
pod's filter verdicts and raw scores corrected for the node rows that changed since.

kube-scheduler never batches pods whose placement depends on other pods (PodTopologySpread's
default constraints, inter-pod affinity), and its batch hint changes decisions. This goes the
other way: every cycle is a full cycle (same sampling window, same scores, same tie-break draw),
only cheaper. It applies when every filter plugin still active after PreFilter declares a
node-local `filter_scope` and every score plugin still active after PreScore declares
`score_scope = ScoreScope.NODE`: then a node's verdict and raw scores are a function of the pod
and that node's row, so for a pod shaped like an earlier one (same namespace, labels, owners and
spec) only rows whose version moved (a pod placed or removed there, the node updated) are
evaluated again. The node table's structure version and the cluster's object version (PVs,
PVCs, Services, ...) invalidate everything.

What a cycle sees is what a full cycle computes: verdicts over every node (so the sampling
window is cut from them exactly as the chunked filter cuts it), raw scores for the sampled nodes,
then the profile's own NormalizeScore and weights over the sample.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from ..api.capabilities import ScoreScope
from ..api.status import Code
from ..api.types import MAX_NODE_SCORE, CycleState
from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeView
from ..cache.podinfo import MemoKey, PodInfo
from ..runtime.framework import Framework
from ..runtime.records import CycleRecord, Diagnosis

SHAPES_KEPT = 8  # distinct pod shapes whose verdicts are kept per profile (LRU)


def incremental_cycles_enabled() -> bool:
    """kubeberth's own switch (not a kube-scheduler gate): KUBEBERTH_INCREMENTAL_CYCLES=false turns it off."""
    return os.environ.get("KUBEBERTH_INCREMENTAL_CYCLES", "").strip().lower() != "false"


_SHAPE: MemoKey[str] = MemoKey("kubeberth.incremental.shape")
_SHAPE_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def pod_shape(pod: PodInfo) -> str:
    """What a plugin may read of a pod besides its name and uid: equal shapes, equal verdicts."""

    def compute(p: PodInfo) -> str:
        meta = p.raw.get("metadata") or {}
        parts = [p.namespace, p.labels, meta.get("ownerReferences"), p.raw.get("spec")]
        try:
            # As str: orjson's bytes keep their whole output buffer (4 KiB), and a shape lives as
            # long as its pod.
            return orjson.dumps(parts, option=_SHAPE_OPTIONS, default=str).decode()
        except TypeError:  # e.g. an integer beyond 64 bits: the slower encoder takes anything
            return json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)

    return pod.cached(_SHAPE, compute)


@dataclass
class ShapeVerdicts:
    """One pod shape's per-row filter verdicts and raw scores, valid as of `clock` (row versions)."""

    filters: frozenset[str]  # the filter plugins active when built
    table_version: int
    objects_version: int
    clock: int
    ok: np.ndarray  # bool per row
    reason: np.ndarray  # int32 per row: index into `reason_sets` (0: none)
    reason_sets: list[tuple[tuple[str, str, Code], ...]]
    reason_ids: dict[tuple[tuple[str, str, Code], ...], int]
    dirty: np.ndarray | None = None  # bool per row: changed since its verdict was computed
    raw: dict[str, np.ndarray] = field(default_factory=dict)  # plugin -> raw score per row
    scored: dict[str, np.ndarray] = field(default_factory=dict)  # plugin -> bool per row: raw is valid
    # Per plugin, how many rows hold a nonzero raw score, and how many one outside [0, MAX_NODE_SCORE]
    # (stale rows included: a count of 0 holds for every row).
    nonzero: dict[str, int] = field(default_factory=dict)
    out_of_range: dict[str, int] = field(default_factory=dict)
    # Per set of active score plugins: bool per row, every one of them has a valid raw score there
    # (`complete`); and there, the weighted sum of those without a NormalizeScore (`fixed`).
    complete: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    fixed: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    # Positions of feasible rows within `rows_for` (the table's ordered rows), kept until a verdict flips.
    rows_for: np.ndarray | None = None
    feasible_positions: np.ndarray | None = None
    feasible_rows: np.ndarray | None = None  # rows_for[feasible_positions]

    def positions(self, rows: np.ndarray) -> np.ndarray:
        """Ascending positions in `rows` of the rows that pass every filter."""
        if self.rows_for is not rows or self.feasible_positions is None:
            self.rows_for = rows
            self.feasible_positions = np.flatnonzero(self.ok[rows])
            self.feasible_rows = rows[self.feasible_positions]
        return self.feasible_positions


class IncrementalCycles:
    """One profile's cache of pod-shape verdicts (owned by the scheduling thread)."""

    def __init__(self, framework: Framework, cluster: ClusterState, handle: Any) -> None:
        self.framework = framework
        self.cluster = cluster
        self.handle = handle
        self.shapes: OrderedDict[str, ShapeVerdicts] = OrderedDict()
        self.last_shape = ""  # the shape of the pod this cache saw last
        self.reused = 0
        self.rows_refiltered = 0
        self.rows_rescored = 0
        self._node_local: dict[str, bool] = {}
        self._node_scores: dict[str, bool] = {}

    # ---- eligibility ---------------------------------------------------------------------
    def _filters_node_local(self, state: CycleState) -> frozenset[str] | None:
        active = []
        for hook in self.framework.points.get("filter", ()):
            if hook.plugin in state.skip_filter:
                continue
            local = self._node_local.get(hook.plugin)
            if local is None:
                local = self._node_local[hook.plugin] = self.framework.capabilities_of(hook.plugin).filter_scope.node_local
            if not local:
                return None
            active.append(hook.plugin)
        return frozenset(active)

    def scores_node_local(self, state: CycleState) -> bool:
        for hook in self.framework.points.get("score", ()):
            if hook.plugin in state.skip_score:
                continue
            local = self._node_scores.get(hook.plugin)
            if local is None:
                local = self._node_scores[hook.plugin] = (
                    self.framework.capabilities_of(hook.plugin).score_scope is ScoreScope.NODE
                )
            if not local:
                return False
        return True

    # ---- verdicts ------------------------------------------------------------------------
    def verdicts(self, pod: PodInfo, state: CycleState, rows: np.ndarray, record: CycleRecord | None) -> ShapeVerdicts | None:
        """Every row's verdict for `pod`, corrected for rows changed since the shape was last seen;
        None when the filters are not all node-local, or the cache has nothing for this shape and it is not a run (the previous pod was shaped otherwise)."""
        filters = self._filters_node_local(state)
        if filters is None:
            return None
        table, cluster = self.cluster.table, self.cluster
        shape = pod_shape(pod)
        found = self.shapes.get(shape)
        if found is not None and (
            found.filters != filters
            or found.table_version != table.version
            or found.objects_version != cluster.objects_version
            or len(found.ok) < table.size
        ):
            del self.shapes[shape]
            found = None
        previous, self.last_shape = self.last_shape, shape
        if found is None:
            # Evaluating every node costs more than one sampled cycle: only worth it for a shape
            # that comes twice in a row (a run of replicas), not for a shape seen now and then.
            if shape != previous:
                return None
            found = self._build(pod, state, filters, rows, record)
            self.shapes[shape] = found
            if len(self.shapes) > SHAPES_KEPT:
                self.shapes.popitem(last=False)
        else:
            self.shapes.move_to_end(shape)
            if table.row_clock != found.clock:
                # Rows changed since: their verdicts are re-evaluated when a sampling window reaches them.
                changed = table.rows_changed_since(found.clock)
                assert found.dirty is not None
                found.dirty[changed] = True
                for mask in found.scored.values():
                    mask[changed] = False
                for mask in found.complete.values():
                    mask[changed] = False
                found.clock = table.row_clock
        self.reused += 1
        return found

    def _build(
        self, pod: PodInfo, state: CycleState, filters: frozenset[str], rows: np.ndarray, record: CycleRecord | None
    ) -> ShapeVerdicts:
        table = self.cluster.table
        n = len(table.alive)
        found = ShapeVerdicts(
            filters, table.version, self.cluster.objects_version, table.row_clock,
            np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int32), [()], {(): 0}, np.zeros(n, dtype=bool),
        )
        self._evaluate(found, pod, state, rows, record)
        return found

    def window(
        self, found: ShapeVerdicts, pod: PodInfo, state: CycleState, rows: np.ndarray, start: int, want: int
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """kube-scheduler's sampling over known verdicts: positions in `rows` of the first `want`
        feasible rows from `start` (wrapping), those rows, and how many rows that scans. Changed
        rows inside the scanned range are evaluated first, until none is left there."""
        n = len(rows)
        assert found.dirty is not None
        while True:
            positions = found.positions(rows)  # feasible positions in `rows`, ascending
            feasible_rows = found.feasible_rows
            assert feasible_rows is not None
            first = int(positions.searchsorted(start))
            taken, taken_rows = positions[first : first + want], feasible_rows[first : first + want]
            if len(taken) < want:  # wrap around to the rows before the start
                more = min(first, want - len(taken))
                taken = np.concatenate([taken, positions[:more]])
                taken_rows = np.concatenate([taken_rows, feasible_rows[:more]])
            processed = (int(taken[-1]) - start) % n + 1 if len(taken) >= want else n
            end = start + processed
            scanned = rows[start:end] if end <= n else np.concatenate([rows[start:], rows[: end - n]])
            if not found.dirty[scanned].any():
                return taken, taken_rows, processed
            # A plugin call costs about the same for one row as for thousands: evaluate every
            # changed row now, so the next windows (which rarely reach a row changed since) need none.
            stale = np.flatnonzero(found.dirty)
            found.dirty[stale] = False
            self._evaluate(found, pod, state, stale[self.cluster.table.alive[stale]], None)

    def _evaluate(
        self, found: ShapeVerdicts, pod: PodInfo, state: CycleState, rows: np.ndarray, record: CycleRecord | None
    ) -> None:
        """Run the active filters over `rows` and store each row's verdict and reasons."""
        if not len(rows):
            return
        self.rows_refiltered += len(rows)
        table = self.cluster.table
        diagnosis = Diagnosis(len(rows))
        ok = self.framework.run_filters(state, pod, table.view(rows), self.cluster, self.handle, diagnosis, None)
        if not np.array_equal(found.ok[rows], ok):
            found.feasible_positions = None
        found.ok[rows] = ok
        found.reason[rows] = 0
        if ok.all():
            return
        per_row: dict[int, list[tuple[str, str, Code]]] = {}
        for plugin, reason, rejected, code in diagnosis.rejections:
            for r in rejected.tolist():
                per_row.setdefault(r, []).append((plugin, reason, code))
        for r, entries in per_row.items():
            key = tuple(entries)
            rid = found.reason_ids.get(key)
            if rid is None:
                rid = found.reason_ids[key] = len(found.reason_sets)
                found.reason_sets.append(key)
            found.reason[r] = rid

    def record_rejections(self, found: ShapeVerdicts, rows: np.ndarray, record: CycleRecord) -> None:
        """Per plugin and reason, how many of `rows` (the nodes the cycle looked at) were rejected."""
        ids = found.reason[rows]
        ids = ids[ids > 0]
        if not len(ids):
            return
        counts = np.bincount(ids)
        for rid in np.flatnonzero(counts).tolist():
            for plugin, reason, _code in found.reason_sets[rid]:
                bucket = record.rejected.setdefault(plugin, {})
                bucket[reason] = bucket.get(reason, 0) + int(counts[rid])

    # ---- raw scores ----------------------------------------------------------------------
    def prioritize(
        self, found: ShapeVerdicts, pod: PodInfo, state: CycleState, view: NodeView, record: CycleRecord | None
    ) -> tuple[Mapping[str, np.ndarray], np.ndarray, Mapping[str, np.ndarray]]:
        """The score plugins' part of prioritizeNodes over `view` (the sampled feasible rows) from
        cached raw scores: (raw scores, weighted total, normalized scores per plugin), as
        `run_raw_scores` then `normalize_scores` give them. Plugins without a NormalizeScore are
        summed per row when scored, so a cycle gathers one total for them; their per-plugin scores
        are read only when asked for (a decision record's top nodes)."""
        fw, feasible = self.framework, view.rows
        active = tuple(h.plugin for h in fw.points.get("score", ()) if h.plugin not in state.skip_score)
        complete = self._complete(found, active)
        known = complete[feasible]
        if not known.all():
            self._score(found, pod, state, active, feasible[~known], record)
        fixed = [p for p in active if p not in fw.normalizers]
        if any(found.out_of_range[p] for p in fixed):  # the range check reports it: the full path
            raw = {p: found.raw[p][feasible] for p in active}
            total, per_plugin = fw.normalize_scores(state, pod, view, raw, record)
            return raw, total, per_plugin
        normalized = {p: self._gather(found, p, feasible) for p in active if p in fw.normalizers}
        total = found.fixed[active][feasible]
        if normalized:  # fresh arrays, given up to the normalizers (the raw scores are read again if asked)
            scored, per_normalized = fw.normalize_scores(state, pod, view, normalized, record, owned=True)
            total += scored
        else:
            per_normalized = {}
        return (
            CachedScores(active, found.raw, feasible, {}),
            total,
            CachedScores(active, found.raw, feasible, per_normalized),
        )

    def _complete(self, found: ShapeVerdicts, active: tuple[str, ...]) -> np.ndarray:
        """The shape's `complete` mask for this set of active plugins (made from the plugins' own
        masks the first time, with the weighted sum of the plugins without a NormalizeScore)."""
        complete = found.complete.get(active)
        if complete is not None:
            return complete
        n = len(found.ok)
        for plugin in active:
            if plugin not in found.scored:
                found.raw[plugin] = np.zeros(n, dtype=np.int64)
                found.scored[plugin] = np.zeros(n, dtype=bool)
                found.nonzero[plugin] = found.out_of_range[plugin] = 0
        complete = np.ones(n, dtype=bool)
        for plugin in active:
            complete &= found.scored[plugin]
        found.complete[active] = complete
        found.fixed[active] = self._fixed_sum({p: found.raw[p] for p in active}, n)
        return complete

    def _score(
        self, found: ShapeVerdicts, pod: PodInfo, state: CycleState, active: tuple[str, ...], missing: np.ndarray,
        record: CycleRecord | None,
    ) -> None:
        """Score `missing` and, as for filters, every other feasible row that lacks a score (one call)."""
        fw = self.framework
        complete = found.complete[active]
        lacking = ~complete
        lacking &= found.ok & ~found.dirty  # type: ignore[operator]
        lacking[missing] = True
        sub = np.flatnonzero(lacking)
        self.rows_rescored += len(sub)
        fresh = fw.run_raw_scores(state, pod, self.cluster.table.view(sub), self.cluster, self.handle, record)
        for plugin, scores in fresh.items():
            before = found.raw[plugin][sub]
            found.nonzero[plugin] += int(np.count_nonzero(scores)) - int(np.count_nonzero(before))
            if plugin not in fw.normalizers:
                found.out_of_range[plugin] += _out_of_range(scores) - _out_of_range(before)
            found.raw[plugin][sub] = scores
            found.scored[plugin][sub] = True
        complete[sub] = True
        found.fixed[active][sub] = self._fixed_sum(fresh, len(sub))

    def _fixed_sum(self, scores: Mapping[str, np.ndarray], n: int) -> np.ndarray:
        """The weighted sum of the scores of the plugins without a NormalizeScore (n rows)."""
        weights = self.framework.score_weight_map
        fixed = np.zeros(n, dtype=np.int64)
        for plugin, values in scores.items():
            if plugin not in self.framework.normalizers:
                fixed += values * weights.get(plugin, 1)
        return fixed

    @staticmethod
    def _gather(found: ShapeVerdicts, plugin: str, feasible: np.ndarray) -> np.ndarray:
        """A plugin's cached raw scores over `feasible` (zeros without a gather when it has none)."""
        if found.nonzero[plugin]:
            return found.raw[plugin][feasible]
        return np.zeros(len(feasible), dtype=np.int64)


def _out_of_range(scores: np.ndarray) -> int:
    """How many scores lie outside [0, MAX_NODE_SCORE] (one reduction: negatives read as huge)."""
    return int(np.count_nonzero(scores.view(np.uint64) > MAX_NODE_SCORE)) if scores.size else 0


class CachedScores(Mapping[str, np.ndarray]):
    """Scores per plugin over a cycle's sampled rows, in the active plugins' order: those given,
    and the others gathered from the shape's cached raw scores when first read. `take` reads a
    few candidates' scores without the whole gather."""

    def __init__(
        self, order: tuple[str, ...], cached: Mapping[str, np.ndarray], rows: np.ndarray, given: dict[str, np.ndarray]
    ) -> None:
        self._order = order
        self._cached = cached
        self._rows = rows
        self._values = dict(given)

    def __getitem__(self, plugin: str) -> np.ndarray:
        found = self._values.get(plugin)
        if found is None:
            if plugin not in self._order:
                raise KeyError(plugin)
            found = self._values[plugin] = self._cached[plugin][self._rows]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def take(self, plugin: str, positions: np.ndarray) -> np.ndarray:
        """The plugin's scores at `positions` of the sampled rows."""
        found = self._values.get(plugin)
        if found is not None:
            return found[positions]
        return self._cached[plugin][self._rows[positions]]

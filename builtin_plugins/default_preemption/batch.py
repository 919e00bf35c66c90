"""Batch victim selection for the dry run (a part of kube-scheduler's SelectVictimsOnNode, many nodes at once).

Valid when every active filter is node-local (PreFilterSnapshot.fast): the hypothetical states of
different nodes are independent, so every candidate node's lower-priority pods are taken off the
table's requested totals together, the filters run once over all of them, and victims are reprieved
k-th by k-th across the nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import compress
from typing import Any

import numpy as np
from kubeberth import ClusterView, Diagnosis, Handle, PodView

from .candidates import importance_key
from .lower_pods import LowerPods
from .outcome import PRE_FILTER_RESULT_REASON, Outcome, outcome, reasons_by_row
from .pdb import PDB, filter_pods_with_pdb_violation
from .snapshot import PreFilterSnapshot


class BatchEvaluation:
    """The batch path of one preemption attempt: the inputs it reads, declared here."""

    def __init__(
        self,
        plugin: str,
        pod: PodView,
        cluster: ClusterView,
        handle: Handle,
        base: PreFilterSnapshot,
        pdbs: list[PDB],
        nominated: Mapping[int, Sequence[PodView]],
        lower: dict[int, LowerPods],
        victim_key: Callable[[Any], Any],
    ) -> None:
        """`lower`: the attempt's rows read through the cross-attempt cache (shared with the Evaluator)."""
        self.plugin = plugin
        self.pod = pod
        self.cluster = cluster
        self.handle = handle
        self.base = base
        self.pdbs = pdbs
        self.nominated = nominated
        self.lower = lower
        self.victim_key = victim_key

    def evaluate(self, items: list[tuple[int, list[PodView]]]) -> list[Outcome]:
        """kube-scheduler's per-node victim selection for many nodes at once.

        Valid because every active filter is node-local (NODE_RESOURCES filters read only the
        node's requested totals, NODE filters no pods at all): the hypothetical states of
        different nodes are independent, so they are applied to the table together. With
        nominated pods counted the node only gets fuller, so the pass without them cannot fail
        where the pass with them succeeded; one pass per check suffices.
        """
        outcomes: dict[int, Outcome] = {}
        rest = items
        if self.base.narrowed is not None:
            names = self.cluster.table.names
            rest = []
            for row, lower in items:
                if names[row] in self.base.narrowed:
                    rest.append((row, lower))
                else:
                    outcomes[row] = (row, None, 0, (PRE_FILTER_RESULT_REASON,))
        if rest:
            outcomes.update(self._victims(rest))
        return [outcomes[row] for row, _lower in items]

    def _request_matrix(self, pods: list[PodView]) -> np.ndarray:
        """The pods' request vectors as one (len(pods), resources) matrix, one row per pod."""
        table = self.cluster.table
        vector = table.request_vector
        vecs = [vector(p) for p in pods]
        width = len(table.resources)
        if any(v.shape[0] != width for v in vecs):  # a pod added a resource column meanwhile
            vecs = [vector(p) for p in pods]
        if not vecs:
            return np.zeros((0, width), dtype=np.int64)
        return np.concatenate(vecs).reshape(len(vecs), width)

    def deltas(
        self, items: list[tuple[int, list[PodView]]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Rows and requested-resource deltas (every lower-priority pod gone, nominated pods in),
        with the lower-priority pods' request matrix (items' pods in order) and where each item's
        pods start in it: per node, the matrix and its sums come from the cross-attempt cache."""
        cluster = self.cluster
        width = len(cluster.table.resources)
        matrices: list[np.ndarray] = []
        totals: list[np.ndarray] = []
        entries = self.lower
        for row, lower in items:
            entry = entries.get(row)
            if entry is not None and entry.pods is lower:
                matrix, total = entry.requests(cluster)
            else:
                matrix = self._request_matrix(lower)
                total = matrix.sum(axis=0)
            matrices.append(matrix)
            totals.append(total)
        if any(m.shape[1] != width for m in matrices):  # a pod added a resource column meanwhile
            width = len(cluster.table.resources)
            matrices = [self._request_matrix(lower) for _row, lower in items]
            totals = [m.sum(axis=0) for m in matrices]
        counts = np.fromiter((len(lower) for _row, lower in items), dtype=np.int64, count=len(items))
        starts = np.zeros(len(items), dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        rows = np.fromiter((row for row, _ in items), dtype=np.int64, count=len(items))
        if not items:
            return rows, np.zeros((0, width), dtype=np.int64), np.zeros((0, width), dtype=np.int64), starts
        gone = np.concatenate(matrices)
        delta = -np.stack(totals)
        ghosts = [(i, p) for i, (row, _lower) in enumerate(items) for p in self.nominated.get(row, ())]
        if ghosts:
            extra = self._request_matrix([p for _i, p in ghosts])
            if extra.shape[1] != delta.shape[1]:  # a nominated pod added a resource column
                return self.deltas(items)
            np.add.at(delta, np.fromiter((i for i, _p in ghosts), dtype=np.int64), extra)
        return rows, delta, gone, starts

    def _victims(self, items: list[tuple[int, list[PodView]]]) -> dict[int, Outcome]:
        cluster, handle, pod, base = self.cluster, self.handle, self.pod, self.base
        table = cluster.table
        rows, delta, gone, starts = self.deltas(items)
        out: dict[int, Outcome] = {}
        with cluster.hypothetical() as what_if:
            what_if.add_requests(rows, delta)
            diagnosis = Diagnosis(num_all_nodes=len(items))
            feasible = handle.run_filters(base.clone(), pod, table.view(rows), diagnosis)
            if not feasible.all():
                reasons_of = reasons_by_row(diagnosis)
                for i in np.flatnonzero(~feasible).tolist():
                    row = int(rows[i])
                    out[row] = (row, None, 0, reasons_of.get(row) or (f"node(s) were rejected by {self.plugin}",))
            fit = np.flatnonzero(feasible)
            # Reprieve: PDB-violating victims first, each group most important first; the k-th victim
            # of every node is tried at once, kept back where the pod still fits.
            fit_list = fit.tolist()
            ordered, split, victim_requests, firsts = self._reprieve_order(items, fit_list, gone, starts)
            counts = np.asarray([len(o) for o in ordered], dtype=np.int64)
            depth = int(counts.max()) if len(ordered) else 0
            is_victim = np.zeros((len(ordered), depth), dtype=bool)
            fit_rows = rows[fit]
            for k in range(depth):
                active = np.flatnonzero(counts > k)
                vecs = victim_requests[firsts[active] + k]
                arows = fit_rows[active]
                what_if.add_requests(arows, vecs)
                ok = handle.run_filters(base.clone(), pod, table.view(arows))
                if not ok.all():
                    what_if.add_requests(arows[~ok], -vecs[~ok])
                    is_victim[active[~ok], k] = True
        flags = is_victim.tolist()
        rows_list = rows.tolist()
        names = table.names
        for j, i in enumerate(fit.tolist()):
            row = rows_list[i]
            victims = list(compress(ordered[j], flags[j]))
            bad = split[j]
            num_violations = sum(flags[j][:bad]) if bad else 0
            if 0 < bad < len(ordered[j]):
                victims.sort(key=self.victim_key)
            out[row] = (row, victims, num_violations, ()) if victims else outcome(row, names[row] or "", victims, 0)
        return out

    def _reprieve_order(
        self, items: list[tuple[int, list[PodView]]], fit: list[int], gone: np.ndarray, starts: np.ndarray
    ) -> tuple[list[list[PodView]], list[int], np.ndarray, np.ndarray]:
        """Per fitting item, its pods in reprieve order (PDB-violating first, each group most important
        first) and how many violate; their request vectors in that order, one block per item, and where
        each block starts."""
        entries, pdbs, victim_key = self.lower, self.pdbs, self.victim_key
        if not pdbs and victim_key is importance_key:
            found = [entries.get(items[i][0]) for i in fit]
            if all(e is not None and e.pods is items[i][1] for e, i in zip(found, fit, strict=True)):
                # The importance order and its request matrix are kept with each node's pods.
                kept = [e.by_importance(self.cluster) for e in found if e is not None]
                ordered = [pods for pods, _matrix in kept]
                lengths = np.fromiter((len(o) for o in ordered), dtype=np.int64, count=len(ordered))
                firsts = np.zeros(len(ordered), dtype=np.int64)
                np.cumsum(lengths[:-1], out=firsts[1:])
                matrix = np.concatenate([m for _pods, m in kept]) if kept else gone[:0]
                return ordered, [0] * len(ordered), matrix, firsts
        ordered = []
        split: list[int] = []
        positions: list[int] = []
        starts_list = starts.tolist()
        for i in fit:
            row, lower = items[i]
            entry = entries.get(row)
            if victim_key is importance_key and entry is not None and entry.pods is lower:
                order = entry.importance_order()
            else:
                keys = [victim_key(p) for p in lower]
                order = sorted(range(len(lower)), key=keys.__getitem__)
            if pdbs:
                by_pod = {id(lower[k]): k for k in order}
                bad, good = filter_pods_with_pdb_violation([lower[k] for k in order], pdbs)
                order = [by_pod[id(p)] for p in bad + good]
                split.append(len(bad))
            else:
                split.append(0)
            ordered.append([lower[k] for k in order])
            first = starts_list[i]
            positions.extend(first + k for k in order)
        lengths = np.fromiter((len(o) for o in ordered), dtype=np.int64, count=len(ordered))
        firsts = np.zeros(len(ordered), dtype=np.int64)
        np.cumsum(lengths[:-1], out=firsts[1:])
        return ordered, split, gone[np.asarray(positions, dtype=np.int64)], firsts

"""Filtering with the pods nominated by preemption (kube-scheduler's RunFilterPluginsWithNominatedPods
and addGENominatedPods).

On a node where pods of priority >= the pod's are nominated, the filters run twice: first with those
pods placed there, then without them; the node must pass both, and the first failure is the one
reported. Every other node runs once, without any nominated pod.

The first pass mirrors addGENominatedPods: the cycle's PreFilter state is cloned and updated for the
placed pods the way AddPod would (RunPreFilterExtensionAddPod skips the plugins that returned Skip
for this pod): only PreFilters declaring `PreFilterState.RERUN` and not skipped run again, the
`SELF_UPDATING` ones notice the placed pods themselves, the others keep no placed-pod data. The
cycle's PreFilterResult (narrowed nodes) is kept, as AddPod cannot change it.

Cost: the second pass is one batch call over every row. The first pass, when every filter still
active for the pod is node-local (`FilterScope.NODE` / `NODE_RESOURCES`) and nothing needs a re-run,
is one batch call too: the nodes' hypothetical states are independent, so each node's nominated pods
are added to its requested totals together (`Hypothetical.add_requests`). Otherwise it places the
pods node by node.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..api.capabilities import PreFilterState
from ..api.types import CycleState
from ..cache.cluster import ClusterState
from ..cache.podinfo import PodInfo
from ..runtime.framework import Framework
from ..runtime.records import CycleRecord, Diagnosis
from .handle import FrameworkHandle


def filter_with_nominated(
    fw: Framework,
    state: CycleState,
    pod: PodInfo,
    rows: np.ndarray,
    cluster: ClusterState,
    handle: FrameworkHandle,
    diagnosis: Diagnosis | None,
    record: CycleRecord | None,
    nominated: dict[int, list[PodInfo]],
    batch: bool = True,
) -> np.ndarray:
    """The filters over `rows` with `nominated` (row -> pods nominated there with priority >= the
    pod's; see `ClusterState.nominated_ghosts`) accounted; returns the feasible mask.

    `batch` False evaluates the first pass node by node even where one batch call would do (the
    reference the batch path is tested against)."""
    table = cluster.table
    if nominated:
        special = np.fromiter((r in nominated for r in rows.tolist()), dtype=bool, count=len(rows))
    else:
        special = np.zeros(len(rows), dtype=bool)
    if not special.any():
        return fw.run_filters(state, pod, table.view(rows), cluster, handle, diagnosis, record)
    where = np.flatnonzero(special)
    # The first pass's rejections are reported after the second pass's (the nodes without nominated
    # pods first, as one pass over them reports them): a node is in exactly one of the two.
    first = Diagnosis(diagnosis.num_all_nodes) if diagnosis is not None else None
    refresh, local = _plan(fw, state)
    if batch and local and not refresh:
        passed = _first_pass_batch(fw, state, pod, rows[where], cluster, handle, first, record, nominated)
    else:
        passed = _first_pass_each(fw, state, pod, rows[where], cluster, handle, first, record, nominated, refresh)
    second = np.ones(len(rows), dtype=bool)
    second[where[~passed]] = False
    mask = np.zeros(len(rows), dtype=bool)
    if second.any():
        mask[second] = fw.run_filters(state, pod, table.view(rows[second]), cluster, handle, diagnosis, record)
    if diagnosis is not None and first is not None:
        for plugin, reason, rejected, code in first.rejections:
            diagnosis.add(plugin, reason, rejected, code)
    return mask


def _plan(fw: Framework, state: CycleState) -> tuple[list[str], bool]:
    """The PreFilters AddPod must redo (RERUN, not skipped), and whether every active filter is node-local."""
    skip = state.skip_filter
    caps = fw.capabilities_of
    refresh = [
        h.plugin for h in fw.points.get("pre_filter", ())
        if h.plugin not in skip and caps(h.plugin).pre_filter_state is PreFilterState.RERUN
    ]
    local = all(caps(h.plugin).filter_scope.node_local for h in fw.points.get("filter", ()) if h.plugin not in skip)
    return refresh, local


def _clone(state: CycleState) -> CycleState:
    """CycleState.Clone: plugins' entries shared (a plugin replaces, never mutates, what it stored)."""
    out = CycleState()
    out.update(state)
    out.skip_filter = set(state.skip_filter)
    out.skip_score = set(state.skip_score)
    out.narrowed_by = set(state.narrowed_by)
    return out


# Per node row, the summed requests of its nominated pods, kept while nominated_ghosts hands back the
# same list for that row (it is replaced, not changed, when the row's nominations change).
_SUMS: weakref.WeakKeyDictionary[ClusterState, dict[int, tuple[list[PodInfo], np.ndarray]]] = (
    weakref.WeakKeyDictionary()
)


def _first_pass_batch(
    fw: Framework,
    state: CycleState,
    pod: PodInfo,
    rows: np.ndarray,
    cluster: ClusterState,
    handle: FrameworkHandle,
    diagnosis: Diagnosis | None,
    record: CycleRecord | None,
    nominated: dict[int, list[PodInfo]],
) -> np.ndarray:
    """Every node with its nominated pods added to its requested totals, filtered in one call."""
    table = cluster.table
    sums = _SUMS.get(cluster)
    if sums is None:
        sums = _SUMS[cluster] = {}
    summed = []
    for r in rows.tolist():
        pods = nominated[r]
        kept = sums.get(r)
        if kept is None or kept[0] is not pods:
            vectors = [table.request_vector(p) for p in pods]  # may add resource columns
            total = np.zeros(max(v.shape[0] for v in vectors), dtype=np.int64)
            for v in vectors:
                total[: v.shape[0]] += v
            kept = sums[r] = (pods, total)
        summed.append(kept[1])
    # A sum read before a column was added is shorter: its pods request none of the newer resources.
    delta = np.zeros((len(rows), len(table.resources)), dtype=np.int64)
    for i, total in enumerate(summed):
        delta[i, : total.shape[0]] = total
    with cluster.hypothetical() as what_if:
        what_if.add_requests(rows, delta)
        return fw.run_filters(_clone(state), pod, table.view(rows), cluster, handle, diagnosis, record)


def _first_pass_each(
    fw: Framework,
    state: CycleState,
    pod: PodInfo,
    rows: np.ndarray,
    cluster: ClusterState,
    handle: FrameworkHandle,
    diagnosis: Diagnosis | None,
    record: CycleRecord | None,
    nominated: dict[int, list[PodInfo]],
    refresh: list[str],
) -> np.ndarray:
    """Node by node: the nominated pods placed, the RERUN PreFilters redone, the filters on that node."""
    table = cluster.table
    rerun = fw.only("pre_filter", refresh) if refresh else None
    everywhere = table.view(table.ordered_rows()) if refresh else None
    passed = np.zeros(len(rows), dtype=bool)
    for i, row in enumerate(rows.tolist()):
        one = table.view(np.asarray([row], dtype=np.int64))
        with cluster.hypothetical(add=[(other, row) for other in nominated[row]]):
            with_state = _clone(state)
            if rerun is not None and everywhere is not None:
                status, _ = rerun.run_pre_filter(with_state, pod, everywhere, cluster, handle, None)
                if not status.ok:
                    if diagnosis is not None:
                        diagnosis.add(status.plugin, status.message, one.rows, status.code)
                    continue
            passed[i] = fw.run_filters(with_state, pod, one, cluster, handle, diagnosis, record)[0]
    return passed

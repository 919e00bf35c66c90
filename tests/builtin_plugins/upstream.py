"""Run kube-scheduler's plugin test tables against kubeberth's plugins, the way the Go tests call them.

The Go tests build a snapshot (`cache.NewSnapshot(existingPods, nodes)`) and call a plugin's
PreFilter, Filter per node, PreScore, Score per node and NormalizeScore. kubeberth's hooks are
batch hooks over a NodeView: these helpers call them over the snapshot's nodes and return the
per-node outcome in the Go test's shape (a status code per node name, a score per node name).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest
from kubeberth import Code, CycleState, FilterResult, NodeView, Status
from kubeberth.cache.cluster import ClusterState
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import cluster_of
from upstream_unported import UNPORTED


def cases(table: list[dict[str, Any]] | dict[str, dict[str, Any]]) -> list[Any]:
    """pytest params for an upstream table, id'd `TestFunction/case name`; the cases tests/upstream_unported.py
    lists are skipped with their reason."""
    rows = list(table.values()) if isinstance(table, dict) else table
    return [
        pytest.param(tt, id=tt["name"], marks=[pytest.mark.skip(reason=UNPORTED[tt["name"]])] if tt["name"] in UNPORTED else [])
        for tt in rows
    ]


def snapshot(pods: Iterable[dict[str, Any]] | None, nodes: Iterable[dict[str, Any]] | None,
             *objects: dict[str, Any]) -> ClusterState:
    """cache.NewSnapshot(pods, nodes): pods without a UID get their namespace/name (made unique) as kubeberth
    keys pods by UID, while the Go snapshot keeps them in a list."""
    seen: set[str] = set()
    placed = []
    for i, raw in enumerate(pods or ()):
        meta = raw.setdefault("metadata", {})
        uid = meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"
        if uid in seen:
            uid = f"{uid}#{i}"
        seen.add(uid)
        if not meta.get("uid"):
            raw = {**raw, "metadata": {**meta, "uid": uid}}
        placed.append(raw)
    return cluster_of(list(nodes or ()), placed, list(objects))


def view(cluster: ClusterState, names: Sequence[str] | None = None) -> NodeView:
    """The NodeView of `names` (default: every node in insertion order)."""
    table = cluster.table
    if names is None:
        rows = np.asarray(sorted(table.row_of.values()), dtype=np.int64)
    else:
        rows = np.asarray([table.row_of[n] for n in names], dtype=np.int64)
    return table.view(rows)


def call(plugin: Any, hook: str, **kwargs: Any) -> Any:
    """Call a plugin hook with the arguments it declares (pluggy's calling convention)."""
    fn = getattr(plugin, hook)
    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kwargs.items() if k in params})


def pod_info(raw: dict[str, Any]) -> PodInfo:
    return PodInfo.from_dict(raw)


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code


def filter_statuses(result: FilterResult | Status | None, nodes: NodeView) -> dict[str, Status | None]:
    """A batch filter's answer as the per-node statuses the Go Filter returns (None = Success)."""
    names = list(nodes.names)
    if result is None:
        return dict.fromkeys(names)
    if isinstance(result, Status):
        return dict.fromkeys(names, None if result.code == Code.SUCCESS else result)
    out: dict[str, Status | None] = dict.fromkeys(names)
    for rej in result.rejections:
        for i in np.flatnonzero(rej.nodes):
            if out[names[i]] is None:
                out[names[i]] = Status(rej.code, (rej.reason,))
            else:
                prev = out[names[i]]
                assert prev is not None
                out[names[i]] = Status(prev.code, (*prev.reasons, rej.reason))
    for i, ok in enumerate(np.asarray(result.feasible, dtype=bool).tolist()):
        if not ok and out[names[i]] is None:
            out[names[i]] = Status(Code.UNSCHEDULABLE, ())
        assert ok == (out[names[i]] is None), names[i]
    return out


def run_filter(plugin: Any, raw_pod: dict[str, Any], cluster: ClusterState, *, handle: Any = None,
               state: CycleState | None = None) -> tuple[Status | None, dict[str, Status | None]]:
    """PreFilter then Filter over every node: (the PreFilter status, per-node Filter status).

    A PreFilter Skip makes every node Success as the framework skips the plugin's Filter.
    A PreFilter failure is returned with no node statuses."""
    pod = pod_info(raw_pod)
    state = CycleState() if state is None else state
    nodes = view(cluster)
    pre = None
    if hasattr(plugin, "pre_filter"):
        pre = call(plugin, "pre_filter", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
        if isinstance(pre, Status) and pre.code == Code.SKIP:
            return pre, dict.fromkeys(nodes.names)
        if isinstance(pre, Status) and pre.code != Code.SUCCESS:
            return pre, {}
    result = call(plugin, "filter", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
    return pre if isinstance(pre, Status) else None, filter_statuses(result, nodes)


def run_score(plugin: Any, raw_pod: dict[str, Any], cluster: ClusterState, names: Sequence[str] | None = None,
              *, handle: Any = None, normalize: bool = True, prescore: bool = True,
              state: CycleState | None = None) -> tuple[Status | None, dict[str, int]]:
    """PreScore, Score and NormalizeScore over `names` (the filtered nodes; default every node).

    Returns the PreScore status and node -> score; on a PreScore Skip every score is 0 (the Go tests
    assert 0 for a skipped plugin), on another PreScore failure the scores are empty."""
    pod = pod_info(raw_pod)
    state = CycleState() if state is None else state
    nodes = view(cluster, names)
    pre = None
    if prescore and hasattr(plugin, "pre_score"):
        pre = call(plugin, "pre_score", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
        if isinstance(pre, Status) and pre.code == Code.SKIP:
            return pre, dict.fromkeys(nodes.names, 0)
        if isinstance(pre, Status) and pre.code != Code.SUCCESS:
            return pre, {}
    scores = call(plugin, "score", state=state, pod=pod, nodes=nodes, cluster=cluster, handle=handle)
    if isinstance(scores, Status):
        return scores, {}
    scores = np.asarray(scores, dtype=np.int64)
    if normalize and hasattr(plugin, "normalize_score"):
        normalized = call(plugin, "normalize_score", state=state, pod=pod, nodes=nodes, scores=scores)
        if normalized is not None:
            scores = np.asarray(normalized, dtype=np.int64)
    return pre if isinstance(pre, Status) else None, dict(zip(nodes.names, scores.tolist(), strict=True))


def update_event(plugin: Any, kind: str) -> str:
    """The sub-event (`Node/UpdateNodeLabel`, `Pod/UpdatePodLabel`, ...) under which `plugin` registered
    its hint for a `kind` update: upstream's hint tests call the function directly, whatever changed."""
    from kubeberth.api.capabilities import Capabilities, capabilities_of

    caps = plugin if isinstance(plugin, Capabilities) else capabilities_of(plugin)
    return next(e for e in caps.queueing_hints if e.startswith(f"{kind}/Update{kind}"))

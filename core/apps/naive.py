"""The naive baseline for `kubeberth bench --profile naive`: the same profile, every filter and
score plugin called once per node through the per-node hook path (`filter_node`/`score_node`, a
`NodeInfo` built per call), as a framework that calls plugins per node would.

Decisions are the batch profile's (each per-node call asks the plugin about a one-node view), so
the two profiles differ in cost only: the contrast the columnar design is measured against.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..api.status import Code, FilterResult, Status
from ..api.types import NodeInfo
from ..runtime.framework import BoundHook, Framework, filter_node_adapter, score_node_adapter
from ..runtime.generation import Generation

_PER_NODE_ARGS = ("state", "pod", "node", "cluster", "handle")
_BATCH_ARGS = ("state", "pod", "nodes", "cluster", "handle")


def _one_node_filter(hook: BoundHook) -> Callable[..., Status | bool | None]:
    def filter_node(state: Any, pod: Any, node: NodeInfo, cluster: Any, handle: Any) -> Status | bool | None:
        view = cluster.table.view(np.array([node.row], dtype=np.int64))
        result = hook.call({"state": state, "pod": pod, "nodes": view, "cluster": cluster, "handle": handle})
        if result is None or result is True or isinstance(result, Status):
            return result
        if not isinstance(result, FilterResult) or bool(np.asarray(result.feasible)[0]):
            return None
        hit = [r for r in result.rejections if bool(np.asarray(r.nodes)[0])]
        code = max((r.code for r in hit), default=Code.UNSCHEDULABLE)
        return Status(code, tuple(r.reason for r in hit))

    return filter_node


def _one_node_score(hook: BoundHook) -> Callable[..., int]:
    def score_node(state: Any, pod: Any, node: NodeInfo, cluster: Any, handle: Any) -> int:
        view = cluster.table.view(np.array([node.row], dtype=np.int64))
        kwargs = {"state": state, "pod": pod, "nodes": view, "cluster": cluster, "handle": handle}
        return int(np.asarray(hook.call(kwargs))[0])

    return score_node


def per_node_framework(fw: Framework) -> Framework:
    """`fw` with its filter and score plugins called one node at a time."""
    points = dict(fw.points)
    points["filter"] = [
        BoundHook(h.plugin, filter_node_adapter(h.plugin, _one_node_filter(h), _PER_NODE_ARGS), _BATCH_ARGS, h.weight)
        for h in fw.points.get("filter", ())
    ]
    points["score"] = [
        BoundHook(h.plugin, score_node_adapter(_one_node_score(h), _PER_NODE_ARGS), _BATCH_ARGS, h.weight)
        for h in fw.points.get("score", ())
    ]
    naive = Framework(
        fw.profile, points, fw.normalizers, fw.unreservers, fw.plugins, fw.percentage_of_nodes_to_score,
        fw.generation_id + "-naive", fw.capabilities, feature_gates=fw.feature_gates, pre_flights=fw.pre_flights,
    )
    naive.extenders = fw.extenders
    return naive


def naive_generation(generation: Generation) -> Generation:
    """`generation` with every profile's filters and scores on the per-node path."""
    profiles = {name: per_node_framework(fw) for name, fw in generation.profiles.items()}
    return dataclasses.replace(generation, id=generation.id + "-naive", profiles=profiles)

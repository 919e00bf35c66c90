"""The scheduling cycle's calls to HTTP extenders (kube-scheduler's findNodesThatPassExtenders,
the extender half of prioritizeNodes, and extendersBinding in schedule_one.go).

Each call is a step of the decision record (point `ExtenderFilter`, `ExtenderPrioritize` or
`ExtenderBind`, the extender's URL prefix as the plugin), so it is a span in the trace and a line
in `explain`. A non-ignorable extender's failure is an Error for the pod; an ignorable one is
skipped, as in kube-scheduler.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from typing import Any

import numpy as np

from ..api.status import Code, Status
from ..api.types import MAX_NODE_SCORE
from ..cache.nodetable import NodeTable
from ..cache.podinfo import PodInfo
from ..runtime.extenders import EXTENDER_NAME, MAX_EXTENDER_PRIORITY, ExtenderError, HTTPExtender
from ..runtime.framework import PluginFailure
from ..runtime.records import CycleRecord, Diagnosis

log = logging.getLogger(__name__)

SCALE = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY  # fwk.MaxNodeScore / extenderv1.MaxExtenderPriority, integer


def _nodes_arg(ext: HTTPExtender, table: NodeTable, rows: np.ndarray) -> list[dict[str, Any]] | None:
    """Full Node objects for extenders that are not nodeCacheCapable (the slow path)."""
    if ext.node_cache_capable:
        return None
    return [table.raw[r] or {} for r in rows.tolist()]


def filter_with_extenders(
    extenders: tuple[HTTPExtender, ...],
    pod: PodInfo,
    table: NodeTable,
    rows: np.ndarray,
    diagnosis: Diagnosis | None,
    record: CycleRecord | None,
) -> np.ndarray:
    """Feasible rows after each interested filter extender in turn; rejections go to the diagnosis."""
    before = len(rows)
    for ext in extenders:
        if not len(rows):
            break
        if not ext.is_filter or not ext.is_interested(pod.raw):
            continue
        names = [table.names[r] or "" for r in rows.tolist()]
        t0 = time.time_ns()
        try:
            kept, failed, unresolvable = ext.filter(pod.raw, names, _nodes_arg(ext, table, rows))
        except ExtenderError as exc:
            if record is not None:
                record.step("ExtenderFilter", ext.name, t0, {"code": "ERROR", "nodes": len(rows), "error": str(exc)})
            if ext.ignorable:
                log.info("skipping extender %s as it returned error and has ignorable flag set: %s", ext.name, exc)
                continue
            raise PluginFailure(Status.error(str(exc), ext.name)) from None
        keep = set(kept)
        mask = np.fromiter((n in keep for n in names), dtype=bool, count=len(names))
        rejected = rows[~mask]
        if record is not None:
            record.step("ExtenderFilter", ext.name, t0, {"nodes": len(rows), "rejected": len(rejected)})
        _diagnose(ext, table, failed, unresolvable, diagnosis, record)
        rows = rows[mask]
    if diagnosis is not None and len(rows) != before:
        diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
    return rows


def _diagnose(
    ext: HTTPExtender,
    table: NodeTable,
    failed: dict[str, str],
    unresolvable: dict[str, str],
    diagnosis: Diagnosis | None,
    record: CycleRecord | None,
) -> None:
    """FailedNodes / FailedAndUnresolvableNodes into the FitError diagnosis (unresolvable wins)."""
    by_reason: dict[tuple[str, Code], list[int]] = {}
    for name, msg in unresolvable.items():
        if name in table.row_of:
            by_reason.setdefault((str(msg), Code.UNSCHEDULABLE_AND_UNRESOLVABLE), []).append(table.row_of[name])
    for name, msg in failed.items():
        if name in table.row_of and name not in unresolvable:
            by_reason.setdefault((str(msg), Code.UNSCHEDULABLE), []).append(table.row_of[name])
    for (reason, code), found in by_reason.items():
        if diagnosis is not None:
            diagnosis.add(ext.name, reason, np.asarray(found, dtype=np.int64), code)
        if record is not None:
            bucket = record.rejected.setdefault(ext.name, {})
            bucket[reason] = bucket.get(reason, 0) + len(found)


def start_prioritize(
    extenders: tuple[HTTPExtender, ...], pod: PodInfo, table: NodeTable, rows: np.ndarray
) -> list[tuple[HTTPExtender, Future[list[tuple[str, int]]], int]]:
    """Send every interested extender's prioritize request; they run while the score plugins do."""
    started = []
    names: list[str] | None = None
    for ext in extenders:
        if not ext.is_prioritizer or not ext.is_interested(pod.raw):
            continue  # a non-prioritizer gives every node 0 with weight 0
        if names is None:
            names = [table.names[r] or "" for r in rows.tolist()]
        started.append((ext, ext.start_prioritize(pod.raw, names, _nodes_arg(ext, table, rows)), time.time_ns()))
    return started


def add_extender_scores(
    started: list[tuple[HTTPExtender, Future[list[tuple[str, int]]], int]],
    table: NodeTable,
    rows: np.ndarray,
    total: np.ndarray,
    per_plugin: dict[str, np.ndarray],
    record: CycleRecord | None,
) -> None:
    """score × weight × (MaxNodeScore / MaxExtenderPriority) added to the plugin total; errors give no score."""
    position: dict[int, int] | None = None
    for ext, future, t0 in started:
        try:
            hosts = future.result()
        except Exception as exc:  # an ExtenderError, or a bug: either way this extender gives no score
            log.debug("extender %s prioritize failed, no score given by this extender: %s", ext.name, exc)
            if record is not None:
                record.step("ExtenderPrioritize", ext.name, t0, {"code": "ERROR", "error": str(exc), "weight": ext.weight})
            continue
        if position is None:
            position = {r: i for i, r in enumerate(rows.tolist())}
        scores = np.zeros(len(rows), dtype=np.int64)
        for host, score in hosts:
            row = table.row_of.get(host)
            i = position.get(row) if row is not None else None
            if i is not None:
                scores[i] += score * ext.weight * SCALE
        total += scores
        per_plugin[ext.name] = per_plugin[ext.name] + scores if ext.name in per_plugin else scores
        if record is not None:
            record.step("ExtenderPrioritize", ext.name, t0, {"weight": ext.weight, "nodes": len(hosts)})


def bind_with_extenders(extenders: tuple[HTTPExtender, ...], pod: PodInfo, node: str) -> tuple[str, Status] | None:
    """The first interested binder binds (an ignorable one that fails is skipped); None: no extender bound."""
    for ext in extenders:
        if not ext.is_binder or not ext.is_interested(pod.raw):
            continue
        try:
            ext.bind(pod.namespace, pod.name, pod.uid, node)
        except ExtenderError as exc:
            if ext.ignorable:
                log.info("skipping extender %s in bind as it returned error and has ignorable flag set: %s", ext.name, exc)
                continue
            return ext.name, Status.error(str(exc), ext.name)
        return ext.name, Status.success()
    return None


def preempt_with_extenders(
    extenders: tuple[HTTPExtender, ...],
    pod: PodInfo,
    victims: dict[str, tuple[list[PodInfo], int]],
    pods_on: Any,
) -> tuple[dict[str, tuple[list[PodInfo], int]], Status | None]:
    """kube-scheduler's Evaluator.callExtenders: each interested extender with a preemptVerb may
    drop candidate nodes or change their victims; `pods_on(node)` maps a node to {uid: PodInfo}."""
    for ext in extenders:
        if not victims:
            break
        if not ext.supports_preemption or not ext.is_interested(pod.raw):
            continue
        try:
            answer = ext.process_preemption(pod.raw, {n: ([v.raw for v in vs], k) for n, (vs, k) in victims.items()})
            result: dict[str, tuple[list[PodInfo], int]] = {}
            for node, (uids, violations) in answer.items():
                known = pods_on(node)
                if known is None:
                    raise ExtenderError(f"node {node!r} not found")
                chosen = []
                for uid in uids:
                    if uid not in known:
                        raise ExtenderError(
                            f"extender: {ext.name} claims to preempt pod (UID: {uid}) on node: {node}, "
                            "but the pod is not found on that node"
                        )
                    chosen.append(known[uid])
                result[node] = (chosen, violations)
        except ExtenderError as exc:
            if ext.ignorable:
                log.info("skipped extender %s as it returned error and has ignorable flag set: %s", ext.name, exc)
                continue
            return {}, Status.error(str(exc), ext.name)
        for node in list(result):
            if not result[node][0]:
                if ext.ignorable:
                    del result[node]
                    continue
                return {}, Status.error(f'expected at least one victim pod on node "{node}"', ext.name)
        victims = result
    return victims, None

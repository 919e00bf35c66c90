"""Incremental full cycles (kubeberth, beyond kube-scheduler): on and off make the same decision
for every pod, over a stream that spreads, samples (over 100 nodes), changes nodes mid-way and
mixes pod shapes that can and cannot be served incrementally."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth import ScoreScope, hookimpl
from kubeberth.testing import SchedulerTester, make_node, make_pod

NO_DEFAULT_SPREAD = {"PodTopologySpread": {"defaultingType": "List", "defaultConstraints": []}}


def nodes(n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        cpu, mem = [("4", "16Gi"), ("8", "32Gi"), ("2", "8Gi")][i % 3]  # 2 or 3 pods each: nodes fill up
        taints = ["dedicated=gpu:NoSchedule"] if i % 17 == 5 else None
        soft = ["maintenance=soon:PreferNoSchedule"] if i % 23 == 2 else None
        out.append(make_node(
            f"n{i:04d}", cpu, mem, 2 + i % 2, labels={"topology.kubernetes.io/zone": f"z{i % 3}", "disk": "ssd" if i % 5 == 0 else "hdd"},
            taints=(taints or []) + (soft or []) or None, images={f"img-{i % 4}:1": 500 * 1024 * 1024},
        ))
    return out


def stream(seed: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    shapes: list[dict[str, Any]] = [
        {"cpu": "100m", "memory": "256Mi", "labels": {"app": "basic"}},
        {"cpu": "500m", "memory": "1Gi", "labels": {"app": "web"}, "image": "img-1:1"},
        {"cpu": "250m", "memory": "512Mi", "labels": {"app": "ssd"}, "nodeSelector": {"disk": "ssd"}},
        {"cpu": "1", "memory": "1Gi", "labels": {"app": "gpu"}, "tolerations": ["dedicated=gpu:NoSchedule"]},
        {"cpu": "200m", "memory": "256Mi", "labels": {"app": "spread"}, "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "spread"}}}]},
        {"cpu": "300m", "memory": "300Mi", "labels": {"app": "pref"}, "affinity": {"nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {
                "matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}},
        {"cpu": "64", "memory": "1Gi", "labels": {"app": "huge"}},  # fits nowhere
    ]
    pods = []
    for r in range(40):
        shape = dict(shapes[0] if r % 3 == 0 else shapes[int(rng.integers(len(shapes)))])
        for k in range(int(rng.integers(1, 15))):
            spec = dict(shape)
            pods.append(make_pod(f"p{r:03d}-{k:02d}", spec.pop("cpu"), spec.pop("memory"), **spec))
    return pods


def run(incremental: bool, batching: bool, args: dict[str, Any] | None, seed: int = 11) -> tuple[list[tuple[Any, ...]], int]:
    cluster = nodes(150)
    with SchedulerTester(default_plugins=True, args=args, objects=cluster, seed=seed) as t:
        t.scheduler.incremental = incremental
        t.scheduler.batching = batching
        pods = stream(seed)
        for obj in pods:
            t.add(obj)
        t.sync()
        decisions: list[tuple[Any, ...]] = []
        steps = 0
        while t.scheduler.step():
            rec = t.scheduler.records[-1]
            decisions.append((rec.pod, rec.node, rec.score_ties, rec.top_scores))
            steps += 1
            if steps == 60:  # a node gets a new label (table structure changes)
                relabeled = dict(cluster[7])
                relabeled["metadata"] = {**cluster[7]["metadata"], "labels": {**cluster[7]["metadata"]["labels"], "disk": "ssd"}}
                t.add(relabeled)
            if steps == 120:  # a node leaves, another joins
                t.delete("Node", "n0010")
                t.add(make_node("late", "16", "64Gi", labels={"topology.kubernetes.io/zone": "z1", "disk": "ssd"}))
            if steps == 180:  # a bound pod goes away (its node's row changes)
                victim = next(iter(t.scheduler.cluster.placement))
                key = t.scheduler.cluster.pods[victim].key
                t.delete("Pod", key)
        reused = sum(inc.reused for inc in t.scheduler._incremental.values())
        return decisions, reused


@pytest.mark.parametrize(
    ("batching", "args"),
    [(False, None), (True, NO_DEFAULT_SPREAD)],
    ids=["default profile (never batched upstream)", "batching on, signable pods"],
)
def test_incremental_cycles_decide_exactly_as_full_cycles(batching: bool, args: dict[str, Any] | None) -> None:
    off, reused_off = run(False, batching, args)
    on, reused_on = run(True, batching, args)
    assert reused_off == 0 and reused_on > len(on) // 8
    assert len(on) == len(off)
    for i, (a, b) in enumerate(zip(on, off, strict=True)):
        assert a == b, f"decision {i} differs: incremental {a}, full {b}"
    assert any(node is None for _, node, _, _ in on)  # the stream also has pods that fit nowhere
    assert sum(bool(top) for *_, top in on) >= 40  # the records' top scores were compared too


def test_built_in_scorers_declare_node_scope_only_where_it_holds() -> None:
    with SchedulerTester(default_plugins=True, start=False) as t:
        scopes = {name: t.framework.capabilities_of(name).score_scope for name in t.framework.enabled("score")}
    expected = {
        "TaintToleration": ScoreScope.NODE,
        "NodeAffinity": ScoreScope.NODE,
        "NodeResourcesFit": ScoreScope.NODE,
        "NodeResourcesBalancedAllocation": ScoreScope.NODE,
        "ImageLocality": ScoreScope.NODE,
        "PodTopologySpread": ScoreScope.CLUSTER,
        "InterPodAffinity": ScoreScope.CLUSTER,
        "DynamicResources": ScoreScope.CLUSTER,  # skipped (PreScore) for pods without claims
        "VolumeBinding": ScoreScope.CLUSTER,  # skipped (PreScore) for pods without claims to bind
    }
    assert scopes == expected


class OneBadNode:
    """A node-scoped scorer out of range on one node only: an error only in cycles that sample it."""

    name = "OneBadNode"
    score_scope = ScoreScope.NODE

    @hookimpl
    def score(self, nodes: Any) -> np.ndarray:
        return np.where(np.asarray(nodes.names) == "n0120", 101, 40)


def outcomes(incremental: bool) -> list[tuple[str, str | None, str]]:
    with SchedulerTester([("OneBadNode", 2)], default_plugins=True, register=(OneBadNode,), objects=nodes(150),
                         max_errors_per_pod=1) as t:
        t.scheduler.incremental = incremental
        for i in range(60):
            t.add(make_pod(f"p{i:02d}", "100m", "128Mi", labels={"app": "basic"}))
        t.sync()
        while t.scheduler.step():
            pass
        return [(rec.pod, rec.node, rec.message if rec.result == "Error" else "") for rec in t.scheduler.records]


def test_an_out_of_range_cached_score_fails_the_cycles_that_sample_it_as_full_cycles_do() -> None:
    on, off = outcomes(True), outcomes(False)
    assert on == off
    failed = [message for _, _, message in on if message]
    assert failed and all('plugin "OneBadNode" returns an invalid score 101' in m for m in failed)
    assert len(failed) < len(on)  # the windows without the bad node place their pods

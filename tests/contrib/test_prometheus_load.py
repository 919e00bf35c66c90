"""Load-aware plugins against a real Prometheus scraping exporters whose load the test controls.

Asserts that the provider's few vector queries per refresh follow the exported load (mapped to
nodes through their InternalIP), that placements by the embedded scheduler move away from hot
nodes and come back when a node cools, that a hung Prometheus degrades the plugins without
stalling a cycle, and that garbage series are handled.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np
import pytest
from kubeberth.api.metrics import REGISTRY
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.cache.cluster import ClusterState
from kubeberth.contrib.cpu_usage_score import CPUUsageScore
from kubeberth.contrib.interference_score import InterferenceScore
from kubeberth.contrib.load_variation_risk_balancing import LoadVariationRiskBalancing
from kubeberth.contrib.metrics_sources import MetricsSourceArgs
from kubeberth.contrib.node_metrics import NodeLoad
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.scheduler import Scheduler
from prom_harness import wait_until

pytestmark = pytest.mark.timeout(180)


def pod(name: str, cpu: str = "100m") -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]},
        "status": {"phase": "Pending"},
    }


def cluster_state(pc: Any, count: int) -> ClusterState:
    cluster = ClusterState()
    for i in range(count):
        cluster.upsert_node(pc.node(i))
    return cluster


def all_rows(cluster: ClusterState) -> Any:
    return cluster.table.view(np.asarray([cluster.table.row_of[n] for n in sorted(cluster.table.row_of)]))


def query_count(pc: Any) -> float:
    out = pc.prometheus.query('sum(prometheus_http_requests_total{handler="/api/v1/query"})')
    return float(out[0]["value"][1]) if out else 0.0


def test_scores_follow_exported_load_with_few_queries(prom_cluster: Any) -> None:
    pc = prom_cluster(count=4, exporters=3, duplicate=True)  # node-3 has no exporter; node-0 scraped twice
    for exporter, (cpu, psi) in zip(pc.exporters, ((0.9, 0.2), (0.5, 0.05), (0.1, 0.0)), strict=True):
        exporter.set(cpu=cpu, cpu_psi=psi)
    cluster = cluster_state(pc, 4)
    nodes = all_rows(cluster)
    scorer = CPUUsageScore(CPUUsageScore.Args(metrics=pc.metrics_args()))
    try:
        def settled() -> Any:
            cols = scorer.load.columns(nodes)
            if cols is None or np.isnan(cols["cpu"][:3]).any():
                return None
            cpu = cols["cpu"]
            return cpu if (np.abs(cpu[:3] - [0.9, 0.5, 0.1]) < 0.05).all() else None

        cpu = wait_until(settled, 30, what="CPU utilisation from Prometheus")
        assert math.isnan(cpu[3])  # no exporter: missing, not zero
        scores = scorer.score(nodes=nodes)
        assert abs(scores[0] - 10) <= 5 and abs(scores[1] - 50) <= 5 and abs(scores[2] - 90) <= 5
        assert scores[3] == 50  # neutral for the node without metrics

        # The load changes: scores follow within a few refreshes.
        pc.exporters[0].set(cpu=0.2)
        pc.exporters[2].set(cpu=0.8)
        wait_until(lambda: (s := scorer.score(nodes=nodes))[0] > s[2], 30, what="scores to follow the new load")

        # Queries per refresh do not depend on pods or nodes: score 300 pods, count API queries.
        provider = scorer.load.provider
        before_q, before_f = query_count(pc), provider.stats.fetches
        for _ in range(300):
            scorer.score(nodes=nodes)
        time.sleep(2.0)
        queries = query_count(pc) - before_q - 1  # minus our own counting query
        refreshes = provider.stats.fetches - before_f
        assert refreshes >= 1
        assert queries <= (refreshes + 1) * len(provider.metrics), (queries, refreshes, provider.metrics)
    finally:
        scorer.close()


def test_garbage_series_are_handled(prom_cluster: Any) -> None:
    pc = prom_cluster(count=3)
    pc.exporters[0].set(cpu=0.5, raw_memory_available=float("nan"))
    pc.exporters[1].set(cpu=0.5, raw_memory_available=-5.0)  # more than the total used: clipped to 1
    pc.exporters[2].set(cpu=0.5, raw_memory_available=3 * 32 * 2**30)  # negative use: dropped
    cluster = cluster_state(pc, 3)
    nodes = all_rows(cluster)
    lvrb = LoadVariationRiskBalancing(LoadVariationRiskBalancing.Args(metrics=pc.metrics_args()))
    psi = InterferenceScore(InterferenceScore.Args(metrics=pc.metrics_args()))
    try:
        cols = wait_until(
            lambda: (c := lvrb.load.columns(nodes)) is not None and (np.abs(c["cpu"] - 0.5) < 0.05).all() and c, 30,
            what="CPU values",
        )
        mem = cols["memory"]
        assert math.isnan(mem[0]) and mem[1] == 1.0 and math.isnan(mem[2])
        before = cols["cpu"][0]
        pc.exporters[0].reset()  # counter reset: rate() must not turn it into a spike or a negative
        time.sleep(2.5)
        for _ in range(10):
            c = lvrb.load.columns(nodes)["cpu"]
            assert 0.0 <= c[0] <= 1.0 and abs(c[0] - before) < 0.25
            time.sleep(0.3)
        scores = lvrb.score(pod=_podinfo("p"), nodes=nodes)
        assert ((scores >= 0) & (scores <= 100)).all()
        assert ((psi.score(nodes=nodes) >= 0) & (psi.score(nodes=nodes) <= 100)).all()
    finally:
        lvrb.close()
        psi.close()


def _podinfo(name: str) -> Any:
    from kubeberth.cache.podinfo import PodInfo

    return PodInfo.from_dict(pod(name))


QUERY_TIMEOUT_SECONDS = 1.0  # the harness's metrics `timeout`


def load_aware_generation(pc: Any, degraded: str = "pass") -> Any:
    metrics = pc.metrics_args()
    config = parse_configuration({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{
            "schedulerName": "default-scheduler",
            "plugins": {"multiPoint": {"enabled": [{"name": "LoadThreshold"}, {"name": "CPUUsageScore", "weight": 10}]}},
            "pluginConfig": [
                {"name": "LoadThreshold", "args": {"metrics": metrics, "decay": 0.0, "maxAllowedLoadRatio": 0.7,
                                                  "cpuWeight": 1.0, "memoryWeight": 0.0, "degraded": degraded}},
                {"name": "CPUUsageScore", "args": {"metrics": metrics}},
            ],
        }],
    })
    return build_generation(config=config)


def run_scheduler(generation: Any, objects: list[dict[str, Any]]) -> tuple[Scheduler, EmbeddedCluster]:
    backend = EmbeddedCluster(objects)
    scheduler = Scheduler(generation, backend, seed=1, binding_workers=2)
    scheduler.start_backend()
    scheduler.drain_events()
    return scheduler, backend


def placements(backend: EmbeddedCluster) -> dict[str, str]:
    return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in backend.pods()}


def settle(scheduler: Scheduler, seconds: float = 0.0) -> list[float]:
    """Run the loop; returns each cycle's wall time."""
    cycles: list[float] = []
    deadline = time.monotonic() + seconds
    while True:
        t0 = time.perf_counter()
        ran = scheduler.step()
        if ran:
            cycles.append(time.perf_counter() - t0)
            continue
        if scheduler.in_flight:
            scheduler.drain_events(block_for=0.02)
            continue
        if time.monotonic() >= deadline:
            return cycles
        scheduler.drain_events(block_for=0.05)


def test_placements_avoid_hot_nodes_and_return_when_load_drops(prom_cluster: Any) -> None:
    pc = prom_cluster(count=3)
    for exporter, cpu in zip(pc.exporters, (0.95, 0.6, 0.1), strict=True):
        exporter.set(cpu=cpu)
    generation = load_aware_generation(pc)
    fw = generation.default_profile
    probe = NodeLoad(MetricsSourceArgs(**pc.metrics_args()), {"cpu"})
    cluster = cluster_state(pc, 3)
    try:
        wait_until(lambda: (c := probe.columns(all_rows(cluster))) is not None and not np.isnan(c["cpu"]).any()
                   and c["cpu"][0] > 0.9, 30, what="load in Prometheus")
        scheduler, backend = run_scheduler(generation, [pc.node(i) for i in range(3)] + [pod(f"a{j}") for j in range(12)])
        # Prime the plugins' shared provider (it starts on first use) before judging placements.
        fw.plugins["CPUUsageScore"].load.ensure_started()
        wait_until(lambda: fw.plugins["CPUUsageScore"].load.usable(), 10, what="plugin metrics")
        settle(scheduler)
        where = placements(backend)
        assert all(n is not None for n in where.values()), where
        per_node = {n: sum(1 for v in where.values() if v == n) for n in pc.names}
        assert per_node["node-0"] == 0  # over maxAllowedLoadRatio: filtered
        assert per_node["node-2"] > per_node["node-1"]  # cooler scores higher

        # Everything hot: new pods are unschedulable with the plugin's reason...
        pc.exporters[1].set(cpu=0.95)
        pc.exporters[2].set(cpu=0.95)
        wait_until(lambda: (c := probe.columns(all_rows(cluster))) is not None and (c["cpu"] > 0.8).all(), 30,
                   what="all nodes hot")
        time.sleep(1.0)
        for j in range(3):
            backend.apply(pod(f"b{j}"))
        settle(scheduler, 1.0)
        entries = [e for e in scheduler.queue.entries.values() if e.pod.name.startswith("b")]
        assert len(entries) == 3 and all(e.where == "unschedulable" for e in entries)
        assert "node(s) overloaded" in entries[0].last_message
        # ...and are retried as soon as a node cools (no 30 s flush, no 5 min timeout).
        pc.exporters[2].set(cpu=0.1)
        t0 = time.monotonic()
        wait_until(lambda: (settle(scheduler, 0.2) or True) and all(placements(backend)[f"b{j}"] for j in range(3)),
                   30, what="requeued pods to be placed")
        assert time.monotonic() - t0 < 20
        assert {placements(backend)[f"b{j}"] for j in range(3)} == {"node-2"}
    finally:
        probe.close()
        scheduler.shutdown()
        for p in fw.plugins.values():
            getattr(p, "close", lambda: None)()


def test_hung_prometheus_degrades_without_stalling_cycles(prom_cluster: Any, caplog: Any) -> None:
    pc = prom_cluster(count=3)
    for exporter, cpu in zip(pc.exporters, (0.95, 0.5, 0.1), strict=True):
        exporter.set(cpu=cpu)
    generation = load_aware_generation(pc)
    fw = generation.default_profile
    scheduler, backend = run_scheduler(generation, [pc.node(i) for i in range(3)] + [pod("warm")])
    scorer = fw.plugins["CPUUsageScore"]
    try:
        scorer.load.ensure_started()
        wait_until(lambda: (c := scorer.load.snapshot().values.get("cpu")) and len(c) == 3, 30, what="metrics")
        settle(scheduler)
        healthy_cycles = []
        for j in range(20):
            backend.apply(pod(f"h{j}", "10m"))
            healthy_cycles += settle(scheduler)
        caplog.set_level(logging.WARNING, logger="kubeberth.contrib.node_metrics")
        pc.prometheus.pause()  # connections accepted by the kernel, never answered: every query times out
        paused_at = time.monotonic()
        hung_cycles = []
        j = 0
        while time.monotonic() - paused_at < 6.0:  # past ttl (3 s): the source is stale by now
            backend.apply(pod(f"x{j}", "10m"))
            j += 1
            hung_cycles += settle(scheduler)
            time.sleep(0.05)
        print(f"\nCYCLES healthy n={len(healthy_cycles)} max={max(healthy_cycles)*1e3:.2f}ms hung n={len(hung_cycles)} max={max(hung_cycles)*1e3:.2f}ms median={sorted(hung_cycles)[len(hung_cycles)//2]*1e3:.2f}ms")
        assert len(hung_cycles) >= 20
        # A cycle never waits on Prometheus: latency while it hangs is like before.
        # A cycle that waited on a query would take at least the query timeout (1 s); none comes near it,
        # whatever else the machine is doing.
        assert max(hung_cycles) < 0.5 * QUERY_TIMEOUT_SECONDS, (max(hung_cycles), max(healthy_cycles))
        assert not scorer.load.usable()
        cluster = cluster_state(pc, 3)
        assert (scorer.score(nodes=all_rows(cluster)) == 50).all()  # neutral
        # LoadThreshold fails open (degraded: pass): the hot node is no longer filtered.
        assert fw.plugins["LoadThreshold"].filter(pod=_podinfo("z"), nodes=all_rows(cluster), handle=None) is None
        assert sum(1 for p in backend.pods() if p["spec"].get("nodeName")) == len(backend.pods())
        up = REGISTRY.get_sample_value("kubeberth_node_metrics_up", {"source": f"prometheus {pc.prometheus.url}"})
        assert up == 0.0
        _, _, body = SchedulerMetrics().exposition()  # served on the scheduler's /metrics
        assert f'kubeberth_node_metrics_up{{source="prometheus {pc.prometheus.url}"}} 0.0' in body.decode()
        warnings = [r for r in caplog.records if "unavailable" in r.getMessage()]
        assert 1 <= len(warnings) <= 2, [r.getMessage() for r in warnings]  # rate-limited
        pc.prometheus.resume()
        wait_until(lambda: scorer.load.usable(), 30, what="recovery")
    finally:
        pc.prometheus.resume()
        scheduler.shutdown()
        for p in fw.plugins.values():
            getattr(p, "close", lambda: None)()

"""The shared node metrics provider: sharing and hand-over, series → node mapping, garbage,
staleness, and the metrics.k8s.io source's window statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kubeberth.cache.cluster import ClusterState
from kubeberth.contrib import node_metrics
from kubeberth.contrib.cpu_usage_score import CPUUsageScore
from kubeberth.contrib.metrics_sources import (
    MetricsAPISource,
    MetricsSourceArgs,
    PrometheusSource,
    clean,
    load_snapshot,
)
from kubeberth.contrib.node_metrics import NodeLoad, align, row_keys

DEAD = {"address": "http://127.0.0.1:9", "timeout": 0.2, "interval": 0.2}  # nothing listens on port 9


def test_equal_blocks_share_one_provider_and_reload_hands_it_over() -> None:
    old = CPUUsageScore(CPUUsageScore.Args(metrics=DEAD))
    old.load.ensure_started()
    provider = old.load.provider
    assert provider.refs == 1
    new = CPUUsageScore(CPUUsageScore.Args(metrics=DEAD))
    new.handoff(old)
    assert new.load.provider is provider and provider.refs == 1  # taken over, not restarted
    assert provider._thread is not None and provider._thread.is_alive()
    other = CPUUsageScore(CPUUsageScore.Args(metrics={**DEAD, "window": "10m"}))
    assert other.load.provider is not provider  # a different block: its own refresher
    other.close()
    new.close()
    assert provider.refs == 0 and provider not in node_metrics.live_providers()
    provider._thread.join(2)
    assert not provider._thread.is_alive()


def test_garbage_values() -> None:
    assert [clean(v) for v in ("0.5", "NaN", "+Inf", "-1", None, "x", 2)] == [0.5, None, None, None, None, None, 2.0]


def test_series_label_mapping() -> None:
    source = PrometheusSource(MetricsSourceArgs(nodeLabel="instance"))
    assert source.node_key({"instance": "10.0.0.5:9100"}) == "10.0.0.5"
    assert source.node_key({"instance": "node-a"}) == "node-a"
    assert source.node_key({"job": "x"}) is None
    custom = PrometheusSource(MetricsSourceArgs(nodeLabel="pod", nodeRegex=r"node-exporter-(.+)"))
    assert custom.node_key({"pod": "node-exporter-worker-3"}) == "worker-3"
    assert custom.node_key({"pod": "grafana-0"}) is None


def test_alignment_by_name_ip_hostname_and_duplicates() -> None:
    cluster = ClusterState()
    cluster.upsert_node({"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"},
                         "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}})
    cluster.upsert_node({"metadata": {"name": "b", "labels": {"kubernetes.io/hostname": "b.local"}},
                         "status": {"allocatable": {"cpu": "2", "memory": "8Gi"}}})
    t = cluster.table
    keys = row_keys(t)
    assert keys["a"] == keys["10.0.0.1"] and keys["b"] == keys["b.local"]
    cols = align(t, {"cpu": {"10.0.0.1": 0.3, "a": 0.5, "b.local": 0.2, "ghost": 0.9}}, {"cpu", "memory"})
    assert cols["cpu"][keys["a"]] == 0.5  # two series for one node: the higher
    assert cols["cpu"][keys["b"]] == 0.2
    assert np.isnan(cols["memory"]).all()
    # metrics.k8s.io absolute usage becomes a fraction of allocatable
    cols = align(t, {"cpu_cores": {"a": 1.0, "b": 3.0}}, {"cpu"})
    assert cols["cpu"][keys["a"]] == 0.25 and cols["cpu"][keys["b"]] == 1.0


def test_metrics_api_mean_and_stddev_over_the_window() -> None:
    source = MetricsAPISource(MetricsSourceArgs(type="metrics-k8s-io", window="60s"))
    body = lambda cpu, mem: {"kind": "NodeMetricsList", "items": [  # noqa: E731
        {"metadata": {"name": "a"}, "usage": {"cpu": cpu, "memory": mem}},
        {"metadata": {"name": "bad"}, "usage": {"cpu": "x"}},
    ]}
    source.ingest(body("1", "1Gi"), 0.0)
    source.ingest(body("3000m", "3Gi"), 10.0)
    out = source.ingest(body("2", "2Gi"), 20.0)
    assert out["cpu_cores"]["a"] == 2.0 and math.isclose(out["cpu_cores_stddev"]["a"], math.sqrt(2 / 3))
    assert out["memory_bytes"]["a"] == 2 * 2**30 and "bad" not in out["cpu_cores"]
    out = source.ingest(body("2", "2Gi"), 75.0)  # samples older than the window are dropped
    assert out["cpu_cores"]["a"] == 2.0 and out["cpu_cores_stddev"]["a"] == 0.0


def test_values_expire_after_ttl_when_the_source_fails() -> None:
    load = NodeLoad(MetricsSourceArgs(**{**DEAD, "ttl": 0.5}), {"cpu"})
    provider = load.provider
    try:
        provider._seen = {"cpu": {"a": (0.5, 0.0)}}  # fetched long ago
        snap = provider.refresh()
        assert not snap.healthy and snap.values["cpu"] == {} and not load.usable()
        assert "ConnectionError" in snap.error
    finally:
        load.close()


def test_snapshot_file_errors(tmp_path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text("nodes: [1, 2]\n")
    with pytest.raises(ValueError, match="expected a mapping of node name"):
        load_snapshot(p)
    p.write_text("nodes:\n  a: {cpu: -1}\n")
    with pytest.raises(ValueError, match=r"a\.cpu: -1 is not a non-negative number"):
        load_snapshot(p)


def test_a_dropped_generation_stops_its_refresher() -> None:
    """A plugin that is garbage-collected with its generation releases the provider, even when it
    listens to refreshes (listeners are weak)."""
    import gc

    from kubeberth.contrib.load_threshold import LoadThreshold

    plugin = LoadThreshold(LoadThreshold.Args(metrics=DEAD))
    plugin.load.subscribe(plugin.on_refresh)
    provider = plugin.load.provider
    assert not provider.stopped
    del plugin
    gc.collect()
    assert provider.stopped and provider not in node_metrics.live_providers()


def test_shutdown_all_then_reuse_takes_a_fresh_provider() -> None:
    plugin = CPUUsageScore(CPUUsageScore.Args(metrics=DEAD))
    first = plugin.load.provider
    node_metrics.shutdown_all()
    assert first.stopped
    second = plugin.load.provider
    assert second is not first and not second.stopped
    plugin.close()

"""Fixtures for the contrib plugins: a real Prometheus (Debian's package) on loopback.

`KUBEBERTH_SKIP_PROMETHEUS=1` skips the tests that need it for a quick local loop; CI runs them
(.ci/run provisions the package first, and the fixture provisions it too if it is missing).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubeberth.contrib import node_metrics
from prom_harness import FakeNodeExporter, PrometheusServer, find_prometheus, provision_prometheus


@pytest.fixture(autouse=True)
def _no_refresher_outlives_its_test() -> Iterator[None]:
    """Plugins built by a test start refreshers; stop them so none polls a server that is gone."""
    yield
    node_metrics.shutdown_all()


@pytest.fixture(scope="session")
def prometheus_binary() -> str:
    if os.environ.get("KUBEBERTH_SKIP_PROMETHEUS"):
        pytest.skip("KUBEBERTH_SKIP_PROMETHEUS is set")
    return find_prometheus() or provision_prometheus()


class PromCluster:
    """Simulated nodes (name, InternalIP, exporter) and the Prometheus scraping them."""

    def __init__(self, binary: str, workdir: Path, count: int, exporters: int | None = None,
                 duplicate: bool = False) -> None:
        self.ips = [f"127.0.0.{10 + i}" for i in range(count)]
        self.names = [f"node-{i}" for i in range(count)]
        with_exporter = count if exporters is None else exporters
        self.exporters = [FakeNodeExporter(ip) for ip in self.ips[:with_exporter]]
        targets = [f"{e.ip}:{e.port}" for e in self.exporters]
        self.prometheus = PrometheusServer(binary, workdir, targets, duplicate=targets[:1] if duplicate else [])
        self.prometheus.start()

    def node(self, i: int, cpu: str = "2", memory: str = "32Gi") -> dict:
        return {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": self.names[i], "labels": {"kubernetes.io/hostname": self.names[i]}},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                       "addresses": [{"type": "InternalIP", "address": self.ips[i]}]},
        }

    def metrics_args(self, **extra: object) -> dict:
        return {"address": self.prometheus.url, "interval": 0.5, "timeout": 1, "window": "4s",
                "rateWindow": "3s", "step": "1s", "ttl": 3, **extra}

    def close(self) -> None:
        self.prometheus.stop()
        for e in self.exporters:
            e.stop()


@pytest.fixture
def prom_cluster(prometheus_binary: str, tmp_path: Path) -> Iterator[object]:
    made: list[PromCluster] = []

    def make(count: int = 3, exporters: int | None = None, duplicate: bool = False) -> PromCluster:
        c = PromCluster(prometheus_binary, tmp_path / f"p{len(made)}", count, exporters, duplicate)
        made.append(c)
        return c

    (tmp_path / "p0").mkdir()
    for i in range(1, 4):
        (tmp_path / f"p{i}").mkdir()
    yield make
    for c in made:
        c.close()

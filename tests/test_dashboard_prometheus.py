"""The Grafana dashboards' queries on a real Prometheus scraping a running `kubeberth run --embedded`:
kubeberth's own and the community kube-scheduler dashboard (kubernetes-mixin).

Every panel and variable query of config/grafana/kubeberth-scheduler.json is sent to Prometheus'
query API with Grafana's variables filled in: each must be valid PromQL, and the panels a
kube-scheduler operator looks at first must show data. `KUBEBERTH_SKIP_PROMETHEUS=1` skips it
for a quick local loop (as the contrib Prometheus tests); CI runs it.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "contrib"))
from prom_harness import PrometheusServer, find_prometheus, provision_prometheus  # noqa: E402

sys.path.insert(0, str(REPO / "tests"))
import community_dashboard  # noqa: E402

DASHBOARD = REPO / "config" / "grafana" / "kubeberth-scheduler.json"
GRAFANA_VARIABLES = {
    "$__rate_interval": "20s",
    "$__range": "5m",
    "$job": ".*",
    "$profile": ".*",
    "$extension_point": ".*",
}
MUST_SHOW_DATA = {
    "Scheduled / s",
    "Pending pods",
    "Generation",
    "Schedule attempts by result",
    "Pending pods by queue",
    "Scheduling attempt duration",
    "Pod scheduling SLI (queue to bound)",
    "Queue incoming pods",
    "Extension point duration p99",
    "Scheduling algorithm duration",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fill(expr: str) -> str:
    for name, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    """Prometheus scraping `kubeberth run --embedded` under a steady load."""
    if os.environ.get("KUBEBERTH_SKIP_PROMETHEUS"):
        pytest.skip("KUBEBERTH_SKIP_PROMETHEUS is set")
    binary = find_prometheus() or provision_prometheus()
    tmp = tmp_path_factory.mktemp("dashboard")
    port = _free_port()
    log = open(tmp / "kubeberth.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubeberth", "run", "--embedded", "--nodes=20", "--pods-per-second=40",
         "--pod-lifetime=2", "--seed=1", f"--healthz-bind-address=127.0.0.1:{port}"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    # Scraped as the kubernetes-mixin expects a kube-scheduler: job="kube-scheduler", with a cluster label.
    server = PrometheusServer(binary, tmp, [f"127.0.0.1:{port}"], job=community_dashboard.JOB,
                              labels={"cluster": community_dashboard.CLUSTER})
    try:
        server.start()
        deadline = time.monotonic() + 60
        while not server.query('rate(scheduler_schedule_attempts_total{result="scheduled"}[20s]) > 0'):
            assert proc.poll() is None, (tmp / "kubeberth.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "no scheduling rate in Prometheus after 60s"
            time.sleep(0.5)
        yield server
    finally:
        server.stop()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _queries() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    out = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p.get("targets", ())]
    for var in dashboard["templating"]["list"]:
        query = var.get("query")
        if isinstance(query, dict):  # Grafana's label_values(metric, label) -> the PromQL it runs
            m = re.fullmatch(r"label_values\((.+), *([a-z_]+)\)", query["query"])
            assert m, query
            out.append((f"variable {var['name']}", f"count by ({m.group(2)}) ({m.group(1)})"))
    return out


def test_every_dashboard_query_is_valid_promql_and_the_main_panels_show_data(prometheus: PrometheusServer) -> None:
    empty = []
    for title, expr in _queries():
        result = prometheus.query(_fill(expr))  # raises on invalid PromQL (HTTP 400)
        if not result:
            empty.append(title)
    assert not (set(empty) & MUST_SHOW_DATA), f"panels without data: {sorted(set(empty) & MUST_SHOW_DATA)}"
    assert not [t for t in empty if t.startswith("variable ") and t != "variable extension_point"], empty


def test_kube_scheduler_style_queries_see_kubeberth(prometheus: PrometheusServer) -> None:
    """What kube-scheduler's own dashboards and alerts ask, answered by kubeberth's series."""
    by_result = {
        r["metric"]["result"]: float(r["value"][1])
        for r in prometheus.query("sum by (result) (scheduler_schedule_attempts_total)")
    }
    assert by_result["scheduled"] > 0
    queues = {r["metric"]["queue"] for r in prometheus.query("scheduler_pending_pods")}
    assert queues == {"active", "backoff", "unschedulable", "gated"}
    p99: Any = prometheus.query(
        "histogram_quantile(0.99, sum by (le) (rate(scheduler_scheduling_attempt_duration_seconds_bucket[20s])))"
    )
    assert p99 and 0 < float(p99[0]["value"][1]) < 16.384  # within kube-scheduler's buckets
    points = {r["metric"]["extension_point"] for r in prometheus.query(
        "sum by (extension_point) (scheduler_framework_extension_point_duration_seconds_count)")}
    assert {"PreFilter", "Filter", "Score", "Reserve", "Permit", "Bind"} <= points


def test_the_community_kube_scheduler_dashboard_shows_kubeberth(prometheus: PrometheusServer) -> None:
    """kubernetes-mixin's scheduler dashboard, its variables filled the way Grafana fills them: every
    target is valid PromQL and shows data, except the few community_dashboard.NO_DATA names with
    their reason. The rest_client_* panels need an API server (`run --embedded` has none):
    tests/e2e/test_community_dashboard_e2e.py checks them against kube-apiserver."""
    empty = community_dashboard.empty_targets(prometheus, skip_series=("rest_client_",))
    assert not empty, f"targets without data: {empty}"
    values = community_dashboard.variables(prometheus, community_dashboard.load())
    assert values["$cluster"] == community_dashboard.CLUSTER and values["$instance"] == ".+"

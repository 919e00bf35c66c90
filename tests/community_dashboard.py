"""The community kube-scheduler dashboard (its queries: tests/fixtures/kubernetes-mixin-scheduler-queries.json) asked the
way Grafana asks it: its template variables resolved from Prometheus with the mixin's own
variable queries, then every panel target sent to Prometheus' query API.

Used by tests/test_dashboard_prometheus.py (`run --embedded`) and
tests/e2e/test_community_dashboard_e2e.py (`run` against kube-apiserver).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Protocol

DASHBOARD = Path(__file__).resolve().parent / "fixtures" / "kubernetes-mixin-scheduler-queries.json"
JOB = "kube-scheduler"  # the mixin's kubeSchedulerSelector: job="kube-scheduler"
CLUSTER = "kubeberth-test"  # a `cluster` label on the scrape target, as multi-cluster setups have
# Grafana's $__rate_interval for the panels' 1m minimum interval and a 1 s scrape: 1m + 1s.
RATE_INTERVAL = "61s"

# Targets that cannot show data from kubeberth, and why. Each is a (panel title, series) pair.
NO_DATA: dict[tuple[str, str], str] = {
    ("Goroutines", "go_goroutines"): "a Go runtime series: kubeberth is Python (its runtime is in python_* and process_*)",
    ("Scheduling Rate", "scheduler_volume_scheduling_duration_seconds"): (
        "removed from kube-scheduler itself (v1.37.2 has no such metric): empty for kube-scheduler too"
    ),
    ("Scheduling latency 99th Quantile", "scheduler_volume_scheduling_duration_seconds"): (
        "removed from kube-scheduler itself (v1.37.2 has no such metric): empty for kube-scheduler too"
    ),
}
# rest_client_* answers of a class a healthy scheduler does not get (kube-scheduler's are empty too).
RARE_CODES = {"3xx": "the API server sends no redirects", "5xx": "a healthy API server answers no 5xx"}


class Prometheus(Protocol):
    def query(self, promql: str) -> list[dict[str, Any]]: ...


def load() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text())


def variables(prom: Prometheus, dashboard: dict[str, Any]) -> dict[str, str]:
    """Grafana's values for $cluster and $instance: the first cluster, and "All" (its allValue)."""
    values = {"$__rate_interval": RATE_INTERVAL}
    for var in dashboard["templating"]["list"]:
        if var["type"] != "query":
            continue
        m = re.fullmatch(r"label_values\((.+), *([a-z_]+)\)", var["query"])
        assert m, var["query"]
        selector = fill(m.group(1), values)
        found = sorted({r["metric"].get(m.group(2), "") for r in prom.query(f"count by ({m.group(2)}) ({selector})")})
        assert found, f"variable {var['name']}: {var['query']} finds nothing"
        values[f"${var['name']}"] = var["allValue"] if var.get("includeAll") else found[0]
    return values


def fill(expr: str, values: dict[str, str]) -> str:
    for name in sorted(values, key=len, reverse=True):  # $__rate_interval before a shorter name
        expr = expr.replace(name, values[name])
    return expr


def targets(dashboard: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(panel title, legend, expr) of every target."""
    return [(p["title"], t.get("legendFormat", ""), t["expr"]) for p in dashboard["panels"] for t in p.get("targets", ())]


def series_of(expr: str) -> str:
    """The metric family a target reads (its first metric name, suffix stripped)."""
    names = re.findall(r"\b([a-z_]+)\{", expr)
    return re.sub(r"_(total|bucket|count|sum)$", "", names[0]) if names else ""


def excused(title: str, legend: str, expr: str) -> str:
    """Why this target may be empty ('' when it must show data)."""
    series = series_of(expr)
    for (panel, name), reason in NO_DATA.items():
        if panel == title and series.startswith(name):
            return reason
    if series == "rest_client_requests" and legend in RARE_CODES:
        return RARE_CODES[legend]
    return ""


def empty_targets(prom: Prometheus, skip_series: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    """Every target that returns no data and has no excuse (title, legend, filled expr). Each query
    must be valid PromQL (the query API answers 400 otherwise, which raises)."""
    dashboard = load()
    values = variables(prom, dashboard)
    empty = []
    for title, legend, expr in targets(dashboard):
        filled = fill(expr, values)
        result = prom.query(filled)
        if result or excused(title, legend, expr) or series_of(expr).startswith(skip_series):
            continue
        empty.append((title, legend, filled))
    return empty

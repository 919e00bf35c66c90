"""kube-scheduler's metrics, scraped from /metrics and parsed with prometheus_client's parser."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
from kubeberth.apps.httpserver import HTTPServer
from kubeberth.apps.simulate import simulate
from kubeberth.observability import Observability
from kubeberth.observability.metrics import exponential_buckets
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod
from prometheus_client.parser import text_string_to_metric_families


def _scrape(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def _value(families: dict[str, Any], family: str, sample: str, **labels: str) -> float:
    for s in families[family].samples:
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise AssertionError(f"no sample {sample}{labels} in {family}")


@pytest.fixture
def scraped() -> dict[str, Any]:
    """A known workload: 6 pods fit, 2 never fit, 1 preempts a low-priority pod."""
    nodes = [make_node("a", cpu="4"), make_node("b", cpu="4")]
    bound = [
        # terminationGracePeriodSeconds 0: the victim goes at once, freeing its node for the small pods too
        {**make_pod(f"low-{n}", "3", priority=0, nodeName=n, terminationGracePeriodSeconds=0), "status": {"phase": "Running"}}
        for n in ("a", "b")
    ]
    pods = [make_pod(f"ok-{i}", "100m") for i in range(6)] + [make_pod(f"huge-{i}", "64") for i in range(2)]
    pods.append(make_pod("vip", "2", priority=1000))
    obs = Observability.from_env(env={}, decision_records=100)
    http = HTTPServer("127.0.0.1:0")
    obs.add_routes(http)
    http.start()
    try:
        result = simulate(build_generation(), [*nodes, *bound, *pods], seed=3, attach=obs.attach)
        families = _scrape(http.port)
    finally:
        http.stop()
    families["_result"] = result
    return families


def test_schedule_attempts_match_the_workload(scraped: dict[str, Any]) -> None:
    result = scraped["_result"]
    stats = result.scheduler.stats
    assert stats.scheduled == 7
    assert _value(scraped, "scheduler_schedule_attempts", "scheduler_schedule_attempts_total", result="scheduled", profile="kubeberth") == 7
    unschedulable = _value(
        scraped, "scheduler_schedule_attempts", "scheduler_schedule_attempts_total", result="unschedulable", profile="kubeberth"
    )
    assert unschedulable == stats.unschedulable_attempts >= 3  # the two huge pods, and vip before preemption
    assert scraped["scheduler_schedule_attempts"].type == "counter"
    assert not any(name.endswith("_created") for f in scraped.values() if hasattr(f, "samples") for name in (s.name for s in f.samples))


def test_histograms_have_kube_schedulers_buckets(scraped: dict[str, Any]) -> None:
    def buckets(family: str) -> list[float]:
        seen = {float(s.labels["le"]) for s in scraped[family].samples if s.name.endswith("_bucket")}
        return sorted(b for b in seen if b != float("inf"))

    assert buckets("scheduler_scheduling_attempt_duration_seconds") == pytest.approx(exponential_buckets(0.001, 2, 15))
    assert buckets("scheduler_framework_extension_point_duration_seconds") == pytest.approx(exponential_buckets(0.0001, 2, 12))
    assert buckets("scheduler_pod_scheduling_sli_duration_seconds") == pytest.approx(exponential_buckets(0.01, 2, 20))
    assert buckets("scheduler_preemption_victims") == pytest.approx([1, 2, 4, 8, 16, 32, 64])
    count = _value(
        scraped,
        "scheduler_scheduling_attempt_duration_seconds",
        "scheduler_scheduling_attempt_duration_seconds_count",
        result="scheduled",
        profile="kubeberth",
    )
    assert count == 7
    sli = sum(s.value for s in scraped["scheduler_pod_scheduling_sli_duration_seconds"].samples if s.name.endswith("_count"))
    assert sli == 7
    # vip was scheduled on its second attempt (after preemption): attempts label "2".
    assert _value(scraped, "scheduler_pod_scheduling_sli_duration_seconds", "scheduler_pod_scheduling_sli_duration_seconds_count", attempts="2") == 1


def test_extension_points_queue_and_preemption(scraped: dict[str, Any]) -> None:
    ep = "scheduler_framework_extension_point_duration_seconds"
    points = {(s.labels["extension_point"], s.labels["status"]) for s in scraped[ep].samples if s.name == f"{ep}_count"}
    assert {("PreFilter", "Success"), ("Filter", "Success"), ("Filter", "Unschedulable"), ("Score", "Success")} <= points
    assert {("Reserve", "Success"), ("Permit", "Success"), ("Bind", "Success"), ("PostBind", "Success")} <= points
    assert {s.labels["profile"] for s in scraped[ep].samples} == {"kubeberth"}
    assert _value(scraped, "scheduler_preemption_attempts", "scheduler_preemption_attempts_total") >= 1
    assert _value(scraped, "scheduler_preemption_victims", "scheduler_preemption_victims_count") == 1
    assert _value(scraped, "scheduler_preemption_victims", "scheduler_preemption_victims_sum") == 1
    incoming = "scheduler_queue_incoming_pods"
    assert _value(scraped, incoming, f"{incoming}_total", queue="active", event="UnscheduledPodAdd") == 9
    assert _value(scraped, incoming, f"{incoming}_total", queue="unschedulable", event="ScheduleAttemptFailure") >= 2
    pending = {s.labels["queue"]: s.value for s in scraped["scheduler_pending_pods"].samples}
    assert pending == {"active": 0, "backoff": 0, "unschedulable": 2, "gated": 0}
    generation = scraped["kubeberth_generation_info"].samples
    assert [(s.labels["id"], s.value) for s in generation] == [(scraped["_result"].summary["generation"], 1.0)]
    # Plugin durations are sampled on ~10% of cycles; whatever was sampled carries the three labels.
    for s in scraped["scheduler_plugin_execution_duration_seconds"].samples:
        assert set(s.labels) - {"le"} == {"plugin", "extension_point", "status"}


def test_plugin_errors_and_reloads_are_counted() -> None:
    from kubeberth.observability.metrics import SchedulerMetrics
    from kubeberth.runtime.records import CycleRecord

    metrics = SchedulerMetrics(sample_percent=100)
    record = CycleRecord("default/p", "u1", "kubeberth", "g1", start_ns=1_000_000, end_ns=3_000_000)
    record.result, record.message, record.error_plugin = "Error", "plugin Boom raised ValueError: x", "Boom"
    record.step("Filter", "Boom", 1_000_000)
    metrics.cycle_done(record)
    metrics.reloaded("success")
    metrics.reloaded("failed")
    metrics.set_generation("g2")
    families = {f.name: f for f in text_string_to_metric_families(metrics.exposition()[2].decode())}
    assert _value(families, "kubeberth_plugin_errors", "kubeberth_plugin_errors_total", plugin="Boom") == 1
    assert _value(families, "scheduler_schedule_attempts", "scheduler_schedule_attempts_total", result="error") == 1
    assert _value(families, "kubeberth_reloads", "kubeberth_reloads_total", result="failed") == 1
    assert [s.labels["id"] for s in families["kubeberth_generation_info"].samples] == ["g2"]


def test_grafana_dashboard_queries_only_exposed_series(scraped: dict[str, Any]) -> None:
    """Every series the dashboard queries exists after a workload, with the labels it groups by."""
    import json
    import re
    from pathlib import Path

    dashboard = json.loads((Path(__file__).resolve().parents[1] / "config" / "grafana" / "kubeberth-scheduler.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", ())]
    exprs += [v["query"]["query"] for v in dashboard["templating"]["list"] if isinstance(v.get("query"), dict)]
    assert len(exprs) > 15
    samples: dict[str, set[str]] = {}
    for family in scraped.values():
        for s in getattr(family, "samples", ()):
            samples.setdefault(s.name, set()).update(s.labels)
    added_by_prometheus = {"job", "instance", "le"}
    for expr in exprs:
        names = set(re.findall(r"\b((?:scheduler|kubeberth)_[a-z_]+)", expr))
        assert names, expr
        for name in names:
            family = re.sub(r"_(total|bucket|count|sum)$", "", name)
            assert name in samples or family in scraped, f"{name} (in {expr!r}) is not exposed"
        names = {n for n in names if n in samples}  # counters of rare events have no series yet
        used = set(re.findall(r"by \(([^)]*)\)", expr))
        used = {label.strip() for group in used for label in group.split(",")}
        used |= set(re.findall(r"[{,]\s*([a-z_]+)\s*(?:=~|!=|=)", expr))
        for label in used - added_by_prometheus:
            assert not names or any(label in samples[n] for n in names), f"label {label} (in {expr!r}) is not on {names}"



def test_opportunistic_batching_counters() -> None:
    """kube-scheduler's scheduler_batch_* counters, from the scheduler's own batch counts."""
    config = parse_configuration({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
            # kube-scheduler does not batch pods that system-default spreading constrains
            {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": []}},
        ]}],
    })
    nodes = [make_node(f"n{i}", cpu="4") for i in range(3)]
    pods = [make_pod(f"same-{i}", "100m") for i in range(8)] + [make_pod("other", "200m")]
    obs = Observability.from_env(env={}, decision_records=100)
    http = HTTPServer("127.0.0.1:0")
    obs.add_routes(http)
    http.start()
    try:
        result = simulate(build_generation(config=config), [*nodes, *pods], seed=3, attach=obs.attach)
        scraped = _scrape(http.port)
    finally:
        http.stop()
    counters = result.scheduler.batch_counters["default-scheduler"]
    results = {a.value: n for a, n in counters.attempts.items()}
    # Identical pods one after another: after the first full cycle, each is offered the batch's hint.
    assert results.get("hint_used", 0) >= 6, results
    assert counters.rescores >= 6
    assert sum(results.values()) == 9  # one attempt per pod
    for res, count in results.items():
        assert _value(scraped, "scheduler_batch_attempts", "scheduler_batch_attempts_total",
                      profile="default-scheduler", result=res) == count
    for reason, count in counters.flushes.items():
        assert _value(scraped, "scheduler_batch_cache_flushed", "scheduler_batch_cache_flushed_total",
                      profile="default-scheduler", reason=reason.value) == count
    assert _value(scraped, "scheduler_batch_rescore_attempts", "scheduler_batch_rescore_attempts_total",
                  profile="default-scheduler") == counters.rescores
    assert scraped["scheduler_batch_attempts"].type == "counter"

"""kube-scheduler's metrics, scraped from /metrics and parsed with prometheus_client's parser."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
from kubeberth import PermitResult, hookimpl
from kubeberth.apps.httpserver import HTTPServer
from kubeberth.apps.observability_routes import add_observability_routes
from kubeberth.apps.simulate import simulate
from kubeberth.cache.podinfo import PodInfo
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
    add_observability_routes(http, obs)
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
    add_observability_routes(http, obs)
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


# ---- kube-scheduler's operational families ---------------------------------------------------


def test_unschedulable_pods_by_rejecting_plugin(scraped: dict[str, Any]) -> None:
    """The two pods too big for any node wait in the unschedulable pool, rejected by NodeResourcesFit."""
    family = scraped["scheduler_unschedulable_pods"]
    assert family.type == "gauge"
    values = {(s.labels["plugin"], s.labels["profile"]): s.value for s in family.samples}
    assert values == {("NodeResourcesFit", "kubeberth"): 2}


def test_cache_size_counts_nodes_placed_and_assumed_pods(scraped: dict[str, Any]) -> None:
    sizes = {s.labels["type"]: s.value for s in scraped["scheduler_cache_size"].samples}
    # 2 nodes; 7 scheduled pods + the surviving low-priority pod (the other was preempted); all bound.
    assert sizes == {"nodes": 2, "pods": 8, "assumed_pods": 0}
    cluster = scraped["_result"].scheduler.cluster
    assert (len(cluster.table), len(cluster.placement)) == (2, 8)


def test_event_handling_duration_by_event(scraped: dict[str, Any]) -> None:
    name = "scheduler_event_handling_duration_seconds"
    counts = {s.labels["event"]: s.value for s in scraped[name].samples if s.name == f"{name}_count"}
    assert counts["NodeAdd"] == 2
    assert counts["UnscheduledPodAdd"] == 9
    # 2 running pods listed + 7 informer echoes of our own bindings; the preempted victim's deletion.
    assert counts["AssignedPodAdd"] == 9
    assert counts["AssignedPodDelete"] == 1
    seen = {float(s.labels["le"]) for s in scraped[name].samples if s.name.endswith("_bucket")}
    assert sorted(b for b in seen if b != float("inf")) == pytest.approx(exponential_buckets(0.0001, 2, 12))


def test_plugin_evaluations_per_extension_point() -> None:
    """kube-scheduler counts PreFilter/PreScore once per cycle (unless skipped), Filter/Score per node."""
    nodes = [make_node(f"n{i}", cpu="4") for i in range(3)]
    obs = Observability.from_env(env={}, decision_records=0)
    simulate(build_generation(), [*nodes, make_pod("one", "100m")], seed=1, attach=obs.attach)
    assert obs.metrics is not None
    families = {f.name: f for f in text_string_to_metric_families(obs.metrics.exposition()[2].decode())}
    family = families["scheduler_plugin_evaluation"]
    assert family.type == "counter"
    values = {(s.labels["plugin"], s.labels["extension_point"]): s.value for s in family.samples}
    assert {s.labels["profile"] for s in family.samples} == {"kubeberth"}
    assert values[("NodeResourcesFit", "PreFilter")] == 1
    assert values[("NodeResourcesFit", "Filter")] == 3
    assert values[("TaintToleration", "Filter")] == 3
    assert values[("NodeResourcesFit", "PreScore")] == 1
    assert values[("NodeResourcesBalancedAllocation", "Score")] == 3
    assert {point for _plugin, point in values} == {"PreFilter", "Filter", "PreScore", "Score"}


class _Waiter:
    """Holds pods labelled wait=<seconds> at Permit."""

    name = "MetricsWaiter"

    @hookimpl
    def permit(self, pod: PodInfo) -> PermitResult | None:
        return PermitResult.wait(float(pod.labels["wait"])) if "wait" in pod.labels else None


class _Releaser:
    """Allows the pod named by label `release` when this pod reaches Permit."""

    name = "MetricsReleaser"

    @hookimpl
    def permit(self, pod: PodInfo, handle: Any) -> None:
        if "release" in pod.labels:
            waiting = [w for w in handle.waiting_pods() if w.pod.name == pod.labels["release"]]
            assert len(waiting) == 1
            waiting[0].allow("MetricsWaiter")


def test_permit_wait_is_observed_by_result(scheduler_tester: Any) -> None:
    """A pod allowed while waiting counts as Success; one whose wait times out as Unschedulable."""
    objects = [
        make_node("n1", cpu="8"),
        make_pod("held", "100m", labels={"wait": "30"}),
        make_pod("releaser", "100m", labels={"release": "held"}),
        make_pod("timed-out", "100m", labels={"wait": "0.2"}),
    ]
    t = scheduler_tester([_Waiter, _Releaser], objects=objects, start=False)
    obs = Observability.from_env(env={}, decision_records=0)
    obs.attach(t.scheduler)
    t.start()
    t.settle(timeout=20)
    assert t.node_of("held") == "n1" and t.node_of("timed-out") is None
    assert obs.metrics is not None
    families = {f.name: f for f in text_string_to_metric_families(obs.metrics.exposition()[2].decode())}
    name = "scheduler_permit_wait_duration_seconds"
    counts = {s.labels["result"]: s.value for s in families[name].samples if s.name == f"{name}_count"}
    # The timed-out pod may be tried again (an event moves it back, e.g. the held pod's binding):
    # every wait of it that timed out is one Unschedulable observation.
    timed_out = [r for r in t.scheduler.records if r.pod.endswith("/timed-out") and r.result == "Scheduled"]
    assert timed_out and counts == {"Success": 1, "Unschedulable": len(timed_out)}
    sums = {s.labels["result"]: s.value for s in families[name].samples if s.name == f"{name}_sum"}
    # Wall-clock seconds, as every duration metric (the tester's clock is virtual: timeouts cost no time).
    assert sums["Success"] > 0 and sums["Unschedulable"] > 0
    seen = {float(s.labels["le"]) for s in families[name].samples if s.name.endswith("_bucket")}
    assert sorted(b for b in seen if b != float("inf")) == pytest.approx(exponential_buckets(0.001, 2, 15))
    # The timed-out pod now waits in the unschedulable pool, rejected by the Permit plugin.
    unschedulable = {s.labels["plugin"]: s.value for s in families["scheduler_unschedulable_pods"].samples}
    assert unschedulable == {"MetricsWaiter": 1}


def test_leader_election_master_status_follows_the_elector() -> None:
    from kubeberth.observability.metrics import SchedulerMetrics

    leading = [False]
    metrics = SchedulerMetrics()
    metrics.watch_leader("kubeberth", lambda: leading[0])

    def status() -> list[tuple[str, float]]:
        families = {f.name: f for f in text_string_to_metric_families(metrics.exposition()[2].decode())}
        return [(s.labels["name"], s.value) for s in families["leader_election_master_status"].samples]

    assert status() == [("kubeberth", 0.0)]
    leading[0] = True
    assert status() == [("kubeberth", 1.0)]


def test_process_and_python_families(scraped: dict[str, Any]) -> None:
    """prometheus_client's process, platform and GC collectors are on the scheduler's registry."""
    assert _value(scraped, "process_resident_memory_bytes", "process_resident_memory_bytes") > 10_000_000
    assert _value(scraped, "process_cpu_seconds", "process_cpu_seconds_total") > 0
    assert scraped["process_start_time_seconds"].samples[0].value > 1.7e9
    info = scraped["python_info"].samples[0].labels
    assert info["implementation"] == "CPython"
    assert _value(scraped, "python_gc_collections", "python_gc_collections_total", generation="0") > 0


def test_rest_client_metrics_count_every_request_of_every_raw_client() -> None:
    """client-go's rest_client_* families from RawClient's real transport, against a local HTTP server:
    every answer counted by code, method and host, latencies by verb and host, shared by all clients."""
    import http.server
    import threading

    from kubeberth.backends.kubernetes.client import ApiError, RawClient, TokenBucket
    from kubeberth.backends.kubernetes.client_metrics import LATENCY_BUCKETS, REST_CLIENT_METRICS
    from kubernetes import client as k8s
    from prometheus_client import CollectorRegistry, generate_latest

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            code = 200 if self.path.startswith("/api/v1/nodes") else 404
            body = b"{}" if code == 200 else b'{"kind":"Status","message":"not found"}'
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(201)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host = f"127.0.0.1:{server.server_port}"
    registry = CollectorRegistry()
    registry.register(REST_CLIENT_METRICS)

    def scrape() -> dict[str, Any]:
        return {f.name: f for f in text_string_to_metric_families(generate_latest(registry).decode())}

    def value(families: dict[str, Any], family: str, sample: str, **labels: str) -> float:
        try:
            return _value(families, family, sample, host=host, **labels)
        except AssertionError:
            return 0.0

    try:
        cfg = k8s.Configuration()
        cfg.host = f"http://{host}"
        first, second = RawClient(k8s.ApiClient(cfg), TokenBucket(1000, 10)), RawClient(k8s.ApiClient(cfg))
        assert first.host == second.host == host
        first.request("GET", "/api/v1/nodes")
        second.request("GET", "/api/v1/nodes")
        with pytest.raises(ApiError):
            first.request("GET", "/api/v1/namespaces/x/pods/missing")
        second.request("POST", "/api/v1/namespaces/x/events", body={"kind": "Event"})
        families = scrape()
    finally:
        server.shutdown()
        server.server_close()
    total = "rest_client_requests"
    assert value(families, total, f"{total}_total", code="200", method="GET") == 2
    assert value(families, total, f"{total}_total", code="404", method="GET") == 1
    assert value(families, total, f"{total}_total", code="201", method="POST") == 1
    latency = "rest_client_request_duration_seconds"
    assert value(families, latency, f"{latency}_count", verb="GET") == 3
    assert value(families, latency, f"{latency}_count", verb="POST") == 1
    seen = {float(s.labels["le"]) for s in families[latency].samples if s.name.endswith("_bucket")}
    assert sorted(b for b in seen if b != float("inf")) == list(LATENCY_BUCKETS)
    limiter = "rest_client_rate_limiter_duration_seconds"
    # Every rate-limited request is observed, whether it waited or not (a qps of 0 never waits).
    assert value(families, limiter, f"{limiter}_count", verb="GET") == 3
    assert families[total].type == "counter" and families[latency].type == "histogram"


def test_a_gated_pod_counts_for_its_pre_enqueue_plugin() -> None:
    """kube-scheduler counts a gated pod under the PreEnqueue plugin that holds it."""
    gated = make_pod("gated", "100m")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    obs = Observability.from_env(env={}, decision_records=0)
    simulate(build_generation(), [make_node("n1", cpu="4"), gated, make_pod("free", "100m")], seed=1,
             attach=obs.attach)
    assert obs.metrics is not None
    families = {f.name: f for f in text_string_to_metric_families(obs.metrics.exposition()[2].decode())}
    values = {(s.labels["plugin"], s.labels["profile"]): s.value for s in families["scheduler_unschedulable_pods"].samples}
    assert values == {("SchedulingGates", "kubeberth"): 1}

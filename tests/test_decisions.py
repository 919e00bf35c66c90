"""Decision records: the bounded store, /debug/decisions, `kubeberth explain` and decision logs."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request

import pytest
from kubeberth.apps.cli import main
from kubeberth.apps.httpserver import HTTPServer
from kubeberth.apps.observability_routes import add_observability_routes
from kubeberth.apps.simulate import simulate
from kubeberth.observability import Observability
from kubeberth.observability.decisions import DecisionLog, DecisionStore
from kubeberth.observability.explain import render
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.records import CycleRecord
from kubeberth.testing import make_node, make_pod


def _record(name: str, uid: str, result: str = "Scheduled", message: str = "") -> CycleRecord:
    r = CycleRecord(f"default/{name}", uid, "kubeberth", "g1", start_ns=1, end_ns=2)
    r.result, r.message = result, message
    return r


def test_store_is_a_bounded_lru_by_uid() -> None:
    store = DecisionStore(size=2)
    store.add(_record("a", "u-a"))
    store.add(_record("b", "u-b"))
    store.add(_record("a", "u-a", "Unschedulable"))  # a is now the most recent
    store.add(_record("c", "u-c"))  # evicts b
    assert len(store) == 2
    assert store.get("default/b") is None
    assert store.get("default/a").result == "Unschedulable"
    assert store.get("u-c").pod == "default/c"
    # A pod recreated under the same name: the name follows the newest uid.
    store.add(_record("c", "u-c2"))
    assert store.get("default/c").uid == "u-c2"
    assert store.route("default/zzz")[0] == 404
    assert store.route("nonamespace")[0] == 400


@pytest.fixture
def served() -> tuple[str, object]:
    """A scheduler's decision records served on loopback, after a small known workload."""
    objects = [
        make_node("small", cpu="1"),
        make_node("big", cpu="4"),
        make_pod("fits", "2"),
        make_pod("huge", "16"),
    ]
    obs = Observability.from_env(env={}, metrics=False, decision_records=10)
    http = HTTPServer("127.0.0.1:0")
    add_observability_routes(http, obs)
    http.start()
    result = simulate(build_generation(), objects, seed=1, attach=obs.attach)
    yield f"http://127.0.0.1:{http.port}", result
    http.stop()


def test_debug_decisions_serves_the_last_record(served: tuple[str, object]) -> None:
    url, _ = served
    with urllib.request.urlopen(f"{url}/debug/decisions/default/huge", timeout=10) as resp:
        assert resp.headers["Content-Type"] == "application/json"
        record = json.loads(resp.read())
    assert record["pod"] == "default/huge"
    assert record["result"] == "Unschedulable"
    assert record["rejected"] == {"NodeResourcesFit": {"Insufficient cpu": 2}}
    assert record["rejected_nodes"] == {"NodeResourcesFit": {"Insufficient cpu": ["small", "big"]}}
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{url}/debug/decisions/default/nope", timeout=10)
    assert err.value.code == 404


def test_explain_tells_why_a_pod_is_pending(served: tuple[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = served
    assert main(["explain", "default/huge", "--server", url]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == [
        "Pod default/huge" + out.splitlines()[0].removeprefix("Pod default/huge"),
        "  Result:      Unschedulable",
        "  FailedScheduling: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling.",
    ]
    assert "Filter: nodes rejected, per plugin and reason\n  NodeResourcesFit: 2\n        2 × Insufficient cpu (small, big)" in out


def test_explain_tells_why_a_pod_landed_where_it_did(served: tuple[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    url, result = served
    assert main(["explain", "default/fits", "--server", url]) == 0
    out = capsys.readouterr().out
    assert "  Result:      Scheduled on big" in out
    assert "    1 × Insufficient cpu (small)" not in out  # names are kept for unschedulable pods only
    assert "  NodeResourcesFit: 1\n        1 × Insufficient cpu\n" in out
    assert "Binding: Bound to big in " in out
    # Same renderer as simulate --explain.
    record = next(r for r in result.scheduler.records if r.pod == "default/fits")
    assert render(record.as_dict()) == out.rstrip("\n")


def test_explain_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "huge"]) == 2
    assert capsys.readouterr().err == "error: explain: expected NAMESPACE/POD, got 'huge'\n"
    http = HTTPServer("127.0.0.1:0")
    http.start()
    port = http.port
    http.stop()
    assert main(["explain", "default/huge", "--server", f"http://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: explain: cannot reach the scheduler at http://127.0.0.1:{port} (")
    assert err.count("\n") == 1


def test_simulate_explain_uses_the_renderer(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    import yaml

    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(yaml.safe_dump_all([make_node("n1", cpu="1"), make_pod("p", "2")]))
    assert main(["simulate", "--cluster", str(manifest), "--explain", "default/p"]) == 0
    out = capsys.readouterr().out
    assert "  Result:      Unschedulable" in out and "1 × Insufficient cpu (n1)" in out
    assert main(["simulate", "--cluster", str(manifest), "--explain", "default/p", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "Unschedulable"


def test_decision_log_is_one_line_per_decision_and_rate_limits_loops(caplog: pytest.LogCaptureFixture) -> None:
    decisions = DecisionLog(repeat_seconds=60.0)
    caplog.set_level(logging.INFO, logger="kubeberth.decisions")
    ok = _record("a", "u-a")
    ok.node, ok.attempt, ok.trace_id = "n1", 1, "0af7651916cd43dd8448eb211c80319c"
    decisions(ok)
    stuck = _record("b", "u-b", "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.")
    for attempt in range(1, 6):
        stuck.attempt = attempt
        decisions(stuck)
    stuck.message = "0/4 nodes are available: 4 Insufficient cpu."
    decisions(stuck)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "Scheduled default/a on n1 (attempt 1, 0/0 feasible, trace 0af7651916cd43dd8448eb211c80319c)",
        "Unschedulable default/b: 0/3 nodes are available: 3 Insufficient cpu. (attempt 1, 0/0 feasible)",
        "Unschedulable default/b: 0/4 nodes are available: 4 Insufficient cpu. (attempt 5, 0/0 feasible, "
        "4 identical attempts not logged)",
    ]
    assert caplog.records[0].decision["trace_id"] == "0af7651916cd43dd8448eb211c80319c"
    assert caplog.records[2].decision["repeats_suppressed"] == 4


def test_json_log_lines_carry_the_decision_fields(capsys: pytest.CaptureFixture[str]) -> None:
    from kubeberth.apps.cli import _JsonFormatter

    record = logging.LogRecord("kubeberth.decisions", logging.INFO, __file__, 1, "Scheduled %s", ("default/a",), None)
    record.decision = {"pod": "default/a", "trace_id": "abc", "node": "n1"}
    line = json.loads(_JsonFormatter().format(record))
    assert line == {"ts": record.created, "level": "INFO", "logger": "kubeberth.decisions", "v": 1,
                    "msg": "Scheduled default/a", "pod": "default/a", "trace_id": "abc", "node": "n1"}
    assert isinstance(line["ts"], float) and abs(line["ts"] - time.time()) < 60


def test_json_log_lines_carry_exceptions_and_kube_verbosity() -> None:
    from kubeberth.apps.cli import _JsonFormatter

    try:
        raise ValueError("bad thing")
    except ValueError:
        import sys

        info = sys.exc_info()
    error = logging.LogRecord("kubeberth.x", logging.ERROR, __file__, 1, "failed", (), info)
    line = json.loads(_JsonFormatter().format(error))
    assert "v" not in line and line["err"] == "ValueError: bad thing"
    assert line["exc"].startswith("Traceback") and line["exc"].endswith("ValueError: bad thing")
    debug = logging.LogRecord("kubeberth.x", logging.DEBUG, __file__, 1, "detail", (), None)
    warning = logging.LogRecord("kubeberth.x", logging.WARNING, __file__, 1, "careful", (), None)
    assert json.loads(_JsonFormatter().format(debug))["v"] == 4
    assert json.loads(_JsonFormatter().format(warning))["v"] == 0


def test_explain_marks_the_chosen_node_and_counts_the_ties() -> None:
    nodes = [make_node(f"n{i}", cpu="4") for i in range(7)]  # seven identical nodes: all tie
    result = simulate(build_generation(), [*nodes, make_pod("p", "1")], seed=3)
    record = next(r for r in result.scheduler.records if r.pod == "default/p").as_dict()
    lines = render(record).splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("Score: top nodes"))
    assert lines[title].endswith("; 7 nodes tied at the best score " f"{record['top_scores'][0]['total']:g}, one of them picked")
    rows = lines[title + 2: title + 7]
    assert rows[0].startswith(f"  * {record['node']} ") and sum(r.startswith("  * ") for r in rows) == 1


def _tracked_store(size: int, pending: set[str]) -> DecisionStore:
    store = DecisionStore(size=size)
    store.track(pending.__contains__, lambda key: {"state": "test", "message": f"no record for {key}"})
    return store


def test_pending_pods_keep_their_record_past_the_bound() -> None:
    pending = {"u-stuck"}
    store = _tracked_store(3, pending)
    store.add(_record("stuck", "u-stuck", "Unschedulable", "0/3 nodes are available."))
    for i in range(50):  # many pods bind and finish after it
        store.add(_record(f"done-{i}", f"u-{i}"))
    assert store.get("default/stuck").result == "Unschedulable"
    assert store.get("default/done-0") is None and store.get("default/done-49") is not None
    assert store.route("default/stuck")[0] == 200
    assert len(store) == 4  # the three most recently finished pods and the pending one
    # A pod retried while others finish stays too, and the bound still counts finished pods only.
    store.add(_record("stuck", "u-stuck", "Unschedulable", "0/4 nodes are available."))
    assert store.get("default/done-47") is not None and len(store) == 4
    assert store.decision("default/stuck")["earlier_attempts"][0]["message"] == "0/3 nodes are available."
    # Once it is no longer pending (deleted, bound elsewhere), it counts as finished like the others.
    pending.clear()
    for i in range(200):
        store.add(_record(f"later-{i}", f"u-l{i}"))
    assert store.get("default/stuck") is None and len(store) == 3
    code, kind, body = store.route("default/stuck")
    assert (code, kind) == (404, "application/json")
    assert json.loads(body) == {"pod": "default/stuck", "state": "test", "message": "no record for default/stuck"}


def test_an_earlier_attempt_says_why_it_was_retried_and_how_its_binding_failed() -> None:
    """An attempt's summary keeps the event that requeued the pod before it (requeued_by), and a binding cycle
    that failed after the node was picked (an error at Bind: the pod retried without any event)."""
    store = DecisionStore(10)
    first = _record("p", "u-p")
    first.binding = {"node": "n1", "result": "Error", "plugin": "firstFailBindPlugin", "message": "rejects the Pod"}
    first.attempt = 1
    store.add(first)
    second = _record("p", "u-p", "Unschedulable", "0/1 nodes are available.")
    second.attempt = 2
    store.add(second)
    third = _record("p", "u-p")
    third.attempt, third.requeued_by = 3, "NodeUpdateNodeLabel"
    third.binding = {"node": "n1", "result": "Bound"}
    store.add(third)
    out = store.decision("default/p")
    assert out["requeued_by"] == "NodeUpdateNodeLabel"
    assert [(a["attempt"], a.get("binding"), a.get("requeued_by")) for a in out["earlier_attempts"]] == [
        (1, {"result": "Error", "plugin": "firstFailBindPlugin", "message": "rejects the Pod"}, None), (2, None, None)]


def test_many_pending_pods_are_all_kept_and_pruned_once_finished() -> None:
    pending = {f"u-p{i}" for i in range(500)}
    store = _tracked_store(10, pending)
    for i in range(500):
        store.add(_record(f"p{i}", f"u-p{i}", "Unschedulable"))
        store.add(_record(f"f{i}", f"u-f{i}"))
    assert all(store.get(f"default/p{i}") is not None for i in range(500))
    assert len(store) == 510  # the ten most recently finished and the 500 pending
    pending.clear()
    for i in range(1000):
        store.add(_record(f"g{i}", f"u-g{i}"))
    assert len(store) == 10


def test_decision_annotation_is_written_off_the_loop_and_never_requeues() -> None:
    """KUBEBERTH_DECISION_ANNOTATION: the last decision on the pod, size-capped, one write per change."""
    from kubeberth.backends.embedded import EmbeddedCluster
    from kubeberth.observability.annotations import ANNOTATION, DecisionAnnotator, decision_annotation
    from kubeberth.scheduling.clock import VirtualClock
    from kubeberth.scheduling.scheduler import Scheduler

    objects = [make_node("n1", cpu="1"), make_pod("fits", "500m"), make_pod("huge", "16")]
    backend = EmbeddedCluster(objects)
    scheduler = Scheduler(build_generation(), backend, clock=VirtualClock(), seed=1, adopt_unknown_profiles=True)
    obs = Observability(annotator=DecisionAnnotator(backend))
    obs.attach(scheduler)
    scheduler.start_backend()
    scheduler.run_until_settled(timeout=60)
    obs.annotator.flush()
    scheduler.run_until_settled(timeout=60)  # the annotation writes come back as pod updates
    attempts = scheduler.stats.attempts
    obs.shutdown()
    scheduler.shutdown(wait=True)
    pods = {p["metadata"]["name"]: p for p in backend.pods()}
    fits = json.loads(pods["fits"]["metadata"]["annotations"][ANNOTATION])
    assert fits == {"result": "Scheduled", "attempt": 1, "generation": fits["generation"], "node": "n1"}
    huge = json.loads(pods["huge"]["metadata"]["annotations"][ANNOTATION])
    assert huge["result"] == "Unschedulable" and huge["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert attempts == 2  # writing the annotation did not requeue the unschedulable pod
    assert obs.annotator.written == 2 and obs.annotator.dropped == 0

    record = CycleRecord("default/p", "u", "kubeberth", "g1")
    record.result, record.message = "Unschedulable", "x" * 10_000
    capped = decision_annotation(record, max_bytes=512)
    assert len(capped.encode()) <= 512 and json.loads(capped)["message"].endswith("...")

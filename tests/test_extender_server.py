"""`kubeberth extender`'s verbs (core/apps/extender.py) served over HTTP from a running loop, and
called by a kubeberth scheduler configured with `extenders:` — both ends of the protocol."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson
import pytest
import urllib3
from kubeberth import Code, FilterResult, NodeView, hookimpl
from kubeberth.apps.extender import ExtenderService
from kubeberth.apps.httpserver import HTTPServer
from kubeberth.cache.podinfo import PodInfo
from kubeberth.testing import SchedulerTester, make_node, make_pod

NODES = [
    make_node("red-1", cpu="8", labels={"color": "red"}),
    make_node("blue-1", cpu="2", labels={"color": "blue"}),
    make_node("green-1", cpu="4", labels={"color": "green"}),
]


class NoRed:
    """Rejects red nodes (unresolvable), prefers blue ones."""

    name = "NoRed"

    @hookimpl
    def filter(self, pod: PodInfo, nodes: NodeView) -> FilterResult | None:
        ids, values = nodes.label_values("color")
        red = values.index("red") if "red" in values else -2
        return FilterResult.reject_where(ids == red, "node(s) are red", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    @hookimpl
    def score(self, pod: PodInfo, nodes: NodeView) -> np.ndarray:
        ids, values = nodes.label_values("color")
        blue = values.index("blue") if "blue" in values else -2
        return np.where(ids == blue, 100, 30)


@pytest.fixture
def served() -> Iterator[tuple[str, SchedulerTester]]:
    """The extender: NoRed's profile over its own cache, its loop running in a thread."""
    with SchedulerTester([NoRed], objects=NODES) as t:
        t.start()
        t.scheduler.paused = True
        t.scheduler.drain_events()
        stop = threading.Event()
        loop = threading.Thread(target=t.scheduler.run, args=(stop,), daemon=True)
        loop.start()
        http = HTTPServer("127.0.0.1:0")
        ExtenderService(t.scheduler, bind=False).add_routes(http)
        http.start()
        try:
            yield f"http://127.0.0.1:{http.port}", t
        finally:
            stop.set()
            t.scheduler.submit(lambda: None)
            loop.join(5)
            http.stop()


def post(url: str, verb: str, body: dict[str, Any]) -> Any:
    resp = urllib3.request("POST", f"{url}/{verb}", body=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert resp.status == 200, resp.data
    return orjson.loads(resp.data)


def test_filter_and_prioritize_by_name(served: tuple[str, SchedulerTester]) -> None:
    url, _t = served
    pod = make_pod("p", cpu="1")
    names = ["red-1", "blue-1", "green-1", "new-node"]
    got = post(url, "filter", {"Pod": pod, "NodeNames": names, "Nodes": None})
    assert got["NodeNames"] == ["blue-1", "green-1"]
    assert got["FailedAndUnresolvableNodes"] == {"red-1": "node(s) are red"}
    assert got["FailedNodes"] == {"new-node": "node(s) are not in kubeberth's node cache yet"}
    # NoRed's 100 and 30 (weight 1) on kube-scheduler's 0..10 scale; keys matched case-insensitively.
    scores = post(url, "prioritize", {"pod": pod, "nodenames": ["blue-1", "green-1"]})
    assert scores == [{"Host": "blue-1", "Score": 10}, {"Host": "green-1", "Score": 3}]


def test_filter_with_full_node_objects_returns_node_objects(served: tuple[str, SchedulerTester]) -> None:
    url, _t = served
    got = post(url, "filter", {"Pod": make_pod("p"), "Nodes": {"items": NODES}})
    assert [n["metadata"]["name"] for n in got["Nodes"]["items"]] == ["blue-1", "green-1"]


def test_bad_pod_is_an_error_in_the_reply(served: tuple[str, SchedulerTester]) -> None:
    url, _t = served
    got = post(url, "filter", {"Pod": {"metadata": {"name": "x"}, "spec": {"containers": {"a": 1}}}, "NodeNames": []})
    assert "spec.containers" in got["Error"]


def test_preempt_keeps_nodes_where_the_pod_fits_without_the_victims(served: tuple[str, SchedulerTester]) -> None:
    url, t = served
    t.scheduler.submit(lambda: None)
    hog = make_pod("hog", cpu="2", nodeName="blue-1")
    small = make_pod("small", cpu="1", nodeName="green-1")
    t.add(hog, small)
    uid = {p["metadata"]["name"]: p["metadata"]["uid"] for p in (t.pod("hog"), t.pod("small"))}
    big = make_pod("big", cpu="2", priority=100)
    got = post(url, "preempt", {"Pod": big, "NodeNameToVictims": None, "NodeNameToMetaVictims": {
        "blue-1": {"Pods": [{"UID": uid["hog"]}], "NumPDBViolations": 0},        # fits once hog is gone
        "red-1": {"Pods": [], "NumPDBViolations": 0},                            # NoRed: never
    }})
    assert got == {"NodeNameToMetaVictims": {"blue-1": {"Pods": [{"UID": uid["hog"]}], "NumPDBViolations": 0}}}


def test_a_kubeberth_scheduler_calls_kubeberth_as_its_extender(served: tuple[str, SchedulerTester]) -> None:
    url, _t = served
    ext = {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 5,
           "nodeCacheCapable": True}
    with SchedulerTester(["NodeResourcesFit"], objects=NODES, extenders=[ext]) as client:
        # NodeResourcesFit alone would pick the biggest free node (red-1); the extender removes it
        # and its 10 × 5 × 10 points for blue-1 outweigh green-1's extra free cpu.
        assert client.schedule(make_pod("a", cpu="1")) == {"a": "blue-1"}
        message = client.schedule(make_pod("huge", cpu="6"))
        assert message == {"huge": None}
        assert client.events("huge", "FailedScheduling")[-1] == (
            "0/3 nodes are available: 1 node(s) are red, 2 Insufficient cpu."  # sorted as strings, as Go does
        )


def test_bench_extender_measures_a_round_trip_per_pod() -> None:
    from kubeberth.apps.extender_bench import render_extender_bench, run_extender_bench
    from kubeberth.runtime.generation import build_generation

    generation = build_generation()
    rows = run_extender_bench(generation, nodes=200, pods=20, warmup=5)
    assert [(r["names"], r["label"], r["pods"]) for r in rows] == [(200, "all nodes", 20), (100, "default sample", 20)]
    assert all(0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"] for r in rows)
    assert "| 200 | 100 (default sample) | 20 |" in render_extender_bench(rows, generation)


@pytest.mark.parametrize(("argv", "error"), [
    (["--profile", "nope"], "error: --profile: no profile 'nope' in the configuration; it has kubeberth"),
    (["--kubeconfig", "/nonexistent/kubeconfig"], "error: /nonexistent/kubeconfig: "),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    from kubeberth.apps.cli import main

    assert main(["extender", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(error) and err.count("\n") == 1, err

"""`extenders:` of a KubeSchedulerConfiguration called as kube-scheduler v1.37 calls them
(pkg/scheduler/extender.go, findNodesThatPassExtenders / prioritizeNodes / extendersBinding),
against a real HTTP extender on loopback (tests/extender_server.py)."""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import pytest
from extender_server import ExtenderServer, Policy, extender_config, self_signed
from kubeberth.errors import ConfigError
from kubeberth.observability.explain import render
from kubeberth.runtime.config import parse_configuration
from kubeberth.testing import SchedulerTester, make_node, make_pod

NODES = [make_node("n1", cpu="4"), make_node("n2", cpu="8"), make_node("n3", cpu="1")]


def extended(*extenders: dict[str, Any], nodes: list[dict[str, Any]] = NODES, **kw: Any) -> SchedulerTester:
    return SchedulerTester(["NodeResourcesFit"], objects=nodes, extenders=list(extenders), max_errors_per_pod=1, **kw)


def test_filter_runs_after_plugins_and_its_failed_nodes_feed_the_fit_error() -> None:
    policy = Policy(reject=lambda pod, node: "node(s) are on the extender's deny list" if node == "n2" else None,
                    unresolvable=lambda pod, node: "node(s) are retired" if node == "n1" else None)
    with ExtenderServer(policy) as ext, extended(extender_config(ext.url, prioritizeVerb="", weight=0)) as t:
        assert t.schedule(make_pod("big", cpu="2")) == {"big": None}
        # n3 was rejected by NodeResourcesFit, so the extender only saw n1 and n2 (names: not cache capable,
        # so full Node objects).
        (verb, args), = ext.calls
        # kube-scheduler's wire names: extender/v1 has no json tags, so Go field names.
        assert verb == "filter" and args["NodeNames"] is None
        assert [n["metadata"]["name"] for n in args["Nodes"]["items"]] == ["n1", "n2"]
        assert args["Pod"]["metadata"]["name"] == "big"
        message = ("0/3 nodes are available: 1 Insufficient cpu, 1 node(s) are on the extender's deny list, "
                   "1 node(s) are retired.")
        assert t.events("big", "FailedScheduling")[-1] == message


def test_node_cache_capable_gets_names_only() -> None:
    with ExtenderServer(Policy()) as ext, extended(extender_config(ext.url, nodeCacheCapable=True)) as t:
        assert t.schedule(make_pod("p", cpu="2"))["p"] in ("n1", "n2")
        filter_args = dict(ext.calls)["filter"]
        assert filter_args["Nodes"] is None and sorted(filter_args["NodeNames"]) == ["n1", "n2"]


def test_prioritize_is_scaled_by_weight_times_max_node_score_over_max_extender_priority() -> None:
    # NodeResourcesFit (LeastAllocated) prefers n2 (8 cores) for a 1-core pod: 100 - 1/8 vs 100 - 1/4 ...
    # the extender's 3 points × weight 2 × 10 = 60 for n1 outweigh that.
    policy = Policy(score=lambda pod, node: 3 if node == "n1" else 0)
    with ExtenderServer(policy) as ext, extended(extender_config(ext.url, weight=2)) as t:
        assert t.schedule(make_pod("p", cpu="1")) == {"p": "n1"}
        top = {s["node"]: s for s in t.records("p")[-1].top_scores}
        assert top["n1"]["plugins"][ext.url] == 60
        assert top["n2"]["plugins"][ext.url] == 0
        assert top["n1"]["total"] == top["n1"]["plugins"]["NodeResourcesFit"] + 60


def test_managed_resources_limit_calls_and_ignored_by_scheduler_skips_the_fit_check() -> None:
    cfg = extender_config("", managedResources=[{"name": "example.com/fpga", "ignoredByScheduler": True}])
    with ExtenderServer(Policy(reject=lambda pod, node: "no fpga" if node != "n2" else None)) as ext:
        cfg["urlPrefix"] = ext.url
        with extended(cfg) as t:
            assert t.schedule(make_pod("plain", cpu="1"))["plain"] in ("n1", "n2")
            assert ext.calls == []  # not interested: the pod requests no managed resource
            # No node advertises example.com/fpga: NodeResourcesFit ignores it, the extender decides.
            assert t.schedule(make_pod("fpga", cpu="1", requests={"example.com/fpga": "1"})) == {"fpga": "n2"}
            assert ext.verbs() == ["filter"]  # one feasible node left: nothing to prioritize


@pytest.mark.parametrize(("mode", "message"), [
    ("broken", "failed filter with extender at URL {url}/filter, code 500"),
    ("error", "filter is failing on purpose"),
])
def test_failing_extender_is_an_error_unless_ignorable(mode: str, message: str) -> None:
    with ExtenderServer(mode=mode) as ext:
        with extended(extender_config(ext.url)) as t:
            assert t.schedule(make_pod("p")) == {"p": None}
            assert t.events("p", "FailedScheduling")[-1] == message.format(url=ext.url)
            assert t.records("p")[-1].error_plugin == ext.url
        with extended(extender_config(ext.url, ignorable=True)) as t:
            assert t.schedule(make_pod("p"))["p"] in ("n1", "n2", "n3")


def test_slow_extender_holds_the_loop_no_longer_than_its_timeout() -> None:
    with ExtenderServer(mode="slow", delay=3) as ext, extended(extender_config(ext.url, httpTimeout="200ms")) as t:
        started = time.monotonic()
        assert t.schedule(make_pod("p")) == {"p": None}
        assert time.monotonic() - started < 2
        assert t.events("p", "FailedScheduling")[-1] == (
            f'Post "{ext.url}/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
        )


def test_prioritize_errors_give_no_score_and_do_not_fail_the_pod() -> None:
    with ExtenderServer(mode="broken") as ext, extended(extender_config(ext.url, filterVerb="")) as t:
        assert t.schedule(make_pod("p", cpu="1")) == {"p": "n2"}
        assert ext.verbs() == ["prioritize"]


def test_bind_verb_replaces_the_default_binder() -> None:
    bound: list[dict[str, Any]] = []

    def bind(args: dict[str, Any]) -> str:
        bound.append(args)
        return ""

    with ExtenderServer(Policy(bind=bind)) as ext, extended(extender_config(ext.url, bindVerb="bind")) as t:
        t.schedule(make_pod("p", cpu="1"))
        assert [(b["PodNamespace"], b["PodName"], b["Node"]) for b in bound] == [("default", "p", "n2")]
        assert bound[0]["PodUID"] == t.pod("p")["metadata"]["uid"]
        assert t.records("p")[-1].binding["steps"][-2][0] == "ExtenderBind"


def test_each_call_is_a_step_of_the_decision_record_and_a_line_in_explain() -> None:
    policy = Policy(reject=lambda pod, node: "too far" if node == "n1" else None)
    with ExtenderServer(policy) as ext, extended(extender_config(ext.url)) as t:
        t.schedule(make_pod("p", cpu="1"))
        record = t.records("p")[-1]
        points = [(p, n) for p, n, *_ in record.steps if p.startswith("Extender")]
        assert points == [("ExtenderFilter", ext.url), ("ExtenderPrioritize", ext.url)]
        text = render(record.as_dict())
        assert f"ExtenderFilter      {ext.url}" in text and "rejected 1 of 3 nodes" in text
        assert f"{ext.url}: 1\n        1 × too far" in text  # with the plugins' rejections


@pytest.mark.parametrize(("entry", "error"), [
    ({"urlPrefix": "http://x", "prioritizeVerb": "p"}, "extenders[0].weight: must have a positive weight"),
    ({"urlPrefix": "http://x", "httpTimeout": "5 seconds"}, "extenders[0].httpTimeout"),
    ({"urlPrefix": "http://x", "managedResources": [{"name": "cpu"}]},
     "extenders[0].managedResources[0].name: 'cpu' is an invalid extended resource name"),
])
def test_configuration_errors_name_the_field(entry: dict[str, Any], error: str) -> None:
    with pytest.raises(ConfigError, match=error.replace("[", r"\[").replace("]", r"\]")):
        parse_configuration({"extenders": [entry]}, "cfg.yaml")


def test_only_one_binder() -> None:
    with pytest.raises(ConfigError, match="only one extender can implement bind"):
        parse_configuration({"extenders": [{"urlPrefix": "http://a", "bindVerb": "b"},
                                           {"urlPrefix": "http://b", "bindVerb": "b"}]}, "cfg.yaml")


def test_http_timeout_is_a_go_duration() -> None:
    cfg = parse_configuration({"extenders": [{"urlPrefix": "http://a", "httpTimeout": "1m30s"}]})
    assert cfg.extenders[0].httpTimeout == 90.0


@pytest.mark.parametrize("cache_capable", [True, False])
def test_preempt_verb_narrows_the_preemption_candidates(cache_capable: bool) -> None:
    nodes = [make_node("n1", cpu="2"), make_node("n2", cpu="2")]
    victims = [make_pod("low", cpu="2", nodeName="n1", priority=1), make_pod("mid", cpu="2", nodeName="n2", priority=5)]
    plugins = ["NodeResourcesFit", "DefaultPreemption"]
    # Alone, preemption evicts the lowest-priority victim (low on n1); the extender vetoes n1.
    with ExtenderServer(Policy(preempt_drop={"n1"})) as ext, SchedulerTester(
        plugins, objects=[*nodes, *victims], extenders=[extender_config(ext.url, filterVerb="", prioritizeVerb="",
                                                                         weight=0, preemptVerb="preempt",
                                                                         nodeCacheCapable=cache_capable)]) as t:
        assert t.schedule(make_pod("vip", cpu="2", priority=100)) == {"vip": "n2"}
        (verb, args), = [c for c in ext.calls if c[0] == "preempt"][:1]
        key = "NodeNameToMetaVictims" if cache_capable else "NodeNameToVictims"
        assert sorted(args[key]) == ["n1", "n2"]
        assert t.node_of("default/low") == "n1"
        with pytest.raises(KeyError):
            t.pod("default/mid")  # the victim the extender kept was evicted


def test_preempt_errors_fail_the_attempt_unless_ignorable() -> None:
    nodes = [make_node("n1", cpu="2")]
    victim = make_pod("low", cpu="2", nodeName="n1", priority=1)
    cfg = extender_config("", filterVerb="", prioritizeVerb="", weight=0, preemptVerb="preempt")
    with ExtenderServer(mode="broken") as ext:
        cfg["urlPrefix"] = ext.url
        with SchedulerTester(["NodeResourcesFit", "DefaultPreemption"], objects=[*nodes, victim], extenders=[cfg],
                             max_errors_per_pod=1) as t:
            assert t.schedule(make_pod("vip", cpu="2", priority=100)) == {"vip": None}
            assert t.node_of("default/low") == "n1"
            # DefaultPreemption.PostFilter's prefix on the extender's error (an Error: no FitError text)
            assert t.events("vip", "FailedScheduling")[-1] == (
                f"preemption: failed preempt with extender at URL {ext.url}/preempt, code 500")
        with SchedulerTester(["NodeResourcesFit", "DefaultPreemption"], objects=[*nodes, victim],
                             extenders=[{**cfg, "ignorable": True}]) as t:
            assert t.schedule(make_pod("vip", cpu="2", priority=100)) == {"vip": "n1"}


def test_https_extender_with_enable_https_and_tls_config(tmp_path: Path) -> None:
    cert, key, pem = self_signed(tmp_path)
    with ExtenderServer(Policy(score=lambda pod, node: 10 if node == "n1" else 0), tls=(cert, key)) as ext:
        assert ext.url.startswith("https://")
        # enableHTTPS without a CA: kube-scheduler does not verify the server (restclient Insecure).
        with extended(extender_config(ext.url, enableHTTPS=True)) as t:
            assert t.schedule(make_pod("a", cpu="1")) == {"a": "n1"}
        # With the CA: verified.
        with extended(extender_config(ext.url, tlsConfig={"caData": base64.b64encode(pem).decode()})) as t:
            assert t.schedule(make_pod("b", cpu="1")) == {"b": "n1"}
        # Neither: the system roots do not know this certificate, so the call fails.
        with extended(extender_config(ext.url)) as t:
            assert t.schedule(make_pod("c", cpu="1")) == {"c": None}
            assert "certificate verify failed" in t.events("c", "FailedScheduling")[-1]


def test_unreadable_tls_files_are_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"extenders\[0\]\.tlsConfig: "):
        extended(extender_config("https://127.0.0.1:1", tlsConfig={"caFile": str(tmp_path / "missing.crt")}))


def test_every_extender_call_is_a_span_of_the_decision_trace() -> None:
    from kubeberth.observability import Observability
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    obs = Observability.from_env(env={}, exporter=exporter, metrics=False, decision_records=0)
    policy = Policy(reject=lambda pod, node: "too far" if node == "n1" else None)
    with ExtenderServer(policy) as ext, extended(extender_config(ext.url)) as t:
        t.scheduler.observers.append(obs.cycle_done)
        t.schedule(make_pod("p", cpu="1"))
    obs.shutdown()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    flt, prio = spans[f"ExtenderFilter/{ext.url}"], spans[f"ExtenderPrioritize/{ext.url}"]
    assert flt.attributes["kubeberth.nodes.rejected"] == 1 and flt.attributes["kubeberth.reasons"] == ("too far: 1",)
    assert prio.attributes["kubeberth.weight"] == 1
    assert flt.parent.span_id == spans["ExtenderFilter"].context.span_id


def test_extenders_dropping_every_candidate_leave_no_candidate_node() -> None:
    nodes = [make_node("n1", cpu="2")]
    victim = make_pod("low", cpu="2", nodeName="n1", priority=1)
    with ExtenderServer(Policy(preempt_drop={"n1"})) as ext, SchedulerTester(
        ["NodeResourcesFit", "DefaultPreemption"], objects=[*nodes, victim],
        extenders=[extender_config(ext.url, filterVerb="", prioritizeVerb="", weight=0, preemptVerb="preempt")]) as t:
        assert t.schedule(make_pod("vip", cpu="2", priority=100)) == {"vip": None}
        assert t.node_of("default/low") == "n1"
        assert t.events("vip", "FailedScheduling")[-1] == (
            "0/1 nodes are available: 1 Insufficient cpu. preemption: no candidate node for preemption")

"""Decision traces: the span tree of an attempt, its attributes, and the sampling rules."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.apps.simulate import simulate
from kubeberth.observability import DecisionTracer, Observability, TracingConfig
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def _run(objects: list[dict[str, Any]], env: dict[str, str] | None = None) -> tuple[list[ReadableSpan], Any]:
    exporter = InMemorySpanExporter()
    obs = Observability.from_env(env=env or {}, exporter=exporter, metrics=False, decision_records=0)
    result = simulate(build_generation(), objects, seed=1, attach=obs.attach)
    obs.shutdown()
    return list(exporter.get_finished_spans()), result


def _roots(spans: list[ReadableSpan]) -> dict[str, ReadableSpan]:
    return {s.attributes["k8s.pod.name"]: s for s in spans if s.parent is None}


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> dict[str, ReadableSpan]:
    return {s.name: s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id}


def test_span_tree_of_a_scheduled_and_an_unschedulable_pod() -> None:
    objects = [make_node("small", cpu="1"), make_node("big", cpu="4"), make_pod("fits", "2"), make_pod("huge", "16")]
    spans, _ = _run(objects)
    roots = _roots(spans)
    assert set(roots) == {"fits", "huge"}
    assert {s.name for s in roots.values()} == {"SchedulingCycle"}

    fits = roots["fits"]
    a = fits.attributes
    assert a["k8s.namespace.name"] == "default"
    assert a["k8s.pod.uid"]
    assert a["kubeberth.result"] == "Scheduled"
    assert a["k8s.node.name"] == "big"
    assert a["kubeberth.attempt"] == 1
    assert a["kubeberth.nodes.evaluated"] == 2 and a["kubeberth.nodes.feasible"] == 1
    assert a["kubeberth.generation"].startswith("g")
    assert a["kubeberth.profile"] == "kubeberth"
    assert "kubeberth.queue.active_seconds" in a
    points = _children(spans, fits)
    assert {"PreFilter", "Filter", "Reserve", "Permit", "BindingCycle"} <= set(points)
    assert points["Filter"].attributes["kubeberth.filter.rejected"] == ("NodeResourcesFit: 1 (Insufficient cpu: 1)",)
    plugins = _children(spans, points["Filter"])
    fit = plugins["Filter/NodeResourcesFit"].attributes
    assert fit["kubeberth.nodes.rejected"] == 1
    assert fit["kubeberth.reasons"] == ("Insufficient cpu: 1",)
    assert fit["kubeberth.status"] == "Unschedulable"
    # Plugins with nothing to report are summarized on their extension point instead of a span each.
    assert "Filter/TaintToleration" not in plugins
    summary = points["Filter"].attributes["kubeberth.plugins"].split("; ")
    assert any(x.startswith("TaintToleration Success ") and x.endswith(" ms, rejected 0/2") for x in summary), summary
    assert any(x.startswith("NodeResourcesFit Unschedulable ") and x.endswith(", rejected 1/2") for x in summary)
    assert "NodeResourcesFit" in points["PreFilter"].attributes["kubeberth.plugins"]

    # The binding cycle is its own span in the same trace, with one child per extension point.
    binding = points["BindingCycle"]
    assert binding.context.trace_id == fits.context.trace_id
    assert binding.attributes["kubeberth.binding.result"] == "Bound"
    assert binding.attributes["k8s.node.name"] == "big"
    steps = [x.split(" ")[:2] for x in binding.attributes["kubeberth.steps"].split("; ")]
    # No PreBind plugin has work for the pod (no volumes, no claims): the pre-flight says Skip.
    assert steps == [["PreBindPreFlight", "Skip"], ["PreBind", "Success"], ["Bind", "Success"], ["PostBind", "Success"]]
    assert "kubeberth.binding.nominated_node" not in binding.attributes  # and no nomination was written
    assert _children(spans, binding) == {}  # steps get spans of their own only when they fail
    assert binding.start_time >= fits.start_time

    huge = roots["huge"].attributes
    assert huge["kubeberth.result"] == "Unschedulable"
    assert huge["kubeberth.message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling."
    )
    assert "k8s.node.name" not in huge
    assert all(s.end_time >= s.start_time for s in spans)


def test_score_summary_has_top_nodes_with_weighted_plugin_scores() -> None:
    nodes = [make_node(f"n{i}", cpu=str(2 + i)) for i in range(7)]
    spans, result = _run([*nodes, make_pod("p", "1")])
    root = _roots(spans)["p"]
    score = _children(spans, root)["Score"]
    top = score.attributes["kubeberth.score.top_nodes"]
    assert len(top) == 5  # top-N, not one attribute per node
    assert top[0] == root.attributes["k8s.node.name"]
    record = next(r for r in result.scheduler.records if r.pod == "default/p")
    first = record.top_scores[0]
    assert score.attributes["kubeberth.score.top"][0].startswith(f"{first['node']} {first['total']:g} (")
    assert f"NodeResourcesFit={first['plugins']['NodeResourcesFit']:g}" in score.attributes["kubeberth.score.top"][0]
    ran = score.attributes["kubeberth.plugins"].split("; ")
    assert any(x.startswith("TaintToleration Success ") and x.endswith(", weight 3") for x in ran), ran


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_top_scores_include_the_chosen_node_and_count_the_ties(seed: int) -> None:
    # Seven identical nodes: every one scores the same, the scheduler picks one at random
    # (selectHost); the five recorded must hold the pick, whichever it is, and say 7 tied.
    nodes = [make_node(f"n{i}", cpu="4") for i in range(7)]
    exporter = InMemorySpanExporter()
    obs = Observability.from_env(env={}, exporter=exporter, metrics=False, decision_records=0)
    result = simulate(build_generation(), [*nodes, make_pod("p", "1")], seed=seed, attach=obs.attach)
    obs.shutdown()
    spans = list(exporter.get_finished_spans())
    record = next(r for r in result.scheduler.records if r.pod == "default/p")
    assert record.score_ties == 7
    assert len(record.top_scores) == 5
    assert record.top_scores[0]["node"] == record.node
    assert len({t["node"] for t in record.top_scores}) == 5
    assert {t["total"] for t in record.top_scores} == {record.top_scores[0]["total"]}
    score = _children(spans, _roots(spans)["p"])["Score"]
    assert score.attributes["kubeberth.score.ties"] == 7
    assert score.attributes["kubeberth.score.top_nodes"][0] == record.node
    assert record.as_dict()["score_ties"] == 7


def test_preemption_is_its_own_span() -> None:
    objects = [
        make_node("n1", cpu="4"),
        {**make_pod("low", "3", priority=0, nodeName="n1"), "status": {"phase": "Running"}},
        make_pod("high", "2", priority=100),
    ]
    spans, _ = _run(objects)
    cycles = [s for s in spans if s.name == "SchedulingCycle" and s.attributes["k8s.pod.name"] == "high"]
    first = min(cycles, key=lambda s: s.start_time)
    assert first.attributes["kubeberth.result"] == "Unschedulable"
    post = _children(spans, first)["PostFilter"]
    plugin = _children(spans, post)["PostFilter/DefaultPreemption"]
    assert plugin.attributes["kubeberth.nominated_node"] == "n1"
    pre = _children(spans, plugin)["Preemption"].attributes
    assert pre["kubeberth.preemption.victims"] == ("default/low",)
    assert pre["kubeberth.preemption.victim_count"] == 1
    assert pre["kubeberth.preemption.candidates"] == 1
    assert pre["kubeberth.preemption.nominated_node"] == "n1"
    # The retry after the victim left schedules it, and carries how long it waited in the queues.
    later = max(cycles, key=lambda s: s.start_time)
    assert later.attributes["kubeberth.result"] == "Scheduled"
    assert later.attributes["kubeberth.attempt"] == 2
    assert sum(v for k, v in later.attributes.items() if k.startswith("kubeberth.queue.")) > 0


def test_ratio_sampling_keeps_whole_traces_and_every_failure() -> None:
    nodes = [make_node("n1", cpu="2")]
    pods = [make_pod(f"ok-{i}", "10m") for i in range(40)] + [make_pod(f"big-{i}", "8") for i in range(10)]
    env = {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"}
    spans, _ = _run([*nodes, *pods], env)
    roots = _roots(spans)
    failed = {n for n, s in roots.items() if s.attributes["kubeberth.result"] == "Unschedulable"}
    assert failed == {f"big-{i}" for i in range(10)}  # always sampled
    scheduled = {n for n, s in roots.items() if s.attributes["kubeberth.result"] == "Scheduled"}
    assert len(scheduled) < 25  # ~10% of 40 (trace ids are random: a loose bound that still fails at 100%)
    by_trace = {s.context.trace_id for s in roots.values()}
    assert {s.context.trace_id for s in spans} == by_trace  # no orphan spans from unsampled cycles
    for name in scheduled:  # a sampled pod's binding cycle is in its trace
        assert "BindingCycle" in _children(spans, roots[name])


def test_sampler_off_records_nothing() -> None:
    spans, _ = _run([make_node("n1", cpu="1"), make_pod("p", "4")], {"OTEL_TRACES_SAMPLER": "always_off"})
    assert spans == []


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, TracingConfig(enabled=False, endpoint=None)),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://jaeger:4318/"},
            TracingConfig(enabled=True, endpoint="http://jaeger:4318/v1/traces"),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://jaeger:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            TracingConfig(enabled=True, protocol="grpc", endpoint="http://jaeger:4317"),
        ),
        (
            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:1"},
            TracingConfig(enabled=True, endpoint="http://c:4318/custom"),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://j:4318", "OTEL_SDK_DISABLED": "true"},
            TracingConfig(enabled=False),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://j:4318", "OTEL_TRACES_EXPORTER": "none"},
            TracingConfig(enabled=False, exporter="none", endpoint="http://j:4318/v1/traces"),
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://j:4318",
                "OTEL_SERVICE_NAME": "sched-a",
                "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod,k8s.cluster.name=c%201",
                "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
                "OTEL_TRACES_SAMPLER_ARG": "0.1",
            },
            TracingConfig(
                enabled=True,
                endpoint="http://j:4318/v1/traces",
                service_name="sched-a",
                resource_attributes={"deployment.environment": "prod", "k8s.cluster.name": "c 1"},
                sampler="parentbased_traceidratio",
                sampler_arg=0.1,
            ),
        ),
    ],
)
def test_tracing_config_from_the_otel_environment(env: dict[str, str], expected: TracingConfig) -> None:
    assert TracingConfig.from_env(env) == expected


def test_batch_processor_settings_come_from_the_same_environment() -> None:
    config = TracingConfig.from_env({"OTEL_BSP_MAX_QUEUE_SIZE": "4096", "OTEL_BSP_SCHEDULE_DELAY": "200"})
    assert config.batch == {"max_queue_size": 4096, "schedule_delay_millis": 200}
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter as Memory

    processor = config.make_processor(Memory())
    # Newer SDKs keep the setting on a shared _batch_processor; the 1.24 floor keeps it on the processor.
    inner = getattr(processor, "_batch_processor", processor)
    assert getattr(inner, "_max_queue_size", getattr(inner, "max_queue_size", None)) == 4096
    processor.shutdown()


def test_flag_is_a_shorthand_for_the_endpoint_variable() -> None:
    config = TracingConfig.from_env({}, otlp_endpoint="http://127.0.0.1:4318")
    assert config.enabled and config.endpoint == "http://127.0.0.1:4318/v1/traces"
    resource = config.make_resource().attributes
    assert resource["service.name"] == "kubeberth"
    assert "service.version" in resource


def test_grpc_and_http_exporters() -> None:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as Grpc
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as Http

    grpc = TracingConfig.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    http = TracingConfig.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    g, h = grpc.make_exporter(), http.make_exporter()
    assert isinstance(g, Grpc) and isinstance(h, Http)
    g.shutdown()
    h.shutdown()


@pytest.mark.parametrize(
    ("value", "exporters", "enabled"),
    [("otlp,console", ("otlp", "console"), True), (" Console , otlp ", ("console", "otlp"), True),
     ("console", ("console",), True), ("none", (), False), ("", ("otlp",), False)],
)
def test_exporter_lists(value: str, exporters: tuple[str, ...], enabled: bool) -> None:
    config = TracingConfig.from_env({"OTEL_TRACES_EXPORTER": value})
    assert config.exporters == exporters and config.enabled is enabled


def test_an_exporter_list_sends_every_span_to_each(capsys: pytest.CaptureFixture[str]) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as Http
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    config = TracingConfig.from_env({"OTEL_TRACES_EXPORTER": "otlp,console", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    processor = config.make_processor(batch=False)
    exporters = [p.span_exporter for p in processor._span_processors]
    assert [type(e) for e in exporters] == [Http, ConsoleSpanExporter]
    processor.shutdown()
    # The console exporter alone: spans on stderr, stdout untouched.
    config = TracingConfig.from_env({"OTEL_TRACES_EXPORTER": "console"})
    obs = Observability(tracer=DecisionTracer.from_config(config))
    simulate(build_generation(), [make_node("n", cpu="2"), make_pod("p", "1")], seed=1, attach=obs.attach)
    obs.shutdown()
    out, err = capsys.readouterr()
    assert out == "" and '"name": "SchedulingCycle"' in err


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_PROTOCOL='http/json': use one of grpc, http/protobuf"),
        ({"OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER='sometimes': use one of"),
        (
            {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "ten"},
            "OTEL_TRACES_SAMPLER_ARG='ten': expected a ratio between 0 and 1",
        ),
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER='zipkin': unknown exporter 'zipkin'; use otlp, console"),
        ({"OTEL_TRACES_EXPORTER": "otlp,jaeger"}, "OTEL_TRACES_EXPORTER='otlp,jaeger': unknown exporter 'jaeger'"),
        ({"OTEL_TRACES_EXPORTER": "none,console"}, "OTEL_TRACES_EXPORTER='none,console': none cannot be combined"),
        ({"OTEL_RESOURCE_ATTRIBUTES": "a=1,oops"}, "OTEL_RESOURCE_ATTRIBUTES: 'oops' is not key=value"),
        ({"OTEL_BSP_MAX_QUEUE_SIZE": "many"}, "OTEL_BSP_MAX_QUEUE_SIZE='many': expected a positive whole number"),
    ],
)
def test_bad_otel_settings_are_one_line_errors(env: dict[str, str], message: str) -> None:
    from kubeberth.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        TracingConfig.from_env(env)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_record_message_and_spans_agree_when_one_reason_has_two_codes() -> None:
    """NodeResourcesFit rejects with one reason under two codes: resolvable on the two big nodes
    (preemption could free memory) and unresolvable on the three that are too small for 40Gi."""
    from kubeberth.observability.explain import render

    objects = [
        *(make_node(f"big-{i}", memory="48Gi") for i in range(2)),
        *(make_node(f"small-{i}", memory="16Gi") for i in range(3)),
        *(make_pod(f"used-{i}", "100m", "20Gi", nodeName=f"big-{i}") for i in range(2)),
        make_pod("p", "1", "40Gi"),
    ]
    spans, result = _run(objects)
    record = next(r for r in result.scheduler.records if r.pod == "default/p")
    assert record.message.startswith("0/5 nodes are available: 5 Insufficient memory."), record.message
    assert record.rejected == {"NodeResourcesFit": {"Insufficient memory": 5}}
    assert sorted(record.rejected_nodes["NodeResourcesFit"]["Insufficient memory"]) == [
        "big-0", "big-1", "small-0", "small-1", "small-2",
    ]
    root = _roots(spans)["p"]
    filter_point = _children(spans, root)["Filter"]
    assert filter_point.attributes["kubeberth.filter.rejected"] == ("NodeResourcesFit: 5 (Insufficient memory: 5)",)
    fit = _children(spans, filter_point)["Filter/NodeResourcesFit"].attributes
    assert fit["kubeberth.nodes.rejected"] == 5
    assert fit["kubeberth.reasons"] == ("Insufficient memory: 5",)
    text = render(record.as_dict())
    assert "  NodeResourcesFit: 5\n" in text
    assert "    5 × Insufficient memory (" in text


def test_filters_that_pass_every_node_are_recorded_explained_and_traced(tmp_path) -> None:
    """A filter returning None (pass all) ran: the record, explain and the spans say so, with its time."""
    import textwrap

    from kubeberth.observability.explain import render

    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "pass_all.py").write_text(textwrap.dedent("""\
        from kubeberth import Status, hookimpl


        class PassAll:
            name = "PassAll"

            @hookimpl
            def filter(self, pod, nodes):
                return None


        class PassWithStatus:
            name = "PassWithStatus"

            @hookimpl
            def filter(self, pod, nodes):
                return Status.success()


        class Boom:
            name = "Boom"

            @hookimpl
            def filter(self, pod, nodes):
                if pod.labels.get("boom"):
                    raise RuntimeError("kaboom")
        """))
    (tmp_path / "config.yaml").write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: PassAll}, {name: PassWithStatus}, {name: Boom}]
        """))
    exporter = InMemorySpanExporter()
    obs = Observability.from_env(env={}, exporter=exporter, metrics=False, decision_records=0)
    gen = build_generation(config_path=tmp_path / "config.yaml", plugins_dir=folder)
    objects = [make_node("n0"), make_node("n1", cpu="1"), make_pod("p", "2"), make_pod("q", "2", labels={"boom": "1"})]
    result = simulate(gen, objects, seed=0, attach=obs.attach)
    obs.shutdown()
    spans = list(exporter.get_finished_spans())
    record = next(r for r in result.scheduler.records if r.pod == "default/p")
    ran = {(s["point"], s["plugin"]): s for s in record.as_dict()["plugins"]}
    skipped = {s["plugin"] for s in record.as_dict()["plugins"] if s["point"] == "PreFilter" and s["code"] == "SKIP"}
    enabled = [p for p in gen.default_profile.enabled("filter") if p not in skipped]
    assert {"PassAll", "PassWithStatus", "NodeResourcesFit"} <= set(enabled)
    for plugin in enabled:  # every filter its PreFilter did not skip ran, and each one is in the record
        step = ran[("Filter", plugin)]
        assert step["ms"] >= 0 and step["code"] in ("SUCCESS", "UNSCHEDULABLE"), step
    assert ran[("Filter", "PassAll")]["rejected"] == 0
    assert ran[("Filter", "NodeResourcesFit")]["rejected"] == 1
    text = render(record.as_dict())
    lines = {line.split()[1]: line for line in text.splitlines() if line.startswith("  Filter ")}
    assert set(enabled) <= set(lines), text
    assert lines["PassAll"].endswith("passed 1 of 1 nodes")  # after NodeResourcesFit rejected n1
    assert lines["NodeResourcesFit"].endswith("rejected 1 of 2 nodes")
    assert " ms " in lines["PassAll"]
    filter_point = _children(spans, _roots(spans)["p"])["Filter"]
    plugins = _children(spans, filter_point)
    ran_here = dict(x.split(" ", 1) for x in filter_point.attributes["kubeberth.plugins"].split("; "))
    assert ran_here["PassAll"].startswith("Success ") and ran_here["PassAll"].endswith(", rejected 0/1")
    assert ran_here["PassWithStatus"].endswith(", rejected 0/1")
    assert set(enabled) <= set(ran_here)
    assert set(plugins) == {"Filter/NodeResourcesFit"}  # the plugin that rejected nodes has its own span
    assert plugins["Filter/NodeResourcesFit"].attributes["kubeberth.status"] == "Unschedulable"
    # A filter that raised ran too: its row and span say it failed.
    failed = next(r for r in result.scheduler.records if r.pod == "default/q")
    assert failed.result == "Error"
    assert [line for line in render(failed.as_dict()).splitlines() if line.startswith("  Filter ") and " Boom " in line][0].endswith("  error")
    q_root = next(s for s in spans if s.parent is None and s.attributes["k8s.pod.name"] == "q")
    boom = _children(spans, _children(spans, q_root)["Filter"])["Filter/Boom"]
    assert boom.attributes["kubeberth.status"] == "Error"


def test_pod_group_preemption_is_its_own_span() -> None:
    """GenericWorkload: the group's PodGroupPostFilter is a span under its first member's cycle, with a
    PodGroupPreemption child naming the group, its victims (a whole gang) and the nominated nodes."""
    from kubeberth.api.features import FeatureGates
    from kubeberth.testing import make_pod_group

    low = make_pod_group("low", 2)
    low["spec"].update({"priority": 0, "disruptionMode": {"all": {}}})
    high = make_pod_group("high", 1)
    high["spec"]["priority"] = 100
    objects = [
        make_node("n1", cpu="4"), make_node("n2", cpu="4"), low, high,
        *({**make_pod(f"low-{i}", "3", priority=0, nodeName=f"n{i + 1}", schedulingGroup={"podGroupName": "low"}),
           "status": {"phase": "Running"}} for i in range(2)),
        make_pod("high-0", "2", priority=100, schedulingGroup={"podGroupName": "high"}),
    ]
    exporter = InMemorySpanExporter()
    obs = Observability.from_env(env={}, exporter=exporter, metrics=False, decision_records=0)
    simulate(build_generation(feature_gates=FeatureGates.parse("GenericWorkload=true")), objects, seed=1,
             attach=obs.attach)
    obs.shutdown()
    spans = list(exporter.get_finished_spans())
    cycles = [s for s in spans if s.name == "SchedulingCycle" and s.attributes["k8s.pod.name"] == "high-0"]
    first = min(cycles, key=lambda s: s.start_time)
    assert first.attributes["kubeberth.result"] == "Unschedulable"
    post = _children(spans, first)["PodGroupPostFilter"]
    plugin = _children(spans, post)["PodGroupPostFilter/DefaultPreemption"]
    assert plugin.attributes["kubeberth.status"] == "Success"
    pre = _children(spans, plugin)["PodGroupPreemption"].attributes
    assert pre["kubeberth.preemption.pod_group"] == "default/high"
    assert pre["kubeberth.preemption.victims"] == ("default/low-0", "default/low-1")  # the whole gang
    assert len(pre["kubeberth.preemption.nominated_nodes"]) == 1
    assert max(cycles, key=lambda s: s.start_time).attributes["kubeberth.result"] == "Scheduled"

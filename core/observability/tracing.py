"""Decision traces (DESIGN property 5): the spans of a scheduling attempt, built after the fact.

The loop records each cycle cheaply into a CycleRecord; this observer turns it into spans once
the cycle is over, so an unsampled attempt costs one sampling decision and nothing else.

    SchedulingCycle                  pod, profile, generation, attempt, result, node, counts, queue time
      PreFilter / Filter / ...       one per extension point (Filter: per-plugin rejection summary,
        Filter/NodeResourcesFit      Score: top-N nodes with each plugin's weighted contribution,
                                     the chosen node first, and how many tied for the best score)
      PostFilter
        PostFilter/DefaultPreemption
          Preemption                 candidates, victims, nominated node
      BindingCycle                   same trace: WaitOnPermit, PreBind, Bind, PostBind

Summaries, never one attribute per node. Attribute names follow the OpenTelemetry semantic
conventions where they exist (k8s.pod.name, k8s.namespace.name, k8s.pod.uid, k8s.node.name).

Why finished spans are built directly: every timestamp is already known, so the live-span
machinery of the tracer API (a sampler call, processor on_start, locks and validation per span)
buys nothing here and cost ~3x more per span than the sampled-attempt budget allows (measured in
docs/benchmarks.md). The root decision still goes through the configured OTel sampler; children
follow their parent, which is what parent-based sampling means. Spans reach the exporter through
the standard span processor (batching, OTLP encoding in its own thread).
"""

from __future__ import annotations

import time
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.sdk.trace.sampling import Sampler
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from ..runtime.records import CycleRecord
from .otel import RESULT_ATTRIBUTE, TracingConfig

TRACER_NAME = "kubeberth"
TOP_REASONS = 5  # reasons kept per plugin in the filter summary
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)
_UNSET = Status(StatusCode.UNSET)
_STATUS = {  # Code names -> kube-scheduler's Code.String()
    "SUCCESS": "Success",
    "ERROR": "Error",
    "UNSCHEDULABLE": "Unschedulable",
    "UNSCHEDULABLE_AND_UNRESOLVABLE": "UnschedulableAndUnresolvable",
    "WAIT": "Wait",
    "SKIP": "Skip",
    "PENDING": "Pending",
}

Steps = list[tuple[int, int, dict[str, Any]]]


class DecisionTracer:
    """Scheduler observer: emits the spans of one CycleRecord (and later of its binding cycle)."""

    def __init__(
        self, processor: SpanProcessor, sampler: Sampler, resource: Resource, top_n: int = 5, all_plugin_spans: bool = False
    ) -> None:
        from .. import __version__

        self.processor = processor
        self.sampler = sampler
        self.resource = _Resource(resource.attributes, resource.schema_url)
        self.all_plugin_spans = all_plugin_spans
        self.scope = InstrumentationScope(TRACER_NAME, __version__)
        self.top_n = top_n
        self._ids = RandomIdGenerator()

    @classmethod
    def from_config(cls, config: TracingConfig, exporter: Any = None, all_plugin_spans: bool = False) -> DecisionTracer:
        return cls(
            config.make_processor(exporter), config.make_sampler(), config.make_resource(), all_plugin_spans=all_plugin_spans
        )

    def _emit(
        self,
        name: str,
        trace_id: int,
        parent: SpanContext | None,
        start: int,
        end: int,
        attrs: dict[str, Any],
        status: Status = _UNSET,
        trace_state: Any = None,
    ) -> SpanContext:
        ctx = SpanContext(trace_id, self._ids.generate_span_id(), False, _SAMPLED, trace_state)
        span = ReadableSpan(
            name, ctx, parent, self.resource, attrs, (), (), SpanKind.INTERNAL, None, status, start, end, self.scope
        )
        self.processor.on_end(span)
        return ctx

    def event_span(self, name: str, attributes: dict[str, Any], error: str | None = None) -> None:
        """A root span for a scheduler-wide event (a failed reload, a rollback), not tied to a pod."""
        now = time.time_ns()
        status = Status(StatusCode.ERROR, error) if error else _UNSET
        self._emit(name, self._ids.generate_trace_id(), None, now, now, attributes, status)

    # ---- the scheduling cycle --------------------------------------------------------
    def __call__(self, record: CycleRecord) -> None:
        namespace, _, name = record.pod.partition("/")
        attrs: dict[str, Any] = {
            "k8s.namespace.name": namespace,
            "k8s.pod.name": name,
            "k8s.pod.uid": record.uid,
            RESULT_ATTRIBUTE: record.result,
            "kubeberth.profile": record.profile,
            "kubeberth.generation": record.generation,
            "kubeberth.attempt": record.attempt,
            "kubeberth.nodes.evaluated": record.evaluated_nodes,
            "kubeberth.nodes.feasible": record.feasible_nodes,
        }
        trace_id = self._ids.generate_trace_id()
        decision = self.sampler.should_sample(None, trace_id, "SchedulingCycle", SpanKind.INTERNAL, attrs)
        if not decision.decision.is_sampled():
            return
        if record.node:
            attrs["k8s.node.name"] = record.node
        if record.message:
            attrs["kubeberth.message"] = record.message
        if record.batch is not None:
            attrs["kubeberth.batch.hint"] = record.batch.get("hint", "")
            attrs["kubeberth.batch.result"] = record.batch.get("result") or "no_hint"
            if record.batch.get("flush") or record.batch.get("unsigned"):
                attrs["kubeberth.batch.reason"] = record.batch.get("unsigned") or record.batch.get("flush")
        for queue, seconds in record.queue.items():
            attrs[f"kubeberth.queue.{queue}_seconds"] = round(seconds, 6)
        status = _UNSET
        if record.result == "Error":
            status = Status(StatusCode.ERROR, record.message)
            attrs["error.type"] = "PluginError"
        end = record.end_ns or record.start_ns
        root = SpanContext(trace_id, self._ids.generate_span_id(), False, _SAMPLED, decision.trace_state)
        record.trace_id = format(trace_id, "032x")
        record.span_context = root
        for point, plugins in self._points(record):
            self._point_span(record, point, plugins, root)
        self.processor.on_end(
            ReadableSpan(
                "SchedulingCycle", root, None, self.resource, attrs, (), (), SpanKind.INTERNAL, None, status,
                record.start_ns, end, self.scope,
            )
        )

    @staticmethod
    def _points(record: CycleRecord) -> list[tuple[str, dict[str, Steps]]]:
        """Steps grouped by extension point, then plugin (filters run in chunks: one span per plugin)."""
        out: list[tuple[str, dict[str, Steps]]] = []
        for point, plugin, start, end, extra in record.steps:
            if not out or out[-1][0] != point:
                out.append((point, {}))
            group = out[-1][1].get(plugin)
            if group is None:
                out[-1][1][plugin] = [(start, end, extra)]
            else:
                group.append((start, end, extra))
        return out

    def _point_span(self, record: CycleRecord, point: str, plugins: dict[str, Steps], root: SpanContext) -> None:
        start = min(steps[0][0] for steps in plugins.values())
        end = max(steps[-1][1] for steps in plugins.values())
        attrs: dict[str, Any] = {"kubeberth.extension_point": point}
        if point == "Filter" and record.rejected:
            attrs["kubeberth.filter.rejected"] = tuple(
                f"{plugin}: {sum(reasons.values())} ({'; '.join(f'{r}: {c}' for r, c in _top(reasons))})"
                for plugin, reasons in record.rejected.items()
            )
        elif point == "Score" and record.top_scores:
            top = record.top_scores[: self.top_n]  # the chosen node first
            attrs["kubeberth.score.top_nodes"] = tuple(t["node"] for t in top)
            attrs["kubeberth.score.ties"] = record.score_ties
            attrs["kubeberth.score.top"] = tuple(f"{t['node']} {t['total']:g} ({_fmt_scores(t['plugins'])})" for t in top)
        whole = plugins.get("")  # recorded for the extension point as a whole (Reserve, Permit)
        if whole and whole[-1][2].get("code"):
            attrs["kubeberth.status"] = _STATUS.get(whole[-1][2]["code"], whole[-1][2]["code"])
        ctx = SpanContext(root.trace_id, self._ids.generate_span_id(), False, _SAMPLED, root.trace_state)
        ran: list[str] = []
        for plugin, steps in plugins.items():
            if plugin:
                summary, notable = self._plugin_summary(record, point, plugin, steps)
                ran.append(summary)
                if notable or self.all_plugin_spans:
                    self._plugin_span(record, point, plugin, steps, ctx)
        if ran:  # one string, not an array: a third of the encoding cost, and Jaeger shows it as well
            attrs["kubeberth.plugins"] = "; ".join(ran)
        self.processor.on_end(
            ReadableSpan(point, ctx, root, self.resource, attrs, (), (), SpanKind.INTERNAL, None, _UNSET, start, end, self.scope)
        )

    @staticmethod
    def _plugin_summary(record: CycleRecord, point: str, plugin: str, steps: Steps) -> tuple[str, bool]:
        """'NodeResourcesFit Unschedulable 0.041 ms, rejected 3/500', and whether it deserves a span."""
        ms = sum(e - s for s, e, _x in steps) / 1e6
        codes = {x.get("code") for _s, _e, x in steps}
        if point in ("Filter", "ExtenderFilter"):
            rejected = sum(int(x.get("rejected", 0)) for _s, _e, x in steps)
            nodes = sum(int(x.get("nodes", 0)) for _s, _e, x in steps)
            status = "Error" if "ERROR" in codes else "Unschedulable" if rejected else "Success"
            notable = bool(rejected) or status == "Error" or point == "ExtenderFilter"  # every extender call is a span
            return f"{plugin} {status} {ms:.3f} ms, rejected {rejected}/{nodes}", notable
        last = steps[-1][2]
        status = _STATUS.get(last.get("code") or "SUCCESS", last.get("code") or "Success")
        extra = f", weight {last['weight']}" if "weight" in last else ""
        if last.get("nominated"):
            extra += f", nominated {last['nominated']}"
        notable = status not in ("Success", "Skip") or point in ("PostFilter", "PodGroupPostFilter", "ExtenderPrioritize")
        return f"{plugin} {status} {ms:.3f} ms{extra}", notable

    def _plugin_span(self, record: CycleRecord, point: str, plugin: str, steps: Steps, parent: SpanContext) -> None:
        attrs: dict[str, Any] = {"kubeberth.plugin": plugin, "kubeberth.extension_point": point}
        last = steps[-1][2]
        code = last.get("code")
        if code:
            attrs["kubeberth.status"] = _STATUS.get(code, code)
        if last.get("error"):
            attrs["kubeberth.error"] = last["error"]
        if point in ("Filter", "ExtenderFilter"):
            rejected = sum(int(x.get("rejected", 0)) for _s, _e, x in steps)
            attrs["kubeberth.nodes.rejected"] = rejected
            errored = any(x.get("code") == "ERROR" for _s, _e, x in steps)
            attrs["kubeberth.status"] = "Error" if errored else "Unschedulable" if rejected else "Success"
            reasons = record.rejected.get(plugin)
            if reasons:
                attrs["kubeberth.reasons"] = tuple(f"{r}: {c}" for r, c in _top(reasons))
        elif point in ("Score", "ExtenderPrioritize"):
            attrs["kubeberth.weight"] = last.get("weight", 1)
        elif point == "PostFilter" and last.get("nominated"):
            attrs["kubeberth.nominated_node"] = last["nominated"]
        start, end = steps[0][0], steps[-1][1]
        ctx = self._emit(f"{point}/{plugin}", parent.trace_id, parent, start, end, attrs, trace_state=parent.trace_state)
        pre = record.preemption
        if point in ("PostFilter", "PodGroupPostFilter") and pre and pre.get("plugin") == plugin:
            victims = tuple(pre.get("victims") or ())
            attrs = {
                "kubeberth.plugin": plugin,
                "kubeberth.preemption.candidates": pre.get("candidates", 0),
                "kubeberth.preemption.victims": victims,
                "kubeberth.preemption.victim_count": len(victims),
                "kubeberth.preemption.nominated_node": pre.get("nominated_node", ""),
            }
            name = "Preemption"
            if pre.get("pod_group"):  # workload-aware: the whole group preempts, each member nominated
                name = "PodGroupPreemption"
                attrs["kubeberth.preemption.pod_group"] = pre["pod_group"]
                attrs["kubeberth.preemption.nominated_nodes"] = tuple(sorted(set((pre.get("nominations") or {}).values())))
            self._emit(name, parent.trace_id, ctx, start, end, attrs, trace_state=parent.trace_state)

    # ---- the binding cycle -----------------------------------------------------------
    def binding_done(self, record: CycleRecord) -> None:
        """Emit the BindingCycle span into the scheduling cycle's trace (only if it was sampled)."""
        binding = record.binding
        root = record.span_context
        if root is None or not binding:
            return
        attrs: dict[str, Any] = {
            "k8s.node.name": binding["node"],
            "k8s.pod.name": record.pod.partition("/")[2],
            "kubeberth.binding.result": binding["result"],
            # The binding cycle runs on the generation its scheduling cycle started with.
            "kubeberth.generation": binding.get("generation", record.generation),
        }
        if binding.get("nominated"):  # status.nominatedNodeName written before PreBind (NominatedNodeNameForExpectation)
            attrs["kubeberth.binding.nominated_node"] = binding["nominated"]
        status = _UNSET
        if binding["result"] != "Bound":
            attrs["kubeberth.message"] = binding["message"]
            if binding["result"] == "Error":
                status = Status(StatusCode.ERROR, binding["message"])
        ctx = SpanContext(root.trace_id, self._ids.generate_span_id(), False, _SAMPLED, root.trace_state)
        ran = []
        for point, start, end, code in binding["steps"]:
            label = _STATUS.get(code, code)
            ran.append(f"{point} {label} {(end - start) / 1e6:.3f} ms")
            if label not in ("Success", "Skip") or self.all_plugin_spans:  # a failing step gets its own span
                self._emit(
                    point, root.trace_id, ctx, start, end,
                    {"kubeberth.extension_point": point, "kubeberth.status": label},
                    trace_state=root.trace_state,
                )
        attrs["kubeberth.steps"] = "; ".join(ran)
        self.processor.on_end(
            ReadableSpan(
                "BindingCycle", ctx, root, self.resource, attrs, (), (), SpanKind.INTERNAL, None, status,
                binding["start_ns"], binding["end_ns"], self.scope,
            )
        )

    # ---- a shadow generation's decision ------------------------------------------------
    def shadow_decision(
        self, live: SpanContext | None, attrs: dict[str, Any], start: int, end: int, error: str = ""
    ) -> str:
        """A ShadowDecision span: in the live SchedulingCycle's trace, its child and linked to it,
        when that cycle was sampled (`live` its context); else a trace of its own if the sampler
        keeps it. Returns the trace id ("" when not sampled)."""
        status = Status(StatusCode.ERROR, error) if error else _UNSET
        links: tuple[Link, ...] = ()
        if live is None:
            trace_id = self._ids.generate_trace_id()
            decision = self.sampler.should_sample(None, trace_id, "ShadowDecision", SpanKind.INTERNAL, attrs)
            if not decision.decision.is_sampled():
                return ""
            trace_state = decision.trace_state
        else:
            trace_id, trace_state = live.trace_id, live.trace_state
            links = (Link(live, {"kubeberth.link": "live_decision"}),)
        ctx = SpanContext(trace_id, self._ids.generate_span_id(), False, _SAMPLED, trace_state)
        self.processor.on_end(
            ReadableSpan(
                "ShadowDecision", ctx, live, self.resource, attrs, (), links, SpanKind.INTERNAL, None, status,
                start, end, self.scope,
            )
        )
        return format(trace_id, "032x")

    def shutdown(self) -> None:
        self.processor.force_flush()
        self.processor.shutdown()


class _Resource(Resource):
    """A Resource that hashes once: the OTLP encoder groups every span by its resource, and
    Resource.__hash__ serializes all attributes to JSON each time (16% of encoding)."""

    def __init__(self, attributes: Any, schema_url: str | None = None) -> None:
        super().__init__(attributes, schema_url)
        self._hash = super().__hash__()

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other)


def _top(reasons: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_REASONS]


def _fmt_scores(plugins: dict[str, Any]) -> str:
    return ", ".join(f"{p}={v:g}" for p, v in plugins.items())

"""Decision traces (DESIGN property 5): the spans of a scheduling attempt, built after the fact.

The loop records each cycle cheaply into a CycleRecord; this observer turns it into spans once
the cycle is over, so an unsampled attempt costs one root-span sampling decision and nothing else.

    SchedulingCycle                  pod, profile, generation, attempt, result, node, counts, queue time
      PreFilter / Filter / ...       one per extension point (Filter: per-plugin rejection summary,
        Filter/NodeResourcesFit      Score: top-N nodes with each plugin's weighted contribution)
      PostFilter
        PostFilter/DefaultPreemption
          Preemption                 candidates, victims, nominated node
      BindingCycle                   same trace: WaitOnPermit, PreBind, Bind, PostBind

Summaries, never one attribute per node. Attribute names follow the OpenTelemetry semantic
conventions where they exist (k8s.pod.name, k8s.namespace.name, k8s.pod.uid, k8s.node.name).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, Status, StatusCode

from ..runtime.records import CycleRecord
from .otel import RESULT_ATTRIBUTE

TRACER_NAME = "kubeberth"
TOP_REASONS = 5  # reasons kept per plugin in the filter summary


def _fmt_scores(plugins: dict[str, Any]) -> str:
    return ", ".join(f"{p}={v:g}" for p, v in plugins.items())


class DecisionTracer:
    """Scheduler observer: emits the spans of one CycleRecord (and later of its binding cycle)."""

    def __init__(self, provider: TracerProvider, top_n: int = 5) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer(TRACER_NAME)
        self.top_n = top_n

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
        root = self.tracer.start_span("SchedulingCycle", start_time=record.start_ns, attributes=attrs)
        if not root.is_recording():
            return
        ctx = root.get_span_context()
        record.trace_id = format(ctx.trace_id, "032x")
        record.span_context = ctx
        if record.node:
            root.set_attribute("k8s.node.name", record.node)
        if record.message:
            root.set_attribute("kubeberth.message", record.message)
        for queue, seconds in record.queue.items():
            root.set_attribute(f"kubeberth.queue.{queue}_seconds", round(seconds, 6))
        if record.result == "Error":
            root.set_status(Status(StatusCode.ERROR, record.message))
            root.set_attribute("error.type", "PluginError")
        parent = trace.set_span_in_context(root)
        end = record.end_ns or None
        for point, plugins in self._points(record):
            self._point_span(record, point, plugins, parent)
        root.end(end_time=end)

    @staticmethod
    def _points(record: CycleRecord) -> list[tuple[str, dict[str, list[tuple[int, int, dict[str, Any]]]]]]:
        """Steps grouped by extension point, then plugin (filters run in chunks: one span per plugin)."""
        out: list[tuple[str, dict[str, list[tuple[int, int, dict[str, Any]]]]]] = []
        for point, plugin, start, end, extra in record.steps:
            if not out or out[-1][0] != point:
                out.append((point, {}))
            out[-1][1].setdefault(plugin, []).append((start, end, extra))
        return out

    def _point_span(self, record: CycleRecord, point: str, plugins: dict[str, list[tuple[int, int, dict[str, Any]]]], parent: Any) -> None:
        start = min(s for steps in plugins.values() for s, _e, _x in steps)
        end = max(e for steps in plugins.values() for _s, e, _x in steps)
        span = self.tracer.start_span(point, context=parent, start_time=start, attributes={"kubeberth.extension_point": point})
        if point == "Filter" and record.rejected:
            span.set_attribute("kubeberth.filter.rejected", [
                f"{plugin}: {sum(reasons.values())} ({'; '.join(f'{r}: {c}' for r, c in _top(reasons))})"
                for plugin, reasons in record.rejected.items()
            ])
        if point == "Score" and record.top_scores:
            top = record.top_scores[: self.top_n]
            span.set_attribute("kubeberth.score.top_nodes", [t["node"] for t in top])
            span.set_attribute("kubeberth.score.top", [
                f"{t['node']} {t['total']:g} ({_fmt_scores(t['plugins'])})" for t in top
            ])
        pctx = trace.set_span_in_context(span)
        for plugin, steps in plugins.items():
            if not plugin:  # recorded for the extension point as a whole
                code = steps[-1][2].get("code")
                if code:
                    span.set_attribute("kubeberth.status", code)
                continue
            self._plugin_span(record, point, plugin, steps, pctx)
        span.end(end_time=end)

    def _plugin_span(self, record: CycleRecord, point: str, plugin: str, steps: list[tuple[int, int, dict[str, Any]]], parent: Any) -> None:
        attrs: dict[str, Any] = {"kubeberth.plugin": plugin, "kubeberth.extension_point": point}
        last = steps[-1][2]
        if "code" in last:
            attrs["kubeberth.status"] = last["code"]
        if point == "Filter":
            rejected = sum(int(x.get("rejected", 0)) for _s, _e, x in steps)
            attrs["kubeberth.nodes.rejected"] = rejected
            attrs["kubeberth.status"] = "Unschedulable" if rejected else "Success"
            reasons = record.rejected.get(plugin)
            if reasons:
                attrs["kubeberth.reasons"] = [f"{r}: {c}" for r, c in _top(reasons)]
        elif point == "Score":
            attrs["kubeberth.weight"] = last.get("weight", 1)
        elif point == "PostFilter" and last.get("nominated"):
            attrs["kubeberth.nominated_node"] = last["nominated"]
        start, end = steps[0][0], steps[-1][1]
        span = self.tracer.start_span(f"{point}/{plugin}", context=parent, start_time=start, attributes=attrs)
        pre = record.preemption
        if point == "PostFilter" and pre and pre.get("plugin") == plugin:
            child = self.tracer.start_span(
                "Preemption",
                context=trace.set_span_in_context(span),
                start_time=start,
                attributes={
                    "kubeberth.plugin": plugin,
                    "kubeberth.preemption.candidates": pre.get("candidates", 0),
                    "kubeberth.preemption.victims": list(pre.get("victims") or ()),
                    "kubeberth.preemption.victim_count": len(pre.get("victims") or ()),
                    "kubeberth.preemption.nominated_node": pre.get("nominated_node", ""),
                },
            )
            child.end(end_time=end)
        span.end(end_time=end)

    # ---- the binding cycle -----------------------------------------------------------
    def binding_done(self, record: CycleRecord) -> None:
        """Emit the BindingCycle span into the scheduling cycle's trace (only if it was sampled)."""
        binding = record.binding
        if record.span_context is None or not binding:
            return
        parent = trace.set_span_in_context(NonRecordingSpan(record.span_context))
        attrs = {
            "k8s.node.name": binding["node"],
            "k8s.pod.name": record.pod.partition("/")[2],
            "kubeberth.binding.result": binding["result"],
        }
        span = self.tracer.start_span("BindingCycle", context=parent, start_time=binding["start_ns"], attributes=attrs)
        if binding["result"] != "Bound":
            span.set_attribute("kubeberth.message", binding["message"])
            if binding["result"] == "Error":
                span.set_status(Status(StatusCode.ERROR, binding["message"]))
        bctx = trace.set_span_in_context(span)
        for point, start, end, code in binding["steps"]:
            child = self.tracer.start_span(
                point, context=bctx, start_time=start, attributes={"kubeberth.extension_point": point, "kubeberth.status": code}
            )
            child.end(end_time=end)
        span.end(end_time=binding["end_ns"])

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()


def _top(reasons: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_REASONS]

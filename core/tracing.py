"""OpenTelemetry traces of scheduling decisions (DESIGN property 5).

The loop records each cycle cheaply into a CycleRecord; when tracing is on, this observer turns
the record into spans after the fact — one per cycle, one per extension point, one per plugin —
so a disabled tracer costs the hot path nothing.
"""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from .framework import CycleRecord

TRACER_NAME = "kubeberth"


def make_provider(endpoint: str | None = None, exporter: SpanExporter | None = None) -> TracerProvider:
    """A provider exporting OTLP/HTTP to `endpoint` (e.g. http://127.0.0.1:4318) or to `exporter`."""
    provider = TracerProvider(resource=Resource.create({"service.name": "kubeberth"}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces" if endpoint else None)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


class DecisionTracer:
    """Scheduler observer: emits the spans of one CycleRecord."""

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer(TRACER_NAME)

    def __call__(self, record: CycleRecord) -> None:
        attrs: dict[str, Any] = {
            "k8s.pod.name": record.pod.split("/", 1)[-1],
            "k8s.namespace.name": record.pod.split("/", 1)[0],
            "k8s.pod.uid": record.uid,
            "kubeberth.profile": record.profile,
            "kubeberth.generation": record.generation,
            "kubeberth.result": record.result,
            "kubeberth.node": record.node or "",
            "kubeberth.evaluated_nodes": record.evaluated_nodes,
            "kubeberth.feasible_nodes": record.feasible_nodes,
        }
        if record.message:
            attrs["kubeberth.message"] = record.message
        for plugin, reasons in record.rejected.items():
            attrs[f"kubeberth.rejected.{plugin}"] = "; ".join(f"{r}: {c}" for r, c in reasons.items())
        if record.top_scores:
            attrs["kubeberth.top_scores"] = json.dumps(record.top_scores)
        root = self.tracer.start_span(f"schedule {record.pod}", start_time=record.start_ns, attributes=attrs)
        ctx = trace.set_span_in_context(root)
        for point, steps in groupby(record.steps, key=lambda s: s[0]):
            steps = list(steps)
            span = self.tracer.start_span(point, context=ctx, start_time=steps[0][2])
            pctx = trace.set_span_in_context(span)
            for _point, plugin, start, end, extra in steps:
                child = self.tracer.start_span(
                    f"{point}/{plugin}",
                    context=pctx,
                    start_time=start,
                    attributes={"kubeberth.plugin": plugin, **{f"kubeberth.{k}": v for k, v in extra.items()}},
                )
                child.end(end_time=end)
            span.end(end_time=max(s[3] for s in steps))
        root.end(end_time=record.end_ns or None)

    def shutdown(self) -> None:
        self.provider.force_flush()
        self.provider.shutdown()

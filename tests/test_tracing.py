"""Decision traces: one span per cycle, per extension point and per plugin, with the why."""

from __future__ import annotations

import json

from kubeberth.generation import build_generation
from kubeberth.simulate import simulate
from kubeberth.tracing import DecisionTracer, make_provider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def _node(name: str, cpu: str) -> dict:
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {"kind": "Node", "metadata": {"name": name}, "status": {"allocatable": alloc}}


def _pod(name: str, cpu: str) -> dict:
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
    }


def test_spans_explain_placement_and_rejection() -> None:
    exporter = InMemorySpanExporter()
    tracer = DecisionTracer(make_provider(exporter=exporter))
    objects = [_node("small", "1"), _node("big", "4"), _pod("fits", "2"), _pod("huge", "16")]
    simulate(build_generation(), objects, seed=1, observers=[tracer])
    tracer.shutdown()
    spans = exporter.get_finished_spans()
    roots = {s.name: s for s in spans if s.parent is None}
    assert set(roots) == {"schedule default/fits", "schedule default/huge"}
    fits = roots["schedule default/fits"].attributes
    assert fits["kubeberth.result"] == "Scheduled"
    assert fits["kubeberth.node"] == "big"
    assert fits["kubeberth.rejected.NodeResourcesFit"] == "Insufficient cpu: 1"
    huge = roots["schedule default/huge"].attributes
    assert huge["kubeberth.result"] == "Unschedulable"
    assert huge["kubeberth.message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    children = [s for s in spans if s.parent is not None and s.parent.span_id == roots["schedule default/fits"].context.span_id]
    assert {c.name for c in children} >= {"Filter"}
    plugin_spans = [s for s in spans if s.name == "Filter/NodeResourcesFit"]
    assert plugin_spans and all(s.end_time >= s.start_time for s in plugin_spans)
    assert fits["kubeberth.generation"].startswith("g")
    assert "kubeberth.top_scores" not in fits or json.loads(fits["kubeberth.top_scores"])

"""Observability of scheduling decisions: traces, kube-scheduler's metrics, decision records, logs.

Everything here is fed by the CycleRecord the loop writes for each attempt (DESIGN property 5),
after the cycle, so the hot path pays for none of it. `Observability` wires the pieces to one
scheduler and one HTTP server; `run`, `run --embedded` and `simulate` all use it:

    obs = Observability.from_env(settings)        # OTEL_* environment + kubeberth settings
    obs.attach(scheduler)                          # observers, queue metrics
    add_observability_routes(http, obs)            # kubeberth.apps: /metrics, /debug/decisions/<ns>/<pod>
    ...
    obs.shutdown()                                 # flush spans
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..runtime.records import CycleRecord
from .annotations import DecisionAnnotator
from .decisions import DEFAULT_DECISION_RECORDS, DecisionLog, DecisionStore
from .metrics import SchedulerMetrics
from .otel import TracingConfig
from .tracing import DecisionTracer

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

    from ..scheduling.scheduler import Scheduler

__all__ = [
    "DecisionLog",
    "DecisionStore",
    "DecisionTracer",
    "Observability",
    "SchedulerMetrics",
    "TracingConfig",
]

log = logging.getLogger(__name__)


class Observability:
    """The observers of one scheduler; each part is optional."""

    def __init__(
        self,
        tracer: DecisionTracer | None = None,
        metrics: SchedulerMetrics | None = None,
        store: DecisionStore | None = None,
        decision_log: DecisionLog | None = None,
        annotator: DecisionAnnotator | None = None,
    ) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.store = store
        self.decision_log = decision_log
        self.annotator = annotator

    @classmethod
    def from_env(
        cls,
        *,
        otlp_endpoint: str | None = None,
        env: Mapping[str, str] | None = None,
        metrics: bool = True,
        decision_records: int = DEFAULT_DECISION_RECORDS,
        exporter: SpanExporter | None = None,
        annotate: Any = None,
    ) -> Observability:
        """Tracing from the OTEL_* environment (or `exporter`); metrics and decision records on;
        the decision annotation written through `annotate` (a backend), when given."""
        config = TracingConfig.from_env(env, otlp_endpoint=otlp_endpoint)
        tracer = None
        if exporter is not None or config.enabled:
            tracer = DecisionTracer.from_config(config, exporter)
            log.info(
                "decision traces: %s %s (sampler %s)",
                f"{config.exporter} {config.protocol}" if exporter is None else "custom exporter",
                config.endpoint or "(default endpoint)",
                config.make_sampler().get_description(),
            )
        return cls(
            tracer=tracer,
            metrics=SchedulerMetrics() if metrics else None,
            store=DecisionStore(decision_records) if decision_records > 0 else None,
            decision_log=DecisionLog(),
            annotator=DecisionAnnotator(annotate) if annotate is not None else None,
        )

    # ---- wiring ----------------------------------------------------------------------
    def attach(self, scheduler: Scheduler) -> None:
        """Observe `scheduler`'s cycles; the tracer goes first so the others see the trace id."""
        scheduler.observers.append(self.cycle_done)
        scheduler.binding_observers.append(self.binding_done)
        if self.store is not None:
            from .pod_state import explain_missing, holds

            store = self.store
            store.track(holds(scheduler), lambda key: explain_missing(scheduler, key, store.size))
        if self.metrics is not None:
            queue = scheduler.queue
            queue.on_incoming = self.metrics.on_incoming
            self.metrics.watch_queue(lambda: [e.where for e in list(queue.entries.values())])
            self.metrics.watch_batches(lambda: dict(scheduler.batch_counters))
            self.metrics.watch_unschedulable(
                lambda: list(queue.entries.values()),
                lambda pod: (scheduler.framework_for(pod) or scheduler.generation.default_profile).profile,
            )
            cluster = scheduler.cluster
            self.metrics.watch_cache(lambda: (len(cluster.table), len(cluster.placement), len(cluster.assumed)))
            scheduler.on_event_handled = self.metrics.event_handled
            scheduler.timeout_observers.append(self.metrics.plugin_timed_out)
            self.metrics.set_generation(scheduler.generation.id)

    def cycle_done(self, record: CycleRecord) -> None:
        if self.tracer is not None:
            self.tracer(record)
        if self.metrics is not None:
            self.metrics.cycle_done(record)
        if self.store is not None:
            self.store.add(record)
        if self.decision_log is not None:
            self.decision_log(record)
        if self.annotator is not None:
            self.annotator.cycle_done(record)

    def binding_done(self, record: CycleRecord) -> None:
        if self.tracer is not None:
            self.tracer.binding_done(record)
        if self.store is not None and (record.binding or {}).get("result") == "Bound":
            self.store.finished(record)
        if self.metrics is not None:
            self.metrics.binding_done(record)
        if self.annotator is not None:
            self.annotator.binding_done(record)

    def generation_swapped(self, generation_id: str) -> None:
        """A new generation now schedules (kubeberth_generation_info)."""
        if self.metrics is not None:
            self.metrics.set_generation(generation_id)

    def reloaded(self, result: str) -> None:
        """A reload finished: result is success, failed or rolled_back (kubeberth_reloads_total)."""
        if self.metrics is not None:
            self.metrics.reloaded(result)

    def memory_exceeded(self, action: str) -> None:
        """Memory growth past the bound: action is rolled_back or reported (kubeberth_memory_growth_exceeded_total)."""
        if self.metrics is not None:
            self.metrics.memory_exceeded(action)

    def shutdown(self) -> None:
        if self.tracer is not None:
            self.tracer.shutdown()
        if self.annotator is not None:
            self.annotator.shutdown()

    def __repr__(self) -> str:
        parts: list[Any] = [p for p in ("tracer", "metrics", "store") if getattr(self, p) is not None]
        return f"<Observability {' '.join(parts) or 'off'}>"

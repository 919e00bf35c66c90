"""Tracing configuration the OpenTelemetry way: the standard OTEL_* environment.

Honoured by `run`, `run --embedded` and `simulate` alike, so a Deployment configures kubeberth as
it configures any other OTel-instrumented service. `--otlp-endpoint` is only a shorthand for
OTEL_EXPORTER_OTLP_ENDPOINT.

Tracing is on when an endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER names exporters explicitly: otlp,
console, or a comma list of both (as the OTel SDK configuration spec allows); the console exporter
writes to stderr, so stdout stays the command's own (`simulate --json`). It is off with
OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Sampling is always parent-based
(a sampled cycle's binding span joins its trace); OTEL_TRACES_SAMPLER picks the root decision, and
unschedulable and errored attempts are sampled regardless (see DecisionSampler).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, SynchronousMultiSpanProcessor
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import (
    ALWAYS_OFF,
    ALWAYS_ON,
    Decision,
    ParentBased,
    Sampler,
    SamplingResult,
    TraceIdRatioBased,
)
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from ..errors import ConfigError

DEFAULT_SERVICE_NAME = "kubeberth"
PROTOCOLS = ("grpc", "http/protobuf")
EXPORTERS = ("otlp", "console")  # OTEL_TRACES_EXPORTER values kubeberth builds, besides "none"
DEFAULT_PROTOCOL = "http/protobuf"  # the OTel specification's default for SDKs
RESULT_ATTRIBUTE = "kubeberth.result"
ALWAYS_SAMPLED_RESULTS = frozenset({"Unschedulable", "Error"})
_BSP = {
    "OTEL_BSP_MAX_QUEUE_SIZE": "max_queue_size",
    "OTEL_BSP_SCHEDULE_DELAY": "schedule_delay_millis",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "max_export_batch_size",
    "OTEL_BSP_EXPORT_TIMEOUT": "export_timeout_millis",
}
_SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)


class DecisionSampler(Sampler):
    """Root sampler: the configured one, except that failed attempts are always kept.

    A tail rule kubeberth can apply at the head: spans are built after the cycle, so the root
    span's attributes already say whether the pod was unschedulable or hit an error.
    """

    def __init__(self, base: Sampler, keep_failures: bool = True) -> None:
        self.base = base
        self.keep_failures = keep_failures

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        if self.keep_failures and attributes and attributes.get(RESULT_ATTRIBUTE) in ALWAYS_SAMPLED_RESULTS:
            return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes, trace_state)
        return self.base.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def get_description(self) -> str:
        return f"DecisionSampler{{{self.base.get_description()},keep_failures={self.keep_failures}}}"


@dataclass(frozen=True)
class TracingConfig:
    """What the OTEL_* environment (plus the --otlp-endpoint shorthand) asks for."""

    enabled: bool
    exporter: str = "otlp"  # a comma list of EXPORTERS (otlp, console, otlp,console), or none
    protocol: str = DEFAULT_PROTOCOL
    endpoint: str | None = None  # per-signal URL (…/v1/traces for http) or grpc target
    sampler: str = "parentbased_always_on"
    sampler_arg: float = 1.0
    service_name: str = DEFAULT_SERVICE_NAME
    resource_attributes: dict[str, str] = field(default_factory=dict)
    batch: dict[str, Any] = field(default_factory=dict)  # OTEL_BSP_* (ints) for the batch span processor

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, otlp_endpoint: str | None = None) -> TracingConfig:
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return (env.get(name) or "").strip()

        if get("OTEL_SDK_DISABLED").lower() == "true":
            return cls(enabled=False)
        exporter = _exporter_list(get("OTEL_TRACES_EXPORTER"))
        protocol = (get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or get("OTEL_EXPORTER_OTLP_PROTOCOL") or DEFAULT_PROTOCOL).lower()
        if protocol not in PROTOCOLS:
            var = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" if get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") else "OTEL_EXPORTER_OTLP_PROTOCOL"
            raise ConfigError(f"{var}={protocol!r}: use one of {', '.join(PROTOCOLS)}")
        endpoint = _endpoint(get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), otlp_endpoint or get("OTEL_EXPORTER_OTLP_ENDPOINT"), protocol)
        sampler = (get("OTEL_TRACES_SAMPLER") or "parentbased_always_on").lower()
        if sampler not in _SAMPLERS:
            raise ConfigError(f"OTEL_TRACES_SAMPLER={sampler!r}: use one of {', '.join(_SAMPLERS)}")
        arg = 1.0
        if sampler.endswith("traceidratio") and get("OTEL_TRACES_SAMPLER_ARG"):
            try:
                arg = float(get("OTEL_TRACES_SAMPLER_ARG"))
            except ValueError:
                arg = -1.0
            if not 0.0 <= arg <= 1.0:
                raise ConfigError(
                    f"OTEL_TRACES_SAMPLER_ARG={get('OTEL_TRACES_SAMPLER_ARG')!r}: expected a ratio between 0 and 1"
                )
        batch: dict[str, int] = {}
        for var, param in _BSP.items():
            if get(var):
                try:
                    batch[param] = int(get(var))
                except ValueError:
                    batch[param] = -1
                if batch[param] < (0 if param == "schedule_delay_millis" else 1):
                    raise ConfigError(f"{var}={get(var)!r}: expected a positive whole number")
        resource = _parse_resource_attributes(get("OTEL_RESOURCE_ATTRIBUTES"))
        service = get("OTEL_SERVICE_NAME") or resource.get("service.name") or DEFAULT_SERVICE_NAME
        enabled = exporter not in ("", "none") or (exporter == "" and endpoint is not None)
        return cls(
            enabled=enabled,
            exporter=exporter or "otlp",
            protocol=protocol,
            endpoint=endpoint,
            sampler=sampler,
            sampler_arg=arg,
            service_name=service,
            resource_attributes=resource,
            batch=batch,
        )

    def make_sampler(self) -> Sampler:
        """Parent-based, with the configured root decision and failures always kept."""
        kind = self.sampler.removeprefix("parentbased_")
        if kind == "always_off":
            return ParentBased(root=ALWAYS_OFF)  # explicitly off: no tail rule either
        base: Sampler = ALWAYS_ON if kind == "always_on" else TraceIdRatioBased(self.sampler_arg)
        return ParentBased(root=DecisionSampler(base))

    def make_resource(self) -> Resource:
        from .. import __version__

        attrs: dict[str, Any] = {"service.version": __version__, **self.resource_attributes}
        attrs["service.name"] = self.service_name
        return Resource.create(attrs)

    @property
    def exporters(self) -> tuple[str, ...]:
        """The exporters to build, in the order given (none: no exporter)."""
        return tuple(e for e in self.exporter.split(",") if e and e != "none")

    def make_exporter(self, name: str | None = None) -> SpanExporter:
        """Exporter `name` (default: the first configured)."""
        name = name or (self.exporters or ("otlp",))[0]
        if name == "console":
            import sys

            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            return ConsoleSpanExporter(out=sys.stderr)  # never stdout: it is the command's output
        if self.protocol == "grpc":
            from ..api.extras import require_extra

            require_extra("otlp-grpc", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

            # The gRPC exporter takes http:// as "insecure" and https:// as TLS, as the spec says.
            return GrpcExporter(endpoint=self.endpoint)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

        return HttpExporter(endpoint=self.endpoint)

    def make_processor(self, exporter: SpanExporter | None = None, batch: bool = True) -> SpanProcessor:
        """One processor for `exporter`, or for each configured exporter (SDK's multi processor)."""
        if exporter is not None or len(self.exporters) <= 1:
            exporter = exporter or self.make_exporter()
            return BatchSpanProcessor(exporter, **self.batch) if batch else SimpleSpanProcessor(exporter)
        multi = SynchronousMultiSpanProcessor()
        for name in self.exporters:
            multi.add_span_processor(self.make_processor(self.make_exporter(name), batch))
        return multi


def _exporter_list(raw: str) -> str:
    """OTEL_TRACES_EXPORTER as a normalized comma list ("" when unset); a name kubeberth does not
    build, or none beside an exporter, is a ConfigError."""
    names = [n.strip().lower() for n in raw.split(",") if n.strip()]
    unknown = [n for n in names if n not in (*EXPORTERS, "none")]
    if unknown:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER={raw.strip()!r}: unknown exporter {unknown[0]!r}; "
            "use otlp, console, a comma list of them, or none"
        )
    if "none" in names and len(names) > 1:
        raise ConfigError(f"OTEL_TRACES_EXPORTER={raw.strip()!r}: none cannot be combined with other exporters")
    return ",".join(dict.fromkeys(names))


def _endpoint(traces: str, generic: str, protocol: str) -> str | None:
    """The per-signal endpoint wins verbatim; the generic one gets /v1/traces for HTTP (OTel spec)."""
    if traces:
        return traces
    if not generic:
        return None
    if protocol == "grpc":
        return generic
    return generic.rstrip("/") + "/v1/traces"


def _parse_resource_attributes(raw: str) -> dict[str, str]:
    """OTEL_RESOURCE_ATTRIBUTES: comma-separated key=value pairs, values percent-encoded."""
    from urllib.parse import unquote

    out: dict[str, str] = {}
    for item in raw.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"OTEL_RESOURCE_ATTRIBUTES: {item!r} is not key=value; separate pairs with commas")
        out[key.strip()] = unquote(value.strip())
    return out

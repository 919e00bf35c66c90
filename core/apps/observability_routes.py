"""The observability routes on the scheduler's HTTP server: /metrics and /debug/decisions/<ns>/<pod>.

The payloads are kubeberth.observability's (the scrape with content negotiation, the decision
store's answers); this module only puts them on the server, so observability never imports the
HTTP layer above it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from prometheus_client.registry import Collector

from ..observability.exposition import scrape
from .httpserver import HTTPServer, Request, Response

if TYPE_CHECKING:
    from ..observability import Observability


def metrics_route(registries: Callable[[], Iterable[Collector]]) -> Callable[[Request], Response]:
    """The /metrics request handler over what `registries()` returns at scrape time."""

    def handler(request: Request) -> Response:
        content_type, body, headers = scrape(registries(), request.header("Accept"), request.header("Accept-Encoding"))
        return Response(200, content_type, body, headers)

    return handler


def add_observability_routes(http: HTTPServer, observability: Observability) -> None:
    """/metrics when metrics are on, /debug/decisions/ when decisions are kept."""
    if observability.metrics is not None:
        http.add_request_route("/metrics", metrics_route(observability.metrics.registries))
    if observability.store is not None:
        http.add_prefix_route("/debug/decisions/", observability.store.route)

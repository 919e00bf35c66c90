"""client-go's rest_client_* metrics for the raw API client (k8s.io/client-go/tools/metrics, registered
by k8s.io/component-base/metrics/prometheus/restclient).

One process-wide `REST_CLIENT_METRICS`, shared by every RawClient (the scheduler's, the event
recorder's, leader election's), as client-go's adapters are process-global. RawClient records into
plain counts under a lock (several threads send requests); prometheus_client's families are built
only when /metrics is scraped, by the collector `kubeberth run` registers on the scheduler's
registry. Labels follow client-go: `method`/`verb` are the HTTP method, `host` the API server's
host:port, `code` the status code or "<error>" when no answer came.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

# component-base/metrics/prometheus/restclient: requestLatency and rateLimiterLatency buckets.
LATENCY_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)

REQUESTS_TOTAL = ("rest_client_requests_total", "Number of HTTP requests, partitioned by status code, method, and host.")
REQUEST_DURATION = ("rest_client_request_duration_seconds", "Request latency in seconds. Broken down by verb, and host.")
RATE_LIMITER_DURATION = (
    "rest_client_rate_limiter_duration_seconds",
    "Client side rate limiter latency in seconds. Broken down by verb, and host.",
)


class RestClientMetrics:
    """Counts of API requests by (code, method, host); latency histograms by (verb, host)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, str], int] = {}
        self.latency: dict[tuple[str, str], list[Any]] = {}  # (verb, host) -> [bucket counts, sum]
        self.rate_limiter: dict[tuple[str, str], list[Any]] = {}

    def request_done(self, method: str, host: str, code: int, seconds: float) -> None:
        """One request got its answer (code 0: none came)."""
        key = (str(code) if code else "<error>", method, host)
        with self._lock:
            self.requests[key] = self.requests.get(key, 0) + 1
            _observe(self.latency, (method, host), seconds)

    def rate_limited(self, method: str, host: str, seconds: float) -> None:
        """The client-side token bucket held a request for `seconds` (0 when a token was free)."""
        with self._lock:
            _observe(self.rate_limiter, (method, host), seconds)

    def collect(self) -> Iterator[Any]:
        """prometheus_client's Collector protocol."""
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

        with self._lock:
            requests = dict(self.requests)
            latency = {k: (list(v[0]), v[1]) for k, v in self.latency.items()}
            limiter = {k: (list(v[0]), v[1]) for k, v in self.rate_limiter.items()}
        counter = CounterMetricFamily(*REQUESTS_TOTAL, labels=["code", "method", "host"])
        for labels, value in sorted(requests.items()):
            counter.add_metric(list(labels), value)
        yield counter
        for (name, help_text), series in ((REQUEST_DURATION, latency), (RATE_LIMITER_DURATION, limiter)):
            family = HistogramMetricFamily(name, help_text, labels=["verb", "host"])
            for key, (counts, total) in sorted(series.items()):
                family.add_metric(list(key), _cumulative(counts), total)
            yield family


def _observe(series: dict[tuple[str, str], list[Any]], key: tuple[str, str], value: float) -> None:
    s = series.get(key)
    if s is None:
        s = series[key] = [[0] * (len(LATENCY_BUCKETS) + 1), 0.0]
    s[0][bisect_left(LATENCY_BUCKETS, value)] += 1
    s[1] += value


def _cumulative(counts: list[int]) -> list[tuple[str, float]]:
    from prometheus_client.utils import floatToGoString

    out: list[tuple[str, float]] = []
    running = 0
    for bound, count in zip([*LATENCY_BUCKETS, float("inf")], counts, strict=True):
        running += count
        out.append((floatToGoString(bound), running))
    return out


REST_CLIENT_METRICS = RestClientMetrics()

"""Connection liveness: a cheap probe of the API server over a long-lived connection of its own.

HTTP/1.1 gives each watch a TCP connection of its own, and nothing can be sent on a watch while it
streams, so a watch that stopped receiving (a NAT or load balancer that lost the flow, a proxy
that stopped forwarding) looks like a quiet resource. client-go sends HTTP/2 pings on the
connection its watches share; here a sentinel connection, opened through the same path as the
watches and kept open by a `GET /version` every `interval` seconds, stands in for them: what
breaks the sentinel breaks the watch flows beside it. When the rule below declares the path dead,
the backend closes every watch stream and idle pooled connection, and the informers resume from
their resourceVersion over new connections (docs/reliability.md, "Connection liveness").

The rule (LivenessRule): a probe that gets any HTTP answer within `timeout` (whatever the status)
clears the count. One whose connection breaks before the timeout (reset, closed, refused: the
network answered, the flow is gone) declares the path dead at once. One that gets no answer within
`timeout` counts one; `failures` of those in a row declare it dead. A slow but live server (answers
in 2-5 s) stays under the 10 s default timeout and is never counted.
"""

from __future__ import annotations

import copy
import enum
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .client import ApiError, RawClient
from .informer import _is_timeout

log = logging.getLogger(__name__)

PROBE_PATH = "/version"  # static, readable by every authenticated user (system:public-info-viewer)


class Outcome(enum.Enum):
    ANSWERED = "answered"  # any HTTP status: the connection and the server work
    SILENT = "silent"  # no answer within the timeout: a dead path, or a very slow server
    BROKEN = "broken"  # reset, closed or refused before the timeout: the flow is gone


def classify(error: ApiError | None) -> Outcome:
    """The outcome of one probe from the error it raised (None: it was answered)."""
    if error is None or error.status:
        return Outcome.ANSWERED
    return Outcome.SILENT if _is_timeout(error) else Outcome.BROKEN


class LivenessRule:
    """Counts probe outcomes; says when the connection path is to be declared dead."""

    def __init__(self, failures: int = 2) -> None:
        self.failures = max(1, failures)
        self.silent_in_a_row = 0

    def observe(self, outcome: Outcome) -> str | None:
        """The reason to declare the path dead after this outcome, or None."""
        if outcome is Outcome.ANSWERED:
            self.silent_in_a_row = 0
            return None
        if outcome is Outcome.BROKEN:
            self.silent_in_a_row = 0
            return "the probe connection was broken"
        self.silent_in_a_row += 1
        if self.silent_in_a_row < self.failures:
            return None
        self.silent_in_a_row = 0
        return f"{self.failures} probes in a row got no answer"


def sentinel_client(api_client: Any) -> RawClient:
    """A client over the same server, auth and TLS with a one-connection pool and no automatic
    retries: a failure of its connection is seen, not hidden by a retry on a new one."""
    cfg = copy.copy(api_client.configuration)
    cfg.retries = False
    cfg.connection_pool_maxsize = 1
    return RawClient(type(api_client)(cfg), user_agent="kubeberth/liveness")


class LivenessProbe(threading.Thread):
    """Probes every `interval` seconds, each bounded by `timeout`; calls `on_dead(reason)` when
    the rule declares the path dead. Runs beside the informers, never on the scheduling loop."""

    def __init__(self, raw: RawClient, stopping: threading.Event, on_dead: Callable[[str], None],
                 interval: float = 5.0, timeout: float = 10.0, failures: int = 2) -> None:
        super().__init__(name="kubeberth-liveness", daemon=True)
        self.raw = raw
        self.stopping = stopping
        self.on_dead = on_dead
        self.interval = interval
        self.timeout = timeout
        self.rule = LivenessRule(failures)
        self.probes = 0
        self.declared = 0

    def probe(self) -> tuple[Outcome, ApiError | None]:
        error: ApiError | None = None
        try:
            self.raw.request("GET", PROBE_PATH, timeout=(self.timeout, self.timeout))
        except ApiError as exc:
            error = exc
        self.probes += 1
        return classify(error), error

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            start = time.monotonic()
            outcome, error = self.probe()
            if self.stopping.is_set():
                return
            reason = self.rule.observe(outcome)
            if outcome is not Outcome.ANSWERED:
                log.info("API liveness probe %s after %.1fs: %s", outcome.value, time.monotonic() - start, error)
            if reason is not None:
                self.declared += 1
                try:
                    self.on_dead(reason)
                except Exception:  # noqa: BLE001 - the probe must outlive a failed replacement
                    log.exception("replacing the API connections failed")

"""The connection liveness probe's decision rule (kubeberth.backends.kubernetes.liveness), and the
probe against local servers that answer slowly, never, or reset the connection."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from kubeberth.backends.kubernetes.client import ApiError
from kubeberth.backends.kubernetes.liveness import (
    LivenessProbe,
    LivenessRule,
    Outcome,
    classify,
    sentinel_client,
)
from kubernetes import client

A, S, B = Outcome.ANSWERED, Outcome.SILENT, Outcome.BROKEN


def run_rule(outcomes: list[Outcome], failures: int = 2) -> list[int]:
    """The indexes of the outcomes after which the rule declares the path dead."""
    rule = LivenessRule(failures)
    return [i for i, o in enumerate(outcomes) if rule.observe(o) is not None]


def test_answers_never_declare_dead() -> None:
    assert run_rule([A] * 100) == []


def test_silent_probes_declare_dead_only_in_a_row() -> None:
    assert run_rule([S, A, S, A, S, A]) == []  # an occasional lost answer is forgiven
    assert run_rule([A, S, S]) == [2]
    assert run_rule([S, S, S, S], failures=3) == [2]
    assert run_rule([S, S, S, S]) == [1, 3]  # the count restarts after a declaration


def test_a_broken_connection_declares_dead_at_once() -> None:
    assert run_rule([A, B]) == [1]
    assert run_rule([S, B, S]) == [1]  # and clears the silent count


def test_failures_below_one_mean_one() -> None:
    assert run_rule([S], failures=0) == [0]


def timeout_error() -> ApiError:
    try:
        try:
            raise TimeoutError("read timed out")
        except TimeoutError as exc:
            raise ApiError(0, f"ReadTimeoutError: {exc}") from exc
    except ApiError as err:
        return err


def test_classify() -> None:
    assert classify(None) is A
    assert classify(ApiError(503, "Service Unavailable")) is A  # the server answered: the path works
    assert classify(ApiError(401, "Unauthorized")) is A
    assert classify(timeout_error()) is S
    assert classify(ApiError(0, "ProtocolError: Connection reset by peer")) is B


# ---- the probe against local servers ------------------------------------------------------------------
@pytest.fixture
def slow_server() -> Iterator[Callable[[float], int]]:
    """An HTTP server whose /version answers after a delay set by the test; returns its port."""
    delay = [0.0]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            time.sleep(delay[0])
            body = b'{"major": "1"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False  # a handler still sleeping for a probe that gave up is not waited for

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the probe timed out and closed: writing its late answer fails, as expected

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def set_delay(seconds: float) -> int:
        delay[0] = seconds
        return server.server_address[1]

    yield set_delay
    server.shutdown()
    server.server_close()


def probe_for(port: int, seconds: float, timeout: float) -> tuple[LivenessProbe, list[str]]:
    """Run a probe (interval 0.05 s) against 127.0.0.1:port for `seconds`; returns it and its declarations."""
    cfg = client.Configuration(host=f"http://127.0.0.1:{port}")
    declared: list[str] = []
    stopping = threading.Event()
    probe = LivenessProbe(sentinel_client(client.ApiClient(cfg)), stopping, declared.append,
                          interval=0.05, timeout=timeout, failures=2)
    probe.start()
    time.sleep(seconds)
    stopping.set()
    probe.join(timeout + 1)
    assert not probe.is_alive()
    return probe, declared


def test_a_slow_but_alive_server_is_not_declared_dead(slow_server: Callable[[float], int]) -> None:
    # Scaled down 10x from the defaults: answers in 0.2-0.5 s (2-5 s) under a 1 s (10 s) timeout.
    probe, declared = probe_for(slow_server(0.4), 2.0, timeout=1.0)
    assert probe.probes >= 3 and declared == []


def test_a_server_that_stops_answering_is_declared_dead(slow_server: Callable[[float], int]) -> None:
    probe, declared = probe_for(slow_server(5.0), 1.0, timeout=0.3)
    assert declared == ["2 probes in a row got no answer"]


def test_a_reset_connection_is_declared_dead_at_once() -> None:
    listener = socket.create_server(("127.0.0.1", 0))

    def reset_every_connection() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    threading.Thread(target=reset_every_connection, daemon=True).start()
    try:
        probe, declared = probe_for(listener.getsockname()[1], 0.3, timeout=1.0)
    finally:
        listener.close()
    assert declared and declared[0] == "the probe connection was broken"

"""The raw client's libcurl transport (core/backends/kubernetes/curl_transport.py) against a real HTTP
server on 127.0.0.1: the same answers and errors as the urllib3 path, one kept-alive connection per
thread, timeouts, and the configurations it leaves to urllib3."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from kubeberth.backends.kubernetes.client import ApiError, RawClient
from kubeberth.backends.kubernetes.curl_transport import CurlTransport, use_curl
from kubernetes import client as k8s


class Echo(BaseHTTPRequestHandler):
    """Answers every verb with what it received; /conflict is a 409 Status, /slow is silent for 3 s."""

    protocol_version = "HTTP/1.1"
    peers: set[tuple[str, int]] = set()

    def _answer(self) -> None:
        Echo.peers.add(self.client_address)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/slow"):
            time.sleep(3)
        if self.path.startswith("/conflict"):
            status, out = 409, json.dumps({"kind": "Status", "message": "the object has been modified"}).encode()
        elif self.path.startswith("/empty"):
            status, out = 200, b""
        else:
            status, out = 201, json.dumps({"method": self.command, "path": self.path, "body": body.decode(),
                                           "type": self.headers.get("Content-Type"),
                                           "auth": self.headers.get("Authorization")}).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except (BrokenPipeError, ConnectionResetError):  # /slow's client gave up: that is the point
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    Echo.peers = set()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def raw_client(host: str, curl: bool) -> RawClient:
    cfg = k8s.Configuration()
    cfg.host = host
    cfg.api_key = {"authorization": "token-1"}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    use_curl(curl)
    try:
        raw = RawClient(k8s.ApiClient(cfg))
    finally:
        use_curl(True)
    assert (raw.curl is not None) == curl
    return raw


def test_curl_answers_as_urllib3_does(server: str) -> None:
    calls: list[tuple[str, Any, str | None]] = [
        ("GET", None, None), ("POST", {"a": 1}, None), ("PUT", {"b": [1, 2]}, None),
        ("PATCH", {"c": None}, "application/merge-patch+json"), ("DELETE", {"d": "x"}, None), ("DELETE", None, None),
    ]
    answers = {}
    for curl in (True, False):
        raw = raw_client(server, curl)
        answers[curl] = [raw.request(m, "/api/v1/x y", query=[("q", "1")], body=b, content_type=t)
                         for m, b, t in calls]
    assert answers[True] == answers[False]
    assert [a["method"] for a in answers[True]] == [c[0] for c in calls]
    assert answers[True][0]["path"] == "/api/v1/x%20y?q=1" and answers[True][0]["auth"] == "Bearer token-1"
    assert answers[True][3]["type"] == "application/merge-patch+json"
    # a GET after a POST on the same handle sends no body
    assert answers[True][5]["body"] == "" and json.loads(answers[True][4]["body"]) == {"d": "x"}


def test_curl_errors_are_api_errors(server: str) -> None:
    raw = raw_client(server, True)
    with pytest.raises(ApiError) as conflict:
        raw.request("PUT", "/conflict", body={})
    assert conflict.value.status == 409 and conflict.value.message == "the object has been modified"
    assert raw.request("GET", "/empty") is None
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    with pytest.raises(ApiError) as refused:
        raw_client(f"http://127.0.0.1:{closed}", True).request("GET", "/", timeout=(2, 2))
    assert refused.value.status == 0 and "curl error" in refused.value.reason
    assert not isinstance(refused.value.__cause__, TimeoutError)  # liveness: broken, not silent


def test_curl_read_timeout_is_silence(server: str) -> None:
    raw = raw_client(server, True)
    with pytest.raises(ApiError) as slow:
        raw.request("GET", "/slow", timeout=(2, 1))
    assert slow.value.status == 0 and isinstance(slow.value.__cause__, TimeoutError)  # liveness: silent
    with pytest.raises(ApiError):
        raw.request("GET", "/slow", timeout=1.0)
    assert raw.request("GET", "/after")["path"] == "/after"  # the handle recovers


def test_one_kept_alive_connection_per_thread(server: str) -> None:
    raw = raw_client(server, True)
    for _ in range(5):
        raw.request("POST", "/api/v1/binding", body={"x": 1})
    assert len(Echo.peers) == 1
    worker = threading.Thread(target=lambda: [raw.request("GET", "/w") for _ in range(3)])
    worker.start()
    worker.join(10)
    assert len(Echo.peers) == 2
    raw.replace_connections()  # the path was declared dead: the next request opens a new connection
    raw.request("GET", "/after-reset")
    raw.request("GET", "/after-reset")
    assert len(Echo.peers) == 3


@pytest.mark.parametrize("setting, value", [
    ("proxy", "http://127.0.0.1:3128"), ("tls_server_name", "kubernetes"), ("ca_cert_data", "PEM"),
    ("assert_hostname", False), ("retries", False),
])
def test_configurations_curl_leaves_to_urllib3(setting: str, value: Any) -> None:
    cfg = k8s.Configuration()
    cfg.host = "https://127.0.0.1:6443"
    cfg.ssl_ca_cert = "/ca.crt"
    assert CurlTransport.for_configuration(cfg) is not None
    setattr(cfg, setting, value)
    assert CurlTransport.for_configuration(cfg) is None


def test_system_trust_store_stays_with_urllib3() -> None:
    cfg = k8s.Configuration()
    cfg.host = "https://api.example.test"
    assert CurlTransport.for_configuration(cfg) is None
    cfg.verify_ssl = False
    assert CurlTransport.for_configuration(cfg) is not None

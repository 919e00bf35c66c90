"""A tiny HTTP server for probes and other small endpoints (/healthz, /readyz, /metrics, ...).

Shared by the runner and the observability code: anyone may `add_route(path, handler)` where the
handler returns (status, content_type, body). Loopback by default; the Deployment binds the pod IP
so the kubelet can probe it. Plain HTTP without authentication, so it must never serve anything
sensitive.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log = logging.getLogger(__name__)

DEFAULT_BIND_ADDRESS = "127.0.0.1:10260"

Handler = Callable[[], tuple[int, str, bytes]]
PathHandler = Callable[[str], tuple[int, str, bytes]]  # gets the rest of the path after its prefix
PostHandler = Callable[[str, str], tuple[int, str, bytes]]  # gets (query string, client address)
BodyHandler = Callable[[bytes], tuple[int, str, bytes]]  # gets the request body (JSON APIs)
MAX_BODY_BYTES = 256 << 20  # a full NodeList of a large cluster, as non-cache-capable extender calls send


def check_route(check: Callable[[], tuple[bool, str]]) -> Handler:
    """A probe endpoint: 200 "ok" when check() passes, else 503 with the reason."""

    def handler() -> tuple[int, str, bytes]:
        try:
            ok, why = check()
        except Exception as exc:  # noqa: BLE001 - a failing check is a failed probe
            ok, why = False, f"check raised {type(exc).__name__}: {exc}"
        return (200, "text/plain; charset=utf-8", b"ok") if ok else (503, "text/plain; charset=utf-8", why.encode())

    return handler


def parse_bind_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"bind address {address!r}: expected HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


class HTTPServer:
    """Serve registered routes on a daemon thread."""

    def __init__(self, bind_address: str = DEFAULT_BIND_ADDRESS) -> None:
        self.bind_address = bind_address
        self.routes: dict[str, Handler] = {}
        self.prefix_routes: dict[str, PathHandler] = {}
        self.post_routes: dict[str, PostHandler] = {}
        self.body_routes: dict[str, BodyHandler] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add_route(self, path: str, handler: Handler) -> None:
        self.routes[path] = handler

    def add_prefix_route(self, prefix: str, handler: PathHandler) -> None:
        """Serve every GET path under `prefix` (e.g. /debug/decisions/<namespace>/<pod>)."""
        self.prefix_routes[prefix] = handler

    def add_post_route(self, path: str, handler: PostHandler) -> None:
        """Serve POST `path` (admin actions such as /reload); the handler decides who may call it."""
        self.post_routes[path] = handler

    def add_body_route(self, path: str, handler: BodyHandler) -> None:
        """Serve POST `path` with its body (the extender API's JSON verbs)."""
        self.body_routes[path] = handler

    @property
    def port(self) -> int:
        return self._server.server_address[1] if self._server else 0

    def start(self) -> None:
        routes, prefix_routes, post_routes, body_routes = self.routes, self.prefix_routes, self.post_routes, self.body_routes

        class _Handler(BaseHTTPRequestHandler):
            # Keep-alive and no Nagle: a caller on a pooled connection (kube-scheduler calling the
            # extender API) pays no reconnect and no 40 ms delayed-ACK stall per request.
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                path = self.path.split("?", 1)[0]
                handler = routes.get(path)
                if handler is not None:
                    status, ctype, body = handler()
                else:
                    prefix = max((p for p in prefix_routes if path.startswith(p)), key=len, default=None)
                    if prefix is None:
                        status, ctype, body = 404, "text/plain; charset=utf-8", b"not found"
                    else:
                        status, ctype, body = prefix_routes[prefix](path[len(prefix) :])
                self._reply(status, ctype, body)

            def do_POST(self) -> None:  # noqa: N802
                path, _, query = self.path.partition("?")
                length = int(self.headers.get("Content-Length") or 0)
                body_handler = body_routes.get(path)
                if body_handler is not None:
                    if length > MAX_BODY_BYTES:
                        self.close_connection = True
                        self._reply(413, "text/plain; charset=utf-8", b"request body too large")
                        return
                    self._reply(*body_handler(self.rfile.read(length)))
                    return
                if length > 65536:
                    self.close_connection = True  # the rest of the body is not read
                if length:
                    self.rfile.read(min(length, 65536))  # bodies are not used; drain what was sent
                handler = post_routes.get(path)
                if handler is None:
                    status, ctype, body = 404, "text/plain; charset=utf-8", b"not found"
                else:
                    status, ctype, body = handler(query, self.client_address[0])
                self._reply(status, ctype, body)

            def _reply(self, status: int, ctype: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                log.debug("http: " + format, *args)

        host, port = parse_bind_address(self.bind_address)
        self._server = ThreadingHTTPServer((host, port), _Handler)
        self._server.daemon_threads = True
        # serve_forever checks for shutdown between polls: a short poll keeps SIGTERM-to-exit short.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="kubeberth-http", daemon=True
        )
        self._thread.start()
        served = sorted([*routes, *prefix_routes, *(f"POST {p}" for p in [*post_routes, *body_routes])])
        log.info("serving %s on %s:%d", ", ".join(served), host, self.port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

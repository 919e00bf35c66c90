"""A small HTTP(S) server for probes, metrics, decisions and the admin API.

One route table, served by one or more listeners: `kubeberth run` serves it over HTTPS on the
secure port with delegated authentication and authorization (a `Guard`, apps/serving/), and,
when asked, over plain HTTP on a loopback address without either (kube-scheduler's
`--secure-port` and the insecure serving it used to have). Handlers get a typed `Request`
(method, path, query, headers, client, and whether a guard authorized it) and return
(status, content type, body) or a `Response` with extra headers (Content-Encoding, Vary).
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import ssl
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

log = logging.getLogger(__name__)

DEFAULT_BIND_ADDRESS = "127.0.0.1:10260"
TEXT = "text/plain; charset=utf-8"
MAX_BODY_BYTES = 256 << 20  # a full NodeList of a large cluster, as non-cache-capable extender calls send
MAX_IGNORED_BODY = 65536


@dataclasses.dataclass(frozen=True)
class Request:
    """What a handler (and a guard) sees of one request."""

    method: str
    path: str
    query: str = ""
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    client: str = ""
    user: str | None = None  # the authenticated user, set once a guard let the request through
    authorized: bool = False  # a guard authorized this request (the secure port); plain HTTP: False

    def header(self, name: str, default: str = "") -> str:
        """A request header, case-insensitive (http.server's headers are an email.message.Message)."""
        value = self.headers.get(name)
        if value is None:
            value = next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)
        return default if value is None else str(value)


class Response(NamedTuple):
    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


Reply = Response | tuple[int, str, bytes]
Handler = Callable[[], tuple[int, str, bytes]]
PathHandler = Callable[[str], tuple[int, str, bytes]]  # gets the rest of the path after its prefix
RequestHandler = Callable[[Request], Reply]  # gets the whole request (headers, client, authorization)
BodyHandler = Callable[[bytes], tuple[int, str, bytes]]  # gets the request body (JSON APIs)
# A listener's gate: a Response refuses the request (401, 403, 500); a Request (with user and
# authorized set) lets it through.
Guard = Callable[[Request], Response | Request]


def check_route(check: Callable[[], tuple[bool, str]]) -> Handler:
    """A probe endpoint: 200 "ok" when check() passes, else 500 with the reason (k8s.io/apiserver's healthz
    handler answers a failed check with http.StatusInternalServerError)."""

    def handler() -> tuple[int, str, bytes]:
        try:
            ok, why = check()
        except Exception as exc:  # noqa: BLE001 - a failing check is a failed probe
            ok, why = False, f"check raised {type(exc).__name__}: {exc}"
        return (200, TEXT, b"ok") if ok else (500, TEXT, why.encode())

    return handler


def parse_bind_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"bind address {address!r}: expected HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


@dataclasses.dataclass
class Listener:
    """One socket serving the route table: plain HTTP, or TLS with a guard in front."""

    bind_address: str
    tls: ssl.SSLContext | None = None
    guard: Guard | None = None
    server: ThreadingHTTPServer | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.tls is not None else "http"


class Routes:
    """The route table every listener serves."""

    def __init__(self) -> None:
        self.routes: dict[str, RequestHandler] = {}
        self.prefix_routes: dict[str, PathHandler] = {}
        self.post_routes: dict[str, RequestHandler] = {}
        self.body_routes: dict[str, BodyHandler] = {}

    def get(self, request: Request) -> Reply:
        handler = self.routes.get(request.path)
        if handler is not None:
            return handler(request)
        prefix = max((p for p in self.prefix_routes if request.path.startswith(p)), key=len, default=None)
        if prefix is None:
            return 404, TEXT, b"not found"
        return self.prefix_routes[prefix](request.path[len(prefix) :])

    def post(self, request: Request) -> Reply:
        handler = self.post_routes.get(request.path)
        return (404, TEXT, b"not found") if handler is None else handler(request)

    def served(self) -> list[str]:
        posts = [*self.post_routes, *self.body_routes]
        return sorted([*self.routes, *self.prefix_routes, *(f"POST {p}" for p in posts)])


class HTTPServer(Routes):
    """Serve registered routes on daemon threads, one per listener."""

    def __init__(
        self, bind_address: str | None = DEFAULT_BIND_ADDRESS, *, tls: ssl.SSLContext | None = None, guard: Guard | None = None
    ) -> None:
        super().__init__()
        self.bind_address = bind_address or ""
        self.listeners: list[Listener] = []
        if bind_address:
            self.add_listener(bind_address, tls=tls, guard=guard)

    def add_listener(self, bind_address: str, *, tls: ssl.SSLContext | None = None, guard: Guard | None = None) -> Listener:
        """Serve the same routes on another address (the secure port beside the loopback one)."""
        listener = Listener(bind_address, tls, guard)
        self.listeners.append(listener)
        return listener

    def add_route(self, path: str, handler: Handler) -> None:
        self.routes[path] = lambda _request: handler()

    def add_request_route(self, path: str, handler: RequestHandler) -> None:
        """Serve GET `path` with the whole request (content negotiation, the caller's identity)."""
        self.routes[path] = handler

    def add_prefix_route(self, prefix: str, handler: PathHandler) -> None:
        """Serve every GET path under `prefix` (e.g. /debug/decisions/<namespace>/<pod>)."""
        self.prefix_routes[prefix] = handler

    def add_post_route(self, path: str, handler: RequestHandler) -> None:
        """Serve POST `path` (admin actions such as /reload); the handler decides who may call it
        (`request.authorized` on the secure port, else e.g. a loopback client)."""
        self.post_routes[path] = handler

    def add_body_route(self, path: str, handler: BodyHandler) -> None:
        """Serve POST `path` with its body (the extender API's JSON verbs)."""
        self.body_routes[path] = handler

    @property
    def port(self) -> int:
        """The first listener's port (the one given to the constructor, if any)."""
        return self.port_of(self.listeners[0]) if self.listeners else 0

    @staticmethod
    def port_of(listener: Listener) -> int:
        return listener.server.server_address[1] if listener.server else 0

    def start(self) -> None:
        for listener in self.listeners:
            self._start(listener)

    def _start(self, listener: Listener) -> None:
        host, port = parse_bind_address(listener.bind_address)
        server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
        server = server_class((host, port), _handler_class(self, listener))
        if listener.tls is not None:
            server.socket = listener.tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        server.daemon_threads = True
        listener.server = server
        # serve_forever checks for shutdown between polls: a short poll keeps SIGTERM-to-exit short.
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"kubeberth-{listener.scheme}", daemon=True
        ).start()
        guarded = " (authenticated, authorized)" if listener.guard is not None else ""
        log.info("serving %s on %s://%s:%d%s", ", ".join(self.served()), listener.scheme, host, self.port_of(listener), guarded)

    def stop(self) -> None:
        for listener in self.listeners:
            if listener.server is not None:
                listener.server.shutdown()
                listener.server.server_close()
                listener.server = None


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def _handler_class(routes: Routes, listener: Listener) -> type[BaseHTTPRequestHandler]:
    guard = listener.guard

    class _Handler(BaseHTTPRequestHandler):
        # Keep-alive and no Nagle: a caller on a pooled connection (kube-scheduler calling the
        # extender API) pays no reconnect and no 40 ms delayed-ACK stall per request.
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True
        timeout = 60  # an idle keep-alive connection (or a TLS client that never speaks) is let go

        def handle(self) -> None:
            try:
                if isinstance(self.connection, ssl.SSLSocket):
                    # The handshake on this connection's thread, not the accepting one: a client
                    # that never speaks TLS holds only its own thread, until `timeout`.
                    self.connection.do_handshake()
                super().handle()
            except (ConnectionError, TimeoutError, ssl.SSLError) as exc:
                log.debug("%s: connection from %s: %s", listener.scheme, self.client_address[0], exc)

        def _request(self, method: str) -> Request | Response:
            path, _, query = self.path.partition("?")
            request = Request(method, path, query, self.headers, self.client_address[0])  # type: ignore[arg-type]
            return request if guard is None else guard(request)

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            request = self._request("GET")
            self._reply(request if isinstance(request, Response) else routes.get(request))

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            request = self._request("POST")
            if isinstance(request, Response):
                self._drain(length)
                self._reply(request)
                return
            body_handler = routes.body_routes.get(request.path)
            if body_handler is not None:
                if length > MAX_BODY_BYTES:
                    self.close_connection = True
                    self._reply((413, TEXT, b"request body too large"))
                    return
                self._reply(body_handler(self.rfile.read(length)))
                return
            self._drain(length)
            self._reply(routes.post(request))

        def _drain(self, length: int) -> None:
            if length > MAX_IGNORED_BODY:
                self.close_connection = True  # the rest of the body is not read
            if length:
                self.rfile.read(min(length, MAX_IGNORED_BODY))  # bodies are not used; drain what was sent

        def _reply(self, reply: Reply) -> None:
            status, ctype, body, *extra = reply
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for name, value in extra[0] if extra else ():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            log.debug(f"{listener.scheme}: " + format, *args)

    return _Handler

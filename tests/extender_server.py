"""A scheduler extender for the tests: the HTTP protocol of k8s.io/kube-scheduler/extender/v1
(filter, prioritize, preempt, bind) on loopback, with a policy given as plain Python.

`ExtenderServer(policy)` serves `policy` on a free port; `mode="broken"` answers every verb with
HTTP 500, `mode="error"` with an `error` field, `mode="slow"` sleeps `delay` seconds first. Every
request body is kept in `calls` (verb, decoded JSON) so tests can assert what was sent.
"""

from __future__ import annotations

import json
import ssl
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def wire(obj: Any, name: str) -> Any:
    """extender/v1 types have no json tags: Go field names on the wire, matched case-insensitively."""
    return next((v for k, v in (obj or {}).items() if k.lower() == name.lower()), None)


def node_names(args: dict[str, Any]) -> list[str]:
    """The candidate names of ExtenderArgs, whether nodeCacheCapable (names) or not (Node objects)."""
    if wire(args, "NodeNames") is not None:
        return list(wire(args, "NodeNames"))
    return [n["metadata"]["name"] for n in (wire(args, "Nodes") or {}).get("items") or ()]


@dataclass
class Policy:
    """What the extender decides. Functions take (pod, node name); None means "no opinion"."""

    reject: Callable[[dict[str, Any], str], str | None] = lambda pod, node: None
    unresolvable: Callable[[dict[str, Any], str], str | None] = lambda pod, node: None
    score: Callable[[dict[str, Any], str], int] = lambda pod, node: 0
    bind: Callable[[dict[str, Any]], str] | None = None  # returns an error text, "" on success
    preempt_drop: set[str] = field(default_factory=set)  # nodes preemption must not use
    # Whether the pod still fits a preemption candidate node, by name (kube-scheduler's FakeExtender
    # predicates on a node that is not cache capable): False drops the node.
    preempt_fits: Callable[[dict[str, Any], str], bool] = lambda pod, node: True


class ExtenderServer:
    def __init__(
        self, policy: Policy | None = None, *, mode: str = "normal", delay: float = 0.0, tls: tuple[str, str] | None = None
    ) -> None:
        self.policy = policy or Policy()
        self.mode = mode
        self.delay = delay
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as kube-scheduler's pooled client expects
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                verb = self.path.rstrip("/").rsplit("/", 1)[-1]
                status, reply = server.handle(verb, json.loads(body or b"null"))
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = self._error
        scheme = "http"
        if tls is not None:  # (certfile, keyfile): serve HTTPS
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    @staticmethod
    def _error(request: Any, address: Any) -> None:
        """A timed-out client hanging up is expected; anything else is a bug worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            traceback.print_exc()

    def verbs(self) -> list[str]:
        with self._lock:
            return [v for v, _ in self.calls]

    def handle(self, verb: str, args: Any) -> tuple[int, Any]:
        with self._lock:
            self.calls.append((verb, args))
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "broken":
            return 500, {"error": "broken"}
        if self.mode == "error":
            return 200, {"Error": f"{verb} is failing on purpose"}
        p = self.policy
        if verb == "filter":
            pod, kept, failed, unresolvable = wire(args, "Pod"), [], {}, {}
            for name in node_names(args):
                if (why := p.unresolvable(pod, name)) is not None:
                    unresolvable[name] = why
                elif (why := p.reject(pod, name)) is not None:
                    failed[name] = why
                else:
                    kept.append(name)
            result = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable, "Error": ""}
            if wire(args, "NodeNames") is not None:
                return 200, {**result, "NodeNames": kept, "Nodes": None}
            items = [n for n in wire(args, "Nodes")["items"] if n["metadata"]["name"] in set(kept)]
            return 200, {**result, "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}
        if verb == "prioritize":
            return 200, [{"Host": n, "Score": p.score(wire(args, "Pod"), n)} for n in node_names(args)]
        if verb == "bind":
            err = p.bind(args) if p.bind is not None else "bind not implemented"
            return 200, {"Error": err}
        if verb == "preempt":
            if wire(args, "NodeNameToMetaVictims") is not None:
                victims = wire(args, "NodeNameToMetaVictims")
            else:
                victims = {
                    node: {"Pods": [{"UID": pod["metadata"]["uid"]} for pod in wire(v, "Pods")],
                           "NumPDBViolations": wire(v, "NumPDBViolations") or 0}
                    for node, v in (wire(args, "NodeNameToVictims") or {}).items()
                }
            pod = wire(args, "Pod")
            kept = {n: v for n, v in victims.items() if n not in p.preempt_drop and p.preempt_fits(pod, n)}
            return 200, {"NodeNameToMetaVictims": kept}
        return 404, {"Error": f"unknown verb {verb}"}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ExtenderServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def extender_config(url: str, **fields: Any) -> dict[str, Any]:
    """One `extenders:` entry with filter and prioritize verbs (weight 1) unless overridden."""
    return {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 1, **fields}


def self_signed(directory: Any) -> tuple[str, str, bytes]:
    """(certfile, keyfile, cert PEM) of a self-signed certificate for 127.0.0.1."""
    import datetime
    import ipaddress
    from pathlib import Path

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "extender")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    certfile, keyfile = Path(directory) / "tls.crt", Path(directory) / "tls.key"
    certfile.write_bytes(pem)
    keyfile.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return str(certfile), str(keyfile), pem

"""A scheduler extender for the tests: the HTTP protocol of k8s.io/kube-scheduler/extender/v1
(filter, prioritize, preempt, bind) on loopback, with a policy given as plain Python.

`ExtenderServer(policy)` serves `policy` on a free port; `mode="broken"` answers every verb with
HTTP 500, `mode="error"` with an `error` field, `mode="slow"` sleeps `delay` seconds first. Every
request body is kept in `calls` (verb, decoded JSON) so tests can assert what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def node_names(args: dict[str, Any]) -> list[str]:
    """The candidate names of ExtenderArgs, whether nodeCacheCapable (names) or not (Node objects)."""
    if args.get("nodenames") is not None:
        return list(args["nodenames"])
    return [n["metadata"]["name"] for n in (args.get("nodes") or {}).get("items") or ()]


@dataclass
class Policy:
    """What the extender decides. Functions take (pod, node name); None means "no opinion"."""

    reject: Callable[[dict[str, Any], str], str | None] = lambda pod, node: None
    unresolvable: Callable[[dict[str, Any], str], str | None] = lambda pod, node: None
    score: Callable[[dict[str, Any], str], int] = lambda pod, node: 0
    bind: Callable[[dict[str, Any]], str] | None = None  # returns an error text, "" on success
    preempt_drop: set[str] = field(default_factory=set)  # nodes preemption must not use


class ExtenderServer:
    def __init__(self, policy: Policy | None = None, *, mode: str = "normal", delay: float = 0.0) -> None:
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
        self.httpd.handle_error = lambda request, address: None  # a timed-out client hangs up: expected
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

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
            return 200, {"error": f"{verb} is failing on purpose"}
        p = self.policy
        if verb == "filter":
            pod, kept, failed, unresolvable = args["pod"], [], {}, {}
            for name in node_names(args):
                if (why := p.unresolvable(pod, name)) is not None:
                    unresolvable[name] = why
                elif (why := p.reject(pod, name)) is not None:
                    failed[name] = why
                else:
                    kept.append(name)
            if args.get("nodenames") is not None:
                return 200, {"nodenames": kept, "failedNodes": failed, "failedAndUnresolvableNodes": unresolvable}
            items = [n for n in args["nodes"]["items"] if n["metadata"]["name"] in set(kept)]
            return 200, {"nodes": {"items": items}, "failedNodes": failed, "failedAndUnresolvableNodes": unresolvable}
        if verb == "prioritize":
            return 200, [{"host": n, "score": p.score(args["pod"], n)} for n in node_names(args)]
        if verb == "bind":
            err = p.bind(args) if p.bind is not None else "bind not implemented"
            return 200, {"error": err} if err else {}
        if verb == "preempt":
            if args.get("nodeNameToMetaVictims") is not None:
                victims = args["nodeNameToMetaVictims"]
            else:
                victims = {
                    node: {"pods": [{"uid": pod["metadata"]["uid"]} for pod in v["pods"]],
                           "numPDBViolations": v.get("numPDBViolations", 0)}
                    for node, v in (args.get("nodeNameToVictims") or {}).items()
                }
            return 200, {"nodeNameToMetaVictims": {n: v for n, v in victims.items() if n not in p.preempt_drop}}
        return 404, {"error": f"unknown verb {verb}"}

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

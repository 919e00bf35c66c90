"""The admin API on the scheduler's HTTP server: GET /debug/generation, POST /reload.

POST /reload runs code from the plugins folder and installed packages: on the secure port it is
served to callers the API server authorizes to `create` the nonResourceURL /reload (ClusterRole
kubeberth:admin), on a plain-HTTP listener to loopback clients only.
`kubeberth plugins list --server URL` reads GET /debug/generation (with --token etc. on HTTPS).
"""

from __future__ import annotations

import json
import urllib.error
from typing import Any
from urllib.parse import parse_qs

from ..errors import KubeberthError
from .httpserver import HTTPServer, Request
from .reloader import Reloader
from .serving.client import ServerAuth, explain_failure, open_server
from .serving.options import is_loopback

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
_STATUS = {"success": 200, "unchanged": 200, "failed": 422, "skipped": 409}


def add_admin_routes(http: HTTPServer, reloader: Reloader) -> None:
    def generation() -> tuple[int, str, bytes]:
        return 200, JSON, json.dumps(reloader.status()).encode()

    def reload(request: Request) -> tuple[int, str, bytes]:
        if not (request.authorized or is_loopback(request.client)):
            return 403, TEXT, b"POST /reload: on plain HTTP it is served to loopback clients only (use the secure port)\n"
        params = parse_qs(request.query)
        force = params.get("force", ["0"])[0] in ("1", "true")
        rescan = params.get("rescan", ["1"])[0] not in ("0", "false")
        outcome = reloader.reload("api", rescan=rescan, force=force)
        body = {"reload": outcome.as_dict(), "generation": reloader.status()}
        return _STATUS.get(outcome.result, 200), JSON, json.dumps(body).encode()

    http.add_route("/debug/generation", generation)
    http.add_post_route("/reload", reload)


def fetch_generation(server: str, timeout: float = 10.0, auth: ServerAuth | None = None) -> dict[str, Any]:
    """GET /debug/generation from a running scheduler; one-line error if it cannot be reached."""
    url = server.rstrip("/") + "/debug/generation"
    auth = auth or ServerAuth()
    try:
        return json.loads(open_server(url, auth, timeout))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise KubeberthError(explain_failure(exc, url, auth) or f"--server {server}: cannot read {url}: {exc}") from None


def render_generation(status: dict[str, Any]) -> str:
    """`kubeberth plugins list --server`: the running generation's plugins and last reload."""
    rows = status.get("plugins") or []
    width = max((len(r["name"]) for r in rows), default=4)
    swidth = max((len(r["source"]) for r in rows), default=6)
    lines = [f"generation {status['id']} (#{status['number']}, created {status['created']}, previous {status['previous']})"]
    lines.append(f"{'NAME':<{width}}  {'SOURCE':<{swidth}}  VERSION")
    lines += [f"{r['name']:<{width}}  {r['source']:<{swidth}}  {r['version']}" for r in rows]
    last = status.get("last_reload")
    if last:
        line = f"last reload: {last['result']} at {last['at']} ({last['trigger']})"
        if last.get("error"):
            line += f": {last['error']}"
        lines.append(line)
    canary = status.get("canary")
    if canary:
        pods = ", ".join(f"{k} {v}" for k, v in canary["selection"].items())
        last = canary["steps"][-1]["message"] if canary["steps"] else ""
        lines.append(f"canary: generation {canary['generation']} {canary['state'].replace('_', ' ')} ({pods})"
                     + (f": {last}" if last else ""))
    return "\n".join(lines)

"""The admin API on the scheduler's HTTP server: GET /debug/generation, POST /reload.

POST /reload runs code from the plugins folder and installed packages, so it is served to
loopback clients only, even when the server listens on the pod IP for the kubelet's probes.
`kubeberth plugins list --server URL` reads GET /debug/generation.
"""

from __future__ import annotations

import ipaddress
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qs

from ..errors import KubeberthError
from .httpserver import HTTPServer
from .reloader import Reloader

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
DEFAULT_SERVER = "http://127.0.0.1:10260"
_STATUS = {"success": 200, "unchanged": 200, "failed": 422, "skipped": 409}


def add_admin_routes(http: HTTPServer, reloader: Reloader) -> None:
    def generation() -> tuple[int, str, bytes]:
        return 200, JSON, json.dumps(reloader.status()).encode()

    def reload(query: str, client: str) -> tuple[int, str, bytes]:
        if not _loopback(client):
            return 403, TEXT, b"POST /reload is served to loopback clients only\n"
        params = parse_qs(query)
        force = params.get("force", ["0"])[0] in ("1", "true")
        rescan = params.get("rescan", ["1"])[0] not in ("0", "false")
        outcome = reloader.reload("api", rescan=rescan, force=force)
        body = {"reload": outcome.as_dict(), "generation": reloader.status()}
        return _STATUS.get(outcome.result, 200), JSON, json.dumps(body).encode()

    http.add_route("/debug/generation", generation)
    http.add_post_route("/reload", reload)


def _loopback(client: str) -> bool:
    try:
        return ipaddress.ip_address(client.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def fetch_generation(server: str, timeout: float = 10.0) -> dict[str, Any]:
    """GET /debug/generation from a running scheduler; one-line error if it cannot be reached."""
    url = server.rstrip("/") + "/debug/generation"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - an operator-given URL
            return json.loads(resp.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise KubeberthError(f"--server {server}: cannot read {url}: {exc}") from None


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
    return "\n".join(lines)

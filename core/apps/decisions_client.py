"""The client side of `kubeberth explain`: a pod's last decision record from a running scheduler's
/debug/decisions/<namespace>/<pod> (its secure port with a token, or the loopback HTTP listener);
kubeberth.observability.explain renders it.
"""

from __future__ import annotations

import json
import urllib.error
from typing import Any
from urllib.parse import quote

from ..errors import KubeberthError
from .serving.client import DEFAULT_SERVER, ServerAuth, explain_failure, open_server

__all__ = ["DEFAULT_SERVER", "NoDecision", "fetch_decision"]




def fetch_decision(
    pod: str, server: str = DEFAULT_SERVER, timeout: float = 10.0, auth: ServerAuth | None = None
) -> dict[str, Any]:
    """GET a pod's last decision record from a running scheduler (its secure port with `auth`)."""
    auth = auth or ServerAuth()
    namespace, sep, name = pod.partition("/")
    if not sep or not namespace or not name or "/" in name:
        raise KubeberthError(f"explain: expected NAMESPACE/POD, got {pod!r}")
    url = f"{server.rstrip('/')}/debug/decisions/{quote(namespace, safe='')}/{quote(name, safe='')}"
    try:
        return json.loads(open_server(url, auth, timeout))
    except urllib.error.HTTPError as exc:
        if (refused := explain_failure(exc, url, auth)) is not None:
            raise KubeberthError(f"explain: {refused}") from None
        detail = exc.read().decode(errors="replace").strip()
        missing = _missing(detail) if exc.code == 404 else None
        if missing is not None:
            raise NoDecision(missing) from None
        raise KubeberthError(f"explain: {url}: {exc.code} {detail or exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        if (refused := explain_failure(exc, url, auth)) is not None:
            raise KubeberthError(f"explain: {refused}") from None
        reason = getattr(exc, "reason", exc)
        raise KubeberthError(
            f"explain: cannot reach the scheduler at {server} ({reason}); pass --server with its HTTP address"
        ) from None
    except ValueError:
        raise KubeberthError(f"explain: {url} did not return a decision record (is that a kubeberth server?)") from None


class NoDecision(KubeberthError):
    """The scheduler has no record of the pod; `answer` says why (state, message: pod_state)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        super().__init__(f"explain: {answer['message']}")
        self.answer = answer

    @property
    def pod_exists(self) -> bool:
        """False when the pod is not in the cluster (or could not be looked up): a bad argument."""
        return self.answer.get("state") not in ("not-found", "unknown", "no-record")


def _missing(body: str) -> dict[str, Any] | None:
    """The JSON answer of a 404 from /debug/decisions, or None when it is not one."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) and isinstance(answer.get("message"), str) else None

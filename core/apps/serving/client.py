"""The client side of the secure port: `kubeberth explain` and `kubeberth plugins list --server`.

kubectl's names and meanings: `--token` (env KUBEBERTH_TOKEN) is sent as a bearer token,
`--certificate-authority FILE` verifies the scheduler's certificate, `--insecure-skip-tls-verify`
does not verify it (the scheduler's default certificate is self-signed). 401 and 403 answers
become one line that says what is missing.
"""

from __future__ import annotations

import dataclasses
import os
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ...errors import KubeberthError
from .defaults import TOKEN_ENV

# Where `explain` and `plugins list` look without --server: `run --embedded`'s loopback HTTP listener.
DEFAULT_SERVER = "http://127.0.0.1:10260"


@dataclasses.dataclass(frozen=True)
class ServerAuth:
    token: str | None = None
    certificate_authority: str | None = None
    insecure_skip_tls_verify: bool = False

    @classmethod
    def from_args(cls, args: Any) -> ServerAuth:
        ca = getattr(args, "certificate_authority", None)
        if ca and not Path(ca).is_file():
            raise KubeberthError(f"--certificate-authority: {ca}: no such file")
        token = getattr(args, "token", None) or os.environ.get(TOKEN_ENV) or None
        return cls(token, ca, bool(getattr(args, "insecure_skip_tls_verify", False)))

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.certificate_authority)
        if self.insecure_skip_tls_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context


def open_server(url: str, auth: ServerAuth, timeout: float) -> bytes:
    """GET `url` with the bearer token; urllib's errors propagate (see `explain_failure`)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if auth.token:
        request.add_header("Authorization", f"Bearer {auth.token}")
    context = auth.context() if url.lower().startswith("https:") else None
    with urllib.request.urlopen(request, timeout=timeout, context=context) as resp:  # noqa: S310 - an operator-given URL
        return resp.read()


def explain_failure(exc: Exception, url: str, auth: ServerAuth) -> str | None:
    """One line for a refused (401/403) or untrusted (TLS) answer; None for other failures."""
    if isinstance(exc, urllib.error.HTTPError) and exc.code in (401, 403):
        detail = exc.read().decode(errors="replace").strip().splitlines()
        said = f" ({detail[0]})" if detail else ""
        if exc.code == 401 and not auth.token:
            return f"{url}: 401 Unauthorized: no token; pass --token or set {TOKEN_ENV} (e.g. `kubectl create token NAME`)"
        if exc.code == 401:
            return f"{url}: 401 Unauthorized: the token was not accepted{said}; is it current and for this cluster?"
        return (f"{url}: 403 Forbidden{said}; the token's user needs a ClusterRole with this nonResourceURL "
                "(kubeberth:reader for GET, kubeberth:admin for POST /reload)")
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, ssl.SSLCertVerificationError):
        return (f"{url}: the scheduler's certificate is not trusted ({reason.verify_message}); "
                "pass --certificate-authority FILE or --insecure-skip-tls-verify")
    return None

"""Connection settings from a kubeconfig file or the pod's service account, read without the
kubernetes client package (importing it costs ~0.2 s of CPU at every start, before the first binding).

Covers what a scheduler's credentials are in practice: a bearer token (inline or `tokenFile`, re-read
every minute as client-go does, so a rotated token is picked up), a client certificate and key, basic
auth; the cluster's CA (file or data), `insecure-skip-tls-verify`, `tls-server-name`; in cluster, the
mounted service account (token re-read as the kubelet rotates it). A kubeconfig that needs more (an
`exec` or `auth-provider` plugin, a proxy, impersonation, several files in KUBECONFIG) is left to the
kubernetes package's loader (`load_api_client` falls back to it: `Unsupported`).

`KubeClient` carries a `Connection` the way RawClient reads a kubernetes `ApiClient`: `.configuration`
and a urllib3 pool at `.rest_client.pool_manager` (watches and the rest of what libcurl does not send).
"""

from __future__ import annotations

import atexit
import base64
import binascii
import contextlib
import os
import socket
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import urllib3
import yaml

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
TOKEN_REREAD_SECONDS = 60.0  # client-go's cachingTokenSource re-reads a token file once a minute
_UNSUPPORTED_USER_KEYS = ("exec", "auth-provider", "as", "as-groups", "as-uid", "as-user-extra")


class Unsupported(Exception):  # noqa: N818 - a signal to fall back, not an error
    """The kubeconfig needs what only the kubernetes package's loader does."""


class KubeconfigError(Exception):
    """A kubeconfig that cannot be used: the message names the key."""


class TokenSource:
    """A bearer token, inline or read from a file (re-read at most once a minute)."""

    def __init__(self, token: str | None = None, path: str | None = None) -> None:
        self._token, self._path = (token or "").strip(), path
        self._read_at = 0.0
        self._lock = threading.Lock()
        if path:
            self._reread()

    def _reread(self) -> None:
        assert self._path is not None
        self._token = Path(self._path).read_text().strip()
        self._read_at = time.monotonic()

    def token(self) -> str:
        if self._path and time.monotonic() - self._read_at >= TOKEN_REREAD_SECONDS:
            with self._lock:
                try:
                    self._reread()
                except OSError:
                    self._read_at = time.monotonic()  # keep the last token; try again in a minute
        return self._token


@dataclass
class Connection:
    """The subset of kubernetes.client.Configuration that kubeberth's clients read."""

    host: str
    ssl_ca_cert: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    verify_ssl: bool = True
    tls_server_name: str | None = None
    bearer: TokenSource | None = None
    basic_auth: str | None = None  # "user:password"
    retries: Any = None
    connection_pool_maxsize: int | None = 4  # the least a client gets (load_api_client raises it)
    socket_options: list[tuple[int, int, int]] | None = None
    proxy: None = None  # proxies go through the kubernetes package's loader
    ca_cert_data: None = None
    assert_hostname: None = None

    def auth_settings(self) -> dict[str, dict[str, str]]:
        """As Configuration.auth_settings(): the Authorization header, if any."""
        if self.bearer is not None:
            value = f"Bearer {self.bearer.token()}"
        elif self.basic_auth is not None:
            value = "Basic " + base64.b64encode(self.basic_auth.encode()).decode()
        else:
            return {}
        return {"BearerToken": {"in": "header", "key": "authorization", "value": value}}


class KubeClient:
    """A Connection and its urllib3 pool, shaped as RawClient reads a kubernetes ApiClient."""

    def __init__(self, configuration: Connection) -> None:
        self.configuration = configuration
        self.rest_client = SimpleNamespace(pool_manager=pool_manager(configuration))

    @staticmethod
    def sanitize_for_serialization(obj: Any) -> Any:
        return obj  # bodies are plain JSON values here (no generated model objects)


def pool_manager(c: Connection) -> urllib3.PoolManager:
    """The pool kubernetes' RESTClientObject builds from the same settings."""
    args: dict[str, Any] = {
        "cert_reqs": ssl.CERT_REQUIRED if c.verify_ssl else ssl.CERT_NONE,
        "ca_certs": c.ssl_ca_cert, "cert_file": c.cert_file, "key_file": c.key_file,
    }
    if c.retries is not None:
        args["retries"] = c.retries
    if c.tls_server_name:
        args["server_hostname"] = c.tls_server_name
    if c.socket_options is not None:
        args["socket_options"] = c.socket_options
    if c.connection_pool_maxsize is not None:
        args["maxsize"] = c.connection_pool_maxsize
    return urllib3.PoolManager(**args)


def keepalive_options(idle: int, interval: int, count: int) -> list[tuple[int, int, int]]:
    """urllib3's default socket options (no Nagle) plus TCP keepalive."""
    options = [*urllib3.connection.HTTPConnection.default_socket_options, (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPIDLE", idle), ("TCP_KEEPINTVL", interval), ("TCP_KEEPCNT", count)):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


def in_cluster(root: Path = SERVICE_ACCOUNT) -> Connection | None:
    """The pod's service account, or None outside a cluster (as load_incluster_config decides)."""
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT")
    if not host or not port:
        return None
    token, ca = root / "token", root / "ca.crt"
    if not token.is_file() or not ca.is_file():
        return None
    server = f"[{host}]" if ":" in host else host
    return Connection(host=f"https://{server}:{port}", ssl_ca_cert=str(ca), bearer=TokenSource(path=str(token)))


def from_kubeconfig(path: str) -> Connection:
    """The current context's cluster and user of one kubeconfig file. Raises OSError for an
    unreadable file, KubeconfigError for a broken one (its message names the key), Unsupported
    for what needs the package."""
    if os.pathsep in path:
        raise Unsupported("several kubeconfig files")
    file = Path(path).expanduser()
    try:
        doc = yaml.safe_load(file.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise KubeconfigError(f"not YAML: {getattr(exc, 'problem', None) or 'unreadable'}{where}") from None
    if not isinstance(doc, dict):
        raise KubeconfigError("not a kubeconfig (expected a mapping)")
    context = _named(doc, "contexts", "context", doc.get("current-context"))
    cluster = _named(doc, "clusters", "cluster", context.get("cluster"))
    user = _named(doc, "users", "user", context.get("user")) if context.get("user") else {}
    if any(k in user for k in _UNSUPPORTED_USER_KEYS) or cluster.get("proxy-url"):
        raise Unsupported("exec, auth-provider, impersonation or a proxy")
    if not cluster.get("server"):
        raise KubeconfigError(f"cluster {context.get('cluster')!r} has no server")
    base = file.parent
    conn = Connection(host=str(cluster["server"]).rstrip("/"),
                      ssl_ca_cert=_file_or_data(cluster, "certificate-authority", base),
                      verify_ssl=not cluster.get("insecure-skip-tls-verify", False),
                      tls_server_name=cluster.get("tls-server-name") or None,
                      cert_file=_file_or_data(user, "client-certificate", base),
                      key_file=_file_or_data(user, "client-key", base))
    if user.get("token"):
        conn.bearer = TokenSource(token=str(user["token"]))
    elif user.get("tokenFile"):
        conn.bearer = TokenSource(path=str(base / Path(user["tokenFile"]).expanduser()))
    elif user.get("username") and user.get("password"):
        conn.basic_auth = f"{user['username']}:{user['password']}"
    return conn


def _named(doc: dict[str, Any], section: str, key: str, name: Any) -> dict[str, Any]:
    """The `key` mapping of the entry called `name` in `section` (contexts, clusters, users)."""
    if not name:
        raise KubeconfigError("no current-context; set one (kubectl config use-context)")
    for entry in doc.get(section) or ():
        if isinstance(entry, dict) and entry.get("name") == name:
            value = entry.get(key)
            return value if isinstance(value, dict) else {}
    raise KubeconfigError(f"{section}: no entry named {name!r}")


def _file_or_data(entry: dict[str, Any], key: str, base: Path) -> str | None:
    """A path for `key` (relative to the kubeconfig's folder) or for `key`-data (written to a private
    temporary file, removed at exit, as the kubernetes package's loader does)."""
    data = entry.get(f"{key}-data")
    if data:
        try:
            raw = base64.b64decode(str(data), validate=True)
        except (binascii.Error, ValueError):
            raise KubeconfigError(f"{key}-data is not base64") from None
        fd, name = tempfile.mkstemp(prefix="kubeberth-kubeconfig-")
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
        atexit.register(_remove, name)
        return name
    path = entry.get(key)
    return str(base / Path(str(path)).expanduser()) if path else None


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)

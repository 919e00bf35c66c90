"""The raw API client: a kubeconfig's (or the service account's) connection settings and a urllib3
pool (kubeconfig.py; the official client's configuration and pool for exec and auth-provider
credentials and proxies) with requests sent straight to that pool, bodies encoded and decoded with
orjson instead of generated models, a client-side token bucket (clientConnection qps/burst).

The generated ApiClient's per-request layers (parameter sanitising, the auth refresh hook, JSON
through the standard library, content-type matching) cost about as much CPU as the request itself
in a drain; the bearer token is read through the configuration's refresh hook once a second."""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import threading
import time
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import orjson
import urllib3

from .client_metrics import REST_CLIENT_METRICS
from .curl_transport import CurlTransport, TransportError, reason_phrase
from .kubeconfig import (
    KubeClient,
    KubeconfigError,
    Unsupported,
    from_kubeconfig,
    in_cluster,
    keepalive_options,
)

log = logging.getLogger(__name__)


KEEPALIVE = (15, 5, 3)  # TCP keepalive idle, interval (seconds) and probe count of API connections


class ApiError(Exception):
    """A non-2xx answer (status 0: no answer at all)."""

    def __init__(self, status: int, reason: str, body: bytes = b"") -> None:
        self.status = status
        self.reason = reason
        self.body = body
        message = reason
        if body:
            try:
                message = str(orjson.loads(body).get("message") or reason)
            except (orjson.JSONDecodeError, AttributeError):
                message = body[:300].decode("utf-8", "replace")
        self.message = message
        super().__init__(f"{status} {message}")


class Gone(Exception):
    """The resourceVersion we watch from has been compacted away: relist."""


class TokenBucket:
    """client-go's client-side rate limiter: qps tokens per second, at most `burst` saved up."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps = float(qps)
        self.burst = max(1, int(burst))
        self._tokens = float(self.burst)
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Take one token, sleeping until one is available; returns the time waited."""
        if self.qps <= 0:
            return 0.0
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.qps)
            self._last = now
            self._tokens -= 1.0
            wait = -self._tokens / self.qps if self._tokens < 0 else 0.0
        if wait > 0:
            time.sleep(wait)
        return wait


def micro_time(t: float | None = None) -> str:
    """metav1.MicroTime as the API server writes it."""
    d = dt.datetime.fromtimestamp(time.time() if t is None else t, tz=dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def rfc3339(t: float | None = None) -> str:
    d = dt.datetime.fromtimestamp(time.time() if t is None else t, tz=dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


class RawClient:
    """JSON requests with the kubernetes client's configuration, decoded with orjson: whole responses
    through libcurl (curl_transport.py) where it can honour the configuration, streams and the rest
    through the ApiClient's urllib3 pool."""

    def __init__(self, api_client: Any, limiter: TokenBucket | None = None, user_agent: str = "kubeberth") -> None:
        self.api_client = api_client
        self.limiter = limiter or TokenBucket(0, 1)
        self.user_agent = user_agent
        # client-go's rest_client_* metrics, shared by every RawClient of the process
        self.metrics = REST_CLIENT_METRICS
        self.base = str(getattr(getattr(api_client, "configuration", None), "host", "") or "").rstrip("/")
        self.host = urlsplit(self.base).netloc or "none"
        self._auth: tuple[float, dict[str, str]] = (0.0, {})
        self._auth_lock = threading.Lock()
        # whole responses through libcurl where the configuration allows (curl_transport.py)
        self.curl = CurlTransport.for_configuration(getattr(api_client, "configuration", None))

    def _auth_headers(self) -> dict[str, str]:
        """The configuration's auth headers (its refresh hook renews an expiring token), read at
        most once a second."""
        now = time.monotonic()
        expires, headers = self._auth
        if now < expires:
            return headers
        with self._auth_lock:
            settings = self.api_client.configuration.auth_settings()
            headers = {str(a["key"]): str(a["value"]) for a in settings.values()
                       if a.get("in") == "header" and a.get("value")}
            self._auth = (now + 1.0, headers)
        return headers

    def _prepare(
        self, method: str, path: str, query: list[tuple[str, Any]] | None, body: Any, content_type: str | None
    ) -> tuple[str, str, dict[str, str], Any]:
        headers = {"Accept": "application/json", "User-Agent": self.user_agent, **self._auth_headers()}
        url = self.base + quote(path, safe="/:@!$&'()*+,;=-._~")
        if query:
            url += "?" + urlencode(query)
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
            if not isinstance(body, bytes | str):
                try:
                    body = orjson.dumps(body)
                except TypeError:  # a generated model object: the client's own conversion first
                    body = orjson.dumps(self.api_client.sanitize_for_serialization(body))
        return method.upper(), url, headers, body

    def open(
        self,
        method: str,
        path: str,
        query: list[tuple[str, Any]] | None = None,
        body: Any = None,
        content_type: str | None = None,
        timeout: float | tuple[float, float] = 30.0,
        limited: bool = True,
    ) -> Any:
        """Start a request; returns the unread urllib3 response (2xx) or raises ApiError."""
        verb = method.upper()
        if limited:
            self.metrics.rate_limited(verb, self.host, self.limiter.acquire())
        method, url, headers, body = self._prepare(method, path, query, body, content_type)
        start = time.monotonic()
        limits = (urllib3.Timeout(connect=timeout[0], read=timeout[1]) if isinstance(timeout, tuple)
                  else urllib3.Timeout(total=timeout))
        try:
            raw = self.api_client.rest_client.pool_manager.request(
                method, url, body=body, headers=headers, timeout=limits, preload_content=False)
        except Exception as exc:  # connection refused/reset, TLS, timeouts: no answer
            self.metrics.request_done(verb, self.host, 0, time.monotonic() - start)
            raise ApiError(0, f"{type(exc).__name__}: {exc}") from exc
        self.metrics.request_done(verb, self.host, raw.status, time.monotonic() - start)
        if not 200 <= raw.status < 300:
            try:
                data = raw.data
            except Exception:  # noqa: BLE001 - body is only used for the message
                data = b""
            raw.release_conn()
            raise ApiError(raw.status, raw.reason or "", data or b"")
        return raw

    def request(self, method: str, path: str, query: list[tuple[str, Any]] | None = None, body: Any = None,
                content_type: str | None = None, timeout: float | tuple[float, float] = 30.0) -> Any:
        """The decoded JSON answer of a 2xx (None for an empty body); raises ApiError otherwise."""
        if self.curl is not None:
            data = self._send_curl(self.curl, method, path, query, body, content_type, timeout)
        else:
            raw = self.open(method, path, query, body, content_type, timeout)
            try:
                data = raw.data
            except Exception as exc:
                raise ApiError(0, f"reading response: {exc}") from exc
            finally:
                raw.release_conn()
        return orjson.loads(data) if data else None

    def replace_connections(self) -> None:
        """Open new connections from now on: idle pooled ones are closed, each thread's libcurl
        connection is replaced at its next request (in-flight requests end by their timeouts)."""
        pools = getattr(getattr(self.api_client, "rest_client", None), "pool_manager", None)
        if pools is not None:
            pools.clear()
        if self.curl is not None:
            self.curl.reset()

    def _send_curl(self, curl: CurlTransport, method: str, path: str, query: list[tuple[str, Any]] | None,
                   body: Any, content_type: str | None, timeout: float | tuple[float, float]) -> bytes:
        verb = method.upper()
        self.metrics.rate_limited(verb, self.host, self.limiter.acquire())
        method, url, headers, body = self._prepare(method, path, query, body, content_type)
        start = time.monotonic()
        try:
            status, data = curl.send(method, url, headers, body, timeout)
        except TransportError as exc:
            self.metrics.request_done(verb, self.host, 0, time.monotonic() - start)
            raise ApiError(0, str(exc)) from exc  # the cause says whether it timed out
        self.metrics.request_done(verb, self.host, status, time.monotonic() - start)
        if not 200 <= status < 300:
            raise ApiError(status, reason_phrase(status), data)
        return data


def separate_pool(api_client: Any) -> Any:
    """Another ApiClient over the same configuration (server, auth, TLS, token refresh) with a
    connection pool of its own: kube-scheduler's event clientset beside the scheduler's."""
    return type(api_client)(api_client.configuration)


def load_api_client(kubeconfig: str | None = None, pool_size: int = 32, retries: bool = True) -> Any:
    """A client from a kubeconfig file, else in-cluster config, else $KUBECONFIG or ~/.kube/config.

    Read by kubeberth's own loader (kubeconfig.py) where it covers the credentials, else by the
    kubernetes package's. The connection pool is sized for the informers, binding workers and
    writers that share it (urllib3's default of 10 would open and discard connections under load).
    `retries=False` turns off urllib3's automatic retries, for callers whose timeouts must hold as
    given.
    """
    try:
        conn = in_cluster() if not kubeconfig else None
        conn = conn or from_kubeconfig(kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config")
    except Unsupported:
        return _package_api_client(kubeconfig, pool_size, retries)
    except (KubeconfigError, OSError) as exc:
        raise _unusable(kubeconfig, exc) from None
    return KubeClient(_tuned(conn, pool_size, retries))


def _package_api_client(kubeconfig: str | None, pool_size: int, retries: bool) -> Any:
    """The kubernetes package's ApiClient, for kubeconfigs with exec or auth-provider credentials,
    a proxy or impersonation."""
    from kubernetes import client, config

    cfg = client.Configuration()
    try:
        if kubeconfig:
            config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
        else:
            try:
                config.load_incluster_config(client_configuration=cfg)
            except config.ConfigException:
                config.load_kube_config(client_configuration=cfg)
    except (config.ConfigException, OSError) as exc:
        raise _unusable(kubeconfig, exc) from None
    return client.ApiClient(_tuned(cfg, pool_size, retries))


def _unusable(kubeconfig: str | None, exc: Exception) -> Exception:
    """The one-line error for connection settings that cannot be read."""
    from ...errors import ConfigError

    where = kubeconfig or "kubeconfig (in-cluster, then ~/.kube/config)"
    return ConfigError(f"{where}: {exc}; pass --kubeconfig or run in a cluster")


def _tuned(cfg: Any, pool_size: int, retries: bool) -> Any:
    """Pool size, keepalive and retries on either loader's configuration."""
    cfg.connection_pool_maxsize = max(pool_size, cfg.connection_pool_maxsize or 0)
    # TCP keepalive shorter than client-go's (30 s idle, 9 probes 15 s apart): a connection whose peer
    # no longer answers (half-open after a NAT or load-balancer drop) fails after 15 + 3 x 5 = 30 s.
    cfg.socket_options = keepalive_options(*KEEPALIVE)
    if not retries:
        cfg.retries = False
    return cfg


class WriteStats:
    """Counters of the writes a backend made, shared by its writer threads (read by logs and tests)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts = {"binds": 0, "bind_conflicts": 0, "events_emitted": 0, "events_created": 0,
                       "events_aggregated": 0, "events_dropped": 0, "event_series_updates": 0,
                       "status_patches": 0, "write_errors": 0}

    def add(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.counts[key] += n


def best_effort_write(raw: RawClient, stats: WriteStats, stopping: threading.Event, method: str, path: str,
                      body: Any, content_type: str | None = None, attempts: int = 6,
                      timeout: tuple[float, float] = (5, 15)) -> bool:
    """A write whose loss is tolerable (events, status): retried while the server is unreachable or
    overloaded, never on 4xx, and given up at once when the backend is stopping."""
    delay = 0.5
    for attempt in range(attempts):
        try:
            raw.request(method, path, body=body, content_type=content_type, timeout=timeout)
            return True
        except ApiError as exc:
            transient = exc.status == 0 or exc.status == 429 or exc.status >= 500
            if not transient or attempt == attempts - 1 or stopping.is_set():
                if exc.status != 404:  # the pod went away meanwhile: nothing to say
                    log.warning("%s %s failed: %s", method, path, exc)
                stats.add("write_errors")
                return False
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 10.0)
    return False

"""Whole-response API requests through libcurl (pycurl): one easy handle per thread, its connection
kept alive, the response read in C.

A request through urllib3 costs about 1 ms of Python per call (connection pool bookkeeping,
http.client's header parsing); through a reused libcurl handle about a quarter of that. In a drain
against a real API server every pod costs two such writes (its Binding and its Scheduled event), so
this is where the scheduler's CPU per pod goes after the cycle itself (docs/benchmarks.md, "the API
path"). Streams (watches) stay on urllib3: one long response each, whose cost is per event.

The transport takes only what it can honour exactly from the official client's Configuration
(server, CA file, client certificate, TLS verification on or off, TCP keepalive); a configuration
that needs more (a proxy, an inline CA, a TLS server name or hostname override) keeps urllib3
(`for_configuration` returns None), as do clients made without retries (`load_api_client(retries=False)`).
"""

from __future__ import annotations

import http
import io
import threading
from typing import Any

import pycurl

_enabled = True  # off: every request through urllib3 (`--api-transport=urllib3`, set once at start-up)
KEEPALIVE = (15, 5)  # TCP keepalive idle and interval seconds, as client.KEEPALIVE's first two
_VERBS = {"GET", "POST", "PUT", "PATCH", "DELETE"}


def use_curl(enabled: bool) -> None:
    """Whether RawClients created from now on send whole-response requests through libcurl."""
    global _enabled
    _enabled = enabled


class TransportError(Exception):
    """No HTTP answer: connection refused or reset, TLS, or a timeout (libcurl's message)."""


class TransportTimeout(TransportError, TimeoutError):
    """No answer within the request's timeout (a TimeoutError, as urllib3's read timeouts are)."""


def reason_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


class CurlTransport:
    """Thread-safe: every thread sends on its own libcurl handle (a handle is not shareable between
    threads), so the binding workers and writers each keep one connection, as urllib3's pool did."""

    def __init__(self, ca_file: str | None, cert_file: str | None, key_file: str | None, verify: bool) -> None:
        self.ca_file = ca_file
        self.cert_file = cert_file
        self.key_file = key_file
        self.verify = verify
        self._local = threading.local()
        self._epoch = 0  # bumped by reset(): each thread's handle is replaced before its next request

    @classmethod
    def for_configuration(cls, cfg: Any) -> CurlTransport | None:
        """A transport for a kubernetes.client.Configuration, or None where urllib3 must stay."""
        if not _enabled or cfg is None or not str(getattr(cfg, "host", "") or "").startswith(("https://", "http://")):
            return None
        if getattr(cfg, "proxy", None) or getattr(cfg, "ca_cert_data", None) or getattr(cfg, "tls_server_name", None):
            return None
        if getattr(cfg, "assert_hostname", None) is not None:
            return None
        if getattr(cfg, "retries", None) is False:
            # Clients that must see every failure of their connection (the liveness sentinel, the
            # leader's Lease): libcurl sends again on a fresh connection when a reused one fails
            # before answering, which would hide exactly that.
            return None
        verify = bool(getattr(cfg, "verify_ssl", True))
        ca_file = getattr(cfg, "ssl_ca_cert", None)
        if verify and not ca_file and str(cfg.host).startswith("https://"):
            return None  # the system's trust store: urllib3 finds it through ssl's defaults
        return cls(ca_file, getattr(cfg, "cert_file", None), getattr(cfg, "key_file", None), verify)

    def reset(self) -> None:
        """Drop every thread's connection: each opens a new one at its next request (the handles
        belong to their threads, so each replaces its own)."""
        self._epoch += 1

    def _handle(self) -> Any:
        curl = getattr(self._local, "curl", None)
        if curl is not None and self._local.epoch != self._epoch:
            curl.close()
            curl = None
        if curl is None:
            curl = pycurl.Curl()
            curl.setopt(pycurl.NOSIGNAL, 1)
            curl.setopt(pycurl.TCP_KEEPALIVE, 1)
            curl.setopt(pycurl.TCP_KEEPIDLE, KEEPALIVE[0])
            curl.setopt(pycurl.TCP_KEEPINTVL, KEEPALIVE[1])
            curl.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
            if self.ca_file:
                curl.setopt(pycurl.CAINFO, self.ca_file)
            if self.cert_file:
                curl.setopt(pycurl.SSLCERT, self.cert_file)
            if self.key_file:
                curl.setopt(pycurl.SSLKEY, self.key_file)
            if not self.verify:
                curl.setopt(pycurl.SSL_VERIFYPEER, 0)
                curl.setopt(pycurl.SSL_VERIFYHOST, 0)
            self._local.curl = curl
            self._local.epoch = self._epoch
        return curl

    def send(self, method: str, url: str, headers: dict[str, str], body: bytes | str | None,
             timeout: float | tuple[float, float]) -> tuple[int, bytes]:
        """(status, body) of one request within `timeout` (see _timeouts)."""
        if method not in _VERBS:
            raise TransportError(f"unsupported method {method}")
        curl = self._handle()
        out = io.BytesIO()
        curl.setopt(pycurl.URL, url)
        curl.setopt(pycurl.HTTPHEADER, [f"{k}: {v}" for k, v in headers.items()] + ["Expect:"])
        if body is None:
            curl.setopt(pycurl.HTTPGET, 1)  # forgets the previous request's body
        else:
            curl.setopt(pycurl.POSTFIELDS, body.encode() if isinstance(body, str) else body)
        curl.setopt(pycurl.CUSTOMREQUEST, method)
        curl.setopt(pycurl.WRITEDATA, out)
        self._timeouts(curl, timeout)
        try:
            curl.perform()
        except pycurl.error as exc:
            code, message = exc.args[0], exc.args[1] if len(exc.args) > 1 else ""
            kind = TransportTimeout if code == pycurl.E_OPERATION_TIMEDOUT else TransportError
            raise kind(f"curl error {code}: {message}") from None
        return int(curl.getinfo(pycurl.RESPONSE_CODE)), out.getvalue()

    @staticmethod
    def _timeouts(curl: Any, timeout: float | tuple[float, float]) -> None:
        """(connect, read): the connection within `connect`, the answer within `read` of asking
        (libcurl has no bound on the silence between bytes below a second: every whole-response
        request here is one page or one object, so its silence and its length differ little); a
        number: both within it."""
        connect, total = (timeout[0], max(timeout)) if isinstance(timeout, tuple) else (timeout, timeout)
        curl.setopt(pycurl.CONNECTTIMEOUT_MS, max(1, int(connect * 1000)))
        curl.setopt(pycurl.TIMEOUT_MS, max(1, int(total * 1000)))

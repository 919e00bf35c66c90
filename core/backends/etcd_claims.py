"""Claims in etcd directly: one key per node (docs/scale-out.md, `--scale-out-store=etcd`).

Node N's claims are the value of `<prefix>/claims/<N>` (backends/claims_store.py's claim map, as
JSON); a topology domain's record is `<prefix>/claims/domain:<key>=<value>`, never told to the loop. A write is one transaction: compare the key's mod_revision with the copy read
(create_revision == 0 for a key not there yet), put on success, read the key back on failure, so a
refused write costs no second round trip. Every replica keeps the prefix in memory from one range
read, then one prefix watch with previous values from the revision after it: a break resumes from
the last revision seen, a compacted revision (the watch is cancelled with `compact_revision`)
lists the prefix again.

The client is etcd3gw (etcd's gRPC gateway, JSON over HTTP, synchronous: it suits the binding
workers' threads): its session carries the endpoint, TLS and the connection pool; the range and
the transaction are its calls. The watch stream is read here rather than through etcd3gw's Watcher,
which has no resume, no compaction and no stop that unblocks a reader.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import requests  # etcd3gw's HTTP client (and the kubernetes client's)

from ..api.extras import require_extra
from ..errors import ConfigError
from .claims_store import (
    Claims,
    ClaimsListener,
    PreconditionFailed,
    Record,
    StoreError,
    decode_claim_map,
    is_domain_record,
)

log = logging.getLogger(__name__)


class _Session(requests.Session):
    """A session whose CA file wins over REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE (plain requests lets the
    environment's bundle replace a session's `verify`, psf/requests#3829)."""

    def merge_environment_settings(self, *args: Any, **kwargs: Any) -> Any:
        settings = super().merge_environment_settings(*args, **kwargs)
        if isinstance(self.verify, str):
            settings["verify"] = self.verify
        return settings

CONNECT_TIMEOUT = 5.0
REQUEST_TIMEOUT = 10.0
# A watch stream silent this long is closed and resumed from its revision (a dead connection looks
# like a quiet one; resuming costs one request and misses nothing).
WATCH_READ_TIMEOUT = 60.0
BACKOFF_INITIAL, BACKOFF_MAX = 0.2, 5.0


@dataclass(frozen=True)
class EtcdOptions:
    """--scale-out-etcd-* (runtime/config.py Settings)."""

    endpoints: tuple[str, ...]
    prefix: str
    cafile: Path | None = None
    certfile: Path | None = None
    keyfile: Path | None = None


def _b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def _unb64(text: str | None) -> bytes:
    return base64.b64decode(text) if text else b""


def _range_end(prefix: bytes) -> bytes:
    """The first key after every key starting with `prefix` (etcd's prefix range)."""
    end = bytearray(prefix)
    while end:
        if end[-1] < 0xFF:
            end[-1] += 1
            return bytes(end)
        end.pop()
    return b"\0"


class Compacted(Exception):  # noqa: N818 - etcd's word for it
    """The watch's start revision was compacted away: list again."""


def parse_endpoints(text: str) -> tuple[str, ...]:
    """`http(s)://host:port[,...]`; a bad entry is a one-line ConfigError."""
    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        parts = urlsplit(item)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
            raise ConfigError(f"--scale-out-etcd-endpoints: {item!r}: expected http(s)://HOST:PORT, comma-separated")
        out.append(f"{parts.scheme}://{parts.netloc}")
    if not out:
        raise ConfigError("--scale-out-store=etcd needs --scale-out-etcd-endpoints (env "
                          "KUBEBERTH_SCALE_OUT_ETCD_ENDPOINTS), e.g. https://127.0.0.1:2379")
    return tuple(out)


class EtcdClaimRecords:
    """ClaimRecords under `<prefix>/claims/` in etcd, with their prefix watch (one thread)."""

    def __init__(self, options: EtcdOptions, identity: str, pool_size: int = 18) -> None:
        Etcd3Client = require_extra("etcd", "--scale-out-store=etcd", module="etcd3gw.client").Etcd3Client  # noqa: N806
        self.options = options
        self.identity = identity
        self.key_prefix = options.prefix.rstrip("/").encode() + b"/claims/"
        self.listeners: list[ClaimsListener] = []
        self.stopping = threading.Event()
        self.synced = threading.Event()
        self.relists = self.resumes = 0
        self._lock = threading.Lock()
        self._records: dict[str, Record] = {}  # node -> its claims and mod_revision
        self._applied: dict[str, int] = {}  # node -> the revision of the last change applied (puts and deletes)
        self._revision = 0  # every change up to this revision is applied
        self._response: Any = None  # the watch stream, closed by stop()
        self._thread: threading.Thread | None = None
        # One session: the TLS context and the keep-alive pool (binding workers' transactions; the
        # watch stream holds one connection of its own while it lasts).
        session = _Session()
        adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=pool_size)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        if options.cafile is not None:
            session.verify = str(options.cafile)
        if options.certfile is not None and options.keyfile is not None:
            session.cert = (str(options.certfile), str(options.keyfile))
        self.clients = []
        for endpoint in options.endpoints:
            parts = urlsplit(endpoint)
            client = Etcd3Client(host=parts.hostname or "", port=parts.port or 2379, protocol=parts.scheme,
                                 timeout=REQUEST_TIMEOUT)
            client.session = session
            self.clients.append(client)
        self._current = 0
        from etcd3gw.exceptions import ConnectionFailedError, ConnectionTimeoutError, Etcd3Exception

        # An endpoint that does not answer (the next one is tried); any failure of a request.
        self._unreachable: tuple[type[BaseException], ...] = (
            ConnectionFailedError, ConnectionTimeoutError, requests.ConnectionError, requests.Timeout)
        self._errors: tuple[type[BaseException], ...] = (Etcd3Exception, requests.RequestException, ValueError,
                                                        KeyError, TypeError)

    @property
    def client(self) -> Any:
        return self.clients[self._current]

    def _failover(self) -> None:
        if len(self.clients) > 1:
            self._current = (self._current + 1) % len(self.clients)

    def key(self, node: str) -> bytes:
        return self.key_prefix + node.encode()

    # ---- start and the initial list ---------------------------------------------------
    def connect(self) -> None:
        """Reach an endpoint and list the prefix (before anything schedules); every endpoint
        failing is a one-line ConfigError."""
        problems = []
        for _ in self.clients:
            try:
                self._list()
                return
            except self._errors as exc:
                problems.append(f"{self.client.base_url}: {_short(exc)}")
                self._failover()
        raise ConfigError(f"--scale-out-etcd-endpoints: no etcd answered ({'; '.join(problems)}); check the "
                          "endpoints, --scale-out-etcd-cafile/-certfile/-keyfile and that etcd runs")

    def _list(self) -> None:
        """Read the whole prefix; the cache becomes it and the listeners hear of every node that changed."""
        start = self.key_prefix
        payload = {"key": _b64(start), "range_end": _b64(_range_end(start))}
        result = self.client.post(self.client.get_url("/kv/range"), json=payload)
        revision = int(result["header"]["revision"])
        fresh: dict[str, Record] = {}
        for kv in result.get("kvs") or []:
            node = _unb64(kv["key"])[len(start):].decode()
            fresh[node] = Record(decode_claim_map(_unb64(kv.get("value"))), int(kv["mod_revision"]))
        with self._lock:
            changed = [n for n in set(fresh) | set(self._records)
                       if (fresh.get(n) or Record({})).claims != (self._records.get(n) or Record({})).claims]
            self._records = fresh
            self._applied = {n: revision for n in set(fresh) | set(self._applied)}
            self._revision = revision
        for node in changed:
            self._tell(node, fresh[node].claims if node in fresh else {})
        self.synced.set()

    def start(self) -> None:
        """The listeners hear of every node listed by connect(), then the watch runs."""
        with self._lock:
            listed = [(node, record.claims) for node, record in self._records.items()]
        for node, claims in listed:
            self._tell(node, claims)
        self._thread = threading.Thread(target=self._run, name="kubeberth-scale-out-etcd-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._close_stream()
        if self._thread is not None:
            self._thread.join(5)
            log.info("scale-out etcd watch stopped at revision %d (%d resumes, %d lists after compaction)",
                     self._revision, self.resumes, self.relists)

    # ---- reads and the transaction (any thread) -------------------------------------------
    def read(self, node: str) -> Record:
        with self._lock:
            return self._records.get(node) or Record({})

    def write(self, node: str, base: Record, claims: Claims) -> None:
        key = _b64(self.key(node))
        if base.version is None:
            compare = {"key": key, "result": "EQUAL", "target": "CREATE", "create_revision": 0}
        else:
            compare = {"key": key, "result": "EQUAL", "target": "MOD", "mod_revision": base.version}
        value = orjson.dumps(claims)
        txn = {"compare": [compare], "success": [{"request_put": {"key": key, "value": _b64(value)}}],
               "failure": [{"request_range": {"key": key}}]}
        client = self.client
        try:
            result = client.transaction(txn)
            revision = int(result["header"]["revision"])
        except self._errors as exc:
            if isinstance(exc, self._unreachable):
                self._failover()
            raise StoreError(f"etcd transaction at {client.base_url}: {_short(exc)}") from None
        if result.get("succeeded"):
            self._remember(node, Record(claims, revision), revision)
            return
        # The failure branch read the key back: the fresh copy, in the same round trip.
        kvs = ((result.get("responses") or [{}])[0].get("response_range") or {}).get("kvs") or []
        if kvs:
            mod = int(kvs[0]["mod_revision"])
            self._remember(node, Record(decode_claim_map(_unb64(kvs[0].get("value"))), mod), mod)
        else:
            self._remember(node, None, revision)
        raise PreconditionFailed(f"{self.key(node).decode()} changed (revision {revision})")

    def _remember(self, node: str, record: Record | None, revision: int) -> bool:
        """Keep the newer of what we hold and `record` (None: the key is gone) as of `revision`."""
        with self._lock:
            if revision < self._applied.get(node, 0):
                return False
            self._applied[node] = revision
            if record is None:
                self._records.pop(node, None)
            else:
                self._records[node] = record
            return True

    def _tell(self, node: str, claims: Claims) -> None:
        if is_domain_record(node):
            return  # a topology domain's record (claims_store.domain_record), no node
        for listener in self.listeners:
            listener(node, claims)

    # ---- the watch (its thread) -------------------------------------------------------
    def _run(self) -> None:
        backoff = BACKOFF_INITIAL
        relist = False
        while not self.stopping.is_set():
            heard = time.monotonic()
            try:
                if relist:
                    self._list()
                    self.relists += 1
                    relist = False
                for _ in self._watch():
                    backoff, heard = BACKOFF_INITIAL, time.monotonic()
                if not self.stopping.is_set():
                    self.resumes += 1
            except Compacted as exc:
                log.info("scale-out etcd watch: %s; listing %s again", exc, self.key_prefix.decode())
                relist = True
                continue
            except self._errors as exc:
                if self.stopping.is_set():
                    return
                self.resumes += 1
                if time.monotonic() - heard >= WATCH_READ_TIMEOUT - 1:
                    log.debug("scale-out etcd watch quiet for %.0fs; resuming", WATCH_READ_TIMEOUT)
                    continue  # a quiet stream timed out: resume at once, same endpoint
                log.info("scale-out etcd watch broke (%s); resuming from revision %d in %.1fs", _short(exc),
                         self._revision + 1, backoff)
                if isinstance(exc, self._unreachable):
                    self._failover()
            except Exception:  # noqa: BLE001 - the watch must outlive a bad message or a listener's bug
                if self.stopping.is_set():
                    return
                self.resumes += 1
                log.exception("scale-out etcd watch failed; resuming from revision %d in %.1fs",
                              self._revision + 1, backoff)
            finally:
                self._response = None
            if self.stopping.wait(backoff):
                return
            backoff = min(backoff * 2, BACKOFF_MAX)

    def _watch(self) -> Iterator[None]:
        """One watch stream from the revision after the last applied; yields after each message."""
        start = self.key_prefix
        request = {"create_request": {"key": _b64(start), "range_end": _b64(_range_end(start)),
                                      "start_revision": self._revision + 1, "prev_kv": True, "progress_notify": True}}
        client = self.client
        resp = client.session.post(client.get_url("/watch"), json=request, stream=True,
                                   timeout=(CONNECT_TIMEOUT, WATCH_READ_TIMEOUT))
        self._response = resp
        if self.stopping.is_set():
            resp.close()
            return
        if resp.status_code != 200:
            raise ValueError(f"watch: HTTP {resp.status_code}: {resp.text[:200]}")
        buffer = b""
        for chunk in resp.iter_content(chunk_size=None):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    self._message(orjson.loads(line))
                    yield

    def _message(self, message: dict[str, Any]) -> None:
        if "error" in message:
            raise ValueError(f"watch: {message['error']}")
        result = message.get("result") or {}
        if result.get("canceled") or int(result.get("compact_revision") or 0):
            compacted = int(result.get("compact_revision") or 0)
            if compacted:
                raise Compacted(f"revision {self._revision + 1} compacted (oldest kept {compacted})")
            raise ValueError(f"watch cancelled: {result.get('cancel_reason') or result}")
        events = result.get("events") or []
        if not events:
            if not result.get("created"):  # a progress notification: everything up to it was sent
                revision = int((result.get("header") or {}).get("revision") or 0)
                with self._lock:
                    self._revision = max(self._revision, revision)
            return
        for event in events:
            self._event(event)

    def _event(self, event: dict[str, Any]) -> None:
        kv = event.get("kv") or {}
        node = _unb64(kv.get("key"))[len(self.key_prefix):].decode()
        revision = int(kv["mod_revision"])
        deleted = event.get("type") == "DELETE"
        claims = {} if deleted else decode_claim_map(_unb64(kv.get("value")))
        applied = self._remember(node, None if deleted else Record(claims, revision), revision)
        with self._lock:
            self._revision = max(self._revision, revision)
        if not applied:
            return  # our own write's echo, already held (or older than what we hold)
        prev = event.get("prev_kv")
        if prev is not None and not deleted:
            before = decode_claim_map(_unb64(prev.get("value")))
            if _others(before, self.identity) == _others(claims, self.identity):
                return  # only this replica's own claims changed: the loop does not count them
        self._tell(node, claims)

    def _close_stream(self) -> None:
        """Unblock the watch thread's read (a closed response alone does not)."""
        resp = self._response
        if resp is None:
            return
        sock = getattr(getattr(resp.raw, "connection", None) or getattr(resp.raw, "_connection", None), "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        resp.close()


def _others(claims: Claims, me: str) -> Claims:
    return {uid: c for uid, c in claims.items() if c[0] != me}


def _short(exc: BaseException) -> str:
    """One line: etcd3gw's exceptions keep their text in `detail_text`, not in their args."""
    text = str(getattr(exc, "detail_text", None) or exc or "").strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first[:300]}" if first else type(exc).__name__

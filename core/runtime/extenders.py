"""HTTP scheduler extenders (kube-scheduler's pkg/scheduler/extender.go, v1.37).

One `HTTPExtender` per entry of the configuration's `extenders:` list, built with the generation.
Each call is a JSON POST to `<urlPrefix>/<verb>` over a pooled urllib3 connection with the
extender's `httpTimeout` as a total deadline (5 s by default), so a slow extender holds the
scheduling loop for at most that long. Request and response bodies are the types of
`k8s.io/kube-scheduler/extender/v1`; error texts follow Go's so FailedScheduling messages match.
"""

from __future__ import annotations

import base64
import os
import ssl
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import orjson
import urllib3

from .config import Extender

DEFAULT_EXTENDER_TIMEOUT = 5.0  # kube-scheduler's DefaultExtenderTimeout
MAX_EXTENDER_PRIORITY = 10  # extenderv1.MaxExtenderPriority
EXTENDER_NAME = "Extender"  # framework.ExtenderName: put in a pod's unschedulable plugins

_prioritize_pool: ThreadPoolExecutor | None = None


def field(obj: Any, name: str) -> Any:
    """A field of an extender/v1 JSON body: those types have no json tags, so the wire names are
    the Go field names ("NodeNames"), and Go's decoder matches keys case-insensitively."""
    if not isinstance(obj, dict):
        return None
    if name in obj:
        return obj[name]
    lower = name.lower()
    for key, value in obj.items():
        if key.lower() == lower:
            return value
    return None


class ExtenderError(Exception):
    """A failed extender call; its text is what kube-scheduler reports for the same failure."""


def _ssl_context(cfg: Extender) -> ssl.SSLContext | None:
    """restclient.TLSConfigFor: CA, client cert, serverName; enableHTTPS without a CA skips verification."""
    tls = cfg.tlsConfig
    has_tls = tls is not None and any(
        (tls.insecure, tls.serverName, tls.certFile, tls.keyFile, tls.caFile, tls.certData, tls.keyData, tls.caData)
    )
    has_ca = tls is not None and bool(tls.caFile or tls.caData)
    insecure = (tls is not None and tls.insecure) or (cfg.enableHTTPS and not has_ca)
    if not has_tls and not insecure:
        return None
    ctx = ssl.create_default_context()
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if tls is None:
        return ctx
    if tls.caFile:
        ctx.load_verify_locations(cafile=tls.caFile)
    if tls.caData:
        ctx.load_verify_locations(cadata=base64.b64decode(tls.caData).decode())
    if tls.certFile or tls.certData:
        with tempfile.TemporaryDirectory() as tmp:  # ssl reads PEM data only from files
            cert, key = tls.certFile, tls.keyFile
            if tls.certData:
                cert = os.path.join(tmp, "cert.pem")
                with open(cert, "wb", opener=lambda p, f: os.open(p, f, 0o600)) as fh:
                    fh.write(base64.b64decode(tls.certData))
            if tls.keyData:
                key = os.path.join(tmp, "key.pem")
                with open(key, "wb", opener=lambda p, f: os.open(p, f, 0o600)) as fh:
                    fh.write(base64.b64decode(tls.keyData))
            ctx.load_cert_chain(cert, key or None)
    return ctx


class HTTPExtender:
    """One configured extender: verbs, weight, managed resources, and a connection pool."""

    def __init__(self, cfg: Extender) -> None:
        self.name = cfg.urlPrefix  # kube-scheduler names an extender by its URL prefix
        self.url = cfg.urlPrefix.rstrip("/")
        self.filter_verb = cfg.filterVerb
        self.prioritize_verb = cfg.prioritizeVerb
        self.preempt_verb = cfg.preemptVerb
        self.bind_verb = cfg.bindVerb
        self.weight = cfg.weight
        self.node_cache_capable = cfg.nodeCacheCapable
        self.ignorable = cfg.ignorable
        self.managed = frozenset(r.name for r in cfg.managedResources)
        self.timeout = cfg.httpTimeout or DEFAULT_EXTENDER_TIMEOUT
        ctx = _ssl_context(cfg)
        kwargs: dict[str, Any] = {}
        if ctx is not None:
            kwargs["ssl_context"] = ctx
            if cfg.tlsConfig is not None and cfg.tlsConfig.serverName:
                kwargs["server_hostname"] = cfg.tlsConfig.serverName
        self._http = urllib3.PoolManager(
            num_pools=2, maxsize=8, retries=False, timeout=urllib3.Timeout(total=self.timeout), **kwargs
        )

    def __repr__(self) -> str:
        return f"HTTPExtender({self.name})"

    @property
    def is_filter(self) -> bool:
        return bool(self.filter_verb)

    @property
    def is_prioritizer(self) -> bool:
        return bool(self.prioritize_verb)

    @property
    def is_binder(self) -> bool:
        return bool(self.bind_verb)

    @property
    def supports_preemption(self) -> bool:
        return bool(self.preempt_verb)

    def is_interested(self, pod_raw: Mapping[str, Any]) -> bool:
        """Without managedResources every pod; otherwise pods requesting or limiting one of them."""
        if not self.managed:
            return True
        spec = pod_raw.get("spec") or {}
        for key in ("containers", "initContainers"):
            for container in spec.get(key) or ():
                resources = container.get("resources") or {}
                for part in ("requests", "limits"):
                    if not self.managed.isdisjoint(resources.get(part) or ()):
                        return True
        return False

    # ---- the verbs --------------------------------------------------------------------------
    def _args(self, pod_raw: Mapping[str, Any], names: list[str], nodes: Iterable[dict[str, Any]] | None) -> dict[str, Any]:
        if self.node_cache_capable:
            return {"Pod": pod_raw, "Nodes": None, "NodeNames": names}
        return {"Pod": pod_raw, "Nodes": {"metadata": {}, "items": list(nodes or ())}, "NodeNames": None}

    def filter(
        self, pod_raw: Mapping[str, Any], names: list[str], nodes: Iterable[dict[str, Any]] | None = None
    ) -> tuple[list[str], dict[str, str], dict[str, str]]:
        """(names kept, failedNodes, failedAndUnresolvableNodes); raises ExtenderError."""
        if not self.filter_verb:
            return names, {}, {}
        result = self.send(self.filter_verb, self._args(pod_raw, names, nodes))
        if not isinstance(result, dict):
            raise ExtenderError(f"extender {self.name!r} returned {type(result).__name__} for {self.filter_verb}")
        if field(result, "Error"):
            raise ExtenderError(str(field(result, "Error")))
        wanted = set(names)
        kept: list[str] = []
        if self.node_cache_capable and field(result, "NodeNames") is not None:
            for name in field(result, "NodeNames"):
                if name not in wanted:
                    raise ExtenderError(
                        f"extender {self.name!r} claims a filtered node {name!r} which is not found in the input node list"
                    )
                kept.append(name)
        elif field(result, "Nodes") is not None:
            kept = [str(((n or {}).get("metadata") or {}).get("name", "")) for n in field(result, "Nodes").get("items") or ()]
        return kept, dict(field(result, "FailedNodes") or {}), dict(field(result, "FailedAndUnresolvableNodes") or {})

    def prioritize(
        self, pod_raw: Mapping[str, Any], names: list[str], nodes: Iterable[dict[str, Any]] | None = None
    ) -> list[tuple[str, int]]:
        """[(host, score)] as the extender returned them (0..MaxExtenderPriority by protocol)."""
        if not self.prioritize_verb:
            return [(n, 0) for n in names]
        result = self.send(self.prioritize_verb, self._args(pod_raw, names, nodes))
        try:
            return [(str(field(hp, "Host") or ""), int(field(hp, "Score") or 0)) for hp in result or ()]
        except (AttributeError, TypeError, ValueError):
            raise ExtenderError(
                f"extender {self.name!r} {self.prioritize_verb}: expected a HostPriorityList, got {str(result)[:200]}"
            ) from None

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        result = self.send(self.bind_verb, {"PodName": name, "PodNamespace": namespace, "PodUID": uid, "Node": node})
        if field(result, "Error"):
            raise ExtenderError(str(field(result, "Error")))

    def process_preemption(
        self, pod_raw: Mapping[str, Any], victims: Mapping[str, tuple[Sequence[Mapping[str, Any]], int]]
    ) -> dict[str, tuple[list[str], int]]:
        """node -> (victim pods, PDB violations) in; node -> (victim pod UIDs, PDB violations) out."""
        args: dict[str, Any] = {"Pod": pod_raw, "NodeNameToVictims": None, "NodeNameToMetaVictims": None}
        if self.node_cache_capable:
            args["NodeNameToMetaVictims"] = {
                node: {"Pods": [{"UID": (p.get("metadata") or {}).get("uid", "")} for p in pods], "NumPDBViolations": n}
                for node, (pods, n) in victims.items()
            }
        else:
            args["NodeNameToVictims"] = {
                node: {"Pods": pods, "NumPDBViolations": n} for node, (pods, n) in victims.items()
            }
        result = self.send(self.preempt_verb, args)
        out: dict[str, tuple[list[str], int]] = {}
        for node, meta in (field(result, "NodeNameToMetaVictims") or {}).items():
            pods = field(meta, "Pods") or ()
            out[node] = ([str(field(p, "UID") or "") for p in pods], int(field(meta, "NumPDBViolations") or 0))
        return out

    def send(self, verb: str, args: Any) -> Any:
        """POST JSON to <urlPrefix>/<verb>; any failure is an ExtenderError with Go's wording."""
        url = f"{self.url}/{verb}"
        try:
            resp = self._http.request(
                "POST", url, body=orjson.dumps(args), headers={"Content-Type": "application/json"}, preload_content=True
            )
        except urllib3.exceptions.HTTPError as exc:
            raise ExtenderError(f'Post "{url}": {_transport_reason(exc, url)}') from None
        if resp.status != 200:
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {resp.status}")
        try:
            return orjson.loads(resp.data)
        except orjson.JSONDecodeError as exc:
            raise ExtenderError(f"extender {self.name!r} {verb}: invalid JSON response: {exc}") from None

    def start_prioritize(
        self, pod_raw: Mapping[str, Any], names: list[str], nodes: list[dict[str, Any]] | None
    ) -> Future[list[tuple[str, int]]]:
        """Prioritize in a worker thread, so the HTTP round trip overlaps the score plugins."""
        global _prioritize_pool
        if _prioritize_pool is None:
            _prioritize_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="extender-prioritize")
        return _prioritize_pool.submit(self.prioritize, pod_raw, names, nodes)

    def close(self) -> None:
        self._http.clear()


def _transport_reason(exc: Exception, url: str) -> str:
    """Go's net/http wording for the usual transport failures."""
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        exc = exc.reason
    if isinstance(exc, urllib3.exceptions.TimeoutError):
        return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
    if isinstance(exc, urllib3.exceptions.NewConnectionError) and "refused" in str(exc).lower():
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return f"dial tcp {parts.hostname}:{port}: connect: connection refused"
    return str(exc)


def build_extenders(configs: Iterable[Extender]) -> tuple[HTTPExtender, ...]:
    """kube-scheduler's buildExtenders order: ignorable extenders go to the tail."""
    built = [HTTPExtender(c) for c in configs]
    return tuple([e for e in built if not e.ignorable] + [e for e in built if e.ignorable])


def ignored_resources(configs: Iterable[Extender]) -> list[str]:
    """Managed resources marked ignoredByScheduler: NodeResourcesFit's ignoredResources in every profile."""
    return [r.name for c in configs for r in c.managedResources if r.ignoredByScheduler]

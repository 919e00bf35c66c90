"""kube-scheduler's z-pages: /statusz and /flagz (ComponentStatusz, ComponentFlagz: beta, on in v1.37) and /configz.

Mirrors k8s.io/apiserver v0.37.2 pkg/server/statusz and pkg/server/flagz: text/plain for no Accept header, a
wildcard or text/plain; a structured object (kind Statusz or Flagz, group config.k8s.io, v1beta1 or the
deprecated v1alpha1, which adds a `Warning: 299` header) in JSON, YAML or CBOR when the Accept clause names it
with `g`, `v` and `as`; 406 otherwise. Clauses are tried by quality, then specificity, as
negotiation.NegotiateMediaTypeOptions does. /configz is component-base's configz: {"componentconfig": the
running KubeSchedulerConfiguration}. All three sit behind the secure port's authentication and authorization
like every other path that is not always allowed.
"""

from __future__ import annotations

import json
import platform
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from .httpserver import TEXT, HTTPServer, Request, Response

COMPONENT = "kube-scheduler"  # the component name kube-scheduler's z-pages report; kubeberth takes its place
GROUP = "config.k8s.io"
VERSIONS = ("v1alpha1", "v1beta1")
DEPRECATED = frozenset({"v1alpha1"})
EMULATION_VERSION = "1.37"  # kube-scheduler v1.37.2's API and behaviour
# Folders kube-scheduler never lists (statusz's nonDebuggingEndpoints) and kubeberth's own API beside
# kube-scheduler's endpoints (unlisted, as kube-scheduler's /debug/pprof and /debug/flags are).
UNLISTED = frozenset({"/apis", "/api", "/openid", "/openapi", "/.well-known", "/debug", "/reload", "/canary",
                      "/shadow", "/plugins", "/generation", "/statusz"})
_DELIMITERS = (":", ": ", "=", " ")
_STRUCTURED = {"application/json": "application/json", "application/yaml": "application/yaml",
               "application/cbor": "application/cbor"}
_HEADER = "\n{} {}\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility " \
          "guarantees and is for debugging purposes only.\n"


@dataclass(frozen=True)
class Clause:
    """One media range of an Accept header (goautoneg.Accept)."""

    type: str
    subtype: str
    q: float
    params: Mapping[str, str]


def parse_accept(header: str) -> list[Clause]:
    """goautoneg.ParseAccept: the clauses ordered by quality, then concrete before wildcard types (stable)."""
    out = []
    for part in header.split(","):
        fields = [f.strip() for f in part.split(";")]
        mime, _, sub = fields[0].partition("/")
        if not mime:
            continue
        params: dict[str, str] = {}
        q = 1.0
        for f in fields[1:]:
            key, _, value = f.partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
            elif key.strip():
                params[key.strip()] = value.strip()
        out.append(Clause(mime.strip(), (sub or "*").strip(), q, params))
    return sorted(out, key=lambda c: (-c.q, c.type == "*", c.subtype == "*"))


def negotiate(header: str, kind: str) -> tuple[str, str] | None:
    """negotiation.NegotiateOutputMediaType with statusz's / flagz's EndpointRestrictions: ("text/plain", "")
    or (a structured media type, its version), or None (406). text/plain takes no conversion; a structured
    type only a conversion to a recognized kind (`as`=kind, `g`=config.k8s.io, `v` one of VERSIONS)."""
    if not header.strip():
        return "text/plain", ""
    for clause in parse_accept(header):
        for media in ("application/json", "application/yaml", "text/plain", "application/cbor"):
            mtype, msub = media.split("/")
            if not (clause.type in (mtype, "*") and clause.subtype in (msub, "*")) or (
                    clause.type == "*" and clause.subtype != "*"):
                continue
            convert = any(k in clause.params for k in ("as", "g", "v"))
            if media == "text/plain":
                if not convert:
                    return media, ""
                continue
            p = clause.params
            if convert and p.get("as") == kind and p.get("g") == GROUP and p.get("v") in VERSIONS:
                return media, p["v"]
    return None


def encode(media: str, obj: Mapping[str, Any]) -> bytes:
    """The structured object in the negotiated serialization."""
    if media == "application/yaml":
        return yaml.safe_dump(dict(obj), sort_keys=False).encode()
    if media == "application/cbor":
        return b"\xd9\xd9\xf7" + cbor(obj)  # kube's CBOR serializer: the self-described tag first
    return json.dumps(obj, separators=(",", ":")).encode()


def cbor(value: Any) -> bytes:
    """A minimal CBOR encoder as kube's (apimachinery's modes.Encode): strings, keys included, as byte strings,
    map keys sorted bytewise by their encoding; ints, bools, null, lists, maps."""
    if value is None:
        return b"\xf6"
    if isinstance(value, bool):
        return b"\xf5" if value else b"\xf4"
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, str):
        raw = value.encode()
        return _head(2, len(raw)) + raw
    if isinstance(value, (list, tuple)):
        return _head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, Mapping):
        items = sorted((cbor(str(k)), cbor(v)) for k, v in value.items())
        return _head(5, len(items)) + b"".join(k + v for k, v in items)
    raise TypeError(f"cbor: cannot encode {type(value).__name__}")


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | extra]) + n.to_bytes(size, "big")
    raise ValueError("cbor: integer too large")


def listed_paths(served: Iterable[str]) -> list[str]:
    """statusz's aggregatePaths: the first segment of every served path, less the unlisted ones, sorted."""
    folders = {"/" + p.split("/")[1] for p in served if not p.startswith("POST ") and len(p.split("/")) > 1
               and p.split("/")[1]}
    return sorted(folders - UNLISTED)


def not_acceptable(kind: str) -> Response:
    """responsewriters.ErrorNegotiated of a NotAcceptable error: a metav1.Status, 406."""
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": "only the following media types are accepted: application/json, application/yaml, "
                         f"text/plain, application/cbor (application/json;g={GROUP};v=v1beta1;as={kind} and the "
                         "like for the structured form)",
              "reason": "NotAcceptable", "code": 406}
    return Response(406, "application/json", json.dumps(status).encode())


class ZPages:
    """The state the z-pages report: the process start, its flags and the running configuration."""

    def __init__(self, http: HTTPServer, flags: Callable[[], Mapping[str, str]],
                 config: Callable[[], Mapping[str, Any]], binary_version: str) -> None:
        self.http, self.flags, self.config = http, flags, config
        self.binary_version = binary_version
        self.started = time.time()

    def install(self, *, flagz: bool = True, statusz: bool = True) -> None:
        """newEndpointsHandler's configz.InstallHandler, and flagz.Install and statusz.Install where their gates
        are on (statusz last: it lists the paths served before it, as kube-scheduler's does)."""
        self.http.add_request_route("/configz", self.configz)
        if flagz:
            self.http.add_request_route("/flagz", self.flagz)
        if statusz:
            self.http.add_request_route("/statusz", self.statusz)

    def configz(self, _request: Request) -> Response:
        body = {"componentconfig": {"apiVersion": "kubescheduler.config.k8s.io/v1",
                                    "kind": "KubeSchedulerConfiguration", **dict(self.config())}}
        return Response(200, "application/json", json.dumps(body).encode())

    def statusz(self, request: Request) -> Response:
        return self._serve(request, "Statusz", self._statusz_object, self._statusz_text)

    def flagz(self, request: Request) -> Response:
        return self._serve(request, "Flagz", self._flagz_object, self._flagz_text)

    def _serve(self, request: Request, kind: str, structured: Callable[[str], dict[str, Any]],
               text: Callable[[], str]) -> Response:
        chosen = negotiate(request.header("Accept"), kind)
        if chosen is None:
            return not_acceptable(kind)
        media, version = chosen
        if media == "text/plain":
            return Response(200, TEXT, text().encode())
        headers: tuple[tuple[str, str], ...] = ()
        if version in DEPRECATED:
            headers = (("Warning", f'299 - "This version of the {kind.lower()} endpoint is deprecated. '
                                   'Please use a newer version."'),)
        return Response(200, media, encode(media, structured(version)), headers)

    def _meta(self, kind: str, version: str) -> dict[str, Any]:
        return {"kind": kind, "apiVersion": f"{GROUP}/{version}", "metadata": {"name": COMPONENT}}

    def _statusz_object(self, version: str) -> dict[str, Any]:
        return {**self._meta("Statusz", version),
                "startTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
                "uptimeSeconds": max(0, int(time.time() - self.started)),
                "goVersion": f"python{platform.python_version()}", "binaryVersion": self.binary_version,
                "emulationVersion": EMULATION_VERSION, "paths": listed_paths(self.http.served())}

    def _statusz_text(self) -> str:
        d = random.choice(_DELIMITERS)  # noqa: S311 - statusz's random delimiter: not machine parseable
        up = max(0, int(time.time() - self.started))
        obj = self._statusz_object("v1beta1")
        lines = [f"Started{d} {time.strftime('%a %b %e %H:%M:%S UTC %Y', time.gmtime(self.started))}",
                 f"Up{d} {up // 3600} hr {(up // 60) % 60:02d} min {up % 60:02d} sec",
                 f"Go version{d} {obj['goVersion']}", f"Binary version{d} {self.binary_version}",
                 f"Emulation version{d} {EMULATION_VERSION}", f"Paths{d} {' '.join(obj['paths'])}"]
        return _HEADER.format(COMPONENT, "statusz") + "\n" + "\n".join(lines) + "\n"

    def _flagz_object(self, version: str) -> dict[str, Any]:
        return {**self._meta("Flagz", version), "flags": dict(self.flags())}

    def _flagz_text(self) -> str:
        d = random.choice(_DELIMITERS)  # noqa: S311
        flags = self.flags()
        return _HEADER.format(COMPONENT, "flagz") + "".join(f"{k}{d}{flags[k]}\n" for k in sorted(flags))


def flag_values(args: Any, effective: Mapping[str, str]) -> dict[str, str]:
    """flagz.NamedFlagSetsReader.GetFlagz for `kubeberth run`: every flag with its value as pflag prints it
    (true/false, "" for unset), the value the configuration gave it where the flag was not set (`effective`)."""
    out: dict[str, str] = {}
    for dest, value in sorted(vars(args).items()):
        if dest in ("command", "func", "cmd") or callable(value):
            continue
        name = dest.replace("_", "-")
        if value is None:
            out[name] = effective.get(name, "")
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            out[name] = ",".join(str(v) for v in value)
        else:
            out[name] = str(value)
    return {**out, **{k: v for k, v in effective.items() if not out.get(k)}}

"""`kubeberth run`'s serving flags, checked: kube-scheduler's SecureServingOptions,
DelegatingAuthenticationOptions and DelegatingAuthorizationOptions, and the insecure listener.

kube-scheduler serves HTTPS on 10259 (all addresses) and nothing in plain HTTP; kubeberth keeps a
plain-HTTP listener as an explicit local option (`--healthz-bind-address`, loopback addresses
only) and, for `run --embedded` (no API server to delegate to), on 127.0.0.1:10260 by default.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path
from typing import Any

from ...errors import KubeberthError
from ..httpserver import DEFAULT_BIND_ADDRESS, parse_bind_address
from .defaults import DEFAULT_ALWAYS_ALLOW_PATHS, DEFAULT_SECURE_BIND_ADDRESS, DEFAULT_SECURE_PORT


@dataclasses.dataclass(frozen=True)
class SecureServingOptions:
    """The secure port and its delegated authentication and authorization."""

    secure_port: int = DEFAULT_SECURE_PORT
    bind_address: str = DEFAULT_SECURE_BIND_ADDRESS
    tls_cert_file: str | None = None
    tls_private_key_file: str | None = None
    cert_dir: str | None = None
    authentication_kubeconfig: str | None = None  # default: the scheduler's own connection
    authorization_kubeconfig: str | None = None
    always_allow_paths: tuple[str, ...] = DEFAULT_ALWAYS_ALLOW_PATHS

    @property
    def address(self) -> str:
        host = f"[{self.bind_address}]" if ":" in self.bind_address else self.bind_address
        return f"{host}:{self.secure_port}"

    def validate(self) -> SecureServingOptions:
        if not 0 <= self.secure_port <= 65535:
            raise KubeberthError(f"--secure-port: expected 0 (off) to 65535, got {self.secure_port}")
        try:
            ipaddress.ip_address(self.bind_address)
        except ValueError:
            raise KubeberthError(f"--bind-address: expected an IP address, got {self.bind_address!r}") from None
        if bool(self.tls_cert_file) != bool(self.tls_private_key_file):
            raise KubeberthError("--tls-cert-file and --tls-private-key-file: give both or neither")
        for flag, value in (("--tls-cert-file", self.tls_cert_file), ("--tls-private-key-file", self.tls_private_key_file),
                            ("--authentication-kubeconfig", self.authentication_kubeconfig),
                            ("--authorization-kubeconfig", self.authorization_kubeconfig)):
            if value and not Path(value).is_file():
                raise KubeberthError(f"{flag}: {value}: no such file")
        for path in self.always_allow_paths:
            if not path.startswith("/") or "*" in path[:-1]:
                raise KubeberthError(
                    f"--authorization-always-allow-paths: {path!r}: expected a path starting with / (a trailing * for a prefix)"
                )
        return self


def secure_serving_options(args: Any, embedded: bool) -> SecureServingOptions | None:
    """From `kubeberth run`'s flags; None when the secure port is off (`run --embedded` unless
    asked: then it is refused, as there is no API server to review tokens)."""
    port = getattr(args, "secure_port", None)
    if embedded:
        if port:
            raise KubeberthError("--secure-port: run --embedded has no API server to authenticate callers; "
                                 "use --healthz-bind-address (loopback)")
        return None
    paths = getattr(args, "authorization_always_allow_paths", None)
    options = SecureServingOptions(
        secure_port=DEFAULT_SECURE_PORT if port is None else port,
        bind_address=getattr(args, "bind_address", None) or DEFAULT_SECURE_BIND_ADDRESS,
        tls_cert_file=getattr(args, "tls_cert_file", None),
        tls_private_key_file=getattr(args, "tls_private_key_file", None),
        cert_dir=getattr(args, "cert_dir", None),
        authentication_kubeconfig=getattr(args, "authentication_kubeconfig", None),
        authorization_kubeconfig=getattr(args, "authorization_kubeconfig", None),
        always_allow_paths=DEFAULT_ALWAYS_ALLOW_PATHS if paths is None else tuple(p.strip() for p in paths.split(",") if p.strip()),
    ).validate()
    return options if options.secure_port else None


def insecure_bind_address(address: str | None, embedded: bool, flag: str = "--healthz-bind-address") -> str | None:
    """The plain-HTTP listener's address: given (loopback only), 127.0.0.1:10260 for
    `run --embedded`, else none."""
    if not address:
        return DEFAULT_BIND_ADDRESS if embedded else None
    try:
        host, _port = parse_bind_address(address)
    except ValueError as exc:
        raise KubeberthError(f"{flag}: {exc}") from None
    if not is_loopback(host):
        raise KubeberthError(
            f"{flag}: {address} is not a loopback address; the plain-HTTP listener has no authentication "
            "(serve other addresses on the secure port: --secure-port, --bind-address)"
        )
    return address


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False

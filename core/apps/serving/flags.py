"""The command-line flags of secure serving: kube-scheduler's names for the server
(`kubeberth run`), kubectl's for the clients (`explain`, `plugins list --server`)."""

from __future__ import annotations

import argparse

from .defaults import DEFAULT_ALWAYS_ALLOW_PATHS, DEFAULT_SECURE_BIND_ADDRESS, DEFAULT_SECURE_PORT, TOKEN_ENV


def add_serving_flags(parser: argparse.ArgumentParser) -> None:
    """`kubeberth run`: the secure port, its certificate and its delegated authn/authz."""
    group = parser.add_argument_group("secure serving (HTTPS with delegated authentication and authorization)")
    group.add_argument(
        "--secure-port", type=int, default=None, metavar="PORT",
        help=f"HTTPS port for /healthz, /readyz, /livez, /metrics, /debug/*, POST /reload; 0 turns it off "
        f"(default {DEFAULT_SECURE_PORT}; off with --embedded)",
    )
    group.add_argument(
        "--bind-address", default=None, metavar="IP", help=f"address of the secure port (default {DEFAULT_SECURE_BIND_ADDRESS})"
    )
    group.add_argument("--tls-cert-file", metavar="FILE", help="serving certificate (PEM, chain after it); default: self-signed")
    group.add_argument("--tls-private-key-file", metavar="FILE", help="the serving certificate's key (PEM)")
    group.add_argument(
        "--cert-dir", metavar="DIR", help="keep the self-signed certificate here (kubeberth.crt, kubeberth.key) instead of in memory"
    )
    group.add_argument(
        "--authentication-kubeconfig", metavar="FILE",
        help="kubeconfig of the API server that reviews tokens (TokenReview; default: the scheduler's own connection)",
    )
    group.add_argument(
        "--authorization-kubeconfig", metavar="FILE",
        help="kubeconfig of the API server that authorizes requests (SubjectAccessReview; default: the scheduler's own)",
    )
    group.add_argument(
        "--authorization-always-allow-paths", metavar="PATH[,PATH...]",
        help=f"paths served without a token (default {','.join(DEFAULT_ALWAYS_ALLOW_PATHS)}; a trailing * for a prefix)",
    )


def add_client_flags(parser: argparse.ArgumentParser) -> None:
    """`explain` and `plugins list --server`: reaching a scheduler's secure port."""
    parser.add_argument("--token", default=None, help=f"bearer token for the scheduler's secure port (env {TOKEN_ENV})")
    parser.add_argument(
        "--certificate-authority", default=None, metavar="FILE", help="verify the scheduler's certificate with this CA"
    )
    parser.add_argument(
        "--insecure-skip-tls-verify", action="store_true", help="do not verify the scheduler's certificate (self-signed by default)"
    )

"""The secure port: TLS and the delegating guard in front of the route table."""

from __future__ import annotations

from ..httpserver import HTTPServer, Listener
from .authn import TokenReviewAuthenticator
from .authz import PathMatcher, SubjectAccessReviewAuthorizer
from .certs import server_context
from .guard import DelegatingGuard
from .options import SecureServingOptions
from .reviews import review_client


def add_secure_listener(http: HTTPServer, options: SecureServingOptions, kubeconfig: str | None) -> Listener:
    """Serve `http`'s routes on the secure port; the reviews go to the API server of
    --authentication-kubeconfig / --authorization-kubeconfig, by default the scheduler's own."""
    tls = server_context(options.tls_cert_file, options.tls_private_key_file, options.cert_dir)
    authn_config = options.authentication_kubeconfig or kubeconfig
    authz_config = options.authorization_kubeconfig or kubeconfig
    authn_post = review_client(authn_config)
    authz_post = authn_post if authz_config == authn_config else review_client(authz_config)
    guard = DelegatingGuard(
        TokenReviewAuthenticator(authn_post),
        SubjectAccessReviewAuthorizer(authz_post),
        PathMatcher(options.always_allow_paths),
    )
    return http.add_listener(options.address, tls=tls, guard=guard)

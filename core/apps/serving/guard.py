"""The secure port's filter chain: authenticate, then authorize, before any route runs.

Mirrors the order of k8s.io/apiserver's DefaultBuildHandlerChain as kube-scheduler uses it
(WithAuthentication, then WithAuthorization): an always-allowed path (the probes) passes
untouched; otherwise no or a rejected bearer token is 401, a user the authorizer does not allow
is 403 with upstream's `User "..." cannot get path "..."` message, and an API server that does not
answer is 401 for authentication (as upstream) and 500 for authorization.
"""

from __future__ import annotations

import dataclasses
import logging

from ..httpserver import TEXT, Request, Response
from .authn import TokenReviewAuthenticator, bearer_token
from .authz import VERBS, PathMatcher, SubjectAccessReviewAuthorizer
from .reviews import ReviewError

log = logging.getLogger(__name__)


class DelegatingGuard:
    """A `Guard` for HTTPServer listeners (apps/httpserver.py)."""

    def __init__(
        self, authenticator: TokenReviewAuthenticator, authorizer: SubjectAccessReviewAuthorizer, always_allow: PathMatcher
    ) -> None:
        self.authenticator = authenticator
        self.authorizer = authorizer
        self.always_allow = always_allow

    def __call__(self, request: Request) -> Response | Request:
        if self.always_allow(request.path):
            return dataclasses.replace(request, authorized=True)
        token = bearer_token(request.header("Authorization"))
        if not token:
            return _unauthorized("no bearer token (pass one in the Authorization header)")
        try:
            authn = self.authenticator.authenticate(token)
        except ReviewError as exc:
            log.warning("TokenReview failed: %s", exc)
            return _unauthorized(f"the token could not be reviewed: {exc}")
        if authn.user is None:
            return _unauthorized(f"invalid bearer token: {authn.error}")
        verb = VERBS.get(request.method, request.method.lower())
        try:
            decision = self.authorizer.authorize(authn.user, request.path, verb)
        except ReviewError as exc:
            log.warning("SubjectAccessReview failed: %s", exc)
            return Response(500, TEXT, f"Internal Server Error: authorizing {request.path}: {exc}\n".encode())
        if not decision.allowed:
            why = f": {decision.reason}" if decision.reason else ""
            message = f'forbidden: User "{authn.user.name}" cannot {verb} path "{request.path}"{why}\n'
            return Response(403, TEXT, message.encode())
        return dataclasses.replace(request, user=authn.user.name, authorized=True)


def _unauthorized(message: str) -> Response:
    return Response(401, TEXT, f"Unauthorized: {message}\n".encode(), (("WWW-Authenticate", 'Bearer realm="kubeberth"'),))

"""Delegated authentication: a bearer token is whoever the API server's TokenReview says it is.

Mirrors kube-scheduler's delegating authenticator (k8s.io/apiserver
authenticatorfactory.DelegatingAuthenticatorConfig with the TokenReview webhook, wrapped in
authentication/token/cache with cacheErrs=false): answers, authenticated or not, are cached
for CacheTTL (10 s by default) under a hash of the token; failures to reach the API server are
not cached. Unlike kube-scheduler, a request without credentials is not served as
system:anonymous: it is answered 401.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

from .reviews import TOKEN_REVIEWS, Post
from .ttlcache import TTLCache

DEFAULT_CACHE_TTL_SECONDS = 10.0  # DelegatingAuthenticationOptions.CacheTTL


@dataclasses.dataclass(frozen=True)
class UserInfo:
    """user.Info from a TokenReview's status.user."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def from_review(cls, user: dict[str, Any]) -> UserInfo:
        extra = tuple(sorted((k, tuple(v or ())) for k, v in (user.get("extra") or {}).items()))
        return cls(str(user.get("username") or ""), str(user.get("uid") or ""), tuple(user.get("groups") or ()), extra)


@dataclasses.dataclass(frozen=True)
class Authentication:
    """A TokenReview's answer: the user, or why the token was not accepted."""

    user: UserInfo | None
    error: str = ""


class TokenReviewAuthenticator:
    """Bearer token -> user, through TokenReview (authentication.k8s.io/v1), cached."""

    def __init__(
        self,
        post: Post,
        cache_ttl: float = DEFAULT_CACHE_TTL_SECONDS,
        audiences: tuple[str, ...] = (),
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.post = post
        self.cache_ttl = cache_ttl
        self.audiences = audiences
        self.cache: TTLCache[Authentication] = TTLCache(clock=clock) if clock else TTLCache()

    def authenticate(self, token: str) -> Authentication:
        """The token's user (or the reason it has none); raises ReviewError when the API server
        gave no answer (not cached: the next request asks again)."""
        key = hashlib.sha256(token.encode()).digest()
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        spec: dict[str, Any] = {"token": token}
        if self.audiences:
            spec["audiences"] = list(self.audiences)
        review = self.post(TOKEN_REVIEWS, {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec})
        status = review.get("status") or {}
        if status.get("authenticated"):
            answer = Authentication(UserInfo.from_review(status.get("user") or {}))
        else:
            answer = Authentication(None, str(status.get("error") or "token not accepted"))
        self.cache.put(key, answer, self.cache_ttl)
        return answer


def bearer_token(authorization: str) -> str:
    """The token of an `Authorization: Bearer <token>` header ("" if none), as the apiserver's
    bearertoken authenticator reads it."""
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""

"""Delegated authorization: may this user `get` (or `create`) this path? The API server decides.

Mirrors kube-scheduler's authorizer chain (k8s.io/apiserver DelegatingAuthorizationOptions):
paths in AlwaysAllowPaths (default /healthz, /readyz, /livez; a trailing `*` makes a prefix) are
allowed for anyone; users in AlwaysAllowGroups (system:masters) for everything; everyone else
through a SubjectAccessReview (authorization.k8s.io/v1) with nonResourceAttributes path + verb,
its answer cached for AllowCacheTTL / DenyCacheTTL (10 s each by default); errors are not cached.
Verbs: GET -> get, POST -> create (RBAC's verb for an action that makes something happen; the
apiserver itself would call it `post` on a non-resource path).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from .authn import UserInfo
from .reviews import SUBJECT_ACCESS_REVIEWS, Post
from .ttlcache import TTLCache

DEFAULT_ALWAYS_ALLOW_GROUPS = ("system:masters",)
DEFAULT_ALLOW_CACHE_TTL_SECONDS = 10.0
DEFAULT_DENY_CACHE_TTL_SECONDS = 10.0
VERBS = {"GET": "get", "HEAD": "get", "POST": "create"}


@dataclasses.dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""


class PathMatcher:
    """authorizer/path: exact paths, and prefixes written with a trailing `*`."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.exact = frozenset(p for p in paths if not p.endswith("*"))
        self.prefixes = tuple(p[:-1] for p in paths if p.endswith("*"))

    def __call__(self, path: str) -> bool:
        return path in self.exact or any(path.startswith(p) for p in self.prefixes)


class SubjectAccessReviewAuthorizer:
    """(user, path, verb) -> allowed or denied, through SubjectAccessReview, cached."""

    def __init__(
        self,
        post: Post,
        allow_ttl: float = DEFAULT_ALLOW_CACHE_TTL_SECONDS,
        deny_ttl: float = DEFAULT_DENY_CACHE_TTL_SECONDS,
        always_allow_groups: Iterable[str] = DEFAULT_ALWAYS_ALLOW_GROUPS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.post = post
        self.allow_ttl = allow_ttl
        self.deny_ttl = deny_ttl
        self.always_allow_groups = frozenset(always_allow_groups)
        self.cache: TTLCache[Decision] = TTLCache(clock=clock) if clock else TTLCache()

    def authorize(self, user: UserInfo, path: str, verb: str) -> Decision:
        """Raises ReviewError when the API server gave no answer (not cached)."""
        if self.always_allow_groups.intersection(user.groups):
            return Decision(True, "privileged group")
        key = (user, path, verb)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        review = self.post(SUBJECT_ACCESS_REVIEWS, _review(user, path, verb))
        status = review.get("status") or {}
        decision = Decision(bool(status.get("allowed")) and not status.get("denied"), str(status.get("reason") or ""))
        self.cache.put(key, decision, self.allow_ttl if decision.allowed else self.deny_ttl)
        return decision


def _review(user: UserInfo, path: str, verb: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"user": user.name, "groups": list(user.groups), "nonResourceAttributes": {"path": path, "verb": verb}}
    if user.uid:
        spec["uid"] = user.uid
    if user.extra:
        spec["extra"] = {k: list(v) for k, v in user.extra}
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}

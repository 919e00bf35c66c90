"""Posting TokenReviews and SubjectAccessReviews to the API server, with upstream's retries.

k8s.io/apiserver's delegating authenticator and authorizer call the API server through a webhook
client that retries a failed call with exponential backoff (DefaultAuthWebhookRetryBackoff:
500 ms, factor 1.5, 5 steps) when the server cannot be reached, throttles (429) or fails (5xx);
a 4xx answer is final. `ReviewClient` does the same over kubeberth's raw client.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...backends.kubernetes.client import ApiError, RawClient, load_api_client

TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
REVIEW_TIMEOUT_SECONDS = 10.0  # TokenRequestTimeout and the authorizer's ClientTimeout
BACKOFF_SECONDS, BACKOFF_FACTOR, BACKOFF_STEPS = 0.5, 1.5, 5

Post = Callable[[str, dict[str, Any]], dict[str, Any]]


class ReviewError(Exception):
    """The API server gave no answer to a review (unreachable, throttling, failing, or refusing)."""


def retrying(post: Post, sleep: Callable[[float], None] = time.sleep) -> Post:
    """`post` retried on transient failures, as the webhook client's WithExponentialBackoff."""

    def call(path: str, body: dict[str, Any]) -> dict[str, Any]:
        delay = BACKOFF_SECONDS
        for step in range(BACKOFF_STEPS):
            try:
                return post(path, body)
            except ApiError as exc:
                final = 0 < exc.status < 500 and exc.status != 429
                if final or step == BACKOFF_STEPS - 1:
                    raise ReviewError(f"{path}: {exc}") from None
            sleep(delay)
            delay *= BACKOFF_FACTOR
        raise AssertionError("unreachable")

    return call


def review_client(kubeconfig: str | None) -> Post:
    """POST a review through a connection of its own (kubeconfig, else in-cluster, else
    ~/.kube/config): probes and scrapes never queue behind the scheduler's binds."""
    raw = RawClient(load_api_client(kubeconfig, pool_size=4, retries=False), user_agent="kubeberth/delegated-auth")

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        return raw.request("POST", path, body=body, timeout=REVIEW_TIMEOUT_SECONDS) or {}

    return retrying(post)

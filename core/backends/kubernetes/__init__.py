"""The Kubernetes backend, one client concern per module: the raw client, informers, the event
recorder, the pod status writer, leader election, and the backend that composes them."""

from .backend import KubernetesBackend
from .client import ApiError, RawClient, load_api_client

__all__ = ["ApiError", "KubernetesBackend", "RawClient", "load_api_client"]

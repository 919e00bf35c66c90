"""Typed shapes of the raw Kubernetes objects plugins read; see kubeberth.objects (defined below
every layer, so the cache can type what it stores)."""

from ..objects import *  # noqa: F403
from ..objects import __all__  # noqa: F401

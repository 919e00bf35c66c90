"""Plugins' own Prometheus metrics: register collectors or metrics on `REGISTRY`.

The scheduler serves them on its /metrics route after kube-scheduler's metrics, so a plugin's
health (e.g. kubeberth.contrib's `kubeberth_node_metrics_up`) is scraped with the scheduler's.
Name plugin metrics with a prefix of their own; names must not collide with the scheduler's.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry

__all__ = ["REGISTRY"]

REGISTRY = CollectorRegistry(auto_describe=True)

"""Cluster backends: the one seam between the framework and a cluster (DESIGN property 4)."""

from .base import Backend, ClusterEvent, EventSink

__all__ = ["Backend", "ClusterEvent", "EventSink"]

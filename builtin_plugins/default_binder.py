"""DefaultBinder: binds the pod through the backend's Binding subresource."""

from __future__ import annotations

from typing import Any

from kubeberth import PodView, Status, hookimpl


class DefaultBinder:
    name = "DefaultBinder"

    @hookimpl
    def bind(self, pod: PodView, node_name: str, handle: Any) -> Status:
        return handle.bind(pod, node_name)

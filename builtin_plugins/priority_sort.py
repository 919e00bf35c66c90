"""PrioritySort: higher spec.priority first, then the pod that entered the queue earlier."""

from __future__ import annotations

from kubeberth import PodView, hookimpl


class PrioritySort:
    name = "PrioritySort"

    @hookimpl
    def queue_sort(self, pod: PodView) -> tuple[int, float]:
        # The queue breaks remaining ties by enqueue order (kube-scheduler's timestamp).
        return (-pod.priority, pod.queue_timestamp)

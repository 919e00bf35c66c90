"""PrioritySort: higher spec.priority first, then the pod that entered the queue earlier."""

from __future__ import annotations

from kubeberth import PodInfo, hookimpl


class PrioritySort:
    name = "PrioritySort"

    @hookimpl
    def queue_sort(self, pod: PodInfo) -> tuple[int, float]:
        # The queue breaks remaining ties by enqueue order (kube-scheduler's timestamp).
        return (-pod.priority, pod.queue_timestamp)

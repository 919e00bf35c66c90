"""SLAQueueSort: pods of a higher SLA tier are scheduled first.

The tier comes from a pod label (`sla` by default): gold → 100, silver → 50, bronze → 10 (the
mapping is configurable; unknown or missing tiers get `defaultValue`). Ties go to the higher
spec.priority, then to the pod that entered the queue first — PrioritySort's order within a tier.
"""

from __future__ import annotations

from kubeberth import PodView, hookimpl
from pydantic import BaseModel, ConfigDict, Field


class SLAQueueSort:
    name = "SLAQueueSort"

    class Args(BaseModel):
        model_config = ConfigDict(extra="forbid")
        label: str = "sla"
        tiers: dict[str, int] = Field(default_factory=lambda: {"gold": 100, "silver": 50, "bronze": 10})
        defaultValue: int = 0

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()

    def tier_value(self, pod: PodView) -> int:
        tier = pod.labels.get(self.args.label)
        return self.args.tiers.get(tier, self.args.defaultValue) if tier is not None else self.args.defaultValue

    @hookimpl
    def queue_sort(self, pod: PodView) -> tuple[int, int, float]:
        return (-self.tier_value(pod), -pod.priority, pod.queue_timestamp)

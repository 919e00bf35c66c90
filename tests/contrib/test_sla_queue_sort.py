"""SLAQueueSort: tier, then priority, then queue time."""

from __future__ import annotations

from kubeberth.cache.podinfo import PodInfo
from kubeberth.contrib.sla_queue_sort import SLAQueueSort


def p(name: str, sla: str | None, priority: int = 0, t: float = 0.0) -> PodInfo:
    info = PodInfo.from_dict({"metadata": {"name": name, "labels": {"sla": sla} if sla else {}},
                              "spec": {"containers": [], "priority": priority}})
    info.queue_timestamp = t
    return info


def test_order() -> None:
    sort = SLAQueueSort()
    pods = [p("bronze", "bronze"), p("none", None, priority=1000), p("silver-late", "silver", t=2),
            p("silver-early", "silver", t=1), p("gold-low", "gold"), p("gold-high", "gold", priority=10)]
    ordered = sorted(pods, key=lambda x: sort.queue_sort(pod=x))
    assert [x.name for x in ordered] == ["gold-high", "gold-low", "silver-early", "silver-late", "bronze", "none"]


def test_configurable_mapping() -> None:
    sort = SLAQueueSort(SLAQueueSort.Args(label="tier", tiers={"p0": 1000}, defaultValue=5))
    a = PodInfo.from_dict({"metadata": {"name": "a", "labels": {"tier": "p0"}}, "spec": {"containers": []}})
    b = PodInfo.from_dict({"metadata": {"name": "b", "labels": {"tier": "other"}}, "spec": {"containers": []}})
    assert sort.tier_value(a) == 1000 and sort.tier_value(b) == 5

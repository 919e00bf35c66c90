"""PrioritySort: kube-scheduler v1.37.2's priority_sort_test.go TestLess, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.builtin_plugins.priority_sort import PrioritySort
from kubeberth.cache.podinfo import PodInfo

lowPriority, highPriority = 10, 100
t1 = 1_700_000_000.0
t2 = t1 + 1


def queued(pod: dict[str, Any], timestamp: float = 0.0) -> PodInfo:
    """framework.QueuedPodInfo{PodInfo: ..., QueueingParams: {Timestamp: ...}}."""
    info = PodInfo.from_dict(pod)
    info.queue_timestamp = timestamp
    return info


CASES = [
    ("TestLess/p1.priority less than p2.priority",
     queued(st.MakePod().Priority(lowPriority).Obj()), queued(st.MakePod().Priority(highPriority).Obj()), False),
    ("TestLess/p1.priority greater than p2.priority",
     queued(st.MakePod().Priority(highPriority).Obj()), queued(st.MakePod().Priority(lowPriority).Obj()), True),
    ("TestLess/equal priority. p1 is added to schedulingQ earlier than p2",
     queued(st.MakePod().Priority(highPriority).Obj(), t1), queued(st.MakePod().Priority(highPriority).Obj(), t2), True),
    ("TestLess/equal priority. p2 is added to schedulingQ earlier than p1",
     queued(st.MakePod().Priority(highPriority).Obj(), t2), queued(st.MakePod().Priority(highPriority).Obj(), t1),
     False),
]


@pytest.mark.parametrize(("p1", "p2", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_less(p1: PodInfo, p2: PodInfo, expected: bool) -> None:
    """Less(p1, p2) is "p1 sorts before p2": kubeberth's queue orders by the sort key."""
    plugin = PrioritySort()
    assert (plugin.queue_sort(pod=p1) < plugin.queue_sort(pod=p2)) == expected

"""kube-scheduler v1.37.2's pkg/scheduler/backend/queue/backoff_queue_test.go, case by case, against
kubeberth's SchedulingQueue (its backoffQ and error backoffQ). Go's durations are written in their
units and compared in seconds; a `time.Time{}` (no backoff) is None.

kube-scheduler's QueuedPodInfo fields map to QueuedPod's: Timestamp -> timestamp,
UnschedulableCount -> unschedulable_count, ConsecutiveErrorsCount -> consecutive_errors,
UnschedulablePlugins -> unschedulable_plugins; `bq.add` is `add_backoff`, `popAllBackoffCompleted`
is `flush_backoff` (which returns the pods it moved, in order), getBackoffTime is `backoff_time`."""

from __future__ import annotations

import datetime
import math
import time
from typing import Any

import pytest
from kubeberth import Code, Status
from kubeberth.cache.podinfo import PodInfo
from kubeberth.scheduling.queue import BACKOFF_WINDOW_SECONDS, QueuedPod, SchedulingQueue
from kubeberth.testing import make_pod
from upstream_unported import UNPORTED

NS = 1e-9  # time.Nanosecond, in seconds
DefaultPodInitialBackoffDuration = 1.0
DefaultPodMaxBackoffDuration = 10.0


class FakeClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def default_queue_sort(pod: PodInfo) -> tuple[int, float]:
    """newDefaultQueueSort (PrioritySort): higher priority first, then the earlier timestamp."""
    return (-pod.priority, pod.queue_timestamp)


def no_gates(pod: PodInfo) -> Status:
    return Status(Code.SUCCESS)


def new_backoff_queue(clock: Any, initial: float, maximum: float, pop_from_backoff: bool) -> SchedulingQueue:
    """newBackoffQueue(clock, initial, max, convertLessFn(newDefaultQueueSort()), popFromBackoffQEnabled)."""
    return SchedulingQueue(default_queue_sort, no_gates, clock, initial_backoff=initial, max_backoff=maximum,
                           pop_from_backoff=pop_from_backoff)


def queued(name: str = "", priority: int = 0, *, Timestamp: float = 0.0, UnschedulableCount: int = 0,  # noqa: N803
           ConsecutiveErrorsCount: int = 0, UnschedulablePlugins: frozenset[str] = frozenset()) -> QueuedPod:
    """&framework.QueuedPodInfo{PodInfo: st.MakePod().Name(name).Priority(priority), QueueingParams: {...}}."""
    pod = PodInfo.from_dict(make_pod(name or "p", uid=name or "p", priority=priority))
    return QueuedPod(pod, timestamp=Timestamp, unschedulable_count=UnschedulableCount,
                     consecutive_errors=ConsecutiveErrorsCount, unschedulable_plugins=UnschedulablePlugins)


def date(*args: int) -> float:
    """time.Date(y, m, d, h, min, s, ns, time.UTC), in seconds since the epoch."""
    *rest, ns = args
    return datetime.datetime(*rest, tzinfo=datetime.UTC).timestamp() + ns * NS


def cases(table: list[dict[str, Any]]) -> list[Any]:
    return [pytest.param(tc, id=tc["name"],
                         marks=[pytest.mark.skip(reason=UNPORTED[tc["name"]])] if tc["name"] in UNPORTED else [])
            for tc in table]


# ---- TestBackoffQueue_getBackoffTime ------------------------------------------------------------------------
TestBackoffQueue_getBackoffTime = [
    {"name": "TestBackoffQueue_getBackoffTime/no backoff",
     "initialBackoffDuration": 1.0, "maxBackoffDuration": 32.0,
     "podInfo": lambda: queued(UnschedulableCount=0, Timestamp=date(2023, 10, 1, 0, 0, 0, 0)),
     "want": None},
    {"name": "TestBackoffQueue_getBackoffTime/backoff is returned from the cache",
     "initialBackoffDuration": 1.0, "maxBackoffDuration": 32.0, "podInfo": None, "want": None},
    {"name": "TestBackoffQueue_getBackoffTime/backoff by UnschedulableCount",
     "initialBackoffDuration": 1.0, "maxBackoffDuration": 32.0,
     "podInfo": lambda: queued(UnschedulableCount=16, Timestamp=date(2023, 10, 1, 0, 0, 0, 0)),
     "want": date(2023, 10, 1, 0, 0, 32, 0)},
    {"name": "TestBackoffQueue_getBackoffTime/backoff is calculated with ConsecutiveErrorsCount",
     "initialBackoffDuration": 1.0, "maxBackoffDuration": 32.0,
     "podInfo": lambda: queued(UnschedulableCount=5, ConsecutiveErrorsCount=16, Timestamp=date(2023, 10, 1, 0, 0, 0, 0)),
     "want": date(2023, 10, 1, 0, 0, 32, 0)},
    {"name": "TestBackoffQueue_getBackoffTime/zero maxBackoffDuration means no backoff",
     "initialBackoffDuration": 0.0, "maxBackoffDuration": 0.0,
     "podInfo": lambda: queued(UnschedulableCount=16, Timestamp=date(2023, 10, 1, 0, 0, 0, 0)),
     "want": None},
]


@pytest.mark.parametrize("tt", cases(TestBackoffQueue_getBackoffTime))
def test_backoff_queue_get_backoff_time(tt: dict[str, Any]) -> None:
    bq = new_backoff_queue(time.time, tt["initialBackoffDuration"], tt["maxBackoffDuration"], True)
    assert bq.backoff_time(tt["podInfo"]()) == tt["want"]


# ---- TestBackoffQueue_calculateBackoffDuration ---------------------------------------------------------------
TestBackoffQueue_calculateBackoffDuration = [
    {"name": "TestBackoffQueue_calculateBackoffDuration/no backoff",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": 32 * NS, "count": 0, "entitySize": 1, "want": 0},
    {"name": "TestBackoffQueue_calculateBackoffDuration/normal",
     "initialBackoffDuration": 3 * NS, "maxBackoffDuration": 1000 * NS, "count": 5, "entitySize": 1,
     "want": 48 * NS},  # 3 * 2^4 = 48
    {"name": "TestBackoffQueue_calculateBackoffDuration/hitting max backoff duration",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": 32 * NS, "count": 16, "entitySize": 1, "want": 32 * NS},
    {"name": "TestBackoffQueue_calculateBackoffDuration/overflow_32bit",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": (2**31 - 1) * NS, "count": 32, "entitySize": 1,
     "want": (2**31 - 1) * NS},
    {"name": "TestBackoffQueue_calculateBackoffDuration/overflow_64bit",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": (2**63 - 1) * NS, "count": 64, "entitySize": 1,
     "want": (2**63 - 1) * NS},
    {"name": "TestBackoffQueue_calculateBackoffDuration/larger entity size",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": 32 * NS, "count": 7, "entitySize": 10, "want": 64 * NS},
    {"name": "TestBackoffQueue_calculateBackoffDuration/hitting max backoff duration with larger entity size",
     "initialBackoffDuration": 1 * NS, "maxBackoffDuration": 32 * NS, "count": 16, "entitySize": 10, "want": 101 * NS},
]


@pytest.mark.parametrize("tt", cases(TestBackoffQueue_calculateBackoffDuration))
def test_backoff_queue_calculate_backoff_duration(tt: dict[str, Any]) -> None:
    bq = new_backoff_queue(time.time, tt["initialBackoffDuration"], tt["maxBackoffDuration"], True)
    assert math.isclose(bq.backoff_duration(tt["count"]), tt["want"], rel_tol=1e-12, abs_tol=0)


# ---- TestBackoffQueue_popAllBackoffCompleted ----------------------------------------------------------------
def _pop_all_pod_infos(now: float) -> dict[str, QueuedPod]:
    return {
        "pod0": queued("pod0", Timestamp=now - 2, UnschedulableCount=1, UnschedulablePlugins=frozenset({"plugin"})),
        "pod1": queued("pod1", Timestamp=now + 1, UnschedulableCount=1, UnschedulablePlugins=frozenset({"plugin"})),
        "pod2": queued("pod2", Timestamp=now - 2, ConsecutiveErrorsCount=1),
        "pod3": queued("pod3", Timestamp=now + 1, ConsecutiveErrorsCount=1),
    }


TestBackoffQueue_popAllBackoffCompleted = [
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Both queues empty, no pods moved to activeQ",
     "podsInBackoff": [], "wantPods": None},
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Pods only in backoffQ, some pods moved to activeQ",
     "podsInBackoff": ["pod0", "pod1"], "wantPods": ["pod0"]},
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Pods only in errorBackoffQ, some pods moved to activeQ",
     "podsInBackoff": ["pod2", "pod3"], "wantPods": ["pod2"]},
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Pods in both queues, some pods moved to activeQ",
     "podsInBackoff": ["pod0", "pod1", "pod2", "pod3"], "wantPods": ["pod0", "pod2"]},
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Pods in both queues, all pods moved to activeQ",
     "podsInBackoff": ["pod0", "pod2"], "wantPods": ["pod0", "pod2"]},
    {"name": "TestBackoffQueue_popAllBackoffCompleted/Pods in both queues, no pods moved to activeQ",
     "podsInBackoff": ["pod1", "pod3"], "wantPods": None},
]


@pytest.mark.parametrize("pop_from_backoff", [True, False], ids=["popFromBackoffQEnabled(true)", "popFromBackoffQEnabled(false)"])
@pytest.mark.parametrize("tt", cases(TestBackoffQueue_popAllBackoffCompleted))
def test_backoff_queue_pop_all_backoff_completed(tt: dict[str, Any], pop_from_backoff: bool) -> None:
    fake_clock = FakeClock(time.time())
    pod_infos = _pop_all_pod_infos(fake_clock.t)
    bq = new_backoff_queue(fake_clock, DefaultPodInitialBackoffDuration, DefaultPodMaxBackoffDuration, pop_from_backoff)
    for name in tt["podsInBackoff"]:
        bq.add_backoff(pod_infos[name])
    got = [e.pod.name for e in bq.flush_backoff()] or None
    assert got == tt["wantPods"]
    stay = len(tt["podsInBackoff"]) - len(tt["wantPods"] or [])
    assert bq.counts()["backoff"] == stay


# ---- TestBackoffQueueOrdering ---------------------------------------------------------------------------------
def _ordering_pod_infos(now: float) -> list[QueuedPod]:
    plugin = frozenset({"plugin"})
    return [
        queued("pod0", 1, Timestamp=now, UnschedulableCount=1, UnschedulablePlugins=plugin),
        queued("pod1", 1, Timestamp=now - 1, UnschedulableCount=1, UnschedulablePlugins=plugin),
        queued("pod2", 2, Timestamp=now - 2 + 0.001, UnschedulableCount=1, UnschedulablePlugins=plugin),
        queued("pod3", 1, Timestamp=now - 2, UnschedulableCount=1, UnschedulablePlugins=plugin),
        queued("pod4", 2, Timestamp=now - 2, UnschedulableCount=1, UnschedulablePlugins=plugin),
        queued("pod5", 1, Timestamp=now - 3, UnschedulableCount=1, UnschedulablePlugins=plugin),
    ]


TestBackoffQueueOrdering = [
    {"name": "TestBackoffQueueOrdering/Pods with the same window are ordered by priority if PopFromBackoffQ is enabled",
     "popFromBackoffQEnabled": True, "wantPods": ["pod5", "pod4", "pod2", "pod3"]},
    {"name": "TestBackoffQueueOrdering/Pods priority doesn't matter if PopFromBackoffQ is disabled",
     "popFromBackoffQEnabled": False, "wantPods": ["pod5", "pod3", "pod4", "pod2"]},
]


@pytest.mark.parametrize("tt", cases(TestBackoffQueueOrdering))
def test_backoff_queue_ordering(tt: dict[str, Any]) -> None:
    # Align the fake clock with ordering window.
    fake_clock = FakeClock(math.floor(time.time() / BACKOFF_WINDOW_SECONDS) * BACKOFF_WINDOW_SECONDS)
    bq = new_backoff_queue(fake_clock, DefaultPodInitialBackoffDuration, DefaultPodMaxBackoffDuration,
                           tt["popFromBackoffQEnabled"])
    for pod_info in _ordering_pod_infos(fake_clock.t):
        bq.add_backoff(pod_info)
    assert [e.pod.name for e in bq.flush_backoff()] == tt["wantPods"]

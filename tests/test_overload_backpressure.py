"""What overload leans on (docs/reliability.md row 12): the event recorder's bounded queue drops and
counts past its bound, its backlog and write counters are on /metrics, and the informer keeps no
managedFields (half a plain pod's retained JSON)."""

from __future__ import annotations

import threading
from typing import Any

from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.kubernetes.client import WriteStats
from kubeberth.backends.kubernetes.events import EventRecorder
from kubeberth.backends.kubernetes.informer import RESOURCES, Informer
from kubeberth.cache.podinfo import PodInfo
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.testing import make_pod
from prometheus_client.parser import text_string_to_metric_families

MANAGED = [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:containers": {}}}}]


class Host:
    """The informer's host: no API calls are made here, events are collected."""

    raw: Any = None
    stopping = threading.Event()
    resync_period = 0.0
    watch_timeout = 300.0
    backoff_initial = 0.8
    backoff_max = 30.0

    def __init__(self) -> None:
        self.events: list[ClusterEvent] = []

    def emit(self, event: ClusterEvent) -> None:
        self.events.append(event)


def test_informer_drops_managed_fields_before_keeping_or_emitting_an_object() -> None:
    host = Host()
    informer = Informer(host, RESOURCES["Pod"])
    pod = make_pod("p", "100m", uid="u1")
    pod["metadata"]["managedFields"] = MANAGED
    pod["metadata"]["resourceVersion"] = "5"
    informer._handle("Pod", {"type": "ADDED", "object": pod})
    updated = make_pod("p", "100m", uid="u1", nodeName="n1")
    updated["metadata"].update(managedFields=MANAGED, resourceVersion="6")
    informer._handle("Pod", {"type": "MODIFIED", "object": updated})
    assert [e.type for e in host.events] == ["ADDED", "MODIFIED"]
    assert all("managedFields" not in e.obj["metadata"] for e in host.events)
    assert "managedFields" not in informer.store["u1"]["metadata"]
    assert informer.store["u1"]["spec"]["nodeName"] == "n1" and informer.resource_version == "6"


def test_event_queue_is_bounded_and_what_does_not_fit_is_counted_as_dropped() -> None:
    stats = WriteStats()
    recorder = EventRecorder(raw=None, stats=stats, host="h")  # type: ignore[arg-type]  # writers not started
    pods = [PodInfo.from_dict(make_pod(f"p{i}", uid=f"uid-{i}")) for i in range(2 * EventRecorder.QUEUE_SIZE)]
    for pod in pods:
        recorder.record(pod, "Normal", "Scheduled", "assigned")
    assert recorder.backlog() <= EventRecorder.QUEUE_SIZE
    assert stats.counts["events_emitted"] == len(pods)
    assert stats.counts["events_dropped"] == len(pods) - recorder.backlog() > 0


def test_a_warning_takes_the_place_of_a_normal_event_in_a_full_queue_and_is_written_first() -> None:
    stats = WriteStats()
    recorder = EventRecorder(raw=None, stats=stats, host="h", workers=2)  # type: ignore[arg-type]
    pods = [PodInfo.from_dict(make_pod(f"p{i}", uid=f"uid-{i}")) for i in range(3 * EventRecorder.QUEUE_SIZE)]
    for pod in pods:
        recorder.record(pod, "Normal", "Scheduled", "assigned")
    full = recorder.backlog()
    assert full == EventRecorder.QUEUE_SIZE
    dropped = stats.counts["events_dropped"]
    waiting = pods[:100]
    for pod in waiting:
        recorder.record(pod, "Warning", "FailedScheduling", "0/3 nodes are available")
    assert recorder.backlog() == full  # still bounded
    assert stats.counts["events_dropped"] == dropped + len(waiting)  # a Normal event each, counted
    first = []
    for shard in recorder._shards:
        while shard.pending.qsize() and shard.pending.warnings:
            first.append(shard.pending.get_nowait())
        assert all(item[1] == "Normal" for item in shard.pending.normal)
    assert sorted(item[0].name for item in first) == sorted(p.name for p in waiting)
    assert {item[2] for item in first} == {"FailedScheduling"}


def test_a_queue_of_warnings_only_drops_the_new_warning() -> None:
    stats = WriteStats()
    recorder = EventRecorder(raw=None, stats=stats, host="h", workers=1)  # type: ignore[arg-type]
    pods = [PodInfo.from_dict(make_pod(f"p{i}", uid=f"uid-{i}")) for i in range(EventRecorder.QUEUE_SIZE + 5)]
    for pod in pods:
        recorder.record(pod, "Warning", "FailedScheduling", "no")
    assert recorder.backlog() == EventRecorder.QUEUE_SIZE and stats.counts["events_dropped"] == 5
    assert recorder._shards[0].pending.get_nowait()[0].name == "p0"  # oldest first


def test_write_counters_and_event_backlog_are_exposed() -> None:
    metrics = SchedulerMetrics()
    counts = {"binds": 3, "events_emitted": 5, "events_created": 2, "events_dropped": 1}
    metrics.watch_writes(lambda: counts, lambda: 2)
    families = {f.name: f for f in text_string_to_metric_families(metrics.exposition()[2].decode())}
    writes = {s.labels["kind"]: s.value for s in families["kubeberth_api_writes"].samples
              if s.name == "kubeberth_api_writes_total"}
    assert writes == {k: float(v) for k, v in counts.items()}
    assert [s.value for s in families["kubeberth_event_queue_depth"].samples] == [2.0]

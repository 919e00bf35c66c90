"""Events reach `kubectl describe pod` in time, and those given up are counted.

kubeberth writes events through a client of their own (connection pool and token bucket of the
clientConnection qps/burst), as kube-scheduler's event broadcaster has its own clientset. With the
shipped settings (qps 50, burst 100) and pods bound at ~40/s, a FailedScheduling event must appear
within a couple of seconds of the pod, and Scheduled events must trail their binds by seconds, not
by the minute a shared token bucket cost. At SIGTERM, events still queued are written within the
flush or counted in the stop summary's events_dropped: emitted = created + aggregated + dropped.

One `kubeberth run` process serves the module's process-level tests (module fixture); the recorder
tests drive core/backends/kubernetes/events.py in-process against the same kube-apiserver. Lags are
measured from this process's watches: a pod first seen bound, its event first seen added.
"""

from __future__ import annotations

import ast
import json
import re
import signal
import statistics
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth.backends.kubernetes.client import RawClient, TokenBucket, WriteStats, load_api_client
from kubeberth.backends.kubernetes.events import EventRecorder
from kubeberth.cache.podinfo import PodInfo
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix, write_config

RATE = 40.0  # pods per second
PODS = 1200
NODES = 12  # 110 pods each
TRAPPED = 600
_WRITTEN_BEFORE: dict[str, int] = {}  # events the module's kubeberth wrote in earlier tests


class Sightings(threading.Thread):
    """When this process first saw things in one namespace (time.monotonic()): pods created and
    bound (`pods` watch), events added per (pod name, reason) (`events` watch)."""

    def __init__(self, cp: LocalControlPlane, ns: str) -> None:
        super().__init__(daemon=True)
        self.cp = cp
        self.ns = ns
        self.created: dict[str, float] = {}
        self.bound: dict[str, float] = {}
        self.events: dict[tuple[str, str], float] = {}
        self.event_names: set[str] = set()
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._follow, args=(path, see), daemon=True) for path, see in (
            (f"/api/v1/namespaces/{ns}/pods", self._see_pod),
            (f"/apis/events.k8s.io/v1/namespaces/{ns}/events", self._see_event))]

    def _see_pod(self, pod: dict[str, Any], now: float) -> None:
        name = pod["metadata"]["name"]
        self.created.setdefault(name, now)
        if (pod.get("spec") or {}).get("nodeName"):
            self.bound.setdefault(name, now)

    def _see_event(self, event: dict[str, Any], now: float) -> None:
        self.events.setdefault((event["regarding"]["name"], event["reason"]), now)
        self.event_names.add(event["metadata"]["name"])

    def _follow(self, path: str, see: Callable[[dict[str, Any], float], None]) -> None:
        rv = ""
        while not self._halt.is_set():
            try:
                if not rv:
                    status, data = self.cp.request("GET", path, timeout=10)
                    assert status == 200, data
                    with self._lock:
                        for obj in data["items"]:
                            see(obj, time.monotonic())
                    rv = data["metadata"]["resourceVersion"]
                rv = self._watch(path, rv, see)
            except (OSError, ValueError, KeyError):
                self._halt.wait(0.2)

    def _watch(self, path: str, rv: str, see: Callable[[dict[str, Any], float], None]) -> str:
        url = f"{self.cp.server}{path}?watch=1&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=30"
        req = urllib.request.Request(url)
        req.add_header("Authorization", f"Bearer {self.cp.admin_token}")
        with urllib.request.urlopen(req, timeout=40, context=self.cp._ssl) as resp:
            for line in resp:
                event = json.loads(line)
                if event.get("type") == "ERROR":
                    return ""  # 410 Gone: list again
                obj = event["object"]
                rv = obj["metadata"].get("resourceVersion") or rv
                if event["type"] in ("ADDED", "MODIFIED"):
                    with self._lock:
                        see(obj, time.monotonic())
                if self._halt.is_set():
                    break
        return rv

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._halt.set()

    def count(self, reason: str) -> int:
        with self._lock:
            return sum(1 for (_, r) in self.events if r == reason)


@pytest.fixture(scope="module")
def kubeberth(control_plane: LocalControlPlane, api: Api, sa_kubeconfig: str,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    """One kubeberth with the shipped client settings (no clientConnection: qps 50, burst 100 as in
    config/scheduler-config.yaml), and NODES nodes for it."""
    tmp = tmp_path_factory.mktemp("events")
    nodes = [f"ev-{suffix()}-{i}" for i in range(NODES)]
    for node in nodes:
        api.create_node(node, "64", "256Gi", pods="110")
    kb = Kubeberth(control_plane, sa_kubeconfig, write_config(tmp / "config.yaml"), False, f"kubeberth-ev-{suffix()}")
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()
        for node in nodes:
            api.delete_node(node)


def _quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1] if len(values) > 1 else values[0]


def _stop_summary(kb: Kubeberth) -> dict[str, int]:
    found = re.findall(r"kubeberth stopped: (\{[^}]*\})", kb.log_text())
    assert found, kb.log_tail()
    return ast.literal_eval(found[-1])


def _pod(ns: str, name: str) -> PodInfo:
    return PodInfo.from_dict({"metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}"},
                              "spec": {"schedulerName": PROFILE, "containers": []}})


def _creator(cp: LocalControlPlane, ns: str, **spec: Any) -> Callable[[str, str], None]:
    """Creates pods over kept-alive connections (a TLS handshake per pod cannot keep up 40/s)."""
    raw = RawClient(load_api_client(cp.admin_kubeconfig))

    def create(name: str, cpu: str) -> None:
        raw.request("POST", f"/api/v1/namespaces/{ns}/pods", body={
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {**spec, "schedulerName": PROFILE, "containers": [
                {"name": "c", "image": "registry.k8s.io/pause:3.10",
                 "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}})

    return create


def _report(record_property: Any, **numbers: Any) -> None:
    for key, value in numbers.items():
        record_property(key, value)
    sys.stderr.write("\n[events] " + ", ".join(f"{k}={v}" for k, v in numbers.items()) + "\n")


# ---------------------------------------------------------------------------- the recorder in-process


def test_series_recurrences_reach_the_server(api: Api, namespace: str, sa_kubeconfig: str) -> None:
    """Repeats of one event become its series count (written at the flush), each counted once."""
    stats = WriteStats()
    recorder = EventRecorder(RawClient(load_api_client(sa_kubeconfig), TokenBucket(50, 100)), stats, "e2e")
    recorder.start()
    pod = _pod(namespace, "again")
    for _ in range(5):
        recorder.record(pod, "Warning", "FailedScheduling", "0/1 nodes are available: 1 Insufficient cpu.")
    recorder.record(_pod(namespace, "other"), "Normal", "Scheduled", "Successfully assigned it")
    wait_for(recorder.idle, 10, "the queued events written")
    recorder.close(5.0)
    assert recorder.join()
    events = {e["regarding"]["name"]: e for e in api.events(namespace)}
    assert set(events) == {"again", "other"}
    assert events["again"]["series"]["count"] == 5 and "series" not in events["other"], events
    c = stats.counts
    assert (c["events_emitted"], c["events_created"], c["events_aggregated"], c["events_dropped"]) == (6, 2, 4, 0), c


def test_series_past_their_window_are_forgotten_as_new_events_come(api: Api, namespace: str, sa_kubeconfig: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A series is kept for its window (SERIES_FORGET_SECONDS) and then forgotten as new events come,
    not only once the cap is reached: a scheduler keeps one series a pod (its Scheduled event), and
    at 10 pods a second the cap took half an hour to reach, its memory growing all that time."""
    monkeypatch.setattr(EventRecorder, "SERIES_FORGET_SECONDS", 1.0)
    stats = WriteStats()
    recorder = EventRecorder(RawClient(load_api_client(sa_kubeconfig), TokenBucket(50, 100)), stats, "e2e", workers=1)
    recorder.start()
    try:
        for i in range(5):
            recorder.record(_pod(namespace, f"early-{i}"), "Normal", "Scheduled", "Successfully assigned it")
        wait_for(recorder.idle, 10, "the early events written")
        held = sum(len(shard.series) for shard in recorder._shards)
        time.sleep(1.2)
        recorder.record(_pod(namespace, "late"), "Normal", "Scheduled", "Successfully assigned it")
        wait_for(recorder.idle, 10, "the late event written")
        after = {key[0] for shard in recorder._shards for key in shard.series}
    finally:
        recorder.close(5.0)
        assert recorder.join()
    assert held == 5
    assert after == {"uid-late"}, after
    assert stats.counts["events_created"] == 6 and stats.counts["events_dropped"] == 0, stats.counts


def test_flush_deadline_counts_the_rest_as_dropped(api: Api, namespace: str, sa_kubeconfig: str) -> None:
    """A backlog the token bucket cannot clear within the flush: what is not written is dropped,
    and the numbers add up against what the API server holds."""
    stats = WriteStats()
    recorder = EventRecorder(RawClient(load_api_client(sa_kubeconfig), TokenBucket(20, 5)), stats, "e2e")
    bucket_since = time.monotonic()
    recorder.start()
    for i in range(150):
        recorder.record(_pod(namespace, f"p{i}"), "Normal", "Scheduled", f"Successfully assigned {i}")
    started = time.monotonic()
    recorder.close(2.0)
    assert recorder.join()
    took = time.monotonic() - started
    granted = 5 + 20 * (time.monotonic() - bucket_since)  # the bucket's burst plus its rate since
    recorder.record(_pod(namespace, "late"), "Normal", "Scheduled", "after close")
    c = stats.counts
    on_server = len(api.events(namespace))
    assert took < 3.5, took
    assert c["events_emitted"] == 151 and c["events_created"] + c["events_dropped"] == 151, c
    # Writes given a token before the deadline finish after it (sixteen writers in flight), so
    # the bound is what the bucket can have granted over the whole time, not over the flush alone.
    assert c["events_created"] == on_server and 10 <= on_server <= granted, (c, on_server, granted)


# ---------------------------------------------------------------------------- one kubeberth process


def test_events_keep_up_while_binding_40_pods_per_second(control_plane: LocalControlPlane, api: Api,
                                                          namespace: str, kubeberth: Kubeberth,
                                                          record_property: Any) -> None:
    seen = Sightings(control_plane, namespace)
    seen.start()
    names = [f"p{i:04d}" for i in range(PODS)]
    create = _creator(control_plane, namespace)
    huge_at: list[float] = []
    started = time.monotonic()
    with ThreadPoolExecutor(6) as pool:
        for i, name in enumerate(names):
            time.sleep(max(0.0, started + i / RATE - time.monotonic()))
            pool.submit(create, name, "100m")
            if i == PODS // 2:
                huge_at.append(time.monotonic())
                pool.submit(create, "huge", "1000")
    wait_for(lambda: len(seen.bound) >= PODS, 60, f"{PODS} pods bound")
    wait_for(lambda: seen.count("Scheduled") >= PODS, 30, f"{PODS} Scheduled events")
    wait_for(lambda: ("huge", "FailedScheduling") in seen.events, 30, "huge's FailedScheduling event")
    api.delete_pod(namespace, "huge")
    time.sleep(1.5)  # an event of huge's still on its way is seen too
    seen.stop()
    control_plane.request("DELETE", f"/api/v1/namespaces/{namespace}/pods", {"gracePeriodSeconds": 0}, timeout=120)
    lags = [seen.events[(n, "Scheduled")] - seen.bound[n] for n in names]
    bound = sorted(seen.bound[n] for n in names)
    created = sorted(seen.created[n] for n in names)
    bind_lags = [seen.bound[n] - seen.created[n] for n in names]
    failed_after = seen.events[("huge", "FailedScheduling")] - max(huge_at[0], seen.created["huge"])
    _WRITTEN_BEFORE["events"] = len(seen.event_names)
    numbers = {"create_rate_pods_per_s": round((PODS - 1) / (created[-1] - created[0]), 1),
               "bind_rate_pods_per_s": round((PODS - 1) / (bound[-1] - bound[0]), 1),
               "bind_lag_p50_s": round(_quantile(bind_lags, 0.5), 3),
               "bind_lag_p99_s": round(_quantile(bind_lags, 0.99), 3),
               "scheduled_lag_p50_s": round(_quantile(lags, 0.5), 3),
               "scheduled_lag_p99_s": round(_quantile(lags, 0.99), 3),
               "scheduled_lag_max_s": round(max(lags), 3),
               "failed_scheduling_after_s": round(failed_after, 3)}
    _report(record_property, **numbers)
    assert numbers["bind_rate_pods_per_s"] >= 0.8 * RATE, numbers
    assert failed_after <= 2.0, numbers
    assert numbers["scheduled_lag_p99_s"] <= 3.0, numbers


def test_sigterm_writes_or_counts_every_queued_event(control_plane: LocalControlPlane, api: Api, namespace: str,
                                                     kubeberth: Kubeberth, record_property: Any) -> None:
    """Hundreds of FailedScheduling events at once, more than qps 50 writes in the flush, then
    SIGTERM: the stop summary accounts for each, and the server holds what it says it wrote.

    The burst: TRAPPED pods pinned to a tainted node with room for no pod fail on the taint; the
    taint's removal requeues them all (TaintToleration's hint) and each fails again at once with
    a new message (Too many pods), so a new event per pod."""
    trap = f"ev-trap-{suffix()}"
    api.create_node(trap, "64", "256Gi", pods="0")
    api._patch(f"/api/v1/nodes/{trap}", {"spec": {"taints": [{"key": "ev", "value": "trap", "effect": "NoSchedule"}]}})
    seen = Sightings(control_plane, namespace)
    seen.start()
    try:
        create = _creator(control_plane, namespace, nodeSelector={"kubernetes.io/hostname": trap})
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: create(f"t-{i}", "100m"), range(TRAPPED)))
        wait_for(lambda: len(seen.event_names) >= TRAPPED, 60, "the first FailedScheduling of every pod")
        api._patch(f"/api/v1/nodes/{trap}", {"spec": {"taints": None}})
        # The burst is emitted within a second or so, and written at qps 50: a backlog of hundreds.
        wait_for(lambda: len(seen.event_names) >= TRAPPED + 100, 30, "the second round of FailedScheduling")
        written_at_sigterm = len(seen.event_names)
        signalled = time.monotonic()
        kubeberth.proc.send_signal(signal.SIGTERM)
        assert kubeberth.proc.wait(30) == 0, kubeberth.log_tail()
        exited = time.monotonic() - signalled
        time.sleep(1.0)  # the last writes' watch events
        seen.stop()
        on_server = len(api.events(namespace))
    finally:
        control_plane.request("DELETE", f"/api/v1/namespaces/{namespace}/pods", {"gracePeriodSeconds": 0},
                              timeout=120)
        api.delete_node(trap)
    stats = _stop_summary(kubeberth)
    before = _WRITTEN_BEFORE.get("events", 0)
    _report(record_property, emitted=stats["events_emitted"], created=stats["events_created"],
            aggregated=stats["events_aggregated"], dropped=stats["events_dropped"],
            queued_at_sigterm=stats["events_emitted"] - before - written_at_sigterm,
            written_after_sigterm=on_server - written_at_sigterm, exit_after_sigterm_s=round(exited, 2))
    assert stats["events_emitted"] == stats["events_created"] + stats["events_aggregated"] + stats["events_dropped"]
    assert stats["events_created"] == before + on_server, (stats, before, on_server)
    assert stats["events_dropped"] > 0 and on_server > written_at_sigterm, stats

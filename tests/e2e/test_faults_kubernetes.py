"""Faults against a real kube-apiserver + etcd: what kubeberth promises, checked from the API.

Each test streams pods at a small cluster of Node objects, injects one fault mid-stream and then
checks every promise of docs/reliability.md (fault_harness.check_promises): every surviving pod
bound, exactly once, never moved; no node over its allocatable pods, cpu or memory; nothing held
by any kubeberth for a pod that does not exist; no traceback in any log. Lease timings are short
where a test is about the logic rather than the defaults. Recovery times are printed and recorded
as test properties; docs/reliability.md lists the measured values.
"""

from __future__ import annotations

import os
import random
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from fault_harness import PodStream, PodWatch, SilencingProxy, check_promises, create_riding_out, pod_body
from kubeberth_harness import Api, Kubeberth, suffix

FAST_LEASE = ("4s", "3s", "1s")  # leaseDuration, renewDeadline, retryPeriod
SETTLE = 60.0  # seconds every test allows for the last pods to be bound after a fault


@pytest.fixture
def cluster_nodes(api: Api, nodes: list[str]) -> Callable[..., list[str]]:
    """Create `count` nodes sized so that the test's pods fill them exactly (overcommit shows)."""

    def make(count: int, cpu: str = "3", memory: str = "4Gi", pods: str = "30") -> list[str]:
        names = [f"f-{suffix()}-{i}" for i in range(count)]
        for name in names:
            api.create_node(name, cpu, memory, pods=pods)
            nodes.append(name)
        return names

    return make


@pytest.fixture
def watch(control_plane: LocalControlPlane, namespace: str) -> Iterator[PodWatch]:
    w = PodWatch(control_plane, namespace)
    w.start()
    yield w
    w.stop()


def report(record_property: Any, **numbers: float) -> None:
    for name, value in numbers.items():
        record_property(name, round(value, 2))
    sys.stderr.write("\n[e2e] " + ", ".join(f"{k}={v:.2f}s" for k, v in numbers.items()) + "\n")


def all_bound(api: Api, ns: str, expected: int) -> Callable[[], bool]:
    return lambda: len(api.bound(ns)) >= expected


def holder(api: Api) -> str:
    return _lease(api).get("holderIdentity") or ""


def _lease(api: Api) -> dict[str, Any]:
    status, data = api.cp.request("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeberth")
    return data["spec"] if status == 200 else {}


def leader_of(procs: list[Kubeberth], api: Api) -> Kubeberth:
    name = wait_for(lambda: holder(api), 30, "a leader")
    return next(kb for kb in procs if f"_{kb.proc.pid}_" in name)


def wait_log(kb: Kubeberth, text: str, timeout: float) -> float:
    """Poll `kb`'s log for `text`; returns the monotonic time it was first seen."""
    wait_for(lambda: text in kb.log_text(), timeout, f"{kb.name} to log {text!r}", interval=0.02)
    return time.monotonic()


def log_time(kb: Kubeberth, text: str) -> float:
    """Wall-clock time of the first log line containing `text` (the log's asctime, in ms)."""
    line = next(x for x in kb.log_text().splitlines() if text in x)
    stamp = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})", line)
    assert stamp is not None, line
    return time.mktime(time.strptime(stamp.group(1), "%Y-%m-%d %H:%M:%S")) + int(stamp.group(2)) / 1000


# ---- 1. the leader killed ------------------------------------------------------------------------
def test_leader_killed_mid_stream(api: Api, namespace: str, cluster_nodes: Any, start_kubeberth: Any,
                                  watch: PodWatch, record_property: Any) -> None:
    node_names = cluster_nodes(3)  # 90 pod slots, 9 cpu: exactly the 90 pods below
    a = start_kubeberth(leader_elect=True, lease=FAST_LEASE)
    b = start_kubeberth(leader_elect=True, lease=FAST_LEASE)
    leader = leader_of([a, b], api)
    standby = b if leader is a else a
    stream = PodStream(api.cp, namespace, 90, rate=30)
    stream.start()
    stream.wait_created(30)
    leader.kill()
    killed = time.monotonic()
    wait_for(lambda: f"_{standby.proc.pid}_" in holder(api), 30, "the standby to take over", interval=0.05)
    takeover = time.monotonic() - killed
    stream.finish()
    wait_for(all_bound(api, namespace, 90), SETTLE, "all 90 pods bound")
    recovered = time.monotonic() - killed
    report(record_property, takeover_seconds=takeover, all_bound_after_kill_seconds=recovered)
    assert takeover <= 4 + 2 * 1 + 1.5  # leaseDuration + 2 retryPeriods + slack
    assert check_promises(api, namespace, node_names, [leader, standby], watch) == []


# ---- 2. kube-apiserver killed and restarted --------------------------------------------------------
def test_apiserver_killed_and_restarted_mid_stream(control_plane: LocalControlPlane, api: Api, namespace: str,
                                                  cluster_nodes: Any, start_kubeberth: Any, watch: PodWatch,
                                                  record_property: Any) -> None:
    node_names = cluster_nodes(2)
    kb = start_kubeberth(leader_elect=True, lease=FAST_LEASE)
    stream = PodStream(control_plane, namespace, 60, rate=20)
    stream.start()
    stream.wait_created(20)
    control_plane.stop_apiserver(grace_period=0)  # SIGKILL
    down = time.monotonic()
    time.sleep(1.0)
    control_plane.start_apiserver()  # same port, same etcd
    up = time.monotonic()
    stream.finish()
    wait_for(all_bound(api, namespace, 60), SETTLE, "all 60 pods bound after the restart")
    recovered = time.monotonic() - up
    report(record_property, apiserver_down_seconds=up - down, all_bound_after_restart_seconds=recovered)
    assert kb.proc.poll() is None
    wait_for(lambda: kb.probe("/readyz") == 200, 30, "readyz after the restart")
    assert check_promises(api, namespace, node_names, [kb], watch) == []


# ---- 3. etcd paused past the renew deadline --------------------------------------------------------
def test_etcd_paused_leader_steps_down_then_recovers(control_plane: LocalControlPlane, api: Api, namespace: str,
                                                     cluster_nodes: Any, start_kubeberth: Any, watch: PodWatch,
                                                     record_property: Any) -> None:
    node_names = cluster_nodes(2)
    a = start_kubeberth(leader_elect=True, lease=FAST_LEASE)
    b = start_kubeberth(leader_elect=True, lease=FAST_LEASE)
    leader = leader_of([a, b], api)
    stream = PodStream(control_plane, namespace, 60, rate=20)
    stream.start()
    stream.wait_created(20)
    assert control_plane.etcd is not None
    etcd = control_plane.etcd.pid
    os.kill(etcd, signal.SIGSTOP)
    paused = time.monotonic()
    try:
        # Within renewDeadline of its last renewal (at most the pause): before the 4 s lease expires.
        stepped_down = wait_log(leader, "stopped leading", 10) - paused
        assert stepped_down <= 3 + 0.75
        binds_at_step_down = sum(len(kb.bind_lines()) for kb in (a, b))
        time.sleep(max(0.0, 6.0 - (time.monotonic() - paused)))  # paused 6 s in all: twice the renew deadline
        assert sum(len(kb.bind_lines()) for kb in (a, b)) == binds_at_step_down, "bound while etcd was paused"
        assert "became leader" not in (b if leader is a else a).log_text()
    finally:
        os.kill(etcd, signal.SIGCONT)
    resumed = time.monotonic()
    stream.finish()
    wait_for(all_bound(api, namespace, 60), SETTLE, "all 60 pods bound after etcd resumed")
    recovered = time.monotonic() - resumed
    report(record_property, step_down_after_pause_seconds=stepped_down, all_bound_after_resume_seconds=recovered)
    new_leader = leader_of([a, b], api)
    assert new_leader.proc.poll() is None
    assert check_promises(api, namespace, node_names, [a, b], watch) == []


# ---- 4. pods deleted while being scheduled -----------------------------------------------------------
DELETE_DURING_BIND = '''
"""Deletes pods labelled fault=delete-during-bind at PreBind, as their owner would, through the API
with the admin kubeconfig; then waits for the deletion to reach the scheduler: the bind that follows
gets 404 after the informer has delivered DELETED (issue 13)."""
import time

from kubernetes import client, config

from kubeberth import hookimpl

KUBECONFIG = {kubeconfig!r}


class DeleteDuringBind:
    name = "DeleteDuringBind"

    @hookimpl
    def pre_bind(self, pod, node_name):
        if pod.labels.get("fault") == "delete-during-bind":
            api = client.CoreV1Api(config.new_client_from_config(config_file=KUBECONFIG))
            try:
                api.delete_namespaced_pod(pod.name, pod.namespace, grace_period_seconds=0)
            except client.ApiException as exc:
                if exc.status != 404:  # a retry of a pod deleted before: nothing left to delete
                    raise
            time.sleep(1.0)
'''


def test_pod_deleted_during_its_binding_is_not_retried(control_plane: LocalControlPlane, api: Api,
                                                       namespace: str, cluster_nodes: Any, start_kubeberth: Any,
                                                       tmp_path: Path) -> None:
    """Regression (issue 13): the deletion is seen while the bind is in flight, the bind gets 404."""
    node_names = cluster_nodes(1)
    plugins = tmp_path / "plugins"
    plugins.mkdir(mode=0o755)
    (plugins / "delete_during_bind.py").write_text(DELETE_DURING_BIND.format(kubeconfig=control_plane.admin_kubeconfig))
    # The plugin's own API round trips and 1 s wait are its job, not a hang: on a loaded machine
    # they can pass the plugin timeout, which would interrupt it and retry the pod.
    kb = start_kubeberth(plugins_dir=plugins, plugins=("DeleteDuringBind",),
                         env={"KUBEBERTH_PLUGIN_TIMEOUT_SECONDS": "60"})
    create_riding_out(control_plane, namespace, pod_body("doomed", labels={"fault": "delete-during-bind"}))
    create_riding_out(control_plane, namespace, pod_body("kept"))
    wait_for(lambda: "kept" in api.bound(namespace), 30, "the other pod bound")
    wait_for(lambda: f"binding {namespace}/doomed " in kb.log_text(), 10, "the doomed pod's bind attempt")
    time.sleep(4.0)  # two backoffs (1 s, 2 s): a retried pod would have been tried again by now
    attempts = [x for x in kb.log_text().splitlines() if f"binding {namespace}/doomed " in x]
    assert len(attempts) == 1 and "no longer exists" in attempts[0], attempts
    assert api.pod(namespace, "doomed") is None
    assert not [e for e in api.events(namespace) if e["regarding"]["name"] == "doomed"]
    assert check_promises(api, namespace, node_names, [kb], None) == []
    assert kb.stop() == 0
    stats = kb.log_text().rsplit("kubeberth stopped: ", 1)[1]
    assert "'write_errors': 0" in stats, stats  # no event or status write for the gone pod


def test_fifth_of_pods_deleted_while_scheduling(control_plane: LocalControlPlane, api: Api, namespace: str,
                                                cluster_nodes: Any, start_kubeberth: Any, watch: PodWatch,
                                                record_property: Any) -> None:
    node_names = cluster_nodes(3, cpu="5", pods="60")
    kb = start_kubeberth()
    rng = random.Random(13)
    count = 150
    doomed = sorted(rng.sample(range(count), count // 5))
    stream = PodStream(control_plane, namespace, count, rate=50)
    deleted: list[str] = []

    def deleter() -> None:  # each doomed pod goes 0-150 ms after its creation: queued, assumed or binding
        for i in doomed:
            name = stream.name_of(i)
            wait_for(lambda name=name: name in stream.created, 60, f"{name} created", interval=0.005)
            time.sleep(max(0.0, stream.created[name] + rng.uniform(0, 0.15) - time.monotonic()))
            api.delete_pod(namespace, name)
            deleted.append(name)

    killer = threading.Thread(target=deleter, daemon=True)
    stream.start()
    killer.start()
    stream.finish()
    killer.join(60)
    assert len(deleted) == len(doomed)
    wait_for(all_bound(api, namespace, count - len(doomed)), SETTLE, "every surviving pod bound")
    wait_for(lambda: not [p for p in api.pods(namespace) if p["metadata"]["name"] in deleted], 10, "deletions")
    time.sleep(3.0)  # longer than podMaxBackoffSeconds: anything requeued would be retried by now
    retried = [x for x in kb.log_text().splitlines()
               if "binding " in x and any(f"{namespace}/{n} " in x for n in deleted)]
    per_pod = {n: sum(f"{namespace}/{n} " in x for x in retried) for n in deleted}
    assert all(v <= 1 for v in per_pod.values()), {n: v for n, v in per_pod.items() if v > 1}
    reported = [e["regarding"]["name"] for e in api.events(namespace)
                if e["reason"] == "FailedScheduling" and e["regarding"]["name"] in deleted]
    assert reported == []
    record_property("deleted_during_binding", sum(per_pod.values()))
    sys.stderr.write(f"\n[e2e] {len(deleted)} pods deleted, {sum(per_pod.values())} of them during binding\n")
    assert check_promises(api, namespace, node_names, [kb], watch) == []


# ---- 5. a node deleted, another cordoned ---------------------------------------------------------------
def test_node_deleted_and_node_cordoned_mid_stream(api: Api, namespace: str, cluster_nodes: Any,
                                                   start_kubeberth: Any, watch: PodWatch) -> None:
    node_names = cluster_nodes(4, cpu="8", memory="8Gi", pods="60")
    gone, cordoned = node_names[0], node_names[1]
    kb = start_kubeberth()
    stream = PodStream(api.cp, namespace, 100, rate=40)
    stream.start()
    stream.wait_created(40)
    api.delete_node(gone)
    api._patch(f"/api/v1/nodes/{cordoned}", {"spec": {"unschedulable": True}})
    faulted = time.monotonic()
    stream.finish()
    wait_for(all_bound(api, namespace, 100), SETTLE, "all 100 pods bound")
    # Binds already in flight when the change happened may still land; nothing bound after it may.
    late = watch.bound_after(faulted + 1.0, [gone, cordoned])
    assert late == []
    assert check_promises(api, namespace, node_names, [kb], watch) == []


# ---- 6. SIGTERM ------------------------------------------------------------------------------------------
def test_sigterm_of_leader_and_standby(api: Api, namespace: str, cluster_nodes: Any, start_kubeberth: Any,
                                       watch: PodWatch, record_property: Any) -> None:
    """Default lease timings (15s/10s/2s): a released Lease lets a standby take over in one retryPeriod."""
    node_names = cluster_nodes(1)
    a = start_kubeberth(leader_elect=True)
    b = start_kubeberth(leader_elect=True)
    leader = leader_of([a, b], api)
    standby = b if leader is a else a
    for i in range(10):
        create_riding_out(api.cp, namespace, pod_body(f"before-{i}"))
    wait_for(all_bound(api, namespace, 10), 30, "10 pods bound")
    time.sleep(2.5)  # idle: the loop waits on its event queue, the elector between renewals

    # An idle standby: exits at once and leaves the Lease alone.
    lease_before = _lease(api)
    t0 = time.monotonic()
    assert standby.stop() == 0
    standby_exit = time.monotonic() - t0
    assert _lease(api).get("holderIdentity") == lease_before.get("holderIdentity")

    # An idle leader, with a new standby waiting: releases the Lease, the standby takes over.
    c = start_kubeberth(leader_elect=True)
    time.sleep(2.5)
    sent = time.time()
    t0 = time.monotonic()
    leader.proc.send_signal(signal.SIGTERM)
    leader.proc.wait(30)
    leader_exit = time.monotonic() - t0
    assert leader.stop() == 0
    release = log_time(leader, "released lease") - sent
    wait_for(lambda: f"_{c.proc.pid}_" in holder(api), 10, "the standby to take over", interval=0.02)
    takeover = time.monotonic() - t0
    for i in range(10):
        create_riding_out(api.cp, namespace, pod_body(f"after-{i}"))
    wait_for(all_bound(api, namespace, 20), 30, "10 more pods bound by the new leader")
    report(record_property, standby_exit_seconds=standby_exit, leader_exit_seconds=leader_exit,
           sigterm_to_lease_released_seconds=release, standby_takeover_seconds=takeover)
    assert standby_exit < 1.5 and leader_exit < 1.5 and release < 1.0
    assert takeover < 2 + 1.5  # one retryPeriod + slack, not the 15 s lease
    assert check_promises(api, namespace, node_names, [a, b, c], watch) == []


# ---- 7. a watch that goes silent ---------------------------------------------------------------------------
def test_silent_watch_is_detected_and_resumed(control_plane: LocalControlPlane, api: Api, namespace: str,
                                              cluster_nodes: Any, start_kubeberth: Any, watch: PodWatch,
                                              tmp_path: Path, sa_kubeconfig: str, record_property: Any) -> None:
    """The connections go silent without closing. The watch's 2-3 s timeout (5 min by default) plus as
    much grace is the longest a silent watch goes unnoticed; it is then resumed and catches up."""
    node_names = cluster_nodes(1)
    proxy = SilencingProxy(control_plane.apiserver_port)
    try:
        kubeconfig = tmp_path / "via-proxy.kubeconfig"
        kubeconfig.write_text(Path(sa_kubeconfig).read_text().replace(
            f":{control_plane.apiserver_port}", f":{proxy.port}"))
        # The liveness probe off: this test is about the watch timeout alone (the next one, the probe).
        kb = start_kubeberth(kubeconfig=str(kubeconfig),
                             env={"KUBEBERTH_WATCH_TIMEOUT": "2", "KUBEBERTH_LIVENESS_INTERVAL_SECONDS": "0"})
        for i in range(5):
            create_riding_out(control_plane, namespace, pod_body(f"before-{i}"))
        wait_for(all_bound(api, namespace, 5), 30, "5 pods bound")
        silences_before = kb.log_text().count("Pod: watch silent")
        assert proxy.silence() >= 1
        silenced = time.monotonic()
        for i in range(10):
            create_riding_out(control_plane, namespace, pod_body(f"after-{i}"))
        wait_for(all_bound(api, namespace, 15), 30, "the pods created while the watch was silent")
        recovered = time.monotonic() - silenced
        report(record_property, silent_watch_all_bound_seconds=recovered)
        assert kb.log_text().count("Pod: watch silent") > silences_before
        assert check_promises(api, namespace, node_names, [kb], watch) == []
        assert kb.stop() == 0
    finally:
        proxy.close()


def test_silent_connections_are_replaced_within_45s_at_default_settings(
        control_plane: LocalControlPlane, api: Api, namespace: str, cluster_nodes: Any, start_kubeberth: Any,
        watch: PodWatch, tmp_path: Path, sa_kubeconfig: str, record_property: Any) -> None:
    """Default settings (watch timeout 5-10 min): the liveness probe's connection goes silent with the
    watches, the path is declared dead, every watch resumes from its resourceVersion (no relist)."""
    node_names = cluster_nodes(1)
    proxy = SilencingProxy(control_plane.apiserver_port)
    try:
        kubeconfig = tmp_path / "via-proxy.kubeconfig"
        kubeconfig.write_text(Path(sa_kubeconfig).read_text().replace(
            f":{control_plane.apiserver_port}", f":{proxy.port}"))
        kb = start_kubeberth(kubeconfig=str(kubeconfig))
        for i in range(5):
            create_riding_out(control_plane, namespace, pod_body(f"before-{i}"))
        wait_for(all_bound(api, namespace, 5), 30, "5 pods bound")
        time.sleep(6.0)  # a probe answered on the sentinel connection since the pods were bound
        assert "declared dead" not in kb.log_text()
        assert proxy.silence() >= 2  # the watches and the probe's connection at least
        silenced, silenced_at = time.monotonic(), time.time()
        for i in range(10):
            create_riding_out(control_plane, namespace, pod_body(f"after-{i}"))
        wait_for(all_bound(api, namespace, 15), 45 + 15, "the pods created while the connections were silent")
        recovered = time.monotonic() - silenced
        detected = log_time(kb, "API connection declared dead") - silenced_at
        report(record_property, liveness_detection_seconds=detected, silent_connections_all_bound_seconds=recovered)
        assert detected <= 45 and recovered <= 45 + 10
        log = kb.log_text()
        assert "Pod: watch closed; resuming from resourceVersion" in log
        assert "relisting" not in log and "watch silent" not in log
        assert check_promises(api, namespace, node_names, [kb], watch) == []
        assert kb.stop() == 0
    finally:
        proxy.close()

"""Scheduler extenders against the real kube-scheduler v1.37.2, both ways.

1. kubeberth and kube-scheduler configured with the same extender (tests/extender_server.py) on
   the same cluster: identical choices and identical FailedScheduling messages.
2. kube-scheduler configured with `kubeberth extender` (a drop-in plugin, the shipped read-only
   RBAC): pods land where the plugin says; the plugin file changes and the next pods follow it,
   neither process restarted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, ManagedProcess, free_port, wait_for
from extender_server import ExtenderServer, Policy
from kubeberth_harness import CONFIG_DIR, Api, Kubeberth, suffix

STOCK = "stock-extended"  # kube-scheduler's profile in these tests (not default-scheduler: no clash)


def _scheduler_config(path: Path, scheduler_name: str, extenders: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": 1,
        "podMaxBackoffSeconds": 2,
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": scheduler_name}],
        "extenders": extenders,
    }))
    return path


@pytest.fixture
def kube_scheduler_with(control_plane: LocalControlPlane) -> Iterator[Any]:
    started: list[ManagedProcess] = []

    def start(config: Path) -> ManagedProcess:
        proc = control_plane.start_kube_scheduler(config, name=f"kube-scheduler-ext-{suffix()}")
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()
        if proc in control_plane.schedulers:
            control_plane.schedulers.remove(proc)


def _pod(api: Api, ns: str, name: str, scheduler: str, cpu: str, labels: dict[str, str]) -> None:
    api.call("POST", f"/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
        "spec": {"schedulerName": scheduler, "containers": [{
            "name": "c", "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]},
    })


def _failed_scheduling(api: Api, ns: str, pod: str) -> str | None:
    notes = [e["note"] for e in api.events(ns) if e["reason"] == "FailedScheduling" and e["regarding"]["name"] == pod]
    return notes[-1] if notes else None


def test_side_by_side_with_kube_scheduler_and_the_same_extender(
    control_plane: LocalControlPlane, api: Api, namespace: str, nodes: list[str], sa_kubeconfig: str,
    kube_scheduler_with: Any, tmp_path: Path, record_property: Any,
) -> None:
    """Identical nodes; the extender decides: per pod a distinct score per node (weight 3 makes
    one extender point worth 30, more than any difference of the default plugins between equal
    nodes), one node on its deny list (Unschedulable), one retired (UnschedulableAndUnresolvable).
    Each step kubeberth schedules k-i, it is deleted, kube-scheduler schedules the identical d-i,
    which stays: both decide on the same state. Full Node objects are sent (not cache capable)."""
    names = [f"sx-{i}-{suffix()}" for i in range(5)]
    for name in names:
        api.create_node(name, "4", "8Gi")
        nodes.append(name)
    deny, retired = names[3], names[4]

    def score(pod: dict[str, Any], node: str) -> int:
        slot = int(pod["metadata"]["labels"]["slot"])
        return (slot * 3 + names.index(node) * 7) % 11 if node in names else 0

    def reject(pod: dict[str, Any], node: str) -> str | None:
        if pod["metadata"]["labels"].get("reject") == "all" and node != retired:
            return "node(s) are on the extender's deny list"
        return "node(s) are on the extender's deny list" if node == deny else None

    policy = Policy(reject=reject, score=score,
                    unresolvable=lambda pod, node: "node(s) are retired" if node == retired else None)
    with ExtenderServer(policy) as ext:
        extenders = [{"urlPrefix": ext.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 3,
                      "httpTimeout": "5s"}]
        kube_scheduler_with(_scheduler_config(tmp_path / "stock.yaml", STOCK, extenders))
        config = _scheduler_config(tmp_path / "kubeberth.yaml", "kubeberth", extenders)
        kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-{suffix()}")
        try:
            kb.wait_ready()
            rows = []
            for i in range(8):
                labels = {"slot": str(i)}
                _pod(api, namespace, f"k-{i}", "kubeberth", "500m", labels)
                k = wait_for(lambda i=i: api.bound(namespace).get(f"k-{i}"), 30, f"kubeberth to bind k-{i}")
                api.delete_pod(namespace, f"k-{i}")
                wait_for(lambda i=i: api.pod(namespace, f"k-{i}") is None, 10, f"k-{i} deleted")
                _pod(api, namespace, f"d-{i}", STOCK, "500m", labels)
                d = wait_for(lambda i=i: api.bound(namespace).get(f"d-{i}"), 30, f"kube-scheduler to bind d-{i}")
                rows.append((i, d, k))
            sys.stderr.write("\n".join(f"[e2e]   pod {i}  kube-scheduler={d}  kubeberth={k}" for i, d, k in rows) + "\n")
            assert all(d == k for _i, d, k in rows), rows
            assert {d for _i, d, _k in rows} - {names[0], names[1], names[2]} == set()
            # Unschedulable: the extender rejects every node the filter plugins kept (and one node is
            # too full for the pod: NodeResourcesFit's rejection joins the extender's in the message).
            for prefix, scheduler in (("k", "kubeberth"), ("d", STOCK)):
                _pod(api, namespace, f"{prefix}-none", scheduler, "3", {"slot": "0", "reject": "all"})
            messages = {
                p: wait_for(lambda p=p: _failed_scheduling(api, namespace, f"{p}-none"), 30, f"{p}-none FailedScheduling")
                for p in ("k", "d")
            }
            record_property("failed_scheduling", messages["d"])
            sys.stderr.write(f"[e2e]   kube-scheduler: {messages['d']}\n[e2e]   kubeberth:      {messages['k']}\n")
            assert messages["k"] == messages["d"]
            assert "node(s) are on the extender's deny list" in messages["d"] and "node(s) are retired" in messages["d"]
        finally:
            kb.stop()


STEER = '''
from kubeberth import Code, FilterResult, NodeView, PodView, hookimpl

LANE = "{lane}"


class Steer:
    """Only nodes labelled lane=LANE."""

    name = "Steer"

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        ids, values = nodes.label_values("lane")
        wanted = values.index(LANE) if LANE in values else -2
        return FilterResult.reject_where(ids != wanted, f"node(s) are not in lane {{LANE}}",
                                         Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
'''


class ExtenderProcess:
    """A `kubeberth extender` child process."""

    def __init__(self, cp: LocalControlPlane, kubeconfig: str, config: Path, plugins: Path, log: Path) -> None:
        self.port = free_port(avoid={cp.apiserver_port})
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self.log = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kubeberth", "extender", f"--kubeconfig={kubeconfig}", f"--config={config}",
             f"--plugins-dir={plugins}", f"--bind-address=127.0.0.1:{self.port}", "--log-level=INFO"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, env=dict(os.environ),
        )

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=2) as resp:
                return resp.status, resp.read().decode()
        except OSError:
            return 0, ""

    def wait_ready(self) -> None:
        def ready() -> bool:
            assert self.proc.poll() is None, self.log_path.read_text()[-3000:]
            return self.get("/readyz")[0] == 200

        wait_for(ready, 60, "kubeberth extender /readyz")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def _rbac_only(path: Path) -> str:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return yaml.safe_dump_all([d for d in docs if d["kind"] in ("ServiceAccount", "ClusterRole", "ClusterRoleBinding")])


def test_kube_scheduler_schedules_with_kubeberth_extender_and_follows_a_plugin_reload(
    control_plane: LocalControlPlane, api: Api, namespace: str, nodes: list[str], kube_scheduler_with: Any,
    tmp_path: Path,
) -> None:
    control_plane.kubectl("apply", "-f", "-", input=_rbac_only(CONFIG_DIR / "extender" / "extender.yaml"))
    kubeconfig = control_plane.kubeconfig_for_service_account("kube-system", "kubeberth-extender")
    lanes = {}
    for lane in ("a", "a", "b", "b"):
        name = f"lane-{lane}-{suffix()}"
        api.create_node(name, "4", "8Gi", labels={"lane": lane})
        nodes.append(name)
        lanes[name] = lane
    plugins = tmp_path / "plugins"
    plugins.mkdir(mode=0o755)
    (plugins / "steer.py").write_text(STEER.format(lane="a"))
    config = tmp_path / "extender-config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "kubeberth-extender",
                      "plugins": {"multiPoint": {"enabled": [{"name": "Steer"}], "disabled": [{"name": "*"}]}}}],
    }))
    ext = ExtenderProcess(control_plane, kubeconfig, config, plugins, control_plane.log_dir / f"extender-{suffix()}.log")
    try:
        ext.wait_ready()
        stock = kube_scheduler_with(_scheduler_config(tmp_path / "stock.yaml", STOCK, [{
            "urlPrefix": ext.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "preemptVerb": "preempt",
            "weight": 1, "nodeCacheCapable": True, "httpTimeout": "5s",
        }]))
        for i in range(4):
            _pod(api, namespace, f"first-{i}", STOCK, "100m", {})
        first = {f"first-{i}" for i in range(4)}
        wait_for(lambda: first <= set(api.bound(namespace)), 30, "kube-scheduler to bind the first pods")
        assert {lanes[n] for p, n in api.bound(namespace).items() if p in first} == {"a"}
        # The plugin changes on disk; neither process restarts.
        tmp = plugins / ".steer.py.tmp"
        tmp.write_text(STEER.format(lane="b"))
        tmp.replace(plugins / "steer.py")
        wait_for(lambda: 'kubeberth_reloads_total{result="success"} 1.0' in ext.get("/metrics")[1], 30,
                 "the extender to reload the plugin")
        for i in range(4):
            _pod(api, namespace, f"second-{i}", STOCK, "100m", {})
        second = {f"second-{i}" for i in range(4)}
        wait_for(lambda: second <= set(api.bound(namespace)), 30, "kube-scheduler to bind the second pods")
        assert {lanes[n] for p, n in api.bound(namespace).items() if p in second} == {"b"}
        assert ext.proc.poll() is None and stock.running
        # The rejection reasons reach kube-scheduler's FailedScheduling message.
        api.call("POST", f"/api/v1/namespaces/{namespace}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nowhere"},
            "spec": {"schedulerName": STOCK, "nodeSelector": {"lane": "a"},
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
        note = wait_for(lambda: _failed_scheduling(api, namespace, "nowhere"), 30, "FailedScheduling for nowhere")
        assert "2 node(s) are not in lane b" in note and "2 node(s) didn't match Pod's node affinity/selector" in note, note
        status, metrics = ext.get("/metrics")
        assert 'kubeberth_extender_request_duration_seconds_count{result="success",verb="filter"}' in metrics
    finally:
        ext.stop()


def test_extender_manifests_apply_with_server_dry_run(control_plane: LocalControlPlane) -> None:
    out = control_plane.kubectl("apply", "--dry-run=server", "-f", str(CONFIG_DIR / "extender" / "extender.yaml"),
                                check=False)
    assert out.returncode == 0, out.stderr
    for kind in ("serviceaccount/kubeberth-extender", "clusterrole.rbac.authorization.k8s.io/kubeberth-extender",
                 "configmap/kubeberth-extender-plugins", "service/kubeberth-extender", "deployment.apps/kubeberth-extender"):
        assert kind in out.stdout, out.stdout

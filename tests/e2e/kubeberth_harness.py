"""kubeberth as a separate `kubeberth run` process against the local control plane, and the admin
API calls tests make around it. Shared by the e2e test modules; fixtures are in conftest.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import yaml
from cluster import LocalControlPlane, free_port, wait_for

REPO = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO / "config"
PROFILE = "kubeberth"


def suffix() -> str:
    return uuid.uuid4().hex[:6]


class Api:
    """Admin JSON calls through the control plane's minimal REST helper."""

    def __init__(self, cp: LocalControlPlane) -> None:
        self.cp = cp

    def call(self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201)) -> Any:
        status, data = self.cp.request(method, path, body)
        if status not in ok:
            raise AssertionError(f"{method} {path}: {status} {data}")
        return data

    def create_node(self, name: str, cpu: str, memory: str, labels: dict[str, str] | None = None,
                    pods: str = "110") -> None:
        labels = {"kubernetes.io/hostname": name, **(labels or {})}
        self.call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                             "metadata": {"name": name, "labels": labels}})
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        res = {"cpu": cpu, "memory": memory, "pods": pods}
        status = {"status": {"capacity": res, "allocatable": res, "conditions": [
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "e2e",
             "lastHeartbeatTime": now, "lastTransitionTime": now}]}}
        self._patch(f"/api/v1/nodes/{name}/status", status)

    def _patch(self, path: str, body: Any) -> Any:
        req = urllib.request.Request(self.cp.server + path, data=json.dumps(body).encode(), method="PATCH")
        req.add_header("Authorization", f"Bearer {self.cp.admin_token}")
        req.add_header("Content-Type", "application/strategic-merge-patch+json")
        with urllib.request.urlopen(req, timeout=10, context=self.cp._ssl) as resp:
            return json.loads(resp.read())

    def delete_node(self, name: str) -> None:
        self.call("DELETE", f"/api/v1/nodes/{name}", ok=(200, 404))

    def create_pod(self, ns: str, name: str, scheduler: str = PROFILE, cpu: str = "100m", memory: str = "64Mi",
                   node_name: str = "") -> dict[str, Any]:
        spec: dict[str, Any] = {
            "schedulerName": scheduler,
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
        }
        if node_name:
            spec["nodeName"] = node_name
        return self.call("POST", f"/api/v1/namespaces/{ns}/pods",
                         {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})

    def pod(self, ns: str, name: str) -> dict[str, Any] | None:
        status, data = self.cp.request("GET", f"/api/v1/namespaces/{ns}/pods/{name}")
        return data if status == 200 else None

    def pods(self, ns: str) -> list[dict[str, Any]]:
        return self.call("GET", f"/api/v1/namespaces/{ns}/pods")["items"]

    def delete_pod(self, ns: str, name: str) -> None:
        self.call("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}", {"gracePeriodSeconds": 0}, ok=(200, 404))

    def events(self, ns: str) -> list[dict[str, Any]]:
        return self.call("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events")["items"]

    def bound(self, ns: str) -> dict[str, str]:
        return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in self.pods(ns) if p["spec"].get("nodeName")}


class Kubeberth:
    """A `kubeberth run` child process."""

    def __init__(self, cp: LocalControlPlane, kubeconfig: str, config: Path, leader_elect: bool, name: str,
                 plugins_dir: Path | None = None, env: dict[str, str] | None = None,
                 args: list[str] | None = None) -> None:
        """`args` go last (e.g. `--secure-port=N` over the default `--secure-port=0`)."""
        self.name = name
        self.port = free_port(avoid={cp.apiserver_port})
        self.log_path = cp.log_dir / f"{name}.log"
        argv = [sys.executable, "-m", "kubeberth", "run", f"--kubeconfig={kubeconfig}", f"--config={config}",
                f"--healthz-bind-address=127.0.0.1:{self.port}", "--secure-port=0", "--log-level=INFO",
                "--leader-elect" if leader_elect else "--no-leader-elect"]
        if plugins_dir is not None:
            argv.append(f"--plugins-dir={plugins_dir}")
        argv += args or []
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
                                     env={**os.environ, **(env or {})})

    def get(self, path: str, timeout: float = 5) -> tuple[int, bytes]:
        """GET one of its endpoints (/metrics, /debug/decisions/...): the status and the body, an error's too."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def probe(self, path: str) -> int:
        """The status of a GET, 0 when it is not served (yet)."""
        try:
            return self.get(path, timeout=2)[0]
        except OSError:
            return 0

    def wait_ready(self, timeout: float = 60) -> None:
        def ready() -> bool:
            assert self.proc.poll() is None, f"kubeberth exited:\n{self.log_tail()}"
            return self.probe("/readyz") == 200

        wait_for(ready, timeout, "kubeberth /readyz")

    def log_tail(self, n: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def bind_lines(self) -> list[str]:
        return [line for line in self.log_text().splitlines() if " bound " in line]

    def bound_pods(self) -> list[str]:
        """"ns/name" of every pod this process logged a successful binding for (repeats kept)."""
        return [line.split(" bound ", 1)[1].split(" ", 1)[0] for line in self.bind_lines()]

    def held_pods(self, timeout: float = 10) -> dict[str, list[str]]:
        """What the scheduler holds now (queue, waiting, assumed, failed, gone): SIGUSR2 makes it log
        one "held pods:" JSON line from its loop thread."""
        before = self.log_text().count("held pods: ")
        self.proc.send_signal(signal.SIGUSR2)
        wait_for(lambda: self.log_text().count("held pods: ") > before, timeout, f"{self.name}'s held pods dump")
        line = [x for x in self.log_text().splitlines() if "held pods: " in x][-1]
        return json.loads(line.split("held pods: ", 1)[1])

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()
        return self.proc.returncode


def write_config(path: Path, leader_elect: bool = False, lease: tuple[str, str, str] = ("15s", "10s", "2s"),
                 backoff: float = 1, plugins: tuple[str, ...] = (),
                 plugin_config: list[dict[str, Any]] | None = None, queue_sort: str | None = None) -> Path:
    """A KubeSchedulerConfiguration with one profile; `plugins` are enabled on top of the defaults;
    `plugin_config` is the profile's pluginConfig; `queue_sort` replaces PrioritySort."""
    cfg = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": backoff,
        "podMaxBackoffSeconds": max(backoff, 2),
        "leaderElection": {"leaderElect": leader_elect, "leaseDuration": lease[0], "renewDeadline": lease[1],
                           "retryPeriod": lease[2], "resourceName": "kubeberth", "resourceNamespace": "kube-system"},
        "profiles": [{"schedulerName": PROFILE}],
    }
    if plugins:
        cfg["profiles"][0]["plugins"] = {"multiPoint": {"enabled": [{"name": p} for p in plugins]}}
    if plugin_config:
        cfg["profiles"][0]["pluginConfig"] = plugin_config
    if queue_sort:
        cfg["profiles"][0].setdefault("plugins", {})["queueSort"] = {
            "enabled": [{"name": queue_sort}], "disabled": [{"name": "PrioritySort"}]}
    path.write_text(yaml.safe_dump(cfg))
    return path

#!/usr/bin/env python3
"""kube-scheduler v1.37.2 and kubeberth side by side on one real kube-apiserver.

One local control plane (tests/e2e harness: etcd + kube-apiserver on loopback), N fake Nodes
(scheduler_perf's node-default: 4 cpu, 32Gi, 110 pods) and scheduler_perf's pod-default pods.
Both schedulers get the same clientConnection qps/burst (high enough that neither is throttled).
Per scheduler and round, alternating which goes first:

- drain: P pods are created while no scheduler runs, then the scheduler starts; pods bound per
  second from the first binding to the last;
- steady: with the scheduler running, P pods are created (16 keep-alive clients); pods per second
  from the first creation to the last binding.

Bindings are timed by a watch on the namespace. CPU seconds (user + system, from /proc) of the
scheduler, kube-apiserver and etcd are taken over the same window, and the scheduler's peak RSS
(VmHWM) at the end of its round.

The first binding is timed from each scheduler's process start (its start-up, informer lists and
first cycle included).

    python scripts/side_by_side.py --nodes 500 --pods 2000 --rounds 2 [--record docs/benchmarks.md]
    python scripts/side_by_side.py --nodes 15000 --pods 15000 --rounds 2 --timeout 1800
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import signal
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

import yaml  # noqa: E402
from cluster import LocalControlPlane, wait_for  # noqa: E402
from kubeberth_harness import Kubeberth  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
CLIENTS = 16


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (children not included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Client:
    """One keep-alive HTTPS connection to the apiserver (per thread)."""

    def __init__(self, cp: LocalControlPlane) -> None:
        url = urllib.parse.urlparse(cp.server)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 443
        self.ctx = ssl.create_default_context(cafile=cp.ca_file)
        self.token = cp.admin_token
        self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)

    def call(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(3):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)
                if attempt == 2:
                    raise
        if resp.status >= 300 and resp.status != 404:
            raise RuntimeError(f"{method} {path}: {resp.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None


_local = threading.local()


def client(cp: LocalControlPlane) -> Client:
    c = getattr(_local, "client", None)
    if c is None:
        c = _local.client = Client(cp)
    return c


def create_node(cp: LocalControlPlane, i: int) -> None:
    name = f"scheduler-perf-{i:05d}"
    c = client(cp)
    c.call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                     "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}})
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    status = {"status": {"capacity": res, "allocatable": res, "conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "perf",
         "lastHeartbeatTime": now, "lastTransitionTime": now}]}}
    c.call("PATCH", f"/api/v1/nodes/{name}/status", status, "application/strategic-merge-patch+json")


def pod_body(name: str, scheduler: str) -> dict[str, Any]:
    """scheduler_perf's templates/pod-default.yaml."""
    res = {"cpu": "100m", "memory": "500Mi"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {
        "schedulerName": scheduler,
        "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10.2", "ports": [{"containerPort": 80}],
                        "resources": {"requests": res, "limits": res}}]}}


def create_pods(cp: LocalControlPlane, ns: str, count: int, scheduler: str) -> tuple[float, float]:
    """Create `count` pods with CLIENTS keep-alive clients; returns (first start, last done) times."""
    def one(i: int) -> None:
        client(cp).call("POST", f"/api/v1/namespaces/{ns}/pods", pod_body(f"pod-{i:06d}", scheduler))

    t0 = time.monotonic()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, range(count)))
    return t0, time.monotonic()


class BindWatch(threading.Thread):
    """Watches a namespace's pods and notes when each first has a nodeName (and the CPU of
    the watched processes at the first and last binding)."""

    def __init__(self, cp: LocalControlPlane, ns: str, expected: int, pids: dict[str, int]) -> None:
        super().__init__(daemon=True)
        self.cp, self.ns, self.expected, self.pids = cp, ns, expected, pids
        self.bound: dict[str, float] = {}
        self.placed: dict[str, str] = {}  # pod -> node, for how widely the scheduler spread them
        self.cpu_first: dict[str, float] = {}
        self.cpu_last: dict[str, float] = {}
        self.done = threading.Event()
        self.ready = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._watch()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
            self.done.set()
            self.ready.set()

    def _watch(self) -> None:
        """List, then watch from the list's resourceVersion; again from a fresh list whenever the
        apiserver ends the stream (as an informer does)."""
        c = Client(self.cp)
        while not self.done.is_set():
            listed = c.call("GET", f"/api/v1/namespaces/{self.ns}/pods")
            rv = listed["metadata"]["resourceVersion"]
            for pod in listed["items"]:
                self._see(pod)
            path = f"/api/v1/namespaces/{self.ns}/pods?watch=1&resourceVersion={rv}&allowWatchBookmarks=false"
            conn = http.client.HTTPSConnection(c.host, c.port, context=c.ctx, timeout=600)
            conn.request("GET", path, headers={"Authorization": f"Bearer {c.token}"})
            resp = conn.getresponse()
            self.ready.set()
            while not self.done.is_set():
                line = resp.readline()
                if not line:
                    break
                event = json.loads(line)
                if event.get("type") in ("ADDED", "MODIFIED"):
                    self._see(event["object"])
            conn.close()

    def _see(self, pod: dict[str, Any]) -> None:
        name = pod["metadata"]["name"]
        if name in self.bound or not (pod.get("spec") or {}).get("nodeName"):
            return
        now = time.monotonic()
        self.placed[name] = pod["spec"]["nodeName"]
        if not self.bound:
            self.cpu_first = {k: cpu_seconds(p) for k, p in self.pids.items()}
        self.bound[name] = now
        if len(self.bound) >= self.expected:
            self.cpu_last = {k: cpu_seconds(p) for k, p in self.pids.items()}
            self.done.set()


def delete_pods(cp: LocalControlPlane, ns: str) -> None:
    try:
        client(cp).call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0})
    except RuntimeError as exc:
        # A large collection outlasts the request timeout (504); the deletion goes on server-side.
        if ": 504 " not in str(exc):
            raise
    # Thousands of pods on a loaded machine take minutes.
    wait_for(lambda: not client(cp).call("GET", f"/api/v1/namespaces/{ns}/pods?limit=1")["items"], 1800,
             f"pods of {ns} deleted", interval=2.0)


def compile_kubeberth() -> None:
    """Byte-compile kubeberth's modules, as installing the wheel does: a source tree that is edited
    (or run with PYTHONDONTWRITEBYTECODE) would otherwise compile every module at each start,
    seconds of a scheduler's start-up that an installed kubeberth does not have."""
    import compileall

    import kubeberth
    import kubeberth.builtin_plugins
    import kubeberth.contrib

    for package in (kubeberth, kubeberth.builtin_plugins, kubeberth.contrib):
        for folder in package.__path__:
            compileall.compile_dir(folder, quiet=1)


def write_configs(workdir: Path, qps: int) -> tuple[Path, Path]:
    base = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False},
        "clientConnection": {"qps": qps, "burst": qps},
    }
    kube = workdir / "perf-kube-scheduler.yaml"
    kube.write_text(yaml.safe_dump({**base, "profiles": [{"schedulerName": "default-scheduler"}]}))
    berth = workdir / "perf-kubeberth.yaml"
    berth.write_text(yaml.safe_dump({**base, "profiles": [{"schedulerName": "kubeberth"}]}))
    return kube, berth


def attach_py_spy(pid: int, out: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling a running scheduler (the thread holding the GIL: where its CPU goes) until it is sent
    SIGINT; collapsed stacks into `out` (flamegraph.pl / speedscope read them)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--rate", "200", "--gil", "--format", "raw",
                             "--output", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_py_spy(spy: subprocess.Popen[bytes] | None) -> None:
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        spy.wait(60)


def run_one(cp: LocalControlPlane, which: str, round_no: int, pods: int, configs: tuple[Path, Path],
            timeout: float, modes: tuple[str, ...] = ("drain", "steady"), profile: Path | None = None
            ) -> dict[str, Any]:
    scheduler_name = "default-scheduler" if which == "kube-scheduler" else "kubeberth"
    assert cp.apiserver is not None and cp.etcd is not None
    results: dict[str, Any] = {"scheduler": which, "round": round_no}
    spy: subprocess.Popen[bytes] | None = None
    for mode in modes:
        ns = f"{which}-{round_no}-{mode}"
        client(cp).call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                       "metadata": {"name": ns}})
        if mode == "drain":
            create_pods(cp, ns, pods, scheduler_name)
            proc_pid = 0
        watch = BindWatch(cp, ns, pods, {"apiserver": cp.apiserver.pid, "etcd": cp.etcd.pid})
        watch.start()
        watch.ready.wait(60)
        if mode == "drain":
            # From the process's start for both (not from kube-scheduler's healthy /healthz, by when
            # its caches have synced and it may have bound pods already); the process's CPU is
            # watched from its start.
            t_start = time.monotonic()
            if which == "kube-scheduler":
                proc = cp.start_kube_scheduler(configs[0], name=f"perf-kube-scheduler-{round_no}",
                                               wait_healthy=False)
                proc_pid, stopper = proc.pid, proc.stop
            else:
                kb = Kubeberth(cp, cp.admin_kubeconfig, configs[1], leader_elect=False,
                               name=f"perf-kubeberth-{round_no}")
                proc_pid, stopper = kb.proc.pid, kb.stop
                if profile is not None:
                    spy = attach_py_spy(proc_pid, profile / f"kubeberth-{round_no}.txt")
            watch.pids["scheduler"] = proc_pid
            cpu_at_start = 0.0
        else:
            watch.pids["scheduler"] = proc_pid
            cpu0 = {k: cpu_seconds(p) for k, p in watch.pids.items()}
            cpu_at_start = cpu0["scheduler"]
            t_start, _ = create_pods(cp, ns, pods, scheduler_name)
        deadline = time.monotonic() + timeout
        while not watch.done.wait(10):
            print(f"  {which} {mode}: {len(watch.bound)}/{pods} bound", file=sys.stderr, flush=True)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{which} {mode}: {len(watch.bound)}/{pods} pods bound after {timeout}s")
        if watch.error is not None:
            raise watch.error
        times = sorted(watch.bound.values())
        if mode == "drain":
            span = times[-1] - times[0]
            cpu = {k: watch.cpu_last[k] - watch.cpu_first[k] for k in watch.pids}
            per = pods - 1
        else:
            span = times[-1] - t_start
            cpu = {k: watch.cpu_last[k] - cpu0[k] for k in watch.pids}
            per = pods
        results[mode] = {
            "pods_per_second": round(per / span, 1) if span > 0 else 0.0,
            "seconds": round(span, 2),
            "scheduler_cpu_s_per_1000": round(cpu["scheduler"] * 1000 / per, 3),
            "apiserver_cpu_s_per_1000": round(cpu["apiserver"] * 1000 / per, 3),
            "etcd_cpu_s_per_1000": round(cpu["etcd"] * 1000 / per, 3),
            "first_binding_after_start_s": round(times[0] - t_start, 2),
            # CPU the scheduler used up to its first binding (from its process start in a drain):
            # start-up cost that, unlike the wall time, a loaded machine does not stretch.
            "scheduler_cpu_s_to_first_binding": round(watch.cpu_first["scheduler"] - cpu_at_start, 2),
            # Identical pods: how widely they were spread shows whether both batch alike (KEP-5598).
            "distinct_nodes": len(set(watch.placed.values())),
            "max_pods_per_node": max(Counter(watch.placed.values()).values()),
        }
        print(f"  {which} round {round_no} {mode}: {results[mode]}", file=sys.stderr, flush=True)
    results["peak_rss_mb"] = round(peak_rss_mb(proc_pid), 1)
    stop_py_spy(spy)
    stopper()
    for mode in modes:
        delete_pods(cp, f"{which}-{round_no}-{mode}")
    return results


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for which in ("kube-scheduler", "kubeberth"):
        mine = [r for r in runs if r["scheduler"] == which]
        out[which] = {
            mode: {k: round(statistics.median(r[mode][k] for r in mine), 3) for k in mine[0][mode]}
            for mode in ("drain", "steady") if mode in mine[0]
        }
        out[which]["peak_rss_mb"] = max(r["peak_rss_mb"] for r in mine)
    return out


def render(args: argparse.Namespace, runs: list[dict[str, Any]], summary: dict[str, Any], setup: float) -> str:
    from kubeberth.apps.scenario_bench import commit, machine

    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    kube, berth = summary["kube-scheduler"], summary["kubeberth"]
    lines = [
        f"### {when} — side by side on kube-apiserver v1.37.2 — {args.nodes} nodes, {args.pods} pods"
        f" — {machine()} — commit {commit()}",
        "",
        f"`python scripts/side_by_side.py --nodes {args.nodes} --pods {args.pods} --rounds {args.rounds}"
        f" --qps {args.qps} --modes {args.modes}` (clientConnection qps = burst = {args.qps} for both;"
        f" {args.rounds} rounds each, alternating; medians; node setup {setup:.0f} s; load average"
        f" {os.getloadavg()[0]:.1f} at the end)",
        "",
        "| mode | measure | kube-scheduler | kubeberth | kubeberth / kube-scheduler |",
        "|---|---|---:|---:|---:|",
    ]
    labels = {
        "pods_per_second": "pods/s",
        "scheduler_cpu_s_per_1000": "scheduler CPU s / 1,000 pods",
        "apiserver_cpu_s_per_1000": "kube-apiserver CPU s / 1,000 pods",
        "etcd_cpu_s_per_1000": "etcd CPU s / 1,000 pods",
        "first_binding_after_start_s": "first binding after start (s)",
        "scheduler_cpu_s_to_first_binding": "scheduler CPU s up to the first binding",
        "distinct_nodes": "distinct nodes the pods landed on",
        "max_pods_per_node": "most pods on one node",
    }
    for mode in ("drain", "steady"):
        if mode not in kube:
            continue
        for key, label in labels.items():
            a, b = kube[mode][key], berth[mode][key]
            ratio = f"{b / a:.2f}" if a else "-"
            lines.append(f"| {mode} | {label} | {a} | {b} | {ratio} |")
    a, b = kube["peak_rss_mb"], berth["peak_rss_mb"]
    lines.append(f"| both | scheduler peak RSS (MB) | {a} | {b} | {b / a:.2f} |")
    lines += ["", "Every run (pods/s drain / steady):", ""]
    for r in runs:
        shown = [mode for mode in ("drain", "steady") if mode in r]
        lines.append(f"- {r['scheduler']} round {r['round']}: "
                     f"{' / '.join(str(r[m]['pods_per_second']) for m in shown)} pods/s; scheduler CPU s/1,000 pods "
                     f"{' / '.join(str(r[m]['scheduler_cpu_s_per_1000']) for m in shown)}; first binding "
                     f"{r['drain']['first_binding_after_start_s'] if 'drain' in r else '-'} s after start;"
                     f" peak RSS {r['peak_rss_mb']} MB")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--qps", type=int, default=5000, help="clientConnection qps and burst of both schedulers")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for one run's bindings")
    parser.add_argument("--modes", default="drain,steady",
                        help="drain, steady or both (comma-separated); the start-up figures come from drain")
    parser.add_argument("--record", type=Path, help="append the results to this file (docs/benchmarks.md)")
    parser.add_argument("--py-spy", type=Path, metavar="DIR",
                        help="sample kubeberth with py-spy in each round (collapsed stacks in DIR)")
    parser.add_argument("--json", type=Path, help="write every run's numbers to this file")
    args = parser.parse_args()
    modes = tuple(m for m in ("drain", "steady") if m in args.modes.split(","))
    if not modes or set(args.modes.split(",")) - {"drain", "steady"}:
        parser.error(f"--modes={args.modes}: expected drain, steady or drain,steady")
    compile_kubeberth()
    with LocalControlPlane(extra_apiserver_args=["--max-requests-inflight=2000",
                                                 "--max-mutating-requests-inflight=1000"]) as cp:
        assert cp.workdir is not None
        t0 = time.monotonic()
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(lambda i: create_node(cp, i), range(args.nodes)))
        setup = time.monotonic() - t0
        print(f"{args.nodes} nodes in {setup:.1f}s", file=sys.stderr, flush=True)
        configs = write_configs(cp.workdir, args.qps)
        runs = []
        for r in range(args.rounds):
            order = ("kube-scheduler", "kubeberth") if r % 2 == 0 else ("kubeberth", "kube-scheduler")
            for which in order:
                runs.append(run_one(cp, which, r, args.pods, configs, args.timeout, modes, args.py_spy))
        summary = summarize(runs)
        text = render(args, runs, summary, setup)
        print(text)
        if args.json:
            args.json.write_text(json.dumps({"runs": runs, "summary": summary}, indent=1))
        if args.record:
            existing = args.record.read_text() if args.record.exists() else ""
            args.record.write_text(existing.rstrip() + "\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

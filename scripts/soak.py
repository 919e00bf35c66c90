#!/usr/bin/env python3
"""Soak: kubeberth against a real kube-apiserver + etcd for a long time, under steady churn and
periodic faults, checking the promises of docs/reliability.md at the end.

    python3 scripts/soak.py --minutes 60 --out /tmp/soak60            # the documented run
    python3 scripts/soak.py --minutes 3 --reload-every 20 --restart-every 60 --failover-every 120 \
        --window 30 --warmup 0 --max-rss-drift 0                      # the CI version (test_soak_e2e.py)

What runs: two `kubeberth run` replicas with leader election (the default lease, 15s/10s/2s: the
soak exercises the settings people run), each with the soak's drop-in score plugin folder and the
scheduler's own service account (config/rbac.yaml). Pods are created at --rate per second and
deleted --lifetime seconds after they were first seen bound, so occupancy stays near
rate x lifetime (the nodes have room for about twice that). Every --reload-every seconds a new
version of the drop-in score plugin (a changed weight per node) is written into the plugins folder;
every --restart-every seconds the API server is SIGKILLed and started again on the same port and
etcd; every --failover-every seconds the leader is SIGKILLed (the hard case: the Lease is not
released, the standby waits for it to expire) and started again as a standby.

What is measured, per --window: pods created, bound and deleted; the scheduling attempt p99 from
the replicas' scheduler_scheduling_attempt_duration_seconds histograms (bucket deltas of every
replica scraped every 10 s, interpolated as histogram_quantile does); the creation->bound p99
seen by a watch (the pod's own wait, outages included); each replica's RSS (VmRSS every 5 s).

Promises (exit 1 when one is broken, with the list): every pod created is bound (0 lost); no pod
seen on two nodes or bound twice (watch history, bind log lines of every replica); no node ever over
its allocatable (checked every 30 s and at the end); no attempt ends unschedulable (the nodes hold
twice the occupancy: one that does not fit is a pod counted twice, or a churn that fell behind);
every plugin version applied by every running replica within 60 s, no reload failed or rolled back; nothing held by a scheduler for a pod that is gone; no traceback in any
replica's log; no replica exiting on its own; RSS drift (median of the last window against the
first window after --warmup, per replica process) under --max-rss-drift percent; the attempt p99 of
the last window at most --max-p99-growth times that of the first window after warm-up.
A JSON summary goes to stdout and OUT/summary.json, the per-window table to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for _p in (REPO / "tests" / "e2e", REPO / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from cluster import LocalControlPlane, wait_for  # noqa: E402
from fault_harness import PodWatch, pod_body  # noqa: E402
from fault_promises import bound_more_than_once, moved, overcommitted, queued_but_gone, unbound  # noqa: E402
from kubeberth_harness import CONFIG_DIR, PROFILE, Api, Kubeberth, write_config  # noqa: E402

NS = "soak"
DELETERS = 4
PLUGIN = "SoakScore"
ATTEMPT = "scheduler_scheduling_attempt_duration_seconds_bucket"
RESULTS = "scheduler_schedule_attempts_total"

SCORE_PLUGIN = '''"""Soak score plugin, version {version}: a weight per node that changes with every version."""
import numpy as np
from kubeberth import NodeView, hookimpl

__version__ = "{version}"


class SoakScore:
    name = "SoakScore"

    @hookimpl
    def score(self, nodes: NodeView):
        return (np.arange(len(nodes), dtype=np.int64) * {step} + {version}) % 101
'''


# ---- options ---------------------------------------------------------------------------------------
@dataclass
class Options:
    minutes: float = 60.0
    rate: float = 10.0
    lifetime: float = 30.0
    reload_every: float = 60.0
    restart_every: float = 900.0
    failover_every: float = 1200.0
    window: float = 300.0
    warmup: float = 600.0
    lead_warmup: float = 300.0
    max_rss_drift: float = 5.0  # percent; 0: reported, not a promise
    max_p99_growth: float = 2.0  # last window's attempt p99 / first window's after warm-up; 0: reported only
    nodes: int = 10
    lease: tuple[str, str, str] = ("15s", "10s", "2s")
    settle: float = 120.0
    out: Path = field(default_factory=lambda: Path("/tmp/kubeberth-soak"))


def parse_args(argv: list[str] | None = None) -> Options:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=60.0, help="length of the churn (default 60)")
    p.add_argument("--rate", type=float, default=10.0, help="pods created per second (default 10)")
    p.add_argument("--lifetime", type=float, default=30.0, help="seconds a pod lives once bound (default 30)")
    p.add_argument("--reload-every", type=float, default=60.0, help="seconds between plugin versions (0: none)")
    p.add_argument("--restart-every", type=float, default=900.0, help="seconds between API server restarts (0: none)")
    p.add_argument("--failover-every", type=float, default=1200.0, help="seconds between leader kills (0: none)")
    p.add_argument("--window", type=float, default=300.0, help="seconds per row of the table (default 300)")
    p.add_argument("--warmup", type=float, default=600.0, help="seconds of a process's life left out of RSS drift")
    p.add_argument("--lead-warmup", type=float, default=300.0,
                   help="seconds after a standby first leads left out of its leading RSS drift")
    p.add_argument("--max-rss-drift", type=float, default=5.0, help="percent; 0 reports without promising")
    p.add_argument("--max-p99-growth", type=float, default=2.0, help="factor; 0 reports without promising")
    p.add_argument("--nodes", type=int, default=10, help="Node objects (8 cpu, 110 pods each)")
    p.add_argument("--lease", default="15s,10s,2s", help="leaseDuration,renewDeadline,retryPeriod")
    p.add_argument("--settle", type=float, default=120.0, help="seconds allowed for the last pods to bind")
    p.add_argument("--out", type=Path, default=Path("/tmp/kubeberth-soak"), help="logs and summary.json")
    a = p.parse_args(argv)
    lease = tuple(a.lease.split(","))
    checks: list[tuple[bool, str]] = [
        (a.minutes > 0, "--minutes must be > 0"),
        (a.rate > 0, "--rate must be > 0"),
        (a.lifetime >= 0, "--lifetime must be >= 0"),
        (min(a.reload_every, a.restart_every, a.failover_every) >= 0, "--*-every must be >= 0"),
        (a.window > 0, "--window must be > 0"),
        (a.warmup >= 0 and a.lead_warmup >= 0, "--warmup and --lead-warmup must be >= 0"),
        (a.nodes > 0, "--nodes must be > 0"),
        (len(lease) == 3 and all(re.fullmatch(r"\d+(\.\d+)?s", x) for x in lease),
         "--lease must be three durations like 15s,10s,2s"),
        (a.rate * a.lifetime * 2 <= a.nodes * 80, f"--nodes {a.nodes} hold {a.nodes * 80} pods of 100m: "
         "raise --nodes or lower --rate x --lifetime (occupancy is about rate x lifetime, keep it under half)"),
    ]
    for ok, message in checks:
        if not ok:
            p.exit(2, f"soak.py: {message}\n")
    return Options(a.minutes, a.rate, a.lifetime, a.reload_every, a.restart_every, a.failover_every, a.window,
                   a.warmup, a.lead_warmup, a.max_rss_drift, a.max_p99_growth, a.nodes, lease, a.settle, a.out)


# ---- small pieces --------------------------------------------------------------------------------
def histogram_quantile(q: float, buckets: list[tuple[float, float]]) -> float | None:
    """Prometheus' histogram_quantile over cumulative (upper bound, count) pairs, +Inf last."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for upper, count in buckets:
        if count >= rank:
            if math.isinf(upper):
                return lower
            return lower + (upper - lower) * ((rank - below) / (count - below) if count > below else 0.0)
        lower, below = upper, count
    return lower


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def parse_metrics(text: str) -> tuple[dict[float, float], dict[str, float]]:
    """Attempt-duration buckets (summed over result/profile) and kubeberth_reloads_total by result."""
    buckets: dict[float, float] = {}
    reloads: dict[str, float] = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", float(m.group(3))
        if name == ATTEMPT:
            le = re.search(r'le="([^"]+)"', labels)
            if le:
                bound = math.inf if le.group(1) == "+Inf" else float(le.group(1))
                buckets[bound] = buckets.get(bound, 0.0) + value
        elif name == RESULTS:
            result = re.search(r'result="([^"]+)"', labels)
            if result:
                reloads["attempts:" + result.group(1)] = reloads.get("attempts:" + result.group(1), 0.0) + value
        elif name == "kubeberth_reloads_total":
            result = re.search(r'result="([^"]+)"', labels)
            if result:
                reloads[result.group(1)] = reloads.get(result.group(1), 0.0) + value
    return buckets, reloads


def rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def http_get(url: str, timeout: float = 5.0) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.read()
    except (urllib.error.URLError, OSError, ValueError):
        return None


class Watch(PodWatch):
    """PodWatch (every node a pod is seen with, when first seen bound) that watches for minutes from
    the last resourceVersion instead of relisting every 2 s; any error relists."""

    def __init__(self, cp: LocalControlPlane, ns: str) -> None:
        super().__init__(cp, ns)
        self.relists = 0

    def run(self) -> None:
        path = f"/api/v1/namespaces/{self.ns}/pods"
        rv: str | None = None
        while not self._halt.is_set():
            try:
                if rv is None:
                    status, data = self.cp.request("GET", path, timeout=10)
                    if status != 200:
                        raise OSError(f"list: {status}")
                    self.relists += 1
                    for pod in data["items"]:
                        self._see(pod)
                    rv = data["metadata"]["resourceVersion"]
                url = f"{self.cp.server}{path}?watch=1&resourceVersion={rv}&timeoutSeconds=10&allowWatchBookmarks=true"
                req = urllib.request.Request(url)
                req.add_header("Authorization", f"Bearer {self.cp.admin_token}")
                with urllib.request.urlopen(req, timeout=20, context=self.cp._ssl) as resp:
                    for line in resp:
                        event = json.loads(line)
                        kind = event.get("type")
                        if kind == "ERROR":
                            rv = None
                            break
                        rv = event["object"]["metadata"]["resourceVersion"]
                        if kind in ("ADDED", "MODIFIED", "DELETED"):
                            self._see(event["object"])
                        if self._halt.is_set():
                            return
            except (OSError, ValueError, KeyError):
                rv = None
                self._halt.wait(0.2)

    def bound_at(self) -> dict[str, float]:
        with self._lock:
            return {pod.split("/", 1)[1]: at for pod, (_node, at) in self.first_bound.items()}


# ---- replicas --------------------------------------------------------------------------------------
@dataclass
class Replica:
    kb: Kubeberth
    started: float  # seconds since the soak's start
    killed: float | None = None
    rss: list[tuple[float, int]] = field(default_factory=list)  # (soak seconds, KiB)
    led_from: float | None = None  # soak seconds when it was first seen holding the Lease
    last_buckets: dict[float, float] = field(default_factory=dict)
    reloads: dict[str, float] = field(default_factory=dict)
    plugin_version: int = -1

    @property
    def name(self) -> str:
        return self.kb.name

    @property
    def alive(self) -> bool:
        return self.kb.proc.poll() is None


class Soak:
    def __init__(self, opts: Options) -> None:
        self.o = opts
        self.broken: list[str] = []
        self.events: list[dict[str, Any]] = []  # faults and reloads, with soak seconds
        self.replicas: list[Replica] = []
        self.created: dict[str, float] = {}  # pod -> monotonic create time
        self.deleted: set[str] = set()
        self.create_failures = 0
        self.window_buckets: dict[int, dict[float, float]] = {}
        self.plugin_written = 0
        self.pending_reloads: list[tuple[int, float]] = []  # (version, monotonic write time)
        self.reload_apply_seconds: list[float] = []
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self.t0 = 0.0
        self.overcommit_checks = 0
        self.behind_seconds = 0.0  # creation time skipped rather than made up in a burst
        self.peak_pods = 0

    # -- time --
    def now(self) -> float:
        return time.monotonic() - self.t0

    def log(self, text: str) -> None:
        sys.stderr.write(f"[soak {self.now():7.1f}s] {text}\n")
        sys.stderr.flush()

    def event(self, kind: str, **info: Any) -> None:
        with self._lock:
            self.events.append({"t": round(self.now(), 1), "kind": kind, **info})
        self.log(f"{kind} {info}")

    # -- setup --
    def start_replica(self) -> Replica:
        index = len(self.replicas)
        config = write_config(self.o.out / f"config-{index}.yaml", leader_elect=True, lease=self.o.lease,
                              plugins=(PLUGIN,))
        kb = Kubeberth(self.cp, self.kubeconfig, config, True, f"kubeberth-{index}", plugins_dir=self.plugins)
        replica = Replica(kb, self.now())
        with self._lock:
            self.replicas.append(replica)
        kb.wait_ready(120)
        return replica

    def live(self) -> list[Replica]:
        with self._lock:
            return [r for r in self.replicas if r.killed is None]

    def write_plugin(self, version: int) -> None:
        path = self.plugins / "soak_score.py"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(SCORE_PLUGIN.format(version=version, step=7 + 2 * (version % 13)))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        self.plugin_written = version

    # -- background loops --
    def creator(self) -> None:
        i = 0
        start = time.monotonic()
        while not self._halt.is_set():
            delay = start + i / self.o.rate - time.monotonic()
            if delay > 0:
                self._halt.wait(delay)
                continue
            if delay < -1.0:  # fell behind (an outage, a slow API server): go on at the rate, no catch-up burst
                start -= delay
                self.behind_seconds -= delay
            name = f"s-{i:06d}"
            give_up = time.monotonic() + 120
            while not self._halt.is_set():
                try:
                    status, data = self.cp.request("POST", f"/api/v1/namespaces/{NS}/pods", pod_body(name), timeout=5)
                except OSError:
                    status, data = 0, None
                if status in (200, 201, 409):
                    self.created[name] = time.monotonic()
                    break
                if (400 <= status < 500 and status not in (429, 401, 403)) or time.monotonic() > give_up:
                    self.create_failures += 1
                    self.broken.append(f"creating pod {name}: {status} {str(data)[:200]}")
                    break
                self._halt.wait(0.2)
            i += 1

    def deleter(self, shard: int = 0, shards: int = 1) -> None:
        """Deletes the pods of its shard once bound for --lifetime seconds. Several run: one DELETE at
        a time falls behind the creates on a loaded API server, and the nodes would fill up."""
        while not self._halt.wait(0.5):
            cutoff = time.monotonic() - self.o.lifetime
            due = [n for n, at in self.watch.bound_at().items()
                   if at < cutoff and n not in self.deleted and int(n[2:]) % shards == shard]
            for name in due:
                if self._halt.is_set():
                    return
                try:
                    status, _ = self.cp.request("DELETE", f"/api/v1/namespaces/{NS}/pods/{name}",
                                                {"gracePeriodSeconds": 0}, timeout=5)
                except OSError:
                    break  # API server down: try again later
                if status in (200, 404):
                    self.deleted.add(name)
                else:
                    break

    def window_of(self, t: float) -> int:
        return int(t // self.o.window)

    def sampler(self) -> None:
        tick = 0
        while not self._halt.wait(5.0):
            tick += 1
            t = self.now()
            leader = self.leader()
            if leader is not None and leader.led_from is None:
                leader.led_from = t
            for r in self.live():
                if r.alive:
                    kib = rss_kib(r.kb.proc.pid)
                    if kib:
                        r.rss.append((t, kib))
                if tick % 2 == 0 and r.alive:
                    self.scrape(r, t)
            self.check_reloads()
            if tick % 6 == 0:
                self.check_overcommit()

    def scrape(self, r: Replica, t: float) -> None:
        body = http_get(f"http://127.0.0.1:{r.kb.port}/metrics")
        if body is None:
            return
        buckets, reloads = parse_metrics(body.decode("utf-8", "replace"))
        r.reloads = reloads
        if buckets.get(math.inf, 0.0) < r.last_buckets.get(math.inf, 0.0):
            r.last_buckets = {}  # the histogram was reset: everything in it is new
        delta = {le: count - r.last_buckets.get(le, 0.0) for le, count in buckets.items()}
        r.last_buckets = buckets
        with self._lock:
            acc = self.window_buckets.setdefault(self.window_of(t), {})
            for le, d in delta.items():
                acc[le] = acc.get(le, 0.0) + max(0.0, d)
        gen = http_get(f"http://127.0.0.1:{r.kb.port}/debug/generation")
        if gen is not None:
            try:
                status = json.loads(gen)
                for plugin in status.get("plugins") or []:
                    if plugin.get("name") == PLUGIN and str(plugin.get("version", "")).isdigit():
                        r.plugin_version = int(plugin["version"])
            except ValueError:
                pass

    def check_reloads(self) -> None:
        running = [r for r in self.live() if r.alive and r.kb.probe("/readyz") == 200]
        now = time.monotonic()
        with self._lock:
            still = []
            for version, at in self.pending_reloads:
                if running and all(r.plugin_version >= version for r in running):
                    self.reload_apply_seconds.append(now - at)
                elif now - at > 60:
                    lag = {r.name: r.plugin_version for r in running if r.plugin_version < version}
                    self.broken.append(f"plugin version {version} not applied within 60 s by {lag}")
                else:
                    still.append((version, at))
            self.pending_reloads = still

    def check_overcommit(self) -> None:
        try:
            status, pods = self.cp.request("GET", f"/api/v1/namespaces/{NS}/pods", timeout=10)
            nstatus, nodes = self.cp.request("GET", "/api/v1/nodes", timeout=10)
        except OSError:
            return
        if status == 200 and nstatus == 200:
            self.overcommit_checks += 1
            self.peak_pods = max(self.peak_pods, len(pods["items"]))
            for line in overcommitted(nodes["items"], pods["items"]):
                self.broken.append(f"t={self.now():.0f}s {line}")

    # -- faults --
    def restart_apiserver(self) -> None:
        t = time.monotonic()
        self.cp.stop_apiserver(grace_period=0)  # SIGKILL
        time.sleep(1.0)
        self.cp.start_apiserver()  # same port, same etcd
        self.event("apiserver_restart", down_seconds=round(time.monotonic() - t, 1))

    def holder(self) -> str:
        try:
            status, data = self.cp.request(
                "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeberth", timeout=5)
        except OSError:
            return ""
        return (data.get("spec") or {}).get("holderIdentity") or "" if status == 200 else ""

    def leader(self) -> Replica | None:
        name = self.holder()
        return next((r for r in self.live() if f"_{r.kb.proc.pid}_" in name), None)

    def failover(self) -> None:
        leader = wait_for(self.leader, 60, "a leader")
        leader.kb.kill()  # SIGKILL: the Lease stays held until it expires
        killed = time.monotonic()
        leader.killed = self.now()
        leader.kb.log.close()
        new = wait_for(lambda: (r := self.leader()) is not None and r is not leader and r, 90, "a new leader",
                       interval=0.1)
        takeover = time.monotonic() - killed
        replacement = self.start_replica()
        self.event("failover", killed=leader.name, new_leader=new.name, takeover_seconds=round(takeover, 1),
                   standby=replacement.name)

    def reload(self) -> None:
        version = self.plugin_written + 1
        self.write_plugin(version)
        with self._lock:
            self.pending_reloads.append((version, time.monotonic()))
        self.event("reload", version=version)

    # -- the run --
    def run(self) -> int:
        o = self.o
        if o.out.exists():
            shutil.rmtree(o.out)
        o.out.mkdir(parents=True)
        self.plugins = o.out / "plugins"
        self.plugins.mkdir(mode=0o755)
        lifetime = o.minutes * 60 + o.settle + 900
        with LocalControlPlane(workdir=o.out / "cluster", max_lifetime=lifetime) as cp:
            self.cp = cp
            self.api = Api(cp)
            cp.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
            self.kubeconfig = cp.kubeconfig_for_service_account(
                "kube-system", "kubeberth", expiration_seconds=int(lifetime) + 3600)
            self.api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                         "metadata": {"name": NS}})
            self.node_names = [f"soak-{i}" for i in range(o.nodes)]
            for name in self.node_names:
                self.api.create_node(name, "8", "16Gi", pods="110")
            self.write_plugin(0)
            self.t0 = time.monotonic()
            try:
                for _ in range(2):
                    self.start_replica()
                return self.churn()
            finally:
                self._halt.set()
                for r in self.live():
                    r.kb.stop()

    def churn(self) -> int:
        o = self.o
        self.watch = Watch(self.cp, NS)
        self.watch.start()
        threads = [threading.Thread(target=self.creator, name="soak-creator", daemon=True),
                   *(threading.Thread(target=self.deleter, args=(k, DELETERS), name=f"soak-deleter-{k}", daemon=True)
                     for k in range(DELETERS)),
                   threading.Thread(target=self.sampler, name="soak-sampler", daemon=True)]
        for th in threads:
            th.start()
        churn_start = self.now()
        end = churn_start + o.minutes * 60
        schedule: dict[str, tuple[float, Callable[[], None]]] = {}
        for kind, every, action in (("reload", o.reload_every, self.reload),
                                    ("restart", o.restart_every, self.restart_apiserver),
                                    ("failover", o.failover_every, self.failover)):
            if every > 0:
                schedule[kind] = (churn_start + every, action)
        self.log(f"churn: {o.rate}/s for {o.minutes} min; replicas {[r.name for r in self.replicas]}")
        try:
            while self.now() < end:
                for kind, (due, action) in sorted(schedule.items(), key=lambda kv: kv[1][0]):
                    if self.now() >= due and due < end:
                        try:
                            action()
                        except (AssertionError, RuntimeError, OSError) as exc:  # a promise broken, not the soak
                            self.broken.append(f"t={self.now():.0f}s {kind}: {exc}"[:500])
                            self.log(f"{kind} failed: {exc}")
                        every = {"reload": o.reload_every, "restart": o.restart_every,
                                 "failover": o.failover_every}[kind]
                        schedule[kind] = (due + every, action)
                for r in self.live():
                    if not r.alive:
                        r.killed = self.now()
                        self.broken.append(f"{r.name} exited on its own with code {r.kb.proc.returncode}")
                        try:
                            self.start_replica()
                        except AssertionError as exc:
                            self.broken.append(f"restarting {r.name}: {exc}"[:500])
                time.sleep(0.5)
        finally:
            self._halt.set()
            for th in threads[:-1]:
                th.join(30)
        self.log("churn over; settling")
        self.settle()
        self._halt.set()
        threads[-1].join(30)
        return self.finish()

    def settle(self) -> None:
        """Every pod that exists is bound, within --settle seconds; then stop the sampler."""
        def all_bound() -> bool:
            try:
                return not unbound(self.api.pods(NS), PROFILE)
            except (AssertionError, OSError):
                return False
        try:
            wait_for(all_bound, self.o.settle, "every remaining pod bound", interval=1.0)
        except AssertionError as exc:
            self.broken.append(str(exc))
        time.sleep(3.0)  # the watch catches up
        self.check_overcommit()

    # -- the report --
    def finish(self) -> int:
        o = self.o
        raw = {"t0": self.t0, "created": self.created, "bound": self.watch.bound_at(), "events": self.events,
               "windows": {str(k): {str(le): n for le, n in v.items()} for k, v in self.window_buckets.items()},
               "rss": {r.name: {"started": r.started, "killed": r.killed, "samples": r.rss} for r in self.replicas}}
        (o.out / "raw.json").write_text(json.dumps(raw))
        pods = self.api.pods(NS)
        self.broken += unbound(pods, PROFILE)
        self.watch.stop()
        bound = self.watch.bound_at()
        lost = sorted(set(self.created) - set(bound))
        self.broken += [f"pod {NS}/{n} never seen bound" for n in lost[:50]]
        self.broken += moved(self.watch.history)
        bind_lines = [p for r in self.replicas for p in r.kb.bound_pods() if p.startswith(f"{NS}/")]
        self.broken += bound_more_than_once(bind_lines)
        existing = {f"{NS}/{p['metadata']['name']}" for p in pods}
        for r in self.live():
            if r.alive:
                held = r.kb.held_pods(30)
                self.broken += [f"{r.name}: {x}" for x in queued_but_gone((k for v in held.values() for k in v), existing)]
                leftover = {where: keys for where, keys in held.items() if keys}
                if leftover:
                    self.broken.append(f"{r.name} still holds {leftover} after every pod was bound")
        for r in self.replicas:
            if "Traceback" in r.kb.log_text():
                self.broken.append(f"{r.name}: traceback in its log")
        self.check_reloads()
        with self._lock:
            for version, _at in self.pending_reloads:
                self.broken.append(f"plugin version {version} never applied by every replica")

        # per window: pods, attempt p99, bind p99, RSS
        windows = []
        n_windows = max(1, math.ceil((self.now()) / o.window))
        latency: dict[int, list[float]] = {}
        created_w: dict[int, int] = {}
        for name, at in self.created.items():
            w = self.window_of(at - self.t0)
            created_w[w] = created_w.get(w, 0) + 1
            if name in bound:
                latency.setdefault(w, []).append(bound[name] - at)
        bound_w: dict[int, int] = {}
        for at in bound.values():
            bound_w[self.window_of(at - self.t0)] = bound_w.get(self.window_of(at - self.t0), 0) + 1
        for w in range(n_windows):
            acc = self.window_buckets.get(w, {})
            cumulative = sorted(acc.items())
            p99 = histogram_quantile(0.99, cumulative)
            rss = {}
            for r in self.replicas:
                samples = [kib for t, kib in r.rss if w * o.window <= t < (w + 1) * o.window]
                if samples:
                    rss[r.name] = round(statistics.median(samples) / 1024, 1)
            faults = [e for e in self.events if w * o.window <= e["t"] < (w + 1) * o.window]
            windows.append({
                "window": w, "from_s": round(w * o.window), "to_s": round((w + 1) * o.window),
                "created": created_w.get(w, 0), "bound": bound_w.get(w, 0),
                "attempts": int(cumulative[-1][1]) if cumulative else 0,
                "attempt_p99_ms": None if p99 is None else round(p99 * 1000, 1),
                "bind_p50_ms": None if not latency.get(w) else round(statistics.median(latency[w]) * 1000, 1),
                "bind_p99_ms": None if not latency.get(w) else round((quantile(latency[w], 0.99) or 0) * 1000, 1),
                "rss_mib": rss,
                "reloads": sum(e["kind"] == "reload" for e in faults),
                "restarts": sum(e["kind"] == "apiserver_restart" for e in faults),
                "failovers": sum(e["kind"] == "failover" for e in faults),
            })

        drift = {f"{r.name}/{role}": d for r in self.replicas for role, d in rss_drift(r, o).items()}
        if o.max_rss_drift > 0:
            if not drift:
                self.broken.append("no replica lived a window past warm-up: RSS drift not measured")
            for name, d in drift.items():
                if abs(d["drift_pct"]) >= o.max_rss_drift:
                    self.broken.append(f"{name}: RSS drift {d['drift_pct']}% >= {o.max_rss_drift}%")

        # "Stable": the attempt p99 of the last quiet window (plugin reloads only: no API server restart,
        # no failover, which stall binding by design, in it or the one before) against the first quiet
        # one after warm-up.
        # The window after a fault is not quiet either: a fault is logged when it is over, and the attempts
        # that waited it out are scraped up to 10 s later.
        faulted = {w["window"] + d for w in windows if w["restarts"] or w["failovers"] for d in (0, 1)}
        quiet = [w for w in windows if w["from_s"] >= o.warmup and w["attempt_p99_ms"] is not None
                 and w["window"] not in faulted and w["created"] >= o.rate * o.window / 2]
        p99s = [w["attempt_p99_ms"] for w in windows if w["attempt_p99_ms"] is not None]
        growth = None
        if len(quiet) >= 2:
            growth = round(quiet[-1]["attempt_p99_ms"] / max(quiet[0]["attempt_p99_ms"], 0.001), 2)
            if o.max_p99_growth > 0 and growth > o.max_p99_growth:
                self.broken.append(f"attempt p99 grew {growth}x from the first quiet window after warm-up "
                                   f"({quiet[0]['from_s']}s) to the last ({quiet[-1]['from_s']}s)")
        unschedulable = self.reload_results("attempts:").get("unschedulable", 0)
        if unschedulable:  # the nodes hold twice the occupancy: a pod that does not fit is a miscount
            self.broken.append(f"{unschedulable:g} unschedulable attempts (peak {self.peak_pods} pods, "
                               f"room for {o.nodes * 80}): the churn fell behind or a pod was counted twice")
        reload_results = self.reload_results()
        for result, n in reload_results.items():
            if result not in ("success", "unchanged") and n:
                self.broken.append(f"{n:g} plugin reloads ended {result}")
        summary = {
            "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(o).items()},
            "seconds": round(self.now()),
            "pods": {"created": len(self.created), "deleted": len(self.deleted), "bound": len(bound),
                     "lost": len(lost), "remaining": len(pods), "create_failures": self.create_failures},
            "double_bound_or_moved": len(moved(self.watch.history)) + len(bound_more_than_once(bind_lines)),
            "overcommit_checks": self.overcommit_checks,
            "peak_pods": self.peak_pods,
            "creator_behind_seconds": round(self.behind_seconds, 1),
            "attempts_by_result": self.reload_results("attempts:"),
            "reloads_written": self.plugin_written,
            "reload_apply_seconds_max": round(max(self.reload_apply_seconds), 2) if self.reload_apply_seconds else None,
            "reloads_by_result": reload_results,
            "apiserver_restarts": sum(e["kind"] == "apiserver_restart" for e in self.events),
            "failovers": [e for e in self.events if e["kind"] == "failover"],
            "watch_relists": self.watch.relists,
            "attempt_p99_ms_range": [min(p99s), max(p99s)] if p99s else None,
            "attempt_p99_ms_range_quiet": [min(w["attempt_p99_ms"] for w in quiet),
                                           max(w["attempt_p99_ms"] for w in quiet)] if quiet else None,
            "attempt_p99_growth": growth,
            "rss_drift": drift,
            "windows": windows,
            "broken": self.broken,
        }
        (o.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        print(json.dumps(summary, indent=2))
        sys.stderr.write(table(windows, [r.name for r in self.replicas]) + "\n")
        if self.broken:
            sys.stderr.write("BROKEN:\n" + "\n".join(f"  {b}" for b in self.broken[:100]) + "\n")
        return 1 if self.broken else 0

    def reload_results(self, prefix: str = "") -> dict[str, float]:
        """kubeberth_reloads_total by result (or, with prefix "attempts:", scheduler_schedule_attempts_total),
        summed over every replica process as last scraped."""
        total: dict[str, float] = {}
        for r in self.replicas:
            for result, n in r.reloads.items():
                if result.startswith("attempts:") == bool(prefix):
                    total[result.removeprefix(prefix)] = total.get(result.removeprefix(prefix), 0) + n
        return total


def rss_drift(r: Replica, o: Options) -> dict[str, dict[str, Any]]:
    """RSS drift of one process per role: the median of the last window against the first after the
    warm-up. A standby that takes over starts building what only a leader holds (queue, cycle state,
    nominations, decision records), so its leading life is measured on its own, from --lead-warmup
    after it first led; a leader that steps down keeps all of that, so later role changes do not
    split its life again. A span without a full first window and a distinct last one is left out."""
    if not r.rss:
        return {}
    end_t = r.rss[-1][0]
    led = r.led_from
    if led is None or led - r.started < o.window:  # one role from the start
        spans = [("leading" if led is not None else "standby", r.started + o.warmup, end_t)]
    else:
        spans = [("standby", r.started + o.warmup, led),
                 ("leading", max(led + o.lead_warmup, r.started + o.warmup), end_t)]
    out: dict[str, dict[str, Any]] = {}
    for role, start, stop in spans:
        first = [k for t, k in r.rss if start <= t < start + o.window]
        last = [k for t, k in r.rss if stop - o.window < t <= stop]
        if len(first) < 3 or stop - o.window < start + o.window:
            continue
        a, b = statistics.median(first), statistics.median(last)
        out[role] = {"from_s": round(start), "to_s": round(stop), "after_warmup_mib": round(a / 1024, 1),
                     "end_mib": round(b / 1024, 1), "drift_pct": round(100 * (b - a) / a, 2),
                     "killed_at_s": r.killed}
    return out


def table(windows: list[dict[str, Any]], names: list[str]) -> str:
    head = f"{'window':>11} {'created':>7} {'bound':>6} {'attempt p99':>11} {'bind p50':>8} {'bind p99':>8}  " \
           f"{'faults':<10} RSS MiB"
    rows = [head]
    for w in windows:
        faults = "".join(["R" * w["reloads"], "A" * w["restarts"], "F" * w["failovers"]]) or "-"
        rss = " ".join(f"{n.removeprefix('kubeberth-')}:{v}" for n, v in w["rss_mib"].items())
        rows.append(f"{w['from_s']:>5}-{w['to_s']:<5} {w['created']:>7} {w['bound']:>6} "
                    f"{fmt(w['attempt_p99_ms']):>11} {fmt(w['bind_p50_ms']):>8} {fmt(w['bind_p99_ms']):>8}  "
                    f"{faults:<10} {rss}")
    rows.append("faults: R plugin reload, A API server restart, F leader failover; times in ms")
    return "\n".join(rows)


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))  # unwind: stop the replicas and control plane
    return Soak(opts).run()


if __name__ == "__main__":
    sys.exit(main())

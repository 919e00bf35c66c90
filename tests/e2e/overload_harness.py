"""Overload: a burst of pods against a real API server that answers every request late.

`kubeberth run` (leader election on, the default lease timings, the least-privilege service
account) talks to kube-apiserver through a LatencyProxy (each request reaches the server `delay`
later). The pods are created in one burst by parallel keep-alive clients straight against the API
server. Most fit the nodes there are; a share (`late_share`) selects a node pool that does not exist
yet, so each of them is unschedulable and must get a FailedScheduling event; once every one of them
has been reported Unschedulable (its PodScheduled condition), the pool's nodes are added and they
must all bind.

While it runs, every `interval` seconds: kubeberth's RSS (/proc), its /metrics (pending pods per
queue, the event recorder's backlog and counters), the Lease's renewTime read directly from the
API server (not through the proxy). Afterwards the promises are checked from the API: every pod
bound, none bound twice (kubeberth's bind log) or moved (a watch of the namespace), every late pod
with its FailedScheduling event, no renewal gap reaching renewDeadline, no lost leadership, no
traceback.

Used by scripts/overload.py (50,000 pods by default) and tests/e2e/test_overload_e2e.py (CI-sized).
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import http.client
import json
import math
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_TESTS = Path(__file__).resolve().parents[1]
for _path in (_TESTS, _TESTS / "e2e"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import yaml  # noqa: E402
from cluster import LocalControlPlane, wait_for  # noqa: E402
from fault_promises import bound_more_than_once, moved  # noqa: E402
from kubeberth_harness import PROFILE, Kubeberth  # noqa: E402
from latency_proxy import LatencyProxy  # noqa: E402

LATE_LABEL = "overload.kubeberth.io/pool"
LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeberth"
RENEW_DEADLINE = 10.0  # the default leaderElection timings: 15 s / 10 s / 2 s
RETRY_PERIOD = 2.0


@dataclass
class Settings:
    pods: int = 50_000
    delay: float = 0.05  # seconds added to every request kubeberth makes
    late_share: float = 0.02  # pods that cannot fit until their node pool is added
    pods_per_node: int = 110
    spare_nodes: float = 0.05  # nodes beyond what the pods need, as a share
    creators: int = 16  # parallel keep-alive clients creating the pods
    qps: float | None = None  # kubeberth's clientConnection qps (burst = 2 x qps); None: the default 50/100
    interval: float = 1.0  # sampling period
    timeout: float = 3600.0  # for every pod to be bound
    settle: float = 60.0  # for the event backlog to drain afterwards
    cleanup: bool = True  # delete the pods, namespace and nodes afterwards (a throwaway control plane need not)


@dataclass
class Samples:
    t: list[float] = field(default_factory=list)  # seconds since the burst started
    rss_mb: list[float] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    backoff: list[int] = field(default_factory=list)
    unschedulable: list[int] = field(default_factory=list)
    event_backlog: list[int] = field(default_factory=list)
    bound: list[int] = field(default_factory=list)


# ---- API clients ------------------------------------------------------------------------------
class Client:
    """One keep-alive HTTPS connection to the API server, admin token (one per thread)."""

    def __init__(self, cp: LocalControlPlane) -> None:
        url = urllib.parse.urlparse(cp.server)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 443
        self.ctx = ssl.create_default_context(cafile=cp.ca_file)
        self.token = cp.admin_token
        self.conn = self._connect()

    def _connect(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)

    def call(self, method: str, path: str, body: Any = None, content_type: str = "application/json",
             ok: tuple[int, ...] = (200, 201)) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(5):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = self._connect()
                if attempt == 4:
                    raise
                continue
            if resp.status == 429 or resp.status >= 500:  # the API server shedding load: retry
                time.sleep(0.2 * (attempt + 1))
                continue
            if resp.status not in ok and not (method == "POST" and resp.status == 409 and attempt):
                raise RuntimeError(f"{method} {path}: {resp.status} {raw[:300]!r}")
            return json.loads(raw) if raw else None
        raise RuntimeError(f"{method} {path}: still {resp.status} after 5 tries")

    def list_all(self, path: str, page: int = 2000) -> list[dict[str, Any]]:
        """Every item of a collection, `page` at a time (a 50,000-item list in one answer is ~100 MB)."""
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            sep = "&" if "?" in path else "?"
            cont = f"&continue={urllib.parse.quote(token)}" if token else ""
            data = self.call("GET", f"{path}{sep}limit={page}{cont}")
            items += data["items"]
            token = data["metadata"].get("continue") or ""
            if not token:
                return items


class PerThread(threading.local):
    client: Client | None = None


def node_body(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, **labels}}}


def node_status(pods: int) -> dict[str, Any]:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res = {"cpu": str(math.ceil(pods * 0.1) + 1), "memory": f"{pods * 64 + 1024}Mi", "pods": str(pods)}
    return {"status": {"capacity": res, "allocatable": res, "conditions": [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "overload",
         "lastHeartbeatTime": now, "lastTransitionTime": now}]}}


def pod_body(name: str, late: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulerName": PROFILE, "containers": [
        {"name": "c", "image": "registry.k8s.io/pause:3.10",
         "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}
    if late:
        spec["nodeSelector"] = {LATE_LABEL: "late"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"overload": "1"}}, "spec": spec}


def parse_micro_time(text: str) -> float:
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC).timestamp()


# ---- the watch ---------------------------------------------------------------------------------
class Watch(threading.Thread):
    """Every nodeName each pod of the namespace is seen with, when it was first bound, and whether
    it was ever reported Unschedulable (PodScheduled False). Resumes from the last resourceVersion
    (bookmarks keep it fresh); relists, paged, only when that is too old."""

    def __init__(self, cp: LocalControlPlane, ns: str) -> None:
        super().__init__(name=f"overload-watch-{ns}", daemon=True)
        self.cp, self.ns = cp, ns
        self.history: dict[str, list[str]] = {}
        self.bound_at: dict[str, float] = {}
        self.unschedulable: set[str] = set()
        self.relists = 0
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._conn: http.client.HTTPSConnection | None = None

    def _see(self, pod: dict[str, Any]) -> None:
        name = pod["metadata"]["name"]
        node = (pod.get("spec") or {}).get("nodeName") or ""
        with self._lock:
            seen = self.history.setdefault(name, [])
            if not seen or seen[-1] != node:
                seen.append(node)
            if node and name not in self.bound_at:
                self.bound_at[name] = time.monotonic()
            for cond in (pod.get("status") or {}).get("conditions") or ():
                if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
                    self.unschedulable.add(name)

    def bound_count(self) -> int:
        return len(self.bound_at)

    def run(self) -> None:
        client = Client(self.cp)
        path = f"/api/v1/namespaces/{self.ns}/pods"
        rv = ""
        while not self._halt.is_set():
            try:
                if not rv:
                    data = client.call("GET", f"{path}?limit=1")
                    rv = data["metadata"]["resourceVersion"]
                    if self.relists or data["items"]:
                        for pod in client.list_all(path):
                            self._see(pod)
                    self.relists += 1
                conn = http.client.HTTPSConnection(client.host, client.port, context=client.ctx, timeout=30)
                self._conn = conn
                conn.request("GET", f"{path}?watch=1&allowWatchBookmarks=true&resourceVersion={rv}"
                                    "&timeoutSeconds=60", headers={"Authorization": f"Bearer {client.token}"})
                resp = conn.getresponse()
                if resp.status != 200:
                    raise OSError(f"watch: {resp.status}")
                while not self._halt.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    event = json.loads(line)
                    kind, obj = event.get("type"), event.get("object") or {}
                    if kind == "ERROR":  # 410 Gone: too old, list again
                        rv = ""
                        break
                    rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                    if kind in ("ADDED", "MODIFIED"):
                        self._see(obj)
                conn.close()
            except (OSError, ValueError, KeyError, http.client.HTTPException, RuntimeError):
                self._halt.wait(0.5)

    def stop(self) -> None:
        self._halt.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(2)
        self.join(30)


# ---- sampling ----------------------------------------------------------------------------------
def rss_mb(pid: int, field_name: str = "VmRSS:") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def scrape(port: int) -> dict[str, float]:
    """The samples of kubeberth's /metrics this run reads (name{labels} -> value)."""
    wanted = ("scheduler_pending_pods{", "kubeberth_event_queue_depth", "kubeberth_api_writes_total{",
              "process_resident_memory_bytes", "leader_election_master_status{")
    out: dict[str, float] = {}
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        for raw in resp.read().decode().splitlines():
            if raw.startswith(wanted):
                name, _, value = raw.rpartition(" ")
                out[name] = float(value)
    return out


class Sampler(threading.Thread):
    """RSS, queue depth and event backlog every `interval` seconds; the Lease every 0.5 s."""

    def __init__(self, cp: LocalControlPlane, kb: Kubeberth, watch: Watch, interval: float,
                 progress: Callable[[str], None] = lambda line: None) -> None:
        super().__init__(name="overload-sampler", daemon=True)
        self.cp, self.kb, self.watch, self.interval, self.progress = cp, kb, watch, interval, progress
        self.samples = Samples()
        self.t0 = time.monotonic()
        self.renewals: list[float] = []  # distinct renewTimes seen (wall clock of kubeberth's host)
        self.holders: set[str] = set()
        self.transitions: set[int] = set()
        self.scrape_failures = 0
        self.last_metrics: dict[str, float] = {}
        self._halt = threading.Event()

    def run(self) -> None:
        # The Lease on a thread of its own, every 0.5 s: a slow /metrics scrape must not make two
        # renewals look like one long gap (a missed sample can only lengthen the gap seen).
        lease = threading.Thread(target=self._lease_loop, name="overload-lease-sampler", daemon=True)
        lease.start()
        tick = 0
        while not self._halt.is_set():
            self._sample()
            if tick % 15 == 14 and self.samples.t:
                s = self.samples
                self.progress(f"t={s.t[-1]:.0f}s bound={s.bound[-1]} active={s.active[-1]} "
                              f"unschedulable={s.unschedulable[-1]} backoff={s.backoff[-1]} "
                              f"event_backlog={s.event_backlog[-1]} rss={s.rss_mb[-1]}MB")
            tick += 1
            self._halt.wait(self.interval)
        lease.join(10)

    def _lease_loop(self) -> None:
        while not self._halt.is_set():
            with contextlib.suppress(OSError, ValueError):
                self._lease()
            self._halt.wait(0.5)

    def _lease(self) -> None:
        status, data = self.cp.request("GET", LEASE_PATH, timeout=5)
        if status != 200:
            return
        spec = data.get("spec") or {}
        self.holders.add(spec.get("holderIdentity") or "")
        self.transitions.add(int(spec.get("leaseTransitions") or 0))
        renew = spec.get("renewTime")
        if renew:
            at = parse_micro_time(renew)
            if not self.renewals or at > self.renewals[-1]:
                self.renewals.append(at)

    def _sample(self) -> None:
        s = self.samples
        try:
            m = scrape(self.kb.port)
        except (OSError, ValueError):
            self.scrape_failures += 1
            return
        self.last_metrics = m
        s.t.append(round(time.monotonic() - self.t0, 2))
        s.rss_mb.append(round(rss_mb(self.kb.proc.pid), 1))
        s.active.append(int(m.get('scheduler_pending_pods{queue="active"}', 0)))
        s.backoff.append(int(m.get('scheduler_pending_pods{queue="backoff"}', 0)))
        s.unschedulable.append(int(m.get('scheduler_pending_pods{queue="unschedulable"}', 0)))
        s.event_backlog.append(int(m.get("kubeberth_event_queue_depth", 0)))
        s.bound.append(self.watch.bound_count())

    def stop(self) -> None:
        self._halt.set()
        self.join(30)

    def renewal_gaps(self) -> list[float]:
        r = self.renewals
        return [b - a for a, b in zip(r, r[1:], strict=False)]


# ---- the run -----------------------------------------------------------------------------------
def write_config(path: Path, qps: float | None) -> Path:
    """The defaults but for leader election on (default timings) and, if given, qps."""
    cfg: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": True, "resourceName": "kubeberth", "resourceNamespace": "kube-system"},
        "profiles": [{"schedulerName": PROFILE}],
    }
    if qps is not None:
        cfg["clientConnection"] = {"qps": qps, "burst": int(2 * qps)}
    path.write_text(yaml.safe_dump(cfg))
    return path


def names(settings: Settings) -> tuple[list[str], set[str]]:
    """Pod names in creation order, and the late ones (spread evenly through the burst)."""
    every = max(1, round(1 / settings.late_share)) if settings.late_share > 0 else 0
    all_names = [f"p-{i:06d}" for i in range(settings.pods)]
    late = {n for i, n in enumerate(all_names) if every and i % every == every - 1}
    return all_names, late


def run(cp: LocalControlPlane, sa_kubeconfig: str, workdir: Path, settings: Settings,
        progress: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """One overload run; returns the figures and `broken`, the promises not kept (empty: all kept).
    Deletes what it created (pods, namespace, nodes) and stops what it started."""
    tag = uuid.uuid4().hex[:5]
    ns = f"overload-{tag}"
    pool = PerThread()

    def client() -> Client:
        if pool.client is None:
            pool.client = Client(cp)
        return pool.client

    admin = Client(cp)
    pod_names, late = names(settings)
    regular = len(pod_names) - len(late)
    node_count = max(1, math.ceil(regular / settings.pods_per_node * (1 + settings.spare_nodes)))
    late_nodes = max(1, math.ceil(len(late) / settings.pods_per_node)) if late else 0
    node_names = [f"ov-{tag}-{i:05d}" for i in range(node_count)]
    late_names = [f"ov-{tag}-late-{i:03d}" for i in range(late_nodes)]
    result: dict[str, Any] = {"settings": asdict(settings), "nodes": node_count, "late_nodes": late_nodes,
                              "late_pods": len(late), "machine": {"cpus": os.cpu_count(),
                                                                  "load_before": os.getloadavg()}}
    broken: list[str] = []

    def create_node(name: str, labels: dict[str, str]) -> None:
        c = client()
        c.call("POST", "/api/v1/nodes", node_body(name, labels), ok=(200, 201, 409))
        c.call("PATCH", f"/api/v1/nodes/{name}/status", node_status(settings.pods_per_node),
               "application/strategic-merge-patch+json")

    proxy: LatencyProxy | None = None
    kb: Kubeberth | None = None
    watch: Watch | None = None
    sampler: Sampler | None = None
    executor = ThreadPoolExecutor(settings.creators, thread_name_prefix="overload-create")
    try:
        admin.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        t = time.monotonic()
        list(executor.map(lambda n: create_node(n, {}), node_names))
        progress(f"{node_count} nodes in {time.monotonic() - t:.1f}s")

        proxy = LatencyProxy(cp.apiserver_port, settings.delay)
        kubeconfig = workdir / f"overload-{tag}.kubeconfig"
        kubeconfig.write_text(Path(sa_kubeconfig).read_text().replace(
            f":{cp.apiserver_port}", f":{proxy.port}"))
        config = write_config(workdir / f"overload-{tag}.yaml", settings.qps)
        kb = Kubeberth(cp, str(kubeconfig), config, leader_elect=True, name=f"kubeberth-overload-{tag}")
        kb.wait_ready(120)
        wait_for(lambda: f"_{kb.proc.pid}_" in (admin.call("GET", LEASE_PATH, ok=(200, 404)) or {}).get(
            "spec", {}).get("holderIdentity", ""), 60, "kubeberth to lead")
        rss_idle = rss_mb(kb.proc.pid)

        watch = Watch(cp, ns)
        watch.start()
        sampler = Sampler(cp, kb, watch, settings.interval, progress)
        sampler.start()

        # ---- the burst
        start = time.monotonic()
        list(executor.map(lambda n: client().call("POST", f"/api/v1/namespaces/{ns}/pods", pod_body(n, n in late),
                                                  ok=(200, 201)), pod_names))
        created = time.monotonic() - start
        progress(f"{len(pod_names)} pods created in {created:.1f}s ({len(pod_names) / created:.0f}/s)")

        # ---- every late pod reported Unschedulable, then its node pool arrives
        deadline = start + settings.timeout

        while late - watch.unschedulable and time.monotonic() < deadline and kb.proc.poll() is None:
            time.sleep(0.5)
        late_reported = time.monotonic()
        list(executor.map(lambda n: create_node(n, {LATE_LABEL: "late"}), late_names))
        pool_added = time.monotonic()
        progress(f"late pool ({late_nodes} nodes) added at t={pool_added - start:.0f}s")
        while watch.bound_count() < len(pod_names) and time.monotonic() < deadline and kb.proc.poll() is None:
            time.sleep(0.5)
        all_bound = time.monotonic()
        progress(f"{watch.bound_count()} bound at t={all_bound - start:.0f}s")
        late_bound = [watch.bound_at[n] for n in late if n in watch.bound_at]

        # ---- the event backlog drains (FailedScheduling and Scheduled written or counted)
        settle_end = time.monotonic() + settings.settle
        while time.monotonic() < settle_end and kb.proc.poll() is None:
            m = sampler.last_metrics
            if m and m.get("kubeberth_event_queue_depth", 1) == 0:
                break
            time.sleep(1)
        time.sleep(2 * settings.interval)
        sampler.stop()
        events_drained = time.monotonic()

        # ---- the promises
        alive = kb.proc.poll() is None
        if not alive:
            broken.append(f"kubeberth exited with {kb.proc.returncode}")
        held: dict[str, list[str]] = {}
        if alive:
            held = kb.held_pods(60)
            leftover = {where: keys for where, keys in held.items() if keys}
            if leftover:
                broken.append(f"kubeberth still holds {sum(map(len, leftover.values()))} pods: "
                              f"{ {k: v[:5] for k, v in leftover.items()} }")
        final = scrape(kb.port) if alive else {}
        pods = admin.list_all(f"/api/v1/namespaces/{ns}/pods")
        unbound = [p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName")]
        if len(pods) != len(pod_names):
            broken.append(f"{len(pods)} pods exist, {len(pod_names)} were created")
        if unbound:
            broken.append(f"{len(unbound)} pods not bound, e.g. {unbound[:5]}")
        broken += moved(watch.history)[:20]
        hwm = rss_mb(kb.proc.pid, "VmHWM:") if alive else 0.0
        running_log = kb.log_text()  # before the shutdown, which steps down on purpose
        if kb.proc.poll() is None:
            kb.proc.send_signal(signal.SIGTERM)
            kb.proc.wait(60)
        kb.stop()
        log = kb.log_text()
        binds = [p for p in kb.bound_pods() if p.startswith(f"{ns}/")]
        broken += bound_more_than_once(binds)[:20]
        if len(set(binds)) != len(pod_names):
            broken.append(f"kubeberth logged {len(set(binds))} bound pods, {len(pod_names)} were created")
        stats_line = log.rsplit("kubeberth stopped: ", 1)[1].splitlines()[0] if "kubeberth stopped: " in log else "{}"
        stats = ast.literal_eval(stats_line)
        for bad in ("stopped leading", "could not renew", "Traceback"):
            if bad in running_log:
                broken.append(f"kubeberth's log has {bad!r}")

        events = admin.list_all(f"/apis/events.k8s.io/v1/namespaces/{ns}/events")
        failed: dict[str, int] = {}
        scheduled: dict[str, int] = {}
        for e in events:
            who = e["regarding"]["name"]
            count = (e.get("series") or {}).get("count") or 1
            if e["reason"] == "FailedScheduling":
                failed[who] = failed.get(who, 0) + count
            elif e["reason"] == "Scheduled":
                scheduled[who] = scheduled.get(who, 0) + 1
        unreported = sorted((late | watch.unschedulable) - set(failed))
        if unreported:
            broken.append(f"{len(unreported)} pods reported Unschedulable have no FailedScheduling event, "
                          f"e.g. {unreported[:5]}")
        twice = [n for n, c in scheduled.items() if c > 1]
        if twice:
            broken.append(f"{len(twice)} pods have more than one Scheduled event, e.g. {twice[:5]}")

        gaps = sampler.renewal_gaps()
        max_gap = max(gaps, default=math.inf)
        if max_gap >= RENEW_DEADLINE:
            broken.append(f"the Lease went {max_gap:.1f}s without a renewal (renewDeadline {RENEW_DEADLINE:g}s)")
        if len(sampler.holders - {""}) != 1 or len(sampler.transitions) != 1:
            broken.append(f"the Lease changed hands: holders {sampler.holders}, transitions {sampler.transitions}")

        s = sampler.samples
        writes = {k.split('"')[1]: int(v) for k, v in final.items() if k.startswith("kubeberth_api_writes_total{")}
        result.update({
            "namespace": ns,
            "created_seconds": round(created, 1),
            "create_rate_per_s": round(len(pod_names) / created, 1),
            "late_all_reported_unschedulable_s": round(late_reported - start, 1),
            "late_pool_added_s": round(pool_added - start, 1),
            "late_all_bound_after_pool_added_s": round(max(late_bound, default=pool_added) - pool_added, 1),
            "all_bound_s": round(all_bound - start, 1),
            "events_settled_s": round(events_drained - start, 1),
            "bind_rate_per_s": round(len(pod_names) / max(0.001, all_bound - start), 1),
            "rss_idle_mb": round(rss_idle, 1),
            "rss_peak_mb": round(max(s.rss_mb, default=0.0), 1),
            "rss_hwm_mb": round(hwm, 1),
            "rss_end_mb": s.rss_mb[-1] if s.rss_mb else None,
            "queue_active_peak": max(s.active, default=0),
            "queue_unschedulable_peak": max(s.unschedulable, default=0),
            "queue_backoff_peak": max(s.backoff, default=0),
            "event_backlog_peak": max(s.event_backlog, default=0),
            "writes_at_end": writes,
            "stop_stats": stats,
            "events_failed_scheduling": {"pods": len(failed), "occurrences": sum(failed.values()),
                                         "objects": sum(1 for e in events if e["reason"] == "FailedScheduling")},
            "events_scheduled": len(scheduled),
            "lease": {"renewals_seen": len(sampler.renewals), "max_gap_s": round(max_gap, 2),
                      "mean_gap_s": round(sum(gaps) / len(gaps), 2) if gaps else None,
                      "renew_deadline_s": RENEW_DEADLINE, "holders": len(sampler.holders - {""})},
            "proxy": {"connections": proxy.connections, "chunks_delayed": proxy.chunks_delayed},
            "watch_relists": watch.relists,
            "scrape_failures": sampler.scrape_failures,
            "load_after": os.getloadavg(),
            "samples": asdict(s),
            "broken": broken,
        })
        return result
    finally:
        if sampler is not None and sampler.is_alive():
            sampler.stop()
        if watch is not None:
            watch.stop()
        if kb is not None:
            kb.stop()
        if proxy is not None:
            proxy.close()
        executor.shutdown(wait=True, cancel_futures=True)
        if settings.cleanup:
            cleanup(cp, ns, node_names + late_names)


def cleanup(cp: LocalControlPlane, ns: str, node_names: list[str]) -> None:
    """Delete the namespace's pods (one deletecollection; may outlast the request, goes on
    server-side), the namespace and the nodes."""
    admin = Client(cp)
    clients = PerThread()

    def delete_node(name: str) -> None:
        if clients.client is None:
            clients.client = Client(cp)
        clients.client.call("DELETE", f"/api/v1/nodes/{name}", ok=(200, 404))

    # One try: a large collection outlasts the request (504) and its deletion goes on server-side.
    with contextlib.suppress(OSError):
        cp.request("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, timeout=60)
    admin.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(delete_node, node_names))

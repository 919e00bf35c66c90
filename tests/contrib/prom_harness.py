"""A real Prometheus on loopback scraping small node_exporter look-alikes whose load the test sets.

Each simulated node gets its own exporter on its own loopback address (127.0.0.<n>), so the
scrape target's `instance` label is "<InternalIP>:<port>" exactly as with node_exporter, and the
plugins map it to the node through its InternalIP. Counters integrate the set rates over real time,
so Prometheus' rate() sees the load the test asked for; `reset()` zeroes them (a counter reset).
"""

from __future__ import annotations

import math
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import requests
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import start_http_server

MEM_TOTAL = 32 * 2**30


@dataclass
class NodeLoad:
    cpu: float = 0.1  # share of each CPU busy
    memory: float = 0.2
    cpu_psi: float = 0.0
    memory_psi: float = 0.0
    io_psi: float = 0.0
    cpus: int = 2
    raw_memory_available: float | None = None  # garbage injection (NaN, negative)


@dataclass(eq=False)
class FakeNodeExporter:
    """node_cpu_seconds_total, node_memory_*, node_pressure_* for one node, from `load`."""

    ip: str
    load: NodeLoad = field(default_factory=NodeLoad)
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._last = time.monotonic()
        self._idle = [1000.0] * self.load.cpus
        self._busy = [1000.0] * self.load.cpus
        self._psi = {"cpu": 10.0, "memory": 10.0, "io": 10.0}
        self.registry = CollectorRegistry()
        self.registry.register(self)
        self.port = _free_port(self.ip)
        self.server, self.thread = start_http_server(self.port, addr=self.ip, registry=self.registry)

    def set(self, **values: Any) -> None:
        with self._lock:
            self._advance()
            for k, v in values.items():
                setattr(self.load, k, v)

    def reset(self) -> None:
        """Counters restart from zero, as after a node_exporter restart."""
        with self._lock:
            self._advance()
            self._idle = [0.0] * self.load.cpus
            self._busy = [0.0] * self.load.cpus
            self._psi = dict.fromkeys(self._psi, 0.0)

    def _advance(self) -> None:
        now = time.monotonic()
        dt, self._last = now - self._last, now
        for i in range(self.load.cpus):
            self._idle[i] += (1.0 - self.load.cpu) * dt
            self._busy[i] += self.load.cpu * dt
        self._psi["cpu"] += self.load.cpu_psi * dt
        self._psi["memory"] += self.load.memory_psi * dt
        self._psi["io"] += self.load.io_psi * dt

    def collect(self) -> Any:
        with self._lock:
            self._advance()
            cpu = CounterMetricFamily("node_cpu_seconds_total", "CPU seconds", labels=["cpu", "mode"])
            for i in range(self.load.cpus):
                cpu.add_metric([str(i), "idle"], self._idle[i])
                cpu.add_metric([str(i), "user"], self._busy[i])
            total = GaugeMetricFamily("node_memory_MemTotal_bytes", "total memory")
            total.add_metric([], MEM_TOTAL)
            avail = GaugeMetricFamily("node_memory_MemAvailable_bytes", "available memory")
            raw = self.load.raw_memory_available
            avail.add_metric([], raw if raw is not None else MEM_TOTAL * (1.0 - self.load.memory))
            out = [cpu, total, avail]
            for res in ("cpu", "memory", "io"):
                c = CounterMetricFamily(f"node_pressure_{res}_waiting_seconds_total", f"{res} stall")
                c.add_metric([], self._psi[res])
                out.append(c)
            return out

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class PrometheusServer:
    """Debian's prometheus on 127.0.0.1 with a temporary storage dir and a 1 s scrape interval."""

    def __init__(self, binary: str, workdir: Path, targets: list[str], duplicate: list[str] = (),
                 job: str = "node", labels: dict[str, str] | None = None) -> None:
        """`job` names the scrape job (the `job` label); `labels` are added to every scraped series."""
        self.binary = binary
        self.workdir = workdir
        self.port = _free_port("127.0.0.1")
        self.url = f"http://127.0.0.1:{self.port}"
        extra = "".join(f'\n          {k}: "{v}"' for k, v in (labels or {}).items())
        jobs = [f"""  - job_name: {job}
    scrape_interval: 1s
    static_configs:
      - targets: [{", ".join(f'"{t}"' for t in targets)}]""" + (f"\n        labels:{extra}" if extra else "")]
        if duplicate:  # a second job scraping the same exporters: duplicate series per node
            jobs.append(f"""  - job_name: node-again
    scrape_interval: 1s
    static_configs:
      - targets: [{", ".join(f'"{t}"' for t in duplicate)}]""")
        (workdir / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n" + "\n".join(jobs) + "\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> None:
        log = open(self.workdir / "prometheus.log", "wb")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(
            [self.binary, f"--config.file={self.workdir / 'prometheus.yml'}",
             f"--storage.tsdb.path={self.workdir / 'data'}", f"--web.listen-address=127.0.0.1:{self.port}",
             "--storage.tsdb.retention.time=1h", "--log.level=warn"],
            stdout=log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited: {(self.workdir / 'prometheus.log').read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/-/ready", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError("prometheus did not become ready")

    def query(self, promql: str) -> list[dict[str, Any]]:
        r = requests.get(f"{self.url}/api/v1/query", params={"query": promql}, timeout=5)
        r.raise_for_status()
        return r.json()["data"]["result"]

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)  # alive but answering nothing: a hung server

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def find_prometheus() -> str | None:
    for candidate in ("/usr/bin/prometheus", shutil.which("prometheus")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def provision_prometheus() -> str:
    """The provisioning script installs Debian's package if missing; returns the binary."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "provision-prometheus.sh"
    out = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"provision-prometheus.sh failed: {out.stderr[-2000:]}")
    return out.stdout.strip().splitlines()[-1]


def wait_until(predicate: Any, timeout: float, interval: float = 0.2, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if isinstance(value, np.ndarray) or bool(value):
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def isclose(a: float, b: float, tol: float) -> bool:
    return not math.isnan(a) and abs(a - b) <= tol

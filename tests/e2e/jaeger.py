"""A real Jaeger v2 on loopback for end-to-end tests of decision traces.

``LocalJaeger`` runs the `jaeger` binary (Jaeger v2 all-in-one: an OpenTelemetry Collector
distribution with in-memory storage) on 127.0.0.1 with free ports for OTLP/gRPC, OTLP/HTTP and the
query API, and reads traces back through Jaeger's HTTP query API (/api/traces), as the UI does.

The binary comes from ``$KUBEBERTH_JAEGER_BIN`` (the binary's path), else from the cache filled by
``scripts/provision-jaeger.sh``, which is run when the cache is empty. The process lives in its
own process group with a parent-death signal, and the control plane's watchdog kills that group
when the test process goes away or ``max_lifetime`` seconds have passed, so it never outlives
the test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from cluster import _WATCHDOG, LOOPBACK, REPO_ROOT, ControlPlaneError, ManagedProcess, free_port, wait_for

GO_MOD = REPO_ROOT / "tests" / "e2e" / "jaeger" / "go.mod"
PROVISION_SCRIPT = REPO_ROOT / "scripts" / "provision-jaeger.sh"

_CONFIG = """\
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: info
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: {host}:{health}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: {host}:{query}
    grpc:
      endpoint: {host}:{query_grpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: {host}:{otlp_grpc}
      http:
        endpoint: {host}:{otlp_http}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
"""


def pinned_version() -> str:
    for line in GO_MOD.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "github.com/jaegertracing/jaeger" and fields[1].startswith("v"):
            return fields[1]
    raise ControlPlaneError(f"no github.com/jaegertracing/jaeger requirement in {GO_MOD}")


def find_jaeger(provision: bool = True) -> Path:
    """The jaeger binary: $KUBEBERTH_JAEGER_BIN, else the version-keyed cache (provisioned if empty)."""
    env_bin = os.environ.get("KUBEBERTH_JAEGER_BIN")
    if env_bin:
        path = Path(env_bin)
        if not os.access(path, os.X_OK):
            raise ControlPlaneError(f"KUBEBERTH_JAEGER_BIN={env_bin} is not an executable")
        return path
    cache = os.environ.get("KUBEBERTH_JAEGER_CACHE") or str(Path.home() / ".cache" / "kubeberth" / "jaeger")
    path = Path(cache) / pinned_version() / "bin" / "jaeger"
    if not os.access(path, os.X_OK) and provision:
        proc = subprocess.run(["bash", str(PROVISION_SCRIPT)], stdout=subprocess.PIPE, text=True, timeout=3600)
        if proc.returncode != 0:
            raise ControlPlaneError(f"{PROVISION_SCRIPT} failed with exit code {proc.returncode}")
    if not os.access(path, os.X_OK):
        raise ControlPlaneError(f"missing {path} (set KUBEBERTH_JAEGER_BIN or run {PROVISION_SCRIPT})")
    return path


class LocalJaeger:
    """Jaeger v2 all-in-one with in-memory storage on loopback."""

    def __init__(self, binary: Path | None = None, max_lifetime: float = 3600.0, start_timeout: float = 60.0) -> None:
        self.binary = binary or find_jaeger()
        self.max_lifetime = max_lifetime
        self.start_timeout = start_timeout
        self.ports: dict[str, int] = {}
        self.proc: ManagedProcess | None = None
        self.watchdog: subprocess.Popen[bytes] | None = None
        self.work_dir = Path(tempfile.mkdtemp(prefix="kubeberth-jaeger-"))

    # ---- addresses -------------------------------------------------------------------
    @property
    def otlp_http_endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.ports['otlp_http']}"

    @property
    def otlp_grpc_endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.ports['otlp_grpc']}"

    @property
    def query_url(self) -> str:
        return f"http://{LOOPBACK}:{self.ports['query']}"

    # ---- lifecycle -------------------------------------------------------------------
    def start(self) -> LocalJaeger:
        taken: list[int] = []
        for name in ("health", "query", "query_grpc", "otlp_grpc", "otlp_http"):
            self.ports[name] = free_port(avoid=taken)
            taken.append(self.ports[name])
        config = self.work_dir / "jaeger.yaml"
        config.write_text(_CONFIG.format(host=LOOPBACK, **self.ports))
        self.proc = ManagedProcess("jaeger", [str(self.binary), "--config", str(config)], self.work_dir / "jaeger.log")
        # The control plane's watchdog: kills the group when this process dies or time runs out.
        (self.work_dir / "pgids").write_text(f"{self.proc.pgid}\n")
        (self.work_dir / "cleanup").write_text(f"{self.work_dir}\n" if os.environ.get("KUBEBERTH_E2E_KEEP") != "1" else "")
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(time.time() + self.max_lifetime),
             str(self.work_dir / "pgids"), str(self.work_dir / "cleanup")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
        )
        try:
            wait_for(self._ready, self.start_timeout, f"jaeger query API on {self.query_url}", interval=0.2)
        except AssertionError as exc:
            tail = self.proc.log_tail()
            self.stop()
            raise ControlPlaneError(f"{exc}\n--- jaeger log ---\n{tail}") from None
        return self

    def _ready(self) -> bool:
        if self.proc is not None and not self.proc.running:
            raise ControlPlaneError(f"jaeger exited with {self.proc.poll()}:\n{self.proc.log_tail()}")
        try:
            self.get("/api/services")
            return True
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop(timeout=10)
            self.proc = None
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait(10)
            self.watchdog = None
        if os.environ.get("KUBEBERTH_E2E_KEEP") != "1":
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> LocalJaeger:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- the query API ---------------------------------------------------------------
    def get(self, path: str, **params: Any) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.query_url}{path}{query}", timeout=10) as resp:
            return json.loads(resp.read())

    def find_traces(self, service: str, tags: dict[str, str] | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """Traces of `service` whose spans carry all `tags` (Jaeger's search, as in the UI)."""
        params: dict[str, Any] = {"service": service, "limit": limit, "lookback": "1h"}
        if tags:
            params["tags"] = json.dumps(tags)
        try:
            return self.get("/api/traces", **params).get("data") or []
        except urllib.error.HTTPError as exc:
            if exc.code == 404:  # the service has not reported yet
                return []
            raise

    def wait_for_traces(
        self, service: str, tags: dict[str, str], count: int = 1, timeout: float = 30.0, ready: Any = None
    ) -> list[dict[str, Any]]:
        """Poll until at least `count` traces match (and `ready(traces)` holds, when given)."""

        def found() -> list[dict[str, Any]] | None:
            traces = self.find_traces(service, tags)
            if len(traces) >= count and (ready is None or ready(traces)):
                return traces
            return None

        return wait_for(found, timeout, f"{count} trace(s) of {service} with {tags} in jaeger")

    def trace(self, trace_id: str) -> dict[str, Any]:
        data = self.get(f"/api/traces/{trace_id}").get("data") or []
        if not data:
            raise AssertionError(f"trace {trace_id} not found in jaeger")
        return data[0]


def tags_of(span: dict[str, Any]) -> dict[str, Any]:
    """A Jaeger JSON span's tags as a dict."""
    return {t["key"]: t["value"] for t in span.get("tags") or ()}


def span_tree(trace: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """parent span id -> child spans ('' for roots)."""
    tree: dict[str, list[dict[str, Any]]] = {}
    for span in trace["spans"]:
        parents = [r["spanID"] for r in span.get("references") or () if r.get("refType") == "CHILD_OF"]
        tree.setdefault(parents[0] if parents else "", []).append(span)
    return tree

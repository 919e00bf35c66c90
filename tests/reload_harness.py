"""A running `kubeberth run --embedded` in the test process, for the hot reload tests and the
reload benchmark (scripts/reload_bench.py): the real Runner, embedded backend, load generator,
watchers and HTTP server; nothing stubbed."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubeberth.apps.embedded_run import LoadGenerator
from kubeberth.apps.runner import Runner
from kubeberth.apps.simulate import generate_cluster
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.runtime.config import Settings
from kubeberth.runtime.records import CycleRecord

ZONE_LABEL = "topology.kubernetes.io/zone"

# A drop-in with visibly different behaviour per version: pods only land in its zone.
ZONED = '''"""Only nodes in {zone} are feasible."""
import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl

__version__ = "{zone}"


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        ids, values = nodes.label_values("{label}")
        wanted = values.index("{zone}") if "{zone}" in values else -2
        return FilterResult.reject_where(np.asarray(ids != wanted), "node(s) are not in {zone}")
'''

ZONED_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  plugins:
    multiPoint:
      enabled:
      - name: Zoned
"""


def zoned(zone: str) -> str:
    return ZONED.format(zone=zone, label=ZONE_LABEL)


def write_atomic(path: Path, text: str) -> None:
    """An editor's save: write a temporary file beside it, then rename it over the original."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def wait_for(check: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.01)


class Decisions:
    """Every scheduling and binding outcome, from the scheduler's observers (the decision records)."""

    def __init__(self) -> None:
        self.scheduled: dict[str, CycleRecord] = {}
        self.bound: dict[str, list[CycleRecord]] = {}
        self.attempts_by_generation: dict[str, int] = {}

    def cycle(self, record: CycleRecord) -> None:
        self.attempts_by_generation[record.generation] = self.attempts_by_generation.get(record.generation, 0) + 1

    def binding(self, record: CycleRecord) -> None:
        if (record.binding or {}).get("result") == "Bound":
            self.bound.setdefault(record.uid, []).append(record)


class EmbeddedRun:
    """`kubeberth run --embedded` in-process; `with EmbeddedRun(...) as run:`."""

    def __init__(
        self,
        tmp: Path,
        *,
        config: str | None = None,
        plugins: dict[str, str] | None = None,
        nodes: int = 60,
        rate: float = 0.0,
        lifetime: float = 1.0,
        settings: dict[str, Any] | None = None,
        config_path: Path | None = None,
        plugins_dir: Path | None = None,
    ) -> None:
        self.tmp = tmp
        self.config_path = config_path
        if self.config_path is None and config is not None:
            self.config_path = tmp / "config.yaml"
            self.config_path.write_text(config)
        self.plugins_dir = plugins_dir
        if self.plugins_dir is None and plugins is not None:
            self.plugins_dir = tmp / "plugins"
            self.plugins_dir.mkdir(exist_ok=True)
            for name, text in plugins.items():
                (self.plugins_dir / name).write_text(text)
        base = {
            "config": self.config_path,
            "plugins_dir": self.plugins_dir,
            "seed": 1,
            "reload_debounce_seconds": 0.02,
            "decision_records": 100,
        }
        base.update(settings or {})
        self.settings = Settings(**{k: v for k, v in base.items() if v is not None})
        self.cluster = EmbeddedCluster(generate_cluster(nodes, 0, 1))
        self.decisions = Decisions()
        self.runner = Runner(settings=self.settings, healthz_bind_address="127.0.0.1:0", backend=self.cluster)
        self.runner.scheduler.observers.append(self.decisions.cycle)
        self.runner.scheduler.binding_observers.append(self.decisions.binding)
        self.load = LoadGenerator(self.cluster, rate, lifetime, seed=1) if rate else None
        self._loop: threading.Thread | None = None

    # ---- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> EmbeddedRun:
        self.runner.start()
        self._loop = threading.Thread(target=self.runner.serve, name="test-loop", daemon=True)
        self._loop.start()
        if self.load is not None:
            self.load.start(self.runner.generation.default_profile.profile)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.load is not None:
            self.load.stop()
        self.runner.stop_event.set()  # as run_main: the loop returns before the runner shuts down
        if self._loop is not None:
            self._loop.join(timeout=10)
        self.runner.shutdown()

    # ---- views -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self.runner.http is not None
        return f"http://127.0.0.1:{self.runner.http.port}"

    def get(self, path: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as resp:
                body = resp.read()
                status = resp.status
        except urllib.error.HTTPError as exc:
            body, status = exc.read(), exc.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode()

    def post(self, path: str) -> tuple[int, Any]:
        req = urllib.request.Request(self.url + path, method="POST", data=b"")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    @property
    def generation(self) -> Any:
        return self.runner.reloader.current

    def plugin_version(self, name: str) -> str | None:
        spec = self.generation.registry.get(name)
        return spec.version if spec is not None else None

    def wait_generation(self, check: Callable[[Any], bool], timeout: float = 10.0, what: str = "generation") -> Any:
        return wait_for(lambda: self.generation if check(self.generation) else None, timeout, what)

    def wait_reload(self, result: str, after: int, timeout: float = 10.0) -> Any:
        """The first reload outcome with `result` recorded after `after` outcomes."""

        def found() -> Any:
            return next((o for o in list(self.runner.reloader.history)[after:] if o.result == result), None)

        return wait_for(found, timeout, f"a {result} reload")

    def zone_of(self, node: str) -> str:
        obj = self.cluster.get("Node", node)
        assert obj is not None
        return obj["metadata"]["labels"][ZONE_LABEL]

    def drain(self, timeout: float = 30.0) -> None:
        """Stop creating pods and wait until every created pod was bound."""
        assert self.load is not None
        self.load.pause()
        wait_for(lambda: self.load.stats.pending == 0 and not self.load._bound.qsize() or None, timeout,
                 f"all pods bound (stats {self.load.stats})")
        # A binding reaches the cluster before the loop records its outcome: wait for the records too.
        wait_for(lambda: sum(1 for r in list(self.decisions.bound.values()) if r[0].pod.startswith("load/"))
                 >= self.load.stats.bound or None, timeout, "every binding recorded")


def configmap_layout(directory: Path, files: dict[str, str], stamp: str) -> None:
    """Write `files` the way the kubelet fills a ConfigMap volume (AtomicWriter): a timestamped
    directory, a `..data` symlink to it swapped by rename, and per-key symlinks through `..data`."""
    directory.mkdir(exist_ok=True)
    data_dir = directory / f"..{stamp}"
    data_dir.mkdir()
    for name, text in files.items():
        (data_dir / name).write_text(text)
    tmp_link = directory / "..data_tmp"
    tmp_link.symlink_to(data_dir.name)
    old = (directory / "..data").resolve() if (directory / "..data").is_symlink() else None
    os.replace(tmp_link, directory / "..data")
    for name in files:
        link = directory / name
        if not link.is_symlink():
            link.symlink_to(Path("..data") / name)
    if old is not None and old != data_dir.resolve():
        shutil.rmtree(old)

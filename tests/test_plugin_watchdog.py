"""The plugin watchdog (kubeberth.scheduling.watchdog): a scheduling cycle past the plugin timeout
is reported (log, kubeberth_plugin_timeouts_total), a plugin looping in Python is interrupted as
its own Error status, one blocked in C is reported only, and a hot-reloaded generation whose
plugin hangs is rolled back."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubeberth import PodView, hookimpl
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.observability import Observability
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.runtime.config import SchedulerConfiguration
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.records import CycleRecord
from kubeberth.scheduling import watchdog
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import make_node, make_pod
from reload_harness import ZONED_CONFIG, EmbeddedRun, wait_for, write_atomic, zoned

PROFILE = "watchdog"
BOUND = 0.3


class Hangs:
    """Filter: loops for ever in Python for pods labelled hang=loop, sleeps 1.5 s for hang=sleep."""

    name = "Hangs"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        how = pod.labels.get("hang")
        if how == "loop":
            while True:
                pass
        if how == "sleep" and pod.labels.get("slept") != "yes":
            time.sleep(1.5)


@pytest.fixture(autouse=True)
def fast_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchdog, "INTERVAL_SECONDS", 0.1)


@pytest.fixture
def running() -> Iterator[tuple[Scheduler, EmbeddedCluster, SchedulerMetrics, list[CycleRecord]]]:
    config = SchedulerConfiguration.model_validate({
        "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 2,
        "profiles": [{"schedulerName": PROFILE, "plugins": {"multiPoint": {"enabled": [{"name": "Hangs"}]}}}],
    })
    gen = build_generation(config=config, extra_plugins=[Hangs])
    backend = EmbeddedCluster([make_node(f"n{i}", "8", "16Gi", pods=50) for i in range(3)])
    s = Scheduler(gen, backend, seed=1, plugin_timeout_seconds=BOUND)
    metrics = SchedulerMetrics()
    Observability(metrics=metrics).attach(s)
    records: list[CycleRecord] = []
    s.observers.append(records.append)
    backend.start(s.submit)
    stop = threading.Event()
    loop = threading.Thread(target=s.run, args=(stop,), name="test-loop", daemon=True)
    loop.start()
    yield s, backend, metrics, records
    stop.set()
    loop.join(timeout=10)
    assert not loop.is_alive()
    backend.stop()
    s.shutdown(wait=True)


def pod(name: str, **labels: str) -> dict:
    return make_pod(name, "100m", "64Mi", uid=name, labels=labels, schedulerName=PROFILE)


def bound(backend: EmbeddedCluster, name: str) -> bool:
    obj = backend.get("Pod", f"default/{name}")
    return bool(obj and obj["spec"].get("nodeName"))


@pytest.mark.timeout(30)
def test_endless_loop_is_interrupted_as_the_plugins_error_and_the_loop_keeps_serving(running, caplog) -> None:
    s, backend, metrics, records = running
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.watchdog")
    backend.apply(pod("before"))
    wait_for(lambda: bound(backend, "before"), 10, "a pod before the hang")
    t0 = time.monotonic()
    backend.apply(pod("looper", hang="loop"))
    error = wait_for(lambda: next((r for r in records if r.pod == "default/looper" and r.result == "Error"), None),
                     10, "the looping pod's Error")
    recovered = time.monotonic() - t0
    assert error.error_plugin == "Hangs"
    assert "plugin Hangs raised PluginTimeout" in error.message
    assert f"plugin timeout of {BOUND:g}s" in error.message
    assert BOUND <= recovered < BOUND + 1.0
    for i in range(5):
        backend.apply(pod(f"after-{i}"))
    wait_for(lambda: all(bound(backend, f"after-{i}") for i in range(5)), 10, "pods after the hang")
    # Retried with backoff: interrupted again, each time as its own Error.
    wait_for(lambda: sum(r.pod == "default/looper" and r.result == "Error" for r in records) >= 2, 10, "a retry")
    assert metrics.plugin_timeouts.values[("Hangs", "filter")] >= 2
    assert any("plugin Hangs ran" in m and "default/looper" in m and "interrupting it" in m for m in caplog.messages)
    assert not bound(backend, "looper")


@pytest.mark.timeout(30)
def test_plugin_blocked_in_c_is_reported_not_interrupted(running, caplog) -> None:
    s, backend, metrics, records = running
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.watchdog")
    backend.apply(pod("sleeper", hang="sleep"))
    wait_for(lambda: bound(backend, "sleeper"), 10, "the sleeping pod bound once its filter returns")
    # The binding worker may bind before the loop thread has recorded the cycle (a loaded machine).
    results = wait_for(lambda: [r.result for r in records if r.pod == "default/sleeper"], 10, "the cycle record")
    assert results == ["Scheduled"]
    assert metrics.plugin_timeouts.values[("Hangs", "filter")] == 1
    assert any("plugin Hangs ran" in m and "default/sleeper" in m for m in caplog.messages)
    assert any("plugin Hangs is blocked outside Python code" in m for m in caplog.messages)
    backend.apply(pod("next"))
    wait_for(lambda: bound(backend, "next"), 10, "the next pod")


LOOPING = '''"""Zoned, but its filter never returns{but}."""
from kubeberth import PodView, hookimpl

__version__ = "looping"


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        while {condition}:
            pass
'''
# Hangs on real pods only: passes the reload's dry run (a synthetic pod), is swapped in, then hangs.
LOOPING_AFTER_DRY_RUN = LOOPING.format(but=" for real pods", condition='pod.name != "kubeberth-dry-run"')
LOOPING_ALWAYS = LOOPING.format(but="", condition="True")


@pytest.mark.timeout(60)
def test_reloaded_generation_with_a_hung_plugin_is_rolled_back(tmp_path: Path) -> None:
    settings = {"plugin_timeout_seconds": BOUND}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=100,
                     settings=settings) as run:
        good = run.generation
        wait_for(lambda: run.load.stats.bound > 50, 20, "a baseline")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", LOOPING_AFTER_DRY_RUN)
        swapped = run.wait_reload("success", n, 10)
        t0 = time.monotonic()
        rolled = run.wait_reload("rolled_back", n, 10)
        assert rolled.error.startswith(f"generation {swapped.generation} rolled back to {good.id}: plugin 'Zoned' ran ")
        assert "past the plugin timeout" in rolled.error
        run.wait_generation(lambda g: g is good, 5, "the previous generation back")
        assert time.monotonic() - t0 < BOUND + 2.0
        _, metrics = run.get("/metrics")
        assert 'kubeberth_plugin_timeouts_total{extension_point="filter",plugin="Zoned"} 1.0' in metrics
        run.drain(60)
        assert run.load.stats.created == run.load.stats.bound


@pytest.mark.timeout(60)
def test_reload_whose_dry_run_hangs_is_refused(tmp_path: Path) -> None:
    settings = {"plugin_timeout_seconds": BOUND}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=100,
                     settings=settings) as run:
        good = run.generation
        wait_for(lambda: run.load.stats.bound > 20, 20, "pods flowing")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", LOOPING_ALWAYS)
        failed = run.wait_reload("failed", n, 10)
        assert "plugin 'Zoned' failed the dry run" in failed.error
        assert "PluginTimeout" in failed.error
        assert run.generation is good
        run.drain(60)
        assert run.load.stats.created == run.load.stats.bound


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux's /proc")
def test_a_thread_waiting_to_run_is_told_from_one_blocked_in_c() -> None:
    """An interrupted plugin that has not taken its PluginTimeout by the next look is judged blocked outside Python
    code only if it is: a thread in a sleep is; one that is runnable or waits for the interpreter lock (a busy
    machine: a CI run left a spinning PreBind running for ever when its interruption was taken back) is not."""
    from kubeberth.scheduling.watchdog import _waiting_to_run

    stop = threading.Event()
    spinner = threading.Thread(target=lambda: [None for _ in iter(lambda: stop.is_set(), True)], daemon=True)
    sleeper = threading.Thread(target=lambda: time.sleep(3), daemon=True)
    spinner.start()
    sleeper.start()
    try:
        time.sleep(0.2)
        assert spinner.ident is not None and sleeper.ident is not None
        assert _waiting_to_run(spinner.ident)  # running, or waiting for the lock this thread holds
        assert not _waiting_to_run(sleeper.ident)
    finally:
        stop.set()
        spinner.join(5)

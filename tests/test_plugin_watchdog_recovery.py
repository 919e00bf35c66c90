"""The plugin watchdog's recovery (kubeberth.scheduling.watchdog, rollback, quarantine): binding-cycle
steps past the plugin timeout are reported and interrupted like scheduling ones, waiting at Permit is
not a hang, a hang is an Event on the scheduler's Lease, a hung reload is rolled back and its pod
retried at once on the restored generation, and a drop-in that keeps hanging is quarantined."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from kubeberth import PermitResult, PodView, hookimpl
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.observability import Observability
from kubeberth.observability.metrics import SchedulerMetrics
from kubeberth.runtime.config import SchedulerConfiguration
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.records import CycleRecord
from kubeberth.scheduling import watchdog
from kubeberth.scheduling.quarantine import PluginOrigin, Quarantine, file_digest
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import make_node, make_pod
from reload_harness import ZONED_CONFIG, EmbeddedRun, wait_for, write_atomic, zoned

PROFILE = "watchdog-binding"
BOUND = 0.3
LEASE = "Lease kube-system/kubeberth"


class BindHangs:
    """PreBind loops in Python (first attempt only) for hang=loop, sleeps 1 s for hang=sleep;
    Permit waits 0.8 s (and times out) for hang=permit."""

    name = "BindHangs"
    looped: set[str] = set()
    unreserved: list[str] = []
    released = False  # set by a test that fails with a worker still looping (its teardown would hang)

    @hookimpl
    def permit(self, pod: PodView) -> PermitResult | None:
        return PermitResult.wait(0.8) if pod.labels.get("hang") == "permit" else None

    @hookimpl
    def pre_bind(self, pod: PodView) -> None:
        how = pod.labels.get("hang")
        if how == "loop" and pod.uid not in self.looped:
            self.looped.add(pod.uid)
            while not BindHangs.released:
                pass
        if how == "sleep":
            time.sleep(1.0)

    @hookimpl
    def reserve(self, pod: PodView) -> None:
        return None

    @hookimpl
    def unreserve(self, pod: PodView) -> None:
        self.unreserved.append(pod.uid)


@pytest.fixture(autouse=True)
def fast_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchdog, "INTERVAL_SECONDS", 0.1)


@contextmanager
def serving(timeout: float) -> Iterator[tuple[Scheduler, EmbeddedCluster, SchedulerMetrics, list[CycleRecord]]]:
    """A scheduler with BindHangs serving three nodes (`timeout` 0: no watchdog of its own)."""
    config = SchedulerConfiguration.model_validate({
        "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 2,
        "profiles": [{"schedulerName": PROFILE, "plugins": {"multiPoint": {"enabled": [{"name": "BindHangs"}]}}}],
    })
    gen = build_generation(config=config, extra_plugins=[BindHangs])
    backend = EmbeddedCluster([make_node(f"n{i}", "8", "16Gi", pods=50) for i in range(3)])
    s = Scheduler(gen, backend, seed=1, plugin_timeout_seconds=timeout)
    metrics = SchedulerMetrics()
    Observability(metrics=metrics).attach(s)
    bindings: list[CycleRecord] = []
    s.binding_observers.append(bindings.append)
    backend.start(s.submit)
    stop = threading.Event()
    loop = threading.Thread(target=s.run, args=(stop,), name="test-loop", daemon=True)
    loop.start()
    try:
        yield s, backend, metrics, bindings
    finally:
        stop.set()
        loop.join(timeout=10)
        assert not loop.is_alive()
        backend.stop()
        s.shutdown(wait=True)


@contextmanager
def released_after() -> Iterator[None]:
    try:
        yield
    finally:
        BindHangs.released = True


@pytest.fixture(autouse=True)
def looping() -> None:
    BindHangs.released = False


@pytest.fixture
def binding() -> Iterator[tuple[EmbeddedCluster, SchedulerMetrics, list[CycleRecord]]]:
    with serving(BOUND) as (_, backend, metrics, bindings):
        yield backend, metrics, bindings


def pod(name: str, **labels: str) -> dict[str, Any]:
    return make_pod(name, "100m", "64Mi", uid=name, labels=labels, schedulerName=PROFILE)


def bound(backend: EmbeddedCluster, name: str) -> bool:
    obj = backend.get("Pod", f"default/{name}")
    return bool(obj and obj["spec"].get("nodeName"))


@pytest.mark.timeout(40)
def test_binding_step_past_the_timeout_is_interrupted_unreserved_and_retried(binding, caplog) -> None:
    backend, metrics, bindings = binding
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.watchdog")
    t0 = time.monotonic()
    backend.apply(pod("looper", hang="loop"))
    failed = wait_for(lambda: next((r for r in bindings if r.uid == "looper"), None), 10, "the binding's end")
    interrupted = time.monotonic() - t0
    assert failed.binding is not None and failed.binding["result"] == "Error"
    assert failed.binding["plugin"] == "BindHangs" and "PluginTimeout" in failed.binding["message"]
    assert BOUND <= interrupted < BOUND + 1.0
    wait_for(lambda: "looper" in BindHangs.unreserved, 5, "the pod unreserved")
    wait_for(lambda: bound(backend, "looper"), 10, "the looping pod bound on its retry")
    assert metrics.plugin_timeouts.values[("BindHangs", "pre_bind")] == 1
    assert any("in the binding cycle of pod default/looper" in m and "interrupting it" in m for m in caplog.messages)
    print(f"[watchdog] binding step interrupted {interrupted:.2f}s after the pod was created")


@pytest.mark.timeout(40)
def test_binding_step_blocked_in_c_is_reported_and_a_permit_wait_is_not(binding, caplog) -> None:
    backend, metrics, bindings = binding
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.watchdog")
    backend.apply(pod("sleeper", hang="sleep"))
    backend.apply(pod("waiter", hang="permit"))
    wait_for(lambda: bound(backend, "sleeper"), 10, "the sleeping PreBind's pod bound once it returns")
    waited = wait_for(lambda: next((r for r in bindings if r.uid == "waiter"), None), 10, "the Permit wait's end")
    assert waited.binding is not None and waited.binding["result"] == "Rejected"  # timed out at Permit, 0.8 s
    # (Only BindHangs' entries: a cycle slowed by a loaded machine would be plugin "unknown".)
    assert {k: v for k, v in metrics.plugin_timeouts.values.items() if k[0] == "BindHangs"} == {
        ("BindHangs", "pre_bind"): 1
    }
    assert any("plugin BindHangs is blocked outside Python code in a binding cycle" in m for m in caplog.messages)
    assert not any("default/waiter" in m for m in caplog.messages)


@pytest.mark.timeout(40)
def test_a_watchdog_watches_its_own_schedulers_workers_and_keeps_interrupting_until_the_call_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another scheduler's binding workers in the same process are not this watchdog's (a CI run had a
    stuck worker of one test's scheduler quarantine a file in the next test's); an interruption that is
    not taken (here: never delivered, as a lost wake-up or a starved thread would leave it) is raised
    again at a later look while the worker is still in the call, instead of leaving it spinning for ever."""
    hangs: list[Any] = []
    with serving(0) as (s, backend, _metrics, bindings), released_after():
        backend.apply(pod("spinner", hang="loop"))
        wait_for(lambda: "spinner" in BindHangs.looped, 10, "the PreBind spinning")
        time.sleep(BOUND)
        other = watchdog.Watchdog(BOUND, lambda: 0, hangs.append)  # another scheduler's: no workers of its own
        assert other.check_bindings() == [] and hangs == []
        mine = watchdog.Watchdog(BOUND, lambda: 0, hangs.append, workers=s.pool.idents)
        assert mine.check_bindings() == []  # the call seen for the first time
        deliver = watchdog._set_async_exc
        monkeypatch.setattr(watchdog, "_set_async_exc", lambda ident, exc: None)  # the interruption is lost
        (hang,) = mine.check_bindings(now=time.monotonic() + BOUND)
        assert hang.plugin == "BindHangs" and hang.extension_point == "pre_bind" and hang.interrupted
        monkeypatch.setattr(watchdog, "_set_async_exc", deliver)
        time.sleep(0.2)
        assert "spinner" in BindHangs.looped and not any(r.uid == "spinner" for r in bindings)
        later = time.monotonic() + BOUND + watchdog.STARVED_GRACE_SECONDS
        assert mine.check_bindings(now=later) == []  # raised again, not reported again
        failed = wait_for(lambda: next((r for r in bindings if r.uid == "spinner"), None), 10, "the binding's end")
        assert failed.binding is not None and "PluginTimeout" in failed.binding["message"]
        assert len(hangs) == 1  # reported once
        wait_for(lambda: bound(backend, "spinner"), 10, "the pod bound on its retry")


@pytest.mark.timeout(40)
def test_shutdown_drains_a_binding_step_that_hangs_when_serving_stops() -> None:
    """The watchdog outlives the loop until the binding workers are drained: a PreBind spinning when serving
    stops is still interrupted, so shutdown returns (a CI run's shutdown waited for ever on spinning workers
    once the loop, and with it the watchdog, had stopped)."""
    bound = 2.0  # longer than the loop takes to stop (it waits for events up to 1 s at a time)
    with released_after():
        with serving(bound) as (s, backend, _metrics, _bindings):
            backend.apply(pod("late", hang="loop"))
            wait_for(lambda: "late" in BindHangs.looped, 10, "the PreBind spinning")
            t0 = time.monotonic()
        drained = time.monotonic() - t0  # the loop stopped, then shutdown(wait=True) returned
        assert not BindHangs.released and bound <= drained < bound + 5.0
        assert s._watchdog is None
        print(f"[watchdog] shutdown drained a hung binding step in {drained:.2f}s")


# A backoff far longer than "at once" even on a loaded machine; a pod rate it keeps up with (a backlog
# in the active queue would delay an activated pod too).
BACKOFF_SECONDS = 30
BACKOFF_CONFIG = ZONED_CONFIG.replace(
    "profiles:", f"podInitialBackoffSeconds: {BACKOFF_SECONDS}\npodMaxBackoffSeconds: 60\nprofiles:"
)
RATE = 200
PRE_BIND_LOOP = zoned("zone-a") + '''
    @hookimpl
    def pre_bind(self, pod) -> None:
        while True:
            pass
'''
FILTER_LOOP = '''"""Zoned, but its filter never returns for real pods."""
from kubeberth import PodView, hookimpl


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        while pod.name != "kubeberth-dry-run":
            pass
'''


def lease_events(run: EmbeddedRun, reason: str) -> list[dict[str, Any]]:
    return [e for e in list(run.cluster.events) if e["reason"] == reason and e["regarding"] == LEASE]


@pytest.mark.timeout(120)
def test_hung_binding_step_of_a_reload_rolls_back_and_its_pods_are_retried_at_once(tmp_path: Path) -> None:
    settings = {"plugin_timeout_seconds": BOUND}
    with EmbeddedRun(tmp_path, config=BACKOFF_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=settings) as run:
        good = run.generation
        bindings: list[tuple[float, CycleRecord]] = []
        run.runner.scheduler.binding_observers.append(lambda r: bindings.append((time.monotonic(), r)))
        wait_for(lambda: run.load.stats.bound > 20, 20, "a baseline")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", PRE_BIND_LOOP)
        swapped = run.wait_reload("success", n, 10)
        rolled = run.wait_reload("rolled_back", n, 10)
        run.wait_generation(lambda g: g is good, 5, "the previous generation back")
        restored_at = time.monotonic()
        assert f"rolled back to {good.id}: plugin 'Zoned' ran " in rolled.error
        assert "at pre_bind in the binding cycle of pod load/" in rolled.error
        # Binding workers run in parallel: several pods may have hung in the bad generation's PreBind.
        hung = wait_for(lambda: {r.uid for _, r in list(bindings)
                                 if r.generation == swapped.generation and r.binding["result"] == "Error"},
                        10, "the hung pods' binding errors")

        def retried() -> dict[str, tuple[float, CycleRecord]] | None:
            done = {r.uid: (t, r) for t, r in list(bindings) if r.uid in hung and r.binding["result"] == "Bound"}
            return done if len(done) == len(hung) else None

        # Well inside the 30 s backoff: on a loaded machine the bad generation leaves a backlog of bindings that
        # each hang until interrupted, ahead of the retried ones (a CI run took more than 10 s).
        done = wait_for(retried, BACKOFF_SECONDS * 2 / 3, "every hung pod bound")
        assert {r.generation for _, r in done.values()} == {good.id}
        retry_seconds = max(t for t, _ in done.values()) - restored_at
        timeouts = lease_events(run, "PluginTimeout")
        assert timeouts and "plugin Zoned ran" in timeouts[0]["note"] and "pre_bind (binding cycle)" in timeouts[0]["note"]
        assert timeouts[0]["action"] == "PluginWatchdog"
        assert [e["note"] for e in lease_events(run, "GenerationRolledBack")] == [rolled.error]
        print(f"[watchdog] {len(hung)} hung pod(s) bound on the restored generation {retry_seconds:.2f}s after it")
        run.drain(60)


@pytest.mark.timeout(120)
def test_a_drop_in_that_keeps_hanging_is_quarantined_until_its_content_changes(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.ERROR, logger="kubeberth")
    settings = {"plugin_timeout_seconds": BOUND}
    with EmbeddedRun(tmp_path, config=BACKOFF_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=settings) as run:
        good, plugin = run.generation, run.plugins_dir / "zoned.py"
        cycles: list[CycleRecord] = []
        run.runner.scheduler.observers.append(cycles.append)
        wait_for(lambda: run.load.stats.bound > 20, 20, "a baseline")
        for strike in range(2):  # the same plugin source twice (another file changed in between)
            n = len(run.runner.reloader.history)
            if strike:
                write_atomic(run.plugins_dir / "_note.py", "# the same plugin, another file changed\n")
            else:
                write_atomic(plugin, FILTER_LOOP)
            bad = run.wait_reload("success", n, 10).generation
            run.wait_reload("rolled_back", n, 10)
            run.wait_generation(lambda g: g is good, 5, "the previous generation back")
            restored_at = time.monotonic()
            # The pod interrupted in the filter is tried again at once, not after its backoff.
            hung = {r.uid for r in list(cycles) if r.generation == bad and r.result == "Error"}
            assert hung
            wait_for(lambda h=hung: all(uid in run.decisions.bound for uid in h), BACKOFF_SECONDS / 3,
                     "the hung pod bound at once")
            print(f"[watchdog] filter-hung pod bound {time.monotonic() - restored_at:.2f}s after the swap back")
        quarantined = wait_for(lambda: lease_events(run, "PluginQuarantined"), 5, "the quarantine event")
        assert quarantined[0]["note"].startswith(f"{plugin} (content ")
        assert "Fix the plugin; the quarantine is lifted when the file's content changes" in quarantined[0]["note"]
        n = len(run.runner.reloader.history)
        t0 = time.monotonic()
        write_atomic(run.plugins_dir / "_note.py", "# changed again; zoned.py is still the quarantined source\n")
        refused = run.wait_reload("failed", n, 10)
        refused_after = time.monotonic() - t0
        assert refused.error.startswith(f"{plugin}: quarantined (content ")
        assert "fix the plugin; the quarantine is lifted when the file's content changes" in refused.error
        assert run.generation is good
        assert [e["note"] for e in lease_events(run, "ReloadRefused")] == [refused.error]
        assert sum(f"{plugin}: quarantined" in m for m in caplog.messages) == 1  # one line per refusal
        n = len(run.runner.reloader.history)
        write_atomic(plugin, zoned("zone-b"))  # fixed: new content, no quarantine
        run.wait_reload("success", n, 10)
        assert run.plugin_version("Zoned") == "zone-b"
        print(f"[watchdog] quarantined reload refused {refused_after:.2f}s after the write")
        run.drain(60)


SLEEPING = '''"""Zoned, but its filter sleeps 1 s on the first real pod."""
import time

from kubeberth import PodView, hookimpl

slept = []


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        if pod.name != "kubeberth-dry-run" and not slept:
            slept.append(pod.name)
            time.sleep(1.0)
'''


@pytest.mark.timeout(120)
def test_a_reloaded_drop_in_that_sleeps_is_rolled_back_when_it_returns(tmp_path: Path) -> None:
    settings = {"plugin_timeout_seconds": BOUND}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=settings) as run:
        good = run.generation
        wait_for(lambda: run.load.stats.bound > 20, 20, "a baseline")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", SLEEPING)
        swapped = run.wait_reload("success", n, 10)
        rolled = run.wait_reload("rolled_back", n, 10)
        assert f"generation {swapped.generation} rolled back to {good.id}: plugin 'Zoned' ran " in rolled.error
        run.wait_generation(lambda g: g is good, 5, "the previous generation back")
        assert [e["note"] for e in lease_events(run, "GenerationRolledBack")] == [rolled.error]
        assert "plugin Zoned ran" in lease_events(run, "PluginTimeout")[0]["note"]
        run.drain(60)


def test_quarantine_counts_hangs_per_drop_in_content(tmp_path: Path) -> None:
    slow, other = tmp_path / "slow.py", tmp_path / "other.py"
    slow.write_text("# v1\n")
    other.write_text("# v1\n")
    events: list[tuple[str, str]] = []
    q = Quarantine(lambda reason, message: events.append((reason, message)))

    def origin(path: Path) -> PluginOrigin:
        return PluginOrigin(f"kubeberth_dropin_{path.stem}_{file_digest(path)}_b7", str(path))

    assert not q.hang("Slow", origin(slow), cost_a_generation=True)
    assert q.refusal(tmp_path) is None
    assert q.hang("Slow", origin(slow), cost_a_generation=True)  # the second rollback for the same content
    assert events[0][0] == "PluginQuarantined" and events[0][1].startswith(f"{slow} (content ")
    refusal = q.refusal(tmp_path)
    assert refusal is not None and refusal.startswith(f"{slow}: quarantined (content ")
    assert events[-1] == ("ReloadRefused", refusal)
    slow.write_text("# v2, fixed\n")
    assert q.refusal(tmp_path) is None  # lifted by any change of the content
    # Where it cannot be rolled back (past probation, the startup generation): the third timeout.
    assert [q.hang("Other", origin(other), cost_a_generation=False) for _ in range(3)] == [False, False, True]
    # Not a drop-in (a pip package, a built-in): reported, never quarantined.
    pip = PluginOrigin("acme_plugins.slow", "/site-packages/acme_plugins/slow.py")
    assert not pip.dropin
    assert not any(q.hang("Pip", pip, cost_a_generation=True) for _ in range(5))

"""The garbage collector's pause while the initial lists load (kubeberth.scheduling.collector)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.collector import FULL_COLLECTION_AFTER, LoadPause
from kubeberth.scheduling.scheduler import Scheduler, VirtualClock


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    threshold = gc.get_threshold()
    yield
    gc.enable()
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_collector_is_off_during_the_load_and_the_loaded_objects_are_frozen_after() -> None:
    pause = LoadPause(freeze_at=1000)
    pause.begin()
    assert not gc.isenabled()
    loaded = [[i] for i in range(2000)]  # tracked by the collector (lists)
    frozen_before = gc.get_freeze_count()
    pause.end()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(loaded)
    assert gc.get_threshold()[2] == FULL_COLLECTION_AFTER  # full collections wait longer after it
    pause.end()  # again (shutdown after the sync): nothing more
    assert gc.isenabled()


def test_a_small_load_is_not_frozen() -> None:
    pause = LoadPause(freeze_at=100_000)
    threshold = gc.get_threshold()
    pause.begin()
    loaded = [[i] for i in range(2000)]  # tracked by the collector (lists)
    frozen_before = gc.get_freeze_count()
    pause.end()
    assert gc.isenabled() and gc.get_freeze_count() == frozen_before and loaded
    assert gc.get_threshold() == threshold  # full collections as before


def test_two_loads_in_one_process_resume_the_collector_when_the_last_ends() -> None:
    first, second = LoadPause(), LoadPause()
    first.begin()
    second.begin()
    first.end()
    assert not gc.isenabled()
    second.end()
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_process_stays_off() -> None:
    gc.disable()
    pause = LoadPause()
    pause.begin()
    pause.end()
    assert not gc.isenabled()


def test_a_load_that_never_syncs_gives_the_collector_back_after_its_limit() -> None:
    pause = LoadPause(limit=0.2)
    pause.begin()
    assert not gc.isenabled()
    deadline = time.monotonic() + 10
    while not gc.isenabled() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gc.isenabled()


def test_the_scheduler_pauses_from_its_backend_start_until_the_pods_are_synced() -> None:
    backend = EmbeddedCluster()
    backend.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    scheduler = Scheduler(build_generation(None, None), backend)
    try:
        scheduler.start_backend()
        assert not gc.isenabled()
        scheduler.drain_events()
        assert "Pod" in scheduler.synced_kinds and gc.isenabled()
    finally:
        scheduler.shutdown()


class _LateCustomResource(EmbeddedCluster):
    """Pods synced, but a custom resource's informer settles (cannot be listed) only later."""

    settled = False

    def ready(self) -> bool:
        return self.settled


def test_a_custom_resource_settling_after_the_pods_ends_the_pause_at_the_next_housekeeping() -> None:
    clock = VirtualClock()
    backend = _LateCustomResource(clock=clock.now)
    scheduler = Scheduler(build_generation(None, None), backend, clock=clock)
    try:
        scheduler.start_backend()
        scheduler.step()
        assert "Pod" in scheduler.synced_kinds and not gc.isenabled()
        backend.settled = True
        clock.advance_to(clock.now() + 31)
        scheduler.step()
        assert gc.isenabled()
    finally:
        scheduler.shutdown()


def test_kubeberth_run_pauses_from_its_first_step_and_a_run_that_ends_early_gives_the_collector_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`kubeberth run` turns the collector off before its imports (PROCESS_START); a run refused before its
    scheduler started (a bad flag: exit 2) ends the pause on its way out."""
    from kubeberth.apps import cli
    from kubeberth.scheduling.collector import PROCESS_START

    seen: list[bool] = []
    real = cli._dispatch_command

    def dispatch(args: object) -> int:
        seen.append(gc.isenabled())
        return real(args)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "_dispatch_command", dispatch)
    assert cli.main(["run", "--feature-gates=NoSuchGate=true"]) == 2
    assert seen == [False]
    assert gc.isenabled() and not PROCESS_START.active

"""The memory guard (kubeberth.scheduling.memory_guard) on `run --embedded` with real hot reloads and
the process's real RSS: a reloaded drop-in that leaks is rolled back and the pods after it are
scheduled by the previous generation; the next generation is not charged for the leak (the RSS
stays high after the rollback); one with the same traffic that does not leak is kept; a leak in the
startup generation is reported only."""

from __future__ import annotations

import builtins
import gc
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubeberth.scheduling import memory_guard
from kubeberth.scheduling.memory_guard import MB, read_rss
from reload_harness import ZONED_CONFIG, EmbeddedRun, wait_for, write_atomic, zoned

BOUND_MB = 16
RATE = 25  # pods/s: 25 MB/s of leak, the bound passed in about 0.7 s
LEAK_CAP = 3 * BOUND_MB  # the leaking filter stops at this many MB: the test process stays small
STORE = "_kubeberth_test_leak"  # kept on builtins: the leak outlives its generation, as real ones do

# Zoned (zone-a), plus 1 MB kept (`keep`) or dropped per Filter call; the bytes are written, so resident.
LEAKING = '''"""Only nodes in {zone} are feasible; every Filter call allocates 1 MB{what}."""
import builtins

import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl

__version__ = "{version}"
LEAK = builtins.__dict__.setdefault("{store}", [])


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        block = b"x" * (1 << 20)
        if {keep} and len(LEAK) < {cap}:
            LEAK.append(block)
        ids, values = nodes.label_values("{label}")
        wanted = values.index("{zone}") if "{zone}" in values else -2
        return FilterResult.reject_where(np.asarray(ids != wanted), "node(s) are not in {zone}")
'''


def plugin(keep: bool, zone: str = "zone-a") -> str:
    what = " and keeps it" if keep else " and drops it"
    return LEAKING.format(what=what, version=f"{'leak' if keep else 'churn'}-{zone}", store=STORE, keep=keep,
                          cap=LEAK_CAP, label="topology.kubernetes.io/zone", zone=zone)


@pytest.fixture(autouse=True)
def fast_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(memory_guard, "INTERVAL_SECONDS", 0.1)
    yield
    builtins.__dict__.pop(STORE, None)
    gc.collect()


def settings() -> dict[str, Any]:
    return {"rollback_max_memory_growth_mb": BOUND_MB}


def counted(run: EmbeddedRun, action: str) -> float:
    """kubeberth_memory_growth_exceeded_total{action}, read without a scrape (cheap enough to poll)."""
    metrics = run.runner.observability.metrics
    assert metrics is not None
    return metrics.memory_growth_exceeded.values.get((action,), 0.0)


def scraped(run: EmbeddedRun, action: str) -> float:
    """The same, as GET /metrics serves it."""
    _, metrics = run.get("/metrics")
    found = re.search(rf'kubeberth_memory_growth_exceeded_total{{action="{action}"}} (\S+)', metrics)
    return float(found.group(1)) if found else 0.0


def attempts(run: EmbeddedRun, generation: str) -> int:
    return run.decisions.attempts_by_generation.get(generation, 0)


@pytest.mark.timeout(120)
def test_reloaded_generation_that_leaks_is_rolled_back_and_the_next_is_not_charged(
    tmp_path: Path, record_property: Any
) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=settings()) as run:
        good = run.generation
        wait_for(lambda: run.load.stats.bound > 25, 20, "a baseline")
        rss_before = read_rss() or 0
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", plugin(keep=True))
        swapped = run.wait_reload("success", n, 10)
        rolled = run.wait_reload("rolled_back", n, 10)
        to_rollback = time.monotonic() - swapped.swapped_at
        assert rolled.error.startswith(f"generation {swapped.generation} rolled back to {good.id}: memory (RSS) grew by ")
        assert f"past the bound of {BOUND_MB} MB (KUBEBERTH_ROLLBACK_MAX_MEMORY_GROWTH_MB)" in rolled.error
        growth = float(re.search(r"grew by ([\d.]+) MB", rolled.error).group(1))  # type: ignore[union-attr]
        assert BOUND_MB <= growth <= LEAK_CAP + 16  # the message rounds to 0.1 MB: 16.04 reads as 16.0
        assert to_rollback < 10.0  # 16 leaking calls: about 0.7 s at RATE pods/s
        run.wait_generation(lambda g: g is good, 5, "the previous generation back")
        assert scraped(run, "rolled_back") == 1.0
        # The pods after it are scheduled by the previous generation; the leak's memory stays.
        before = attempts(run, good.id)
        wait_for(lambda: attempts(run, good.id) > before + 25, 10, "the previous generation scheduling")
        assert (read_rss() or 0) - rss_before > BOUND_MB * MB, "the leak's memory should still be resident"
        # The next generation, same traffic, no leak: its growth counts from its own swap.
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", plugin(keep=False, zone="zone-b"))
        clean = run.wait_reload("success", n, 10)
        wait_for(lambda: attempts(run, clean.generation) > 60, 10, "the next generation scheduling")
        time.sleep(1.0)  # ten more looks at the RSS
        assert [o.result for o in list(run.runner.reloader.history)[n:]] == ["success"]
        assert run.generation.id == clean.generation
        assert counted(run, "rolled_back") == 1.0 and counted(run, "reported") == 0.0
        run.drain(60)
        assert run.load.stats.created == run.load.stats.bound
        record_property("rollback_seconds_after_swap", round(to_rollback, 2))
        record_property("growth_mb_at_rollback", growth)
        print(f"[memory] rolled back {to_rollback:.2f}s after the swap at {growth} MB growth (bound {BOUND_MB} MB)")


@pytest.mark.timeout(120)
def test_reloaded_generation_with_the_same_traffic_that_does_not_leak_is_kept(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=settings()) as run:
        wait_for(lambda: run.load.stats.bound > 25, 20, "a baseline")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", plugin(keep=False))
        swapped = run.wait_reload("success", n, 10)
        wait_for(lambda: attempts(run, swapped.generation) > 60, 10, "the new generation scheduling")
        time.sleep(1.0)
        assert [o.result for o in list(run.runner.reloader.history)[n:]] == ["success"]
        assert run.generation.id == swapped.generation
        assert counted(run, "rolled_back") == 0.0 and counted(run, "reported") == 0.0


@pytest.mark.timeout(120)
def test_leak_in_the_startup_generation_is_reported_not_rolled_back(tmp_path: Path, caplog: Any) -> None:
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.memory_guard")
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": plugin(keep=True)}, rate=RATE,
                     settings=settings()) as run:
        startup = run.generation
        wait_for(lambda: counted(run, "reported") == 1.0, 10, "the growth reported")
        line = next(m for m in caplog.messages if m.startswith(f"generation {startup.id}: memory (RSS) grew by "))
        assert f"since its first cycle, past the bound of {BOUND_MB} MB" in line
        assert "it is not rolled back (it is the startup generation)" in line
        before = attempts(run, startup.id)
        wait_for(lambda: attempts(run, startup.id) > before + 25, 10, "the startup generation scheduling on")
        assert run.generation is startup
        assert [o.result for o in run.runner.reloader.history] == []
        assert scraped(run, "reported") == 1.0 and scraped(run, "rolled_back") == 0.0  # once per generation
        run.drain(60)
        assert run.load.stats.created == run.load.stats.bound


@pytest.mark.timeout(120)
def test_leak_found_after_the_probation_window_is_reported_not_rolled_back(tmp_path: Path, caplog: Any) -> None:
    caplog.set_level(logging.WARNING, logger="kubeberth.scheduling.memory_guard")
    window = {**settings(), "rollback_window_seconds": 0.05}  # over before the first look at the RSS
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=RATE,
                     settings=window) as run:
        wait_for(lambda: run.load.stats.bound > 25, 20, "a baseline")
        n = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", plugin(keep=True))
        swapped = run.wait_reload("success", n, 10)
        wait_for(lambda: counted(run, "reported") == 1.0, 10, "the growth reported")
        line = next(m for m in caplog.messages if m.startswith(f"generation {swapped.generation}: memory (RSS) grew by "))
        assert "since its swap" in line and "(its probation is over or rollback is off)" in line
        assert run.generation.id == swapped.generation
        assert [o.result for o in list(run.runner.reloader.history)[n:]] == ["success"]
        assert counted(run, "rolled_back") == 0.0

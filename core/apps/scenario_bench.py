"""`kubeberth bench --scenario NAME`: a scheduler_perf workload on the embedded cluster.

The real queue, framework and binding pool on the embedded backend; the cluster (nodes and init
pods, bound) is loaded before the clock starts. The scheduler's clock follows the wall time spent
scheduling and jumps ahead only when the loop is idle (nothing left but backoffs and grace
periods), so waiting costs no run time while backoffs still expire during work as they would. pods/s counts the
measured pods bound over the wall time from the first attempt to the last binding, as
scheduler_perf's SchedulingThroughput does.
"""

from __future__ import annotations

import datetime as dt
import gc
import resource
import shlex
import subprocess
import sys
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..backends.embedded import EmbeddedCluster
from ..runtime.generation import Generation
from ..scheduling.scheduler import Scheduler, VirtualClock
from .scenarios import SCENARIOS, Scenario
from .simulate import SIMULATE_MAX_ERRORS_PER_POD, scheduled_names

PROGRESS_EVERY = 200  # attempts between progress bar updates


def commit() -> str:
    """The source tree's commit (with -dirty for uncommitted changes), or the package version."""
    here = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "describe", "--always", "--dirty", "--abbrev=10"],
            capture_output=True, text=True, timeout=10, check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        from importlib.metadata import version

        return f"kubeberth {version('kubeberth')}"


def machine() -> str:
    """CPU model, cores and memory: what a reader needs to compare numbers."""
    from .bench import machine as cpu_and_python

    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 1024 / 1024:.1f} GiB memory"
                break
    except OSError:
        pass
    return cpu_and_python() + mem


def peak_rss_mb() -> float:
    """The process's peak resident set size (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def run_scenario(
    generation: Generation,
    scenario: Scenario,
    nodes: int | None = None,
    pods: int | None = None,
    init_pods: int | None = None,
    seed: int = 1,
    profile: str = "default",
    progress: Callable[[int, int], None] | None = None,
    keep_placements: bool = False,
) -> dict[str, Any]:
    """Load the scenario's cluster, then schedule its measured pods until settled.

    `keep_placements` adds `placements` (pod key -> node) to the result, to compare decisions."""
    nodes = scenario.nodes if nodes is None else nodes
    pods = scenario.pods if pods is None else pods
    init_pods = scenario.init_pods if init_pods is None else init_pods
    if profile == "naive":
        from .naive import naive_generation

        generation = naive_generation(generation)
    clock = VirtualClock()
    backend = EmbeddedCluster(clock=clock.now)
    for ns in ("sched-0", "sched-1"):
        backend.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for obj in scenario.objects(nodes, init_pods):
        backend.apply(obj)
    for obj in scenario.measured(pods):
        backend.apply(obj)
    scheduler = Scheduler(
        generation, backend, clock=clock, seed=seed, binding_workers=4,
        max_errors_per_pod=SIMULATE_MAX_ERRORS_PER_POD, adopted_scheduler_names=scheduled_names(generation),
    )
    durations = array("d")

    def observe(record: Any) -> None:
        if record.end_ns:
            durations.append((record.end_ns - record.start_ns) / 1e6)

    scheduler.observers.append(observe)
    listed = time.perf_counter()
    scheduler.start_backend()  # the initial list: every node and running pod into the cache
    scheduler.drain_events()
    list_seconds = time.perf_counter() - listed
    # Every 100 attempts, or ten times per run in runs under 1,000 pods (so small runs mix too).
    mixed_every = min(scenario.mixed_every, max(1, pods // 10))
    churn_every = min(scenario.churn_every, max(1, pods // 10))
    attempts = 0
    mixed = 0
    churned: list[dict[str, Any]] = []

    first_decision = 0.0

    def on_cycle() -> None:
        nonlocal attempts, mixed, first_decision
        attempts += 1
        if attempts == 1:
            first_decision = time.perf_counter() - t0
        # The clock follows the wall time spent scheduling (backoffs expire while other pods are
        # tried, as on scheduler_perf's real clock) and only jumps ahead when the loop is idle.
        clock.advance_to(time.perf_counter() - t0)
        if scenario.mixed is not None and mixed_every and attempts % mixed_every == 0:
            backend.apply(scenario.mixed(mixed))
            mixed += 1
        if scenario.churn is not None and churn_every and attempts % churn_every == 0:
            for obj in churned:
                backend.delete(obj["kind"], _store_key(obj))
            churned[:] = [backend.apply(o) for o in scenario.churn(attempts // churn_every)]
        if progress is not None and attempts % PROGRESS_EVERY == 0:
            progress(scheduler.stats.scheduled, pods)

    gc.collect()
    gc.freeze()  # the loaded cluster is long-lived: keep the collector from rescanning it
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    try:
        scheduler.run_until_settled(on_cycle)
    finally:
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        scheduler.shutdown()
        gc.unfreeze()
    if progress is not None:
        progress(scheduler.stats.scheduled, pods)
    stats = scheduler.stats
    lat = np.frombuffer(durations, dtype=np.float64) if len(durations) else np.zeros(1)
    return {
        "scenario": scenario.name,
        "profile": profile,
        "nodes": nodes,
        "pods": pods,
        "init_pods": init_pods,
        "scheduled": stats.scheduled,
        "attempts": stats.attempts,
        "unschedulable_attempts": stats.unschedulable_attempts,
        "preemptions": stats.preemptions,
        "mixed_pods": mixed,
        "seconds": round(elapsed, 3),
        "pods_per_second": round(stats.scheduled / elapsed, 1) if elapsed > 0 else 0.0,
        "cpu_ms_per_pod": round(cpu * 1000 / max(stats.scheduled, 1), 3),
        "attempt_p50_ms": round(float(np.percentile(lat, 50)), 3),
        "attempt_p99_ms": round(float(np.percentile(lat, 99)), 3),
        "peak_rss_mb": peak_rss_mb(),
        # From the initial list to the end of the first scheduling cycle (the bench's own
        # collection before the clock starts left out).
        "startup_seconds": round(list_seconds + first_decision, 2),
        "commit": commit(),
    } | ({"placements": _placements(scheduler)} if keep_placements else {})


def _store_key(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return meta["name"] if obj["kind"] == "Node" else f"{meta.get('namespace') or 'default'}/{meta['name']}"


def _placements(scheduler: Scheduler) -> dict[str, str]:
    names = scheduler.cluster.table.names
    return {pod.key: names[row] or "" for pod, row in scheduler.cluster.placed_pods()}


def render_scenarios(results: list[dict[str, Any]], command: str) -> str:
    """A docs/benchmarks.md section: date, machine, commit, the command, one row per run."""
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commits = sorted({r["commit"] for r in results})
    lines = [
        f"### {today} — scenarios — {machine()} — commit {', '.join(commits)}",
        "",
        f"`{command}`",
        "",
        "| scenario | profile | nodes | init pods | pods | scheduled | pods/s | attempt p50 (ms) | attempt p99 (ms) "
        "| CPU ms/pod | peak RSS (MB) | start-up (s) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['scenario']} | {r['profile']} | {r['nodes']} | {r['init_pods']} | {r['pods']} | {r['scheduled']} "
            f"| {r['pods_per_second']} | {r['attempt_p50_ms']} | {r['attempt_p99_ms']} | {r['cpu_ms_per_pod']} "
            f"| {r['peak_rss_mb']} | {r['startup_seconds']} |"
        )
    return "\n".join(lines) + "\n"


def reproducing_command(argv: list[str]) -> str:
    """The command line that reproduces a run (without --record, which only writes the file)."""
    kept = [a for a in argv if a != "--record"]
    return "kubeberth " + " ".join(shlex.quote(a) for a in kept)


def scenario_names() -> list[str]:
    return list(SCENARIOS)

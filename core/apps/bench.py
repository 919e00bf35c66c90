"""`kubeberth bench`: throughput and latency of the real scheduling path on the embedded cluster.

Results go to docs/benchmarks.md with the machine and date, so targets are numbers in a file,
not timed unit tests.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.generation import Generation
from .simulate import generate_cluster, simulate

DEFAULT_SIZES = ((500, 2000), (5000, 10000))


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def run_bench(
    generation: Generation,
    sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES,
    seed: int = 1,
    metrics: bool = False,
    otlp_endpoint: str | None = None,
) -> list[dict[str, Any]]:
    """Tracing follows the OTEL_* environment as in `run`; `metrics` adds the metrics and decision store."""
    from ..observability import Observability

    results = []
    for nodes, pods in sizes:
        objects = generate_cluster(nodes, pods, seed)
        obs = Observability.from_env(
            otlp_endpoint=otlp_endpoint, metrics=metrics, decision_records=1000 if metrics else 0
        )
        try:
            sim = simulate(generation, objects, seed=seed, attach=obs.attach)
        finally:
            flush0 = time.process_time()
            obs.shutdown()  # the spans still queued are part of the cost
            flush = time.process_time() - flush0
        cycles = np.array([(r.end_ns - r.start_ns) / 1e6 for r in sim.scheduler.records if r.end_ns])
        s = sim.summary
        results.append({
            "nodes": nodes,
            "pods": pods,
            "scheduled": s["scheduled"],
            "unschedulable": s["unschedulable"],
            "pods_per_second": s["pods_per_second"],
            "cpu_ms_per_pod": round((s["cpu_seconds"] + flush) * 1000 / max(s["scheduled"], 1), 3),
            "cycle_p50_ms": round(float(np.percentile(cycles, 50)), 3) if len(cycles) else 0.0,
            "cycle_p99_ms": round(float(np.percentile(cycles, 99)), 3) if len(cycles) else 0.0,
            "filters": ", ".join(generation.default_profile.enabled("filter")),
            "scores": ", ".join(f"{p}×{w}" for p, w in generation.default_profile.score_weights().items()),
        })
    return results


def render_markdown(results: list[dict[str, Any]], label: str = "") -> str:
    today = dt.date.today().isoformat()
    lines = [
        f"### {today} — {machine()}" + (f" — {label}" if label else ""),
        "",
        "| nodes | pods | scheduled | unschedulable | pods/s | CPU ms/pod | cycle p50 (ms) | cycle p99 (ms) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['nodes']} | {r['pods']} | {r['scheduled']} | {r['unschedulable']} | {r['pods_per_second']} "
            f"| {r['cpu_ms_per_pod']} "
            f"| {r['cycle_p50_ms']} | {r['cycle_p99_ms']} |"
        )
    if results:
        lines += ["", f"Filters: {results[0]['filters']}. Scores: {results[0]['scores']}.", ""]
    return "\n".join(lines)


def append_results(path: Path, markdown: str) -> None:
    header = (
        "# Benchmarks\n\n`kubeberth bench` runs `simulate` (generated cluster, default profile, real queue and"
        " binding path on the embedded backend) and appends a section here.\n"
        "pods/s counts scheduling + binding wall time after the cluster is loaded.\n\n"
    )
    existing = path.read_text() if path.exists() else header
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(existing.rstrip() + "\n\n" + markdown + "\n")


# ---- the cost of observability -----------------------------------------------------------------
OVERHEAD_CONFIGS = ("off", "tracing 0%", "tracing 10%", "metrics")


def run_overhead(
    generation: Generation,
    sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES,
    seed: int = 1,
    rounds: int = 5,
    otlp_endpoint: str | None = None,
) -> list[dict[str, Any]]:
    """What tracing (nothing sampled, and 10% sampled, exported to a real OTLP endpoint) and
    metrics + decision records cost, against observability off.

    Two measurements per configuration, each the best of `rounds` interleaved runs (a shared
    machine only ever adds time): the whole simulate run (CPU per pod, all threads, exporter
    included, and pods/s), and the observers alone, replaying the off run's decision records
    through them (CPU per decision, span export and flush included). On a busy machine the first
    varies by tens of percent from run to run; the second is the precise marginal cost.
    """
    from ..errors import KubeberthError

    base = dict(os.environ)
    if otlp_endpoint:
        base["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlp_endpoint
    if not (base.get("OTEL_EXPORTER_OTLP_ENDPOINT") or base.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")):
        raise KubeberthError(
            "bench --observability: tracing needs somewhere to send spans; set OTEL_EXPORTER_OTLP_ENDPOINT "
            "(or --otlp-endpoint) to a running collector, e.g. Jaeger's http://127.0.0.1:4318"
        )
    base.pop("OTEL_SDK_DISABLED", None)
    # Room for every span of a run: the default queue (2048) drops spans when the replay produces
    # them faster than the exporter thread sends them, which would hide part of the cost.
    base.setdefault("OTEL_BSP_MAX_QUEUE_SIZE", "262144")
    results = []
    for nodes, pods in sizes:
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in OVERHEAD_CONFIGS}
        replay: dict[str, list[float]] = {name: [] for name in OVERHEAD_CONFIGS}
        records: list[Any] = []
        for _ in range(rounds):
            for name in OVERHEAD_CONFIGS:
                obs = _observability(name, base)
                try:
                    sim = simulate(generation, generate_cluster(nodes, pods, seed), seed=seed, attach=obs.attach)
                finally:
                    flush0 = time.process_time()
                    obs.shutdown()
                    flush = time.process_time() - flush0
                s = sim.summary
                runs[name].append(((s["cpu_seconds"] + flush) * 1000 / max(s["scheduled"], 1), s["pods_per_second"]))
                if name == "off":
                    records = list(sim.scheduler.records)
            for name in OVERHEAD_CONFIGS:
                replay[name].append(_replay(records, _observability(name, base)))
        off_cpu = min(c for c, _ in runs["off"])
        off_rate = max(r for _, r in runs["off"])
        for name in OVERHEAD_CONFIGS:
            cpu = min(c for c, _ in runs[name])
            rate = max(r for _, r in runs[name])
            per_decision = min(replay[name]) - min(replay["off"])
            results.append({
                "nodes": nodes,
                "pods": pods,
                "config": name,
                "rounds": rounds,
                "cpu_ms_per_pod": round(cpu, 3),
                "cpu_cost": round((cpu - off_cpu) / off_cpu * 100, 1),
                "pods_per_second": round(rate, 1),
                "throughput_cost": round((off_rate - rate) / off_rate * 100, 1),
                "observer_us_per_decision": round(per_decision * 1e6, 1),
                "observer_cost": round(per_decision * 1000 / off_cpu * 100, 1),
            })
    return results


def _observability(name: str, base: dict[str, str]) -> Any:
    from ..observability import Observability

    if name.startswith("tracing"):
        ratio = "0.1" if name.endswith("10%") else "0"
        env = {**base, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": ratio}
        return Observability.from_env(env=env, metrics=False, decision_records=0)
    if name == "metrics":
        return Observability.from_env(env={}, metrics=True, decision_records=1000)
    return Observability.from_env(env={}, metrics=False, decision_records=0)


def _replay(records: list[Any], obs: Any) -> float:
    """CPU seconds per decision to run `obs`'s observers over `records` (span export flushed)."""
    for r in records:
        r.trace_id, r.span_context = "", None
    t0 = time.process_time()
    for r in records:
        obs.cycle_done(r)
        if r.binding:
            obs.binding_done(r)
    obs.shutdown()
    return (time.process_time() - t0) / max(len(records), 1)


def render_overhead(results: list[dict[str, Any]]) -> str:
    today = dt.date.today().isoformat()
    rounds = results[0]["rounds"] if results else 0
    lines = [
        f"### {today} — {machine()} — cost of observability",
        "",
        f"`kubeberth bench --observability`: best of {rounds} interleaved runs per configuration; spans "
        "exported over OTLP to a local Jaeger. *Observers* replays the off run's decisions through the "
        "observers alone (CPU per decision, export included) and relates it to off's CPU per pod: the "
        "precise marginal cost. *Whole run* is end to end (CPU per pod over all threads, and pods/s), and "
        "moves by tens of percent between runs on a shared machine.",
        "",
        "| nodes | pods | configuration | observers µs/decision | observers vs off | whole run CPU ms/pod "
        "| vs off | pods/s | vs off |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['nodes']} | {r['pods']} | {r['config']} | {r['observer_us_per_decision']} "
            f"| {r['observer_cost']:+.1f}% | {r['cpu_ms_per_pod']} | {r['cpu_cost']:+.1f}% "
            f"| {r['pods_per_second']} | {-r['throughput_cost']:+.1f}% |"
        )
    return "\n".join(lines) + "\n"

#!/usr/bin/env python3
"""Hot reload figures for docs/benchmarks.md: swap latency and memory over many reloads.

Runs the real `kubeberth run --embedded` runner in this process (embedded cluster, load
generator, watchdog on a temporary plugins folder) and measures

1. swap latency: a drop-in saved by atomic rename, alternating two versions, `--swaps` times;
   from the file write (and from the first file event) to the first scheduling cycle on the new
   generation; p50 / p99 / max;
2. memory: `--reloads` reloads (POST /reload's path, alternating versions) with pods flowing;
   RSS after a warm-up and at the end, and whether the first generations were freed.

    python scripts/reload_bench.py --write docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from kubeberth.apps.embedded_run import LoadGenerator
from kubeberth.apps.runner import Runner
from kubeberth.apps.simulate import generate_cluster
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.runtime.config import Settings

PLUGIN = '''import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl

__version__ = "{zone}"


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        ids, values = nodes.label_values("topology.kubernetes.io/zone")
        wanted = values.index("{zone}") if "{zone}" in values else -2
        return FilterResult.reject_where(np.asarray(ids != wanted), "node(s) are not in {zone}")
'''
CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  plugins:
    multiPoint:
      enabled:
      - name: Zoned
"""


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def save(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--rate", type=float, default=200.0, help="pods per second while measuring")
    ap.add_argument("--swaps", type=int, default=200)
    ap.add_argument("--reloads", type=int, default=1000)
    ap.add_argument("--write", type=Path, help="append the results to this markdown file")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="kubeberth-reload-bench-"))
    plugins = tmp / "plugins"
    plugins.mkdir()
    (tmp / "config.yaml").write_text(CONFIG)
    target = plugins / "zoned.py"
    target.write_text(PLUGIN.format(zone="zone-a"))
    settings = Settings(config=tmp / "config.yaml", plugins_dir=plugins, seed=1, decision_records=1000)
    cluster = EmbeddedCluster(generate_cluster(args.nodes, 0, 1))
    runner = Runner(settings=settings, healthz_bind_address=None, backend=cluster)
    runner.start()
    loop = threading.Thread(target=runner.serve, daemon=True)
    loop.start()
    load = LoadGenerator(cluster, args.rate, 2.0, seed=1)
    load.start("kubeberth")
    reloader = runner.reloader
    time.sleep(2.0)

    # 1. swap latency through the watcher
    from_write: list[float] = []
    from_event: list[float] = []
    swapped_at: list[float] = []
    phase_start = time.monotonic()
    for i in range(args.swaps):
        zone = ("zone-b", "zone-a")[i % 2]
        before = len(reloader.first_cycle_latency)
        t_write = time.monotonic()
        save(target, PLUGIN.format(zone=zone))
        deadline = t_write + 10
        while len(reloader.first_cycle_latency) == before:
            if time.monotonic() > deadline:
                last = reloader.last_reload
                print(f"swap {i}: no cycle on a new generation within 10 s; last reload {last}", file=sys.stderr)
                return 1
            time.sleep(0.001)
        from_event.append(reloader.first_cycle_latency[-1])
        from_write.append(reloader.guard.first_cycle[reloader.current.id] - t_write)
        swapped_at.append(t_write)
        time.sleep(0.05)
    phase_end = time.monotonic()
    binds = [b for b in load.bind_times if phase_start <= b <= phase_end]
    overall = len(binds) / (phase_end - phase_start)
    window = 0.1
    after = statistics.mean(sum(1 for b in binds if t <= b < t + window) / window for t in swapped_at)
    if runner.watcher is not None:
        runner.watcher.stop()
        runner.watcher = None

    # 2. memory over many reloads. The load stops first, so the scheduler's bounded buffers
    # (cycle records, decision store) are not still filling up while we measure.
    load.pause()
    while load.stats.pending or load.stats.completed < load.stats.bound:
        time.sleep(0.1)
    first = weakref.ref(reloader.current.default_profile.plugins["Zoned"])
    rss: dict[int, float] = {}
    t0 = time.monotonic()
    failures = 0
    for i in range(1, args.reloads + 1):
        save(target, PLUGIN.format(zone=("zone-b", "zone-c")[i % 2]))
        if reloader.reload("bench", rescan=False).result != "success":
            failures += 1
        if i in (50, args.reloads // 4, args.reloads // 2, 3 * args.reloads // 4, args.reloads):
            gc.collect()
            rss[i] = rss_mib()
    elapsed = time.monotonic() - t0
    freed = first() is None
    load.stop()
    runner.stop_event.set()
    loop.join(10)
    runner.shutdown()
    leftovers = sum(1 for m in sys.modules if m.startswith("kubeberth_dropin_"))

    load1 = os.getloadavg()[0]
    machine = (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cpus shared, "
        f"load average {load1:.1f} at the end"
    )
    lines = [
        "",
        f"### Hot reload ({time.strftime('%Y-%m-%d')}, {machine})",
        "",
        f"`python scripts/reload_bench.py` — `run --embedded`, {args.nodes} nodes, {args.rate:.0f} pods/s flowing, "
        "a drop-in saved by atomic rename (watchdog; a finished write reloads at once).",
        "",
        "| measure | p50 | p99 | max |",
        "|---|---|---|---|",
        f"| file written → first cycle on the new generation ({args.swaps} swaps) | {pct(from_write, .5) * 1000:.1f} ms "
        f"| {pct(from_write, .99) * 1000:.1f} ms | {max(from_write) * 1000:.1f} ms |",
        f"| first file event → first cycle on the new generation | {pct(from_event, .5) * 1000:.1f} ms "
        f"| {pct(from_event, .99) * 1000:.1f} ms | {max(from_event) * 1000:.1f} ms |",
        "",
        f"Throughput while swapping every ~{(phase_end - phase_start) / args.swaps * 1000:.0f} ms: {overall:.0f} "
        f"binds/s overall, {after:.0f} binds/s in the {window * 1000:.0f} ms after each save "
        f"({(after / overall - 1) * 100:+.0f}%); no pod lost or bound twice (bind conflicts: {cluster.bind_conflicts}).",
        "",
        f"{args.reloads} reloads in {elapsed:.1f} s ({failures} failed), each with a dry run over the "
        f"{args.nodes}-node table: RSS " + ", ".join(f"{v:.1f} MiB after {k}" for k, v in sorted(rss.items()))
        + f" ({rss[max(rss)] - rss[min(rss)]:+.1f} MiB from {min(rss)} to {max(rss)}); the first generation freed: "
        f"{'yes' if freed else 'NO'}; drop-in modules left in sys.modules: {leftovers}.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    print(f"mean write→cycle {statistics.mean(from_write) * 1000:.1f} ms", file=sys.stderr)
    if args.write:
        with args.write.open("a") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

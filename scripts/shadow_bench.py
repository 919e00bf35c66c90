#!/usr/bin/env python3
"""What a shadow generation costs the live path (docs/benchmarks.md, docs/shadow.md).

One process, the same generated cluster and seed for every variant, rounds interleaved so a busy
machine weighs on all of them alike: the live generation is the default profile; each variant
adds a shadow (or none) and `simulate` drains the pods on the embedded cluster. Reported per
variant (median over the rounds):

- the live cycle (pop to hand-off to binding) p50 and p99: what a pod's own decision takes;
- the drain: pods per second of the whole run, and its ratio to the run without a shadow (the
  shadow runs on the scheduling thread after each hand-off, so at saturation it delays the pods
  behind it: this is the live path's latency under load);
- the shadow's seconds per live cycle second (its decision alone, and with divergence detail).

    python scripts/shadow_bench.py --nodes 500 --pods 3000 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from kubeberth.apps.simulate import generate_cluster, simulate
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.reload import GenerationBuilder
from kubeberth.scheduling.shadow import ShadowPolicy, ShadowRun

NO_ZONE_C = '''import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl


class NoZoneC:
    name = "NoZoneC"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        ids, values = nodes.label_values("topology.kubernetes.io/zone")
        wanted = values.index("zone-c") if "zone-c" in values else -2
        return FilterResult.reject_where(np.asarray(ids == wanted), "node(s) are in zone-c")
'''
NO_ZONE_C_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  plugins:
    multiPoint:
      enabled:
      - name: NoZoneC
"""


def variants(folder: Path) -> dict[str, tuple[Path | None, Path | None, ShadowPolicy] | None]:
    (folder / "no_zone_c.py").write_text(NO_ZONE_C)
    (folder / "no_zone_c.yaml").write_text(NO_ZONE_C_CONFIG)
    cfg = folder / "no_zone_c.yaml"
    return {
        "no shadow": None,
        "same plugins, every pod, no budget": (None, None, ShadowPolicy(sample=1.0, cpu_budget=0)),
        "zone-c filter, every pod, no budget": (folder, cfg, ShadowPolicy(sample=1.0, cpu_budget=0)),
        "zone-c filter, default budget": (folder, cfg, ShadowPolicy()),
        "zone-c filter, 10% of pods": (folder, cfg, ShadowPolicy(sample=0.1, cpu_budget=0)),
    }


def one_run(objects: list[dict[str, Any]], shadow: tuple[Path | None, Path | None, ShadowPolicy] | None) -> dict[str, Any]:
    live = build_generation()
    runs: list[ShadowRun] = []
    agreed: list[bool] = []

    def attach(scheduler: Any) -> None:
        if shadow is not None:
            folder, cfg, policy = shadow
            run = ShadowRun(GenerationBuilder(cfg, folder).build(), policy,
                            lambda o: agreed.append(o.live_node == o.shadow_node and not o.error))
            assert run.install(scheduler) is None
            runs.append(run)

    result = simulate(live, objects, seed=1, attach=attach)
    records = [r for r in result.scheduler.records if r.result == "Scheduled"]
    cycles = np.array([(r.end_ns - r.start_ns) / 1e6 for r in records])
    out = {
        "scheduled": result.summary["scheduled"],
        "seconds": result.summary["seconds"],  # the drain: first cycle to settled
        "cpu_seconds": result.summary["cpu_seconds"],
        "cycle_p50_ms": float(np.percentile(cycles, 50)),
        "cycle_p99_ms": float(np.percentile(cycles, 99)),
        "live_cycle_seconds": result.scheduler.stats.cycle_seconds,
    }
    if runs:
        c = runs[0].counts
        out |= {"compared": c.compared, "skipped_budget": c.skipped_budget, "shadow_seconds": c.shadow_seconds,
                "detail_seconds": c.detail_seconds, "agreement": sum(agreed) / len(agreed) if agreed else None}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    objects = generate_cluster(args.nodes, args.pods, seed=7)
    calibration = subprocess.run([sys.executable, "-m", "timeit", "sum(range(10**6))"], capture_output=True,
                                 text=True, check=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cpus, Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    print(f"# calibration: python3 -m timeit \"sum(range(10**6))\": {calibration}")
    print(f"# {args.nodes} nodes, {args.pods} pods, {args.rounds} rounds interleaved")
    with tempfile.TemporaryDirectory() as tmp:
        shapes = variants(Path(tmp))
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in shapes}
        for _ in range(args.rounds):
            for name, shadow in shapes.items():
                results[name].append(one_run(objects, shadow))
    base = statistics.median(r["scheduled"] / r["live_cycle_seconds"] for r in results["no shadow"])
    print("| variant | live cycle p50 / p99 ms | drain (whole run), median of per-round ratios | CPU ms per pod (ratio) "
          "| shadow s per live s (decision / with detail) | pods compared |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        p50 = statistics.median(r["cycle_p50_ms"] for r in runs)
        p99 = statistics.median(r["cycle_p99_ms"] for r in runs)
        wall = statistics.median(r["seconds"] for r in runs)
        # Ratios per round (each against the same round's run without a shadow), then the median.
        wall_ratio = statistics.median(r["seconds"] / b["seconds"] for r, b in zip(runs, results["no shadow"], strict=True))
        cpu_ratio = statistics.median(r["cpu_seconds"] / b["cpu_seconds"] for r, b in zip(runs, results["no shadow"],
                                                                                            strict=True))
        share = "-"
        compared = "-"
        if "compared" in runs[0]:
            decision = statistics.median(r["shadow_seconds"] / r["live_cycle_seconds"] for r in runs)
            detail = statistics.median((r["shadow_seconds"] + r["detail_seconds"]) / r["live_cycle_seconds"] for r in runs)
            share = f"{decision:.2f} / {detail:.2f}"
            compared = f"{statistics.median(r['compared'] for r in runs):.0f} of {runs[0]['scheduled']}"
            compared += f", agreement {statistics.median(r['agreement'] or 0 for r in runs):.1%}"
            if runs[0]["skipped_budget"]:
                compared += f" ({statistics.median(r['skipped_budget'] for r in runs):.0f} skipped by the budget)"
        cpu = statistics.median(r["cpu_seconds"] / r["scheduled"] for r in runs)
        print(f"| {name} | {p50:.3f} / {p99:.3f} | {wall:.2f} s ({wall_ratio:.2f}x) | {cpu * 1000:.3f} "
              f"({cpu_ratio:.2f}x) | {share} | {compared} |")
    print(f"# live decisions per live cycle second without a shadow: {base:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

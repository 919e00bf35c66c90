#!/usr/bin/env python3
"""What a canary costs the scheduling thread (docs/benchmarks.md, docs/shadow.md "Canary").

One process, the same generated cluster and seed for every variant, rounds interleaved so a busy
machine weighs on all of them alike: the live generation is the default profile; each variant
adds a canary at a share of the pods by uid (or none) and `simulate` drains the pods on the
embedded cluster (saturated: the worst case). The canary's verdict is never taken (manual
promotion, `min_pods` past the pod count): what is measured is the canary running. Reported per
variant (median over the rounds): the scheduling cycle p50 and p99 of the live side's pods and
of the canary's, the drain and CPU per pod against the same round's run without a canary, and
the pods the candidate bound.

    python scripts/canary_bench.py --nodes 1000 --pods 2000 --rounds 3
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
from kubeberth.scheduling.canary import CanaryPolicy, CanaryRun, CanarySelection

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shadow_bench import NO_ZONE_C, NO_ZONE_C_CONFIG  # noqa: E402 - the shadow benchmark's candidate

SAME_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
"""

Variant = tuple[Path | None, Path | None, float, CanaryPolicy] | None


def variants(folder: Path) -> dict[str, Variant]:
    (folder / "no_zone_c.py").write_text(NO_ZONE_C)
    (folder / "no_zone_c.yaml").write_text(NO_ZONE_C_CONFIG)
    cfg = folder / "no_zone_c.yaml"
    same = folder / "same.yaml"
    same.write_text(SAME_CONFIG)
    judge = {"promote": "manual", "min_pods": 10**9}
    return {
        "no canary": None,
        "same plugins at 10%, no comparison": (None, same, 0.1, CanaryPolicy(compare="none", **judge)),
        "zone-c filter at 10%, no comparison": (folder, cfg, 0.1, CanaryPolicy(compare="none", **judge)),
        "zone-c filter at 10%, compared (default budget)": (folder, cfg, 0.1, CanaryPolicy(**judge)),
        "zone-c filter at 50%, no comparison": (folder, cfg, 0.5, CanaryPolicy(compare="none", **judge)),
    }


def one_run(objects: list[dict[str, Any]], variant: Variant) -> dict[str, Any]:
    live = build_generation()
    runs: list[CanaryRun] = []

    def attach(scheduler: Any) -> None:
        if variant is not None:
            folder, cfg, share, policy = variant
            run = CanaryRun(GenerationBuilder(cfg, folder).build(), scheduler.generation,
                            CanarySelection(share=share), policy, lambda *_: None)
            error = run.install(scheduler)
            assert error is None, error
            runs.append(run)

    result = simulate(live, objects, seed=1, attach=attach)
    records = [r for r in result.scheduler.records if r.result == "Scheduled"]
    canary_gen = runs[0].generation.id if runs else ""
    sides = {side: np.array([(r.end_ns - r.start_ns) / 1e6 for r in records if (r.generation == canary_gen) == (side == "canary")])
             for side in ("live", "canary")}
    out: dict[str, Any] = {
        "scheduled": result.summary["scheduled"],
        "seconds": result.summary["seconds"],
        "cpu_seconds": result.summary["cpu_seconds"],
    }
    for side, cycles in sides.items():
        if len(cycles):
            out[f"{side}_p50"] = float(np.percentile(cycles, 50))
            out[f"{side}_p99"] = float(np.percentile(cycles, 99))
    if runs:
        out["canary_bound"] = runs[0].counts["canary"].bound
        out["compared"] = runs[0].compared
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=2000)
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
            for name, variant in shapes.items():
                results[name].append(one_run(objects, variant))
    base = results["no canary"]
    print("| variant | live pods' cycle p50 / p99 ms | canary pods' cycle p50 / p99 ms | drain (ratio) "
          "| CPU ms per pod (ratio) | bound by the candidate |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        def cycle(side: str, runs: list[dict[str, Any]] = runs) -> str:
            if f"{side}_p50" not in runs[0]:
                return "-"
            return (f"{statistics.median(r[f'{side}_p50'] for r in runs):.3f} / "
                    f"{statistics.median(r[f'{side}_p99'] for r in runs):.3f}")

        wall = statistics.median(r["seconds"] for r in runs)
        wall_ratio = statistics.median(r["seconds"] / b["seconds"] for r, b in zip(runs, base, strict=True))
        cpu = statistics.median(r["cpu_seconds"] / r["scheduled"] for r in runs)
        cpu_ratio = statistics.median(r["cpu_seconds"] / b["cpu_seconds"] for r, b in zip(runs, base, strict=True))
        bound = "-" if "canary_bound" not in runs[0] else f"{statistics.median(r['canary_bound'] for r in runs):.0f} of {runs[0]['scheduled']}"
        if runs[0].get("compared"):
            bound += f" ({statistics.median(r['compared'] for r in runs):.0f} compared)"
        print(f"| {name} | {cycle('live')} | {cycle('canary')} | {wall:.2f} s ({wall_ratio:.2f}x) | "
              f"{cpu * 1000:.3f} ({cpu_ratio:.2f}x) | {bound} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

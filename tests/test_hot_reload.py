"""Hot reload on a running `kubeberth run --embedded`: drop-ins, config, rollback, admin API.

Everything runs for real: the runner, the embedded backend with a load generator, watchdog on a
temporary folder, the HTTP server. Pods are checked from the scheduler's own decision records.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from reload_harness import ZONED_CONFIG, EmbeddedRun, wait_for, write_atomic, zoned

RELOADS = 100


def _throughput_dip(bind_times: list[float], reloads: list[float], window: float = 0.25) -> tuple[float, float]:
    """Binds/s in the `window` after each reload vs. binds/s over the whole run."""
    if not bind_times or not reloads:
        return 0.0, 0.0
    overall = len(bind_times) / max(bind_times[-1] - bind_times[0], 1e-9)
    after = [sum(1 for b in bind_times if t <= b < t + window) / window for t in reloads]
    return overall, statistics.mean(after)


def test_hundred_reloads_under_load_lose_nothing_and_each_pod_is_decided_by_one_generation(tmp_path: Path) -> None:
    """100 saves alternating two versions of a drop-in, while pods flow: every pod bound exactly
    once, by a generation whose version its node proves, with its binding on the same generation."""
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=250, lifetime=1.0) as run:
        path = run.plugins_dir / "zoned.py"
        versions = {run.generation.id: "zone-a"}
        wait_for(lambda: run.load.stats.bound > 100, 20, "pods flowing")
        reload_times = []
        for i in range(RELOADS):
            zone = "zone-b" if i % 2 == 0 else "zone-a"
            write_atomic(path, zoned(zone))
            gen = run.wait_generation(lambda g, z=zone: g.registry["Zoned"].version == z, 10, f"reload {i} to {zone}")
            versions[gen.id] = zone
            reload_times.append(time.monotonic())
            time.sleep(0.05)
        run.drain()
        stats = run.load.stats
        bound = run.decisions.bound
        assert stats.created > 2000
        assert stats.created == stats.bound, f"pods lost: {stats}"
        assert run.cluster.bind_conflicts == 0
        assert all(len(v) == 1 for v in bound.values()), "a pod was bound twice"
        load_pods = [r[0] for r in bound.values() if r[0].pod.startswith("load/")]
        assert len(load_pods) == stats.bound
        wrong = [
            (r.pod, r.generation, r.binding["generation"], r.node)
            for r in load_pods
            if r.binding["generation"] != r.generation or run.zone_of(r.node) != versions[r.generation]
        ]
        assert wrong == []
        generations_used = {r.generation for r in load_pods}
        assert len(generations_used) > RELOADS // 2
        failed = [o for o in run.runner.reloader.history if o.result != "success"]
        assert failed == []
        overall, after = _throughput_dip(list(run.load.bind_times), reload_times)
        latency = sorted(run.runner.reloader.first_cycle_latency)
        print(
            f"\n{stats.created} pods, {len(generations_used)} generations; binds/s overall {overall:.0f}, "
            f"in the 250 ms after a reload {after:.0f} ({(after / overall - 1) * 100:+.0f}%); "
            f"file event -> first cycle p50 {latency[len(latency) // 2] * 1000:.1f} ms, "
            f"p99 {latency[int(len(latency) * 0.99)] * 1000:.1f} ms"
        )

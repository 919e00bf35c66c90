#!/usr/bin/env python3
"""Active-active throughput: 1, 2 (and more) kubeberth replicas with a costly plugin, one real
kube-apiserver (docs/scale-out.md, "Throughput").

One local control plane (tests/e2e harness), N fake nodes with room to spare (scheduler_perf's
node-default: 4 cpu, 32Gi, 110 pods), and a drop-in plugin `Costly` that spends `--cost-ms` of CPU
in PreFilter for every pod (a policy plugin doing real work in Python: the case where one process
is the limit). Per round, each replica count in turn (the order alternates between rounds):

- P pods are created while no scheduler runs (a backlog, scheduler_perf's pod-default);
- R replicas `kubeberth run --replicas-mode=active-active` start together;
- pods per second from the first binding to the last, conflicts and commits (the replicas' own
  counters, logged at exit), CPU seconds per 1,000 pods of the replicas, kube-apiserver and etcd
  over the same window.

With `--leader` a single leader-mode replica (no protocol) is measured too: what the protocol
costs one replica.

    python scripts/scale_out_bench.py --replicas 1,2 --rounds 3 --cost-ms 2 [--record docs/scale-out.md]
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
sys.path.insert(0, str(REPO / "scripts"))

import yaml  # noqa: E402
from cluster import LocalControlPlane, wait_for  # noqa: E402
from kubeberth_harness import Kubeberth  # noqa: E402
from side_by_side import (  # noqa: E402
    CLIENTS,
    BindWatch,
    client,
    compile_kubeberth,
    create_node,
    create_pods,
    delete_pods,
)

SCHEDULER = "kubeberth"

COSTLY = '''import time

from kubeberth import hookimpl


class Costly:
    """Spends COST seconds of CPU per pod in PreFilter (once per scheduling cycle)."""

    name = "Costly"

    @hookimpl
    def pre_filter(self, pod):
        end = time.perf_counter() + COST
        while time.perf_counter() < end:
            pass
        return None
'''


def write_setup(workdir: Path, cost_ms: float, qps: int) -> tuple[Path, Path]:
    """The plugin folder and the configuration every replica runs."""
    plugins = workdir / "costly-plugins"
    plugins.mkdir(exist_ok=True)
    (plugins / "costly.py").write_text(f"COST = {cost_ms / 1000!r}\n" + COSTLY)
    config = workdir / "scale-out-bench.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"qps": qps, "burst": qps},
        "leaderElection": {"leaderElect": False, "leaseDuration": "15s", "renewDeadline": "10s", "retryPeriod": "1s",
                           "resourceName": "kubeberth-bench", "resourceNamespace": "kube-system"},
        "profiles": [{"schedulerName": SCHEDULER, "plugins": {"multiPoint": {"enabled": [{"name": "Costly"}]}}}],
    }))
    return plugins, config


def counters(kb: Kubeberth) -> dict[str, int]:
    """The scale-out counters a stopped replica logged."""
    out: dict[str, int] = {}
    for line in kb.log_text().splitlines():
        if "scale-out stopped: " in line:
            out.update(json.loads(line.split("scale-out stopped: ", 1)[1]))
        elif "kubeberth stopped: " in line:
            out.update(ast.literal_eval(line.split("kubeberth stopped: ", 1)[1]))
    return out


def members_agree(procs: list[Kubeberth]) -> bool:
    pids = [f"_{kb.proc.pid}_" for kb in procs]
    for kb in procs:
        lines = [x for x in kb.log_text().splitlines() if "scale-out members: " in x]
        if not lines or not all(p in lines[-1] for p in pids):
            return False
    return True


def run_one(cp: LocalControlPlane, mode: str, replicas: int, round_no: int, pods: int, setup: tuple[Path, Path],
            timeout: float) -> dict[str, Any]:
    assert cp.apiserver is not None and cp.etcd is not None
    ns = f"so-{mode}-{replicas}-{round_no}"
    client(cp).call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    create_pods(cp, ns, pods, SCHEDULER)
    watch = BindWatch(cp, ns, pods, {"apiserver": cp.apiserver.pid, "etcd": cp.etcd.pid})
    watch.start()
    watch.ready.wait(60)
    env = {"KUBEBERTH_REPLICAS_MODE": "active-active"} if mode == "active-active" else {}
    procs = [Kubeberth(cp, cp.admin_kubeconfig, setup[1], leader_elect=False, name=f"so-{mode}-{replicas}-{round_no}-{i}",
                       plugins_dir=setup[0], env=env) for i in range(replicas)]
    for i, kb in enumerate(procs):
        watch.pids[f"replica{i}"] = kb.proc.pid
    try:
        if mode == "active-active" and replicas > 1:
            wait_for(lambda: members_agree(procs), 120, "the replicas to see each other", interval=0.2)
        deadline = time.monotonic() + timeout
        while not watch.done.wait(10):
            print(f"  {mode} x{replicas}: {len(watch.bound)}/{pods} bound", file=sys.stderr, flush=True)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{mode} x{replicas}: {len(watch.bound)}/{pods} pods bound after {timeout}s")
        if watch.error is not None:
            raise watch.error
    finally:
        for kb in procs:
            kb.stop()
    times = sorted(watch.bound.values())
    span = times[-1] - times[0]
    per = pods - 1
    cpu = {k: watch.cpu_last[k] - watch.cpu_first[k] for k in watch.pids}
    replica_cpu = sum(v for k, v in cpu.items() if k.startswith("replica"))
    sums: dict[str, int] = {}
    for kb in procs:
        for k, v in counters(kb).items():
            if isinstance(v, int):
                sums[k] = sums.get(k, 0) + v
    commits, conflicts = sums.get("commits", 0), sums.get("conflicts", 0)
    result = {
        "mode": mode, "replicas": replicas, "round": round_no,
        "pods_per_second": round(per / span, 1) if span > 0 else 0.0,
        "seconds": round(span, 2),
        "replicas_cpu_s_per_1000": round(replica_cpu * 1000 / per, 3),
        "apiserver_cpu_s_per_1000": round(cpu["apiserver"] * 1000 / per, 3),
        "etcd_cpu_s_per_1000": round(cpu["etcd"] * 1000 / per, 3),
        "commits": commits, "conflicts": conflicts,
        "conflict_rate": round(conflicts / (commits + conflicts), 4) if commits + conflicts else 0.0,
        "binding_409s": sums.get("bind_conflicts", 0),
    }
    print(f"  {result}", file=sys.stderr, flush=True)
    delete_pods(cp, ns)
    return result


def summarize(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = sorted({(r["mode"], r["replicas"]) for r in runs}, key=lambda k: (k[0] != "leader", k[1]))
    base = [r for r in runs if r["mode"] == "active-active" and r["replicas"] == 1]
    out = []
    for mode, n in keys:
        mine = [r for r in runs if r["mode"] == mode and r["replicas"] == n]
        row: dict[str, Any] = {"mode": mode, "replicas": n,
                               "pods_per_second": statistics.median(r["pods_per_second"] for r in mine),
                               "replicas_cpu_s_per_1000": statistics.median(r["replicas_cpu_s_per_1000"] for r in mine),
                               "apiserver_cpu_s_per_1000": statistics.median(r["apiserver_cpu_s_per_1000"] for r in mine),
                               "conflict_rate": statistics.median(r["conflict_rate"] for r in mine)}
        # The ratio to one active-active replica, round by round (both measured in the same round).
        ratios = [r["pods_per_second"] / b["pods_per_second"] for r in mine for b in base
                  if b["round"] == r["round"] and b["pods_per_second"]]
        row["speedup_per_round"] = [round(x, 2) for x in ratios]
        out.append(row)
    return out


def calibration() -> str:
    out = subprocess.run([sys.executable, "-m", "timeit", "sum(range(10**6))"], capture_output=True, text=True)
    return out.stdout.strip()


def render(args: argparse.Namespace, summary: list[dict[str, Any]], calib: str) -> str:
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"### Throughput with a costly plugin ({when})",
        "",
        f"`python scripts/scale_out_bench.py --nodes {args.nodes} --pods {args.pods} --cost-ms {args.cost_ms} "
        f"--replicas {args.replicas} --rounds {args.rounds}{' --leader' if args.leader else ''}`; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end, calibration `{calib}`.",
        "",
        "| mode | replicas | pods/s (median) | speedup over 1 replica, per round | replicas' CPU s / 1,000 pods "
        "| API server CPU s / 1,000 pods | conflict rate |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in summary:
        speedups = ", ".join(f"{x:.2f}" for x in row["speedup_per_round"]) or "–"
        lines.append(f"| {row['mode']} | {row['replicas']} | {row['pods_per_second']:.1f} | {speedups} "
                     f"| {row['replicas_cpu_s_per_1000']:.2f} | {row['apiserver_cpu_s_per_1000']:.2f} "
                     f"| {row['conflict_rate']:.1%} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--pods", type=int, default=1500)
    parser.add_argument("--cost-ms", type=float, default=2.0, help="CPU milliseconds the plugin spends per pod")
    parser.add_argument("--replicas", default="1,2", help="replica counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--leader", action="store_true", help="measure one leader-mode replica too")
    parser.add_argument("--qps", type=int, default=5000)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--record", type=Path, help="append the table to this file")
    parser.add_argument("--json", type=Path, help="write every run's numbers to this file")
    args = parser.parse_args()
    counts = [int(x) for x in args.replicas.split(",") if x.strip()]
    if not counts or min(counts) < 1:
        parser.error(f"--replicas={args.replicas}: expected replica counts such as 1,2")
    compile_kubeberth()
    runs: list[dict[str, Any]] = []
    with LocalControlPlane(extra_apiserver_args=["--max-requests-inflight=2000",
                                                 "--max-mutating-requests-inflight=1000"]) as cp:
        assert cp.workdir is not None
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(lambda i: create_node(cp, i), range(args.nodes)))
        setup = write_setup(cp.workdir, args.cost_ms, args.qps)
        plan = [("active-active", n) for n in counts] + ([("leader", 1)] if args.leader else [])
        for r in range(args.rounds):
            for mode, n in plan if r % 2 == 0 else list(reversed(plan)):
                runs.append(run_one(cp, mode, n, r, args.pods, setup, args.timeout))
    summary = summarize(runs)
    text = render(args, summary, calibration())
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "summary": summary}, indent=1))
    if args.record:
        existing = args.record.read_text() if args.record.exists() else ""
        args.record.write_text(existing.rstrip() + "\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start-up to the first binding, kubeberth installs (and kube-scheduler) in turn on one kube-apiserver.

One local control plane (tests/e2e harness), N fake Nodes. For each round and each variant, in
alternating order: P pending pods are created in a namespace of their own, the scheduler is started,
and its first binding is timed from its process start by a watch; the scheduler's CPU (from /proc)
at that moment and its peak RSS are read, then it is stopped and the pods deleted. A variant is
`kube-scheduler` or a virtual environment with kubeberth installed (e.g. one per commit:
`python3 -m venv /tmp/venv-X && /tmp/venv-X/bin/pip install ./worktree-X`), so two commits compare
side by side in one run on a machine whose speed drifts.

    python scripts/startup_ab.py --nodes 500 --pods 200 --rounds 3 \\
        --variant /tmp/venv-base --variant /tmp/venv-head --variant kube-scheduler
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "e2e"))
sys.path.insert(0, str(REPO / "scripts"))

import side_by_side as sbs  # noqa: E402
from cluster import LocalControlPlane  # noqa: E402


def start(cp: LocalControlPlane, variant: str, config: tuple[Path, Path], tag: str) -> tuple[int, Any]:
    """Start one scheduler; returns its pid and a function that stops it."""
    if variant == "kube-scheduler":
        proc = cp.start_kube_scheduler(config[0], name=f"ab-kube-scheduler-{tag}", wait_healthy=False)
        return proc.pid, proc.stop
    assert cp.log_dir is not None
    log = open(cp.log_dir / f"ab-kubeberth-{tag}.log", "wb")  # noqa: SIM115 - closed by the stopper
    p = subprocess.Popen([str(Path(variant) / "bin" / "python"), "-m", "kubeberth", "run",
                          f"--kubeconfig={cp.admin_kubeconfig}", f"--config={config[1]}",
                          "--healthz-bind-address=127.0.0.1:0", "--secure-port=0", "--no-leader-elect"],
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop() -> None:
        p.terminate()
        p.wait(30)
        log.close()

    return p.pid, stop


def one(cp: LocalControlPlane, variant: str, pods: int, config: tuple[Path, Path], tag: str) -> dict[str, float]:
    ns = f"ab-{tag}"
    sbs.client(cp).call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    sbs.create_pods(cp, ns, pods, "default-scheduler" if variant == "kube-scheduler" else "kubeberth")
    watch = sbs.BindWatch(cp, ns, 1, {})
    watch.start()
    watch.ready.wait(60)
    t0 = time.monotonic()
    pid, stop = start(cp, variant, config, tag)
    watch.pids["scheduler"] = pid
    if not watch.done.wait(300):
        raise RuntimeError(f"{variant}: no binding within 300 s")
    row = {"first_binding_s": round(min(watch.bound.values()) - t0, 3),
           "cpu_s_to_first_binding": round(watch.cpu_first["scheduler"], 3),
           "rss_mb_at_first_binding": round(sbs.peak_rss_mb(pid), 1)}
    stop()
    sbs.delete_pods(cp, ns)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", action="append", required=True,
                        help="a virtual environment with kubeberth installed, or kube-scheduler (repeatable)")
    args = parser.parse_args()
    for v in args.variant:
        if v != "kube-scheduler" and not (Path(v) / "bin" / "python").exists():
            parser.error(f"--variant {v}: no bin/python there; give a virtual environment or kube-scheduler")
    runs: dict[str, list[dict[str, float]]] = {v: [] for v in args.variant}
    with LocalControlPlane() as cp:
        assert cp.workdir is not None
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda i: sbs.create_node(cp, i), range(args.nodes)))
        config = sbs.write_configs(cp.workdir, 5000)
        for r in range(args.rounds):
            for k, v in enumerate(args.variant if r % 2 == 0 else args.variant[::-1]):
                row = one(cp, v, args.pods, config, f"{r}-{k}")
                runs[v].append(row)
                print(f"{v} round {r}: {row}", file=sys.stderr, flush=True)
    summary = {v: {key: statistics.median(x[key] for x in rows) for key in rows[0]} for v, rows in runs.items()}
    print(json.dumps({"runs": runs, "medians": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

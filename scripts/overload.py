#!/usr/bin/env python3
"""Overload: 50,000 pods created in a burst while every request kubeberth makes is 50 ms late.

Starts a local control plane (tests/e2e harness: etcd + kube-apiserver on loopback), nodes for
the pods, and `kubeberth run` (leader election on, default lease timings, the least-privilege
service account of config/rbac.yaml) behind a latency proxy; creates the pods in one burst with
parallel clients straight against the API server; 2 % of them wait for a node pool added once each
has been reported Unschedulable. Prints one JSON document: RSS, queue depth and event backlog
over time and at peak, the Lease's largest renewal gap, time to all bound, and `broken` (the
promises not kept; exit 1 if any). tests/e2e/overload_harness.py has the details.

    python scripts/overload.py [--pods 50000] [--delay 0.05] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from cluster import LocalControlPlane  # noqa: E402
from overload_harness import Settings, run  # noqa: E402


def calibration() -> float:
    """Seconds per loop of `python3 -m timeit "sum(range(10**6))"` (this machine, now)."""
    out = subprocess.run([sys.executable, "-m", "timeit", "sum(range(10**6))"], capture_output=True, text=True,
                         check=True).stdout
    # "20 loops, best of 5: 11.2 msec per loop"
    value, unit = out.split(":", 1)[1].split()[:2]
    return float(value) * {"usec": 1e-6, "msec": 1e-3, "sec": 1.0, "nsec": 1e-9}[unit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = Settings()
    parser.add_argument("--pods", type=int, default=defaults.pods)
    parser.add_argument("--delay", type=float, default=defaults.delay, help="seconds added to each request")
    parser.add_argument("--late-share", type=float, default=defaults.late_share,
                        help="share of pods unschedulable until their node pool is added")
    parser.add_argument("--pods-per-node", type=int, default=defaults.pods_per_node)
    parser.add_argument("--creators", type=int, default=defaults.creators, help="parallel creating clients")
    parser.add_argument("--qps", type=float, default=None, help="kubeberth's clientConnection qps (default 50)")
    parser.add_argument("--interval", type=float, default=defaults.interval, help="sampling period, seconds")
    parser.add_argument("--timeout", type=float, default=defaults.timeout, help="seconds for every pod to bind")
    parser.add_argument("--json", type=Path, help="also write the result (with every sample) here")
    args = parser.parse_args()
    if args.pods < 1 or not 0 <= args.late_share < 1 or args.delay < 0:
        print("overload: --pods must be >= 1, --late-share in [0, 1), --delay >= 0", file=sys.stderr)
        return 2
    settings = Settings(pods=args.pods, delay=args.delay, late_share=args.late_share,
                        pods_per_node=args.pods_per_node, creators=args.creators, qps=args.qps,
                        interval=args.interval, timeout=args.timeout, cleanup=False)
    cal = calibration()
    with LocalControlPlane(extra_apiserver_args=["--max-requests-inflight=2000",
                                                 "--max-mutating-requests-inflight=1000"]) as cp:
        cp.kubectl("apply", "-f", str(REPO / "config" / "rbac.yaml"))
        sa = cp.kubeconfig_for_service_account("kube-system", "kubeberth")
        with tempfile.TemporaryDirectory(prefix="overload-") as tmp:
            started = time.monotonic()
            result = run(cp, sa, Path(tmp), settings, lambda line: print(line, file=sys.stderr, flush=True))
            result["wall_s"] = round(time.monotonic() - started, 1)
    result["calibration_sum_range_1e6_ms"] = round(cal * 1000, 2)
    samples = result.pop("samples")
    if args.json:
        args.json.write_text(json.dumps({**result, "samples": samples}, indent=1))
    print(json.dumps(result, indent=1))
    return 1 if result["broken"] else 0


if __name__ == "__main__":
    sys.exit(main())

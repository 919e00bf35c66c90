"""The soak (scripts/soak.py), CI-sized: 3 minutes of churn against its own real kube-apiserver + etcd,
with a plugin reload every 20 s, one API server restart (at 1.5 min) and one leader failover
(at 2 min, SIGKILL); the same code and promises as the 60-minute run in docs/reliability.md.

Its own control plane, not the session's: the soak SIGKILLs the API server. RSS drift is held to
25 % rather than 5 %: three minutes hold no warm-up worth the name (the first minute is the informer
caches and the occupancy filling, about 3 MiB per 30 s on a 100 MiB process), so the check is from
the window after the first minute to the last, and catches only a gross leak; the 5 % promise is the
60-minute run's. The attempt p99 may grow 3x between quiet 30 s windows (2x for the hour): on two
shared cores a 30 s window holds ~300 attempts, so its p99 is the 3rd slowest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "soak.py"


@pytest.mark.timeout(420)
def test_three_minute_soak_keeps_every_promise(tmp_path: Path, record_property: object) -> None:
    if os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1":
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    out = tmp_path / "soak"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--minutes", "3", "--reload-every", "20", "--restart-every", "90",
         "--failover-every", "120", "--window", "30", "--warmup", "60", "--lead-warmup", "30", "--max-rss-drift", "25",
         "--max-p99-growth", "3", "--settle", "60", "--out", str(out)],
        capture_output=True, text=True, timeout=400,
    )
    wall = time.monotonic() - started
    sys.stderr.write(proc.stderr[-6000:] + f"\n[e2e] soak wall {wall:.0f}s\n")
    assert (out / "summary.json").exists(), proc.stderr[-4000:]
    summary = json.loads((out / "summary.json").read_text())
    record_property("soak_wall_seconds", round(wall))  # type: ignore[operator]
    assert summary["broken"] == [], summary["broken"]
    assert proc.returncode == 0, proc.stderr[-4000:]
    pods = summary["pods"]
    assert pods["lost"] == 0 and pods["create_failures"] == 0
    # 10/s for 180 s is 1,800; creates wait out the API server restart (5-35 s here, loaded or not)
    assert pods["created"] >= 1200 and pods["deleted"] >= 800  # each deleted 30 s after it was bound
    assert summary["double_bound_or_moved"] == 0
    assert summary["reloads_written"] == 8
    assert summary["reloads_by_result"].get("success", 0) >= 8  # every replica running applies each version
    assert summary["apiserver_restarts"] == 1
    assert len(summary["failovers"]) == 1
    assert summary["rss_drift"], "no replica's RSS drift was measured"
    assert summary["overcommit_checks"] >= 5

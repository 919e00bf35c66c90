"""The example load-aware profile on the example cluster, offline from a metrics snapshot:
`kubeberth simulate --metrics-snapshot` keeps pods off the hot nodes (numbers in docs/load-aware.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "config" / "load-aware" / "cluster.yaml"
SNAPSHOT = ROOT / "config" / "load-aware" / "metrics-snapshot.yaml"
HOT, BUSY = {f"node-{i:02d}" for i in range(4)}, {f"node-{i:02d}" for i in range(4, 8)}


def simulate(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "kubeberth", "simulate", "--cluster", str(CLUSTER), "--json",
                          "--placements", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_example_profile_avoids_overloaded_nodes() -> None:
    default = Counter(simulate()["placements"].values())
    aware = simulate("--config", str(ROOT / "config/examples/load-aware.yaml"), "--metrics-snapshot", str(SNAPSHOT))
    placed = Counter(aware["placements"].values())
    assert aware["scheduled"] == 60
    assert sum(default[n] for n in HOT) == 20  # requests alone spread evenly, hot nodes included
    assert sum(placed[n] for n in HOT) == 0
    assert sum(placed[n] for n in BUSY) < sum(placed.values()) - sum(placed[n] for n in BUSY)


def test_bad_snapshot_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "snap.yaml"
    bad.write_text("nodes:\n  node-00: {cpu: 1.7}\n")
    out = subprocess.run([sys.executable, "-m", "kubeberth", "simulate", "--cluster", str(CLUSTER), "--config",
                          str(ROOT / "config/examples/load-aware.yaml"), "--metrics-snapshot", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert f"{bad}: node-00.cpu: 1.7 is a fraction and must be within 0..1" in line

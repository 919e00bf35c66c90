"""`kubeberth simulate --report`: the page is rendered in a real headless Chromium (Debian's
`chromium`, provisioned by scripts/provision-chromium.sh) and must load with no error and no
network, show every node in the heat map, and open a pod's explain story from its link."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROVISION = REPO / "scripts" / "provision-chromium.sh"
MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""


@pytest.fixture(scope="session")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("KUBEBERTH_SKIP_E2E"):
        pytest.skip("no chromium on PATH and KUBEBERTH_SKIP_E2E=1 (run scripts/provision-chromium.sh)")
    proc = subprocess.run(["bash", str(PROVISION)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1]


def run_chromium(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """Headless, no sandbox (root in CI), no background traffic, a fresh profile, and every request
    sent to a closed proxy port, so a page that needed the network would log a load error."""
    argv = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
        "--proxy-server=http://127.0.0.1:9", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000", *args,
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=240)


def console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line and re.search(r"Uncaught|Error|Failed to load", line)]


def write_report(tmp_path: Path, *extra: str) -> Path:
    report = tmp_path / "report.html"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")}
    proc = subprocess.run([sys.executable, "-m", "kubeberth", "simulate", "--nodes", "24", "--pods", "160", "--seed", "5",
                           "--report", str(report), *extra], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"report written to {report}" in proc.stdout
    return report


def status_of(dom: str) -> dict[str, str]:
    m = re.search(r'<span id="render-status"([^>]*)>([^<]*)<', dom)
    assert m, "render-status missing from the rendered page"
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1)))
    return {**attrs, "text": m.group(2)}


def test_report_renders_in_chromium(chromium: str, tmp_path: Path) -> None:
    report = write_report(tmp_path)
    page = report.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"https?:", page), "the report must not load anything"
    pod = re.findall(r'data-key="([^"]+)"', page)[7]
    proc = run_chromium(chromium, tmp_path / "profile", "--dump-dom", f"{report.as_uri()}#explain={pod}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    status = status_of(dom)
    assert (status["nodes"], status["errors"]) == ("24", "0"), status
    assert int(status["svg"]) >= 1, "plotly drew no SVG for the heat map"
    assert console_errors(proc.stderr) == []
    assert dom.count('<tr data-state="') == 160
    # The explain link opened the pod's story.
    panel = re.search(r'<div id="explain"[^>]*>(.*?)</div>', dom, re.S)
    assert panel and panel.group(1).startswith(f"Pod {pod}: "), panel and panel.group(1)[:200]
    assert "Cycles (" in panel.group(1) or "No scheduling cycle" in panel.group(1)


def test_compare_report_and_screenshot(chromium: str, tmp_path: Path) -> None:
    config = tmp_path / "packing.yaml"
    config.write_text(MOST_ALLOCATED)
    report = write_report(tmp_path, "--compare", str(config))
    png = tmp_path / "report.png"
    proc = run_chromium(chromium, tmp_path / "profile", "--screenshot=" + str(png), "--window-size=1280,1600",
                        "--hide-scrollbars", report.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert console_errors(proc.stderr) == []
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1280, 1600)
    dom = run_chromium(chromium, tmp_path / "profile2", "--dump-dom", report.as_uri()).stdout
    status = status_of(dom)
    assert (status["nodes"], status["errors"]) == ("24", "0"), status
    assert "What changes:" in dom and 'id="changes"' in dom and 'id="zones"' in dom

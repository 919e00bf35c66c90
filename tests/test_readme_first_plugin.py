"""The README's first-plugin path, exactly as written: its plugin file, configuration, commands and test.

The code blocks are read from README.md, so a change to the README that breaks the path fails here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
SECTION = README[README.index("## Write your first plugin"):README.index("## Run it on a real cluster")]
BLOCKS = [(m["lang"], textwrap.dedent(m["body"])) for m in re.finditer(
    r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```", SECTION, re.S | re.M)]
PENDING = ("0/4 nodes are available: 4 node(s) are not for team c. "
           "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.")


def block(lang: str, marker: str) -> str:
    [found] = [body for kind, body in BLOCKS if kind == lang and marker in body]
    return found


def commands(marker: str) -> list[list[str]]:
    """The `kubeberth ...` lines of a shell block (fenced or indented) containing `marker`."""
    lines = [ln.strip() for ln in SECTION.splitlines() if ln.strip().startswith("kubeberth ") and marker in ln]
    assert lines, marker
    return [shlex.split(ln) for ln in lines]


def kubeberth(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    assert args[0] == "kubeberth"
    return subprocess.run([sys.executable, "-m", "kubeberth.apps.cli", *args[1:]], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")})


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's folder after steps 1 and 2, with the repository's config/ beside it."""
    work = tmp_path_factory.mktemp("first-plugin")
    (work / "my-plugins").mkdir()
    (work / "my-plugins" / "team_nodes.py").write_text(block("python", "class TeamNodes"))
    (work / "my-scheduler-config.yaml").write_text(block("yaml", "name: TeamNodes"))
    (work / "config").symlink_to(ROOT / "config")
    return work


def test_plugins_list_shows_the_dropin(workdir: Path) -> None:
    [cmd] = [c for c in commands("plugins list") if "--plugins-dir" in c]
    proc = kubeberth(cmd, workdir)
    assert proc.returncode == 0, proc.stderr
    [row] = [ln for ln in proc.stdout.splitlines() if ln.startswith("TeamNodes ")]
    assert f"dropin:{workdir / 'my-plugins'}" in row or "dropin:my-plugins" in row
    assert row.split()[-3:] == ["filter,", "normalize_score,", "score"]


def test_simulate_places_pods_as_the_readme_says(workdir: Path) -> None:
    [cmd] = commands("--placements")
    proc = kubeberth(cmd, workdir)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    placements = out["placements"]
    assert placements["default/web-1"] == placements["default/web-2"] == "team-a-big"
    assert placements["default/batch-1"] == "team-b"
    assert "default/search-1" not in placements
    assert out["unschedulable_reasons"] == {PENDING: 1}
    assert f"`{PENDING}`" in SECTION
    assert out["scheduled"] == 4 and out["errored"] == 0
    assert "TeamNodes" in out["plugins"]["filter"] and "TeamNodes" in out["plugins"]["score"]


def test_explain_tells_why_a_pod_is_pending(workdir: Path) -> None:
    [cmd] = commands("--explain")
    proc = kubeberth(cmd, workdir)
    assert proc.returncode == 0, proc.stderr
    assert PENDING in proc.stdout
    assert "TeamNodes" in proc.stdout


def test_without_the_config_the_plugin_does_nothing(workdir: Path) -> None:
    [cmd] = commands("--placements")
    at = cmd.index("--config")
    proc = kubeberth(cmd[:at] + cmd[at + 2:], workdir)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "TeamNodes" not in out["plugins"]["filter"]
    assert out["placements"]["default/search-1"]  # nothing keeps team c off the nodes


def test_the_readme_test_passes(workdir: Path) -> None:
    tests = workdir / "tests"
    tests.mkdir()
    (tests / "test_team_nodes.py").write_text(block("python", "def test_team_nodes"))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=workdir,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_new_plugin_command_makes_what_the_readme_lists(tmp_path: Path) -> None:
    [cmd] = commands("new-plugin")
    proc = kubeberth(cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr
    pkg = tmp_path / cmd[cmd.index("--dir") + 1]
    for rel in ("pyproject.toml", "src/kubeberth_team_nodes/team_nodes.py", "scheduler-config.yaml", "cluster.yaml",
                "README.md", "tests/test_team_nodes.py"):
        assert (pkg / rel).is_file(), rel

"""mypy is clean on the whole package: kubeberth, its built-in plugins and contrib, with
pyproject.toml's [tool.mypy] (which also holds kubeberth.api to mypy's --strict flags).

The install maps core/, builtin_plugins/ and contrib/ under the one name `kubeberth` (an editable
install does it with an import hook mypy does not follow), so mypy is pointed at a folder that
rebuilds that layout from links: `kubeberth/` holds a link to each entry of core/, plus
`builtin_plugins` and `contrib`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = {"builtin_plugins": ROOT / "builtin_plugins", "contrib": ROOT / "contrib"}


def _package_layout(src: Path) -> None:
    """`src/kubeberth` as the install lays it out, from links into the checkout."""
    package = src / "kubeberth"
    package.mkdir(parents=True)
    for entry in (ROOT / "core").iterdir():
        if entry.name != "__pycache__" and entry.name not in SUBPACKAGES:
            (package / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for name, folder in SUBPACKAGES.items():
        (package / name).symlink_to(folder, target_is_directory=True)


def _mypy(tmp_path: Path, config: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "src"
    _package_layout(src)
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), *targets]
    env = {**os.environ, "MYPYPATH": str(src)}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=src, env=env, timeout=1200)


@pytest.mark.timeout(1200)
def test_package_is_mypy_clean(tmp_path: Path) -> None:
    proc = _mypy(tmp_path, ROOT / "pyproject.toml", "-p", "kubeberth")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout


@pytest.mark.timeout(1200)
def test_plugin_api_is_mypy_strict(tmp_path: Path) -> None:
    """kubeberth.api, what every plugin is written against (the views, the Handle, the hookspecs), under --strict."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\nfollow_imports = silent\nstrict = True\n")
    proc = _mypy(tmp_path, config, "-p", "kubeberth.api")
    assert proc.returncode == 0, proc.stdout + proc.stderr

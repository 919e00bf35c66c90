"""mypy is clean on the public plugin API: kubeberth, kubeberth.api, the types it exports and the test kit.

The package is mapped from core/ at install time, so mypy is pointed at a folder where the name
`kubeberth` links to core/ (editable installs use an import hook mypy does not follow).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = [
    "-p", "kubeberth.api",
    "-p", "kubeberth.testing",  # the plugin-author test kit is public API too
    "-m", "kubeberth.apps.newplugin",
    "-m", "kubeberth",
    "-m", "kubeberth.objects",
    "-m", "kubeberth.cache.cluster",
    "-m", "kubeberth.cache.nodetable",
    "-m", "kubeberth.cache.podinfo",
    "-m", "kubeberth.cache.quantity",
]


def test_public_api_is_mypy_clean(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kubeberth").symlink_to(ROOT / "core", target_is_directory=True)
    config = tmp_path / "mypy.ini"
    # Only the public modules are reported; the layers behind them are followed silently.
    config.write_text("[mypy]\nignore_missing_imports = True\nfollow_imports = silent\nwarn_unused_ignores = True\n")
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), *PUBLIC]
    env = {**os.environ, "MYPYPATH": str(tmp_path / "src")}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path / "src", env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found")


def test_plugin_api_is_mypy_strict(tmp_path: Path) -> None:
    """kubeberth.api, what every plugin is written against (the views, the Handle, the hookspecs), under --strict."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kubeberth").symlink_to(ROOT / "core", target_is_directory=True)
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\nfollow_imports = silent\nstrict = True\n")
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
           "-p", "kubeberth.api"]
    env = {**os.environ, "MYPYPATH": str(tmp_path / "src")}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path / "src", env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr

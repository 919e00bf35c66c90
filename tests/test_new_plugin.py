"""`kubeberth new-plugin`: the generated package installs with pip and passes its own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kubeberth.apps import cli
from kubeberth.apps.newplugin import PluginNames


@pytest.mark.parametrize(
    ("name", "plugin", "module", "dist", "package"),
    [
        ("TeamNodes", "TeamNodes", "team_nodes", "kubeberth-team-nodes", "kubeberth_team_nodes"),
        ("team-nodes", "TeamNodes", "team_nodes", "kubeberth-team-nodes", "kubeberth_team_nodes"),
        ("gpu_binpack", "GpuBinpack", "gpu_binpack", "kubeberth-gpu-binpack", "kubeberth_gpu_binpack"),
        ("GPUBinPack", "GPUBinPack", "gpu_bin_pack", "kubeberth-gpu-bin-pack", "kubeberth_gpu_bin_pack"),
        ("spread", "Spread", "spread", "kubeberth-spread", "kubeberth_spread"),
    ],
)
def test_plugin_names(name: str, plugin: str, module: str, dist: str, package: str) -> None:
    assert PluginNames.parse(name) == PluginNames(plugin, module, dist, package)


@pytest.mark.parametrize("name", ["1st", "team nodes", "team--nodes", "x-", "ünïcode", "a.b"])
def test_bad_names_are_one_line_and_exit_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new-plugin", name, "--dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{name!r} is not a plugin name" in err
    assert not (tmp_path / "x").exists()


def test_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    assert cli.main(["new-plugin", "TeamNodes", "--dir", str(tmp_path)]) == 2
    assert "already exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_generated_package_installs_and_passes_its_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pkg = tmp_path / "gpu-fit"
    assert cli.main(["new-plugin", "GpuFit", "--dir", str(pkg)]) == 0
    assert f"created {pkg}/ with plugin GpuFit" in capsys.readouterr().out
    assert sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*") if p.is_file()) == [
        "README.md", "cluster.yaml", "pyproject.toml", "scheduler-config.yaml",
        "src/kubeberth_gpu_fit/__init__.py", "src/kubeberth_gpu_fit/gpu_fit.py", "tests/test_gpu_fit.py",
    ]
    # Lint-clean under its own settings (ruff comes with kubeberth's test extra).
    _run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=pkg)
    # A real pip install of the package (kubeberth itself comes from this environment).
    site = tmp_path / "site"
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
          "--no-index", "--target", str(site), str(pkg)])
    assert (site / "kubeberth_gpu_fit" / "gpu_fit.py").is_file()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTEST_ADDOPTS", None)
    # The generated tests run from the package folder, against the installed copy, in a fresh process.
    proc = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=pkg, env=env)
    assert "6 passed" in proc.stdout, proc.stdout
    # The installed entry point is what `kubeberth plugins list` and a configuration see.
    proc = _run([sys.executable, "-m", "kubeberth.apps.cli", "plugins", "list", "--json"], env=env)
    [row] = [r for r in json.loads(proc.stdout) if r["name"] == "GpuFit"]
    assert row["source"] == "entrypoint:kubeberth-gpu-fit==0.1.0"
    assert row["hooks"] == ["filter", "normalize_score", "score"]
    proc = _run([sys.executable, "-m", "kubeberth.apps.cli", "simulate", "--config", "scheduler-config.yaml",
                 "--cluster", "cluster.yaml", "--json", "--placements"], cwd=pkg, env=env)
    out = json.loads(proc.stdout)
    assert out["scheduled"] == 3 and out["errored"] == 0
    assert out["placements"]["default/web-1"].startswith("team-a-")
    assert out["placements"]["default/web-2"].startswith("team-a-")
    assert out["placements"]["default/web-1"] != out["placements"]["default/web-2"]  # spread by free pod slots

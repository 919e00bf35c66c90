"""The path a user takes once kubeberth is published: build the sdist and wheel, check their
metadata, install the wheel (not editable) into a fresh virtual environment and use it from there.

The wheel is built from the sdist (as `python -m build` does), so a file the sdist forgets fails
here. The environment gets the core install only (no extras), so the commands that need an extra
must say which, and the core install must schedule on its own; then a third-party plugin package is
pip-installed into it and scheduled with. Finally the CEL package's command-line stack (typer, rich,
prompt-toolkit, pygments; the image installs common-expression-language with --no-deps) is removed
and DRA CEL selectors still place the same pods.
"""

from __future__ import annotations

import email.parser
import json
import os
import subprocess
import sys
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import kubeberth
import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "thirdparty_plugin"
CEL_CLI_STACK = ["typer", "rich", "prompt-toolkit", "pygments"]
pytestmark = pytest.mark.timeout(600)


def _run(cmd: list[str], cwd: Path | None = None, check: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "KUBEBERTH_", "PYTEST_"))}
    full_env.update(env)
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=420, env=full_env)
    if check:
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_every_source_package_is_in_the_wheel_list() -> None:
    """pyproject.toml lists the packages (core/ is mapped to `kubeberth`): a new folder must be added
    there, or the wheel ships without it while the editable install still works."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {v: k for k, v in tool["package-dir"].items()}
    found = {
        ".".join((package, *init.parent.relative_to(ROOT / folder).parts))
        for folder, package in folders.items()
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert sorted(found - set(tool["packages"])) == []


def test_version_is_written_once() -> None:
    """pyproject.toml reads the version from kubeberth.__version__; `kubeberth --version` prints it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kubeberth.__version__"}
    proc = _run([sys.executable, "-m", "kubeberth", "--version"])
    assert proc.stdout == f"kubeberth {kubeberth.__version__}\n"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without build isolation: the test environment has the build backend (the test extra pins its floor).
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)])
    _run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(PLUGIN)])
    return out


@pytest.fixture(scope="module")
def env(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("venv") / "venv"
    venv.create(root, with_pip=True)
    [wheel] = dist.glob(f"kubeberth-{kubeberth.__version__}-*.whl")
    # --no-compile: byte-compiling the dependencies (the kubernetes client's thousands of modules) is
    # most of an install's time; Python compiles what it imports anyway.
    _run([str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check",
          str(wheel)])
    yield root


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(z.read(name).decode())


def test_sdist_and_wheel_metadata(dist: Path) -> None:
    version = kubeberth.__version__
    [sdist] = dist.glob(f"kubeberth-{version}.tar.gz")
    [wheel] = dist.glob(f"kubeberth-{version}-py3-none-any.whl")
    _run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)])
    meta = _metadata(wheel)
    assert (meta["Name"], meta["Version"]) == ("kubeberth", version)
    assert meta["License-Expression"] == "Apache-2.0" and meta["License-File"] == "LICENSE"
    assert sorted(meta.get_all("Provides-Extra")) == ["all", "contrib", "etcd", "otlp-grpc", "report", "test"]
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier")
    assert meta.get_all("Project-URL")
    # The wheel says what pyproject.toml says, core and extras alike.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requires = meta.get_all("Requires-Dist")
    for req in project["dependencies"]:
        assert req in requires
    for extra, reqs in project["optional-dependencies"].items():
        for req in reqs:
            assert any(r.startswith(req.split("[")[0]) and f'extra == "{extra}"' in r for r in requires), (extra, req)
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        entry_points = z.read(f"kubeberth-{version}.dist-info/entry_points.txt").decode()
    assert f"kubeberth-{version}.dist-info/licenses/LICENSE" in names
    assert {"kubeberth/py.typed", "kubeberth/contrib/__init__.py", "kubeberth/builtin_plugins/__init__.py"} <= names
    assert "[pytest11]" in entry_points and "NodeResourcesFit = kubeberth.builtin_plugins" in entry_points


def test_the_installed_wheel_schedules_and_names_missing_extras(env: Path, tmp_path: Path) -> None:
    exe = str(env / "bin" / "kubeberth")
    where = _run([str(env / "bin" / "python"), "-c", "import kubeberth; print(kubeberth.__file__)"]).stdout
    assert where.startswith(str(env)), where  # the installed copy, not the checkout
    assert _run([exe, "--version"]).stdout.strip() == f"kubeberth {kubeberth.__version__}"
    out = json.loads(_run([exe, "simulate", "--nodes", "50", "--pods", "100", "--seed", "1", "--json"]).stdout)
    assert out["nodes"] == 50 and out["scheduled"] + out["unschedulable"] == 100 and out["errored"] == 0
    assert out["scheduled"] > 0
    # No extras installed: each feature that needs one says which, in one line, exit 2.
    report = _run([exe, "simulate", "--nodes", "5", "--pods", "5", "--report", str(tmp_path / "r.html")], check=False)
    assert (report.returncode, report.stderr) == (
        2, "error: simulate --report needs the 'report' extra: pip install 'kubeberth[report]'\n")
    assert not (tmp_path / "r.html").exists()
    grpc = _run([exe, "simulate", "--nodes", "5", "--pods", "5"], check=False,
                OTEL_EXPORTER_OTLP_PROTOCOL="grpc", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert grpc.returncode == 2
    assert grpc.stderr.strip().splitlines()[-1] == (
        "error: OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs the 'otlp-grpc' extra: pip install 'kubeberth[otlp-grpc]'")
    contrib = _run([exe, "simulate", "--nodes", "5", "--pods", "5", "--config", str(ROOT / "config/examples/load-aware.yaml")],
                   check=False)
    assert contrib.returncode == 2
    [line] = contrib.stderr.strip().splitlines()
    assert line.startswith("error: ") and line.endswith("needs the 'contrib' extra: pip install 'kubeberth[contrib]'")


def test_a_pip_installed_plugin_package_schedules(env: Path, dist: Path, tmp_path: Path) -> None:
    [wheel] = dist.glob("kubeberth_teamquota-1.0.0-*.whl")
    _run([str(env / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
          str(wheel)])
    exe = str(env / "bin" / "kubeberth")
    rows = {r["name"]: r for r in json.loads(_run([exe, "plugins", "list", "--json"]).stdout)}
    assert rows["TeamQuota"]["source"] == "entrypoint:kubeberth-teamquota==1.0.0"
    assert rows["TeamQuota"]["hooks"] == ["filter"]
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled:\n      - name: TeamQuota\n"
        "  pluginConfig:\n  - name: TeamQuota\n    args: {maxPerNode: 1}\n"
    )
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{allocatable: {{cpu: '8', pods: '110'}}}}\n"
            for i in range(2)]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: a{i}, namespace: default, labels: {{team: a}}}}\n"
             "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}\n" for i in range(3)]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("---\n".join(docs))
    out = json.loads(_run([exe, "simulate", "--config", str(config), "--cluster", str(cluster), "--json",
                           "--placements"]).stdout)
    assert out["scheduled"] == 2 and out["unschedulable"] == 1
    assert sorted(v for v in out["placements"].values() if v) == ["n0", "n1"]  # one team pod per node
    assert "reached the team's pod limit" in json.dumps(out["unschedulable_reasons"])


def test_dra_cel_selectors_without_the_cel_command_line_stack(env: Path) -> None:
    exe = str(env / "bin" / "kubeberth")
    cmd = [exe, "simulate", "--cluster", str(ROOT / "config/examples/dra-gpus-cluster.yaml"), "--json", "--placements"]
    before = json.loads(_run(cmd).stdout)
    assert before["scheduled"] == 4 and before["errored"] == 0
    _run([str(env / "bin" / "python"), "-m", "pip", "uninstall", "-y", "-q", *CEL_CLI_STACK])
    probe = f"import importlib.util as u; print([m for m in {CEL_CLI_STACK!r} if u.find_spec(m.replace('-', '_'))])"
    assert _run([str(env / "bin" / "python"), "-c", probe]).stdout.strip() == "[]"
    after = json.loads(_run(cmd).stdout)
    assert after["placements"] == before["placements"]
    assert (after["scheduled"], after["unschedulable"], after["errored"]) == (4, 1, 0)

"""`import kubeberth` and the pytest11 hook stay cheap; the public names still resolve.

The pytest11 entry point (kubeberth.testing.plugin) is loaded by every pytest session of an
environment that has kubeberth installed, so neither it nor `import kubeberth` may pull in numpy,
pydantic or the framework: the public names are imported on first use (kubeberth.__getattr__).
Checked on sys.modules in a fresh interpreter rather than by timing.
"""

from __future__ import annotations

import json
import subprocess
import sys

import kubeberth
import pytest
from kubeberth.api.extras import EXTRAS, MissingExtraError, require_extra

HEAVY = ("numpy", "pydantic", "kubeberth.runtime", "kubeberth.cache", "kubeberth.api", "prometheus_client", "yaml")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_pytest_hook_imports_nothing_heavy() -> None:
    # Loaded the way pytest loads it: through the pytest11 entry point.
    code = (
        "from importlib.metadata import entry_points\n"
        "[ep] = [e for e in entry_points(group='pytest11') if e.name == 'kubeberth']\n"
        "ep.load()"
    )
    modules = _modules_after(code)
    assert "kubeberth.testing.plugin" in modules
    assert _heavy(modules) == []


def test_import_kubeberth_imports_nothing_heavy() -> None:
    modules = _modules_after("import kubeberth, kubeberth.testing; kubeberth.__version__")
    assert _heavy(modules) == []


def test_a_public_name_imports_its_module_on_first_use() -> None:
    modules = _modules_after("from kubeberth import Status")
    assert "kubeberth.api.status" in modules
    assert "kubeberth.runtime.framework" not in modules


def test_every_public_name_resolves_to_its_definition() -> None:
    for name in kubeberth.__all__:
        value = getattr(kubeberth, name)
        assert value is not None, name
    assert kubeberth.Status.__module__ == "kubeberth.api.status"
    assert kubeberth.helpers.__name__ == "kubeberth.api.helpers"
    assert "Pod" in kubeberth.objects.__all__  # kubeberth.api.objects re-exports kubeberth.objects
    assert set(kubeberth.__all__) <= set(dir(kubeberth))
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = kubeberth.NoSuchName  # type: ignore[attr-defined]


def test_require_extra_names_the_extra_for_a_missing_module() -> None:
    with pytest.raises(MissingExtraError) as info:
        require_extra("report", "simulate --report", module="kubeberth_no_such_module.sub")
    assert str(info.value) == "simulate --report needs the 'report' extra: pip install 'kubeberth[report]'"
    assert require_extra("report", "x", module="json") is json


def test_require_extra_lets_other_import_failures_through(tmp_path, monkeypatch) -> None:
    # The extra's module is there but broken (a dependency of its own is missing): not an extras problem.
    (tmp_path / "kubeberth_broken_extra.py").write_text("import kubeberth_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="kubeberth_missing_dependency"):
        require_extra("contrib", "x", module="kubeberth_broken_extra")


def test_every_extra_is_declared_in_pyproject() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    declared = project["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    assert "kubeberth[report,contrib,otlp-grpc,etcd]" in declared["all"]
    assert "kubeberth[all]" in declared["test"]

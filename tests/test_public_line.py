"""The public line: plugins in builtin_plugins/ and contrib/ live on the public plugin API only.

A plugin may import `kubeberth` and `kubeberth.api` (hook specs, types, helpers, the Handle), its
own package's modules, and public names of other plugins. It may not import an underscore name
from anywhere in kubeberth, nor reach into the layers behind the API (cache, runtime, scheduling,
backends, apps, observability): those change without notice. Nor may it import the scheduler's
cache classes by name (ClusterState, NodeTable, PodInfo, DeviceState, with their assume/forget/
upsert mutators): it reads the cache through the read-only views of kubeberth.api.views
(ClusterView, NodeTableView, PodView, ...). Checked on the source's AST, so a new violation fails
here with the file and line; tests/test_layers.py holds the layers behind the API to their order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIRS = {"builtin_plugins": "kubeberth.builtin_plugins", "contrib": "kubeberth.contrib"}
PUBLIC_MODULES = ("kubeberth", "kubeberth.api")
PLUGIN_PACKAGES = tuple(PLUGIN_DIRS.values())
WRITABLE = frozenset({"ClusterState", "NodeTable", "PodInfo", "DeviceState", "Hypothetical", "PodLabelCounts"})


def _allowed_module(module: str) -> bool:
    if module in PUBLIC_MODULES or module.startswith("kubeberth.api."):
        return True
    return any(module == p or module.startswith(p + ".") for p in PLUGIN_PACKAGES)


def _private(name: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def violations(source: str, module: str, where: str) -> list[str]:
    """Every import in `source` (the module named `module`) that crosses the public line."""
    package = module.rsplit(".", 1)[0]
    # A plugin that is a package (e.g. default_preemption/) may share private names inside itself.
    own = package if package not in PLUGIN_PACKAGES else module
    out: list[str] = []
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kubeberth") and (not _allowed_module(alias.name) or _private(alias.name)):
                    out.append(f"{where}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("kubeberth"):
                continue
            inside = target == own or target.startswith(own + ".")
            if not _allowed_module(target) or (_private(target) and not inside):
                out.append(f"{where}:{node.lineno}: from {target} import ...")
                continue
            if inside:
                continue
            for alias in node.names:
                if _private(alias.name) or alias.name in WRITABLE:
                    out.append(f"{where}:{node.lineno}: from {target} import {alias.name}")
    return out


def module_name(path: Path, folder: str) -> str:
    parts = path.relative_to(ROOT / folder).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PLUGIN_DIRS[folder], *parts))


def test_plugins_import_only_the_public_api() -> None:
    found = [
        v
        for folder in PLUGIN_DIRS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for v in violations(path.read_text(), module_name(path, folder), str(path.relative_to(ROOT)))
    ]
    assert found == [], "imports across the public line:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from kubeberth import PodView, hookimpl\n", []),
        ("from kubeberth.api.helpers import LabelSelector\n", []),
        ("from kubeberth.api.helpers import _req_key\n", ["from kubeberth.api.helpers import _req_key"]),
        ("from kubeberth.runtime.framework import Framework\n", ["from kubeberth.runtime.framework import ..."]),
        ("import kubeberth.cache.nodetable\n", ["import kubeberth.cache.nodetable"]),
        ("from kubeberth.builtin_plugins.node_resources_fit import _StrictModel\n",
         ["from kubeberth.builtin_plugins.node_resources_fit import _StrictModel"]),
        ("from kubeberth.builtin_plugins._selectors import x\n", ["from kubeberth.builtin_plugins._selectors import ..."]),
        ("from .node_resources_fit import ResourceSpec\n", []),
        ("from .node_resources_fit import _private\n", ["from kubeberth.builtin_plugins.node_resources_fit import _private"]),
        ("from kubeberth import _version\n", ["from kubeberth import _version"]),
        ("from kubeberth import ClusterState, Status\n", ["from kubeberth import ClusterState"]),
        ("from kubeberth.api.helpers import PodInfo\n", ["from kubeberth.api.helpers import PodInfo"]),
    ],
)
def test_the_check_catches_each_kind_of_crossing(source: str, expected: list[str]) -> None:
    found = [v.split(": ", 1)[1] for v in violations(source, "kubeberth.builtin_plugins.probe", "probe.py")]
    assert found == expected


def test_a_plugin_package_may_share_private_names_inside_itself() -> None:
    module = "kubeberth.builtin_plugins.default_preemption.plugin"
    assert violations("from .evaluator import _Outcome\n", module, "plugin.py") == []
    assert violations("from ..volume_binding import _meta\n", module, "plugin.py") == [
        "plugin.py:1: from kubeberth.builtin_plugins.volume_binding import _meta"
    ]

"""The import contract of kubeberth's internal layers, checked on the source's AST.

kube-scheduler keeps its plugin API (k8s.io/kube-scheduler/framework) below the scheduler that
implements it; kubeberth's layers are stacked the same way, bottom first:

    errors, objects      exceptions and the typed Kubernetes object shapes
    cache                ClusterState, NodeTable, PodInfo, DeviceState (the scheduler's cache)
    api                  the plugin API: hookspecs, status, types, views, handle, helpers
    backends             the cluster seam: embedded and kubernetes
    runtime              configuration, discovery, generations, the Framework
    scheduling           the loop: queue, scheduling and binding cycles, the handle
    observability        traces, metrics, decision records, explain
    apps                 cli, simulate, bench, run, the servers
    testing              the plugin-author test kit

A module imports its own layer and the layers below it, never one above. Imports under
`if TYPE_CHECKING:` are held to the same rule, with one allowance: a lower layer may name
`kubeberth.api` types there (the cache implements the api's read-only views, as a Go package
implements an interface it imports). The facade (`kubeberth`, core/__init__.py) sits on top; below
it, only `__version__` may be read from it. And no two modules import each other at import time.
builtin_plugins/ and contrib/ are held to the public line by tests/test_public_line.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "core"
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "objects"),
    ("cache",),
    ("api",),
    ("backends",),
    ("runtime",),
    ("scheduling",),
    ("observability",),
    ("apps",),
    ("testing",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
TOP = len(LAYERS)  # the facade and `python -m kubeberth`
TYPE_ONLY_ALLOWED = frozenset({"api"})

# Crossings allowed for a stated reason, (importing module, imported module) -> why; each must still
# occur (one removed is taken off the list). None today: every layer imports only those below it.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, e.g. kubeberth.cache.cluster
    target: str  # the imported module, e.g. kubeberth.cache.nodetable
    names: tuple[str, ...]  # names imported from it ("from X import a, b"), () for "import X"
    line: int
    type_only: bool  # under `if TYPE_CHECKING:`
    at_import: bool  # runs when the module is imported (not inside a function)


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("kubeberth", *parts))


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rsplit(".", 1)[0]
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base


def imports_of(source: str, module: str, is_package: bool) -> Iterator[Import]:
    """Every kubeberth import in a module, with where it runs."""

    def walk(node: ast.AST, type_only: bool, at_import: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.body:
                    yield from walk_one(stmt, True, at_import)
                for stmt in child.orelse:
                    yield from walk_one(stmt, type_only, at_import)
            else:
                yield from walk_one(child, type_only, at_import)

    def walk_one(node: ast.AST, type_only: bool, at_import: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kubeberth"):
                    yield Import(module, alias.name, (), node.lineno, type_only, at_import)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node)
            if target.startswith("kubeberth"):
                names = tuple(a.name for a in node.names)
                yield Import(module, target, names, node.lineno, type_only, at_import)
        else:
            inner = at_import and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(node, type_only, inner)

    yield from walk(ast.parse(source), False, True)


def all_imports() -> list[Import]:
    return [
        found
        for path in sorted(CORE.rglob("*.py"))
        for found in imports_of(path.read_text(), module_name(path), path.name == "__init__.py")
    ]


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return TOP
    return RANK[parts[1]]


def crossings(found: list[Import]) -> list[Import]:
    """Imports that point at a higher layer than their module's (the rule above)."""
    out = []
    for imp in found:
        if imp.target == "kubeberth" and imp.names == ("__version__",):
            continue
        if layer(imp.target) <= layer(imp.source):
            continue
        if imp.type_only and imp.target.split(".")[1:2] and imp.target.split(".")[1] in TYPE_ONLY_ALLOWED:
            continue
        out.append(imp)
    return out


def test_every_core_folder_has_a_layer() -> None:
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in CORE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert folders | modules <= set(RANK), f"place these in LAYERS: {sorted((folders | modules) - set(RANK))}"


def test_layers_import_only_downward() -> None:
    bad = [imp for imp in crossings(all_imports()) if (imp.source, imp.target) not in KNOWN_EXCEPTIONS]
    assert bad == [], "imports up the layers:\n" + "\n".join(
        f"{i.source}:{i.line} imports {i.target}{' (type only)' if i.type_only else ''}" for i in bad
    )


def test_known_exceptions_still_exist() -> None:
    present = {(imp.source, imp.target) for imp in crossings(all_imports())}
    gone = sorted(set(KNOWN_EXCEPTIONS) - present)
    assert gone == [], f"no longer crossing, take them off KNOWN_EXCEPTIONS: {gone}"


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _import_time_edges(found: list[Import]) -> dict[str, set[str]]:
    known = {module_name(p) for p in CORE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for imp in found:
        if imp.type_only or not imp.at_import or imp.source == "kubeberth":
            continue
        # `from pkg import mod` imports the submodule pkg.mod
        targets = [f"{imp.target}.{n}" for n in imp.names if f"{imp.target}.{n}" in known] or [imp.target]
        for target in targets:
            if target != imp.source and target in known:
                edges.setdefault(imp.source, set()).add(target)
    return edges


def test_no_import_cycles_between_modules() -> None:
    found = _cycles(_import_time_edges(all_imports()))
    assert found == [], "modules importing each other at import time:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("from ..runtime.framework import Framework\n", "kubeberth.cache.cluster", ["kubeberth.runtime.framework"]),
        ("from ..cache.nodetable import NodeTable\n", "kubeberth.runtime.framework", []),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..api.views import PodView\n",
         "kubeberth.cache.podinfo", []),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..runtime.records import Diagnosis\n",
         "kubeberth.cache.podinfo", ["kubeberth.runtime.records"]),
        ("from ..api.views import PodView\n", "kubeberth.cache.podinfo", ["kubeberth.api.views"]),
        ("def f():\n    from ..apps import cli\n", "kubeberth.scheduling.queue", ["kubeberth.apps"]),
        ("from .. import __version__\n", "kubeberth.observability.otel", []),
        ("from .. import hookimpl\n", "kubeberth.runtime.plugins", ["kubeberth"]),
    ],
)
def test_the_check_catches_each_kind_of_crossing(source: str, module: str, expected: list[str]) -> None:
    found = crossings(list(imports_of(source, module, False)))
    assert [imp.target for imp in found] == expected


def test_the_cycle_check_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

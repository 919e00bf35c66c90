"""docs/architecture.md names only what exists; the other docs name only files that exist.

Every `code span` of docs/architecture.md (and every dotted or path token of its indented blocks)
is checked against the source:
- a path (`scheduling/schedule_one.py`, `core/...`, `builtin_plugins/...`, `tests/...`) exists,
  relative to the repository or to core/ (the `kubeberth` package);
- a dotted `kubeberth.x.y` imports as a module, the rest found with getattr;
- `Class.attr` names a class defined in the package that has `attr` (getattr, or an attribute
  the class or a base annotates or assigns on `self`);
- `receiver.attr` with a lowercase receiver: the receiver is a module of the package or one of
  RECEIVERS (an instance name the doc uses), and the attribute is found on it;
- a bare name is defined in the package (def, class, assignment, annotation, module name) or is
  one of its exact string constants (event reasons, feature gates, extension point names).
The other docs' file paths (with a `/`, ending in `.py` or `/`) exist.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
SOURCE_DIRS = (REPO / "core", REPO / "builtin_plugins", REPO / "contrib")
# Instance names the doc writes as receivers, and the class each stands for.
RECEIVERS = {"handle": "Handle", "cluster": "ClusterView", "pod": "PodView", "table": "NodeTableView"}
# Kubernetes object fields (`status.nominatedNodeName`): API names, not code.
OBJECT_FIELDS = {"spec", "status", "metadata"}

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"\b{_IDENT}(?:\.{_IDENT})+")
_BARE = re.compile(rf"^{_IDENT}$")
# In indented blocks, besides dotted names and paths: capitalized names (Reloader, SwapRequest) and
# snake_case names are checked; plain words are prose.
_CAMEL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


_DEF = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+({_IDENT})", re.M)
_CLASS = re.compile(rf"^[ \t]*class[ \t]+({_IDENT})[ \t]*(?:\(([^)]*)\))?[ \t]*:", re.M)
_ASSIGN = re.compile(rf"^[ \t]*(?:self\.)?({_IDENT})[ \t]*(?::[^=\n]*)?=[^=]", re.M)
_SELF_ASSIGN = re.compile(rf"self\.({_IDENT})[ \t]*(?::[^=\n]*)?=[^=]")
_STRING = re.compile(r"\"([^\"\\\n]{1,80})\"|'([^'\\\n]{1,80})'")


@cache
def _index() -> tuple[dict[str, list[tuple[Path, tuple[str, ...]]]], frozenset[str], frozenset[str], frozenset[str]]:
    """Classes by name (file, base names), every defined name, every string constant, module
    basenames. Read with regular expressions, not parsed: the whole package in well under a second."""
    classes: dict[str, list[tuple[Path, tuple[str, ...]]]] = {}
    names: set[str] = set()
    strings: set[str] = set()
    modules: set[str] = set()
    for root in SOURCE_DIRS:
        for path in root.rglob("*.py"):
            modules.add(path.stem if path.stem != "__init__" else path.parent.name)
            text = path.read_text()
            for match in _CLASS.finditer(text):
                bases = tuple(b.strip().split("[")[0].split(".")[-1] for b in (match.group(2) or "").split(",") if b.strip())
                classes.setdefault(match.group(1), []).append((path, bases))
                names.add(match.group(1))
            names.update(_DEF.findall(text))
            names.update(_ASSIGN.findall(text))
            names.update(_SELF_ASSIGN.findall(text))
            strings.update(a or b for a, b in _STRING.findall(text))
    return classes, frozenset(names), frozenset(strings), frozenset(modules)


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    parts[0] = {"core": "kubeberth", "builtin_plugins": "kubeberth.builtin_plugins",
                "contrib": "kubeberth.contrib"}[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _class_source(path: Path, cls_name: str) -> ast.ClassDef | None:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef) and node.name == cls_name:
            return node
    return None


def _class_has(node: ast.ClassDef, attr: str) -> bool:
    """The class body declares `attr` (def, assignment, annotation) or a method assigns self.attr."""
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and item.name == attr:
            return True
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == attr:
            return True
        if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in item.targets):
            return True
    for item in ast.walk(node):
        if (isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store) and item.attr == attr
                and isinstance(item.value, ast.Name) and item.value.id == "self"):
            return True
    return False


def _class_attr(cls_name: str, attr: str) -> bool:
    """Some class named `cls_name` in the package has `attr`, itself or through its bases."""
    for path, bases in _index()[0].get(cls_name, ()):
        try:
            cls = getattr(importlib.import_module(_module_name(path)), cls_name)
        except (ImportError, AttributeError):
            cls = None
        if cls is not None and (hasattr(cls, attr) or any(attr in vars(k).get("__annotations__", {})
                                                           for k in getattr(cls, "__mro__", ()))):
            return True
        node = _class_source(path, cls_name)
        if node is not None and _class_has(node, attr):
            return True
        if any(_class_attr(b, attr) for b in bases if b != cls_name):
            return True
    return False


def _kubeberth_path(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def check_dotted(dotted: str) -> str | None:
    """None if `dotted` names something real, else why not."""
    head, _, rest = dotted.partition(".")
    classes, _, _, modules = _index()
    if head == "kubeberth":
        return None if _kubeberth_path(dotted) else "no such module or attribute"
    if head in OBJECT_FIELDS:
        return None
    attr = rest.split(".")[0]
    if head in RECEIVERS:
        head = RECEIVERS[head]
    if head[0].isupper():
        if head not in classes:
            return f"no class {head} in the package"
        return None if _class_attr(head, attr) else f"{head} has no {attr}"
    if head in modules:
        for root in SOURCE_DIRS:
            for path in root.rglob(f"{head}.py"):
                if hasattr(importlib.import_module(_module_name(path)), attr):
                    return None
        return f"no module {head} has {attr}"
    return f"unknown receiver {head!r} (a module, a class, or one of RECEIVERS)"


def check_path(path: str, bases: tuple[Path, ...] = (REPO, REPO / "core")) -> str | None:
    path = path.rstrip("/") or path
    for base in bases:
        if (base / path).exists():
            return None
    return "no such file or folder"


def _is_path(span: str) -> bool:
    first = span.split("/")[0]
    return "/" in span and " " not in span and not span.startswith("/") and (
        span.endswith((".py", "/")) or (REPO / first).is_dir() or (REPO / "core" / first).is_dir()
    )


def check_span(span: str) -> Iterator[tuple[str, str]]:
    """(name, problem) for each name in one code span that does not exist."""
    span = span.strip()
    if _is_path(span):
        problem = check_path(span)
        if problem:
            yield span, problem
        return
    if "/" in span and " " not in span:
        return  # an event (`NodeLoad/Update`) or an API group/version
    if _BARE.match(span):
        _, names, strings, modules = _index()
        if span not in names and span not in strings and span not in modules:
            yield span, "not defined in the package"
        return
    for dotted in _DOTTED.findall(span):
        if dotted.endswith((".md", ".py", ".yaml", ".html")):
            continue
        problem = check_dotted(dotted)
        if problem:
            yield dotted, problem


def code_spans(text: str) -> Iterator[tuple[int, str]]:
    """(line, span) for every inline code span, and every dotted or path token of indented blocks."""
    in_block, blank = False, True
    for number, line in enumerate(text.splitlines(), 1):
        # An indented block starts after a blank line; an indented line after text continues a list item.
        in_block = line.startswith("    ") and (blank or in_block)
        blank = not line.strip()
        if in_block:
            for token in re.findall(r"[\w./<>-]+", line):
                if _is_path(token) or (_DOTTED.fullmatch(token) and not token.endswith(".py")) \
                        or _CAMEL.fullmatch(token) or _SNAKE.fullmatch(token):
                    yield number, token
            continue
        for span in re.findall(r"`([^`\n]+)`", line):
            yield number, span


def problems(text: str) -> list[str]:
    return [f"line {n}: `{name}`: {why}" for n, span in code_spans(text) for name, why in check_span(span)]


def test_architecture_doc_names_only_what_exists() -> None:
    found = problems(DOC.read_text())
    assert not found, "docs/architecture.md names things that do not exist:\n" + "\n".join(found)


def test_architecture_doc_links_to_docs_that_exist() -> None:
    links = re.findall(r"\]\(([^)#:]+\.md)\)", DOC.read_text())
    assert links
    missing = [link for link in links if not (DOC.parent / link).exists()]
    assert not missing, f"docs/architecture.md links to missing docs: {missing}"


def test_architecture_doc_records_the_real_number_of_top_scores() -> None:
    from kubeberth.runtime.framework import TOP_SCORES_RECORDED

    assert f"`TOP_SCORES_RECORDED` ({TOP_SCORES_RECORDED})" in DOC.read_text()


@pytest.mark.parametrize(
    "wrong",
    ["`ScheduleOne.find_nodes`", "`scheduling/schedule_two.py`", "`kubeberth.runtime.framwork`",
     "`record_top_score`", "`Framework.run_filter`", "`podgroup_cycle._call`", "`FrameworkHandel`",
     "`handle.request_requeu`", "\n    Scheduler.event ─▶ x", "\n    apps/x.py  Reloadr (coalesce)"],
)
def test_a_wrong_name_is_caught(wrong: str) -> None:
    assert problems(wrong)


@pytest.mark.parametrize(
    "right",
    ["`ScheduleOne.find_node`", "`Scheduler.events`", "`kubeberth.api.handle.Handle`",
     "`core/scheduling/handle.py`", "`builtin_plugins/volume_binding/binder.py`", "`FrameworkHandle`",
     "`FailedScheduling`", "`handle.request_requeue(\"NodeLoad/Update\")`", "`status.nominatedNodeName`"],
)
def test_a_real_name_passes(right: str) -> None:
    assert not problems(right)


def _doc_paths(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        for span in re.findall(r"`([^`\n]+)`", line):
            span = span.strip()
            if "/" in span.rstrip("/") and " " not in span and "<" not in span and span.endswith((".py", "/")) \
                    and not span.startswith(("http", "/", "~", ".")):
                yield number, span


@pytest.mark.parametrize("doc", sorted(p.name for p in (REPO / "docs").glob("*.md")))
def test_docs_name_only_files_that_exist(doc: str) -> None:
    text = (REPO / "docs" / doc).read_text()
    # Elsewhere a path may also be relative to builtin_plugins/ or contrib/ (`default_preemption/victims.py`).
    bases = (REPO, *SOURCE_DIRS)
    missing = [f"line {n}: `{p}`" for n, p in _doc_paths(text) if check_path(p, bases)]
    assert not missing, f"docs/{doc} names files that do not exist:\n" + "\n".join(missing)

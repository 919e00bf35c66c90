"""Importing a drop-in plugin folder for one generation, and refusing a folder others could write.

Every build imports the folder afresh: each plugin file under a unique module name
(`kubeberth_dropin_<stem>_<digest>_b<build>`), compiled from the bytes that were hashed (never a
stale `__pycache__`), and helper modules the files import (`import _shared`, a `helpers/` package)
from the folder too. While the build runs, a finder at the front of `sys.meta_path` serves those
helper names; afterwards every module the build added is removed from `sys.modules`, so two
versions never alias each other and a released generation leaves nothing behind. Plugins keep
what they imported through their own globals. Consequence (documented in docs/hot-reload.md):
import helpers at module top level, not lazily inside a hook.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import os
import stat
import sys
import threading
from pathlib import Path
from types import ModuleType, TracebackType

from ..errors import PluginLoadError

_builds = itertools.count(1)
_build_lock = threading.Lock()  # one folder import at a time: helper names are process-wide meanwhile

INSECURE_HINT = "or pass --allow-insecure-plugins-dir to accept that anyone who can write it runs code as the scheduler"


class _SourceLoader(importlib.abc.Loader):
    """Compile from the file's current bytes; no bytecode cache (same-second edits must not go stale)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        code = compile(self.path.read_bytes(), str(self.path), "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - the plugins folder is code by design


class DropinImports(importlib.abc.MetaPathFinder):
    """The imports of one build of one folder (a context manager)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.build = next(_builds)
        self.added: set[str] = set()
        self._claimed: set[str] = set()

    def __enter__(self) -> DropinImports:
        _build_lock.acquire()
        self._before = set(sys.modules)
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        try:
            for name in list(sys.modules):
                top = name.split(".", 1)[0]
                if name in self.added or (top in self._claimed and name not in self._before):
                    sys.modules.pop(name, None)
        finally:
            _build_lock.release()

    def module_name(self, path: Path, digest: str) -> str:
        name = f"kubeberth_dropin_{path.stem}_{digest}_b{self.build}"
        self.added.add(name)
        return name

    def exec_file(self, path: Path, module_name: str) -> ModuleType:
        """Import one plugin file under `module_name` from its bytes."""
        loader = _SourceLoader(path)
        spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
        if spec is None:
            raise PluginLoadError(f"{path}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        loader.exec_module(module)
        return module

    # ---- MetaPathFinder: helper modules and packages in the folder ----------------------
    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts[0] not in self._claimed and (path is not None or fullname in sys.modules):
            return None
        base = self.folder.joinpath(*parts)
        package = base / "__init__.py"
        module = base.with_suffix(".py")
        if package.is_file():
            spec = importlib.util.spec_from_file_location(
                fullname, package, loader=_SourceLoader(package), submodule_search_locations=[str(base)]
            )
        elif module.is_file():
            spec = importlib.util.spec_from_file_location(fullname, module, loader=_SourceLoader(module))
        else:
            return None
        self._claimed.add(parts[0])
        return spec


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_folder_permissions(folder: Path, allow_insecure: bool = False) -> None:
    """sshd StrictModes for code: refuse a folder or file that group or others can write, or that
    belongs to someone other than this user or root. The folder is code run inside the scheduler.
    Paths on a read-only mount pass: nobody can change them."""
    if allow_insecure:
        return
    owners = {os.geteuid(), 0}
    paths = [folder]
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        paths += [Path(root) / d for d in dirs]
        paths += [Path(root) / f for f in sorted(files) if f.endswith(".py")]
    for path in paths:
        if _read_only_mount(path):
            continue  # e.g. a ConfigMap volume mounted readOnly: its 0777 mode bits grant nothing
        try:
            st = path.stat()
        except FileNotFoundError:
            continue  # removed since the walk listed it (the kubelet's swap drops the old data folder)
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            who = "others" if st.st_mode & stat.S_IWOTH else "its group"
            raise PluginLoadError(f"{path}: is writable by {who}; run `chmod go-w {path}` {INSECURE_HINT}")
        if st.st_uid not in owners:
            raise PluginLoadError(
                f"{path}: is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()}) or root; "
                f"run `chown {os.geteuid()} {path}` {INSECURE_HINT}"
            )

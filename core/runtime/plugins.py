"""Plugin discovery: the `kubeberth.plugins` entry point group and drop-in plugin folders.

Built-in plugins are found exactly the way third-party ones are, through the entry point group
declared in the product's own pyproject. Discovery yields PluginSpecs; turning them into running
plugin instances is the Generation's job, so a reload simply discovers again.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import linecache
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy
from pydantic import BaseModel

from ..api import hookspecs
from ..errors import PluginLoadError
from .dropins import DropinImports, check_folder_permissions

ENTRY_POINT_GROUP = "kubeberth.plugins"
OWN_DISTRIBUTION = "kubeberth"  # its entry points are deferred (PluginSpec.deferred)
_IMPL_ATTR = f"{hookspecs.PROJECT}_impl"
_SPEC_NAMES = {
    name for name, obj in vars(hookspecs).items() if callable(obj) and hasattr(obj, f"{hookspecs.PROJECT}_spec")
}


class PluginSpec:
    """A discovered plugin: where it came from and which hooks it implements.

    A spec of one of kubeberth's own entry points is deferred: its module is imported (and the
    plugin validated) the first time `obj` or `hooks` is read, i.e. when a profile enables it, so
    a start does not import the plugins no profile uses."""

    __slots__ = ("_hooks", "_load", "_lock", "_obj", "module", "name", "source", "version")

    def __init__(self, name: str, obj: Any, source: str, version: str, hooks: tuple[str, ...]) -> None:
        self.name, self.source, self.version = name, source, version
        self._obj, self._hooks = obj, hooks
        self.module = str(getattr(obj, "__module__", "") or "")
        self._load: Callable[[], PluginSpec] | None = None
        self._lock: threading.Lock | None = None

    @classmethod
    def deferred(cls, name: str, module: str, source: str, version: str, load: Callable[[], PluginSpec]) -> PluginSpec:
        """A spec whose object `load()` imports and validates when first needed."""
        spec = cls(name, None, source, version, ())
        spec.module, spec._load, spec._lock = module, load, threading.Lock()
        return spec

    def _loaded(self) -> None:
        if self._load is None or self._lock is None:
            return
        with self._lock:
            if self._load is not None:
                real = self._load()
                self._obj, self._hooks, self.module = real.obj, real.hooks, real.module
                self._load = None

    @property
    def obj(self) -> Any:
        self._loaded()
        return self._obj

    @property
    def hooks(self) -> tuple[str, ...]:
        self._loaded()
        return self._hooks

    @property
    def args_model(self) -> type[BaseModel] | None:
        model = getattr(self.obj, "Args", None)
        return model if isinstance(model, type) and issubclass(model, BaseModel) else None

    @property
    def builtin(self) -> bool:
        return self.module.startswith("kubeberth.builtin_plugins")

    def __repr__(self) -> str:
        return f"PluginSpec({self.name!r}, source={self.source!r}, version={self.version!r})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "version": self.version,
            "hooks": list(self.hooks),
            "builtin": self.builtin,
        }


def implemented_hooks(obj: Any, where: str) -> tuple[str, ...]:
    """Hook names an object implements (marked with @hookimpl); unknown names are errors."""
    hooks = []
    for attr in dir(obj):
        if attr.startswith("__"):
            continue
        value = inspect.getattr_static(obj, attr, None)
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if callable(value) and hasattr(value, _IMPL_ATTR):
            if attr not in _SPEC_NAMES:
                raise PluginLoadError(
                    f"{_at(value, where)}: hook {attr!r} is not a kubeberth extension point; "
                    f"known: {', '.join(sorted(_SPEC_NAMES))}"
                )
            hooks.append(attr)
    return tuple(sorted(hooks))


def _at(fn: Any, where: str) -> str:
    """`where` plus the line a hook function is defined on, so a load error points at it."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return where
    if code.co_filename == where:
        return f"{where}: line {code.co_firstlineno}"
    return f"{where}: {code.co_filename}: line {code.co_firstlineno}"


def _check_argnames(obj: Any, hooks: tuple[str, ...], where: str) -> None:
    """Hook arguments must be names the hookspec passes (pluggy matches by name)."""
    for hook in hooks:
        raw = inspect.getattr_static(obj, hook)
        fn = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        if not inspect.ismodule(obj) and not isinstance(raw, staticmethod):
            params = params[1:]  # self / cls
        allowed = list(inspect.signature(getattr(hookspecs, hook)).parameters)
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
                continue
            if p.name not in allowed:
                raise PluginLoadError(
                    f"{_at(fn, where)}: hook {hook!r} takes no argument {p.name!r}; "
                    f"it may accept any of: {', '.join(allowed)}"
                )


def scratch_manager() -> pluggy.PluginManager:
    """A PluginManager with kubeberth's hookspecs, for validating plugins (nothing is called on it)."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def _validate_signatures(obj: Any, name: str, where: str, pm: pluggy.PluginManager | None = None) -> None:
    """Register into a scratch PluginManager so pluggy checks argument names against the specs.
    `pm` is one to reuse (reading the hookspecs is most of the cost); the plugin is unregistered
    from it again."""
    pm = pm or scratch_manager()
    target = obj
    if inspect.isclass(obj) and _constructible_without_args(obj):
        try:
            target = obj()
        except Exception:  # reported with file and plugin when the generation instantiates it
            target = obj
    try:
        registered = pm.register(target, name=f"{name}@{id(target)}")
    except pluggy.PluginValidationError as exc:
        raise PluginLoadError(f"{where}: {' '.join(str(exc).split())}") from None
    if registered is not None:
        pm.unregister(name=registered)


def _constructible_without_args(cls: type) -> bool:
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params)


def _spec_for(obj: Any, fallback_name: str, source: str, version: str, where: str,
              pm: pluggy.PluginManager | None = None, validate: bool = True) -> PluginSpec:
    name = getattr(obj, "name", None) or fallback_name
    if not isinstance(name, str) or not name:
        raise PluginLoadError(f"{where}: plugin has no usable `name`")
    hooks = implemented_hooks(obj, where)
    if not hooks:
        raise PluginLoadError(f"{where}: plugin {name!r} implements no hooks; mark methods with @hookimpl")
    _check_argnames(obj, hooks, where)
    if validate:
        _validate_signatures(obj, name, where, pm)
    version = str(getattr(obj, "version", None) or version)
    return PluginSpec(name, obj, source, version, hooks)


def distribution_of(ep: EntryPoint, seen: dict[int, tuple[str, str]]) -> tuple[str, str]:
    """(name, version) of the distribution an entry point comes from, ("unknown", "0") for none.
    `seen` keeps them per distribution for one scan: importlib.metadata reads and parses a
    distribution's METADATA file again at each `.metadata` or `.version`, and every built-in
    plugin is an entry point of the same distribution."""
    dist = ep.dist
    if dist is None:
        return "unknown", "0"
    key = id(dist)
    if key not in seen:
        meta = dist.metadata
        seen[key] = (meta["Name"], meta["Version"])
    return seen[key]


def discover_entry_points() -> list[PluginSpec]:
    """A spec per installed plugin. Third-party ones are imported and validated now (an import
    error stops the start, naming the entry point); kubeberth's own are deferred until a profile
    enables them (their entry point names are their plugin names: tests/test_plugin_loading.py)."""
    specs = []
    dists: dict[int, tuple[str, str]] = {}
    pm = scratch_manager()
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist_name, dist_version = distribution_of(ep, dists)
        if dist_name == OWN_DISTRIBUTION:
            load = functools.partial(_load_entry_point, ep, dist_name, dist_version, None)
            specs.append(PluginSpec.deferred(ep.name, ep.module, f"entrypoint:{dist_name}=={dist_version}",
                                             dist_version, load))
        else:
            specs.append(_load_entry_point(ep, dist_name, dist_version, pm))
    return specs


def _load_entry_point(ep: EntryPoint, dist_name: str, version: str, pm: pluggy.PluginManager | None) -> PluginSpec:
    where = f"entry point {ep.name!r} ({ep.value}) from {dist_name}"
    try:
        obj = ep.load()
    except Exception as exc:
        raise PluginLoadError(f"{where}: import failed: {type(exc).__name__}: {exc}") from None
    source = f"entrypoint:{dist_name}=={version}"
    if pm is None:
        # kubeberth's own plugins, loaded when a profile enables them: pluggy's signature check
        # against the specs is a test of the package (tests/test_plugin_loading.py), not a cost
        # of every start (~1 ms a plugin, before the first binding).
        spec = _spec_for(obj, ep.name, source, version, where, validate=False)
    else:
        spec = _spec_for(obj, ep.name, source, version, where, pm)
    if dist_name == OWN_DISTRIBUTION and spec.name != ep.name:
        raise PluginLoadError(f"{where}: plugin is named {spec.name!r}; its entry point must carry the same name")
    return spec


def _plugins_in_module(module: ModuleType) -> list[Any]:
    """Plugin classes defined in a drop-in module, or the module itself if it has hooks."""
    found: list[Any] = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and obj.__module__ == module.__name__ and _has_hookimpl(vars(obj))
    ]
    if not found and _has_hookimpl(vars(module)):
        found = [module]
    return found


def _has_hookimpl(namespace: Mapping[str, Any]) -> bool:
    """Any @hookimpl-marked attribute, including misspelt hook names (reported later, with a line)."""
    for value in namespace.values():
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if callable(value) and hasattr(value, _IMPL_ATTR):
            return True
    return False


def load_dropin_file(path: Path, imports: DropinImports | None = None) -> list[PluginSpec]:
    """Import one drop-in file under a unique, versioned module name (see runtime/dropins.py)."""
    if imports is None:
        with DropinImports(path.parent) as own:
            return load_dropin_file(path, own)
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:12]
    module_name = imports.module_name(path, digest)
    linecache.checkcache(str(path))
    try:
        module = imports.exec_file(path, module_name)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise PluginLoadError(f"{path}: line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except PluginLoadError:
        sys.modules.pop(module_name, None)
        raise
    except Exception as exc:
        sys.modules.pop(module_name, None)
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
        line = f"line {frames[-1].lineno}: " if frames else ""
        raise PluginLoadError(f"{path}: {line}{type(exc).__name__} while importing: {exc}") from None
    plugins = _plugins_in_module(module)
    if not plugins:
        raise PluginLoadError(f"{path}: defines no plugin; add a class with a `name` and @hookimpl methods")
    version = getattr(module, "__version__", digest)
    return [_spec_for(obj, path.stem, f"dropin:{path}", version, str(path)) for obj in plugins]


def discover_dropins(folder: Path, allow_insecure: bool = False) -> list[PluginSpec]:
    if not folder.is_dir():
        raise PluginLoadError(f"{folder}: plugins folder does not exist")
    check_folder_permissions(folder, allow_insecure)
    specs: list[PluginSpec] = []
    with DropinImports(folder) as imports:
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith(("_", ".")):
                specs.extend(load_dropin_file(path, imports))
    return specs


def discover(
    plugins_dir: Path | None = None,
    extra: list[Any] | None = None,
    entry_point_specs: list[PluginSpec] | None = None,
    allow_insecure_plugins_dir: bool = False,
) -> dict[str, PluginSpec]:
    """All available plugins by name; a name provided twice is an error naming both sources.

    `entry_point_specs` reuses an earlier entry point scan (a drop-in or config reload does not
    rescan installed packages; SIGHUP does)."""
    specs = list(discover_entry_points() if entry_point_specs is None else entry_point_specs)
    if plugins_dir is not None:
        specs += discover_dropins(Path(plugins_dir), allow_insecure_plugins_dir)
    for obj in extra or ():
        specs.append(_spec_for(obj, getattr(obj, "__name__", "plugin"), "python", "0", repr(obj)))
    registry: dict[str, PluginSpec] = {}
    for spec in specs:
        other = registry.get(spec.name)
        if other is not None and other.obj is not spec.obj:
            raise PluginLoadError(
                f"plugin name {spec.name!r} is provided by both {other.source} and {spec.source}; rename one"
            )
        registry[spec.name] = spec
    return registry

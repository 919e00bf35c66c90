"""Building the next generation off the hot path (DESIGN property 3).

`GenerationBuilder` turns the reload inputs — the configuration file, the drop-in folder and the
installed packages' entry points — into a validated `Generation`, on the reloader's thread:

- `fingerprint()` hashes the inputs' current bytes, so a burst of file events, a rewrite with the
  same content or a ConfigMap `..data` swap that changed nothing builds nothing, and content that
  was rejected or rolled back is recognised until it changes;
- entry points are scanned once and rescanned only on `rescan=True` (SIGHUP, POST /reload): a
  package pip-installed or upgraded in the running environment is then imported afresh;
- after the build, each plugin instance's optional `validate()` runs (see docs/hot-reload.md).

The loop side (dry run, state handoff, the swap itself) is `kubeberth.scheduling.swap`.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from ..api.features import DEFAULT_FEATURE_GATES, FeatureGates
from ..errors import ConfigError, KubeberthError, PluginLoadError
from .generation import Generation, build_generation
from .plugins import ENTRY_POINT_GROUP, PluginSpec, discover_entry_points, distribution_of

log = logging.getLogger(__name__)


class InputVanished(ConfigError):
    """A file the build was reading disappeared under it (a ConfigMap `..data` swap removing the
    previous timestamped folder, an editor's save): the content is not at fault, so it is not
    remembered as rejected and the next look at the folder builds it again."""


class GenerationBuilder:
    """Builds generations from one set of reload inputs; used by one thread at a time."""

    def __init__(
        self,
        config: str | Path | None = None,
        plugins_dir: str | Path | None = None,
        allow_insecure_plugins_dir: bool = False,
        extra_plugins: list[Any] | None = None,
        feature_gates: FeatureGates = DEFAULT_FEATURE_GATES,
    ) -> None:
        self.config = Path(config) if config else None
        self.plugins_dir = Path(plugins_dir) if plugins_dir else None
        self.allow_insecure_plugins_dir = allow_insecure_plugins_dir
        self.extra_plugins = extra_plugins
        self.feature_gates = feature_gates  # process-wide: a reload keeps them
        self._entry_points: list[PluginSpec] | None = None
        self._dists: dict[str, str] = {}  # top-level module of a third-party entry point -> dist==version

    # ---- inputs ------------------------------------------------------------------------
    def fingerprint(self) -> str:
        """A digest of everything a build reads; raises OSError while files are mid-replace."""
        h = hashlib.sha256()
        if self.config is not None:
            h.update(b"config\0" + self.config.read_bytes())
        if self.plugins_dir is not None and self.plugins_dir.is_dir():
            for path in _python_files(self.plugins_dir):
                h.update(b"\0file\0" + str(path.relative_to(self.plugins_dir)).encode() + b"\0")
                h.update(path.read_bytes())
        h.update(repr(sorted(self._dists.items())).encode())
        return h.hexdigest()[:16]

    def rescan_entry_points(self) -> None:
        """Scan installed packages again; modules of packages installed or upgraded meanwhile are
        dropped from sys.modules first so their new code is imported."""
        importlib.invalidate_caches()
        dists: dict[str, str] = {}
        seen: dict[int, tuple[str, str]] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            top = ep.value.split(":", 1)[0].split(".", 1)[0]
            if top == "kubeberth" or ep.dist is None:
                continue
            name, version = distribution_of(ep, seen)
            dists[top] = f"{name}=={version}"
        for top, version in dists.items():
            if self._dists.get(top) != version:
                for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
                    del sys.modules[name]
        self._dists = dists
        self._entry_points = discover_entry_points()

    # ---- building ------------------------------------------------------------------------
    def build(self, rescan: bool = False) -> Generation:
        """Build and validate; any failure is a one-line KubeberthError naming the file."""
        if rescan or self._entry_points is None:
            self.rescan_entry_points()
        try:
            generation = build_generation(
                self.config,
                self.plugins_dir,
                extra_plugins=self.extra_plugins,
                entry_point_specs=self._entry_points,
                allow_insecure_plugins_dir=self.allow_insecure_plugins_dir,
                feature_gates=self.feature_gates,
            )
        except KubeberthError:
            raise
        except FileNotFoundError as exc:
            raise InputVanished(f"{exc.filename or self.config}: vanished while the build read it") from None
        except OSError as exc:
            raise ConfigError(f"{exc.filename or self.config}: {exc.strerror or exc}") from None
        validate_plugins(generation)
        return generation


def _python_files(folder: Path) -> list[Path]:
    """The .py files a build of `folder` can read: plugins, helpers and packages (not hidden ones)."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        found += [Path(root) / f for f in sorted(files) if f.endswith(".py") and not f.startswith(".")]
    return found


def plugin_where(generation: Generation, name: str) -> str:
    """The file or package a plugin came from, for error lines."""
    spec = generation.registry.get(name)
    if spec is None:
        return name
    return spec.source.removeprefix("dropin:")


def validate_plugins(generation: Generation) -> None:
    """Run each plugin instance's optional `validate()` hook: raise (or return a message) to refuse
    the generation before it is swapped in."""
    seen: set[int] = set()
    for framework in generation.profiles.values():
        for name, instance in framework.plugins.items():
            check = getattr(instance, "validate", None)
            if id(instance) in seen or not callable(check) or isinstance(instance, type):
                continue
            seen.add(id(instance))
            try:
                problem = check()
            except Exception as exc:  # noqa: BLE001 - any failure refuses the generation
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                raise PluginLoadError(f"{plugin_where(generation, name)}: plugin {name!r} validate() refused: {problem}")


def hand_off(previous: Generation, new: Generation) -> None:
    """Call `handoff(previous_instance)` on each new plugin instance whose predecessor (same
    profile and name) is in `previous`, so caches survive a reload. A failing handoff starts the
    plugin cold and is logged; it never blocks the swap."""
    for profile, framework in new.profiles.items():
        old = previous.profiles.get(profile)
        if old is None:
            continue
        for name, instance in framework.plugins.items():
            take = getattr(instance, "handoff", None)
            before = old.plugins.get(name)
            if before is None or before is instance or not callable(take) or isinstance(instance, type):
                continue
            try:
                take(before)
            except Exception as exc:  # noqa: BLE001
                log.warning(
                    "%s: plugin %r handoff() raised %s: %s; it starts without its predecessor's state",
                    plugin_where(new, name), name, type(exc).__name__, exc,
                )

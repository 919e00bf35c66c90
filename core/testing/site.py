"""PluginSite: a throwaway site-packages folder, for testing how a plugin distribution is discovered.

It lays out files the way `pip install` leaves them (`<name>-<version>.dist-info` with METADATA
and entry_points.txt next to the modules), so importlib.metadata, and with it kubeberth's entry
point discovery, finds the distribution exactly as an installed one — without running pip.
pytester's idea: the fixture puts the folder on sys.path and, at teardown, forgets every module
imported from it, so the next test imports fresh code.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

ENTRY_POINT_GROUP = "kubeberth.plugins"


class PluginSite:
    """A folder on sys.path that distributions are "installed" into (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def add_distribution(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        files: Mapping[str, str] | None = None,
        plugins: Mapping[str, str] | None = None,
    ) -> Path:
        """Install distribution `name`: `files` (relative path -> source, dedented) and `plugins`
        (entry point name -> "module:attr" in the `kubeberth.plugins` group). Returns its dist-info."""
        for rel, text in (files or {}).items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        info = self.root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{ep} = {target}" for ep, target in (plugins or {}).items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        importlib.invalidate_caches()
        return info

    def forget_modules(self) -> list[str]:
        """Drop modules imported from this folder out of sys.modules; their names."""
        root = str(self.root.resolve())
        gone = [
            name
            for name, module in list(sys.modules.items())
            if (getattr(module, "__file__", None) or "").startswith(root)
            or any(str(p).startswith(root) for p in (getattr(module, "__path__", None) or ()))
        ]
        for name in gone:
            del sys.modules[name]
        return gone

"""Quarantine of drop-in plugin code that keeps hanging (the plugin watchdog's last resort).

A hung plugin is known by its origin: the module and file its hook's code came from. A drop-in
file is imported under `kubeberth_dropin_<stem>_<digest>_b<build>` (runtime/dropins.py), so its
origin carries the digest of the bytes that were imported; the quarantine is keyed by (file,
digest), i.e. by that exact content, and lifted by any change to the file.

The rule (docs/reliability.md): a drop-in source is quarantined at its second strike, a strike
being a hang that cost a generation (a rollback, or a dry run that hung and refused the
generation); a source that cannot be rolled back (its generation is past probation, or is the
startup one) is quarantined at its `TIMEOUTS` timeout. One rollback already keeps that exact folder
content out (the reloader's fingerprint); a second means the same code came back with other files
changed, and the loop should not freeze for it again. Three interrupted attempts of a running
plugin are no transient stall (one could be: a paused process, a swapped-out page). A quarantined source makes every
later reload that contains it fail with one line naming the file and what to do.

Plugins that are not drop-ins (built-ins, pip-installed entry points, test classes) are never
quarantined: they are reported, and a pip package is fixed by installing another version.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DROPIN_PREFIX = "kubeberth_dropin_"
STRIKES = 2
TIMEOUTS = 3
DIGEST_CHARS = 12  # runtime/plugins.py load_dropin_file


@dataclass(frozen=True)
class PluginOrigin:
    """Where a plugin's hook came from: its module and source file."""

    module: str
    file: str

    @property
    def digest(self) -> str:
        """The content digest of a drop-in's imported bytes ("" when not a drop-in)."""
        if not self.module.startswith(DROPIN_PREFIX):
            return ""
        parts = self.module.rsplit("_", 2)
        return parts[1] if len(parts) == 3 else ""

    @property
    def dropin(self) -> bool:
        return bool(self.digest and self.file)


def origin_of(fn: Any) -> PluginOrigin:
    """The origin of a hook implementation (a per-node adapter's: the plugin function it wraps)."""
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return PluginOrigin(str(getattr(fn, "__module__", "") or ""), "")
    module = str(getattr(fn, "__module__", "") or "")
    closure = getattr(fn, "__closure__", None) or ()
    if module == "kubeberth.runtime.hooks" and "fn" in code.co_freevars:
        return origin_of(closure[code.co_freevars.index("fn")].cell_contents)
    return PluginOrigin(module, code.co_filename)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:DIGEST_CHARS]


Announce = Callable[[str, str], None]  # (reason, message): a Lease event


class Quarantine:
    """Strikes per drop-in source; `refusal(folder)` is the reloader's check before a build."""

    def __init__(self, announce: Announce | None = None) -> None:
        self.announce = announce
        self.strikes: Counter[tuple[str, str]] = Counter()
        self.timeouts: Counter[tuple[str, str]] = Counter()
        self.quarantined: dict[tuple[str, str], str] = {}  # (file, digest) -> why

    def hang(self, plugin: str, origin: PluginOrigin | None, cost_a_generation: bool) -> bool:
        """One hang of `plugin`; returns whether its source is quarantined now (newly)."""
        if origin is None or not origin.dropin:
            return False
        key = (origin.file, origin.digest)
        if key in self.quarantined:
            return False
        counts = self.strikes if cost_a_generation else self.timeouts
        counts[key] += 1
        if counts[key] < (STRIKES if cost_a_generation else TIMEOUTS):
            return False
        self._quarantine(plugin, key, cost_a_generation)
        return True

    def _quarantine(self, plugin: str, key: tuple[str, str], rolled_back: bool) -> None:
        file, digest = key
        why = (
            f"plugin {plugin!r} hung past the plugin timeout {self.strikes[key]} times, each costing a generation"
            if rolled_back
            else f"plugin {plugin!r} hung past the plugin timeout {self.timeouts[key]} times where it could not be "
            "rolled back"
        )
        self.quarantined[key] = why
        message = (
            f"{file} (content {digest}) is quarantined: {why}; reloads containing this file are refused. "
            "Fix the plugin; the quarantine is lifted when the file's content changes"
        )
        log.error("%s", message)
        self._announce("PluginQuarantined", message)

    def refusal(self, folder: Path | None) -> str | None:
        """Why a build of `folder` as it is now must not run (a quarantined file in it; announced as
        ReloadRefused), else None."""
        if not self.quarantined or folder is None or not folder.is_dir():
            return None
        for path in sorted(folder.glob("*.py")):
            try:
                key = (str(path), file_digest(path))
            except OSError:
                continue
            why = self.quarantined.get(key)
            if why is not None:
                message = (
                    f"{path}: quarantined (content {key[1]}: {why}); fix the plugin; the quarantine is lifted "
                    "when the file's content changes"
                )
                self._announce("ReloadRefused", message)
                return message
        return None

    def _announce(self, reason: str, message: str) -> None:
        if self.announce is None:
            return
        try:
            self.announce(reason, message)
        except Exception:  # noqa: BLE001 - best effort: the log line is written already
            log.exception("announcing %s failed", reason)

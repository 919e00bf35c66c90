"""The watcher's debounce: finished writes reload at once, writes in progress wait for quiet."""

from __future__ import annotations

from pathlib import Path

from kubeberth.apps.reloader import DebouncedEvents, builds_from
from watchdog.events import FileClosedEvent, FileCreatedEvent, FileModifiedEvent, FileMovedEvent

QUIET = 3600.0  # a debounce that never expires within a test: only immediate requests count


class Requests:
    """Collects what the handler asks the reloader for."""

    def __init__(self) -> None:
        self.made: list[tuple[str, float | None]] = []

    def request(self, trigger: str, rescan: bool = False, force: bool = False, event_at: float | None = None) -> None:
        self.made.append((trigger, event_at))


def plugins_handler(root: Path, requests: Requests) -> DebouncedEvents:
    """The plugins folder's handler (the debounce timers it starts are daemons that never fire)."""
    return DebouncedEvents(requests, QUIET, lambda p: "__pycache__" not in p, lambda p: builds_from(root, p))  # type: ignore[arg-type]


def test_a_write_in_progress_waits_and_its_close_reloads_at_once(tmp_path: Path) -> None:
    requests = Requests()
    handler = plugins_handler(tmp_path, requests)
    handler.on_any_event(FileCreatedEvent(str(tmp_path / "zoned.py")))
    handler.on_any_event(FileModifiedEvent(str(tmp_path / "zoned.py")))
    assert requests.made == []
    handler.on_any_event(FileClosedEvent(str(tmp_path / "zoned.py")))
    assert [t for t, _ in requests.made] == ["watch"]
    assert handler._timer is None  # the pending debounce was cancelled, not fired again later


def test_an_atomic_rename_into_place_reloads_at_once_and_the_temp_file_does_not(tmp_path: Path) -> None:
    requests = Requests()
    handler = plugins_handler(tmp_path, requests)
    handler.on_any_event(FileClosedEvent(str(tmp_path / ".zoned.py.tmp")))
    handler.on_any_event(FileMovedEvent(str(tmp_path / "zoned.py"), str(tmp_path / "zoned.py~")))
    assert requests.made == []
    handler.on_any_event(FileMovedEvent(str(tmp_path / ".zoned.py.tmp"), str(tmp_path / "zoned.py")))
    assert len(requests.made) == 1


def test_the_request_carries_the_first_event_of_the_burst(tmp_path: Path) -> None:
    requests = Requests()
    handler = plugins_handler(tmp_path, requests)
    handler.on_any_event(FileModifiedEvent(str(tmp_path / "helpers" / "util.py")))
    first = handler._first
    handler.on_any_event(FileClosedEvent(str(tmp_path / "helpers" / "util.py")))
    assert requests.made == [("watch", first)]


def test_builds_from_matches_what_the_fingerprint_reads(tmp_path: Path) -> None:
    assert builds_from(tmp_path, str(tmp_path / "zoned.py"))
    assert builds_from(tmp_path, str(tmp_path / "pkg" / "__init__.py"))
    assert builds_from(tmp_path, str(tmp_path / "..data"))
    assert not builds_from(tmp_path, str(tmp_path / ".zoned.py.swp"))
    assert not builds_from(tmp_path, str(tmp_path / "zoned.py~"))
    assert not builds_from(tmp_path, str(tmp_path / "..2026_11_23_01" / "zoned.py"))
    assert not builds_from(tmp_path, str(tmp_path / "README.md"))

"""Builders and fixtures for the tests come from kubeberth.testing (the plugin-author test kit):
`from kubeberth.testing import make_node, make_pod`; fixtures `scheduler_tester`, `node_factory`,
`pod_factory` are registered by its pytest plugin.

Thread hygiene: a test stops every thread it starts. `_no_leftover_threads` fails a test that
leaves behind a non-daemon thread or a kubeberth thread (named `kubeberth-...`) it started, after a
short grace for threads that are finishing. Threads of session- and module-scoped fixtures exist
before a test's own fixtures run, so they are not the test's; library pools that live for the
process by design are listed in `_LIBRARY_THREADS`. The node-metrics refreshers of load-aware
plugins a test built are stopped (and waited for) at its end, as their generation is collected
only later."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterator

import pytest

# Pools kept for the process on purpose (created on first use, reused by later tests).
_LIBRARY_THREADS = re.compile(r"extender-prioritize|ThreadPoolExecutor-|asyncio_|pydevd|Otel|Dummy-")
_GRACE = 3.0  # seconds a leftover thread gets to finish (stop() signalled, still unwinding)


def _watched(thread: threading.Thread) -> bool:
    if _LIBRARY_THREADS.match(thread.name):
        return False
    return not thread.daemon or thread.name.startswith("kubeberth")


def leftover_threads(before: set[threading.Thread], grace: float = _GRACE) -> list[threading.Thread]:
    """Threads started since `before` that are watched and still alive after `grace` seconds."""
    deadline = time.monotonic() + grace
    left = [t for t in threading.enumerate() if t not in before and _watched(t)]
    for thread in left:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [t for t in left if t.is_alive()]


@pytest.fixture(autouse=True)
def _no_leftover_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    metrics = sys.modules.get("kubeberth.contrib.node_metrics")
    if metrics is not None:  # the load-aware plugins' refreshers, released when their generation is collected
        metrics.shutdown_all()
    left = leftover_threads(before)
    if left:
        names = ", ".join(sorted(f"{t.name!r}{'' if t.daemon else ' (non-daemon)'}" for t in left))
        pytest.fail(f"the test left {len(left)} thread(s) running: {names}; stop what the test starts", pytrace=False)

"""The pytest plugin behind `kubeberth.testing` (entry point `pytest11: kubeberth`): fixtures for plugin tests.

Installed with kubeberth, so any project's tests can use the fixtures without a conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .builders import make_node, make_pod
from .tester import SchedulerTester


@pytest.fixture
def scheduler_tester() -> Iterator[Callable[..., SchedulerTester]]:
    """Make SchedulerTesters (same arguments as the class); all are closed when the test ends.

    e.g. ``t = scheduler_tester([MyPlugin], args={"MyPlugin": {"x": 1}}, objects=[make_node("n1")])``.
    """
    made: list[SchedulerTester] = []

    def build(*args: Any, **kwargs: Any) -> SchedulerTester:
        tester = SchedulerTester(*args, **kwargs)
        made.append(tester)
        return tester

    yield build
    for tester in made:
        tester.close()


@pytest.fixture
def node_factory() -> Callable[..., dict[str, Any]]:
    """`kubeberth.testing.make_node`, for tests that prefer fixtures to imports."""
    return make_node


@pytest.fixture
def pod_factory() -> Callable[..., dict[str, Any]]:
    """`kubeberth.testing.make_pod`, for tests that prefer fixtures to imports."""
    return make_pod

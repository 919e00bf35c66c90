"""The pytest plugin behind `kubeberth.testing` (entry point `pytest11: kubeberth`): fixtures for plugin tests.

Installed with kubeberth, so any project's tests can use the fixtures without a conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .site import PluginSite
    from .tester import SchedulerTester

# The scheduler is imported by the fixtures, not here: this module loads in every pytest run.


@pytest.fixture
def scheduler_tester() -> Iterator[Callable[..., SchedulerTester]]:
    """Make SchedulerTesters (same arguments as the class); all are closed when the test ends.

    e.g. ``t = scheduler_tester([MyPlugin], args={"MyPlugin": {"x": 1}}, objects=[make_node("n1")])``.
    """
    from .tester import SchedulerTester

    made: list[SchedulerTester] = []

    def build(*args: Any, **kwargs: Any) -> SchedulerTester:
        tester = SchedulerTester(*args, **kwargs)
        made.append(tester)
        return tester

    yield build
    for tester in made:
        tester.close()


@pytest.fixture
def plugin_site(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginSite]:
    """A throwaway site-packages on sys.path: `plugin_site.add_distribution("my-plugins", "1.0",
    files={"my_plugins.py": SOURCE}, plugins={"MyPlugin": "my_plugins:MyPlugin"})` and discovery
    sees it as pip-installed. Modules imported from it are forgotten when the test ends."""
    from .site import PluginSite

    site = PluginSite(tmp_path_factory.mktemp("site-packages"))
    monkeypatch.syspath_prepend(str(site.root))
    yield site
    site.forget_modules()


@pytest.fixture
def node_factory() -> Callable[..., dict[str, Any]]:
    """`kubeberth.testing.make_node`, for tests that prefer fixtures to imports."""
    from .builders import make_node

    return make_node


@pytest.fixture
def pod_factory() -> Callable[..., dict[str, Any]]:
    """`kubeberth.testing.make_pod`, for tests that prefer fixtures to imports."""
    from .builders import make_pod

    return make_pod

"""kubeberth.testing: test a scheduling plugin against the real framework in a few lines.

A pytest plugin (registered through the `pytest11` entry point, so the `scheduler_tester`,
`plugin_site`, `node_factory` and `pod_factory` fixtures are available in any project that installs kubeberth)
plus builders::

    from kubeberth.testing import make_node, make_pod

    def test_team_nodes(scheduler_tester):
        t = scheduler_tester([TeamNodes], args={"TeamNodes": {"label": "team"}})
        t.add(make_node("a", labels={"team": "a"}), make_node("b"))
        ev = t.evaluate(make_pod("p", labels={"team": "a"}))        # filter + score, every node
        assert ev.reasons == {"a": None, "b": "node(s) are not for team a"}
        assert t.schedule(make_pod("q", labels={"team": "a"})) == {"q": "a"}   # the whole loop

Builders return the raw Kubernetes dicts a backend delivers; `cluster_of` / `all_nodes` build a
ClusterState and NodeView for calling a plugin's hooks directly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .builders import (
        all_nodes,
        cluster_of,
        load_objects,
        make_node,
        make_pod,
        make_pod_group,
        make_pv,
        make_pvc,
        parse_taint,
        parse_toleration,
        pod_info,
    )
    from .site import PluginSite
    from .tester import (
        BASE_PLUGINS,
        PROFILE,
        Evaluation,
        PluginError,
        SchedulerTester,
        Verdict,
        evaluate_pod,
        plugin_name,
        profile_config,
    )

__all__ = [
    "BASE_PLUGINS",
    "PROFILE",
    "Evaluation",
    "PluginError",
    "PluginSite",
    "SchedulerTester",
    "Verdict",
    "all_nodes",
    "cluster_of",
    "evaluate_pod",
    "load_objects",
    "make_node",
    "make_pod",
    "make_pod_group",
    "make_pv",
    "make_pvc",
    "parse_taint",
    "parse_toleration",
    "plugin_name",
    "pod_info",
    "profile_config",
]

_TESTER = {"BASE_PLUGINS", "PROFILE", "Evaluation", "PluginError", "SchedulerTester", "Verdict", "plugin_name",
           "profile_config", "evaluate_pod"}


def __getattr__(name: str) -> Any:
    """Import on first use: the pytest plugin loads this package in every pytest run of the environment,
    so it must not pull in the scheduler until a test asks for it."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    where = ".tester" if name in _TESTER else ".site" if name == "PluginSite" else ".builders"
    module = importlib.import_module(where, __name__)
    value = getattr(module, name)
    globals()[name] = value
    return value

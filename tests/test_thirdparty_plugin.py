"""A third-party plugin package, pip-installed for this test run, does what the built-ins do with
the public API alone: a preemption-aware filter, requeue hints, hypothetical placement.

tests/thirdparty_plugin/ is an ordinary package with an entry point in `kubeberth.plugins`; it is
installed with pip into a folder put on sys.path for this module only, found by discovery like
any installed plugin, and run through the real framework (SchedulerTester: Scheduler, queue,
DefaultPreemption, binding, on the embedded cluster).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubeberth.errors import ConfigError
from kubeberth.runtime.plugins import discover
from kubeberth.testing import SchedulerTester, make_node, make_pod
from test_public_line import violations

PACKAGE = Path(__file__).parent / "thirdparty_plugin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = tmp_path_factory.mktemp("thirdparty-site")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
           "--target", str(site), str(PACKAGE)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("kubeberth_teamquota", None)
        importlib.invalidate_caches()


def team_pod(name: str, team: str, priority: int = 0, cpu: str = "500m", **spec: object) -> dict:
    return make_pod(name, cpu, uid=name, labels={"team": team}, priority=priority, **spec)


def test_found_through_the_entry_point_group(installed: Path) -> None:
    registry = discover()
    for name in ("TeamQuota", "Headroom"):
        spec = registry[name]
        assert spec.source == "entrypoint:kubeberth-teamquota==1.0.0"
        assert str(Path(sys.modules[spec.obj.__module__].__file__ or "")).startswith(str(installed))


def test_uses_only_the_public_api() -> None:
    source = (PACKAGE / "kubeberth_teamquota" / "__init__.py").read_text()
    assert violations(source, "kubeberth_teamquota", "kubeberth_teamquota/__init__.py") == []


def test_filter_rejects_full_nodes_with_its_reason(installed: Path) -> None:
    with SchedulerTester(["TeamQuota"], args={"TeamQuota": {"maxPerNode": 1}}) as t:
        t.add(make_node("n1"), make_node("n2"), team_pod("a1", "a", nodeName="n1"))
        ev = t.evaluate(team_pod("a2", "a"))
        assert ev.reasons == {"n1": "node(s) reached the team's pod limit", "n2": None}
        assert t.evaluate(team_pod("b1", "b")).feasible == ["n1", "n2"]


def test_bad_args_are_a_one_line_error(installed: Path) -> None:
    with pytest.raises(ConfigError, match=r"pluginConfig\[0\]\.args\.maxPerNod: unknown key for plugin 'TeamQuota' \(did you mean 'maxPerNode'"):
        SchedulerTester(["TeamQuota"], args={"TeamQuota": {"maxPerNod": 1}})


def test_preemption_evicts_a_lower_priority_pod_of_the_same_team(installed: Path) -> None:
    """DefaultPreemption re-runs the third-party filter on hypothetical states (it declares
    FilterScope.CLUSTER) and finds the victim that makes room under the team quota."""
    with SchedulerTester(["TeamQuota", "DefaultPreemption"], args={"TeamQuota": {"maxPerNode": 1}}) as t:
        t.add(make_node("n1", cpu="8"), team_pod("low", "a", priority=1, nodeName="n1"),
              team_pod("other-team", "b", priority=0, nodeName="n1"))
        t.schedule(team_pod("high", "a", priority=100))
        assert "default/low" not in {f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in t.backend.list("Pod")}
        assert t.backend.get("Pod", "default/other-team") is not None  # not of the team: never a victim
        assert t.node_of("default/high") == "n1"


def test_requeue_hints_decide_which_events_retry_a_rejected_pod(installed: Path) -> None:
    with SchedulerTester(["TeamQuota"], args={"TeamQuota": {"maxPerNode": 1}}) as t:
        t.add(make_node("n1"), team_pod("a1", "a", nodeName="n1"))
        assert t.schedule(team_pod("a2", "a")) == {"a2": None}
        attempts = len(t.records("a2"))
        t.add({"kind": "StorageClass", "metadata": {"name": "fast"}, "provisioner": "x"})  # not declared
        t.settle()
        assert len(t.records("a2")) == attempts
        assert t.scheduler.queue.entries["a2"].where == "unschedulable"
        t.delete("Pod", "default/a1")  # Pod/Delete: declared
        t.settle()
        assert t.node_of("default/a2") == "n1"
        assert len(t.records("a2")) == attempts + 1


def test_score_checks_headroom_with_a_hypothetical_placement(installed: Path) -> None:
    with SchedulerTester(["NodeResourcesFit", "Headroom"]) as t:
        t.add(make_node("small", cpu="1"), make_node("big", cpu="4"), make_pod("old", "100m", uid="old", nodeName="big"))
        t.sync()
        before = ({r: list(p) for r, p in t.cluster.pods_on.items()}, t.cluster.table.requested.tolist())
        ev = t.evaluate(make_pod("p", "600m", uid="p"))
        assert ev.scores["Headroom"] == {"small": 0, "big": 100}  # a second 600m fits only on big
        assert ({r: list(p) for r, p in t.cluster.pods_on.items()}, t.cluster.table.requested.tolist()) == before
        assert t.schedule(make_pod("q", "600m", uid="q")) == {"q": "big"}

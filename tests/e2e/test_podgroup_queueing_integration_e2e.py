"""kube-scheduler v1.37.2 test/integration/scheduler/podgroup/queueing/queueing_test.go against kubeberth on a real
API server: the tables (stepsframework steps, dumped into upstream_tables/podgroup_queueing.json) run step by step
by podgroup_steps.run_steps, which says how the steps reading the scheduler's queue are observed from outside.

One control plane serving the PodGroup API and one `kubeberth run` with GenericWorkload on serve every case, each
in a namespace and nodes of its own: profile `kubeberth` (the default plugins) for the cases without a test plugin,
profile `kubeberth-prebind-fail` with the test's bindingFailingPlugin at preBind (a drop-in) for the others. The
upstream plugin fails its first PreBind of the watched pod in each test's own scheduler; with one process for all
cases, the drop-in fails the first PreBind of the watched pod in each case's namespace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane
from kubeberth_harness import Kubeberth
from podgroup_steps import case_on, kubeberth_with, make_node, podgroup_plane, run_steps, write_profiles
from upstream_integration import cases, tables

PLAIN = "kubeberth"
PREBIND_FAIL = "kubeberth-prebind-fail"
TABLES = tables("podgroup_queueing")

BINDING_FAILING = '''"""queueing_test.go's bindingFailingPlugin: an Error ("mock binding failure") from the first PreBind of the
watched pod (per namespace: one per upstream test), success after that."""
from pydantic import BaseModel

from kubeberth import Status, hookimpl


class Args(BaseModel):
    watchPod: str  # noqa: N815 - upstream's field


class BindingFailingPlugin:
    name = "BindingFailingPlugin"
    Args = Args

    def __init__(self, args):
        self.watch_pod, self.failed = args.watchPod, set()

    @hookimpl
    def pre_bind_pre_flight(self, pod):
        return None

    @hookimpl
    def pre_bind(self, pod):
        if pod.name == self.watch_pod and pod.namespace not in self.failed:
            self.failed.add(pod.namespace)
            return Status.error("mock binding failure")
        return None
'''

# Upstream cases whose outcome kubeberth does not reproduce yet (strict xfails), with the reason.
DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def plane() -> Iterator[LocalControlPlane]:
    yield from podgroup_plane()


@pytest.fixture(scope="module")
def kubeberth(plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    tmp = tmp_path_factory.mktemp("podgroup-queueing")
    plugins = tmp / "plugins"
    plugins.mkdir()
    (plugins / "binding_failing.py").write_text(BINDING_FAILING)
    config = write_profiles(Path(tmp / "config.yaml"), [
        {"schedulerName": PLAIN},
        {"schedulerName": PREBIND_FAIL, "plugins": {"preBind": {"enabled": [{"name": "BindingFailingPlugin"}]}},
         "pluginConfig": [{"name": "BindingFailingPlugin", "args": {"watchPod": "p1"}}]},
    ])
    with kubeberth_with(plane, config, "GenericWorkload=true", "podgroup-queueing", plugins) as kb:
        yield kb


def params(test: str) -> list[Any]:
    return cases(TABLES[test], test, DIFFERENCES)


def ungate(pod: dict[str, Any]) -> None:
    """The cases' UpdatePod ModifyFn: p.Spec.SchedulingGates = nil."""
    pod["spec"].pop("schedulingGates", None)


@pytest.mark.parametrize("case", params("TestPodGroupQueueing"))
def test_pod_group_queueing(plane: LocalControlPlane, kubeberth: Kubeberth, case: dict[str, Any]) -> None:
    """TestPodGroupQueueing: GenericWorkload on, node "node" (2 cpus), then the case's steps; with the
    bindingFailingPlugin's profile where the case has one."""
    profile = PREBIND_FAIL if case.get("bindingFailing") else PLAIN
    updates = {s["Name"]: ungate for s in case["steps"] if s.get("UpdatePod")}
    with case_on(plane, kubeberth, profile) as c:
        run_steps(c, [{"Name": "Create initial node", "CreateNodes": [make_node("node", "2")]}, *case["steps"]],
                  updates)

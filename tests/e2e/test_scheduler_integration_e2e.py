"""kube-scheduler v1.37.2 test/integration/scheduler/scheduler_test.go against kubeberth on a real API server:
same objects, same expected outcomes, one `kubeberth run` process for the module in place of the in-process
kube-scheduler. Tables are upstream's (upstream_tables/scheduler.json, scripts/upstream_integration_tables.py);
cases, namespaces and node names as in test_filters_integration_e2e.py (tests/e2e/upstream_integration.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane
from kubeberth_harness import Api, Kubeberth, suffix, write_config
from upstream_integration import PAUSE, Case, cases, make_node, tables

TABLES = tables("scheduler")
DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def kubeberth_scheduler(
    control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeberth]:
    config = write_config(Path(tmp_path_factory.mktemp("scheduler")) / "config.yaml")
    kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-scheduler-{suffix()}")
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


@pytest.fixture
def case(kubeberth_scheduler: Kubeberth, api: Api) -> Iterator[Case]:
    c = Case(api, kubeberth_scheduler)
    try:
        yield c
    finally:
        c.cleanup()


def _pause_pod(name: str, ports: dict[str, Any]) -> dict[str, Any]:
    """testutils.InitPausePod with ContainerPorts, RestartableInitContainerPorts and
    NonRestartableInitContainerPorts: the init container "<name>-init" (restartPolicy Always when restartable)."""
    spec: dict[str, Any] = {"containers": [{"name": name, "image": PAUSE, "ports": ports["container"] or []}]}
    if ports["restartableInitContainer"] is not None:
        spec["initContainers"] = [{"name": f"{name}-init", "image": PAUSE, "restartPolicy": "Always",
                                   "ports": ports["restartableInitContainer"]}]
    if ports["nonRestartableInitContainer"] is not None:
        spec["initContainers"] = [{"name": f"{name}-init", "image": PAUSE,
                                   "ports": ports["nonRestartableInitContainer"]}]
    return {"metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("tc", cases(TABLES["TestHostPorts"], "TestHostPorts", DIFFERENCES))
def test_TestHostPorts(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """One node (conflicting-host-ports-node); p1 schedules; p2 schedules, or is unschedulable, by the ports
    of the two pods' containers and init containers."""
    case.rename_nodes(["conflicting-host-ports-node"])
    case.node(make_node("conflicting-host-ports-node"))
    ns = case.ns("conflicting-host-ports")
    case.wait_scheduled(*case.pod(_pause_pod("p1", tc["firstPorts"]), ns))
    p2 = case.pod(_pause_pod("p2", tc["secondPorts"]), ns)
    if tc["wantSecondScheduled"]:
        case.wait_scheduled(*p2)
    else:
        case.wait_unschedulable(*p2)

"""Gang scheduling against a real kube-apiserver serving the PodGroup API (GenericWorkload).

The API server runs with scheduling.k8s.io/v1beta1 and the GenericWorkload gate; kubeberth runs
with exactly config/rbac.yaml's permissions and the same gate (so its default profile has
GangScheduling and it watches PodGroups).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import LocalControlPlane
from kubeberth_harness import CONFIG_DIR, PROFILE, Api, Kubeberth, suffix, write_config

WORKLOAD_API = ("--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates=GenericWorkload=true")


@pytest.fixture(scope="module")
def workload_plane() -> Iterator[LocalControlPlane]:
    if os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1":
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    with LocalControlPlane(extra_apiserver_args=WORKLOAD_API) as cp:
        yield cp


@pytest.fixture(scope="module")
def gang_api(workload_plane: LocalControlPlane) -> Api:
    return Api(workload_plane)


@pytest.fixture(scope="module")
def kubeberth(workload_plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    workload_plane.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
    kubeconfig = workload_plane.kubeconfig_for_service_account("kube-system", "kubeberth")
    # The default profile: the GenericWorkload gate adds GangScheduling, as in kube-scheduler.
    config = write_config(tmp_path_factory.mktemp("gang") / "config.yaml")
    kb = Kubeberth(workload_plane, kubeconfig, config, False, f"kubeberth-{suffix()}",
                   env={"KUBEBERTH_FEATURE_GATES": "GenericWorkload=true"})
    kb.wait_ready()
    yield kb
    kb.stop()


def pod_group(ns: str, name: str, min_count: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}}


def create_member(api: Api, ns: str, name: str, group: str, cpu: str) -> None:
    spec = {
        "schedulerName": PROFILE,
        "schedulingGroup": {"podGroupName": group},
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}],
    }
    api.call("POST", f"/api/v1/namespaces/{ns}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                                       "spec": spec})


def wait_for(check: Any, timeout: float = 60, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_gangs_bind_all_or_nothing(gang_api: Api, kubeberth: Kubeberth) -> None:
    api = gang_api
    node = f"gang-node-{suffix()}"
    api.create_node(node, cpu="4", memory="8Gi")
    ns = f"gang-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    try:
        # A gang of three whose members arrive one by one: nothing binds until the third exists.
        api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, "fits", 3))
        create_member(api, ns, "fits-0", "fits", "500m")
        create_member(api, ns, "fits-1", "fits", "500m")
        time.sleep(2)
        assert api.bound(ns) == {}
        held = kubeberth.held_pods()
        assert sorted(held.get("gated", [])) == [f"{ns}/fits-0", f"{ns}/fits-1"]
        create_member(api, ns, "fits-2", "fits", "500m")
        bound = wait_for(lambda: len(api.bound(ns)) == 3 and api.bound(ns), what="the gang to bind")
        assert set(bound) == {"fits-0", "fits-1", "fits-2"}

        # A gang of three where only two fit in what is left (2.5 cpus): two wait at Permit, none binds.
        api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, "big", 3))
        for i in range(3):
            create_member(api, ns, f"big-{i}", "big", "1")
        wait_for(lambda: len(kubeberth.held_pods().get("waiting", [])) == 2, what="two members waiting at Permit")
        time.sleep(3)
        assert not any(name.startswith("big-") for name in api.bound(ns))
        notes = [e.get("note", "") for e in api.events(ns) if e.get("reason") == "FailedScheduling"]
        assert any("Insufficient cpu" in n for n in notes), notes
    finally:
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        api.delete_node(node)

"""Gang scheduling against a real kube-apiserver serving the PodGroup API (GenericWorkload).

The API server runs with scheduling.k8s.io/v1beta1 and the GenericWorkload gate; kubeberth runs
with exactly config/rbac.yaml's permissions and the same gate (so its default profile has
GangScheduling, it watches PodGroups, and a group's members are scheduled together in one pod
group cycle, as kube-scheduler v1.37 does).
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


def create_member(api: Api, ns: str, name: str, group: str, cpu: str, scheduler: str = PROFILE,
                  node_selector: dict[str, str] | None = None) -> None:
    """A pod of PodGroup `group` ("" for none) asking for `cpu`."""
    spec: dict[str, Any] = {
        "schedulerName": scheduler,
        "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}],
    }
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if node_selector:
        spec["nodeSelector"] = node_selector
    api.call("POST", f"/api/v1/namespaces/{ns}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                                       "spec": spec})


def group_condition(api: Api, ns: str, name: str) -> dict[str, Any] | None:
    """The PodGroup's PodGroupInitiallyScheduled condition, if set."""
    group = api.call("GET", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups/{name}")
    found = [c for c in (group.get("status") or {}).get("conditions") or [] if c["type"] == "PodGroupInitiallyScheduled"]
    return found[0] if found else None


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

        # A gang of three where only two fit in what is left (2.5 cpus): the pod group cycle tries
        # the three together and gives up at once; none binds and nothing is held at Permit.
        api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, "big", 3))
        for i in range(3):
            create_member(api, ns, f"big-{i}", "big", "1")

        def failed() -> dict[str, str]:
            notes = {e["regarding"]["name"]: e.get("note", "") for e in api.events(ns)
                     if e.get("reason") == "FailedScheduling" and e["regarding"]["name"].startswith("big-")}
            return notes if len(notes) == 3 else {}

        notes = wait_for(failed, what="the three members to be reported unschedulable")
        assert sorted(notes.values()) == [
            "0/1 nodes are available: 1 Insufficient cpu.",
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining",
            "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining",
        ], notes
        assert kubeberth.held_pods().get("waiting", []) == []
        # The PodGroup's condition says why (kubeberth writes podgroups/status, nothing else).
        condition = wait_for(lambda: group_condition(api, ns, "big"), what="big's PodGroupInitiallyScheduled")
        assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
        assert condition["message"] == "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"
        assert not any(name.startswith("big-") for name in api.bound(ns))
        # The room the gang did not get is free: a 2.5 cpu pod binds on the node at once.
        create_member(api, ns, "solo", "", "2500m")
        wait_for(lambda: "solo" in api.bound(ns), what="a plain pod to use the room the gang left")

        # Room for the whole gang: a second node lets the group in, and all three bind.
        other = f"gang-node-{suffix()}"
        api.create_node(other, cpu="4", memory="8Gi")
        try:
            bound = wait_for(lambda: sum(n.startswith("big-") for n in api.bound(ns)) == 3 and api.bound(ns),
                             what="the gang to bind on the new node")
            assert {bound[f"big-{i}"] for i in range(3)} == {other}
            wait_for(lambda: (group_condition(api, ns, "big") or {}).get("status") == "True",
                     what="big's PodGroupInitiallyScheduled to turn True")
            assert group_condition(api, ns, "fits")["reason"] == "Scheduled"
        finally:
            api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
            api.delete_node(other)
    finally:
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        api.delete_node(node)


@pytest.fixture(scope="module")
def upstream(workload_plane: LocalControlPlane) -> Iterator[Any]:
    """kube-scheduler v1.37.2 with the same gate (schedulerName default-scheduler)."""
    proc = workload_plane.start_kube_scheduler(extra_args=["--feature-gates=GenericWorkload=true"])
    try:
        yield proc
    finally:
        proc.stop()
        if proc in workload_plane.schedulers:
            workload_plane.schedulers.remove(proc)


def without_group_preemption(message: str) -> str:
    """kube-scheduler also runs DefaultPreemption's PodGroupPostFilter (workload-aware preemption,
    not in kubeberth) and appends its outcome (`, pod group preemption: No preemption victims
    found ...`): what comes before it is compared."""
    return message.split(", pod group preemption: ", 1)[0]


def test_a_gang_that_cannot_fit_is_reported_as_kube_scheduler_reports_it(
    gang_api: Api, kubeberth: Kubeberth, upstream: Any
) -> None:
    """The same gang (three 1500m members, room for two) on a node of its own for each scheduler:
    kubeberth and kube-scheduler v1.37.2 give the members the same FailedScheduling messages and
    the PodGroup the same condition."""
    api = gang_api
    ns = f"gang-cmp-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    nodes = {owner: f"gang-{owner}-{suffix()}" for owner in ("kb", "ks")}
    for owner, node in nodes.items():
        api.create_node(node, cpu="4", memory="8Gi", labels={"gang-owner": owner})
    try:
        for owner, scheduler in (("kb", PROFILE), ("ks", "default-scheduler")):
            group = f"big-{owner}"
            api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, group, 3))
            for i in range(3):
                create_member(api, ns, f"{group}-{i}", group, "1500m", scheduler, {"gang-owner": owner})

        def notes(owner: str) -> list[str]:
            found = {e["regarding"]["name"]: e.get("note", "") for e in api.events(ns)
                     if e.get("reason") == "FailedScheduling" and e["regarding"]["name"].startswith(f"big-{owner}-")}
            return sorted(found.values()) if len(found) == 3 else []

        ours = wait_for(lambda: notes("kb"), what="kubeberth's FailedScheduling events")
        theirs = wait_for(lambda: notes("ks"), what="kube-scheduler's FailedScheduling events")
        assert ours == sorted(map(without_group_preemption, theirs)), (ours, theirs)
        assert any("Insufficient cpu" in n for n in ours)
        conditions = {}
        for owner in ("kb", "ks"):
            found = wait_for(lambda o=owner: group_condition(api, ns, f"big-{o}"), what=f"big-{owner}'s condition")
            conditions[owner] = (found["status"], found["reason"], without_group_preemption(found["message"]))
        assert conditions["kb"] == conditions["ks"], conditions
        assert not any(name.startswith("big-") for name in api.bound(ns))
    finally:
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        for node in nodes.values():
            api.delete_node(node)

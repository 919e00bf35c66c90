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
        # PodGroupPostFilter (workload-aware preemption) found nothing to preempt: its outcome is appended.
        nothing = "pod group preemption: No preemption victims found for incoming preemptor"
        assert sorted(notes.values()) == [
            "0/1 nodes are available: 1 Insufficient cpu.",
            f"pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, {nothing}",
            f"pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, {nothing}",
        ], notes
        assert kubeberth.held_pods().get("waiting", []) == []
        # The PodGroup's condition says why (kubeberth writes podgroups/status, nothing else).
        condition = wait_for(lambda: group_condition(api, ns, "big"), what="big's PodGroupInitiallyScheduled")
        assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
        assert condition["message"] == f"minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, {nothing}"
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


def test_a_gang_that_cannot_fit_is_reported_as_kube_scheduler_reports_it(
    gang_api: Api, kubeberth: Kubeberth, upstream: Any
) -> None:
    """The same gang (three 1500m members, room for two) on a node of its own for each scheduler:
    kubeberth and kube-scheduler v1.37.2 give the members the same FailedScheduling messages and
    the PodGroup the same condition (PodGroupPostFilter's outcome included: nothing to preempt)."""
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
        # Both run DefaultPreemption's PodGroupPostFilter and append its outcome ("pod group preemption: ...").
        assert ours == theirs, (ours, theirs)
        assert any("Insufficient cpu" in n for n in ours)
        conditions = {}
        for owner in ("kb", "ks"):
            found = wait_for(lambda o=owner: group_condition(api, ns, f"big-{o}"), what=f"big-{owner}'s condition")
            conditions[owner] = (found["status"], found["reason"], found["message"])
        assert conditions["kb"] == conditions["ks"], conditions
        assert not any(name.startswith("big-") for name in api.bound(ns))
    finally:
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        for node in nodes.values():
            api.delete_node(node)


def priority_class(api: Api, value: int) -> str:
    name = f"gang-prio-{value}-{suffix()}"
    api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})
    return name


def test_a_high_priority_gang_preempts_a_low_priority_gang_whole_as_kube_scheduler_does(
    gang_api: Api, kubeberth: Kubeberth, upstream: Any
) -> None:
    """Workload-aware preemption side by side. Per scheduler: two 2-cpu nodes of its own, a low-priority
    gang of four 800m members (disruptionMode all, two per node), then a high-priority PodGroup of one
    1500m member. One node's two low members would make room, but the low gang is disrupted as a whole:
    kubeberth, as kube-scheduler v1.37.2, evicts all four (never half the gang), marks each
    DisruptionTarget for a podgroup, nominates the member and binds it once the victims are gone. There
    is no kubelet: the test finishes the victims' graceful deletion."""
    api = gang_api
    ns = f"gang-pre-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    low, high = priority_class(api, 10), priority_class(api, 100000)
    schedulers = {"kb": PROFILE, "ks": "default-scheduler"}
    nodes = {owner: [f"gp-{owner}-{i}-{suffix()}" for i in range(2)] for owner in schedulers}
    for owner, names in nodes.items():
        for node in names:
            api.create_node(node, cpu="2", memory="8Gi", labels={"gang-owner": owner})
    groups = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"

    def group(name: str, min_count: int, priority_class_name: str) -> None:
        body = pod_group(ns, name, min_count)
        body["spec"].update({"priorityClassName": priority_class_name, "disruptionMode": {"all": {}}})
        api.call("POST", groups, body)

    def member(name: str, group_name: str, cpu: str, owner: str, priority_class_name: str) -> None:
        api.call("POST", f"/api/v1/namespaces/{ns}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                 "spec": {"schedulerName": schedulers[owner], "priorityClassName": priority_class_name,
                          "schedulingGroup": {"podGroupName": group_name}, "nodeSelector": {"gang-owner": owner},
                          "terminationGracePeriodSeconds": 30,
                          "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                          "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}})

    try:
        for owner in schedulers:
            group(f"low-{owner}", 4, low)
            for i in range(4):
                member(f"low-{owner}-{i}", f"low-{owner}", "800m", owner, low)
        wait_for(lambda: sum(n.startswith("low-") for n in api.bound(ns)) == 8, what="both low gangs to bind")
        for owner in schedulers:
            group(f"high-{owner}", 1, high)
            member(f"high-{owner}-0", f"high-{owner}", "1500m", owner, high)

        def terminating(owner: str) -> list[str]:
            return sorted(p["metadata"]["name"] for p in api.pods(ns)
                          if p["metadata"]["name"].startswith(f"low-{owner}-") and p["metadata"].get("deletionTimestamp"))

        outcome: dict[str, Any] = {}
        for owner, scheduler in schedulers.items():
            preemptor = f"high-{owner}-0"
            nominated = wait_for(lambda p=preemptor: (api.pod(ns, p) or {}).get("status", {}).get("nominatedNodeName"),
                                 what=f"{scheduler} to nominate {preemptor}")
            victims = wait_for(lambda o=owner: len(terminating(o)) == 4 and terminating(o),
                               what=f"{scheduler} to evict the whole low gang")
            conditions = []
            for name in victims:
                pod = api.pod(ns, name) or {}
                conditions += [c for c in pod["status"].get("conditions") or () if c["type"] == "DisruptionTarget"]
            notes = sorted({e.get("note", "").rsplit(" ", 1)[0] for e in api.events(ns)
                            if e.get("reason") == "Preempted" and e["regarding"]["name"].startswith(f"low-{owner}-")})
            # The kubelet's final delete, the nominated node's victims first: were another node freed
            # first, a retry in between could (for either scheduler) bind the preemptor there.
            on_nominated = {name for name in victims if (api.pod(ns, name) or {}).get("spec", {}).get("nodeName") == nominated}
            for name in sorted(victims, key=lambda v: v not in on_nominated):
                api.delete_pod(ns, name)
            bound = wait_for(lambda p=preemptor: api.bound(ns).get(p), what=f"{scheduler} to bind {preemptor}")
            outcome[owner] = {"nominated": nominated in nodes[owner], "bound": bound == nominated,
                              "victims": [v.rsplit("-", 1)[1] for v in victims],
                              "conditions": sorted({(c["reason"], c["message"].split(": ", 1)[1]) for c in conditions}),
                              "events": len(conditions), "notes": notes}
        assert outcome["kb"]["victims"] == ["0", "1", "2", "3"], outcome
        # kube-scheduler names the PodGroup in the Preempted event; compare the words before its uid
        group_uid = {o: api.call("GET", f"{groups}/high-{o}")["metadata"]["uid"] for o in schedulers}
        for owner in schedulers:
            assert outcome[owner]["notes"] == [f"Preempted by podgroup {group_uid[owner]} on node"], outcome
            outcome[owner].pop("notes")
        assert outcome["kb"] == outcome["ks"], outcome
        assert outcome["kb"]["conditions"] == [("PreemptionByScheduler", "preempting to accommodate a higher priority podgroup")]
    finally:
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        for names in nodes.values():
            for node in names:
                api.delete_node(node)
        for name in (low, high):
            api.call("DELETE", f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}", ok=(200, 404))

"""kube-scheduler v1.37.2's podgroup integration tests (test/integration/scheduler/podgroup) run their cases as
lists of steps (podgroup/stepsframework: stepsframework.RunSteps); the tables are dumped as they are into
upstream_tables/podgroup*.json (scripts/upstream_integration_tables.py) and `run_steps` here performs each step
against the real API server with kubeberth in place of the test's scheduler.

The control plane is one of the module's own: kube-apiserver serving scheduling.k8s.io/v1beta1 (PodGroups,
Workloads) with GenericWorkload and TopologyAwareWorkloadScheduling on (the session's shared plane does not serve
that API). Per kubeberth process the gates are its own (`--feature-gates` through KUBEBERTH_FEATURE_GATES), as
the tests set them with SetFeatureGatesDuringTest; each case runs in a namespace and nodes of its own.

Steps that read the scheduler's queue in-process are observed from outside:
- WaitForPodsInUnschedulableEntities: the pod is in kubeberth's held-pods dump (SIGUSR2) as `unschedulable` or
  `gated` (held by a PreEnqueue plugin: upstream's unschedulablePods);
- WaitForPodsInIncompletePodGroupPods: the pod is `gated` in that dump while its PodGroup does not exist
  (kubeberth holds such a pod by GangScheduling's PreEnqueue, "waiting for pods's pod group ... to appear",
  where kube-scheduler's queue keeps it in incompletePodGroupPods);
- VerifyPodSchedulingAttempts: the pod is held (in the dump) and its decision record
  (GET /debug/decisions/<ns>/<pod>) says attempt N, or, for 0, that there is none (404, state "queued");
- CreatePodsInOrder: after each pod, kubeberth has it (its /debug/decisions answer is no longer "pending": not
  received from the informer) or has tried it (a PodScheduled condition), as upstream waits for it in the queue;
- CreatePodGroup / UpdatePodGroup / DeletePodGroup: upstream waits for the scheduler's informer to have the
  change; here the object is read back from the API and kubeberth given INFORMER_SETTLE to receive it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import CONFIG_DIR, Api, Kubeberth, suffix
from upstream_integration import POLL_TIMEOUT, Case, cleaned

PG_API = "/apis/scheduling.k8s.io/v1beta1"
APISERVER_ARGS = ("--runtime-config=scheduling.k8s.io/v1beta1=true",
                  "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
INFORMER_SETTLE = 0.3  # seconds given kubeberth's informer to receive a PodGroup write before the next step


def podgroup_plane() -> Iterator[LocalControlPlane]:
    """A control plane serving the PodGroup API (for a module fixture)."""
    if os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1":
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    with LocalControlPlane(extra_apiserver_args=APISERVER_ARGS) as cp:
        cp.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
        yield cp


def write_profiles(path: Path, profiles: list[dict[str, Any]], backoff: int = 1, max_backoff: int = 1) -> Path:
    """A KubeSchedulerConfiguration with these profiles. Upstream disables backoff (0 s), which the v1
    configuration does not accept: 1 s (SchedulerPopFromBackoffQ pops a backing-off pod when activeQ is empty)."""
    path.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": backoff, "podMaxBackoffSeconds": max_backoff,
        "leaderElection": {"leaderElect": False}, "profiles": profiles}))
    return path


@contextlib.contextmanager
def kubeberth_with(cp: LocalControlPlane, config: Path, gates: str, name: str,
                   plugins_dir: Path | None = None) -> Iterator[Kubeberth]:
    """`kubeberth run` with config/rbac.yaml's permissions and these feature gates."""
    kubeconfig = cp.kubeconfig_for_service_account("kube-system", "kubeberth")
    kb = Kubeberth(cp, kubeconfig, config, False, f"kubeberth-{name}-{suffix()}", plugins_dir=plugins_dir,
                   env={"KUBEBERTH_FEATURE_GATES": gates})
    try:
        kb.wait_ready()
        yield kb
    finally:
        kb.stop()


class PodGroupCase(Case):
    """One upstream case: its namespace (testCtx.NS), nodes, PodGroups and Workloads, and the profile its
    pods name."""

    def __init__(self, api: Api, kb: Kubeberth, profile: str) -> None:
        super().__init__(api, kb)
        self.profile = profile
        self.namespace = self.ns("podgroup")

    def pg_path(self, name: str = "") -> str:
        return f"{PG_API}/namespaces/{self.namespace}/podgroups" + (f"/{name}" if name else "")

    def pod_group(self, name: str) -> dict[str, Any] | None:
        status, data = self.api.cp.request("GET", self.pg_path(name))
        return data if status == 200 else None

    def create_pod(self, pod: dict[str, Any]) -> str:
        body = copy.deepcopy(pod)
        if body["spec"].get("nodeName"):
            body["spec"]["nodeName"] = self.node_name(body["spec"]["nodeName"])
        return self.pod(body, self.namespace, scheduler=self.profile)[1]

    def decision(self, name: str) -> tuple[int, dict[str, Any]]:
        """GET /debug/decisions/<ns>/<pod>: (status, body)."""
        url = f"http://127.0.0.1:{self.kb.port}/debug/decisions/{self.namespace}/{name}"
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")

    def held_where(self, name: str) -> str:
        """Where kubeberth's held-pods dump has the pod ("" if not held)."""
        key = f"{self.namespace}/{name}"
        for where, keys in self.kb.held_pods().items():
            if key in keys:
                return where
        return ""

    def pod_deleted(self, name: str) -> bool:
        status, _ = self.api.cp.request("GET", f"/api/v1/namespaces/{self.namespace}/pods/{name}")
        return status == 404

    def cleanup(self) -> None:
        for path in (self.pg_path(), f"{PG_API}/namespaces/{self.namespace}/workloads"):
            self.api.call("DELETE", path, ok=(200, 404))
        super().cleanup()


def case_on(plane: LocalControlPlane, kb: Kubeberth, profile: str) -> contextlib.AbstractContextManager[PodGroupCase]:
    """A case on `plane`, its pods named for `profile`; its objects are deleted when it ends."""
    return cleaned(PodGroupCase(Api(plane), kb, profile))


def _condition(pod: dict[str, Any], reason: str) -> bool:
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == reason
               for c in (pod.get("status") or {}).get("conditions") or [])


def _wait(c: PodGroupCase, check: Callable[[], Any], what: str, timeout: float = POLL_TIMEOUT) -> Any:
    try:
        return wait_for(check, timeout, what, interval=0.1)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{c.kb.log_tail(30)}") from None


def _create_pods(c: PodGroupCase, pods: list[dict[str, Any]], in_order: bool) -> None:
    for pod in pods:
        name = c.create_pod(pod)
        if in_order:
            def seen(name: str = name) -> bool:
                status, body = c.decision(name)
                return (status == 200 or body.get("state") != "pending"
                        or any(x.get("type") == "PodScheduled"
                               for x in (c.get(c.namespace, name).get("status") or {}).get("conditions") or []))
            _wait(c, seen, f"kubeberth to receive pod {name}", 10)


def _group_spec(c: PodGroupCase, spec: dict[str, Any]) -> dict[str, Any]:
    """The PodGroup spec as the API takes it here: the Priority admission plugin (on in this control plane, off in
    upstream's test API server) rejects a bare spec.priority, so it comes from a PriorityClass of that value."""
    spec = copy.deepcopy(spec)
    if spec.get("priority") is not None and not spec.get("priorityClassName"):
        spec["priorityClassName"] = c.priority_class(spec.pop("priority"))
    return spec


def _create_pod_group(c: PodGroupCase, group: dict[str, Any]) -> None:
    body = {**copy.deepcopy(group), "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"}
    body.pop("status", None)
    body["spec"] = _group_spec(c, body["spec"])
    c.api.call("POST", c.pg_path(), body)
    time.sleep(INFORMER_SETTLE)


def _update_pod_group(c: PodGroupCase, group: dict[str, Any]) -> None:
    existing = c.api.call("GET", c.pg_path(group["metadata"]["name"]))
    existing["spec"] = {**_group_spec(c, group["spec"]), "priority": existing["spec"].get("priority")}
    c.api.call("PUT", c.pg_path(group["metadata"]["name"]), existing)
    time.sleep(INFORMER_SETTLE)


def _delete_pod_group(c: PodGroupCase, name: str) -> None:
    existing = c.pod_group(name)
    if existing and existing["metadata"].get("finalizers"):
        existing["metadata"]["finalizers"] = None
        c.api.call("PUT", c.pg_path(name), existing)
    c.api.call("DELETE", c.pg_path(name), ok=(200, 202))
    _wait(c, lambda: c.pod_group(name) is None, f"PodGroup {name} to be gone")
    time.sleep(INFORMER_SETTLE)


def _create_workloads(c: PodGroupCase, workloads: list[dict[str, Any]]) -> None:
    for wl in workloads:
        body = {**copy.deepcopy(wl), "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload"}
        body.pop("status", None)
        body["metadata"].pop("namespace", None)
        c.api.call("POST", f"{PG_API}/namespaces/{c.namespace}/workloads", body)


def _in_unschedulable_entities(c: PodGroupCase, name: str) -> bool:
    return c.held_where(name) in ("unschedulable", "gated")


def _in_incomplete(c: PodGroupCase, name: str) -> bool:
    group = (c.get(c.namespace, name).get("spec") or {}).get("schedulingGroup", {}).get("podGroupName", "")
    return c.held_where(name) == "gated" and c.pod_group(group) is None


def _wait_any(c: PodGroupCase, spec: dict[str, Any]) -> None:
    def counts() -> bool:
        scheduled = unschedulable = 0
        for pod in spec["Pods"]:
            got = c.get(c.namespace, pod["metadata"]["name"])
            if (got.get("spec") or {}).get("nodeName"):
                scheduled += 1
            elif _condition(got, "Unschedulable"):
                unschedulable += 1
        return scheduled == spec["NumScheduled"] and unschedulable == spec["NumUnschedulable"]

    _wait(c, counts, f"{spec['NumScheduled']} scheduled and {spec['NumUnschedulable']} unschedulable")


def _pod_group_condition(c: PodGroupCase, check: dict[str, Any]) -> None:
    def has() -> bool:
        group = c.pod_group(check["PodGroupName"]) or {}
        return any(x.get("type") == "PodGroupInitiallyScheduled" and x.get("status") == check["ConditionStatus"]
                   and x.get("reason") == check["Reason"] for x in (group.get("status") or {}).get("conditions") or [])

    _wait(c, has, f"PodGroup {check['PodGroupName']} condition {check['ConditionStatus']}/{check['Reason']}")


def _verify_assignments(c: PodGroupCase, spec: dict[str, Any]) -> None:
    nodes = {c.node_name(n) for n in spec["Nodes"]}
    for name in spec["Pods"]:
        node = (c.get(c.namespace, name).get("spec") or {}).get("nodeName", "")
        assert node, f"pod {name} is not assigned"
        assert node in nodes, f"wanted pod {name} scheduled on node within {sorted(nodes)} but got {node}"


def _verify_one_domain(c: PodGroupCase, spec: dict[str, Any]) -> None:
    domains = set()
    for name in spec["Pods"]:
        node = (c.get(c.namespace, name).get("spec") or {}).get("nodeName", "")
        assert node, f"pod {name} is not assigned"
        domain = (c.api.call("GET", f"/api/v1/nodes/{node}")["metadata"].get("labels") or {}).get(spec["TopologyKey"])
        assert domain, f'invalid domain value "" in node {node}'
        domains.add(domain)
    assert len(domains) == 1, f"pods assigned to different {spec['TopologyKey']} domains: {sorted(domains)}"


def _verify_attempts(c: PodGroupCase, spec: dict[str, Any]) -> None:
    for name in spec["PodNames"]:
        assert c.held_where(name), f"pod {name} not found in scheduling queue"
        status, body = c.decision(name)
        attempts = int(body.get("attempt", 0)) if status == 200 else 0
        assert attempts == spec["Attempts"], f"pod {name}: {attempts} scheduling attempts, want {spec['Attempts']}"


def _each(c: PodGroupCase, names: list[str], check: Callable[[str], bool], what: str) -> None:
    for name in names:
        _wait(c, lambda n=name: check(n), f"pod {name} {what}")


def _scheduling_error(c: PodGroupCase, name: str) -> bool:
    return _condition(c.get(c.namespace, name), "SchedulerError")


def run_step(c: PodGroupCase, step: dict[str, Any], update_pod: Callable[[dict[str, Any]], None] | None) -> None:
    """stepsframework.RunSteps' switch: only the first operation of a step runs."""
    s = step
    if s.get("CreateNodes") is not None:
        c.rename_nodes([n["metadata"]["name"] for n in s["CreateNodes"]])
        for node in s["CreateNodes"]:
            c.node(node)
    elif s.get("CreatePods") is not None:
        _create_pods(c, s["CreatePods"], False)
    elif s.get("CreatePodsInOrder") is not None:
        _create_pods(c, s["CreatePodsInOrder"], True)
    elif s.get("CreateCompositePodGroup") is not None or s.get("UpdateCompositePodGroup") is not None:
        raise NotImplementedError("CompositePodGroup is not implemented")
    elif s.get("CreatePodGroup") is not None:
        _create_pod_group(c, s["CreatePodGroup"])
    elif s.get("UpdatePodGroup") is not None:
        _update_pod_group(c, s["UpdatePodGroup"])
    elif s.get("DeletePodGroup"):
        _delete_pod_group(c, s["DeletePodGroup"])
    elif s.get("CreateWorkloads") is not None:
        _create_workloads(c, s["CreateWorkloads"])
    elif s.get("DeletePods") is not None:
        for name in s["DeletePods"]:
            c.api.call("DELETE", f"/api/v1/namespaces/{c.namespace}/pods/{name}")
    elif s.get("UpdatePod") is not None:
        assert update_pod is not None, f"step {s['Name']!r}: its ModifyFn is not transcribed"
        pod = c.get(c.namespace, s["UpdatePod"]["PodName"])
        update_pod(pod)
        c.api.call("PUT", f"/api/v1/namespaces/{c.namespace}/pods/{pod['metadata']['name']}", pod)
    elif s.get("WaitForPodsInActiveQ") is not None:
        _each(c, s["WaitForPodsInActiveQ"], lambda n: c.held_where(n) == "active", "in activeQ")
    elif s.get("WaitForPodsInUnschedulableEntities") is not None:
        _each(c, s["WaitForPodsInUnschedulableEntities"], lambda n: _in_unschedulable_entities(c, n),
              "in unschedulable entities")
    elif s.get("WaitForPodsInIncompletePodGroupPods") is not None:
        _each(c, s["WaitForPodsInIncompletePodGroupPods"], lambda n: _in_incomplete(c, n),
              "held for its missing PodGroup")
    elif s.get("WaitForPodsUnschedulable") is not None:
        for name in s["WaitForPodsUnschedulable"]:
            c.wait_unschedulable(c.namespace, name)
    elif s.get("WaitForPodsSchedulingError") is not None:
        _each(c, s["WaitForPodsSchedulingError"], lambda n: _scheduling_error(c, n), "with a scheduling error")
    elif s.get("WaitForPodsScheduled") is not None:
        for name in s["WaitForPodsScheduled"]:
            c.wait_scheduled(c.namespace, name)
    elif s.get("WaitForPodsRemoved") is not None:
        _each(c, s["WaitForPodsRemoved"], c.pod_deleted, "removed")
    elif s.get("WaitForAnyPodsScheduled") is not None:
        _wait_any(c, s["WaitForAnyPodsScheduled"])
    elif s.get("WaitForPodGroupCondition") is not None:
        _pod_group_condition(c, s["WaitForPodGroupCondition"])
    elif s.get("VerifyAssignments") is not None:
        _verify_assignments(c, s["VerifyAssignments"])
    elif s.get("VerifyAssignedInOneDomain") is not None:
        _verify_one_domain(c, s["VerifyAssignedInOneDomain"])
    elif s.get("VerifyPodSchedulingAttempts") is not None:
        _verify_attempts(c, s["VerifyPodSchedulingAttempts"])
    else:
        raise AssertionError(f"no operation specified for step {s['Name']!r}")


def run_steps(c: PodGroupCase, steps: list[dict[str, Any]],
              update_pod: dict[str, Callable[[dict[str, Any]], None]] | None = None) -> None:
    """stepsframework.RunSteps; `update_pod` maps an UpdatePod step's name to its ModifyFn, transcribed."""
    for i, step in enumerate(steps):
        try:
            run_step(c, step, (update_pod or {}).get(step["Name"]))
        except AssertionError as err:
            held = {where: [k for k in keys if k.startswith(f"{c.namespace}/")]
                    for where, keys in c.kb.held_pods().items()}
            with urllib.request.urlopen(f"http://127.0.0.1:{c.kb.port}/metrics", timeout=5) as resp:
                gauge = [x for x in resp.read().decode().splitlines() if x.startswith("scheduler_unschedulable_pods{")]
            raise AssertionError(f"step {i} ({step['Name']}) failed: {err}\nheld: {held}\n{gauge}") from None


def workload(name: str, templates: list[tuple[str, int | None]]) -> dict[str, Any]:
    """st.MakeWorkload().Name(name).PodGroupTemplate(st.MakePodGroupTemplate().Name(t).MinCount(n) / .BasicPolicy())."""
    return {"metadata": {"name": name}, "spec": {"podGroupTemplates": [
        {"name": t, "schedulingPolicy": {"gang": {"minCount": n}} if n is not None else {"basic": {}}}
        for t, n in templates]}}


def make_node(name: str, cpu: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """st.MakeNode().Name(name).Label(...).Capacity({cpu: ...}): the pod capacity st.MakeNode gives (32)."""
    res = {"cpu": cpu, "pods": "32"}
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": {},
            "status": {"capacity": res, "allocatable": res}}

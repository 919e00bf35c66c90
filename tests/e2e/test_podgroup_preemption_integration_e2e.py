"""kube-scheduler v1.37.2 test/integration/scheduler/preemption/podgroup/podgrouppreemption_test.go against kubeberth
on a real API server: TestPodGroupPreemption's 34 cases, TestPodGroupPreemptionStatus,
TestPodGroupPreemption_NominatedNodeNameRespected and TestPodGroupCycleStatePreserved (the saver writes into the
PodGroupCycleState its PreFilter reaches as `state.pod_group_cycle`). TestCompositePodGroupPreemption is excluded: CompositePodGroup is not implemented.

The table is dumped into upstream_tables/podgroup_preemption.json by scripts/upstream_integration_tables.py, from a
copy of the test file whose TestPodGroupPreemption prologue (SetFeatureGatesDuringTest, which needs a *testing.T)
is taken out and whose customPluginFunc values (closures) are nil: those are transcribed below (CUSTOM_PLUGINS).

The control plane is the module's own, as tests/e2e/podgroup_steps.py's: kube-apiserver serving
scheduling.k8s.io/v1beta1 with GenericWorkload and TopologyAwareWorkloadScheduling on, and PodGroupPreemptionPolicy
too (kube-apiserver drops a PodGroup's spec.preemptionPolicy when that gate is off, and upstream's cases that turn it
on set it in the one process both the API server and the scheduler run in). kubeberth runs with the test's gates
(GenericWorkload, PodLevelResources, TopologyAwareWorkloadScheduling): one process with PodGroupPreemptionPolicy
off, one (started by the first case that needs it) with it on, as each case sets it; the single tests run on a
third with GenericWorkload alone, as they set it. Each case has a namespace,
nodes and priority classes of its own, deleted when it ends.

The test's profile (multiPoint: mockBindPlugin, mockPGPostFilterPlugin, DefaultPreemption; DefaultBinder and
DefaultPreemption's default position disabled) is a kubeberth profile, the test plugins drop-ins (PLUGINS); a case's
customPlugin is added to the multiPoint set of a profile of its own. What upstream records in memory is logged by
the drop-ins and read from kubeberth's log: mockBindPlugin's nominated node names and the order of its Bind calls
and of mockPodGroupPostFilterPlugin's calls (eventRecorder). isPodInUnschedulableQueue (the tempRemovePG cases) and
the queue-order wait (preemptorPodsQueuedInCreationOrder) are podgroup_steps' WaitForPodsInUnschedulableEntities and
CreatePodsInOrder. The waits are the harness's (POLL_TIMEOUT) where upstream waits 10 s.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import CONFIG_DIR, Kubeberth
from podgroup_steps import APISERVER_ARGS, PodGroupCase, case_on, kubeberth_with, run_steps, write_profiles
from upstream_integration import PAUSE, POLL_TIMEOUT, cases, make_node, tables

TEST = "TestPodGroupPreemption"
TABLE = tables("podgroup_preemption")[TEST]
GATES = "GenericWorkload=true,PodLevelResources=true,TopologyAwareWorkloadScheduling=true"
POLICY_GATES = f"{GATES},PodGroupPreemptionPolicy=true"
SINGLE_GATES = "GenericWorkload=true"  # the single tests' gates

# Cases whose outcome kubeberth does not reproduce yet (strict xfails), with the reason.
DIFFERENCES: dict[str, str] = {}

# podgrouppreemption_test.go's mockBindPlugin, mockPodGroupPostFilterPlugin, mockScorePlugin (newPresetScorePlugin)
# and mockReservePlugin. Node names carry the case's suffix: the score plugin reads a node's upstream name.
PLUGINS = '''"""podgrouppreemption_test.go's test plugins."""
import logging
import threading

from pydantic import BaseModel

from kubeberth import Status, hookimpl

log = logging.getLogger("podgrouppreemption_test")


class mockBindPlugin:  # noqa: N801 - upstream's name
    """Records the pod's nominated node name and the call (eventRecorder), then binds as DefaultBinder."""
    name = "mockBindPlugin"

    @hookimpl
    def bind(self, pod, node_name, handle):
        log.warning("recorded %s Bind:%s nnn=%s", pod.namespace, pod.name, pod.nominated_node_name)
        return handle.bind(pod, node_name)


class mockPodGroupPostFilterPlugin:  # noqa: N801 - upstream's name
    name = "mockPGPostFilterPlugin"

    @hookimpl
    def pod_group_post_filter(self, pod_group):
        log.warning("recorded %s PodGroupPostFilter:%s", pod_group.namespace, pod_group.name)
        return Status.unschedulable("injected PodGroupPostFilter log")


class ScoreArgs(BaseModel):
    scores: dict[str, int] = {}


class mockScorePlugin:  # noqa: N801 - upstream's name
    name = "mockScorePlugin"
    Args = ScoreArgs

    def __init__(self, args):
        self.scores = args.scores

    def _score(self, node_name):
        return self.scores.get(node_name.rsplit("-", 1)[0], 0)

    @hookimpl
    def score_node(self, node):
        return self._score(node.name)

    @hookimpl
    def placement_score(self, placement):
        assignments = placement.proposed_assignments
        if not assignments:
            return 0
        return sum(self._score(a.node_name) for a in assignments) // len(assignments)


class ReserveArgs(BaseModel):
    maxPods: int = 2  # noqa: N815 - upstream's field


class mockReservePlugin:  # noqa: N801 - upstream's name
    name = "mockReservePlugin"
    Args = ReserveArgs

    def __init__(self, args):
        self.max_pods = args.maxPods
        self.lock = threading.Lock()
        self.reserved = 0

    @hookimpl
    def reserve(self, pod):
        if pod.labels.get("test-plugin") == "true":
            with self.lock:
                self.reserved += 1

    @hookimpl
    def unreserve(self, pod):
        if pod.labels.get("test-plugin") == "true":
            with self.lock:
                self.reserved -= 1

    @hookimpl
    def filter_node(self, pod, node):
        if pod.labels.get("test-plugin") != "true":
            return None
        taken = sum(1 for p in node.pods if p.labels.get("resource-taken") == "true")
        with self.lock:
            if self.reserved + taken >= self.max_pods:
                return Status.unschedulable("already reserved")
        return None


class stateSaverPreFilterPlugin:  # noqa: N801 - upstream's name
    """In a pod group's cycle, writes the names of the pods on the nodes into the pod group's cycle state
    (stateSaverKey)."""
    name = "stateSaverPreFilterPlugin"

    @hookimpl
    def pre_filter(self, state, pod, cluster):
        pg_state = state.pod_group_cycle  # IsPodGroupSchedulingCycle, GetPodGroupSchedulingCycle
        if pg_state is not None:
            pg_state["stateSaverKey"] = [p.name for uid in cluster.placement if (p := cluster.pods.get(uid)) is not None]
        return None


class stateVerifierPostFilterPlugin:  # noqa: N801 - upstream's name
    """Reads stateSaverKey from the PodGroupCycleState its PodGroupPostFilter is given (logged: read or not, the
    names)."""
    name = "stateVerifierPostFilterPlugin"

    @hookimpl
    def pod_group_post_filter(self, state, pod_group):
        names = state.get("stateSaverKey")
        log.warning("verifier %s read=%s pods=%s", pod_group.namespace, names is not None, ",".join(sorted(names or [])))
        return Status.unschedulable("injected verifier PostFilter")
'''

# The profiles' names per kubeberth process (each process schedules only its own profiles' pods).
PROFILE = {GATES: "kubeberth-pg-preemption", POLICY_GATES: "kubeberth-pg-preemption-policy",
           SINGLE_GATES: "kubeberth-pg-preemption-single"}
NNN_PROFILE = f"{PROFILE[SINGLE_GATES]}-nnn"  # TestPodGroupPreemption_NominatedNodeNameRespected's
STATE_PROFILE = f"{PROFILE[SINGLE_GATES]}-state"  # TestPodGroupCycleStatePreserved's
# case name -> (customPluginName, its arguments): the customPluginFunc closures of the table
CUSTOM_PLUGINS: dict[str, tuple[str, dict[str, Any]]] = {
    "Partial Preemption": ("mockScorePlugin", {"scores": {"node1": 100, "node2": 0}}),
    "Partial Preemption with basic policy": ("mockScorePlugin", {"scores": {"node1": 100, "node2": 0}}),
    "Reserve plugins are called during preemption simulation, so second pod fails": (
        "mockReservePlugin", {"maxPods": 2}),
    "Topology-Aware Preemption: two topologies, both eligible, selects higher scored topology": (
        "mockScorePlugin", {"scores": {"node1": 0, "node2": 0, "node3": 100, "node4": 100}}),
}


def profile_of(name: str, gates: str) -> str:
    """The profile a case's pods name: the test's, or one with the case's customPlugin added."""
    if name not in CUSTOM_PLUGINS:
        return PROFILE[gates]
    return f"{PROFILE[gates]}-{sorted(CUSTOM_PLUGINS).index(name)}"


def profiles(gates: str) -> list[dict[str, Any]]:
    """The test's KubeSchedulerProfile, and one per case with a customPlugin (appended to multiPoint's enabled);
    for the single tests, the default profile and NominatedNodeNameRespected's (mockScorePlugin at Score)."""
    if gates == SINGLE_GATES:
        return [{"schedulerName": PROFILE[gates]},
                {"schedulerName": NNN_PROFILE, "plugins": {"score": {"enabled": [{"name": "mockScorePlugin"}]}},
                 "pluginConfig": [{"name": "mockScorePlugin", "args": {"scores": {"node1": 100, "node2": 0}}}]},
                {"schedulerName": STATE_PROFILE, "plugins": {"multiPoint": {
                    "enabled": [{"name": "stateSaverPreFilterPlugin"}, {"name": "DefaultPreemption"},
                                {"name": "stateVerifierPostFilterPlugin"}],
                    "disabled": [{"name": "DefaultPreemption"}]}}}]
    enabled = [{"name": "mockBindPlugin"}, {"name": "mockPGPostFilterPlugin"}, {"name": "DefaultPreemption"}]
    disabled = [{"name": "DefaultBinder"}, {"name": "DefaultPreemption"}]
    out: list[dict[str, Any]] = [{"schedulerName": PROFILE[gates],
                                  "plugins": {"multiPoint": {"enabled": enabled, "disabled": disabled}}}]
    for name, (plugin, args) in sorted(CUSTOM_PLUGINS.items()):
        out.append({"schedulerName": profile_of(name, gates),
                    "plugins": {"multiPoint": {"enabled": [*enabled, {"name": plugin}], "disabled": disabled}},
                    "pluginConfig": [{"name": plugin, "args": args}]})
    return out


@pytest.fixture(scope="module")
def plane() -> Iterator[LocalControlPlane]:
    """podgroup_steps.podgroup_plane's control plane, with PodGroupPreemptionPolicy on as well."""
    if os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1":
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    args = [a + ",PodGroupPreemptionPolicy=true" if a.startswith("--feature-gates=") else a for a in APISERVER_ARGS]
    with LocalControlPlane(extra_apiserver_args=tuple(args)) as cp:
        cp.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
        yield cp


@pytest.fixture(scope="module")
def schedulers(plane: LocalControlPlane,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Kubeberth]]:
    """gates -> the kubeberth running with them, started when a case first asks for it."""
    tmp = tmp_path_factory.mktemp("podgroup-preemption")
    plugins = tmp / "plugins"
    plugins.mkdir()
    (plugins / "podgrouppreemption_test_plugins.py").write_text(PLUGINS)
    with contextlib.ExitStack() as stack:
        started: dict[str, Kubeberth] = {}

        def kubeberth(gates: str) -> Kubeberth:
            if gates not in started:
                name = {GATES: "pgp", POLICY_GATES: "pgp-policy", SINGLE_GATES: "pgp-single"}[gates]
                config = write_profiles(tmp / f"{name}.yaml", profiles(gates))
                started[gates] = stack.enter_context(kubeberth_with(plane, config, gates, name, plugins))
            return started[gates]

        yield kubeberth


def _never(c: PodGroupCase, obj: dict[str, Any]) -> dict[str, Any]:
    """A pod or PodGroup whose spec sets preemptionPolicy Never, with a PriorityClass of its priority and that
    policy: the Priority admission plugin (off in upstream's test API server) takes a pod's or PodGroup's policy
    from its class (the harness gives a bare spec.priority a class of that value, whose policy is the default)."""
    spec = obj["spec"]
    if spec.get("preemptionPolicy") != "Never":
        return obj
    name = f"priority-{spec['priority']}-never-{c.sfx}"
    if name not in c.priority_classes:
        c.api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": spec["priority"], "preemptionPolicy": "Never"})
        c.priority_classes.append(name)  # deleted with the case's
        c._admitted(name)  # as Case.priority_class: until admission knows the class, naming it is refused
    return {**obj, "spec": {**spec, "priorityClassName": name}}


def _group(c: PodGroupCase, group: dict[str, Any]) -> dict[str, Any]:
    """The PodGroup in the case's namespace (upstream sets pg.Namespace = ns)."""
    out = copy.deepcopy(_never(c, group))
    out["metadata"].pop("namespace", None)
    return out


def _pods(c: PodGroupCase, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_never(c, p) for p in pods]


def _recorded(c: PodGroupCase, since: int) -> list[tuple[str, str]]:
    """The test plugins' records of this case since `since` (eventRecorder's events), each with the nominated node
    name mockBindPlugin saw ("" for the others)."""
    pattern = re.compile(rf"recorded {re.escape(c.namespace)} (\S+)(?: nnn=(\S*))?")
    return [(m.group(1), m.group(2) or "") for m in pattern.finditer(c.kb.log_text()[since:])]


def _preempted_by_group(c: PodGroupCase, names: list[str]) -> int:
    """How many of the pods have a Preempted event whose message starts "Preempted by podgroup"."""
    events = c.api.call("GET", f"/api/v1/namespaces/{c.namespace}/events").get("items", [])
    return len({(e.get("involvedObject") or {}).get("name") for e in events
                if e.get("reason") == "Preempted" and (e.get("involvedObject") or {}).get("name") in names
                and (e.get("message") or "").startswith("Preempted by podgroup")})


def _is_preempted(c: PodGroupCase, name: str) -> bool:
    """Gone, being deleted, or with a DisruptionTarget condition."""
    status, pod = c.api.cp.request("GET", f"/api/v1/namespaces/{c.namespace}/pods/{name}")
    if status == 404:
        return True
    return bool(pod.get("metadata", {}).get("deletionTimestamp")) or any(
        x.get("type") == "DisruptionTarget" for x in (pod.get("status") or {}).get("conditions") or [])


def _pod_states(c: PodGroupCase, names: list[str]) -> str:
    """Step 10's dump of the initial and preemptor pods."""
    out = []
    for name in names:
        status, pod = c.api.cp.request("GET", f"/api/v1/namespaces/{c.namespace}/pods/{name}")
        if status != 200:
            out.append(f"{name}: not present ({status})")
            continue
        conditions = {x.get("type"): x.get("reason") or x.get("status") for x in
                      (pod.get("status") or {}).get("conditions") or []}
        out.append(f"{name}: node={pod['spec'].get('nodeName', '')} "
                   f"deleting={bool(pod['metadata'].get('deletionTimestamp'))} "
                   f"nnn={(pod.get('status') or {}).get('nominatedNodeName', '')} {json.dumps(conditions)}")
    return "\n".join(out)


def _create_preemptors(c: PodGroupCase, tc: dict[str, Any]) -> None:
    """Step 4: the preemptor pods; with tempRemovePG, the PodGroups are deleted first and created again once every
    preemptor waits in the queue."""
    names = [p["metadata"]["name"] for p in tc["preemptorPods"]]
    if tc["tempRemovePG"]:
        run_steps(c, [{"Name": f"delete {g['metadata']['name']}", "DeletePodGroup": g["metadata"]["name"]}
                      for g in tc["podGroups"]])
        run_steps(c, [{"Name": "preemptors", "CreatePods": _pods(c, tc["preemptorPods"])},
                      {"Name": "preemptors unschedulable", "WaitForPodsInUnschedulableEntities": names},
                      *({"Name": f"recreate {g['metadata']['name']}", "CreatePodGroup": _group(c, g)}
                        for g in tc["podGroups"])])
    elif tc["preemptorPodsQueuedInCreationOrder"]:
        run_steps(c, [{"Name": "preemptors in order", "CreatePodsInOrder": _pods(c, tc["preemptorPods"])}])
    else:
        run_steps(c, [{"Name": "preemptors", "CreatePods": _pods(c, tc["preemptorPods"])}])


def _check(c: PodGroupCase, tc: dict[str, Any], since: int) -> list[str]:
    """Steps 5-9 and the event order: each failure, as upstream's t.Errorf, without stopping."""
    errors: list[str] = []

    def expect(check: Any, message: str, timeout: float = POLL_TIMEOUT) -> None:
        try:
            wait_for(check, timeout, message, interval=0.1)
        except AssertionError as err:
            errors.append(str(err).splitlines()[0])

    want = tc["expectedPodsPreemptedByWAP"]
    if want > 0:
        expect(lambda: _preempted_by_group(c, tc["expectedPreempted"] or []) == want,
               f"WorkloadAwarePreemption to preempt {want} of {tc['expectedPreempted']}")
    for name in tc["expectedUnschedulable"] or []:
        try:
            c.wait_unschedulable(c.namespace, name)
        except AssertionError as err:
            errors.append(f"pod {name} was expected to be unschedulable but wasn't: {str(err).splitlines()[0]}")
    for name in tc["expectedScheduled"] or []:
        try:
            c.wait_scheduled(c.namespace, name)
        except AssertionError as err:
            errors.append(f"pod {name} was expected to be scheduled but wasn't: {str(err).splitlines()[0]}")
    for name in tc["expectedPreempted"] or []:
        expect(lambda n=name: _is_preempted(c, n), f"pod {name} to be preempted", 10)
    nnn = {event.removeprefix("Bind:") for event, node in _recorded(c, since) if event.startswith("Bind:") and node}
    errors += [f"pod {n} was expected to have nominated node name but didn't" for n in tc["expectedToHaveNNNInfo"] or []
               if n not in nnn]
    if tc["expectedEventOrder"]:
        recorded = _recorded(c, since)
        got = [event for event, _node in recorded]
        if got != tc["expectedEventOrder"] and not _bind_recorded_late(recorded, tc["expectedEventOrder"]):
            errors.append(f"unexpected event order: want {tc['expectedEventOrder']}, got {got}")
    return errors


def _bind_recorded_late(recorded: list[tuple[str, str]], want: list[str]) -> bool:
    """The expected order but for Bind calls recorded after a later cycle's PodGroupPostFilter, each of a pod placed
    without preemption (no nominated node name: its cycle came before the PostFilter's). A Bind runs in the pod's
    binding cycle, on a binding worker thread beside the scheduling loop (upstream: a goroutine, which in practice
    gets there first); on a loaded machine the loop's next cycle can reach its PodGroupPostFilter before the worker
    reaches Bind (a CI run: "Binding first before preemption for gang policy")."""
    got = [event for event, _node in recorded]

    def split(events: list[str]) -> tuple[list[str], list[str], dict[str, int]]:
        """The Bind calls, the other calls, and how many other calls came before each Bind."""
        binds = [e for e in events if e.startswith("Bind:")]
        after = {e: sum(not x.startswith("Bind:") for x in events[:i]) for i, e in enumerate(events) if e in binds}
        return binds, [e for e in events if not e.startswith("Bind:")], after

    (got_binds, got_others, got_after), (want_binds, want_others, want_after) = split(got), split(want)
    if got_binds != want_binds or got_others != want_others or len(set(got)) != len(got):
        return False
    if any(got_after[e] < want_after[e] for e in got_binds):
        return False  # recorded early: a PostFilter came late, which no thread race explains
    late = [(event, node) for event, node in recorded if event in got_after and got_after[event] > want_after[event]]
    return all(not node for _event, node in late)


@pytest.mark.parametrize("tc", cases(TABLE, TEST, DIFFERENCES))
def test_TestPodGroupPreemption(plane: LocalControlPlane, schedulers: Callable[[str], Kubeberth],  # noqa: N802
                                tc: dict[str, Any]) -> None:
    """TestPodGroupPreemption: nodes, PDB, PodGroups, initial pods (scheduled), then the preemptor pods; the victims
    preempted by the pod group (their Preempted events), the pods unschedulable, scheduled and preempted as the
    case expects, the nominated node names mockBindPlugin saw, and the order of its calls."""
    gates = POLICY_GATES if tc["enablePodGroupPreemptionPolicy"] else GATES
    kb = schedulers(gates)
    with case_on(plane, kb, profile_of(tc["name"], gates)) as c:
        initial = [p["metadata"]["name"] for p in tc["initialPods"]]
        run_steps(c, [{"Name": "nodes", "CreateNodes": tc["nodes"]}])
        if tc["pdb"]:
            pdb = {**copy.deepcopy(tc["pdb"]), "apiVersion": "policy/v1", "kind": "PodDisruptionBudget"}
            pdb.pop("status", None)
            c.api.call("POST", f"/apis/policy/v1/namespaces/{c.namespace}/poddisruptionbudgets", pdb)
        run_steps(c, [*({"Name": f"pod group {g['metadata']['name']}", "CreatePodGroup": _group(c, g)}
                        for g in tc["podGroups"]),
                      {"Name": "initial pods", "CreatePods": _pods(c, tc["initialPods"])},
                      {"Name": "initial pods scheduled", "WaitForPodsScheduled": initial}])
        since = len(kb.log_text())  # recorder.Clear()
        _create_preemptors(c, tc)
        errors = _check(c, tc, since)
        names = [*initial, *(p["metadata"]["name"] for p in tc["preemptorPods"])]
        assert not errors, "\n".join([*errors, _pod_states(c, names), "records: " + str(_recorded(c, since)),
                                      kb.log_tail(30)])


# ---- TestPodGroupPreemptionStatus, TestPodGroupPreemption_NominatedNodeNameRespected, TestPodGroupCycleStatePreserved

# The upstream tests without a table that this module ports (scripts/upstream_cases.py counts them).
UPSTREAM_TESTS = ("TestPodGroupPreemptionStatus", "TestPodGroupPreemption_NominatedNodeNameRespected",
                  "TestPodGroupCycleStatePreserved")


def make_pod(name: str, priority: int, group: str = "", node: str = "", grace: int | None = None) -> dict[str, Any]:
    """st.MakePod().Name(name).Req({cpu: 1}).Container("image").Priority(priority)[.PodGroupName(group)][.Node(node)]
    [.TerminationGracePeriodSeconds(grace)]: the table's pods' shape."""
    spec: dict[str, Any] = {"containers": [
        {"image": PAUSE, "name": "con0", "resources": {"requests": {"cpu": "1"}}},
        {"image": "image", "name": "con1", "resources": {}}], "priority": priority}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"metadata": {"name": name}, "spec": spec}


def gang(name: str, priority: int, min_count: int) -> dict[str, Any]:
    """st.MakePodGroup().Name(name).Priority(priority).MinCount(min_count)."""
    return {"metadata": {"name": name}, "spec": {"priority": priority, "schedulingPolicy": {"gang": {"minCount": min_count}}}}


def test_TestPodGroupPreemptionStatus(plane: LocalControlPlane, schedulers: Callable[[str], Kubeberth]) -> None:  # noqa: N802
    """TestPodGroupPreemptionStatus: GenericWorkload on; one 1-cpu node taken by low-1 (priority 10, 30 s grace
    period); PodGroup pg1 (minCount 1, priority 100) and its pod high-1. low-1 gets a deletionTimestamp, and pg1's
    PodGroupInitiallyScheduled condition is False/Unschedulable with a message naming both the unmet minCount and
    the preemption's placement."""
    kb = schedulers(SINGLE_GATES)
    with case_on(plane, kb, PROFILE[SINGLE_GATES]) as c:
        run_steps(c, [{"Name": "node", "CreateNodes": [make_node("node-1", capacity={"cpu": "1"})]},
                      {"Name": "low-1", "CreatePods": [make_pod("low-1", 10, grace=30)]},
                      {"Name": "low-1 scheduled", "WaitForPodsScheduled": ["low-1"]},
                      {"Name": "pg1", "CreatePodGroup": gang("pg1", 100, 1)},
                      {"Name": "high-1", "CreatePods": [make_pod("high-1", 100, "pg1")]}])
        wait_for(lambda: c.get(c.namespace, "low-1").get("metadata", {}).get("deletionTimestamp"), POLL_TIMEOUT,
                 "low-1 to get a deletionTimestamp", interval=0.1)

        def condition() -> dict[str, Any]:
            group = c.pod_group("pg1") or {}
            return next((x for x in (group.get("status") or {}).get("conditions") or []
                         if x.get("type") == "PodGroupInitiallyScheduled"), {})

        def reported() -> bool:
            cond = condition()
            message = cond.get("message", "")
            return (cond.get("status") == "False" and cond.get("reason") == "Unschedulable"
                    and "minCount (1) cannot be satisfied" in message
                    and "pod group preemption: found a placement for podgroup, preempting 1 victims" in message)

        try:
            wait_for(reported, POLL_TIMEOUT, "pg1's PodGroupInitiallyScheduled condition", interval=0.1)
        except AssertionError as err:
            raise AssertionError(f"{err}\nlast observed condition: {condition()}\n{kb.log_tail(20)}") from None


def test_TestPodGroupPreemption_NominatedNodeNameRespected(plane: LocalControlPlane,  # noqa: N802
                                                         schedulers: Callable[[str], Kubeberth]) -> None:
    """TestPodGroupPreemption_NominatedNodeNameRespected: GenericWorkload on, mockScorePlugin (node1 100, node2 0)
    enabled at Score; three 1-cpu nodes with pod1 (priority 100, no grace period) on node1 and pod2, pod3 (priority
    10, 30 s grace period) on node2 and node3; PodGroup pg1 (minCount 2, priority 50) and its two pods. Both are
    nominated, not to node1; once pod1 is deleted, for 3 s: pod2 and pod3 are still there (terminating), neither
    preemptor is on node1 and their nominations have not changed."""
    kb = schedulers(SINGLE_GATES)
    with case_on(plane, kb, NNN_PROFILE) as c:
        nodes = [make_node(f"node{i}", capacity={"cpu": "1", "memory": "4Gi"}) for i in (1, 2, 3)]
        initial = [make_pod("pod1", 100, node="node1", grace=0), make_pod("pod2", 10, node="node2"),
                   make_pod("pod3", 10, node="node3")]
        preemptors = ["preemptor-1", "preemptor-2"]
        run_steps(c, [{"Name": "nodes", "CreateNodes": nodes},
                      {"Name": "pg1", "CreatePodGroup": gang("pg1", 50, 2)},
                      {"Name": "initial", "CreatePods": initial},
                      {"Name": "initial scheduled", "WaitForPodsScheduled": ["pod1", "pod2", "pod3"]},
                      {"Name": "preemptors", "CreatePods": [make_pod(n, 50, "pg1") for n in preemptors]}])

        def nominated(name: str) -> str:
            return str((c.get(c.namespace, name).get("status") or {}).get("nominatedNodeName") or "")

        first = {n: wait_for(lambda n=n: nominated(n), POLL_TIMEOUT, f"{n}'s nominated node", interval=0.1)
                 for n in preemptors}
        assert c.node_name("node1") not in first.values(), f"nominated to node1: {first}"
        c.api.call("DELETE", f"/api/v1/namespaces/{c.namespace}/pods/pod1", {"gracePeriodSeconds": 0})
        wait_for(lambda: c.pod_deleted("pod1"), POLL_TIMEOUT, "pod1 to be deleted", interval=0.1)
        end = time.monotonic() + 3
        while time.monotonic() < end:
            assert not c.pod_deleted("pod2") and not c.pod_deleted("pod3"), "pod2 or pod3 got removed"
            for name in preemptors:
                pod = c.get(c.namespace, name)
                assert (pod.get("spec") or {}).get("nodeName") != c.node_name("node1"), f"{name} scheduled to node1"
                got = str((pod.get("status") or {}).get("nominatedNodeName") or "")
                assert got == first[name], f"{name}'s nomination changed from {first[name]} to {got}"
            time.sleep(0.1)


def test_TestPodGroupCycleStatePreserved(plane: LocalControlPlane, schedulers: Callable[[str], Kubeberth]) -> None:  # noqa: N802
    """TestPodGroupCycleStatePreserved: GenericWorkload on; multiPoint stateSaverPreFilterPlugin, DefaultPreemption,
    stateVerifierPostFilterPlugin. A 3-cpu node with high-pod (2 cpu, priority 500) and low-pod (1 cpu, priority 10);
    two 2-cpu pods of pg1, then pg1 (minCount 2, priority 100): DefaultPreemption cannot make room, the verifier is
    called, and reads the names the saver wrote in the group's PreFilter: high-pod and low-pod among them."""
    kb = schedulers(SINGLE_GATES)
    with case_on(plane, kb, STATE_PROFILE) as c:
        def two_cpu(pod: dict[str, Any]) -> dict[str, Any]:
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
            return pod

        run_steps(c, [{"Name": "node", "CreateNodes": [make_node("node1", capacity={"cpu": "3", "memory": "4Gi"})]},
                      {"Name": "initial", "CreatePods": [two_cpu(make_pod("high-pod", 500, node="node1", grace=0)),
                                                         make_pod("low-pod", 10, node="node1", grace=0)]},
                      {"Name": "initial scheduled", "WaitForPodsScheduled": ["high-pod", "low-pod"]},
                      {"Name": "preemptors", "CreatePods": [two_cpu(make_pod(f"preemptor-{i}", 100, "pg1", grace=0))
                                                            for i in (1, 2)]},
                      {"Name": "pg1", "CreatePodGroup": gang("pg1", 100, 2)}])
        pattern = re.compile(rf"verifier {re.escape(c.namespace)} read=(\w+) pods=(\S*)")
        calls = wait_for(lambda: pattern.findall(kb.log_text()), POLL_TIMEOUT, "stateVerifierPostFilterPlugin's call",
                         interval=0.1)
        read, names = calls[0]
        assert read == "True", "no stateSaverKey in the PodGroupPostFilter's state"
        assert {"high-pod", "low-pod"} <= set(names.split(",")), f"PodGroupCycleState lost pod information: {names}"

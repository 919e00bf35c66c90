"""kube-scheduler v1.37.2's preemption integration tests against kubeberth on a real API server:
test/integration/scheduler/preemption/preemption_test.go, preemption/misc/miscpreemption_test.go,
preemption/nominatednodename/nominatednodename_test.go and nominated_node_name/nominated_node_name_test.go.
Same objects (transcribed from the Go tables: initPausePod / st.MakePod / st.MakeNode), same expected outcomes,
the upstream test and case name as the test id. One `kubeberth run` serves the module, a profile per upstream
scheduler configuration (the test plugins are drop-ins of the module's plugins directory); each case gets its
own namespace and node names with a suffix (tests/e2e/upstream_integration.py).

How upstream's in-process checks are observed here:
- "pod is getting evicted" (testutils.PodIsGettingEvicted) and the DisruptionTarget condition: read from the API.
  There is no kubelet: a victim with the default 30 s grace period keeps its deletionTimestamp, as upstream's.
- .status.nominatedNodeName: upstream polls it only where ClearingNominatedNodeNameAfterBinding is off (it is on
  in kubeberth, as in v1.37, so a bound preemptor's nomination is gone): here every version of the pod since its
  creation is replayed from a watch, and the nomination must be in one of them.
- "the pod is in the unschedulable pool after ScheduleOne": the PodScheduled=False/Unschedulable condition (the
  failure handler writes it after the attempt) and no node.
- SchedulerAsyncPreemption and SchedulerAsyncAPICalls are run by upstream both ways; kubeberth runs its
  defaults (async preemption on): one run per case. Where upstream blocks the preemption goroutine
  (completePreemption), kubeberth's preemption is let run to the end: the steps before it are read from the
  pod's history, the steps after it as upstream.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix, write_config
from test_preemption_e2e import versions_since
from upstream_integration import PAUSE, POLL_TIMEOUT, Case, case_of, cases, drop_ins, make_node, serving

LOW, MEDIUM, HIGH = 100, 200, 300
TOKENS_1000 = f"{PROFILE}-tokens-1000"
TOKENS_1 = f"{PROFILE}-tokens-1"
TOKENS_1_PREFILTER = f"{PROFILE}-tokens-1-prefilter"
TOKENS_1_UNRESOLVABLE = f"{PROFILE}-tokens-1-unresolvable"
NO_PREEMPTION = f"{PROFILE}-disable-preemption"
ALWAYS_FAIL = f"{PROFILE}-always-fail"
# Cases that differ from upstream's outcome on kubeberth today: {"TestX/case": reason}
DIFFERENCES: dict[str, str] = {}
# The upstream cases this module ports (scripts/upstream_cases.py counts them).
UPSTREAM_CASES = (
    'TestPreemption/basic pod preemption',
    'TestPreemption/basic pod preemption with filter',
    'TestPreemption/basic pod preemption with preFilter',
    'TestPreemption/basic pod preemption with unresolvable filter',
    'TestPreemption/preemption is performed to satisfy anti-affinity',
    'TestPreemption/preemption is not performed when anti-affinity is not satisfied',
    'TestInterPodAffinityPreemption/preemption is performed to satisfy anti-affinity',
    'TestInterPodAffinityPreemption/preemption is not performed when anti-affinity is not satisfied',
    'TestInterPodAffinityPreemption/basic pod preemption with hostname anti-affinity (fast path)',
    'TestNonPreemption/pod preemption will happen',
    'TestNonPreemption/pod preemption will not happen',
    'TestDisablePreemption/pod preemption will not happen',
    'TestPodPriorityResolution',
    'TestPreemptionStarvation/starvation test: higher priority pod is scheduled before the lower priority ones',
    'TestPreemptionRaces/ensures that other pods are not scheduled while preemptor is being marked as nominated (issue #72124)',
    'TestPDBInPreemption/A non-PDB violating pod is preempted despite its higher priority',
    'TestPDBInPreemption/A node without any PDB violating pods is preferred for preemption',
    'TestPDBInPreemption/A node with fewer PDB violating pods is preferred for preemption',
    'TestReadWriteOncePodPreemption/preempt single pod',
    'TestReadWriteOncePodPreemption/preempt two pods',
    'TestReadWriteOncePodPreemption/preempt single pod with two volumes',
    'TestNominatedNode/mid-priority pod preempts low-priority pod, followed by a high-priority pod with another preemption',
    'TestNominatedNode/mid-priority pod preempts low-priority pod, followed by a high-priority pod without additional preemption',
    'TestNominatedNode/mid-priority pod preempts low-priority pod, followed by a node deletion',
    'TestNominatedNode/mid-priority pod preempts low-priority pod at the beginning, but could not find candidates after the nominated node is deleted',
    'TestNominatedNode/mid-priority pod preempts low-priority pod, but failed on PreBind',
    'TestPreferNominatedNode/nominated node released all resource, preemptor is scheduled to the nominated node',
    'TestPreferNominatedNode/nominated node cannot pass all the filters, preemptor should find a different node',
    'TestSchedulerRestartWithNominatedNode',
    'TestPreemptionRespectsWaitingPod',
    'TestPreemptionRespectsBindingPod',
    'TestAsyncPreemption/basic: async preemption happens expectedly',
    'TestAsyncPreemption/basic async preemption with 1 victim, preemptor gated until preemption API call finishes',
    "TestAsyncPreemption/Lower priority Pod doesn't take over the place for higher priority Pod that is running the preemption",
    'TestAsyncPreemption/victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is deleted',
    'TestAsyncPreemption/victim blocked in binding, preemptor pod gets scheduled when victim-in-binding is under graceful termination',
    'TestAsyncPreemption/Higher priority Pod takes over the place for lower priority Pod that is running the preemption',
    'TestAsyncPreemption/Lower priority Pod can select the same place where the higher priority Pod is preempting if the node is big enough',
    'TestAsyncPreemption/victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is deleted and its resources are unreserved',
    'TestAsyncPreemption/victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is under graceful termination and its resources are unreserved',
    'TestPreemptionAndNominatedNodeNameScenarios/basic preemption sets NominatedNodeName',
    'TestPreemptionAndNominatedNodeNameScenarios/Overwrite NominatedNodeName with preemption',
    'TestPreemptionAndNominatedNodeNameScenarios/NNN is ignored on pod that cannot fit on the node',
    'TestPreemptionAndNominatedNodeNameScenarios/NNN is ignored on lower priority pod when higher priority pod without NNN is being scheduled',
    'TestPreemptionAndNominatedNodeNameScenarios/No preemption, NNN is cleared after binding',
)

# preemption_test.go's tokenFilter (PreFilter, Filter, AddPod/RemovePod). Upstream's plugin keeps one counter: each
# Filter call that passes takes a token, AddPod/RemovePod of preemption's dry run take or give one back. kubeberth
# has no AddPod/RemovePod hooks (preemption re-runs PreFilter and Filter on the hypothetical cluster), so the same
# count is read from the cluster the hook is given: the tokens left are the initial tokens less the pods placed
# (on the node for Filter, in the pod's namespace for PreFilter); a victim removed by the dry run gives its back.
TOKEN_FILTER = '''"""preemption_test.go's tokenFilter."""
from _upstream_test_plugins import Configured
from pydantic import BaseModel

from kubeberth import Status, hookimpl


class Args(BaseModel):
    tokens: int = 1000
    enablePreFilter: bool = False  # noqa: N815 - upstream's field
    unresolvable: bool = False


class TokenFilter(Configured):
    name = "filter-plugin"
    Args = Args

    @hookimpl
    def pre_filter(self, pod, cluster):
        placed = sum(1 for uid in cluster.placement if (p := cluster.pods.get(uid)) is not None
                     and p.namespace == pod.namespace)
        if not self.args.enablePreFilter or self.args.tokens - placed > 0:
            return None
        return Status.unschedulable()

    @hookimpl
    def filter_node(self, pod, node):
        if self.args.tokens - len(node.pods) > 0:
            return None
        return Status.unschedulable(f"can't fit {pod.name}", unresolvable=self.args.unresolvable)
'''
# nominatednodename_test.go's alwaysFail: a PreBind that fails (Unschedulable) unless the pod's name contains
# "do-not-fail-me".
ALWAYS_FAIL_PLUGIN = '''"""nominatednodename_test.go's alwaysFailPlugin."""
from _upstream_test_plugins import SerialPreBind

from kubeberth import Status, hookimpl


class alwaysFail(SerialPreBind):  # noqa: N801 - upstream's name
    name = "alwaysFailPlugin"

    @hookimpl
    def pre_bind(self, pod):
        if "do-not-fail-me" in pod.name:
            return None
        return Status.unschedulable()
'''

# preemption_test.go's blockingPermitPlugin: the first Permit of the pod named "victim" waits (a minute).
BLOCKING_PERMIT = '''"""preemption_test.go's blockingPermitPlugin."""
from kubeberth import PermitResult, hookimpl


class blockingPermitPlugin:  # noqa: N801 - upstream's name
    name = "blocking-permit-plugin"

    def __init__(self):
        self.podsToBlock = {"victim"}

    @hookimpl
    def permit(self, pod):
        if pod.name in self.podsToBlock:
            self.podsToBlock.discard(pod.name)
            return PermitResult.wait(60, "waiting")
        return PermitResult.approve()
'''
# preemption_test.go's blockingPreBindPlugin: the first PreBind of "victim" blocks until released (never, here)
# or cancelled, and says so in the log once it blocks (upstream's blocked channel); "preemptor" passes; any other
# pod is an Error.
BLOCKING_PRE_BIND = '''"""preemption_test.go's blockingPreBindPlugin."""
import logging

from kubeberth import PreBindPreFlightResult, Status, hookimpl

log = logging.getLogger("preemption_test")


class blockingPreBindPlugin:  # noqa: N801 - upstream's name
    name = "blocking-prebind-plugin"

    def __init__(self):
        self.shouldBlock = {"victim": True, "preemptor": False}

    @hookimpl
    def pre_bind_pre_flight(self, pod):
        return PreBindPreFlightResult()

    @hookimpl
    def pre_bind(self, state, pod):
        if pod.name not in self.shouldBlock:
            return Status.error("pod was not prepared in test case")
        if not self.shouldBlock[pod.name]:
            return None
        self.shouldBlock[pod.name] = False
        log.warning("BLOCKED in PreBind %s", pod.key)
        reason = state.sleep_in_pre_bind(60)
        return Status.error(f"context canceled: {reason}") if reason else None
'''
BLOCKING_PERMIT_PROFILE = f"{PROFILE}-blocking-permit"
BLOCKING_PRE_BIND_PROFILE = f"{PROFILE}-blocking-prebind"


def _profiles() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"schedulerName": PROFILE}]
    for name, args in ((TOKENS_1000, {"tokens": 1000}), (TOKENS_1, {"tokens": 1}),
                       (TOKENS_1_PREFILTER, {"tokens": 1, "enablePreFilter": True}),
                       (TOKENS_1_UNRESOLVABLE, {"tokens": 1, "unresolvable": True})):
        out.append({"schedulerName": name, "plugins": {"filter": {"enabled": [{"name": "filter-plugin"}]},
                                                       "preFilter": {"enabled": [{"name": "filter-plugin"}]}},
                    "pluginConfig": [{"name": "filter-plugin", "args": args}]})
    # misc's initTestDisablePreemption: DefaultPreemption off at PostFilter
    out.append({"schedulerName": NO_PREEMPTION, "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}})
    out.append({"schedulerName": ALWAYS_FAIL, "plugins": {"preBind": {"enabled": [{"name": "alwaysFailPlugin"}]}}})
    out.append({"schedulerName": BLOCKING_PERMIT_PROFILE,
                "plugins": {"permit": {"enabled": [{"name": "blocking-permit-plugin"}]}}})
    out.append({"schedulerName": BLOCKING_PRE_BIND_PROFILE,
                "plugins": {"preBind": {"enabled": [{"name": "blocking-prebind-plugin"}]}}})
    return out


@pytest.fixture(scope="module")
def async_control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TestAsyncPreemption's control directory (see ASYNC_PLUGINS)."""
    return Path(tmp_path_factory.mktemp("async-control"))


@pytest.fixture(scope="module")
def kubeberth_preemption(control_plane: LocalControlPlane, sa_kubeconfig: str,
                         tmp_path_factory: pytest.TempPathFactory, async_control: Path) -> Iterator[Kubeberth]:
    tmp = tmp_path_factory.mktemp("preemption")
    config = write_config(tmp / "config.yaml")
    cfg = yaml.safe_load(config.read_text())
    cfg["profiles"] = [*_profiles(), _async_profile()]
    config.write_text(yaml.safe_dump(cfg))
    plugins = {"token_filter.py": TOKEN_FILTER, "always_fail.py": ALWAYS_FAIL_PLUGIN,
               "blocking_permit.py": BLOCKING_PERMIT, "async_preemption.py": ASYNC_PLUGINS,
               "blocking_pre_bind.py": BLOCKING_PRE_BIND}
    with serving(control_plane, sa_kubeconfig, config, "preemption", plugins,
                 env={"KUBEBERTH_TEST_CONTROL": str(async_control)}) as kb:
        yield kb


@pytest.fixture
def case(kubeberth_preemption: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_preemption) as c:
        yield c


# ---- helpers: upstream's testutils, read from the API ----


def pause(name: str, priority: int | None = None, cpu_m: int | None = None, mem: int | None = None,
          labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    """testutils.InitPausePod: one container named after the pod, the pause image, the given requests."""
    container: dict[str, Any] = {"name": name, "image": PAUSE}
    if cpu_m is not None:
        container["resources"] = {"requests": {"cpu": f"{cpu_m}m", "memory": str(mem)}}
    body: dict[str, Any] = {"metadata": {"name": name, "labels": labels or {}}, "spec": {"containers": [container],
                                                                                         **spec}}
    if priority is not None:
        body["spec"]["priority"] = priority
    return body


def st_pod(name: str, priority: int, cpu: str, node: str = "", zero_grace: bool = False) -> dict[str, Any]:
    """st.MakePod().Name(name).Priority(p).Req({cpu}).Container("image")[.Node(node)][.ZeroTerminationGracePeriod()]."""
    spec: dict[str, Any] = {"priority": priority, "containers": [
        {"name": "con0", "image": PAUSE, "resources": {"requests": {"cpu": cpu}}}]}
    if node:
        spec["nodeName"] = node
    if zero_grace:
        spec["terminationGracePeriodSeconds"] = 0
    return {"metadata": {"name": name}, "spec": spec}


def anti_affinity(key: str, values: list[str], topology: str) -> dict[str, Any]:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchExpressions": [{"key": key, "operator": "In", "values": values}]},
        "topologyKey": topology}]}}


def run_pause_pod(case: Case, pod: dict[str, Any], ns: str, scheduler: str = PROFILE) -> tuple[str, str]:
    """testutils.RunPausePod: create and wait until scheduled."""
    ns_name = case.pod(pod, ns, scheduler=scheduler)
    case.wait_scheduled(*ns_name)
    return ns_name


def getting_evicted(case: Case, ns: str, name: str) -> dict[str, Any]:
    """testutils.PodIsGettingEvicted, then the pod (which must carry the DisruptionTarget condition)."""
    wait_for(lambda: case.get(ns, name).get("metadata", {}).get("deletionTimestamp") or not case.get(ns, name),
             POLL_TIMEOUT, f"{ns}/{name} getting evicted", interval=0.2)
    return case.get(ns, name)


def assert_evicted(case: Case, ns: str, name: str) -> None:
    pod = getting_evicted(case, ns, name)
    if pod:  # still there (the grace period): upstream reads its DisruptionTarget condition
        conditions = pod.get("status", {}).get("conditions") or []
        assert any(c["type"] == "DisruptionTarget" for c in conditions), f"{name} has no DisruptionTarget condition"


def assert_not_evicted(case: Case, ns: str, name: str) -> None:
    pod = case.get(ns, name)
    assert pod, f"{name} was deleted"
    assert not pod["metadata"].get("deletionTimestamp"), f"{name} was unexpectedly preempted"
    assert not any(c["type"] == "DisruptionTarget" for c in pod.get("status", {}).get("conditions") or []), \
        f"{name} was evicted unexpectedly"


def history(case: Case, ns: str, name: str) -> list[dict[str, Any]]:
    """Every version of the pod since its creation (a watch replay from the namespace's first resourceVersion)."""
    return versions_since(case.api.cp, ns, name, _START[case.sfx])


def nominations(case: Case, ns: str, name: str, until_bound: bool = False) -> list[str]:
    """The distinct .status.nominatedNodeName values the pod had, in order ("" for none); until_bound: up to the
    version that has its node."""
    seen: list[str] = []
    for version in history(case, ns, name):
        nnn = (version.get("status") or {}).get("nominatedNodeName") or ""
        if not seen or seen[-1] != nnn:
            seen.append(nnn)
        if until_bound and version["spec"].get("nodeName"):
            break
    return seen


def wait_nominated(case: Case, ns: str, name: str) -> str:
    """testutils.WaitForNominatedNodeName, whether or not the pod was bound (and its nomination cleared) since."""
    def nominated() -> str:
        return next((n for n in nominations(case, ns, name) if n), "")
    try:
        return wait_for(nominated, POLL_TIMEOUT, f"{ns}/{name} nominated", interval=0.2)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{case.kb.log_tail(20)}") from None


_START: dict[str, str] = {}  # case suffix -> the resourceVersion its pod histories start from


def mark_start(case: Case) -> None:
    _START[case.sfx] = case.api.call("GET", "/api/v1/namespaces?limit=1")["metadata"]["resourceVersion"]


def admitted_classes(case: Case, values: tuple[int, ...] = (1, 100, LOW, MEDIUM, HIGH)) -> None:
    """Create the case's PriorityClasses up front and wait until the Priority admission plugin's informer has
    them (a dry-run pod per class), so that no pod create races the class's."""
    ns = case.ns("priorities")
    for value in values:
        name = case.priority_class(value)
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"probe-{value}"},
                "spec": {"priorityClassName": name, "containers": [{"name": "c", "image": PAUSE}]}}
        wait_for(lambda b=body: case.api.cp.request("POST", f"/api/v1/namespaces/{ns}/pods?dryRun=All", b)[0] == 201,
                 POLL_TIMEOUT, f"PriorityClass {name} admitted", interval=0.05)


@pytest.fixture(autouse=True)
def _watch_start(case: Case) -> None:
    admitted_classes(case)
    mark_start(case)


def node1(case: Case, labels: dict[str, str] | None = None) -> str:
    case.rename_nodes(["node1"])
    return case.node(make_node("node1", labels, {"cpu": "500m", "memory": "500"}))


# ---- preemption_test.go: TestPreemption ----

DEFAULT_RES = (100, 100)
TEST_PREEMPTION: list[dict[str, Any]] = [
    {"name": "basic pod preemption", "profile": TOKENS_1000,
     "existing": [pause("victim-pod", LOW, 400, 200)], "pod": pause("preemptor-pod", HIGH, 300, 200),
     "preempted": {0}},
    {"name": "basic pod preemption with filter", "profile": TOKENS_1,
     "existing": [pause("victim-pod", LOW, 200, 200)], "pod": pause("preemptor-pod", HIGH, 200, 200),
     "preempted": {0}},
    {"name": "basic pod preemption with preFilter", "profile": TOKENS_1_PREFILTER,
     "existing": [pause("victim-pod", LOW, 200, 200)], "pod": pause("preemptor-pod", HIGH, 200, 200),
     "preempted": {0}},
    {"name": "basic pod preemption with unresolvable filter", "profile": TOKENS_1_UNRESOLVABLE,
     "existing": [pause("victim-pod", LOW, 200, 200)], "pod": pause("preemptor-pod", HIGH, 200, 200),
     "preempted": set()},
    {"name": "preemption is performed to satisfy anti-affinity", "profile": TOKENS_1000,
     "existing": [pause("pod-0", MEDIUM, *DEFAULT_RES, {"pod": "p0"}),
                  pause("pod-1", LOW, *DEFAULT_RES, {"pod": "p1"}, affinity=anti_affinity("pod", ["preemptor"], "node"))],
     "pod": pause("preemptor-pod", HIGH, *DEFAULT_RES, {"pod": "preemptor"},
                  affinity=anti_affinity("pod", ["p0"], "node")),
     "preempted": {0, 1}},
    {"name": "preemption is not performed when anti-affinity is not satisfied", "profile": TOKENS_1000,
     "existing": [pause("pod-0", MEDIUM, *DEFAULT_RES, {"pod": "p0"}),
                  pause("pod-1", HIGH, *DEFAULT_RES, {"pod": "p1"}, affinity=anti_affinity("pod", ["preemptor"], "node"))],
     "pod": pause("preemptor-pod", HIGH, *DEFAULT_RES, {"pod": "preemptor"},
                  affinity=anti_affinity("pod", ["p0"], "node")),
     "preempted": set()},
    # the PodGroup and CompositePodGroup cases are excluded (tests/upstream_unported_integration.py)
    *({"name": n} for n in (
        "pod group victim across multiple nodes, pod-group-as-victim enabled",
        "pod group occupying a single node, pod-group-as-victim enabled",
        "multiple victim pod groups, only subset selected for preemption",
        "unsuccessful pod group preemption when freeing lower priority group is insufficient",
        "pod group victim across multiple nodes, DisruptionModeSingle enabled",
        "CPG victim across multiple nodes, pod-group-as-victim enabled",
        "CPG occupying a single node, pod-group-as-victim enabled",
        "multiple victim CPGs, only subset selected for preemption",
        "unsuccessful CPG preemption when freeing lower priority group is insufficient",
        "CPG victim across multiple nodes, DisruptionModeSingle enabled")),
]


@pytest.mark.parametrize("tc", cases(TEST_PREEMPTION, "TestPreemption", DIFFERENCES))
def test_TestPreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """node1 (500m cpu, 500 memory, label node=node1) and the token filter at PreFilter and Filter; the existing
    pods run first, then the preemptor: the listed ones get evicted (with DisruptionTarget), the others not,
    and the preemptor is nominated. Where none is to be evicted, the preemptor's failed attempt is waited for
    (upstream checks at once)."""
    node1(case, {"node": "node1"})
    pods = [run_pause_pod(case, p, "preemption", tc["profile"]) for p in tc["existing"]]
    preemptor = case.pod(tc["pod"], "preemption", scheduler=tc["profile"])
    if not tc["preempted"]:
        case.wait_unschedulable(*preemptor)
    for i, (ns, name) in enumerate(pods):
        if i in tc["preempted"]:
            assert_evicted(case, ns, name)
    for i, (ns, name) in enumerate(pods):
        if i not in tc["preempted"]:
            assert_not_evicted(case, ns, name)
    if tc["preempted"]:
        wait_nominated(case, *preemptor)


# ---- preemption_test.go: TestInterPodAffinityPreemption ----

INTER_POD_AFFINITY = [
    {"name": "preemption is performed to satisfy anti-affinity", "topology": "node", "pod-1": LOW, "preempted": True},
    {"name": "preemption is not performed when anti-affinity is not satisfied", "topology": "node", "pod-1": HIGH,
     "preempted": False},
    {"name": "basic pod preemption with hostname anti-affinity (fast path)", "topology": "kubernetes.io/hostname",
     "pod-1": LOW, "preempted": True},
]


@pytest.mark.parametrize("tc", cases(INTER_POD_AFFINITY, "TestInterPodAffinityPreemption", DIFFERENCES))
def test_TestInterPodAffinityPreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """The scenarios step by step: pod-0 (medium, pod=p0) scheduled, pod-1 (anti-affinity to the preemptor)
    scheduled, the preemptor (anti-affinity to p0) fails its attempt (Unschedulable condition), then pod-0 and
    pod-1 are deleted (PodDeleted: gone or deletionTimestamp) and the preemptor nominated, or after 200 ms
    neither is. Upstream runs it with InterPodAffinityHostnameFastPath on and off; kubeberth's default is off
    (an optimisation with the same outcome)."""
    node1(case, {"node": "node1", "kubernetes.io/hostname": "node1"})

    def make(name: str, priority: int, value: str, anti: str | None) -> dict[str, Any]:
        pod = pause(name, priority, *DEFAULT_RES, {"pod": value})
        if anti is not None:
            pod["spec"]["affinity"] = anti_affinity("pod", [anti], tc["topology"])
        return pod

    ns = "preemption"
    case.wait_scheduled(*case.pod(make("pod-0", MEDIUM, "p0", None), ns, scheduler=TOKENS_1000))
    case.wait_scheduled(*case.pod(make("pod-1", tc["pod-1"], "p1", "preemptor"), ns, scheduler=TOKENS_1000))
    preemptor = case.pod(make("preemptor-pod", HIGH, "preemptor", "p0"), ns, scheduler=TOKENS_1000)
    real = case.ns(ns)
    if tc["preempted"]:
        for name in ("pod-0", "pod-1"):
            getting_evicted(case, real, name)
        wait_nominated(case, *preemptor)
    else:
        case.wait_unschedulable(*preemptor)
        time.sleep(0.2)
        for name in ("pod-0", "pod-1"):
            assert_not_evicted(case, real, name)


# ---- miscpreemption_test.go ----

MISC_NODE = {"cpu": "500m", "memory": "500"}
NON_PREEMPTION = [{"name": "pod preemption will happen", "policy": None},
                  {"name": "pod preemption will not happen", "policy": "Never"}]


@pytest.mark.parametrize("tc", cases(NON_PREEMPTION, "TestNonPreemption", DIFFERENCES))
def test_TestNonPreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """victim (low, 400m) scheduled within 5 s; the preemptor (high, 300m, preemptionPolicy as the case) is
    nominated within 5 s, or is not."""
    node1(case)
    ns = "non-preemption"
    victim = case.pod(pause("victim-pod", LOW, 400, 200), ns)
    case.wait_scheduled(*victim)
    preemptor = pause("preemptor-pod", HIGH, 300, 200)
    if tc["policy"]:
        # the Priority admission plugin takes preemptionPolicy from the PriorityClass only: one of value 300 with it
        name = f"priority-300-never-{case.sfx}"
        case.api.call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": HIGH, "preemptionPolicy": tc["policy"]})
        case.cluster_scoped.append(f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}")
        preemptor["spec"]["priorityClassName"] = name
        del preemptor["spec"]["priority"]
    pns, pname = case.pod(preemptor, ns)
    try:
        wait_for(lambda: any(nominations(case, pns, pname)), 5, "preemptor nominated", interval=0.1)
        got = True
    except AssertionError:
        got = False
    assert got == (tc["policy"] is None), f"nominated={got}"


@pytest.mark.parametrize("tc", cases([{"name": "pod preemption will not happen"}], "TestDisablePreemption",
                                     DIFFERENCES))
def test_TestDisablePreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """DefaultPreemption disabled at PostFilter: the preemptor stays unschedulable and is not nominated in 5 s."""
    node1(case)
    ns = "disable-preemption"
    run_pause_pod(case, pause("victim-pod", LOW, 400, 200), ns, NO_PREEMPTION)
    pns, pname = case.pod(pause("preemptor-pod", HIGH, 300, 200), ns, scheduler=NO_PREEMPTION)
    case.wait_unschedulable(pns, pname)
    time.sleep(5)
    assert not any(nominations(case, pns, pname)), "the preemptor was nominated"


def test_TestPodPriorityResolution(case: Case) -> None:  # noqa: N802
    """'TestPodPriorityResolution': the Priority admission plugin (on in the shared API server) resolves
    system-node-critical and system-cluster-critical for pods in kube-system, and rejects an unknown class; the
    pods are scheduled (RunPausePod)."""
    node1(case)
    sfx = case.sfx
    want = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
    for i, cls in enumerate(want, 1):
        name = f"pod{i}-{cls}-{sfx}"
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "kube-system"},
                "spec": {"schedulerName": PROFILE, "priorityClassName": cls,
                         "containers": [{"name": name, "image": PAUSE}]}}
        try:
            case.api.call("POST", "/api/v1/namespaces/kube-system/pods", body)
            node = case.wait_scheduled("kube-system", name)
            assert node == case.node_name("node1")
            assert case.get("kube-system", name)["spec"]["priority"] == want[cls]
        finally:
            case.api.call("DELETE", f"/api/v1/namespaces/kube-system/pods/{name}", {"gracePeriodSeconds": 0},
                          ok=(200, 404))
    name = f"pod3-system-cluster-critical-{sfx}"
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"schedulerName": PROFILE, "priorityClassName": "foo",
                     "containers": [{"name": name, "image": PAUSE}]}}
    err = case.api.call("POST", "/api/v1/namespaces/kube-system/pods", body, ok=(403,))
    assert err["message"] == f'pods "{name}" is forbidden: no PriorityClass with name foo was found'


def grace_pod(name: str, priority: int, grace: int) -> dict[str, Any]:
    """mkPriorityPodWithGrace: 100m / 100 requests, label pod=name, the grace period."""
    pod = pause(name, priority, 100, 100, {"pod": name})
    pod["spec"]["terminationGracePeriodSeconds"] = grace
    return pod


@pytest.mark.parametrize("tc", cases(
    [{"name": "starvation test: higher priority pod is scheduled before the lower priority ones"}],
    "TestPreemptionStarvation", DIFFERENCES))
def test_TestPreemptionStarvation(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """5 running medium pods (100m each) fill node1; 5 more stay unschedulable; the high-priority preemptor
    (300m) preempts and is scheduled within 60 s, nominated on the way."""
    node1(case)
    ns = "preemption"
    running = [case.pod(grace_pod(f"rpod-{i}", MEDIUM, 0), ns) for i in range(5)]
    for p in running:
        case.wait_scheduled(*p)
    pending = [case.pod(grace_pod(f"ppod-{i}", MEDIUM, 0), ns) for i in range(5)]
    for p in pending:
        case.wait_unschedulable(*p)
    preemptor = case.pod(pause("preemptor-pod", HIGH, 300, 200), ns)
    wait_for(lambda: case.get(*preemptor).get("spec", {}).get("nodeName"), 60, "preemptor scheduled", interval=0.2)
    wait_nominated(case, *preemptor)


@pytest.mark.parametrize("tc", cases(
    [{"name": "ensures that other pods are not scheduled while preemptor is being marked as nominated (issue #72124)"}],
    "TestPreemptionRaces", DIFFERENCES))
def test_TestPreemptionRaces(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """node1 (5000m, 5000, 100 pods); 5 repetitions: 2 medium pods scheduled, the preemptor (4900m) created, then 20
    medium pods; the preemptor is scheduled within 60 s and nominated, and none of the 20 is scheduled (nor has
    PodScheduled other than False)."""
    case.rename_nodes(["node1"])
    case.node(make_node("node1", None, {"cpu": "5000m", "memory": "5000", "pods": "100"}))
    ns = "preemption-race"
    real = case.ns(ns)
    for _ in range(5):
        initial = [case.pod(grace_pod(f"rpod-{i}", MEDIUM, 0), ns) for i in range(2)]
        for p in initial:
            case.wait_scheduled(*p)
        preemptor = case.pod(pause("preemptor-pod", HIGH, 4900, 4900), ns)
        additional = [case.pod(grace_pod(f"ppod-{i}", MEDIUM, 0), ns) for i in range(20)]
        wait_for(lambda p=preemptor: case.get(*p).get("spec", {}).get("nodeName"), 60, "preemptor scheduled",
                 interval=0.2)
        wait_nominated(case, *preemptor)
        for p in additional:
            pod = case.get(*p)
            assert not pod["spec"].get("nodeName"), f"{p[1]} is already scheduled"
            cond = [c for c in pod.get("status", {}).get("conditions") or [] if c["type"] == "PodScheduled"]
            assert not cond or cond[0]["status"] == "False", f"{p[1]} is no longer unschedulable"
        case.api.call("DELETE", f"/api/v1/namespaces/{real}/pods", {"gracePeriodSeconds": 0})
        wait_for(lambda: not case.api.pods(real), POLL_TIMEOUT, "pods cleaned up", interval=0.2)
        mark_start(case)


def _ready(case: Case, ns: str, name: str) -> None:
    """addPodConditionReady + UpdateStatus: phase Running, Ready True (what the disruption controller counts)."""
    pod = case.get(ns, name)
    pod["status"] = {**pod.get("status", {}), "phase": "Running",
                     "conditions": [*(pod.get("status", {}).get("conditions") or []),
                                    {"type": "Ready", "status": "True"}]}
    case.api.call("PUT", f"/api/v1/namespaces/{ns}/pods/{name}/status", pod)


def _pdb(case: Case, ns: str, name: str, min_available: int, labels: dict[str, str], healthy: int) -> None:
    """mkMinAvailablePDB, and the status the disruption controller writes (waitForPDBsStable waits for
    currentHealthy): the shared control plane runs no controller manager, so the test writes it."""
    pdb = case.api.call("POST", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": labels}}})
    pdb["status"] = {"observedGeneration": pdb["metadata"]["generation"], "currentHealthy": healthy,
                     "desiredHealthy": min_available, "expectedPods": healthy,
                     "disruptionsAllowed": max(0, healthy - min_available)}
    case.api.call("PUT", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/{name}/status", pdb)


def _pdb_pod(name: str, priority: int, node: str = "", labels: dict[str, str] | None = None) -> dict[str, Any]:
    pod = pause(name, priority, *DEFAULT_RES, labels)
    if node:
        pod["spec"]["nodeName"] = node
    return pod


PDB_IN_PREEMPTION: list[dict[str, Any]] = [
    {"name": "A non-PDB violating pod is preempted despite its higher priority", "nodes": 1,
     "pdbs": [("pdb-1", 2, {"foo": "bar"}, 2)],
     "existing": [_pdb_pod("low-pod1", LOW, labels={"foo": "bar"}), _pdb_pod("low-pod2", LOW, labels={"foo": "bar"}),
                  _pdb_pod("mid-pod3", MEDIUM)],
     "pod": pause("preemptor-pod", HIGH, 300, 200), "preempted": {2}},
    {"name": "A node without any PDB violating pods is preferred for preemption", "nodes": 2,
     "pdbs": [("pdb-1", 2, {"foo": "bar"}, 1)],
     "existing": [_pdb_pod("low-pod1", LOW, "node-1", {"foo": "bar"}), _pdb_pod("mid-pod2", MEDIUM, "node-2")],
     "pod": pause("preemptor-pod", HIGH, 500, 200), "preempted": {1}},
    {"name": "A node with fewer PDB violating pods is preferred for preemption", "nodes": 3,
     "pdbs": [("pdb-1", 2, {"foo1": "bar"}, 1), ("pdb-2", 2, {"foo2": "bar"}, 5)],
     "existing": [_pdb_pod("low-pod1", LOW, "node-1", {"foo1": "bar"}), _pdb_pod("mid-pod1", MEDIUM, "node-1"),
                  _pdb_pod("low-pod2", LOW, "node-2", {"foo2": "bar"}),
                  _pdb_pod("mid-pod2", MEDIUM, "node-2", {"foo2": "bar"}),
                  _pdb_pod("low-pod4", LOW, "node-3", {"foo2": "bar"}),
                  _pdb_pod("low-pod5", LOW, "node-3", {"foo2": "bar"}),
                  _pdb_pod("low-pod6", LOW, "node-3", {"foo2": "bar"})],
     "pod": pause("preemptor-pod", HIGH, 500, 400), "preempted": {4, 5, 6}},
]


@pytest.mark.parametrize("tc", cases(PDB_IN_PREEMPTION, "TestPDBInPreemption", DIFFERENCES))
def test_TestPDBInPreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """node-1..node-N (500m, 500); the existing pods run and are marked Ready; the PDBs and their status; the
    preemptor evicts the listed pods (polled for 30 s), the others keep running; the preemptor is nominated."""
    names = [f"node-{i}" for i in range(1, tc["nodes"] + 1)]
    case.rename_nodes(names)
    for name in names:
        case.node(make_node(name, None, MISC_NODE))
    ns = "preemption-pdb"
    pods = [run_pause_pod(case, p, ns) for p in tc["existing"]]
    for p in pods:
        _ready(case, *p)
    real = case.ns(ns)
    for name, min_available, labels, healthy in tc["pdbs"]:
        _pdb(case, real, name, min_available, labels, healthy)
    time.sleep(0.5)  # waitCachedPodsStable / waitForPDBsStable: the scheduler's cache has the Ready pods and PDBs
    preemptor = case.pod(tc["pod"], ns)
    for i, (pns, name) in enumerate(pods):
        if i in tc["preempted"]:
            getting_evicted(case, pns, name)
    wait_nominated(case, *preemptor)
    for i, (pns, name) in enumerate(pods):
        if i not in tc["preempted"]:
            assert_not_evicted(case, pns, name)


RWOP = "ReadWriteOncePod"


def _rwop_objects(case: Case, ns: str, count: int) -> list[str]:
    """pv-with-read-write-once-pod-N (hostPath /mntN) and its claim, bound (volumeName, bind-completed)."""
    claims = []
    for i in range(1, count + 1):
        pv = f"pv-with-read-write-once-pod-{i}-{case.sfx}"
        claim = f"pvc-with-read-write-once-pod-{i}"
        case.api.call("POST", "/api/v1/persistentvolumes", {
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
            "spec": {"accessModes": [RWOP], "capacity": {"storage": "1Mi"},
                     "hostPath": {"path": f"/mnt{i}", "type": "DirectoryOrCreate"}}})
        case.cluster_scoped.append(f"/api/v1/persistentvolumes/{pv}")
        case.api.call("POST", f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim, "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
            "spec": {"accessModes": [RWOP], "resources": {"requests": {"storage": "1Mi"}}, "volumeName": pv}})
        claims.append(claim)
    return claims


def _with_claims(pod: dict[str, Any], claims: list[tuple[str, str]]) -> dict[str, Any]:
    pod["spec"]["volumes"] = [{"name": vol, "persistentVolumeClaim": {"claimName": claim}} for vol, claim in claims]
    return pod


PVC1, PVC2 = "pvc-with-read-write-once-pod-1", "pvc-with-read-write-once-pod-2"
RWOP_CASES: list[dict[str, Any]] = [
    {"name": "preempt single pod", "pvs": 1,
     "existing": [_with_claims(pause("victim-pod", LOW), [("volume", PVC1)])],
     "pod": _with_claims(pause("preemptor-pod", HIGH), [("volume", PVC1)]), "preempted": {0}},
    {"name": "preempt two pods", "pvs": 2,
     "existing": [_with_claims(pause("victim-pod-1", LOW), [("volume", PVC1)]),
                  _with_claims(pause("victim-pod-2", LOW), [("volume", PVC2)])],
     "pod": _with_claims(pause("preemptor-pod", HIGH), [("volume-1", PVC1), ("volume-2", PVC2)]),
     "preempted": {0, 1}},
    {"name": "preempt single pod with two volumes", "pvs": 2,
     "existing": [_with_claims(pause("victim-pod", LOW), [("volume-1", PVC1), ("volume-2", PVC2)])],
     "pod": _with_claims(pause("preemptor-pod", HIGH), [("volume-1", PVC1), ("volume-2", PVC2)]),
     "preempted": {0}},
]


@pytest.mark.parametrize("tc", cases(RWOP_CASES, "TestReadWriteOncePodPreemption", DIFFERENCES))
def test_TestReadWriteOncePodPreemption(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """node1 (500m, 500, node=node1); ReadWriteOncePod volumes and claims; the victims run, the preemptor using
    the same claims evicts them (VolumeRestrictions, in the default profile as upstream enables it) and is
    nominated."""
    node1(case, {"node": "node1"})
    ns = "preemption"
    _rwop_objects(case, case.ns(ns), tc["pvs"])
    pods = [run_pause_pod(case, p, ns) for p in tc["existing"]]
    preemptor = case.pod(tc["pod"], ns)
    for i, (pns, name) in enumerate(pods):
        if i in tc["preempted"]:
            getting_evicted(case, pns, name)
    wait_nominated(case, *preemptor)


# ---- nominatednodename_test.go ----


def _mk(name: str, priority: int, cpu: str) -> dict[str, Any]:
    """st.MakePod().Name(name).Priority(p).Req({cpu}) (the default 30 s grace period: a victim lingers)."""
    return st_pod(name, priority, cpu)


NOMINATED_NODE: list[dict[str, Any]] = [
    {"name": "mid-priority pod preempts low-priority pod, followed by a high-priority pod with another preemption",
     "capacity": "5", "batches": [[_mk(f"low-{i}", LOW, "1") for i in range(1, 5)], [_mk("medium", MEDIUM, "3")],
                                  [_mk("high", HIGH, "4")]],
     "checks": ["scheduled", "nominated", "nominated"], "delete": ["low-1", "low-2", "low-3", "low-4"]},
    {"name": "mid-priority pod preempts low-priority pod, followed by a high-priority pod without additional preemption",
     "capacity": "2", "batches": [[_mk("low", LOW, "1")], [_mk("medium", MEDIUM, "2")], [_mk("high", HIGH, "1")]],
     "checks": ["scheduled", "nominated", "scheduled"], "delete": ["low"]},
    {"name": "mid-priority pod preempts low-priority pod, followed by a node deletion",
     "capacity": "1", "batches": [[_mk("low", LOW, "1")], [_mk("medium", MEDIUM, "1")]],
     "checks": ["scheduled", "nominated"], "delete_node": True, "delete": ["low"]},
    {"name": "mid-priority pod preempts low-priority pod at the beginning, but could not find candidates after the "
             "nominated node is deleted",
     "init_nodes": [make_node("taint-node", None, {"cpu": "1"},
                              [{"key": "taint-node", "value": "true", "effect": "NoSchedule"}])],
     "capacity": "1", "batches": [[_mk("low", LOW, "1")], [_mk("medium", MEDIUM, "1")]],
     "checks": ["scheduled", "nominated"], "delete_node": True, "delete": ["low"]},
    {"name": "mid-priority pod preempts low-priority pod, but failed on PreBind", "profile": ALWAYS_FAIL,
     "capacity": "1", "batches": [[_mk("low-do-not-fail-me", LOW, "1")], [_mk("medium", MEDIUM, "1")]],
     "checks": ["scheduled", "nominated"], "delete": ["low-do-not-fail-me"]},
]


@pytest.mark.parametrize("tc", cases(NOMINATED_NODE, "TestNominatedNode", DIFFERENCES))
def test_TestNominatedNode(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """The initial nodes and fake-node (the case's cpu); each batch of pods created, then each pod of it checked
    (scheduled, or nominated: read from its history, as the nomination may be gone by then); fake-node deleted
    if the case says so, the listed pods force-deleted (grace 0); then medium's nomination is cleared."""
    profile = tc.get("profile", PROFILE)
    initial = tc.get("init_nodes", [])
    case.rename_nodes([n["metadata"]["name"] for n in initial] + ["fake-node"])
    for node in initial:
        case.node(node)
    fake = case.node(make_node("fake-node", None, {"cpu": tc["capacity"]}))
    ns = "preemption"
    for batch, check in zip(tc["batches"], tc["checks"], strict=True):
        created = [case.pod(p, ns, scheduler=profile) for p in batch]
        for p in created:
            if check == "scheduled":
                case.wait_scheduled(*p)
            else:
                wait_nominated(case, *p)
    if tc.get("delete_node"):
        case.api.delete_node(fake)
    real = case.ns(ns)
    for name in tc["delete"]:
        case.api.delete_pod(real, name)

    def cleared() -> bool:
        return not (case.get(real, "medium").get("status") or {}).get("nominatedNodeName")

    try:
        wait_for(cleared, POLL_TIMEOUT, ".status.nominatedNodeName of the medium pod cleared", interval=0.1)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{json.dumps(case.get(real, 'medium').get('status'))}\n"
                             f"{case.kb.log_tail(30)}") from None


def gated_with_nomination(case: Case, pod: dict[str, Any], ns: str, node: str, scheduler: str = PROFILE) -> tuple[str, str]:
    """A pod whose .status.nominatedNodeName is `node` before the scheduler sees it: created with a scheduling
    gate, the nomination written to its status (upstream's status patch), then left gated (`ungate`)."""
    body = copy_pod(pod)
    body["spec"]["schedulingGates"] = [{"name": "kubeberth.test/nominate-first"}]
    pns, name = case.pod(body, ns, scheduler=scheduler)
    case.api._patch(f"/api/v1/namespaces/{pns}/pods/{name}/status",
                    {"status": {"nominatedNodeName": case.node_name(node)}})
    return pns, name


def ungate(case: Case, ns: str, name: str) -> None:
    pod = case.get(ns, name)
    pod["spec"]["schedulingGates"] = []
    case.api.call("PUT", f"/api/v1/namespaces/{ns}/pods/{name}", pod)


def copy_pod(pod: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(pod))


PREFER_NOMINATED: list[dict[str, Any]] = [
    {"name": "nominated node released all resource, preemptor is scheduled to the nominated node",
     "existing": [_pdb_pod("low-pod1", LOW, "node-2")], "pod": pause("preemptor-pod", HIGH, 500, 200),
     "running": "node-1"},
    {"name": "nominated node cannot pass all the filters, preemptor should find a different node",
     "existing": [_pdb_pod("low-pod", LOW, "node-1")], "pod": pause("preemptor-pod1", HIGH, 500, 200),
     "running": "node-2"},
]


@pytest.mark.parametrize("tc", cases(PREFER_NOMINATED, "TestPreferNominatedNode", DIFFERENCES))
def test_TestPreferNominatedNode(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802
    """node-1 and node-2 (500m, 500); the existing pod runs; the preemptor comes to the scheduler already
    nominated to node-1 (upstream wraps NextEntity to set it in memory; here it is written to the pod's status
    while the pod is gated) and lands on the case's node."""
    case.rename_nodes(["node-1", "node-2"])
    for name in ("node-1", "node-2"):
        case.node(make_node(name, None, MISC_NODE))
    ns = "perfer-nominated-node"
    for p in tc["existing"]:
        run_pause_pod(case, p, ns)
    preemptor = gated_with_nomination(case, tc["pod"], ns, "node-1")
    ungate(case, *preemptor)
    assert case.wait_scheduled(*preemptor) == case.node_name(tc["running"])


# ---- nominated_node_name_test.go: TestPreemptionAndNominatedNodeNameScenarios ----


def test_TestPreemptionAndNominatedNodeNameScenarios_basic(case: Case) -> None:  # noqa: N802
    """'TestPreemptionAndNominatedNodeNameScenarios/basic preemption sets NominatedNodeName': node (4 cpu) with the
    victim (4 cpu, grace 0); the preemptor (2 cpu) fails its attempt, is nominated to node (its history), the
    preemption completes and it is bound to node, its nomination cleared (ClearingNominatedNodeNameAfterBinding)."""
    node = _nnn_node(case)
    ns = "preemption"
    case.pod(st_pod("victim", 1, "4", "node", zero_grace=True), ns)
    preemptor = case.pod(st_pod("preemptor", 100, "2"), ns)
    assert case.wait_scheduled(*preemptor) == node
    assert nominations(case, *preemptor, until_bound=True)[:2] == ["", node]
    _nnn_cleared_after_binding(case, *preemptor)


def test_TestPreemptionAndNominatedNodeNameScenarios_overwrite(case: Case) -> None:  # noqa: N802
    """'TestPreemptionAndNominatedNodeNameScenarios/Overwrite NominatedNodeName with preemption': node2 (4 cpu);
    two 2-cpu victims on node, a 3-cpu one on node2; the preemptor (4 cpu) nominated to node beforehand; its
    preemption picks node2 (one victim) and its nomination changes to node2, where it is bound."""
    node = _nnn_node(case)
    case.rename_nodes(["node2"])
    node2 = case.node(make_node("node2", None, {"cpu": "4"}))
    ns = "preemption"
    for i in range(2):
        victim = st_pod(f"victim-{i}", 1, "2", "node", zero_grace=True)
        case.pod(victim, ns)
    case.pod(st_pod("victim-3", 1, "3", "node2", zero_grace=True), ns)
    preemptor = gated_with_nomination(case, st_pod("preemptor", 100, "4"), ns, "node")
    ungate(case, *preemptor)
    assert case.wait_scheduled(*preemptor) == node2
    assert nominations(case, *preemptor, until_bound=True)[:3] == ["", node, node2]
    _nnn_cleared_after_binding(case, *preemptor)


def _nominated_and_not(case: Case, nominated: dict[str, Any],
                       other: dict[str, Any]) -> tuple[str, tuple[str, str], tuple[str, str]]:
    """`node` (4 cpu) and two gated pods in namespace preemption, in this order: `nominated` with node as its
    .status.nominatedNodeName, `other` with none (its nomination written, then cleared)."""
    node = _nnn_node(case)
    first = gated_with_nomination(case, nominated, "preemption", "node")
    second = gated_with_nomination(case, other, "preemption", "node")
    case.api._patch(f"/api/v1/namespaces/{second[0]}/pods/{second[1]}/status", {"status": {"nominatedNodeName": None}})
    return node, first, second


def test_TestPreemptionAndNominatedNodeNameScenarios_cannot_fit(case: Case) -> None:  # noqa: N802
    """'TestPreemptionAndNominatedNodeNameScenarios/NNN is ignored on pod that cannot fit on the node':
    pod-exceeds-capacity (5 cpu) nominated to node (4 cpu) beforehand and pod-fits (3 cpu); pod-exceeds-capacity
    is tried first (upstream: older, same priority; here: ungated first) and its nomination cleared on failure,
    then pod-fits is bound to node."""
    node, exceeds, fits = _nominated_and_not(case, st_pod("pod-exceeds-capacity", 1, "5", zero_grace=True),
                                             st_pod("pod-fits", 1, "3", zero_grace=True))
    ungate(case, *exceeds)
    _wait_nnn(case, *exceeds, "")
    ungate(case, *fits)
    assert case.wait_scheduled(*fits) == node
    _nnn_cleared_after_binding(case, *fits)


def test_TestPreemptionAndNominatedNodeNameScenarios_lower_priority(case: Case) -> None:  # noqa: N802
    """'TestPreemptionAndNominatedNodeNameScenarios/NNN is ignored on lower priority pod when higher priority pod
    without NNN is being scheduled': low-priority (4 cpu, priority 1) nominated to node beforehand, high-priority
    (4 cpu, 100) without; high-priority is bound to node (upstream's queue pops it first; here it is ungated
    first), low-priority fails and its nomination is cleared."""
    node, low, high = _nominated_and_not(case, st_pod("low-priority", 1, "4", zero_grace=True),
                                         st_pod("high-priority", 100, "4", zero_grace=True))
    ungate(case, *high)
    ungate(case, *low)
    assert case.wait_scheduled(*high) == node
    _nnn_cleared_after_binding(case, *high)
    _wait_nnn(case, *low, "")
    assert not case.get(*low)["spec"].get("nodeName")


def test_TestPreemptionAndNominatedNodeNameScenarios_cleared(case: Case) -> None:  # noqa: N802
    """'TestPreemptionAndNominatedNodeNameScenarios/No preemption, NNN is cleared after binding': pod (4 cpu)
    nominated to node beforehand is bound to node and its nomination cleared."""
    node = _nnn_node(case)
    pod = gated_with_nomination(case, st_pod("pod", 1, "4", zero_grace=True), "preemption", "node")
    ungate(case, *pod)
    assert case.wait_scheduled(*pod) == node
    _nnn_cleared_after_binding(case, *pod)


def _nnn_node(case: Case) -> str:
    """All of TestPreemptionAndNominatedNodeNameScenarios runs on `node` (4 cpu)."""
    case.rename_nodes(["node"])
    return case.node(make_node("node", None, {"cpu": "4"}))


def _wait_nnn(case: Case, ns: str, name: str, want: str) -> None:
    """checkNNN: .status.nominatedNodeName becomes `want` (within 30 s)."""
    want = case.node_name(want) if want else ""
    wait_for(lambda: ((case.get(ns, name).get("status") or {}).get("nominatedNodeName") or "") == want,
             POLL_TIMEOUT, f"{ns}/{name} nominatedNodeName {want!r}", interval=0.1)


def _nnn_cleared_after_binding(case: Case, ns: str, name: str) -> None:
    _wait_nnn(case, ns, name, "")


# ---- preemption_test.go: TestPreemptionRespectsWaitingPod, TestPreemptionRespectsBindingPod ----


def _respects(case: Case, profile: str) -> tuple[tuple[str, str], str, str]:
    """big-node (2 cpu, 2Gi) and the victim (low, 1 cpu, 1Gi): (victim, big-node's name, small-node's name)."""
    case.rename_nodes(["big-node", "small-node"])
    big = case.node(make_node("big-node", None, {"cpu": "2", "memory": "2Gi"}))
    victim = st_pod("victim", LOW, "1")
    victim["spec"]["containers"][0]["resources"]["requests"]["memory"] = "1Gi"
    return case.pod(victim, "preemption", scheduler=profile), big, case.node_name("small-node")


def _preemptor_then_victim_rescheduled(case: Case, profile: str, victim: tuple[str, str], big: str,
                                       small: str) -> None:
    """small-node (1 cpu, 1Gi) and the preemptor (high, 1.5 cpu, 1.5Gi, fits big-node only); the victim is never
    deleted; the preemptor lands on big-node and the victim is rescheduled to small-node."""
    case.node(make_node("small-node", None, {"cpu": "1", "memory": "1Gi"}))
    preemptor = st_pod("preemptor", HIGH, "1.5")
    preemptor["spec"]["containers"][0]["resources"]["requests"]["memory"] = "1.5Gi"
    pre = case.pod(preemptor, "preemption", scheduler=profile)

    def both() -> bool:
        v = case.get(*victim)
        assert v and not v["metadata"].get("deletionTimestamp"), "victim pod was deleted"
        return bool(case.get(*pre)["spec"].get("nodeName") and v["spec"].get("nodeName"))

    try:
        wait_for(both, POLL_TIMEOUT, "preemptor and victim scheduled", interval=0.1)
    except AssertionError as err:
        raise AssertionError(f"{err}\n{case.kb.log_tail(30)}") from None
    assert case.get(*victim)["spec"]["nodeName"] == small
    assert case.get(*pre)["spec"]["nodeName"] == big


def test_TestPreemptionRespectsWaitingPod(case: Case) -> None:  # noqa: N802
    """'TestPreemptionRespectsWaitingPod': the victim waits at Permit on big-node (seen in the scheduler's waiting
    pods: the SIGUSR2 held-pods dump, for upstream's GetWaitingPod); the preemptor's preemption rejects the waiting
    victim instead of deleting it, and the victim is rescheduled."""
    victim, big, small = _respects(case, BLOCKING_PERMIT_PROFILE)
    key = f"{victim[0]}/{victim[1]}"
    wait_for(lambda: key in case.kb.held_pods().get("waiting", []), POLL_TIMEOUT, "victim waiting on permit",
             interval=0.2)
    _preemptor_then_victim_rescheduled(case, BLOCKING_PERMIT_PROFILE, victim, big, small)


def test_TestPreemptionRespectsBindingPod(case: Case) -> None:  # noqa: N802
    """'TestPreemptionRespectsBindingPod': the victim blocks in PreBind on big-node (the plugin's log line, as
    upstream's blocked channel: registered in PodsInPreBind by then); the preemptor's preemption cancels the
    victim's binding instead of deleting it, and the victim is rescheduled."""
    start = len(case.kb.log_text())
    victim, big, small = _respects(case, BLOCKING_PRE_BIND_PROFILE)
    key = f"{victim[0]}/{victim[1]}"
    wait_for(lambda: f"BLOCKED in PreBind {key}" in case.kb.log_text()[start:], POLL_TIMEOUT, "victim in PreBind",
             interval=0.1)
    _preemptor_then_victim_rescheduled(case, BLOCKING_PRE_BIND_PROFILE, victim, big, small)



# ---- nominated_node_name_test.go: TestSchedulerRestartWithNominatedNode ----

# mockQueueSortPlugin (pod-b before pod-a, priorities untouched), mockPreBindPlugin (a PreBind with work, so the
# nomination is written before it) and mockBindPlugin (stops the scheduler in the binding cycle: here the process
# kills itself, as a crash would).
RESTART_PLUGINS = '''"""nominated_node_name_test.go's mockQueueSortPlugin, mockPreBindPlugin and mockBindPlugin."""
import os
import signal

from _upstream_test_plugins import SerialPreBind

from kubeberth import hookimpl


class mockQueueSortPlugin:  # noqa: N801 - upstream's name
    name = "mockQueueSortPlugin"

    @hookimpl
    def queue_sort(self, pod):
        return {"pod-b": 0, "pod-a": 1}.get(pod.name, 2)


class mockPreBindPlugin(SerialPreBind):  # noqa: N801
    name = "mockPreBindPlugin"

    @hookimpl
    def pre_bind(self, pod):
        return None


class mockBindPlugin:  # noqa: N801
    name = "mockBindPlugin"

    @hookimpl
    def bind(self, pod):
        os.kill(os.getpid(), signal.SIGKILL)
'''
RESTART_PROFILE = f"{PROFILE}-restart"


def _restart_config(path: Path, crash_in_bind: bool) -> Path:
    config = write_config(path)
    cfg = yaml.safe_load(config.read_text())
    plugins: dict[str, Any] = {
        "queueSort": {"enabled": [{"name": "mockQueueSortPlugin"}], "disabled": [{"name": "*"}]},
        "preBind": {"enabled": [{"name": "mockPreBindPlugin"}]}}
    if crash_in_bind:
        plugins["bind"] = {"enabled": [{"name": "mockBindPlugin"}], "disabled": [{"name": "*"}]}
    cfg["profiles"] = [{"schedulerName": RESTART_PROFILE, "plugins": plugins}]
    config.write_text(yaml.safe_dump(cfg))
    return config


def test_TestSchedulerRestartWithNominatedNode(  # noqa: N802
        case: Case, control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path: Path) -> None:
    """'TestSchedulerRestartWithNominatedNode': node-preferred (room for one pod) and node-other (a
    PreferNoSchedule taint); pod-a is nominated to node-preferred before PreBind and the scheduler stops in
    Bind (a kubeberth whose bind plugin kills its process); pod-b is created and a new kubeberth (default
    binder) takes pod-b first: pod-a's nomination, read back from its status, keeps node-preferred for it, so
    pod-b lands on node-other and pod-a on node-preferred. Two kubeberth processes of their own (a restart)."""
    case.rename_nodes(["node-preferred", "node-other"])
    preferred = case.node(make_node("node-preferred", None, {"pods": "1"}))
    other = case.node(make_node("node-other", None, None, [{"key": "foo", "effect": "PreferNoSchedule"}]))
    plugins = drop_ins(tmp_path, {"restart.py": RESTART_PLUGINS})
    ns = "nnn-test"
    pod_a = case.pod(pause("pod-a"), ns, scheduler=RESTART_PROFILE)
    first = Kubeberth(control_plane, sa_kubeconfig, _restart_config(tmp_path / "first.yaml", True), False,
                      f"kubeberth-restart-1-{suffix()}", plugins_dir=plugins)
    try:
        wait_for(lambda: first.proc.poll() is not None, POLL_TIMEOUT, "the scheduler to stop in Bind", interval=0.1)
    finally:
        first.stop()
    got = case.get(*pod_a)
    assert (got.get("status") or {}).get("nominatedNodeName") == preferred, got.get("status")
    assert not got["spec"].get("nodeName")
    pod_b = case.pod(pause("pod-b"), ns, scheduler=RESTART_PROFILE)
    second = Kubeberth(control_plane, sa_kubeconfig, _restart_config(tmp_path / "second.yaml", False), False,
                       f"kubeberth-restart-2-{suffix()}", plugins_dir=plugins)
    try:
        assert case.wait_scheduled(*pod_a) == preferred
        assert case.wait_scheduled(*pod_b) == other
    finally:
        second.stop()


# ---- preemption_test.go: TestAsyncPreemption ----

# The test plugins of TestAsyncPreemption, drop-ins: "delay-preemption" (DefaultPreemption whose PreemptPod waits
# until the test completes that preemptor's preemption), blockingBindPlugin (binds pod-blocked-in-binding only
# when the test resumes it), reservingPlugin and queueSkipFilterPlugin. The test steers them through files in a
# control directory (upstream: channels): `<ns>.<pod>.release` / `<ns>.resume` counters the plugins wait for,
# `<ns>.<pod>.running` the preemption round a preemptor is blocked in; with `<ns>.<pod>.hold-last` present, a
# released preemption stops again before its last victim (`<ns>.<pod>.at-last`) until `<ns>.<pod>.release-last`.
ASYNC_PLUGINS = '''"""preemption_test.go's TestAsyncPreemption plugins."""
import os
import time
from pathlib import Path

from kubeberth import Status, hookimpl
from kubeberth.builtin_plugins.default_preemption.plugin import DefaultPreemption

CONTROL = Path(os.environ["KUBEBERTH_TEST_CONTROL"])


def count(name):
    try:
        return int((CONTROL / name).read_text() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def wait_count(name, at_least, timeout=60.0):
    deadline = time.monotonic() + timeout
    while count(name) < at_least and time.monotonic() < deadline:
        time.sleep(0.02)
    return count(name) >= at_least


class DelayPreemption(DefaultPreemption):
    name = "delay-preemption"

    def __init__(self, args=None, feature_gates=None):
        super().__init__(args, feature_gates)
        self.rounds = {}
        real = self.preempt_pod

        def preempt(victim, preemptor, node, handle, **kw):
            key = f"{preemptor.namespace}.{preemptor.name}"
            round_ = self.rounds.get(preemptor.uid, 0)
            (CONTROL / f"{key}.running").write_text(str(round_))
            wait_count(f"{key}.release", round_)
            if self._last_victim.get(preemptor.uid) == victim.uid and (CONTROL / f"{key}.hold-last").exists():
                (CONTROL / f"{key}.at-last").write_text(str(round_))
                wait_count(f"{key}.release-last", round_)
            return real(victim, preemptor, node, handle, **kw)

        self.preempt_pod = preempt

    def prepare_candidate(self, best, pod, cluster, handle):
        self.rounds[pod.uid] = self.rounds.get(pod.uid, 0) + 1
        return super().prepare_candidate(best, pod, cluster, handle)

    # a drop-in's hooks are the @hookimpl methods its class defines: DefaultPreemption's, handed on
    @hookimpl
    def pre_enqueue(self, pod, handle):
        return super().pre_enqueue(pod, handle)

    @hookimpl
    def post_filter(self, state, pod, cluster, handle, diagnosis):
        return super().post_filter(state, pod, cluster, handle, diagnosis)


class blockingBindPlugin:  # noqa: N801 - upstream's name
    name = "blockingBindPlugin"

    def __init__(self):
        self.blocked = {}

    @hookimpl
    def bind(self, pod, node_name, handle):
        if "pod-blocked-in-binding" in pod.name:
            n = self.blocked[pod.namespace] = self.blocked.get(pod.namespace, 0) + 1
            wait_count(f"{pod.namespace}.resume", n)
        return handle.bind(pod, node_name)


class reservingPlugin:  # noqa: N801
    """Reserves for the pod named *reserving-pod*; the others fail Filter while it holds the reservation. Upstream's
    RemovePod (preemption's dry run) drops the reservation: here the reserving pod taken off its node in the
    hypothetical cluster does; a reserving pod deleted from the API keeps it until its Unreserve."""
    name = "reservingPlugin"
    requeue_on = ("Pod/Delete",)

    def __init__(self):
        self.reserved_uid = ""

    @hookimpl
    def filter_node(self, cluster):
        uid = self.reserved_uid
        if uid and (uid not in cluster.pods or uid in cluster.placement):
            return Status.unschedulable("resources are reserved")
        return None

    @hookimpl
    def reserve(self, pod):
        if "reserving-pod" in pod.name:
            self.reserved_uid = pod.uid

    @hookimpl
    def unreserve(self, pod):
        if "reserving-pod" in pod.name:
            self.reserved_uid = ""


class queueSkipFilterPlugin:  # noqa: N801
    name = "queueSkipFilterPlugin"
    requeue_on = ("Pod/Delete",)
    queueing_hints = {"Pod/Delete": "skip"}

    @hookimpl
    def filter_node(self, node):
        for pod in node.pods:
            if "blocking-pod" in pod.name:
                return Status.unschedulable(f"node {node.name} has blocking pod {pod.name}")
        return None

    def skip(self, pod, old, new):
        return False
'''
ASYNC_PROFILE = f"{PROFILE}-async-preemption"


def _async_profile() -> dict[str, Any]:
    return {"schedulerName": ASYNC_PROFILE, "plugins": {"multiPoint": {
        "enabled": [{"name": n} for n in ("blockingBindPlugin", "delay-preemption", "reservingPlugin",
                                          "queueSkipFilterPlugin")],
        "disabled": [{"name": "DefaultPreemption"}, {"name": "DefaultBinder"}]}}}


def _v(prefix: str, i: int, cpu: str | None, node: str = "node", grace: int | None = 0) -> dict[str, Any]:
    """st.MakePod().GenerateName(prefix)...: the i-th of them named prefix+i."""
    pod = st_pod(f"{prefix}{i}", 1, cpu or "0", node, zero_grace=grace == 0)
    if cpu is None:
        del pod["spec"]["containers"][0]["resources"]
    if grace not in (None, 0):
        pod["spec"]["terminationGracePeriodSeconds"] = grace
    return pod


def _victims(count: int, cpu: str | None, node: str = "node", prefix: str = "victim-") -> list[Any]:
    return [("create", _v(prefix, i, cpu, node)) for i in range(count)]


BLOCKED = "pod-blocked-in-binding"
RESERVING = "reserving-pod"


def _graceful(pod: dict[str, Any], seconds: int) -> dict[str, Any]:
    """.TerminationGracePeriodSeconds(seconds)."""
    pod["spec"]["terminationGracePeriodSeconds"] = seconds
    return pod


# Two preemptors of the same victims: upstream releases both preemptions and then pops one of them; with kubeberth
# scheduling on its own (not stepped), a preemptor is retried on its last victim's deletion only if its preemption
# has reached that victim by then (otherwise it waits for the 5-minute flush), so the cases that release two
# preemptions order them with "complete-held" / "release-last" (see each case).
ASYNC: list[dict[str, Any]] = [
    {"name": "basic: async preemption happens expectedly", "steps": [
        *_victims(2, "2"), ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("gated", "preemptor"), ("running", 2), ("complete", "preemptor"), ("schedule", "preemptor", "success")]},
    {"name": "basic async preemption with 1 victim, preemptor gated until preemption API call finishes", "steps": [
        *_victims(1, "1"), ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("gated", "preemptor"), ("running", 1), ("complete", "preemptor"), ("schedule", "preemptor", "success")]},
    {"name": "Lower priority Pod doesn't take over the place for higher priority Pod that is running the preemption",
     "steps": [
         *_victims(2, "2"), ("create", st_pod("preemptor-high-priority", 100, "4")),
         ("schedule", "preemptor-high-priority", "unschedulable"), ("gated", "preemptor-high-priority"),
         ("running", 2), ("create", st_pod("pod-mid-priority", 50, "4")),
         ("schedule", "pod-mid-priority", "unschedulable"), ("complete", "preemptor-high-priority"),
         ("schedule", "preemptor-high-priority", "success"), ("schedule", "pod-mid-priority", "unschedulable")]},
    {"name": "victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is deleted", "steps": [
        ("create", st_pod(BLOCKED, 1, "2", zero_grace=True)), ("schedule", BLOCKED, None),
        ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("complete", "preemptor"), ("schedule", "preemptor", "success"), ("resume",)]},
    {"name": "victim blocked in binding, preemptor pod gets scheduled when victim-in-binding is under graceful "
             "termination", "steps": [
        ("create", _v(BLOCKED, 0, "2", "", 1000)), ("schedule", BLOCKED + "0", None),
        ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("complete", "preemptor"), ("schedule", "preemptor", "success")]},
    {"name": "gated preemptor is eventually scheduled even if victim deletion doesn't raise queue hints"},
    # Upstream releases both preemptions of the same 4 victims at once, then pops the super-high-priority pod
    # first: each preemptor comes back on its last victim's deletion only if its preemption has reached that
    # victim by then (IsPodRunningPreemption), a race between the two goroutines and the watch. Here it is
    # ordered: the high-priority preemption is released and held before its last victim ("complete-held"), then
    # the super-high-priority one is completed (the last victim's deletion brings both back together), then the
    # held one; the steps after that are upstream's.
    {"name": "Higher priority Pod takes over the place for lower priority Pod that is running the preemption",
     "steps": [
         *_victims(4, "1"), ("create", st_pod("preemptor-high-priority", 100, "4")),
         ("schedule", "preemptor-high-priority", "unschedulable"), ("gated", "preemptor-high-priority"),
         ("running", 4), ("create", st_pod("preemptor-super-high-priority", 200, "4")),
         ("schedule", "preemptor-super-high-priority", "unschedulable"), ("running", 5),
         ("gated", "preemptor-super-high-priority"), ("complete-held", "preemptor-high-priority"),
         ("complete", "preemptor-super-high-priority"), ("schedule", "preemptor-super-high-priority", "success"),
         ("release-last", "preemptor-high-priority"), ("schedule", "preemptor-high-priority", "unschedulable")]},
    # Upstream completes the mid-priority preemption (all four victims: the high-priority pod is nominated there),
    # then the high-priority one (two of them), then pops the high-priority pod first. Here the mid-priority one is
    # held before its last victim, which the high-priority preemption deletes: both preemptors come back on that
    # deletion together and the high-priority one is popped first (released on their own, kubeberth would retry
    # the mid-priority pod while the other's victims are still there).
    {"name": "Lower priority Pod can select the same place where the higher priority Pod is preempting if the node is "
             "big enough", "steps": [
        *_victims(4, "1"), ("create", st_pod("preemptor-high-priority", 100, "2")),
        ("schedule", "preemptor-high-priority", "unschedulable"), ("gated", "preemptor-high-priority"),
        ("running", 4), ("create", st_pod("preemptor-mid-priority", 50, "2")),
        ("schedule", "preemptor-mid-priority", "unschedulable"), ("gated", "preemptor-mid-priority"),
        ("running", 5), ("complete-held", "preemptor-mid-priority"), ("complete", "preemptor-high-priority"),
        ("schedule", "preemptor-high-priority", "success"), ("release-last", "preemptor-mid-priority"),
        ("schedule", "preemptor-mid-priority", "success")]},
    # excluded (tests/upstream_unported_integration.py); the steps as they would run: the mid-priority preemption
    # held before its last victim keeps the pod gated while upstream's test leaves it unpopped
    {"name": "While lower priority Pod is waiting for preemption, higher priority Pod takes its place on the node",
     "steps": [
         *_victims(3, "1"), ("create", st_pod(BLOCKED, 1, "1", zero_grace=True)), ("schedule", BLOCKED, None),
         ("create", st_pod("preemptor-mid-priority", 50, "4")), ("schedule", "preemptor-mid-priority", None),
         ("complete-held", "preemptor-mid-priority"), ("gated", "preemptor-mid-priority"), ("node", "node2"),
         *_victims(4, "1", "node2"), ("create", st_pod("preemptor-high-priority", 100, "2")),
         ("schedule", "preemptor-high-priority", "success"), ("resume",), ("release-last", "preemptor-mid-priority"),
         ("schedule", "preemptor-mid-priority", "unschedulable"), ("complete", "preemptor-mid-priority"),
         ("schedule", "preemptor-mid-priority", "success")]},
    {"name": "victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is deleted and its "
             "resources are unreserved", "steps": [
        ("create", st_pod(BLOCKED + RESERVING, 1, "2", zero_grace=True)), ("schedule", BLOCKED + RESERVING, None),
        ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("complete", "preemptor"), ("schedule", "preemptor", "unschedulable"), ("resume",),
        ("schedule", "preemptor", "success")]},
    {"name": "victim blocked in binding, preemptor pod gets scheduled after victim-in-binding is under graceful "
             "termination and its resources are unreserved", "steps": [
        ("create", _graceful(st_pod(BLOCKED + RESERVING, 1, "2"), 1000)), ("schedule", BLOCKED + RESERVING, None),
        ("create", st_pod("preemptor", 100, "4")), ("schedule", "preemptor", "unschedulable"),
        ("complete", "preemptor"), ("schedule", "preemptor", "unschedulable"), ("resume",),
        ("schedule", "preemptor", "success")]},
]


class AsyncRun:
    """One TestAsyncPreemption case's scenario, step by step, on the shared kubeberth (profile ASYNC_PROFILE).

    kubeberth is not stepped: it schedules as pods come. What upstream's steps check is read as follows.
    schedulePod expectUnschedulable: a new Unschedulable attempt of the pod since the last step that saw one
    (its decision records, /debug/decisions) and no node; expectSuccess: bound; no expectation: the pod's first
    attempt has happened (pod-blocked-in-binding: it is assumed, i.e. in binding). podGatedInQueue: the held-pods
    dump has the pod in the unschedulable pool or gated, not active. podRunningPreemption: the preemptor is
    blocked in its current preemption round (the control directory). completePreemption / resumeBind: the counters
    the plugins wait for."""

    def __init__(self, case: Case, control: Path) -> None:
        self.case, self.control, self.ns = case, control, case.ns("preemption")
        self.created: list[str] = []
        self.unschedulable_seen: dict[str, int] = {}
        self.completed: dict[str, int] = {}

    def bump(self, name: str) -> None:
        path = self.control / name
        value = int(path.read_text()) if path.exists() else 0
        path.write_text(str(value + 1))

    def unschedulable_attempts(self, name: str) -> int:
        """The number of the pod's last Unschedulable attempt (its decision record and the earlier attempts')."""
        status, body = self.case.kb.get(f"/debug/decisions/{self.ns}/{name}")
        if status != 200:
            return 0
        record = json.loads(body)
        attempts = [record, *record.get("earlier_attempts", [])]
        return max((int(a["attempt"]) for a in attempts if a.get("result") == "Unschedulable"), default=0)

    def step(self, step: tuple[Any, ...]) -> None:
        kind, case, ns = step[0], self.case, self.ns
        if kind == "create":
            case.pod(step[1], "preemption", scheduler=ASYNC_PROFILE)
            self.created.append(step[1]["metadata"]["name"])
        elif kind == "node":
            case.rename_nodes([step[1]])
            case.node(make_node(step[1], None, {"cpu": "4"}))
        elif kind == "schedule":
            self.schedule(step[1], step[2])
        elif kind == "gated":
            def parked() -> bool:
                held = case.kb.held_pods()
                key = f"{ns}/{step[1]}"
                return key in held.get("unschedulable", []) + held.get("gated", [])
            wait_for(parked, POLL_TIMEOUT, f"{step[1]} in the unschedulable pool or gated", interval=0.2)
            assert not case.get(ns, step[1])["spec"].get("nodeName")
        elif kind == "running":
            name = self.created[step[1]]

            def running() -> bool:
                path = self.control / f"{ns}.{name}.running"
                return path.exists() and int(path.read_text()) > self.completed.get(name, 0)
            wait_for(running, POLL_TIMEOUT, f"{name} running preemption", interval=0.1)
        elif kind == "complete":
            self.completed[step[1]] = self.completed.get(step[1], 0) + 1
            self.bump(f"{ns}.{step[1]}.release")
        elif kind == "resume":
            self.bump(f"{ns}.resume")
        elif kind == "complete-held":
            self.hold_at_last(step[1])
        elif kind == "release-last":
            self.bump(f"{ns}.{step[1]}.release-last")

    def hold_at_last(self, name: str) -> None:
        """completePreemption, held again before the preemption's last victim (see ASYNC_PLUGINS)."""
        key = f"{self.ns}.{name}"
        (self.control / f"{key}.hold-last").write_text("")
        self.step(("complete", name))
        round_ = self.completed[name]

        def at_last() -> bool:
            path = self.control / f"{key}.at-last"
            return path.exists() and int(path.read_text()) >= round_
        wait_for(at_last, POLL_TIMEOUT, f"{name}'s preemption at its last victim", interval=0.1)

    def schedule(self, name: str, expect: str | None) -> None:
        case, ns = self.case, self.ns
        if expect == "success":
            case.wait_scheduled(ns, name)
        elif expect == "unschedulable":
            seen = self.unschedulable_seen.get(name, 0)
            wait_for(lambda: self.unschedulable_attempts(name) > seen, POLL_TIMEOUT,
                     f"a new Unschedulable attempt of {name}", interval=0.1)
            self.unschedulable_seen[name] = self.unschedulable_attempts(name)
            assert not case.get(ns, name)["spec"].get("nodeName"), f"{name} was scheduled"
        elif name.startswith(BLOCKED):
            wait_for(lambda: f"{ns}/{name}" in case.kb.held_pods().get("assumed", []), POLL_TIMEOUT,
                     f"{name} in binding", interval=0.2)
        else:
            wait_for(lambda: self.unschedulable_attempts(name) > 0 or case.get(ns, name)["spec"].get("nodeName"),
                     POLL_TIMEOUT, f"{name} attempted", interval=0.1)
            self.unschedulable_seen[name] = self.unschedulable_attempts(name)


@pytest.mark.parametrize("tc", cases(ASYNC, "TestAsyncPreemption", DIFFERENCES))
def test_TestAsyncPreemption(case: Case, tc: dict[str, Any], async_control: Path) -> None:  # noqa: N802
    """node (4 cpu) and the case's scenario (AsyncRun says how each step is observed); at the end every preemption
    and blocked binding the case started is let go."""
    case.rename_nodes(["node"])
    case.node(make_node("node", None, {"cpu": "4"}))
    run = AsyncRun(case, async_control)
    try:
        for step in tc["steps"]:
            try:
                run.step(step)
            except AssertionError as err:
                log = [line for line in case.kb.log_tail(400).splitlines() if "held pods" not in line]
                raise AssertionError(f"step {step[:2]}: {err}\n" + "\n".join(log[-30:])) from None
    finally:
        for _ in range(3):
            run.bump(f"{run.ns}.resume")
        for name in run.created:
            for _ in range(3):
                run.bump(f"{run.ns}.{name}.release")
                run.bump(f"{run.ns}.{name}.release-last")

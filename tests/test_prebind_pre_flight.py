"""PreBindPreFlight and NominatedNodeNameForExpectation in the binding cycle.

kube-scheduler v1.37.2's framework_test.go tables for RunPreBindPreFlights and
getPreBindPluginGroups and schedule_one_test.go's TestSchedulerScheduleOne binding-cycle cases,
case by case; then the binding cycle on the embedded cluster in kubeberth's own cases: PreBind
skipped for plugins whose pre-flight says Skip, and status.nominatedNodeName written before a
PreBind with work (or a Permit wait), never for a pod whose PreBind plugins all skip.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from kubeberth import Code, CycleState, PermitResult, PreBindPreFlightResult, Status, hookimpl
from kubeberth.cache.podinfo import PodInfo
from kubeberth.observability.explain import render
from kubeberth.runtime.framework import BoundHook, Framework
from kubeberth.testing import SchedulerTester, make_node, make_pod, make_pod_group

injectReason = "injected status"  # noqa: N816 - upstream's names


class TestPlugin:
    """framework_test.go's TestPlugin, at PreBind: its PreBindPreFlight answers the injected code
    with the injected reason (fwk.NewStatus(code, injectReason))."""

    __test__ = False  # not a pytest class

    def __init__(self, name: str, pre_bind_pre_flight_status: Code = Code.SUCCESS) -> None:
        self.name = name
        self.code = pre_bind_pre_flight_status

    @hookimpl
    def pre_bind_pre_flight(self) -> PreBindPreFlightResult:
        return PreBindPreFlightResult(Status(self.code, (injectReason,)), allow_parallel=False)

    @hookimpl
    def pre_bind(self) -> None:
        return None


TestPreBindPreFlightPlugins: dict[str, dict[str, Any]] = {
    "TestPreBindPreFlightPlugins/Skip when there's no PreBind Plugin": {
        "plugins": [],
        "wantStatus": (Code.SKIP, ""),
    },
    "TestPreBindPreFlightPlugins/Success when PreBindPreFlight returns Success": {
        "plugins": [TestPlugin("TestPlugin1", Code.SKIP), TestPlugin("TestPlugin2", Code.SUCCESS)],
        "wantStatus": None,
    },
    "TestPreBindPreFlightPlugins/Skip when all PreBindPreFlight returns Skip": {
        "plugins": [TestPlugin("TestPlugin1", Code.SKIP), TestPlugin("TestPlugin2", Code.SKIP)],
        "wantStatus": (Code.SKIP, ""),
    },
    "TestPreBindPreFlightPlugins/Error when PreBindPreFlight returns Error": {
        "plugins": [TestPlugin("TestPlugin1", Code.SKIP), TestPlugin("TestPlugin2", Code.ERROR)],
        # fwk.AsStatus(fmt.Errorf(`running PreBindPreFlight "TestPlugin2": %w`, errInjectedStatus))
        "wantStatus": (Code.ERROR, f'running PreBindPreFlight "TestPlugin2": {injectReason}'),
    },
    "TestPreBindPreFlightPlugins/Error when PreBindPreFlight returns Unschedulable": {
        "plugins": [TestPlugin("TestPlugin", Code.UNSCHEDULABLE)],
        "wantStatus": (
            Code.ERROR,
            'PreBindPreFlight TestPlugin returned "Unschedulable", which is unsupported. '
            "It is supposed to return Success, Skip, or Error status",
        ),
    },
}


@pytest.mark.parametrize("name", list(TestPreBindPreFlightPlugins), ids=lambda n: n.split("/", 1)[1])
def test_pre_bind_pre_flight_plugins(name: str) -> None:
    tt = TestPreBindPreFlightPlugins[name]
    config = {
        "profiles": [{
            "schedulerName": "kubeberth",
            "plugins": {
                "multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}], "disabled": [{"name": "*"}]},
                "preBind": {"enabled": [{"name": p.name} for p in tt["plugins"]]},
            },
        }],
    }
    with SchedulerTester(config=config, register=tt["plugins"], start=False) as t:
        fw = t.framework
        assert fw.enabled("pre_bind") == [p.name for p in tt["plugins"]]
        handle = t.scheduler.handle_for(fw)
        status = fw.run_pre_bind_pre_flights(CycleState(), PodInfo.from_dict(make_pod("p")), "", handle)
    if tt["wantStatus"] is None:
        assert status.code == Code.SUCCESS, status
    else:
        assert (status.code, status.message) == tt["wantStatus"]


def _framework(*names: str) -> Framework:
    hooks = [BoundHook(n, lambda: None, ()) for n in names]
    return Framework("kubeberth", {"pre_bind": hooks}, {}, [], {}, None)


TestGetPreBindPluginGroups: dict[str, dict[str, Any]] = {
    "TestGetPreBindPluginGroups/No plugins": {"plugins": [], "expectedGroups": []},
    "TestGetPreBindPluginGroups/Single plugin, not skipped, not parallel": {"plugins": ["p1"], "expectedGroups": [["p1"]]},
    "TestGetPreBindPluginGroups/Single plugin, skipped": {"plugins": ["p1"], "skippedPlugins": {"p1"}, "expectedGroups": []},
    "TestGetPreBindPluginGroups/Single plugin, parallel": {
        "plugins": ["p1"], "parallelPlugins": {"p1"}, "expectedGroups": [["p1"]],
    },
    "TestGetPreBindPluginGroups/Single plugin, parallel & skipped": {
        "plugins": ["p1"], "parallelPlugins": {"p1"}, "skippedPlugins": {"p1"}, "expectedGroups": [],
    },
    "TestGetPreBindPluginGroups/Multiple plugins, consecutive serial": {
        "plugins": ["p1", "p2"], "expectedGroups": [["p1"], ["p2"]],
    },
    "TestGetPreBindPluginGroups/Multiple plugins, consecutive parallel": {
        "plugins": ["p1", "p2"], "parallelPlugins": {"p1", "p2"}, "expectedGroups": [["p1", "p2"]],
    },
    "TestGetPreBindPluginGroups/Multiple plugins, mixed parallel and serial": {
        "plugins": ["p1", "p2", "p3", "p4"], "parallelPlugins": {"p2", "p3"},
        "expectedGroups": [["p1"], ["p2", "p3"], ["p4"]],
    },
    "TestGetPreBindPluginGroups/Parallel plugins separated by serial": {
        "plugins": ["p1", "p2", "p3"], "parallelPlugins": {"p1", "p3"}, "expectedGroups": [["p1"], ["p2"], ["p3"]],
    },
    "TestGetPreBindPluginGroups/Skipped plugins": {
        "plugins": ["p1", "p2", "p3"], "skippedPlugins": {"p2"}, "expectedGroups": [["p1"], ["p3"]],
    },
    "TestGetPreBindPluginGroups/Parallel plugins with one skipped in between": {
        "plugins": ["p1", "p2", "p3"], "parallelPlugins": {"p1", "p2", "p3"}, "skippedPlugins": {"p2"},
        "expectedGroups": [["p1", "p3"]],
    },
    "TestGetPreBindPluginGroups/Parallel plugins with one serial & skipped in between": {
        "plugins": ["p1", "p2", "p3"], "parallelPlugins": {"p1", "p3"}, "skippedPlugins": {"p2"},
        "expectedGroups": [["p1"], ["p3"]],
    },
    "TestGetPreBindPluginGroups/Complex mix": {
        "plugins": ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"],
        "parallelPlugins": {"p2", "p4", "p5", "p6"},
        "skippedPlugins": {"p3", "p5"},
        "expectedGroups": [["p1"], ["p2"], ["p4", "p6"], ["p7"], ["p8"]],
    },
}


@pytest.mark.parametrize("name", list(TestGetPreBindPluginGroups), ids=lambda n: n.split("/", 1)[1])
def test_get_pre_bind_plugin_groups(name: str) -> None:
    tt = TestGetPreBindPluginGroups[name]
    state = CycleState()
    state.skip_pre_bind = set(tt.get("skippedPlugins", ()))
    state.parallel_pre_bind = set(tt.get("parallelPlugins", ()))
    groups = _framework(*tt["plugins"]).pre_bind_groups(state)
    assert [[h.plugin for h in g] for g in groups] == tt["expectedGroups"]


# ---- the binding cycle on the embedded cluster -----------------------------------------------
class FakePreBind:
    """A PreBind plugin with set pre-flight and PreBind answers; its PreBind records the pod's
    status.nominatedNodeName as the API server holds it then (what observers see during PreBind)."""

    name = "FakePreBind"

    def __init__(self, pre_flight: Status | None, pre_bind: Status | None = None) -> None:
        self.pre_flight = pre_flight
        self.answer = pre_bind
        self.seen: list[str] = []  # nominatedNodeName at each PreBind call

    @hookimpl
    def pre_bind_pre_flight(self) -> Status | None:
        return self.pre_flight

    @hookimpl
    def pre_bind(self, pod: PodInfo, handle: Any) -> Status | None:
        found = handle.get_object("Pod", pod.key) or {}
        self.seen.append((found.get("status") or {}).get("nominatedNodeName") or "")
        return self.answer


def _tester(*plugins: Any, gate: bool = True, **kw: Any) -> SchedulerTester:
    t = SchedulerTester(list(plugins), feature_gates={"NominatedNodeNameForExpectation": gate}, **kw)
    t.add(make_node("node1"))
    return t


def _record_writes(t: SchedulerTester) -> list[tuple[str, str]]:
    """The embedded API server's writes that matter here, in order: ("nominate", node) and ("bind", node)."""
    writes: list[tuple[str, str]] = []
    backend = t.backend
    nominate, bind, update = backend.write_nominated_node, backend.bind, backend.update_object

    def write_nominated_node(pod: PodInfo, node_name: str) -> Status:
        writes.append(("nominate", node_name))
        return nominate(pod, node_name)

    def bound(pod: PodInfo, node_name: str) -> Status:
        writes.append(("bind", node_name))
        return bind(pod, node_name)

    def updated(kind: str, obj: dict[str, Any], subresource: str = "") -> Status:
        writes.append(("update", kind))
        return update(kind, obj, subresource)

    backend.write_nominated_node = write_nominated_node  # type: ignore[method-assign]
    backend.bind = bound  # type: ignore[method-assign]
    backend.update_object = updated  # type: ignore[method-assign]
    return writes


def test_pre_bind_is_skipped_and_no_nomination_is_written_when_the_pre_flight_skips() -> None:
    plugin = FakePreBind(Status.skip(), Status.error("rejected on prebind"))  # PreBind would fail if called
    with _tester(plugin) as t:
        writes = _record_writes(t)
        assert t.schedule(make_pod("foo")) == {"foo": "node1"}
        assert t.events("foo", "Scheduled") == ["Successfully assigned default/foo to node1"]
    assert plugin.seen == []
    assert writes == [("bind", "node1")]
    assert t.backend.nominations_written == 0


def test_pre_bind_runs_after_the_nomination_is_written_when_the_pre_flight_has_work() -> None:
    plugin = FakePreBind(None)
    with _tester(plugin) as t:
        writes = _record_writes(t)
        assert t.schedule(make_pod("foo")) == {"foo": "node1"}
        # kube-apiserver clears the nomination when it binds the pod (ClearingNominatedNodeNameAfterBinding)
        assert "nominatedNodeName" not in t.pod("foo")["status"]
        (record,) = t.records("foo")
    assert plugin.seen == ["node1"]
    assert writes == [("nominate", "node1"), ("bind", "node1")]
    # The decision record says so (kubeberth explain, the BindingCycle span's attributes).
    assert record.binding["nominated"] == "node1"
    assert [(step[0], step[3]) for step in record.binding["steps"]] == [
        ("PreBindPreFlight", "SUCCESS"), ("PreBind", "SUCCESS"), ("Bind", "SUCCESS"), ("PostBind", "SUCCESS")]
    assert "  status.nominatedNodeName set to node1 before PreBind" in render(record.as_dict()).splitlines()


def test_no_nomination_is_written_with_the_gate_off_and_every_pre_bind_runs() -> None:
    plugin = FakePreBind(Status.skip())  # the pre-flight is not consulted with the gate off
    with _tester(plugin, gate=False) as t:
        writes = _record_writes(t)
        assert t.schedule(make_pod("foo")) == {"foo": "node1"}
    assert plugin.seen == [""]
    assert writes == [("bind", "node1")]


@pytest.mark.parametrize(
    ("pre_flight", "message"),
    [
        (Status.error("on PreBindPreFlight"), 'running PreBindPreFlight "FakePreBind": on PreBindPreFlight'),
        (
            Status.unschedulable("rejected on prebindpreflight"),
            'PreBindPreFlight FakePreBind returned "Unschedulable", which is unsupported. '
            "It is supposed to return Success, Skip, or Error status",
        ),
    ],
    ids=["error", "unschedulable"],
)
def test_a_failing_pre_flight_fails_the_binding_as_an_error(pre_flight: Status, message: str) -> None:
    plugin = FakePreBind(pre_flight)
    with _tester(plugin, max_errors_per_pod=1) as t:
        writes = _record_writes(t)
        assert t.schedule(make_pod("foo")) == {"foo": None}
        assert t.events("foo", "FailedScheduling") == [message]
        assert t.scheduler.cluster.assumed == set()  # forgotten
    assert plugin.seen == []
    assert writes == []


def test_a_failed_pre_bind_clears_the_nomination_it_was_given() -> None:
    plugin = FakePreBind(None, Status.error("on PreBind"))
    with _tester(plugin, max_errors_per_pod=1) as t:
        writes = _record_writes(t)
        assert t.schedule(make_pod("foo")) == {"foo": None}
        assert t.events("foo", "FailedScheduling") == ['running PreBind plugin "FakePreBind": on PreBind']
        assert not t.pod("foo")["status"].get("nominatedNodeName")
    assert plugin.seen == ["node1"]
    assert writes == [("nominate", "node1"), ("nominate", "")]  # handleBindingCycleError: clearNominatedNode


class FakePermit:
    name = "FakePermit"

    @hookimpl
    def permit(self) -> PermitResult:
        return PermitResult.wait(60, "rejected on permit")


@pytest.mark.parametrize("gate", [True, False], ids=["gate on", "gate off"])
def test_a_pod_waiting_on_permit_is_nominated_while_it_waits(gate: bool) -> None:
    """PreBind skips, but the pod waits at Permit: the nomination is written before the wait."""
    plugin = FakePreBind(Status.skip())
    with _tester(plugin, FakePermit(), gate=gate) as t:
        writes = _record_writes(t)
        t.add(make_pod("foo", uid="foo"))
        while t.step():
            pass
        deadline = time.monotonic() + 30
        while "foo" not in t.scheduler.waiting_pods and time.monotonic() < deadline:
            time.sleep(0.01)
        waiting = t.scheduler.waiting_pods["foo"]
        if gate:
            while not writes and time.monotonic() < deadline:
                time.sleep(0.01)  # the worker writes, then waits
            assert t.pod("foo")["status"].get("nominatedNodeName") == "node1"
        waiting.allow("FakePermit")
        t.settle()
        assert t.node_of("foo") == "node1"
    assert writes == ([("nominate", "node1")] if gate else []) + [("bind", "node1")]


class SlowPreBind:
    """A PreBind that allows a parallel run and waits until its partner has started."""

    def __init__(self, name: str, started: dict[str, threading.Event]) -> None:
        self.name = name
        self.started = started

    @hookimpl
    def pre_bind_pre_flight(self) -> PreBindPreFlightResult:
        return PreBindPreFlightResult(allow_parallel=True)

    @hookimpl
    def pre_bind(self) -> Status | None:
        self.started[self.name].set()
        other = next(e for n, e in self.started.items() if n != self.name)
        return None if other.wait(30) else Status.error(f"{self.name} ran alone")


def test_pre_binds_that_allow_it_run_in_parallel() -> None:
    started = {"A": threading.Event(), "B": threading.Event()}
    with _tester(SlowPreBind("A", started), SlowPreBind("B", started)) as t:
        assert t.schedule(make_pod("foo")) == {"foo": "node1"}


# ---- schedule_one_test.go: TestSchedulerScheduleOne, the binding cycle's cases -----------------
class FakePreBindPlugin:
    """kube-scheduler's tf.NewFakePreBindPlugin(preBindPreFlightStatus, preBindStatus)."""

    name = "FakePreBind"

    def __init__(self, pre_flight: Status | None, pre_bind: Status | None) -> None:
        self.pre_flight, self.pre_bind_status = pre_flight, pre_bind

    @hookimpl
    def pre_bind_pre_flight(self) -> PreBindPreFlightResult:
        return PreBindPreFlightResult(self.pre_flight, allow_parallel=False)

    @hookimpl
    def pre_bind(self) -> Status | None:
        return self.pre_bind_status


class FakePermitPlugin:
    """kube-scheduler's tf.NewFakePermitPlugin(status, timeout)."""

    name = "FakePermit"

    def __init__(self, status: Status, timeout: float) -> None:
        self.status, self.timeout = status, timeout

    @hookimpl
    def permit(self) -> PermitResult:
        return PermitResult(self.status, self.timeout)


class FakeReservePlugin:
    """kube-scheduler's tf.NewFakeReservePlugin(status)."""

    name = "FakeReserve"

    def __init__(self, status: Status) -> None:
        self.status = status

    @hookimpl
    def reserve(self) -> Status:
        return self.status


class BlockingPreBindPlugin:
    """schedule_one_test.go's BlockingPreBindPlugin: its PreBind has work (pre-flight Success),
    says it started, and blocks until its PreBind is cancelled, returning the cancellation."""

    name = "BlockingPreBindPlugin"

    def __init__(self) -> None:
        self.started = threading.Event()

    @hookimpl
    def pre_bind_pre_flight(self) -> None:
        return None

    @hookimpl
    def pre_bind(self, state: CycleState) -> Status:
        self.started.set()
        return Status.error(state.sleep_in_pre_bind(30) or "never cancelled")


reserveErr = "reserve error"  # noqa: N816 - upstream's names
permitErr = "permit error"  # noqa: N816
preBindErr = "on PreBind"  # noqa: N816
bindingErr = "binder"  # noqa: N816
preBindPreFlightErr = "on PreBindPreFlight"  # noqa: N816 - upstream's names


def makePredicateError(failReason: str) -> str:  # noqa: N802 - upstream's name
    return f"0/1 nodes are available: {failReason}."
testNode = "node1"  # noqa: N816

TestSchedulerScheduleOne: dict[str, dict[str, Any]] = {
    "TestSchedulerScheduleOne/reserve failed with status code error": {
        "registerPlugins": lambda: [FakeReservePlugin(Status.error(reserveErr))],
        "expectForgetPod": True,
        "expectPodInBackoffQ": True,
        "expectError": f'running Reserve plugin "FakeReserve": {reserveErr}',
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/reserve failed with status code rejected": {
        "registerPlugins": lambda: [FakeReservePlugin(Status.unschedulable("rejected on reserve", unresolvable=True))],
        "expectForgetPod": True,
        "expectPodInUnschedulable": True,
        "expectError": makePredicateError("1 rejected on reserve"),
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/permit failed with status code error": {
        "registerPlugins": lambda: [FakePermitPlugin(Status.error(permitErr), 60)],
        "expectForgetPod": True,
        "expectPodInBackoffQ": True,
        "expectError": f'running Permit plugin "FakePermit": {permitErr}',
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/permit failed with status code rejected": {
        "registerPlugins": lambda: [FakePermitPlugin(Status.unschedulable("rejected on permit"), 60)],
        "expectForgetPod": True,
        "expectPodInUnschedulable": True,
        "expectError": makePredicateError("1 rejected on permit"),
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/nominated node name is not set, permit plugin is working, but the feature gate NominatedNodeNameForExpectation is disabled": {
        "registerPlugins": lambda: [FakePermitPlugin(Status.wait("rejected on permit"), 60)],
        "podToAdmit": "FakePermit",
        "nominatedNodeNameForExpectationEnabled": False,
        # PodGroup scheduling cycle treats Wait status from Permit as unschedulable.
        "scheduleAsPodGroup": False,
        "expectBind": testNode,
        "eventReason": "Scheduled",
    },
    "TestSchedulerScheduleOne/nominated node name is set, permit plugin is working in wait on permit phase": {
        "registerPlugins": lambda: [FakePermitPlugin(Status.wait("rejected on permit"), 60)],
        "podToAdmit": "FakePermit",
        "expectNominatedNodeName": testNode,
        "nominatedNodeNameForExpectationEnabled": True,
        "scheduleAsPodGroup": False,
        "expectBind": testNode,
        "eventReason": "Scheduled",
    },
    "TestSchedulerScheduleOne/prebindpreflight failed with status code error": {
        "registerPlugins": lambda: [FakePreBindPlugin(Status.error(preBindPreFlightErr), None)],
        "nominatedNodeNameForExpectationEnabled": True,
        "expectForgetPod": True,
        "expectPodInBackoffQ": True,
        "expectError": f'running PreBindPreFlight "FakePreBind": {preBindPreFlightErr}',
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/prebindpreflight failed with status code unschedulable": {
        "registerPlugins": lambda: [FakePreBindPlugin(Status.unschedulable("rejected on prebindpreflight"), None)],
        "nominatedNodeNameForExpectationEnabled": True,
        "expectForgetPod": True,
        "expectPodInBackoffQ": True,
        "expectError": 'PreBindPreFlight FakePreBind returned "Unschedulable", which is unsupported. '
                       "It is supposed to return Success, Skip, or Error status",
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/prebind isn't called and nominated node name isn't set, if preflight returns skip": {
        # Configure it to return error on prebind to make sure it's not called.
        "registerPlugins": lambda: [FakePreBindPlugin(Status.skip(), Status.error("rejected on prebind"))],
        "nominatedNodeNameForExpectationEnabled": True,
        "expectBind": testNode,
        "eventReason": "Scheduled",
    },
    "TestSchedulerScheduleOne/prebind is called and nominated node name is set, if preflight returns success": {
        "registerPlugins": lambda: [FakePreBindPlugin(None, None)],
        "nominatedNodeNameForExpectationEnabled": True,
        "expectNominatedNodeName": testNode,
        "expectBind": testNode,
        "eventReason": "Scheduled",
    },
    "TestSchedulerScheduleOne/prebind failed with status code error": {
        "registerPlugins": lambda: [FakePreBindPlugin(None, Status.error(preBindErr))],
        "expectForgetPod": True,
        "nominatedNodeNameForExpectationEnabled": True,
        "expectNominatedNodeName": testNode,
        "expectPodInBackoffQ": True,
        "expectError": f'running PreBind plugin "FakePreBind": {preBindErr}',
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/prebind pod cancelled during prebind (external preemption)": {
        "registerPlugins": lambda: [BlockingPreBindPlugin()],
        # Wait for the plugin to start, then trigger preemption from "outside".
        "postSchedulingCycle": lambda t, plugins: (
            plugins[0].started.wait(30)
            and t.scheduler.handle_for(t.framework).get_pod_in_pre_bind("foo").cancel("context cancelled externally")
        ),
        "nominatedNodeNameForExpectationEnabled": True,
        "expectForgetPod": True,
        "expectNominatedNodeName": "",
        "expectPodInBackoffQ": True,
        "expectError": 'running PreBind plugin "BlockingPreBindPlugin": context cancelled externally',
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/binding failed": {
        "registerPlugins": lambda: [],
        "injectBindError": bindingErr,
        "expectBind": testNode,
        "expectError": f'running Bind plugin "DefaultBinder": {bindingErr}',
        "expectForgetPod": True,
        "expectPodInBackoffQ": True,
        "eventReason": "FailedScheduling",
    },
    "TestSchedulerScheduleOne/bind assumed pod scheduled": {
        "registerPlugins": lambda: [],
        "expectBind": testNode,
        "eventReason": "Scheduled",
    },
}


def _schedule_one_params() -> list[Any]:
    """Each case with the NominatedNodeNameForExpectation values and pod/pod-group modes it runs
    with upstream (both where the case leaves one unset); SchedulerAsyncAPICalls (beta, off by
    default) is not implemented, so only its off mode runs."""
    out = []
    for name, item in TestSchedulerScheduleOne.items():
        gates = [item["nominatedNodeNameForExpectationEnabled"]] if "nominatedNodeNameForExpectationEnabled" in item else [True, False]
        groups = [item["scheduleAsPodGroup"]] if "scheduleAsPodGroup" in item else [True, False]
        for gate in gates:
            for group in groups:
                case = name.split("/", 1)[1]
                out.append(pytest.param(name, gate, group, id=f"{case} (NominatedNodeNameForExpectation: {gate}, Schedule as PodGroup: {group})"))
    return out


@pytest.mark.parametrize(("name", "gate", "as_group"), _schedule_one_params())
def test_scheduler_schedule_one(name: str, gate: bool, as_group: bool) -> None:
    item = TestSchedulerScheduleOne[name]
    plugins = item["registerPlugins"]()
    gates = {"NominatedNodeNameForExpectation": gate, **({"GenericWorkload": True} if as_group else {})}
    pod = make_pod("foo", uid="foo")
    objects: list[dict[str, Any]] = [make_node(testNode)]
    if as_group:
        # When scheduling a pod as a pod group, set scheduling group to all relevant pods.
        pod["spec"]["schedulingGroup"] = {"podGroupName": "pg"}
        objects.append(make_pod_group("pg"))
    with SchedulerTester(plugins, feature_gates=gates, start=False) as t:
        t.add(*objects)
        writes = _record_writes(t)
        if item.get("injectBindError"):
            # The API server refuses the Binding (upstream's fake client reactor on "create binding").
            def refuse(pod: PodInfo, node_name: str) -> Status:
                writes.append(("bind", node_name))
                return Status.error(item["injectBindError"])

            t.backend.bind = refuse  # type: ignore[method-assign]
        t.add(pod)
        while t.step():
            pass
        deadline = time.monotonic() + 30
        if item.get("postSchedulingCycle"):
            assert item["postSchedulingCycle"](t, plugins)
        if item.get("podToAdmit"):
            while "foo" not in t.scheduler.waiting_pods and time.monotonic() < deadline:
                t.scheduler.drain_events(block_for=0.01)
            t.scheduler.waiting_pods["foo"].allow(item["podToAdmit"])
        while t.scheduler.in_flight and time.monotonic() < deadline:
            t.scheduler.drain_events(block_for=0.01)
        assert not t.scheduler.in_flight, "the binding cycle did not report back"
        events = [e["reason"] for e in t.backend.events if e["regarding"] == "default/foo"]
        assert events[:1] == [item["eventReason"]], events
        nominations = [node for what, node in writes if what == "nominate"]
        if "expectError" not in item:
            assert (nominations[-1] if nominations else "") == item.get("expectNominatedNodeName", "")
            assert t.node_of("foo") == item["expectBind"]
        else:
            assert t.events("foo", "FailedScheduling") == [item["expectError"]]
            condition = next(c for c in t.pod("foo")["status"]["conditions"] if c["type"] == "PodScheduled")
            assert condition["message"] == item["expectError"]
            assert condition["reason"] == ("Unschedulable" if item.get("expectPodInUnschedulable") else "SchedulerError")
            assert t.node_of("foo") is None
            # The nomination written before PreBind, cleared when the binding cycle failed.
            if item.get("expectNominatedNodeName") or "expectNominatedNodeName" not in item:
                assert nominations[:1] == ([item["expectNominatedNodeName"]] if item.get("expectNominatedNodeName") else [])
            else:
                assert (nominations[-1] if nominations else "") == ""
            assert [node for what, node in writes if what == "bind"] == ([item["expectBind"]] if "expectBind" in item else [])
        if item.get("expectForgetPod"):
            assert t.scheduler.cluster.assumed == set() and "foo" not in t.scheduler.cluster.placement
        entry = t.scheduler.queue.entries.get("foo")
        if item.get("expectPodInBackoffQ"):
            assert entry is not None and entry.where == "backoff", entry
        elif item.get("expectPodInUnschedulable"):
            assert entry is not None and entry.unschedulable_plugins == {plugins[0].name}, entry
            if as_group and "reserve" in name:
                # Upstream: "Pods from a pod group skip unschedulableEntities structure and land directly in the
                # backoffQ" (AddAttemptedPodGroupIfNeeded after the group's rejected attempt), tried once: the
                # PodGroup's condition write does not move them.
                assert entry.where == "backoff" and entry.attempts == 1, entry
            elif as_group:
                # Permit runs once the group is scheduled (prepareForBindingCycle), where upstream requeues the pod
                # with the group's remaining pods (activeQ, no backoff). Here it goes to the unschedulable pool, the
                # PodGroup's condition write (PodGroup/Update) wakes it (a plugin that registers no events is woken by
                # every event): on to backoff, popped from there at once (SchedulerPopFromBackoffQ), rejected again.
                assert entry.where == "unschedulable" and entry.attempts == 2, entry
            else:
                assert entry.where == "unschedulable", entry
        else:
            assert entry is None or entry.where != "backoff"


class BlockOnce(BlockingPreBindPlugin):
    """Blocks the first pod's PreBind only; every later pod's pre-flight says Skip."""

    name = "BlockingPreBindPlugin"

    @hookimpl
    def pre_bind_pre_flight(self) -> Status | None:
        return Status.skip() if self.started.is_set() else None


def test_preemption_cancels_a_victim_still_in_pre_bind_instead_of_deleting_it() -> None:
    """kube-scheduler's PreemptPod with PodsInPreBind: a victim whose PreBind (with work) is running
    is not deleted; its PreBind is cancelled, it is never bound, and it goes back to the queue."""
    blocking = BlockOnce()
    with SchedulerTester(["NodeResourcesFit", "DefaultPreemption", blocking], start=False) as t:
        t.add(make_node(testNode, cpu="1"))
        t.add(make_pod("low", "1", uid="low"))
        while t.step():
            pass
        assert blocking.started.wait(30)
        assert t.scheduler.handle_for(t.framework).get_pod_in_pre_bind("low") is not None
        t.add(make_pod("high", "1", uid="high", priority=100))
        deadline = time.monotonic() + 30
        while not t.events("low", "FailedScheduling") and time.monotonic() < deadline:
            t.step()
            t.scheduler.drain_events(block_for=0.01)
        assert t.events("low", "FailedScheduling") == [
            'running PreBind plugin "BlockingPreBindPlugin": preempted by DefaultPreemption'
        ]
        low = t.pod("low")  # cancelled in memory: not marked, not deleted, not bound
        assert not low["spec"].get("nodeName") and not low["metadata"].get("deletionTimestamp")
        assert [c["type"] for c in low["status"].get("conditions", ())] == ["PodScheduled"]
        assert t.pod("high")["status"]["nominatedNodeName"] == testNode
        assert t.scheduler.pods_in_pre_bind == {} and "low" not in t.scheduler.cluster.assumed

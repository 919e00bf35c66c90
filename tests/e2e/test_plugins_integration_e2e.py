"""kube-scheduler v1.37.2 test/integration/scheduler/plugins/plugins_test.go against kubeberth on a real API server:
the tests not in test_queueing_enqueue_integration_e2e.py (TestPreFilterPlugin, TestFilterPlugin, TestPreScorePlugin,
TestScorePlugin, TestReservePluginReserve, TestPostBindPlugin, TestPrebindPlugin are there).

Upstream builds a scheduler per case with the case's Go test plugins (initRegistryAndConfig: the default profile,
each test plugin enabled at its extension point), runs a pause pod, and reads the plugins' counters. Here one
`kubeberth run` serves every case, a profile per case; the test plugins are drop-ins (PLUGINS, the public plugin
API only), their arguments the profile's pluginConfig, and each call is logged as `CALL <plugin> <hook>
<namespace>/<pod>`: a counter of upstream's is the number of those lines for the case's pod, their order its
pluginInvokeEvent channel. A case's nodes are in kubeberth's cache before its pod is created
(CreateAndWaitForNodesInCache: scheduler_event_handling_duration_seconds_count{event="NodeAdd"} has grown by
them), and gone from it before the next case starts.

Where upstream's test calls into a plugin (PermitPlugin.allowAllPods, rejectAllPods), a trigger pod of the same
profile does: its Permit call into the named plugin (`trigger-allow-permit-plugin-1`) allows or rejects the pods
waiting there, logging the waiting pod's pending plugins before and after. Upstream's BindPlugin binds through a
Binding carrying the annotation bindPluginName, which the API server copies to the pod; so does the drop-in
(Handle.bind's `annotations`).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix, write_config
from upstream_integration import PAUSE, Case, case_of, make_node, named_cases, serving

PLUGINS = '''"""plugins_test.go's test plugins (QueueSortPlugin aside) as kubeberth drop-ins; every call logged as
`CALL <plugin> <hook> <pod>`. Plugins of one kind under several names (upstream's name field) are one class
copied under each name."""
import logging

from pydantic import BaseModel

import _upstream_test_plugins
from _upstream_test_plugins import Configured, SerialPreBind, injected, plugin

from kubeberth import Code, PermitResult, Status, hookimpl
from kubeberth.api.views import parse_pod

log = logging.getLogger("plugins_test")
TRIED_PRE_BIND = set()  # PreBindPlugin.podUIDs, which PreEnqueueGateAfterPreBindPlugin reads


def called(plugin, hook, pod, extra=""):
    log.warning("CALL %s %s %s%s", plugin, hook, pod.key, extra)


class Args(BaseModel):
    fail: bool = False
    reject: bool = False
    timeout: bool = False
    waitAndReject: bool = False  # noqa: N815 - upstream's fields
    waitAndAllow: bool = False  # noqa: N815
    unresolvable: bool = False  # PostFilterPlugin.breakPostFilter
    status: str = "Success"  # BindPlugin.bindStatus: Success, Skip or Error
    admit: bool = False
    waitingPod: str = ""  # noqa: N815 - PermitPlugin.waitingPod set before the pods come


class _Reserve(Configured):
    """ReservePlugin: failReserve -> Error."""
    Args = Args

    @hookimpl
    def reserve(self, pod):
        called(self.name, "reserve", pod)
        if self.args.fail:
            return Status.error(f"injecting failure for pod {pod.name}")
        return None

    @hookimpl
    def unreserve(self, pod):
        called(self.name, "unreserve", pod)


class _Permit:
    """PermitPlugin: fail -> Error, reject -> Unschedulable, timeout -> Wait 3 s; waitAndReject / waitAndAllow:
    the first pod waits 30 s, the next rejects or allows the waiting pods. Trigger pods call the test's methods."""
    Args = Args

    def __init__(self, args):
        self.args, self.waiting_pod = args, args.waitingPod

    @hookimpl
    def permit(self, pod, handle):
        called(self.name, "permit", pod)
        if pod.name.startswith("trigger-"):
            return self._trigger(pod, handle)
        a = self.args
        if a.fail:
            return Status.error(f"injecting failure for pod {pod.name}")
        if a.reject:
            return Status.unschedulable(f"reject pod {pod.name}")
        if a.timeout:
            return PermitResult.wait(3)
        if a.waitAndReject or a.waitAndAllow:
            if self.waiting_pod in ("", pod.name):
                self.waiting_pod = pod.name
                log.warning("COSCHED %s waitingPod %s", self.name, pod.key)
                return PermitResult.wait(30)
            waiting = [w for w in handle.waiting_pods() if w.pod.namespace == pod.namespace]
            if a.waitAndReject:
                log.warning("COSCHED %s rejectingPod %s", self.name, pod.key)
                for w in waiting:
                    w.reject(self.name, f"reject pod {w.pod.name}")
                return Status.unschedulable(f"reject pod {pod.name}")
            log.warning("COSCHED %s allowingPod %s", self.name, pod.key)
            for w in waiting:
                w.allow(self.name)
        return None

    def _trigger(self, pod, handle):
        """trigger-allow-<plugin> / trigger-reject-<plugin>: allowAllPods / rejectAllPods of that plugin."""
        action, _, target = pod.name.removeprefix("trigger-").partition("-")
        if target == self.name:
            for w in handle.waiting_pods():
                if w.pod.namespace != pod.namespace:
                    continue
                before = len(w.pending_plugins)
                if action == "allow":
                    w.allow(self.name)
                else:
                    w.reject(self.name, "rejectAllPods")
                log.warning("TRIGGER %s %s %s pending %d -> %d", self.name, action, w.pod.key, before,
                            len(w.pending_plugins))
            log.warning("TRIGGERED %s by %s", self.name, pod.key)  # every TRIGGER line is written
        return None


class _Bind(Configured):
    """BindPlugin: bindStatus Skip, Error, or Success (binds, marking the pod with bindPluginName)."""
    Args = Args

    @hookimpl
    def bind(self, pod, node_name, handle):
        called(self.name, "bind", pod)
        if self.args.status == "Skip":
            return Status.skip()
        if self.args.status == "Error":
            return Status.error("failed to bind")
        bound = handle.bind(pod, node_name, annotations={"bindPluginName": self.name})
        return None if bound.ok else Status.error(f"bind failed: {bound.message}")


class _PostBind:
    @hookimpl
    def post_bind(self, pod):
        called(self.name, "post_bind", pod)


class _PostFilter(Configured):
    """PostFilterPlugin: runs the Filter plugins on every node and the Score plugins, then fails, rejects,
    breaks (UnschedulableAndUnresolvable) or makes room (Success)."""
    Args = Args

    @hookimpl
    def post_filter(self, state, pod, cluster, handle):
        called(self.name, "post_filter", pod)
        nodes = cluster.table.view(cluster.table.ordered_rows())
        handle.run_filters(state, pod, nodes)
        handle.run_scores(state, pod, nodes)
        if self.args.fail:
            return Status.error(f"injecting failure for pod {pod.name}")
        if self.args.reject:
            return Status.unschedulable(f"injecting unschedulable for pod {pod.name}")
        if self.args.unresolvable:
            return Status.unschedulable(f"injecting unresolvable for pod {pod.name}", unresolvable=True)
        return Status(Code.SUCCESS, (f"make room for pod {pod.name} to be schedulable",))


def _named(base, *names):
    for n in names:
        globals()[n] = plugin(base, __name__, name=n)


_named(_Reserve, "failedReservePlugin1", "failedReservePlugin2", "succeedReservePlugin", "succeedReservePlugin1",
       "succeedReservePlugin2", "succeedReservePlugin3", "reservePlugin", "mock-reserve-plugin")
_named(_Permit, "rejectedPermitPlugin", "timeoutPermitPlugin", "succeedPermitPlugin", "permit-plugin",
       "permit-plugin-1", "permit-plugin-2")
_named(_Bind, "SucceedBindPlugin", "FailedBindPlugin", "bind-plugin-1", "bind-plugin-2")
_named(_PostBind, "mock-post-bind-plugin")
_named(_PostFilter, "postfilter-plugin", "postfilter-plugin2")
del _Reserve, _Permit, _Bind, _PostBind, _PostFilter


class PreBindPlugin(Configured, SerialPreBind):
    name = "prebind-plugin"
    Args = Args

    @hookimpl
    def pre_bind(self, pod):
        called(self.name, "pre_bind", pod)
        TRIED_PRE_BIND.add(pod.uid)
        return injected(self.args, pod)


class PreEnqueueGateAfterPreBindPlugin:
    name = "preenqueue-gate-plugin"

    @hookimpl
    def pre_enqueue(self, pod):
        if pod.uid in TRIED_PRE_BIND:
            return Status.unschedulable("test gate: block re-enqueue after PreBind was attempted", unresolvable=True)
        return None


FilterPlugin = plugin(_upstream_test_plugins.FilterPlugin, __name__, Args=Args, called=staticmethod(called))


class ScorePlugin(Configured):
    name = "score-plugin"
    Args = Args

    @hookimpl
    def score_node(self, pod, node):
        called(self.name, "score", pod)
        if self.args.fail:
            raise RuntimeError(f"injecting failure for pod {pod.name}")
        return 1


class ScoreWithNormalizePlugin:
    name = "score-with-normalize-plugin"

    @hookimpl
    def score_node(self, pod, node):
        called(self.name, "score", pod)
        return 10

    @hookimpl
    def normalize_score(self, pod, scores):
        called(self.name, "normalize_score", pod)


class PreEnqueuePlugin(Configured):
    name = "enqueue-plugin"
    Args = Args

    @hookimpl
    def pre_enqueue(self, pod):
        called(self.name, "pre_enqueue", pod)
        if self.args.admit:
            return None
        return Status.unschedulable("not ready for scheduling", unresolvable=True)


class PreFilterPlugin:
    name = "prefilter-plugin"

    @hookimpl
    def pre_filter(self, pod):
        called(self.name, "pre_filter", pod)


class JobPlugin:
    """JobPlugin: executors wait for a driver pod (PreFilter); the driver's PostBind activates the executors.
    Upstream lists both from the pod lister; here the plugin remembers the pods it saw at PreFilter."""
    name = "job-plugin"

    def __init__(self):
        self.drivers, self.executors = set(), {}

    @hookimpl
    def pre_filter(self, pod):
        if "driver" in pod.labels:
            self.drivers.add(pod.namespace)
        if "executor" in pod.labels:
            self.executors.setdefault(pod.namespace, {})[pod.uid] = pod
        if pod.namespace not in self.drivers:
            return Status.unschedulable("unable to find driver pod", unresolvable=True)
        return None

    @hookimpl
    def post_bind(self, pod, handle):
        if "driver" not in pod.labels:
            return
        pods = list(self.executors.get(pod.namespace, {}).values())
        if pods:
            handle.activate(pods)
            log.warning("CALL job-plugin podsActivated %s %d", pod.key, len(pods))


class _Gates:
    """SchedulingGatesPluginWithEvents / WOEvents: schedulinggates.SchedulingGates with a call counter."""

    @hookimpl
    def pre_enqueue(self, pod):
        called(self.name, "pre_enqueue", pod)
        if pod.scheduling_gates:
            return Status.unschedulable(f"waiting for scheduling gates: {list(pod.scheduling_gates)}",
                                        unresolvable=True)
        return None


class SortArgs(BaseModel):
    order: str = "timestamp"


class QueueSortPlugin(Configured):
    """QueueSortPlugin with the case's lessFunc: by queue timestamp, or by priority, then timestamp."""
    name = "queuesort-plugin"
    Args = SortArgs

    @hookimpl
    def queue_sort(self, pod):
        if self.args.order == "priority":
            return (-pod.priority, pod.queue_timestamp)
        return (pod.queue_timestamp,)


class UidBinder:
    """bind_test.go's TestDefaultBinder runs the profile's Bind plugins on a copy of the pod with another UID: for a
    pod annotated bind-test/uid=another this binds such a copy (as DefaultBinder binds: Handle.bind) and returns
    the status; for any other pod it skips, and DefaultBinder binds the pod itself."""
    name = "uid-binder"

    @hookimpl
    def bind(self, pod, node_name, handle):
        raw = pod.raw
        if ((raw.get("metadata") or {}).get("annotations") or {}).get("bind-test/uid") != "another":
            return Status.skip()
        other = parse_pod({**raw, "metadata": {**raw["metadata"], "uid": "another"}})
        status = handle.bind(other, node_name)
        called(self.name, f"bind-code-{status.code.name}", pod)
        return status


class fakePermitPlugin:  # noqa: N801 - upstream's name
    """queue_test.go's fakePermitPlugin: every pod waits at Permit; Node/UpdateNodeLabel with a hint that counts its
    calls and queues. Trigger pods (trigger-allow-<pod>, trigger-reject-<pod>) are the test's calls on the waiting
    pods."""
    name = "fakePermitPlugin"
    requeue_on = ("Node/UpdateNodeLabel",)
    queueing_hints = {"Node/UpdateNodeLabel": "scheduling_hint"}

    def scheduling_hint(self, pod, old, new):
        called(self.name, "queueing_hint", pod)
        return True

    @hookimpl
    def permit(self, pod, handle):
        called(self.name, "permit", pod)
        if not pod.name.startswith("trigger-"):
            return PermitResult.wait(30)
        action, _, target = pod.name.removeprefix("trigger-").partition("-")
        for w in handle.waiting_pods():
            if w.pod.namespace == pod.namespace and w.pod.name == target:
                if action == "allow":
                    w.allow(self.name)
                else:
                    w.reject(self.name, "fakePermitPlugin rejects the Pod")
                called(self.name, action, w.pod)
        return None


# Upstream registers {Pod, Update}: its Pod resource matches AssignedPod, UnscheduledPod and TargetPod events; in
# kubeberth's names "Pod" is the assigned pod and the pod's own updates are "TargetPod".
for _name, _events in (("scheduling-gates-with-events", ("Pod/Update", "TargetPod")),
                       ("scheduling-gates-without-events", ())):
    globals()[_name] = plugin(_Gates, __name__, name=_name, requeue_on=_events)
del _Gates, _name, _events
'''

CR_PLUGIN = '''"""queue_test.go's fakeCRPlugin: a Filter that always fails, registered for every event on
foos.v1.example.com (in a file of its own: only this test's kubeberth watches Foos)."""
from kubeberth import Status, hookimpl


class fakeCRPlugin:  # noqa: N801 - upstream's name
    name = "fakeCRPlugin"
    requeue_on = ("foos.v1.example.com",)

    @hookimpl
    def filter_node(self, pod, node):
        return Status.unschedulable("always fail")
'''
_CALL = re.compile(r"CALL (\S+) (\S+) (\S+)")


def _p(*names: str) -> dict[str, Any]:
    return {"enabled": [{"name": n} for n in names]}


def _args(**per_plugin: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": n, "args": a} for n, a in per_plugin.items()]


# ---- the cases: upstream key -> (the profile's plugins and pluginConfig, nodes) ----
UNRESERVE_RESERVE: dict[str, tuple[list[tuple[str, bool]], int]] = {  # name -> ([(plugin, failReserve)], failIdx)
    "The first Reserve plugin fails": ([("failedReservePlugin1", True), ("succeedReservePlugin", False),
                                        ("failedReservePlugin2", True)], 0),
    "The middle Reserve plugin fails": ([("succeedReservePlugin1", False), ("failedReservePlugin1", True),
                                         ("succeedReservePlugin2", False)], 1),
    "The last Reserve plugin fails": ([("succeedReservePlugin1", False), ("succeedReservePlugin2", False),
                                       ("failedReservePlugin1", True)], 2),
    "The Reserve plugins succeed": ([("succeedReservePlugin1", False), ("succeedReservePlugin2", False),
                                     ("succeedReservePlugin3", False)], -1),
}
UNRESERVE_PERMIT: dict[str, tuple[str, dict[str, bool], bool]] = {  # name -> (plugin, args, reject)
    "All Reserve plugins passed, but a Permit plugin was rejected": ("rejectedPermitPlugin", {"reject": True}, True),
    "All Reserve plugins passed, but a Permit plugin timeout in waiting": ("timeoutPermitPlugin", {"timeout": True}, True),
    "The Permit plugin succeed": ("succeedPermitPlugin", {}, False),
}
UNRESERVE_PRE_BIND: dict[str, bool] = {  # name -> wantReject (rejectPreBind)
    "All Reserve plugins passed, but a PreBind plugin failed": True,
    "All Reserve plugins passed, and PreBind plugin succeed": False,
}
UNRESERVE_BIND: dict[str, str] = {  # name -> plugin (both bind: upstream's fail is false in both)
    "All Reserve plugins passed, and Bind plugin succeed": "SucceedBindPlugin",
    "All Reserve plugins passed, but a Bind plugin failed": "FailedBindPlugin",
}
_B1, _B2, _DB = "bind-plugin-1", "bind-plugin-2", "DefaultBinder"
# name -> (enabled bind plugins, the two statuses, outcome, bound by (annotation), expected invoke events)
BIND: dict[str, tuple[list[str], tuple[str, str], str, str, list[tuple[str, int]]]] = {
    "bind plugins skipped to bind the pod and scheduler bond the pod": (
        [_B1, _B2, _DB], ("Skip", "Skip"), "scheduled", "",
        [(_B1, 1), (_B2, 1), ("mock-post-bind-plugin", 1)]),
    "bindplugin2 succeeded to bind the pod": (
        [_B1, _B2, _DB], ("Skip", "Success"), "scheduled", _B2,
        [(_B1, 1), (_B2, 1), ("mock-post-bind-plugin", 1)]),
    "bindplugin1 succeeded to bind the pod": (
        [_B1, _B2, _DB], ("Success", "Success"), "scheduled", _B1, [(_B1, 1), ("mock-post-bind-plugin", 1)]),
    "bind plugin fails to bind the pod": (
        [_B1, _B2, _DB], ("Error", "Success"), "error", "", [(_B1, 1), ("mock-reserve-plugin", 1)]),
    "all bind plugins will be skipped(this should not happen for most of the cases)": (
        [_B1, _B2], ("Skip", "Skip"), "none", "", [(_B1, 1), (_B2, 1)]),
}
PERMIT: dict[str, tuple[dict[str, bool], str]] = {  # name -> (args, outcome)
    "disable fail, reject and timeout flags": ({}, "scheduled"),
    "enable fail, disable reject and timeout flags": ({"fail": True}, "error"),
    "disable fail and timeout, enable reject flags": ({"reject": True}, "unschedulable"),
    "enable fail and reject, disable timeout flags": ({"fail": True, "reject": True}, "error"),
    "disable fail and reject, disable timeout flags": ({"timeout": True}, "unschedulable"),
    "disable fail and reject, enable timeout flags": ({"timeout": True}, "unschedulable"),
}
COSCHEDULING: dict[str, bool] = {  # name -> waitReject (else waitAllow)
    "having wait reject true and wait allow false": True,
    "having wait reject false and wait allow true": False,
}
# name -> (nodes, rejectFilter, failScore, (reject, reject2), (break, break2), filter, score, postFilter calls)
POST_FILTER: dict[str, tuple[int, bool, bool, tuple[bool, bool], tuple[bool, bool], int, int, int]] = {
    "Filter passed and Score success": (30, False, False, (False, False), (False, False), 30, 30, 0),
    "Filter failed and PostFilter passed": (1, True, False, (False, False), (False, False), 2, 1, 1),
    "Filter failed and PostFilter failed": (1, True, False, (True, False), (False, False), 2, 1, 2),
    "Score failed and PostFilter failed": (1, True, True, (True, False), (False, False), 2, 1, 2),
    "Filter failed and first PostFilter broken": (1, True, False, (False, False), (True, False), 2, 0, 1),
    "Filter failed and second PostFilter broken": (1, True, False, (True, True), (False, True), 2, 0, 2),
}
PRE_ENQUEUE: dict[str, bool] = {"pod is admitted to enqueue": True, "pod is not admitted to enqueue": False}
# name -> (withEvents, PreEnqueue calls after the pause pod's update, expectedScheduled)
EVENTS_TO_REGISTER: dict[str, tuple[bool, int, bool]] = {
    "preEnqueue plugin without event registered": (False, 2, False),
    "preEnqueue plugin with event registered": (True, 3, True),
}
# TestPreemptWithPermitPlugin: name -> (running pod's priority or None, waiting pod's, preemptor's,
# deleteWaitingPod, maxNumWaitingPodCalled)
PREEMPT_WITH_PERMIT: dict[str, tuple[int | None, int, int, bool, int]] = {
    "waiting pod is not physically deleted upon preemption": (100, 150, 300, False, 2),
    "rejecting a waiting pod to trigger retrying unschedulable pods immediately, and the waiting pod itself will be "
    "retried": (None, 100, 300, False, 2),
    "deleting a waiting pod to trigger retrying unschedulable pods immediately": (None, 100, 100, True, 1),
}
# Strict xfails: cases whose outcome differs from upstream's, with the reason.
DIFFERENCES: dict[str, str] = {}

UPSTREAM_CASES = (
    "TestUnReserveReservePlugins/The first Reserve plugin fails",
    "TestUnReserveReservePlugins/The middle Reserve plugin fails",
    "TestUnReserveReservePlugins/The last Reserve plugin fails",
    "TestUnReserveReservePlugins/The Reserve plugins succeed",
    "TestUnReservePermitPlugins/All Reserve plugins passed, but a Permit plugin was rejected",
    "TestUnReservePermitPlugins/All Reserve plugins passed, but a Permit plugin timeout in waiting",
    "TestUnReservePermitPlugins/The Permit plugin succeed",
    "TestUnReservePreBindPlugins/All Reserve plugins passed, but a PreBind plugin failed",
    "TestUnReservePreBindPlugins/All Reserve plugins passed, and PreBind plugin succeed",
    "TestUnReserveBindPlugins/All Reserve plugins passed, and Bind plugin succeed",
    "TestUnReserveBindPlugins/All Reserve plugins passed, but a Bind plugin failed",
    "TestBindPlugin/bind plugins skipped to bind the pod and scheduler bond the pod",
    "TestBindPlugin/bindplugin2 succeeded to bind the pod",
    "TestBindPlugin/bindplugin1 succeeded to bind the pod",
    "TestBindPlugin/bind plugin fails to bind the pod",
    "TestBindPlugin/all bind plugins will be skipped(this should not happen for most of the cases)",
    "TestPermitPlugin/disable fail, reject and timeout flags",
    "TestPermitPlugin/enable fail, disable reject and timeout flags",
    "TestPermitPlugin/disable fail and timeout, enable reject flags",
    "TestPermitPlugin/enable fail and reject, disable timeout flags",
    "TestPermitPlugin/disable fail and reject, disable timeout flags",
    "TestPermitPlugin/disable fail and reject, enable timeout flags",
    "TestMultiplePermitPlugins",
    "TestPermitPluginsCancelled",
    "TestCoSchedulingWithPermitPlugin/having wait reject true and wait allow false",
    "TestCoSchedulingWithPermitPlugin/having wait reject false and wait allow true",
    "TestPostFilterPlugin/Filter passed and Score success",
    "TestPostFilterPlugin/Filter failed and PostFilter passed",
    "TestPostFilterPlugin/Filter failed and PostFilter failed",
    "TestPostFilterPlugin/Score failed and PostFilter failed",
    "TestPostFilterPlugin/Filter failed and first PostFilter broken",
    "TestPostFilterPlugin/Filter failed and second PostFilter broken",
    "TestNormalizeScorePlugin",
    "TestPreEnqueuePlugin/pod is admitted to enqueue",
    "TestPreEnqueuePlugin/pod is not admitted to enqueue",
    "TestPreEnqueuePluginEventsToRegister/preEnqueue plugin without event registered",
    "TestPreEnqueuePluginEventsToRegister/preEnqueue plugin with event registered",
    "TestActivatePods",
    "TestPreemptWithPermitPlugin/waiting pod is not physically deleted upon preemption",
    "TestPreemptWithPermitPlugin/rejecting a waiting pod to trigger retrying unschedulable pods immediately, and the "
    "waiting pod itself will be retried",
    "TestPreemptWithPermitPlugin/deleting a waiting pod to trigger retrying unschedulable pods immediately",
)
# TestQueueSortPlugin: name -> (lessFunc, expectedOrder)
QUEUE_SORT: dict[str, tuple[str, list[str]]] = {
    "timestamp_sort_order": ("timestamp", ["pod-1", "pod-2", "pod-3"]),
    "priority_sort_order": ("priority", ["pod-3", "pod-2", "pod-1"]),
}
UPSTREAM_QUEUE_SORT = ("TestQueueSortPlugin/timestamp_sort_order", "TestQueueSortPlugin/priority_sort_order")
UPSTREAM_CUSTOM_RESOURCE = "TestCustomResourceEnqueue"  # queueing/queue_test.go
UPSTREAM_BIND = "TestDefaultBinder"  # bind/bind_test.go
UPSTREAM_QUEUEING = "TestRequeueByPermitRejection"  # queueing/queue_test.go


def _profiles() -> list[dict[str, Any]]:
    """One profile per case (initRegistryAndConfig's, or the case's own configuration)."""
    out: list[dict[str, Any]] = []

    def add(key: str, plugins: dict[str, Any], config: list[dict[str, Any]] | None = None) -> None:
        out.append({"schedulerName": _profile(key), "plugins": plugins, "pluginConfig": config or []})

    for name, (plugins, _idx) in UNRESERVE_RESERVE.items():
        add(f"TestUnReserveReservePlugins/{name}", {"reserve": _p(*(p for p, _ in plugins))},
            _args(**{p: {"fail": fail} for p, fail in plugins}))
    for name, (plugin, args, _reject) in UNRESERVE_PERMIT.items():
        add(f"TestUnReservePermitPlugins/{name}", {"permit": _p(plugin), "reserve": _p("reservePlugin")},
            _args(**{plugin: args}))
    for name, reject in UNRESERVE_PRE_BIND.items():
        add(f"TestUnReservePreBindPlugins/{name}", {"preEnqueue": _p("preenqueue-gate-plugin"),
                                                    "preBind": _p("prebind-plugin"), "reserve": _p("reservePlugin")},
            _args(**{"prebind-plugin": {"reject": reject}}))
    for name, plugin in UNRESERVE_BIND.items():
        add(f"TestUnReserveBindPlugins/{name}", {"bind": {**_p(plugin), "disabled": [{"name": _DB}]},
                                                 "reserve": _p("reservePlugin")})
    for name, (enabled, statuses, _o, _by, _events) in BIND.items():
        add(f"TestBindPlugin/{name}", {
            "multiPoint": {"disabled": [{"name": _DB}]}, "reserve": _p("mock-reserve-plugin"),
            "bind": {**_p(*enabled), "disabled": [{"name": _DB}]}, "postBind": _p("mock-post-bind-plugin")},
            _args(**{_B1: {"status": statuses[0]}, _B2: {"status": statuses[1]}}))
    for name, (args, _o) in PERMIT.items():
        add(f"TestPermitPlugin/{name}", {"permit": _p("permit-plugin")}, _args(**{"permit-plugin": args}))
    for test in ("TestMultiplePermitPlugins", "TestPermitPluginsCancelled"):
        add(test, {"permit": _p("permit-plugin-1", "permit-plugin-2")},
            _args(**{"permit-plugin-1": {"timeout": True}, "permit-plugin-2": {"timeout": True}}))
    for name, reject in COSCHEDULING.items():
        add(f"TestCoSchedulingWithPermitPlugin/{name}", {"permit": _p("permit-plugin")},
            _args(**{"permit-plugin": {"waitAndReject": reject, "waitAndAllow": not reject}}))
    for name, (_n, reject_filter, fail_score, rejects, breaks, *_calls) in POST_FILTER.items():
        star = [{"name": "*"}]
        add(f"TestPostFilterPlugin/{name}", {
            "filter": _p("filter-plugin"), "preScore": {"disabled": star},
            "score": {**_p("score-plugin"), "disabled": star},
            "postFilter": {**_p("postfilter-plugin", "postfilter-plugin2"), "disabled": star}},
            _args(**{"filter-plugin": {"reject": reject_filter}, "score-plugin": {"fail": fail_score},
                     "postfilter-plugin": {"reject": rejects[0], "unresolvable": breaks[0]},
                     "postfilter-plugin2": {"reject": rejects[1], "unresolvable": breaks[1]}}))
    add("TestNormalizeScorePlugin", {"score": _p("score-with-normalize-plugin")})
    for name, admit in PRE_ENQUEUE.items():
        add(f"TestPreEnqueuePlugin/{name}", {"preEnqueue": _p("enqueue-plugin"), "preFilter": _p("prefilter-plugin")},
            _args(**{"enqueue-plugin": {"admit": admit}}))
    for name, (with_events, _count, _scheduled) in EVENTS_TO_REGISTER.items():
        gates = "scheduling-gates-with-events" if with_events else "scheduling-gates-without-events"
        add(f"TestPreEnqueuePluginEventsToRegister/{name}", {"preEnqueue": {**_p(gates), "disabled": [{"name": "*"}]}})
    add("TestActivatePods", {"preFilter": _p("job-plugin"), "postBind": _p("job-plugin")})
    for name in PREEMPT_WITH_PERMIT:
        add(f"TestPreemptWithPermitPlugin/{name}", {
            "permit": _p("permit-plugin"),
            "filter": {**_p("filter-plugin", "NodeResourcesFit"), "disabled": [{"name": "NodeResourcesFit"}]}},
            _args(**{"permit-plugin": {"waitAndAllow": True, "waitingPod": "waiting-pod"}}))
    add(UPSTREAM_BIND, {"bind": {**_p("uid-binder", _DB), "disabled": [{"name": _DB}]}})  # in this order
    add(UPSTREAM_QUEUEING, {"multiPoint": _p("fakePermitPlugin")})
    return out


def _profile(key: str) -> str:
    """The case's profile, named after its upstream key (an Event's reportingController takes 63 bytes at most)."""
    return f"{PROFILE}-{zlib.crc32(key.encode()):08x}"


@pytest.fixture(scope="module")
def kubeberth_plugins(control_plane: LocalControlPlane, sa_kubeconfig: str,
                      tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    tmp = tmp_path_factory.mktemp("plugins")
    config = write_config(tmp / "config.yaml")
    cfg = yaml.safe_load(config.read_text())
    cfg["profiles"] += _profiles()
    cfg["podInitialBackoffSeconds"], cfg["podMaxBackoffSeconds"] = 1, 1
    config.write_text(yaml.safe_dump(cfg))
    with serving(control_plane, sa_kubeconfig, config, "plugins", {"plugins_test.py": PLUGINS}) as kb:
        yield kb


@pytest.fixture
def case(kubeberth_plugins: Kubeberth, api: Api) -> Iterator[Case]:
    """A case; its nodes are gone from kubeberth's cache before the next case starts."""
    deleted = _handled(kubeberth_plugins)["NodeDelete"]
    with case_of(api, kubeberth_plugins) as c:
        yield c
        nodes = len(c.node_names)
        c.cleanup()
        wait_for(lambda: _handled(c.kb)["NodeDelete"] - deleted >= nodes, 30,
                 "the case's nodes gone from kubeberth's cache", interval=0.02)
        c.node_names.clear()
        c.namespaces.clear()


def _handled(kb: Kubeberth) -> Counter[str]:
    """scheduler_event_handling_duration_seconds_count per event label."""
    with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    found = re.findall(r'^scheduler_event_handling_duration_seconds_count\{event="([^"]+)"\} ([0-9.e+]+)$', text, re.M)
    return Counter({label: int(float(v)) for label, v in found})


def _nodes(case: Case, count: int, labels: bool = True) -> None:
    """CreateAndWaitForNodesInCache(testCtx, "test-node", st.MakeNode(), count): test-node-0.. in kubeberth's cache."""
    names = [f"test-node-{i}" for i in range(count)]
    case.rename_nodes(names)
    base = _handled(case.kb)
    for n in names:
        case.node(make_node(n, labels={"kubernetes.io/hostname": case.node_name(n)} if labels else {}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] - base["NodeAdd"] >= count, 30, "nodes in kubeberth's cache",
             interval=0.02)


def _pause(name: str, **extra: Any) -> dict[str, Any]:
    """testutils.InitPausePod: one pause container."""
    meta = {"name": name, **({"labels": extra.pop("labels")} if "labels" in extra else {})}
    return {"metadata": meta, "spec": {"containers": [{"name": name, "image": PAUSE}], **extra}}


def _calls(case: Case, start: int, plugin: str | None = None, hook: str | None = None,
           key: str | None = None) -> list[tuple[str, str, str]]:
    """The CALL lines logged since `start`, as (plugin, hook, pod), filtered."""
    out = []
    for p, h, k in _CALL.findall(case.kb.log_text()[start:]):
        if (plugin is None or p == plugin) and (hook is None or h == hook) and (key is None or k == key):
            out.append((p, h, k))
    return out


def _count(case: Case, start: int, plugin: str, hook: str, key: str) -> int:
    return len(_calls(case, start, plugin, hook, key))


def _scheduling_error(case: Case, ns: str, name: str) -> None:
    """testutils.PodSchedulingError: PodScheduled False with a reason other than Unschedulable."""
    def errored() -> bool:
        conditions = (case.get(ns, name).get("status") or {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") != "Unschedulable"
                   for c in conditions)
    try:
        wait_for(errored, 30, f"{ns}/{name} scheduling error", interval=0.02)
    except AssertionError as err:
        raise AssertionError(f"{err}\npod: {case.get(ns, name).get('status')}\n{case.kb.log_tail(30)}") from None


def _gated(case: Case, ns: str, name: str) -> None:
    """testutils.WaitForPodSchedulingGated: PodScheduled False, reason SchedulingGated."""
    def gated() -> bool:
        conditions = (case.get(ns, name).get("status") or {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "SchedulingGated"
                   for c in conditions)
    wait_for(gated, 10, f"{ns}/{name} scheduling gated", interval=0.02)


def _start(case: Case, test: str, name: str | None, nodes: int, ns: str) -> tuple[str, str, int]:
    """The case's nodes, namespace and profile; (namespace, profile, log offset)."""
    key = f"{test}/{name}" if name else test
    assert key in (*UPSTREAM_CASES, UPSTREAM_BIND, UPSTREAM_QUEUEING), key
    _nodes(case, nodes)
    return case.ns(ns), _profile(key), len(case.kb.log_text())


def _outcome(case: Case, ns: str, pod: str, outcome: str) -> None:
    if outcome == "scheduled":
        case.wait_scheduled(ns, pod)
    elif outcome == "unschedulable":
        case.wait_unschedulable(ns, pod)
    elif outcome == "error":
        _scheduling_error(case, ns, pod)


def _params(test: str, names: list[str]) -> list[Any]:
    return named_cases(test, names, DIFFERENCES)


@pytest.mark.parametrize("name", _params("TestUnReserveReservePlugins", list(UNRESERVE_RESERVE)))
def test_TestUnReserveReservePlugins(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """Three Reserve plugins; on a failure (Error) the pod has a scheduling error, the plugins up to the failing one
    reserved once, the rest never, and every one unreserved once; else it is scheduled, each reserved once, none
    unreserved."""
    ns, profile, start = _start(case, "TestUnReserveReservePlugins", name, 2, "unreserve-reserve-plugin")
    plugins, fail_idx = UNRESERVE_RESERVE[name]
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    if fail_idx >= 0:
        _scheduling_error(case, ns, "test-pod")
        for plugin, _fail in plugins:
            wait_for(lambda plugin=plugin: _count(case, start, plugin, "unreserve", key) >= 1, 10, f"{plugin} unreserved")
        got = [(_count(case, start, p, "reserve", key), _count(case, start, p, "unreserve", key)) for p, _ in plugins]
        # the first attempt's: a retry after the Error backoff calls them again
        first = _first_attempt(case, start, key, [p for p, _ in plugins])
        assert first == [(1 if i <= fail_idx else 0, 1) for i in range(len(plugins))], (first, got)
    else:
        case.wait_scheduled(ns, "test-pod")
        got = [(_count(case, start, p, "reserve", key), _count(case, start, p, "unreserve", key)) for p, _ in plugins]
        assert got == [(1, 0)] * len(plugins)


def _first_attempt(case: Case, start: int, key: str, plugins: list[str]) -> list[tuple[int, int]]:
    """Reserve and Unreserve calls per plugin in the pod's first attempt: up to the last plugin's first Unreserve
    (Unreserve runs in reverse order, the first plugin's last)."""
    calls = _calls(case, start, key=key)
    end = next(i for i, c in enumerate(calls) if c == (plugins[0], "unreserve", key)) + 1
    first = calls[:end]
    return [(first.count((p, "reserve", key)), first.count((p, "unreserve", key))) for p in plugins]


@pytest.mark.parametrize("name", _params("TestUnReservePermitPlugins", list(UNRESERVE_PERMIT)))
def test_TestUnReservePermitPlugins(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """A Permit plugin (rejecting, waiting 3 s to a timeout, or approving) after reservePlugin: rejected, the pod is
    unschedulable and reservePlugin unreserved once; approved, it is scheduled and never unreserved; Permit called
    once (in the first attempt)."""
    ns, profile, start = _start(case, "TestUnReservePermitPlugins", name, 2, "unreserve-permit-plugin")
    plugin, _args_, reject = UNRESERVE_PERMIT[name]
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    if reject:
        case.wait_unschedulable(ns, "test-pod")
        assert _count(case, start, "reservePlugin", "unreserve", key) == 1
    else:
        case.wait_scheduled(ns, "test-pod")
        assert _count(case, start, "reservePlugin", "unreserve", key) == 0
    assert _count(case, start, plugin, "permit", key) == 1


@pytest.mark.parametrize("name", _params("TestUnReservePreBindPlugins", list(UNRESERVE_PRE_BIND)))
def test_TestUnReservePreBindPlugins(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """prebind-plugin rejecting (Unschedulable) or not, reservePlugin, and preenqueue-gate-plugin holding back a
    pod PreBind has seen: rejected, the pod is unschedulable, unreserved once, PreBind called once; else scheduled,
    never unreserved."""
    ns, profile, start = _start(case, "TestUnReservePreBindPlugins", name, 2, "unreserve-prebind-plugin")
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    if UNRESERVE_PRE_BIND[name]:
        case.wait_unschedulable(ns, "test-pod")
        wait_for(lambda: _count(case, start, "reservePlugin", "unreserve", key) >= 1, 10, "unreserved")
        assert _count(case, start, "reservePlugin", "unreserve", key) == 1
    else:
        case.wait_scheduled(ns, "test-pod")
        assert _count(case, start, "reservePlugin", "unreserve", key) == 0
    assert _count(case, start, "prebind-plugin", "pre_bind", key) == 1


@pytest.mark.parametrize("name", _params("TestUnReserveBindPlugins", list(UNRESERVE_BIND)))
def test_TestUnReserveBindPlugins(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """A Bind plugin in place of DefaultBinder (binding: upstream's `fail` is false in both cases): the pod is
    scheduled, bound by it (its annotation), reservePlugin never unreserved, Bind called once."""
    ns, profile, start = _start(case, "TestUnReserveBindPlugins", name, 2, "unreserve-bind-plugin")
    plugin = UNRESERVE_BIND[name]
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    case.wait_scheduled(ns, "test-pod")
    assert case.get(ns, "test-pod")["metadata"]["annotations"]["bindPluginName"] == plugin
    assert _count(case, start, "reservePlugin", "unreserve", key) == 0
    assert _count(case, start, plugin, "bind", key) == 1


@pytest.mark.parametrize("name", _params("TestBindPlugin", list(BIND)))
def test_TestBindPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """bind-plugin-1 and bind-plugin-2 (then DefaultBinder, in four cases) with the case's statuses; DefaultBinder
    off at multiPoint; mock-reserve-plugin and mock-post-bind-plugin: the pod bound by the scheduler (no
    annotation) or the plugin (its annotation), PostBind once, never unreserved; or a scheduling error without
    PostBind; and the plugins' calls in upstream's order (bind, PostBind, Unreserve)."""
    ns, profile, start = _start(case, "TestBindPlugin", name, 2, "bind-plugin")
    _enabled, _statuses, outcome, by, events = BIND[name]
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    if outcome == "scheduled":
        case.wait_scheduled(ns, "test-pod")
        annotations = case.get(ns, "test-pod")["metadata"].get("annotations") or {}
        assert annotations.get("bindPluginName", "") == by
        assert _count(case, start, _B1, "bind", key) == 1
        if by != _B1:
            assert _count(case, start, _B2, "bind", key) == 1
        else:
            assert _count(case, start, _B2, "bind", key) == 0
        wait_for(lambda: _count(case, start, "mock-post-bind-plugin", "post_bind", key) == 1, 30, "PostBind called")
        assert _count(case, start, "mock-reserve-plugin", "unreserve", key) == 0
    elif outcome == "error":
        _scheduling_error(case, ns, "test-pod")
        assert _count(case, start, "mock-post-bind-plugin", "post_bind", key) == 0
    else:
        wait_for(lambda: len(_invoked(case, start, key)) >= len(events), 30, "the bind plugins called")
        assert _count(case, start, "mock-post-bind-plugin", "post_bind", key) == 0
    wait_for(lambda: len(_invoked(case, start, key)) >= len(events), 30, "the plugins' calls")
    assert _invoked(case, start, key)[:len(events)] == events


def _invoked(case: Case, start: int, key: str) -> list[tuple[str, int]]:
    """pluginInvokeEventChan: (plugin, its count so far) for each bind, PostBind and Unreserve call, in order."""
    seen: Counter[str] = Counter()
    out = []
    for plugin, hook, _k in _calls(case, start, key=key):
        if hook in ("bind", "post_bind", "unreserve"):
            seen[plugin] += 1
            out.append((plugin, seen[plugin]))
    return out


@pytest.mark.parametrize("name", _params("TestPermitPlugin", list(PERMIT)))
def test_TestPermitPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """permit-plugin failing (a scheduling error), rejecting or waiting out 3 s (unschedulable), or approving
    (scheduled); it was called."""
    ns, profile, start = _start(case, "TestPermitPlugin", name, 2, "permit-plugin")
    _args_, outcome = PERMIT[name]
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    _outcome(case, ns, "test-pod", outcome)
    assert _count(case, start, "permit-plugin", "permit", f"{ns}/test-pod") >= 1


def _trigger(case: Case, ns: str, profile: str, action: str, plugin: str) -> list[str]:
    """The test's perPlugin.allowAllPods() / rejectAllPods(): a trigger pod's Permit call into `plugin`; the
    TRIGGER lines it logged ("pending N -> M")."""
    name = f"trigger-{action}-{plugin}"
    start = len(case.kb.log_text())
    case.pod(_pause(name), ns, scheduler=profile)
    marker = f"TRIGGER {plugin} {action} "

    def logged() -> list[str]:
        return [x for x in case.kb.log_text()[start:].splitlines() if marker in x]

    # Until its Permit has returned: its CALL line comes before the TRIGGER lines it writes.
    done = f"TRIGGERED {plugin} by {ns}/{name}"
    wait_for(lambda: done in case.kb.log_text()[start:], 10, f"{name}'s Permit")
    return logged()


def test_TestMultiplePermitPlugins(case: Case) -> None:  # noqa: N802 - the upstream name
    """permit-plugin-1 and permit-plugin-2 both make test-pod wait (3 s): waiting, two plugins pending; allowed by
    the first, one; by the second, the pod is scheduled; both were called."""
    ns, profile, start = _start(case, "TestMultiplePermitPlugins", None, 2, "multi-permit-plugin")
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    wait_for(lambda: _count(case, start, "permit-plugin-2", "permit", key) >= 1, 10, "test-pod waiting at Permit")
    first = _trigger(case, ns, profile, "allow", "permit-plugin-1")
    assert [x.split(key, 1)[1].strip() for x in first] == ["pending 2 -> 1"], first
    second = _trigger(case, ns, profile, "allow", "permit-plugin-2")
    assert [x.split(key, 1)[1].strip() for x in second] == ["pending 1 -> 0"], second
    case.wait_scheduled(ns, "test-pod")
    assert _count(case, start, "permit-plugin-1", "permit", key) >= 1
    assert _count(case, start, "permit-plugin-2", "permit", key) >= 1


def test_TestPermitPluginsCancelled(case: Case) -> None:  # noqa: N802 - the upstream name
    """Both plugins make test-pod wait (3 s); permit-plugin-1 rejects it (rejectAllPods): the wait of both ends at
    once (upstream: both plugins see their context cancelled), not at the timeout; the pod is unschedulable with the
    rejection."""
    ns, profile, start = _start(case, "TestPermitPluginsCancelled", None, 2, "permit-plugins")
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    wait_for(lambda: _count(case, start, "permit-plugin-2", "permit", key) >= 1, 10, "test-pod waiting at Permit")
    t0 = time.monotonic()
    assert _trigger(case, ns, profile, "reject", "permit-plugin-1")
    case.wait_unschedulable(ns, "test-pod")
    conditions = case.get(ns, "test-pod")["status"]["conditions"]
    assert any("rejectAllPods" in (c.get("message") or "") for c in conditions), conditions
    assert time.monotonic() - t0 < 3


@pytest.mark.parametrize("name", _params("TestCoSchedulingWithPermitPlugin", list(COSCHEDULING)))
def test_TestCoSchedulingWithPermitPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """pod-a and pod-b: the first waits at Permit; the second rejects it (both unschedulable) or allows it (both
    scheduled); the waiting and the rejecting/allowing pods are the two."""
    ns, profile, start = _start(case, "TestCoSchedulingWithPermitPlugin", name, 2, "permit-plugin")
    reject = COSCHEDULING[name]
    case.pod(_pause("pod-a"), ns, scheduler=profile)
    case.pod(_pause("pod-b"), ns, scheduler=profile)
    for pod in ("pod-a", "pod-b"):
        _outcome(case, ns, pod, "unschedulable" if reject else "scheduled")
    lines = [x.split("COSCHED permit-plugin ", 1)[1] for x in case.kb.log_text()[start:].splitlines()
             if "COSCHED permit-plugin " in x]
    waiting = next(x.split()[1] for x in lines if x.startswith("waitingPod"))
    other = next(x.split()[1] for x in lines if x.startswith("rejectingPod" if reject else "allowingPod"))
    assert {waiting, other} == {f"{ns}/pod-a", f"{ns}/pod-b"}, lines


@pytest.mark.parametrize("name", _params("TestPostFilterPlugin", list(POST_FILTER)))
def test_TestPostFilterPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """filter-plugin (rejecting or not), score-plugin (failing or not) alone at Score, postfilter-plugin and
    postfilter-plugin2 alone at PostFilter (each running the Filter and Score plugins): scheduled with exact Filter
    and Score counts, or unschedulable with at least them; PostFilter called the case's number of times."""
    n, reject_filter, _fail_score, _r, _b, want_filter, want_score, want_post = POST_FILTER[name]
    ns, profile, start = _start(case, "TestPostFilterPlugin", name, n, "post-filter")
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    key = f"{ns}/test-pod"
    if reject_filter:
        case.wait_unschedulable(ns, "test-pod")
        assert _count(case, start, "filter-plugin", "filter", key) >= want_filter
        assert _count(case, start, "score-plugin", "score", key) >= want_score
    else:
        case.wait_scheduled(ns, "test-pod")
        assert _count(case, start, "filter-plugin", "filter", key) == want_filter
        assert _count(case, start, "score-plugin", "score", key) == want_score
    posts = _count(case, start, "postfilter-plugin", "post_filter", key)
    posts += _count(case, start, "postfilter-plugin2", "post_filter", key)
    assert posts == want_post


def test_TestNormalizeScorePlugin(case: Case) -> None:  # noqa: N802 - the upstream name
    """score-with-normalize-plugin at Score on ten nodes: the pod is scheduled; Score and NormalizeScore called."""
    ns, profile, start = _start(case, "TestNormalizeScorePlugin", None, 10, "score-plugin")
    case.pod(_pause("test-pod"), ns, scheduler=profile)
    case.wait_scheduled(ns, "test-pod")
    key = f"{ns}/test-pod"
    assert _count(case, start, "score-with-normalize-plugin", "score", key) > 0
    assert _count(case, start, "score-with-normalize-plugin", "normalize_score", key) > 0


@pytest.mark.parametrize("name", _params("TestPreEnqueuePlugin", list(PRE_ENQUEUE)))
def test_TestPreEnqueuePlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """enqueue-plugin admitting the pod (scheduled within 10 s, PreEnqueue called) or not (a pod with the scheduling
    gate foo: SchedulingGated within 10 s, and never at PreFilter); one node."""
    ns, profile, start = _start(case, "TestPreEnqueuePlugin", name, 1, "enqueue-plugin")
    admit = PRE_ENQUEUE[name]
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "pause", "image": PAUSE}]}}
    if not admit:
        pod["spec"]["schedulingGates"] = [{"name": "foo"}]
    case.pod(pod, ns, scheduler=profile)
    key = f"{ns}/p"
    if admit:
        case.wait_scheduled(ns, "p")
        assert _count(case, start, "enqueue-plugin", "pre_enqueue", key) > 0
    else:
        _gated(case, ns, "p")
        assert _count(case, start, "prefilter-plugin", "pre_filter", key) == 0


@pytest.mark.parametrize("name", _params("TestPreEnqueuePluginEventsToRegister", list(EVENTS_TO_REGISTER)))
def test_TestPreEnqueuePluginEventsToRegister(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """A SchedulingGates-like PreEnqueue plugin alone (with Pod/Update registered, or no event): the gated pod p
    (pod affinity to foo=bar on the hostname) is gated, PreEnqueue called once; pause-pod (foo=bar) is scheduled;
    its annotation update re-runs PreEnqueue for p only with the event (calls: 3, or 2 counting pause-pod's own);
    with the gate removed, p is scheduled with the event, stays gated without it."""
    ns, profile, start = _start(case, "TestPreEnqueuePluginEventsToRegister", name, 2, "preenqueue-plugin")
    with_events, count, scheduled = EVENTS_TO_REGISTER[name]
    plugin = "scheduling-gates-with-events" if with_events else "scheduling-gates-without-events"
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"foo": "bar"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    gated = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "pause", "image": PAUSE}],
                                                 "schedulingGates": [{"name": "foo"}], "affinity": affinity}}
    case.pod(gated, ns, scheduler=profile)
    _gated(case, ns, "p")

    def calls() -> int:
        return len(_calls(case, start, plugin, "pre_enqueue"))

    assert calls() == 1
    case.pod(_pause("pause-pod", labels={"foo": "bar"}), ns, scheduler=profile)
    case.wait_scheduled(ns, "pause-pod")
    pause = case.get(ns, "pause-pod")
    pause["metadata"]["annotations"] = {"foo": "bar"}
    base = _handled(case.kb)
    case.api.call("PUT", f"/api/v1/namespaces/{ns}/pods/pause-pod", pause)
    wait_for(lambda: sum(_handled(case.kb).values()) > sum(base.values()), 10, "the update handled", interval=0.02)
    _gated(case, ns, "p")
    time.sleep(0.5)
    assert calls() == count
    p = case.get(ns, "p")
    p["spec"]["schedulingGates"] = None
    case.api.call("PUT", f"/api/v1/namespaces/{ns}/pods/p", p)
    if scheduled:
        case.wait_scheduled(ns, "p")
    else:
        time.sleep(1)
        _gated(case, ns, "p")
        assert not case.get(ns, "p")["spec"].get("nodeName")


def test_TestActivatePods(case: Case) -> None:  # noqa: N802 - the upstream name
    """job-plugin: executor-1 and executor-2 are unschedulable (no driver); driver is created; all three are
    scheduled, and the driver's PostBind activated the executors."""
    ns, profile, start = _start(case, "TestActivatePods", None, 1, "job-plugin")
    for i in (1, 2):
        case.pod(_pause(f"executor-{i}", labels={"executor": ""}), ns, scheduler=profile)
    for i in (1, 2):
        case.wait_unschedulable(ns, f"executor-{i}")
    case.pod(_pause("driver", labels={"driver": ""}), ns, scheduler=profile)
    for pod in ("executor-1", "executor-2", "driver"):
        case.wait_scheduled(ns, pod)
    assert _calls(case, start, "job-plugin", "podsActivated", f"{ns}/driver")


def test_TestDefaultBinder(case: Case) -> None:  # noqa: N802 - the upstream name
    """bind/bind_test.go: the profile's Bind plugins on fixed-name with its own UID bind it (Success: here
    DefaultBinder binds it); on a copy with UID "another" the Binding is refused (Error: the pod has a scheduling
    error, is not bound). Upstream runs both with SchedulerAsyncAPICalls on and off; kubeberth has one binding
    path."""
    ns, profile, start = _start(case, UPSTREAM_BIND, None, 1, "default-binder")
    case.pod(_pause("fixed-name"), ns, scheduler=profile)
    case.wait_scheduled(ns, "fixed-name")
    case.api.call("DELETE", f"/api/v1/namespaces/{ns}/pods/fixed-name", {"gracePeriodSeconds": 0})
    wait_for(lambda: not case.get(ns, "fixed-name"), 30, "fixed-name deleted")
    other = _pause("fixed-name")
    other["metadata"]["annotations"] = {"bind-test/uid": "another"}
    case.pod(other, ns, scheduler=profile)
    _scheduling_error(case, ns, "fixed-name")
    key = f"{ns}/fixed-name"
    assert _calls(case, start, "uid-binder", "bind-code-ERROR", key)
    assert not case.get(ns, "fixed-name")["spec"].get("nodeName")


def test_TestRequeueByPermitRejection(case: Case) -> None:  # noqa: N802 - the upstream name
    """queueing/queue_test.go: fakePermitPlugin holds every pod at Permit; pod-1 waits; fake-node's labels are
    updated (an event while pod-1 is in flight); pod-2 waits; pod-1 is rejected: the recorded node update is
    replayed through the plugin's hint (once), so pod-1 is retried at once and waits again; pod-2, allowed, is
    scheduled; pod-1 is found waiting and allowed."""
    assert UPSTREAM_QUEUEING == "TestRequeueByPermitRejection"
    ns, profile, start = _start(case, UPSTREAM_QUEUEING, None, 0, "core-res-enqueue")
    case.rename_nodes(["fake-node"])
    base = _handled(case.kb)
    node = case.node(make_node("fake-node"))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] > base["NodeAdd"], 30, "fake-node in kubeberth's cache", interval=0.02)

    def permits(pod: str) -> int:
        return _count(case, start, "fakePermitPlugin", "permit", f"{ns}/{pod}")

    case.pod(_pause("pod-1"), ns, scheduler=profile)
    wait_for(lambda: permits("pod-1") == 1, 30, "pod-1 waiting at Permit", interval=0.02)
    body = case.api.call("GET", f"/api/v1/nodes/{node}")
    body["metadata"]["labels"] = {**(body["metadata"].get("labels") or {}), "updated": ""}
    base = _handled(case.kb)
    case.api.call("PUT", f"/api/v1/nodes/{node}", body)
    wait_for(lambda: _handled(case.kb)["NodeUpdate"] > base["NodeUpdate"], 30, "the label update handled",
             interval=0.02)
    case.pod(_pause("pod-2"), ns, scheduler=profile)
    wait_for(lambda: permits("pod-2") == 1, 30, "pod-2 waiting at Permit", interval=0.02)
    case.pod(_pause("trigger-reject-pod-1"), ns, scheduler=profile)
    wait_for(lambda: _calls(case, start, "fakePermitPlugin", "reject", f"{ns}/pod-1"), 30, "pod-1 rejected")
    case.pod(_pause("trigger-allow-pod-2"), ns, scheduler=profile)
    case.wait_scheduled(ns, "pod-2")
    wait_for(lambda: permits("pod-1") == 2, 30, "pod-1 scheduled again (waiting at Permit)", interval=0.02)
    case.pod(_pause("trigger-allow-pod-1"), ns, scheduler=profile)
    case.wait_scheduled(ns, "pod-1")
    assert _count(case, start, "fakePermitPlugin", "queueing_hint", f"{ns}/pod-1") == 1


@pytest.mark.parametrize("name", list(QUEUE_SORT))
def test_TestQueueSortPlugin(name: str, control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api,
                             tmp_path: Path) -> None:  # noqa: N802 - the upstream name
    """A kubeberth of its own (a queue sort holds for every profile of a process), one profile: queuesort-plugin
    in place of PrioritySort, and prefilter-plugin to log each attempt. Upstream creates pod-1..3 (priorities 1..3)
    with its scheduler stopped, then pops them: the expected order. Here the pods are created with no node (each
    attempted once, unschedulable); once their backoff is over a node is added, which moves the three into the
    active queue at once; their second attempts come in the order the queue pops them."""
    assert f"TestQueueSortPlugin/{name}" in UPSTREAM_QUEUE_SORT
    order, want = QUEUE_SORT[name]
    config = tmp_path / "config.yaml"
    profile = f"{PROFILE}-queuesort"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 1,
        "profiles": [{"schedulerName": profile, "plugins": {
            "queueSort": {"enabled": [{"name": "queuesort-plugin"}], "disabled": [{"name": "PrioritySort"}]},
            "preFilter": {"enabled": [{"name": "prefilter-plugin"}]}},
            "pluginConfig": [{"name": "queuesort-plugin", "args": {"order": order}}]}]}))
    with (serving(control_plane, sa_kubeconfig, config, "queuesort", {"plugins_test.py": PLUGINS}) as kb,
          case_of(api, kb) as case):
        ns = case.ns("queuesort-plugin")
        for i, pod in enumerate(["pod-1", "pod-2", "pod-3"]):
            body = _pause(pod)
            body["spec"]["priority"] = i + 1
            case.pod(body, ns, scheduler=profile)
        for pod in ("pod-1", "pod-2", "pod-3"):
            case.wait_unschedulable(ns, pod)
        time.sleep(1.5)  # every backoff over: the node's arrival moves the three into activeQ together
        start = len(kb.log_text())
        case.rename_nodes(["test-node-0"])
        case.node(make_node("test-node-0"))
        for pod in ("pod-1", "pod-2", "pod-3"):
            case.wait_scheduled(ns, pod)
        popped = [k.rsplit("/", 1)[1] for _p, _h, k in _calls(case, start, "prefilter-plugin", "pre_filter")]
        assert popped == want


def test_TestCustomResourceEnqueue(control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api,
                                   tmp_path: Path) -> None:  # noqa: N802 - the upstream name
    """queueing/queue_test.go: the CRD foos.example.com; a profile with fakeCRPlugin at Filter (always failing,
    registered for foos.v1.example.com); fake-pod is attempted once and fails; a Foo foo1 is created; fake-pod is
    attempted a second time (its decision record's attempt 2). Its own kubeberth (the plugin is in no other).
    The scheduler's service account is granted list and watch on Foos here (config/rbac.yaml grants no custom
    resource), as a platform team would for its plugin's CRD."""
    assert UPSTREAM_CUSTOM_RESOURCE == "TestCustomResourceEnqueue"
    crd = "foos.example.com"
    rbac = f"kubeberth-foos-{suffix()}"
    kb: Kubeberth | None = None
    try:
        api.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": rbac},
            "rules": [{"apiGroups": ["example.com"], "resources": ["foos"], "verbs": ["list", "watch"]}]})
        api.call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": rbac},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": rbac},
            "subjects": [{"kind": "ServiceAccount", "name": "kubeberth", "namespace": "kube-system"}]})
        api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": crd},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "foos", "kind": "Foo"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"field": {"type": "string"}}}}}]}}, ok=(201, 409))
        wait_for(lambda: any(c.get("type") == "Established" and c.get("status") == "True" for c in (api.call(
            "GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}").get("status") or {}).get(
            "conditions") or ()), 10, "the CRD established", interval=0.05)
        config = tmp_path / "config.yaml"
        profile = f"{PROFILE}-cr-enqueue"
        config.write_text(yaml.safe_dump({
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "leaderElection": {"leaderElect": False}, "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 1,
            "profiles": [{"schedulerName": profile, "plugins": {"filter": {"enabled": [{"name": "fakeCRPlugin"}]}}}]}))
        plugins = tmp_path / "plugins"
        plugins.mkdir(mode=0o755)
        (plugins / "fake_cr.py").write_text(CR_PLUGIN)
        kb = Kubeberth(control_plane, sa_kubeconfig, config, False, f"kubeberth-cr-{suffix()}", plugins_dir=plugins)
        kb.wait_ready(timeout=20)
        with case_of(api, kb) as case:
            ns = case.ns("cr-enqueue")
            case.rename_nodes(["fake-node"])
            case.node(make_node("fake-node"))
            case.pod(_pause("fake-pod"), ns, scheduler=profile)
            case.wait_unschedulable(ns, "fake-pod")
            time.sleep(1.2)  # past its backoff: nothing but a Foo event retries it
            assert (_last_decision(case, ns, "fake-pod") or {}).get("attempt") == 1
            api.call("POST", f"/apis/example.com/v1/namespaces/{ns}/foos", {
                "apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "foo1"}})
            wait_for(lambda: (_last_decision(case, ns, "fake-pod") or {}).get("attempt") == 2, 10,
                     "fake-pod's second attempt", interval=0.05)
    finally:
        if kb is not None:
            kb.stop()
        api.call("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}", ok=(200, 404))
        for kind in ("clusterrolebindings", "clusterroles"):
            api.call("DELETE", f"/apis/rbac.authorization.k8s.io/v1/{kind}/{rbac}", ok=(200, 404))


def _last_decision(case: Case, ns: str, name: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{case.kb.port}/debug/decisions/{ns}/{name}", timeout=10) as r:
            return dict(json.loads(r.read()))
    except urllib.error.HTTPError:
        return None


@pytest.mark.parametrize("name", _params("TestPreemptWithPermitPlugin", list(PREEMPT_WITH_PERMIT)))
def test_TestPreemptWithPermitPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """One node (cpu 500m, memory 500, pods 32); permit-plugin holds waiting-pod at Permit and lets every other
    pod through; filter-plugin counts its calls per pod, NodeResourcesFit after it. A running pod (where the case has
    one), waiting-pod (cpu 200m), then the preemptor (cpu 400m); waiting-pod deleted where the case says. The
    preemptor is scheduled; at the end no pod waits (here: waiting-pod is unbound and, unless deleted, still exists,
    its last attempt rejected before Permit), waiting-pod filtered at most the case's number of times, Permit called;
    the running pod is gone."""
    running, waiting, preemptor, delete_waiting, max_filtered = PREEMPT_WITH_PERMIT[name]
    ns, profile, start = _start(case, "TestPreemptWithPermitPlugin", name, 0, "preempt-with-permit-plugin")
    case.rename_nodes(["test-node-0"])
    base = _handled(case.kb)
    case.node(make_node("test-node-0", capacity={"pods": "32", "cpu": "500m", "memory": "500"}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] > base["NodeAdd"], 30, "the node in kubeberth's cache", interval=0.02)

    def pod(pod_name: str, priority: int, cpu: str, memory: str) -> dict[str, Any]:
        body = _pause(pod_name)
        body["spec"].update(priority=priority, terminationGracePeriodSeconds=0)
        body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu, "memory": memory}}
        return body

    if running is not None:
        case.pod(pod("running-pod", running, "200m", "200"), ns, scheduler=profile)
        case.wait_scheduled(ns, "running-pod")
    case.pod(pod("waiting-pod", waiting, "200m", "200"), ns, scheduler=profile)
    key = f"{ns}/waiting-pod"
    wait_for(lambda: f"COSCHED permit-plugin waitingPod {key}" in case.kb.log_text()[start:], 30,
             "waiting-pod waiting at Permit", interval=0.02)
    case.pod(pod("preemptor-pod", preemptor, "400m", "400"), ns, scheduler=profile)
    if delete_waiting:
        case.api.call("DELETE", f"/api/v1/namespaces/{ns}/pods/waiting-pod", {"gracePeriodSeconds": 0})
    case.wait_scheduled(ns, "preemptor-pod")
    if not delete_waiting:
        try:
            wait_for(lambda: (_last_decision(case, ns, "waiting-pod") or {}).get("result") == "Unschedulable", 30,
                     "waiting-pod's retry rejected before Permit", interval=0.05)
        except AssertionError as err:
            raise AssertionError(f"{err}: {_last_decision(case, ns, 'waiting-pod')}\n{case.kb.log_tail(40)}") from None
        assert case.get(ns, "waiting-pod") and not case.get(ns, "waiting-pod")["spec"].get("nodeName")
    assert _count(case, start, "filter-plugin", "filter", key) <= max_filtered
    assert _count(case, start, "permit-plugin", "permit", key) >= 1
    if running is not None:
        wait_for(lambda: not case.get(ns, "running-pod"), 30, "running-pod deleted")


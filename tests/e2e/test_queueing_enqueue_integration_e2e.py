"""kube-scheduler v1.37.2 test/integration/scheduler/queueing TestCoreResourceEnqueue (the table
CoreResourceEnqueueTestCases of queue.go, dumped to upstream_tables/queueing.json) against kubeberth on a
real API server: the table's nodes, pods and other objects as they are, the trigger of each row
transcribed (TRIGGERS: the same API writes), the same WantRequeuedPods.

Upstream (RunTestCoreResourceEnqueue) pops every pod once by hand (each is rejected), runs the trigger,
waits until its scheduler has handled the trigger's events (scheduler_event_handling_duration_seconds),
then compares the pods in activeQ with WantRequeuedPods. Here one `kubeberth run` serves every row, each
row's EnablePlugins a profile of it (PrioritySort, DefaultBinder and the row's plugins at multiPoint,
`*` disabled), and kubeberth schedules on its own:
- rejected: each pod's decision record (GET /debug/decisions/<ns>/<pod>) shows attempt 1, Unschedulable;
- handled: kubeberth's scheduler_event_handling_duration_seconds_count has grown by one per write of the
  trigger, for the write's event (kubeberth observes a node update once, as NodeUpdate, where upstream
  counts each of its sub-events);
- requeued: at that moment, a pod left where it was (held-pods dump, SIGUSR2: still in the unschedulable
  pool, no second attempt) was not requeued; any other pod is attempted a second time, and that attempt's
  decision record names the event that moved it out of the pool (requeued_by): the pods requeued are those
  the trigger's events moved (kubeberth goes on scheduling, so a requeued pod's binding may move another
  pod later, which upstream's stopped queue never sees).
Every write of a row (its setup too) is waited for in the same way before the next step, so each pod's
first attempt sees the row's nodes and objects, and the next row starts with the last one's deletions
handled. Upstream runs with 0 s backoff, which the v1 configuration does not accept: 1 s here (under
SchedulerPopFromBackoffQ a requeued pod is popped from backoffQ at once when activeQ is empty).
Node and other cluster-scoped names carry a per-row suffix (the control plane is shared by the session).

The same kubeberth serves queue_test.go's TestSchedulingGates (table in upstream_tables/queue_test.json) and
TestRequeueByBindFailure, rescheduling_test.go's TestReScheduling, eventhandler_test.go's TestUpdateNodeEvent,
prequeueinghint_test.go's case with its gate off and serving/endpoints_test.go's TestEndpointHandlers: one
process for all (a profile per case where a test plugin counts its calls), the test plugins drop-ins of the
module's plugins directory.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import PROFILE, Api, Kubeberth, suffix
from upstream_integration import PAUSE, Case, case_of, cases, make_node, serving, tables

TABLE = {row["name"]: row for row in tables("queueing")["CoreResourceEnqueueTestCases"]}

# The rows this module ports (scripts/upstream_cases.py counts them); four more are in test_queueing_hints_e2e.py.
UPSTREAM_CASES = (
    "TestCoreResourceEnqueue/Pod without a required toleration to a node isn't requeued to activeQ",
    "TestCoreResourceEnqueue/Pod rejected by the PodAffinity plugin is requeued when a new Node is created",
    "TestCoreResourceEnqueue/Pod updated with toleration requeued to activeQ",
    "TestCoreResourceEnqueue/Pod rejected by the TaintToleration plugin is requeued when the Node's taint is updated",
    "TestCoreResourceEnqueue/Pod rejected by the TaintToleration plugin is requeued when a Node that has the correspoding taint is added",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when the Pod is updated to scale down",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Pod is deleted",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Node is created",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node has the extended resource, and DRAExtendedResource is disabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node has the extended resource, and DRAExtendedResource is enabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node does not have the extended resource, and DRAExtendedResource is disabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Node does not have the extended resource, and DRAExtendedResource is enabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when created DeviceClass having the extended resource matching pod's requests, and DRAExtendedResource is enabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when updated DeviceClass has the extended resource, and DRAExtendedResource is enabled",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node is updated without increase in the requested resources",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated with increase in the requested resources",
    "TestCoreResourceEnqueue/Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated with increase in the allowed pods number",
    "TestCoreResourceEnqueue/Updating pod label doesn't retry scheduling if the Pod was rejected by TaintToleration",
    "TestCoreResourceEnqueue/Pod rejected by the PreFilter of NodeAffinity plugin and Filter of NodeResourcesFit is requeued based on both plugins",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when deleting the existed pod's label that matches the podAntiAffinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when deleting the existing pod that matches the target podAntiAffinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when deleting the existing pod with podAntiAffinity that matches the target pod",
    "TestCoreResourceEnqueue/Pod rejected by the PodAffinity plugin is requeued when updating the existed pod's label to make it match the pod's podAffinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when creating the node with the topologyKey label of the pod affinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when updating the node with the topologyKey label of the pod affinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when updating the node with the topologyKey label of the pod anti affinity",
    "TestCoreResourceEnqueue/Pod rejected by the InterPodAffinity plugin is requeued when creating the node with the topologyKey label of the pod anti affinity",
    "TestCoreResourceEnqueue/Pod rejected with hostport by the NodePorts plugin is requeued when new node is created",
    "TestCoreResourceEnqueue/Pod rejected by the NodeUnschedulable plugin is requeued when the node is turned to ready",
    "TestCoreResourceEnqueue/Pod rejected by the NodeUnschedulable plugin is requeued when a new node is created",
    "TestCoreResourceEnqueue/Pod rejected by the NodeUnschedulable plugin isn't requeued when another unschedulable node is created",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a Pod with matching label is scheduled",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a scheduled Pod label is updated to match the selector",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a scheduled Pod with matching label is deleted",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a Node with topology label is created",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a Node is updated to have the topology label",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a Node with a topology label is deleted",
    "TestCoreResourceEnqueue/Pods with PodTopologySpread should be requeued when a NodeTaint of a Node with a topology label has been updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is requeued when the PV is added",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is requeued when the PV is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is requeued when the PVC bound to the pod is added",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is requeued when the PVC bound to the pod is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is requeued when the Storage class is added",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeZone plugin is not requeued when the PV is updated but the topology is same",
    "TestCoreResourceEnqueue/Pod rejected by the VolumeRestriction plugin is requeued when the PVC bound to the pod is added",
    "TestCoreResourceEnqueue/Pod rejected by the VolumeRestriction plugin is requeued when the pod is deleted",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the Node is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the Node is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the PV is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the PV is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the PVC is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the PVC is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the StorageClass is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the StorageClass's AllowedTopologies is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is not requeued when the StorageClass is updated but the AllowedTopologies is same",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the CSINode is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the CSINode's MigratedPluginsAnnotation is updated",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the CSIDriver's StorageCapacity gets disabled",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is not requeued when the CSIDriver is updated but the storage capacity is originally enabled",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the CSIStorageCapacity is created",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is requeued when the CSIStorageCapacity is increased",
    "TestCoreResourceEnqueue/Pod rejected with node by the VolumeBinding plugin is not requeued when the CSIStorageCapacity is updated but the volumelimit is not increased",
    "TestCoreResourceEnqueue/Pod rejected the CSI NodeVolumeLimits plugin is requeued when the CSINode is added",
    "TestCoreResourceEnqueue/Pod rejected with PVC by the CSI NodeVolumeLimits plugin is requeued when the pod having related PVC is deleted",
    "TestCoreResourceEnqueue/Pod rejected with PVC by the CSI NodeVolumeLimits plugin is requeued when the related PVC is added",
    "TestCoreResourceEnqueue/Pod with PVC rejected the CSI NodeVolumeLimits plugin is requeued when the VolumeAttachment is deleted",
    "TestCoreResourceEnqueue/Pod with Inline Migratable volume (AWSEBSDriver and GCEPDDriver) rejected the CSI NodeVolumeLimits plugin is requeued (only AWSEBSDriver) when the VolumeAttachment is deleted",
)
ROWS = [TABLE[c.split("/", 1)[1]] for c in UPSTREAM_CASES]
# queue_test.go's other tests ported here: TestSchedulingGates' table (upstream_tables/queue_test.json), TestRequeueByBindFailure.
UPSTREAM_TESTS = ("TestSchedulingGates", "TestRequeueByBindFailure")  # and rescheduling_test.go's TestReScheduling,
UPSTREAM_EVENTHANDLER = ("TestUpdateNodeEvent",)  # eventhandler_test.go's
UPSTREAM_PRE_QUEUEING_HINT = ("TestPreQueueingHintNarrowsPodSet/feature disabled: all pods evaluated",)
# serving/endpoints_test.go's TestEndpointHandlers: name -> (path, useBrokenConfig, wantResponseCode)
ENDPOINT_HANDLERS = {
    "/healthz": ("/healthz", False, 200),
    "/livez": ("/livez", False, 200),
    "/livez with ping check": ("/livez/ping", False, 200),
    "/readyz": ("/readyz", False, 200),
    "/readyz with sched-handler-sync": ("/readyz/sched-handler-sync", False, 200),
    "/readyz with shutdown": ("/readyz/shutdown", False, 200),
    "/readyz with broken apiserver": ("/readyz", True, 500),
}
UPSTREAM_ENDPOINT_HANDLERS = (
    "TestEndpointHandlers//healthz",
    "TestEndpointHandlers//livez",
    "TestEndpointHandlers//livez with ping check",
    "TestEndpointHandlers//readyz",
    "TestEndpointHandlers//readyz with sched-handler-sync",
    "TestEndpointHandlers//readyz with shutdown",
    "TestEndpointHandlers//readyz with broken apiserver",
)
GATES = tables("queue_test")["TestSchedulingGates"]
# Rows whose outcome differs from upstream's (strict xfail), with the reason.
DIFFERENCES: dict[str, str] = {}

_HANDLED = re.compile(r'^scheduler_event_handling_duration_seconds_count\{event="([^"]+)"\} ([0-9.e+]+)$', re.M)
_TAINT_NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def _profile_name(plugins: list[str] | None) -> str:
    return f"{PROFILE}-" + ("-".join(p.lower() for p in plugins) if plugins else "all")


def _config(path: Any) -> Any:
    """One profile per EnablePlugins of the ported rows (RunTestCoreResourceEnqueue's WithProfiles)."""
    profiles = []
    for plugins in dict.fromkeys(tuple(r["enablePlugins"] or ()) for r in ROWS):
        profile: dict[str, Any] = {"schedulerName": _profile_name(list(plugins))}
        if plugins:
            enabled = [{"name": "PrioritySort"}, {"name": "DefaultBinder"}, *({"name": p} for p in plugins)]
            profile["plugins"] = {"multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]}}
        profiles.append(profile)
    path.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 1, "leaderElection": {"leaderElect": False},
        "profiles": profiles}))
    return path


FIRST_FAIL_BIND = '''"""queue_test.go's firstFailBindPlugin: rejects the first Bind call (an Error), binds as DefaultBinder does
after that."""
from kubeberth import Status, hookimpl


class firstFailBindPlugin:  # noqa: N801 - upstream's name
    name = "firstFailBindPlugin"

    def __init__(self):
        self.counter = 0

    @hookimpl
    def bind(self, pod, node_name, handle):
        if self.counter == 0:
            self.counter += 1  # fail in the first Bind call.
            return Status.error("firstFailBindPlugin rejects the Pod")
        return handle.bind(pod, node_name)
'''
BIND_FAILURE = f"{PROFILE}-bind-failure"
# rescheduling_test.go's test plugins (a drop-in): Permit and Reserve reject (Unschedulable) their first call only,
# or fail (Error) every call; both register Node/Add with a hint that always queues.
RESCHEDULING_PLUGINS = '''"""rescheduling_test.go's PermitPlugin and ReservePlugin, statusCode from the profile's pluginConfig."""
from pydantic import BaseModel

from kubeberth import PermitResult, Status, hookimpl


class Args(BaseModel):
    statusCode: str  # noqa: N815 - upstream's field


class permit:  # noqa: N801 - upstream's plugin name
    name = "permit"
    Args = Args
    requeue_on = ("Node/Add",)

    def __init__(self, args):
        self.code, self.numPermitCalled = args.statusCode, 0

    @hookimpl
    def permit(self, pod):
        self.numPermitCalled += 1
        if self.code == "Error":
            return Status.error("failed to permit")
        if self.code == "Unschedulable" and self.numPermitCalled <= 1:
            return Status.unschedulable("reject to permit")
        return PermitResult.approve()


class reserve:  # noqa: N801 - upstream's plugin name
    name = "reserve"
    Args = Args
    requeue_on = ("Node/Add",)

    def __init__(self, args):
        self.code, self.numReserveCalled, self.numUnreserveCalled = args.statusCode, 0, 0

    @hookimpl
    def reserve(self, pod):
        self.numReserveCalled += 1
        if self.code == "Error":
            return Status.error("failed to reserve")
        if self.code == "Unschedulable" and self.numReserveCalled <= 1:
            return Status.unschedulable("reject to reserve")
        return None

    @hookimpl
    def unreserve(self, pod):
        self.numUnreserveCalled += 1
'''
# eventhandler_test.go's fooPlugin: a Filter passing a node without taints, or whose first taint the pod
# tolerates; registers Node/UpdateNodeTaint.
FOO_PLUGIN = '''"""eventhandler_test.go's fooPlugin."""
from kubeberth import Status, hookimpl


class foo:  # noqa: N801 - upstream's plugin name
    name = "foo"
    requeue_on = ("Node/UpdateNodeTaint",)

    @hookimpl
    def filter_node(self, pod, node):
        if not node.taints:
            return None
        first = node.taints[0]
        if any(t.tolerates(first.key, first.value, first.effect) for t in pod.tolerations):
            return None
        return Status.unschedulable()
'''
UPDATE_NODE_EVENT = f"{PROFILE}-update-node-event"
# nominated_node_name_test.go's test plugins. RunForeverPreBindPlugin runs until the test cancels it; kubeberth
# cancels a PreBind only for preemption, so here it gives up after 3 s (the nomination is read well before).
NNN_PLUGINS = '''"""nominated_node_name_test.go's FakePermitPlugin, RunForeverPreBindPlugin and NoNNNPostBindPlugin."""
import logging

from pydantic import BaseModel

from _upstream_test_plugins import Configured, SerialPreBind

from kubeberth import PermitResult, Status, hookimpl

log = logging.getLogger("NoNNNPostBindPlugin")


class PermitArgs(BaseModel):
    code: str


class FakePermitPlugin(Configured):
    name = "FakePermitPlugin"
    Args = PermitArgs

    @hookimpl
    def permit(self, pod):
        return PermitResult.wait(600) if self.args.code == "Wait" else PermitResult.approve()


class RunForeverPreBindPlugin(SerialPreBind):
    name = "RunForeverPreBindPlugin"

    @hookimpl
    def pre_bind(self, state, pod):
        reason = state.sleep_in_pre_bind(3.0)
        return Status.error("context cancelled" if reason else "pre-bind cancelled")


class NoNNNPostBindPlugin:
    name = "NoNNNPostBindPlugin"

    @hookimpl
    def post_bind(self, pod):
        if pod.nominated_node_name:
            log.error("PostBind should not set .status.nominatedNodeName for pod %s, but it was set to %s",
                      pod.key, pod.nominated_node_name)
'''
# plugins_test.go's PreFilterPlugin, FilterPlugin, PreScorePlugin and ScorePlugin: each call logged (for the
# test's call counts), failFilter & co from the case's pluginConfig.
EXTENSION_PLUGINS = '''"""plugins_test.go's PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, PreBindPlugin
and PostBindPlugin."""
import logging

from pydantic import BaseModel

import _upstream_test_plugins
from _upstream_test_plugins import Configured, SerialPreBind, injected, plugin

from kubeberth import PreFilterResult, Status, hookimpl

log = logging.getLogger("plugins_test")


def called(plugin, hook, pod):
    log.warning("%s called for %s", plugin, pod.key)


class Args(BaseModel):
    fail: bool = False
    reject: bool = False
    succeedOnRetry: bool = False  # noqa: N815 - upstream's field
    nodes: list[str] = []


class PreFilterPlugin(Configured):
    name = "prefilter-plugin"
    Args = Args

    @hookimpl
    def pre_filter(self, pod):
        log.warning("%s called for %s", self.name, pod.key)
        status = injected(self.args, pod)
        if status is None and self.args.nodes:
            return PreFilterResult(node_names=frozenset(self.args.nodes))
        return status


FilterPlugin = plugin(_upstream_test_plugins.FilterPlugin, __name__, Args=Args, called=staticmethod(called))


class PreScorePlugin(Configured):
    name = "prescore-plugin"
    Args = Args

    @hookimpl
    def pre_score(self, pod):
        log.warning("%s called for %s", self.name, pod.key)
        if self.args.fail:
            return Status.error(f"injecting failure for pod {pod.name}")
        return None


class ReservePlugin(Configured):
    name = "reserve-plugin"
    Args = Args

    @hookimpl
    def reserve(self, pod):
        log.warning("%s called for %s", self.name, pod.key)
        if self.args.fail:
            return Status.error(f"injecting failure for pod {pod.name}")
        return None

    @hookimpl
    def unreserve(self, pod):
        pass


class PreBindPlugin(SerialPreBind):
    name = "prebind-plugin"
    Args = Args

    def __init__(self, args):
        self.args, self.podUIDs = args, set()

    @hookimpl
    def pre_bind(self, pod):
        log.warning("%s called for %s", self.name, pod.key)
        if pod.uid in self.podUIDs and self.args.succeedOnRetry:
            return None
        self.podUIDs.add(pod.uid)
        return injected(self.args, pod)


class PostBindPlugin:
    name = "postbind-plugin"

    @hookimpl
    def post_bind(self, pod):
        log.warning("%s called for %s", self.name, pod.key)


class ScorePlugin:
    name = "score-plugin"
    Args = Args

    def __init__(self, args):
        self.args, self.numScoreCalled = args, 0

    @hookimpl
    def score_node(self, pod, node):
        self.numScoreCalled += 1
        log.warning("%s called for %s", self.name, pod.key)
        if self.args.fail:
            raise RuntimeError(f"injecting failure for pod {pod.name}")
        if self.numScoreCalled == 1:  # the first node is scored the highest, the rest lower
            log.warning("%s highScoreNode %s for %s", self.name, node.name, pod.key)
            return 100
        return 1
'''
# plugins_test.go's cases of those four: (test, case) -> (plugin, extension point, args, nodes, outcome)
EXTENSION_CASES: dict[tuple[str, str], tuple[str, str, dict[str, Any], int, str]] = {
    ("TestPreFilterPlugin", "disable fail and reject flags"): ("prefilter-plugin", "preFilter", {}, 2, "scheduled"),
    ("TestPreFilterPlugin", "enable fail and disable reject flags"):
        ("prefilter-plugin", "preFilter", {"fail": True}, 2, "error"),
    ("TestPreFilterPlugin", "disable fail and enable reject flags"):
        ("prefilter-plugin", "preFilter", {"reject": True}, 2, "unschedulable"),
    ("TestPreFilterPlugin", "inject legal node names in PreFilterResult"):
        ("prefilter-plugin", "preFilter", {"nodes": ["test-node-0", "test-node-1"]}, 2, "scheduled"),
    ("TestPreFilterPlugin", "inject legal and illegal node names in PreFilterResult"):
        ("prefilter-plugin", "preFilter", {"nodes": ["test-node-0", "non-existent-node"]}, 2, "scheduled"),
    ("TestFilterPlugin", "fail filter plugin"): ("filter-plugin", "filter", {"fail": True}, 1, "error"),
    ("TestFilterPlugin", "do not fail filter plugin"): ("filter-plugin", "filter", {}, 1, "scheduled"),
    ("TestPreScorePlugin", "fail preScore plugin"): ("prescore-plugin", "preScore", {"fail": True}, 2, "error"),
    ("TestPreScorePlugin", "do not fail preScore plugin"): ("prescore-plugin", "preScore", {}, 2, "scheduled"),
    ("TestScorePlugin", "fail score plugin"): ("score-plugin", "score", {"fail": True}, 10, "error"),
    ("TestScorePlugin", "do not fail score plugin"): ("score-plugin", "score", {}, 10, "scheduled"),
    ("TestReservePluginReserve", "fail reserve plugin"): ("reserve-plugin", "reserve", {"fail": True}, 2, "error"),
    ("TestReservePluginReserve", "do not fail reserve plugin"): ("reserve-plugin", "reserve", {}, 2, "scheduled"),
    # with postbind-plugin at postBind (POST_BIND_CASES)
    ("TestPostBindPlugin", "plugin preBind fail"): ("prebind-plugin", "preBind", {"fail": True}, 2, "error"),
    ("TestPostBindPlugin", "plugin preBind do not fail"): ("prebind-plugin", "preBind", {}, 2, "scheduled"),
}
POST_BIND_CASES = ("TestPostBindPlugin",)
# TestPrebindPlugin: name -> (prebind-plugin's args, with an unschedulable pod of a 2nd scheduler whose filter-plugin
# rejects every node, outcome); two nodes.
PREBIND_CASES: dict[str, tuple[dict[str, bool], bool, str]] = {
    "disable fail and reject flags": ({}, False, "scheduled"),
    "enable fail and disable reject flags": ({"fail": True}, False, "error"),
    "disable fail and enable reject flags": ({"reject": True}, False, "unschedulable"),
    "enable fail and reject flags": ({"fail": True, "reject": True}, False, "error"),
    "fail on 1st try but succeed on retry": ({"fail": True, "succeedOnRetry": True}, False, "scheduled"),
    "failure on preBind moves unschedulable pods": ({"fail": True}, True, "error"),
}
UPSTREAM_PREBIND = (
    "TestPrebindPlugin/disable fail and reject flags",
    "TestPrebindPlugin/enable fail and disable reject flags",
    "TestPrebindPlugin/disable fail and enable reject flags",
    "TestPrebindPlugin/enable fail and reject flags",
    "TestPrebindPlugin/fail on 1st try but succeed on retry",
    "TestPrebindPlugin/failure on preBind moves unschedulable pods",
)


def _prebind_profiles() -> list[dict[str, Any]]:
    out = []
    for i, (args, second, _outcome) in enumerate(PREBIND_CASES.values()):
        out.append({"schedulerName": f"{PROFILE}-prebind-{i}", "plugins": {"preBind": {"enabled": [
            {"name": "prebind-plugin"}]}}, "pluginConfig": [{"name": "prebind-plugin", "args": args}]})
        if second:
            out.append({"schedulerName": f"{PROFILE}-prebind-{i}-2nd", "plugins": {"filter": {"enabled": [
                {"name": "filter-plugin"}]}}, "pluginConfig": [{"name": "filter-plugin", "args": {"reject": True}}]})
    return out
UPSTREAM_EXTENSION_CASES = (
    "TestPreFilterPlugin/disable fail and reject flags",
    "TestPreFilterPlugin/enable fail and disable reject flags",
    "TestPreFilterPlugin/disable fail and enable reject flags",
    "TestPreFilterPlugin/inject legal node names in PreFilterResult",
    "TestPreFilterPlugin/inject legal and illegal node names in PreFilterResult",
    "TestFilterPlugin/fail filter plugin",
    "TestFilterPlugin/do not fail filter plugin",
    "TestPreScorePlugin/fail preScore plugin",
    "TestPreScorePlugin/do not fail preScore plugin",
    "TestScorePlugin/fail score plugin",
    "TestScorePlugin/do not fail score plugin",
    "TestReservePluginReserve/fail reserve plugin",
    "TestReservePluginReserve/do not fail reserve plugin",
    "TestPostBindPlugin/plugin preBind fail",
    "TestPostBindPlugin/plugin preBind do not fail",
)


def _extension_node(name: str, i: int) -> str:
    """A node of extension case `i`: a fixed name, as its PreFilterResult names it in the configuration."""
    return f"{name}-ext{i}"


def _extension_profiles() -> list[dict[str, Any]]:
    """initRegistryAndConfig: the default plugins, and the case's plugin at its extension point."""
    out = []
    for i, (plugin, point, args, _nodes, _outcome) in enumerate(EXTENSION_CASES.values()):
        args = {**args, "nodes": [_extension_node(n, i) if n.startswith("test-node") else n
                                  for n in args.get("nodes", [])]}
        points = {point: {"enabled": [{"name": plugin}]}}
        if list(EXTENSION_CASES)[i][0] in POST_BIND_CASES:
            points["postBind"] = {"enabled": [{"name": "postbind-plugin"}]}
        out.append({"schedulerName": f"{PROFILE}-ext-{i}", "plugins": points,
                    "pluginConfig": [{"name": plugin, "args": args}]})
    return out


# TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit: name -> (the case's plugin at its point, or None;
# expectNominatedNodeName); NominatedNodeNameForExpectation at kubeberth's default, on (upstream runs both).
NNN_CASES: dict[str, tuple[tuple[str, str, dict[str, str]] | None, bool]] = {
    "NominatedNodeName is put if PreBindPlugin will run": (("preBind", "RunForeverPreBindPlugin", {}), True),
    "NominatedNodeName is put if PermitPlugin will run at WaitOnPermit":
        (("permit", "FakePermitPlugin", {"code": "Wait"}), True),
    "NominatedNodeName is not put if PermitPlugin won't run at WaitOnPermit":
        (("permit", "FakePermitPlugin", {"code": "Success"}), False),
    "NominatedNodeName is not put if PermitPlugin nor PreBindPlugin will run": (None, False),
}
UPSTREAM_NNN = (
    "TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit/NominatedNodeName is put if PreBindPlugin will run",
    "TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit/NominatedNodeName is put if PermitPlugin will run at WaitOnPermit",
    "TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit/NominatedNodeName is not put if PermitPlugin won't run at WaitOnPermit",
    "TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit/NominatedNodeName is not put if PermitPlugin nor PreBindPlugin will run",
)


def _nnn_profile(i: int) -> str:
    return f"{PROFILE}-nnn-{i}"


def _nnn_profiles() -> list[dict[str, Any]]:
    """InitRegistryAndConfig: NoNNNPostBindPlugin at postBind, the case's plugin at its point."""
    out = []
    for i, (plugin, _want) in enumerate(NNN_CASES.values()):
        points: dict[str, Any] = {"postBind": {"enabled": [{"name": "NoNNNPostBindPlugin"}]}}
        profile: dict[str, Any] = {"schedulerName": _nnn_profile(i), "plugins": points}
        if plugin is not None:
            points[plugin[0]] = {"enabled": [{"name": plugin[1]}]}
            if plugin[2]:
                profile["pluginConfig"] = [{"name": plugin[1], "args": plugin[2]}]
        out.append(profile)
    return out
# prequeueinghint_test.go's preQueueingHintPlugin, its PreQueueingHintFn left out (SchedulerPreQueueingHints, alpha,
# off: the ported case runs with it off); each QueueingHintFn call logged, for the test to count.
PRE_QUEUEING_HINT_PLUGIN = '''"""prequeueinghint_test.go's preQueueingHintPlugin (its QueueingHintFn calls logged)."""
import logging

from kubeberth import Status, hookimpl

log = logging.getLogger("PreQueueingHintTestPlugin")


class PreQueueingHintTestPlugin:
    name = "PreQueueingHintTestPlugin"
    requeue_on = ("Node/UpdateNodeLabel",)
    queueing_hints = {"Node/UpdateNodeLabel": "queueing_hint"}

    @hookimpl
    def filter_node(self, node):
        if node.labels.get("enable-scheduling") == "true":
            return None
        return Status.unschedulable("node missing enable-scheduling label")

    def queueing_hint(self, pod, old, new):
        log.warning("queueingHint called for %s", pod.key)
        return True
'''
PRE_QUEUEING_HINT = f"{PROFILE}-prequeueinghint"
# TestReScheduling's table (rescheduling_test.go: closures and plugin objects, transcribed): name -> (plugin,
# statusCode, action, wantFirstSchedulingError, wantScheduled, wantError). Each case a profile of its own (its
# plugin's counters start at zero, as upstream's Reset does).
RESCHEDULING = {
    "Rescheduling pod rejected by Permit Plugin": ("permit", "Unschedulable", "node", False, True, False),
    "Rescheduling pod rejected by Permit Plugin with unrelated event":
        ("permit", "Unschedulable", "pod", False, False, False),
    "Rescheduling pod failed by Permit Plugin": ("permit", "Error", "node", True, False, True),
    "Rescheduling pod rejected by Reserve Plugin": ("reserve", "Unschedulable", "node", False, True, False),
    "Rescheduling pod rejected by Reserve Plugin with unrelated event":
        ("reserve", "Unschedulable", "pod", False, False, False),
    "Rescheduling pod failed by Reserve Plugin": ("reserve", "Error", "node", True, False, True),
}
UPSTREAM_RESCHEDULING = (
    "TestReScheduling/Rescheduling pod rejected by Permit Plugin",
    "TestReScheduling/Rescheduling pod rejected by Permit Plugin with unrelated event",
    "TestReScheduling/Rescheduling pod failed by Permit Plugin",
    "TestReScheduling/Rescheduling pod rejected by Reserve Plugin",
    "TestReScheduling/Rescheduling pod rejected by Reserve Plugin with unrelated event",
    "TestReScheduling/Rescheduling pod failed by Reserve Plugin",
)


def _rescheduling_profile(i: int) -> str:
    return f"{PROFILE}-rescheduling-{i}"


def _rescheduling_profiles() -> list[dict[str, Any]]:
    """InitRegistryAndConfig: the default plugins, and the case's plugin at its extension point."""
    out = []
    for i, (plugin, code, *_rest) in enumerate(RESCHEDULING.values()):
        points = {"permit": ["permit"], "reserve": ["reserve"]}[plugin]
        out.append({"schedulerName": _rescheduling_profile(i),
                    "plugins": {point: {"enabled": [{"name": plugin}]} for point in points},
                    "pluginConfig": [{"name": plugin, "args": {"statusCode": code}}]})
    return out


@pytest.fixture(scope="module")
def kubeberth_enqueue(control_plane: LocalControlPlane, sa_kubeconfig: str,
                      tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubeberth]:
    """The module's kubeberth: a profile per EnablePlugins, and TestRequeueByBindFailure's (its drop-in binder
    in place of DefaultBinder at multiPoint)."""
    tmp = tmp_path_factory.mktemp("enqueue")
    config = _config(tmp / "config.yaml")
    cfg = yaml.safe_load(config.read_text())
    cfg["profiles"].append({"schedulerName": BIND_FAILURE, "plugins": {"multiPoint": {
        "enabled": [{"name": "firstFailBindPlugin"}], "disabled": [{"name": "DefaultBinder"}]}}})
    cfg["profiles"] += _rescheduling_profiles() + _nnn_profiles() + _extension_profiles() + _prebind_profiles()
    cfg["profiles"].append({"schedulerName": PRE_QUEUEING_HINT, "plugins": {"filter": {
        "enabled": [{"name": "PreQueueingHintTestPlugin"}]}}})
    cfg["profiles"].append({"schedulerName": UPDATE_NODE_EVENT, "plugins": {"filter": {
        "enabled": [{"name": "foo"}], "disabled": [{"name": "*"}]}}})
    config.write_text(yaml.safe_dump(cfg))
    plugins = {"first_fail_bind.py": FIRST_FAIL_BIND, "rescheduling.py": RESCHEDULING_PLUGINS, "foo.py": FOO_PLUGIN,
               "nnn.py": NNN_PLUGINS, "extension_points.py": EXTENSION_PLUGINS,
               "prequeueinghint.py": PRE_QUEUEING_HINT_PLUGIN}
    with serving(control_plane, sa_kubeconfig, config, "enqueue", plugins) as kb:
        yield kb


def _handled(kb: Kubeberth) -> Counter[str]:
    """scheduler_event_handling_duration_seconds_count per event label."""
    status, body = kb.get("/metrics")
    assert status == 200
    return Counter({label: int(float(v)) for label, v in _HANDLED.findall(body.decode())})


def _held(kb: Kubeberth) -> dict[str, list[str]]:
    """Kubeberth.held_pods (SIGUSR2: one "held pods:" JSON line from the loop thread), reading only what the log
    gained since the signal, polled every 20 ms (a dump per row)."""
    start = kb.log_path.stat().st_size
    kb.proc.send_signal(signal.SIGUSR2)

    def dumped() -> dict[str, list[str]] | None:
        with kb.log_path.open("rb") as f:
            f.seek(start)
            text = f.read().decode(errors="replace")
        for line in text.splitlines():
            if "held pods: " in line:
                with contextlib.suppress(ValueError):  # a line still being written
                    return dict(json.loads(line.split("held pods: ", 1)[1]))
        return None

    return dict(wait_for(dumped, 10, f"{kb.name}'s held pods dump", interval=0.02))


def _decision(kb: Kubeberth, ns: str, name: str) -> dict[str, Any] | None:
    status, body = kb.get(f"/debug/decisions/{ns}/{name}")
    return json.loads(body) if status == 200 else None


class Row:
    """One table row on the shared control plane: its writes, each waited for until kubeberth handled it."""

    def __init__(self, case: Case, row: dict[str, Any]) -> None:
        self.case, self.row, self.kb, self.api = case, row, case.kb, case.api
        self.scheduler = _profile_name(row["enablePlugins"])
        self.ns = case.ns("core-res-enqueue")
        self.expected: Counter[str] = Counter()
        self.base = _handled(self.kb)
        self.live_nodes: set[str] = set()
        self.pods: dict[str, dict[str, Any]] = {}  # upstream name -> the object as created

    # ---- writes (each expects kubeberth to handle one event) ----
    def write(self, label: str, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201)) -> Any:
        out = self.api.call(method, path, body, ok=ok)
        self.expected[label] += 1
        return out

    def settle(self, timeout: float = 30) -> None:
        """Wait until kubeberth has handled every write made so far (upstream's wait on its event-handling
        metric, after the trigger; here after each step)."""
        def done() -> bool:
            now = _handled(self.kb)
            return all(now[label] - self.base[label] >= n for label, n in self.expected.items())
        try:
            wait_for(done, timeout, "kubeberth handled the writes", interval=0.02)
        except AssertionError as err:
            now = _handled(self.kb)
            raise AssertionError(f"{err}: wanted {dict(self.expected)}, handled "
                                 f"{ {k: now[k] - self.base[k] for k in self.expected} }") from None

    def quiesce(self, quiet: float = 0.3) -> None:
        """Count from now on, once the handled events have not changed for `quiet` seconds."""
        last, since = _handled(self.kb), time.monotonic()
        while time.monotonic() - since < quiet:
            time.sleep(0.05)
            now = _handled(self.kb)
            if now != last:
                last, since = now, time.monotonic()
        self.base, self.expected = last, Counter()

    def node_body(self, node: dict[str, Any]) -> dict[str, Any]:
        return dict(self.case.renamed({**node, "apiVersion": "v1", "kind": "Node"}))

    def create_node(self, node: dict[str, Any]) -> None:
        body = self.node_body(node)
        self.write("NodeAdd", "POST", "/api/v1/nodes", body)
        self.live_nodes.add(body["metadata"]["name"])
        name = body["metadata"]["name"]
        got = self.api.call("GET", f"/api/v1/nodes/{name}")
        if node.get("status", {}).get("allocatable") and got.get("status", {}).get("allocatable") != \
                body["status"]["allocatable"]:
            got["status"] = body["status"]
            self.write("NodeUpdate", "PUT", f"/api/v1/nodes/{name}/status", got)

    def update_node(self, node: dict[str, Any], status: bool = False) -> None:
        """Nodes().Update / UpdateStatus with the st.MakeNode object (no resourceVersion: unconditional)."""
        body = self.node_body(node)
        name = body["metadata"]["name"]
        self.write("NodeUpdate", "PUT", f"/api/v1/nodes/{name}" + ("/status" if status else ""), body)

    def delete_node(self, name: str) -> None:
        real = self.case.node_name(name)
        self.write("NodeDelete", "DELETE", f"/api/v1/nodes/{real}")
        self.live_nodes.discard(real)

    def pod_body(self, pod: dict[str, Any]) -> dict[str, Any]:
        body = dict(self.case.renamed({**pod, "apiVersion": "v1", "kind": "Pod"}))
        body.pop("status", None)
        body["metadata"]["namespace"] = self.ns
        body["spec"]["schedulerName"] = self.scheduler
        return body

    def create_pod(self, pod: dict[str, Any]) -> None:
        body = self.pod_body(pod)
        label = "AssignedPodAdd" if body["spec"].get("nodeName") else "UnscheduledPodAdd"
        self.write(label, "POST", f"/api/v1/namespaces/{self.ns}/pods", body)
        self.pods[pod["metadata"]["name"]] = pod

    def update_pod(self, name: str, labels: dict[str, str] | None = None,
                   tolerations: list[dict[str, Any]] | None = None) -> None:
        """Pods().Update with the row's pod rebuilt by st.MakePod with other labels or tolerations."""
        pod = copy.deepcopy(self.pods[name])
        if labels is not None:
            pod["metadata"]["labels"] = labels
        if tolerations is not None:
            pod["spec"]["tolerations"] = tolerations
        body = self.pod_body(pod)
        label = "AssignedPodUpdate" if body["spec"].get("nodeName") else "UnscheduledPodUpdate"
        self.write(label, "PUT", f"/api/v1/namespaces/{self.ns}/pods/{name}", body)

    def delete_pod(self, name: str) -> None:
        label = "AssignedPodDelete" if self.pods[name]["spec"].get("nodeName") else "UnscheduledPodDelete"
        self.write(label, "DELETE", f"/api/v1/namespaces/{self.ns}/pods/{name}", {"gracePeriodSeconds": 0})

    def _object(self, kind: str, obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        version, path = KINDS[kind]
        body = dict(self.case.renamed({**obj, "apiVersion": version, "kind": kind}))
        body.pop("status", None)
        if "{ns}" in path:
            body["metadata"]["namespace"] = self.ns
        return path.format(ns=self.ns), body

    def create(self, kind: str, obj: dict[str, Any]) -> None:
        """<Kind>s().Create; a cluster-scoped object is deleted after the row."""
        path, body = self._object(kind, obj)
        self.write(f"{kind}Add", "POST", path, body)
        if "namespace" not in body["metadata"]:
            self.case.cluster_scoped.append(f"{path}/{body['metadata']['name']}")

    def update(self, kind: str, obj: dict[str, Any]) -> None:
        """<Kind>s().Update with the st.Make* object (no resourceVersion: an unconditional update)."""
        path, body = self._object(kind, obj)
        self.write(f"{kind}Update", "PUT", f"{path}/{body['metadata']['name']}", body)

    def delete(self, kind: str, name: str) -> None:
        path = KINDS[kind][1].format(ns=self.ns)
        self.write(f"{kind}Delete", "DELETE", f"{path}/{self.case.node_name(name)}")


def st_node(name: str, labels: dict[str, str] | None = None, capacity: dict[str, str] | None = None,
            taints: list[dict[str, str]] | None = None, unschedulable: bool | None = None) -> dict[str, Any]:
    """st.MakeNode().Name(name)[.Label...][.Capacity(...)][.Taints(...)][.Unschedulable(...)].Obj():
    capacity and allocatable `pods: 32` plus `capacity`."""
    res = {"pods": "32", **(capacity or {})}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable is not None:
        spec["unschedulable"] = unschedulable
    return {"metadata": {"name": name, **({"labels": labels} if labels else {})}, "spec": spec,
            "status": {"capacity": res, "allocatable": res}}


def _device_class(extended_resource: str) -> dict[str, Any]:
    return {"metadata": {"name": "fake-class"}, "spec": {"extendedResourceName": extended_resource}}


def _resize(r: Row, name: str, cpu: str) -> None:
    """Pods().UpdateResize(st.MakePod().Name(name).Req({cpu}).Container("image")): con0's cpu request."""
    pod = r.api.call("GET", f"/api/v1/namespaces/{r.ns}/pods/{name}")
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    r.write("UnscheduledPodUpdate", "PUT", f"/api/v1/namespaces/{r.ns}/pods/{name}/resize", pod)


DEVICE_CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
STORAGE = "/apis/storage.k8s.io/v1"
# kind -> (API version, collection path with {ns} for a namespaced kind)
KINDS = {
    "PersistentVolume": ("v1", "/api/v1/persistentvolumes"),
    "PersistentVolumeClaim": ("v1", "/api/v1/namespaces/{ns}/persistentvolumeclaims"),
    "StorageClass": ("storage.k8s.io/v1", f"{STORAGE}/storageclasses"),
    "CSINode": ("storage.k8s.io/v1", f"{STORAGE}/csinodes"),
    "CSIDriver": ("storage.k8s.io/v1", f"{STORAGE}/csidrivers"),
    "CSIStorageCapacity": ("storage.k8s.io/v1", f"{STORAGE}/namespaces/{{ns}}/csistoragecapacities"),
    "VolumeAttachment": ("storage.k8s.io/v1", f"{STORAGE}/volumeattachments"),
    "DeviceClass": ("resource.k8s.io/v1", DEVICE_CLASSES),
}
# The table's fields of initial objects, in RunTestCoreResourceEnqueue's order of creation (nodes first, pods last).
INITIAL = (("initialDeviceClasses", "DeviceClass"), ("initialCSINodes", "CSINode"),
           ("initialStorageCapacities", "CSIStorageCapacity"), ("initialVolumeAttachment", "VolumeAttachment"),
           ("initialCSIDrivers", "CSIDriver"), ("initialStorageClasses", "StorageClass"),
           ("initialPVs", "PersistentVolume"), ("initialPVCs", "PersistentVolumeClaim"))
# Cluster-scoped names of the rows' objects: renamed (a per-row suffix) wherever they appear, as node names are.
CLUSTER_NAMES = ("pv1", "pv2", "sc1", "csidriver", "csinode", "volumeattachment1", "volumeattachment2",
                 "fake-class")
_1MI = {"storage": "1Mi"}
_HOST_PATH = {"path": "/tmp", "type": "DirectoryOrCreate"}


def st_pv(name: str, access: str, labels: dict[str, str] | None = None,
          node_affinity: tuple[str, list[str]] | None = None) -> dict[str, Any]:
    """st.MakePersistentVolume().Name(name)[.Label(s)][.NodeAffinityIn(key, values)].AccessModes([access])
    .Capacity(1Mi).HostPathVolumeSource(/tmp, DirectoryOrCreate)."""
    spec: dict[str, Any] = {"accessModes": [access], "capacity": _1MI, "hostPath": _HOST_PATH}
    if node_affinity:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": node_affinity[0], "operator": "In", "values": node_affinity[1]}]}]}}
    return {"metadata": {"name": name, **({"labels": labels} if labels else {})}, "spec": spec}


def st_pvc(name: str, access: str, volume: str = "", bound: bool = True) -> dict[str, Any]:
    """st.MakePersistentVolumeClaim().Name(name)[.Annotation(AnnBindCompleted, "true")][.VolumeName(volume)]
    .AccessModes([access]).Resources(requests storage 1Mi)."""
    meta: dict[str, Any] = {"name": name}
    if bound:
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
    spec: dict[str, Any] = {"accessModes": [access], "resources": {"requests": _1MI}}
    if volume:
        spec["volumeName"] = volume
    return {"metadata": meta, "spec": spec}


def st_storage_class(labels: dict[str, str] | None = None, zones: list[str] | None = None) -> dict[str, Any]:
    """st.MakeStorageClass().Name("sc1")[.Label(...)].VolumeBindingMode(WaitForFirstConsumer).Provisioner("p")
    [.AllowedTopologies(zone In zones)]."""
    out: dict[str, Any] = {"metadata": {"name": "sc1", **({"labels": labels} if labels else {})},
                           "volumeBindingMode": "WaitForFirstConsumer", "provisioner": "p"}
    if zones:
        out["allowedTopologies"] = [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": zones}]}]
    return out


def _get_update(r: Row, kind: str, name: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Get, change, Update (the rows that read the object first)."""
    path = KINDS[kind][1].format(ns=r.ns) + "/" + r.case.node_name(name)
    obj = r.api.call("GET", path)
    change(obj)
    r.write(f"{kind}Update", "PUT", path, obj)
# Each row's TriggerFn, transcribed: the same writes, through Row.
TRIGGERS: dict[str, Callable[[Row], None]] = {
    "Pod without a required toleration to a node isn't requeued to activeQ":
        lambda r: r.update_node(st_node("fake-node", capacity={"cpu": "4"}, taints=[_TAINT_NOT_READY]), status=True),
    "Pod rejected by the PodAffinity plugin is requeued when a new Node is created":
        lambda r: r.create_node(st_node("fake-node2", {"node": "fake-node2"}, {"cpu": "2"})),
    "Pod updated with toleration requeued to activeQ":
        lambda r: r.update_pod("pod1", tolerations=[{"key": "taint-key", "operator": "Exists"}]),
    "Pod rejected by the TaintToleration plugin is requeued when the Node's taint is updated":
        lambda r: r.update_node(st_node("fake-node", taints=[{"key": "taint-key", "effect": "NoSchedule"}])),
    "Pod rejected by the TaintToleration plugin is requeued when a Node that has the correspoding taint is added":
        lambda r: r.create_node(st_node("fake-node2", taints=[{"key": "taint-key", "effect": "NoSchedule"}])),
    "Pod rejected by the NodeResourcesFit plugin is requeued when the Pod is updated to scale down":
        lambda r: _resize(r, "pod1", "2"),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Pod is deleted":
        lambda r: r.delete_pod("pod1"),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Node is created":
        lambda r: r.create_node(st_node("fake-node2", capacity={"cpu": "4"})),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated":
        lambda r: r.update_node(st_node("fake-node", capacity={"cpu": "4"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node has the extended resource, and DRAExtendedResource is disabled":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "4", "memory": "4000"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node has the extended resource, and DRAExtendedResource is enabled":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "4", "memory": "4000"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node does not have the extended resource, and DRAExtendedResource is disabled":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "4", "memory": "4000"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Node does not have the extended resource, and DRAExtendedResource is enabled":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "4", "memory": "4000"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin is requeued when created DeviceClass having the extended resource matching pod's requests, and DRAExtendedResource is enabled":
        lambda r: r.create("DeviceClass", _device_class("example.com/gpu")),
    "Pod rejected by the NodeResourcesFit plugin is requeued when updated DeviceClass has the extended resource, and DRAExtendedResource is enabled":
        lambda r: _get_update(r, "DeviceClass", "fake-class",
                              lambda dc: dc["spec"].update(extendedResourceName="example.com/gpu")),
    "Pod rejected by the NodeResourcesFit plugin isn't requeued when a Node is updated without increase in the requested resources":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "4", "memory": "4000"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated with increase in the requested resources":
        lambda r: r.update_node(st_node("fake-node1", capacity={"cpu": "5"}), status=True),
    "Pod rejected by the NodeResourcesFit plugin is requeued when a Node is updated with increase in the allowed pods number":
        lambda r: r.update_node(st_node("fake-node1", capacity={"pods": "3"}), status=True),
    "Updating pod label doesn't retry scheduling if the Pod was rejected by TaintToleration":
        lambda r: r.update_pod("pod1", labels={"key": "val"}),
    "Pod rejected by the PreFilter of NodeAffinity plugin and Filter of NodeResourcesFit is requeued based on both plugins":
        lambda r: r.update_node(st_node("fake-node", {"metadata.name": "fake-node"}, {"cpu": "4"}), status=True),
    "Pod rejected by the InterPodAffinity plugin is requeued when deleting the existed pod's label that matches the podAntiAffinity":
        lambda r: r.update_pod("pod1", labels={"anti2": "anti2"}),
    "Pod rejected by the InterPodAffinity plugin is requeued when deleting the existing pod that matches the target podAntiAffinity":
        lambda r: r.delete_pod("pod1"),
    "Pod rejected by the InterPodAffinity plugin is requeued when deleting the existing pod with podAntiAffinity that matches the target pod":
        lambda r: r.delete_pod("pod1"),
    "Pod rejected by the PodAffinity plugin is requeued when updating the existed pod's label to make it match the pod's podAffinity":
        lambda r: r.update_pod("pod1", labels={"aaa": "bbb"}),
    "Pod rejected by the InterPodAffinity plugin is requeued when creating the node with the topologyKey label of the pod affinity":
        lambda r: r.create_node(st_node("fake-node2", {"zone": "zone1"})),
    "Pod rejected by the InterPodAffinity plugin is requeued when updating the node with the topologyKey label of the pod affinity":
        lambda r: r.update_node(st_node("fake-node", {"node": "fake-node", "region": "region-2"})),
    "Pod rejected by the InterPodAffinity plugin is requeued when updating the node with the topologyKey label of the pod anti affinity":
        lambda r: r.update_node(st_node("fake-node", {"service": "service-b", "region": "fake-node", "other": "fake-node"})),
    "Pod rejected by the InterPodAffinity plugin is requeued when creating the node with the topologyKey label of the pod anti affinity":
        lambda r: r.create_node(st_node("fake-node2", {"zone": "fake-node"})),
    "Pod rejected with hostport by the NodePorts plugin is requeued when new node is created":
        lambda r: r.create_node(st_node("fake-node2", {"node": "fake-node2"})),
    "Pod rejected by the NodeUnschedulable plugin is requeued when the node is turned to ready":
        lambda r: r.update_node(st_node("fake-node", unschedulable=False)),
    "Pod rejected by the NodeUnschedulable plugin is requeued when a new node is created":
        lambda r: r.create_node(st_node("fake-node2")),
    "Pod rejected by the NodeUnschedulable plugin isn't requeued when another unschedulable node is created":
        lambda r: r.create_node(st_node("fake-node2", unschedulable=True)),
    "Pods with PodTopologySpread should be requeued when a Pod with matching label is scheduled":
        lambda r: r.create_pod({"metadata": {"name": "pod5", "labels": {"key1": "val"}},
                                "spec": {"nodeName": "fake-node", "containers": [{"name": "con0", "image": "image"}]}}),
    "Pods with PodTopologySpread should be requeued when a scheduled Pod label is updated to match the selector":
        lambda r: r.update_pod("pod1", labels={"key3": "val"}),
    "Pods with PodTopologySpread should be requeued when a scheduled Pod with matching label is deleted":
        lambda r: r.delete_pod("pod1"),
    "Pods with PodTopologySpread should be requeued when a Node with topology label is created":
        lambda r: r.create_node(st_node("fake-node3", {"node": "fake-node"})),
    "Pods with PodTopologySpread should be requeued when a Node is updated to have the topology label":
        lambda r: r.update_node(st_node("fake-node2", {"zone": "fake-node", "region": "fake-node", "service": "service-b"})),
    "Pods with PodTopologySpread should be requeued when a Node with a topology label is deleted":
        lambda r: r.delete_node("fake-node2"),
    "Pods with PodTopologySpread should be requeued when a NodeTaint of a Node with a topology label has been updated":
        lambda r: r.update_node(st_node("fake-node3", {"zone": "fake-node"},
                                        taints=[{"key": "aaa", "value": "bbb", "effect": "NoSchedule"}])),
    "Pod rejected with node by the VolumeZone plugin is requeued when the PV is added":
        lambda r: r.create("PersistentVolume", st_pv("pv2", "ReadOnlyMany", {"topology.kubernetes.io/zone": "us-west1-a"})),
    "Pod rejected with node by the VolumeZone plugin is requeued when the PV is updated":
        lambda r: r.update("PersistentVolume", st_pv("pv2", "ReadOnlyMany", {"topology.kubernetes.io/zone": "us-west1-a"})),
    "Pod rejected with node by the VolumeZone plugin is requeued when the PVC bound to the pod is added":
        lambda r: r.create("PersistentVolumeClaim", st_pvc("pvc2", "ReadWriteOncePod", "pv2")),
    "Pod rejected with node by the VolumeZone plugin is requeued when the PVC bound to the pod is updated":
        lambda r: r.update("PersistentVolumeClaim", st_pvc("pvc2", "ReadWriteOncePod", "pv2")),
    "Pod rejected with node by the VolumeZone plugin is requeued when the Storage class is added":
        lambda r: r.create("StorageClass", st_storage_class()),
    "Pod rejected with node by the VolumeZone plugin is not requeued when the PV is updated but the topology is same":
        lambda r: r.update("PersistentVolume", st_pv("pv2", "ReadOnlyMany", {"topology.kubernetes.io/zone": "us-east1",
                                                                             "unrelated": "unrelated"})),
    "Pod rejected by the VolumeRestriction plugin is requeued when the PVC bound to the pod is added":
        lambda r: r.create("PersistentVolumeClaim", st_pvc("pvc1", "ReadWriteOncePod", "pv1")),
    "Pod rejected by the VolumeRestriction plugin is requeued when the pod is deleted":
        lambda r: r.delete_pod("pod1"),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the Node is created":
        lambda r: r.create_node(st_node("fake-node2", {"topology.kubernetes.io/zone": "us-east-1a"})),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the Node is updated":
        lambda r: r.update_node(st_node("fake-node", {"node": "fake-node", "aaa": "ccc"})),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the PV is created":
        lambda r: (r.delete("PersistentVolume", "pv1"),
                   r.create("PersistentVolume", st_pv("pv1", "ReadWriteMany", node_affinity=("aaa", ["bbb"])))),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the PV is updated":
        lambda r: r.update("PersistentVolume", st_pv("pv1", "ReadWriteMany",
                                                     node_affinity=("topology.kubernetes.io/zone", ["us-east-1a"]))),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the PVC is created":
        lambda r: (r.delete("PersistentVolumeClaim", "pvc1"),
                   r.create("PersistentVolumeClaim", st_pvc("pvc1", "ReadOnlyMany", "pv1"))),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the PVC is updated":
        lambda r: r.update("PersistentVolumeClaim", st_pvc("pvc1", "ReadWriteMany", "pv1")),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the StorageClass is created":
        lambda r: r.create("StorageClass", st_storage_class()),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the StorageClass's AllowedTopologies is updated":
        lambda r: r.update("StorageClass", st_storage_class(zones=["us-west-1a"])),
    "Pod rejected with node by the VolumeBinding plugin is not requeued when the StorageClass is updated but the AllowedTopologies is same":
        lambda r: r.update("StorageClass", st_storage_class({"key": "updated"}, ["us-west-1a"])),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the CSINode is created":
        lambda r: r.create("CSINode", {"metadata": {"name": "fake-node"}, "spec": {"drivers": None}}),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the CSINode's MigratedPluginsAnnotation is updated":
        lambda r: _get_update(r, "CSINode", "fake-node", lambda o: o["metadata"].setdefault("annotations", {}).update(
            {"storage.alpha.kubernetes.io/migrated-plugins": "value"})),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the CSIDriver's StorageCapacity gets disabled":
        lambda r: _get_update(r, "CSIDriver", "csidriver", lambda o: o["spec"].update(storageCapacity=False)),
    "Pod rejected with node by the VolumeBinding plugin is not requeued when the CSIDriver is updated but the storage capacity is originally enabled":
        lambda r: _get_update(r, "CSIDriver", "csidriver", lambda o: o["spec"].update(storageCapacity=True)),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the CSIStorageCapacity is created":
        lambda r: r.create("CSIStorageCapacity", {"metadata": {"name": "csc"}, "storageClassName": "sc1", "capacity": "10"}),
    "Pod rejected with node by the VolumeBinding plugin is requeued when the CSIStorageCapacity is increased":
        lambda r: _get_update(r, "CSIStorageCapacity", "csc", lambda o: o.update(capacity="20")),
    "Pod rejected with node by the VolumeBinding plugin is not requeued when the CSIStorageCapacity is updated but the volumelimit is not increased":
        lambda r: _get_update(r, "CSIStorageCapacity", "csc", lambda o: o.update(capacity="5")),
    "Pod rejected the CSI NodeVolumeLimits plugin is requeued when the CSINode is added":
        lambda r: r.create("CSINode", {"metadata": {"name": "csinode"}, "spec": {"drivers": None}}),
    "Pod rejected with PVC by the CSI NodeVolumeLimits plugin is requeued when the pod having related PVC is deleted":
        lambda r: r.delete_pod("pod1"),
    "Pod rejected with PVC by the CSI NodeVolumeLimits plugin is requeued when the related PVC is added":
        lambda r: r.create("PersistentVolumeClaim", st_pvc("pvc2", "ReadWriteOncePod", "pv2")),
    "Pod with PVC rejected the CSI NodeVolumeLimits plugin is requeued when the VolumeAttachment is deleted":
        lambda r: r.delete("VolumeAttachment", "volumeattachment1"),
    "Pod with Inline Migratable volume (AWSEBSDriver and GCEPDDriver) rejected the CSI NodeVolumeLimits plugin is requeued (only AWSEBSDriver) when the VolumeAttachment is deleted":
        lambda r: r.delete("VolumeAttachment", "volumeattachment1"),
}
# Rows whose trigger updates an unscheduled pod (UnscheduledPodUpdate, like kubeberth's own status writes).
POD_UPDATE_TRIGGERS = (
    "Pod updated with toleration requeued to activeQ",
    "Pod rejected by the NodeResourcesFit plugin is requeued when the Pod is updated to scale down",
    "Updating pod label doesn't retry scheduling if the Pod was rejected by TaintToleration",
)
# Nodes a trigger creates (named like the row's nodes, so renamed alike).
TRIGGER_NODES = ("fake-node2", "fake-node3")


@pytest.fixture
def case(kubeberth_enqueue: Kubeberth, api: Api) -> Iterator[Case]:
    with case_of(api, kubeberth_enqueue) as c:
        yield c


def _params() -> list[Any]:
    out = []
    for row in ROWS:
        marks = [pytest.mark.xfail(strict=True, reason=DIFFERENCES[row["name"]])] if row["name"] in DIFFERENCES else []
        out.append(pytest.param(row, id=row["name"], marks=marks))
    return out


@pytest.mark.parametrize("tc", _params())
def test_TestCoreResourceEnqueue(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """RunTestCoreResourceEnqueue for one row of CoreResourceEnqueueTestCases (see the module docstring)."""
    r = Row(case, tc)
    try:
        _run(r, tc)
    finally:
        _forget(r)


def _run(r: Row, tc: dict[str, Any]) -> None:
    r.case.rename_nodes([n["metadata"]["name"] for n in tc["initialNodes"] or []] + list(TRIGGER_NODES)
                        + list(CLUSTER_NAMES))
    for node in tc["initialNodes"] or []:
        r.create_node(node)
    for field, kind in INITIAL:
        for obj in tc[field] or []:
            r.create(kind, obj)
    for pod in tc["initialPods"] or []:
        r.create_pod(pod)
    r.settle()  # the pods' first attempts see every node and object of the row
    for pod in tc["pods"]:
        r.create_pod(pod)
    names = [p["metadata"]["name"] for p in tc["pods"]]
    for name in names:  # each pod was attempted once, and rejected
        wait_for(lambda name=name: (_decision(r.kb, r.ns, name) or {}).get("result") == "Unschedulable", 30,
                 f"{r.ns}/{name} rejected", interval=0.02)
        got = _decision(r.kb, r.ns, name)
        assert got is not None and got["attempt"] == 1, got
    r.settle()
    if tc["name"] in POD_UPDATE_TRIGGERS:
        r.quiesce()  # kubeberth's own status writes of the rejections are UnscheduledPod updates too
    r.expected = Counter()  # from here on, the trigger's writes
    r.base = _handled(r.kb)
    TRIGGERS[tc["name"]](r)
    trigger = set(r.expected)
    r.settle()
    held = _held(r.kb)
    requeued = {n for n in names if _requeued_by(r, n, f"{r.ns}/{n}" in held.get("unschedulable", []), trigger)}
    want = set(tc["wantRequeuedPods"] or {})
    assert requeued == want, f"requeued {sorted(requeued)}, want {sorted(want)}; held {held}\n{r.kb.log_tail(15)}"


def _requeued_by(r: Row, name: str, left: bool, trigger: set[str]) -> bool:
    """Did the trigger move the pod out of the unschedulable pool? A pod the dump found still there (`left`)
    with no second attempt was not moved; any other has a second attempt, now or soon, whose record names the
    event that moved it (requeued_by): one of the trigger's, or a later one (kubeberth, unlike upstream's
    stopped queue, goes on scheduling: a requeued pod's binding is an AssignedPodAdd that may move another)."""
    def second() -> dict[str, Any] | None:
        got = _decision(r.kb, r.ns, name) or {}
        return next((a for a in [got, *got.get("earlier_attempts", [])] if a.get("attempt") == 2), None)

    if left and second() is None:
        return False
    wait_for(lambda: second() is not None, 30, f"{r.ns}/{name}'s second attempt", interval=0.02)
    by = (second() or {}).get("requeued_by", "")
    return any(by.startswith(label) or (label == "UnscheduledPodUpdate" and by.startswith("TargetPod"))
               for label in trigger)


def _forget(r: Row) -> None:
    """The row's objects go (case_of deletes them); wait until kubeberth has seen its nodes go, so the next
    row's pods never see them."""
    expected_deletes = len(r.live_nodes)
    base = _handled(r.kb)["NodeDelete"]
    r.case.cleanup()
    r.case.namespaces.clear()
    r.case.node_names.clear()
    r.case.cluster_scoped.clear()
    wait_for(lambda: _handled(r.kb)["NodeDelete"] - base >= expected_deletes, 30, "row's nodes deleted", interval=0.02)


def _wait_nodes_forgotten(kb: Kubeberth, base: int, count: int) -> None:
    wait_for(lambda: _handled(kb)["NodeDelete"] - base >= count, 30, "nodes deleted", interval=0.02)


@pytest.mark.parametrize("key", list(EXTENSION_CASES), ids=["/".join(k) for k in EXTENSION_CASES])
def test_plugins_extension_points(case: Case, key: tuple[str, str]) -> None:
    """plugins_test.go's TestPreFilterPlugin, TestFilterPlugin, TestPreScorePlugin, TestScorePlugin,
    TestReservePluginReserve and TestPostBindPlugin: the case's nodes (st.MakeNode, in kubeberth's cache first), a
    pause pod; it is scheduled, unschedulable, or has a scheduling error; the plugin was called (once per node for
    FilterPlugin with one node and a scheduled pod); ScorePlugin's pod lands on the node it scored first;
    PostBindPlugin is called after a bind, not after a PreBind failure."""
    assert "/".join(key) in UPSTREAM_EXTENSION_CASES
    i = list(EXTENSION_CASES).index(key)
    plugin, _point, _args, count, outcome = EXTENSION_CASES[key]
    nodes = [f"test-node-{n}" for n in range(count)]
    case.node_names.update({n: _extension_node(n, i) for n in nodes})
    base = _handled(case.kb)
    for node in nodes:
        case.node(make_node(node, labels={"kubernetes.io/hostname": case.node_name(node)}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] - base["NodeAdd"] >= count, 30, "nodes in kubeberth's cache",
             interval=0.02)
    ns = case.ns(key[0].removeprefix("Test").lower())
    start = len(case.kb.log_text())
    case.pod({"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "test-pod", "image": PAUSE}]}},
             ns, scheduler=f"{PROFILE}-ext-{i}")
    node = ""
    if outcome == "scheduled":
        node = case.wait_scheduled(ns, "test-pod")
    elif outcome == "unschedulable":
        case.wait_unschedulable(ns, "test-pod")
    else:
        _scheduling_error(case, ns, "test-pod")
    calls = [x for x in case.kb.log_text()[start:].splitlines() if f"{plugin} called for {ns}/test-pod" in x]
    assert calls, f"{plugin} was not called"
    if key[0] in POST_BIND_CASES:  # PostBind runs after a bind only
        def post_bound() -> list[str]:
            return [x for x in case.kb.log_text()[start:].splitlines() if f"postbind-plugin called for {ns}/" in x]
        if outcome == "scheduled":
            wait_for(post_bound, 15, "postbind-plugin called", interval=0.02)
        else:
            assert post_bound() == []
    if key == ("TestFilterPlugin", "do not fail filter plugin"):
        assert len(calls) == 1, calls
    if key == ("TestScorePlugin", "do not fail score plugin"):
        high = [x.split("highScoreNode ", 1)[1].split(" ", 1)[0] for x in case.kb.log_text()[start:].splitlines()
                if "highScoreNode" in x and f" for {ns}/test-pod" in x]
        assert high == [node], (high, node)
    base_delete = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base_delete, count)


@pytest.mark.parametrize("name", list(PREBIND_CASES))
def test_TestPrebindPlugin(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """Two nodes; prebind-plugin in the default-scheduler profile, filter-plugin (rejecting) in a 2nd-scheduler one;
    the unschedulable pod (2nd-scheduler) first, where the case has one; test-pod is scheduled (also after a first
    PreBind failure, on retry, within 10 s), unschedulable, or has a scheduling error; prebind-plugin was called;
    a PreBind failure moves the unschedulable pod: filter-plugin has run at least 2 x 2 nodes times for it."""
    assert f"TestPrebindPlugin/{name}" in UPSTREAM_PREBIND
    i = list(PREBIND_CASES).index(name)
    _args, second, outcome = PREBIND_CASES[name]
    nodes = ["test-node-0", "test-node-1"]
    case.rename_nodes(nodes)
    base = _handled(case.kb)
    for node in nodes:
        case.node(make_node(node, labels={"kubernetes.io/hostname": case.node_name(node)}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] - base["NodeAdd"] >= 2, 30, "nodes in kubeberth's cache",
             interval=0.02)
    ns = case.ns("prebind-plugin")
    start = len(case.kb.log_text())
    pause = {"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "test-pod", "image": PAUSE}]}}
    if second:
        other = {"metadata": {"name": "unschedulable-pod"}, "spec": {"containers": [{"name": "con0", "image": PAUSE}]}}
        case.pod(other, ns, scheduler=f"{PROFILE}-prebind-{i}-2nd")
    case.pod(pause, ns, scheduler=f"{PROFILE}-prebind-{i}")
    if outcome == "scheduled":
        case.wait_scheduled(ns, "test-pod")
    elif outcome == "unschedulable":
        case.wait_unschedulable(ns, "test-pod")
    else:
        _scheduling_error(case, ns, "test-pod")
    log = case.kb.log_text()[start:]
    assert f"prebind-plugin called for {ns}/test-pod" in log
    if second:
        def filtered() -> int:
            return case.kb.log_text()[start:].count(f"filter-plugin called for {ns}/unschedulable-pod")
        wait_for(lambda: filtered() >= 2 * len(nodes), 15, "the unschedulable pod retried", interval=0.02)
    base_delete = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base_delete, 2)


@pytest.mark.parametrize("name", list(NNN_CASES))
def test_TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit(case: Case, name: str) -> None:  # noqa: N802
    """Ten nodes (in kubeberth's cache first); test-pod: with a PreBind that will run, or a Permit that waits, its
    status.nominatedNodeName is set (upstream waits 1 s; 10 s here, on a shared 2-core machine); with neither, it is
    scheduled, and NoNNNPostBindPlugin saw no nomination at PostBind. NominatedNodeNameForExpectation is on (its
    default; upstream also runs it off)."""
    assert f"TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit/{name}" in UPSTREAM_NNN
    i = list(NNN_CASES).index(name)
    want_nnn = NNN_CASES[name][1]
    nodes = [f"test-node-{n}" for n in range(10)]
    case.rename_nodes(nodes)
    base = _handled(case.kb)
    for node in nodes:
        case.node(make_node(node, labels={"kubernetes.io/hostname": case.node_name(node)}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] - base["NodeAdd"] >= 10, 30, "nodes in kubeberth's cache",
             interval=0.02)
    ns = case.ns("nnn-test")
    start = len(case.kb.log_text())
    pause = {"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "test-pod", "image": PAUSE}]}}
    case.pod(pause, ns, scheduler=_nnn_profile(i))
    if want_nnn:
        wait_for(lambda: (case.get(ns, "test-pod").get("status") or {}).get("nominatedNodeName"), 10,
                 "status.nominatedNodeName", interval=0.02)
        assert not case.get(ns, "test-pod")["spec"].get("nodeName")
    else:
        case.wait_scheduled(ns, "test-pod")
        wait_for(lambda: f"bound {ns}/test-pod" in case.kb.log_text()[start:], 10, "the binding logged", interval=0.02)
    assert "PostBind should not set" not in case.kb.log_text()[start:]
    base_delete = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base_delete, 10)


@pytest.mark.parametrize("tc", cases(GATES, "TestSchedulingGates", {}))
def test_TestSchedulingGates(case: Case, tc: dict[str, Any]) -> None:  # noqa: N802 - the upstream name
    """One node; the pods created; those of `schedule` scheduled (upstream pops them one by one, kubeberth
    schedules them on its own); those of `delete` deleted (an AssignedPodDelete); no pod of the case in activeQ
    or backoffQ (held-pods dump: the gated ones are gated); then the gates of `rmGates` removed (a strategic merge
    patch) and those pods scheduled."""
    scheduler = _profile_name(None)  # the default plugins: upstream's default profile
    ns = case.ns("pod-scheduling-gates")
    case.rename_nodes(["node"])
    case.node(make_node("node"))
    for pod in tc["pods"]:
        case.pod(pod, ns, scheduler=scheduler)
    for name in tc["schedule"] or []:
        case.wait_scheduled(ns, name)
    for name in tc["delete"] or []:
        case.api.call("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}")  # DeleteOptions{}: the default grace
        case.api.call("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}", {"gracePeriodSeconds": 0}, ok=(200, 404))
        wait_for(lambda name=name: case.api.pod(ns, name) is None, 30, f"{name} deleted")
    held = _held(case.kb)
    queued = [k for where in ("active", "backoff") for k in held.get(where, []) if k.startswith(f"{ns}/")]
    assert queued == [], held
    gated = {p["metadata"]["name"] for p in tc["pods"] if p["spec"].get("schedulingGates")}
    assert {k.split("/", 1)[1] for k in held.get("gated", []) if k.startswith(f"{ns}/")} == gated, held
    for name in tc["rmGates"] or []:
        case.api._patch(f"/api/v1/namespaces/{ns}/pods/{name}", {"spec": {"schedulingGates": None}})
    for name in tc["rmGates"] or []:
        case.wait_scheduled(ns, name)
    base = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base, 1)


def test_TestRequeueByBindFailure(case: Case) -> None:  # noqa: N802 - the upstream name
    """firstFailBindPlugin (a drop-in here, DefaultBinder disabled) fails the first Bind call: the pod goes back
    to the queue with no event, and is scheduled by the second binding try; the plugin failed exactly once
    (upstream's counter 1: the pod's first attempt ended in its error, the second bound it)."""
    ns = case.ns("core-res-enqueue")
    case.rename_nodes(["fake-node"])
    case.node(make_node("fake-node"))
    pod = {"metadata": {"name": "pod-1"}, "spec": {"containers": [{"name": "con0", "image": PAUSE}]}}
    node = case.wait_scheduled(*case.pod(pod, ns, scheduler=BIND_FAILURE))
    assert node == case.node_name("fake-node")
    got = _decision(case.kb, ns, "pod-1")
    assert got is not None and got["attempt"] == 2 and got["result"] == "Scheduled", got
    first = [a for a in got["earlier_attempts"] if a["attempt"] == 1]
    assert len(first) == 1 and first[0]["result"] == "Scheduled", got  # its node picked, then
    # RunBindPlugins' wrapping, as kube-scheduler's: running Bind plugin "<name>": <its error>
    assert first[0]["binding"] == {"result": "Error", "plugin": "firstFailBindPlugin", "message":
                                   'running Bind plugin "firstFailBindPlugin": firstFailBindPlugin rejects the Pod'}, got
    assert got["requeued_by"] == "", got  # back to the queue without any event
    base = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base, 1)


def _scheduling_error(case: Case, ns: str, name: str) -> None:
    """testutils.PodSchedulingError: PodScheduled False with a reason other than Unschedulable."""
    def errored() -> bool:
        conditions = (case.get(ns, name).get("status") or {}).get("conditions") or []
        return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") != "Unschedulable"
                   for c in conditions)
    wait_for(errored, 30, f"{ns}/{name} scheduling error", interval=0.02)


@pytest.mark.parametrize("name", list(RESCHEDULING))
def test_TestReScheduling(case: Case, name: str) -> None:  # noqa: N802 - the upstream name
    """Two nodes (test-node-0, test-node-1, in kubeberth's cache before the pod, as CreateAndWaitForNodesInCache);
    test-pod's first attempt fails at the plugin (Unschedulable, or an Error); the action (a Node/Add, or another
    pause pod: an event the plugins did not register); then the pod is scheduled, errs again, or stays unschedulable.
    Upstream runs each case with SchedulerAsyncAPICalls on and off; kubeberth has one status-write path, run once.
    For the unrelated event, upstream only checks the pod is still unschedulable; here also that it was not
    retried (still its first attempt, in the unschedulable pool, after test-pod-2 bound and that was handled)."""
    assert f"TestReScheduling/{name}" in UPSTREAM_RESCHEDULING
    i = list(RESCHEDULING).index(name)
    plugin, code, action, first_error, want_scheduled, want_error = RESCHEDULING[name]
    scheduler = _rescheduling_profile(i)
    nodes = ["test-node-0", "test-node-1", "fake-node"]
    case.rename_nodes(nodes)
    base = _handled(case.kb)
    for node in nodes[:2]:
        real = case.node_name(node)
        case.node(make_node(node, labels={"kubernetes.io/hostname": real}))
    wait_for(lambda: _handled(case.kb)["NodeAdd"] - base["NodeAdd"] >= 2, 30, "nodes in kubeberth's cache",
             interval=0.02)
    ns = case.ns("permit-plugin")
    pause = {"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "test-pod", "image": PAUSE}]}}
    case.pod(pause, ns, scheduler=scheduler)
    if first_error:
        _scheduling_error(case, ns, "test-pod")
    else:
        case.wait_unschedulable(ns, "test-pod")
    said = {("permit", "Error"): "failed to permit", ("permit", "Unschedulable"): "reject to permit",
            ("reserve", "Error"): "failed to reserve", ("reserve", "Unschedulable"): "reject to reserve"}[plugin, code]
    assert said in json.dumps(case.get(ns, "test-pod").get("status")), case.get(ns, "test-pod")  # the plugin's word
    base = _handled(case.kb)
    if action == "node":
        case.node(make_node("fake-node"))
    else:
        other = {"metadata": {"name": "test-pod-2"}, "spec": {"containers": [{"name": "test-pod-2", "image": PAUSE}]}}
        case.pod(other, ns, scheduler=scheduler)
        case.wait_scheduled(ns, "test-pod-2")
        wait_for(lambda: _handled(case.kb)["AssignedPodAdd"] > base["AssignedPodAdd"], 30, "test-pod-2's binding seen",
                 interval=0.02)
    if want_scheduled:
        case.wait_scheduled(ns, "test-pod")
    elif want_error:
        _scheduling_error(case, ns, "test-pod")
    else:
        case.wait_unschedulable(ns, "test-pod")
        held = _held(case.kb)
        assert f"{ns}/test-pod" in held.get("unschedulable", []), held
        assert (_decision(case.kb, ns, "test-pod") or {}).get("attempt") == 1
    created = 3 if action == "node" else 2
    base_delete = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base_delete, created)


def test_TestUpdateNodeEvent(case: Case) -> None:  # noqa: N802 - the upstream name
    """eventhandler_test.go: node-0 tainted node.kubernetes.io/unschedulable:NoSchedule; test-pod (no tolerations)
    rejected by fooPlugin (Filter: every other filter disabled); the node updated, a label added and its taints
    removed (one update: UpdateNodeLabel and UpdateNodeTaint), and the pod is scheduled."""
    case.rename_nodes(["node-0"])
    real = case.node_name("node-0")
    case.node({**make_node("node-0", labels={"kubernetes.io/hostname": real},
                           taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}])})
    ns = case.ns("test-event")
    pod = {"metadata": {"name": "test-pod"}, "spec": {"containers": [{"name": "test-pod", "image": PAUSE}]}}
    case.pod(pod, ns, scheduler=UPDATE_NODE_EVENT)
    case.wait_unschedulable(ns, "test-pod")
    assert "foo" in json.dumps((_decision(case.kb, ns, "test-pod") or {}).get("rejected"))
    node = case.api.call("GET", f"/api/v1/nodes/{real}")
    node["metadata"]["labels"]["foo"] = "bar"
    node["spec"]["taints"] = None
    case.api.call("PUT", f"/api/v1/nodes/{real}", node)
    case.wait_scheduled(ns, "test-pod")
    base = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base, 1)


def test_TestPreQueueingHintNarrowsPodSet_feature_disabled(case: Case) -> None:  # noqa: N802 - the upstream name
    """TestPreQueueingHintNarrowsPodSet/feature disabled: all pods evaluated. node-1 (cpu 2) lacks the
    enable-scheduling label, so preQueueingHintPlugin's Filter rejects pod-1..3; a label added to the node
    (UpdateNodeLabel) has its QueueingHintFn called once per rejected pod: 3 calls (counted in kubeberth's log,
    from the update on)."""
    case.rename_nodes(["node-1"])
    real = case.node_name("node-1")
    case.node(make_node("node-1", labels={"kubernetes.io/hostname": real}, capacity={"cpu": "2"}))
    ns = case.ns("prequeueinghint")
    for i in (1, 2, 3):
        case.pod({"metadata": {"name": f"pod-{i}"}, "spec": {"containers": [
            {"name": "c", "image": "pause", "resources": {"requests": {"cpu": "100m"}}}]}}, ns, scheduler=PRE_QUEUEING_HINT)
    for i in (1, 2, 3):
        case.wait_unschedulable(ns, f"pod-{i}")
        wait_for(lambda i=i: (_decision(case.kb, ns, f"pod-{i}") or {}).get("result") == "Unschedulable", 30,
                 f"pod-{i} rejected", interval=0.02)
    start = len(case.kb.log_text())
    base = _handled(case.kb)["NodeUpdate"]
    node = case.api.call("GET", f"/api/v1/nodes/{real}")
    node["metadata"]["labels"]["some-label"] = "some-value"
    case.api.call("PUT", f"/api/v1/nodes/{real}", node)
    wait_for(lambda: _handled(case.kb)["NodeUpdate"] > base, 30, "the node update handled", interval=0.02)
    def hint_calls() -> list[str]:
        return [x for x in case.kb.log_text()[start:].splitlines() if "queueingHint called for" in x and f" {ns}/" in x]

    wait_for(lambda: len(hint_calls()) >= 3, 10, "three hint calls logged", interval=0.02)
    calls = hint_calls()
    assert sorted(x.rsplit("/", 1)[1] for x in calls) == ["pod-1", "pod-2", "pod-3"], calls
    base = _handled(case.kb)["NodeDelete"]
    case.cleanup()
    case.node_names.clear()
    _wait_nodes_forgotten(case.kb, base, 1)


@pytest.mark.parametrize("name", list(ENDPOINT_HANDLERS))
def test_TestEndpointHandlers(kubeberth_enqueue: Kubeberth, control_plane: LocalControlPlane, sa_kubeconfig: str,
                              tmp_path: Path, name: str) -> None:  # noqa: N802 - the upstream name
    """serving/endpoints_test.go: GET the path of a running scheduler (this module's kubeberth, its probe
    address, where upstream reads kube-scheduler's secure port with the path always allowed); with a kubeconfig
    pointing at 127.0.0.2 (no API server there: its informers never sync), /readyz answers 500. Upstream retries
    while sched-handler-sync has not passed yet; the module's kubeberth is ready before its first test."""
    assert f"TestEndpointHandlers/{name}" in UPSTREAM_ENDPOINT_HANDLERS
    path, broken, want = ENDPOINT_HANDLERS[name]
    if not broken:
        assert kubeberth_enqueue.get(path)[0] == want
        return
    config = tmp_path / "kubeconfig"
    config.write_text(Path(sa_kubeconfig).read_text().replace("127.0.0.1", "127.0.0.2"))
    kb = Kubeberth(control_plane, str(config), _config(tmp_path / "config.yaml"), False, f"kubeberth-broken-{suffix()}")
    try:
        def answered() -> int:
            assert kb.proc.poll() is None, kb.log_tail()
            return kb.probe(path)

        wait_for(answered, 30, f"{path} served", interval=0.05)
        status, body = kb.get(path)
        assert status == want, (status, body)
        assert b"sched-handler-sync" in body, body
    finally:
        kb.stop()

"""PodTopologySpread: kube-scheduler v1.37.2's podtopologyspread test tables, case by case.

Tables transcribed from filtering_test.go and scoring_test.go (see st.py); each case runs the hooks
the Go test runs and asserts what it asserts.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import st
from kubeberth import Code, CycleState, FeatureGates, LabelSelector
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.pod_topology_spread import PodTopologySpread, PodTopologySpreadArgs
from kubeberth.scheduling.pod_events import target_pod_events
from st import appsv1, fwk, ptr, sets, v1
from upstream import cases, run_filter, run_score, snapshot, update_event, view


class config:  # noqa: N801 - k8s.io/kubernetes/pkg/scheduler/apis/config
    ListDefaulting = "List"
    SystemDefaulting = "System"


ignorePolicy = v1.NodeInclusionPolicyIgnore
honorPolicy = v1.NodeInclusionPolicyHonor
fooSelector = st.MakeLabelSelector().Exists("foo").Obj()
barSelector = st.MakeLabelSelector().Exists("bar").Obj()
taints = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": v1.TaintEffectNoSchedule}]
t = None  # the Go test's *testing.T, passed to its helpers
MaxInt32 = 2**31 - 1


def mustConvertLabelSelectorAsSelector(_t: Any, selector: dict[str, Any] | None) -> LabelSelector:
    return LabelSelector.from_api(selector)


class labels:  # noqa: N801 - k8s.io/apimachinery/pkg/labels
    @staticmethod
    def Nothing() -> LabelSelector:
        return LabelSelector.from_api(None)

    @staticmethod
    def SelectorFromSet(s: dict[str, str]) -> LabelSelector:
        return LabelSelector.from_set(s)


def criticalPaths(*paths: list[Any] | dict[str, Any]) -> list[tuple[str, int]]:
    return [(p.get("topologyValue", ""), p["matchNum"]) if isinstance(p, dict) else (p[0], p[1]) for p in paths]


def newCriticalPaths() -> list[tuple[str, int]]:
    return [("", MaxInt32), ("", MaxInt32)]


def topologyNormalizingWeight(size: int) -> float:
    return math.log(size + 2)

# Cases that run kube-scheduler with NodeInclusionPolicyInPodTopologySpread switched off (the plugin's
# enableNodeInclusionPolicy field false) while the pod sets nodeAffinityPolicy/nodeTaintsPolicy: the gate is GA and
# locked on in v1.37, so the runners read such a pod without those fields (`gated`). MatchLabelKeysInPodTopologySpread
# (beta) can be switched off: a case's enableMatchLabelKeys is the plugin's gate (`match_label_keys_gates`).


TestSingleConstraint = [
    {
        "name": "TestSingleConstraint/no existing pods",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/no existing pods, incoming pod doesn't match itself",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/existing pods in a different namespace do not count",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Namespace("ns2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/existing pods do not match null selector",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, None, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across zones as 3/3, all nodes fit",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zon", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.UnschedulableAndUnresolvable,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/pod cannot be scheduled as all nodes don't have label 'rack'",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "rack", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.UnschedulableAndUnresolvable,
            "node-x": fwk.UnschedulableAndUnresolvable,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across nodes as 2/1/0/3, only node-x fits",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        "pod": st.MakePod()
        .Name("p")
        .Label("bar", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("node", ["node-a", "node-y"], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/terminating Pods should be excluded",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {"node-a": fwk.Success, "node-b": fwk.Unschedulable},
    },
    {
        "name": "TestSingleConstraint/incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityNotIn("node", ["node-b"])
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "node", v1.DoNotSchedule, fooSelector, ptr.To(4), None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {"node-a": fwk.Unschedulable, "node-b": fwk.Unschedulable, "node-c": fwk.Success},
    },
    {
        "name": "TestSingleConstraint/pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "node", v1.DoNotSchedule, fooSelector, ptr.To(2), None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {"node-a": fwk.Success, "node-b": fwk.Success, "node-c": fwk.Success},
    },
    {
        "name": "TestSingleConstraint/pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "zone", v1.DoNotSchedule, fooSelector, ptr.To(3), None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "zone", v1.DoNotSchedule, fooSelector, ptr.To(1), None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestSingleConstraint/NodeAffinityPolicy honored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestSingleConstraint/NodeAffinityPolicy ignored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestSingleConstraint/NodeAffinityPolicy honored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestSingleConstraint/NodeAffinityPolicy ignored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestSingleConstraint/NodeTaintsPolicy honored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Taints(taints).Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestSingleConstraint/NodeTaintsPolicy ignored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
            st.MakeNode().Name("node-y").Label("node", "node-y").Taints(taints).Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
]


TestMultipleConstraints = [
    {
        "name": "TestMultipleConstraints/two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Success,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        "pod": st.MakePod()
        .Name("p")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("bar", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Success,
            "node-b": fwk.Success,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Success,
            "node-x": fwk.UnschedulableAndUnresolvable,
            "node-y": fwk.Unschedulable,
        },
    },
    {
        "name": "TestMultipleConstraints/two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("node", "node-b")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestMultipleConstraints/two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, honorPolicy, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("node", "node-b")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Taints(taints).Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestMultipleConstraints/two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-y")
            .Label("zone", "zone2")
            .Label("node", "node-y")
            .Label("foo", "")
            .Taints(taints)
            .Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Success,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestMultipleConstraints/two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, honorPolicy, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-y")
            .Label("zone", "zone2")
            .Label("node", "node-y")
            .Label("foo", "")
            .Taints(taints)
            .Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Unschedulable,
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestMultipleConstraints/two Constraints on zone, spreads = [3/3, 2/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, None, None, None, None)
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Success,
            "node-y": fwk.Success,
        },
    },
    {
        "name": "TestMultipleConstraints/two Constraints on zone, spreads = [3/4, 2/1]",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, None, None, None, None)
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "wantStatusCode": {
            "node-a": fwk.Unschedulable,
            "node-b": fwk.Unschedulable,
            "node-x": fwk.Unschedulable,
            "node-y": fwk.Unschedulable,
        },
    },
]


TestPodTopologySpreadScore = [
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, no existing pods",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
        ],
        "want": [{"name": "node-a", "score": 100}, {"name": "node-b", "score": 100}],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, only one node is candidate",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
        ],
        "nodes": [st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj()],
        "failedNodes": [st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj()],
        "want": [{"name": "node-a", "score": 100}],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, all nodes have the same number of matching pods",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
        ],
        "want": [{"name": "node-a", "score": 100}, {"name": "node-b", "score": 100}],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "failedNodes": [],
        "want": [
            {"name": "node-a", "score": 20},
            {"name": "node-b", "score": 60},
            {"name": "node-c", "score": 100},
            {"name": "node-d", "score": 0},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, null selector",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, None, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 100},
            {"name": "node-b", "score": 100},
            {"name": "node-c", "score": 100},
            {"name": "node-d", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates, maxSkew=2",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d2").Node("node-d").Label("foo", "").Obj(),
            st.MakePod().Name("p-d3").Node("node-d").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "failedNodes": [],
        "want": [
            {"name": "node-a", "score": 33},
            {"name": "node-b", "score": 66},
            {"name": "node-c", "score": 100},
            {"name": "node-d", "score": 16},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, all 4 nodes are candidates, maxSkew=3",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(3, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "failedNodes": [],
        "want": [
            {"name": "node-a", "score": 44},
            {"name": "node-b", "score": 66},
            {"name": "node-c", "score": 77},
            {"name": "node-d", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/system defaulting, nodes don't have zone, pods match service",
        "pod": st.MakePod().Name("p").Label("foo", "").Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b3").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-c2").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-d1").Node("node-d").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "failedNodes": [],
        "objs": [{"kind": "Service", "spec": {"selector": {"foo": ""}}}],
        "want": [
            {"name": "node-a", "score": 44},
            {"name": "node-b", "score": 66},
            {"name": "node-c", "score": 77},
            {"name": "node-d", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, 3 out of 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "failedNodes": [st.MakeNode().Name("node-y").Label(v1.LabelHostname, "node-y").Obj()],
        "want": [
            {"name": "node-a", "score": 33},
            {"name": "node-b", "score": 83},
            {"name": "node-x", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("n", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "failedNodes": [st.MakeNode().Name("node-y").Label(v1.LabelHostname, "node-y").Obj()],
        "want": [
            {"name": "node-a", "score": 16},
            {"name": "node-b", "score": 0},
            {"name": "node-x", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/one constraint on zone, 3 out of 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a3").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a4").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "failedNodes": [
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj()
        ],
        "want": [
            {"name": "node-a", "score": 75},
            {"name": "node-b", "score": 75},
            {"name": "node-x", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/two Constraints on zone and node, 2 out of 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "failedNodes": [
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
        ],
        "want": [{"name": "node-a", "score": 100}, {"name": "node-x", "score": 63}],
    },
    {
        "name": "TestPodTopologySpreadScore/two Constraints on zone, 2 out of 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Obj(),
        ],
        "failedNodes": [
            st.MakeNode().Name("node-b").Label("zone", "zone1").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Obj(),
        ],
        "want": [{"name": "node-a", "score": 85}, {"name": "node-x", "score": 100}],
    },
    {
        "name": "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
        ],
        "failedNodes": [],
        "want": [
            {"name": "node-a", "score": 60},
            {"name": "node-b", "score": 20},
            {"name": "node-x", "score": 100},
            {"name": "node-y", "score": 60},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj(),
        ],
        "failedNodes": [],
        "want": [
            {"name": "node-a", "score": 100},
            {"name": "node-b", "score": 60},
            {"name": "node-x", "score": 40},
            {"name": "node-y", "score": 0},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "failedNodes": [
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label(v1.LabelHostname, "node-y").Obj()
        ],
        "want": [
            {"name": "node-a", "score": 50},
            {"name": "node-b", "score": 25},
            {"name": "node-x", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/existing pods in a different namespace do not count",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
        ],
        "want": [{"name": "node-a", "score": 100}, {"name": "node-b", "score": 33}],
    },
    {
        "name": "TestPodTopologySpreadScore/terminating Pods should be excluded",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("foo", "").Obj(),
        ],
        "want": [{"name": "node-a", "score": 100}, {"name": "node-b", "score": 0}],
    },
    {
        "name": "TestPodTopologySpreadScore/minDomains has no effect when ScheduleAnyway",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(2, "node", v1.ScheduleAnyway, fooSelector, ptr.To(10), None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 75},
            {"name": "node-b", "score": 75},
            {"name": "node-c", "score": 100},
        ],
    },
    {
        "name": "TestPodTopologySpreadScore/NodeAffinityPolicy honoed with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 0},
            {"name": "node-b", "score": 33},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/NodeAffinityPolicy ignored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 66},
            {"name": "node-b", "score": 100},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/NodeAffinityPolicy honoed with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 0},
            {"name": "node-b", "score": 33},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/NodeAffinityPolicy ignored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 66},
            {"name": "node-b", "score": 100},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/NodeTaintsPolicy honored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 0},
            {"name": "node-b", "score": 33},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/NodeTaintsPolicy ignored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 66},
            {"name": "node-b", "score": 100},
            {"name": "node-c", "score": 100},
        ],
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPodTopologySpreadScore/matchLabelKeys ignored when feature gate disabled",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .Label("baz", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, ["baz"])
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, ["baz"])
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-c").Label("bar", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 60},
            {"name": "node-b", "score": 20},
            {"name": "node-c", "score": 60},
            {"name": "node-d", "score": 100},
        ],
        "enableMatchLabelKeys": False,
    },
    {
        "name": "TestPodTopologySpreadScore/matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(
            1, "zone", v1.ScheduleAnyway, st.MakeLabelSelector().Obj(), None, None, None, ["foo"]
        )
        .SpreadConstraint(
            1, v1.LabelHostname, v1.ScheduleAnyway, st.MakeLabelSelector().Obj(), None, None, None, ["bar"]
        )
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-c").Label("bar", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 60},
            {"name": "node-b", "score": 20},
            {"name": "node-c", "score": 60},
            {"name": "node-d", "score": 100},
        ],
        "enableMatchLabelKeys": True,
    },
    {
        "name": "TestPodTopologySpreadScore/matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .Label("baz", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, ["baz"])
        .Obj(),
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Label("baz", "").Obj(),
            st.MakePod().Name("p-c1").Node("node-c").Label("foo", "").Obj(),
            st.MakePod().Name("p-c2").Node("node-c").Label("bar", "").Obj(),
            st.MakePod().Name("p-d3").Node("node-c").Label("bar", "").Label("baz", "").Obj(),
        ],
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("zone", "zone2").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label("zone", "zone2").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "want": [
            {"name": "node-a", "score": 60},
            {"name": "node-b", "score": 20},
            {"name": "node-c", "score": 60},
            {"name": "node-d", "score": 100},
        ],
        "enableMatchLabelKeys": True,
    },
]


TestPreScoreSkip = [
    {
        "name": "TestPreScoreSkip/the pod doesn't have soft topology spread Constraints",
        "pod": st.MakePod().Name("p").Namespace("default").Obj(),
        "config": {"defaultingType": config.ListDefaulting},
        "nodes": [
            st.MakeNode().Name("node-a").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label(v1.LabelHostname, "node-b").Obj(),
        ],
    },
    {
        "name": "TestPreScoreSkip/default constraints and a replicaset that doesn't match",
        "pod": st.MakePod()
        .Name("p")
        .Namespace("default")
        .Label("foo", "bar")
        .Label("baz", "sup")
        .OwnerReference("rs2", appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
        .Obj(),
        "config": {
            "defaultConstraints": [
                {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": v1.ScheduleAnyway}
            ],
            "defaultingType": config.ListDefaulting,
        },
        "nodes": [st.MakeNode().Name("node-a").Label("planet", "mars").Obj()],
        "objs": [
            {
                "kind": "ReplicaSet",
                "metadata": {"namespace": "default", "name": "rs1"},
                "spec": {"selector": st.MakeLabelSelector().Exists("tar").Obj()},
            }
        ],
    },
]


TestPreFilterState = [
    {
        "name": "TestPreFilterState/clean cluster with one spreadConstraint",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(
            5,
            "zone",
            v1.DoNotSchedule,
            st.MakeLabelSelector().Label("foo", "bar").Obj(),
            None,
            None,
            None,
            None,
        )
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 5,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("foo", "bar").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone1", 0], ["zone2", 0])],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 0}],
        },
    },
    {
        "name": "TestPreFilterState/normal case with one spreadConstraint",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 2], ["zone1", 3])],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 2}],
        },
    },
    {
        "name": "TestPreFilterState/normal case with null label selector",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, None, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": labels.Nothing(),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 0], ["zone1", 0])],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 0}],
        },
    },
    {
        "name": "TestPreFilterState/normal case with one spreadConstraint, on a 3-zone cluster",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
            st.MakeNode().Name("node-o").Label("zone", "zone3").Label("node", "node-o").Obj(),
            st.MakeNode().Name("node-p").Label("zone", "zone3").Label("node", "node-p").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone3", 0], ["zone2", 2])],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 2, "zone3": 0}],
        },
    },
    {
        "name": "TestPreFilterState/namespace mismatch doesn't count",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Namespace("ns2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 1], ["zone1", 2])],
            "tpValueToMatchNum": [{"zone1": 2, "zone2": 1}],
        },
    },
    {
        "name": "TestPreFilterState/normal case with two spreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 3], ["zone2", 4]),
                criticalPaths(["node-x", 0], ["node-b", 1]),
            ],
            "tpValueToMatchNum": [
                {"zone1": 3, "zone2": 4},
                {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4},
            ],
        },
    },
    {
        "name": "TestPreFilterState/soft spreadConstraints should be bypassed",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 3], ["zone2", 4]),
                criticalPaths(["node-b", 1], ["node-a", 2]),
            ],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
        },
    },
    {
        "name": "TestPreFilterState/different labelSelectors - simple version",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone2", 0], ["zone1", 1]),
                criticalPaths(["node-a", 0], ["node-y", 0]),
            ],
            "tpValueToMatchNum": [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}],
        },
    },
    {
        "name": "TestPreFilterState/different labelSelectors - complex pods",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 3], ["zone2", 4]),
                criticalPaths(["node-b", 0], ["node-a", 1]),
            ],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
        },
    },
    {
        "name": "TestPreFilterState/two spreadConstraints, and with podAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityNotIn("node", ["node-x"])
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 3], ["zone2", 4]),
                criticalPaths(["node-b", 1], ["node-a", 2]),
            ],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
        },
    },
    {
        "name": "TestPreFilterState/default constraints and a service",
        "pod": st.MakePod().Name("p").Label("foo", "bar").Label("baz", "kar").Obj(),
        "defaultConstraints": [
            {"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": v1.DoNotSchedule},
            {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": v1.ScheduleAnyway},
            {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": v1.DoNotSchedule},
        ],
        "objs": [{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        "want": {
            "constraints": [
                {
                    "maxSkew": 3,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("foo", "bar").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 5,
                    "topologyKey": "rack",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("foo", "bar").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [newCriticalPaths(), newCriticalPaths()],
            "tpValueToMatchNum": [{}, {}],
        },
    },
    {
        "name": "TestPreFilterState/default constraints and a service that doesn't match",
        "pod": st.MakePod().Name("p").Label("foo", "bar").Obj(),
        "defaultConstraints": [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": v1.DoNotSchedule}],
        "objs": [{"kind": "Service", "spec": {"selector": {"baz": "kep"}}}],
        "wantPrefilterStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestPreFilterState/default constraints and a service, but pod has constraints",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "bar")
        .Label("baz", "tar")
        .SpreadConstraint(
            1,
            "zone",
            v1.DoNotSchedule,
            st.MakeLabelSelector().Label("baz", "tar").Obj(),
            None,
            None,
            None,
            None,
        )
        .SpreadConstraint(
            2,
            "planet",
            v1.ScheduleAnyway,
            st.MakeLabelSelector().Label("fot", "rok").Obj(),
            None,
            None,
            None,
            None,
        )
        .Obj(),
        "defaultConstraints": [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": v1.DoNotSchedule}],
        "objs": [{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("baz", "tar").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [newCriticalPaths()],
            "tpValueToMatchNum": [{}],
        },
    },
    {
        "name": "TestPreFilterState/default soft constraints and a service",
        "pod": st.MakePod().Name("p").Label("foo", "bar").Obj(),
        "defaultConstraints": [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": v1.ScheduleAnyway}],
        "objs": [{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        "wantPrefilterStatus": fwk.NewStatus(fwk.Skip),
    },
    {
        "name": "TestPreFilterState/TpKeyToDomainsNum is calculated when MinDomains is enabled",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y3").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y4").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 3], ["zone2", 4]),
                criticalPaths(["node-x", 0], ["node-b", 1]),
            ],
            "tpValueToMatchNum": [
                {"zone1": 3, "zone2": 4},
                {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4},
            ],
        },
    },
    {
        "name": "TestPreFilterState/feature gate disabled with NodeAffinityPolicy",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-a", 1], ["node-b", 2])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2}],
        },
        "enableNodeInclusionPolicy": False,
    },
    {
        "name": "TestPreFilterState/NodeAffinityPolicy honored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-a", 1], ["node-b", 2])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/NodeAffinityPolicy ignored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-c", 0], ["node-a", 1])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2, "node-c": 0}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/NodeAffinityPolicy honored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-e").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-a", 1], ["node-b", 2])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/NodeAffinityPolicy ignored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-c", 0], ["node-a", 1])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2, "node-c": 0}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/feature gate disabled with NodeTaintsPolicy",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-c", 0], ["node-a", 1])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2, "node-c": 0}],
        },
        "enableNodeInclusionPolicy": False,
    },
    {
        "name": "TestPreFilterState/NodeTaintsPolicy ignored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["node-c", 0], ["node-a", 1])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2, "node-c": 0}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/NodeTaintsPolicy honored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor,
                }
            ],
            "criticalPaths": [criticalPaths(["node-a", 1], ["node-b", 2])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/NodeTaintsPolicy honored with tolerated taints",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Toleration(v1.TaintNodeUnschedulable)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-c").Label("node", "node-c").Taints(taints).Label("bar", "").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a").Node("node-a").Label("bar", "").Obj(),
            st.MakePod().Name("p-b").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-c").Node("node-b").Label("bar", "").Obj(),
            st.MakePod().Name("p-d").Node("node-c").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor,
                }
            ],
            "criticalPaths": [criticalPaths(["node-c", 0], ["node-a", 1])],
            "tpValueToMatchNum": [{"node-a": 1, "node-b": 2, "node-c": 0}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 0], ["zone2", 1]),
                criticalPaths(["node-a", 0], ["node-x", 1]),
            ],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, honorPolicy, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("node", "node-a")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Taints(taints).Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 0], ["zone2", 1]),
                criticalPaths(["node-a", 0], ["node-x", 1]),
            ],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("node", "node-b")
            .Label("foo", "")
            .Taints(taints)
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 0], ["zone2", 1]),
                criticalPaths(["node-b", 0], ["node-x", 1]),
            ],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, ignorePolicy, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("node", "node-b")
            .Label("foo", "")
            .Taints(taints)
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label("node", "node-x")
            .Label("foo", "")
            .Obj(),
            st.MakeNode()
            .Name("node-y")
            .Label("zone", "zone2")
            .Label("node", "node-y")
            .Label("foo", "")
            .Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "node",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone1", 2], ["zone2", 3]),
                criticalPaths(["node-y", 1], ["node-x", 2]),
            ],
            "tpValueToMatchNum": [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreFilterState/matchLabelKeys ignored when feature gate disabled",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, ["bar"])
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 2], ["zone1", 3])],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 2}],
        },
        "enableMatchLabelKeys": False,
    },
    {
        "name": "TestPreFilterState/matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "a")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, ["bar"])
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("bar", "a").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "a").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Exists("foo").Label("bar", "a").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 1], ["zone1", 1])],
            "tpValueToMatchNum": [{"zone1": 1, "zone2": 1}],
        },
        "enableMatchLabelKeys": True,
    },
    {
        "name": "TestPreFilterState/matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "a")
        .SpreadConstraint(
            1, "zone", v1.DoNotSchedule, st.MakeLabelSelector().Obj(), None, None, None, ["foo"]
        )
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "a").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("foo", "a").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 2], ["zone1", 3])],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 2}],
        },
        "enableMatchLabelKeys": True,
    },
    {
        "name": "TestPreFilterState/key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, None, None, None, None, ["bar"])
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "a").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, None),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 0], ["zone1", 0])],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 0}],
        },
        "enableMatchLabelKeys": True,
    },
    {
        "name": "TestPreFilterState/no pod is matched when LabelSelector is nil when feature gate disabled",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, None, None, None, None, ["bar"])
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "a").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, None),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 0], ["zone1", 0])],
            "tpValueToMatchNum": [{"zone1": 0, "zone2": 0}],
        },
    },
    {
        "name": "TestPreFilterState/key in matchLabelKeys is ignored when it isn't exist in pod.labels",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, ["bar"])
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-a2").Node("node-a").Label("foo", "a").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "a").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("foo", "a").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "criticalPaths": [criticalPaths(["zone2", 2], ["zone1", 3])],
            "tpValueToMatchNum": [{"zone1": 3, "zone2": 2}],
        },
        "enableMatchLabelKeys": True,
    },
    {
        "name": "TestPreFilterState/two spreadConstraints with the same topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .Label("bar", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
        ],
        "existingPods": [
            st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
            st.MakePod().Name("p-x1").Node("node-x").Label("bar", "").Obj(),
            st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Label("bar", "").Obj(),
            st.MakePod().Name("p-y2").Node("node-y").Label("bar", "").Obj(),
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "criticalPaths": [
                criticalPaths(["zone2", 1], ["zone1", 2]),
                criticalPaths(["zone1", 1], ["zone2", 3]),
            ],
            "tpValueToMatchNum": [{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}],
        },
    },
    {
        "name": "TestPreFilterState/skip if not specified",
        "pod": st.MakePod().Name("p").Label("foo", "").Obj(),
        "nodes": [st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj()],
        "wantPrefilterStatus": fwk.NewStatus(fwk.Skip),
    },
]


TestPreScoreStateEmptyNodes = [
    {
        "name": "TestPreScoreStateEmptyNodes/normal case",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": v1.LabelHostname,
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}, {}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2), topologyNormalizingWeight(3)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/null selector",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, None, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": labels.Nothing(),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/node-x doesn't have label zone",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, fooSelector, None, None, None, None)
        .SpreadConstraint(1, v1.LabelHostname, v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode().Name("node-a").Label("zone", "zone1").Label(v1.LabelHostname, "node-a").Obj(),
            st.MakeNode().Name("node-b").Label("zone", "zone1").Label(v1.LabelHostname, "node-b").Obj(),
            st.MakeNode().Name("node-x").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": v1.LabelHostname,
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "ignoredNodes": sets.New("node-x"),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0)}, {}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(1), topologyNormalizingWeight(2)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/system default constraints and a replicaset",
        "pod": st.MakePod()
        .Name("p")
        .Namespace("default")
        .Label("foo", "tar")
        .Label("baz", "sup")
        .OwnerReference("rs1", appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
        .Obj(),
        "config": {"defaultingType": config.SystemDefaulting},
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label(v1.LabelHostname, "node-a")
            .Label(v1.LabelTopologyZone, "mars")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label(v1.LabelHostname, "node-b")
            .Label(v1.LabelTopologyZone, "mars")
            .Obj(),
            st.MakeNode().Name("node-c").Label(v1.LabelHostname, "node-c").Obj(),
            st.MakeNode().Name("node-d").Label(v1.LabelHostname, "node-d").Obj(),
        ],
        "objs": [
            {
                "kind": "ReplicaSet",
                "metadata": {"namespace": "default", "name": "rs1"},
                "spec": {"selector": fooSelector},
            }
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 3,
                    "topologyKey": v1.LabelHostname,
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 5,
                    "topologyKey": v1.LabelTopologyZone,
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{}, {"mars": ptr.To(0), "": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(4), topologyNormalizingWeight(2)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/default constraints and a replicaset",
        "pod": st.MakePod()
        .Name("p")
        .Namespace("default")
        .Label("foo", "tar")
        .Label("baz", "sup")
        .OwnerReference("rs1", appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
        .Obj(),
        "config": {
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": v1.LabelHostname, "whenUnsatisfiable": v1.ScheduleAnyway},
                {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": v1.DoNotSchedule},
                {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": v1.ScheduleAnyway},
            ],
            "defaultingType": config.ListDefaulting,
        },
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("rack", "rack1")
            .Label(v1.LabelHostname, "node-a")
            .Label("planet", "mars")
            .Obj()
        ],
        "objs": [
            {
                "kind": "ReplicaSet",
                "metadata": {"namespace": "default", "name": "rs1"},
                "spec": {"selector": fooSelector},
            }
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": v1.LabelHostname,
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
                {
                    "maxSkew": 2,
                    "topologyKey": "planet",
                    "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                },
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{}, {"mars": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(1), topologyNormalizingWeight(1)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/default constraints and a replicaset, but pod has constraints",
        "pod": st.MakePod()
        .Name("p")
        .Namespace("default")
        .Label("foo", "bar")
        .Label("baz", "sup")
        .OwnerReference("rs1", appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, barSelector, None, None, None, None)
        .SpreadConstraint(
            2,
            "planet",
            v1.ScheduleAnyway,
            st.MakeLabelSelector().Label("baz", "sup").Obj(),
            None,
            None,
            None,
            None,
        )
        .Obj(),
        "config": {
            "defaultConstraints": [
                {"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": v1.ScheduleAnyway}
            ],
            "defaultingType": config.ListDefaulting,
        },
        "nodes": [st.MakeNode().Name("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()],
        "objs": [
            {
                "kind": "ReplicaSet",
                "metadata": {"namespace": "default", "name": "rs1"},
                "spec": {"selector": fooSelector},
            }
        ],
        "want": {
            "constraints": [
                {
                    "maxSkew": 2,
                    "topologyKey": "planet",
                    "selector": mustConvertLabelSelectorAsSelector(
                        t, st.MakeLabelSelector().Label("baz", "sup").Obj()
                    ),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"mars": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(1)],
        },
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeAffinityPolicy honored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeAffinityPolicy ignored with labelSelectors",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeSelector({"foo": ""})
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeAffinityPolicy honored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeAffinityPolicy ignored with nodeAffinity",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .NodeAffinityIn("foo", [""], st.NodeSelectorTypeMatchExpressions)
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, ignorePolicy, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode().Name("node-x").Label("zone", "zone2").Label(v1.LabelHostname, "node-x").Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyIgnore,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeTaintsPolicy honored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, None, honorPolicy, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label(v1.LabelHostname, "node-x")
            .Taints(taints)
            .Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
    {
        "name": "TestPreScoreStateEmptyNodes/NodeTaintsPolicy ignored",
        "pod": st.MakePod()
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.ScheduleAnyway, barSelector, None, None, None, None)
        .Obj(),
        "nodes": [
            st.MakeNode()
            .Name("node-a")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-a")
            .Obj(),
            st.MakeNode()
            .Name("node-b")
            .Label("zone", "zone1")
            .Label("foo", "")
            .Label(v1.LabelHostname, "node-b")
            .Obj(),
            st.MakeNode()
            .Name("node-x")
            .Label("zone", "zone2")
            .Label(v1.LabelHostname, "node-x")
            .Taints(taints)
            .Obj(),
        ],
        "config": {"defaultingType": config.ListDefaulting},
        "want": {
            "constraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                    "minDomains": 1,
                    "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                    "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                }
            ],
            "ignoredNodes": sets.New(),
            "topologyValueToPodCounts": [{"zone1": ptr.To(0), "zone2": ptr.To(0)}],
            "topologyNormalizingWeight": [topologyNormalizingWeight(2)],
        },
        "enableNodeInclusionPolicy": True,
    },
]



def _TestPreFilterStateAddPod() -> Any:
    nodeConstraint = {
        "maxSkew": 1,
        "topologyKey": "node",
        "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
        "minDomains": 1,
        "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
        "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
    }
    zoneConstraint = {**nodeConstraint, "topologyKey": "zone"}  # zoneConstraint.TopologyKey = "zone"
    return [
        {
            "name": "TestPreFilterStateAddPod/node a and b both impact current min match",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": None,
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [nodeConstraint],
                "criticalPaths": [criticalPaths(["node-b", 0], ["node-a", 1])],
                "tpValueToMatchNum": [{"node-a": 1, "node-b": 0}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/only node a impacts current min match",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": [st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj()],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [nodeConstraint],
                "criticalPaths": [criticalPaths(["node-a", 1], ["node-b", 1])],
                "tpValueToMatchNum": [{"node-a": 1, "node-b": 1}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": [st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj()],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [nodeConstraint],
                "criticalPaths": [criticalPaths(["node-a", 0], ["node-b", 1])],
                "tpValueToMatchNum": [{"node-a": 0, "node-b": 1}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/add pod on non-critical node won't trigger re-calculation",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
            "existingPods": [st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj()],
            "nodeIdx": 1,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [nodeConstraint],
                "criticalPaths": [criticalPaths(["node-a", 0], ["node-b", 2])],
                "tpValueToMatchNum": [{"node-a": 0, "node-b": 2}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/node a and x both impact topologyKeyToMinPodsMap on zone and node",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": None,
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint, nodeConstraint],
                "criticalPaths": [
                    criticalPaths(["zone2", 0], ["zone1", 1]),
                    criticalPaths(["node-x", 0], ["node-a", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/only node a impacts topologyKeyToMinPodsMap on zone and node",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": [st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj()],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint, nodeConstraint],
                "criticalPaths": [
                    criticalPaths(["zone1", 1], ["zone2", 1]),
                    criticalPaths(["node-a", 1], ["node-x", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": [
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            ],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint, nodeConstraint],
                "criticalPaths": [
                    criticalPaths(["zone2", 1], ["zone1", 3]),
                    criticalPaths(["node-a", 1], ["node-x", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .Label("bar", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
            "existingPods": [
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("bar", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Label("bar", "").Obj(),
                st.MakePod().Name("p-x2").Node("node-x").Label("bar", "").Obj(),
            ],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "want": {
                "constraints": [
                    zoneConstraint,
                    {
                        "maxSkew": 1,
                        "topologyKey": "node",
                        "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                        "minDomains": 1,
                        "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                        "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                    },
                ],
                "criticalPaths": [
                    criticalPaths(["zone2", 1], ["zone1", 2]),
                    criticalPaths(["node-a", 0], ["node-b", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .Label("bar", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
            .Obj(),
            "addedPod": st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("bar", "").Obj(),
            "existingPods": [
                st.MakePod().Name("p-b1").Node("node-b").Label("bar", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Label("bar", "").Obj(),
                st.MakePod().Name("p-x2").Node("node-x").Label("bar", "").Obj(),
            ],
            "nodeIdx": 0,
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "want": {
                "constraints": [
                    zoneConstraint,
                    {
                        "maxSkew": 1,
                        "topologyKey": "node",
                        "selector": mustConvertLabelSelectorAsSelector(t, barSelector),
                        "minDomains": 1,
                        "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
                        "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
                    },
                ],
                "criticalPaths": [
                    criticalPaths(["zone1", 1], ["zone2", 1]),
                    criticalPaths(["node-a", 1], ["node-b", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}],
            },
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .NodeAffinityNotIn("foo", ["bar"])
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 0,
            "addedPod": st.MakePod()
            .Name("p-a1")
            .Node("node-a")
            .Label("foo", "")
            .Label("zone", "zone1")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 1], {"matchNum": MaxInt32})],
                "tpValueToMatchNum": [{"zone2": 1}],
            },
            "enableNodeInclusionPolicy": False,
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .NodeAffinityNotIn("foo", ["bar"])
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 0,
            "addedPod": st.MakePod()
            .Name("p-a1")
            .Node("node-a")
            .Label("foo", "")
            .Label("zone", "zone1")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 1], {"matchNum": MaxInt32})],
                "tpValueToMatchNum": [{"zone2": 1}],
            },
            "enableNodeInclusionPolicy": True,
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "addedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 2}],
            },
            "enableNodeInclusionPolicy": False,
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "addedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 2}],
            },
            "enableNodeInclusionPolicy": True,
        },
        {
            "name": "TestPreFilterStateAddPod/add a label selector not matched pod when with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "addedPod": st.MakePod().Name("p-b1").Node("node-b").Label("zone", "zone2").Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 1])],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 1}],
            },
            "enableNodeInclusionPolicy": True,
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "addedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Taints(taints)
                .Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone2").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone2": 2, "zone1": 1}],
            },
            "enableNodeInclusionPolicy": False,
        },
        {
            "name": "TestPreFilterStateAddPod/add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .Toleration(v1.TaintNodeUnschedulable)
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "addedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Taints(taints)
                .Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone2").Label("node", "node-b").Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone2": 2, "zone1": 1}],
            },
            "enableNodeInclusionPolicy": True,
        },
    ]


TestPreFilterStateAddPod = _TestPreFilterStateAddPod()


def _TestPreFilterStateRemovePod() -> Any:
    nodeConstraint = {
        "maxSkew": 1,
        "topologyKey": "node",
        "selector": mustConvertLabelSelectorAsSelector(t, fooSelector),
        "minDomains": 1,
        "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor,
        "nodeTaintsPolicy": v1.NodeInclusionPolicyIgnore,
    }
    zoneConstraint = {**nodeConstraint, "topologyKey": "zone"}  # zoneConstraint.TopologyKey = "zone"
    return [
        {
            "name": "TestPreFilterStateRemovePod/one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
            ],
            "deletedPodIdx": 0,
            "nodeIdx": 0,
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 1])],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 1}],
            },
        },
        {
            "name": "TestPreFilterStateRemovePod/one spreadConstraint on node, topologyKeyToMinPodsMap changed",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
            ],
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            ],
            "deletedPodIdx": 0,
            "nodeIdx": 0,
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 1], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone1": 1, "zone2": 2}],
            },
        },
        {
            "name": "TestPreFilterStateRemovePod/delete an irrelevant pod won't help",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
            ],
            "existingPods": [
                st.MakePod().Name("p-a0").Node("node-a").Label("bar", "").Obj(),
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            ],
            "deletedPodIdx": 0,
            "nodeIdx": 0,
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 2], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone1": 2, "zone2": 2}],
            },
        },
        {
            "name": "TestPreFilterStateRemovePod/delete a non-existing pod won't help",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
                st.MakeNode().Name("node-y").Label("zone", "zone2").Label("node", "node-y").Obj(),
            ],
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                st.MakePod().Name("p-y1").Node("node-y").Label("foo", "").Obj(),
            ],
            "deletedPodIdx": -1,
            "deletedPod": st.MakePod().Name("p-a0").Node("node-a").Label("bar", "").Obj(),
            "nodeIdx": 0,
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone1", 2], ["zone2", 2])],
                "tpValueToMatchNum": [{"zone1": 2, "zone2": 2}],
            },
        },
        {
            "name": "TestPreFilterStateRemovePod/two spreadConstraints",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodes": [
                st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node-a").Obj(),
                st.MakeNode().Name("node-b").Label("zone", "zone1").Label("node", "node-b").Obj(),
                st.MakeNode().Name("node-x").Label("zone", "zone2").Label("node", "node-x").Obj(),
            ],
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Obj(),
                st.MakePod().Name("p-x1").Node("node-x").Label("foo", "").Obj(),
                st.MakePod().Name("p-x2").Node("node-x").Label("foo", "").Obj(),
            ],
            "deletedPodIdx": 3,
            "nodeIdx": 2,
            "want": {
                "constraints": [zoneConstraint, nodeConstraint],
                "criticalPaths": [
                    criticalPaths(["zone2", 1], ["zone1", 3]),
                    criticalPaths(["node-b", 1], ["node-x", 1]),
                ],
                "tpValueToMatchNum": [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
            },
        },
        {
            "name": "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .NodeAffinityNotIn("foo", ["bar"])
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 0,
            "deletedPod": st.MakePod()
            .Name("p-a1")
            .Node("node-a")
            .Label("foo", "")
            .Label("zone", "zone1")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 1], {"matchNum": MaxInt32})],
                "tpValueToMatchNum": [{"zone2": 1}],
            },
            "enableNodeInclusionPolicy": False,
        },
        {
            "name": "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .NodeAffinityNotIn("foo", ["bar"])
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 0,
            "deletedPod": st.MakePod()
            .Name("p-a1")
            .Node("node-a")
            .Label("foo", "")
            .Label("zone", "zone1")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a2").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b1").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 1], {"matchNum": MaxInt32})],
                "tpValueToMatchNum": [{"zone2": 1}],
            },
            "enableNodeInclusionPolicy": True,
        },
        {
            "name": "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "deletedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 0], ["zone1", 1])],
                "tpValueToMatchNum": [{"zone2": 0, "zone1": 1}],
            },
            "enableNodeInclusionPolicy": False,
        },
        {
            "name": "TestPreFilterStateRemovePod/remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
            "preemptor": st.MakePod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
            .Obj(),
            "nodeIdx": 1,
            "deletedPod": st.MakePod()
            .Name("p-b1")
            .Node("node-b")
            .Label("foo", "")
            .Label("zone", "zone2")
            .Obj(),
            "existingPods": [
                st.MakePod().Name("p-a1").Node("node-a").Label("foo", "").Label("zone", "zone1").Obj(),
                st.MakePod().Name("p-b2").Node("node-b").Label("foo", "").Label("zone", "zone2").Obj(),
            ],
            "nodes": [
                st.MakeNode()
                .Name("node-a")
                .Label("zone", "zone1")
                .Label("node", "node-a")
                .Label("foo", "bar")
                .Obj(),
                st.MakeNode()
                .Name("node-b")
                .Label("zone", "zone2")
                .Label("node", "node-b")
                .Label("foo", "")
                .Obj(),
            ],
            "want": {
                "constraints": [zoneConstraint],
                "criticalPaths": [criticalPaths(["zone2", 0], ["zone1", 1])],
                "tpValueToMatchNum": [{"zone2": 0, "zone1": 1}],
            },
            "enableNodeInclusionPolicy": True,
        },
    ]


TestPreFilterStateRemovePod = _TestPreFilterStateRemovePod()



Test_isSchedulableAfterNodeChange = [
    {
        "name": "Test_isSchedulableAfterNodeChange/node updates label which matches topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone2").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/node that doesn't match topologySpreadConstraints updates non-related label",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("foo", "bar1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("foo", "bar2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/node that match topologySpreadConstraints adds non-related label",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode()
        .Name("node-a")
        .Label("zone", "zone1")
        .Label("node", "node1")
        .Label("foo", "bar")
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/create node with non-related labels",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("foo", "bar").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/create node with related labels",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/delete node with non-related labels",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("foo", "bar").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/delete node with related labels",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/add node with related labels that only match one of topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/add node with related labels that match all topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with related labels that only match one of topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with related labels that match all topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Label("node", "node2").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with different taints that match all topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode()
        .Name("node-a")
        .Label("zone", "zone1")
        .Label("node", "node1")
        .Taints([{"key": "aaa", "value": "bbb", "effect": v1.TaintEffectNoSchedule}])
        .Obj(),
        "newNode": st.MakeNode()
        .Name("node-a")
        .Label("zone", "zone1")
        .Label("node", "node1")
        .Taints([{"key": "ccc", "value": "bbb", "effect": v1.TaintEffectNoSchedule}])
        .Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with different taints that only match one of topologySpreadConstraints",
        "pod": st.MakePod()
        .Name("p")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldNode": st.MakeNode()
        .Name("node-a")
        .Label("node", "node1")
        .Taints([{"key": "aaa", "value": "bbb", "effect": v1.TaintEffectNoSchedule}])
        .Obj(),
        "newNode": st.MakeNode()
        .Name("node-a")
        .Label("node", "node1")
        .Taints([{"key": "ccc", "value": "bbb", "effect": v1.TaintEffectNoSchedule}])
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
]



Test_isSchedulableAfterAssignedPodChange = [
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add pod with labels match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add un-scheduled pod",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newPod": st.MakePod().UID("p2").Label("foo", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update un-scheduled pod",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newPod": st.MakePod().UID("p2").Label("foo", "").Obj(),
        "oldPod": st.MakePod().UID("p2").Label("bar", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete un-scheduled pod",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Label("foo", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add pod with different namespace",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Namespace("fake-namespace").Label("foo", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add pod with labels don't match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("bar", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete pod with labels that match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete nominated pod with labels that don't match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").NominatedNodeName("fake-node").Label("bar", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete nominated pod with labels that match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").NominatedNodeName("fake-node").Label("foo", "").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete pod with labels that don't match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("bar", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update pod's non-related label",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add pod's label that matches topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete pod label that matches topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/change pod's label that matches topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "foo1").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "foo2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/change pod's label that doesn't match topologySpreadConstraints selector",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("baz", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, None, None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "").Obj(),
        "newPod": st.MakePod().UID("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
]


def gated(pod: dict[str, Any], node_inclusion: bool = True) -> dict[str, Any]:
    """The pod as a plugin with NodeInclusionPolicyInPodTopologySpread off reads it: nodeAffinityPolicy and
    nodeTaintsPolicy ignored (the Go test flips the plugin's enable field; the gate is locked on in v1.37)."""
    drop = {"nodeAffinityPolicy", "nodeTaintsPolicy"} if not node_inclusion else set()
    for c in pod["spec"].get("topologySpreadConstraints") or ():
        for key in drop:
            c.pop(key, None)
    return pod


def match_label_keys_gates(tt: dict[str, Any]) -> FeatureGates:
    """The case's enableMatchLabelKeys (false unless set, as the Go struct's zero value) as the plugin's
    MatchLabelKeysInPodTopologySpread gate (and the API server's SelectorMerge gate that depends on it)."""
    on = bool(tt.get("enableMatchLabelKeys", False))
    return FeatureGates({"MatchLabelKeysInPodTopologySpread": on, "MatchLabelKeysInPodTopologySpreadSelectorMerge": on})


def list_defaulting() -> PodTopologySpread:
    return PodTopologySpread(PodTopologySpreadArgs(defaultingType="List"))


@pytest.mark.parametrize("tt", cases(TestSingleConstraint) + cases(TestMultipleConstraints))
def test_filter(tt: dict[str, Any]) -> None:
    pod = gated(tt["pod"], tt.get("enableNodeInclusionPolicy", False))
    pre, got = run_filter(list_defaulting(), pod, snapshot(tt.get("existingPods"), tt["nodes"]))
    assert pre is None
    assert {n: (s.code if s else Code.SUCCESS) for n, s in got.items()} == tt["wantStatusCode"]


@pytest.mark.parametrize("tt", cases(TestPodTopologySpreadScore))
def test_score(tt: dict[str, Any]) -> None:
    pod = gated(tt["pod"], tt.get("enableNodeInclusionPolicy", False))
    cluster = snapshot(tt.get("existingPods"), tt["nodes"] + (tt.get("failedNodes") or []), *(tt.get("objs") or []))
    plugin = PodTopologySpread(PodTopologySpreadArgs(defaultingType="System"), feature_gates=match_label_keys_gates(tt))
    pre, got = run_score(plugin, pod, cluster, [n["metadata"]["name"] for n in tt["nodes"]])
    assert pre is None
    assert [{"name": n, "score": s} for n, s in got.items()] == tt["want"]


@pytest.mark.parametrize("tt", cases(TestPreScoreSkip))
def test_pre_score_skip(tt: dict[str, Any]) -> None:
    plugin = PodTopologySpread(PodTopologySpreadArgs(**tt["config"]))
    pre, _ = run_score(plugin, tt["pod"], snapshot(None, tt["nodes"], *(tt.get("objs") or [])))
    assert pre is not None and pre.code == Code.SKIP


def constraint_shape(c: Any) -> dict[str, Any]:
    """topologySpreadConstraint as the Go state holds it."""
    return {
        "maxSkew": c.max_skew,
        "topologyKey": c.topology_key,
        "selector": c.selector,
        "minDomains": c.min_domains,
        "nodeAffinityPolicy": v1.NodeInclusionPolicyHonor if c.honor_affinity else v1.NodeInclusionPolicyIgnore,
        "nodeTaintsPolicy": v1.NodeInclusionPolicyHonor if c.honor_taints else v1.NodeInclusionPolicyIgnore,
    }


def sorted_paths(paths: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """stateCmpOpts: two paths with the same MatchNum compare with their values sorted."""
    if paths[0][1] == paths[1][1] and paths[0][0] > paths[1][0]:
        return [(paths[1][0], paths[0][1]), (paths[0][0], paths[1][1])]
    return paths


def pre_filter_state(cluster: Any, got: Any) -> dict[str, Any]:
    """kubeberth's per-constraint domain counts as the Go preFilterState: its matching pods per domain, and the
    two critical paths (the two smallest domains; MaxInt32 fills missing ones)."""
    table = cluster.table
    out: dict[str, Any] = {"constraints": [], "criticalPaths": [], "tpValueToMatchNum": []}
    for hc in got.constraints:
        _, values = table.label_values(hc.constraint.topology_key)
        counts = {values[i]: int(hc.per_domain[i]) for i in range(len(values)) if hc.present[i]}
        paths = sorted(((n, v) for v, n in counts.items()))[:2]
        paths = [(v, n) for n, v in paths] + [("", MaxInt32)] * (2 - len(paths))
        out["constraints"].append(constraint_shape(hc.constraint))
        out["criticalPaths"].append(paths)
        out["tpValueToMatchNum"].append(counts)
    return out


@pytest.mark.parametrize("tt", cases(TestPreFilterState))
def test_pre_filter_state(tt: dict[str, Any]) -> None:
    pod = gated(tt["pod"], tt.get("enableNodeInclusionPolicy", False))
    args = {"defaultingType": "List", "defaultConstraints": tt.get("defaultConstraints") or []}
    plugin = PodTopologySpread(PodTopologySpreadArgs(**args), feature_gates=match_label_keys_gates(tt))
    cluster = snapshot(tt.get("existingPods"), tt.get("nodes"), *(tt.get("objs") or []))
    state = CycleState()
    status = plugin.pre_filter(state=state, pod=st.pod_info(pod), cluster=cluster)
    want_status = tt.get("wantPrefilterStatus")
    assert (status.code if status else fwk.Success) == (want_status.code if want_status else fwk.Success)
    if status is not None and status.code != fwk.Success:
        return
    got = pre_filter_state(cluster, state["PodTopologySpread.preFilter"])
    want = tt["want"]
    # kubeberth keeps the smallest domain's count (with minDomains applied) rather than both paths: both
    # paths are derived from its per-domain counts and compared with upstream's.
    want = {**want, "criticalPaths": [sorted_paths(p) for p in want["criticalPaths"]]}
    got["criticalPaths"] = [sorted_paths(p) for p in got["criticalPaths"]]
    assert got == want


def pre_score_state(cluster: Any, got: Any, names: list[str]) -> dict[str, Any]:
    table = cluster.table
    out: dict[str, Any] = {"constraints": [], "ignoredNodes": frozenset(), "topologyValueToPodCounts": [],
                           "topologyNormalizingWeight": []}
    for sc in got.constraints:
        counts: dict[str, int] = {}
        if sc.per_domain is not None:
            _, values = table.label_values(sc.constraint.topology_key)
            for i in range(len(sc.present)):
                if sc.present[i]:
                    counts["" if i == sc.empty_id else values[i]] = int(sc.per_domain[i])
        out["constraints"].append(constraint_shape(sc.constraint))
        out["topologyValueToPodCounts"].append(counts)
        out["topologyNormalizingWeight"].append(sc.weight)
    out["ignoredNodes"] = frozenset(n for n in names if got.ignored[table.row_of[n]])
    return out


@pytest.mark.parametrize("tt", cases(TestPreScoreStateEmptyNodes))
def test_pre_score_state_empty_nodes(tt: dict[str, Any]) -> None:
    pod = gated(tt["pod"], tt.get("enableNodeInclusionPolicy", False))
    plugin = PodTopologySpread(PodTopologySpreadArgs(**tt["config"]))
    cluster = snapshot(None, tt["nodes"], *(tt.get("objs") or []))
    state = CycleState()
    names = [n["metadata"]["name"] for n in tt["nodes"]]
    pre, _ = run_score(plugin, pod, cluster, names, state=state)
    assert pre is None
    assert pre_score_state(cluster, state["PodTopologySpread.preScore"], names) == tt["want"]


def _state_after(tt: dict[str, Any], change: Any) -> None:
    """PreFilter, then the cluster change AddPod/RemovePod stands for: kubeberth's PreFilter state follows the
    cluster (PreFilterState.SELF_UPDATING), so Filter reads it recomputed for the changed pods."""
    pod = gated(tt["preemptor"], tt.get("enableNodeInclusionPolicy", False))
    plugin = list_defaulting()
    cluster = snapshot(tt.get("existingPods"), tt["nodes"])
    state, info = CycleState(), st.pod_info(pod)
    assert plugin.pre_filter(state=state, pod=info, cluster=cluster) is None
    change(cluster)
    plugin.filter(state=state, pod=info, nodes=view(cluster), cluster=cluster)
    got = pre_filter_state(cluster, state["PodTopologySpread.preFilter"])
    want = tt["want"]
    want = {**want, "criticalPaths": [sorted_paths(p) for p in want["criticalPaths"]]}
    got["criticalPaths"] = [sorted_paths(p) for p in got["criticalPaths"]]
    assert got == want


@pytest.mark.parametrize("tt", cases(TestPreFilterStateAddPod))
def test_pre_filter_state_add_pod(tt: dict[str, Any]) -> None:
    node = tt["nodes"][tt["nodeIdx"]]["metadata"]["name"]
    added = {**tt["addedPod"], "spec": {**tt["addedPod"]["spec"], "nodeName": node}}
    _state_after(tt, lambda cluster: cluster.upsert_pod(st.pod_info(added)))


@pytest.mark.parametrize("tt", cases(TestPreFilterStateRemovePod))
def test_pre_filter_state_remove_pod(tt: dict[str, Any]) -> None:
    def remove(cluster: Any) -> None:
        idx = tt.get("deletedPodIdx", 0)
        deleted = tt["existingPods"][idx] if idx >= 0 else tt["deletedPod"]
        meta = deleted["metadata"]
        uid = meta.get("uid") or f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"
        assert cluster.remove_pod(uid) is not None or idx < 0

    _state_after(tt, remove)


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(tc: dict[str, Any]) -> None:
    old, new = tc.get("oldNode"), tc.get("newNode")
    caps = capabilities_of(list_defaulting())
    event = update_event(caps, "Node") if old is not None and new is not None else "Node/Add" if new is not None else "Node/Delete"
    assert caps.requeues(event, st.pod_info(tc["pod"]), old, new) == tc["expectedHint"]


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodChange))
def test_is_schedulable_after_assigned_pod_change(tc: dict[str, Any]) -> None:
    old = st.pod_info(tc["oldPod"]) if tc.get("oldPod") else None
    new = st.pod_info(tc["newPod"]) if tc.get("newPod") else None
    caps = capabilities_of(list_defaulting())
    event = update_event(caps, "Pod") if old is not None and new is not None else "Pod/Add" if new is not None else "Pod/Delete"
    assert caps.requeues(event, st.pod_info(tc["pod"]), old, new) == tc["expectedHint"]


# TestPodTopoSignatures (filtering_test.go): expectedSignature is nil in every case; a pod with constraints, or
# any pod under System defaulting, is not signable.
TestPodTopoSignatures = [
    {"name": "TestPodTopoSignatures/pod w constraints",
     "pod": {"kind": "Pod", "spec": {"topologySpreadConstraints": [{"topologyKey": "test"}]}},
     "config": {"defaultingType": "System"}, "scheduleable": False},
    {"name": "TestPodTopoSignatures/pod no constraints but default", "pod": {"kind": "Pod", "spec": {}},
     "config": {"defaultingType": "System"}, "scheduleable": False},
    {"name": "TestPodTopoSignatures/pod no constraints no default", "pod": {"kind": "Pod", "spec": {}},
     "config": {"defaultingType": "List", "defaultConstraints": []}, "scheduleable": True},
]


@pytest.mark.parametrize("test", cases(TestPodTopoSignatures))
def test_pod_topo_signatures(test: dict[str, Any]) -> None:
    got = PodTopologySpread(PodTopologySpreadArgs(**test["config"])).sign_pod(pod=st.pod_info(test["pod"]))
    signature = None if got is None or hasattr(got, "code") else got
    assert signature is None  # expectedSignature: nil
    assert (got is None) == test["scheduleable"]


# ---- Test_isSchedulableAfterTargetPodChange (plugin_test.go) --------------------------------------
Test_isSchedulableAfterTargetPodChange = [
    {
        "name": "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint with "
        "NodeTaintsPolicy:Honor and has got a new toleration",
        "pod": st.MakePod().UID("p").Name("p").Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, ptr.To(v1.NodeInclusionPolicyHonor), None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p").Name("p").Label("foo", "").Obj(),
        "newPod": st.MakePod().UID("p").Name("p").Label("foo", "").Toleration(v1.TaintNodeUnschedulable).Obj(),
        "expectedHint": fwk.Queue,
        "enableNodeInclusionPolicyInPodTopologySpread": True,
    },
    {
        "name": "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint without "
        "NodeTaintsPolicy:Honor and has got a new toleration",
        "pod": st.MakePod().UID("p").Name("p").Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, ptr.To(v1.NodeInclusionPolicyIgnore), None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p").Name("p").Label("foo", "").Obj(),
        "newPod": st.MakePod().UID("p").Name("p").Label("foo", "").Toleration(v1.TaintNodeUnschedulable).Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint and has got a new "
        "label matching the selector of the constraint",
        "pod": st.MakePod().UID("p").Name("p").Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, ptr.To(v1.NodeInclusionPolicyIgnore), None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p").Name("p").Obj(),
        "newPod": st.MakePod().UID("p").Name("p").Label("foo", "").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterTargetPodChange/the unschedulable Pod has topologySpreadConstraint and has got a new "
        "unrelated label",
        "pod": st.MakePod().UID("p").Name("p").Label("foo", "")
        .SpreadConstraint(1, "zone", v1.DoNotSchedule, fooSelector, None, None, ptr.To(v1.NodeInclusionPolicyIgnore), None)
        .SpreadConstraint(1, "node", v1.DoNotSchedule, barSelector, None, None, None, None)
        .Obj(),
        "oldPod": st.MakePod().UID("p").Name("p").Obj(),
        "newPod": st.MakePod().UID("p").Name("p").Label("unrelated", "").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
]


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterTargetPodChange))
def test_is_schedulable_after_target_pod_change(tc: dict[str, Any]) -> None:
    """The event the queue raises for each case's update (pod_events.target_pod_events), then the hint.
    NodeInclusionPolicyInPodTopologySpread is GA (always on) in kubeberth's v1.37."""
    old, new = st.pod_info(tc["oldPod"]), st.pod_info(tc["newPod"])
    caps = capabilities_of(list_defaulting())
    events = target_pod_events(old, new)
    assert any(caps.requeues(e, st.pod_info(tc["pod"]), old, new) for e in events) == tc["expectedHint"]

"""InterPodAffinity: kube-scheduler v1.37.2's interpodaffinity test tables, case by case.

Tables transcribed from filtering_test.go and scoring_test.go (see st.py); each case runs the hooks
the Go test runs and asserts what it asserts. The Go filter tests run each case with the
InterPodAffinityHostnameFastPath gate on and off, with the same expectations; kubeberth has one path.
"""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.api.signing import LABELS_SIGNER
from kubeberth.builtin_plugins.inter_pod_affinity import (
    ERR_REASON_AFFINITY as ErrReasonAffinityRulesNotMatch,
)
from kubeberth.builtin_plugins.inter_pod_affinity import (
    ERR_REASON_ANTI_AFFINITY as ErrReasonAntiAffinityRulesNotMatch,
)
from kubeberth.builtin_plugins.inter_pod_affinity import (
    ERR_REASON_EXISTING_ANTI_AFFINITY as ErrReasonExistingAntiAffinityRulesNotMatch,
)
from kubeberth.builtin_plugins.inter_pod_affinity import InterPodAffinity, InterPodAffinityArgs
from st import GoStatus, fwk, metav1, new, v1
from upstream import cases, run_filter, run_score, snapshot, update_event

defaultNamespace = ""
nsLabelT1 = {"team": "team1"}
nsLabelT2 = {"team": "team2"}
namespaces = [
    {"kind": "Namespace", "metadata": {"name": "subteam1.team1", "labels": nsLabelT1}},
    {"kind": "Namespace", "metadata": {"name": "subteam2.team1", "labels": nsLabelT1}},
    {"kind": "Namespace", "metadata": {"name": "subteam1.team2", "labels": nsLabelT2}},
    {"kind": "Namespace", "metadata": {"name": "subteam2.team2", "labels": nsLabelT2}},
]


def createPodWithAffinityTerms(namespace: str, nodeName: str, labels: dict[str, str] | None,
                               affinity: list[dict[str, Any]] | None,
                               antiAffinity: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {
        "kind": "Pod",
        "metadata": {"labels": labels, "namespace": namespace},
        "spec": {"nodeName": nodeName, "affinity": {
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": antiAffinity},
        }},
    }


def go_status(status: Any) -> GoStatus | None:
    """A kubeberth Status (None = Success) as the fwk.Status the Go test compares."""
    if status is None or status.code == fwk.Success:
        return None
    return GoStatus(status.code, tuple(status.reasons))



def _TestRequiredAffinitySingleNode() -> Any:
    podLabel = {"service": "securityscan"}
    pod = st.MakePod().Labels(podLabel).Node("node1").Obj()
    labels1 = {"region": "r1", "zone": "z11"}
    podLabel2 = {"security": "S1"}
    node1 = {"kind": "Node", "metadata": {"name": "node1", "labels": labels1}}
    return [
        {
            "name": "TestRequiredAffinitySingleNode/A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
            "pod": new(v1.Pod),
            "node": node1,
            "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [pod],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAffinityNotIn("service", "region", ["securityscan3", "value3"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [pod],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
            "pod": createPodWithAffinityTerms(
                defaultNamespace,
                "",
                podLabel2,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaces": ["DiffNameSpace"],
                    }
                ],
                None,
            ),
            "pods": [st.MakePod().Namespace("ns").Label("service", "securityscan").Node("node1").Obj()],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAffinityIn("service", "", ["antivirusscan", "value2"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [pod],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
            "pod": createPodWithAffinityTerms(
                defaultNamespace,
                "",
                podLabel2,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "service", "operator": metav1.LabelSelectorOpExists},
                                {"key": "wrongkey", "operator": metav1.LabelSelectorOpDoesNotExist},
                            ]
                        },
                        "topologyKey": "region",
                    },
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan"],
                                },
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpNotIn,
                                    "values": ["WrongValue"],
                                },
                            ]
                        },
                        "topologyKey": "region",
                    },
                ],
                None,
            ),
            "pods": [pod],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
            "pod": createPodWithAffinityTerms(
                defaultNamespace,
                "",
                podLabel2,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "service", "operator": metav1.LabelSelectorOpExists},
                                {"key": "wrongkey", "operator": metav1.LabelSelectorOpDoesNotExist},
                            ]
                        },
                        "topologyKey": "region",
                    },
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan2"],
                                },
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpNotIn,
                                    "values": ["WrongValue"],
                                },
                            ]
                        },
                        "topologyKey": "region",
                    },
                ],
                None,
            ),
            "pods": [pod],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity with the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .PodAntiAffinityIn(
                "service", "node", ["antivirusscan", "value2"], st.PodAntiAffinityWithRequiredReq
            )
            .Obj(),
            "pods": [pod],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .PodAntiAffinityIn(
                "service", "node", ["antivirusscan", "value2"], st.PodAntiAffinityWithRequiredReq
            )
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel)
                .PodAntiAffinityIn(
                    "service", "node", ["antivirusscan", "value2"], st.PodAntiAffinityWithRequiredReq
                )
                .Obj()
            ],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .PodAntiAffinityIn(
                "service", "zone", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq
            )
            .Obj(),
            "pods": [pod],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .PodAntiAffinityIn(
                "service", "node", ["antivirusscan", "value2"], st.PodAntiAffinityWithRequiredReq
            )
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Labels(podLabel)
                .Node("node1")
                .PodAntiAffinityIn(
                    "service", "zone", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq
                )
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/pod matches its own Label in PodAffinity and that matches the existing pod Labels",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAffinityNotIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Label("service", "securityscan").Node("node2").Obj()],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
            "pod": st.MakePod().Labels(podLabel).Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel)
                .PodAntiAffinityIn(
                    "service", "zone", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq
                )
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
            "pod": st.MakePod().Labels(podLabel).Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel)
                .PodAntiAffinityNotIn(
                    "service", "zone", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq
                )
                .Obj()
            ],
            "node": node1,
            "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestRequiredAffinitySingleNode/satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAntiAffinityExists("service", "region", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("security", "region", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel2)
                .PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAntiAffinityExists("service", "zone", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel2)
                .PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel2)
            .PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels(podLabel)
                .PodAntiAffinityExists("service", "zone", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels({"abc": "", "xyz": ""})
            .PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels({"def": "", "xyz": ""})
                .PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels({"def": "", "xyz": ""})
            .PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("node1")
                .Labels({"abc": "", "xyz": ""})
                .PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAffinity fails PreFilter with an invalid affinity label syntax",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAffinityIn("service", "region", ["{{.bad-value.}}"], st.PodAffinityWithRequiredReq)
            .PodAffinityIn("service", "node", ["antivirusscan", "value2"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "node": node1,
            "wantPreFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable,
                "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels(podLabel)
            .PodAffinityIn("service", "region", ["foo"], st.PodAffinityWithRequiredReq)
            .PodAffinityIn("service", "node", ["{{.bad-value.}}"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "node": node1,
            "wantPreFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable,
                "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/affinity with NamespaceSelector",
            "pod": createPodWithAffinityTerms(
                defaultNamespace,
                "",
                podLabel2,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                        "topologyKey": "region",
                    }
                ],
                None,
            ),
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabel},
                }
            ],
            "node": node1,
        },
        {
            "name": "TestRequiredAffinitySingleNode/affinity with non-matching NamespaceSelector",
            "pod": createPodWithAffinityTerms(
                defaultNamespace,
                "",
                podLabel2,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                        "topologyKey": "region",
                    }
                ],
                None,
            ),
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabel},
                }
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(
                fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch
            ),
        },
        {
            "name": "TestRequiredAffinitySingleNode/anti-affinity with matching NamespaceSelector",
            "pod": createPodWithAffinityTerms(
                "subteam1.team1",
                "",
                podLabel2,
                None,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                        "topologyKey": "zone",
                    }
                ],
            ),
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabel},
                }
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/anti-affinity with matching all NamespaceSelector",
            "pod": createPodWithAffinityTerms(
                "subteam1.team1",
                "",
                podLabel2,
                None,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaceSelector": {},
                        "topologyKey": "zone",
                    }
                ],
            ),
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabel},
                }
            ],
            "node": node1,
            "wantFilterStatus": fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
        },
        {
            "name": "TestRequiredAffinitySingleNode/anti-affinity with non-matching NamespaceSelector",
            "pod": createPodWithAffinityTerms(
                "subteam1.team1",
                "",
                podLabel2,
                None,
                [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "service",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["securityscan", "value2"],
                                }
                            ]
                        },
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                        "topologyKey": "zone",
                    }
                ],
            ),
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabel},
                }
            ],
            "node": node1,
        },
    ]


TestRequiredAffinitySingleNode = _TestRequiredAffinitySingleNode()


def _TestRequiredAffinityMultipleNodes() -> Any:
    podLabelA = {"foo": "bar"}
    labelRgChina = {"region": "China"}
    labelRgChinaAzAz1 = {"region": "China", "az": "az1"}
    labelRgIndia = {"region": "India"}
    return [
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAffinityIn("foo", "region", ["bar"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("p1").Node("node1").Labels(podLabelA).Obj()],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChinaAzAz1}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelRgIndia}},
            ],
            "wantFilterStatuses": [
                None,
                None,
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels({"foo": "bar", "service": "securityscan"})
            .PodAffinityIn("foo", "zone", ["bar"], st.PodAffinityWithRequiredReq)
            .PodAffinityIn("service", "zone", ["securityscan"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("p1").Node("nodeA").Labels({"foo": "bar"}).Obj()],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "nodeA", "labels": {"zone": "az1", "hostname": "h1"}}},
                {"kind": "Node", "metadata": {"name": "nodeB", "labels": {"zone": "az2", "hostname": "h2"}}},
            ],
            "wantFilterStatuses": [None, None],
            "name": "TestRequiredAffinityMultipleNodes/The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .Labels({"foo": "bar", "service": "securityscan"})
            .PodAffinityIn("foo", "zone", ["bar"], st.PodAffinityWithRequiredReq)
            .PodAffinityIn("service", "zone", ["securityscan"], st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("p1").Node("nodeA").Labels({"foo": "bar"}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {"name": "nodeA", "labels": {"zoneLabel": "az1", "hostname": "h1"}},
                },
                {
                    "kind": "Node",
                    "metadata": {"name": "nodeB", "labels": {"zoneLabel": "az2", "hostname": "h2"}},
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityIn("foo", "region", ["abc"], st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Node("nodeA").Labels({"foo": "abc"}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {"name": "nodeA", "labels": {"region": "r1", "hostname": "nodeA"}},
                },
                {
                    "kind": "Node",
                    "metadata": {"name": "nodeB", "labels": {"region": "r1", "hostname": "nodeB"}},
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityIn("foo", "region", ["abc"], st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityIn("service", "zone", ["securityscan"], st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Node("nodeA").Labels({"foo": "abc", "service": "securityscan"}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityIn("foo", "region", ["abc"], st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Node("nodeA").Labels({"foo": "abc"}).Obj()],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "nodeA", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "nodeB", "labels": labelRgChinaAzAz1}},
                {"kind": "Node", "metadata": {"name": "nodeC", "labels": labelRgIndia}},
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        },
        {
            "pod": st.MakePod()
            .Namespace("NS1")
            .Labels({"foo": "123"})
            .PodAntiAffinityIn("foo", "region", ["bar"], st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod().Node("nodeA").Namespace("NS1").Labels({"foo": "bar"}).Obj(),
                st.MakePod()
                .Node("nodeC")
                .Namespace("NS2")
                .PodAntiAffinityIn("foo", "region", ["123"], st.PodAntiAffinityWithRequiredReq)
                .Obj(),
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "nodeA", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "nodeB", "labels": labelRgChinaAzAz1}},
                {"kind": "Node", "metadata": {"name": "nodeC", "labels": labelRgIndia}},
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
        },
        {
            "pod": st.MakePod().Label("foo", "").Obj(),
            "pods": [
                st.MakePod()
                .Node("nodeA")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeB"},
                    },
                },
            ],
            "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
            "wantFilterStatuses": [None, None],
            "name": "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
        },
        {
            "pod": st.MakePod()
            .Node("nodeA")
            .Namespace(defaultNamespace)
            .PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Node("nodeA").Labels({"foo": ""}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [None, None],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
        },
        {
            "pod": st.MakePod().Label("foo", "").Label("bar", "").Obj(),
            "pods": [
                st.MakePod()
                .Node("nodeA")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj(),
                st.MakePod()
                .Node("nodeA")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("bar", "region", st.PodAntiAffinityWithRequiredReq)
                .Obj(),
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("bar", "region", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod().Node("nodeA").Labels({"foo": ""}).Obj(),
                st.MakePod().Node("nodeB").Labels({"bar": ""}).Obj(),
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
        },
        {
            "pod": st.MakePod().Label("foo", "").Label("bar", "").Obj(),
            "pods": [
                st.MakePod()
                .Node("nodeA")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("podA").Node("nodeA").Labels({"foo": "", "bar": ""}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        },
        {
            "pod": st.MakePod().Label("foo", "").Label("bar", "").Obj(),
            "pods": [
                st.MakePod()
                .Namespace(defaultNamespace)
                .Node("nodeA")
                .PodAntiAffinityExists("foo", "region", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj()
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityExists("foo", "region", st.PodAntiAffinityWithRequiredReq)
            .PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Node("nodeA").Labels({"foo": "", "bar": ""}).Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        },
        {
            "pod": st.MakePod().Label("foo", "").Label("bar", "").Obj(),
            "pods": [
                st.MakePod()
                .Node("nodeA")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("labelA", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj(),
                st.MakePod()
                .Node("nodeB")
                .Namespace(defaultNamespace)
                .PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq)
                .PodAntiAffinityExists("labelB", "zone", st.PodAntiAffinityWithRequiredReq)
                .Obj(),
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeC",
                        "labels": {"region": "r1", "zone": "z3", "hostname": "nodeC"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
                fwk.NewStatus(fwk.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAffinityExists("foo", "region", st.PodAffinityWithRequiredReq)
            .PodAffinityExists("bar", "zone", st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("pod1").Labels({"foo": "", "bar": ""}).Node("nodeA").Obj()],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [None, None],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAffinityExists("foo", "region", st.PodAffinityWithRequiredReq)
            .PodAffinityExists("bar", "zone", st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [
                st.MakePod().Node("nodeA").Name("pod1").Namespace(defaultNamespace).Labels({"foo": ""}).Obj(),
                st.MakePod().Node("nodeB").Name("pod2").Namespace(defaultNamespace).Labels({"bar": ""}).Obj(),
            ],
            "nodes": [
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeA",
                        "labels": {"region": "r1", "zone": "z1", "hostname": "nodeA"},
                    },
                },
                {
                    "kind": "Node",
                    "metadata": {
                        "name": "nodeB",
                        "labels": {"region": "r1", "zone": "z2", "hostname": "nodeB"},
                    },
                },
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAffinityExists("foo", v1.LabelHostname, st.PodAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("pod1").Labels({"foo": ""}).Node("nodeA").Obj()],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "nodeA", "labels": {v1.LabelHostname: "nodeA"}}},
                {"kind": "Node", "metadata": {"name": "nodeB", "labels": {v1.LabelHostname: "nodeB"}}},
            ],
            "wantFilterStatuses": [
                None,
                fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch),
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's host-scoped affinity (fast path)",
        },
        {
            "pod": st.MakePod()
            .Namespace(defaultNamespace)
            .PodAntiAffinityExists("foo", v1.LabelHostname, st.PodAntiAffinityWithRequiredReq)
            .Obj(),
            "pods": [st.MakePod().Name("pod1").Labels({"foo": ""}).Node("nodeA").Obj()],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "nodeA", "labels": {v1.LabelHostname: "nodeA"}}},
                {"kind": "Node", "metadata": {"name": "nodeB", "labels": {v1.LabelHostname: "nodeB"}}},
            ],
            "wantFilterStatuses": [
                fwk.NewStatus(fwk.Unschedulable, ErrReasonAntiAffinityRulesNotMatch),
                None,
            ],
            "name": "TestRequiredAffinityMultipleNodes/Test incoming pod's host-scoped anti-affinity (fast path)",
        },
    ]


TestRequiredAffinityMultipleNodes = _TestRequiredAffinityMultipleNodes()


def _TestPreferredAffinity() -> Any:
    labelRgChina = {"region": "China"}
    labelRgIndia = {"region": "India"}
    labelAzAz1 = {"az": "az1"}
    labelAzAz2 = {"az": "az2"}
    labelRgChinaAzAz1 = {"region": "China", "az": "az1"}
    podLabelSecurityS1 = {"security": "S1"}
    podLabelSecurityS2 = {"security": "S2"}
    stayWithS1InRegion = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                    },
                }
            ]
        }
    }
    stayWithS2InRegion = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 6,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S2"]}
                            ]
                        },
                        "topologyKey": "region",
                    },
                }
            ]
        }
    }
    affinity3 = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 8,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "security",
                                    "operator": metav1.LabelSelectorOpNotIn,
                                    "values": ["S1"],
                                },
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S2"]},
                            ]
                        },
                        "topologyKey": "region",
                    },
                },
                {
                    "weight": 2,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpExists},
                                {"key": "wrongkey", "operator": metav1.LabelSelectorOpDoesNotExist},
                            ]
                        },
                        "topologyKey": "region",
                    },
                },
            ]
        }
    }
    hardAffinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {
                                "key": "security",
                                "operator": metav1.LabelSelectorOpIn,
                                "values": ["S1", "value2"],
                            }
                        ]
                    },
                    "topologyKey": "region",
                },
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "security", "operator": metav1.LabelSelectorOpExists},
                            {"key": "wrongkey", "operator": metav1.LabelSelectorOpDoesNotExist},
                        ]
                    },
                    "topologyKey": "region",
                },
            ]
        }
    }
    awayFromS1InAz = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "az",
                    },
                }
            ]
        }
    }
    awayFromS2InAz = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S2"]}
                            ]
                        },
                        "topologyKey": "az",
                    },
                }
            ]
        }
    }
    stayWithS1InRegionAwayFromS2InAz = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 8,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                    },
                }
            ]
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S2"]}
                            ]
                        },
                        "topologyKey": "az",
                    },
                }
            ]
        },
    }
    affinityNamespaceSelector = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                        "namespaces": ["subteam2.team2"],
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                    },
                }
            ]
        }
    }
    antiAffinityNamespaceSelector = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                        "namespaces": ["subteam2.team2"],
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                            ]
                        },
                    },
                }
            ]
        }
    }
    affinityNegativeNamespaceSelector = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpNotIn, "values": ["team1"]}
                            ]
                        },
                    },
                }
            ]
        }
    }
    antiAffinityNegativeNamespaceSelector = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "security", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                            ]
                        },
                        "topologyKey": "region",
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "team", "operator": metav1.LabelSelectorOpNotIn, "values": ["team1"]}
                            ]
                        },
                    },
                }
            ]
        }
    }
    invalidAffinityLabels = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 8,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "security",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["{{.bad-value.}}"],
                                }
                            ]
                        },
                        "topologyKey": "region",
                    },
                }
            ]
        }
    }
    invalidAntiAffinityLabels = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchExpressions": [
                                {
                                    "key": "security",
                                    "operator": metav1.LabelSelectorOpIn,
                                    "values": ["{{.bad-value.}}"],
                                }
                            ]
                        },
                        "topologyKey": "az",
                    },
                }
            ]
        }
    }
    return [
        {
            "name": "TestPreferredAffinity/all nodes are same priority as Affinity is nil",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS1}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "wantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestPreferredAffinity/Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": stayWithS1InRegion},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node3"}, "metadata": {"labels": podLabelSecurityS1}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
            "pod": {"kind": "Pod", "spec": {"nodeName": "", "affinity": stayWithS1InRegion}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}}
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChinaAzAz1}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelRgIndia}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": stayWithS2InRegion},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node3"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node4"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node5"}, "metadata": {"labels": podLabelSecurityS2}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node4", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node5", "labels": labelRgIndia}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": fwk.MaxNodeScore},
                {"name": "node4", "score": fwk.MaxNodeScore},
                {"name": "node5", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": affinity3},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node3"}, "metadata": {"labels": podLabelSecurityS1}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": 20},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS2}},
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": stayWithS1InRegion},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": stayWithS2InRegion},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": 0},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity symmetry with namespace selector",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": ""},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": affinityNamespaceSelector},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": stayWithS2InRegion},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/AntiAffinity symmetry with namespace selector",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": ""},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": antiAffinityNamespaceSelector},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": stayWithS2InRegion},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": 0},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": fwk.MaxNodeScore},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS1}},
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": hardAffinity},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": hardAffinity},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Anti Affinity: pod that does not match existing pods in node will get high score ",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": awayFromS1InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelAzAz1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChina}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": awayFromS1InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS1}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelAzAz1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChina}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": awayFromS1InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelAzAz1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS2}},
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": awayFromS2InAz},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": awayFromS1InAz},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelAzAz1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelAzAz2}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": stayWithS1InRegionAwayFromS2InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS1}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelAzAz1}},
            ],
            "expectedList": [{"name": "node1", "score": fwk.MaxNodeScore}, {"name": "node2", "score": 0}],
        },
        {
            "name": "TestPreferredAffinity/Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": stayWithS1InRegionAwayFromS2InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node3"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node3"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node4"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node5"}, "metadata": {"labels": podLabelSecurityS1}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChinaAzAz1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node4", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node5", "labels": labelRgIndia}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": fwk.MaxNodeScore},
                {"name": "node4", "score": fwk.MaxNodeScore},
                {"name": "node5", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
            "pod": {
                "kind": "Pod",
                "spec": {"nodeName": "", "affinity": stayWithS1InRegionAwayFromS2InAz},
                "metadata": {"labels": podLabelSecurityS1},
            },
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2"}, "metadata": {"labels": podLabelSecurityS2}},
                {"kind": "Pod", "spec": {"nodeName": "node3", "affinity": stayWithS1InRegionAwayFromS2InAz}},
                {"kind": "Pod", "spec": {"nodeName": "node4", "affinity": awayFromS1InAz}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelAzAz1}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node4", "labels": labelAzAz2}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": fwk.MaxNodeScore},
                {"name": "node4", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinity/Avoid panic when partial nodes in a topology don't have pods with affinity",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1"}, "metadata": {"labels": podLabelSecurityS1}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": stayWithS1InRegionAwayFromS2InAz}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChina}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": 0}],
        },
        {
            "name": "TestPreferredAffinity/invalid Affinity fails PreScore",
            "pod": {"kind": "Pod", "spec": {"nodeName": "", "affinity": invalidAffinityLabels}},
            "wantStatus": fwk.NewStatus(fwk.Error, 'Invalid value: "{{.bad-value.}}"'),
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChina}},
            ],
        },
        {
            "name": "TestPreferredAffinity/invalid AntiAffinity fails PreScore",
            "pod": {"kind": "Pod", "spec": {"nodeName": "", "affinity": invalidAntiAffinityLabels}},
            "wantStatus": fwk.NewStatus(fwk.Error, 'Invalid value: "{{.bad-value.}}"'),
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgChina}},
            ],
        },
        {
            "name": "TestPreferredAffinity/Affinity with pods matching NamespaceSelector",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": affinityNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": fwk.MaxNodeScore}, {"name": "node2", "score": 0}],
        },
        {
            "name": "TestPreferredAffinity/Affinity with pods matching both NamespaceSelector and Namespaces fields",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": affinityNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam2.team2", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": fwk.MaxNodeScore}, {"name": "node2", "score": 0}],
        },
        {
            "name": "TestPreferredAffinity/Affinity with pods matching NamespaceSelector",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": antiAffinityNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Affinity with pods matching both NamespaceSelector and Namespaces fields",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": antiAffinityNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam2.team2", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam2.team1", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
        },
        {
            "name": "TestPreferredAffinity/Affinity with pods correctly enforcing negative NamespaceSelector",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": affinityNegativeNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxScore}],
        },
        {
            "name": "TestPreferredAffinity/AntiAffinity with pods correctly enforcing negative NamespaceSelector",
            "pod": {
                "kind": "Pod",
                "spec": {"affinity": antiAffinityNegativeNamespaceSelector},
                "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
            },
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1"},
                    "metadata": {"namespace": "subteam1.team1", "labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2"},
                    "metadata": {"namespace": "subteam1.team2", "labels": podLabelSecurityS1},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": fwk.MaxScore}, {"name": "node2", "score": 0}],
        },
        {
            "name": "TestPreferredAffinity/Ignore preferred terms of existing pods",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS2}},
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": stayWithS1InRegionAwayFromS2InAz},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": stayWithS2InRegion},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": 0}],
            "wantStatus": fwk.NewStatus(fwk.Skip),
            "ignorePreferredTermsOfExistingPods": True,
        },
        {
            "name": "TestPreferredAffinity/Do not ignore preferred terms of existing pods",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS2}},
            "pods": [
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node1", "affinity": stayWithS1InRegionAwayFromS2InAz},
                    "metadata": {"labels": podLabelSecurityS1},
                },
                {
                    "kind": "Pod",
                    "spec": {"nodeName": "node2", "affinity": stayWithS2InRegion},
                    "metadata": {"labels": podLabelSecurityS2},
                },
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
            ],
            "expectedList": [{"name": "node1", "score": 0}, {"name": "node2", "score": fwk.MaxNodeScore}],
            "ignorePreferredTermsOfExistingPods": False,
        },
        {
            "name": "TestPreferredAffinity/No nodes to score",
            "pod": {"kind": "Pod", "spec": {"nodeName": ""}, "metadata": {"labels": podLabelSecurityS2}},
            "pods": [],
            "nodes": [],
            "wantStatus": fwk.NewStatus(fwk.Skip),
        },
    ]


TestPreferredAffinity = _TestPreferredAffinity()


def _TestPreferredAffinityWithHardPodAffinitySymmetricWeight() -> Any:
    podLabelServiceS1 = {"service": "S1"}
    labelRgChina = {"region": "China"}
    labelRgIndia = {"region": "India"}
    labelAzAz1 = {"az": "az1"}
    hardPodAffinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": metav1.LabelSelectorOpIn, "values": ["S1"]}
                        ]
                    },
                    "namespaces": ["", "subteam2.team2"],
                    "namespaceSelector": {
                        "matchExpressions": [
                            {"key": "team", "operator": metav1.LabelSelectorOpIn, "values": ["team1"]}
                        ]
                    },
                    "topologyKey": "region",
                }
            ]
        }
    }
    return [
        {
            "name": "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with default weight",
            "pod": {"kind": "Pod", "metadata": {"labels": podLabelServiceS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1", "affinity": hardPodAffinity}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": hardPodAffinity}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "hardPodAffinityWeight": v1.DefaultHardPodAffinitySymmetricWeight,
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with zero weight",
            "pod": {"kind": "Pod", "metadata": {"labels": podLabelServiceS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1", "affinity": hardPodAffinity}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": hardPodAffinity}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "hardPodAffinityWeight": 0,
            "wantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with no matching namespace",
            "pod": {"kind": "Pod", "metadata": {"namespace": "subteam1.team2", "labels": podLabelServiceS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1", "affinity": hardPodAffinity}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": hardPodAffinity}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "hardPodAffinityWeight": v1.DefaultHardPodAffinitySymmetricWeight,
            "wantStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with matching NamespaceSelector",
            "pod": {"kind": "Pod", "metadata": {"namespace": "subteam1.team1", "labels": podLabelServiceS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1", "affinity": hardPodAffinity}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": hardPodAffinity}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "hardPodAffinityWeight": v1.DefaultHardPodAffinitySymmetricWeight,
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestPreferredAffinityWithHardPodAffinitySymmetricWeight/with matching Namespaces",
            "pod": {"kind": "Pod", "metadata": {"namespace": "subteam2.team2", "labels": podLabelServiceS1}},
            "pods": [
                {"kind": "Pod", "spec": {"nodeName": "node1", "affinity": hardPodAffinity}},
                {"kind": "Pod", "spec": {"nodeName": "node2", "affinity": hardPodAffinity}},
            ],
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": labelRgChina}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": labelRgIndia}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": labelAzAz1}},
            ],
            "hardPodAffinityWeight": v1.DefaultHardPodAffinitySymmetricWeight,
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": fwk.MaxNodeScore},
                {"name": "node3", "score": 0},
            ],
        },
    ]


TestPreferredAffinityWithHardPodAffinitySymmetricWeight = (
    _TestPreferredAffinityWithHardPodAffinitySymmetricWeight()
)



Test_isSchedulableAfterNodeChange = [
    {
        "name": "Test_isSchedulableAfterNodeChange/add a new node with matched pod affinity topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "zone", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/add a new node without matched topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node label but not topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "zone", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("aaa", "a").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("aaa", "b").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node label that isn't related to the pod affinity",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "zone", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode()
        .Name("node-a")
        .Label("zone", "zone1")
        .Label("unrelated-label", "unrelated")
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with different affinity topologyKey value",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "zone", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone2").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node to have the affinity topology label",
        "pod": st.MakePod()
        .Name("p")
        .PodAffinityIn("service", "zone", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("aaa", "a").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/add a new node with matched pod anti-affinity topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/add a new node without matched pod anti-affinity topologyKey",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newNode": st.MakeNode().Name("node-a").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node label that isn't related to the pod anti-affinity",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode()
        .Name("node-a")
        .Label("zone", "zone1")
        .Label("unrelated-label", "unrelated")
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node with different anti-affinity topologyKey value",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone2").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node to have the anti-affinity topology label",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("aaa", "a").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterNodeChange/update node label not to have anti-affinity topology label",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinity("zone", {"matchLabels": {"another": "label"}}, st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldNode": st.MakeNode().Name("node-a").Label("zone", "zone1").Obj(),
        "newNode": st.MakeNode().Name("node-a").Label("aaa", "a").Obj(),
        "expectedHint": fwk.Queue,
    },
]



Test_isSchedulableAfterAssignedPodChange = [
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add a pod which matches the pod affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add an un-scheduled pod",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/add a pod which doesn't match the pod affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update a pod from non-match to match pod affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/the updating pod matches target pod's affinity both before and after label changes",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "value2").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update an un-scheduled pod",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod().UID("other").Label("aaa", "a").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update a pod from match to non-match the pod affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityIn("service", "region", ["securityscan", "value2"], st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update a pod from match to non-match pod's affinity - multiple terms case",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq)
        .PodAffinityExists("bbb", "hostname", st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/update a pod from non-match to match pod's affinity - multiple terms case",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq)
        .PodAffinityExists("bbb", "hostname", st.PodAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "").Label("bbb", "").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "aaaa").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "bbb").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod which doesn't match pod's anti-affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod which matches pod's anti-affinity",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod with anti-affinity that matches pending pod",
        "pod": st.MakePod().Name("p").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod()
        .Node("fake-node")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod with anti-affinity that doesn't match pending pod",
        "pod": st.MakePod().Name("p").Label("service", "foo").Obj(),
        "oldPod": st.MakePod()
        .Node("fake-node")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match pending pod",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Label("service", "foo")
        .Obj(),
        "oldPod": st.MakePod()
        .Node("fake-node")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Label("service", "foo")
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a nominated pod which doesn't match pod's anti-affinity",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldPod": st.MakePod().NominatedNodeName("fake-node").Label("aaa", "a").Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a nominated pod which matches pod's anti-affinity",
        "pod": st.MakePod()
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan", "value2"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldPod": st.MakePod().NominatedNodeName("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/modify pod label to change it from matching only one of target pod's anti-affinity terms to matching none",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan"], st.PodAntiAffinityWithRequiredReq)
        .PodAntiAffinityIn("app", "region", ["web"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod()
        .UID("other")
        .Node("fake-node")
        .Label("service", "foo")
        .Label("app", "bar")
        .Obj(),
        "oldPod": st.MakePod()
        .UID("other")
        .Node("fake-node")
        .Label("service", "securityscan")
        .Label("app", "bar")
        .Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/modify pod label but it still matches one of target pod's anti-affinity terms",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan"], st.PodAntiAffinityWithRequiredReq)
        .PodAntiAffinityIn("app", "region", ["web"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "newPod": st.MakePod()
        .UID("other")
        .Node("fake-node")
        .Label("service", "foo")
        .Label("app", "web")
        .Obj(),
        "oldPod": st.MakePod()
        .UID("other")
        .Node("fake-node")
        .Label("service", "securityscan")
        .Label("app", "bar")
        .Obj(),
        "expectedHint": fwk.QueueSkip,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod which matches only one of target pod's anti-affinity terms",
        "pod": st.MakePod()
        .UID("p")
        .Name("p")
        .PodAntiAffinityIn("service", "region", ["securityscan"], st.PodAntiAffinityWithRequiredReq)
        .PodAntiAffinityIn("app", "region", ["web"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "oldPod": st.MakePod().UID("other").Node("fake-node").Label("service", "securityscan").Obj(),
        "expectedHint": fwk.Queue,
    },
    {
        "name": "Test_isSchedulableAfterAssignedPodChange/delete a pod with anti-affinity that matches pending pod on only one term",
        "pod": st.MakePod().Name("p").Label("service", "securityscan").Obj(),
        "oldPod": st.MakePod()
        .Node("fake-node")
        .UID("other")
        .PodAntiAffinityIn("service", "region", ["securityscan"], st.PodAntiAffinityWithRequiredReq)
        .PodAntiAffinityIn("app", "region", ["web"], st.PodAntiAffinityWithRequiredReq)
        .Obj(),
        "expectedHint": fwk.Queue,
    },
]


@pytest.mark.parametrize("test", cases(TestRequiredAffinitySingleNode))
def test_required_affinity_single_node(test: dict[str, Any]) -> None:
    cluster = snapshot(test.get("pods"), [test["node"]], *namespaces)
    pre, got = run_filter(InterPodAffinity(InterPodAffinityArgs()), test["pod"], cluster)
    assert go_status(pre) == test.get("wantPreFilterStatus")
    if pre is not None and pre.code != fwk.Success:
        return
    assert go_status(got[test["node"]["metadata"]["name"]]) == test.get("wantFilterStatus")


@pytest.mark.parametrize("test", cases(TestRequiredAffinityMultipleNodes))
def test_required_affinity_multiple_nodes(test: dict[str, Any]) -> None:
    ns1 = {"kind": "Namespace", "metadata": {"name": "NS1"}}
    cluster = snapshot(test.get("pods"), test["nodes"], ns1)
    pre, got = run_filter(InterPodAffinity(InterPodAffinityArgs()), test["pod"], cluster)
    assert go_status(pre) == test.get("wantPreFilterStatus")
    if pre is not None and pre.code == fwk.Skip:
        return
    want = test.get("wantFilterStatuses")
    assert [go_status(got[n["metadata"]["name"]]) for n in test["nodes"]] == want


def _score(test: dict[str, Any], args: InterPodAffinityArgs) -> None:
    cluster = snapshot(test.get("pods"), test["nodes"], *namespaces)
    pre, got = run_score(InterPodAffinity(args), test["pod"], cluster)
    want_status = test.get("wantStatus")
    if pre is not None and pre.code != fwk.Success:  # PreScore not a success: the Go test stops here
        assert want_status is not None and pre.code == want_status.code
        assert all(any(w in r for r in pre.reasons) for w in want_status.reasons)
        return
    assert want_status is None or want_status.code == fwk.Success
    assert [{"name": n, "score": s} for n, s in got.items()] == (test.get("expectedList") or [])


@pytest.mark.parametrize("test", cases(TestPreferredAffinity))
def test_preferred_affinity(test: dict[str, Any]) -> None:
    _score(test, InterPodAffinityArgs(hardPodAffinityWeight=1,
                                      ignorePreferredTermsOfExistingPods=test.get("ignorePreferredTermsOfExistingPods",
                                                                                  False)))


@pytest.mark.parametrize("test", cases(TestPreferredAffinityWithHardPodAffinitySymmetricWeight))
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(test: dict[str, Any]) -> None:
    _score(test, InterPodAffinityArgs(hardPodAffinityWeight=test["hardPodAffinityWeight"]))


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(tc: dict[str, Any]) -> None:
    old, new = tc.get("oldNode"), tc["newNode"]
    caps = capabilities_of(InterPodAffinity(InterPodAffinityArgs()))
    event = update_event(caps, "Node") if old is not None else "Node/Add"
    assert caps.requeues(event, st.pod_info(tc["pod"]), old, new) == tc["expectedHint"]


@pytest.mark.parametrize("tc", cases(Test_isSchedulableAfterAssignedPodChange))
def test_is_schedulable_after_assigned_pod_change(tc: dict[str, Any]) -> None:
    old = st.pod_info(tc["oldPod"]) if tc.get("oldPod") else None
    new = st.pod_info(tc["newPod"]) if tc.get("newPod") else None
    caps = capabilities_of(InterPodAffinity(InterPodAffinityArgs()))
    event = update_event(caps, "Pod") if old is not None and new is not None else "Pod/Add" if new is not None else "Pod/Delete"
    assert caps.requeues(event, st.pod_info(tc["pod"]), old, new) == tc["expectedHint"]


# TestPodAffinitySignature (plugin_test.go)
TestPodAffinitySignature = [
    {"name": "TestPodAffinitySignature/no affinity, default settings",
     "pod": {"kind": "Pod", "metadata": {"labels": {"foo": "bar"}}, "spec": {}},
     "expectedSignature": [{"key": LABELS_SIGNER, "value": {"foo": "bar"}}], "schedulable": True},
    {"name": "TestPodAffinitySignature/no affinity, ignore setting set",
     "pod": {"kind": "Pod", "metadata": {"labels": {"foo": "bar"}}, "spec": {}}, "schedulable": True,
     "config": {"ignorePreferredTermsOfExistingPods": True}},
    {"name": "TestPodAffinitySignature/affinity set",
     "pod": {"kind": "Pod", "metadata": {"labels": {"foo": "bar"}},
             "spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{}]}}}},
     "schedulable": False},
]


@pytest.mark.parametrize("test", cases(TestPodAffinitySignature))
def test_pod_affinity_signature(test: dict[str, Any]) -> None:
    got = InterPodAffinity(InterPodAffinityArgs(**(test.get("config") or {}))).sign_pod(pod=st.pod_info(test["pod"]))
    unsignable = got is not None and hasattr(got, "code")
    signature = None if got is None or unsignable else [{"key": f.key, "value": f.value} for f in got]
    assert signature == test.get("expectedSignature")
    assert (not unsignable) == test["schedulable"]

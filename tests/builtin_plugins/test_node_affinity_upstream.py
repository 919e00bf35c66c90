"""NodeAffinity: kube-scheduler v1.37.2's nodeaffinity test tables (node_affinity_test.go), case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth import CycleState, PreFilterResult, Status
from kubeberth.builtin_plugins.node_affinity import (
    ERR_REASON_CONFLICT as errReasonConflict,
)
from kubeberth.builtin_plugins.node_affinity import (
    ERR_REASON_ENFORCED as errReasonEnforced,
)
from kubeberth.builtin_plugins.node_affinity import (
    ERR_REASON_POD as ErrReasonPod,
)
from kubeberth.builtin_plugins.node_affinity import NodeAffinity, NodeAffinityArgs
from st import GoStatus, fmt, fwk, metav1, sets, v1
from test_node_unschedulable_upstream import requeues
from upstream import call, cases, filter_statuses, pod_info, run_score, snapshot, view


def go_status(status: Status | None) -> GoStatus | None:
    if status is None or status.code == fwk.Success:
        return None
    return GoStatus(status.code, tuple(status.reasons))


TestNodeAffinity = [
    {
        "name": "TestNodeAffinity/missing labels",
        "pod": st.MakePod().NodeSelector({"foo": "bar"}).Obj(),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/same labels",
        "pod": st.MakePod().NodeSelector({"foo": "bar"}).Obj(),
        "labels": {"foo": "bar"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/node labels are superset",
        "pod": st.MakePod().NodeSelector({"foo": "bar"}).Obj(),
        "labels": {"foo": "bar", "baz": "blah"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/node labels are subset",
        "pod": st.MakePod().NodeSelector({"foo": "bar", "baz": "blah"}).Obj(),
        "labels": {"foo": "bar"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchExpressions using In operator that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "foo",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["bar", "value2"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"foo": "bar"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchExpressions using Gt operator that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "kernel-version",
                                            "operator": v1.NodeSelectorOpGt,
                                            "values": ["0204"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"kernel-version": "0206"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchExpressions using NotIn operator that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "mem-type",
                                            "operator": v1.NodeSelectorOpNotIn,
                                            "values": ["DDR", "DDR2"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"mem-type": "DDR3"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchExpressions using Exists operator that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "GPU", "operator": v1.NodeSelectorOpExists}]}
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"GPU": "NVIDIA-GRID-K1"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with affinity that don't match node's labels won't schedule onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "foo",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["value1", "value2"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"foo": "bar"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": []}]
                        }
                    }
                }
            },
        },
        "labels": {"foo": "bar"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with no Affinity will schedule onto a node",
        "pod": {"kind": "Pod"},
        "labels": {"foo": "bar"},
        "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with Affinity but nil NodeSelector will schedule onto a node",
        "pod": {
            "kind": "Pod",
            "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}}},
        },
        "labels": {"foo": "bar"},
        "wantPreFilterStatus": fwk.NewStatus(fwk.Skip),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with multiple matchExpressions ANDed that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "GPU", "operator": v1.NodeSelectorOpExists},
                                        {
                                            "key": "GPU",
                                            "operator": v1.NodeSelectorOpNotIn,
                                            "values": ["AMD", "INTER"],
                                        },
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"GPU": "NVIDIA-GRID-K1"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "GPU", "operator": v1.NodeSelectorOpExists},
                                        {
                                            "key": "GPU",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["AMD", "INTER"],
                                        },
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"GPU": "NVIDIA-GRID-K1"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "foo",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["bar", "value2"],
                                        }
                                    ]
                                },
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "diffkey",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["wrong", "value2"],
                                        }
                                    ]
                                },
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"foo": "bar"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "nodeSelector": {"foo": "bar"},
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "foo", "operator": v1.NodeSelectorOpExists}]}
                            ]
                        }
                    }
                },
            },
        },
        "labels": {"foo": "bar"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "nodeSelector": {"foo": "bar"},
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "foo", "operator": v1.NodeSelectorOpExists}]}
                            ]
                        }
                    }
                },
            },
        },
        "labels": {"foo": "barrrrrr"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with an invalid value in Affinity term won't be scheduled onto the node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "foo",
                                            "operator": v1.NodeSelectorOpNotIn,
                                            "values": ["invalid value: ___@#$%^"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"foo": "bar"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchFields using In operator that matches the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node1",
        "wantPreFilterResult": {"nodeNames": sets.New("node1")},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with matchFields using In operator that does not match the existing node",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "wantPreFilterResult": {"nodeNames": sets.New("node1")},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with two terms: matchFields does not match, but matchExpressions matches",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        },
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node2"],
                                        },
                                    ]
                                },
                                {
                                    "matchExpressions": [
                                        {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                                    ]
                                },
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"foo": "bar"},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with one term: matchFields does not match, but matchExpressions matches",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ],
                                    "matchExpressions": [
                                        {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                                    ],
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"foo": "bar"},
        "wantPreFilterResult": {"nodeNames": sets.New("node1")},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with one term: both matchFields and matchExpressions match",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ],
                                    "matchExpressions": [
                                        {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                                    ],
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node1",
        "labels": {"foo": "bar"},
        "wantPreFilterResult": {"nodeNames": sets.New("node1")},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with two terms: both matchFields and matchExpressions do not match",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ]
                                },
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "foo",
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["not-match-to-bar"],
                                        }
                                    ]
                                },
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"foo": "bar"},
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with two terms of node.Name affinity",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        }
                                    ]
                                },
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node2"],
                                        }
                                    ]
                                },
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "wantPreFilterResult": {"nodeNames": sets.New("node1", "node2")},
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Pod with two conflicting mach field requirements",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchFields": [
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node1"],
                                        },
                                        {
                                            "key": metav1.ObjectNameField,
                                            "operator": v1.NodeSelectorOpIn,
                                            "values": ["node2"],
                                        },
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"foo": "bar"},
        "wantPreFilterStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, errReasonConflict),
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Matches added affinity and Pod's node affinity",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "zone", "operator": v1.NodeSelectorOpIn, "values": ["foo"]}
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"zone": "foo"},
        "args": {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {
                                    "key": metav1.ObjectNameField,
                                    "operator": v1.NodeSelectorOpIn,
                                    "values": ["node2"],
                                }
                            ]
                        }
                    ]
                }
            }
        },
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Matches added affinity but not Pod's node affinity",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "zone", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "nodeName": "node2",
        "labels": {"zone": "foo"},
        "args": {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {
                                    "key": metav1.ObjectNameField,
                                    "operator": v1.NodeSelectorOpIn,
                                    "values": ["node2"],
                                }
                            ]
                        }
                    ]
                }
            }
        },
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ErrReasonPod),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Doesn't match added affinity",
        "pod": {"kind": "Pod"},
        "nodeName": "node2",
        "labels": {"zone": "foo"},
        "args": {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "zone", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                            ]
                        }
                    ]
                }
            }
        },
        "wantStatus": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, errReasonEnforced),
        "runPreFilter": True,
    },
    {
        "name": "TestNodeAffinity/Matches node selector correctly even if PreFilter is not called",
        "pod": {"kind": "Pod", "spec": {"nodeSelector": {"foo": "bar"}}},
        "labels": {"foo": "bar", "baz": "blah"},
        "runPreFilter": False,
    },
    {
        "name": "TestNodeAffinity/Matches node affinity correctly even if PreFilter is not called",
        "pod": {
            "kind": "Pod",
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "GPU", "operator": v1.NodeSelectorOpExists},
                                        {
                                            "key": "GPU",
                                            "operator": v1.NodeSelectorOpNotIn,
                                            "values": ["AMD", "INTER"],
                                        },
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
        },
        "labels": {"GPU": "NVIDIA-GRID-K1"},
        "runPreFilter": False,
    },
]


def _TestNodeAffinityPriority() -> Any:
    label1 = {"foo": "bar"}
    label2 = {"key": "value"}
    label3 = {"az": "az1"}
    label4 = {"abc": "az11", "def": "az22"}
    label5 = {"foo": "bar", "key": "value", "az": "az1"}
    affinity1 = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 2,
                    "preference": {
                        "matchExpressions": [
                            {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                        ]
                    },
                }
            ]
        }
    }
    affinity2 = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 2,
                    "preference": {
                        "matchExpressions": [
                            {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}
                        ]
                    },
                },
                {
                    "weight": 4,
                    "preference": {
                        "matchExpressions": [
                            {"key": "key", "operator": v1.NodeSelectorOpIn, "values": ["value"]}
                        ]
                    },
                },
                {
                    "weight": 5,
                    "preference": {
                        "matchExpressions": [
                            {"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]},
                            {"key": "key", "operator": v1.NodeSelectorOpIn, "values": ["value"]},
                            {"key": "az", "operator": v1.NodeSelectorOpIn, "values": ["az1"]},
                        ]
                    },
                },
            ]
        }
    }
    return [
        {
            "name": "TestNodeAffinityPriority/all nodes are same priority as NodeAffinity is nil",
            "pod": {"kind": "Pod", "metadata": {"annotations": {}}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": label3}},
            ],
            "expectedList": [
                {"name": "node1", "score": 0},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": 0},
            ],
        },
        {
            "name": "TestNodeAffinityPriority/Skip is returned in PreScore when NodeAffinity is nil",
            "pod": {"kind": "Pod", "metadata": {"annotations": {}}},
            "nodes": [{"kind": "Node", "metadata": {"name": "node1", "labels": label1}}],
            "runPreScore": True,
            "wantPreScoreStatus": fwk.NewStatus(fwk.Skip),
        },
        {
            "name": "TestNodeAffinityPriority/PreScore returns error when an incoming Pod has a broken affinity",
            "pod": {
                "kind": "Pod",
                "metadata": {"annotations": {}},
                "spec": {
                    "affinity": {
                        "nodeAffinity": {
                            "preferredDuringSchedulingIgnoredDuringExecution": [
                                {
                                    "weight": 2,
                                    "preference": {
                                        "matchExpressions": [
                                            {
                                                "key": "invalid key",
                                                "operator": v1.NodeSelectorOpIn,
                                                "values": ["bar"],
                                            }
                                        ]
                                    },
                                }
                            ]
                        }
                    }
                },
            },
            "nodes": [{"kind": "Node", "metadata": {"name": "node1", "labels": label1}}],
            "runPreScore": True,
            "wantPreScoreStatus": fwk.AsStatus(
                fmt.Errorf(
                    "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                )
            ),
        },
        {
            "name": "TestNodeAffinityPriority/no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
            "pod": {"kind": "Pod", "spec": {"affinity": affinity1}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label4}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": label3}},
            ],
            "expectedList": [
                {"name": "node1", "score": 0},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": 0},
            ],
            "runPreScore": True,
        },
        {
            "name": "TestNodeAffinityPriority/only node1 matches the preferred scheduling requirements of pod",
            "pod": {"kind": "Pod", "spec": {"affinity": affinity1}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": label3}},
            ],
            "expectedList": [
                {"name": "node1", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 0},
                {"name": "node3", "score": 0},
            ],
            "runPreScore": True,
        },
        {
            "name": "TestNodeAffinityPriority/all nodes matches the preferred scheduling requirements of pod but with different priorities ",
            "pod": {"kind": "Pod", "spec": {"affinity": affinity2}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node5", "labels": label5}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
            ],
            "expectedList": [
                {"name": "node1", "score": 18},
                {"name": "node5", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 36},
            ],
            "runPreScore": True,
        },
        {
            "name": "TestNodeAffinityPriority/added affinity",
            "pod": {"kind": "Pod"},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
            ],
            "expectedList": [{"name": "node1", "score": fwk.MaxNodeScore}, {"name": "node2", "score": 0}],
            "args": {"addedAffinity": affinity1["nodeAffinity"]},
            "runPreScore": True,
        },
        {
            "name": "TestNodeAffinityPriority/added affinity and pod has default affinity",
            "pod": {"kind": "Pod", "spec": {"affinity": affinity1}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
                {"kind": "Node", "metadata": {"name": "node3", "labels": label5}},
            ],
            "expectedList": [
                {"name": "node1", "score": 40},
                {"name": "node2", "score": 60},
                {"name": "node3", "score": fwk.MaxNodeScore},
            ],
            "args": {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 3,
                            "preference": {
                                "matchExpressions": [
                                    {"key": "key", "operator": v1.NodeSelectorOpIn, "values": ["value"]}
                                ]
                            },
                        }
                    ]
                }
            },
            "runPreScore": True,
        },
        {
            "name": "TestNodeAffinityPriority/calculate the priorities correctly even if PreScore is not called",
            "pod": {"kind": "Pod", "spec": {"affinity": affinity2}},
            "nodes": [
                {"kind": "Node", "metadata": {"name": "node1", "labels": label1}},
                {"kind": "Node", "metadata": {"name": "node5", "labels": label5}},
                {"kind": "Node", "metadata": {"name": "node2", "labels": label2}},
            ],
            "expectedList": [
                {"name": "node1", "score": 18},
                {"name": "node5", "score": fwk.MaxNodeScore},
                {"name": "node2", "score": 36},
            ],
        },
    ]


TestNodeAffinityPriority = _TestNodeAffinityPriority()


@pytest.mark.parametrize("test", cases(TestNodeAffinity))
def test_node_affinity(test: dict[str, Any]) -> None:
    # The Go node has no name unless the case sets nodeName; a node table row needs one, so a nameless node is
    # called "<unnamed>" (not a valid node name: no case's matchFields can list it).
    node = {"kind": "Node", "metadata": {"name": test.get("nodeName") or "<unnamed>", "labels": test.get("labels")}}
    cluster = snapshot(None, [node])
    p = NodeAffinity(NodeAffinityArgs(**(test.get("args") or {})))
    pod, state, nodes = pod_info(test["pod"]), CycleState(), view(cluster)
    if test.get("runPreFilter"):
        got = call(p, "pre_filter", state=state, pod=pod, nodes=nodes, cluster=cluster)
        status = got if isinstance(got, Status) else got.status if isinstance(got, PreFilterResult) else None
        result = got.node_names if isinstance(got, PreFilterResult) else None
        assert go_status(status) == test.get("wantPreFilterStatus")
        want = test.get("wantPreFilterResult")
        assert result == (want["nodeNames"] if want else None)
    got_status = filter_statuses(call(p, "filter", state=state, pod=pod, nodes=nodes, cluster=cluster), nodes)
    assert go_status(got_status[node["metadata"]["name"]]) == test.get("wantStatus")


@pytest.mark.parametrize("test", cases(TestNodeAffinityPriority))
def test_node_affinity_priority(test: dict[str, Any]) -> None:
    p = NodeAffinity(NodeAffinityArgs(**(test.get("args") or {})))
    pre, got = run_score(p, test["pod"], snapshot(None, test["nodes"]))
    if test.get("runPreScore"):
        want = test.get("wantPreScoreStatus")
        assert (pre.code if pre else fwk.Success) == (want.code if want else fwk.Success)
        assert (tuple(pre.reasons) if pre else ()) == (want.reasons if want else ())
        if pre is not None and pre.code != fwk.Success:
            return
    else:
        pre, got = run_score(p, test["pod"], snapshot(None, test["nodes"]), prescore=False)
    assert [{"name": n, "score": s} for n, s in got.items()] == test["expectedList"]


# ---- Test_isSchedulableAfterNodeChange (a map keyed by case name upstream; keyed here by test id) ---------------
def _Test_isSchedulableAfterNodeChange() -> dict[str, dict[str, Any]]:
    podWithNodeAffinity = st.MakePod().NodeAffinityIn("foo", ["bar"], st.NodeSelectorTypeMatchExpressions)
    addedAffinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": v1.NodeSelectorOpIn, "values": ["bar"]}]}
            ]
        }
    }
    testcases: dict[str, dict[str, Any]] = {
        "Test_isSchedulableAfterNodeChange/backoff-wrong-new-object": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "newObj": "not-a-node",
            "expectedHint": fwk.Queue,
            "expectedErr": True,
        },
        "Test_isSchedulableAfterNodeChange/backoff-wrong-old-object": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "oldObj": "not-a-node",
            "newObj": st.MakeNode().Obj(),
            "expectedHint": fwk.Queue,
            "expectedErr": True,
        },
        "Test_isSchedulableAfterNodeChange/skip-queue-on-add": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "newObj": st.MakeNode().Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/queue-on-add": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "newObj": st.MakeNode().Label("foo", "bar").Obj(),
            "expectedHint": fwk.Queue,
        },
        "Test_isSchedulableAfterNodeChange/skip-unrelated-changes": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "oldObj": st.MakeNode().Obj(),
            "newObj": st.MakeNode().Capacity(None).Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/skip-unrelated-changes-on-labels": {
            "args": {},
            "pod": podWithNodeAffinity.DeepCopy(),
            "oldObj": st.MakeNode().Obj(),
            "newObj": st.MakeNode().Label("k", "v").Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/skip-labels-changes-on-node-from-suitable-to-unsuitable": {
            "args": {},
            "pod": podWithNodeAffinity.DeepCopy(),
            "oldObj": st.MakeNode().Label("foo", "bar").Obj(),
            "newObj": st.MakeNode().Label("k", "v").Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/queue-on-labels-change-makes-pod-schedulable": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "oldObj": st.MakeNode().Obj(),
            "newObj": st.MakeNode().Label("foo", "bar").Obj(),
            "expectedHint": fwk.Queue,
        },
        "Test_isSchedulableAfterNodeChange/skip-unrelated-change-that-keeps-pod-schedulable": {
            "args": {},
            "pod": podWithNodeAffinity.Obj(),
            "oldObj": st.MakeNode().Label("foo", "bar").Obj(),
            "newObj": st.MakeNode().Capacity(None).Label("foo", "bar").Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/skip-queue-on-add-scheduler-enforced-node-affinity": {
            "args": {"addedAffinity": addedAffinity},
            "pod": podWithNodeAffinity.Obj(),
            "newObj": st.MakeNode().Obj(),
            "expectedHint": fwk.QueueSkip,
        },
        "Test_isSchedulableAfterNodeChange/queue-on-add-scheduler-enforced-node-affinity": {
            "args": {"addedAffinity": addedAffinity},
            "pod": podWithNodeAffinity.Obj(),
            "newObj": st.MakeNode().Label("foo", "bar").Obj(),
            "expectedHint": fwk.Queue,
        },
    }
    return {name: {"name": name, **tc} for name, tc in testcases.items()}


Test_isSchedulableAfterNodeChange = _Test_isSchedulableAfterNodeChange()


@pytest.mark.parametrize("test", cases(Test_isSchedulableAfterNodeChange))
def test_is_schedulable_after_node_change(test: dict[str, Any]) -> None:
    """isSchedulableAfterNodeChange, as the queue calls it for Node/Add (no old node) and Node/Update: a hint
    that fails (a wrong object, upstream's error) queues the pod."""
    p = NodeAffinity(NodeAffinityArgs(**test["args"]))
    if test.get("expectedErr"):
        with pytest.raises(TypeError):
            p.is_schedulable_after_node_change(pod_info(test["pod"]), test.get("oldObj"), test["newObj"])
    assert requeues(p, test) == test["expectedHint"]

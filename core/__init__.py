"""kubeberth: kube-scheduler's Scheduling Framework in Python, as pluggy hooks over a columnar node table."""

from .api import helpers, objects, signing
from .api.capabilities import CLUSTER_EVENTS, Capabilities, FilterScope, PreFilterState, ScoreScope
from .api.features import FeatureGates
from .api.handle import Handle, WaitingPodHandle
from .api.helpers import LabelSelector, NodeSelector, StrictArgs, label_selector_matches
from .api.hookspecs import hookimpl
from .api.signing import SignFragment
from .api.status import (
    Code,
    FilterResult,
    PermitResult,
    PostFilterResult,
    PreBindPreFlightResult,
    PreFilterResult,
    Rejection,
    Status,
)
from .api.types import PreBindCancellation
from .cache.cluster import ClusterState, PodIndex
from .cache.devices import DeviceState
from .cache.nodetable import NodeTable, NodeView, Taint
from .cache.podinfo import MemoKey, PodInfo, Toleration
from .runtime.framework import MAX_NODE_SCORE, CycleState, Diagnosis, NodeInfo

__version__ = "0.1.0"

__all__ = [
    "MAX_NODE_SCORE",
    "CLUSTER_EVENTS",
    "Capabilities",
    "ClusterState",
    "FeatureGates",
    "FilterScope",
    "Handle",
    "PreFilterState",
    "ScoreScope",
    "WaitingPodHandle",
    "LabelSelector",
    "NodeSelector",
    "StrictArgs",
    "Code",
    "CycleState",
    "PreBindCancellation",
    "DeviceState",
    "Diagnosis",
    "FilterResult",
    "MemoKey",
    "NodeInfo",
    "NodeTable",
    "NodeView",
    "PermitResult",
    "PodIndex",
    "PodInfo",
    "PostFilterResult",
    "PreBindPreFlightResult",
    "PreFilterResult",
    "Rejection",
    "SignFragment",
    "Status",
    "Taint",
    "Toleration",
    "helpers",
    "objects",
    "signing",
    "hookimpl",
    "label_selector_matches",
]

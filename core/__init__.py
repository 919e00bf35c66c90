"""kubeberth: kube-scheduler's Scheduling Framework in Python, as pluggy hooks over a columnar node table."""

from .cluster import ClusterState, PodIndex
from .framework import MAX_NODE_SCORE, CycleState, Diagnosis, NodeInfo
from .hookspecs import hookimpl
from .nodetable import NodeTable, NodeView, Taint
from .podinfo import PodInfo, Toleration
from .status import Code, FilterResult, PermitResult, PostFilterResult, PreFilterResult, Rejection, Status

__version__ = "0.1.0"

__all__ = [
    "MAX_NODE_SCORE",
    "ClusterState",
    "Code",
    "CycleState",
    "Diagnosis",
    "FilterResult",
    "NodeInfo",
    "NodeTable",
    "NodeView",
    "PermitResult",
    "PodIndex",
    "PodInfo",
    "PostFilterResult",
    "PreFilterResult",
    "Rejection",
    "Status",
    "Taint",
    "Toleration",
    "hookimpl",
]

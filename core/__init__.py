"""kubeberth: kube-scheduler's Scheduling Framework in Python, as pluggy hooks over a columnar node table."""

# The public names are imported on first use (PEP 562): `import kubeberth` also runs for the pytest11
# entry point (kubeberth.testing.plugin) in every pytest session of an environment that has kubeberth,
# and for `kubeberth --version`, neither of which should pay for numpy, pydantic and the framework.
# Type checkers read the same names from the imports below.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import helpers, objects, signing
    from .api.capabilities import CLUSTER_EVENTS, Capabilities, FilterScope, PreFilterState, ScoreScope
    from .api.diagnosis import Diagnosis
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
    from .api.types import PodGroupCycleState, PreBindCancellation
    from .api.views import (
        ClusterView,
        DeviceStateView,
        LabelCountsView,
        NodeTableView,
        PodIndex,
        PodView,
        WhatIf,
        is_pod,
        parse_pod,
    )
    from .cache.nodetable import NodeView, Taint
    from .cache.podinfo import MemoKey, Toleration
    from .runtime.framework import MAX_NODE_SCORE, CycleState, NodeInfo

__version__ = "0.1.0"

__all__ = [
    "MAX_NODE_SCORE",
    "CLUSTER_EVENTS",
    "Capabilities",
    "ClusterView",
    "DeviceStateView",
    "LabelCountsView",
    "NodeTableView",
    "PodView",
    "WhatIf",
    "is_pod",
    "parse_pod",
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
    "PodGroupCycleState",
    "PreBindCancellation",
    "Diagnosis",
    "FilterResult",
    "MemoKey",
    "NodeInfo",
    "NodeView",
    "PermitResult",
    "PodIndex",
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

# public name -> the module (relative to this package) that defines it, or that is it (_MODULES)
_LAZY: dict[str, str] = {
    "helpers": ".api.helpers",
    "objects": ".api.objects",
    "signing": ".api.signing",
    "CLUSTER_EVENTS": ".api.capabilities",
    "Capabilities": ".api.capabilities",
    "FilterScope": ".api.capabilities",
    "PreFilterState": ".api.capabilities",
    "ScoreScope": ".api.capabilities",
    "FeatureGates": ".api.features",
    "Handle": ".api.handle",
    "WaitingPodHandle": ".api.handle",
    "LabelSelector": ".api.helpers",
    "NodeSelector": ".api.helpers",
    "StrictArgs": ".api.helpers",
    "label_selector_matches": ".api.helpers",
    "hookimpl": ".api.hookspecs",
    "SignFragment": ".api.signing",
    "Code": ".api.status",
    "FilterResult": ".api.status",
    "PermitResult": ".api.status",
    "PostFilterResult": ".api.status",
    "PreBindPreFlightResult": ".api.status",
    "PreFilterResult": ".api.status",
    "Rejection": ".api.status",
    "Status": ".api.status",
    "PodGroupCycleState": ".api.types",
    "PreBindCancellation": ".api.types",
    "ClusterView": ".api.views",
    "DeviceStateView": ".api.views",
    "LabelCountsView": ".api.views",
    "NodeTableView": ".api.views",
    "PodView": ".api.views",
    "WhatIf": ".api.views",
    "is_pod": ".api.views",
    "parse_pod": ".api.views",
    "PodIndex": ".api.views",
    "NodeView": ".cache.nodetable",
    "Taint": ".cache.nodetable",
    "MemoKey": ".cache.podinfo",
    "Toleration": ".cache.podinfo",
    "MAX_NODE_SCORE": ".runtime.framework",
    "CycleState": ".runtime.framework",
    "Diagnosis": ".api.diagnosis",
    "NodeInfo": ".runtime.framework",
}


_MODULES = frozenset({"helpers", "objects", "signing"})

# The scheduler's cache classes are not plugin API: plugins read the cache through read-only views.
_INTERNAL: dict[str, str] = {
    "ClusterState": "ClusterView",
    "NodeTable": "NodeTableView",
    "PodInfo": "PodView (kubeberth.parse_pod builds one; kubeberth.testing.pod_info in tests)",
    "DeviceState": "DeviceStateView",
}


def __getattr__(name: str) -> Any:
    """Import a public name on first use and keep it, so later reads are plain attribute reads."""
    where = _LAZY.get(name)
    if where is None:
        instead = _INTERNAL.get(name)
        hint = f": {name} is the scheduler's cache, not plugin API; use kubeberth.{instead}" if instead else ""
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}{hint}")
    module = importlib.import_module(where, __name__)
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

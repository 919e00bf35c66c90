"""NodeResourcesBalancedAllocation: favours nodes whose resource usage fractions stay close together.

kube-scheduler (v1.37) scores the change the pod makes to a node's balance:
balance(r) = int((1 - std) * 100), std being the standard deviation of requested/allocatable
(capped at 1) over the configured resources (cpu and memory by default; with two resources
std = |f1 - f2| / 2), and score = 50 + (50 + balance(with pod) - balance(without)) / 2 in Go's
truncating integer division. Real requests are used (not the non-zero defaults), and best-effort
pods skip this plugin entirely. Evaluated for all candidate nodes at once in float64 with Go's
operation order, so scores match exactly. An extended resource a DeviceClass serves
(DRAExtendedResource) counts the class's devices on nodes that do not advertise it, as
NodeResourcesFit's scorers do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterView,
    FeatureGates,
    NodeView,
    PodView,
    ScoreScope,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import StrictArgs
from kubeberth.api.signing import RESOURCES_SIGNER, SignFragment, resources_signer
from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from .node_resources_fit import (
    SIGN_REFUSED_FOR_DRA,
    DraResources,
    ResourceAllocationScorer,
    ResourceSpec,
    default_resources,
    requests_dra_extended_resource,
)

_PRESCORE_KEY = "PreScoreNodeResourcesBalancedAllocation"


class NodeResourcesBalancedAllocationArgs(StrictArgs):
    """kube-scheduler's NodeResourcesBalancedAllocationArgs (weights must be 1; 0 means unset)."""

    apiVersion: str | None = None
    kind: str | None = None
    resources: list[ResourceSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _default_and_validate(self) -> NodeResourcesBalancedAllocationArgs:
        if not self.resources:
            self.resources = default_resources()
        seen: set[str] = set()
        for i, res in enumerate(self.resources):
            if res.name in seen:
                raise PydanticCustomError(
                    "invalid_args", "resources[{i}].name: Duplicate value: {name!r}", {"i": i, "name": res.name}
                )
            seen.add(res.name)
            if res.weight == 0:
                res.weight = 1
            if res.weight != 1:
                raise PydanticCustomError("invalid_args", "resources[{i}].weight: must be 1", {"i": i})
        return self


def balanced_scores(alloc: np.ndarray, req: np.ndarray) -> np.ndarray:
    """balancedResourceScorer for every row; resources with allocatable 0 are left out."""
    n, k = alloc.shape
    if k == 2 and alloc.all():
        # Common case (cpu and memory, both allocatable): same float operations as below,
        # without the masking and the errstate context switch.
        frac = np.minimum(req / alloc, 1.0)
        std2 = np.abs((frac[:, 0] - frac[:, 1]) / 2)
        return np.trunc((1 - std2) * float(MAX_NODE_SCORE)).astype(np.int64)
    valid = alloc != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(valid, req.astype(np.float64) / np.where(valid, alloc, 1).astype(np.float64), 0.0)
    frac = np.minimum(frac, 1.0)
    count = valid.sum(axis=1)
    total = np.zeros(n, dtype=np.float64)
    first = np.zeros(n, dtype=np.float64)
    second = np.zeros(n, dtype=np.float64)
    seen = np.zeros(n, dtype=np.int64)
    for j in range(k):  # sequential over resources, like the Go loop
        v = valid[:, j]
        total = np.where(v, total + frac[:, j], total)
        first = np.where(v & (seen == 0), frac[:, j], first)
        second = np.where(v & (seen == 1), frac[:, j], second)
        seen += v
    std = np.zeros(n, dtype=np.float64)
    two = count == 2
    std[two] = np.abs((first[two] - second[two]) / 2)
    many = count > 2
    if many.any():
        c = count[many].astype(np.float64)
        mean = total[many] / c
        acc = np.zeros(int(many.sum()), dtype=np.float64)
        for j in range(k):
            f = frac[many, j]
            acc = np.where(valid[many, j], acc + (f - mean) * (f - mean), acc)
        std[many] = np.sqrt(acc / c)
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)


def balanced_change_scores(alloc: np.ndarray, allocated: np.ndarray, requested: np.ndarray) -> np.ndarray:
    """balancedResourceScorer: 50 + (50 + balance with the pod - balance without it) / 2, truncated."""
    diff = MAX_NODE_SCORE // 2 + balanced_scores(alloc, requested) - balanced_scores(alloc, allocated)
    return MAX_NODE_SCORE // 2 + np.sign(diff) * (np.abs(diff) // 2)


class NodeResourcesBalancedAllocation:
    name = "NodeResourcesBalancedAllocation"
    score_scope = ScoreScope.NODE  # raw score: the pod and this node's row only
    Args = NodeResourcesBalancedAllocationArgs

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None = None,
                 feature_gates: FeatureGates | None = None) -> None:
        self.args = args if args is not None else NodeResourcesBalancedAllocationArgs()
        gates = feature_gates if feature_gates is not None else FeatureGates()
        self.enable_dra_extended_resource = gates.enabled("DRAExtendedResource")
        self.scorer = ResourceAllocationScorer([(r.name, r.weight) for r in self.args.resources], use_requested=True)

    @hookimpl
    def sign_pod(self, pod: PodView, cluster: ClusterView | None) -> list[SignFragment] | Status:
        """kube-scheduler's BalancedAllocation.SignPod: the pod's requests and overheads; a pod
        requesting an extended resource a DeviceClass serves is not signed."""
        if self.enable_dra_extended_resource and cluster is not None and requests_dra_extended_resource(pod, cluster.devices):
            return Status.unschedulable(SIGN_REFUSED_FOR_DRA)
        return [SignFragment(RESOURCES_SIGNER, resources_signer(pod))]

    def _dra(self, cluster: ClusterView) -> DraResources | None:
        return self.scorer.dra_resources(cluster.devices) if self.enable_dra_extended_resource else None

    @hookimpl
    def pre_score(self, state: dict[str, Any], pod: PodView, cluster: ClusterView) -> Status | None:
        requests = self.scorer.pod_requests(pod)
        if not any(requests):
            # Best-effort pods would otherwise all pile onto the same node (kubernetes#129138).
            return Status.skip()
        state[_PRESCORE_KEY] = (requests, self._dra(cluster))
        return None

    @hookimpl
    def score(self, state: dict[str, Any], pod: PodView, nodes: NodeView, cluster: ClusterView) -> np.ndarray:
        found = state.get(_PRESCORE_KEY)
        if found is None:
            requests = self.scorer.pod_requests(pod)
            if not any(requests):
                return np.zeros(len(nodes), dtype=np.int64)
            found = (requests, self._dra(cluster))
        requests, dra = found
        alloc, req = self.scorer.allocatable_requested(nodes.table, nodes.rows, requests, dra, cluster)
        # Without the pod: what is allocated there (devices allocated, for a resource left to DRA).
        return balanced_change_scores(alloc, req - np.asarray(requests, dtype=np.int64), req)

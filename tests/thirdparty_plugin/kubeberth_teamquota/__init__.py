"""TeamQuota and Headroom: a third-party plugin package on kubeberth's public plugin API only."""

from __future__ import annotations

import numpy as np
from kubeberth import (
    MAX_NODE_SCORE,
    ClusterView,
    CycleState,
    FilterResult,
    FilterScope,
    Handle,
    LabelSelector,
    MemoKey,
    NodeView,
    PodView,
    PreFilterState,
    StrictArgs,
    hookimpl,
    parse_pod,
)
from kubeberth.api.helpers import matching_pod_counts
from pydantic import Field

__version__ = "1.0.0"

REASON = "node(s) reached the team's pod limit"
_TEAM_SELECTOR: MemoKey[LabelSelector | None] = MemoKey("TeamQuota.selector")


class TeamQuotaArgs(StrictArgs):
    label: str = "team"
    maxPerNode: int = Field(2, ge=1)


class TeamQuota:
    """Filter: at most `maxPerNode` pods of the pod's team on a node."""

    name = "TeamQuota"
    Args = TeamQuotaArgs
    requeue_on = frozenset({"Pod/Delete", "Node/Add", "Node/Update"})
    filter_scope = FilterScope.CLUSTER  # reads the pods placed on each node
    pre_filter_state = PreFilterState.NO_POD_DATA  # no pre_filter at all

    def __init__(self, args: TeamQuotaArgs | None = None) -> None:
        self.args = args or TeamQuotaArgs()

    def _selector(self, pod: PodView) -> LabelSelector | None:
        label = self.args.label
        return pod.cached(
            _TEAM_SELECTOR,
            lambda p: LabelSelector.from_set({label: p.labels[label]}) if label in p.labels else None,
        )

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView, cluster: ClusterView) -> FilterResult | None:
        selector = self._selector(pod)
        if selector is None:
            return None  # not in a team: no quota
        counts = matching_pod_counts(cluster, selector)[nodes.rows]
        return FilterResult.reject_where(counts >= self.args.maxPerNode, REASON)


class Headroom:
    """Score: 100 where another copy of the pod would still pass every filter after this one lands."""

    name = "Headroom"

    @hookimpl
    def score(
        self, state: CycleState, pod: PodView, nodes: NodeView, cluster: ClusterView, handle: Handle
    ) -> np.ndarray:
        twin = parse_pod(
            {**pod.raw, "metadata": {**pod.raw.get("metadata", {}), "uid": f"{pod.uid}-twin", "name": f"{pod.name}-twin"}}
        )
        out = np.zeros(len(nodes), dtype=np.int64)
        for i, row in enumerate(nodes.rows.tolist()):
            with cluster.hypothetical(add=[(pod, row)]):
                one = cluster.table.view(np.asarray([row], dtype=np.int64))
                probe = CycleState()
                handle.run_pre_filter(probe, twin, one)
                if handle.run_filters(probe, twin, one)[0]:
                    out[i] = MAX_NODE_SCORE
        return out

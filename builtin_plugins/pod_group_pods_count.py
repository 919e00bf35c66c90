"""PodGroupPodsCount: prefer the placement that places more of a pod group's pods (kube-scheduler's
podgrouppodscount, added to the default profile with weight 1 under TopologyAwareWorkloadScheduling).

A PlacementScore plugin of the pod group scheduling cycle: when more than one candidate placement
(e.g. one per zone) fits a gang, each is scored by the members it would place plus those already
assumed or bound. Counting the placed ones too keeps the gaps between candidates small, so one
member more or less moves the score a little. Normalization divides by the best candidate's count,
not by minCount, for the same reason.
"""

from __future__ import annotations

from kubeberth import MAX_NODE_SCORE, Handle, Status, hookimpl
from kubeberth.api.placement import PlacementScore, PodGroupAssignments, PodGroupInfo

MIN_SCORE = 0


class PodGroupPodsCount:
    name = "PodGroupPodsCount"

    @hookimpl
    def placement_score(self, pod_group: PodGroupInfo, placement: PodGroupAssignments, handle: Handle) -> int:
        """Members assumed or bound before this cycle, plus the ones this placement would place."""
        state = handle.cluster.pod_group_state(pod_group.namespace, pod_group.name)
        return state.scheduled_pods_count + len(placement.proposed_assignments)

    @hookimpl
    def normalize_placement_score(self, pod_group: PodGroupInfo, scores: list[PlacementScore]) -> Status | None:
        """Scale by the largest count among the candidates into [0, 100]."""
        max_count = max((s.score for s in scores), default=0)
        if max_count == 0:
            # The pod group cycle only scores placements that placed at least one member.
            return Status.error("no pods from pod group are assigned to any of the candidate placements")
        for s in scores:
            s.score = MIN_SCORE + s.score * (MAX_NODE_SCORE - MIN_SCORE) // max_count
        return None

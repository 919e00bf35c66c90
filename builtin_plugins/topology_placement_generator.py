"""TopologyPlacementGenerator: one placement per topology domain for a pod group that asks to be
kept in one (kube-scheduler's topologyaware plugin, in the default profile under
TopologyAwareWorkloadScheduling).

A PodGroup with `spec.schedulingConstraints.topology: [{key: <node label>}]` is tried by the pod
group cycle on the nodes of each value of that label in turn (nodes without it are left out).
Once some of the group's pods are assumed or bound, only their domain is offered, so late members
join the rest. Without a constraint the group is tried on every node at once.
"""

from __future__ import annotations

from kubeberth import Handle, Status, hookimpl
from kubeberth.api.placement import Placement, PodGroupInfo


def topology_key(pod_group: PodGroupInfo) -> str | None:
    """The first `spec.schedulingConstraints.topology[].key` of the group's PodGroup, if any."""
    constraints = ((pod_group.pod_group or {}).get("spec") or {}).get("schedulingConstraints") or {}
    topology = constraints.get("topology") or []
    return topology[0].get("key") if topology else None


class TopologyPlacementGenerator:
    name = "TopologyPlacementGenerator"

    @hookimpl
    def placement_generate(self, pod_group: PodGroupInfo, placement: Placement, handle: Handle) -> list[Placement] | Status:
        key = topology_key(pod_group)
        if key is None:
            return [placement]
        table = handle.cluster.table
        try:
            required = self._scheduled_domain(pod_group, key, handle)
        except LookupError as exc:
            return Status.error(f"cannot determine domain for already scheduled pods: {exc}")
        domains: dict[str, list[str]] = {}
        for node in placement.nodes:
            row = table.row_of.get(node)
            value = table.labels_of(row).get(key) if row is not None else None
            if value is not None and (required is None or value == required):
                domains.setdefault(value, []).append(node)
        return [Placement(domain, tuple(nodes)) for domain, nodes in sorted(domains.items())]

    @staticmethod
    def _scheduled_domain(pod_group: PodGroupInfo, key: str, handle: Handle) -> str | None:
        """The one domain the group's assumed or bound pods are in (None when there are none)."""
        cluster = handle.cluster
        table = cluster.table
        state = cluster.pod_group_state(pod_group.namespace, pod_group.name)
        found: str | None = None
        for uid in sorted(state.assumed | state.assigned):
            pod = cluster.pods.get(uid)
            if pod is None:
                continue
            row = cluster.placement.get(uid)
            if row is None:
                row = table.row_of.get(pod.node_name)
            if row is None:
                raise LookupError(f'getting node for pod {pod.key}: nodeinfo not found for node name "{pod.node_name}"')
            domain = table.labels_of(row).get(key)
            if domain is None:
                raise LookupError(f"no topology domain found for pod {pod.key}")
            if found is not None and found != domain:
                raise LookupError(f"more than 1 domain found for pod group: {found}, {domain}")
            found = domain
        return found

"""What PodTopologySpread's filter and score share (kube-scheduler's podtopologyspread/common.go):
parsed constraints, the default selector, node inclusion policies, and matching-pod counts per node row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from kubeberth import ClusterView, MemoKey, PodView
from kubeberth.api.helpers import (
    HOSTNAME_LABEL,
    ZONE_LABEL,
    LabelSelector,
    SelectorError,
    group_columns,
    matching_pod_counts,
    required_node_affinity,
    untolerated_taint_sets,
)

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"topologyKey": HOSTNAME_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)



@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A topologySpreadConstraint with its selector parsed and defaults applied."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_affinity: bool = True  # nodeAffinityPolicy Honor (default)
    honor_taints: bool = False  # nodeTaintsPolicy Ignore (default)


def parse_constraints(
    raw: tuple[dict[str, Any], ...] | list[dict[str, Any]],
    pod_labels: dict[str, str],
    action: str,
    match_label_keys: bool = True,
) -> list[SpreadConstraint]:
    """filterTopologySpreadConstraints: keep `action` constraints, merge matchLabelKeys (ignored when
    `match_label_keys` is False: the MatchLabelKeysInPodTopologySpread gate switched off)."""
    out = []
    for c in raw:
        if c.get("whenUnsatisfiable", DO_NOT_SCHEDULE) != action:
            continue
        selector = LabelSelector.from_api(c.get("labelSelector"))
        keys = (c.get("matchLabelKeys") or ()) if match_label_keys else ()
        extra = {k: pod_labels[k] for k in keys if k in pod_labels}
        if extra:
            selector = LabelSelector.from_set(extra).add(selector.requirements) if not selector.nothing else selector
        out.append(
            SpreadConstraint(
                max_skew=int(c.get("maxSkew") or 0),
                topology_key=c.get("topologyKey", ""),
                selector=selector,
                min_domains=int(c["minDomains"]) if c.get("minDomains") is not None else 1,
                honor_affinity=(c.get("nodeAffinityPolicy") or "Honor") == "Honor",
                honor_taints=(c.get("nodeTaintsPolicy") or "Ignore") == "Honor",
            )
        )
    return out


def default_selector(pod: PodView, cluster: ClusterView) -> LabelSelector:
    """helper.DefaultSelector: selectors of the pod's Services and controlling RC/RS/StatefulSet."""
    merged: dict[str, str] = {}
    for svc in cluster.list_objects("Service"):
        meta = svc.get("metadata") or {}
        if (meta.get("namespace") or "default") != pod.namespace:
            continue
        sel = (svc.get("spec") or {}).get("selector")
        if sel is None:
            continue  # a nil selector matches nothing
        if LabelSelector.from_set(sel).matches(pod.labels):
            merged.update(sel)
    selector = LabelSelector.from_set(merged)
    owner = next(
        (o for o in (pod.raw.get("metadata") or {}).get("ownerReferences") or () if o.get("controller")), None
    )
    if owner is None:
        return selector
    kind, api, name = owner.get("kind"), owner.get("apiVersion"), owner.get("name")
    key = f"{pod.namespace}/{name}"
    if kind == "ReplicationController" and api == "v1":
        rc = cluster.get_object(kind, key)
        if rc is not None:
            merged.update((rc.get("spec") or {}).get("selector") or {})
            selector = LabelSelector.from_set(merged)
    elif kind in ("ReplicaSet", "StatefulSet") and api == "apps/v1":
        obj = cluster.get_object(kind, key)
        if obj is not None:
            try:
                other = LabelSelector.from_api((obj.get("spec") or {}).get("selector"))
            except SelectorError:
                return selector
            selector = selector.add(other.requirements)
    return selector


CONSTRAINTS: dict[str, MemoKey[list[SpreadConstraint]]] = {
    a: MemoKey(f"PodTopologySpread.constraints.{a}") for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
}
# The same, parsed with matchLabelKeys ignored (MatchLabelKeysInPodTopologySpread off): a pod's memo
# must not hand one plugin instance what another, under other gates, parsed.
CONSTRAINTS_WITHOUT_MATCH_LABEL_KEYS: dict[str, MemoKey[list[SpreadConstraint]]] = {
    a: MemoKey(f"PodTopologySpread.constraints.noMatchLabelKeys.{a}") for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
}


TERMINATING_INDEX_KEY = "PodTopologySpread.terminating"


class Terminating:
    """PodIndex of placed pods being deleted: spreading does not count them (#87621)."""

    def __init__(self, _cluster: ClusterView) -> None:
        self.pods: dict[str, tuple[PodView, int]] = {}

    def pod_added(self, pod: PodView, row: int) -> None:
        if pod.deleting:
            self.pods[pod.uid] = (pod, row)

    def pod_removed(self, pod: PodView, row: int) -> None:
        self.pods.pop(pod.uid, None)


def pod_counts(cluster: ClusterView, selector: LabelSelector, namespace: str) -> np.ndarray:
    """Matching non-terminating pods of `namespace` per table row."""
    ns_mask = group_columns(cluster).namespace_mask((namespace,))
    counts = matching_pod_counts(cluster, selector, ns_mask)
    terminating = cluster.index(TERMINATING_INDEX_KEY, Terminating)
    for pod, row in terminating.pods.values():
        if pod.namespace == namespace and selector.matches(pod.labels):
            counts[row] -= 1
    return counts




def inclusion(
    pod: PodView, table: Any, rows: np.ndarray, constraints: list[SpreadConstraint]
) -> tuple[np.ndarray, np.ndarray]:
    """Masks over `rows` (nodeInclusionPolicies): matches the pod's required node affinity; has no
    untolerated taint."""
    affinity_ok = np.ones(rows.shape[0], dtype=bool)
    taints_ok = np.ones(rows.shape[0], dtype=bool)
    if any(c.honor_affinity for c in constraints):
        affinity_ok = required_node_affinity(pod).row_mask(table, rows)
    if any(c.honor_taints for c in constraints):
        taints_ok = ~untolerated_taint_sets(table, pod.tolerations)[table.taint_set[rows]]
    return affinity_ok, taints_ok

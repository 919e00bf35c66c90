"""PodDisruptionBudgets as preemption reads them (kube-scheduler's filterPodsWithPDBViolation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubeberth import PodView, label_selector_matches


@dataclass(frozen=True, slots=True)
class PDB:
    """The parts of a PodDisruptionBudget preemption reads."""

    namespace: str
    selector: dict[str, Any] | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> PDB:
        meta = obj.get("metadata") or {}
        status = obj.get("status") or {}
        return cls(
            meta.get("namespace") or "default",
            (obj.get("spec") or {}).get("selector"),
            int(status.get("disruptionsAllowed") or 0),
            frozenset((status.get("disruptedPods") or {}).keys()),
        )

    def matches(self, pod: PodView) -> bool:
        if self.namespace != pod.namespace or not self.selector:
            return False  # a nil or empty selector matches nothing
        if not self.selector.get("matchLabels") and not self.selector.get("matchExpressions"):
            return False
        return label_selector_matches(self.selector, pod.labels)


def filter_pods_with_pdb_violation(pods: list[PodView], pdbs: list[PDB]) -> tuple[list[PodView], list[PodView]]:
    """Split (keeping order) into pods whose eviction would violate a PDB and the others."""
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list[PodView] = []
    others: list[PodView] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not pdb.matches(pod) or pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:  # v1.37.2: the pod violates at the first budget it exhausts
                    violated = True
                    break
        (violating if violated else others).append(pod)
    return violating, others

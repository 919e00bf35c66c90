"""InterPodAffinity's parsed terms: framework.AffinityTerm and the pod's four term groups.

Mirrors the affinity parts of kube-scheduler's framework.PodView (k8s.io/kubernetes/pkg/scheduler/
framework/types.go: AffinityTerm, WeightedAffinityTerm, getAffinityTerms) and
GetNamespaceLabelsSnapshot from interpodaffinity/plugin.go.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubeberth import ClusterView, MemoKey, PodView
from kubeberth.api.helpers import LabelSelector, SelectorError

_TERMS: MemoKey[PodTerms] = MemoKey("InterPodAffinity.terms")
EXISTING_KEYS: MemoKey[list[tuple[str, AffinityTerm, int]]] = MemoKey("InterPodAffinity.existingKeys")
LABELS_KEY: MemoKey[frozenset[tuple[str, str]]] = MemoKey("InterPodAffinity.labelsKey")

# The kinds of a placed pod's terms in ExistingTermIndex.
REQ_AFFINITY, REQ_ANTI, PREF_AFFINITY, PREF_ANTI = "req_aff", "req_anti", "pref_aff", "pref_anti"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A parsed PodAffinityTerm (framework.AffinityTerm)."""

    namespaces: frozenset[str]
    namespace_selector: LabelSelector
    selector: LabelSelector
    topology_key: str

    def matches(self, namespace: str, labels: Mapping[str, str], namespace_labels: Mapping[str, str]) -> bool:
        """Term.Matches: namespace listed or selected by labels, and the label selector matches."""
        if namespace not in self.namespaces and not self.namespace_selector.matches(namespace_labels):
            return False
        return self.selector.matches(labels)


@dataclass(frozen=True, slots=True)
class PodTerms:
    required_affinity: tuple[AffinityTerm, ...]
    required_anti: tuple[AffinityTerm, ...]
    preferred_affinity: tuple[tuple[int, AffinityTerm], ...]
    preferred_anti: tuple[tuple[int, AffinityTerm], ...]

    @property
    def empty(self) -> bool:
        return not (self.required_affinity or self.required_anti or self.preferred_affinity or self.preferred_anti)


_NO_TERMS = PodTerms((), (), (), ())


def _term(pod: PodView, raw: Mapping[str, Any]) -> AffinityTerm:
    namespaces = frozenset(raw.get("namespaces") or ())
    ns_raw = raw.get("namespaceSelector")
    if not namespaces and ns_raw is None:
        namespaces = frozenset((pod.namespace,))
    return AffinityTerm(
        namespaces, LabelSelector.from_api(ns_raw), LabelSelector.from_api(raw.get("labelSelector")), raw.get("topologyKey", "")
    )


def pod_terms(pod: PodView) -> PodTerms:
    """Parse (once per PodView) the pod's inter-pod affinity terms; raises SelectorError."""
    found = _TERMS.get(pod)
    if found is None:
        affinity = pod.affinity or {}
        if not affinity.get("podAffinity") and not affinity.get("podAntiAffinity"):
            return _TERMS.set(pod, _NO_TERMS)  # most pods: nothing to parse
        aff = affinity.get("podAffinity") or {}
        anti = affinity.get("podAntiAffinity") or {}
        req = "requiredDuringSchedulingIgnoredDuringExecution"
        pref = "preferredDuringSchedulingIgnoredDuringExecution"

        def weighted(items: Any) -> tuple[tuple[int, AffinityTerm], ...]:
            return tuple((int(w.get("weight") or 0), _term(pod, w.get("podAffinityTerm") or {})) for w in items or ())

        # framework.NewPodInfo: each group fails on its first bad term; the groups' errors aggregate.
        groups: list[Any] = []
        errors: list[str] = []
        for label, parse in (
            ("requiredAffinityTerms", lambda: tuple(_term(pod, t) for t in aff.get(req) or ())),
            ("requiredAntiAffinityTerms", lambda: tuple(_term(pod, t) for t in anti.get(req) or ())),
            ("preferredAffinityTerms", lambda: weighted(aff.get(pref))),
            ("preferredAntiAffinityTerms", lambda: weighted(anti.get(pref))),
        ):
            try:
                groups.append(parse())
            except SelectorError as exc:
                errors.append(f"{label}: {exc}")
        if errors:
            raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        found = PodTerms(*groups)
        _TERMS.set(pod, found)
    return found



def namespace_labels(cluster: ClusterView, namespace: str) -> dict[str, str]:
    """Labels of the Namespace object; an unknown namespace has none (GetNamespaceLabelsSnapshot)."""
    obj = cluster.get_object("Namespace", namespace)
    return dict((obj or {}).get("metadata", {}).get("labels") or {})

"""NodeAffinity: spec.nodeSelector and node affinity, required (filter) and preferred (score).

Batch form: selectors are evaluated once per interned label set (see kubeberth.api.helpers) and broadcast
to the candidate rows; only `matchFields: metadata.name` needs the rows themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth import (
    Code,
    CycleState,
    FilterResult,
    FilterScope,
    MemoKey,
    NodeView,
    PodView,
    PreFilterResult,
    PreFilterState,
    ScoreScope,
    Status,
    hookimpl,
)
from kubeberth.api.helpers import (
    OBJECT_NAME_FIELD,
    NodeSelector,
    PreferredTerm,
    default_normalize_score,
    parse_preferred_terms,
    preferred_score,
    preferred_terms_error,
    required_node_affinity,
)
from kubeberth.api.signing import (
    NODE_AFFINITY_SIGNER,
    NODE_SELECTOR_SIGNER,
    SignFragment,
    node_affinity_signer,
)
from pydantic import BaseModel, ConfigDict, model_validator

_PREFERRED: MemoKey[tuple[PreferredTerm, ...]] = MemoKey("NodeAffinity.preferred")

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


class NodeAffinityArgs(BaseModel):
    """NodeAffinityArgs: `addedAffinity` is applied to every pod of the profile."""

    model_config = ConfigDict(extra="forbid")

    addedAffinity: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _check(self) -> NodeAffinityArgs:
        added = self.addedAffinity or {}
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            parsed = NodeSelector.parse(required)
            if not all(t.valid for t in parsed.terms):
                raise ValueError("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: invalid term")
        for t in parse_preferred_terms(added.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if not t.term.valid:
                raise ValueError("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: invalid term")
        return self


def _pod_node_affinity(pod: PodView) -> dict[str, Any]:
    return (pod.affinity or {}).get("nodeAffinity") or {}


def _pod_preferred(pod: PodView) -> tuple[PreferredTerm, ...]:
    found = _PREFERRED.get(pod)
    if found is None:
        found = _PREFERRED.set(
            pod, parse_preferred_terms(_pod_node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution"))
        )
    return found


def _labels_and_name(node: dict[str, Any]) -> tuple[dict[str, str], str]:
    meta = node.get("metadata") or {}
    return meta.get("labels") or {}, meta.get("name") or ""


class NodeAffinity:
    name = "NodeAffinity"
    score_scope = ScoreScope.NODE  # raw score: the pod and this node's row only
    filter_scope = FilterScope.NODE
    pre_filter_state = PreFilterState.NO_POD_DATA
    Args = NodeAffinityArgs
    # EventsToRegister: Node Add | UpdateNodeLabel, both through isSchedulableAfterNodeChange.
    queueing_hints = {"Node/Add": "is_schedulable_after_node_change", "Node/UpdateNodeLabel": "is_schedulable_after_node_change"}
    requeue_on = frozenset(queueing_hints)

    def __init__(self, args: NodeAffinityArgs | None = None) -> None:
        args = args or NodeAffinityArgs()
        added = args.addedAffinity or {}
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        self.added_selector = NodeSelector.parse(required) if required is not None else None
        self.added_preferred = parse_preferred_terms(added.get("preferredDuringSchedulingIgnoredDuringExecution"))

    def is_schedulable_after_node_change(self, pod: PodView, old: Any, new: Any) -> bool:
        """isSchedulableAfterNodeChange: the node now matches the enforced and the pod's required affinity,
        and (for an update) the pod's did not match before."""
        if not isinstance(new, dict) or (old is not None and not isinstance(old, dict)):
            raise TypeError(f"expected nodes, got {type(old).__name__} and {type(new).__name__}")
        if self.added_selector is not None and not self.added_selector.matches(*_labels_and_name(new)):
            return False
        required = required_node_affinity(pod)
        if not required.matches(*_labels_and_name(new)):
            return False
        return old is None or not required.matches(*_labels_and_name(old))

    @hookimpl
    def sign_pod(self, pod: PodView) -> list[SignFragment]:
        """kube-scheduler's NodeAffinity.SignPod: node affinity terms and the node selector."""
        return [
            SignFragment(NODE_AFFINITY_SIGNER, node_affinity_signer(pod)),
            SignFragment(NODE_SELECTOR_SIGNER, pod.node_selector),
        ]

    @hookimpl
    def pre_filter(self, pod: PodView) -> Status | PreFilterResult | None:
        required = _pod_node_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is None and self.added_selector is None and not pod.node_selector:
            return Status.skip()
        terms = (required or {}).get("nodeSelectorTerms") or ()
        if not terms:
            return None
        names: set[str] = set()
        for term in terms:
            term_names: set[str] | None = None
            for expr in term.get("matchFields") or ():
                if expr.get("key") == OBJECT_NAME_FIELD and expr.get("operator") == "In":
                    values = set(expr.get("values") or ())
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                return None  # this term does not pin node names; terms are ORed
            names |= term_names
        if not names:
            return Status.unschedulable(ERR_REASON_CONFLICT, unresolvable=True)
        return PreFilterResult(node_names=frozenset(names))

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult:
        table, rows = nodes.table, nodes.rows
        enforced_fail = np.zeros(len(nodes), dtype=bool)
        if self.added_selector is not None:
            enforced_fail = ~self.added_selector.row_mask(table, rows)
        required = required_node_affinity(pod)
        pod_fail = np.zeros(len(nodes), dtype=bool)
        if not required.trivial:
            pod_fail = ~required.row_mask(table, rows) & ~enforced_fail
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return FilterResult.from_rejections(
            len(nodes), {ERR_REASON_ENFORCED: enforced_fail, ERR_REASON_POD: pod_fail}, code
        )

    @hookimpl
    def pre_score(self, state: CycleState, pod: PodView) -> Status | None:
        if (
            _pod_node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution") is None
            and not self.added_preferred
        ):
            return Status.skip()
        # kube-scheduler: a preferred term that does not parse (invalid key or value) fails PreScore.
        error = preferred_terms_error(_pod_preferred(pod))
        if error is not None:
            return Status.error(error)
        return None

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView) -> np.ndarray:
        terms = self.added_preferred + _pod_preferred(pod)
        return preferred_score(nodes.table, nodes.rows, terms)

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return default_normalize_score(scores, reverse=False)


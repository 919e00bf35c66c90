"""Node selectors: v1.NodeSelectorTerm, preferred terms and a pod's required node affinity
(component-helpers' nodeaffinity), per node or as row masks over a NodeTable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...cache.podinfo import MemoKey
from .columns import node_columns
from .selectors import NODE_OPS, LabelSelector, SelectorError, _child, _req_key, make_requirement

if TYPE_CHECKING:
    from ..views import NodeTableView, PodView

__all__ = [
    "OBJECT_NAME_FIELD",
    "NodeSelector",
    "NodeSelectorTerm",
    "PreferredTerm",
    "RequiredNodeAffinity",
    "parse_preferred_terms",
    "preferred_score",
    "preferred_terms_error",
    "node_selector_terms",
    "node_selector_terms_match",
    "required_node_affinity",
]

OBJECT_NAME_FIELD = "metadata.name"


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """A parsed v1.NodeSelectorTerm; `labels` None means no matchExpressions."""

    labels: LabelSelector | None
    fields: tuple[tuple[str, str, str], ...]  # (key, op, value)
    valid: bool = True
    error: str = ""  # why it is not valid, in kube-scheduler's words (field path included)

    @property
    def empty(self) -> bool:
        return self.labels is None and not self.fields

    @classmethod
    def parse(cls, term: Mapping[str, Any], path: str = "") -> NodeSelectorTerm:
        """`path` is the term's field path (`[i]` for the i-th preferred term), used in `error`."""
        exprs = term.get("matchExpressions") or ()
        field_exprs = term.get("matchFields") or ()
        try:
            labels = None
            if exprs:
                expr_path = _child(path, "matchExpressions")
                reqs = [
                    make_requirement(
                        e.get("key", ""), e.get("operator", ""), e.get("values"), NODE_OPS, f"{expr_path}[{i}]"
                    )
                    for i, e in enumerate(exprs)
                ]
                labels = LabelSelector(tuple(sorted(set(reqs), key=_req_key)))
            fields = []
            for e in field_exprs:
                op = e.get("operator", "")
                values: Sequence[Any] = e.get("values") or []
                if op not in ("In", "NotIn"):
                    raise SelectorError(f"field selector operator {op!r} not supported")
                if len(values) != 1:
                    raise SelectorError("field selector values must have one element")
                fields.append((e.get("key", ""), op, str(values[0])))
            return cls(labels, tuple(fields))
        except SelectorError as exc:
            return cls(None, (), valid=False, error=str(exc))

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        if self.empty or not self.valid:
            return False
        if self.labels is not None and not self.labels.matches(labels):
            return False
        for key, op, value in self.fields:
            actual = name if key == OBJECT_NAME_FIELD else ""
            if (actual == value) != (op == "In"):
                return False
        return True

    def row_mask(self, table: NodeTableView, rows: np.ndarray) -> np.ndarray:
        if self.empty or not self.valid:
            return np.zeros(rows.shape[0], dtype=bool)
        if self.labels is not None:
            out: np.ndarray = node_columns(table).mask(self.labels)[table.label_set[rows]]
        else:
            out = np.ones(rows.shape[0], dtype=bool)
        for key, op, value in self.fields:
            if key == OBJECT_NAME_FIELD:
                row = table.row_of.get(value, -1)
                hit = rows == row
            else:
                hit = np.full(rows.shape[0], value == "")
            out = out & (hit if op == "In" else ~hit)
        return out


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """ORed NodeSelectorTerms; an empty list matches no node."""

    terms: tuple[NodeSelectorTerm, ...]

    @classmethod
    def parse(cls, obj: Mapping[str, Any]) -> NodeSelector:
        return cls(tuple(NodeSelectorTerm.parse(t) for t in obj.get("nodeSelectorTerms") or ()))

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        return any(t.matches(labels, name) for t in self.terms)

    def row_mask(self, table: NodeTableView, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(rows.shape[0], dtype=bool)
        for term in self.terms:
            out |= term.row_mask(table, rows)
        return out


@dataclass(frozen=True, slots=True)
class PreferredTerm:
    weight: int
    term: NodeSelectorTerm


def parse_preferred_terms(terms: Sequence[Mapping[str, Any]] | None) -> tuple[PreferredTerm, ...]:
    """nodeaffinity.NewPreferredSchedulingTerms: weight-0 and empty terms are dropped.

    A term that fails to parse is kept with `term.error` set: see `preferred_terms_error`.
    """
    out = []
    for i, t in enumerate(terms or ()):
        weight = int(t.get("weight") or 0)
        preference = t.get("preference") or {}
        if weight and (preference.get("matchExpressions") or preference.get("matchFields")):
            out.append(PreferredTerm(weight, NodeSelectorTerm.parse(preference, f"[{i}]")))
    return tuple(out)


def preferred_terms_error(terms: Sequence[PreferredTerm]) -> str | None:
    """The error kube-scheduler's NewPreferredSchedulingTerms returns for these terms, or None."""
    errors = [t.term.error for t in terms if not t.term.valid]
    if not errors:
        return None
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def preferred_score(table: NodeTableView, rows: np.ndarray, terms: Sequence[PreferredTerm]) -> np.ndarray:
    score = np.zeros(rows.shape[0], dtype=np.int64)
    for t in terms:
        score += np.where(t.term.row_mask(table, rows), t.weight, 0)
    return score


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """nodeaffinity.GetRequiredNodeAffinity: spec.nodeSelector AND required affinity terms."""

    selector: LabelSelector | None
    affinity: NodeSelector | None

    @property
    def trivial(self) -> bool:
        return self.selector is None and self.affinity is None

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        """RequiredNodeAffinity.Match for one node outside the table (its labels and name)."""
        if self.selector is not None and not self.selector.matches(labels):
            return False
        return self.affinity is None or self.affinity.matches(labels, name)

    def row_mask(self, table: NodeTableView, rows: np.ndarray) -> np.ndarray:
        out = np.ones(rows.shape[0], dtype=bool)
        if self.selector is not None:
            out &= node_columns(table).mask(self.selector)[table.label_set[rows]]
        if self.affinity is not None:
            out &= self.affinity.row_mask(table, rows)
        return out


_REQUIRED_NODE_AFFINITY: MemoKey[RequiredNodeAffinity] = MemoKey("helpers.required_node_affinity")


def required_node_affinity(pod: PodView) -> RequiredNodeAffinity:
    """The pod's required node affinity (spec.nodeSelector AND required terms), parsed once per pod."""
    found = _REQUIRED_NODE_AFFINITY.get(pod)
    if found is None:
        selector = LabelSelector.from_set(pod.node_selector) if pod.node_selector else None
        required = ((pod.affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        affinity = NodeSelector.parse(required) if required is not None else None
        found = _REQUIRED_NODE_AFFINITY.set(pod, RequiredNodeAffinity(selector, affinity))
    return found



_TERMS_CACHE: dict[Any, NodeSelector] = {}
_TERMS_CACHE_LIMIT = 4096


def _terms_key(terms: Sequence[Mapping[str, Any]]) -> Any:
    return tuple(
        tuple(
            (e.get("key"), e.get("operator"), tuple(e.get("values") or ()))
            for e in (t.get("matchExpressions") or ())
        )
        + (None,)
        + tuple((e.get("key"), e.get("operator"), tuple(e.get("values") or ())) for e in (t.get("matchFields") or ()))
        for t in terms
    )


def node_selector_terms(terms: Sequence[Mapping[str, Any]]) -> NodeSelector:
    """Raw v1.NodeSelectorTerms (ORed) parsed into a NodeSelector, memoised by content (PVs and
    claims repeat the same few terms, and they are matched per label set)."""
    try:
        key = _terms_key(terms)
        found = _TERMS_CACHE.get(key)
    except TypeError:  # a malformed (unhashable) value: parse it uncached
        return NodeSelector(tuple(NodeSelectorTerm.parse(t) for t in terms))
    if found is None:
        if len(_TERMS_CACHE) >= _TERMS_CACHE_LIMIT:
            _TERMS_CACHE.clear()
        found = _TERMS_CACHE[key] = NodeSelector(tuple(NodeSelectorTerm.parse(t) for t in terms))
    return found


def node_selector_terms_match(terms: Sequence[Mapping[str, Any]], labels: Mapping[str, str], name: str = "") -> bool:
    """component-helpers' MatchNodeSelectorTerms for a node's labels and name: ORed terms, an empty
    or unparsable term matches nothing, matchFields sees only metadata.name (`name`, "" for a node
    known by its labels only, as volume util's CheckNodeAffinity builds it).

    >>> node_selector_terms_match([{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}],
    ...                           {"zone": "a"})
    True
    """
    return node_selector_terms(terms).matches(labels, name)

"""Public plugin helpers: label selectors, node selector terms, tolerations, topology domains and
per-label-set broadcasting (kube-scheduler's `framework/plugins/helper`), plus the small pieces of
Kubernetes semantics plugins share (quantities, resource names, strict args models).

Why a module of its own: NodeAffinity, PodTopologySpread, InterPodAffinity and any third-party
plugin evaluate the same Kubernetes selector semantics, and all need it in batch form. Selectors are evaluated
column-wise over append-only lists of label dicts — the NodeTable's interned label sets (nodes)
and PodLabelCounts' (namespace, labels) groups (placed pods) — so the cost of a cycle follows the
number of distinct selectors and keys, not nodes x pods. Columns and per-selector masks are
memoised per source list and extended incrementally as new sets/groups are interned.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from ..cache.cluster import ClusterState
from ..cache.nodetable import NodeTable, Taint
from ..cache.podinfo import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, MemoKey, PodInfo, Toleration
from ..cache.quantity import QuantityError, int_value, milli_value, parse_quantity
from .types import MAX_NODE_SCORE

__all__ = [
    "CPU",
    "DO_NOT_SCHEDULE_EFFECTS",
    "EPHEMERAL_STORAGE",
    "EVERYTHING",
    "HOSTNAME_LABEL",
    "LABEL_OPS",
    "MEMORY",
    "NODE_OPS",
    "NOTHING",
    "OBJECT_NAME_FIELD",
    "PODS",
    "ZONE_LABEL",
    "LabelColumns",
    "LabelSelector",
    "NodeSelector",
    "NodeSelectorTerm",
    "PodChangeCounter",
    "PreferredTerm",
    "QuantityError",
    "Requirement",
    "RequiredNodeAffinity",
    "SelectorError",
    "StrictArgs",
    "ValueColumn",
    "alive_rows",
    "default_normalize_score",
    "domain_sums",
    "first_untolerated",
    "group_columns",
    "int_value",
    "label_selector_matches",
    "make_requirement",
    "matching_pod_counts",
    "milli_value",
    "node_columns",
    "parse_preferred_terms",
    "parse_quantity",
    "pod_state_version",
    "preferred_score",
    "preferred_terms_error",
    "required_node_affinity",
    "untolerated_taint_sets",
]

HOSTNAME_LABEL = "kubernetes.io/hostname"
ZONE_LABEL = "topology.kubernetes.io/zone"
OBJECT_NAME_FIELD = "metadata.name"
DO_NOT_SCHEDULE_EFFECTS = ("NoSchedule", "NoExecute")
_INT_RE = re.compile(r"^[+-]?\d+$")
_MASK_CACHE_LIMIT = 4096


class SelectorError(ValueError):
    """A selector that kube-scheduler would fail to parse."""


# ---- requirements and label selectors ----------------------------------------------------
@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement (labels.Requirement): In, NotIn, Exists, DoesNotExist, Gt, Lt."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        if self.op == "In":
            return value is not None and value in self.values
        if self.op == "NotIn":
            return value is None or value not in self.values
        if self.op == "Exists":
            return value is not None
        if self.op == "DoesNotExist":
            return value is None
        if value is None or not _INT_RE.match(value):
            return False
        if self.op == "Gt":
            return int(value) > int(self.values[0])
        return int(value) < int(self.values[0])  # Lt


_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = f"{_DNS1123_LABEL}(\\.{_DNS1123_LABEL})*"
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_LABEL}(\\.{_DNS1123_LABEL})*$")
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery content.RegexError, word for word (users compare these messages)."""
    shown = ",  or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {shown}, regex used for validation is '{fmt}')"


def label_key_errors(key: str) -> list[str]:
    """content.IsLabelKey: an optional DNS-1123 subdomain prefix and '/', then a 63-byte name."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) > 2:
        return [
            "a valid label key " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errs.append("prefix part must be no more than 253 bytes")
            if not _DNS1123_SUBDOMAIN_RE.match(prefix):
                errs.append("prefix part " + _regex_error(
                    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                    "and must start and end with an alphanumeric character", _DNS1123_SUBDOMAIN_FMT, "example.com"))
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY_RE.match(name):
        errs.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """content.IsLabelValue: empty, or up to 63 bytes of [-A-Za-z0-9_.] starting and ending alphanumeric."""
    errs: list[str] = []
    if len(value) > 63:
        errs.append("must be no more than 63 bytes")
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character", _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _go_quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def make_requirement(
    key: str, op: str, values: Iterable[str] | None, allowed: frozenset[str], path: str = ""
) -> Requirement:
    """Validate one requirement the way labels.NewRequirement does, with its field-path messages.

    `path` is the field path of the requirement (e.g. `[0].matchExpressions[1]`), as kube-scheduler
    passes it, so an invalid key or value reads exactly like kube-scheduler's error.
    """
    errors = []
    if key_errs := label_key_errors(key):
        errors.append(f"{_child(path, 'key')}: Invalid value: {_go_quote(key)}: {'; '.join(key_errs)}")
    raw_values = [str(v) for v in values or ()]
    value_path = _child(path, "values")
    errors += [
        f"{value_path}[{i}][{key}]: Invalid value: {_go_quote(v)}: {'; '.join(errs)}"
        for i, v in enumerate(raw_values)
        if (errs := label_value_errors(v))
    ]
    if errors:  # utilerrors.Aggregate's text
        raise SelectorError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
    vals = tuple(sorted(set(raw_values)))
    if op not in allowed:
        raise SelectorError(f"{op!r} is not a valid label selector operator")
    if op in ("In", "NotIn") and not vals:
        raise SelectorError(f"key {key!r}: for 'In', 'NotIn' operators, values set can't be empty")
    if op in ("Exists", "DoesNotExist") and vals:
        raise SelectorError(f"key {key!r}: values set must be empty for exists and does not exist")
    if op in ("Gt", "Lt") and (len(vals) != 1 or not _INT_RE.match(vals[0])):
        raise SelectorError(f"key {key!r}: for 'Gt', 'Lt' operators, exactly one integer value is required")
    return Requirement(key, op, vals)


LABEL_OPS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
NODE_OPS = LABEL_OPS | {"Gt", "Lt"}


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """An ANDed set of requirements; `nothing` is labels.Nothing() (a nil metav1.LabelSelector)."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @property
    def everything(self) -> bool:
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        return all(r.matches(labels) for r in self.requirements)

    def add(self, requirements: Iterable[Requirement]) -> LabelSelector:
        if self.nothing:
            return self
        return LabelSelector(tuple(sorted({*self.requirements, *requirements}, key=_req_key)))

    @classmethod
    def from_set(cls, labels: Mapping[str, str]) -> LabelSelector:
        """labels.SelectorFromSet: every key equals its value (empty map = everything)."""
        return cls(tuple(sorted((Requirement(k, "In", (str(v),)) for k, v in labels.items()), key=_req_key)))

    @classmethod
    def from_api(cls, obj: Mapping[str, Any] | None) -> LabelSelector:
        """metav1.LabelSelectorAsSelector: nil matches nothing, {} matches everything."""
        if obj is None:
            return NOTHING
        reqs = [Requirement(k, "In", (str(v),)) for k, v in (obj.get("matchLabels") or {}).items()]
        for expr in obj.get("matchExpressions") or ():
            reqs.append(make_requirement(expr.get("key", ""), expr.get("operator", ""), expr.get("values"), LABEL_OPS))
        return cls(tuple(sorted(set(reqs), key=_req_key)))


def _req_key(r: Requirement) -> tuple[str, str, tuple[str, ...]]:
    return (r.key, r.op, r.values)


NOTHING = LabelSelector(nothing=True)
EVERYTHING = LabelSelector()


def label_selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """A raw metav1.LabelSelector against labels: None matches nothing, {} everything, and an
    invalid selector nothing (callers such as PDB matching skip what they cannot parse).

    >>> label_selector_matches({"matchLabels": {"app": "web"}}, {"app": "web", "tier": "1"})
    True
    """
    try:
        return LabelSelector.from_api(selector).matches(labels)
    except SelectorError:
        return False


class StrictArgs(BaseModel):
    """Base for a plugin's `Args` model: unknown keys are an error, as kube-scheduler decodes strictly."""

    model_config = ConfigDict(extra="forbid")


# ---- columnar evaluation -------------------------------------------------------------------
class ValueColumn:
    """One label key's values over a LabelColumns source: `ids[i]` indexes `values` (-1: label missing)."""

    __slots__ = ("ids", "values", "index", "ints")

    def __init__(self) -> None:
        self.ids = np.zeros(0, dtype=np.int32)
        self.values: list[str] = []
        self.index: dict[str, int] = {}
        self.ints = np.zeros(0, dtype=np.float64)

    def int_values(self) -> np.ndarray:
        if self.ints.shape[0] < len(self.values):
            extra = [float(v) if _INT_RE.match(v) else math.nan for v in self.values[self.ints.shape[0] :]]
            self.ints = np.concatenate([self.ints, np.asarray(extra, dtype=np.float64)])
        return self.ints


class LabelColumns:
    """Per-key value columns over an append-only list of items that carry labels.

    `items` is the live list (label sets of a NodeTable, groups of a PodLabelCounts); entries are
    never changed once appended, so a column only has to be extended for new items.
    """

    def __init__(
        self,
        items: list[Any],
        labels_of: Callable[[Any], Mapping[str, str]],
        namespace_of: Callable[[Any], str] | None = None,
    ) -> None:
        self.items = items
        self.labels_of = labels_of
        self.namespace_of = namespace_of
        self._columns: dict[str, ValueColumn] = {}
        self._namespaces = ValueColumn()
        self._masks: dict[LabelSelector, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.items)

    def _extend(self, col: ValueColumn, getter: Callable[[Any], str | None]) -> ValueColumn:
        n = len(self.items)
        done = col.ids.shape[0]
        if done < n:
            new = np.empty(n - done, dtype=np.int32)
            index, values = col.index, col.values
            for j in range(done, n):
                value = getter(self.items[j])
                if value is None:
                    new[j - done] = -1
                    continue
                found = index.get(value)
                if found is None:
                    found = index[value] = len(values)
                    values.append(value)
                new[j - done] = found
            col.ids = np.concatenate([col.ids, new])
        return col

    def column(self, key: str) -> ValueColumn:
        col = self._columns.get(key)
        if col is None:
            col = self._columns[key] = ValueColumn()
        labels_of = self.labels_of
        return self._extend(col, lambda item: labels_of(item).get(key))

    def namespaces(self) -> ValueColumn:
        assert self.namespace_of is not None
        return self._extend(self._namespaces, self.namespace_of)

    def requirement_mask(self, req: Requirement) -> np.ndarray:
        col = self.column(req.key)
        ids = col.ids
        if req.op in ("In", "NotIn"):
            wanted = [col.index[v] for v in req.values if v in col.index]
            if not wanted:
                hit = np.zeros(ids.shape[0], dtype=bool)
            elif len(wanted) == 1:
                hit = ids == wanted[0]
            else:
                hit = np.isin(ids, wanted)
            return hit if req.op == "In" else ~hit
        if req.op == "Exists":
            return ids >= 0
        if req.op == "DoesNotExist":
            return ids < 0
        ints = col.int_values()
        vals = np.full(ids.shape[0], math.nan)
        present = ids >= 0
        vals[present] = ints[ids[present]]
        bound = float(int(req.values[0]))
        with np.errstate(invalid="ignore"):
            return vals > bound if req.op == "Gt" else vals < bound

    def mask(self, selector: LabelSelector) -> np.ndarray:
        """Which items the selector matches (bool per item); memoised per selector."""
        n = len(self.items)
        cached = self._masks.get(selector)
        if cached is not None and cached.shape[0] == n:
            return cached
        if selector.nothing:
            out = np.zeros(n, dtype=bool)
        else:
            out = np.ones(n, dtype=bool)
            for req in selector.requirements:
                out &= self.requirement_mask(req)
        if len(self._masks) >= _MASK_CACHE_LIMIT:
            self._masks.clear()
        self._masks[selector] = out
        return out

    def namespace_mask(self, names: Iterable[str]) -> np.ndarray:
        col = self.namespaces()
        wanted = [col.index[n] for n in names if n in col.index]
        if not wanted:
            return np.zeros(col.ids.shape[0], dtype=bool)
        return np.isin(col.ids, wanted)


_node_columns: weakref.WeakKeyDictionary[NodeTable, LabelColumns] = weakref.WeakKeyDictionary()
_group_columns: weakref.WeakKeyDictionary[Any, LabelColumns] = weakref.WeakKeyDictionary()


def node_columns(table: NodeTable) -> LabelColumns:
    """Columns over a NodeTable's interned label sets (index = label set id)."""
    found = _node_columns.get(table)
    if found is None:
        found = _node_columns[table] = LabelColumns(table.label_sets.values, lambda labels: labels)
    return found


def group_columns(cluster: ClusterState) -> LabelColumns:
    """Columns over the placed-pod (namespace, labels) groups of cluster.label_counts."""
    counts = cluster.label_counts
    found = _group_columns.get(counts)
    if found is None:
        found = _group_columns[counts] = LabelColumns(counts.groups, itemgetter(1), itemgetter(0))
    return found


def matching_pod_counts(
    cluster: ClusterState, selector: LabelSelector, namespaces: np.ndarray | None = None
) -> np.ndarray:
    """Placed pods matching `selector` per table row (length = table capacity).

    `namespaces` is a bool mask over groups restricting the pods' namespaces (None = any).
    """
    cols = group_columns(cluster)
    counts = cluster.label_counts
    mask = cols.mask(selector)
    if namespaces is not None:
        mask = mask & namespaces
    if not mask.any():
        return np.zeros(cluster.table.capacity, dtype=np.int64)
    totals = np.asarray(counts.totals[: mask.shape[0]])
    gids = np.flatnonzero(mask & (totals > 0))
    return counts.per_node(gids.tolist()).astype(np.int64)


# ---- node selectors (NodeAffinity terms) --------------------------------------------------
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

    def row_mask(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        if self.empty or not self.valid:
            return np.zeros(rows.shape[0], dtype=bool)
        if self.labels is not None:
            out = node_columns(table).mask(self.labels)[table.label_set[rows]]
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

    def row_mask(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
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


def preferred_score(table: NodeTable, rows: np.ndarray, terms: Sequence[PreferredTerm]) -> np.ndarray:
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

    def row_mask(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        out = np.ones(rows.shape[0], dtype=bool)
        if self.selector is not None:
            out &= node_columns(table).mask(self.selector)[table.label_set[rows]]
        if self.affinity is not None:
            out &= self.affinity.row_mask(table, rows)
        return out


_REQUIRED_NODE_AFFINITY: MemoKey[RequiredNodeAffinity] = MemoKey("helpers.required_node_affinity")


def required_node_affinity(pod: PodInfo) -> RequiredNodeAffinity:
    """The pod's required node affinity (spec.nodeSelector AND required terms), parsed once per pod."""
    found = _REQUIRED_NODE_AFFINITY.get(pod)
    if found is None:
        selector = LabelSelector.from_set(pod.node_selector) if pod.node_selector else None
        required = ((pod.affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        affinity = NodeSelector.parse(required) if required is not None else None
        found = _REQUIRED_NODE_AFFINITY.set(pod, RequiredNodeAffinity(selector, affinity))
    return found


# ---- taints -------------------------------------------------------------------------------
def first_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: Sequence[str] = DO_NOT_SCHEDULE_EFFECTS
) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint restricted to `effects`."""
    for taint in taints:
        if taint.effect not in effects:
            continue
        if not any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations):
            return taint
    return None


def untolerated_taint_sets(table: NodeTable, tolerations: Sequence[Toleration]) -> np.ndarray:
    """Per taint set id: does it carry a NoSchedule/NoExecute taint the tolerations miss?"""
    sets = table.taint_sets.values
    return np.fromiter(
        (first_untolerated(s, tolerations) is not None for s in sets), dtype=bool, count=len(sets)
    )


# ---- change tracking ----------------------------------------------------------------------
class PodChangeCounter:
    """A PodIndex that only counts placements and removals, to detect a changed pod state.

    Plugins keep pre-filter data in CycleState; when preemption re-runs filters after changing
    placements, the counter tells them their data is stale and must be recomputed.
    """

    def __init__(self, _cluster: ClusterState | None = None) -> None:
        self.version = 0

    def pod_added(self, pod: PodInfo, row: int) -> None:
        self.version += 1

    def pod_removed(self, pod: PodInfo, row: int) -> None:
        self.version += 1


def pod_state_version(cluster: ClusterState) -> tuple[int, int]:
    counter = cluster.index("helpers.pod_changes", PodChangeCounter)
    return counter.version, cluster.table.version  # type: ignore[attr-defined]


def domain_sums(ids: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Sum `weights` per domain id (ids >= 0), as an int64 array of length `size`."""
    keep = ids >= 0
    if not keep.any():
        return np.zeros(size, dtype=np.int64)
    return np.bincount(ids[keep], weights=weights[keep], minlength=size).astype(np.int64)


def alive_rows(table: NodeTable) -> np.ndarray:
    """Live rows in row order; cached until node membership changes (callers must not mutate)."""
    return table.cached("helpers.alive_rows", lambda: _readonly(np.flatnonzero(table.alive[: table.size])))


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def default_normalize_score(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """helper.DefaultNormalizeScore: scale [0, max] to [0, 100], optionally reversed."""
    scores = np.asarray(scores, dtype=np.int64)
    top = int(scores.max()) if scores.size else 0
    if top == 0:
        return np.full(scores.shape, MAX_NODE_SCORE, dtype=np.int64) if reverse else scores
    out = MAX_NODE_SCORE * scores // top
    return MAX_NODE_SCORE - out if reverse else out

"""Label selectors and requirements (apimachinery's labels and metav1.LabelSelector), validated
with apimachinery's messages.

One engine for the whole package. A nil metav1.LabelSelector means different things at different
call sites, as upstream: `metav1.LabelSelectorAsSelector(nil)` is labels.Nothing() (PDBs,
CSIStorageCapacity.nodeTopology), while a field whose absence means "no restriction" (a claim's
spec.selector in the PV controller's FindMatchingVolume) matches everything. `label_selector_matches`
and `compile_label_selector` take `none_is_everything` to say which one a caller means.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EVERYTHING",
    "LABEL_OPS",
    "NODE_OPS",
    "NOTHING",
    "LabelSelector",
    "Requirement",
    "SelectorError",
    "compile_label_selector",
    "label_key_errors",
    "label_selector_matches",
    "label_value_errors",
    "make_requirement",
]

_INT_RE = re.compile(r"^[+-]?\d+$")


class SelectorError(ValueError):
    """A selector that kube-scheduler would fail to parse."""



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


def compile_label_selector(
    selector: Mapping[str, Any] | None, *, none_is_everything: bool = False
) -> LabelSelector:
    """A raw metav1.LabelSelector parsed once, for matching many label sets.

    None is labels.Nothing() (metav1.LabelSelectorAsSelector), or labels.Everything() with
    `none_is_everything` (a field whose absence means no restriction); {} matches everything; an
    invalid selector matches nothing (callers skip what they cannot parse).

    >>> compile_label_selector(None).nothing, compile_label_selector(None, none_is_everything=True).everything
    (True, True)
    """
    if selector is None:
        return EVERYTHING if none_is_everything else NOTHING
    try:
        return LabelSelector.from_api(selector)
    except SelectorError:
        return NOTHING


def label_selector_matches(
    selector: Mapping[str, Any] | None, labels: Mapping[str, str], *, none_is_everything: bool = False
) -> bool:
    """A raw metav1.LabelSelector against labels: None matches nothing (or everything, with
    `none_is_everything`), {} everything, and an invalid selector nothing (callers such as PDB
    matching skip what they cannot parse).

    >>> label_selector_matches({"matchLabels": {"app": "web"}}, {"app": "web", "tier": "1"})
    True
    >>> label_selector_matches(None, {}), label_selector_matches(None, {}, none_is_everything=True)
    (False, True)
    """
    return compile_label_selector(selector, none_is_everything=none_is_everything).matches(labels)

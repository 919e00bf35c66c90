"""Plugin args from `pluginConfig`: decoded strictly, as kube-scheduler decodes its configuration.

A misspelled key (`podLabel` for `label`) must not silently fall back to defaults, so any key an
Args model (or a model nested in it) does not declare is an error naming the key — for built-ins
and third-party plugins alike, whatever their pydantic default. A plugin that wants unknown keys
says so on the model itself: `model_config = ConfigDict(extra="allow")` (kept in `model_extra`)
or `extra="ignore"`. The check runs once per generation build, never on the scheduling path.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from ..errors import ConfigError

TYPE_META = ("apiVersion", "kind")  # kube-scheduler accepts TypeMeta on every args object

Loc = tuple[str | int, ...]


def validate_args(plugin: str, model: type[BaseModel], args: dict[str, Any], where: str) -> BaseModel:
    """Parse `args` with `model`; one-line ConfigError at `where.args...` on any bad or unknown key."""
    if not model.__pydantic_complete__:
        model.model_rebuild(raise_errors=False)
    if isinstance(args, dict):
        keys = _input_keys(model)
        args = {k: v for k, v in args.items() if k in keys or k not in TYPE_META}
    unknown = _unknown_key(model, args, ())
    if unknown is not None:
        raise ConfigError(_unknown_message(plugin, where, *unknown))
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{where}.args{_path(tuple(err['loc']))}: {err['msg']}") from None


def _unknown_message(plugin: str, where: str, loc: Loc, owner: type[BaseModel]) -> str:
    key = str(loc[-1])
    known = sorted(k for k in _input_keys(owner, names_only=True) if k not in TYPE_META)
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    takes = f"it takes: {', '.join(known)}" if known else "it takes no keys here"
    return f"{where}.args{_path(loc)}: unknown key for plugin {plugin!r} ({hint}{takes})"


def _path(loc: Loc) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


def _input_keys(model: type[BaseModel], names_only: bool = False) -> dict[str, Any]:
    """The keys a model accepts in its input (aliases, and field names where pydantic takes them)."""
    out: dict[str, Any] = {}
    by_name = bool(model.model_config.get("populate_by_name") or model.model_config.get("validate_by_name"))
    for name, info in model.model_fields.items():
        aliases = [a for a in (info.alias, info.validation_alias) if isinstance(a, str)]
        choices = getattr(info.validation_alias, "choices", None) or ()
        aliases += [c for c in choices if isinstance(c, str)]
        if names_only:
            out[aliases[0] if aliases else name] = info
            continue
        for key in aliases:
            out[key] = info
        if not aliases or by_name:
            out[name] = info
    return out


def _strict(model: type[BaseModel]) -> bool:
    """Unknown keys are errors unless the model explicitly allows or ignores them."""
    return model.model_config.get("extra") in (None, "forbid")


def _unknown_key(model: type[BaseModel], data: Any, loc: Loc) -> tuple[Loc, type[BaseModel]] | None:
    """The first key under `data` that `model` (or a model nested in it) does not declare."""
    if not isinstance(data, Mapping):
        return None  # not an object: pydantic reports the type error
    keys = _input_keys(model)
    for key, value in data.items():
        info = keys.get(key)
        if info is None:
            if _strict(model):
                return (*loc, key), model
            continue
        found = _unknown_in(info.annotation, value, (*loc, key))
        if found is not None:
            return found
    return None


def _unknown_in(tp: Any, value: Any, loc: Loc) -> tuple[Loc, type[BaseModel]] | None:
    """Follow a field's type (models, optionals, unions, lists, dicts) into the matching input."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _unknown_key(tp, value, loc)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is Annotated:
        return _unknown_in(args[0], value, loc)
    if origin is Union or origin is types.UnionType:
        # A key is unknown only if no member of the union takes it.
        found = [_unknown_in(a, value, loc) for a in args if a is not type(None)]
        return None if not found or any(f is None for f in found) else found[0]
    if isinstance(origin, type) and issubclass(origin, Mapping) and isinstance(value, Mapping) and len(args) == 2:
        for key, item in value.items():
            hit = _unknown_in(args[1], item, (*loc, str(key)))
            if hit is not None:
                return hit
        return None
    if (
        isinstance(origin, type)
        and issubclass(origin, Sequence | set | frozenset)
        and not issubclass(origin, str | bytes)
        and isinstance(value, list)
        and args
    ):
        item_type = args[0]
        for i, item in enumerate(value):
            hit = _unknown_in(item_type, item, (*loc, i))
            if hit is not None:
                return hit
    return None

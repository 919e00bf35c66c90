"""Feature gates: kube-scheduler v1.37.2's `--feature-gates`, with its names, defaults and locks.

A `FeatureGates` value is immutable and process-wide (kube-scheduler's DefaultFeatureGate): the
gates decide which plugins join the default profile (`applyFeatureGates`) and plugins read them
through `handle.feature_gates` or, at construction, a `feature_gates` constructor parameter.
Setting one is validated as component-base's featureGate.SetFromMap does: unknown names, locked
gates set to a non-default value, PreAlpha gates and unmet dependencies are errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ..errors import ConfigError
from .feature_gate_specs import DEPENDENCIES, GATES

__all__ = ["FeatureGates", "GATES"]

ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"
_SPECIAL = {ALL_ALPHA: "Alpha", ALL_BETA: "Beta"}
_TRUE = {"1", "t", "T", "true", "TRUE", "True"}  # Go's strconv.ParseBool
_FALSE = {"0", "f", "F", "false", "FALSE", "False"}


class FeatureGates(Mapping[str, bool]):
    """Every known gate -> enabled, after the user's settings; `overrides` holds what was set."""

    __slots__ = ("_values", "overrides")

    def __init__(self, overrides: Mapping[str, bool] | None = None, source: str = "--feature-gates") -> None:
        overrides = dict(overrides or {})
        values = {name: spec[0] for name, spec in GATES.items()}
        for name, value in overrides.items():
            if name in _SPECIAL:
                continue
            spec = GATES.get(name)
            if spec is None:
                raise ConfigError(
                    f"{source}: unrecognized feature gate: {name} (kube-scheduler v1.37.2's gates, e.g. GenericWorkload)"
                )
            default, prerelease, locked = spec
            if locked and value != default:
                raise ConfigError(
                    f"{source}: cannot set feature gate {name} to {str(value).lower()}, "
                    f"feature is locked to {str(default).lower()}"
                )
            if prerelease == "PreAlpha":
                raise ConfigError(f"{source}: cannot set feature gate {name}: it is PreAlpha in v1.37")
            values[name] = bool(value)
        for special, level in _SPECIAL.items():
            if special in overrides:
                for name, (_default, prerelease, locked) in GATES.items():
                    if prerelease == level and not locked and name not in overrides:
                        values[name] = bool(overrides[special])
        for name, deps in sorted(DEPENDENCIES.items()):
            missing = [d for d in deps if values.get(name) and not values.get(d, False)]
            if missing:
                raise ConfigError(
                    f"{source}: {name} is enabled, but depends on features that are disabled: "
                    f"[{' '.join(missing)}]; enable them too"
                )
        self._values: Mapping[str, bool] = MappingProxyType(values)
        self.overrides: Mapping[str, bool] = MappingProxyType(overrides)

    @classmethod
    def parse(cls, text: str | Mapping[str, bool] | None, source: str = "--feature-gates") -> FeatureGates:
        """From kube-scheduler's flag form `Name=true,Other=false` (or a mapping)."""
        if text is None:
            return cls()
        if isinstance(text, Mapping):
            return cls(text, source)
        values: dict[str, bool] = {}
        for item in text.split(","):
            if not item.strip():
                continue
            key, sep, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if not sep:
                raise ConfigError(f"{source}: missing bool value for {key} (write {key}=true or {key}=false)")
            if raw not in _TRUE | _FALSE:
                raise ConfigError(f"{source}: invalid value of {key}={raw}: expected true or false")
            values[key] = raw in _TRUE
        return cls(values, source)

    def enabled(self, name: str) -> bool:
        """Whether gate `name` is on; an unknown name is a KeyError (a typo in a plugin)."""
        try:
            return self._values[name]
        except KeyError:
            raise KeyError(f"unknown feature gate {name!r}") from None

    def default(self, name: str) -> bool:
        """The gate's v1.37.2 default."""
        return GATES[name][0]

    def __getitem__(self, name: str) -> bool:
        return self.enabled(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.overrides.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureGates) and dict(self._values) == dict(other._values)

    def __str__(self) -> str:
        return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(self.overrides.items()))

    def __repr__(self) -> str:
        return f"FeatureGates({str(self)!r})"


DEFAULT_FEATURE_GATES = FeatureGates()

"""Generations: an immutable, validated set of plugins + configuration, swapped as one reference.

Building a generation discovers plugins, parses the configuration, validates every plugin's args
and binds hooks per profile. Any failure raises before anything is swapped, so a bad reload
never replaces the running generation.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import itertools
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import hookspecs
from ..api.capabilities import capabilities_of
from ..api.features import DEFAULT_FEATURE_GATES, FeatureGates
from ..errors import ConfigError, PluginLoadError
from .config import (
    YAML_POINTS,
    PluginConfig,
    PluginRef,
    Profile,
    SchedulerConfiguration,
    default_multipoint,
    load_configuration,
)
from .extenders import HTTPExtender, build_extenders, ignored_resources
from .framework import Framework
from .hooks import BoundHook, filter_node_adapter, score_node_adapter
from .plugin_args import validate_args
from .plugins import PluginSpec, discover

_numbers = itertools.count(1)

@dataclass(frozen=True)
class Generation:
    """Plugins + parsed configuration; never mutated after build."""

    number: int
    id: str
    config: SchedulerConfiguration
    config_source: str
    registry: dict[str, PluginSpec]
    profiles: dict[str, Framework]
    extenders: tuple[HTTPExtender, ...] = ()
    feature_gates: FeatureGates = DEFAULT_FEATURE_GATES
    created_at: float = field(default_factory=time.time)

    @property
    def default_profile(self) -> Framework:
        return next(iter(self.profiles.values()))

    def framework_for(self, scheduler_name: str) -> Framework | None:
        return self.profiles.get(scheduler_name)


def build_generation(
    config_path: str | Path | None = None,
    plugins_dir: str | Path | None = None,
    config: SchedulerConfiguration | None = None,
    extra_plugins: list[Any] | None = None,
    entry_point_specs: list[PluginSpec] | None = None,
    allow_insecure_plugins_dir: bool = False,
    feature_gates: FeatureGates = DEFAULT_FEATURE_GATES,
) -> Generation:
    """Discover plugins and build every profile's framework; raises a one-line error on bad input.

    `entry_point_specs` reuses an earlier scan of installed packages (hot reload rescans them
    only on SIGHUP or an explicit rescan). `feature_gates` decide the default profile's plugins
    (kube-scheduler's applyFeatureGates) and are what plugins read through their handle."""
    source = str(config_path) if config_path else "<default configuration>"
    if config is None:
        config = load_configuration(config_path)
    registry = discover(
        Path(plugins_dir) if plugins_dir else None, extra_plugins, entry_point_specs, allow_insecure_plugins_dir
    )
    number = next(_numbers)
    fingerprint = hashlib.sha256(
        repr(
            (
                config.model_dump(),
                sorted((s.name, s.source, s.version) for s in registry.values()),
                str(feature_gates),
            )
        ).encode()
    ).hexdigest()[:8]
    gen_id = f"g{number}-{fingerprint}"
    extenders = _extenders(config, source)
    ignored = ignored_resources(config.extenders)
    profiles = {}
    for i, profile in enumerate(config.profiles):
        if ignored:
            profile = _with_ignored_resources(profile, ignored)
        fw = _build_framework(profile, f"{source}: profiles[{i}]", registry, config, gen_id, feature_gates)
        fw.extenders = extenders
        profiles[profile.schedulerName] = fw
    sorts = {tuple(fw.enabled("queue_sort")) for fw in profiles.values()}
    if len(sorts) > 1:
        raise ConfigError(f"{source}: profiles: all profiles must use the same queueSort plugin, got {sorted(sorts)}")
    return Generation(number, gen_id, config, source, registry, profiles, extenders, feature_gates)


def _extenders(config: SchedulerConfiguration, source: str) -> tuple[HTTPExtender, ...]:
    for i, ext in enumerate(config.extenders):
        try:
            HTTPExtender(ext).close()
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{source}: extenders[{i}].tlsConfig: {exc}") from None
    return build_extenders(config.extenders)


def _with_ignored_resources(profile: Profile, ignored: list[str]) -> Profile:
    """kube-scheduler's buildExtenders: extender-managed resources marked ignoredByScheduler replace
    NodeResourcesFit's ignoredResources in every profile."""
    profile = profile.model_copy(deep=True)
    for pc in profile.pluginConfig:
        if pc.name == "NodeResourcesFit":
            pc.args = {**pc.args, "ignoredResources": list(ignored)}
            return profile
    profile.pluginConfig.append(PluginConfig(name="NodeResourcesFit", args={"ignoredResources": list(ignored)}))
    return profile


def _unknown(where: str, name: str, registry: dict[str, PluginSpec]) -> ConfigError:
    return ConfigError(f"{where}: unknown plugin {name!r}; available: {', '.join(sorted(registry))}")


def _implements(spec: PluginSpec, point: str) -> bool:
    return any(h in spec.hooks for h in hookspecs.POINTS_BY_HOOK[point].forms)


def _resolve_points(
    profile: Profile, where: str, registry: dict[str, PluginSpec], gates: FeatureGates = DEFAULT_FEATURE_GATES
) -> dict[str, list[PluginRef]]:
    """kube-scheduler's plugin-set merging: defaults (as multiPoint), then overrides per point."""
    multi = _multipoint(profile, where, registry, gates)
    resolved: dict[str, list[PluginRef]] = {}
    for yaml_point, point in YAML_POINTS.items():
        plugin_set = profile.plugins.point(yaml_point)
        explicit = _explicit(plugin_set.enabled, f"{where}.plugins.{yaml_point}", point, registry)
        disabled = {p.name for p in plugin_set.disabled}
        explicit_names = {r.name for r in explicit}
        from_multi = [
            m
            for m in multi
            if _implements(registry[m.name], point)
            and "*" not in disabled
            and m.name not in disabled
            and m.name not in explicit_names
        ]
        # Explicit entries that override a multiPoint plugin keep that plugin's position; one disabled at this
        # point first is no override (kube-scheduler's expandMultiPointPlugins skips it): it keeps its own place.
        ordered: list[PluginRef] = []
        for m in multi:
            if m.name in explicit_names and "*" not in disabled and m.name not in disabled:
                ordered.append(next(r for r in explicit if r.name == m.name))
        ordered += from_multi
        ordered += [r for r in explicit if r.name not in {o.name for o in ordered}]
        if point in ("score", "placement_score"):  # weighted points (kube-scheduler's getValidScoreWeights)
            multi_weights = {m.name: m.weight for m in multi}
            ordered = [
                PluginRef(name=r.name, weight=r.weight or multi_weights.get(r.name) or 1) for r in ordered
            ]
        resolved[point] = ordered
    if len(resolved["queue_sort"]) > 1:
        raise ConfigError(
            f"{where}.plugins.queueSort: only one queueSort plugin may be enabled, got "
            f"{', '.join(r.name for r in resolved['queue_sort'])}"
        )
    return resolved


def _multipoint(
    profile: Profile, where: str, registry: dict[str, PluginSpec], gates: FeatureGates
) -> list[PluginRef]:
    """The profile's multiPoint set: the default plugins not disabled, then its own entries."""
    plugins = profile.plugins
    multi_disabled = {p.name for p in plugins.multiPoint.disabled}
    multi: list[PluginRef] = []
    if "*" not in multi_disabled:
        multi = [
            PluginRef(name=n, weight=w or None)
            for n, w in default_multipoint(gates)
            if n in registry and n not in multi_disabled
        ]
    for j, ref in enumerate(plugins.multiPoint.enabled):
        if ref.name not in registry:
            raise _unknown(f"{where}.plugins.multiPoint.enabled[{j}]", ref.name, registry)
        # A default plugin re-configured here keeps its default position (kube-scheduler's mergePluginSet).
        at = next((k for k, m in enumerate(multi) if m.name == ref.name), None)
        if at is None:
            multi.append(ref)
        else:
            multi[at] = ref
    return multi


def _explicit(
    enabled: list[PluginRef], where: str, point: str, registry: dict[str, PluginSpec]
) -> list[PluginRef]:
    """The plugins a profile enables at one point by name, checked: known, implementing the
    point, enabled once."""
    explicit: list[PluginRef] = []
    for j, ref in enumerate(enabled):
        if ref.name not in registry:
            raise _unknown(f"{where}.enabled[{j}]", ref.name, registry)
        if not _implements(registry[ref.name], point):
            raise ConfigError(
                f"{where}.enabled[{j}]: plugin {ref.name!r} does not implement {point}; "
                f"it implements {', '.join(registry[ref.name].hooks)}"
            )
        if any(r.name == ref.name for r in explicit):
            raise ConfigError(f"{where}.enabled[{j}]: plugin {ref.name!r} is enabled more than once")
        explicit.append(ref)
    return explicit


def _instantiate(spec: PluginSpec, args: dict[str, Any], where: str, gates: FeatureGates = DEFAULT_FEATURE_GATES) -> Any:
    model = spec.args_model
    parsed = None
    if model is not None:
        parsed = validate_args(spec.name, model, args, where)
    elif args:
        raise ConfigError(f"{where}.args: plugin {spec.name!r} takes no arguments")
    if not inspect.isclass(spec.obj):
        return spec.obj
    params = _parameter_names(spec.obj)
    kwargs: dict[str, Any] = {"args": parsed} if "args" in params else {}
    if "feature_gates" in params:  # kube-scheduler hands plugin factories its feature.Features
        kwargs["feature_gates"] = gates
    try:
        return spec.obj(**kwargs)
    except Exception as exc:
        raise PluginLoadError(f"{where}: plugin {spec.name!r} failed to initialise: {type(exc).__name__}: {exc}") from None


# inspect.signature is the bulk of a reload's build: cached per class, weakly, so a drop-in's old
# classes are still freed when their generation goes (hook arguments: hooks.argnames).
_PARAMS: weakref.WeakKeyDictionary[Any, tuple[str, ...]] = weakref.WeakKeyDictionary()


def _parameter_names(cls: Any) -> tuple[str, ...]:
    """The parameter names of a plugin class's constructor."""
    try:
        return _PARAMS[cls]
    except (KeyError, TypeError):
        pass
    try:
        names = tuple(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        names = ()
    with contextlib.suppress(TypeError):
        _PARAMS[cls] = names
    return names


def _build_framework(
    profile: Profile,
    where: str,
    registry: dict[str, PluginSpec],
    config: SchedulerConfiguration,
    gen_id: str,
    gates: FeatureGates = DEFAULT_FEATURE_GATES,
) -> Framework:
    resolved = _resolve_points(profile, where, registry, gates)
    instances = _instances(profile, where, registry, resolved, gates)

    def impl(name: str, hook: str) -> BoundHook | None:
        # Hook names and signatures were checked against the hookspecs (by pluggy) at discovery;
        # binding them directly keeps a reload's build cheap (no PluginManager per profile).
        if hook not in registry[name].hooks:
            return None
        return BoundHook.of(name, getattr(instances[name], hook))

    points = {point: _bind_point(point, refs, impl) for point, refs in resolved.items()}
    normalizers = {r.name: b for r in resolved["score"] if (b := impl(r.name, "normalize_score")) is not None}
    unreservers = [b for r in resolved["reserve"] if (b := impl(r.name, "unreserve")) is not None]
    pre_flights = {r.name: b for r in resolved["pre_bind"] if (b := impl(r.name, "pre_bind_pre_flight")) is not None}
    signers, unsigned = _signers(resolved, impl)
    percentage = profile.percentageOfNodesToScore
    if percentage is None:
        percentage = config.percentageOfNodesToScore
    capabilities = {}
    for name, instance in instances.items():
        try:
            capabilities[name] = capabilities_of(instance)
        except TypeError as exc:
            raise PluginLoadError(f"{where}: plugin {name!r}: {exc}") from None
    return Framework(
        profile.schedulerName, points, normalizers, unreservers, instances, percentage, gen_id, capabilities,
        signers, unsigned,
        feature_gates=gates,
        pre_flights=pre_flights,
    )


def _instances(
    profile: Profile, where: str, registry: dict[str, PluginSpec], resolved: dict[str, list[PluginRef]],
    gates: FeatureGates,
) -> dict[str, Any]:
    """One instance per plugin enabled anywhere in the profile, built with its pluginConfig args
    (in name order: the order placement_feasible plugins are asked in)."""
    enabled_names = {r.name for refs in resolved.values() for r in refs}
    plugin_args = {pc.name: (j, pc.args) for j, pc in enumerate(profile.pluginConfig)}
    for name, (j, _args) in plugin_args.items():
        if name not in registry:
            raise _unknown(f"{where}.pluginConfig[{j}].name", name, registry)
    instances: dict[str, Any] = {}
    for name in sorted(enabled_names):
        found = plugin_args.get(name)
        loc = f"{where}.pluginConfig[{found[0]}]" if found is not None else f"{where}.plugins[{name}]"
        instances[name] = _instantiate(registry[name], found[1] if found is not None else {}, loc, gates)
    return instances


Impl = Callable[[str, str], "BoundHook | None"]


def _bind_point(point: str, refs: list[PluginRef], impl: Impl) -> list[BoundHook]:
    """The bound hooks of one extension point in order, with weights; a plugin with only the
    per-node form of filter or score is bound through its adapter (the slow path)."""
    hooks = []
    for ref in refs:
        bound = impl(ref.name, point)
        if bound is None and point in ("filter", "score"):
            slow = impl(ref.name, f"{point}_node")
            if slow is not None:
                fn = (
                    filter_node_adapter(ref.name, slow.fn, slow.argnames)
                    if point == "filter"
                    else score_node_adapter(slow.fn, slow.argnames)
                )
                bound = BoundHook(ref.name, fn, ("state", "pod", "nodes", "cluster", "handle"))
        if bound is None:
            continue
        bound.weight = ref.weight or 1
        hooks.append(bound)
    return hooks


def _signers(resolved: dict[str, list[PluginRef]], impl: Impl) -> tuple[list[BoundHook], list[str]]:
    """kube-scheduler's computeBatchablePlugins: the sign_pod of each pre_filter, filter, pre_score
    and score plugin (once per plugin), and the names of those without one."""
    signers: list[BoundHook] = []
    unsigned: list[str] = []
    seen: set[str] = set()
    for point in ("pre_filter", "filter", "pre_score", "score"):
        for ref in resolved[point]:
            if ref.name in seen:
                continue
            seen.add(ref.name)
            bound = impl(ref.name, "sign_pod")
            if bound is None:
                unsigned.append(ref.name)
            else:
                signers.append(bound)
    return signers, unsigned

"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as pydantic models, and process settings.

Users reuse the file they already give kube-scheduler. Fields kubeberth does not act on are
accepted and logged once; anything it cannot use is a one-line ConfigError naming file and field.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..api.features import DEFAULT_FEATURE_GATES, FeatureGates
from ..api.hookspecs import EXTENSION_POINTS
from ..errors import ConfigError

# libyaml's safe loader when PyYAML was built with it (several times faster), else the pure one.
YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

log = logging.getLogger(__name__)

API_VERSION = "kubescheduler.config.k8s.io/v1"
DEFAULT_PROFILE = "kubeberth"

# Extension point names as written in the YAML -> hook names (from the one table in hookspecs).
YAML_POINTS = {p.config: p.hook for p in EXTENSION_POINTS}

# kube-scheduler v1.37.2's default profile before applyFeatureGates (getDefaultPlugins in
# pkg/scheduler/apis/config/v1/default_plugins.go), as multiPoint (name, score weight; 0: none).
BASE_MULTIPOINT: tuple[tuple[str, int], ...] = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeName", 0),
    ("NodeUnschedulable", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
)

@dataclass(frozen=True)
class GateRule:
    """One step of kube-scheduler's applyFeatureGates: when `gate` is on, `plugins` (name, weight)
    join the default profile, inserted before `before` or appended when it is None."""

    gate: str
    plugins: tuple[tuple[str, int], ...]
    before: str | None = None


# applyFeatureGates (pkg/scheduler/apis/config/v1/default_plugins.go), in its order.
GATE_RULES: tuple[GateRule, ...] = (
    GateRule("NodeDeclaredFeatures", (("NodeDeclaredFeatures", 0),)),
    # Before NodeResourcesFit, so DeferredPodScheduling is recorded as the failing plugin.
    GateRule("InPlacePodVerticalScalingSchedulerPreemption", (("DeferredPodScheduling", 0),), "NodeResourcesFit"),
    # Before DefaultPreemption: deallocating an idle claim beats evicting a pod.
    GateRule("DynamicResourceAllocation", (("DynamicResources", 2),), "DefaultPreemption"),
    GateRule("GenericWorkload", (("GangScheduling", 0),)),
    GateRule("TopologyAwareWorkloadScheduling", (("TopologyPlacementGenerator", 0), ("PodGroupPodsCount", 1))),
)

# Default-profile plugin -> the gate that adds it.
GATED_PLUGINS: dict[str, str] = {name: rule.gate for rule in GATE_RULES for name, _ in rule.plugins}


def default_multipoint(gates: FeatureGates = DEFAULT_FEATURE_GATES) -> tuple[tuple[str, int], ...]:
    """The default profile's multiPoint plugins under `gates`: kube-scheduler's getDefaultPlugins
    followed by applyFeatureGates (same order, same weights)."""
    plugins = list(BASE_MULTIPOINT)
    for rule in GATE_RULES:
        if not gates.enabled(rule.gate):
            continue
        at = next((i for i, (n, _) in enumerate(plugins) if n == rule.before), len(plugins))
        plugins[at:at] = rule.plugins
    return tuple(plugins)


def default_profile_status(gates: FeatureGates = DEFAULT_FEATURE_GATES) -> dict[str, str]:
    """Every plugin the default profile may hold -> how `gates` decide it, for `plugins list`:
    "yes", or "yes[Gate=true]" / "no[Gate=false]" for the plugins applyFeatureGates adds."""
    enabled = {n for n, _ in default_multipoint(gates)}
    out = {n: "yes" for n, _ in BASE_MULTIPOINT}
    for name, gate in GATED_PLUGINS.items():
        value = gates.enabled(gate)
        out[name] = f"{'yes' if name in enabled else 'no'}[{gate}={str(value).lower()}]"
    return out


# The default profile under the v1.37.2 default gates.
DEFAULT_MULTIPOINT: tuple[tuple[str, int], ...] = default_multipoint()


class _Lenient(BaseModel):
    """Accepts fields we do not model, so a kube-scheduler file loads unchanged."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class PluginRef(_Lenient):
    name: str
    weight: int | None = None


class PluginSet(_Lenient):
    enabled: list[PluginRef] = Field(default_factory=list)
    disabled: list[PluginRef] = Field(default_factory=list)


class _PluginsBase(_Lenient):
    multiPoint: PluginSet = Field(default_factory=PluginSet)

    def point(self, config_name: str) -> PluginSet:
        """The plugin set of one extension point by its YAML name (e.g. 'preFilter')."""
        found: PluginSet = getattr(self, config_name)
        return found


if TYPE_CHECKING:
    Plugins = _PluginsBase
else:  # one field per extension point, from the table
    Plugins = create_model(
        "Plugins",
        __base__=_PluginsBase,
        **{p.config: (PluginSet, Field(default_factory=PluginSet)) for p in EXTENSION_POINTS},
    )


class PluginConfig(_Lenient):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Profile(_Lenient):
    schedulerName: str = DEFAULT_PROFILE
    percentageOfNodesToScore: int | None = Field(default=None, ge=0, le=100)
    plugins: Plugins = Field(default_factory=Plugins)
    pluginConfig: list[PluginConfig] = Field(default_factory=list)


class LeaderElection(_Lenient):
    leaderElect: bool = True
    leaseDuration: str = "15s"
    renewDeadline: str = "10s"
    retryPeriod: str = "2s"
    resourceLock: str = "leases"
    resourceName: str = "kubeberth"
    resourceNamespace: str = "kube-system"


class ClientConnection(_Lenient):
    kubeconfig: str = ""
    qps: float = 50.0
    burst: int = 100


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str | float | int) -> float:
    """A metav1.Duration as written in YAML ("30s", "1m30s", "500ms") in seconds."""
    if isinstance(text, int | float):
        return float(text)
    s = text.strip()
    if s == "0":
        return 0.0
    parts = _DURATION_PART.findall(s)
    if not parts or "".join(n + u for n, u in parts) != s:
        raise ValueError(f"invalid duration {text!r} (use e.g. 5s, 500ms, 1m30s)")
    return sum(float(n) * _DURATION_UNITS[u] for n, u in parts)


class ExtenderTLSConfig(_Lenient):
    """restclient.TLSClientConfig fields of an extender (the *Data fields are base64 in YAML)."""

    insecure: bool = False
    serverName: str = ""
    certFile: str = ""
    keyFile: str = ""
    caFile: str = ""
    certData: str = ""
    keyData: str = ""
    caData: str = ""


class ExtenderManagedResource(_Lenient):
    name: str
    ignoredByScheduler: bool = False


class Extender(_Lenient):
    """One entry of `extenders:` (kube-scheduler's config.Extender, v1)."""

    urlPrefix: str
    filterVerb: str = ""
    preemptVerb: str = ""
    prioritizeVerb: str = ""
    weight: int = 0
    bindVerb: str = ""
    enableHTTPS: bool = False
    tlsConfig: ExtenderTLSConfig | None = None
    httpTimeout: float = 0.0  # seconds; 0 means kube-scheduler's DefaultExtenderTimeout (5s)
    nodeCacheCapable: bool = False
    managedResources: list[ExtenderManagedResource] = Field(default_factory=list)
    ignorable: bool = False

    @field_validator("httpTimeout", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> float:
        return parse_go_duration(value)


class SchedulerConfiguration(_Lenient):
    apiVersion: str = API_VERSION
    kind: str = "KubeSchedulerConfiguration"
    percentageOfNodesToScore: int | None = Field(default=None, ge=0, le=100)
    podInitialBackoffSeconds: float = Field(default=1, gt=0)
    podMaxBackoffSeconds: float = Field(default=10, gt=0)
    parallelism: int = 16
    profiles: list[Profile] = Field(default_factory=lambda: [Profile()])
    leaderElection: LeaderElection = Field(default_factory=LeaderElection)
    clientConnection: ClientConnection = Field(default_factory=ClientConnection)
    extenders: list[Extender] = Field(default_factory=list)


def _location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _unmodelled_fields(model: BaseModel, path: str = "") -> list[str]:
    found = [f"{path}.{k}" if path else k for k in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        child = f"{path}.{name}" if path else name
        if isinstance(value, BaseModel):
            found += _unmodelled_fields(value, child)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found += _unmodelled_fields(item, f"{child}[{i}]")
    return found


def parse_configuration(data: Any, source: str = "<config>") -> SchedulerConfiguration:
    """Validate a KubeSchedulerConfiguration document; raises ConfigError with one line."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a KubeSchedulerConfiguration mapping, got {type(data).__name__}")
    kind = data.get("kind", "KubeSchedulerConfiguration")
    if kind != "KubeSchedulerConfiguration":
        raise ConfigError(f"{source}: kind: expected KubeSchedulerConfiguration, got {kind!r}")
    api = data.get("apiVersion", API_VERSION)
    if api != API_VERSION:
        raise ConfigError(f"{source}: apiVersion: expected {API_VERSION}, got {api!r}")
    try:
        config = SchedulerConfiguration.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{source}: {_location(err['loc'])}: {err['msg']}") from None
    names = [p.schedulerName for p in config.profiles]
    if not names:
        raise ConfigError(f"{source}: profiles: at least one profile is required")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{source}: profiles: duplicate schedulerName {dupes[0]!r}")
    if config.podMaxBackoffSeconds < config.podInitialBackoffSeconds:
        raise ConfigError(f"{source}: podMaxBackoffSeconds: must be >= podInitialBackoffSeconds")
    for i, profile in enumerate(config.profiles):
        seen: set[str] = set()
        for j, pc in enumerate(profile.pluginConfig):
            if pc.name in seen:
                raise ConfigError(f"{source}: profiles[{i}].pluginConfig[{j}]: duplicate entry for {pc.name!r}")
            seen.add(pc.name)
    _validate_extenders(config, source)
    for field in _unmodelled_fields(config):
        log.info("%s: %s is accepted but not used by kubeberth", source, field)
    return config


_QUALIFIED_NAME = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def _validate_extenders(config: SchedulerConfiguration, source: str) -> None:
    """kube-scheduler's validateExtenders: positive weight for prioritizers, one binder, extended resources."""
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(config.extenders):
        where = f"{source}: extenders[{i}]"
        if not ext.urlPrefix:
            raise ConfigError(f"{where}.urlPrefix: required: the extender's base URL, e.g. http://127.0.0.1:8888/")
        if ext.prioritizeVerb and ext.weight <= 0:
            raise ConfigError(f"{where}.weight: must have a positive weight applied to it (got {ext.weight})")
        if ext.httpTimeout < 0:
            raise ConfigError(f"{where}.httpTimeout: must not be negative")
        binders += bool(ext.bindVerb)
        for j, res in enumerate(ext.managedResources):
            name = res.name
            extended = "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")
            if not _QUALIFIED_NAME.match(name) or not extended:
                raise ConfigError(f"{where}.managedResources[{j}].name: {name!r} is an invalid extended resource name")
            if name in managed:
                raise ConfigError(f"{where}.managedResources[{j}].name: {name!r}: duplicate extender managed resource name")
            managed.add(name)
    if binders > 1:
        raise ConfigError(f"{source}: extenders: found {binders} extenders implementing bind; only one extender can implement bind")


def load_configuration(path: str | Path | None) -> SchedulerConfiguration:
    """Read a configuration file, or the built-in default profile when no path is given."""
    if path is None:
        return SchedulerConfiguration()
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = yaml.load(text, Loader=YAML_LOADER)  # noqa: S506 - a safe loader, libyaml's when present
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "YAML"
        raise ConfigError(f"{path}: {where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    return parse_configuration(data, str(path))


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class Settings(BaseSettings):
    """Process settings from KUBEBERTH_* environment variables; CLI flags override them
    (`Settings.load`: a bad value is one line naming the flag or variable)."""

    model_config = SettingsConfigDict(env_prefix="KUBEBERTH_", extra="ignore")

    config: Path | None = None
    plugins_dir: Path | None = None
    log_level: str = "WARNING"  # one of LOG_LEVELS, any case
    log_format: Literal["text", "json"] = "text"
    otlp_endpoint: str | None = None
    seed: int | None = None
    binding_workers: int = 16
    # Whole-response API requests through libcurl (`curl`), or all through urllib3 (`urllib3`:
    # the official client's pool, about 4x the CPU per request; docs/benchmarks.md "the API path").
    api_transport: Literal["curl", "urllib3"] = "curl"
    decision_records: int = 1000  # pods whose last decision /debug/decisions keeps (0: off)
    decision_annotation: bool = False  # write kubeberth.io/last-decision on pods (needs patch on pods)
    # Hot reload (docs/hot-reload.md): watch --config and --plugins-dir, debounce file-event bursts.
    watch: bool = True
    reload_debounce_seconds: float = 0.02
    allow_insecure_plugins_dir: bool = False  # load a plugins folder others can write (code execution!)
    # Automatic rollback of a generation that misbehaves within its probation window.
    rollback: bool = True
    rollback_window_seconds: float = 60.0
    rollback_min_attempts: int = 20
    rollback_max_error_rate: float = 0.1
    rollback_unschedulable_margin: float = 0.5
    # The plugin watchdog (docs/reliability.md): a scheduling cycle running longer is reported,
    # and the plugin call interrupted when it is in Python code (0: off).
    plugin_timeout_seconds: float = Field(5.0, ge=0)
    # The memory guard (docs/reliability.md): RSS growth past this many MB since a generation's
    # swap rolls it back on probation, else is reported (0: off).
    rollback_max_memory_growth_mb: float = Field(256.0, ge=0)
    # Server-side watch timeout in seconds (client-go: 5-10 min); a watch silent for longer than
    # this plus a grace period is dropped and resumed (the last resort when the liveness probe is off).
    watch_timeout: float = 300.0
    # Connection liveness (docs/reliability.md): GET /version every `interval` seconds over a
    # connection of its own, each bounded by `timeout`; a broken probe connection, or `failures`
    # probes in a row without an answer, close every watch stream (resumed from its resourceVersion).
    # A server answering within the timeout, however slowly, is alive. Interval 0 turns probing off.
    liveness_interval_seconds: float = Field(5.0, ge=0)
    liveness_timeout_seconds: float = Field(10.0, gt=0)
    liveness_failures: int = Field(2, ge=1)
    # kube-scheduler's --feature-gates, e.g. "GenericWorkload=true,OpportunisticBatching=false".
    feature_gates: str = ""
    # `run` against an API server (docs/scale-out.md): "leader" (default) is one leader-elected
    # replica scheduling at a time; "active-active" makes every replica schedule the pods it owns,
    # committing each placement against the other replicas' claims.
    replicas_mode: Literal["leader", "active-active"] = "leader"
    # Where active-active replicas keep their in-flight claims (docs/scale-out.md): "kubernetes"
    # (default: a Lease per node) or "etcd" (a key per node under the prefix, in the etcd at these
    # endpoints, comma-separated http(s)://HOST:PORT; needs the `kubeberth[etcd]` extra). The prefix
    # defaults to /kubeberth/<leaderElection.resourceName>; TLS: a CA file, a client cert and key.
    scale_out_store: Literal["kubernetes", "etcd"] = "kubernetes"
    scale_out_etcd_endpoints: str = ""
    scale_out_etcd_prefix: str = ""
    scale_out_etcd_cafile: Path | None = None
    scale_out_etcd_certfile: Path | None = None
    scale_out_etcd_keyfile: Path | None = None
    # A shadow generation from the start (docs/shadow.md; also POST /shadow/start): its plugins
    # folder and/or configuration, the share of pods compared and its CPU budget.
    shadow_plugins_dir: Path | None = None
    shadow_config: Path | None = None
    shadow_sample: float = Field(1.0, ge=0, le=1)
    shadow_cpu_budget: float = Field(0.25, ge=0)

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}")
        return level

    @classmethod
    def load(cls, flags: Mapping[str, tuple[str, Any]] | None = None) -> Settings:
        """The KUBEBERTH_* environment with `flags` (field -> (flag, value)) over it, validated
        alike: a bad value is a one-line ConfigError naming the flag or the variable it came from
        and what it accepts."""
        flags = flags or {}
        try:
            return cls(**{name: value for name, (_flag, value) in flags.items()})
        except ValidationError as exc:
            first = exc.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else ""
            where = flags[name][0] if name in flags else f"KUBEBERTH_{name.upper()}"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ConfigError(f"{where}={first.get('input')!r}: {message[:1].lower()}{message[1:]}") from None

    def gates(self) -> FeatureGates:
        """The validated feature gates; a bad entry is a one-line ConfigError."""
        return FeatureGates.parse(self.feature_gates, "--feature-gates (KUBEBERTH_FEATURE_GATES)")

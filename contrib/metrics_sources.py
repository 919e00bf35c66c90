"""Where node load comes from: Prometheus, the Kubernetes metrics API, or a snapshot file.

A source's `fetch(metrics)` runs on the provider's refresher thread only, with bounded timeouts,
and returns {metric: {series key: value}}. A series key is what the node mapping produced (a node
name or an InternalIP); the plugins' side turns keys into node-table rows once per refresh.
Canonical metrics are fractions (utilisation 0–1, pressure stall share of time 0–1) so every
plugin reads the same units whichever source fills them.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

# PromQL per canonical metric. {label}: the series label naming the node; {window}: the averaging
# window; {rate}: the range of the inner rate(). Every query is grouped by the node label, so
# duplicate series (two jobs scraping one node_exporter) collapse in Prometheus already.
DEFAULT_QUERIES: dict[str, str] = {
    "cpu": '1 - avg by ({label}) (rate(node_cpu_seconds_total{{mode="idle"}}[{window}]))',
    "cpu_stddev": (
        'max by ({label}) (stddev_over_time((1 - avg by ({label}) '
        '(rate(node_cpu_seconds_total{{mode="idle"}}[{rate}])))[{window}:{step}]))'
    ),
    "memory": (
        "max by ({label}) (avg_over_time((1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes)"
        "[{window}:{step}]))"
    ),
    "memory_stddev": (
        "max by ({label}) (stddev_over_time((1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes)"
        "[{window}:{step}]))"
    ),
    "cpu_psi": "max by ({label}) (rate(node_pressure_cpu_waiting_seconds_total[{window}]))",
    "memory_psi": "max by ({label}) (rate(node_pressure_memory_waiting_seconds_total[{window}]))",
    "io_psi": "max by ({label}) (rate(node_pressure_io_waiting_seconds_total[{window}]))",
}
FRACTION_METRICS = frozenset({"cpu", "cpu_stddev", "memory", "memory_stddev", "cpu_psi", "memory_psi", "io_psi"})
# metrics.k8s.io reports absolute usage; fractions are taken against each node's allocatable.
ABSOLUTE_METRICS = {"cpu": "cpu_cores", "cpu_stddev": "cpu_cores_stddev",
                    "memory": "memory_bytes", "memory_stddev": "memory_bytes_stddev"}


class MetricsSourceArgs(BaseModel):
    """The `metrics` block every load-aware plugin's args share (same block → one shared refresher)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["prometheus", "metrics-k8s-io", "snapshot"] = "prometheus"
    address: str = "http://127.0.0.1:9090"
    bearerTokenFile: str | None = None
    username: str | None = None
    passwordFile: str | None = None
    caFile: str | None = None
    certFile: str | None = None
    keyFile: str | None = None
    insecureSkipVerify: bool = False
    interval: float = Field(default=15.0, gt=0, le=3600, description="seconds between refreshes")
    timeout: float = Field(default=5.0, gt=0, le=60, description="seconds per query")
    window: str = "5m"
    rateWindow: str = "1m"
    step: str = "30s"
    ttl: float = Field(default=120.0, gt=0, description="seconds a node's values stay usable without a refresh")
    nodeLabel: str = "instance"
    nodeRegex: str = r"^(.+?)(?::\d+)?$"
    queries: dict[str, str] = Field(default_factory=dict)
    kubeconfig: str | None = None
    file: str | None = None

    @field_validator("nodeRegex")
    @classmethod
    def _regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return value

    @field_validator("window", "rateWindow", "step")
    @classmethod
    def _duration(cls, value: str) -> str:
        if not re.fullmatch(r"(\d+(ms|s|m|h|d))+", value):
            raise ValueError(f"{value!r} is not a Prometheus duration such as 30s or 5m")
        return value

    @property
    def window_seconds(self) -> float:
        return prometheus_duration(self.window)

    def key(self) -> str:
        """Identity of the source: plugins with equal blocks share one provider."""
        return self.model_dump_json()


def prometheus_duration(text: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)(ms|s|m|h|d)", text))


def clean(value: Any) -> float | None:
    """A usable sample or None: NaN, ±Inf, negatives and non-numbers are dropped."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(v) or math.isinf(v) or v < 0:
        return None
    return v


def merge_max(into: dict[str, float], key: str, value: float) -> None:
    """Several series for one node: keep the most loaded reading (the safe side)."""
    old = into.get(key)
    if old is None or value > old:
        into[key] = value


class PrometheusSource:
    """Vector queries against a Prometheus server through prometheus-api-client."""

    def __init__(self, args: MetricsSourceArgs) -> None:
        import requests
        from kubeberth.api.extras import require_extra
        from urllib3.util.retry import Retry

        PrometheusConnect = require_extra("contrib", "the Prometheus metrics source").PrometheusConnect

        self.args = args
        self.name = f"prometheus {args.address}"
        self._pattern = re.compile(args.nodeRegex)
        session = requests.Session()
        headers: dict[str, str] = {}
        if args.bearerTokenFile:
            headers["Authorization"] = f"Bearer {_read_secret(args.bearerTokenFile)}"
        auth = None
        if args.username:
            auth = (args.username, _read_secret(args.passwordFile) if args.passwordFile else "")
        if args.insecureSkipVerify:
            session.verify = False
        elif args.caFile:
            session.verify = args.caFile
        if args.certFile:
            session.cert = (args.certFile, args.keyFile) if args.keyFile else args.certFile
        self._client = PrometheusConnect(
            url=args.address,
            headers=headers or None,
            auth=auth,
            session=session,
            timeout=args.timeout,
            # No retries inside a refresh: the next interval is the retry, so a refresh stays bounded.
            retry=Retry(total=0, raise_on_status=False),
        )

    def query_for(self, metric: str) -> str | None:
        template = self.args.queries.get(metric) or DEFAULT_QUERIES.get(metric)
        if template is None:
            return None
        a = self.args
        return template.format(label=a.nodeLabel, window=a.window, rate=a.rateWindow, step=a.step)

    def node_key(self, labels: dict[str, str]) -> str | None:
        value = labels.get(self.args.nodeLabel)
        if not value:
            return None
        m = self._pattern.match(value)
        if m is None:
            return None
        return m.group(1) if m.groups() else m.group(0)

    def fetch(self, metrics: set[str]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for metric in sorted(metrics):
            query = self.query_for(metric)
            if query is None:
                continue
            values: dict[str, float] = {}
            for sample in self._client.custom_query(query, params={"timeout": f"{int(self.args.timeout * 1000)}ms"}):
                key = self.node_key(sample.get("metric") or {})
                pair = sample.get("value") or (None, None)
                v = clean(pair[1] if len(pair) > 1 else None)
                if key is None or v is None:
                    continue
                if metric in FRACTION_METRICS:
                    v = min(v, 1.0)
                merge_max(values, key, v)
            out[metric] = values
        return out


class MetricsAPISource:
    """metrics.k8s.io (metrics-server): current usage per node; mean and stddev over the window
    are kept here from successive readings, as Trimaran's load-watcher does."""

    def __init__(self, args: MetricsSourceArgs) -> None:
        self.args = args
        self.name = "metrics.k8s.io"
        self._history: dict[str, deque[tuple[float, float, float]]] = {}
        self._api: Any = None

    def _client(self) -> Any:
        if self._api is None:
            from kubernetes import client, config

            if self.args.kubeconfig:
                api_client = config.new_client_from_config(config_file=self.args.kubeconfig)
            else:
                try:
                    config.load_incluster_config()
                    api_client = client.ApiClient()
                except config.ConfigException:
                    api_client = config.new_client_from_config()
            self._api = client.CustomObjectsApi(api_client)
        return self._api

    def fetch(self, metrics: set[str]) -> dict[str, dict[str, float]]:
        body = self._client().list_cluster_custom_object(
            "metrics.k8s.io", "v1beta1", "nodes", _request_timeout=self.args.timeout
        )
        return self.ingest(body, time.time())

    def ingest(self, body: dict[str, Any], now: float) -> dict[str, dict[str, float]]:
        """Fold one NodeMetricsList into the history; return mean/stddev per node over the window."""
        from kubeberth.api.helpers import parse_quantity

        horizon = now - self.args.window_seconds
        for item in body.get("items") or ():
            name = (item.get("metadata") or {}).get("name")
            usage = item.get("usage") or {}
            try:
                cpu = clean(float(parse_quantity(usage.get("cpu", "nan"))))
                mem = clean(float(parse_quantity(usage.get("memory", "nan"))))
            except (ValueError, TypeError):
                continue
            if not name or cpu is None or mem is None:
                continue
            self._history.setdefault(name, deque(maxlen=1024)).append((now, cpu, mem))
        out: dict[str, dict[str, float]] = {m: {} for m in ABSOLUTE_METRICS.values()}
        for name, samples in list(self._history.items()):
            while samples and samples[0][0] < horizon:
                samples.popleft()
            if not samples:
                del self._history[name]
                continue
            for i, (mean_key, std_key) in enumerate((("cpu_cores", "cpu_cores_stddev"),
                                                      ("memory_bytes", "memory_bytes_stddev")), start=1):
                xs = [s[i] for s in samples]
                mean = sum(xs) / len(xs)
                out[mean_key][name] = mean
                out[std_key][name] = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        return out


class SnapshotSource:
    """Fixed values from a YAML/JSON file mapping node name → {metric: value}: try the load-aware
    profile offline with `kubeberth simulate --metrics-snapshot FILE`."""

    def __init__(self, path: str | Path) -> None:
        self.name = f"snapshot {path}"
        self.values = load_snapshot(path)

    def fetch(self, metrics: set[str]) -> dict[str, dict[str, float]]:
        return {m: dict(v) for m, v in self.values.items()}


_parsed: dict[tuple[str, int, int], dict[str, dict[str, float]]] = {}


def load_snapshot(path: str | Path) -> dict[str, dict[str, float]]:
    """Parse a snapshot file (once per file version: plugins validate it when a generation is
    built, so no cycle pays for it); raises ValueError naming the file and field on bad input."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _parsed:
        _parsed[key] = _parse_snapshot(path)
    return _parsed[key]


def _parse_snapshot(path: Path) -> dict[str, dict[str, float]]:
    try:
        doc = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    nodes = doc.get("nodes", doc) if isinstance(doc, dict) else None
    if not isinstance(nodes, dict):
        raise ValueError(f"{path}: expected a mapping of node name to {{metric: value}}")
    out: dict[str, dict[str, float]] = {}
    for node, values in nodes.items():
        if not isinstance(values, dict):
            raise ValueError(f"{path}: {node}: expected a mapping of metric to number")
        for metric, raw in values.items():
            v = clean(raw)
            if v is None:
                raise ValueError(f"{path}: {node}.{metric}: {raw!r} is not a non-negative number")
            if metric in FRACTION_METRICS and v > 1:
                raise ValueError(f"{path}: {node}.{metric}: {raw!r} is a fraction and must be within 0..1")
            out.setdefault(str(metric), {})[str(node)] = v
    return out


def make_source(args: MetricsSourceArgs) -> PrometheusSource | MetricsAPISource | SnapshotSource:
    if args.type == "snapshot":
        if not args.file:
            raise ValueError("metrics.file is required when metrics.type is snapshot")
        return SnapshotSource(args.file)
    if args.type == "metrics-k8s-io":
        return MetricsAPISource(args)
    return PrometheusSource(args)


def _read_secret(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None

"""Optional features and the pip extra that installs each.

The scheduler's own install stays small: the HTML report (plotly), the load-aware contrib plugins'
Prometheus source (prometheus-api-client), the gRPC OTLP exporter (grpcio) and the etcd client of
`--scale-out-store=etcd` (etcd3gw) are extras. A feature
whose extra is missing fails with one line naming it, e.g.
``error: simulate --report needs the 'report' extra: pip install 'kubeberth[report]'`` (exit 2 from the CLI).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import KubeberthError

__all__ = ["EXTRAS", "MissingExtraError", "require_extra"]

# extra -> the top-level module it installs (kept in step with pyproject's optional-dependencies)
EXTRAS: dict[str, str] = {
    "report": "plotly",
    "contrib": "prometheus_api_client",
    "otlp-grpc": "opentelemetry.exporter.otlp.proto.grpc",
    "etcd": "etcd3gw",  # --scale-out-store=etcd
}


class MissingExtraError(KubeberthError):
    """A feature was asked for whose optional dependencies are not installed."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the {extra!r} extra: pip install 'kubeberth[{extra}]'")
        self.feature = feature
        self.extra = extra


def require_extra(extra: str, feature: str, module: str | None = None) -> ModuleType:
    """Import `module` (default: the extra's own module) or raise MissingExtraError for `feature`.

    Only a missing module of that distribution is turned into the extra's message; any other
    import failure (a broken install, a bug) propagates as it is.
    """
    name = module or EXTRAS[extra]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (name == missing or name.startswith(missing + ".")):
            raise MissingExtraError(feature, extra) from None
        raise

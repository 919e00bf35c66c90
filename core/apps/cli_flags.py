"""Flags several `kubeberth` commands share (configuration, logging, tracing, feature gates)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_common_flags(parser: argparse.ArgumentParser) -> None:
    """--config, --plugins-dir, logging, --otlp-endpoint and --allow-insecure-plugins-dir."""
    parser.add_argument("--config", type=Path, help="KubeSchedulerConfiguration file (env KUBEBERTH_CONFIG)")
    parser.add_argument("--plugins-dir", type=Path, help="folder of drop-in plugin files (env KUBEBERTH_PLUGINS_DIR)")
    parser.add_argument(
        "--log-level", help="DEBUG, INFO, WARNING (default), ERROR or CRITICAL (env KUBEBERTH_LOG_LEVEL)"
    )
    add_verbosity_flag(parser)
    parser.add_argument(
        "--log-format", choices=["text", "json"], help="json: one object a line with ts, level, logger, v, msg "
        "(env KUBEBERTH_LOG_FORMAT)"
    )
    parser.add_argument(
        "--otlp-endpoint",
        help="shorthand for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:4318 (all OTEL_* variables apply)",
    )
    parser.add_argument(
        "--allow-insecure-plugins-dir",
        action="store_true",
        default=None,
        help="load a plugins folder or file that group/others can write or another user owns (it is code the "
        "scheduler runs; env KUBEBERTH_ALLOW_INSECURE_PLUGINS_DIR)",
    )


def add_verbosity_flag(parser: argparse.ArgumentParser, hidden: bool = False) -> None:
    """-v N, kube-scheduler's klog verbosity (hidden: accepted but not shown in --help)."""
    parser.add_argument(
        "-v", "--v", type=int, metavar="N", dest="v",
        help=argparse.SUPPRESS if hidden else "kube-scheduler's log verbosity: 0 warnings and errors (default), "
        "1-3 also INFO (each decision), 4+ DEBUG; give it or --log-level",
    )


def add_feature_gates_flag(parser: argparse.ArgumentParser) -> None:
    """--feature-gates NAME=BOOL,..."""
    parser.add_argument(
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="kube-scheduler v1.37.2 feature gates, e.g. GenericWorkload=true; they decide the default profile's "
        "plugins (`kubeberth plugins list` shows which) (env KUBEBERTH_FEATURE_GATES)",
    )

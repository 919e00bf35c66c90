"""`kubeberth shadow start|stop|report --server URL`: a shadow generation on a running scheduler
(docs/shadow.md)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .cli_flags import add_verbosity_flag
from .serving.flags import add_client_flags


def add_shadow_parser(sub: Any) -> argparse.ArgumentParser:
    """The `shadow` subcommand group."""
    shadow = sub.add_parser("shadow", help="try a candidate plugin set on live traffic: it decides beside the live "
                                           "generation and writes nothing")
    ssub = shadow.add_subparsers(dest="shadow_command", required=True)
    start = ssub.add_parser("start", help="build a candidate generation (as a hot reload does) and shadow the live one")
    start.add_argument("--plugins", type=Path, metavar="DIR", default=None,
                       help="the candidate's plugin folder, as the scheduler sees it (default: none)")
    start.add_argument("--config", type=Path, metavar="FILE", default=None,
                       help="the candidate's KubeSchedulerConfiguration, as the scheduler sees it (default: the live one)")
    start.add_argument("--sample", type=float, default=1.0, help="share of pods compared, 0..1 (default 1)")
    start.add_argument("--cpu-budget", type=float, default=0.25,
                       help="most shadow seconds per live cycle second, over the last 10 s (default 0.25; 0: none)")
    stop = ssub.add_parser("stop", help="remove the shadow generation (its report stays)")
    report = ssub.add_parser("report", help="agreement, counts, cost and divergences of the shadow generation")
    for p in (start, stop, report):
        p.add_argument("--server", default=None,
                       help="the scheduler's HTTP address (default http://127.0.0.1:10260, env KUBEBERTH_SERVER)")
        p.add_argument("--json", action="store_true", help="print the report as JSON")
        add_client_flags(p)
        p.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
        p.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
        add_verbosity_flag(p, hidden=True)
    return shadow


def cmd_shadow(args: argparse.Namespace) -> int:
    from .serving.client import DEFAULT_SERVER, ServerAuth
    from .shadow import call_server, render_report

    server = args.server or os.environ.get("KUBEBERTH_SERVER") or DEFAULT_SERVER
    params: dict[str, Any] = {}
    if args.shadow_command == "start":
        params = {"plugins": args.plugins.resolve() if args.plugins else None,
                  "config": args.config.resolve() if args.config else None,
                  "sample": args.sample, "cpu_budget": args.cpu_budget}
    report = call_server(server, args.shadow_command, params, auth=ServerAuth.from_args(args))
    print(json.dumps(report, indent=2) if args.json else render_report(report))
    return 0

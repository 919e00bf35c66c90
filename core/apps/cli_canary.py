"""`kubeberth canary start|report|promote|stop --server URL`: a candidate generation schedules a
share of the pods on a running scheduler, promoted or rolled back on thresholds (docs/shadow.md)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .cli_flags import add_verbosity_flag
from .serving.flags import add_client_flags


def add_canary_parser(sub: Any) -> argparse.ArgumentParser:
    """The `canary` subcommand group."""
    canary = sub.add_parser("canary", help="let a candidate plugin set decide and bind a share of the pods; promote or "
                                           "roll it back on thresholds")
    csub = canary.add_subparsers(dest="canary_command", required=True)
    start = csub.add_parser("start", help="build a candidate generation (as a hot reload does) and give it a share of "
                                          "the pods")
    start.add_argument("--plugins", type=Path, metavar="DIR", default=None,
                       help="the candidate's plugin folder, as the scheduler sees it")
    start.add_argument("--config", type=Path, metavar="FILE", default=None,
                       help="the candidate's KubeSchedulerConfiguration, as the scheduler sees it (default: the live one)")
    pods = start.add_argument_group("which pods (every one given must hold)")
    pods.add_argument("--share", default=None, metavar="PCT",
                      help="a share of the pods by a hash of their uid, e.g. 10%% or 0.1")
    pods.add_argument("--namespace", action="append", default=None, metavar="NS",
                      help="pods of this namespace (repeat for more)")
    pods.add_argument("--selector", "-l", default=None, metavar="SELECTOR",
                      help="pods whose labels match, as kubectl -l: k=v,k2!=v,k3 in (a,b)")
    judge = start.add_argument_group("thresholds")
    judge.add_argument("--min-pods", type=int, default=None, help="canary attempts before it is judged (default 50)")
    judge.add_argument("--min-seconds", type=float, default=None, help="seconds before it is promoted (default 60)")
    judge.add_argument("--max-error-rate", type=float, default=None,
                       help="most plugin errors per canary attempt (default 0.01)")
    judge.add_argument("--unschedulable-margin", type=float, default=None,
                       help="most unschedulable rate above the live side's (default 0.05)")
    judge.add_argument("--min-agreement", type=float, default=None,
                       help="least agreement with the other generation's decisions (default 0: not checked)")
    judge.add_argument("--max-cost-ratio", type=float, default=None,
                       help="most cycle time per pod against the live side's (default 0: not checked)")
    judge.add_argument("--promote", choices=("auto", "manual"), default=None,
                       help="auto (default): promote once every threshold is met; manual: kubeberth canary promote")
    judge.add_argument("--compare", choices=("canary", "live", "none"), default=None,
                       help="whose pods the other generation re-decides, read-only, for the agreement (default canary)")
    judge.add_argument("--sample", type=float, default=None, help="share of those pods compared (default 1)")
    judge.add_argument("--cpu-budget", type=float, default=None,
                       help="most comparison seconds per cycle second (default 0.25; 0: none)")
    report = csub.add_parser("report", help="both sides' figures, the steps and the divergences of the canary")
    promote = csub.add_parser("promote", help="make the candidate the live generation now")
    stop = csub.add_parser("stop", help="end the canary: every pod back to the live generation")
    for p in (start, report, promote, stop):
        p.add_argument("--server", default=None,
                       help="the scheduler's HTTP address (default http://127.0.0.1:10260, env KUBEBERTH_SERVER)")
        p.add_argument("--json", action="store_true", help="print the report as JSON")
        add_client_flags(p)
        p.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
        p.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
        add_verbosity_flag(p, hidden=True)
    return canary


THRESHOLDS = ("min_pods", "min_seconds", "max_error_rate", "unschedulable_margin", "min_agreement", "max_cost_ratio",
              "promote", "compare", "sample", "cpu_budget")


def cmd_canary(args: argparse.Namespace) -> int:
    from .canary import call_canary, render_report
    from .serving.client import DEFAULT_SERVER, ServerAuth

    server = args.server or os.environ.get("KUBEBERTH_SERVER") or DEFAULT_SERVER
    params: dict[str, Any] = {}
    if args.canary_command == "start":
        params = {"plugins": args.plugins.resolve() if args.plugins else None,
                  "config": args.config.resolve() if args.config else None,
                  "share": args.share, "namespace": ",".join(args.namespace) if args.namespace else None,
                  "selector": args.selector, **{k: getattr(args, k) for k in THRESHOLDS}}
    report = call_canary(server, args.canary_command, params, auth=ServerAuth.from_args(args))
    print(json.dumps(report, indent=2) if args.json else render_report(report))
    return 0

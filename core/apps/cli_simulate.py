"""`kubeberth simulate`: schedule a generated or given cluster on the embedded backend (flags and command)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import KubeberthError
from .cli_flags import add_common_flags, add_feature_gates_flag

if TYPE_CHECKING:  # imported when the command runs
    from ..runtime.config import Settings


def add_simulate_parser(sub: Any) -> argparse.ArgumentParser:
    """The `simulate` subcommand and its flags."""
    sim = sub.add_parser("simulate", help="schedule a generated or given cluster on the embedded backend")
    add_common_flags(sim)
    sim.add_argument("--nodes", type=int, default=100, help="generated cluster: number of nodes")
    sim.add_argument("--pods", type=int, default=1000, help="generated cluster: number of pods")
    sim.add_argument("--seed", type=int, help="seed for the generated cluster and tie-breaking")
    sim.add_argument("--cluster", type=Path, help="manifests (YAML stream or List) instead of a generated cluster")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument(
        "--placements", action="store_true", help="list every placed pod's node (a table, or `placements` in --json)"
    )
    sim.add_argument("--explain", metavar="NAMESPACE/POD", help="tell why one pod landed where it did, or is Pending")
    sim.add_argument(
        "--fail-on-unschedulable",
        action="store_true",
        help="exit 3 if any pod is unschedulable (exit codes: 0 ok, 1 a pod ended in Error, 2 bad input)",
    )
    sim.add_argument(
        "--metrics-snapshot",
        type=Path,
        metavar="FILE",
        help="node metrics for load-aware plugins from FILE (node name -> {cpu: 0.9, memory: 0.5, ...}) "
        "instead of their configured source (env KUBEBERTH_METRICS_SNAPSHOT)",
    )
    sim.add_argument(
        "--scheduler-names",
        metavar="NAME[,NAME...]",
        help="schedule pods with these schedulerNames (default: the profiles and default-scheduler);"
        " other pods stay Pending and are reported as pending_other",
    )
    sim.add_argument(
        "--compare",
        type=Path,
        metavar="B.yaml",
        help="also run the same cluster under this configuration and show what changes",
    )
    sim.add_argument(
        "--compare-plugins-dir", type=Path, metavar="DIR", help="the compared run's plugin folder (default: --plugins-dir)"
    )
    sim.add_argument("--report", type=Path, metavar="report.html", help="write a self-contained HTML report")
    add_feature_gates_flag(sim)
    return sim


def cmd_simulate(args: argparse.Namespace, settings: Settings) -> int:
    from ..observability import Observability
    from .simulate import progress_printer, simulate

    _check_inputs(args)
    generation, compare_with = _generations(args, settings)
    if args.explain and compare_with is not None:
        raise KubeberthError("--explain and --compare: explain one run at a time (drop --compare)")
    seed = settings.seed if settings.seed is not None else 0
    objects = _cluster_objects(args, seed)
    names = [n.strip() for n in (args.scheduler_names or "").split(",") if n.strip()] or None
    show = progress_printer() if (not args.json and sys.stderr.isatty()) else None
    keep = bool(args.explain or args.report)

    def run(gen: Any) -> Any:
        obs = Observability.from_env(otlp_endpoint=settings.otlp_endpoint, metrics=False, decision_records=0)
        try:
            return simulate(gen, objects, seed=seed, progress=show, attach=obs.attach, scheduler_names=names, keep_history=keep)
        finally:
            obs.shutdown()

    result = run(generation)
    if args.explain:
        _print_story(result, args)
        return _exit(result, args)
    other = run(compare_with) if compare_with is not None else None
    diff = _comparison(result, other, args) if other is not None else None
    if args.report:
        from .report import write_report

        write_report(args.report, result, other, diff, title=str(args.cluster or f"generated {args.nodes} nodes, {args.pods} pods"))
    if args.json:
        _print_json(result, other, diff, args)
    else:
        _print_text(result, other, diff, args)
    return _exit(result, args)


def _check_inputs(args: argparse.Namespace) -> None:
    """Refuse what would fail after the run (a missing extra, a missing file) before it starts."""
    if args.report:  # before the run, not after it
        from ..api.extras import require_extra

        require_extra("report", "simulate --report")
    if args.metrics_snapshot:
        if not args.metrics_snapshot.is_file():
            raise KubeberthError(f"--metrics-snapshot: {args.metrics_snapshot}: no such file")
        # Read by the node metrics provider of load-aware plugins (kubeberth.contrib).
        os.environ["KUBEBERTH_METRICS_SNAPSHOT"] = str(args.metrics_snapshot)


def _generations(args: argparse.Namespace, settings: Settings) -> tuple[Any, Any]:
    """The configuration's generation, and the compared one with --compare or --compare-plugins-dir."""
    from ..runtime.generation import build_generation

    gates = settings.gates()
    generation = build_generation(
        settings.config,
        settings.plugins_dir,
        allow_insecure_plugins_dir=settings.allow_insecure_plugins_dir,
        feature_gates=gates,
    )
    compare_with = None
    if args.compare is not None or args.compare_plugins_dir is not None:
        compare_with = build_generation(
            args.compare or settings.config,
            args.compare_plugins_dir or settings.plugins_dir,
            allow_insecure_plugins_dir=settings.allow_insecure_plugins_dir,
            feature_gates=gates,
        )
    return generation, compare_with


def _cluster_objects(args: argparse.Namespace, seed: int) -> list[Any]:
    """--cluster's manifests, or a generated cluster of --nodes and --pods."""
    from .simulate import generate_cluster, load_manifests

    if args.cluster:
        return load_manifests(args.cluster)
    if args.nodes < 0 or args.pods < 0:
        raise KubeberthError("--nodes and --pods must be >= 0")
    return generate_cluster(args.nodes, args.pods, seed)


def _print_story(result: Any, args: argparse.Namespace) -> None:
    """--explain: one pod's story, as text or (--json) its last decision record with the earlier attempts."""
    from ..observability.explain import render_story
    from .simulate import pod_story

    story = pod_story(result, args.explain)
    if args.json:
        from ..observability.decisions import EARLIER_ATTEMPTS_KEPT, attempt_summary

        records = result.history.get(args.explain, [])
        last = story["cycles"][-1] if story["cycles"] else {"pod": story["pod"]}
        earlier = [attempt_summary(r) for r in records[:-1]][-EARLIER_ATTEMPTS_KEPT:]
        print(json.dumps({**last, "earlier_attempts": earlier, "state": story["state"],
                          "detail": story.get("detail", ""), "cycles": story["cycles"]}, indent=2))
    else:
        print(render_story(story))


def _comparison(result: Any, other: Any, args: argparse.Namespace) -> Any:
    """--compare: what changes between the two runs, labelled by configuration (and plugins folder)."""
    from .whatif import compare

    labels = (str(args.config or "default configuration"), str(args.compare or args.config or "default configuration"))
    if args.compare_plugins_dir is not None:
        labels = (f"{labels[0]} + {args.plugins_dir or 'no plugins dir'}", f"{labels[1]} + {args.compare_plugins_dir}")
    return compare(result, other, labels)


def _print_json(result: Any, other: Any, diff: Any, args: argparse.Namespace) -> None:
    out: dict[str, Any] = dict(result.summary)
    if args.placements:
        out["placements"] = result.placements
    if other is not None:
        after = dict(other.summary)
        if args.placements:
            after["placements"] = other.placements
        out = {"before": out, "after": after, "comparison": diff}
    print(json.dumps(out))


def _print_text(result: Any, other: Any, diff: Any, args: argparse.Namespace) -> None:
    from .simulate import format_placements, format_summary

    print(format_summary(result.summary))
    if diff is not None:
        from .whatif import format_comparison

        print(format_comparison(diff))
    if args.placements:
        print(format_placements(result.placements))
        if other is not None:
            print(f"placements under {args.compare or args.compare_plugins_dir}:")
            print(format_placements(other.placements))
    if args.report:
        print(f"report written to {args.report}")


def _exit(result: Any, args: argparse.Namespace) -> int:
    """simulate's exit code (README "Simulate"), with its one-line reason on stderr."""
    code, reason = result.exit_status(args.fail_on_unschedulable)
    if code:
        sys.stdout.flush()
        print(f"error: {reason}", file=sys.stderr)
    return code

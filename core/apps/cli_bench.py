"""`kubeberth bench`: throughput on generated clusters and scheduler_perf scenarios (flags and command)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import KubeberthError
from .cli_flags import add_common_flags, add_feature_gates_flag

if TYPE_CHECKING:  # imported when the command runs
    from ..runtime.config import Settings


def add_bench_parser(sub: Any) -> argparse.ArgumentParser:
    """The `bench` subcommand and its flags."""
    bench = sub.add_parser("bench", help="measure throughput on generated clusters")
    add_common_flags(bench)
    bench.add_argument("--size", action="append", metavar="NODESxPODS", help="e.g. 5000x10000 (repeatable)")
    bench.add_argument("--seed", type=int, default=1)
    add_feature_gates_flag(bench)
    bench.add_argument("--write", type=Path, metavar="FILE", help="append results to FILE (docs/benchmarks.md)")
    bench.add_argument(
        "--metrics", action="store_true", help="record kube-scheduler's metrics while measuring (tracing: OTEL_* variables)"
    )
    bench.add_argument("--label", default="", help="a note for the results table, e.g. 'tracing 10%%'")
    bench.add_argument(
        "--observability",
        action="store_true",
        help="measure the cost of tracing (10%% sampled, to OTEL_EXPORTER_OTLP_ENDPOINT) and metrics against off",
    )
    bench.add_argument("--rounds", type=int, default=5, help="--observability: interleaved runs per configuration")
    bench.add_argument(
        "--scenario",
        action="append",
        metavar="NAME",
        help="a kube-scheduler scheduler_perf workload (repeatable; `all` for every one): "
        "SchedulingBasic, SchedulingNodeAffinity, SchedulingPodAffinity, SchedulingPodAntiAffinity, "
        "TopologySpreading, PreemptionBasic, Unschedulable, SchedulingWithMixedChurn, SchedulingMixed",
    )
    bench.add_argument("--nodes", type=int, help="--scenario: number of nodes (default: the scenario's)")
    bench.add_argument("--pods", type=int, help="--scenario: measured pods (default: the scenario's)")
    bench.add_argument("--init-pods", type=int, help="--scenario: pods bound before timing (default: the scenario's)")
    bench.add_argument(
        "--profile",
        action="append",
        choices=["default", "naive"],
        help="--scenario: `naive` runs the same plugins one node at a time (filter_node/score_node path) "
        "as a baseline; repeat for both in one table (default: default)",
    )
    bench.add_argument("--json", action="store_true", help="--scenario: print one JSON object per run")
    bench.add_argument(
        "--record", action="store_true", help="--scenario: append the results to docs/benchmarks.md"
    )
    bench.add_argument(
        "--extender",
        action="store_true",
        help="measure `kubeberth extender`'s filter+prioritize round trip per pod (NODESxPODS: pods = requests)",
    )
    return bench


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from ..runtime.generation import build_generation
    from .bench import DEFAULT_SIZES, append_results, render_markdown, run_bench

    sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES
    if args.size:
        try:
            sizes = tuple((int(n), int(p)) for n, p in (s.lower().split("x", 1) for s in args.size))
        except ValueError:
            raise KubeberthError(f"--size: expected NODESxPODS like 5000x10000, got {args.size}") from None
    generation = build_generation(settings.config, settings.plugins_dir, feature_gates=settings.gates())
    if args.scenario:
        return _bench_scenarios(args, generation)
    if args.extender:
        from .extender_bench import render_extender_bench, run_extender_bench

        rows = [r for nodes, pods in (sizes if args.size else ((5000, 1000),))
                for r in run_extender_bench(generation, nodes, pods, args.seed)]
        markdown = render_extender_bench(rows, generation, args.label)
        print(markdown)
        if args.write:
            append_results(args.write, markdown)
        return 0
    if args.observability:
        from .bench import render_overhead, run_overhead

        markdown = render_overhead(run_overhead(generation, sizes, args.seed, args.rounds, settings.otlp_endpoint))
        print(markdown)
        if args.write:
            append_results(args.write, markdown)
        return 0
    markdown = render_markdown(
        run_bench(generation, sizes, args.seed, metrics=args.metrics, otlp_endpoint=settings.otlp_endpoint), args.label
    )
    print(markdown)
    if args.write:
        append_results(args.write, markdown)
    return 0


def _bench_scenarios(args: argparse.Namespace, generation: Any) -> int:
    from .bench import append_results
    from .scenario_bench import SCENARIOS, render_scenarios, reproducing_command, run_scenario
    from .simulate import progress_printer

    names = list(SCENARIOS) if "all" in args.scenario else args.scenario
    for name in names:
        if name not in SCENARIOS:
            raise KubeberthError(f"--scenario: unknown scenario {name!r}; available: {', '.join(SCENARIOS)}, all")
    for flag in ("nodes", "pods", "init_pods"):
        value = getattr(args, flag)
        if value is not None and (value < 0 or (flag == "nodes" and value == 0)):
            raise KubeberthError(f"--{flag.replace('_', '-')}: expected a positive number, got {value}")
    show = None if args.json or not sys.stderr.isatty() else progress_printer(sys.stderr)
    results = []
    for name in names:
        for profile in args.profile or ["default"]:
            r = run_scenario(
                generation, SCENARIOS[name], args.nodes, args.pods, args.init_pods, args.seed, profile, show
            )
            results.append(r)
            if args.json:
                print(json.dumps(r), flush=True)
    markdown = render_scenarios(results, reproducing_command(args.argv))
    if not args.json:
        print(markdown)
    if args.record:
        append_results(Path(args.write or "docs/benchmarks.md"), markdown)
    return 0

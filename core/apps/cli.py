"""The `kubeberth` command: simulate, bench, plugins list, run, extender, explain."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .. import __version__
from ..errors import KubeberthError
from .serving.flags import add_client_flags, add_serving_flags

if TYPE_CHECKING:  # imported when a command runs: Ctrl-C right after start lands in main()
    from ..runtime.config import Settings

# kube-scheduler's klog verbosity (-v N) -> Python logging: 0 is the default (warnings and errors),
# 1-3 add INFO (kube-scheduler logs each pod's decision at V(2)), 4 and up DEBUG (klog's debug range).
VERBOSITY_INFO = 1
VERBOSITY_DEBUG = 4


def verbosity_level(v: int) -> str:
    """The logging level that `-v N` stands for."""
    return "DEBUG" if v >= VERBOSITY_DEBUG else "INFO" if v >= VERBOSITY_INFO else "WARNING"


def _record_verbosity(levelno: int) -> int:
    """The lowest -v that shows a record of this level (kube's JSON `v`)."""
    return VERBOSITY_DEBUG if levelno < logging.INFO else VERBOSITY_INFO if levelno < logging.WARNING else 0


def _setup_logging(level: str, fmt: str) -> None:
    if fmt == "json":
        formatter: logging.Formatter = _JsonFormatter()
    else:
        formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


class _JsonFormatter(logging.Formatter):
    """One JSON object per line with Kubernetes' structured JSON log names where they exist (ts:
    seconds since the epoch as a float, v: verbosity, msg, err) plus level and logger; errors carry
    no v, as klog's ErrorS. Exceptions: err (the message) and exc (the traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": record.created, "level": record.levelname, "logger": record.name}
        if record.levelno < logging.ERROR:
            out["v"] = _record_verbosity(record.levelno)
        out["msg"] = record.getMessage()
        decision = getattr(record, "decision", None)  # DecisionLog's structured fields
        if decision:
            out.update(decision)
        if record.exc_info:
            exc = record.exc_info[1]
            out["err"] = f"{type(exc).__name__}: {exc}" if exc is not None else ""
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="KubeSchedulerConfiguration file (env KUBEBERTH_CONFIG)")
    parser.add_argument("--plugins-dir", type=Path, help="folder of drop-in plugin files (env KUBEBERTH_PLUGINS_DIR)")
    parser.add_argument(
        "--log-level", help="DEBUG, INFO, WARNING (default), ERROR or CRITICAL (env KUBEBERTH_LOG_LEVEL)"
    )
    _verbosity(parser)
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


class _Parser(argparse.ArgumentParser):
    """argparse with kubeberth's error form: one line on stderr, exit 2 (subcommands inherit it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def _verbosity(parser: argparse.ArgumentParser, hidden: bool = False) -> None:
    parser.add_argument(
        "-v", "--v", type=int, metavar="N", dest="v",
        help=argparse.SUPPRESS if hidden else "kube-scheduler's log verbosity: 0 warnings and errors (default), "
        "1-3 also INFO (each decision), 4+ DEBUG; give it or --log-level",
    )


def _feature_gates(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="kube-scheduler v1.37.2 feature gates, e.g. GenericWorkload=true; they decide the default profile's "
        "plugins (`kubeberth plugins list` shows which) (env KUBEBERTH_FEATURE_GATES)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kubeberth", description=__doc__)
    parser.add_argument("--version", action="version", version=f"kubeberth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="schedule a generated or given cluster on the embedded backend")
    _common(sim)
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
    _feature_gates(sim)

    bench = sub.add_parser("bench", help="measure throughput on generated clusters")
    _common(bench)
    bench.add_argument("--size", action="append", metavar="NODESxPODS", help="e.g. 5000x10000 (repeatable)")
    bench.add_argument("--seed", type=int, default=1)
    _feature_gates(bench)
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
        "TopologySpreading, PreemptionBasic, Unschedulable, SchedulingWithMixedChurn",
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

    plugins = sub.add_parser("plugins", help="inspect plugins")
    psub = plugins.add_subparsers(dest="plugins_command", required=True)
    plist = psub.add_parser("list", help="list available plugins, their source, hooks and version")
    _common(plist)
    plist.add_argument("--json", action="store_true")
    _feature_gates(plist)
    plist.add_argument(
        "--server", default=None, help="show a running scheduler's generation instead, e.g. https://127.0.0.1:10259"
    )
    add_client_flags(plist)

    run = sub.add_parser("run", help="schedule pods of a real cluster")
    _common(run)
    run.add_argument("--kubeconfig", help="kubeconfig path (default: in-cluster, then ~/.kube/config)")
    run.add_argument(
        "--healthz-bind-address", default=None, metavar="HOST:PORT",
        help="plain HTTP, no authentication, loopback only: every route (default 127.0.0.1:10260 with --embedded, else off)",
    )
    add_serving_flags(run)
    run.add_argument("--leader-elect", default=None, action=argparse.BooleanOptionalAction)
    run.add_argument("--leader-elect-resource-name", metavar="NAME",
                     help="the leader election Lease's name (overrides leaderElection.resourceName)")
    run.add_argument("--leader-elect-resource-namespace", metavar="NAMESPACE",
                     help="the leader election Lease's namespace (overrides leaderElection.resourceNamespace), "
                     "e.g. the pod's own namespace from the downward API")
    run.add_argument("--embedded", action="store_true", help="schedule an embedded in-memory cluster instead")
    run.add_argument("--nodes", type=int, help="--embedded: generated cluster of N nodes (default 100)")
    run.add_argument("--cluster", type=Path, help="--embedded: manifests (YAML stream or List) to start from")
    run.add_argument("--pods-per-second", type=float, help="--embedded: create pods at this rate")
    run.add_argument("--pod-lifetime", type=float, help="--embedded: seconds a bound pod runs before it completes (30)")
    run.add_argument("--seed", type=int, help="--embedded: seed for the generated cluster, pods and tie-breaking")
    run.add_argument(
        "--scheduler-names",
        metavar="NAME[,NAME...]",
        help="--embedded: schedule pods with these schedulerNames, as simulate does (default: the profiles and "
        "default-scheduler); the start says how many pending pods of other schedulers stay Pending",
    )
    _feature_gates(run)

    ext = sub.add_parser("extender", help="serve a profile's filter and score plugins as a kube-scheduler extender")
    _common(ext)
    ext.add_argument("--kubeconfig", help="kubeconfig path (default: in-cluster, then ~/.kube/config)")
    ext.add_argument("--bind-address", default=None,
                     help="address:port of the extender API, /healthz, /readyz and /metrics (default 127.0.0.1:10262)")
    ext.add_argument("--profile", help="the profile whose plugins answer (default: the first)")
    ext.add_argument("--bind", action="store_true", help="also serve the bind verb (Binding subresource)")
    _feature_gates(ext)

    new = sub.add_parser("new-plugin", help="create a pip-installable plugin package with a passing test")
    new.add_argument("name", metavar="NAME", help="the plugin's name, e.g. TeamNodes or team-nodes")
    new.add_argument("--dir", type=Path, metavar="PATH", help="folder to create (default ./kubeberth-<name>)")
    new.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
    new.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
    _verbosity(new, hidden=True)

    explain = sub.add_parser("explain", help="tell the story of a pod's last scheduling decision from a running scheduler")
    explain.add_argument("pod", metavar="NAMESPACE/POD")
    explain.add_argument(
        "--server", default=None, help="the scheduler's HTTP address (default http://127.0.0.1:10260, env KUBEBERTH_SERVER)"
    )
    explain.add_argument("--json", action="store_true", help="print the decision record as JSON")
    add_client_flags(explain)
    explain.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
    explain.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
    _verbosity(explain, hidden=True)
    return parser


def settings_from_args(args: argparse.Namespace | Any) -> Settings:
    """The KUBEBERTH_* settings with the command's flags over them; -v N stands for --log-level
    (verbosity_level) and the two together are refused. Bad values: one-line errors (exit 2)."""
    v, level = getattr(args, "v", None), getattr(args, "log_level", None)
    if v is not None:
        if level is not None:
            raise KubeberthError(f"-v={v} and --log-level={level}: give one of them (-v {v} means --log-level "
                                 f"{verbosity_level(v)})")
        if v < 0:
            raise KubeberthError(f"-v={v}: expected a verbosity of 0 or more")
    flags = {
        "config": "--config", "plugins_dir": "--plugins-dir", "log_level": "--log-level", "log_format": "--log-format",
        "seed": "--seed", "otlp_endpoint": "--otlp-endpoint", "allow_insecure_plugins_dir": "--allow-insecure-plugins-dir",
        "feature_gates": "--feature-gates",
    }
    given = {name: (flag, getattr(args, name, None)) for name, flag in flags.items()}
    if v is not None:
        given["log_level"] = ("-v", verbosity_level(v))
    from ..runtime.config import Settings

    return Settings.load({name: fv for name, fv in given.items() if fv[1] is not None})


def cmd_simulate(args: argparse.Namespace, settings: Settings) -> int:
    from ..observability import Observability
    from ..runtime.generation import build_generation
    from .simulate import (
        format_placements,
        format_summary,
        generate_cluster,
        load_manifests,
        progress_printer,
        simulate,
    )

    if args.report:  # before the run, not after it
        from ..api.extras import require_extra

        require_extra("report", "simulate --report")
    if args.metrics_snapshot:
        if not args.metrics_snapshot.is_file():
            raise KubeberthError(f"--metrics-snapshot: {args.metrics_snapshot}: no such file")
        # Read by the node metrics provider of load-aware plugins (kubeberth.contrib).
        os.environ["KUBEBERTH_METRICS_SNAPSHOT"] = str(args.metrics_snapshot)
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
    if args.explain and compare_with is not None:
        raise KubeberthError("--explain and --compare: explain one run at a time (drop --compare)")
    seed = settings.seed if settings.seed is not None else 0
    if args.cluster:
        objects = load_manifests(args.cluster)
    else:
        if args.nodes < 0 or args.pods < 0:
            raise KubeberthError("--nodes and --pods must be >= 0")
        objects = generate_cluster(args.nodes, args.pods, seed)
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
        return _exit(result, args)
    other = run(compare_with) if compare_with is not None else None
    diff = None
    if other is not None:
        from .whatif import compare, format_comparison

        labels = (str(args.config or "default configuration"), str(args.compare or args.config or "default configuration"))
        if args.compare_plugins_dir is not None:
            labels = (f"{labels[0]} + {args.plugins_dir or 'no plugins dir'}", f"{labels[1]} + {args.compare_plugins_dir}")
        diff = compare(result, other, labels)
    if args.report:
        from .report import write_report

        write_report(args.report, result, other, diff, title=str(args.cluster or f"generated {args.nodes} nodes, {args.pods} pods"))
    if args.json:
        out: dict[str, Any] = dict(result.summary)
        if args.placements:
            out["placements"] = result.placements
        if other is not None:
            after = dict(other.summary)
            if args.placements:
                after["placements"] = other.placements
            out = {"before": out, "after": after, "comparison": diff}
        print(json.dumps(out))
        return _exit(result, args)
    print(format_summary(result.summary))
    if diff is not None:
        print(format_comparison(diff))
    if args.placements:
        print(format_placements(result.placements))
        if other is not None:
            print(f"placements under {args.compare or args.compare_plugins_dir}:")
            print(format_placements(other.placements))
    if args.report:
        print(f"report written to {args.report}")
    return _exit(result, args)


def _exit(result: Any, args: argparse.Namespace) -> int:
    """simulate's exit code (README "Simulate"), with its one-line reason on stderr."""
    code, reason = result.exit_status(args.fail_on_unschedulable)
    if code:
        sys.stdout.flush()
        print(f"error: {reason}", file=sys.stderr)
    return code


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


def cmd_plugins_list(args: argparse.Namespace, settings: Settings) -> int:
    from ..runtime.plugins import discover

    if args.server:
        from .admin import fetch_generation, render_generation
        from .serving.client import ServerAuth

        status = fetch_generation(args.server, auth=ServerAuth.from_args(args))
        print(json.dumps(status, indent=2) if args.json else render_generation(status))
        return 0
    from ..runtime.config import default_profile_status

    registry = discover(settings.plugins_dir, allow_insecure_plugins_dir=settings.allow_insecure_plugins_dir)
    status = default_profile_status(settings.gates())
    rows = [{**spec.as_dict(), "default_profile": status.get(spec.name, "-")} for spec in registry.values()]
    # Default-profile plugins this installation does not have (yet) are listed too.
    rows += [
        {"name": n, "source": "(not installed)", "version": "-", "hooks": [], "builtin": False, "default_profile": s}
        for n, s in status.items()
        if n not in registry
    ]
    rows.sort(key=lambda r: r["name"])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max((len(r["name"]) for r in rows), default=4)
    swidth = max((len(r["source"]) for r in rows), default=6)
    dwidth = max((len(r["default_profile"]) for r in rows), default=15)
    print(f"{'NAME':<{width}}  {'SOURCE':<{swidth}}  {'VERSION':<10}  {'DEFAULT-PROFILE':<{dwidth}}  HOOKS")
    for r in rows:
        print(
            f"{r['name']:<{width}}  {r['source']:<{swidth}}  {r['version']:<10}  "
            f"{r['default_profile']:<{dwidth}}  {', '.join(r['hooks'])}".rstrip()
        )
    return 0


def cmd_new_plugin(args: argparse.Namespace) -> int:
    from .newplugin import PluginNames, create

    names = PluginNames.parse(args.name)
    target = create(args.name, args.dir)
    print(f"created {target}/ with plugin {names.plugin} (entry point in pyproject.toml, test in tests/)")
    print("next:")
    print(f"  cd {target} && pip install -e '.[test]' && pytest")
    print("  kubeberth simulate --config scheduler-config.yaml --cluster cluster.yaml --json --placements")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    import os

    from ..observability.explain import DEFAULT_SERVER, NoDecision, fetch_decision, render
    from .serving.client import ServerAuth

    server = args.server or os.environ.get("KUBEBERTH_SERVER") or DEFAULT_SERVER
    try:
        record = fetch_decision(args.pod, server, auth=ServerAuth.from_args(args))
    except NoDecision as missing:
        if not missing.pod_exists:
            raise  # error: ..., exit 2
        # No record, but the pod is there: where it stands is the answer (one line, exit 0).
        print(json.dumps(missing.answer, indent=2) if args.json else missing.answer["message"])
        return 0
    print(json.dumps(record, indent=2) if args.json else render(record))
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    _setup_logging(settings.log_level, settings.log_format)
    settings.gates()  # a bad --feature-gates is one line and exit 2 before anything starts
    if args.command in ("simulate", "run", "extender") or (args.command == "bench" and (args.observability or args.metrics)):
        from ..observability.otel import TracingConfig

        TracingConfig.from_env(otlp_endpoint=settings.otlp_endpoint)  # a bad OTEL_* value: exit 2 now
    if args.command == "simulate":
        return cmd_simulate(args, settings)
    if args.command == "bench":
        return cmd_bench(args, settings)
    if args.command == "plugins":
        return cmd_plugins_list(args, settings)
    if args.command == "explain":
        return cmd_explain(args)
    if args.command == "new-plugin":
        return cmd_new_plugin(args)
    if args.command == "run":
        from .runner import run_main

        if args.scheduler_names and not args.embedded:
            raise KubeberthError("--scheduler-names: only with --embedded (on a cluster, kubeberth schedules the pods "
                                 "of its profiles' schedulerNames; default-scheduler's are kube-scheduler's)")

        return run_main(args)
    from .extender import extender_main

    return extender_main(args)


# Exit codes of every command: 0 ok, 1 a pod ended in Error (simulate), 2 bad input (a flag, an
# environment variable, a file), 3 unschedulable pods with --fail-on-unschedulable, 130 Ctrl-C.
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command it interrupted


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the reproducing command in records
    try:
        return _dispatch(args)
    except KubeberthError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        # `run` handles SIGINT as SIGTERM once it runs; before that, and in every other command,
        # Ctrl-C ends the command here: one line, no traceback, and a second Ctrl-C ends it at once.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        print(f"interrupted: kubeberth {args.command} stopped", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())

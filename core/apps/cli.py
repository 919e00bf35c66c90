"""The `kubeberth` command: simulate, bench, plugins list, run, extender, explain."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from .. import __version__
from ..errors import KubeberthError
from .cli_bench import add_bench_parser, cmd_bench
from .cli_canary import add_canary_parser, cmd_canary
from .cli_serve import add_extender_parser, add_run_parser
from .cli_shadow import add_shadow_parser, cmd_shadow
from .cli_simulate import add_simulate_parser, cmd_simulate
from .cli_tools import (
    add_explain_parser,
    add_new_plugin_parser,
    add_plugins_parser,
    cmd_explain,
    cmd_new_plugin,
    cmd_plugins_list,
)

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


class _Parser(argparse.ArgumentParser):
    """argparse with kubeberth's error form: one line on stderr, exit 2 (subcommands inherit it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kubeberth", description=__doc__)
    parser.add_argument("--version", action="version", version=f"kubeberth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_simulate_parser(sub)
    add_bench_parser(sub)
    add_plugins_parser(sub)
    add_run_parser(sub)
    add_extender_parser(sub)
    add_new_plugin_parser(sub)
    add_explain_parser(sub)
    add_shadow_parser(sub)
    add_canary_parser(sub)
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
        "feature_gates": "--feature-gates", "replicas_mode": "--replicas-mode",
        "scale_out_store": "--scale-out-store", "scale_out_etcd_endpoints": "--scale-out-etcd-endpoints",
        "scale_out_etcd_prefix": "--scale-out-etcd-prefix", "scale_out_etcd_cafile": "--scale-out-etcd-cafile",
        "scale_out_etcd_certfile": "--scale-out-etcd-certfile", "scale_out_etcd_keyfile": "--scale-out-etcd-keyfile",
    }
    given = {name: (flag, getattr(args, name, None)) for name, flag in flags.items()}
    if v is not None:
        given["log_level"] = ("-v", verbosity_level(v))
    from ..runtime.config import Settings

    return Settings.load({name: fv for name, fv in given.items() if fv[1] is not None})


def _dispatch(args: argparse.Namespace) -> int:
    if args.command != "run":
        return _dispatch_command(args)
    from ..scheduling.collector import PROCESS_START

    PROCESS_START.begin()  # until the scheduler's own pause has begun (Runner.start)
    try:
        return _dispatch_command(args)
    finally:
        PROCESS_START.end()  # a run that ended before its scheduler started


def _dispatch_command(args: argparse.Namespace) -> int:
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
    if args.command == "shadow":
        return cmd_shadow(args)
    if args.command == "canary":
        return cmd_canary(args)
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

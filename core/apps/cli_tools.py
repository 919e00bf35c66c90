"""`kubeberth plugins list`, `kubeberth new-plugin` and `kubeberth explain` (flags and commands)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_flags import add_common_flags, add_feature_gates_flag, add_verbosity_flag
from .serving.flags import add_client_flags

if TYPE_CHECKING:  # imported when the command runs
    from ..runtime.config import Settings


def add_plugins_parser(sub: Any) -> argparse.ArgumentParser:
    """The `plugins` subcommand group (`plugins list`)."""
    plugins = sub.add_parser("plugins", help="inspect plugins")
    psub = plugins.add_subparsers(dest="plugins_command", required=True)
    plist = psub.add_parser("list", help="list available plugins, their source, hooks and version")
    add_common_flags(plist)
    plist.add_argument("--json", action="store_true")
    add_feature_gates_flag(plist)
    plist.add_argument(
        "--server", default=None, help="show a running scheduler's generation instead, e.g. https://127.0.0.1:10259"
    )
    add_client_flags(plist)
    return plugins


def add_new_plugin_parser(sub: Any) -> argparse.ArgumentParser:
    """The `new-plugin` subcommand."""
    new = sub.add_parser("new-plugin", help="create a pip-installable plugin package with a passing test")
    new.add_argument("name", metavar="NAME", help="the plugin's name, e.g. TeamNodes or team-nodes")
    new.add_argument("--dir", type=Path, metavar="PATH", help="folder to create (default ./kubeberth-<name>)")
    new.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
    new.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
    add_verbosity_flag(new, hidden=True)
    return new


def add_explain_parser(sub: Any) -> argparse.ArgumentParser:
    """The `explain` subcommand."""
    explain = sub.add_parser("explain", help="tell the story of a pod's last scheduling decision from a running scheduler")
    explain.add_argument("pod", metavar="NAMESPACE/POD")
    explain.add_argument(
        "--server", default=None, help="the scheduler's HTTP address (default http://127.0.0.1:10260, env KUBEBERTH_SERVER)"
    )
    explain.add_argument("--json", action="store_true", help="print the decision record as JSON")
    add_client_flags(explain)
    explain.add_argument("--log-level", default=None, help=argparse.SUPPRESS)
    explain.add_argument("--log-format", default=None, help=argparse.SUPPRESS)
    add_verbosity_flag(explain, hidden=True)
    return explain


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

    from ..observability.explain import render
    from .decisions_client import DEFAULT_SERVER, NoDecision, fetch_decision
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

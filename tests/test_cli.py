"""The `kubeberth` command as users run it: a real subprocess, exit codes, stdout and stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import kubeberth
import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def kubeberth_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "kubeberth", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=120,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, names: str) -> str:
    """Exit code 2, nothing on stdout, exactly one `error: ` line on stderr naming `names`."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("error: "), line
    assert names in line
    assert "Traceback" not in proc.stderr
    return line


# ---- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NodeResourceFit}]\n",
            "error: config.yaml: profiles[0].plugins.filter.enabled[0]: unknown plugin 'NodeResourceFit'; available: ",
        ),
        ("profiles:\n- schedulerName: a\n\tplugins: {}\n", "error: config.yaml: line 5: invalid YAML"),
        ("podMaxBackoffSeconds: 0.5\n", "error: config.yaml: podMaxBackoffSeconds: must be >= podInitialBackoffSeconds"),
    ],
)
def test_bad_config_is_one_line_exit_2(tmp_path: Path, body: str, expected: str) -> None:
    header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    (tmp_path / "config.yaml").write_text(header + body)
    proc = kubeberth_cli("simulate", "--config", "config.yaml", "--nodes", "3", "--pods", "3", cwd=tmp_path)
    line = assert_one_line_error(proc, "config.yaml")
    assert line.startswith(expected)


def test_bad_config_from_environment(tmp_path: Path) -> None:
    path = tmp_path / "sched.yaml"
    path.write_text("apiVersion: v1\nkind: KubeSchedulerConfiguration\n")
    proc = kubeberth_cli("simulate", "--nodes", "2", "--pods", "1", env={"KUBEBERTH_CONFIG": str(path)})
    line = assert_one_line_error(proc, str(path))
    assert "apiVersion" in line


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (("simulate", "--log-level", "foo"), {},
         "error: --log-level='foo': expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        (("bench", "--log-level", "verbose"), {}, "error: --log-level='verbose': expected one of DEBUG"),
        (("plugins", "list"), {"KUBEBERTH_LOG_LEVEL": "loud"},
         "error: KUBEBERTH_LOG_LEVEL='loud': expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        (("simulate",), {"KUBEBERTH_LOG_FORMAT": "xml"}, "error: KUBEBERTH_LOG_FORMAT='xml': input should be 'text' or 'json'"),
        (("simulate",), {"KUBEBERTH_BINDING_WORKERS": "many"},
         "error: KUBEBERTH_BINDING_WORKERS='many': input should be a valid integer"),
        (("simulate",), {"KUBEBERTH_WATCH": "perhaps"}, "error: KUBEBERTH_WATCH='perhaps': input should be a valid boolean"),
        (("run", "--embedded"), {"KUBEBERTH_DECISION_RECORDS": "1k"}, "error: KUBEBERTH_DECISION_RECORDS='1k': "),
        (("simulate", "--nodes", "x"), {},
         "error: kubeberth simulate: argument --nodes: invalid int value: 'x' (see kubeberth simulate --help)"),
        (("simulate", "--log-format", "xml"), {}, "error: kubeberth simulate: argument --log-format: invalid choice: 'xml'"),
        (("simulate", "--no-such-flag"), {}, "error: kubeberth: unrecognized arguments: --no-such-flag"),
        (("frobnicate",), {}, "error: kubeberth: argument command: invalid choice: 'frobnicate'"),
        (("simulate", "-v", "2", "--log-level", "INFO"), {},
         "error: -v=2 and --log-level=INFO: give one of them (-v 2 means --log-level INFO)"),
        (("simulate", "-v", "-1"), {}, "error: -v=-1: expected a verbosity of 0 or more"),
        (("simulate", "--v", "two"), {}, "error: kubeberth simulate: argument -v/--v: invalid int value: 'two'"),
        (("simulate",), {"OTEL_TRACES_EXPORTER": "zipkin"}, "error: OTEL_TRACES_EXPORTER='zipkin': unknown exporter"),
        (("run", "--embedded"), {"OTEL_TRACES_EXPORTER": "otlp,zipkin"}, "error: OTEL_TRACES_EXPORTER='otlp,zipkin'"),
        (("run", "--scheduler-names", "a"), {}, "error: --scheduler-names: only with --embedded"),
    ],
)
def test_bad_flags_and_environment_are_one_line_exit_2(args: tuple[str, ...], env: dict[str, str], expected: str) -> None:
    proc = kubeberth_cli(*args, env=env)
    line = assert_one_line_error(proc, "")
    assert line.startswith(expected), line


@pytest.mark.parametrize(("v", "level"), [("0", "WARNING"), ("1", "INFO"), ("2", "INFO"), ("3", "INFO"), ("4", "DEBUG"), ("9", "DEBUG")])
def test_verbosity_maps_klog_levels_onto_logging(v: str, level: str) -> None:
    from kubeberth.apps.cli import build_parser, settings_from_args

    for form in (["-v", v], [f"-v={v}"], [f"--v={v}"], ["--v", v]):
        args = build_parser().parse_args(["simulate", *form])
        assert settings_from_args(args).log_level == level


def test_verbosity_flag_beats_the_environment_and_logs_decisions() -> None:
    quiet = kubeberth_cli("simulate", "--nodes", "2", "--pods", "2", env={"KUBEBERTH_LOG_LEVEL": "ERROR"})
    assert quiet.returncode == 0 and "kubeberth.decisions" not in quiet.stderr
    proc = kubeberth_cli("simulate", "--nodes", "2", "--pods", "2", "-v", "2", "--log-format", "json",
                         env={"KUBEBERTH_LOG_LEVEL": "ERROR"})
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stderr.splitlines()]
    decisions = [line for line in lines if line["logger"] == "kubeberth.decisions"]
    assert len(decisions) == 2
    for line in decisions:
        assert isinstance(line["ts"], float) and line["level"] == "INFO" and line["v"] == 1
        assert line["msg"].startswith("Scheduled default/")


def test_console_span_exporter_writes_to_stderr_not_into_simulate_json() -> None:
    for exporters in ("console", "otlp,console"):
        env = {"OTEL_TRACES_EXPORTER": exporters, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}
        proc = kubeberth_cli("simulate", "--nodes", "3", "--pods", "4", "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["scheduled"] == 4  # stdout is the one JSON object
        assert '"name": "SchedulingCycle"' in proc.stderr
    off = kubeberth_cli("simulate", "--nodes", "3", "--pods", "4", "--json", env={"OTEL_TRACES_EXPORTER": "none"})
    assert off.returncode == 0 and "SchedulingCycle" not in off.stderr


# Runs far longer than the 4 s before the interrupt on any machine (a command that has finished
# and is tearing its interpreter down dies of the SIGINT without a word).
@pytest.mark.parametrize("command", [("simulate", "--nodes", "3000", "--pods", "80000"),
                                     ("bench", "--scenario", "SchedulingBasic", "--pods", "200000")])
def test_ctrl_c_is_one_line_and_exit_130(command: tuple[str, ...]) -> None:
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBEBERTH_")}
    # As from a terminal: SIGINT at its default in the child. A suite started in the background by
    # a shell without job control inherits SIGINT ignored, and Python then installs no handler.
    proc = subprocess.Popen([sys.executable, "-m", "kubeberth", *command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    time.sleep(4)  # well into the run
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == f"interrupted: kubeberth {command[0]} stopped\n"


def test_missing_config_file(tmp_path: Path) -> None:
    proc = kubeberth_cli("plugins", "list", "--config", "x", cwd=tmp_path)  # plugins list ignores config
    assert proc.returncode == 0
    proc = kubeberth_cli("simulate", "--config", "nope.yaml", cwd=tmp_path)
    assert_one_line_error(proc, "nope.yaml: cannot read")


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        ("kind: Node\nmetadata: {name: n\n", "line "),
        (
            "kind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '4'}}\n---\n"
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: lots}}\n",
            "document 2 (Pod p)",
        ),
        ("kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n", "contains no Node objects"),
        ("kind: Node\nmetadata: {labels: {a: b}}\n", "document 1 (Node): missing metadata.name"),
        ("apiVersion: v1\nkind: List\nitems:\n- metadata: {name: x}\n", "document 1.items[0]: missing `kind`"),
    ],
)
def test_bad_manifest_is_one_line_exit_2(tmp_path: Path, manifest: str, expected: str) -> None:
    (tmp_path / "cluster.yaml").write_text(manifest)
    proc = kubeberth_cli("simulate", "--cluster", "cluster.yaml", cwd=tmp_path)
    line = assert_one_line_error(proc, "cluster.yaml: ")
    assert expected in line


def test_broken_plugin_file_is_one_line_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "bad.py").write_text("from kubeberth import hookimpl\n\n\nclass Bad:\n    name = 'Bad'\n    def filter(self\n")
    for command in (["simulate", "--nodes", "2", "--pods", "2"], ["plugins", "list"]):
        proc = kubeberth_cli(*command, "--plugins-dir", str(folder))
        line = assert_one_line_error(proc, f"{folder / 'bad.py'}: line ")
        assert "SyntaxError" in line


def test_plugin_raising_at_import_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "boom.py").write_text(textwrap.dedent("""\
        import os

        TOKEN = os.environ["KUBEBERTH_TEST_NO_SUCH_VARIABLE"]
        """))
    proc = kubeberth_cli("plugins", "list", "--plugins-dir", str(folder))
    assert_one_line_error(proc, f"{folder / 'boom.py'}: line 3: KeyError")


def test_negative_sizes_are_an_error() -> None:
    proc = kubeberth_cli("simulate", "--nodes", "-1", "--pods", "3")
    assert_one_line_error(proc, "--nodes")


# ---- plugins list -----------------------------------------------------------------------------
def test_plugins_list_human_table() -> None:
    proc = kubeberth_cli("plugins", "list", "--plugins-dir", str(FIXTURES / "plugins"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SOURCE", "VERSION", "DEFAULT-PROFILE", "HOOKS"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == sorted(rows)
    fit = rows["NodeResourcesFit"].split(None, 4)
    assert fit[1:4] == [f"entrypoint:kubeberth=={kubeberth.__version__}", kubeberth.__version__, "yes"]
    assert {"filter", "score"} <= set(fit[4].split(", "))
    team = rows["TeamA"].split()
    assert team[1:] == [f"dropin:{FIXTURES / 'plugins' / 'team_a.py'}", "0.0.7", "-", "filter"]
    # Columns line up: every SOURCE starts at the same offset.
    offsets = {line.index(line.split()[1]) for line in lines}
    assert len(offsets) == 1


def test_plugins_list_json() -> None:
    proc = kubeberth_cli("plugins", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert isinstance(rows, list)
    fit = next(r for r in rows if r["name"] == "NodeResourcesFit")
    assert set(fit) >= {"name", "source", "version", "hooks"}
    assert fit["source"] == f"entrypoint:kubeberth=={kubeberth.__version__}"


# ---- simulate ---------------------------------------------------------------------------------
def test_simulate_json_prints_one_object() -> None:
    proc = kubeberth_cli("simulate", "--nodes", "20", "--pods", "60", "--seed", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert isinstance(out, dict)
    for key in ("nodes", "pods", "scheduled", "unschedulable", "pods_per_second", "unschedulable_reasons", "generation"):
        assert key in out
    assert (out["nodes"], out["pods"]) == (20, 60)
    assert isinstance(out["unschedulable_reasons"], dict)
    assert out["generation"].startswith("g")
    assert "placements" not in out


def test_simulate_human_summary() -> None:
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "nodes: 3   pods: 8 (2 already bound)" in out
    assert "scheduled: 4" in out
    assert "pods per node:" in out and "cpu requested/allocatable:" in out
    assert "1 × 0/3 nodes are available: 3 Insufficient cpu." in out
    assert "Traceback" not in proc.stderr


def test_simulate_explain_one_pod() -> None:
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), "--explain", "default/huge")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "Pod default/huge: Unschedulable"
    assert "  Result:      Unschedulable" in proc.stdout.splitlines()
    assert "  FailedScheduling: 0/3 nodes are available: 3 Insufficient cpu." in proc.stdout
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), "--explain", "default/huge", "--json")
    record = json.loads(proc.stdout)
    assert record["pod"] == "default/huge"
    assert record["result"] == "Unschedulable"
    assert record["message"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), "--explain", "default/ghost")
    assert_one_line_error(proc, "default/ghost")


# ---- simulate exit codes: 0 ok, 1 pods ended in Error, 2 bad input, 3 unschedulable (opt-in) --
FLAKY_PLUGINS = {
    "boom.py": """\
        from kubeberth import hookimpl


        class Boom:
            \"\"\"Raises for pods in namespace prod, every attempt.\"\"\"

            name = "Boom"

            @hookimpl
            def filter(self, pod, nodes):
                if pod.namespace == "prod":
                    raise RuntimeError("kaboom")
        """,
    "once.py": """\
        from kubeberth import hookimpl


        class Once:
            \"\"\"Raises on each pod's first attempt only: the retry schedules it.\"\"\"

            name = "Once"
            seen = set()

            @hookimpl
            def filter(self, pod, nodes):
                if pod.uid not in self.seen:
                    self.seen.add(pod.uid)
                    raise RuntimeError("first time")
        """,
}


def _plugin_setup(tmp_path: Path, plugin: str) -> list[str]:
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    for name, body in FLAKY_PLUGINS.items():
        (folder / name).write_text(textwrap.dedent(body))
    (tmp_path / "config.yaml").write_text(
        f"profiles:\n- plugins:\n    filter:\n      enabled: [{{name: {plugin}}}]\n"
    )
    return ["--config", str(tmp_path / "config.yaml"), "--plugins-dir", str(folder)]


@pytest.mark.parametrize("output", [(), ("--json",), ("--explain", "prod/api-1")])
def test_simulate_exits_1_when_a_pod_ended_in_error(tmp_path: Path, output: tuple[str, ...]) -> None:
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), *_plugin_setup(tmp_path, "Boom"), *output)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout  # the summary (or explanation) is still printed
    last = proc.stderr.splitlines()[-1]
    assert last == "error: 1 pod(s) ended in Error (a plugin raised or returned Error; see the summary): prod/api-1"
    if output == ("--json",):
        out = json.loads(proc.stdout)
        assert out["errored"] == 1 and out["error_reasons"] == {'running "Boom" filter plugin: plugin Boom raised RuntimeError: kaboom': 1}


def test_simulate_retried_errors_exit_0_and_are_counted(tmp_path: Path) -> None:
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), *_plugin_setup(tmp_path, "Once"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["errored"] == 0
    assert out["error_attempts"] == 4  # first attempts of the pods that reach Once (not huge: fits nowhere)
    assert out["scheduled"] == 4 and out["unschedulable"] == 1
    proc = kubeberth_cli("simulate", "--cluster", str(FIXTURES / "cluster.yaml"), *_plugin_setup(tmp_path, "Once"))
    assert "errored: 0 (4 failed attempts)" in proc.stdout


def test_simulate_unschedulable_pods_exit_0_unless_asked(tmp_path: Path) -> None:
    cluster = str(FIXTURES / "cluster.yaml")  # default/huge fits nowhere
    assert kubeberth_cli("simulate", "--cluster", cluster).returncode == 0
    proc = kubeberth_cli("simulate", "--cluster", cluster, "--fail-on-unschedulable", "--json")
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout)["unschedulable"] == 1
    assert proc.stderr.splitlines()[-1] == "error: 1 pod(s) unschedulable (--fail-on-unschedulable): default/huge"

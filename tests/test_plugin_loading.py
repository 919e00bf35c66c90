"""Plugin loading: entry points of an installed distribution, drop-in folders, collisions, broken files.

The entry-point tests build a real installed-distribution layout (`*.dist-info` with METADATA and
entry_points.txt) on sys.path, so importlib.metadata discovers it exactly like a pip install.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import kubeberth
import pytest
from kubeberth.apps import cli
from kubeberth.errors import ConfigError, PluginLoadError
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.plugins import discover, discover_dropins, load_dropin_file
from kubeberth.testing import PluginSite
from pydantic import BaseModel, ConfigDict, Field

FIXTURE_PLUGINS = Path(__file__).parent / "fixtures" / "plugins"

SAMPLE_MODULE = '''\
"""A third-party plugin shipped in its own distribution."""

from kubeberth import hookimpl


class SamplePlugin:
    name = "SamplePlugin"

    @hookimpl
    def filter(self, pod, nodes):
        return None

    @hookimpl
    def score(self, pod, nodes):
        return [0] * len(nodes)
'''


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def make_distribution(site: PluginSite, module_source: str = SAMPLE_MODULE) -> None:
    """sampleplug 1.2.3 as pip would leave it in site-packages (the test kit's plugin_site)."""
    site.add_distribution("sampleplug", "1.2.3", files={"sampleplug.py": module_source},
                          plugins={"SamplePlugin": "sampleplug:SamplePlugin"})


@pytest.fixture
def sample_dist(plugin_site: PluginSite) -> Path:
    make_distribution(plugin_site)
    return plugin_site.root


@pytest.fixture
def restore_logging():
    """cli.main installs its own root handler; put pytest's back afterwards."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def plugins_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict]:
    assert cli.main(["plugins", "list", "--json", *args]) == 0
    rows = json.loads(capsys.readouterr().out)
    return {r["name"]: r for r in rows}


# ---- entry points ---------------------------------------------------------------------------
def test_entry_point_from_installed_distribution(sample_dist: Path) -> None:
    spec = discover()["SamplePlugin"]
    assert spec.source == "entrypoint:sampleplug==1.2.3"
    assert spec.version == "1.2.3"
    assert spec.hooks == ("filter", "score")
    assert not spec.builtin


def test_plugins_list_json_shows_entry_point_and_builtins(sample_dist, capsys, restore_logging) -> None:
    rows = plugins_json(capsys)
    assert rows["SamplePlugin"] == {
        "name": "SamplePlugin",
        "source": "entrypoint:sampleplug==1.2.3",
        "version": "1.2.3",
        "hooks": ["filter", "score"],
        "builtin": False,
        "default_profile": "-",
    }
    builtin_source = f"entrypoint:kubeberth=={kubeberth.__version__}"
    for name, hooks in {
        "NodeResourcesFit": {"filter", "score"},
        "PrioritySort": {"queue_sort"},
        "SchedulingGates": {"pre_enqueue"},
        "DefaultBinder": {"bind"},
    }.items():
        assert rows[name]["source"] == builtin_source
        assert rows[name]["version"] == kubeberth.__version__
        assert rows[name]["builtin"] is True
        assert hooks <= set(rows[name]["hooks"])
    # Every listed built-in comes through the entry point group, none from anywhere else.
    assert {r["source"] for r in rows.values() if r["builtin"]} == {builtin_source}


def test_entry_point_plugin_is_usable_in_a_profile(sample_dist: Path) -> None:
    config = parse_configuration(
        {"profiles": [{"plugins": {"filter": {"enabled": [{"name": "SamplePlugin"}]}}}]}
    )
    fw = build_generation(config=config).default_profile
    assert fw.enabled("filter")[-1] == "SamplePlugin"
    assert fw.enabled("score").count("SamplePlugin") == 0  # enabled for filter only


def test_entry_point_that_fails_to_import_names_the_distribution(plugin_site: PluginSite) -> None:
    make_distribution(plugin_site, "import does_not_exist_anywhere\n")
    with pytest.raises(PluginLoadError) as exc:
        discover()
    msg = str(exc.value)
    assert "\n" not in msg
    assert "SamplePlugin" in msg and "sampleplug" in msg and "ModuleNotFoundError" in msg


def test_entry_point_colliding_with_builtin_names_both_sources(plugin_site: PluginSite) -> None:
    make_distribution(plugin_site, SAMPLE_MODULE.replace('name = "SamplePlugin"', 'name = "NodeResourcesFit"'))
    with pytest.raises(PluginLoadError) as exc:
        discover()
    msg = str(exc.value)
    assert "'NodeResourcesFit'" in msg
    assert f"entrypoint:kubeberth=={kubeberth.__version__}" in msg
    assert "entrypoint:sampleplug==1.2.3" in msg


# ---- drop-in folders ------------------------------------------------------------------------
def test_dropin_folder_loads_public_files_only() -> None:
    specs = discover_dropins(FIXTURE_PLUGINS)  # _helper.py raises if imported
    assert [s.name for s in specs] == ["TeamA"]
    team = specs[0]
    assert team.source == f"dropin:{FIXTURE_PLUGINS / 'team_a.py'}"
    assert team.hooks == ("filter",)
    assert team.version == "0.0.7"  # module __version__


def test_plugins_list_json_shows_dropin(capsys, restore_logging) -> None:
    rows = plugins_json(capsys, "--plugins-dir", str(FIXTURE_PLUGINS))
    assert rows["TeamA"]["source"] == f"dropin:{FIXTURE_PLUGINS / 'team_a.py'}"
    assert rows["TeamA"]["hooks"] == ["filter"]
    assert "_helper" not in rows and "NodeResourcesFit" in rows


def test_dropin_version_defaults_to_content_digest(tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "v.py", """\
        from kubeberth import hookimpl

        class V:
            name = "V"

            @hookimpl
            def score(self, nodes):
                return [0] * len(nodes)
        """)
    first = load_dropin_file(path)[0].version
    path.write_text(path.read_text() + "\n# changed\n")
    second = load_dropin_file(path)[0].version
    assert first != second and len(first) == 12


def test_dropin_named_like_builtin_is_a_collision(tmp_path: Path) -> None:
    path = write(tmp_path / "plugins" / "fit.py", """\
        from kubeberth import hookimpl


        class Fit:
            name = "NodeResourcesFit"

            @hookimpl
            def filter(self, nodes):
                return None
        """)
    with pytest.raises(PluginLoadError) as exc:
        discover(tmp_path / "plugins")
    msg = str(exc.value)
    assert "'NodeResourcesFit'" in msg
    assert f"entrypoint:kubeberth=={kubeberth.__version__}" in msg
    assert f"dropin:{path}" in msg


def test_two_dropins_with_the_same_name_collide(tmp_path: Path) -> None:
    body = """\
        from kubeberth import hookimpl

        class Same:
            name = "Same"

            @hookimpl
            def filter(self, nodes):
                return None
        """
    a = write(tmp_path / "plugins" / "a.py", body)
    b = write(tmp_path / "plugins" / "b.py", body)
    with pytest.raises(PluginLoadError, match="'Same'") as exc:
        discover(tmp_path / "plugins")
    assert f"dropin:{a}" in str(exc.value) and f"dropin:{b}" in str(exc.value)


def test_module_style_plugin(tmp_path: Path) -> None:
    path = write(tmp_path / "plugins" / "mod_style.py", """\
        from kubeberth import FilterResult, hookimpl

        name = "ModStyle"
        __version__ = "2.0"


        @hookimpl
        def filter(nodes):
            return FilterResult.all_pass(len(nodes))


        @hookimpl
        def pre_enqueue(pod):
            return None
        """)
    spec = discover(tmp_path / "plugins")["ModStyle"]
    assert spec.source == f"dropin:{path}"
    assert spec.hooks == ("filter", "pre_enqueue")
    assert spec.version == "2.0"
    config = parse_configuration({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "ModStyle"}]}}}]})
    gen = build_generation(config=config, plugins_dir=tmp_path / "plugins")
    assert "ModStyle" in gen.default_profile.enabled("filter")


# ---- broken plugin files --------------------------------------------------------------------
BROKEN = {
    "syntax": (
        """\
        from kubeberth import hookimpl

        class Broken:
            name = "Broken"
            def filter(self, nodes)
                return None
        """,
        "line 5: SyntaxError",
    ),
    "raises_at_import": (
        """\
        from kubeberth import hookimpl

        SETTINGS = {}
        THRESHOLD = SETTINGS["threshold"]
        """,
        "line 4: KeyError while importing",
    ),
    "unknown_hook": (
        """\
        from kubeberth import hookimpl


        class Typo:
            name = "Typo"

            @hookimpl
            def filtr(self, pod, nodes):
                return None
        """,
        "line 7: hook 'filtr' is not a kubeberth extension point",
    ),
    "unknown_hook_beside_valid_one": (
        """\
        from kubeberth import hookimpl


        class Typo:
            name = "Typo"

            @hookimpl
            def score(self, nodes):
                return [0] * len(nodes)

            @hookimpl
            def normalise_score(self, scores):
                return scores
        """,
        "line 11: hook 'normalise_score' is not a kubeberth extension point",
    ),
    "wrong_argument": (
        """\
        from kubeberth import hookimpl


        class WrongArg:
            name = "WrongArg"

            @hookimpl
            def filter(self, pod, node_list):
                return None
        """,
        "line 7: hook 'filter' takes no argument 'node_list'",
    ),
    "wrong_argument_module_style": (
        """\
        from kubeberth import hookimpl

        name = "ModWrong"


        @hookimpl
        def score(pod, nodes, weights):
            return None
        """,
        "line 6: hook 'score' takes no argument 'weights'",
    ),
    "no_plugin": ("X = 1\n", "defines no plugin"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_plugin_file_is_one_line_naming_file_and_line(tmp_path: Path, case: str) -> None:
    source, expected = BROKEN[case]
    path = write(tmp_path / "plugins" / f"{case}.py", source)
    with pytest.raises(PluginLoadError) as exc:
        discover(tmp_path / "plugins")
    msg = str(exc.value)
    assert msg.startswith(f"{path}: ")
    assert expected in msg
    assert "\n" not in msg and "Traceback" not in msg
    if case in ("syntax", "raises_at_import"):  # no half-imported module left behind
        assert not any(m.startswith(f"kubeberth_dropin_{case}_") for m in sys.modules)


def test_missing_plugins_dir(tmp_path: Path) -> None:
    with pytest.raises(PluginLoadError, match="does not exist"):
        discover(tmp_path / "nope")


@pytest.mark.parametrize(
    ("target", "mode", "expected"),
    [
        ("folder", 0o777, "is writable by others; run `chmod go-w {path}`"),
        ("folder", 0o775, "is writable by its group; run `chmod go-w {path}`"),
        ("file", 0o646, "is writable by others; run `chmod go-w {path}`"),
        ("file", 0o664, "is writable by its group; run `chmod go-w {path}`"),
        ("helper", 0o664, "is writable by its group; run `chmod go-w {path}`"),
    ],
)
def test_plugin_folder_writable_by_others_is_refused(tmp_path: Path, target: str, mode: int, expected: str) -> None:
    """sshd StrictModes for code: group/other-writable folder or file is refused, with the fix named."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "ok.py").write_text((FIXTURE_PLUGINS / "team_a.py").read_text())
    (folder / "_shared.py").write_text("X = 1\n")
    path = {"folder": folder, "file": folder / "ok.py", "helper": folder / "_shared.py"}[target]
    os.chmod(path, mode)
    with pytest.raises(PluginLoadError) as exc:
        discover(folder)
    assert str(exc.value) == (
        f"{path}: {expected.format(path=path)} or pass --allow-insecure-plugins-dir to accept that anyone who "
        "can write it runs code as the scheduler"
    )
    assert "TeamA" in discover(folder, allow_insecure_plugins_dir=True)
    os.chmod(path, 0o755 if target == "folder" else 0o644)
    assert "TeamA" in discover(folder)


def test_read_only_mount_passes_despite_its_mode_bits(tmp_path: Path) -> None:
    """A ConfigMap volume shows 0777 directories, but mounted readOnly nobody can change it."""
    import subprocess

    source, mount = tmp_path / "src", tmp_path / "plugins"
    source.mkdir()
    mount.mkdir()
    (source / "ok.py").write_text((FIXTURE_PLUGINS / "team_a.py").read_text())
    os.chmod(source, 0o777)
    if os.geteuid() != 0:
        pytest.skip("bind mounts need root")
    binds = subprocess.run(["mount", "--bind", str(source), str(mount)], capture_output=True)
    if binds.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {binds.stderr.decode().strip()}")
    try:
        with pytest.raises(PluginLoadError, match="is writable by others"):
            discover(mount)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True, capture_output=True)
        assert "TeamA" in discover(mount)
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_plugin_file_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    path = folder / "ok.py"
    path.write_text((FIXTURE_PLUGINS / "team_a.py").read_text())
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root")
    os.chown(path, 4242, -1)
    with pytest.raises(PluginLoadError, match=rf"^{path}: is owned by uid 4242, not by this user \(uid 0\) or root"):
        discover(folder)
    assert "TeamA" in discover(folder, allow_insecure_plugins_dir=True)


# ---- args models ----------------------------------------------------------------------------
class Threshold:
    """A plugin with a typed args model, filled from pluginConfig."""

    name = "Threshold"

    class Args(BaseModel):
        minFree: int = Field(default=1, ge=0)
        label: str = "team"

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()

    @kubeberth.hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


def _threshold_config(args: dict) -> dict:
    return {
        "profiles": [
            {
                "plugins": {"filter": {"enabled": [{"name": "Threshold"}]}},
                "pluginConfig": [{"name": "Threshold", "args": args}],
            }
        ]
    }


def test_plugin_args_are_validated_and_passed(tmp_path: Path) -> None:
    gen = build_generation(config=parse_configuration(_threshold_config({"minFree": 3})), extra_plugins=[Threshold])
    instance = gen.default_profile.plugins["Threshold"]
    assert isinstance(instance.args, Threshold.Args)
    assert (instance.args.minFree, instance.args.label) == (3, "team")


def test_plugin_args_default_when_no_plugin_config() -> None:
    config = parse_configuration({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Threshold"}]}}}]})
    gen = build_generation(config=config, extra_plugins=[Threshold])
    assert gen.default_profile.plugins["Threshold"].args.minFree == 1


@pytest.mark.parametrize(
    ("args", "field"),
    [({"minFree": -1}, "minFree"), ({"minFree": "lots"}, "minFree"), ({"label": ["a"]}, "label")],
)
def test_invalid_plugin_args_name_the_field(tmp_path: Path, monkeypatch, args: dict, field: str) -> None:
    import yaml

    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text(yaml.safe_dump(_threshold_config(args)))
    with pytest.raises(ConfigError) as exc:
        build_generation("config.yaml", extra_plugins=[Threshold])
    assert str(exc.value).startswith(f"config.yaml: profiles[0].pluginConfig[0].args.{field}: ")
    assert "\n" not in str(exc.value)


def test_args_for_a_plugin_without_args_model_are_rejected() -> None:
    config = parse_configuration(
        {
            "profiles": [
                {
                    "plugins": {"filter": {"enabled": [{"name": "TeamA"}]}},
                    "pluginConfig": [{"name": "TeamA", "args": {"x": 1}}],
                }
            ]
        }
    )
    with pytest.raises(ConfigError, match=r"profiles\[0\]\.pluginConfig\[0\]\.args: plugin 'TeamA' takes no arguments"):
        build_generation(config=config, plugins_dir=FIXTURE_PLUGINS)


def test_plugin_config_for_unknown_plugin() -> None:
    config = parse_configuration({"profiles": [{"pluginConfig": [{"name": "Nope", "args": {}}]}]})
    with pytest.raises(ConfigError, match=r"profiles\[0\]\.pluginConfig\[0\]\.name: unknown plugin 'Nope'"):
        build_generation(config=config)


def test_plugin_failing_in_init_is_reported_at_build_not_discovery(tmp_path: Path) -> None:
    write(tmp_path / "plugins" / "boom_init.py", """\
        from kubeberth import hookimpl


        class BoomInit:
            name = "BoomInit"

            def __init__(self, args=None):
                raise RuntimeError("needs a token")

            @hookimpl
            def filter(self, nodes):
                return None
        """)
    assert "BoomInit" in discover(tmp_path / "plugins")  # listing must not crash
    config = parse_configuration({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "BoomInit"}]}}}]})
    with pytest.raises(PluginLoadError, match="plugin 'BoomInit' failed to initialise: RuntimeError: needs a token"):
        build_generation(config=config, plugins_dir=tmp_path / "plugins")


def test_generations_are_rebuilt_independently(tmp_path: Path) -> None:
    """A reload rediscovers: a changed drop-in yields a new generation; the old one is untouched."""
    folder = tmp_path / "plugins"
    path = write(folder / "flip.py", """\
        from kubeberth import hookimpl

        class Flip:
            name = "Flip"
            version = "1"

            @hookimpl
            def filter(self, nodes):
                return None
        """)
    config = parse_configuration({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Flip"}]}}}]})
    first = build_generation(config=config, plugins_dir=folder)
    path.write_text(path.read_text().replace('version = "1"', 'version = "2"'))
    second = build_generation(config=config, plugins_dir=folder)
    assert first.registry["Flip"].version == "1" and second.registry["Flip"].version == "2"
    assert first.id != second.id and first.number < second.number
    assert first.default_profile.plugins["Flip"] is not second.default_profile.plugins["Flip"]


# ---- strict args: unknown pluginConfig keys are errors (kube-scheduler decodes strictly) ------
class Shaped:
    """Third-party args with nested models, none of them declaring `extra`."""

    name = "Shaped"

    class Point(BaseModel):
        utilization: int
        score: int

    class Args(BaseModel):
        label: str = "team"
        shape: list[Shaped.Point] = Field(default_factory=list)
        byZone: dict[str, Shaped.Point] = Field(default_factory=dict)
        fallback: Shaped.Point | None = None

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()

    @kubeberth.hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


class Lenient:
    """Opts out explicitly: its Args model declares what to do with unknown keys."""

    name = "Lenient"

    class Args(BaseModel):
        model_config = ConfigDict(extra="allow")
        label: str = "team"

    def __init__(self, args: Args | None = None) -> None:
        self.args = args or self.Args()

    @kubeberth.hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


def _args_config(plugin: str, args: dict) -> dict:
    return {
        "profiles": [
            {
                "plugins": {"filter": {"enabled": [{"name": plugin}]}},
                "pluginConfig": [{"name": plugin, "args": args}],
            }
        ]
    }


@pytest.mark.parametrize(
    ("plugin", "args", "expected"),
    [
        ("Threshold", {"podLabel": "x"},
         "args.podLabel: unknown key for plugin 'Threshold' (did you mean 'label'? it takes: label, minFree)"),
        ("Shaped", {"shape": [{"utilization": 1, "score": 2}, {"utilisation": 3, "score": 4}]},
         "args.shape[1].utilisation: unknown key for plugin 'Shaped' (did you mean 'utilization'? it takes: score, utilization)"),
        ("Shaped", {"byZone": {"a": {"utilization": 1, "score": 2, "weight": 3}}},
         "args.byZone.a.weight: unknown key for plugin 'Shaped' (it takes: score, utilization)"),
        ("Shaped", {"fallback": {"utilization": 1, "scores": 2}},
         "args.fallback.scores: unknown key for plugin 'Shaped' (did you mean 'score'? it takes: score, utilization)"),
        # Built-ins the same way, whether or not their model forbids extras itself.
        ("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resource": []}},
         "args.scoringStrategy.resource: unknown key for plugin 'NodeResourcesFit' (did you mean 'resources'? "
         "it takes: requestedToCapacityRatio, resources, type)"),
        ("InterPodAffinity", {"hardPodAffinityWieght": 2},
         "args.hardPodAffinityWieght: unknown key for plugin 'InterPodAffinity' (did you mean 'hardPodAffinityWeight'? "
         "it takes: hardPodAffinityWeight, ignorePreferredTermsOfExistingPods)"),
    ],
)
def test_unknown_args_keys_are_errors_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: str, args: dict, expected: str
) -> None:
    import yaml

    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text(yaml.safe_dump(_args_config(plugin, args)))
    with pytest.raises(ConfigError) as exc:
        build_generation("config.yaml", extra_plugins=[Threshold, Shaped])
    assert str(exc.value) == f"config.yaml: profiles[0].pluginConfig[0].{expected}"


def test_known_args_keys_and_type_meta_are_accepted() -> None:
    args = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "ShapedArgs", "label": "x",
            "shape": [{"utilization": 1, "score": 2}], "byZone": {"a": {"utilization": 3, "score": 4}}}
    gen = build_generation(config=parse_configuration(_args_config("Shaped", args)), extra_plugins=[Shaped])
    parsed = gen.default_profile.plugins["Shaped"].args
    assert (parsed.label, parsed.shape[0].score, parsed.byZone["a"].utilization) == ("x", 2, 3)


def test_args_model_may_opt_out_of_strict_keys_explicitly() -> None:
    args = {"label": "x", "futureKnob": 1}
    gen = build_generation(config=parse_configuration(_args_config("Lenient", args)), extra_plugins=[Lenient])
    parsed = gen.default_profile.plugins["Lenient"].args
    assert parsed.label == "x" and parsed.model_extra == {"futureKnob": 1}


def test_misspelled_args_key_in_simulate_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "plugins" / "team.py", """\
        from pydantic import BaseModel

        from kubeberth import hookimpl


        class Team:
            name = "Team"

            class Args(BaseModel):
                label: str = "team"

            def __init__(self, args=None):
                self.args = args or self.Args()

            @hookimpl
            def filter(self, nodes):
                return None
        """)
    write(tmp_path / "config.yaml", """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - plugins:
            filter:
              enabled: [{name: Team}]
          pluginConfig:
          - name: Team
            args: {podLabel: team}
        """)
    code = cli.main(["simulate", "--nodes", "3", "--pods", "3", "--config", str(tmp_path / "config.yaml"),
                     "--plugins-dir", str(tmp_path / "plugins")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (f"error: {tmp_path / 'config.yaml'}: profiles[0].pluginConfig[0].args.podLabel: unknown key for plugin "
                   "'Team' (did you mean 'label'? it takes: label)\n")


def test_own_entry_points_are_deferred_until_a_profile_enables_them() -> None:
    """kubeberth's own plugins are imported when a profile enables them, not at every scan: a start
    with the default profile imports none of contrib. Each one's entry point name is its plugin name
    (what the deferred spec is registered under before its module is imported)."""
    import subprocess

    code = textwrap.dedent("""
        import sys
        from kubeberth.runtime.generation import build_generation
        from kubeberth.runtime.plugins import discover_entry_points
        specs = discover_entry_points()
        assert not [m for m in sys.modules if m.startswith("kubeberth.contrib.")], "scan imported contrib"
        build_generation(None)
        assert not [m for m in sys.modules if m.startswith("kubeberth.contrib.")], "default profile imported contrib"
        own = [s for s in specs if s.source.startswith("entrypoint:kubeberth==")]
        assert len(own) > 30
        for s in own:
            assert s.hooks and s.obj.name == s.name, s  # loads it: the name check runs in the loader
        assert all(s.builtin == s.obj.__module__.startswith("kubeberth.builtin_plugins") for s in own)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_every_own_plugin_passes_pluggys_signature_check() -> None:
    """kubeberth's own plugins skip pluggy's argument-name check at load (a start's cost): it runs here, on each
    of them, as it runs at load for every third-party and drop-in plugin."""
    from kubeberth.runtime.plugins import _validate_signatures, discover_entry_points, scratch_manager

    pm = scratch_manager()
    own = [s for s in discover_entry_points() if s.source.startswith("entrypoint:kubeberth==")]
    assert len(own) > 30
    for spec in own:
        _validate_signatures(spec.obj, spec.name, spec.source, pm)

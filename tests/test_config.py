"""KubeSchedulerConfiguration parsing and plugin-set resolution, including every bad-input error."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest
from kubeberth import hookimpl
from kubeberth.errors import ConfigError
from kubeberth.runtime.config import (
    API_VERSION,
    DEFAULT_PROFILE,
    SchedulerConfiguration,
    Settings,
    load_configuration,
    parse_configuration,
)
from kubeberth.runtime.generation import build_generation

FIXTURES = Path(__file__).parent / "fixtures"
HEADER = f"apiVersion: {API_VERSION}\nkind: KubeSchedulerConfiguration\n"


# Small test plugins, passed as extra plugins so resolution is independent of the built-ins.
class FilterOne:
    name = "FilterOne"

    @hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None


class FilterTwo:
    name = "FilterTwo"

    @hookimpl
    def filter(self, nodes):  # noqa: ANN001, ANN201
        return None

    @hookimpl
    def score(self, nodes):  # noqa: ANN001, ANN201
        return [0] * len(nodes)


class ScoreOnly:
    name = "ScoreOnly"

    @hookimpl
    def score(self, nodes):  # noqa: ANN001, ANN201
        return [0] * len(nodes)


class FifoSort:
    name = "FifoSort"

    @hookimpl
    def queue_sort(self, pod):  # noqa: ANN001, ANN201
        return 0


EXTRA = [FilterOne, FilterTwo, ScoreOnly, FifoSort]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_config(body: str, name: str = "config.yaml") -> str:
    Path(name).write_text(HEADER + textwrap.dedent(body))
    return name


def build(body: str):  # noqa: ANN201
    return build_generation(write_config(body), extra_plugins=EXTRA)


def config_error(body: str, raw: bool = False) -> str:
    path = "config.yaml"
    Path(path).write_text(body if raw else HEADER + textwrap.dedent(body))
    with pytest.raises(ConfigError) as exc:
        build_generation(path, extra_plugins=EXTRA)
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


# ---- defaults -------------------------------------------------------------------------------
def test_defaults_without_a_file() -> None:
    config = load_configuration(None)
    assert [p.schedulerName for p in config.profiles] == [DEFAULT_PROFILE] == ["kubeberth"]
    assert (config.podInitialBackoffSeconds, config.podMaxBackoffSeconds) == (1, 10)
    assert config.percentageOfNodesToScore is None  # adaptive default


def test_default_generation_filters_on_resources_and_scores() -> None:
    gen = build_generation()
    assert list(gen.profiles) == ["kubeberth"]
    fw = gen.default_profile
    assert fw.enabled("queue_sort") == ["PrioritySort"]
    assert "NodeResourcesFit" in fw.enabled("filter")
    assert "NodeResourcesFit" in fw.enabled("score")
    assert fw.enabled("bind") == ["DefaultBinder"]
    assert "SchedulingGates" in fw.enabled("pre_enqueue")
    assert gen.config_source == "<default configuration>"


def test_empty_file_is_the_default(in_tmp: Path) -> None:
    Path("empty.yaml").write_text("")
    assert load_configuration("empty.yaml") == SchedulerConfiguration()


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KUBEBERTH_CONFIG", str(tmp_path / "c.yaml"))
    monkeypatch.setenv("KUBEBERTH_PLUGINS_DIR", str(tmp_path))
    monkeypatch.setenv("KUBEBERTH_LOG_LEVEL", "DEBUG")
    settings = Settings()
    assert settings.config == tmp_path / "c.yaml"
    assert settings.plugins_dir == tmp_path
    assert settings.log_level == "DEBUG"


# ---- a real kube-scheduler file -------------------------------------------------------------
def test_kube_scheduler_file_with_profiles_weights_and_disables(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kubeberth.runtime.config")
    path = FIXTURES / "kube-scheduler-config.yaml"
    gen = build_generation(path)
    assert gen.config.percentageOfNodesToScore == 40
    assert (gen.config.podInitialBackoffSeconds, gen.config.podMaxBackoffSeconds) == (2, 20)
    assert list(gen.profiles) == ["default-scheduler", "no-scoring"]

    first = gen.profiles["default-scheduler"]
    assert first.percentage_of_nodes_to_score == 40  # inherited from the top level
    weights = first.score_weights()
    assert weights["NodeResourcesFit"] == 5  # multiPoint weight
    assert "ImageLocality" not in first.enabled("score")  # score.disabled
    score = first.enabled("score")
    if "NodeResourcesBalancedAllocation" in score:  # re-configured defaults keep their position
        assert score.index("NodeResourcesFit") < score.index("NodeResourcesBalancedAllocation")
    assert "NodeResourcesFit" in first.enabled("filter")

    second = gen.profiles["no-scoring"]
    assert second.percentage_of_nodes_to_score == 70  # profile overrides top level
    assert second.enabled("score") == []  # score.disabled '*'
    assert "NodeResourcesFit" not in second.enabled("filter")
    assert second.enabled("queue_sort") == ["PrioritySort"]
    assert second.enabled("bind") == ["DefaultBinder"]

    notes = [r.getMessage() for r in caplog.records if r.name == "kubeberth.runtime.config"]
    assert any("enableProfiling is accepted but not used" in n for n in notes)
    assert any("clientConnection.contentType is accepted but not used" in n for n in notes)
    assert all(str(path) in n for n in notes)


def test_per_point_enable_order_and_weights(in_tmp: Path) -> None:
    gen = build("""\
        profiles:
        - schedulerName: custom
          plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled:
              - {name: FifoSort}
              - {name: FilterTwo, weight: 3}
              - {name: DefaultBinder}
            filter:
              enabled: [{name: FilterOne}]
            score:
              enabled: [{name: ScoreOnly, weight: 7}]
        """)
    fw = gen.profiles["custom"]
    assert fw.enabled("queue_sort") == ["FifoSort"]
    assert fw.enabled("filter") == ["FilterTwo", "FilterOne"]
    assert fw.enabled("score") == ["FilterTwo", "ScoreOnly"]
    assert fw.score_weights() == {"FilterTwo": 3, "ScoreOnly": 7}
    assert fw.enabled("bind") == ["DefaultBinder"]
    assert fw.enabled("pre_enqueue") == []  # SchedulingGates came only from the defaults


def test_explicit_point_entry_overrides_multipoint_weight_in_place(in_tmp: Path) -> None:
    gen = build("""\
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled: [{name: FilterTwo, weight: 2}, {name: ScoreOnly}]
            score:
              enabled: [{name: FilterTwo, weight: 9}]
        """)
    fw = gen.default_profile
    assert fw.enabled("score") == ["FilterTwo", "ScoreOnly"]
    assert fw.score_weights() == {"FilterTwo": 9, "ScoreOnly": 1}


def test_multipoint_reconfigured_default_keeps_its_position(in_tmp: Path) -> None:
    """kube-scheduler's mergePluginSet replaces a re-configured default plugin in place."""
    gen = build("""\
        profiles:
        - plugins:
            multiPoint:
              enabled: [{name: PrioritySort}, {name: FilterOne}, {name: NodeResourcesFit, weight: 4}]
        """)
    fw = gen.default_profile
    filters = fw.enabled("filter")
    assert filters[-1] == "FilterOne"  # a new plugin is appended after every default one
    assert filters.index("NodeResourcesFit") < filters.index("FilterOne")
    assert fw.score_weights()["NodeResourcesFit"] == 4


def test_a_default_disabled_and_enabled_again_at_one_point_takes_the_enabled_order(in_tmp: Path) -> None:
    """kube-scheduler's expandMultiPointPlugins skips a multiPoint plugin disabled at the point, so enabling it there
    again is no override keeping its default position: it comes where that point's list puts it (bind_test.go's
    and plugins_test.go's configurations: a test binder before DefaultBinder). Without the disable, the override
    keeps the default's place first."""
    gen = build("""\
        profiles:
        - plugins:
            filter:
              disabled: [{name: NodeResourcesFit}]
              enabled: [{name: FilterOne}, {name: NodeResourcesFit}]
        """)
    filters = gen.default_profile.enabled("filter")
    assert filters.index("FilterOne") + 1 == filters.index("NodeResourcesFit") == len(filters) - 1
    gen = build("""\
        profiles:
        - plugins:
            filter:
              enabled: [{name: FilterOne}, {name: NodeResourcesFit}]
        """)
    filters = gen.default_profile.enabled("filter")
    assert filters.index("NodeResourcesFit") < filters.index("FilterOne") == len(filters) - 1


def test_disable_one_default_at_one_point(in_tmp: Path) -> None:
    gen = build("""\
        profiles:
        - plugins:
            filter:
              disabled: [{name: NodeResourcesFit}]
        """)
    fw = gen.default_profile
    assert "NodeResourcesFit" not in fw.enabled("filter")
    assert "NodeResourcesFit" in fw.enabled("score")  # other points untouched


def test_star_disable_then_enable_at_one_point(in_tmp: Path) -> None:
    gen = build("""\
        profiles:
        - plugins:
            filter:
              disabled: [{name: "*"}]
              enabled: [{name: FilterOne}]
        """)
    fw = gen.default_profile
    assert fw.enabled("filter") == ["FilterOne"]
    assert "NodeResourcesFit" in fw.enabled("score")


def test_percentage_of_nodes_to_score_bounds(in_tmp: Path) -> None:
    msg = config_error("percentageOfNodesToScore: 101\n")
    assert msg.startswith("config.yaml: percentageOfNodesToScore: ")
    msg = config_error("profiles:\n- percentageOfNodesToScore: -1\n")
    assert msg.startswith("config.yaml: profiles[0].percentageOfNodesToScore: ")


# ---- errors ---------------------------------------------------------------------------------
def test_unknown_plugin_names_path_and_available(in_tmp: Path) -> None:
    msg = config_error("""\
        profiles:
        - plugins:
            filter:
              enabled:
              - name: FilterOne
              - name: FilterTwo
              - name: NodeResourceFit
        """)
    prefix = "config.yaml: profiles[0].plugins.filter.enabled[2]: unknown plugin 'NodeResourceFit'; available: "
    assert msg.startswith(prefix)
    available = msg[len(prefix):].split(", ")
    assert available == sorted(available)
    assert {"NodeResourcesFit", "PrioritySort", "FilterOne", "DefaultBinder"} <= set(available)


def test_unknown_plugin_in_second_profile_multipoint(in_tmp: Path) -> None:
    msg = config_error("""\
        profiles:
        - schedulerName: a
        - schedulerName: b
          plugins:
            multiPoint:
              enabled: [{name: Nope}]
        """)
    assert msg.startswith("config.yaml: profiles[1].plugins.multiPoint.enabled[0]: unknown plugin 'Nope'; available: ")


def test_path_is_reported_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tmp_path / "conf"
    sub.mkdir()
    (sub / "sched.yaml").write_text(HEADER + "profiles:\n- plugins:\n    score:\n      enabled: [{name: Nope}]\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^conf/sched\.yaml: profiles\[0\]\.plugins\.score\.enabled\[0\]: "):
        build_generation("conf/sched.yaml")
    with pytest.raises(ConfigError, match=rf"^{sub / 'sched.yaml'}: "):
        build_generation(sub / "sched.yaml")


def test_unknown_fields_are_accepted_with_a_note(in_tmp: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kubeberth.runtime.config")
    config = load_configuration(write_config("""\
        featureGates: {SchedulerQueueingHints: true}
        profiles:
        - schedulerName: x
          mystery: 1
          plugins:
            filter:
              enabled: [{name: NodeResourcesFit, extra: yes}]
        """))
    assert config.profiles[0].schedulerName == "x"
    notes = {r.getMessage() for r in caplog.records if r.levelno == logging.INFO}
    assert "config.yaml: featureGates is accepted but not used by kubeberth" in notes
    assert "config.yaml: profiles[0].mystery is accepted but not used by kubeberth" in notes
    assert "config.yaml: profiles[0].plugins.filter.enabled[0].extra is accepted but not used by kubeberth" in notes
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_invalid_yaml_names_the_line(in_tmp: Path) -> None:
    body = HEADER + "profiles:\n- schedulerName: a\n  plugins: [unclosed\n"
    msg = config_error(body, raw=True)
    assert msg.startswith("config.yaml: line ")
    assert "invalid YAML" in msg
    line = int(msg.split("line ")[1].split(":")[0])
    assert 5 <= line <= 6  # the error is at (or right after) the unclosed flow sequence


def test_tab_indentation_error_line(in_tmp: Path) -> None:
    msg = config_error(HEADER + "profiles:\n\t- schedulerName: a\n", raw=True)
    assert msg.startswith("config.yaml: line 4: invalid YAML")


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match=r"^/nonexistent/x\.yaml: cannot read: "):
        load_configuration("/nonexistent/x.yaml")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
            "config.yaml: apiVersion: expected kubescheduler.config.k8s.io/v1, got 'kubescheduler.config.k8s.io/v1beta3'",
        ),
        (
            f"apiVersion: {API_VERSION}\nkind: KubeProxyConfiguration\n",
            "config.yaml: kind: expected KubeSchedulerConfiguration, got 'KubeProxyConfiguration'",
        ),
        ("- a\n- b\n", "config.yaml: expected a KubeSchedulerConfiguration mapping, got list"),
    ],
)
def test_wrong_api_version_or_kind(in_tmp: Path, body: str, expected: str) -> None:
    assert config_error(body, raw=True) == expected


def test_duplicate_scheduler_name(in_tmp: Path) -> None:
    msg = config_error("profiles:\n- schedulerName: a\n- schedulerName: b\n- schedulerName: a\n")
    assert msg == "config.yaml: profiles: duplicate schedulerName 'a'"


def test_no_profiles(in_tmp: Path) -> None:
    assert config_error("profiles: []\n") == "config.yaml: profiles: at least one profile is required"


def test_max_backoff_below_initial(in_tmp: Path) -> None:
    msg = config_error("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n")
    assert msg == "config.yaml: podMaxBackoffSeconds: must be >= podInitialBackoffSeconds"


def test_non_positive_backoff(in_tmp: Path) -> None:
    msg = config_error("podInitialBackoffSeconds: 0\n")
    assert msg.startswith("config.yaml: podInitialBackoffSeconds: ")


def test_wrong_type_names_the_field(in_tmp: Path) -> None:
    msg = config_error("profiles:\n- plugins:\n    score:\n      enabled: [{name: ScoreOnly, weight: heavy}]\n")
    assert msg.startswith("config.yaml: profiles[0].plugins.score.enabled[0].weight: ")


def test_plugin_enabled_at_a_point_it_does_not_implement(in_tmp: Path) -> None:
    msg = config_error("profiles:\n- plugins:\n    filter:\n      enabled: [{name: ScoreOnly}]\n")
    assert msg == (
        "config.yaml: profiles[0].plugins.filter.enabled[0]: plugin 'ScoreOnly' does not implement filter; "
        "it implements score"
    )


def test_two_queue_sort_plugins_in_one_profile(in_tmp: Path) -> None:
    msg = config_error("profiles:\n- plugins:\n    queueSort:\n      enabled: [{name: FifoSort}]\n")
    assert msg.startswith("config.yaml: profiles[0].plugins.queueSort: only one queueSort plugin may be enabled")
    assert "PrioritySort" in msg and "FifoSort" in msg


def test_profiles_must_agree_on_queue_sort(in_tmp: Path) -> None:
    msg = config_error("""\
        profiles:
        - schedulerName: a
        - schedulerName: b
          plugins:
            queueSort:
              disabled: [{name: "*"}]
              enabled: [{name: FifoSort}]
        """)
    assert msg.startswith("config.yaml: profiles: all profiles must use the same queueSort plugin")


def test_duplicate_plugin_config_entry(in_tmp: Path) -> None:
    msg = config_error("""\
        profiles:
        - pluginConfig:
          - {name: NodeResourcesFit, args: {}}
          - {name: NodeResourcesFit, args: {}}
        """)
    assert msg == "config.yaml: profiles[0].pluginConfig[1]: duplicate entry for 'NodeResourcesFit'"


def test_same_plugin_enabled_twice_at_one_point(in_tmp: Path) -> None:
    """kube-scheduler refuses a plugin listed twice at one extension point."""
    msg = config_error("profiles:\n- plugins:\n    filter:\n      enabled: [{name: FilterOne}, {name: FilterOne}]\n")
    assert msg.startswith("config.yaml: profiles[0].plugins.filter.enabled[1]: ")
    assert "'FilterOne'" in msg and "more than once" in msg


def test_parse_configuration_default_source() -> None:
    with pytest.raises(ConfigError, match=r"^<config>: kind: "):
        parse_configuration({"kind": "Pod"})

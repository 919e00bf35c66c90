"""Feature gates and the default profile are kube-scheduler v1.37.2's.

The upstream side is read from the Go module cache (CI provisions it with scripts/provision-k8s.sh):
kube_features.go for the gates, default_plugins.go (getDefaultPlugins + applyFeatureGates) and
names.go for the default profile.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from kubeberth import FeatureGates, Handle, NodeView, hookimpl
from kubeberth.cache.podinfo import PodInfo
from kubeberth.errors import ConfigError
from kubeberth.runtime.config import GATE_RULES, GATED_PLUGINS, default_multipoint
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import SchedulerTester, make_node, make_pod

ROOT = Path(__file__).resolve().parent.parent

# Default-profile plugins kubeberth does not implement yet. Whoever lands one removes it here;
# the comparison with upstream then covers it.
PENDING_DEFAULT_PLUGINS: frozenset[str] = frozenset()


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gates_script = _load("feature_gates")
SCHED = _load("upstream_cases").scheduler_dir()
needs_cache = pytest.mark.skipif(
    SCHED is None, reason="kube-scheduler v1.37.2 is not in the Go module cache; run scripts/provision-k8s.sh"
)

_PLUGIN = re.compile(r"v1\.Plugin\{Name: names\.(\w+)(?:, Weight: ptr\.To\[int32\]\((\d+)\))?\}")


def _func(text: str, name: str) -> str:
    start = text.index(f"\nfunc {name}(")
    return text[start : text.index("\n}\n", start)]


def upstream_profile(sched: Path) -> tuple[list[tuple[str, int]], list[tuple[str, list[tuple[str, int]], str | None]]]:
    """(getDefaultPlugins' list, [(gate, plugins added, inserted before)] of applyFeatureGates)."""
    names = dict(
        re.findall(r'^\t(\w+)\s*=\s*"(\w+)"', (sched / "framework/plugins/names/names.go").read_text(), re.M)
    )
    text = (sched / "apis/config/v1/default_plugins.go").read_text()
    base_text = _func(text, "getDefaultPlugins")
    base = [(names[n], int(w or 0)) for n, w in re.findall(r"\{Name: names\.(\w+)(?:, Weight: ptr\.To\[int32\]\((\d+)\))?\}", base_text)]
    rules = []
    gates_text = _func(text, "applyFeatureGates")
    for gate, body in re.findall(r"Enabled\(features\.(\w+)\) \{(.*?)\n\t\}", gates_text, re.S):
        called = re.search(r"(apply\w+)\(config\)", body)
        if called:
            body = _func(text, called.group(1))
        # dict: a function that inserts, or appends when its anchor is missing, names the plugin twice
        added = list(dict.fromkeys((names[n], int(w or 0)) for n, w in _PLUGIN.findall(body)))
        before = re.search(r"== names\.(\w+)", body)
        rules.append((gate, added, names[before.group(1)] if before else None))
    return base, rules


def _apply(base: list[tuple[str, int]], rules, gates: FeatureGates) -> list[tuple[str, int]]:
    plugins = list(base)
    for gate, added, before in rules:
        if gates.enabled(gate):
            at = next((i for i, (n, _) in enumerate(plugins) if n == before), len(plugins))
            plugins[at:at] = added
    return plugins


ALL_ON = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,InPlacePodVerticalScalingSchedulerPreemption=true"


@needs_cache
@pytest.mark.parametrize("gates", ["", ALL_ON], ids=["default gates", "every scheduler gate on"])
def test_default_profile_equals_upstream_after_apply_feature_gates(gates: str) -> None:
    base, rules = upstream_profile(SCHED)
    assert len(base) > 15 and len(rules) >= 5  # the parser still reads the Go source
    parsed = FeatureGates.parse(gates)
    assert list(default_multipoint(parsed)) == _apply(base, rules, parsed)
    assert [(r.gate, list(r.plugins), r.before) for r in GATE_RULES] == rules


@needs_cache
def test_built_default_profile_is_upstream_but_the_pending_plugins() -> None:
    """What a default configuration really runs: upstream's list, minus plugins not implemented yet."""
    base, rules = upstream_profile(SCHED)
    upstream = [n for n, _ in _apply(base, rules, FeatureGates())]
    fw = build_generation().default_profile
    ran = [n for n in upstream if n in fw.plugins]
    assert sorted(set(upstream) - set(ran)) == sorted(PENDING_DEFAULT_PLUGINS)
    weights = dict(_apply(base, rules, FeatureGates()))
    # getValidScoreWeights: a score plugin listed without a weight (VolumeBinding) weighs 1.
    assert fw.score_weights() == {n: weights[n] or 1 for n in fw.enabled("score")}
    assert set(fw.plugins) == set(ran)


@needs_cache
def test_committed_gate_table_is_upstreams() -> None:
    done = subprocess.run([sys.executable, str(gates_script.__file__), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@needs_cache
def test_gate_defaults_read_from_kube_features() -> None:
    specs, deps = gates_script.parse(gates_script.feature_files())
    assert specs["GenericWorkload"] == (False, "Beta", False)
    assert specs["OpportunisticBatching"] == (True, "Beta", False)
    assert specs["NodeDeclaredFeatures"] == (True, "GA", True)
    assert specs["DynamicResourceAllocation"] == (True, "GA", True)
    # A spec with a MinCompatibilityVersion above 1.36 does not apply at the default compatibility version.
    assert specs["DRAFractionalCapacityRange"] == (False, "Beta", False)
    assert deps["TopologyAwareWorkloadScheduling"] == ("GenericWorkload",)


def test_defaults_and_overrides() -> None:
    gates = FeatureGates()
    assert gates.enabled("OpportunisticBatching") and not gates.enabled("GenericWorkload")
    assert gates["NodeDeclaredFeatures"] and gates["DynamicResourceAllocation"]
    on = FeatureGates.parse("GenericWorkload=true, OpportunisticBatching=false")
    assert on["GenericWorkload"] and not on["OpportunisticBatching"]
    assert str(on) == "GenericWorkload=true,OpportunisticBatching=false"
    assert FeatureGates.parse("NodeDeclaredFeatures=true")["NodeDeclaredFeatures"]  # locked, set to its default
    with pytest.raises(KeyError, match="NoSuchGate"):
        gates.enabled("NoSuchGate")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NoSuchGate=true", "--feature-gates: unrecognized feature gate: NoSuchGate"),
        ("NodeDeclaredFeatures=false", "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true"),
        ("DynamicResourceAllocation=false", "feature is locked to true"),
        ("GenericWorkload", "missing bool value for GenericWorkload"),
        ("GenericWorkload=yes", "invalid value of GenericWorkload=yes"),
        (
            "TopologyAwareWorkloadScheduling=true",
            "TopologyAwareWorkloadScheduling is enabled, but depends on features that are disabled: [GenericWorkload]",
        ),
    ],
)
def test_bad_gates_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        FeatureGates.parse(text)


def test_gates_decide_the_default_profile() -> None:
    names = [n for n, _ in default_multipoint()]
    assert "GangScheduling" not in names and "NodeDeclaredFeatures" in names
    assert names.index("DynamicResources") == names.index("DefaultPreemption") - 1
    on = [n for n, _ in default_multipoint(FeatureGates.parse(ALL_ON))]
    assert on[-3:] == ["GangScheduling", "TopologyPlacementGenerator", "PodGroupPodsCount"]
    assert on.index("DeferredPodScheduling") == on.index("NodeResourcesFit") - 1
    assert GATED_PLUGINS["GangScheduling"] == "GenericWorkload"


class GateReader:
    """Reads the gates at construction and through its handle."""

    name = "GateReader"

    def __init__(self, feature_gates: FeatureGates) -> None:
        self.at_init = feature_gates.enabled("GenericWorkload")
        self.seen: list[bool] = []

    @hookimpl
    def filter(self, pod: PodInfo, nodes: NodeView, handle: Handle) -> None:
        self.seen.append(handle.feature_gates.enabled("GenericWorkload"))


@pytest.mark.parametrize("value", [False, True])
def test_plugins_read_gates_from_constructor_and_handle(value: bool) -> None:
    with SchedulerTester([GateReader], feature_gates={"GenericWorkload": value}) as t:
        t.add(make_node("n1"))
        assert t.schedule(make_pod("p")) == {"p": "n1"}
        plugin = t.generation.default_profile.plugins["GateReader"]
        assert plugin.at_init is value and plugin.seen == [value]
        assert t.generation.feature_gates["GenericWorkload"] is value


def test_cli_rejects_bad_gates_with_exit_2(tmp_path: Path) -> None:
    for command in (["simulate", "--nodes", "2", "--pods", "2"], ["plugins", "list"], ["run", "--embedded"]):
        done = subprocess.run(
            [sys.executable, "-m", "kubeberth", *command, "--feature-gates", "NodeDeclaredFeatures=false"],
            capture_output=True, text=True, cwd=tmp_path, timeout=120,
        )
        assert done.returncode == 2, (command, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert lines == ["error: --feature-gates (KUBEBERTH_FEATURE_GATES): cannot set feature gate "
                         "NodeDeclaredFeatures to false, feature is locked to true"], command


def test_settings_read_gates_from_the_environment(tmp_path: Path) -> None:
    env = {"KUBEBERTH_FEATURE_GATES": "Bogus=true", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "kubeberth", "simulate", "--nodes", "1", "--pods", "1"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )
    assert done.returncode == 2 and "unrecognized feature gate: Bogus" in done.stderr


def test_plugins_list_shows_what_a_gate_turned_on_or_off() -> None:
    def listing(*extra: str) -> dict[str, dict]:
        done = subprocess.run(
            [sys.executable, "-m", "kubeberth", "plugins", "list", "--json", *extra], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        import json

        return {r["name"]: r for r in json.loads(done.stdout)}

    default = listing()
    assert default["GangScheduling"]["default_profile"] == "no[GenericWorkload=false]"
    assert default["NodeResourcesFit"]["default_profile"] == "yes"
    assert default["NodeDeclaredFeatures"]["default_profile"] == "yes[NodeDeclaredFeatures=true]"
    assert default["DynamicResources"]["default_profile"] == "yes[DynamicResourceAllocation=true]"
    on = listing("--feature-gates", "GenericWorkload=true")
    assert on["GangScheduling"]["default_profile"] == "yes[GenericWorkload=true]"

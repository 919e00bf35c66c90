"""`kubeberth new-plugin NAME`: a pip-installable plugin package that passes its own tests.

The "10 minutes to your first plugin" path: a pyproject declaring the `kubeberth.plugins` entry
point, one plugin module with a typed Args model, a configuration that enables it, a small
cluster to simulate, a README, and tests written with `kubeberth.testing`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..errors import KubeberthError

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$")


@dataclass(frozen=True)
class PluginNames:
    """The spellings of one plugin name: `TeamNodes`, `team_nodes`, `kubeberth-team-nodes`, `kubeberth_team_nodes`."""

    plugin: str
    module: str
    dist: str
    package: str

    @classmethod
    def parse(cls, name: str) -> PluginNames:
        if not _NAME.match(name):
            raise KubeberthError(
                f"new-plugin: {name!r} is not a plugin name; use letters and digits, e.g. TeamNodes or team-nodes"
            )
        if "-" in name or "_" in name or name.islower():
            words = [w for w in re.split(r"[-_]", name) if w]
        else:
            words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)
        plugin = "".join(w[:1].upper() + w[1:] for w in words)
        module = "_".join(w.lower() for w in words)
        return cls(plugin, module, f"kubeberth-{module.replace('_', '-')}", f"kubeberth_{module}")


def render(names: PluginNames) -> dict[str, str]:
    """Relative path -> file content of the package."""
    values = {"plugin": names.plugin, "module": names.module, "dist": names.dist, "package": names.package}
    return {Template(path).substitute(values): Template(text).substitute(values) for path, text in _FILES.items()}


def create(name: str, directory: Path | None = None) -> Path:
    """Write the package for plugin `name` into `directory` (default ./kubeberth-<name>); returns it."""
    names = PluginNames.parse(name)
    target = directory if directory is not None else Path(names.dist)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise KubeberthError(f"new-plugin: {target} already exists and is not an empty folder; choose another --dir")
    for rel, text in render(names).items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return target


_PYPROJECT = '''\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "0.1.0"
description = "$plugin: a kubeberth scheduling plugin"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["kubeberth"]

[project.optional-dependencies]
test = ["pytest>=8"]

# How kubeberth finds the plugin once the package is installed (`kubeberth plugins list` shows it).
[project.entry-points."kubeberth.plugins"]
$plugin = "$package.$module:$plugin"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.ruff]
line-length = 110
src = ["src"]

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP", "SIM"]
'''

_PLUGIN = '''\
"""$plugin: pods labelled `<label>=X` run only on nodes labelled `<label>=X`; then prefer the
nodes with the most free pod slots.

Replace the hooks with your policy. Hook names are the extension points in snake_case (filter,
score, normalize_score, pre_filter, reserve, permit, ...); a hook asks for the arguments it needs
by name (pod, nodes, state, cluster, handle). Batch hooks get `nodes`, a NodeView over the
candidate nodes, and return arrays aligned with it.
"""

from __future__ import annotations

import numpy as np
from kubeberth import MAX_NODE_SCORE, Code, FilterResult, NodeView, PodView, StrictArgs, hookimpl
from pydantic import Field


class $plugin:
    """Keep a team's pods on the team's nodes, spread over the emptiest ones."""

    name = "$plugin"

    class Args(StrictArgs):
        """Filled from the profile's `pluginConfig` entry for $plugin; unknown keys are an error."""

        label: str = Field("team", description="the pod and node label naming the team")

    def __init__(self, args: Args | None = None) -> None:
        self.label = (args or self.Args()).label

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        team = pod.labels.get(self.label)
        if team is None:
            return None  # no team: every node passes
        ids, values = nodes.label_values(self.label)  # ids index `values`; -1: label missing
        wanted = values.index(team) if team in values else -2
        # Unresolvable: preemption skips these nodes, since evicting pods cannot make them fit.
        return FilterResult.reject_where(
            ids != wanted, f"node(s) are not for {self.label} {team}", Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        )

    @hookimpl
    def score(self, pod: PodView, nodes: NodeView) -> np.ndarray:
        return nodes.allocatable("pods") - nodes.requested("pods")  # free pod slots, any scale

    @hookimpl
    def normalize_score(self, scores: np.ndarray) -> np.ndarray:
        """Scores must end in [0, MAX_NODE_SCORE]: the emptiest node gets the full score."""
        top = int(scores.max()) if scores.size else 0
        return scores * MAX_NODE_SCORE // top if top > 0 else np.zeros_like(scores)
'''

_INIT = '''\
"""$plugin, a kubeberth scheduling plugin."""

from .$module import $plugin

__all__ = ["$plugin"]
'''

_TEST = '''\
"""$plugin through the real kubeberth framework, with the fixtures of kubeberth.testing."""

from __future__ import annotations

import pytest
from kubeberth.errors import ConfigError
from kubeberth.testing import SchedulerTester, make_node, make_pod

from $package.$module import $plugin


@pytest.fixture
def nodes() -> list[dict]:
    return [
        make_node("a-small", pods=10, labels={"team": "a"}),
        make_node("a-big", pods=40, labels={"team": "a"}),
        make_node("b", pods=110, labels={"team": "b"}),
    ]


def test_filter_keeps_a_teams_pods_on_its_nodes(scheduler_tester, nodes) -> None:
    t = scheduler_tester([$plugin], objects=nodes)
    ev = t.evaluate(make_pod("web", labels={"team": "a"}))
    assert ev.reasons == {"a-small": None, "a-big": None, "b": "node(s) are not for team a"}


def test_pods_without_a_team_may_go_anywhere(scheduler_tester, nodes) -> None:
    t = scheduler_tester([$plugin], objects=nodes)
    assert t.evaluate(make_pod("tool")).feasible == ["a-small", "a-big", "b"]


def test_score_prefers_free_pod_slots(scheduler_tester, nodes) -> None:
    t = scheduler_tester([$plugin], objects=nodes)
    ev = t.evaluate(make_pod("web", labels={"team": "a"}))
    assert ev.scores == {"$plugin": {"a-small": 25, "a-big": 100}}
    assert ev.best == ["a-big"]


def test_label_comes_from_plugin_config(scheduler_tester) -> None:
    nodes = [make_node("x", labels={"squad": "x"}), make_node("y", labels={"squad": "y"})]
    t = scheduler_tester([$plugin], args={"$plugin": {"label": "squad"}}, objects=nodes)
    assert t.schedule(make_pod("p", labels={"squad": "y"})) == {"p": "y"}


def test_misspelt_args_are_an_error() -> None:
    with pytest.raises(ConfigError, match="lable"):
        SchedulerTester([$plugin], args={"$plugin": {"lable": "squad"}})


def test_installed_plugin_is_found_by_name(scheduler_tester, nodes) -> None:
    """The entry point in pyproject.toml registers the plugin: a configuration can name it."""
    t = scheduler_tester(["$plugin"], objects=nodes)
    placed = t.schedule(*(make_pod(f"web-{i}", labels={"team": "a"}) for i in range(4)))
    assert set(placed.values()) == {"a-big"}  # the emptiest team node stays the emptiest for four pods
'''

_CONFIG = '''\
# Enables $plugin on top of kube-scheduler's default profile: a plugin does nothing until a
# profile enables it.
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
  plugins:
    multiPoint:
      enabled:
      - name: $plugin
        weight: 2
  pluginConfig:
  - name: $plugin
    args:
      label: team
'''

_CLUSTER = '''\
# Two team nodes and one general node; `kubeberth simulate --cluster cluster.yaml` schedules the pods.
apiVersion: v1
kind: Node
metadata: {name: team-a-1, labels: {team: a}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: team-a-2, labels: {team: a}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: general}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default, labels: {team: a}}
spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, namespace: default, labels: {team: a}}
spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: default}
spec: {containers: [{name: tool, image: busybox, resources: {requests: {cpu: 100m}}}]}
'''

_README = '''\
# $dist

$plugin, a [kubeberth](https://github.com/kubeberth/kubeberth) scheduling plugin: pods labelled
`team=X` run only on nodes labelled `team=X`, spread over the team nodes with the most free pod
slots. Made with `kubeberth new-plugin`; change `src/$package/$module.py` to your policy.

## Develop

    pip install -e '.[test]'
    pytest                                   # tests/ use kubeberth.testing
    kubeberth plugins list                   # $plugin, from entrypoint:$dist
    kubeberth simulate --config scheduler-config.yaml --cluster cluster.yaml --json --placements

A plugin does nothing until a profile enables it: `scheduler-config.yaml` enables $plugin on
top of the default profile and sets its args (`label`). Use the same file with
`kubeberth run --config scheduler-config.yaml` on a real cluster.

## Args

| key   | default | meaning |
|-------|---------|---------|
| label | team    | the pod and node label naming the team |
'''

_FILES = {
    "pyproject.toml": _PYPROJECT,
    "README.md": _README,
    "scheduler-config.yaml": _CONFIG,
    "cluster.yaml": _CLUSTER,
    "src/$package/__init__.py": _INIT,
    "src/$package/$module.py": _PLUGIN,
    "tests/test_$module.py": _TEST,
}

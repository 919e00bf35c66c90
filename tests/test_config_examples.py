"""The shipped example configurations load and build a generation."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from kubeberth.apps.simulate import load_manifests
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation

CONFIG = Path(__file__).resolve().parent.parent / "config"
EXAMPLES = sorted((CONFIG / "examples").glob("*.yaml"))
CLUSTERS = [p for p in EXAMPLES if p.name.endswith("-cluster.yaml")]


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p not in CLUSTERS], ids=lambda p: p.name)
def test_example_builds(path: Path) -> None:
    generation = build_generation(path)
    assert "kubeberth" in generation.profiles
    assert generation.default_profile.enabled("bind") == ["DefaultBinder"]


@pytest.mark.parametrize("path", CLUSTERS, ids=lambda p: p.name)
def test_example_cluster_loads(path: Path) -> None:
    kinds = [o["kind"] for o in load_manifests(path)]
    assert "Node" in kinds and "Pod" in kinds


def test_deployment_configmap_holds_a_valid_configuration() -> None:
    docs = [d for d in yaml.safe_load_all((CONFIG / "scheduler-config.yaml").read_text()) if d]
    configmap = next(d for d in docs if d["kind"] == "ConfigMap")
    (text,) = configmap["data"].values()
    config = parse_configuration(yaml.safe_load(text), "scheduler-config.yaml")
    assert config.leaderElection.leaderElect
    assert config.profiles[0].schedulerName == "kubeberth"


def test_binpack_profile_uses_most_allocated() -> None:
    generation = build_generation(CONFIG / "examples" / "bin-packing.yaml")
    binpack = generation.profiles["kubeberth-binpack"]
    assert "NodeResourcesBalancedAllocation" not in binpack.enabled("score")
    assert "NodeResourcesBalancedAllocation" in generation.profiles["kubeberth"].enabled("score")

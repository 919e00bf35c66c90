"""The image recipe and the manifests agree with the package: version, extras, pins, labels.

(The chart and the kustomize base against a real kube-apiserver: tests/e2e/test_chart_e2e.py.)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import kubeberth
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = (REPO / "Dockerfile").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
IMAGE_EXTRAS = ["contrib", "otlp-grpc"]


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version, f"constraints.txt: {line!r} is not name==version"
            pins[canonicalize_name(name)] = version
    return pins


def _requirements() -> list[Requirement]:
    """The image's requirements: the dependencies and the image's extras, as pyproject says."""
    project = PYPROJECT["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in IMAGE_EXTRAS:
        reqs += [Requirement(r) for r in project["optional-dependencies"][extra]]
    reqs += [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    return reqs


def test_the_image_installs_the_extras_pyproject_defines() -> None:
    assert f'".[{",".join(IMAGE_EXTRAS)}]"' in DOCKERFILE
    script = (REPO / "scripts" / "update-constraints.sh").read_text()
    assert f"EXTRAS=({' '.join(IMAGE_EXTRAS)})" in script
    assert set(IMAGE_EXTRAS) <= set(PYPROJECT["project"]["optional-dependencies"])


@pytest.mark.parametrize("req", _requirements(), ids=str)
def test_constraints_pin_every_requirement_within_its_bounds(req: Requirement) -> None:
    pins = _pins()
    name = canonicalize_name(req.name)
    assert name in pins, f"{req.name} is not pinned in constraints.txt: run scripts/update-constraints.sh"
    assert req.specifier.contains(pins[name], prereleases=True), (
        f"constraints.txt pins {req.name}=={pins[name]}, outside pyproject's {req}: run scripts/update-constraints.sh")


def test_image_is_pinned_labelled_and_non_root() -> None:
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, re.M)
    assert base and re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", base.group(1))
    version = re.search(r"^ARG VERSION=(\S+)$", DOCKERFILE, re.M)
    assert version and version.group(1) == kubeberth.__version__
    labels = set(re.findall(r"(org\.opencontainers\.image\.[a-z.]+)=", DOCKERFILE))
    assert {f"org.opencontainers.image.{k}" for k in ("title", "description", "version", "revision", "created",
                                                       "licenses", "source", "url", "base.name")} <= labels
    assert f'org.opencontainers.image.licenses="{PYPROJECT["project"]["license"]}"' in DOCKERFILE
    final_stage = DOCKERFILE.rsplit("\nFROM ", 1)[1]
    assert re.search(r"^USER 10001:10001$", final_stage, re.M)
    assert "COPY constraints.txt" in DOCKERFILE and "PIP_CONSTRAINT=/src/constraints.txt" in DOCKERFILE


def test_plugins_recipe_uses_the_pins_the_image_ships() -> None:
    recipe = (REPO / "config" / "examples" / "Dockerfile.plugins").read_text()
    assert "/opt/kubeberth/share/kubeberth/constraints.txt" in DOCKERFILE
    assert "--constraint /opt/kubeberth/share/kubeberth/constraints.txt" in recipe
    assert f"ARG KUBEBERTH_IMAGE=kubeberth:{kubeberth.__version__}" in recipe
    assert re.search(r"^USER 10001:10001$", recipe, re.M)


def test_manifests_and_chart_name_the_package_version() -> None:
    version = kubeberth.__version__
    kustomization = yaml.safe_load((REPO / "config" / "kustomization.yaml").read_text())
    assert kustomization["images"] == [{"name": "kubeberth", "newTag": version}]
    deployment = yaml.safe_load((REPO / "config" / "deployment.yaml").read_text())
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == f"kubeberth:{version}"
    chart = yaml.safe_load((REPO / "charts" / "kubeberth" / "Chart.yaml").read_text())
    assert chart["appVersion"] == version
    readme = (REPO / "README.md").read_text()
    assert f"docker build -t registry.example.com/kubeberth:{version} ." in readme

#!/usr/bin/env python3
"""Generate core/api/feature_gate_specs.py from kube-scheduler v1.37.2's feature gates.

Reads `pkg/features/kube_features.go` of k8s.io/kubernetes and client-go's `features/known_features.go`
(kube binaries register client-go's gates on the same --feature-gates) in the Go module cache (filled
by scripts/provision-k8s.sh): every gate's versioned specs, resolved at emulation version 1.37 with
minimum compatibility version 1.36 as component-base's featureSpecAtEmulationAndMinCompatVersion
does, and the gate dependencies. The generated table is committed, so kubeberth needs no Go
toolchain; tests/test_feature_gates.py checks it still equals this script's output.

    python scripts/feature_gates.py           # rewrite core/api/feature_gate_specs.py
    python scripts/feature_gates.py --check   # exit 1 when the committed table is stale
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "core" / "api" / "feature_gate_specs.py"
EMULATION = (1, 37)
MIN_COMPATIBILITY = (1, 36)

_ENTRY = re.compile(r"^\t(?:\w+\.)?(\w+): \{\s*$")
_SPEC = re.compile(r"^\t\t\{(.*)\},?\s*(?://.*)?$")
_VERSION = re.compile(r'\bVersion: version\.MustParse\("(\d+)\.(\d+)"\)')
_MIN_COMPAT = re.compile(r'MinCompatibilityVersion: version\.MustParse\("(\d+)\.(\d+)"\)')
_DEFAULT = re.compile(r"\bDefault: (true|false)")
_LOCK = re.compile(r"LockToDefault: (true|false)")
_PRERELEASE = re.compile(r"PreRelease: (?:featuregate\.)?(\w+)")
_DEP_NAME = re.compile(r"(\w+)\)*$")  # Name, pkg.Name or featuregate.Feature(pkg.Name)
_DEP = re.compile(r"^\t(?:\w+\.)?(\w+): \{(.*)\},\s*(?://.*)?$")


def _load_script(name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def feature_files() -> list[Path] | None:
    """kube_features.go and client-go's known_features.go in the Go module cache, or None."""
    sched = _load_script("upstream_cases").scheduler_dir()  # type: ignore[attr-defined]
    if sched is None:
        return None
    kube = sched.parent / "features" / "kube_features.go"
    version = sched.parent.parent.name.split("@v1.", 1)[-1]
    client = sched.parent.parent.parent / f"client-go@v0.{version}" / "features" / "known_features.go"
    paths = [kube, client]
    return paths if all(p.is_file() for p in paths) else None


def _block(text: str, start: str) -> list[str]:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    out = []
    for line in lines[first + 1 :]:
        if line == "}":
            break
        out.append(line)
    return out


def parse(paths: list[Path]) -> tuple[dict[str, tuple[bool, str, bool]], dict[str, tuple[str, ...]]]:
    """(gate -> (default, prerelease, locked) at 1.37, gate -> dependencies) from the feature files."""
    specs: dict[str, tuple[bool, str, bool]] = {}
    deps: dict[str, tuple[str, ...]] = {}
    for path in paths:
        _parse_one(path, specs, deps)
    return specs, deps


def _parse_one(path: Path, specs: dict[str, tuple[bool, str, bool]], deps: dict[str, tuple[str, ...]]) -> None:
    text = path.read_text()
    current: str | None = None
    versions: list[tuple[tuple[int, int], tuple[int, int] | None, bool, str, bool]] = []

    def close() -> None:
        if current is None:
            return
        chosen = (False, "PreAlpha", False)
        for ver, min_compat, default, pre, locked in reversed(versions):
            if ver > EMULATION or (min_compat is not None and min_compat > MIN_COMPATIBILITY):
                continue
            chosen = (default, pre, locked)
            break
        specs[current] = chosen

    for line in _block(text, "var defaultVersionedKubernetesFeatureGates"):
        if m := _ENTRY.match(line):
            close()
            current, versions = m.group(1), []
        elif m := _SPEC.match(line):
            body = m.group(1)
            v, d, p = _VERSION.search(body), _DEFAULT.search(body), _PRERELEASE.search(body)
            assert v and d and p, f"{path}: cannot read feature spec {line.strip()!r}"
            mc, lk = _MIN_COMPAT.search(body), _LOCK.search(body)
            versions.append(
                (
                    (int(v.group(1)), int(v.group(2))),
                    (int(mc.group(1)), int(mc.group(2))) if mc else None,
                    d.group(1) == "true",
                    p.group(1),
                    bool(lk and lk.group(1) == "true"),
                )
            )
    close()
    if "var defaultKubernetesFeatureGateDependencies" not in text:
        return
    for line in _block(text, "var defaultKubernetesFeatureGateDependencies"):
        if m := _DEP.match(line):
            names = [_DEP_NAME.search(d.strip()).group(1) for d in m.group(2).split(",") if d.strip()]  # type: ignore[union-attr]
            if names:
                deps[m.group(1)] = tuple(names)


def _q(text: str) -> str:
    return json.dumps(text)


def _tuple(items: tuple[str, ...]) -> str:
    inner = ", ".join(_q(i) for i in items)
    return f"({inner},)" if len(items) == 1 else f"({inner})"


def render(specs: dict[str, tuple[bool, str, bool]], deps: dict[str, tuple[str, ...]]) -> str:
    lines = [
        '"""kube-scheduler v1.37.2 feature gates (generated by scripts/feature_gates.py; do not edit).',
        "",
        "GATES: name -> (default, prerelease, locked to default) at emulation version 1.37.",
        "DEPENDENCIES: name -> gates it needs enabled (component-base's AddDependencies).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "GATES: dict[str, tuple[bool, str, bool]] = {",
    ]
    lines += [f"    {_q(name)}: ({spec[0]}, {_q(spec[1])}, {spec[2]})," for name, spec in sorted(specs.items())]
    lines += ["}", "", "DEPENDENCIES: dict[str, tuple[str, ...]] = {"]
    lines += [f"    {_q(name)}: {_tuple(dep)}," for name, dep in sorted(deps.items())]
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed table is stale")
    args = parser.parse_args(argv)
    path = feature_files()
    if path is None:
        print("kube_features.go or client-go's known_features.go not found in the Go module cache; run scripts/provision-k8s.sh", file=sys.stderr)
        return 2
    text = render(*parse(path))
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run python scripts/feature_gates.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

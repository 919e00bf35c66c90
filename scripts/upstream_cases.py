#!/usr/bin/env python3
"""List kube-scheduler v1.37.2's plugin test cases and diff them against kubeberth's ported ids.

Upstream cases are read from the Go module cache (`$(go env GOMODCACHE)/k8s.io/kubernetes@v1.37.2`,
filled by scripts/provision-k8s.sh) as `TestFunction/case name`, for the plugins kubeberth
implements. Ported ids are the string constants of the form `TestFunction/...` in
tests/builtin_plugins/*.py; intentionally unported cases are listed in tests/upstream_unported.py.

    python scripts/upstream_cases.py            # summary per plugin
    python scripts/upstream_cases.py --missing  # upstream cases neither ported nor listed as unported

Then the same for the integration suite (test/integration/scheduler, one row per test file): a case is
`TestFunction/case name` for a table case and `TestFunction` for a test without a table. Ported ids are the
string constants of that form in tests/e2e/test_*.py that name an integration case; intentionally unported
ones are listed in tests/upstream_unported_integration.py.

Exit code 1 when a ported or unported id names no upstream case (a renamed or invented case).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

K8S_VERSION = "v1.37.2"
ROOT = Path(__file__).resolve().parent.parent
# kube-scheduler plugin folder -> kubeberth builtin plugin module(s)
PLUGIN_DIRS = {
    "defaultbinder": "default_binder",
    "defaultpreemption": "default_preemption",
    "dynamicresources": "dynamic_resources",
    "gangscheduling": "gang_scheduling",
    "imagelocality": "image_locality",
    "interpodaffinity": "inter_pod_affinity",
    "nodeaffinity": "node_affinity",
    "nodedeclaredfeatures": "node_declared_features",
    "nodename": "node_name",
    "nodeports": "node_ports",
    "noderesources": "node_resources_fit / node_resources_balanced_allocation",
    "nodeunschedulable": "node_unschedulable",
    "nodevolumelimits": "node_volume_limits",
    "podgrouppodscount": "pod_group_pods_count",
    "podtopologyspread": "pod_topology_spread",
    "queuesort": "priority_sort",
    "schedulinggates": "scheduling_gates",
    "tainttoleration": "taint_toleration",
    "topologyaware": "topology_placement_generator",
    "volumebinding": "volume_binding",
    "volumerestrictions": "volume_restrictions",
    "volumezone": "volume_zone",
}
# Test files outside the plugin folders, under a label: (path under pkg/scheduler, test functions or None for all),
# with the kubeberth test files their ported ids live in.
EXTRA_SOURCES: dict[str, tuple[tuple[str, tuple[str, ...] | None], ...]] = {
    "batching": (("framework/runtime/batch_test.go", None), ("schedule_one_test.go", ("TestSignatures",))),
    "prebindpreflight": (
        ("framework/runtime/framework_test.go", ("TestPreBindPreFlightPlugins", "TestGetPreBindPluginGroups")),
        ("schedule_one_test.go", ("TestSchedulerScheduleOne",)),
    ),
    # DefaultPreemption's workload-aware building blocks (ported in tests/builtin_plugins/)
    "preemption": (
        ("framework/preemption/util_test.go", ("TestFilterVictimsWithPDBViolation", "TestMoreImportantVictim")),
        ("framework/preemption/types_test.go", ("TestNewPodGroupPreemptorResolvesPreemptionPolicy",)),
        ("framework/preemption/podgrouppreemption_test.go",
         ("TestPodGroupEvaluator_SelectVictimsOnDomain", "TestPodGroupEvaluator_Preempt")),
        ("framework/preemption/executor_test.go", ("TestIsPodRunningPreemption", "TestIsPodGroupRunningPreemption")),
    ),
    # the failure handler's status write (ported in tests/test_status_writer.py)
    "statuswrite": (("schedule_one_test.go", ("TestUpdatePodStatus",)),),
    # the backoff queue: getBackoffTime, the backoff durations, its flush and its ordering window
    # (ported in tests/test_backoff_queue_upstream.py)
    "backoffqueue": (("backend/queue/backoff_queue_test.go", None),),
}
EXTRA_TESTS = ("test_batching.py", "test_signing.py", "test_prebind_pre_flight.py", "test_status_writer.py",
               "test_backoff_queue_upstream.py")
_FUNC = re.compile(r"^func (Test\w+)\(", re.M)
_NAME = re.compile(r'\b(?:name|test):\s*((?:"(?:[^"\\\n]|\\.)*"\s*(?:\+\s*)?)+)', re.S)  # `test:` in older tables
# Folders whose tables are maps keyed by case name (`"case": {` two tabs in), some filled in
# lower-case helpers that the Test function of the same name runs (testPlugin for TestPlugin).
MAP_KEYED = {
    "dynamicresources", "nodeaffinity", "nodeports", "noderesources", "tainttoleration", "topologyaware",
    "volumebinding", "volumerestrictions", "volumezone",
}
_ANY_FUNC = re.compile(r"^func (\w+)\(", re.M)
_MAP_KEY = re.compile(r'^\t\t"((?:[^"\\\n]|\\.)*)": \{', re.M)
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_PORTED = re.compile(r"^Test\w+/.+")


def scheduler_dir() -> Path | None:
    """pkg/scheduler of kube-scheduler in the Go module cache, or None when it is not provisioned."""
    cache = os.environ.get("GOMODCACHE")
    if not cache:
        try:
            cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            cache = str(Path.home() / "go" / "pkg" / "mod")
    path = Path(cache) / "k8s.io" / f"kubernetes@{K8S_VERSION}" / "pkg" / "scheduler"
    return path if path.is_dir() else None


def _cases_in(path: Path, only: tuple[str, ...] | None = None) -> list[str]:
    """`name:` fields of each Test function's table; a `name:` nested deeper than the function's case names
    is a field of an expected value (TestDryRunPreemption's candidates), not a case."""
    text = path.read_text()
    funcs = [(m.start(), m.group(1)) for m in _FUNC.finditer(text)]
    found: list[tuple[str, int, str]] = []
    for m in _NAME.finditer(text):
        owner = [name for pos, name in funcs if pos < m.start()]
        if not owner or (only is not None and owner[-1] not in only):
            continue
        line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        if line.strip() not in ("", "{"):
            continue  # `nodes: []*nodeConfig{{name: "node-1", ...}}`: a field of a nested literal, not a case
        depth = len(line) - len(line.lstrip("\t "))
        name = "".join(bytes(s, "utf-8").decode("unicode_escape") for s in _LITERAL.findall(m.group(1)))
        found.append((owner[-1], depth, name))
    shallowest: dict[str, int] = {}
    for func, depth, _name in found:
        shallowest[func] = min(depth, shallowest.get(func, depth))
    return [f"{func}/{name}" for func, depth, name in found if depth == shallowest[func]]


def _map_cases_in(path: Path) -> list[str]:
    """Cases of map-keyed tables: `TestX/key`, the owner being TestX or the helper testX it runs."""
    text = path.read_text()
    funcs = [(m.start(), m.group(1)) for m in _ANY_FUNC.finditer(text)]
    tests = {name for _pos, name in funcs if name.startswith("Test")}
    cases = []
    for m in _MAP_KEY.finditer(text):
        owner = [name for pos, name in funcs if pos < m.start()]
        if not owner:
            continue
        name = owner[-1]
        if name.startswith("test") and "T" + name[1:] in tests:
            name = "T" + name[1:]
        if not name.startswith("Test"):
            continue
        cases.append(f"{name}/{bytes(m.group(1), 'utf-8').decode('unicode_escape')}")
    return cases


def upstream_cases(sched: Path) -> dict[str, list[str]]:
    """plugin folder (or EXTRA_SOURCES label) -> ["TestFunction/case name", ...] from its *_test.go files."""
    out: dict[str, list[str]] = {}
    for plugin in PLUGIN_DIRS:
        cases: list[str] = []
        for path in sorted((sched / "framework" / "plugins" / plugin).rglob("*_test.go")):
            cases += _cases_in(path)
            if plugin in MAP_KEYED:
                cases += _map_cases_in(path)
        out[plugin] = cases
    for label, sources in EXTRA_SOURCES.items():
        out[label] = [c for rel, only in sources for c in _cases_in(sched / rel, only)]
    return out


def ported_ids(tests_dir: Path = ROOT / "tests" / "builtin_plugins") -> set[str]:
    """String constants shaped `TestFunction/...` in the plugin tests (implicit concatenation joined).

    A transcribed table keeps its excluded cases (the test skips them, with the reason): ids listed in
    tests/upstream_unported.py count as excluded, not ported."""
    found: set[str] = set()
    extra = [tests_dir.parent / name for name in EXTRA_TESTS if (tests_dir.parent / name).is_file()]
    for path in [*sorted(tests_dir.glob("test_*.py")), *extra]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PORTED.match(node.value):
                found.add(node.value)
    return found - set(unported())


def unported() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from upstream_unported import UNPORTED  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return dict(UNPORTED)


_CAP_NAME = re.compile(r'^\t\tName:\s*"((?:[^"\\\n]|\\.)*)"', re.M)
# Non-test files whose package-level tables a Test function runs: file -> (the test function, its table's
# case field at two tabs' depth).
INTEGRATION_SHARED_TABLES = {"queueing/queue.go": "TestCoreResourceEnqueue"}
_PORTED_INTEGRATION = re.compile(r"^Test\w+(/.+)?$")


def integration_dir(sched: Path) -> Path:
    """test/integration/scheduler next to pkg/scheduler in the same module."""
    return sched.parent.parent / "test" / "integration" / "scheduler"


def integration_cases(sched: Path) -> dict[str, list[str]]:
    """test file (relative to test/integration/scheduler) -> its cases. TestMain is no case."""
    root = integration_dir(sched)
    out: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*_test.go")):
        text = path.read_text()
        funcs = [f for f in _FUNC.findall(text) if f != "TestMain"]
        if not funcs:
            continue
        cases = [c for c in [*_cases_in(path), *_map_cases_in(path)] if c.split("/", 1)[0] != "TestMain"]
        rel = str(path.relative_to(root))
        for shared, func in INTEGRATION_SHARED_TABLES.items():
            if func in funcs:
                cases += [f"{func}/{n}" for n in _CAP_NAME.findall((root / shared).read_text())]
        owners = {c.split("/", 1)[0] for c in cases}
        out[rel] = list(dict.fromkeys([*cases, *(f for f in funcs if f not in owners)]))
    return out


def ported_integration_ids(tests_dir: Path = ROOT / "tests" / "e2e") -> set[str]:
    """String constants shaped `TestFunction` or `TestFunction/...` in the e2e tests, less the unported ones.
    (A bare `TestFunction` constant only counts where it names an upstream case: see integration_report.)

    A table dumped from upstream into tests/e2e/upstream_tables/*.json (scripts/upstream_integration_tables.py)
    counts case by case when an e2e test names its Test function (`TestFunction`, the key it runs)."""
    found: set[str] = set()
    for path in sorted(tests_dir.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PORTED_INTEGRATION.match(node.value):
                found.add(node.value)
    for path in sorted((tests_dir / "upstream_tables").glob("*.json")):
        for func, table in json.loads(path.read_text())["tables"].items():
            if func in found:
                names = list(table) if isinstance(table, dict) else [case["name"] for case in table]
                found.update(f"{func}/{name}" for name in names)
    return found - set(unported_integration())


def unported_integration() -> dict[str, str]:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from upstream_unported_integration import UNPORTED_INTEGRATION  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return dict(UNPORTED_INTEGRATION)


def integration_report(sched: Path, missing: bool) -> list[str]:
    """Rows like the plugin rows, per integration test file; the ids that name no upstream case last."""
    cases = integration_cases(sched)
    every = {c for cs in cases.values() for c in cs}
    excluded = unported_integration()
    found = ported_integration_ids()
    ported = {c for c in found if "/" in c or c in every}
    lines = []
    for rel, cs in cases.items():
        names = set(cs)
        done, skip = len(names & ported), len(names & set(excluded))
        lines.append(f"{rel:55} upstream {len(names):4}  ported {done:4}  excluded {skip:4}  "
                     f"open {len(names) - done - skip:4}")
        if missing:
            lines += [f"    {c}" for c in sorted(names - ported - set(excluded))]
    lines.append(f"{'integration total':55} upstream {len(every):4}  ported {len(every & ported):4}  "
                 f"excluded {len(every & set(excluded)):4}  open {len(every - ported - set(excluded)):4}")
    lines += [f"not an upstream integration case: {c}" for c in sorted((ported | set(excluded)) - every)]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list upstream cases neither ported nor excluded")
    args = parser.parse_args()
    sched = scheduler_dir()
    if sched is None:
        print(f"kube-scheduler {K8S_VERSION} is not in the Go module cache: run scripts/provision-k8s.sh", file=sys.stderr)
        return 2
    cases = upstream_cases(sched)
    every = {c for cs in cases.values() for c in cs}
    ported, excluded = ported_ids(), unported()
    bad = sorted((ported | set(excluded)) - every)
    for plugin, cs in cases.items():
        names = set(cs)
        done, skip = len(names & ported), len(names & set(excluded))
        print(f"{plugin:20} upstream {len(names):4}  ported {done:4}  excluded {skip:4}  open {len(names) - done - skip:4}")
        if args.missing:
            for c in sorted(names - ported - set(excluded)):
                print(f"    {c}")
    print(f"{'total':20} upstream {len(every):4}  ported {len(every & ported):4}  excluded {len(every & set(excluded)):4}")
    for c in bad:
        print(f"not an upstream case: {c}", file=sys.stderr)
    print()
    print(f"integration suite (test/integration/scheduler, kube-scheduler {K8S_VERSION})")
    bad_integration = 0
    for line in integration_report(sched, args.missing):
        if line.startswith("not an upstream"):
            bad_integration += 1
            print(line, file=sys.stderr)
        else:
            print(line)
    return 1 if bad or bad_integration else 0


if __name__ == "__main__":
    sys.exit(main())

"""The ported kube-scheduler test cases are upstream's: every `TestFunction/case` id names a real case.

Uses scripts/upstream_cases.py against kube-scheduler v1.37.2 in the Go module cache (CI provisions it
with scripts/provision-k8s.sh).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "upstream_cases.py"


def _load():
    spec = importlib.util.spec_from_file_location("upstream_cases", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


upstream = _load()
SCHED = upstream.scheduler_dir()
needs_cache = pytest.mark.skipif(
    SCHED is None, reason="kube-scheduler v1.37.2 is not in the Go module cache; run scripts/provision-k8s.sh"
)


@needs_cache
def test_ported_and_unported_ids_name_upstream_cases() -> None:
    every = {c for cases in upstream.upstream_cases(SCHED).values() for c in cases}
    assert len(every) > 500  # the parser still reads the tables
    ported, unported = upstream.ported_ids(), upstream.unported()
    assert sorted(ported - every) == []
    assert sorted(set(unported) - every) == []
    assert sorted(ported & set(unported)) == []
    assert all(reason.strip() for reason in unported.values())


@needs_cache
def test_script_reports_and_exits_zero() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "tainttoleration" in done.stdout and "total" in done.stdout


def test_ported_ids_are_found_in_the_plugin_tests() -> None:
    ids = upstream.ported_ids()
    assert "TestImageLocalityPriority/pod with ImageVolume" in ids
    assert "TestLeastAllocatedScoringStrategy/requested resources exceed node capacity" in ids


@needs_cache
def test_integration_ids_name_upstream_integration_cases() -> None:
    cases = upstream.integration_cases(SCHED)
    every = {c for cs in cases.values() for c in cs}
    assert len(cases["filters/filters_test.go"]) == 85 and len(cases["queueing/queue_test.go"]) == 86
    assert "TestInterPodAffinityWithNamespaceSelector/MatchingNamespaces" in every
    assert not any(c.startswith("TestMain") for c in every)
    ported = {c for c in upstream.ported_integration_ids() if "/" in c or c in every}
    # a dumped table counts case by case (tests/e2e/upstream_tables), a transcribed case by its constant
    assert "TestInterPodAffinity/validates that Inter-pod-Affinity is respected if not matching" in ported
    assert "TestUnschedulablePodBecomesSchedulable/pod with pod-affinity gets added" in ported
    unported = upstream.unported_integration()
    assert sorted(ported - every) == []
    assert sorted(set(unported) - every) == []
    assert sorted(ported & set(unported)) == []
    assert all(reason.strip() for reason in unported.values())


@needs_cache
def test_script_reports_the_integration_suite() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("filters/filters_test.go", "integration total"))]
    assert len(rows) == 2 and all(" open " in row for row in rows)

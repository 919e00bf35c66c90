"""`kubeberth bench --scenario`: scheduler_perf workloads on the embedded cluster, the naive
per-node baseline, and the CI guard that the batch path stays well ahead of it."""

from __future__ import annotations

import json

import pytest
from kubeberth.apps.cli import main
from kubeberth.apps.scenario_bench import run_scenario
from kubeberth.apps.scenarios import SCENARIOS
from kubeberth.runtime.generation import build_generation


@pytest.fixture(scope="module")
def generation():
    return build_generation()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_schedules_its_measured_pods(generation, name):
    # Anti-affinity needs a node per pod; preemption fills each node with 4 init pods and makes
    # room for one 3000m pod per node.
    nodes = 40 if name == "SchedulingPodAntiAffinity" else 12
    pods = 12 if name == "PreemptionBasic" else 24
    r = run_scenario(generation, SCENARIOS[name], nodes=nodes, pods=pods, init_pods=48 if name == "PreemptionBasic" else 12)
    assert r["scheduled"] == pods, r
    assert r["pods_per_second"] > 0 and r["attempt_p99_ms"] >= r["attempt_p50_ms"] > 0
    if name == "PreemptionBasic":
        # 4 low-priority 900m pods fill 3.6 of 4 cpus: every 3000m pod preempts before it fits.
        assert r["preemptions"] == 12 and r["unschedulable_attempts"] == 12
    if name == "Unschedulable":
        assert r["mixed_pods"] > 0 and r["unschedulable_attempts"] == r["mixed_pods"]


def test_mixed_scenario_runs_every_kind_and_preempts_its_share(generation):
    # 10 running 100m pods per node: a 3.5-cpu preemptor (every 50th pod) fits only by preempting.
    r = run_scenario(generation, SCENARIOS["SchedulingMixed"], nodes=30, pods=100, init_pods=300,
                     keep_placements=True)
    assert r["scheduled"] == 100 and r["preemptions"] == 2, r
    assert r["startup_seconds"] > 0
    green = [node for pod, node in r["placements"].items() if pod.startswith("sched-1/mixed-")]
    assert len(green) == 10 and len(set(green)) == 10  # anti-affinity per hostname


def test_anti_affinity_scenario_puts_one_pod_per_node(generation):
    r = run_scenario(generation, SCENARIOS["SchedulingPodAntiAffinity"], nodes=30, pods=20, init_pods=10,
                     keep_placements=True)
    nodes = list(r["placements"].values())
    assert len(nodes) == 30 and len(set(nodes)) == 30


def test_topology_spreading_keeps_max_skew(generation):
    r = run_scenario(generation, SCENARIOS["TopologySpreading"], nodes=9, pods=60, init_pods=0, keep_placements=True)
    zones = {f"scheduler-perf-{i:05d}": i % 3 for i in range(9)}
    per_zone = [0, 0, 0]
    for node in r["placements"].values():
        per_zone[zones[node]] += 1
    assert max(per_zone) - min(per_zone) <= 5, per_zone


def test_naive_profile_makes_the_same_decisions_and_batch_stays_well_ahead(generation, monkeypatch):
    """The CI guard: both profiles in the same process on the same workload, compared as a ratio
    of CPU per pod. The batch path is ~20x cheaper at 200 nodes; the margin (3x) leaves room for a
    loaded machine without hiding a regression that throws the columnar advantage away.
    Incremental cycles are off: they spare both paths most node evaluations, which is not what
    this compares."""
    monkeypatch.setenv("KUBEBERTH_INCREMENTAL_CYCLES", "false")
    scenario = SCENARIOS["SchedulingBasic"]
    runs = {}
    for profile in ("default", "naive", "default"):  # default twice: the better of two, warm caches
        r = run_scenario(generation, scenario, nodes=200, pods=150, init_pods=100, profile=profile,
                         keep_placements=True)
        best = runs.get(profile)
        if best is None or r["cpu_ms_per_pod"] < best["cpu_ms_per_pod"]:
            runs[profile] = r
    assert runs["naive"]["placements"] == runs["default"]["placements"]
    ratio = runs["naive"]["cpu_ms_per_pod"] / runs["default"]["cpu_ms_per_pod"]
    assert ratio >= 3.0, f"batch path only {ratio:.1f}x cheaper than per-node: {runs}"


def test_naive_profile_reports_the_same_rejections(generation):
    # Spread with DoNotSchedule on a cluster where one zone is gone: both profiles reject alike.
    scenario = SCENARIOS["SchedulingNodeAffinity"]
    a = run_scenario(generation, scenario, nodes=5, pods=8, init_pods=0, keep_placements=True)
    b = run_scenario(generation, scenario, nodes=5, pods=8, init_pods=0, profile="naive", keep_placements=True)
    assert a["placements"] == b["placements"] and a["scheduled"] == b["scheduled"] == 8


def test_cli_json_and_record(tmp_path, capsys):
    out = tmp_path / "benchmarks.md"
    code = main(["bench", "--scenario", "SchedulingBasic", "--nodes", "10", "--pods", "20", "--init-pods", "5",
                 "--json", "--record", "--write", str(out), "--profile", "default", "--profile", "naive"])
    assert code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["profile"] for r in rows] == ["default", "naive"]
    for r in rows:
        for key in ("scenario", "nodes", "pods", "pods_per_second", "attempt_p50_ms", "attempt_p99_ms",
                    "peak_rss_mb", "commit"):
            assert key in r
        assert r["scenario"] == "SchedulingBasic" and r["nodes"] == 10 and r["pods"] == 20 and r["scheduled"] == 20
    text = out.read_text()
    assert "| SchedulingBasic | naive | 10 | 5 | 20 | 20 |" in text
    assert "`kubeberth bench --scenario SchedulingBasic --nodes 10 --pods 20 --init-pods 5 --json --write" in text
    assert "--record" not in text and "cores" in text and "GiB memory" in text


def test_cli_unknown_scenario_is_one_line_and_exit_2(capsys):
    assert main(["bench", "--scenario", "SchedulingEverything"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --scenario: unknown scenario 'SchedulingEverything'; available: SchedulingBasic,")
    assert "\n" not in err


def test_cli_bad_size_is_exit_2(capsys):
    assert main(["bench", "--scenario", "SchedulingBasic", "--nodes", "0"]) == 2
    assert "--nodes: expected a positive number, got 0" in capsys.readouterr().err

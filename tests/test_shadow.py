"""Shadow generations (kubeberth.scheduling.shadow, kubeberth.apps.shadow) on the embedded cluster.

The deterministic tests run `simulate` twice on the same cluster and seed, once with a shadow and
once without: the live run must be the same object for object (placements, every pod as stored,
every event), which is what "the shadow writes nothing and changes no live decision" means. The
live profile scores nodes by their number (distinct scores, no normalisation), so a candidate that
only adds a filter rejecting zone-c moves exactly the pods the live generation put in zone-c.
"""

from __future__ import annotations

import json
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import pytest
from kubeberth.apps.simulate import generate_cluster, simulate
from kubeberth.observability.divergence import DivergenceReport
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.reload import GenerationBuilder
from kubeberth.scheduling.shadow import ShadowOutcome, ShadowPolicy, ShadowRun
from reload_harness import EmbeddedRun, wait_for

ZONE = "topology.kubernetes.io/zone"

BY_NAME = '''import numpy as np
from kubeberth import NodeView, hookimpl


class ByName:
    """Scores a node by its number: distinct scores, no normalisation."""

    name = "ByName"

    @hookimpl
    def score(self, nodes: NodeView):
        return np.asarray([int(n.rsplit("-", 1)[1]) % 100 for n in nodes.names], dtype=np.int64)
'''

NO_ZONE_C = '''import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl


class NoZoneC:
    name = "NoZoneC"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        ids, values = nodes.label_values("topology.kubernetes.io/zone")
        wanted = values.index("zone-c") if "zone-c" in values else -2
        return FilterResult.reject_where(np.asarray(ids == wanted), "node(s) are in zone-c")
'''

# Raises for every other pod, and tries to write before it does: every write must be refused.
MISBEHAVES = '''import zlib
from kubeberth import NodeView, hookimpl


class Misbehaves:
    name = "Misbehaves"

    @hookimpl
    def filter(self, pod, nodes: NodeView, handle) -> None:
        handle.patch_object("Pod", pod.key, {"metadata": {"labels": {"shadow": "was-here"}}})
        handle.nominate(pod, nodes.names[0])
        if zlib.crc32(pod.uid.encode()) % 2:
            raise RuntimeError("candidate bug")
        return None
'''

SLOW = '''import time
from kubeberth import NodeView, hookimpl


class Slow:
    name = "Slow"

    @hookimpl
    def filter(self, nodes: NodeView) -> None:
        time.sleep(0.004)
        return None
'''


def _config(*filters: str, scheduler_name: str = "default-scheduler") -> str:
    enabled = "".join(f"\n      - name: {f}" for f in filters)
    filter_block = f"\n    filter:\n      enabled:{enabled}" if filters else ""
    return f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {scheduler_name}
  plugins:
    preScore:
      disabled:
      - name: "*"
    score:
      disabled:
      - name: "*"
      enabled:
      - name: ByName{filter_block}
"""


def _folder(tmp: Path, name: str, plugins: dict[str, str], config: str) -> tuple[Path, Path]:
    folder = tmp / name
    folder.mkdir()
    for file, text in plugins.items():
        (folder / file).write_text(text)
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(config)
    return folder, cfg


def _simulate(tmp: Path, objects: list[dict[str, Any]], shadow: tuple[Path, Path] | None,
              policy: ShadowPolicy | None = None) -> tuple[Any, list[ShadowOutcome], ShadowRun | None]:
    live_dir = tmp / "live"
    if not live_dir.exists():
        _folder(tmp, "live", {"by_name.py": BY_NAME}, _config())
    live = build_generation(tmp / "live.yaml", live_dir)
    outcomes: list[ShadowOutcome] = []
    runs: list[ShadowRun] = []

    def attach(scheduler: Any) -> None:
        if shadow is not None:
            folder, cfg = shadow
            run = ShadowRun(GenerationBuilder(cfg, folder).build(), policy or ShadowPolicy(cpu_budget=0), outcomes.append)
            assert run.install(scheduler) is None
            runs.append(run)

    result = simulate(live, objects, seed=3, attach=attach)
    return result, outcomes, runs[0] if runs else None


def _stored(result: Any) -> tuple[Any, ...]:
    """What the live run left in the cluster: every pod as stored, every event."""
    pods = sorted(json.dumps(p, sort_keys=True) for p in result.backend.pods())
    events = sorted(json.dumps(e, sort_keys=True, default=str) for e in result.backend.events)  # binding workers record in parallel
    return result.placements, pods, events


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    return generate_cluster(30, 80, seed=5)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, objects: list[dict[str, Any]]) -> tuple[Any, ...]:
    result, _, _ = _simulate(tmp_path_factory.mktemp("baseline"), objects, None)
    return _stored(result)


def test_a_shadow_rejecting_zone_c_moves_exactly_the_pods_live_put_in_zone_c_and_writes_nothing(
    tmp_path: Path, objects: list[dict[str, Any]], baseline: tuple[Any, ...]
) -> None:
    shadow = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                     _config("NoZoneC"))
    result, outcomes, run = _simulate(tmp_path, objects, shadow)
    assert _stored(result) == baseline, "the live run with a shadow differs from the run without one"
    assert run is not None and run.counts.writes_refused == 0 and run.counts.errors == 0
    zone = {n["metadata"]["name"]: n["metadata"]["labels"][ZONE] for n in objects if n["kind"] == "Node"}
    placed = [o for o in outcomes if o.live_node is not None]
    assert len({o.pod for o in placed}) == len(result.placements) > 20
    expected = {o.pod for o in placed if zone[o.live_node] == "zone-c"}
    assert expected, "the seed puts some pods in zone-c"
    moved = {o.pod for o in outcomes if o.shadow_node != o.live_node}
    assert moved == expected
    for o in outcomes:
        if o.pod in expected:
            assert o.shadow_node is None or zone[o.shadow_node] != "zone-c"
            assert o.detail is not None
            groups = o.detail["feasibility"]["after_rejects"]
            assert [(g["plugin"], g["reason"]) for g in groups] == [("NoZoneC", "node(s) are in zone-c")]
            assert o.live_node in groups[0]["nodes"]
            assert o.detail["feasibility"]["before_rejects"] == []
        elif o.live_node is None:
            assert o.shadow_node is None  # a subset of the live feasible nodes
    report = DivergenceReport(("live", "shadow"))
    for o in outcomes:
        report.add(o.pod, o.live_node, o.shadow_node, o.message, o.detail)
    as_dict = report.as_dict()
    assert {m["pod"] for m in as_dict["moved"] + as_dict["newly_unschedulable"]} == expected
    assert as_dict["top_causes"][0] == {"side": "after", "plugin": "NoZoneC", "reason": "node(s) are in zone-c",
                                        "pods": len(expected)}
    assert as_dict["agreement"] == pytest.approx(1 - len(expected) / len(outcomes), abs=1e-6)


def _tied_config(*filters: str) -> str:
    """No score plugin at all: every feasible node ties, and selectHost picks one at random."""
    return _config(*filters).replace("      enabled:\n      - name: ByName\n", "", 1)


def test_a_candidate_scoring_the_live_node_as_high_as_its_own_pick_agrees_and_counts_the_tie(tmp_path: Path) -> None:
    objects = generate_cluster(30, 80, seed=5)
    live_dir, _ = _folder(tmp_path, "live", {}, _tied_config())
    shadow = _folder(tmp_path, "candidate", {"no_zone_c.py": NO_ZONE_C}, _tied_config("NoZoneC"))
    outcomes: list[ShadowOutcome] = []
    runs: list[ShadowRun] = []

    def attach(scheduler: Any) -> None:
        run = ShadowRun(GenerationBuilder(shadow[1], shadow[0]).build(), ShadowPolicy(cpu_budget=0), outcomes.append)
        assert run.install(scheduler) is None
        runs.append(run)

    simulate(build_generation(tmp_path / "live.yaml", live_dir), objects, seed=3, attach=attach)
    zone = {n["metadata"]["name"]: n["metadata"]["labels"][ZONE] for n in objects if n["kind"] == "Node"}
    placed = [o for o in outcomes if o.live_node is not None]
    outside_c = [o for o in placed if zone[o.live_node] != "zone-c"]
    assert outside_c and len(outside_c) < len(placed), "the seed puts pods in zone-c and elsewhere"
    assert all(o.shadow_node == o.live_node and o.detail is None for o in outside_c)
    tied = [o for o in outside_c if o.tied_node is not None]
    assert tied, "over a smaller tied set the random pick falls elsewhere for some pods"
    assert all(o.tied_node != o.live_node and zone[o.tied_node] != "zone-c" for o in tied)
    assert runs[0].counts.ties == len(tied)
    for o in placed:
        if zone[o.live_node] == "zone-c":
            assert o.shadow_node != o.live_node and o.tied_node is None and o.detail is not None


def test_a_candidate_that_raises_and_writes_is_reported_and_changes_nothing_live(
    tmp_path: Path, objects: list[dict[str, Any]], baseline: tuple[Any, ...]
) -> None:
    shadow = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "misbehaves.py": MISBEHAVES},
                     _config("Misbehaves"))
    result, outcomes, run = _simulate(tmp_path, objects, shadow)
    assert _stored(result) == baseline, "a failing, writing candidate changed the live run"
    assert run is not None
    errors = [o for o in outcomes if o.error]
    assert errors and run.counts.errors == len(errors)
    assert all("candidate bug" in o.error and o.shadow_node is None for o in errors)
    assert {o.pod for o in errors} == {o.pod for o in outcomes if zlib.crc32(o.uid.encode()) % 2}
    # Two writes per filter call (a patch, a nomination), each refused; the dry run's are not counted.
    assert run.counts.writes_refused >= 2 * len(outcomes)
    assert not any("shadow" in (p["metadata"].get("labels") or {}) for p in result.backend.pods())


def test_sampling_takes_the_same_share_of_pods_by_uid(
    tmp_path: Path, objects: list[dict[str, Any]], baseline: tuple[Any, ...]
) -> None:
    shadow = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME}, _config())
    result, outcomes, run = _simulate(tmp_path, objects, shadow, ShadowPolicy(sample=0.3, cpu_budget=0))
    assert _stored(result) == baseline
    assert run is not None
    threshold = int(0.3 * 2**32)
    uids = {p["metadata"]["uid"] for p in result.backend.pods() if p["spec"].get("nodeName")}
    compared = {o.uid for o in outcomes}
    assert compared == {u for u in uids if zlib.crc32(u.encode()) < threshold} | (compared - uids)
    assert 0 < len(compared & uids) < len(uids)
    assert run.counts.skipped_sampling > 0
    assert all(o.shadow_node == o.live_node for o in outcomes), "the same plugins decide the same"


def test_the_cpu_budget_bounds_the_shadows_share_of_the_live_cycles(
    tmp_path: Path, objects: list[dict[str, Any]]
) -> None:
    shadow = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "slow.py": SLOW}, _config("Slow"))
    budget = 0.25
    result, outcomes, run = _simulate(tmp_path, objects, shadow, ShadowPolicy(sample=1.0, cpu_budget=budget))
    assert run is not None
    counts = run.counts
    assert counts.skipped_budget > 0 and counts.compared == len(outcomes) > 0
    live = result.scheduler.stats.cycle_seconds  # every live cycle, the shadow's time not included
    spent = counts.shadow_seconds + counts.detail_seconds
    one = max(o.shadow_seconds for o in outcomes)
    assert spent <= budget * live + 2 * one, (spent, live, one)


def test_start_report_stop_over_http_with_metrics_and_a_linked_span(tmp_path: Path) -> None:
    from kubeberth.observability import DecisionTracer
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                             _config("NoZoneC", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=12,
                     rate=80.0, lifetime=0.5) as run:
        exporter = InMemorySpanExporter()
        run.runner.observability.tracer = DecisionTracer(SimpleSpanProcessor(exporter), ALWAYS_ON, Resource.create())
        status, body = run.get("/debug/shadow")
        assert status == 200 and body == {"active": False, "generation": None}
        status, body = run.post(f"/shadow/start?plugins={tmp_path / 'nowhere'}")
        assert status == 422 and "no such directory" in body["error"]
        status, body = run.post(f"/shadow/start?plugins={candidate}&config={cfg}&sample=1&cpu_budget=0")
        assert status == 200 and body["active"], body
        wait_for(lambda: run.get("/debug/shadow")[1]["divergences"]["counts"]["moved"] >= 3, 20, "moved pods")
        status, report = run.get("/debug/shadow")
        assert report["pods"]["compared"] >= report["divergences"]["pods"] > 0
        assert report["agreement"] < 1 and report["writes_refused"] == 0  # live puts every pod on zone-c's node-00011
        assert report["cost"]["ratio"] is not None and report["cost"]["shadow_ms_per_pod"] > 0
        moved = report["divergences"]["moved"][0]
        assert moved["detail"]["feasibility"]["after_rejects"][0]["plugin"] == "NoZoneC"
        with urllib.request.urlopen(run.url + "/metrics", timeout=10) as resp:
            metrics = resp.read().decode()
        assert 'kubeberth_shadow_pods_total{result="moved"}' in metrics
        assert "kubeberth_shadow_agreement_ratio" in metrics and "kubeberth_shadow_cost_ratio" in metrics
        status, body = run.post("/shadow/stop")
        assert status == 200 and not body["active"] and body["stopped"]
        compared = body["pods"]["compared"]
        time.sleep(0.3)
        assert run.get("/debug/shadow")[1]["pods"]["compared"] == compared, "stopped means stopped"
    spans = exporter.get_finished_spans()
    cycles = {s.context.span_id: s for s in spans if s.name == "SchedulingCycle"}
    shadows = [s for s in spans if s.name == "ShadowDecision"]
    assert shadows
    for span in shadows:
        live = cycles[span.parent.span_id]
        assert span.context.trace_id == live.context.trace_id
        assert [link.context.span_id for link in span.links] == [live.context.span_id]
        assert span.attributes["k8s.pod.uid"] == live.attributes["k8s.pod.uid"]


# Passes the dry run (a synthetic pod), then never returns for real pods.
LOOPS = '''from kubeberth import PodView, hookimpl


class Loops:
    name = "Loops"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        while pod.name != "kubeberth-dry-run":
            pass
'''


@pytest.mark.timeout(60)
def test_a_hung_candidate_is_interrupted_as_its_own_error_quarantined_and_the_live_generation_stays(tmp_path: Path) -> None:
    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "loops.py": LOOPS},
                             _config("Loops", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=6,
                     rate=50.0, lifetime=0.5, settings={"plugin_timeout_seconds": 0.3}) as run:
        live = run.generation
        status, body = run.post(f"/shadow/start?plugins={candidate}&config={cfg}&cpu_budget=0")
        assert status == 200, body
        report = wait_for(lambda: (r := run.get("/debug/shadow")[1])["pods"]["errors"] >= 3 and r, 20, "three hangs")
        assert "PluginTimeout" in report["errors"][0]["error"], report["errors"]
        assert report["pods"]["agreed"] == 0
        run.post("/shadow/stop")
        # Three hangs quarantine the file (as for a reload): the same candidate is not started again.
        status, body = run.post(f"/shadow/start?plugins={candidate}&config={cfg}")
        assert status == 422 and "loops.py: quarantined" in body["error"], body
        bound = run.load.stats.bound
        wait_for(lambda: run.load.stats.bound > bound + 10, 20, "live pods still bound")
        assert run.generation is live and list(run.runner.reloader.history) == []  # no rollback, no reload


def test_simulate_compare_prints_the_shadows_divergence_format(tmp_path: Path, objects: list[dict[str, Any]]) -> None:
    from kubeberth.apps.whatif import compare, format_comparison
    from kubeberth.observability.divergence import KINDS, format_divergences

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config())
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                             _config("NoZoneC"))
    a = simulate(build_generation(tmp_path / "live.yaml", tmp_path / "live"), objects, seed=3)
    b = simulate(build_generation(cfg, candidate), objects, seed=3)
    diff = compare(a, b, ("live", "candidate"))
    assert set(DivergenceReport().as_dict()) - {"labels"} <= set(diff)
    assert diff["counts"] == {k: len(diff[k]) for k in KINDS} and diff["counts"]["moved"] > 0
    assert diff["agreement"] == pytest.approx(diff["agreed"] / diff["pods"])
    assert "\n".join(format_divergences(diff, 20)) in format_comparison(diff)


def test_a_shadow_from_the_start_with_kubeberth_shadow_settings(tmp_path: Path) -> None:
    from kubeberth.errors import KubeberthError

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                             _config("NoZoneC", scheduler_name="kubeberth"))
    settings = {"shadow_plugins_dir": candidate, "shadow_config": cfg, "shadow_sample": 0.5}
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=12,
                     rate=50.0, lifetime=0.5, settings=settings) as run:
        report = wait_for(lambda: (r := run.get("/debug/shadow")[1])["pods"]["compared"] >= 3 and r, 20, "comparisons")
        assert report["active"] and report["policy"]["sample"] == 0.5 and report["pods"]["skipped_sampling"] > 0
    (candidate / "broken.py").write_text("this is not python\n")
    with pytest.raises(KubeberthError, match="broken.py"):
        EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=3,
                    settings=settings)  # the Runner refuses before it starts anything


def test_the_default_profile_shadowing_itself_agrees_on_every_pod_ties_and_sampling_included() -> None:
    objects = generate_cluster(220, 300, seed=11)  # > 100 nodes: percentageOfNodesToScore samples
    outcomes: list[ShadowOutcome] = []

    def attach(scheduler: Any) -> None:
        run = ShadowRun(GenerationBuilder().build(), ShadowPolicy(cpu_budget=0), outcomes.append)
        assert run.install(scheduler) is None

    result = simulate(build_generation(), objects, seed=4, attach=attach)
    assert len(outcomes) >= result.summary["scheduled"] > 200
    assert [o for o in outcomes if o.shadow_node != o.live_node or o.error] == []
    ties = [r for r in result.scheduler.records if r.score_ties > 1]
    assert ties, "the generated cluster has equally scored nodes"


def test_the_readme_commands_start_read_and_stop_a_shadow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kubeberth.apps.cli import main

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                             _config("NoZoneC", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=12,
                     rate=50.0, lifetime=0.5) as run:
        server = ["--server", run.url]
        assert main(["shadow", "report", *server]) == 0
        assert "no shadow generation has run" in capsys.readouterr().out
        assert main(["shadow", "start", *server, "--plugins", str(candidate), "--config", str(cfg),
                     "--sample", "0.2"]) == 0
        assert "shadow generation g" in capsys.readouterr().out
        wait_for(lambda: run.get("/debug/shadow")[1]["divergences"]["counts"]["moved"] >= 1, 20, "a moved pod")
        assert main(["shadow", "report", *server]) == 0
        text = capsys.readouterr().out
        assert "cause: shadow rejects with NoZoneC: node(s) are in zone-c" in text
        assert "shadow rejects 4 node(s) the other accepts: NoZoneC" in text and "agreement" in text
        assert main(["shadow", "stop", *server]) == 0
        assert "stopped at" in capsys.readouterr().out
        assert main(["shadow", "start", *server, "--plugins", str(tmp_path / "nowhere")]) == 2
        assert "no such directory" in capsys.readouterr().err

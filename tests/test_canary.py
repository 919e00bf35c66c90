"""Canary generations (kubeberth.scheduling.canary, kubeberth.apps.canary) on the embedded cluster.

The live profile scores nodes by their number (test_shadow.py's ByName) and the candidate adds a
filter rejecting zone-c, so a pod the candidate placed is recognisable; a pod is the canary's
exactly when the crc32 of its uid falls in the share. `simulate` runs the scheduler to the end
(virtual clock, one seed); the verdict is acted on as kubeberth.apps.canary does (a rollback
ends the canary, a promotion swaps the candidate in).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kubeberth.apps.simulate import generate_cluster, simulate
from kubeberth.runtime.generation import build_generation
from kubeberth.runtime.reload import GenerationBuilder
from kubeberth.scheduling.canary import CanaryPolicy, CanaryRun, CanarySelection, CanaryVerdict, in_share
from kubeberth.scheduling.swap import SwapRequest
from reload_harness import EmbeddedRun, wait_for
from test_shadow import BY_NAME, NO_ZONE_C, ZONE, _config, _folder

# Passes the dry run (a synthetic pod), raises for every real pod.
BREAKS = '''from kubeberth import PodView, hookimpl


class Breaks:
    name = "Breaks"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        if pod.name != "kubeberth-dry-run":
            raise RuntimeError("candidate bug")
        return None
'''


REJECTS_ALL = '''import numpy as np
from kubeberth import FilterResult, NodeView, PodView, hookimpl


class RejectsAll:
    name = "RejectsAll"

    @hookimpl
    def filter(self, pod: PodView, nodes: NodeView) -> FilterResult | None:
        if pod.name == "kubeberth-dry-run":
            return None
        return FilterResult.reject_where(np.ones(len(nodes.names), dtype=bool), "candidate rejects every node")
'''


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    return generate_cluster(30, 80, seed=5)


def _zones(objects: list[dict[str, Any]]) -> dict[str, str]:
    return {n["metadata"]["name"]: n["metadata"]["labels"][ZONE] for n in objects if n["kind"] == "Node"}


class Canary:
    """simulate() with a canary; verdicts acted on as the controller does."""

    def __init__(self, tmp: Path, objects: list[dict[str, Any]], plugins: dict[str, str], filters: tuple[str, ...],
                 selection: CanarySelection, policy: CanaryPolicy) -> None:
        _folder(tmp, "live", {"by_name.py": BY_NAME}, _config())
        folder, cfg = _folder(tmp, "candidate", plugins, _config(*filters))
        self.live = build_generation(tmp / "live.yaml", tmp / "live")
        self.candidate = GenerationBuilder(cfg, folder).build()
        self.verdicts: list[CanaryVerdict] = []
        self.swapped_at: int | None = None  # records kept when the promotion's swap applied
        self.run: CanaryRun | None = None

        def attach(scheduler: Any) -> None:
            def act(run: CanaryRun, verdict: CanaryVerdict) -> None:
                self.verdicts.append(verdict)
                if verdict.action != "promote":
                    run.uninstall(scheduler)
                    return

                def swapped(old: Any, new: Any) -> None:
                    run.uninstall(scheduler, promoted=True)
                    self.swapped_at = len(scheduler.records)

                SwapRequest(scheduler, run.generation, check=False, on_swapped=swapped, hand_off=False).submit()

            self.run = CanaryRun(self.candidate, scheduler.generation, selection, policy, act,
                                 clock=scheduler.clock.now)
            assert self.run.install(scheduler) is None

        self.result = simulate(self.live, objects, seed=3, attach=attach)
        self.scheduler = self.result.scheduler
        self.bound = {p["metadata"]["uid"]: p for p in self.result.backend.pods() if p["spec"].get("nodeName")}

    def bindings(self) -> dict[str, str]:
        """uid -> the generation whose binding cycle bound the pod."""
        return {r.uid: (r.binding or {}).get("generation", "") for r in self.scheduler.records
                if (r.binding or {}).get("result") == "Bound"}


def test_a_canary_at_10_percent_binds_exactly_its_share_by_uid_with_the_candidate(
    tmp_path: Path, objects: list[dict[str, Any]]
) -> None:
    canary = Canary(tmp_path, objects, {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C}, ("NoZoneC",),
                    CanarySelection.parse(share="10%"), CanaryPolicy(promote="manual", min_pods=1000, cpu_budget=0))
    zone = _zones(objects)
    bindings = canary.bindings()
    assert set(bindings) == set(canary.bound) and len(bindings) > 40
    share = {uid for uid in bindings if in_share(uid, 0.1)}
    assert 0 < len(share) < len(bindings) // 5
    assert {uid for uid, gen in bindings.items() if gen == canary.candidate.id} == share
    assert {uid for uid, gen in bindings.items() if gen == canary.live.id} == set(bindings) - share
    # Every cycle of a canary pod ran on the candidate, and none of its pods is in zone-c.
    for record in canary.scheduler.records:
        assert (record.generation == canary.candidate.id) == in_share(record.uid, 0.1), record.pod
    assert all(zone[canary.bound[uid]["spec"]["nodeName"]] != "zone-c" for uid in share)
    assert any(zone[canary.bound[uid]["spec"]["nodeName"]] == "zone-c" for uid in set(bindings) - share)
    # The live generation re-decided the canary's pods read-only: it would put some in zone-c.
    run = canary.run
    assert run is not None and run.verdict is None and canary.scheduler.canary is run
    side = run.counts["canary"]
    assert run.compared == side.health.attempts >= len(share) and side.bound == len(share)
    assert 0 < run.agreed < run.compared
    assert canary.verdicts == [] and canary.scheduler.generation is canary.live


def test_a_candidate_that_errors_is_rolled_back_never_promoted_and_its_pods_go_back_to_live(
    tmp_path: Path, objects: list[dict[str, Any]]
) -> None:
    canary = Canary(tmp_path, objects, {"by_name.py": BY_NAME, "breaks.py": BREAKS}, ("Breaks",),
                    CanarySelection.parse(share="50%"), CanaryPolicy(min_pods=10, min_seconds=0))
    assert [v.action for v in canary.verdicts] == ["rollback"]
    verdict = canary.verdicts[0]
    assert "plugin 'Breaks'" in verdict.reason and verdict.figures["canary"]["errors"] > 0
    assert verdict.figures["canary"]["bound"] == 0
    assert canary.scheduler.generation is canary.live and canary.scheduler.canary is None
    assert canary.run is not None and canary.run._generation is None, "the ended canary keeps ids, not the candidate"
    bindings = canary.bindings()
    assert set(bindings) == set(canary.bound) and len(bindings) > 40, "every pod bound after the rollback"
    assert set(bindings.values()) == {canary.live.id}
    assert any(in_share(uid, 0.5) for uid in bindings), "the canary's pods were retried on the live generation"


def test_a_healthy_candidate_meeting_the_thresholds_is_promoted_and_then_decides_every_pod(
    tmp_path: Path, objects: list[dict[str, Any]]
) -> None:
    canary = Canary(tmp_path, objects, {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C}, ("NoZoneC",),
                    CanarySelection.parse(share="50%"), CanaryPolicy(min_pods=8, min_seconds=0))
    assert [v.action for v in canary.verdicts] == ["promote"]
    figures = canary.verdicts[0].figures
    assert figures["canary"]["attempts"] == 8 and figures["canary"]["errors"] == 0
    assert canary.scheduler.generation is canary.candidate and canary.scheduler.canary is None
    assert canary.swapped_at is not None
    after = list(canary.scheduler.records)[canary.swapped_at:]
    assert len(after) > 30, "pods were left to schedule after the promotion"
    assert {r.generation for r in after} == {canary.candidate.id}
    zone = _zones(objects)
    assert all(zone[r.node] != "zone-c" for r in after if r.node)
    assert not [k for k in canary.scheduler._batches if k.startswith("canary:")]


@pytest.mark.parametrize(("plugin", "policy", "reason"), [
    ("RejectsAll", {}, "unschedulable rate 100.0% over 8 attempts exceeds the live side's 0.0%"),
    ("NoZoneC", {"min_agreement": 0.99}, "is below 99.0%"),
    ("NoZoneC", {"max_cost_ratio": 0.01}, "the live side's exceeds 0.01x"),
])
def test_each_threshold_rolls_a_canary_back_with_its_reason_and_figures(
    tmp_path: Path, objects: list[dict[str, Any]], plugin: str, policy: dict[str, Any], reason: str
) -> None:
    text = {"RejectsAll": REJECTS_ALL, "NoZoneC": NO_ZONE_C}[plugin]
    canary = Canary(tmp_path, objects, {"by_name.py": BY_NAME, "plugin.py": text}, (plugin,),
                    CanarySelection.parse(share="50%"), CanaryPolicy(min_pods=8, min_seconds=0, cpu_budget=0, **policy))
    assert [v.action for v in canary.verdicts] == ["rollback"]
    verdict = canary.verdicts[0]
    assert reason in verdict.reason, verdict.reason
    assert verdict.figures["canary"]["attempts"] == 8 and verdict.figures["live"]["attempts"] > 0
    assert canary.scheduler.generation is canary.live and canary.scheduler.canary is None


def test_compare_live_has_the_candidate_re_decide_the_live_pods_read_only(
    tmp_path: Path, objects: list[dict[str, Any]]
) -> None:
    canary = Canary(tmp_path, objects, {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C}, ("NoZoneC",),
                    CanarySelection.parse(share="10%"),
                    CanaryPolicy(promote="manual", min_pods=1000, compare="live", cpu_budget=0))
    run = canary.run
    assert run is not None
    assert run.compared == run.counts["live"].health.attempts and 0 < run.agreed < run.compared
    assert run.counts["live"].bound == len([u for u in canary.bound if not in_share(u, 0.1)])


def test_selection_by_namespace_and_label_selector_and_bad_input_names_the_field() -> None:
    from kubeberth.cache.podinfo import PodInfo

    def pod(ns: str, labels: dict[str, str]) -> PodInfo:
        return PodInfo.from_dict({"metadata": {"name": "p", "namespace": ns, "uid": f"{ns}-{labels}", "labels": labels},
                                  "spec": {"containers": []}})

    sel = CanarySelection.parse(namespaces="team-a,team-b", selector="app in (web, api),tier!=db,!legacy")
    assert sel.selects(pod("team-a", {"app": "web"}))
    assert not sel.selects(pod("team-c", {"app": "web"}))
    assert not sel.selects(pod("team-b", {"app": "web", "tier": "db"}))
    assert not sel.selects(pod("team-b", {"app": "api", "legacy": "1"}))
    assert not sel.selects(pod("team-b", {"app": "batch"}))
    assert CanarySelection.parse(share="25 %").share == 0.25
    assert CanarySelection.parse(selector="canary").selects(pod("x", {"canary": ""}))
    for kwargs, field in (({"share": "150%"}, "share"), ({"share": "ten"}, "share"), ({}, "share, namespace, selector"),
                          ({"selector": "a=b,,c"}, "selector"), ({"selector": "-bad=x"}, "selector")):
        with pytest.raises(ValueError, match=f"^{field}"):
            CanarySelection.parse(**kwargs)
    with pytest.raises(ValueError, match="^min_pods"):
        CanaryPolicy(min_pods=0).check()


def test_the_readme_commands_start_promote_and_report_a_canary_recorded_on_the_lease(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubeberth.apps.cli import main

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "no_zone_c.py": NO_ZONE_C},
                             _config("NoZoneC", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=12,
                     rate=60.0, lifetime=0.5) as run:
        live = run.generation
        server = ["--server", run.url]
        assert main(["canary", "report", *server]) == 0
        assert "no canary has run" in capsys.readouterr().out
        # Bad input: one line naming the field, exit 2, nothing started.
        assert main(["canary", "start", *server, "--plugins", str(candidate), "--share", "150%"]) == 2
        assert capsys.readouterr().err.strip().endswith("share: '150%' must be more than 0 and at most 100%")
        assert main(["canary", "start", *server, "--plugins", str(candidate), "--config", str(cfg), "--share", "50%",
                     "--min-pods", "0"]) == 2
        assert "min_pods: 0 must be at least 1" in capsys.readouterr().err
        assert run.get("/debug/canary")[1] == {"state": "none", "generation": None}
        assert main(["canary", "start", *server, "--plugins", str(candidate), "--config", str(cfg), "--share", "50%",
                     "--promote", "manual"]) == 0
        assert "canary generation g" in capsys.readouterr().out
        report = wait_for(lambda: (r := run.get("/debug/canary")[1])["figures"]["canary"]["bound"] >= 3 and r, 20,
                          "canary pods bound")
        assert report["state"] == "running" and report["generation"] != live.id
        zone = _zones(generate_cluster(12, 0, 1))  # EmbeddedRun's nodes
        assert all(zone[b["node"]] != "zone-c" for b in report["bound"])
        status, generation = run.get("/debug/generation")
        assert generation["id"] == live.id and generation["canary"]["state"] == "running"
        with urllib.request.urlopen(run.url + "/metrics", timeout=10) as resp:
            metrics = resp.read().decode()
        assert 'kubeberth_canary_pods_total{result="bound",side="canary"}' in metrics
        assert 'kubeberth_canary_steps_total{step="started"} 1.0' in metrics
        assert main(["canary", "start", *server, "--plugins", str(candidate), "--share", "5%"]) == 2
        assert "promote or stop it first" in capsys.readouterr().err
        assert main(["canary", "report", *server]) == 0
        assert "canary" in capsys.readouterr().out
        assert main(["canary", "promote", *server, "--json"]) == 0
        promoted = json.loads(capsys.readouterr().out)
        assert promoted["state"] == "promoted" and promoted["live_generation"] == promoted["generation"]
        status, generation = run.get("/debug/generation")
        assert generation["id"] == promoted["generation"] and generation["previous"] == live.id
        assert generation["last_reload"]["trigger"] == "canary" and generation["rollback"]["on_probation"]
        assert [s["step"] for s in generation["canary"]["steps"]] == ["started", "promoted"]
        assert main(["plugins", "list", "--server", run.url]) == 0
        assert f"canary: generation {promoted['generation']} promoted (share 0.5): generation" in capsys.readouterr().out
        events = [e for e in run.cluster.events if e["reason"].startswith("Canary")]
        assert [(e["reason"], e["type"], e["regarding"].split()[0]) for e in events] == [
            ("CanaryStarted", "Normal", "Lease"), ("CanaryPromoted", "Normal", "Lease")]
        assert "attempts" in events[1]["note"]
        assert run.load is not None
        bound = run.load.stats.bound
        wait_for(lambda: run.load.stats.bound > bound + 5, 20, "pods bound after the promotion")
        assert main(["canary", "stop", *server]) == 0  # nothing running: the report as it is
        assert "promoted" in capsys.readouterr().out


def test_an_erroring_candidate_is_rolled_back_by_the_controller_recorded_as_a_rollback_and_on_the_lease(
    tmp_path: Path,
) -> None:
    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "breaks.py": BREAKS},
                             _config("Breaks", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=12,
                     rate=80.0, lifetime=0.5) as run:
        live = run.generation
        status, body = run.post(f"/canary/start?plugins={candidate}&config={cfg}&share=50%25&min_pods=5&min_seconds=0")
        # One error already exceeds the budget (1 % of 5 attempts): on a busy machine the first candidate
        # pod can fail, and the canary be rolled back, before the start's answer is written.
        assert status == 200 and body["state"] in ("running", "rolled_back"), body
        report = wait_for(lambda: (r := run.get("/debug/canary")[1])["state"] == "rolled_back" and r, 20, "rollback")
        assert report["verdict"]["automatic"] and "plugin 'Breaks'" in report["verdict"]["reason"]
        assert report["figures"]["canary"]["bound"] == 0 and report["bound"] == []
        assert run.generation is live
        status, generation = run.get("/debug/generation")
        assert generation["id"] == live.id and generation["canary"]["state"] == "rolled_back"
        assert generation["last_reload"]["result"] == "rolled_back" and generation["last_reload"]["trigger"] == "canary"
        def canary_events() -> list[tuple[str, str]]:
            return [(e["reason"], e["type"]) for e in run.cluster.events if e["reason"].startswith("Canary")]

        # The rollback's event is recorded after its state shows (on a busy machine, a moment after).
        wait_for(lambda: len(canary_events()) >= 2, 10, "the rollback's event")
        assert canary_events() == [("CanaryStarted", "Normal"), ("CanaryRolledBack", "Warning")]
        assert run.post("/canary/promote") == (422, {"error": "canary: no canary is running to promote "
                                                             "(kubeberth canary start --server URL ...)"})
        assert run.load is not None
        bound = run.load.stats.bound
        wait_for(lambda: run.load is not None and run.load.stats.bound > bound + 5, 20, "pods bound by the live one")
        assert run.get("/debug/canary")[1]["figures"]["canary"]["bound"] == 0


@pytest.mark.timeout(60)
def test_a_hanging_candidate_plugin_rolls_the_canary_back_at_once(tmp_path: Path) -> None:
    from test_shadow import LOOPS

    _folder(tmp_path, "live", {"by_name.py": BY_NAME}, _config(scheduler_name="kubeberth"))
    candidate, cfg = _folder(tmp_path, "candidate", {"by_name.py": BY_NAME, "loops.py": LOOPS},
                             _config("Loops", scheduler_name="kubeberth"))
    with EmbeddedRun(tmp_path, config_path=tmp_path / "live.yaml", plugins_dir=tmp_path / "live", nodes=6,
                     rate=50.0, lifetime=0.5, settings={"plugin_timeout_seconds": 0.3}) as run:
        live = run.generation
        status, body = run.post(f"/canary/start?plugins={candidate}&config={cfg}&share=50%25&min_pods=1000")
        assert status == 200, body
        report = wait_for(lambda: (r := run.get("/debug/canary")[1])["state"] == "rolled_back" and r, 20, "rollback")
        assert "plugin 'Loops' of the candidate ran" in report["verdict"]["reason"], report["verdict"]
        assert "past the plugin timeout" in report["verdict"]["reason"]
        assert report["figures"]["canary"]["attempts"] < 1000 and report["figures"]["canary"]["bound"] == 0
        assert run.load is not None
        bound = run.load.stats.bound
        wait_for(lambda: run.load is not None and run.load.stats.bound > bound + 10, 20, "live pods still bound")
        assert run.generation is live


def test_a_bind_the_api_server_refused_for_being_unavailable_is_not_the_candidates_error() -> None:
    from kubeberth.runtime.records import CycleRecord

    candidate, live = build_generation(), build_generation()
    verdicts: list[CanaryVerdict] = []
    run = CanaryRun(candidate, live, CanarySelection.parse(share="50%"), CanaryPolicy(min_pods=5, max_error_rate=0),
                    lambda _run, verdict: verdicts.append(verdict))

    def bind(result: str, **extra: Any) -> None:
        record = CycleRecord("ns/p", "uid", "kubeberth", candidate.id)
        record.binding = {"generation": candidate.id, "result": result, "plugin": "DefaultBinder", **extra}
        run.binding_done(record)

    bind("Error", unavailable=True)
    bind("Bound")
    side = run.counts["canary"]
    assert (side.health.errors, side.health.unavailable, side.bound, verdicts) == (0, 1, 1, [])
    bind("Error")
    assert side.health.errors == 1 and [v.action for v in verdicts] == ["rollback"]
    assert "plugin 'DefaultBinder'" in verdicts[0].reason

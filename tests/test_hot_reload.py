"""Hot reload on a running `kubeberth run --embedded`: drop-ins, config, rollback, admin API.

Everything runs for real: the runner, the embedded backend with a load generator, watchdog on a
temporary folder, the HTTP server. Pods are checked from the scheduler's own decision records.
"""

from __future__ import annotations

import gc
import os
import shutil
import statistics
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import pytest
from kubeberth.runtime import dropins
from kubeberth.runtime.reload import InputVanished
from reload_harness import ZONED_CONFIG, EmbeddedRun, configmap_layout, wait_for, write_atomic, zoned

RELOADS = 100


def _throughput_dip(bind_times: list[float], reloads: list[float], window: float = 0.25) -> tuple[float, float]:
    """Binds/s in the `window` after each reload vs. binds/s over the whole run."""
    if not bind_times or not reloads:
        return 0.0, 0.0
    overall = len(bind_times) / max(bind_times[-1] - bind_times[0], 1e-9)
    after = [sum(1 for b in bind_times if t <= b < t + window) / window for t in reloads]
    return overall, statistics.mean(after)


def test_hundred_reloads_under_load_lose_nothing_and_each_pod_is_decided_by_one_generation(tmp_path: Path) -> None:
    """100 saves alternating two versions of a drop-in, while pods flow: every pod bound exactly
    once, by a generation whose version its node proves, with its binding on the same generation."""
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=250, lifetime=1.0) as run:
        path = run.plugins_dir / "zoned.py"
        versions = {run.generation.id: "zone-a"}
        wait_for(lambda: run.load.stats.bound > 100, 20, "pods flowing")
        reload_times = []
        for i in range(RELOADS):
            zone = "zone-b" if i % 2 == 0 else "zone-a"
            write_atomic(path, zoned(zone))
            gen = run.wait_generation(lambda g, z=zone: g.registry["Zoned"].version == z, 10, f"reload {i} to {zone}")
            versions[gen.id] = zone
            reload_times.append(time.monotonic())
            # Thousands of pods over the run however fast reloads are: >= 21 pods per generation.
            created = run.load.stats.created
            wait_for(lambda c=created: run.load.stats.created >= c + 21, 20, "pods created on this generation")
        run.drain()
        stats = run.load.stats
        bound = run.decisions.bound
        assert stats.created > 2000
        assert stats.created == stats.bound, f"pods lost: {stats}"
        assert run.cluster.bind_conflicts == 0
        assert all(len(v) == 1 for v in bound.values()), "a pod was bound twice"
        load_pods = [r[0] for r in bound.values() if r[0].pod.startswith("load/")]
        assert len(load_pods) == stats.bound
        wrong = [
            (r.pod, r.generation, r.binding["generation"], r.node)
            for r in load_pods
            if r.binding["generation"] != r.generation or run.zone_of(r.node) != versions[r.generation]
        ]
        assert wrong == []
        generations_used = {r.generation for r in load_pods}
        assert len(generations_used) > RELOADS // 2
        failed = [o for o in run.runner.reloader.history if o.result != "success"]
        assert failed == []
        overall, after = _throughput_dip(list(run.load.bind_times), reload_times)
        latency = sorted(run.runner.reloader.first_cycle_latency)
        print(
            f"\n{stats.created} pods, {len(generations_used)} generations; binds/s overall {overall:.0f}, "
            f"in the 250 ms after a reload {after:.0f} ({(after / overall - 1) * 100:+.0f}%); "
            f"file event -> first cycle p50 {latency[len(latency) // 2] * 1000:.1f} ms, "
            f"p99 {latency[int(len(latency) * 0.99)] * 1000:.1f} ms"
        )


# ---- broken, half-written, atomic rename, ConfigMap -------------------------------------------
def test_broken_file_mid_run_keeps_serving_and_reports_the_file_then_the_fix_is_picked_up(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=100) as run:
        path = run.plugins_dir / "zoned.py"
        before = run.generation.id
        n = len(run.runner.reloader.history)
        write_atomic(path, zoned("zone-b").replace("class Zoned:", "class Zoned(:"))
        failed = run.wait_reload("failed", n)
        assert failed.error.startswith(f"{path}: line ")
        assert "SyntaxError" in failed.error
        assert run.generation.id == before
        status, body = run.get("/debug/generation")
        assert status == 200
        assert body["id"] == before
        assert body["last_reload"]["result"] == "failed"
        assert body["last_reload"]["error"] == failed.error
        bound = run.load.stats.bound
        wait_for(lambda: run.load.stats.bound > bound + 50, 10, "pods still binding")
        _, metrics = run.get("/metrics")
        assert 'kubeberth_reloads_total{result="failed"} 1.0' in metrics
        status, healthz = run.get("/healthz")
        assert (status, healthz) == (200, "ok")
        write_atomic(path, zoned("zone-b"))
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b", 10, "the fixed file")
        run.drain()
        assert run.load.stats.created == run.load.stats.bound


def test_half_written_file_never_runs_and_the_complete_file_is_picked_up(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=50) as run:
        path = run.plugins_dir / "zoned.py"
        before = run.generation.id
        text = zoned("zone-b")
        with open(path, "w") as f:  # an in-place write that stalls halfway (a slow copy, a full disk)
            f.write(text[: len(text) // 2])
            f.flush()
            time.sleep(0.5)
            assert run.generation.id == before
            f.write(text[len(text) // 2 :])
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b", 10, "the complete file")
        assert all(o.result in ("success", "failed") for o in run.runner.reloader.history)
        run.drain()
        assert run.load.stats.created == run.load.stats.bound


def test_editor_atomic_rename_save_is_one_reload(tmp_path: Path) -> None:
    """vim/IDE style: write a swap file, rename the original away, rename the new one in."""
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}) as run:
        path = run.plugins_dir / "zoned.py"
        n = len(run.runner.reloader.history)
        swap = run.plugins_dir / ".zoned.py.swp"
        swap.write_text(zoned("zone-c"))
        os.chmod(swap, 0o644)
        os.rename(path, run.plugins_dir / "zoned.py~")
        os.rename(swap, path)
        (run.plugins_dir / "zoned.py~").unlink()
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-c", 10, "the renamed file")
        time.sleep(0.3)
        # One new generation. (A starved test thread may pause between the two renames for longer
        # than the debounce: the moment with no zoned.py then fails to build and never runs.)
        results = [o.result for o in list(run.runner.reloader.history)[n:]]
        assert results.count("success") == 1 and set(results) <= {"success", "failed"}, results


def test_configmap_data_symlink_swap_reloads_config_and_plugins(tmp_path: Path) -> None:
    """The kubelet's ConfigMap volume layout, updated the way the kubelet does it."""
    config_dir, plugins_dir = tmp_path / "config", tmp_path / "plugins"
    configmap_layout(config_dir, {"config.yaml": ZONED_CONFIG}, "2026_11_23_01")
    configmap_layout(plugins_dir, {"zoned.py": zoned("zone-a")}, "2026_11_23_01")
    with EmbeddedRun(tmp_path, config_path=config_dir / "config.yaml", plugins_dir=plugins_dir, rate=50) as run:
        assert run.plugin_version("Zoned") == "zone-a"
        weighted = ZONED_CONFIG + "      - name: ImageLocality\n        weight: 7\n"
        configmap_layout(config_dir, {"config.yaml": weighted}, "2026_11_23_02")
        run.wait_generation(
            lambda g: g.default_profile.score_weight_map.get("ImageLocality") == 7, 10, "the new ConfigMap config"
        )
        configmap_layout(plugins_dir, {"zoned.py": zoned("zone-b")}, "2026_11_23_02")
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b", 10, "the new ConfigMap plugin")
        assert run.generation.config_source == str(config_dir / "config.yaml")
        assert not (config_dir / "..2026_11_23_01").exists()
        run.drain()
        assert run.load.stats.created == run.load.stats.bound


def test_a_file_vanishing_mid_build_is_not_remembered_and_is_built_again(tmp_path: Path) -> None:
    """The kubelet removes the previous `..<timestamp>` folder right after its `..data` swap; a
    build that was walking the folder then finds it gone. That says nothing about the content:
    the same content is built again (once, shortly after), not skipped as rejected."""
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}) as run:
        reloader = run.runner.reloader
        real_build = reloader.builder.build
        calls: list[int] = []

        def vanishing_once(rescan: bool = False) -> Any:
            calls.append(1)
            if len(calls) == 1:
                raise InputVanished(f"{run.plugins_dir}/..2026_11_23_01: vanished while the build read it")
            return real_build(rescan)

        reloader.builder.build = vanishing_once  # type: ignore[method-assign]
        n = len(reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", zoned("zone-b"))
        failed = run.wait_reload("failed", n)
        assert "vanished" in failed.error
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b", 10, "the rebuilt content")
        assert not reloader.rejected and len(calls) == 2


def test_the_permission_check_passes_over_a_path_removed_since_the_walk_listed_it(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    (plugins / "..2026_11_23_01").mkdir(parents=True)
    (plugins / "zoned.py").write_text(zoned("zone-a"))
    os.chmod(plugins, 0o755)
    listed = list(os.walk(plugins))
    shutil.rmtree(plugins / "..2026_11_23_01")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dropins.os, "walk", lambda folder: iter(listed))
        dropins.check_folder_permissions(plugins)


# ---- automatic rollback --------------------------------------------------------------------------
FLAKY = '''"""Feasible everywhere, until it starts raising after {n} cycles."""
from kubeberth import NodeView, hookimpl

__version__ = "flaky"


class Zoned:
    name = "Zoned"

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def filter(self, nodes: NodeView) -> None:
        self.calls += 1
        if self.calls > {n}:
            raise RuntimeError("lost its connection to the metrics service")
        return None
'''

NOTHING_FITS = '''"""Every pod unschedulable: a policy bug that only shows under real traffic."""
import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl

__version__ = "nothing-fits"


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        return FilterResult.reject_where(np.ones(len(nodes), dtype=bool), "node(s) are reserved")
'''


def _memory_tracer(run: EmbeddedRun):  # noqa: ANN202
    from kubeberth.observability import DecisionTracer
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON

    exporter = InMemorySpanExporter()
    run.runner.observability.tracer = DecisionTracer(SimpleSpanProcessor(exporter), ALWAYS_ON, Resource.create())
    return exporter


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (FLAKY.format(n=5), "plugin error rate "),
        (NOTHING_FITS, "unschedulable rate 100% over "),
    ],
    ids=["starts-raising", "nothing-fits"],
)
def test_misbehaving_generation_is_rolled_back_and_not_reapplied(tmp_path: Path, bad: str, reason: str) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=150) as run:
        exporter = _memory_tracer(run)
        good = run.generation
        wait_for(lambda: run.load.stats.bound > 150, 20, "a baseline")
        path = run.plugins_dir / "zoned.py"
        n = len(run.runner.reloader.history)
        write_atomic(path, bad)
        rolled = run.wait_reload("rolled_back", n, 20)
        bad_id = run.runner.reloader.history[n].generation
        assert rolled.error.startswith(f"generation {bad_id} rolled back to {good.id}: {reason}")
        run.wait_generation(lambda g: g is good, 5, "the previous generation back")
        _, status = run.get("/debug/generation")
        assert status["id"] == good.id
        assert status["last_reload"]["result"] == "rolled_back"
        _, metrics = run.get("/metrics")
        assert 'kubeberth_reloads_total{result="rolled_back"} 1.0' in metrics
        assert f'kubeberth_generation_info{{id="{good.id}"}} 1.0' in metrics
        assert any(e["reason"] == "GenerationRolledBack" and e["note"] == rolled.error for e in run.cluster.events)
        spans = [s for s in exporter.get_finished_spans() if s.name == "GenerationRollback"]
        assert [s.attributes["kubeberth.rollback.from"] for s in spans] == [bad_id]
        assert spans[0].attributes["kubeberth.rollback.reason"] in rolled.error
        # The same content again (a re-save, a resync) is not applied; changed content is.
        m = len(run.runner.reloader.history)
        write_atomic(path, bad)
        time.sleep(0.5)
        assert run.generation is good
        assert not any(o.result == "success" for o in list(run.runner.reloader.history)[m:])
        status, body = run.post("/reload")
        assert status == 409
        assert body["reload"]["result"] == "skipped"
        assert body["reload"]["error"].startswith("this content was not applied again (rolled back: ")
        write_atomic(path, zoned("zone-b"))
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b", 10, "fixed content")
        run.drain(60)
        assert run.load.stats.created == run.load.stats.bound
        assert run.cluster.bind_conflicts == 0


def test_rollback_can_be_turned_off(tmp_path: Path) -> None:
    settings = {"rollback": False}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=100, settings=settings) as run:
        wait_for(lambda: run.load.stats.bound > 50, 20, "pods flowing")
        write_atomic(run.plugins_dir / "zoned.py", NOTHING_FITS)
        run.wait_generation(lambda g: g.registry["Zoned"].version == "nothing-fits", 10, "the new generation")
        bound = run.load.stats.bound
        time.sleep(1.0)
        assert run.plugin_version("Zoned") == "nothing-fits"
        assert run.load.stats.bound <= bound + 5  # in-flight bindings only
        assert not any(o.result == "rolled_back" for o in run.runner.reloader.history)


# ---- live configuration changes ----------------------------------------------------------------
BASE_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: kubeberth
"""


def test_config_change_applied_live_weights_plugins_and_a_new_profile(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=BASE_CONFIG, rate=100) as run:
        config = run.config_path
        assert run.generation.default_profile.score_weight_map["ImageLocality"] == 1
        write_atomic(config, BASE_CONFIG + "  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 5\n")
        run.wait_generation(lambda g: g.default_profile.score_weight_map["ImageLocality"] == 5, 10, "new weight")
        write_atomic(config, BASE_CONFIG + "  plugins:\n    score:\n      disabled:\n      - name: ImageLocality\n")
        run.wait_generation(lambda g: "ImageLocality" not in g.default_profile.enabled("score"), 10, "plugin disabled")
        # A pod for a profile that does not exist yet waits, and is scheduled once the profile appears.
        pod = run.cluster.apply({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "batch-0", "namespace": "default"},
            "spec": {"schedulerName": "batch", "containers": [{"name": "c", "image": "x"}]},
        })
        time.sleep(0.3)
        assert not run.cluster.get("Pod", "default/batch-0")["spec"].get("nodeName")
        write_atomic(config, BASE_CONFIG + "- schedulerName: batch\n  plugins:\n    score:\n      disabled:\n      - name: '*'\n")
        run.wait_generation(lambda g: set(g.profiles) == {"kubeberth", "batch"}, 10, "the new profile")
        # The binding lands in the cluster before the loop records the binding cycle: wait for both.
        uid = pod["metadata"]["uid"]
        wait_for(lambda: run.cluster.get("Pod", "default/batch-0")["spec"].get("nodeName") and uid in run.decisions.bound,
                 10, "the batch pod bound and its decision recorded")
        assert run.decisions.bound[pod["metadata"]["uid"]][0].profile == "batch"
        run.drain()
        assert run.load.stats.created == run.load.stats.bound


def test_invalid_config_is_rejected_with_one_line_and_the_running_one_kept(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=BASE_CONFIG, rate=50) as run:
        before = run.generation
        n = len(run.runner.reloader.history)
        write_atomic(run.config_path, BASE_CONFIG + "  plugins:\n    filter:\n      enabled:\n      - name: NodeResourcesFitt\n")
        failed = run.wait_reload("failed", n)
        assert failed.error.startswith(
            f"{run.config_path}: profiles[0].plugins.filter.enabled[0]: unknown plugin 'NodeResourcesFitt'; available: "
        )
        write_atomic(run.config_path, "profiles: [\n")
        failed = run.wait_reload("failed", n + 1)
        assert failed.error.startswith(f"{run.config_path}: ")
        assert "\n" not in failed.error
        assert run.generation is before
        run.drain()
        assert run.load.stats.created == run.load.stats.bound


# ---- building generations: isolation, validate, dry run, handoff, release ---------------------------
HELPER_USER = '''from kubeberth import NodeView, hookimpl
from _shared import ZONE
from helpers.names import flavour

__version__ = f"{ZONE}-{flavour()}"


class Zoned:
    name = "Zoned"

    @hookimpl
    def filter(self, nodes: NodeView) -> None:
        return None
'''


def test_helper_modules_are_reloaded_and_nothing_is_left_in_sys_modules(tmp_path: Path) -> None:
    plugins = {"zoned.py": HELPER_USER, "_shared.py": 'ZONE = "zone-a"\n'}
    (tmp_path / "plugins" / "helpers").mkdir(parents=True)
    (tmp_path / "plugins" / "helpers" / "__init__.py").write_text("")
    (tmp_path / "plugins" / "helpers" / "names.py").write_text('def flavour() -> str:\n    return "plain"\n')
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins=plugins) as run:
        assert run.plugin_version("Zoned") == "zone-a-plain"
        write_atomic(run.plugins_dir / "_shared.py", 'ZONE = "zone-b"\n')
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b-plain", 10, "the helper change")
        write_atomic(run.plugins_dir / "helpers" / "names.py", 'def flavour() -> str:\n    return "spicy"\n')
        run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b-spicy", 10, "the package change")
        leftovers = [m for m in sys.modules if m.startswith(("kubeberth_dropin_", "_shared", "helpers"))]
        assert leftovers == []


def test_old_generations_are_released(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=50) as run:
        first = weakref.ref(run.generation.default_profile.plugins["Zoned"])
        cls = weakref.ref(type(run.generation.default_profile.plugins["Zoned"]))
        assert type(first()).__module__ not in sys.modules
        for i in range(4):
            zone = ("zone-b", "zone-c")[i % 2]
            write_atomic(run.plugins_dir / "zoned.py", zoned(zone))
            run.wait_generation(lambda g, z=zone: g.registry["Zoned"].version == z, 10, zone)
        wait_for(lambda: (gc.collect(), first() is None and cls() is None)[1], 10, "the first generation to be freed")
        # With no pods flowing, nothing runs a cycle after a swap: the loop's per-profile reuse
        # caches (batching, incremental cycles) must not keep an old generation alive either.
        # (The one just replaced stays as the rollback target until the next swap.)
        run.drain()
        last = weakref.ref(run.generation.default_profile.plugins["Zoned"])
        for zone in ("zone-a", "zone-b"):
            write_atomic(run.plugins_dir / "zoned.py", zoned(zone))
            run.wait_generation(lambda g, z=zone: g.registry["Zoned"].version == z, 10, zone)
        wait_for(lambda: (gc.collect(), last() is None)[1], 10, "the idle generation to be freed")


VALIDATED = '''from kubeberth import NodeView, hookimpl
from pydantic import BaseModel


class Zoned:
    name = "Zoned"

    class Args(BaseModel):
        zone: str = ""

    def __init__(self, args=None) -> None:
        self.zone = (args or self.Args()).zone

    def validate(self) -> str | None:
        return None if self.zone else "args.zone must name a zone"

    @hookimpl
    def filter(self, nodes: NodeView) -> None:
        return None
'''

RAISES_AT_ONCE = '''from kubeberth import NodeView, hookimpl


class Zoned:
    name = "Zoned"

    @hookimpl
    def score(self, nodes: NodeView):
        raise LookupError("no metrics for these nodes")
'''

HANDS_OFF = '''from kubeberth import NodeView, hookimpl

__version__ = "{v}"


class Zoned:
    name = "Zoned"

    def __init__(self) -> None:
        self.cache = {{"{v}": True}}

    def handoff(self, previous) -> None:
        self.cache.update(previous.cache)

    @hookimpl
    def filter(self, nodes: NodeView) -> None:
        return None
'''


def test_validate_hook_and_dry_run_refuse_a_generation_before_the_swap(tmp_path: Path) -> None:
    settings = {"watch": False}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, settings=settings) as run:
        before = run.generation
        path = run.plugins_dir / "zoned.py"
        path.write_text(VALIDATED)
        status, body = run.post("/reload")
        assert status == 422
        assert body["reload"]["error"] == f"{path}: plugin 'Zoned' validate() refused: args.zone must name a zone"
        path.write_text(RAISES_AT_ONCE)
        status, body = run.post("/reload")
        assert status == 422
        assert body["reload"]["error"].startswith(f"{path}: plugin 'Zoned' failed the dry run: ")
        assert body["reload"]["error"].endswith("LookupError: no metrics for these nodes")
        assert body["generation"]["id"] == before.id
        assert run.generation is before
        write_atomic(run.config_path, ZONED_CONFIG + "  pluginConfig:\n  - name: Zoned\n    args: {zone: zone-b}\n")
        path.write_text(VALIDATED)
        status, body = run.post("/reload")
        assert (status, body["reload"]["result"]) == (200, "success")


def test_handoff_hook_passes_state_to_the_new_instance(tmp_path: Path) -> None:
    settings = {"watch": False}
    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": HANDS_OFF.format(v="1")}, settings=settings) as run:
        (run.plugins_dir / "zoned.py").write_text(HANDS_OFF.format(v="2"))
        status, _ = run.post("/reload")
        assert status == 200
        assert run.generation.default_profile.plugins["Zoned"].cache == {"1": True, "2": True}


# ---- admin API -------------------------------------------------------------------------------------
SLOW_IMPORT = zoned("zone-b").replace("import numpy as np", "import time\nimport numpy as np\ntime.sleep(3)")


def test_healthz_and_scheduling_continue_while_a_generation_builds(tmp_path: Path) -> None:
    import threading

    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}, rate=100,
                     settings={"watch": False}) as run:
        (run.plugins_dir / "zoned.py").write_text(SLOW_IMPORT)
        result: list = []
        worker = threading.Thread(target=lambda: result.append(run.post("/reload")))
        worker.start()
        time.sleep(0.3)
        bound = run.load.stats.bound
        t0 = time.monotonic()
        assert run.get("/healthz") == (200, "ok")
        assert time.monotonic() - t0 < 1.0
        wait_for(lambda: run.load.stats.bound > bound + 20, 2.0, "bindings during the build")
        assert not result, "the reload finished before the checks: the build was not slow enough"
        worker.join(15)
        assert result[0][0] == 200
        assert result[0][1]["generation"]["plugins"][-1] == {
            "name": "Zoned", "source": f"dropin:{run.plugins_dir / 'zoned.py'}", "version": "zone-b"
        }


def test_debug_generation_and_plugins_list_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kubeberth.apps.cli import main
    from kubeberth.apps.httpserver import Request

    with EmbeddedRun(tmp_path, config=ZONED_CONFIG, plugins={"zoned.py": zoned("zone-a")}) as run:
        first = run.generation
        before = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", zoned("zone-b"))
        second = run.wait_generation(lambda g: g.registry["Zoned"].version == "zone-b")
        # The loop swaps first; the reloader thread records the outcome just after.
        run.wait_reload("success", before)
        status, body = run.get("/debug/generation")
        assert status == 200
        assert body["id"] == second.id and body["number"] == second.number
        assert body["previous"] == first.id
        assert body["created"].endswith("Z")
        assert {"name": "Zoned", "source": f"dropin:{run.plugins_dir / 'zoned.py'}", "version": "zone-b"} in body["plugins"]
        assert body["last_reload"]["result"] == "success" and body["last_reload"]["error"] is None
        before = len(run.runner.reloader.history)
        write_atomic(run.plugins_dir / "zoned.py", "import nope\n")
        run.wait_reload("failed", before)
        assert main(["plugins", "list", "--server", run.url]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].startswith(f"generation {second.id} (#{second.number}, created ")
        assert any(line.split() == ["Zoned", f"dropin:{run.plugins_dir / 'zoned.py'}", "zone-b"] for line in out.splitlines())
        assert "last reload: failed at " in out
        assert f"{run.plugins_dir / 'zoned.py'}: line 1: ModuleNotFoundError while importing: No module named 'nope'" in out
        reload_route = run.runner.http.post_routes["/reload"]
        assert reload_route(Request("POST", "/reload", client="10.1.2.3"))[0] == 403
        assert reload_route(Request("POST", "/reload", client="::1"))[0] in (200, 409, 422)
        # On the secure port the guard has authorized the caller (SubjectAccessReview): any address.
        assert reload_route(Request("POST", "/reload", client="10.1.2.3", authorized=True))[0] in (200, 409, 422)


# ---- pip-installed plugins: SIGHUP and POST /reload ------------------------------------------------
def _wheel(tmp: Path, version: str) -> Path:
    """A real wheel of a plugin package declaring a `kubeberth.plugins` entry point."""
    import zipfile

    name = "kubeberth_zoneplug"
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": zoned("zone-b").replace("class Zoned:\n", f'class Zoned:\n    version = "code-{version}"\n'),
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: kubeberth-zoneplug\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: kubeberth-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": f"[kubeberth.plugins]\nZoned = {name}:Zoned\n",
    }
    files[f"{dist_info}/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{dist_info}/RECORD,,\n"
    path = tmp / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, text in files.items():
            zf.writestr(member, text)
    return path


def _throwaway_venv(tmp: Path) -> Path:
    """A venv of its own (pip installs and upgrades there for real), seeing kubeberth and its
    dependencies through a .pth file; returns its python."""
    import subprocess
    import sysconfig

    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    here = sysconfig.get_paths()["purelib"]  # processed as a site dir: the editable install's .pth works too
    Path(purelib, "kubeberth-test-env.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    return python


def _pip_install(wheel: Path, python: Path) -> None:
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", "--upgrade",
         str(wheel)],
        check=True, capture_output=True, timeout=120,
    )


def test_pip_installed_plugin_is_picked_up_on_sighup_and_on_post_reload(tmp_path: Path) -> None:
    """`pip install` into the running scheduler's own throwaway venv (never the test's environment)."""
    import json
    import signal
    import socket
    import subprocess
    import urllib.request

    python = _throwaway_venv(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "KUBEBERTH_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [str(python), "-m", "kubeberth.apps.cli", "run", "--embedded", "--nodes", "20", "--pods-per-second", "20",
         "--healthz-bind-address", f"127.0.0.1:{port}"],
        env=env, stderr=subprocess.PIPE, text=True,
    )

    def generation() -> dict:
        with urllib.request.urlopen(url + "/debug/generation", timeout=5) as resp:
            return json.loads(resp.read())

    def plugin() -> dict | None:
        try:
            return next((p for p in generation()["plugins"] if p["name"] == "Zoned"), None)
        except OSError:
            return None

    try:
        wait_for(lambda: _up(url), 30, "the scheduler's HTTP server")
        assert plugin() is None
        _pip_install(_wheel(tmp_path, "1.0"), python)
        proc.send_signal(signal.SIGHUP)
        found = wait_for(plugin, 20, "the installed plugin after SIGHUP")
        assert found == {"name": "Zoned", "source": "entrypoint:kubeberth-zoneplug==1.0", "version": "code-1.0"}
        _pip_install(_wheel(tmp_path, "2.0"), python)
        req = urllib.request.Request(url + "/reload", method="POST", data=b"")
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = json.loads(resp.read())
        assert body["reload"]["result"] == "success"
        assert {"name": "Zoned", "source": "entrypoint:kubeberth-zoneplug==2.0", "version": "code-2.0"} in (
            body["generation"]["plugins"]
        )
        assert _up(url)
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def _up(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False

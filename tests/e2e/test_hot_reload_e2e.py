"""Hot reload against a real kube-apiserver: the configuration of a running `kubeberth run`
changes (a score weight, then a new profile) while pods keep arriving; every pod is bound."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from cluster import wait_for
from kubeberth_harness import PROFILE, Api, suffix

# Fixtures from conftest.py: admin API, a namespace, nodes, `kubeberth run` processes.


def _generation(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/debug/generation", timeout=5) as resp:
        return json.loads(resp.read())


def _rewrite(path: Path, change: Any) -> None:
    """An atomic-rename save, as editors and config management do."""
    cfg = yaml.safe_load(path.read_text())
    change(cfg)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump(cfg))
    os.replace(tmp, path)


def test_config_change_on_a_running_scheduler_keeps_pods_binding(
    api: Api, namespace: str, nodes: list[str], start_kubeberth: Any, tmp_path: Path
) -> None:
    for _ in range(2):
        node = f"kb-n-{suffix()}"
        api.create_node(node, "8", "16Gi")
        nodes.append(node)
    kb = start_kubeberth()
    config = tmp_path / "config-0.yaml"
    first = _generation(kb.port)
    created: list[str] = []
    stop = threading.Event()

    def create_pods() -> None:
        i = 0
        while not stop.is_set():
            api.create_pod(namespace, f"steady-{i}")
            created.append(f"steady-{i}")
            i += 1
            time.sleep(0.1)

    creator = threading.Thread(target=create_pods, daemon=True)
    creator.start()
    try:
        wait_for(lambda: len(api.bound(namespace)) >= 5, 30, "pods binding before the change")

        def weight(cfg: dict[str, Any]) -> None:
            cfg["profiles"][0]["plugins"] = {"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}}

        _rewrite(config, weight)
        second = wait_for(lambda: (g := _generation(kb.port))["id"] != first["id"] and g, 30, "the new generation")
        assert second["previous"] == first["id"]
        assert second["last_reload"]["result"] == "success"

        def new_profile(cfg: dict[str, Any]) -> None:
            cfg["profiles"].append({"schedulerName": "kubeberth-batch"})

        _rewrite(config, new_profile)
        third = wait_for(
            lambda: (g := _generation(kb.port))["profiles"] == [PROFILE, "kubeberth-batch"] and g, 30, "the new profile"
        )
        assert third["previous"] == second["id"]
        api.create_pod(namespace, "batch-0", scheduler="kubeberth-batch")
        time.sleep(1.0)
    finally:
        stop.set()
        creator.join(10)
    expected = {*created, "batch-0"}
    wait_for(lambda: set(api.bound(namespace)) == expected, 60, f"all {len(expected)} pods bound")
    log = kb.log_text()
    assert f"generation {second['id']} now schedules, replacing {first['id']}" in log
    assert "reload (watch) failed" not in log
    assert kb.probe("/healthz") == 200


NOTHING_FITS = '''"""Every pod unschedulable: a policy bug that only shows under real traffic."""
import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl

__version__ = "{version}"


class Reserved:
    name = "Reserved"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        return FilterResult.reject_where(np.full(len(nodes), {reject}), "node(s) are reserved")
'''


def _save(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def test_rollback_is_an_event_on_the_lease_and_pods_still_bind(
    api: Api, namespace: str, nodes: list[str], start_kubeberth: Any, tmp_path: Path
) -> None:
    node = f"kb-n-{suffix()}"
    api.create_node(node, "16", "32Gi")
    nodes.append(node)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    _save(plugins / "reserved.py", NOTHING_FITS.format(version="good", reject=False))
    kb = start_kubeberth(plugins_dir=plugins)
    config = tmp_path / "config-0.yaml"

    def enable(cfg: dict[str, Any]) -> None:
        cfg["profiles"][0]["plugins"] = {"multiPoint": {"enabled": [{"name": "Reserved"}]}}

    _rewrite(config, enable)
    good = wait_for(lambda: (g := _generation(kb.port))["last_reload"] and g, 30, "the plugin enabled")
    assert good["last_reload"]["result"] == "success", good
    for i in range(25):
        api.create_pod(namespace, f"before-{i}")
    wait_for(lambda: len(api.bound(namespace)) == 25, 60, "pods bound on the good generation")
    _save(plugins / "reserved.py", NOTHING_FITS.format(version="bad", reject=True))
    wait_for(lambda: _generation(kb.port)["id"] != good["id"], 30, "the bad generation")
    for i in range(40):
        api.create_pod(namespace, f"after-{i}")
    back = wait_for(
        lambda: (g := _generation(kb.port))["last_reload"]["result"] == "rolled_back" and g, 60, "the rollback"
    )
    assert back["id"] == good["id"]
    reason = back["last_reload"]["error"]
    assert reason.startswith("generation ") and f"rolled back to {good['id']}: unschedulable rate" in reason
    wait_for(lambda: len(api.bound(namespace)) == 65, 90, "every pod bound after the rollback")

    def rollback_events() -> list[dict[str, Any]]:
        items = api.call("GET", "/apis/events.k8s.io/v1/namespaces/kube-system/events")["items"]
        return [e for e in items if e["reason"] == "GenerationRolledBack" and e["note"] == reason]

    events = wait_for(rollback_events, 30, "the GenerationRolledBack event")
    assert events[0]["regarding"] == {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "namespace": "kube-system", "name": "kubeberth"
    }
    assert events[0]["type"] == "Warning"


HANGS = '''"""Loops for ever in Python on pods named hang-*."""
from kubeberth import PodView, hookimpl


class Hangs:
    name = "Hangs"

    @hookimpl
    def filter(self, pod: PodView) -> None:
        while pod.name.startswith("hang-"):
            pass
'''


def test_hung_plugin_is_an_event_on_the_lease_and_its_pod_binds_after_the_rollback(
    api: Api, namespace: str, nodes: list[str], start_kubeberth: Any, tmp_path: Path
) -> None:
    node = f"kb-n-{suffix()}"
    api.create_node(node, "16", "32Gi")
    nodes.append(node)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    _save(plugins / "hangs.py", HANGS)
    kb = start_kubeberth(plugins_dir=plugins, env={"KUBEBERTH_PLUGIN_TIMEOUT_SECONDS": "1"})

    def enable(cfg: dict[str, Any]) -> None:
        cfg["profiles"][0]["plugins"] = {"multiPoint": {"enabled": [{"name": "Hangs"}]}}

    _rewrite(tmp_path / "config-0.yaml", enable)
    reloaded = wait_for(lambda: (g := _generation(kb.port))["last_reload"] and g, 30, "the plugin enabled")
    assert reloaded["last_reload"]["result"] == "success", reloaded
    pod = f"hang-{suffix()}"
    t0 = time.monotonic()
    api.create_pod(namespace, pod)
    wait_for(lambda: pod in api.bound(namespace), 30, "the hung pod bound on the restored generation")
    bound_after = time.monotonic() - t0
    back = _generation(kb.port)
    assert back["last_reload"]["result"] == "rolled_back" and back["id"] != reloaded["id"]
    assert "plugin 'Hangs' ran " in back["last_reload"]["error"]

    def timeout_events() -> list[dict[str, Any]]:
        items = api.call("GET", "/apis/events.k8s.io/v1/namespaces/kube-system/events")["items"]
        return [e for e in items if e["reason"] == "PluginTimeout" and f"{namespace}/{pod}" in e["note"]]

    events = wait_for(timeout_events, 30, "the PluginTimeout event")
    assert events[0]["regarding"] == {
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "namespace": "kube-system", "name": "kubeberth"
    }
    assert events[0]["type"] == "Warning" and events[0]["action"] == "PluginWatchdog"
    assert "at filter (scheduling)" in events[0]["note"]
    print(f"\n[e2e] hung pod bound on the restored generation {bound_after:.1f}s after its creation (plugin timeout 1 s)")

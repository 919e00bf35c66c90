"""A reload that enables a plugin reading kinds nobody watched yet, against a real kube-apiserver.

kubeberth starts with GangScheduling disabled in its configuration (the GenericWorkload gate on),
so it does not watch PodGroups. The configuration is then changed to enable it: the running
scheduler must start watching PodGroups with the new generation, or the gang's members would wait
for a group its cache never sees. No restart.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from kubeberth_harness import CONFIG_DIR, Api, Kubeberth, suffix, write_config
from test_gang_scheduling_e2e import WORKLOAD_API, create_member, pod_group


@pytest.fixture(scope="module")
def workload_plane() -> Iterator[LocalControlPlane]:
    if os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1":
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    with LocalControlPlane(extra_apiserver_args=WORKLOAD_API) as cp:
        yield cp


def _generation_id(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/debug/generation", timeout=5) as resp:
        return str(json.loads(resp.read())["id"])


def _save(path: Path, cfg: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump(cfg))
    os.replace(tmp, path)


def test_reload_enabling_gang_scheduling_starts_watching_pod_groups(
    workload_plane: LocalControlPlane, tmp_path: Path
) -> None:
    api = Api(workload_plane)
    workload_plane.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
    kubeconfig = workload_plane.kubeconfig_for_service_account("kube-system", "kubeberth")
    config = write_config(tmp_path / "config.yaml")
    cfg = yaml.safe_load(config.read_text())
    cfg["profiles"][0]["plugins"] = {"multiPoint": {"disabled": [{"name": "GangScheduling"}]}}
    _save(config, cfg)
    kb = Kubeberth(workload_plane, kubeconfig, config, False, f"kubeberth-{suffix()}",
                   env={"KUBEBERTH_FEATURE_GATES": "GenericWorkload=true"})
    node = f"kinds-node-{suffix()}"
    ns = f"kinds-{suffix()}"
    try:
        kb.wait_ready()
        first = _generation_id(kb.port)
        api.create_node(node, cpu="4", memory="8Gi")
        api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        # Without GangScheduling a member of a gang of two is an ordinary pod: it binds alone.
        api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, "solo", 2))
        create_member(api, ns, "solo-0", "solo", "500m")
        wait_for(lambda: "solo-0" in api.bound(ns), 30, "a gang member bound alone before the reload")
        assert "now watching PodGroup" not in kb.log_text()

        cfg["profiles"][0].pop("plugins")
        _save(config, cfg)
        wait_for(lambda: _generation_id(kb.port) != first, 30, "the generation with GangScheduling")
        wait_for(lambda: "now watching PodGroup" in kb.log_text(), 30, "the PodGroup informer to start")

        api.call("POST", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups", pod_group(ns, "pair", 2))
        create_member(api, ns, "pair-0", "pair", "500m")
        time.sleep(2)
        assert "pair-0" not in api.bound(ns)  # a gang of two now: the first member waits for the second
        create_member(api, ns, "pair-1", "pair", "500m")
        bound = wait_for(lambda: len(api.bound(ns)) == 3 and api.bound(ns), 60, "the gang to bind")
        assert set(bound) == {"solo-0", "pair-0", "pair-1"}
        assert "reload (watch) failed" not in kb.log_text()
    finally:
        kb.stop()
        api.call("DELETE", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
        api.delete_node(node)

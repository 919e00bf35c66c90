"""The affinity and spread plugins run through the real framework (default profile, embedded cluster)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kubeberth.testing import make_node, make_pod


def zone_nodes(n: int = 6) -> list[dict[str, Any]]:
    return [make_node(f"n{i}", labels={"topology.kubernetes.io/zone": f"z{i % 3}"}) for i in range(n)]


def test_default_profile_loads_the_plugins(scheduler_tester) -> None:
    fw = scheduler_tester(default_plugins=True).framework
    for name in ("NodeAffinity", "TaintToleration", "PodTopologySpread", "InterPodAffinity"):
        assert name in fw.enabled("filter"), name
        assert name in fw.enabled("score"), name


def test_spread_and_anti_affinity_end_to_end(scheduler_tester) -> None:
    spread = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"app": "web"}}}
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    pods = [make_pod(f"web{i}", "100m", "64Mi", labels={"app": "web"}, topologySpreadConstraints=[spread])
            for i in range(9)]
    pods += [make_pod(f"db{i}", "100m", "64Mi", labels={"app": "db"}, affinity=anti) for i in range(7)]
    result = scheduler_tester(default_plugins=True).simulate(zone_nodes() + pods)
    placed = result.placements
    zones = Counter(int(placed[f"default/web{i}"][1:]) % 3 for i in range(9))
    assert sorted(zones.values()) == [3, 3, 3]
    db_nodes = [placed.get(f"default/db{i}") for i in range(7)]
    assert len({n for n in db_nodes if n}) == 6 and db_nodes.count(None) == 1


def test_taints_and_node_affinity_end_to_end(scheduler_tester) -> None:
    nodes = zone_nodes()
    nodes[0]["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    tolerating = make_pod("gpu", "100m", "64Mi", tolerations=[{"key": "dedicated", "operator": "Exists"}],
                          nodeSelector={"kubernetes.io/hostname": "n0"})
    plain = make_pod("plain", "100m", "64Mi", nodeSelector={"kubernetes.io/hostname": "n0"})
    result = scheduler_tester(default_plugins=True).simulate([*nodes, tolerating, plain])
    assert result.placements.get("default/gpu") == "n0"
    assert "default/plain" not in result.placements
    note = next(e["note"] for e in result.backend.events if e["regarding"] == "default/plain")
    assert note.startswith(
        "0/6 nodes are available: 1 node(s) had untolerated taint(s), "
        "5 node(s) didn't match Pod's node affinity/selector."
    )

"""Filtering with nominated pods: the first pass in one batch call (every active filter node-local)
and node by node make the same decisions and the same failure messages, cycle by cycle, over a
random stream where preemption nominates pods, another scheduler's pods stay nominated, and some
pods bring filters that read other nodes' pods (spread, anti-affinity), which take the node-by-node
path in both runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kubeberth.scheduling import nominated as nominated_mod
from kubeberth.testing import SchedulerTester, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def cluster(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for i in range(n):
        cpu = "8" if i % 7 == 0 else "4"
        taints = ["dedicated=batch:NoSchedule"] if i % 11 == 3 else None
        objs.append(make_node(f"n{i:03d}", cpu, "16Gi", labels={ZONE: f"z{i % 3}", "disk": "ssd" if i % 4 else "hdd"},
                              taints=taints))
    for j in range(3 * n):  # low-priority pods already running: most nodes nearly full
        node = f"n{j % n:03d}"
        cpu = ["900m", "1", "1200m"][int(rng.integers(3))]
        objs.append(make_pod(f"init-{j:04d}", cpu, "1Gi", priority=int(rng.integers(0, 3)), nodeName=node,
                             labels={"app": "init"}))
    for k in range(n // 4):  # another scheduler's pods, nominated and never scheduled here
        other = make_pod(f"other-{k:03d}", ["500m", "2"][k % 2], "1Gi", priority=[0, 5, 10][k % 3],
                         schedulerName="someone-else", labels={"app": "web" if k % 2 else "other"})
        other["status"] = {"nominatedNodeName": f"n{int(rng.integers(n)):03d}"}
        objs.append(other)
    return objs


def stream(rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    spread = [{"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    pods = []
    for i in range(count):
        kind = int(rng.integers(10))
        priority = [0, 5, 10][int(rng.integers(3))]
        cpu = ["500m", "1", "2", "3"][int(rng.integers(4))]
        spec: dict[str, Any] = {"priority": priority}
        labels = {"app": "plain"}
        if kind == 0:
            spec["topologySpreadConstraints"], labels = spread, {"app": "web"}
        elif kind == 1:
            spec["affinity"], labels = anti, {"app": "web"}
        elif kind == 2:
            spec["nodeSelector"] = {"disk": "ssd"}
        elif kind == 3:
            spec["tolerations"] = ["dedicated=batch:NoSchedule"]
        elif kind == 4:
            spec["preemptionPolicy"] = "Never"
        pods.append(make_pod(f"p{i:03d}", cpu, "512Mi", labels=labels, **spec))
    return pods


def run(batch: bool, seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    rng = np.random.default_rng(seed)
    calls = {"batch": 0, "each": 0}
    for name in calls:
        real = getattr(nominated_mod, f"_first_pass_{name}")

        def counted(*a: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            calls[_name] += 1
            return _real(*a, **kw)

        monkeypatch.setattr(nominated_mod, f"_first_pass_{name}", counted)
    n = 120  # over 100 nodes: filtering samples in chunks
    args = {"PodTopologySpread": {"defaultingType": "List", "defaultConstraints": []}}
    with SchedulerTester(default_plugins=True, args=args, objects=cluster(rng, n), seed=seed,
                         podInitialBackoffSeconds=1, podMaxBackoffSeconds=2) as t:
        sched = t.scheduler
        sched.nominated_in_batch = batch
        for obj in stream(rng, 90):
            t.add(obj)
        t.sync()
        decisions: list[tuple[Any, ...]] = []
        deadline = 2000
        while deadline:
            deadline -= 1
            if not sched.step():
                while sched.in_flight:
                    sched.drain_events(block_for=0.05)
                if sched.backend.fire_timers(sched.clock.now()):
                    continue
                nxt = sched.queue.next_backoff_expiry()
                if nxt is None:
                    break
                sched.clock.advance_to(nxt)
                continue
            while sched.in_flight:  # bindings land before the next cycle: runs are comparable
                sched.drain_events(block_for=0.05)
            rec = sched.records[-1]
            decisions.append((rec.pod, rec.result, rec.node, rec.message, rec.evaluated_nodes, rec.feasible_nodes,
                              rec.rejected, rec.preemption))
    monkeypatch.undo()
    return decisions, calls


@pytest.mark.parametrize("seed", [1, 2])
def test_batch_and_node_by_node_first_pass_decide_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, fast_calls = run(True, seed, monkeypatch)
    slow, slow_calls = run(False, seed, monkeypatch)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        assert a == b
    # Both paths ran: preemption nominated pods, and filters that read other nodes' pods took turns.
    assert fast_calls["batch"] > 20 and fast_calls["each"] > 0, fast_calls
    assert slow_calls["batch"] == 0 and slow_calls["each"] > 20, slow_calls
    assert sum(1 for d in fast if d[7] is not None) > 5  # preemptions happened
    assert sum(1 for d in fast if d[1] == "Scheduled") > 20

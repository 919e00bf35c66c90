"""DefaultPreemption keeps each node's lower-priority pods (with their requests and order) across
attempts while the node's row is unchanged: a scheduler that has run many dry runs decides every
preemption exactly as a fresh one over the same cluster, while pods come and go, nodes are
relabelled, replaced and removed, and preemptors of several priorities alternate."""

from __future__ import annotations

from typing import Any

import numpy as np
from kubeberth.testing import SchedulerTester, make_node, make_pod


def evaluate(t: SchedulerTester, pod: dict[str, Any]) -> tuple[Any, ...]:
    t.plugin("DefaultPreemption").offset_rand = lambda n: n // 3  # the same start in both schedulers
    ev = t.evaluate(pod, preemption=True)
    return ev.nominated_node, ev.victims, ev.message


def test_a_long_lived_scheduler_preempts_as_a_fresh_one() -> None:
    rng = np.random.default_rng(7)
    nodes = {f"n{i:02d}": make_node(f"n{i:02d}", "4", "8Gi", labels={"pool": "a" if i % 2 else "b"}) for i in range(24)}
    pods: dict[str, dict[str, Any]] = {}
    serial = 0

    def add_pod() -> None:
        nonlocal serial
        serial += 1
        name = f"low-{serial:03d}"
        start = f"2026-01-01T00:{int(rng.integers(60)):02d}:00Z"
        raw = make_pod(name, ["500m", "1", "1500m"][int(rng.integers(3))], "1Gi", priority=int(rng.integers(0, 4)),
                       nodeName=str(rng.choice(sorted(nodes))))
        raw["status"] = {"startTime": start}
        pods[name] = raw

    for _ in range(100):
        add_pod()
    chosen: list[str] = []
    with SchedulerTester(default_plugins=True, objects=[*nodes.values(), *pods.values()]) as kept:
        for step in range(30):
            change = step % 4
            if change == 0:
                for _ in range(3):
                    add_pod()
                    kept.add(pods[max(pods)])
            elif change == 1:
                gone = str(rng.choice(sorted(pods)))
                del pods[gone]
                kept.delete("Pod", f"default/{gone}")
            elif change == 2:
                name = str(rng.choice(sorted(nodes)))
                nodes[name] = make_node(name, "4", "8Gi", labels={"pool": str(rng.choice(["a", "b"]))})
                kept.add(nodes[name])
            elif step % 12 == 3:  # a node leaves (its pods wait for it) and comes back
                name = str(rng.choice(sorted(nodes)))
                kept.delete("Node", name)
                kept.add(nodes[name])
            priority = [2, 3, 5][step // 6 % 3]  # runs of one priority: the kept entries serve
            for k in range(2):
                cpu = ["3", "3500m", "3900m"][int(rng.integers(3))]
                selector = {"nodeSelector": {"pool": "a"}} if (step + k) % 3 == 0 else {}
                preemptor = make_pod(f"hi-{step}-{k}", cpu, "1Gi", priority=priority, **selector)
                got = evaluate(kept, preemptor)
                with SchedulerTester(default_plugins=True, objects=[*nodes.values(), *pods.values()]) as fresh:
                    assert got == evaluate(fresh, preemptor), step
                chosen.append(got[0])
    assert sum(map(bool, chosen)) > 30 and len(set(chosen)) > 3  # most preempt, on several nodes

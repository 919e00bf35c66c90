"""Preemption victims get the DisruptionTarget condition before they are deleted (kube-scheduler's
PreemptPod in framework/preemption/executor.go), on the embedded cluster. The Kubernetes backend's
side is tests/e2e/test_preemption_e2e.py."""

from __future__ import annotations

from typing import Any

import pytest
from kubeberth.testing import SchedulerTester, make_node, make_pod

# TestPrepareCandidate's condition, v1.37.2 (executor_test.go), for defaultSchedulerName.
CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "PreemptionByScheduler",
    "message": "default-scheduler: preempting to accommodate a higher priority pod",
}


def _victim(with_condition: bool) -> dict[str, Any]:
    raw = make_pod("victim1", "3", uid="victim1", nodeName="node1", priority=100, schedulerName="default-scheduler")
    raw["metadata"]["generation"] = 1
    raw["status"] = {"phase": "Running"}
    if with_condition:
        raw["status"]["conditions"] = [dict(CONDITION, observedGeneration=1)]
    return raw


CASES = [
    ("TestPrepareCandidate/one victim without condition", False),
    ("TestPrepareCandidate/one victim with same condition", True),
]


@pytest.mark.parametrize("with_condition", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_victim_marked_then_deleted(with_condition: bool) -> None:
    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("node1", cpu="4"), _victim(with_condition))
        t.sync()
        writes: list[tuple[str, dict[str, Any]]] = []
        emit = t.backend._emit

        def recording(kind: str, typ: str, obj: dict[str, Any]) -> None:
            if kind == "Pod" and obj["metadata"]["name"] == "victim1":
                writes.append((typ, obj))
            emit(kind, typ, obj)

        t.backend._emit = recording  # type: ignore[method-assign]
        t.add(make_pod("preemptor", "2", uid="preemptor", priority=1000, schedulerName="default-scheduler"))
        for _ in range(5):  # one cycle preempts; the victim then terminates on the virtual clock
            t.step()
            if t.pod("victim1")["metadata"].get("deletionTimestamp"):
                break
        assert t.pod("preemptor")["status"]["nominatedNodeName"] == "node1"
        victim = t.pod("victim1")
        assert victim["metadata"].get("deletionTimestamp"), "the victim is deleted (gracefully)"
        conditions = [c for c in victim["status"]["conditions"] if c["type"] == "DisruptionTarget"]
        assert conditions == [dict(CONDITION, observedGeneration=1)]
        # The condition is written before the delete: the first write that carries a
        # deletionTimestamp already has it, and no write after the delete changes it.
        first_delete = next(i for i, (_t, obj) in enumerate(writes) if obj["metadata"].get("deletionTimestamp"))
        assert any(c["type"] == "DisruptionTarget" for c in writes[first_delete][1]["status"]["conditions"])
        condition_writes = [obj for _t, obj in writes[:first_delete] if not obj["metadata"].get("deletionTimestamp")]
        assert len(condition_writes) == (0 if with_condition else 1)  # the same condition is not written twice
        assert t.events("victim1", "Preempted") == ["Preempted by pod preemptor on node node1"]
        t.settle()
        assert t.node_of("preemptor") == "node1"
        assert "default/victim1" not in t.placements()


def test_a_victim_seen_terminating_since_it_was_chosen_is_left_alone() -> None:
    """Handle.delete_victim on a victim whose deletion the cache has seen since the preemption chose it (another
    replica preempted it, or anyone deleted it): no condition, no delete, no second Preempted event."""
    from kubeberth.cache.podinfo import PodInfo

    with SchedulerTester(default_plugins=True) as t:
        t.add(make_node("node1", cpu="4"), _victim(False))
        t.sync()
        chosen = PodInfo.from_dict(t.pod("victim1"))  # as the preemption's cycle saw it
        preemptor = PodInfo.from_dict(make_pod("preemptor", "2", uid="preemptor", priority=1000))
        handle = t.scheduler.handle_for(t.framework)
        assert handle.delete_victim(chosen, preemptor, "node1").ok
        assert t.pod("victim1")["metadata"].get("deletionTimestamp")
        t.sync()
        assert handle.delete_victim(chosen, preemptor, "node1").ok  # the same victim, chosen again meanwhile
        counts = [n for (key, reason, _), n in t.backend.event_counts.items() if key.endswith("/victim1")
                  and reason == "Preempted"]
        assert counts == [1]

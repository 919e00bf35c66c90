"""SchedulingGates: kube-scheduler v1.37.2's scheduling_gates_test.go TestPreEnqueue, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
from kubeberth.api.capabilities import capabilities_of
from kubeberth.builtin_plugins.scheduling_gates import SchedulingGates
from kubeberth.cache.podinfo import PodInfo
from st import GoStatus, fwk

CASES = [
    ("TestPreEnqueue/pod does not carry scheduling gates", st.MakePod().Name("p").Obj(), None),
    ("TestPreEnqueue/pod carries scheduling gates", st.MakePod().Name("p").SchedulingGates(["foo", "bar"]).Obj(),
     fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for scheduling gates: [foo bar]")),
]


@pytest.mark.parametrize(("pod", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pre_enqueue(pod: dict[str, Any], want: GoStatus | None) -> None:
    got = SchedulingGates().pre_enqueue(pod=PodInfo.from_dict(pod))
    assert (None if got is None else GoStatus(got.code, tuple(got.reasons))) == want


def test_is_schedulable_after_update_target_pod_scheduling_gates_eliminated() -> None:
    """scheduling_gates_test.go TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated: the pod's gates
    removed -> Queue; it is the event SchedulingGates registers, so the queue runs PreEnqueue again for it."""
    pl = SchedulingGates()
    pod = PodInfo.from_dict(st.MakePod().Name("p").SchedulingGates(["foo"]).Obj())
    old = PodInfo.from_dict(st.MakePod().Name("p").SchedulingGates(["foo"]).Obj())
    new = PodInfo.from_dict(st.MakePod().Name("p").Obj())
    assert pl.is_schedulable_after_gates_eliminated(pod, old, new) is True
    caps = capabilities_of(pl)
    assert caps.requeues("TargetPod/UpdatePodSchedulingGatesEliminated", pod, old, new)
    assert not caps.interested_in("TargetPod/Update") and not caps.interested_in("Node/Add")

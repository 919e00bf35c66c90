"""SchedulingGates: kube-scheduler v1.37.2's scheduling_gates_test.go TestPreEnqueue, case by case."""

from __future__ import annotations

from typing import Any

import pytest
import st
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

"""Pods held at Permit: timeouts on the scheduler's clock, and upstream's timeout message."""

from __future__ import annotations

import pytest
from kubeberth.api.status import Code, Status
from kubeberth.scheduling.waiting_pods import WaitingPod, go_duration
from kubeberth.testing import pod_info


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(300, "5m0s"), (3600, "1h0m0s"), (90.5, "1m30.5s"), (30, "30s"), (0.25, "250ms"), (0, "0s"), (1e-6, "1µs")],
)
def test_go_duration(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


def test_a_virtual_wait_ends_only_when_the_loop_expires_it() -> None:
    now = [0.0]
    waiting = WaitingPod(pod_info(), {"Gang": 300.0, "Other": 600.0}, lambda: now[0], virtual=True)
    assert waiting.next_deadline() == 300.0
    assert not waiting.expire(299.0) and not waiting.done
    waiting.allow("Other")
    assert waiting.expire(300.0) and waiting.done
    status = waiting.wait()
    assert status.plugin == "Gang"
    assert status.message == "rejected due to timeout after waiting 5m0s at plugin Gang"
    assert waiting.next_deadline() is None


def test_a_wall_clock_wait_times_out_in_the_worker() -> None:
    waiting = WaitingPod(pod_info(), {"Gang": 0.01})
    assert waiting.wait().message == "rejected due to timeout after waiting 10ms at plugin Gang"


def test_allowed_by_every_plugin_succeeds() -> None:
    waiting = WaitingPod(pod_info(), {"A": 60.0, "B": 60.0})
    waiting.allow("A")
    assert not waiting.done
    waiting.allow("B")
    assert waiting.wait().ok


def test_preempt_ends_the_wait_with_an_error_once_and_again_for_a_second_preemption() -> None:
    """kube-scheduler's WaitingPod.Preempt (plugins_test.go TestPreemptWithPermitPlugin): an Error, so the victim is
    retried after its backoff instead of parked; a second preemption before its binding cycle reports back finds it
    preempted (no delete call); a pod whose wait ended otherwise is not preempted in memory."""
    waiting = WaitingPod(pod_info(), {"A": 60.0})
    assert waiting.preempt("DefaultPreemption", "preempted")
    assert waiting.wait() == Status(Code.ERROR, ("preempted",), "DefaultPreemption")
    assert waiting.preempt("DefaultPreemption", "preempted")
    allowed = WaitingPod(pod_info(), {"A": 60.0})
    allowed.allow("A")
    assert not allowed.preempt("DefaultPreemption", "preempted")

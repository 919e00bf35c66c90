"""PodsInPreBind: the cancellation a PreBind observes, and the waits that end at it
(DynamicResources' wait for binding conditions; the cycle state's sleep that plugins poll with)."""

from __future__ import annotations

import threading

from kubeberth import CycleState, PreBindCancellation
from kubeberth.builtin_plugins.dynamic_resources.binding import wait_for_binding
from kubeberth.testing import SchedulerTester

REASON = "preempted by DefaultPreemption"


def test_a_cancelled_pre_bind_is_never_prebound_and_a_finished_one_cannot_be_cancelled() -> None:
    cancelled = PreBindCancellation()
    assert cancelled.cancel(REASON) and cancelled.cancel("again")  # CancelPod: true until finished
    assert cancelled.reason == REASON  # the first cause is kept
    assert not cancelled.mark_prebound()
    finished = PreBindCancellation()
    assert finished.mark_prebound()
    assert not finished.cancel(REASON) and not finished.cancelled


def test_the_cycle_states_sleep_wakes_at_the_cancellation() -> None:
    state = CycleState()
    assert state.pre_bind_cancelled() == "" and state.sleep_in_pre_bind(0) == ""
    state.pre_bind_cancellation = PreBindCancellation()
    assert state.sleep_in_pre_bind(0.01) == ""
    threading.Timer(0.1, state.pre_bind_cancellation.cancel, args=(REASON,)).start()
    assert state.sleep_in_pre_bind(600) == REASON
    assert state.pre_bind_cancelled() == REASON


def test_dynamic_resources_wait_for_binding_conditions_ends_at_the_cancellation() -> None:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "gpu", "namespace": "default", "uid": "gpu"}}
    with SchedulerTester(["NodeResourcesFit"], start=False) as t:
        t.add(claim)
        handle = t.scheduler.handle_for(t.framework)
        cancellation = PreBindCancellation()
        threading.Timer(0.1, cancellation.cancel, args=(REASON,)).start()
        # Not allocated yet: without the cancellation this waits out its 600 s timeout.
        assert wait_for_binding(handle, [claim], 600, cancellation=cancellation) == REASON

"""The runtime's Handle implements the public Handle protocol from injected services only."""

from __future__ import annotations

import inspect

from kubeberth import Handle
from kubeberth.scheduling.handle import FrameworkHandle
from kubeberth.scheduling.scheduler import Scheduler
from kubeberth.testing import SchedulerTester, make_node, make_pod


def protocol_members() -> set[str]:
    return {n for n in vars(Handle) if not n.startswith("_")}


def test_framework_handle_implements_every_member_with_the_same_parameters() -> None:
    for name in sorted(protocol_members()):
        declared = getattr(Handle, name)
        implemented = getattr(FrameworkHandle, name, None)
        assert implemented is not None, f"FrameworkHandle lacks {name}"
        if callable(declared) and not isinstance(declared, property):
            assert list(inspect.signature(implemented).parameters) == list(inspect.signature(declared).parameters), name


def test_the_handle_plugins_get_holds_no_scheduler() -> None:
    with SchedulerTester([]) as t:
        t.add(make_node("n1"), make_pod("p", uid="p"))
        t.sync()
        handle = t.scheduler.handle_for(t.framework)
        assert isinstance(handle, Handle)
        held = [getattr(handle, slot) for slot in FrameworkHandle.__slots__]
        assert not any(isinstance(v, Scheduler) for v in held)
        assert handle.cluster is t.scheduler.cluster and handle.profile == t.framework.profile
        assert handle.get_object("Pod", "default/p")["metadata"]["name"] == "p"
        assert handle.plugins_at("bind") == ["DefaultBinder"]

"""Custom resource events (kube-scheduler's ClusterEvent with a GVK string resource, e.g.
foos.v1.example.com, and the dynamic informer addAllEventHandlers starts for it): accepted in
`requeue_on` and `queueing_hints`, watched by the Kubernetes backend at /apis/<group>/<version>/<plural>,
and their events requeue the pods a plugin that registered them rejected."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from kubeberth import Status, hookimpl
from kubeberth.api.capabilities import capabilities_of, custom_resource
from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.kubernetes.backend import _resources
from kubeberth.backends.kubernetes.client import ApiError
from kubeberth.backends.kubernetes.informer import Informer
from kubeberth.errors import PluginLoadError
from kubeberth.runtime.config import parse_configuration
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.swap import watched_kinds
from kubeberth.testing import SchedulerTester, make_node, make_pod

FOO = "foos.v1.example.com"


class FakeCR:
    """queue_test.go's fakeCRPlugin: fails every node, registered for every event on Foos; its hint
    (for updates) retries the pod only when the Foo's field became "go"."""

    name = "fakeCRPlugin"
    requeue_on = (f"{FOO}/Add", f"{FOO}/Update")
    queueing_hints = {f"{FOO}/Update": "foo_ready"}

    def __init__(self) -> None:
        self.hinted: list[tuple[Any, Any]] = []

    def foo_ready(self, pod: Any, old: Any, new: Any) -> bool:
        self.hinted.append((old, new))
        return bool(new.get("field") == "go")

    @hookimpl
    def filter_node(self, pod: Any, node: Any) -> Status:
        return Status.unschedulable("always fail")


def _foo(field: str, rv: str) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Foo", "field": field,
            "metadata": {"name": "foo1", "namespace": "default", "uid": "f1", "resourceVersion": rv}}


@pytest.mark.parametrize(("event", "gvk"), [
    (FOO, FOO), (f"{FOO}/Add", FOO), ("foos.v1beta1.example.com/Delete", "foos.v1beta1.example.com"),
    ("widgets.v2.apps.example.io/Update", "widgets.v2.apps.example.io"),
    ("Node/Add", None), ("foos.example.com", None), (f"{FOO}/Added", None), ("Foos.v1.example.com", None),
])
def test_custom_resource_events_are_read_as_their_gvk(event: str, gvk: str | None) -> None:
    assert custom_resource(event) == gvk


def test_a_plugin_registering_custom_resource_events_loads_and_is_asked_about_them() -> None:
    caps = capabilities_of(FakeCR())
    assert caps.interested_in(f"{FOO}/Add") and caps.interested_in(f"{FOO}/Update")
    assert not caps.interested_in(f"{FOO}/Delete") and not caps.interested_in("Node/Add")
    assert capabilities_of(type("All", (), {"requeue_on": (FOO,)})()).interested_in(f"{FOO}/Delete")


@pytest.mark.parametrize("bad", ["foos.v1.example.com/Added", "foos.example.com", "Foos.v1.example.com/Add"])
def test_a_malformed_custom_resource_event_is_a_load_error_naming_plugin_and_event(bad: str) -> None:
    class Bad(FakeCR):
        requeue_on = (bad,)
        queueing_hints: dict[str, str] = {}

    config = parse_configuration(
        {"profiles": [{"schedulerName": "s", "plugins": {"filter": {"enabled": [{"name": "fakeCRPlugin"}]}}}]})
    with pytest.raises(PluginLoadError, match="plugin 'fakeCRPlugin'") as err:
        build_generation(config=config, extra_plugins=[Bad()])
    assert f"requeue_on: [{bad!r}] are not events" in str(err.value)
    assert "\n" not in str(err.value) and "<plural>.<version>.<group>" in str(err.value)


def test_watched_kinds_add_the_custom_resources_of_enabled_plugins() -> None:
    with SchedulerTester([FakeCR()], start=False) as t:
        kinds = watched_kinds(t.generation)
    assert kinds[-1] == FOO and kinds.count(FOO) == 1 and "Node" in kinds
    resources = _resources(kinds)
    assert resources[-1].path == "/apis/example.com/v1/foos" and resources[-1].custom
    assert [r.kind for r in resources if r.custom] == [FOO]


def test_custom_resource_events_requeue_the_pods_their_plugin_rejected() -> None:
    """ADDED retries the pod (no hint for Add); MODIFIED asks the hint with the Foo before and after;
    the embedded cluster itself produces no custom resource events."""
    with SchedulerTester([FakeCR()], objects=[make_node("n1", cpu="4")], podInitialBackoffSeconds=1,
                         podMaxBackoffSeconds=1) as t:
        plugin = t.plugin("fakeCRPlugin")
        assert t.schedule(make_pod("p", "100m", uid="p")) == {"p": None}
        queue = t.scheduler.queue
        assert queue.entries["p"].where == "unschedulable"
        t.scheduler.events.put(ClusterEvent(FOO, "ADDED", _foo("wait", "1")))
        t.sync()
        assert queue.entries["p"].where in ("active", "backoff")
        assert t.cluster.get_object(FOO, "default/foo1") == _foo("wait", "1")
        t.settle()
        assert queue.entries["p"].where == "unschedulable"
        t.scheduler.events.put(ClusterEvent(FOO, "MODIFIED", _foo("still", "2")))
        t.sync()
        assert queue.entries["p"].where == "unschedulable"
        assert plugin.hinted == [(_foo("wait", "1"), _foo("still", "2"))]
        t.scheduler.events.put(ClusterEvent(FOO, "MODIFIED", _foo("go", "3")))
        t.sync()
        assert queue.entries["p"].where in ("active", "backoff")
        t.scheduler.events.put(ClusterEvent(FOO, "DELETED", _foo("go", "3")))
        t.sync()
        assert t.cluster.get_object(FOO, "default/foo1") is None


class _Host:
    """What an informer reads of its backend (InformerHost), answering every list with `error`."""

    def __init__(self, error: ApiError) -> None:
        self.stopping = threading.Event()
        self.resync_period, self.watch_timeout, self.backoff_initial, self.backoff_max = 0.0, 1.0, 0.01, 0.02
        self.error = error
        self.calls = 0
        self.raw = self

    def request(self, *_args: Any, **_kwargs: Any) -> Any:
        self.calls += 1
        if self.calls >= 3:
            self.stopping.set()
        raise self.error

    def emit(self, event: ClusterEvent) -> None:
        raise AssertionError(event)


@pytest.mark.parametrize(("status", "fix"), [(404, "install its CustomResourceDefinition"),
                                             (403, "grant the scheduler's service account list and watch")])
def test_a_custom_resource_not_served_or_forbidden_warns_once_and_does_not_hold_readiness(
        status: int, fix: str, caplog: pytest.LogCaptureFixture) -> None:
    host = _Host(ApiError(status, "the server could not find the requested resource"))
    custom, builtin = _resources([FOO, "Node"])[::-1]
    informer = Informer(host, custom)  # type: ignore[arg-type]
    assert not informer.settled
    with caplog.at_level("DEBUG", logger="kubeberth.backends.kubernetes.informer"):
        informer.run()  # three failed lists, then stopping
    assert host.calls == 3 and informer.settled and not informer.synced.is_set()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and FOO in warnings[0] and fix in warnings[0], warnings
    plain = Informer(_Host(ApiError(status, "x")), builtin)  # type: ignore[arg-type]
    plain.run()
    assert not plain.settled  # a built-in kind still holds readiness

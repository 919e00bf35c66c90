"""RollbackGuard (kubeberth.scheduling.rollback): what counts against a generation on probation.

A bind that failed because the API server was unreachable, overloaded or the replica lost the
lead is the environment's error: a soak that restarted the API server while a reload was on
probation rolled a healthy generation back on DefaultBinder's failed binds.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kubeberth.runtime.records import CycleRecord
from kubeberth.scheduling.rollback import RollbackGuard, RollbackPolicy


def _guard() -> tuple[RollbackGuard, list[str], Any, Any]:
    reasons: list[str] = []
    clock = [100.0]
    guard = RollbackGuard(RollbackPolicy(), lambda bad, previous, reason: reasons.append(reason), lambda: clock[0])
    old, new = SimpleNamespace(id="g1"), SimpleNamespace(id="g2")
    guard.swapped(old, new)  # type: ignore[arg-type]
    return guard, reasons, old, new


def _attempt(guard: RollbackGuard, i: int, binding: dict[str, Any] | None) -> None:
    record = CycleRecord(f"ns/p{i}", f"uid-{i}", "kubeberth", "g2", result="Scheduled", node="n1")
    guard.cycle_done(record)
    if binding is not None:
        record.binding = binding
        guard.binding_done(record)


def _failed_bind(unavailable: bool) -> dict[str, Any]:
    binding = {"node": "n1", "generation": "g2", "result": "Error", "plugin": "DefaultBinder",
               "message": "binding failed: connection refused"}
    if unavailable:
        binding["unavailable"] = True
    return binding


def test_binds_failed_by_an_unavailable_api_do_not_roll_a_generation_back() -> None:
    guard, reasons, _, _ = _guard()
    for i in range(30):
        _attempt(guard, i, _failed_bind(unavailable=i % 2 == 0))  # half of them through an outage
    assert guard.health["g2"].unavailable == 15
    assert guard.health["g2"].errors == 15
    assert reasons and reasons[0].startswith("plugin error rate 45% over 20 attempts")  # 9 of the first 20 count


def test_an_outage_alone_leaves_the_generation_on_probation() -> None:
    guard, reasons, _, new = _guard()
    for i in range(30):
        _attempt(guard, i, _failed_bind(unavailable=True))
    assert reasons == []
    assert guard.health["g2"].errors == 0 and guard.health["g2"].unavailable == 30
    assert guard.probation is not None and guard.probation.generation is new


def test_plugin_errors_in_binding_still_roll_it_back() -> None:
    guard, reasons, _, _ = _guard()
    for i in range(25):
        _attempt(guard, i, _failed_bind(unavailable=False) if i % 4 == 0 else None)
    assert reasons and "most errors from plugin 'DefaultBinder'" in reasons[0]


def test_a_bind_to_an_unreachable_or_lost_api_is_marked_unavailable(tmp_path: Any) -> None:
    """KubernetesBackend.bind against a port nothing listens on (and after losing the lead)
    returns an Error whose `err` is BackendUnavailable: what the binding record carries as
    "unavailable"."""
    import socket

    from kubeberth.backends.base import BackendUnavailable
    from kubeberth.backends.kubernetes import KubernetesBackend, load_api_client
    from kubeberth.cache.podinfo import PodInfo

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections are refused
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters: [{{name: c, cluster: {{server: 'http://127.0.0.1:{port}'}}}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n"
    )
    backend = KubernetesBackend(load_api_client(str(kubeconfig), retries=False), ["kubeberth"])
    pod = PodInfo.from_dict({"metadata": {"name": "p", "namespace": "ns", "uid": "u1"}, "spec": {"containers": []}})
    status = backend.bind(pod, "n1")
    assert not status.ok and isinstance(status.err, BackendUnavailable), status
    backend.writes_allowed.clear()
    status = backend.bind(pod, "n1")
    assert status.message == "not the leader: binding refused" and isinstance(status.err, BackendUnavailable)

"""Malformed pods and nodes: one line naming the object and field, never a traceback or a dead loop.

`simulate --cluster` refuses them (exit 2, the document and field named). A running scheduler
(the same event handlers behind `kubeberth run` and `run --embedded`) skips them with a warning
and a FailedScheduling event where the pod is ours, keeps the last good state, and goes on
scheduling everything else. The informer of the Kubernetes backend skips an unreadable object
without dropping its watch stream.
"""

from __future__ import annotations

import copy
import json
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubeberth.apps import cli
from kubeberth.apps.simulate import simulate
from kubeberth.backends.base import ClusterEvent
from kubeberth.backends.embedded import EmbeddedCluster
from kubeberth.runtime.generation import build_generation
from kubeberth.scheduling.scheduler import Scheduler, VirtualClock
from kubeberth.testing import make_node, make_pod

Obj = dict[str, Any]


def _set(path: str, value: Any) -> Callable[[Obj], None]:
    """Set a dotted path (list indexes as numbers) in an object."""

    def apply(obj: Obj) -> None:
        *parents, last = path.split(".")
        target: Any = obj
        for part in parents:
            target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
        target[int(last) if last.isdigit() else last] = value

    return apply


# (id, how to break a good object, the field and problem the message must name)
BAD_PODS = [
    ("spec-string", _set("spec", "run me"), "spec: expected a mapping, got a string"),
    ("containers-mapping", _set("spec.containers", {"name": "main"}), "spec.containers: expected a list, got a mapping"),
    ("resources-string", _set("spec.containers.0.resources", "big"),
     "spec.containers[0].resources: expected a mapping, got a string"),
    ("tolerations-mapping", _set("spec.tolerations", {"key": "a"}), "spec.tolerations: expected a list, got a mapping"),
    ("labels-list", _set("metadata.labels", ["app"]), "metadata.labels: expected a mapping, got a list"),
    ("affinity-string", _set("spec.affinity", "near db"), "spec.affinity: expected a mapping, got a string"),
    ("priority-word", _set("spec.priority", "high"), "spec.priority: expected an integer, got a string"),
    ("volume-string", _set("spec.volumes", ["data"]), "spec.volumes[0]: expected a mapping, got a string"),
]
BAD_NODES = [
    ("status-string", _set("status", "Ready"), "status: expected a mapping, got a string"),
    ("allocatable-list", _set("status.allocatable", ["cpu"]), "status.allocatable: expected a mapping, got a list"),
    ("taints-mapping", _set("spec.taints", {"key": "a", "effect": "NoSchedule"}),
     "spec.taints: expected a list, got a mapping"),
    ("labels-list", _set("metadata.labels", ["zone"]), "metadata.labels: expected a mapping, got a list"),
    ("images-string", _set("status.images", "nginx"), "status.images: expected a list, got a string"),
]
CASES = [pytest.param("Pod", b, m, id=f"pod-{i}") for i, b, m in BAD_PODS] + [
    pytest.param("Node", b, m, id=f"node-{i}") for i, b, m in BAD_NODES
]


def broken(kind: str, breaker: Callable[[Obj], None], name: str = "bad") -> Obj:
    obj = make_pod(name, "100m", uid=f"uid-{name}") if kind == "Pod" else make_node(name)
    breaker(obj)
    return obj


def good_cluster() -> list[Obj]:
    return [make_node("n1"), make_node("n2"), make_pod("ok", "100m", uid="uid-ok")]


# ---- simulate: refused up front, exit 2 ------------------------------------------------------
@pytest.mark.parametrize(("kind", "breaker", "problem"), CASES)
def test_simulate_names_document_object_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, breaker: Callable[[Obj], None], problem: str
) -> None:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(yaml.safe_dump_all([*good_cluster(), broken(kind, breaker)]))
    assert cli.main(["simulate", "--cluster", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {manifest}: document 4 ({kind} bad): {problem}; fix the manifest and retry\n"


def test_simulate_subprocess_no_traceback(tmp_path: Path) -> None:
    manifest = tmp_path / "cluster.yaml"
    objects = good_cluster()
    objects[2] = {"kind": "List", "items": [broken("Pod", _set("spec.containers", {"name": "main"}))]}
    manifest.write_text(yaml.safe_dump_all(objects))
    proc = subprocess.run(
        [sys.executable, "-m", "kubeberth", "simulate", "--cluster", str(manifest)], capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"error: {manifest}: document 3.items[0] (Pod bad): spec.containers: expected a list, got a mapping; "
        "fix the manifest and retry\n"
    )


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ({"kind": "Pod", "metadata": "bad"}, "document 4 (Pod): metadata: expected a mapping, got str"),
        ({"kind": "Pod", "metadata": {"name": ["bad"]}}, "document 4 (Pod): metadata.name: expected a string, got list"),
        ({"kind": 7, "metadata": {"name": "x"}}, "document 4: kind: expected a string, got int"),
        ({"kind": "List", "items": {"a": 1}}, "document 4 (List): items: expected a list, got dict"),
    ],
)
def test_simulate_unreadable_envelope(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Obj, problem: str) -> None:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(yaml.safe_dump_all([*good_cluster(), doc]))
    assert cli.main(["simulate", "--cluster", str(manifest)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {manifest}: {problem}")


# ---- the running scheduler: the event handlers behind `kubeberth run` ------------------------
@pytest.fixture
def running() -> Any:
    made: list[Scheduler] = []

    def start(objects: list[Obj]) -> tuple[Scheduler, EmbeddedCluster]:
        backend = EmbeddedCluster(objects)
        s = Scheduler(build_generation(), backend, clock=VirtualClock(), seed=0)
        s.start_backend()
        made.append(s)
        return s, backend

    yield start
    for s in made:
        s.shutdown(wait=True)


def _feed(s: Scheduler, kind: str, typ: str, obj: Obj) -> None:
    """What an informer does: put the object on the loop's event queue."""
    s.events.put(ClusterEvent(kind, typ, obj))


@pytest.mark.parametrize(("kind", "breaker", "problem"), CASES)
def test_event_handlers_skip_malformed_objects_and_keep_scheduling(
    running: Any, caplog: pytest.LogCaptureFixture, kind: str, breaker: Callable[[Obj], None], problem: str
) -> None:
    caplog.set_level(logging.WARNING)
    good_node = make_node("bad", cpu="8")
    pending = make_pod("bad", "100m", uid="uid-bad", schedulerName="kubeberth", nodeSelector={"x": "never"})
    s, backend = running([make_node("n1", cpu="1"), good_node, pending] if kind == "Pod" else [make_node("n1", cpu="1"), good_node])
    s.run_until_settled(timeout=10)
    # A malformed update of a known object, then a malformed new one.
    update = broken(kind, breaker)
    if kind == "Pod":
        update["spec"] = update["spec"] if not isinstance(update.get("spec"), dict) else {**update["spec"], "schedulerName": "kubeberth"}
    _feed(s, kind, "MODIFIED", update)
    _feed(s, kind, "ADDED", broken(kind, breaker, "bad-new"))
    # The loop is alive: a pod that needs the (last good) big node is scheduled onto it.
    backend.apply(make_pod("after", "4", uid="uid-after", schedulerName="kubeberth"))
    s.run_until_settled(timeout=10)
    assert (backend.get("Pod", "default/after") or {})["spec"].get("nodeName") == "bad"
    label = "pod default" if kind == "Pod" else "node "
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and problem in r.getMessage()]
    assert any(w.startswith(f"{label}{'/' if kind == 'Pod' else ''}bad: {problem}") for w in warnings), warnings
    assert any("bad-new" in w for w in warnings), warnings
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    if kind == "Node":
        assert s.cluster.table.allocatable[s.cluster.table.row_of["bad"], 0] == 8000  # last good state kept
        assert "bad-new" not in s.cluster.table.row_of
    else:
        assert "uid-bad" not in s.queue.entries and "uid-bad" in s.skipped_pods
        if isinstance(update.get("spec"), dict):  # its scheduler is readable: the pod's owner hears of it
            notes = [e["note"] for e in backend.events if e["regarding"] == "default/bad" and e["reason"] == "FailedScheduling"]
            assert any(n.startswith(f"pod cannot be scheduled as written: pod default/bad: {problem}") for n in notes), notes
        # A fixed version is scheduled again.
        _feed(s, "Pod", "MODIFIED", make_pod("bad", "100m", uid="uid-bad", schedulerName="kubeberth"))
        s.run_until_settled(timeout=10)
        assert "uid-bad" not in s.skipped_pods
        assert s.cluster.pods["uid-bad"].node_name


@pytest.mark.parametrize(
    "obj",
    [
        "not an object",
        {"metadata": "bad", "spec": {}},
        {"metadata": {"name": "x", "uid": ["u"]}, "spec": {"containers": "c"}},
    ],
    ids=["string", "metadata-string", "uid-list"],
)
@pytest.mark.parametrize("kind", ["Pod", "Node", "PersistentVolumeClaim"])
@pytest.mark.parametrize("typ", ["ADDED", "MODIFIED", "DELETED"])
def test_event_handlers_survive_unreadable_objects(
    running: Any, caplog: pytest.LogCaptureFixture, obj: Any, kind: str, typ: str
) -> None:
    s, backend = running([make_node("n1")])
    s.run_until_settled(timeout=10)
    _feed(s, kind, typ, copy.deepcopy(obj))
    backend.apply(make_pod("after", "100m", uid="uid-after", schedulerName="kubeberth"))
    s.run_until_settled(timeout=10)
    assert s.cluster.pods["uid-after"].node_name == "n1"
    # Reported as a skipped object, not as a failure of the scheduler itself.
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# ---- the embedded backend: malformed objects put into the cluster while it runs ---------------
def test_embedded_cluster_with_malformed_pods_and_nodes(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    objects: list[Obj] = [make_node("n1"), make_node("n2")]
    objects += [broken("Pod", b, f"pod-{i}") for i, b, _ in BAD_PODS]
    objects += [broken("Node", b, f"node-{i}") for i, b, _ in BAD_NODES]
    objects += [make_pod(f"ok-{i}", "100m") for i in range(5)]
    result = simulate(build_generation(), objects, seed=0)
    s = result.summary
    assert s["nodes"] == 2 and s["scheduled"] == 5
    assert s["skipped"] == len(BAD_PODS)
    assert s["pods"] == s["scheduled"] + s["skipped"]
    code, reason = result.exit_status()
    assert code == 2 and reason.startswith(f"{len(BAD_PODS)} malformed pod(s) skipped: pod default/pod-")
    for i, _b, problem in BAD_PODS:
        assert result.scheduler.skipped_pods[f"uid-pod-{i}"] == f"pod default/pod-{i}: {problem}"
    warned = "\n".join(r.getMessage() for r in caplog.records)
    for i, _b, problem in BAD_NODES:
        assert f"node node-{i}: {problem}; node skipped until it is fixed" in warned


# ---- the Kubernetes informer: one unreadable object must not drop the watch -------------------
def test_informer_skips_unreadable_objects_and_keeps_its_stream() -> None:
    from kubeberth.backends.kubernetes.backend import KubernetesBackend
    from kubernetes.client import ApiClient

    backend = KubernetesBackend(ApiClient(), ["kubeberth"])
    seen: list[ClusterEvent] = []
    backend._sink = seen.append  # what start() wires to the scheduler's event queue
    informer = backend.informers["Pod"]
    good = make_pod("ok", "100m", uid="uid-ok", schedulerName="kubeberth")
    good["metadata"]["resourceVersion"] = "12"
    for event in (
        {"type": "ADDED", "object": "garbage"},
        {"type": "ADDED", "object": {"metadata": "bad", "spec": "bad"}},
        {"type": "MODIFIED", "object": {"metadata": {"name": "p", "resourceVersion": "11"}, "spec": "run me"}},
        {"type": "ADDED", "object": good},
    ):
        informer._handle("Pod", json.loads(json.dumps(event)))
    assert [(e.type, e.obj.get("spec")) for e in seen[-2:]] == [("ADDED", "run me"), ("ADDED", good["spec"])]
    assert informer.resource_version == "12"


@pytest.mark.parametrize(("path", "value"), [("spec.containers", {"name": "main"}), ("spec", "running")])
def test_malformed_update_of_a_running_pod_keeps_its_accounting(running: Any, path: str, value: Any) -> None:
    s, backend = running([make_node("n1", cpu="2"), make_pod("web", "1500m", uid="uid-web", nodeName="n1")])
    s.run_until_settled(timeout=10)
    bad = make_pod("web", "1500m", uid="uid-web", nodeName="n1", schedulerName="kubeberth")
    _set(path, value)(bad)
    _feed(s, "Pod", "MODIFIED", bad)
    backend.apply(make_pod("big", "1", uid="uid-big", schedulerName="kubeberth"))
    s.run_until_settled(timeout=10)
    assert s.cluster.pods["uid-web"].node_name == "n1"  # still counted on its node: big does not fit
    assert not s.cluster.pods["uid-big"].node_name
    assert not [e for e in backend.events if e["regarding"] == "default/web"]

"""Decision traces in a real Jaeger v2, read back through its HTTP query API.

kubeberth schedules pods on the embedded cluster (in-process, OTLP over HTTP and over gRPC) and
against the real kube-apiserver (a `kubeberth run` process configured only by OTEL_* variables);
each test asserts the span tree and attributes a user sees in Jaeger, and that an unschedulable
pod's trace carries the same FailedScheduling message as its event.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import LocalControlPlane, free_port, wait_for
from jaeger import LocalJaeger, span_tree, tags_of
from kubeberth.apps.simulate import simulate
from kubeberth.observability import Observability
from kubeberth.runtime.generation import build_generation
from kubeberth.testing import make_node, make_pod

REPO = Path(__file__).resolve().parents[2]

FAST_EXPORT = {"OTEL_BSP_SCHEDULE_DELAY": "100"}


def _service() -> str:
    return f"kubeberth-e2e-{uuid.uuid4().hex[:6]}"


def _root(trace: dict[str, Any]) -> dict[str, Any]:
    roots = span_tree(trace)[""]
    assert len(roots) == 1, [s["operationName"] for s in roots]
    return roots[0]


def _children(trace: dict[str, Any], span: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["operationName"]: s for s in span_tree(trace).get(span["spanID"], [])}


def _cycles(jaeger: LocalJaeger, service: str, pod: str, count: int = 1, **kw: Any) -> list[dict[str, Any]]:
    traces = jaeger.wait_for_traces(service, {"k8s.pod.name": pod}, count=count, **kw)
    return sorted(traces, key=lambda t: _root(t)["startTime"])


def _embedded_workload() -> list[dict[str, Any]]:
    return [
        make_node("small", cpu="250m"),
        make_node("big", cpu="4"),
        {**make_pod("low", "3", priority=0, nodeName="big"), "status": {"phase": "Running"}},
        make_pod("fits", "500m"),
        make_pod("huge", "64"),
        make_pod("vip", "2", priority=1000),
    ]


@pytest.mark.parametrize("protocol", ["http/protobuf", "grpc"])
def test_embedded_decisions_in_jaeger(jaeger: LocalJaeger, protocol: str) -> None:
    service = _service()
    endpoint = jaeger.otlp_grpc_endpoint if protocol == "grpc" else jaeger.otlp_http_endpoint
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_SERVICE_NAME": service,
        "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=e2e",
    }
    obs = Observability.from_env(env=env, metrics=False, decision_records=0)
    result = simulate(build_generation(), _embedded_workload(), seed=1, attach=obs.attach)
    obs.shutdown()  # flushes the batch processor

    # A scheduled pod: the cycle, its extension points and plugins, the binding cycle in the same trace.
    # (Its first attempt may find `big` still held by the terminating victim of vip's preemption.)
    def scheduled(traces: list[dict[str, Any]]) -> bool:
        return any(tags_of(_root(t))["kubeberth.result"] == "Scheduled" for t in traces)

    traces = _cycles(jaeger, service, "fits", ready=scheduled)
    trace = next(t for t in traces if tags_of(_root(t))["kubeberth.result"] == "Scheduled")
    root = _root(trace)
    assert root["operationName"] == "SchedulingCycle"
    tags = tags_of(root)
    assert tags["k8s.namespace.name"] == "default" and tags["k8s.node.name"] == "big"
    assert tags["kubeberth.result"] == "Scheduled" and tags["kubeberth.attempt"] == len(traces)
    assert tags["kubeberth.nodes.evaluated"] == 2 and tags["kubeberth.nodes.feasible"] == 1
    assert tags["kubeberth.generation"] == result.summary["generation"]
    process = {t["key"]: t["value"] for t in trace["processes"][root["processID"]]["tags"]}
    assert trace["processes"][root["processID"]]["serviceName"] == service
    assert process["deployment.environment"] == "e2e"
    points = _children(trace, root)
    assert {"PreFilter", "Filter", "Reserve", "Permit", "BindingCycle"} <= set(points)  # one feasible node: no Score
    filter_tags = tags_of(points["Filter"])
    assert json.loads(filter_tags["kubeberth.filter.rejected"]) == ["NodeResourcesFit: 1 (Insufficient cpu: 1)"]
    fit = tags_of(_children(trace, points["Filter"])["Filter/NodeResourcesFit"])
    assert fit["kubeberth.nodes.rejected"] == 1 and fit["kubeberth.status"] == "Unschedulable"
    binding = points["BindingCycle"]
    assert binding["traceID"] == root["traceID"]
    assert tags_of(binding)["kubeberth.binding.result"] == "Bound"
    steps = [x.split(" ")[:2] for x in tags_of(binding)["kubeberth.steps"].split("; ")]
    # No PreBind plugin has work for the pod: the pre-flight says Skip (and no nomination is written).
    assert steps == [["PreBindPreFlight", "Skip"], ["PreBind", "Success"], ["Bind", "Success"], ["PostBind", "Success"]]
    assert "kubeberth.binding.nominated_node" not in tags_of(binding)
    # Every filter that ran is summarized on the Filter span; the one that rejected has its own span.
    ran = {x.split(" ")[0] for x in filter_tags["kubeberth.plugins"].split("; ")}
    assert {"NodeResourcesFit", "TaintToleration", "NodeUnschedulable"} <= ran

    # An unschedulable pod: the trace says what the FailedScheduling event says.
    events = [e for e in result.backend.events if e["regarding"] == "default/huge" and e["reason"] == "FailedScheduling"]
    assert events
    huge = _root(_cycles(jaeger, service, "huge")[0])
    assert tags_of(huge)["kubeberth.result"] == "Unschedulable"
    assert tags_of(huge)["kubeberth.message"] == events[0]["note"]

    # A preempting pod: the Preemption span, then the attempt that scheduled it.
    vip = _cycles(jaeger, service, "vip", count=2)
    first = _root(vip[0])
    post = _children(vip[0], first)["PostFilter"]
    plugin = _children(vip[0], post)["PostFilter/DefaultPreemption"]
    pre = tags_of(_children(vip[0], plugin)["Preemption"])
    assert json.loads(pre["kubeberth.preemption.victims"]) == ["default/low"]
    assert pre["kubeberth.preemption.nominated_node"] == "big"
    assert tags_of(_root(vip[-1]))["k8s.node.name"] == "big"


# ---------------------------------------------------------------- against a real kube-apiserver


def _api(cp: LocalControlPlane, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201)) -> Any:
    status, data = cp.request(method, path, body)
    assert status in ok, f"{method} {path}: {status} {data}"
    return data


@pytest.fixture
def cluster_ns(control_plane: LocalControlPlane) -> Iterator[tuple[str, str]]:
    """A namespace and a 2-cpu node of this test's own."""
    sfx = uuid.uuid4().hex[:6]
    ns, node = f"kb-tr-{sfx}", f"kb-tr-n-{sfx}"
    _api(control_plane, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    _api(control_plane, "POST", "/api/v1/nodes", {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}},
    })
    res = {"cpu": "2", "memory": "4Gi", "pods": "110"}
    control_plane.kubectl(
        "patch", "node", node, "--subresource=status", "--type=merge", "-p",
        json.dumps({"status": {"capacity": res, "allocatable": res, "conditions": [{"type": "Ready", "status": "True"}]}}),
    )
    yield ns, node
    _api(control_plane, "DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))
    _api(control_plane, "DELETE", f"/api/v1/nodes/{node}", ok=(200, 404))


def _pod(name: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"schedulerName": "kubeberth", "containers": [
            {"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": cpu}}}]},
    }


def test_real_apiserver_decisions_in_jaeger(
    control_plane: LocalControlPlane, jaeger: LocalJaeger, cluster_ns: tuple[str, str], tmp_path: Path
) -> None:
    ns, node = cluster_ns
    control_plane.kubectl("apply", "-f", str(REPO / "config" / "rbac.yaml"))
    kubeconfig = control_plane.kubeconfig_for_service_account("kube-system", "kubeberth")
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "profiles": [{"schedulerName": "kubeberth"}],
    }))
    service = _service()
    port = free_port(avoid={control_plane.apiserver_port})
    env = {
        **os.environ, **FAST_EXPORT,
        # The Deployment's settings (config/deployment.yaml), pointed at this Jaeger over gRPC.
        "OTEL_EXPORTER_OTLP_ENDPOINT": jaeger.otlp_grpc_endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        "OTEL_SERVICE_NAME": service,
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
        "OTEL_TRACES_SAMPLER_ARG": "1.0",
    }
    log_path = control_plane.log_dir / f"{service}.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kubeberth", "run", f"--kubeconfig={kubeconfig}", f"--config={config}",
             f"--healthz-bind-address=127.0.0.1:{port}", "--secure-port=0", "--log-level=INFO", "--log-format=json"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"

        def ready() -> bool:
            assert proc.poll() is None, log_path.read_text()[-4000:]
            try:
                with urllib.request.urlopen(f"{url}/readyz", timeout=2) as resp:
                    return resp.status == 200
            except OSError:
                return False

        wait_for(ready, 60, "kubeberth /readyz")
        _api(control_plane, "POST", f"/api/v1/namespaces/{ns}/pods", _pod("fits", "500m"))
        _api(control_plane, "POST", f"/api/v1/namespaces/{ns}/pods", _pod("huge", "64"))

        def bound() -> bool:
            return (_api(control_plane, "GET", f"/api/v1/namespaces/{ns}/pods/fits")["spec"].get("nodeName") == node)

        wait_for(bound, 30, "fits to be bound")
        event = wait_for(lambda: next((e for e in _api(control_plane, "GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events")["items"]
                                       if e["reason"] == "FailedScheduling" and e["regarding"]["name"] == "huge"), None),
                         30, "huge's FailedScheduling event")

        (trace,) = _cycles(jaeger, service, "fits", ready=lambda ts: "BindingCycle" in _children(ts[0], _root(ts[0])))
        root = _root(trace)
        tags = tags_of(root)
        assert tags["k8s.namespace.name"] == ns and tags["k8s.node.name"] == node
        assert tags["k8s.pod.uid"] == _api(control_plane, "GET", f"/api/v1/namespaces/{ns}/pods/fits")["metadata"]["uid"]
        binding = _children(trace, root)["BindingCycle"]
        assert [x.split(" ")[:2] for x in tags_of(binding)["kubeberth.steps"].split("; ")][2] == ["Bind", "Success"]

        huge = _cycles(jaeger, service, "huge")
        assert tags_of(_root(huge[0]))["kubeberth.message"] == event["note"]
        assert event["note"].startswith("0/1 nodes are available: 1 Insufficient cpu.")

        # `kubeberth explain` against this running scheduler points at the same trace.
        out = subprocess.run(
            [sys.executable, "-m", "kubeberth", "explain", f"{ns}/huge", "--server", url],
            capture_output=True, text=True, timeout=30,
        )
        assert out.returncode == 0, out.stderr
        trace_ids = {t["traceID"] for t in huge}
        shown = next(line.split()[1] for line in out.stdout.splitlines() if line.strip().startswith("Trace:"))
        assert shown in trace_ids
        assert f"  FailedScheduling: {event['note']}" in out.stdout
        assert jaeger.trace(shown)["spans"]

        # The decision log line carries the trace id too.
        lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith("{")]
        decisions = [x for x in lines if x.get("logger") == "kubeberth.decisions" and x.get("pod") == f"{ns}/fits"]
        assert decisions and decisions[0]["trace_id"] == root["traceID"].rjust(32, "0")
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_jaeger_manifest_applies_with_server_dry_run(control_plane: LocalControlPlane) -> None:
    _api(control_plane, "POST", "/api/v1/namespaces",
         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "observability"}}, ok=(201, 409))
    out = control_plane.kubectl("apply", "--dry-run=server", "-f", str(REPO / "config" / "jaeger.yaml"), check=False)
    assert out.returncode == 0, out.stderr
    for kind in ("deployment.apps/jaeger", "service/jaeger"):
        assert kind in out.stdout, out.stdout


def test_run_embedded_traces_and_explain_point_at_the_same_trace(jaeger: LocalJaeger, tmp_path: Path) -> None:
    """`run --embedded` honours the OTEL_* environment like `run`; explain names the trace Jaeger has."""
    objects = [make_node("n1", cpu="1"), make_pod("fits", "500m", schedulerName="kubeberth"),
               make_pod("huge", "64", schedulerName="kubeberth")]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("\n---\n".join(json.dumps(o) for o in objects))
    service = _service()
    port = free_port()
    env = {**os.environ, **FAST_EXPORT, "OTEL_EXPORTER_OTLP_ENDPOINT": jaeger.otlp_http_endpoint,
           "OTEL_SERVICE_NAME": service, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
           "OTEL_TRACES_SAMPLER_ARG": "0"}  # nothing sampled by ratio: only the failed attempt is traced
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "kubeberth.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kubeberth", "run", "--embedded", f"--cluster={cluster}",
             f"--healthz-bind-address=127.0.0.1:{port}"],
            stdout=log, stderr=subprocess.STDOUT, env=env,
        )
    try:
        def explained(pod: str) -> dict[str, Any] | None:
            assert proc.poll() is None, (tmp_path / "kubeberth.log").read_text()[-3000:]
            out = subprocess.run([sys.executable, "-m", "kubeberth", "explain", pod, "--server", url, "--json"],
                                 capture_output=True, text=True, timeout=30)
            return json.loads(out.stdout) if out.returncode == 0 else None

        huge = wait_for(lambda: explained("default/huge"), 60, "huge's decision record")
        fits = wait_for(lambda: explained("default/fits"), 30, "fits' decision record")
        assert fits["result"] == "Scheduled" and fits["trace_id"] == ""  # ratio 0: not sampled
        assert huge["result"] == "Unschedulable" and huge["trace_id"]  # failures always are
        trace = jaeger.trace(huge["trace_id"])
        root = _root(trace)
        assert trace["processes"][root["processID"]]["serviceName"] == service
        assert tags_of(root)["k8s.pod.name"] == "huge"
        assert tags_of(root)["kubeberth.message"] == huge["message"]
        assert jaeger.find_traces(service, {"k8s.pod.name": "fits"}) == []
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_decision_annotation_on_a_real_apiserver(
    control_plane: LocalControlPlane, cluster_ns: tuple[str, str], tmp_path: Path
) -> None:
    """KUBEBERTH_DECISION_ANNOTATION=true with config/rbac-decision-annotation.yaml's patch verb."""
    ns, node = cluster_ns
    control_plane.kubectl("apply", "-f", str(REPO / "config" / "rbac.yaml"),
                          "-f", str(REPO / "config" / "rbac-decision-annotation.yaml"))
    kubeconfig = control_plane.kubeconfig_for_service_account("kube-system", "kubeberth")
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "profiles": [{"schedulerName": "kubeberth"}],
    }))
    port = free_port(avoid={control_plane.apiserver_port})
    env = {**os.environ, "KUBEBERTH_DECISION_ANNOTATION": "true"}
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    with open(tmp_path / "kubeberth.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kubeberth", "run", f"--kubeconfig={kubeconfig}", f"--config={config}",
             f"--healthz-bind-address=127.0.0.1:{port}", "--secure-port=0"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    try:
        _api(control_plane, "POST", f"/api/v1/namespaces/{ns}/pods", _pod("fits", "500m"))
        _api(control_plane, "POST", f"/api/v1/namespaces/{ns}/pods", _pod("huge", "64"))

        def annotation(pod: str) -> dict[str, Any] | None:
            assert proc.poll() is None, (tmp_path / "kubeberth.log").read_text()[-3000:]
            meta = _api(control_plane, "GET", f"/api/v1/namespaces/{ns}/pods/{pod}")["metadata"]
            value = (meta.get("annotations") or {}).get("kubeberth.io/last-decision")
            return json.loads(value) if value else None

        fits = wait_for(lambda: annotation("fits"), 60, "fits' decision annotation")
        assert fits["result"] == "Scheduled" and fits["node"] == node and fits["attempt"] == 1
        huge = wait_for(lambda: annotation("huge"), 30, "huge's decision annotation")
        assert huge["result"] == "Unschedulable"
        assert huge["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
        # Our own annotation write came back as a pod update and did not requeue the pod.
        time.sleep(3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/debug/decisions/{ns}/huge", timeout=10) as resp:
            assert json.loads(resp.read())["attempt"] == 1
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        # Other tests check the scheduler's least-privilege role: take the opt-in grant back.
        control_plane.kubectl("delete", "-f", str(REPO / "config" / "rbac-decision-annotation.yaml"), check=False)

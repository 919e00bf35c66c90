"""A shadow generation on a running `kubeberth run` against a real kube-apiserver.

The scheduler serves its secure port (delegated authentication and authorization, config/rbac.yaml).
`kubeberth shadow start` with a ServiceAccount bound to kubeberth:admin loads a candidate that adds
a filter rejecting zone-c; pods are created and bound by the live generation; `kubeberth shadow
report --json` must list exactly the pods the live generation bound in zone-c as moved (or newly
unschedulable), and the API server must hold nothing the shadow wrote: each pod bound once, its
only event the live Scheduled one. A kubeberth:reader token may read /debug/shadow but not start one.
In Jaeger, a moved pod's trace holds its ShadowDecision span as a child of (and linked to) its live
SchedulingCycle span.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cluster import LocalControlPlane, free_port, wait_for
from jaeger import LocalJaeger
from kubeberth.apps.cli import main
from kubeberth_harness import Api, Kubeberth, suffix, write_config

NO_ZONE_C = '''import numpy as np
from kubeberth import FilterResult, NodeView, hookimpl


class NoZoneC:
    name = "NoZoneC"

    @hookimpl
    def filter(self, nodes: NodeView) -> FilterResult:
        ids, values = nodes.label_values("topology.kubernetes.io/zone")
        wanted = values.index("zone-c") if "zone-c" in values else -2
        return FilterResult.reject_where(np.asarray(ids == wanted), "node(s) are in zone-c")
'''


def _post(url: str, token: str, ca: Path) -> int:
    request = urllib.request.Request(url, method="POST", data=b"", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=15, context=ssl.create_default_context(cafile=str(ca))) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def test_shadow_started_over_the_secure_port_reports_the_pods_that_would_move_and_writes_nothing(
    control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], jaeger: LocalJaeger,
) -> None:
    ns = f"kb-shadow-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    tokens = {who: control_plane.create_service_account_token(ns, who) for who in ("reader", "admin")}
    for who in tokens:
        control_plane.kubectl("create", "clusterrolebinding", f"{ns}-{who}", f"--clusterrole=kubeberth:{who}",
                              f"--serviceaccount={ns}:{who}")
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    (candidate / "no_zone_c.py").write_text(NO_ZONE_C)
    candidate_config = write_config(tmp_path / "candidate.yaml", plugins=("NoZoneC",))
    port = free_port(avoid={control_plane.apiserver_port})
    kb = Kubeberth(control_plane, sa_kubeconfig, write_config(tmp_path / "config.yaml"), False, f"kubeberth-shadow-{suffix()}",
                   args=[f"--secure-port={port}", "--bind-address=127.0.0.1", f"--cert-dir={tmp_path / 'certs'}"],
                   env={"OTEL_EXPORTER_OTLP_ENDPOINT": jaeger.otlp_grpc_endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
                        "OTEL_SERVICE_NAME": (service := f"kubeberth-shadow-{suffix()}"),
                        "OTEL_TRACES_SAMPLER": "always_on", "OTEL_BSP_SCHEDULE_DELAY": "100"})
    server = f"https://127.0.0.1:{port}"
    ca = tmp_path / "certs" / "kubeberth.crt"
    zones = {f"shadow-{z}-{suffix()}": f"zone-{z}" for z in "abc"}
    pods = [f"p{i}-{suffix()}" for i in range(9)]
    client = ["--server", server, "--certificate-authority", str(ca)]
    try:
        kb.wait_ready()
        for node, zone in zones.items():
            api.create_node(node, "4", "8Gi", labels={"topology.kubernetes.io/zone": zone})
        assert _post(f"{server}/shadow/start?plugins={candidate}", tokens["reader"], ca) == 403
        assert main(["shadow", "start", *client, "--token", tokens["admin"], "--plugins", str(candidate),
                     "--config", str(candidate_config), "--cpu-budget", "0"]) == 0
        assert "shadow generation" in capsys.readouterr().out
        for i, pod in enumerate(pods):
            api.create_pod(ns, pod, cpu=f"{100 + 50 * i}m")
        wait_for(lambda: len(api.bound(ns)) == len(pods), 30, "every pod bound")
        bound = api.bound(ns)

        def report() -> dict:
            assert main(["shadow", "report", *client, "--token", tokens["reader"], "--json"]) == 0
            return json.loads(capsys.readouterr().out)

        found = wait_for(lambda: (r := report())["pods"]["compared"] >= len(pods) and r, 15, "every pod compared")
        expected = {f"{ns}/{p}" for p, node in bound.items() if zones[node] == "zone-c"}
        assert expected, f"the live generation spreads pods over the three zones: {bound}"
        divergences = found["divergences"]
        assert {m["pod"] for m in divergences["moved"] + divergences["newly_unschedulable"]} == expected
        assert divergences["newly_placed"] == [] and found["pods"]["errors"] == 0 and found["writes_refused"] == 0
        assert found["agreement"] == pytest.approx(1 - len(expected) / found["pods"]["compared"], abs=1e-6)
        for m in divergences["moved"]:
            assert zones[m["after"]] != "zone-c"
            assert m["detail"]["feasibility"]["after_rejects"][0]["plugin"] == "NoZoneC"
        assert found["cost"]["ratio"] is not None
        moved = (divergences["moved"] + divergences["newly_unschedulable"])[0]
        trace = jaeger.wait_for_traces(service, {"k8s.pod.name": moved["pod"].split("/")[1]}, ready=lambda traces: any(
            sp["operationName"] == "ShadowDecision" for t in traces for sp in t["spans"]))
        spans = [sp for t in trace for sp in t["spans"]]
        shadow = next(sp for sp in spans if sp["operationName"] == "ShadowDecision")
        live = next(sp for sp in spans if sp["operationName"] == "SchedulingCycle" and sp["traceID"] == shadow["traceID"])
        # Its parent and its link (Jaeger shows the pair as one FOLLOWS_FROM reference).
        assert {r["spanID"] for r in shadow["references"]} == {live["spanID"]}, shadow["references"]
        assert moved["detail"]["trace_id"].endswith(shadow["traceID"].lstrip("0")) or moved["detail"]["trace_id"] == shadow["traceID"]
        assert main(["shadow", "stop", *client, "--token", tokens["admin"]]) == 0
        assert "stopped at" in capsys.readouterr().out
        # Nothing from the shadow reached the API server: each pod bound once, one Scheduled event each.
        def pod_events() -> list[dict]:
            return [e for e in api.events(ns) if (e.get("regarding") or {}).get("kind") == "Pod"]

        wait_for(lambda: len(pod_events()) >= len(pods), 15, "the Scheduled events")
        assert sorted(e["reason"] for e in pod_events()) == ["Scheduled"] * len(pods), pod_events()
        assert kb.bound_pods().count(f"{ns}/{pods[0]}") == 1
    finally:
        kb.stop()
        for pod in pods:
            api.delete_pod(ns, pod)
        for node in zones:
            api.delete_node(node)
        for who in tokens:
            control_plane.kubectl("delete", "clusterrolebinding", f"{ns}-{who}", "--ignore-not-found", check=False)
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))


def _decision(kb: Kubeberth, ns: str, name: str) -> dict | None:
    """The pod's last decision record from the plain-HTTP port (GET /debug/decisions/<ns>/<pod>)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{kb.port}/debug/decisions/{ns}/{name}", timeout=5) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError:
        return None


def test_canary_at_10_percent_over_the_secure_port_binds_only_its_share_with_the_candidate_then_is_promoted(
    control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`kubeberth canary start --share 10%` (admin token): exactly the pods whose uid hashes into
    the share are decided and bound by the candidate (none in zone-c), the rest by the live
    generation; `kubeberth canary promote` makes the candidate the live generation, which then
    decides every pod; both steps are Events on the scheduler's Lease."""
    from kubeberth.scheduling.canary import in_share

    ns = f"kb-canary-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    tokens = {who: control_plane.create_service_account_token(ns, who) for who in ("reader", "admin")}
    for who in tokens:
        control_plane.kubectl("create", "clusterrolebinding", f"{ns}-{who}", f"--clusterrole=kubeberth:{who}",
                              f"--serviceaccount={ns}:{who}")
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    (candidate / "no_zone_c.py").write_text(NO_ZONE_C)
    candidate_config = write_config(tmp_path / "candidate.yaml", plugins=("NoZoneC",))
    port = free_port(avoid={control_plane.apiserver_port})
    kb = Kubeberth(control_plane, sa_kubeconfig, write_config(tmp_path / "config.yaml"), False, f"kubeberth-canary-{suffix()}",
                   args=[f"--secure-port={port}", "--bind-address=127.0.0.1", f"--cert-dir={tmp_path / 'certs'}"])
    server = f"https://127.0.0.1:{port}"
    ca = tmp_path / "certs" / "kubeberth.crt"
    zones = {f"canary-{z}-{suffix()}": f"zone-{z}" for z in "abc"}
    pods: dict[str, str] = {}  # name -> uid
    client = ["--server", server, "--certificate-authority", str(ca)]

    def report() -> dict:
        assert main(["canary", "report", *client, "--token", tokens["reader"], "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    try:
        kb.wait_ready()
        for node, zone in zones.items():
            api.create_node(node, "8", "16Gi", labels={"topology.kubernetes.io/zone": zone})
        assert _post(f"{server}/canary/start?plugins={candidate}&share=10%25", tokens["reader"], ca) == 403
        assert main(["canary", "start", *client, "--token", tokens["admin"], "--plugins", str(candidate), "--share",
                     "150%"]) == 2
        assert "share: '150%'" in capsys.readouterr().err
        assert main(["canary", "start", *client, "--token", tokens["admin"], "--plugins", str(candidate),
                     "--config", str(candidate_config), "--share", "10%", "--promote", "manual", "--cpu-budget", "0"]) == 0
        started = capsys.readouterr().out
        assert "canary generation" in started and "share 0.1" in started
        # Pods until at least two fall in the share (their uids come from the API server).
        while len(pods) < 12 or sum(in_share(uid, 0.1) for uid in pods.values()) < 2:
            assert len(pods) < 80, "the uid hash puts 10% of the pods in the share"
            name = f"p{len(pods)}-{suffix()}"
            pods[name] = api.create_pod(ns, name, cpu="50m")["metadata"]["uid"]
        wait_for(lambda: len(api.bound(ns)) == len(pods), 30, "every pod bound")
        bound = api.bound(ns)
        share = {name for name, uid in pods.items() if in_share(uid, 0.1)}
        found = wait_for(lambda: (r := report())["figures"]["canary"]["bound"] == len(share) and r, 15,
                         "the canary's bindings reported")
        assert found["state"] == "running" and found["figures"]["canary"]["errors"] == 0
        assert {b["pod"] for b in found["bound"]} == {f"{ns}/{name}" for name in share}
        assert found["figures"]["live"]["bound"] >= len(pods) - len(share)
        assert all(zones[bound[name]] != "zone-c" for name in share)
        generation = found["generation"]
        for name in pods:
            decision = wait_for(lambda n=name: _decision(kb, ns, n), 10, f"{name}'s decision")
            assert (decision["generation"] == generation) == (name in share), (name, decision)
        assert main(["canary", "promote", *client, "--token", tokens["admin"], "--json"]) == 0
        promoted = json.loads(capsys.readouterr().out)
        assert promoted["state"] == "promoted" and promoted["live_generation"] == generation
        after = [f"q{i}-{suffix()}" for i in range(4)]
        for name in after:
            api.create_pod(ns, name, cpu="50m")
        wait_for(lambda: all(n in api.bound(ns) for n in after), 30, "pods bound after the promotion")
        for name in after:
            assert wait_for(lambda n=name: _decision(kb, ns, n), 10, "decision")["generation"] == generation
            assert zones[api.bound(ns)[name]] != "zone-c"
        pods.update(dict.fromkeys(after, ""))

        def lease_events() -> list[str]:
            return [e["reason"] for e in api.events("kube-system") if e["reason"].startswith("Canary")
                    and generation in (e.get("note") or "")]

        wait_for(lambda: sorted(lease_events()) == ["CanaryPromoted", "CanaryStarted"], 15, "the canary's Lease events")
    finally:
        kb.stop()
        for pod in pods:
            api.delete_pod(ns, pod)
        for node in zones:
            api.delete_node(node)
        for who in tokens:
            control_plane.kubectl("delete", "clusterrolebinding", f"{ns}-{who}", "--ignore-not-found", check=False)
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))

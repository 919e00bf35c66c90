"""The install surface against a real kube-apiserver.

The Helm chart (charts/kubeberth) and the kustomize base (config/) are rendered, linted and
applied with a server-side dry run (every object admitted and validated by the API server,
nothing stored); each is also installed for real and its Deployment run as `kubeberth run`
the way a kubelet would (install_surface.PodRunner): it must take its Lease in the install's
namespace under the installed service account and answer on the secure port with the installed
roles. The README's deploy section is run verbatim, except the image build (no container
engine here) and the commands that need a running pod (no kubelet here).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubeberth
import pytest
import yaml
from cluster import LocalControlPlane, wait_for
from helm_tool import find_helm
from install_surface import CHART, REPO, SERVICE_MONITOR_CRD, PodRunner, Tools, docs, find
from kubeberth.apps.cli import build_parser
from kubeberth_harness import suffix

ALL_OPTIONS = CHART / "ci" / "all-options-values.yaml"
SCALE_OUT_ETCD = CHART / "ci" / "scale-out-etcd-values.yaml"
OVERLAY_NS = "kubeberth-system"  # examples/kustomize-overlay's
RUN_VALUES = {  # a drop-in plugin from the chart's plugins ConfigMap, enabled by a profile
    "plugins": {"chart_noop.py": (
        "from kubeberth import hookimpl\n\n\nclass ChartNoop:\n    name = 'ChartNoop'\n\n"
        "    @hookimpl\n    def filter(self, pod, nodes):\n        return None\n")},
    "schedulerConfig": {"profiles": [
        {"schedulerName": "kubeberth", "plugins": {"filter": {"enabled": [{"name": "ChartNoop"}]}}}]},
}


@pytest.fixture(scope="module")
def tools(control_plane: LocalControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    """helm + kubectl; a namespace for the chart, the overlay's namespace, the ServiceMonitor CRD."""
    t = Tools(control_plane, find_helm(), tmp_path_factory.mktemp("helm-home"), namespace=f"kb-chart-{suffix()}")
    for ns in (t.namespace, OVERLAY_NS):
        t.kubectl("create", "namespace", ns)
    t.kubectl("apply", "-f", "-", input=yaml.safe_dump(SERVICE_MONITOR_CRD))
    t.kubectl("wait", "--for=condition=Established", "--timeout=30s", "crd/servicemonitors.monitoring.coreos.com")
    yield t
    if t.bindings:
        t.kubectl("delete", "clusterrolebinding", *t.bindings, "--ignore-not-found", check=False)
    t.kubectl("delete", "namespace", t.namespace, OVERLAY_NS, "--wait=false", check=False)
    t.kubectl("delete", "crd", "servicemonitors.monitoring.coreos.com", "--wait=false", check=False)


def _container(objs: list[dict[str, Any]], name: str = "kubeberth") -> dict[str, Any]:
    return find(objs, "Deployment", name)["spec"]["template"]["spec"]["containers"][0]


def _config(objs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return yaml.safe_load(find(objs, "ConfigMap", name)["data"]["config.yaml"])


# ---- the chart ---------------------------------------------------------------------------------


def test_chart_lints_with_defaults_and_every_option(tools: Tools) -> None:
    tools.helm("lint", "--strict", str(CHART))
    tools.helm("lint", "--strict", str(CHART), "-f", str(ALL_OPTIONS))
    tools.helm("lint", "--strict", str(CHART), "-f", str(SCALE_OUT_ETCD))


def test_chart_metadata_follows_the_package_version() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["appVersion"] == kubeberth.__version__


def test_chart_default_render(tools: Tools) -> None:
    ns = tools.namespace
    objs = tools.template(ns)
    kinds = sorted(o["kind"] for o in objs)
    assert kinds == sorted(["ServiceAccount", "ConfigMap", "ConfigMap", "ClusterRole", "ClusterRole", "ClusterRole",
                            "ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment",
                            "PodDisruptionBudget"])
    assert "kube-system" not in yaml.safe_dump_all(objs)
    for obj in objs:
        if obj["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            assert obj["metadata"]["namespace"] == ns, obj["kind"]
    c = _container(objs)
    assert c["image"] == f"kubeberth:{kubeberth.__version__}"
    assert "--secure-port=10259" in c["args"] and not any("healthz-bind-address" in a for a in c["args"])
    assert c["ports"] == [{"name": "https", "containerPort": 10259, "protocol": "TCP"}]
    for probe, path in (("startupProbe", "/livez"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        assert c[probe]["httpGet"] == {"path": path, "port": "https", "scheme": "HTTPS"}
    shipped = _container(docs((REPO / "config" / "deployment.yaml").read_text()))
    assert c["securityContext"] == shipped["securityContext"]
    assert c["resources"] == shipped["resources"]
    assert {e["name"]: e.get("value") for e in c["env"]}["OTEL_SDK_DISABLED"] == "true"
    le = _config(objs, "kubeberth-config")["leaderElection"]
    assert (le["resourceNamespace"], le["resourceName"], le["leaderElect"]) == (ns, "kubeberth", True)
    role = find(objs, "Role", "kubeberth-leader-election")
    assert role["rules"][1]["resourceNames"] == ["kubeberth"]


def test_chart_every_option_render(tools: Tools) -> None:
    ns = tools.namespace
    objs = tools.template(ns, "-f", str(ALL_OPTIONS))
    values = yaml.safe_load(ALL_OPTIONS.read_text())
    c = _container(objs)
    assert c["image"] == f"registry.example.com/kubeberth:0.1.0@{values['image']['digest']}"
    assert c["imagePullPolicy"] == "Always"
    args = c["args"]
    for expected in ("--tls-cert-file=/etc/kubeberth-tls/tls.crt", "--tls-private-key-file=/etc/kubeberth-tls/tls.key",
                     "--feature-gates=DRAExtendedResource=false,GenericWorkload=true", "--log-level=DEBUG",
                     "--log-format=text", "--allow-insecure-plugins-dir", "--leader-elect"):
        assert expected in args
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://jaeger.observability.svc:4317"
    assert env["OTEL_TRACES_SAMPLER_ARG"] == "0.25" and env["KUBEBERTH_DECISION_RECORDS"] == "2000"
    pod = find(objs, "Deployment")["spec"]["template"]["spec"]
    assert {"name": "tls", "secret": {"secretName": "kubeberth-serving-cert", "defaultMode": 0o444}} in pod["volumes"]
    assert pod["serviceAccountName"] == "kubeberth-e2e" and pod["imagePullSecrets"] == values["imagePullSecrets"]
    assert pod["affinity"] == values["affinity"] and pod["tolerations"] == values["tolerations"]
    cfg = _config(objs, "kubeberth-config")
    assert cfg["percentageOfNodesToScore"] == 50 and len(cfg["profiles"]) == 2
    assert cfg["leaderElection"]["resourceName"] == "kubeberth-e2e"
    assert find(objs, "Role")["rules"][1]["resourceNames"] == ["kubeberth-e2e"]
    assert find(objs, "ConfigMap", "kubeberth-plugins")["data"] == values["plugins"]
    endpoint = find(objs, "ServiceMonitor")["spec"]["endpoints"][0]
    assert (endpoint["scheme"], endpoint["port"], endpoint["tlsConfig"]) == ("https", "https", {"insecureSkipVerify": True})
    binding = find(objs, "ClusterRoleBinding", "kubeberth:reader:monitoring:prometheus-k8s")
    assert binding["roleRef"]["name"] == "kubeberth:reader"
    assert find(objs, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1


def test_chart_scale_out_etcd_render(tools: Tools) -> None:
    """Active-active with the etcd claims store: the flags of `kubeberth run` (endpoints, prefix,
    the client TLS files from the Secret, mounted read-only), the scale-out Role; none of it by
    default, and the etcd store refused without active-active or without endpoints."""
    objs = tools.template(tools.namespace, "-f", str(SCALE_OUT_ETCD))
    values = yaml.safe_load(SCALE_OUT_ETCD.read_text())["scaleOut"]["etcd"]
    c = _container(objs)
    etcd_args = [a for a in c["args"] if a.startswith("--scale-out")]
    assert etcd_args == ["--scale-out-store=etcd", f"--scale-out-etcd-endpoints={','.join(values['endpoints'])}",
                         "--scale-out-etcd-prefix=/kubeberth/team-a", "--scale-out-etcd-cafile=/etc/kubeberth-etcd/ca.crt",
                         "--scale-out-etcd-certfile=/etc/kubeberth-etcd/tls.crt",
                         "--scale-out-etcd-keyfile=/etc/kubeberth-etcd/tls.key"]
    assert "--replicas-mode=active-active" in c["args"]
    # Every flag is one `kubeberth run` accepts, with the value the chart gives it.
    parsed = build_parser().parse_args(["run", *c["args"]])
    assert (parsed.scale_out_store, parsed.scale_out_etcd_prefix) == ("etcd", "/kubeberth/team-a")
    assert {"name": "etcd-tls", "mountPath": "/etc/kubeberth-etcd", "readOnly": True} in c["volumeMounts"]
    pod = find(objs, "Deployment")["spec"]["template"]["spec"]
    assert {"name": "etcd-tls", "secret": {"secretName": "kubeberth-etcd-client", "defaultMode": 0o444}} in pod["volumes"]
    assert find(objs, "Role", "kubeberth-scale-out")
    # A server-certificate-only etcd (no --client-cert-auth): the CA alone.
    objs = tools.template(tools.namespace, "-f", str(SCALE_OUT_ETCD), "--set", "scaleOut.etcd.tls.clientCertificate=false",
                          "--set", "scaleOut.etcd.prefix=")
    etcd_args = [a for a in _container(objs)["args"] if a.startswith("--scale-out-etcd-")]
    assert etcd_args == [f"--scale-out-etcd-endpoints={','.join(values['endpoints'])}",
                         "--scale-out-etcd-cafile=/etc/kubeberth-etcd/ca.crt"]
    default = tools.template(tools.namespace)
    assert not [a for a in _container(default)["args"] if a.startswith("--scale-out")]
    assert not [v for v in find(default, "Deployment")["spec"]["template"]["spec"]["volumes"] if v["name"] == "etcd-tls"]
    for bad, says in ((["--set", "scaleOut.store=etcd"], "only with replicasMode: active-active"),
                      (["--set", "scaleOut.store=etcd", "--set", "replicasMode=active-active"],
                       "set scaleOut.etcd.endpoints"),
                      (["-f", str(SCALE_OUT_ETCD), "--set", "scaleOut.etcd.endpoints={etcd:2379}"], "pattern"),
                      (["-f", str(SCALE_OUT_ETCD), "--set", "scaleOut.etcd.prefix=kubeberth"], "pattern")):
        proc = tools.helm("template", "kubeberth", str(CHART), *bad, check=False)
        assert proc.returncode != 0 and says in proc.stderr, (bad, proc.stderr)


def test_chart_values_schema_refuses_bad_values(tools: Tools) -> None:
    for bad in ("image.pullPolicy=Sometimes", "replicas=-1", "leaderElection.leaseDuration=15",
                "schedulerConfig.leaderElection.leaderElect=false", "secureServing.securePort=0", "replica=2"):
        proc = tools.helm("template", "kubeberth", str(CHART), "--set", bad, check=False)
        assert proc.returncode != 0 and "schema" in proc.stderr, (bad, proc.stderr)


def test_chart_rbac_equals_config_rbac(tools: Tools) -> None:
    """The chart's roles are config/rbac.yaml's (names follow the release, rules are equal); the
    scale-out Role (rights on every Lease of the namespace) only where replicasMode asks for it."""
    chart = tools.template("kube-system", "--set", "replicasMode=active-active")
    assert not [o for o in tools.template("kube-system") if o["metadata"]["name"] == "kubeberth-scale-out"]
    shipped = docs((REPO / "config" / "rbac.yaml").read_text())
    for kind, name in (("ClusterRole", "kubeberth"), ("ClusterRole", "kubeberth:reader"),
                       ("ClusterRole", "kubeberth:admin"), ("Role", "kubeberth-leader-election"),
                       ("Role", "kubeberth-scale-out")):
        assert find(chart, kind, name)["rules"] == find(shipped, kind, name)["rules"], f"{kind}/{name}"
    for kind, name in (("ClusterRoleBinding", "kubeberth"), ("RoleBinding", "kubeberth-leader-election"),
                       ("RoleBinding", "kubeberth-scale-out")):
        assert find(chart, kind, name)["subjects"] == find(shipped, kind, name)["subjects"]
        assert find(chart, kind, name)["roleRef"] == find(shipped, kind, name)["roleRef"]
    shipped_names = {(o["kind"], o["metadata"]["name"]) for o in shipped}
    chart_names = {(o["kind"], o["metadata"]["name"]) for o in chart if "rbac" in o["apiVersion"] or o["kind"] == "ServiceAccount"}
    assert chart_names == shipped_names


@pytest.mark.parametrize("values", [[], ["-f", str(ALL_OPTIONS)], ["-f", str(SCALE_OUT_ETCD)]],
                         ids=["defaults", "every-option", "scale-out-etcd"])
def test_chart_server_side_dry_run(tools: Tools, values: list[str]) -> None:
    ns = tools.namespace
    objs = tools.template(ns, *values, release="kb-dry")
    answered = tools.dry_run(objs)
    assert sorted(answered) == sorted(_resource_names(objs))


def _resource_names(objs: list[dict[str, Any]]) -> list[str]:
    """kubectl's `-o name` of each object (kind.group/name)."""
    names = []
    for o in objs:
        group = o["apiVersion"].split("/")[0] if "/" in o["apiVersion"] else ""
        kind = o["kind"].lower() + (f".{group}" if group else "")
        names.append(f"{kind}/{o['metadata']['name']}")
    return names


def test_chart_install_runs_kubeberth(tools: Tools, tmp_path: Path) -> None:
    """helm install, then the Deployment run as a kubelet would: Lease, secure port, roles."""
    ns = f"kb-run-{suffix()}"
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump(RUN_VALUES))
    tools.helm("install", "kb-run", str(CHART), "--namespace", ns, "--create-namespace", "-f", str(values))
    pod = PodRunner(tools, ns, "kb-run-kubeberth", tmp_path / "pod")
    try:
        pod.start().wait_ready()
        _check_running_install(tools, pod, ns, lease="kubeberth", reader_role="kb-run-kubeberth:reader",
                               admin_role="kb-run-kubeberth:admin", sa="kb-run-kubeberth")
        assert pod.get("/debug/generation", token=_token_bound(tools, ns, "kb-run-kubeberth:admin")) == 200
        assert "ChartNoop" in pod.last_body
    finally:
        pod.stop()
        tools.helm("uninstall", "kb-run", "--namespace", ns, check=False)
        tools.kubectl("delete", "namespace", ns, "--wait=false", check=False)


def _token_bound(tools: Tools, ns: str, role: str) -> str:
    """A token of a fresh service account bound to ClusterRole `role`."""
    sa = f"who-{suffix()}"
    tools.kubectl("-n", ns, "create", "serviceaccount", sa)
    tools.kubectl("create", "clusterrolebinding", f"{ns}-{sa}", f"--clusterrole={role}", f"--serviceaccount={ns}:{sa}")
    tools.bindings.append(f"{ns}-{sa}")
    return tools.kubectl("-n", ns, "create", "token", sa).stdout.strip()


def _check_running_install(tools: Tools, pod: PodRunner, ns: str, lease: str, reader_role: str,
                           admin_role: str, sa: str) -> None:
    def holder() -> str:
        got = tools.kubectl("-n", ns, "get", "lease", lease, "-o", "jsonpath={.spec.holderIdentity}", check=False)
        return got.stdout.strip() if got.returncode == 0 else ""

    wait_for(holder, 60, f"Lease {ns}/{lease} taken by the installed scheduler")
    own = tools.kubectl("-n", ns, "create", "token", sa).stdout.strip()
    reader = _token_bound(tools, ns, reader_role)
    assert pod.get("/livez") == 200 and pod.get("/healthz") == 200
    assert pod.get("/metrics") == 401
    assert pod.get("/metrics", token=own) == 403  # the scheduler's own account may not read it
    assert pod.get("/metrics", token=reader) == 200 and "scheduler_" in pod.last_body
    assert pod.get("/reload", token=reader, method="POST") == 403
    assert pod.get("/reload", token=_token_bound(tools, ns, admin_role), method="POST") == 200


# ---- the kustomize base ------------------------------------------------------------------------


def test_kustomize_base_renders_and_dry_runs(tools: Tools) -> None:
    objs = docs(tools.kubectl("kustomize", "config/").stdout)
    shipped = [o for f in ("rbac.yaml", "scheduler-config.yaml", "deployment.yaml")
               for o in docs((REPO / "config" / f).read_text())]
    assert sorted(_resource_names(objs)) == sorted(_resource_names(shipped))
    assert _container(objs)["image"] == f"kubeberth:{kubeberth.__version__}"
    assert _container(shipped)["image"] == f"kubeberth:{kubeberth.__version__}"
    assert sorted(tools.dry_run(objs)) == sorted(_resource_names(objs))


def test_kustomize_overlay_moves_namespace_and_image(tools: Tools) -> None:
    objs = docs(tools.kubectl("kustomize", "examples/kustomize-overlay").stdout)
    for o in objs:
        if o["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
            assert o["metadata"]["namespace"] == OVERLAY_NS, o["kind"]
        for subject in o.get("subjects", []):
            assert subject["namespace"] == OVERLAY_NS, o["metadata"]["name"]
    c = _container(objs)
    assert c["image"] == "registry.example.com/kubeberth:0.1.0"
    assert "--leader-elect-resource-namespace=$(POD_NAMESPACE)" in c["args"]
    assert sorted(tools.dry_run(objs)) == sorted(_resource_names(objs))


def test_kustomize_install_runs_kubeberth(tools: Tools, tmp_path: Path) -> None:
    """An overlay (own namespace, name prefix) applied for real and run as a kubelet would."""
    ns = f"kb-kz-{suffix()}"
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "namespace": ns, "namePrefix": "e2e-", "resources": [os.path.relpath(REPO / "config", overlay)]}))  # kustomize takes no absolute path
    tools.kubectl("create", "namespace", ns)
    tools.kubectl("apply", "-k", str(overlay))
    pod = PodRunner(tools, ns, "e2e-kubeberth", tmp_path / "pod")
    try:
        pod.start().wait_ready()
        _check_running_install(tools, pod, ns, lease="kubeberth", reader_role="e2e-kubeberth:reader",
                               admin_role="e2e-kubeberth:admin", sa="e2e-kubeberth")
    finally:
        pod.stop()
        tools.kubectl("delete", "-k", str(overlay), "--wait=false", check=False)
        tools.kubectl("delete", "namespace", ns, "--wait=false", check=False)


# ---- the README's deploy section, verbatim -----------------------------------------------------

# What a cluster without kubelets or a container engine cannot do; everything else is run.
NOT_RUN = ("docker build ", "docker push ", "kubectl -n kube-system rollout status ",
           "kubectl -n kube-system port-forward ", "kubeberth explain ")


def readme_deploy_commands() -> list[str]:
    """The shell commands between the README's deploy markers, continuation lines joined."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"<!-- deploy:begin.*?-->\s*```sh\n(.*?)```\s*<!-- deploy:end -->", text, re.S)
    assert block, "README.md has no deploy:begin/deploy:end block"
    joined = re.sub(r"\\\n\s*", "", block.group(1))
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_deploy_section_verbatim(tools: Tools) -> None:
    commands = readme_deploy_commands()
    skipped = [c for c in commands if c.startswith(NOT_RUN)]
    assert [c.split()[0:2] for c in skipped] == [["docker", "build"], ["docker", "push"], ["kubectl", "-n"],
                                                  ["kubectl", "-n"], ["kubeberth", "explain"]]
    had_rbac = tools.kubectl("get", "clusterrole", "kubeberth", check=False).returncode == 0
    for f in ("deployment.yaml", "scheduler-config.yaml", "rbac.yaml"):  # objects other tests applied
        tools.kubectl("delete", "--ignore-not-found", "--wait=false", "-f", f"config/{f}")
    script = "set -euo pipefail\n" + "\n".join(c for c in commands if not c.startswith(NOT_RUN))
    try:
        tools.run("bash", "-c", script)
        _check_readme_install(tools, built=skipped[0].split()[-2], explain=skipped[-1])
    finally:
        tools.helm("uninstall", "kubeberth", "--namespace", "kube-system", "--wait", check=False)
        tools.kubectl("-n", "kube-system", "delete", "serviceaccount", "kubeberth-reader", check=False)
        tools.kubectl("delete", "clusterrolebinding", "kubeberth-reader", check=False)
        if had_rbac:
            tools.kubectl("apply", "-f", "config/rbac.yaml")


def _check_readme_install(tools: Tools, built: str, explain: str) -> None:
    dep = tools.get("-n", "kube-system", "deployment", "kubeberth")
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == built  # the image the README builds
    for kind, name in (("serviceaccount", "kubeberth"), ("configmap", "kubeberth-config"),
                       ("configmap", "kubeberth-plugins"), ("service", "kubeberth"), ("pdb", "kubeberth"),
                       ("role", "kubeberth-leader-election"), ("serviceaccount", "kubeberth-reader")):
        tools.get("-n", "kube-system", kind, name)
    can = tools.kubectl("auth", "can-i", "get", "/metrics", "--as=system:serviceaccount:kube-system:kubeberth-reader")
    assert can.stdout.strip() == "yes"
    token_cmd = re.search(r'--token "\$\((.*)\)"', explain)
    assert token_cmd, explain
    token = subprocess.run(["bash", "-c", token_cmd.group(1)], capture_output=True, text=True, env=tools.env,
                           check=True).stdout.strip()
    assert token.count(".") == 2  # a JWT the explain command would send
    args = build_parser().parse_args(shlex.split(explain.replace(token_cmd.group(0), f"--token {token}"))[1:])
    assert (args.command, args.server, args.token, args.insecure_skip_tls_verify) == (
        "explain", "https://127.0.0.1:10259", token, True)

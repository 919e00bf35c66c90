"""Helpers of tests/e2e/test_chart_e2e.py: helm and kubectl against the test control plane, and
a stand-in for the kubelet that runs a rendered Deployment's container as `kubeberth run`.

There is no kubelet in the test cluster, so `PodRunner` does what one would do with the
Deployment the API server holds: the container's args and env (downward API fields and `$(VAR)`
references resolved), its ConfigMap volumes written to folders (the mount paths in the args
rewritten to them) and its service account's token; only the secure port moves to a free
loopback port, as every test's does.
"""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from cluster import LocalControlPlane, ManagedProcess, free_port, wait_for

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "charts" / "kubeberth"

# prometheus-operator's ServiceMonitor (monitoring.coreos.com/v1), the fields the chart sets, with
# the real CRD's names and types. Unknown fields are refused by the server-side dry run (kubectl
# sends fieldValidation=Strict), so a misspelt field of the chart fails the test.
_DURATION = {"type": "string", "pattern": "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"}
_ENDPOINT = {
    "type": "object",
    "properties": {
        "port": {"type": "string"},
        "targetPort": {"x-kubernetes-int-or-string": True},
        "path": {"type": "string"},
        "scheme": {"type": "string", "enum": ["http", "https", "HTTP", "HTTPS"]},
        "interval": _DURATION,
        "scrapeTimeout": _DURATION,
        "bearerTokenFile": {"type": "string"},
        "honorLabels": {"type": "boolean"},
        "tlsConfig": {"type": "object", "properties": {
            "caFile": {"type": "string"}, "certFile": {"type": "string"}, "keyFile": {"type": "string"},
            "serverName": {"type": "string"}, "insecureSkipVerify": {"type": "boolean"},
        }},
        "authorization": {"type": "object", "properties": {
            "type": {"type": "string"},
            "credentials": {"type": "object", "properties": {"name": {"type": "string"}, "key": {"type": "string"}}},
        }},
    },
}
SERVICE_MONITOR_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "servicemonitors.monitoring.coreos.com"},
    "spec": {
        "group": "monitoring.coreos.com",
        "scope": "Namespaced",
        "names": {"plural": "servicemonitors", "singular": "servicemonitor", "kind": "ServiceMonitor",
                  "listKind": "ServiceMonitorList"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object",
            "required": ["spec"],
            "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                "spec": {"type": "object", "required": ["endpoints", "selector"], "properties": {
                    "jobLabel": {"type": "string"},
                    "selector": {"type": "object", "properties": {
                        "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
                    "namespaceSelector": {"type": "object", "properties": {
                        "any": {"type": "boolean"}, "matchNames": {"type": "array", "items": {"type": "string"}}}},
                    "endpoints": {"type": "array", "items": _ENDPOINT},
                }},
            },
        }}}],
    },
}


def docs(text: str) -> list[dict[str, Any]]:
    """The objects of a YAML stream (empty documents dropped)."""
    return [d for d in yaml.safe_load_all(text) if d]


def find(objs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    hits = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(hits) == 1, f"{kind}/{name}: {len(hits)} objects in {[(o['kind'], o['metadata']['name']) for o in objs]}"
    return hits[0]


@dataclass
class Tools:
    """helm and kubectl with the admin kubeconfig of the test control plane."""

    cp: LocalControlPlane
    helm_bin: Path
    home: Path
    namespace: str = ""  # where the chart's renders and dry runs go
    env: dict[str, str] = field(default_factory=dict)
    bindings: list[str] = field(default_factory=list)  # ClusterRoleBindings the tests made

    def __post_init__(self) -> None:
        path = os.pathsep.join([str(self.helm_bin.parent), str(self.cp.binaries["kubectl"].parent),
                                str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        self.env = {**os.environ, "PATH": path, "KUBECONFIG": self.cp.admin_kubeconfig,
                    "HELM_CACHE_HOME": str(self.home / "cache"), "HELM_CONFIG_HOME": str(self.home / "config"),
                    "HELM_DATA_HOME": str(self.home / "data")}

    def run(self, *argv: str, input: str | None = None, check: bool = True,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(list(argv), capture_output=True, text=True, input=input, env=self.env, cwd=REPO,
                              timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def helm(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.helm_bin), *args, check=check)

    def kubectl(self, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.cp.binaries["kubectl"]), *args, input=input, check=check)

    def template(self, namespace: str, *args: str, release: str = "kubeberth") -> list[dict[str, Any]]:
        return docs(self.helm("template", release, str(CHART), "--namespace", namespace, *args).stdout)

    def dry_run(self, manifests: list[dict[str, Any]]) -> list[str]:
        """`kubectl apply --dry-run=server` of the objects; the server's answer, one line each."""
        stream = yaml.safe_dump_all(manifests, sort_keys=False)
        out = self.kubectl("apply", "--dry-run=server", "-o", "name", "-f", "-", input=stream).stdout
        return out.split()

    def get(self, *args: str) -> dict[str, Any]:
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)


def _expand(value: str, env: dict[str, str]) -> str:
    """The kubelet's $(VAR) expansion in args and env values."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), value)


@dataclass
class PodRunner:
    """Runs the first container of a Deployment from the API server as a local `kubeberth run`."""

    tools: Tools
    namespace: str
    deployment: str
    workdir: Path
    port: int = 0
    proc: ManagedProcess | None = None
    last_body: str = ""

    def start(self) -> PodRunner:
        dep = self.tools.get("-n", self.namespace, "deployment", self.deployment)
        spec = dep["spec"]["template"]["spec"]
        container = spec["containers"][0]
        env = self._env(container, pod_name=f"{self.deployment}-0")
        mounts = self._volumes(spec, container)
        self.port = free_port(avoid={self.tools.cp.apiserver_port})
        args = [self._rewrite(_expand(a, env), mounts) for a in container["args"]]
        kubeconfig = self.tools.cp.kubeconfig_for_service_account(self.namespace, spec["serviceAccountName"])
        argv = [sys.executable, "-m", "kubeberth", "run", *args, f"--kubeconfig={kubeconfig}",
                f"--secure-port={self.port}", "--bind-address=127.0.0.1"]
        log = self.tools.cp.log_dir / f"pod-{self.namespace}-{self.deployment}.log"
        self.proc = ManagedProcess(f"pod-{self.deployment}", argv, log, env={**os.environ, **env})
        return self

    def _env(self, container: dict[str, Any], pod_name: str) -> dict[str, str]:
        fields = {"metadata.namespace": self.namespace, "metadata.name": pod_name, "status.podIP": "127.0.0.1"}
        env: dict[str, str] = {}
        for var in container.get("env", []):
            if "value" in var:
                env[var["name"]] = _expand(var["value"], env)
            else:
                env[var["name"]] = fields[var["valueFrom"]["fieldRef"]["fieldPath"]]
        return env

    def _volumes(self, spec: dict[str, Any], container: dict[str, Any]) -> dict[str, Path]:
        """ConfigMap volumes written out as the kubelet projects them (0444 files, root-owned
        when run as root); mount path -> local folder."""
        volumes = {v["name"]: v for v in spec["volumes"]}
        mounts: dict[str, Path] = {}
        for mount in container["volumeMounts"]:
            volume = volumes[mount["name"]]
            folder = self.workdir / mount["name"]
            folder.mkdir(mode=0o755, parents=True, exist_ok=True)
            if "configMap" in volume:
                self._project(volume["configMap"], folder)
            mounts[mount["mountPath"]] = folder
        return mounts

    def _project(self, source: dict[str, Any], folder: Path) -> None:
        name = source["name"]
        got = self.tools.kubectl("get", "-n", self.namespace, "configmap", name, "-o", "json", check=False)
        if got.returncode != 0:
            assert source.get("optional"), f"ConfigMap {self.namespace}/{name} is missing and not optional"
            return
        for key, value in (json.loads(got.stdout).get("data") or {}).items():
            path = folder / key
            path.write_text(value)
            path.chmod(source.get("defaultMode", 0o644))

    @staticmethod
    def _rewrite(arg: str, mounts: dict[str, Path]) -> str:
        """A mount path at the start of an argument or of a flag's value -> its local folder (one pass)."""
        paths = "|".join(re.escape(m) for m in sorted(mounts, key=len, reverse=True))
        return re.sub(rf"(^|=)({paths})(?=/|$)", lambda m: m.group(1) + str(mounts[m.group(2)]), arg)

    def get(self, path: str, token: str | None = None, method: str = "GET") -> int:
        """HTTPS status of `path` on the secure port (the self-signed certificate accepted)."""
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        req = urllib.request.Request(f"https://127.0.0.1:{self.port}{path}", method=method)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=5, context=ctx) as resp:
                self.last_body = resp.read().decode(errors="replace")
                return int(resp.status)
        except urllib.error.HTTPError as err:
            return int(err.code)
        except OSError:
            return 0

    def wait_ready(self, timeout: float = 90) -> None:
        assert self.proc is not None

        def ready() -> bool:
            assert self.proc is not None and self.proc.running, f"kubeberth exited:\n{self.proc.log_tail()}"
            return self.get("/readyz") == 200

        wait_for(ready, timeout, f"{self.deployment} /readyz on the secure port")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()

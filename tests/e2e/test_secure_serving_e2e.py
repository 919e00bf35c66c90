"""The secure port against a real kube-apiserver, as kube-scheduler serves 10259.

One `kubeberth run` under the kubeberth ServiceAccount with exactly config/rbac.yaml's rights
(so its TokenReviews and SubjectAccessReviews are the ones that file allows), HTTPS on a free
port with its self-signed certificate kept in --cert-dir. Each endpoint is called with no token,
a rejected token, the token of a ServiceAccount without rights, one bound to kubeberth:reader
and one bound to kubeberth:admin: 401 / 401 / 403 / 200 (POST /reload: 403 for the reader),
the probes 200 for everyone. Then `kubeberth explain` and `plugins list --server` over HTTPS
with --token, and their one-line errors.
"""

from __future__ import annotations

import gzip
import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cluster import LocalControlPlane, free_port, wait_for
from kubeberth_harness import Api, Kubeberth, suffix, write_config

OPEN = ["/healthz", "/readyz", "/livez"]


@dataclass
class Secure:
    kb: Kubeberth
    url: str
    ca: Path
    tokens: dict[str, str]  # who -> token ("none" absent)
    ns: str  # the ServiceAccounts' namespace (unique: deleted namespaces stay Terminating here)
    pod: str  # NAMESPACE/NAME of a pod kubeberth scheduled


@pytest.fixture(scope="module")
def secure(control_plane: LocalControlPlane, sa_kubeconfig: str, api: Api,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secure]:
    tmp = tmp_path_factory.mktemp("secure")
    ns = f"kb-secure-{suffix()}"
    tokens = {"stolen": "not-a-token"}
    for who in ("nobody", "reader", "admin"):
        tokens[who] = control_plane.create_service_account_token(ns, who)
    for who in ("reader", "admin"):
        control_plane.kubectl("create", "clusterrolebinding", f"{ns}-{who}", f"--clusterrole=kubeberth:{who}",
                              f"--serviceaccount={ns}:{who}")
    port = free_port(avoid={control_plane.apiserver_port})
    kb = Kubeberth(control_plane, sa_kubeconfig, write_config(tmp / "config.yaml"), False, f"kubeberth-secure-{suffix()}",
                   args=[f"--secure-port={port}", "--bind-address=127.0.0.1", f"--cert-dir={tmp / 'certs'}"])
    node, pod = f"secure-{suffix()}", f"web-{suffix()}"
    try:
        kb.wait_ready()
        api.create_node(node, "4", "8Gi")
        api.create_pod(ns, pod)
        wait_for(lambda: api.bound(ns).get(pod) == node, 30, f"{pod} bound")
        yield Secure(kb, f"https://127.0.0.1:{port}", tmp / "certs" / "kubeberth.crt", tokens, ns, f"{ns}/{pod}")
    finally:
        kb.stop()
        api.delete_pod(ns, pod)
        api.delete_node(node)
        for who in ("reader", "admin"):
            control_plane.kubectl("delete", "clusterrolebinding", f"{ns}-{who}", "--ignore-not-found", check=False)
        api.call("DELETE", f"/api/v1/namespaces/{ns}", ok=(200, 202, 404))


def call(s: Secure, method: str, path: str, who: str = "none",
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(s.url + path, method=method, headers=headers or {})
    if who != "none":
        request.add_header("Authorization", f"Bearer {s.tokens[who]}")
    context = ssl.create_default_context(cafile=str(s.ca))  # verifies the self-signed chain and 127.0.0.1
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_each_endpoint_answers_by_identity(secure: Secure) -> None:
    protected = ["/metrics", "/debug/generation", f"/debug/decisions/{secure.pod}"]
    want = {"none": 401, "stolen": 401, "nobody": 403, "reader": 200, "admin": 200}
    got: dict[tuple[str, str], int] = {}
    for path in OPEN + protected:
        for who in want:
            got[(path, who)] = call(secure, "GET", path, who)[0]
    for who in want:
        got[("POST /reload", who)] = call(secure, "POST", "/reload", who)[0]
    expected = {(p, w): 200 for p in OPEN for w in want}
    expected |= {(p, w): code for p in protected for w, code in want.items()}
    expected |= {("POST /reload", w): code for w, code in {**want, "reader": 403}.items()}
    assert got == expected


def test_refusals_say_who_and_what(secure: Secure) -> None:
    status, headers, body = call(secure, "GET", "/metrics")
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert body.decode().startswith("Unauthorized: no bearer token")
    status, _, body = call(secure, "GET", "/metrics", "nobody")
    assert body.decode() == f'forbidden: User "system:serviceaccount:{secure.ns}:nobody" cannot get path "/metrics"\n'
    status, _, body = call(secure, "POST", "/reload", "reader")
    assert status == 403 and f'User "system:serviceaccount:{secure.ns}:reader" cannot create path "/reload"' in body.decode()
    status, _, body = call(secure, "POST", "/reload", "admin")
    assert json.loads(body)["reload"]["result"] in ("unchanged", "success")


def test_metrics_over_https_negotiates_gzip_and_openmetrics(secure: Secure) -> None:
    status, headers, body = call(secure, "GET", "/metrics", "reader", {
        "Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
        "Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"].startswith("application/openmetrics-text; version=1.0.0")
    text = gzip.decompress(body).decode()
    assert "scheduler_schedule_attempts_total{" in text and text.endswith("# EOF\n")


def test_plain_http_listener_stays_open_on_loopback(secure: Secure) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{secure.kb.port}/debug/generation", timeout=10) as resp:
        assert json.loads(resp.read())["id"]


def test_explain_and_plugins_list_over_https(secure: Secure, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from kubeberth.apps.cli import main

    server = ["--server", secure.url]
    assert main(["explain", secure.pod, *server, "--token", secure.tokens["reader"],
                 "--certificate-authority", str(secure.ca)]) == 0
    assert f"Pod {secure.pod}" in capsys.readouterr().out
    monkeypatch.setenv("KUBEBERTH_TOKEN", secure.tokens["reader"])
    assert main(["plugins", "list", *server, "--insecure-skip-tls-verify"]) == 0
    assert capsys.readouterr().out.startswith("generation ")

    def refused(argv: list[str]) -> str:
        assert main(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1, lines
        return lines[0]

    assert "certificate is not trusted" in refused(["plugins", "list", *server])
    monkeypatch.delenv("KUBEBERTH_TOKEN")
    assert "401 Unauthorized: no token; pass --token or set KUBEBERTH_TOKEN" in refused(
        ["explain", secure.pod, *server, "--insecure-skip-tls-verify"])
    assert "403 Forbidden" in refused(["explain", secure.pod, *server, "--insecure-skip-tls-verify",
                                       "--token", secure.tokens["nobody"]])


def test_the_scheduler_reviewed_with_its_own_service_account(secure: Secure, control_plane: LocalControlPlane) -> None:
    """The reviews above went out as system:serviceaccount:kube-system:kubeberth, which config/rbac.yaml
    allows to create them and nothing on the secure port itself."""
    kubeberth_sa = "--as=system:serviceaccount:kube-system:kubeberth"
    for resource in ("tokenreviews.authentication.k8s.io", "subjectaccessreviews.authorization.k8s.io"):
        assert control_plane.kubectl("auth", "can-i", "create", resource, kubeberth_sa).stdout.strip() == "yes"
    assert control_plane.kubectl("auth", "can-i", "get", "/metrics", kubeberth_sa, check=False).stdout.strip() == "no"
    assert "serving" in secure.kb.log_text() and "https://127.0.0.1" in secure.kb.log_text()

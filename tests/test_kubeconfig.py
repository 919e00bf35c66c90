"""kubeberth's own kubeconfig / in-cluster loader (backends/kubernetes/kubeconfig.py): the settings it
reads agree with the kubernetes package's loader, what it cannot read falls back to that loader, and a
broken file is one line naming the key."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from kubeberth.backends.kubernetes import kubeconfig as kc
from kubeberth.backends.kubernetes.client import load_api_client
from kubeberth.errors import ConfigError


def write(path: Path, cluster: dict[str, Any], user: dict[str, Any]) -> Path:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "ctx",
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": user}],
    }))
    return path


def package_settings(path: Path) -> tuple[str, Any, Any, Any, bool, str]:
    from kubernetes import client, config

    cfg = client.Configuration()
    config.load_kube_config(config_file=str(path), client_configuration=cfg)
    auth = cfg.auth_settings().get("BearerToken", {}).get("value", "")
    return cfg.host, cfg.ssl_ca_cert, cfg.cert_file, cfg.key_file, cfg.verify_ssl, auth


def own_settings(path: Path) -> tuple[str, Any, Any, Any, bool, str]:
    c = kc.from_kubeconfig(str(path))
    auth = c.auth_settings().get("BearerToken", {}).get("value", "")
    return c.host, c.ssl_ca_cert, c.cert_file, c.key_file, c.verify_ssl, auth


def test_token_and_ca_file_agree_with_the_kubernetes_package(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text("ca")
    path = write(tmp_path / "kubeconfig", {"server": "https://127.0.0.1:6443", "certificate-authority": "ca.crt"},
                 {"token": "abc"})
    ours = own_settings(path)
    assert ours == package_settings(path)
    assert ours == ("https://127.0.0.1:6443", str(tmp_path / "ca.crt"), None, None, True, "Bearer abc")


def test_client_certificate_data_and_insecure_agree(tmp_path: Path) -> None:
    b64 = base64.b64encode
    path = write(tmp_path / "kubeconfig", {"server": "https://10.0.0.1", "insecure-skip-tls-verify": True},
                 {"client-certificate-data": b64(b"CERT").decode(), "client-key-data": b64(b"KEY").decode()})
    host, ca, cert, key, verify, auth = own_settings(path)
    p_host, _, p_cert, p_key, p_verify, p_auth = package_settings(path)
    assert (host, verify, auth) == (p_host, p_verify, p_auth) == ("https://10.0.0.1", False, "")
    assert ca is None
    assert Path(cert).read_bytes() == Path(p_cert).read_bytes() == b"CERT"
    assert Path(key).read_bytes() == Path(p_key).read_bytes() == b"KEY"
    assert os.stat(key).st_mode & 0o077 == 0  # the key's copy is private


def test_token_file_is_read_again_after_a_minute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "token").write_text("first\n")
    conn = kc.from_kubeconfig(str(write(tmp_path / "kubeconfig", {"server": "https://h"}, {"tokenFile": "token"})))
    assert conn.auth_settings()["BearerToken"]["value"] == "Bearer first"
    (tmp_path / "token").write_text("rotated\n")
    assert conn.auth_settings()["BearerToken"]["value"] == "Bearer first"  # within the minute
    now = kc.time.monotonic()
    monkeypatch.setattr(kc.time, "monotonic", lambda: now + kc.TOKEN_REREAD_SECONDS + 1)
    assert conn.auth_settings()["BearerToken"]["value"] == "Bearer rotated"


def test_basic_auth(tmp_path: Path) -> None:
    conn = kc.from_kubeconfig(str(write(tmp_path / "k", {"server": "https://h"}, {"username": "a", "password": "b"})))
    assert conn.auth_settings()["BearerToken"]["value"] == "Basic " + base64.b64encode(b"a:b").decode()


def test_in_cluster_service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "token").write_text("sa-token")
    (tmp_path / "ca.crt").write_text("ca")
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert kc.in_cluster(tmp_path) is None
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    conn = kc.in_cluster(tmp_path)
    assert conn is not None and conn.host == "https://[fd00::1]:443" and conn.ssl_ca_cert == str(tmp_path / "ca.crt")
    assert conn.auth_settings()["BearerToken"]["value"] == "Bearer sa-token"


def test_the_run_path_does_not_import_the_kubernetes_package(tmp_path: Path) -> None:
    path = write(tmp_path / "kubeconfig", {"server": "https://127.0.0.1:6443"}, {"token": "abc"})
    code = ("import sys; from kubeberth.backends.kubernetes import load_api_client; "
            f"c = load_api_client({str(path)!r}); assert type(c).__name__ == 'KubeClient', c; "
            "assert 'kubernetes' not in sys.modules")
    import subprocess

    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_exec_credentials_fall_back_to_the_kubernetes_package(tmp_path: Path) -> None:
    path = write(tmp_path / "kubeconfig", {"server": "https://127.0.0.1:6443"},
                 {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "true"}})
    with pytest.raises(kc.Unsupported):
        kc.from_kubeconfig(str(path))
    from kubernetes import client

    assert isinstance(load_api_client(str(path)), client.ApiClient)


@pytest.mark.parametrize(("doc", "says"), [
    ("[]", "not a kubeconfig"),
    ('{"clusters": []}', "no current-context"),
    ('{"current-context": "x", "contexts": []}', "contexts: no entry named 'x'"),
    (": : :", "not YAML"),
])
def test_broken_kubeconfig_is_one_line_naming_the_file(tmp_path: Path, doc: str, says: str) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(doc)
    with pytest.raises(ConfigError) as err:
        load_api_client(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message.split("; pass")[0]

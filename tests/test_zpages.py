"""/statusz, /flagz and /configz as kube-scheduler serves them (k8s.io/apiserver's statusz and flagz, v0.37.2):
content negotiation, the structured objects, the deprecation warning of v1alpha1; serving/endpoints_test.go's
TestSchedulerZPages runs the same Accept headers against kubeberth's secure port on a real API server
(tests/e2e/test_serving_integration_e2e.py)."""

from __future__ import annotations

import argparse
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kubeberth.apps.zpages import cbor, flag_values, listed_paths, negotiate
from reload_harness import EmbeddedRun

J = "application/json"


@pytest.mark.parametrize(("accept", "want"), [
    ("text/plain", ("text/plain", "")),
    ("", ("text/plain", "")),
    ("*/*", ("text/plain", "")),
    ("application/xml", None),
    (J, None),
    (f"{J};v=v1beta1;g=config.k8s.io", None),
    (f"{J};v=v1beta1;g=config.k8s.io;as=Statusz", (J, "v1beta1")),
    (f"{J};v=foo;g=config.k8s.io;as=Statusz,*/*", ("text/plain", "")),
    ("application/yaml;v=v1beta1;g=config.k8s.io;as=Statusz", ("application/yaml", "v1beta1")),
    ("application/cbor;v=v1beta1;g=config.k8s.io;as=Statusz", ("application/cbor", "v1beta1")),
    (f"{J};g=config.k8s.io;v=v1alpha1;as=Statusz,{J};g=config.k8s.io;v=v1beta1;as=Statusz", (J, "v1alpha1")),
    (f"{J};g=config.k8s.io;v=v1alpha1;as=Statusz;q=0.5,{J};g=config.k8s.io;v=v1beta1;as=Statusz", (J, "v1beta1")),
    (f"{J};v=v1beta1;g=config.k8s.io;as=Flagz", None),  # another endpoint's kind
    ("text/plain;v=v1beta1;g=config.k8s.io;as=Statusz", None),  # text takes no conversion
])
def test_negotiation_mirrors_statusz_restrictions(accept: str, want: tuple[str, str] | None) -> None:
    assert negotiate(accept, "Statusz") == want


def test_cbor_is_kubes_byte_string_encoding() -> None:
    assert cbor({"b": 1, "a": ["x"]}) == bytes([0xA2, 0x41, ord("a"), 0x81, 0x41, ord("x"), 0x41, ord("b"), 0x01])
    assert cbor(1000) == b"\x19\x03\xe8" and cbor(-1) == b"\x20" and cbor(None) == b"\xf6"


def test_listed_paths_aggregate_folders_and_leave_kubeberths_own_api_out() -> None:
    served = ["/healthz", "/healthz/ping", "/metrics", "/debug/decisions/", "/reload", "POST /reload", "/configz"]
    assert listed_paths(served) == ["/configz", "/healthz", "/metrics"]


def test_flag_values_print_as_pflag_with_the_configured_values_for_unset_flags() -> None:
    args = argparse.Namespace(command="run", leader_elect=False, leader_elect_resource_name=None, qps=5.0,
                              names=["a", "b"])
    got = flag_values(args, {"leader-elect-resource-name": "kubeberth"})
    assert got == {"leader-elect": "false", "leader-elect-resource-name": "kubeberth", "qps": "5.0", "names": "a,b"}


def _get(url: str, accept: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_served_statusz_flagz_configz(tmp_path: Path) -> None:
    with EmbeddedRun(tmp_path, nodes=1) as run:
        run.runner.flagz = {"leader-elect-resource-name": "kubeberth"}
        status, headers, body = _get(run.url + "/statusz", "")
        assert status == 200 and headers["Content-Type"] == "text/plain; charset=utf-8"
        assert body.decode().startswith("\nkube-scheduler statusz\nWarning: This endpoint is not meant to be machine parseable")
        status, headers, body = _get(run.url + "/statusz", f"{J};v=v1alpha1;g=config.k8s.io;as=Statusz")
        got: dict[str, Any] = json.loads(body)
        assert (status, headers["Content-Type"], got["kind"], got["apiVersion"]) == (200, J, "Statusz",
                                                                                     "config.k8s.io/v1alpha1")
        assert "deprecated" in headers["Warning"]
        assert got["metadata"] == {"name": "kube-scheduler"}
        assert got["paths"] == ["/configz", "/flagz", "/healthz", "/livez", "/metrics", "/readyz"]
        status, headers, body = _get(run.url + "/flagz", f"{J};v=v1beta1;g=config.k8s.io;as=Flagz")
        assert "Warning" not in headers
        assert json.loads(body)["flags"] == {"leader-elect-resource-name": "kubeberth"}
        assert _get(run.url + "/flagz", "application/xml")[0] == 406
        text = _get(run.url + "/flagz", "text/plain")[2].decode()
        assert text.startswith("\nkube-scheduler flagz\n") and "leader-elect-resource-name" in text.splitlines()[-1]
        status, _, body = _get(run.url + "/configz", J)
        cfg = json.loads(body)["componentconfig"]
        assert (status, cfg["apiVersion"], cfg["kind"]) == (200, "kubescheduler.config.k8s.io/v1",
                                                           "KubeSchedulerConfiguration")
        assert cfg["profiles"][0]["schedulerName"]

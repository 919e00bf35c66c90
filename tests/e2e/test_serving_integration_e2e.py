"""kube-scheduler v1.37.2 test/integration/scheduler/serving/endpoints_test.go's TestSchedulerZPages against kubeberth
on a real API server: GET /statusz, /flagz and /configz on the secure port (HTTPS, kubeberth's self-signed
certificate) with each case's Accept header; the same status, text header, structured object (kind, apiVersion,
metadata.name, statusz's paths, flagz's leader-elect-resource-name) and deprecation warning.

One `kubeberth run` (its secure port, `--authorization-always-allow-paths=/statusz,/flagz,/configz` as upstream
passes) serves every case; a case runs its statusz row and its flagz row (upstream's `statusz_<name>` and
`flagz_<name>` subtests share the case name). TestEndpointHandlers is in test_queueing_enqueue_integration_e2e.py.

One difference kept on purpose, not a behaviour: flagz's `leader-elect-resource-name` is kubeberth's default
Lease name, `kubeberth` (runtime/config.py), where kube-scheduler's is `kube-scheduler`: kubeberth leads with a
Lease of its own so that it can run beside kube-scheduler. The flag is there with the value the process uses.
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster import LocalControlPlane, free_port
from kubeberth_harness import Kubeberth, suffix, write_config

STATUSZ_TEXT = "kube-scheduler statusz\nWarning: This endpoint is not meant to be machine parseable"
FLAGZ_TEXT = "kube-scheduler flagz\nWarning: This endpoint is not meant to be machine parseable"
PATHS = ["/configz", "/flagz", "/healthz", "/livez", "/metrics", "/readyz"]
FLAGS = {"leader-elect-resource-name": "kubeberth"}  # upstream: kube-scheduler (see the module docstring)
_A = "application/json;g=config.k8s.io;v=v1alpha1;as=Statusz"
_B = "application/json;g=config.k8s.io;v=v1beta1;as=Statusz"
_FA = "application/json;v=v1alpha1;g=config.k8s.io;as=Flagz"
_FB = "application/json;v=v1beta1;g=config.k8s.io;as=Flagz"
# name -> (statusz Accept, flagz Accept, wantStatus, text (True) or structured version, wantDeprecationHeader)
CASES: dict[str, tuple[str, str, int, Any, bool]] = {
    "text plain response": ("text/plain", "text/plain", 200, True, False),
    "structured json response": ("application/json;v=v1beta1;g=config.k8s.io;as=Statusz",
                                 "application/json;v=v1beta1;g=config.k8s.io;as=Flagz", 200, "v1beta1", False),
    "no accept header (defaults to text)": ("", "", 200, True, False),
    "invalid accept header": ("application/xml", "application/xml", 406, None, False),
    "application/json without params": ("application/json", "application/json", 406, None, False),
    "application/json with missing as": ("application/json;v=v1beta1;g=config.k8s.io",
                                         "application/json;v=v1beta1;g=config.k8s.io", 406, None, False),
    "wildcard accept header": ("*/*", "*/*", 200, True, False),
    "bad json header fall back wildcard": ("application/json;v=foo;g=config.k8s.io;as=Statusz,*/*",
                                           "application/json;v=foo;g=config.k8s.io;as=Flagz,*/*", 200, True, False),
    "structured yaml response": ("application/yaml;v=v1beta1;g=config.k8s.io;as=Statusz",
                                 "application/yaml;v=v1beta1;g=config.k8s.io;as=Flagz", 200, "v1beta1", False),
    "structured cbor response": ("application/cbor;v=v1beta1;g=config.k8s.io;as=Statusz",
                                 "application/cbor;v=v1beta1;g=config.k8s.io;as=Flagz", 200, "v1beta1", False),
    "alpha specified before beta, should show warning": (f"{_A},{_B}", f"{_FA},{_FB}", 200, "v1alpha1", True),
    "beta specified before alpha, no warning": (f"{_B},{_A}", f"{_FB},{_FA}", 200, "v1beta1", False),
}
UPSTREAM_CASES = (
    "TestSchedulerZPages/text plain response",
    "TestSchedulerZPages/structured json response",
    "TestSchedulerZPages/no accept header (defaults to text)",
    "TestSchedulerZPages/invalid accept header",
    "TestSchedulerZPages/application/json without params",
    "TestSchedulerZPages/application/json with missing as",
    "TestSchedulerZPages/wildcard accept header",
    "TestSchedulerZPages/bad json header fall back wildcard",
    "TestSchedulerZPages/structured yaml response",
    "TestSchedulerZPages/structured cbor response",
    "TestSchedulerZPages/alpha specified before beta, should show warning",
    "TestSchedulerZPages/beta specified before alpha, no warning",
)
UPSTREAM_CONFIGZ = "TestSchedulerZPages/application/json response"


@dataclass
class Served:
    kb: Kubeberth
    url: str
    ca: Path


@pytest.fixture(scope="module")
def served(control_plane: LocalControlPlane, sa_kubeconfig: str,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("zpages")
    port = free_port(avoid={control_plane.apiserver_port})
    kb = Kubeberth(control_plane, sa_kubeconfig, write_config(tmp / "config.yaml"), False, f"kubeberth-zpages-{suffix()}",
                   args=[f"--secure-port={port}", "--bind-address=127.0.0.1", f"--cert-dir={tmp / 'certs'}",
                         "--authorization-always-allow-paths=/statusz,/flagz,/configz"])
    try:
        kb.wait_ready()
        yield Served(kb, f"https://127.0.0.1:{port}", tmp / "certs" / "kubeberth.crt")
    finally:
        kb.stop()


def get(s: Served, path: str, accept: str) -> tuple[int, list[str], bytes]:
    """GET with the Accept header set (upstream's req.Header.Set, an empty value included): status, Warning
    headers, body."""
    request = urllib.request.Request(s.url + path, headers={"Accept": accept})
    context = ssl.create_default_context(cafile=str(s.ca))
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as resp:
            return resp.status, resp.headers.get_all("Warning") or [], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get_all("Warning") or [], err.read()


def cbor_decode(data: bytes) -> Any:
    """cbor/direct.Unmarshal for what kube's serializer writes (the self-described tag, byte strings read as
    strings, ints, lists, maps, simple values)."""
    value, rest = _item(data[3:] if data.startswith(b"\xd9\xd9\xf7") else data)
    assert not rest, rest
    return value


def _item(data: bytes) -> tuple[Any, bytes]:
    major, info, data = data[0] >> 5, data[0] & 31, data[1:]
    if major == 7:
        return {20: False, 21: True, 22: None}[info], data
    if info < 24:
        n = info
    else:
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
        n, data = int.from_bytes(data[:size], "big"), data[size:]
    if major in (0, 1):
        return (n if major == 0 else -1 - n), data
    if major in (2, 3):
        return data[:n].decode(), data[n:]
    if major == 6:
        return _item(data)
    out: list[Any] = []
    for _ in range(n * (2 if major == 5 else 1)):
        value, data = _item(data)
        out.append(value)
    return (dict(zip(out[::2], out[1::2], strict=True)) if major == 5 else out), data


def structured(accept: str, body: bytes) -> dict[str, Any]:
    """statusztesting / flagztesting's unmarshalFunc, by the Accept header."""
    if "application/json" in accept:
        return dict(json.loads(body))
    if "application/yaml" in accept:
        return dict(yaml.safe_load(body))
    return dict(cbor_decode(body))


def verify(accept: str, body: bytes, warnings: list[str], kind: str, version: str, deprecated: bool) -> None:
    """VerifyStructuredResponse: TypeMeta and name equal; statusz's paths equal, flagz's wanted flags present
    with their values; a Warning containing "deprecated" exactly when wanted."""
    got = structured(accept, body)
    assert (got["kind"], got["apiVersion"], got["metadata"]["name"]) == (kind, f"config.k8s.io/{version}",
                                                                         "kube-scheduler")
    if kind == "Statusz":
        assert got["paths"] == PATHS
    else:
        assert {k: got["flags"].get(k) for k in FLAGS} == FLAGS
    assert any("deprecated" in w for w in warnings) == deprecated, warnings


@pytest.mark.parametrize("name", list(CASES))
def test_TestSchedulerZPages(served: Served, name: str) -> None:  # noqa: N802 - the upstream name
    """statusz_<name> then flagz_<name>: the status; for 200, the text header (a substring) or the structured
    object."""
    assert f"TestSchedulerZPages/{name}" in UPSTREAM_CASES
    statusz_accept, flagz_accept, want_status, want, deprecated = CASES[name]
    for path, accept, kind, text in (("/statusz", statusz_accept, "Statusz", STATUSZ_TEXT),
                                     ("/flagz", flagz_accept, "Flagz", FLAGZ_TEXT)):
        status, warnings, body = get(served, path, accept)
        assert status == want_status, (path, status, body[:300])
        if want is True:
            assert text in body.decode(), body.decode()
        elif want:
            verify(accept, body, warnings, kind, want, deprecated)


@pytest.mark.parametrize("name", [UPSTREAM_CONFIGZ.split("/", 1)[1]])
def test_TestSchedulerZPages_configz(served: Served, name: str) -> None:  # noqa: N802 - the upstream name
    """configz_application/json response: {"componentconfig": a kubescheduler.config.k8s.io/v1
    KubeSchedulerConfiguration} (here: the one kubeberth runs, its profiles in it)."""
    status, _, body = get(served, "/configz", "application/json")
    assert status == 200
    cfg = json.loads(body)["componentconfig"]
    assert (cfg["apiVersion"], cfg["kind"]) == ("kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration")
    assert [p["schedulerName"] for p in cfg["profiles"]]

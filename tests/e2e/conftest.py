"""Fixtures for end-to-end tests against a real local control plane.

``control_plane`` (session scope) runs etcd + kube-apiserver on 127.0.0.1 for
the whole test session; ``kube_scheduler`` (module scope) adds the upstream
kube-scheduler. Binaries are built on first use by scripts/provision-k8s.sh
(several minutes cold, then cached).

Set KUBEBERTH_SKIP_E2E=1 to skip every test that uses these fixtures.
Set KUBEBERTH_E2E_KEEP=1 to keep the work dir (logs, kubeconfigs) afterwards.
All tests under tests/e2e carry the ``e2e`` marker (deselect with -m "not e2e").
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:  # works with any --import-mode
    sys.path.insert(0, str(_HERE))

from cluster import LocalControlPlane, ManagedProcess, find_binaries  # noqa: E402
from helm_tool import find_helm  # noqa: E402
from jaeger import LocalJaeger, find_jaeger  # noqa: E402
from kubeberth_harness import CONFIG_DIR, Api, Kubeberth, suffix, write_config  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: end-to-end test against a real local kube-apiserver")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Build/locate the binaries before any test runs.

    Doing it here rather than in the fixture keeps a cold build (several
    minutes) out of per-test time limits such as pytest-timeout's.
    """
    if _skip_requested() or session.config.option.collectonly:
        return
    if not any(_HERE in Path(str(item.path)).resolve().parents for item in session.items):
        return
    started = time.monotonic()
    find_binaries()
    elapsed = time.monotonic() - started
    if elapsed > 1:
        sys.stderr.write(f"\n[e2e] provisioned Kubernetes binaries in {elapsed:.0f}s\n")
    if any(Path(str(item.path)).name == "test_chart_e2e.py" for item in session.items):
        started = time.monotonic()
        find_helm()
        elapsed = time.monotonic() - started
        if elapsed > 1:
            sys.stderr.write(f"\n[e2e] provisioned helm in {elapsed:.0f}s\n")
    if any("jaeger" in getattr(item, "fixturenames", ()) for item in session.items):
        started = time.monotonic()
        find_jaeger()
        elapsed = time.monotonic() - started
        if elapsed > 1:
            sys.stderr.write(f"\n[e2e] provisioned Jaeger in {elapsed:.0f}s\n")


def _skip_requested() -> bool:
    return os.environ.get("KUBEBERTH_SKIP_E2E", "") == "1"


@pytest.fixture(scope="session")
def control_plane() -> Iterator[LocalControlPlane]:
    if _skip_requested():
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    started = time.monotonic()
    with LocalControlPlane() as cp:
        sys.stderr.write(
            f"\n[e2e] control plane {cp.server} ready in {time.monotonic() - started:.1f}s "
            f"(logs: {cp.log_dir})\n"
        )
        yield cp


@pytest.fixture(scope="session")
def jaeger() -> Iterator[LocalJaeger]:
    """Jaeger v2 all-in-one (in-memory storage) on loopback, receiving OTLP over gRPC and HTTP."""
    if _skip_requested():
        pytest.skip("KUBEBERTH_SKIP_E2E=1")
    started = time.monotonic()
    with LocalJaeger() as j:
        sys.stderr.write(f"\n[e2e] jaeger {j.query_url} ready in {time.monotonic() - started:.1f}s\n")
        yield j


@pytest.fixture(scope="module")
def kube_scheduler(control_plane: LocalControlPlane) -> Iterator[ManagedProcess]:
    """The upstream kube-scheduler (schedulerName "default-scheduler")."""
    proc = control_plane.start_kube_scheduler()
    try:
        yield proc
    finally:
        proc.stop()
        if proc in control_plane.schedulers:
            control_plane.schedulers.remove(proc)


# ---- kubeberth processes and the admin API (tests/e2e/kubeberth_harness.py) ----


@pytest.fixture(scope="module")
def api(control_plane: LocalControlPlane) -> Api:
    return Api(control_plane)


@pytest.fixture(scope="module")
def sa_kubeconfig(control_plane: LocalControlPlane) -> str:
    """The scheduler's own service account, with exactly config/rbac.yaml's permissions."""
    control_plane.kubectl("apply", "-f", str(CONFIG_DIR / "rbac.yaml"))
    return control_plane.kubeconfig_for_service_account("kube-system", "kubeberth")


@pytest.fixture
def namespace(api: Api) -> Iterator[str]:
    name = f"kb-{suffix()}"
    api.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield name
    # One deletecollection, not a DELETE per pod: fault tests leave a hundred pods or more.
    api.call("DELETE", f"/api/v1/namespaces/{name}/pods", {"gracePeriodSeconds": 0}, ok=(200, 404))
    api.call("DELETE", f"/api/v1/namespaces/{name}", ok=(200, 202, 404))


@pytest.fixture
def nodes(api: Api) -> Iterator[list[str]]:
    """Names appended here are deleted after the test."""
    created: list[str] = []
    yield created
    for name in created:
        api.delete_node(name)


@pytest.fixture
def start_kubeberth(control_plane: LocalControlPlane, sa_kubeconfig: str, tmp_path: Path
                    ) -> Iterator[Callable[..., Kubeberth]]:
    procs: list[Kubeberth] = []

    def start(leader_elect: bool = False, wait: bool = True, plugins_dir: Path | None = None,
              env: dict[str, str] | None = None, kubeconfig: str | None = None, **cfg: Any) -> Kubeberth:
        config = write_config(tmp_path / f"config-{len(procs)}.yaml", leader_elect, **cfg)
        kb = Kubeberth(control_plane, kubeconfig or sa_kubeconfig, config, leader_elect, f"kubeberth-{suffix()}",
                       plugins_dir=plugins_dir, env=env)
        procs.append(kb)
        if wait:
            kb.wait_ready()
        return kb

    yield start
    for kb in procs:
        kb.stop()

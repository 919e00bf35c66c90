"""A real Kubernetes control plane on loopback for end-to-end tests.

``LocalControlPlane`` runs etcd and kube-apiserver (and, on request,
kube-scheduler) as child processes bound to 127.0.0.1 only, with a throw-away
CA, TLS serving certificate, static admin token and service-account signing
key, so that authentication, RBAC and the TokenRequest API behave as in a real
cluster. There is no kubelet and no kube-controller-manager: Node objects (and
their status) are created by the tests themselves.

    with LocalControlPlane() as cp:
        print(cp.server, cp.admin_kubeconfig)
        sched = cp.start_kube_scheduler()

Binaries come from ``$KUBEBERTH_K8S_BIN`` (a directory holding kube-apiserver,
kube-scheduler, kubectl and etcd), else from the cache filled by
``scripts/provision-k8s.sh``, which is run automatically when the cache is
empty. etcd may also be found on ``$PATH``.

Children are started in their own process groups with a parent-death signal,
and a small watchdog process kills them when the test process goes away or
when ``max_lifetime`` seconds have passed, so nothing outlives a crashed or
killed test run.

This module depends only on the standard library plus ``cryptography`` (or
the ``openssl`` CLI as a fallback) and, optionally, PyYAML.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import ipaddress
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ControlPlaneError", "LocalControlPlane", "ManagedProcess", "find_binaries"]

REPO_ROOT = Path(__file__).resolve().parents[2]
GO_MOD = REPO_ROOT / "tests" / "e2e" / "k8s" / "go.mod"
PROVISION_SCRIPT = REPO_ROOT / "scripts" / "provision-k8s.sh"

LOOPBACK = "127.0.0.1"
SERVICE_CIDR = "10.0.0.0/24"
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"
ADMIN_USER = "kubeberth-admin"

# Admission plugins left on. Everything else that is on by default is switched
# off: most defaults assume controllers this control plane does not run
# (ServiceAccount needs the token controller to create "default" service
# accounts, TaintNodesByCondition adds a not-ready taint that only the node
# lifecycle controller removes, ...).
DEFAULT_ADMISSION_PLUGINS: tuple[str, ...] = (
    "NamespaceLifecycle",
    "NodeRestriction",
    "Priority",
    "RuntimeClass",
)

_LOG_TAIL_LINES = 80



def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    """Poll until `predicate` returns something truthy (returned), or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


class ControlPlaneError(RuntimeError):
    """Raised when a control-plane component cannot be provisioned or started."""


# ---------------------------------------------------------------------------
# binaries
# ---------------------------------------------------------------------------


def pinned_version() -> str:
    """The k8s.io/kubernetes version pinned in tests/e2e/k8s/go.mod."""
    for line in GO_MOD.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "k8s.io/kubernetes" and fields[1].startswith("v"):
            return fields[1]
    raise ControlPlaneError(f"no k8s.io/kubernetes requirement in {GO_MOD}")


def default_bin_dir() -> Path:
    cache = os.environ.get("KUBEBERTH_K8S_CACHE") or str(Path.home() / ".cache" / "kubeberth" / "k8s")
    return Path(cache) / pinned_version() / "bin"


_COMPONENTS = ("kube-apiserver", "kube-scheduler", "kubectl", "etcd")


def _lookup(bin_dir: Path, name: str) -> Path | None:
    candidate = bin_dir / name
    if candidate.exists() and os.access(candidate, os.X_OK):
        return candidate
    if name == "etcd":
        found = shutil.which("etcd")
        if found:
            return Path(found)
    return None


def find_binaries(provision: bool = True) -> dict[str, Path]:
    """Locate kube-apiserver, kube-scheduler, kubectl and etcd.

    ``$KUBEBERTH_K8S_BIN`` wins; otherwise the version-keyed cache directory is
    used, and ``scripts/provision-k8s.sh`` is run once to fill it if anything
    is missing (unless ``provision`` is false).
    """
    env_dir = os.environ.get("KUBEBERTH_K8S_BIN")
    bin_dir = Path(env_dir) if env_dir else default_bin_dir()
    found = {name: _lookup(bin_dir, name) for name in _COMPONENTS}
    missing = [name for name, path in found.items() if path is None]
    if missing and provision and not env_dir:
        proc = subprocess.run(
            ["bash", str(PROVISION_SCRIPT)],
            stdout=subprocess.PIPE,
            stderr=None,  # build progress goes straight to the terminal / captured stderr
            text=True,
            timeout=3600,
        )
        if proc.returncode != 0:
            raise ControlPlaneError(f"{PROVISION_SCRIPT} failed with exit code {proc.returncode}")
        lines = proc.stdout.strip().splitlines()
        if lines:
            bin_dir = Path(lines[-1])
        found = {name: _lookup(bin_dir, name) for name in _COMPONENTS}
        missing = [name for name, path in found.items() if path is None]
    if missing:
        hint = f"set KUBEBERTH_K8S_BIN or run {PROVISION_SCRIPT}"
        raise ControlPlaneError(f"missing binaries {missing} in {bin_dir} ({hint})")
    return {name: path for name, path in found.items() if path is not None}


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def free_port(host: str = LOOPBACK, avoid: Iterable[int] = ()) -> int:
    """A TCP port that is free on ``host`` right now."""
    avoid = set(avoid)
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in avoid:
            return port
    raise ControlPlaneError("could not find a free port")


def tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"<cannot read {path}: {exc}>"
    text = data[-256 * 1024 :].decode("utf-8", "replace")
    return "\n".join(text.splitlines()[-lines:])


def _set_pdeathsig() -> None:
    """preexec_fn: make the child get SIGKILL when its parent dies (Linux)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except Exception:  # pragma: no cover - best effort
            pass


def _etcd_version(etcd: Path) -> tuple[int, int]:
    try:
        out = subprocess.run([str(etcd), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0, 0)
    m = re.search(r"etcd Version:\s*(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


_WATCHDOG = r"""
import os, shutil, signal, sys, time
parent, deadline, pgid_file, cleanup_file = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
os.setsid()  # out of the test's process group: a Ctrl-C there does not reach us
# Reparenting (getppid() changes) means the test process is gone.
while os.getppid() == parent and time.time() < deadline:
    time.sleep(1)
def lines(path):
    try:
        with open(path) as fh:
            return [line.strip() for line in fh if line.strip()]
    except OSError:
        return []
pgids, cleanup = [int(x) for x in lines(pgid_file)], lines(cleanup_file)
for sig in (signal.SIGTERM, signal.SIGKILL):
    for pgid in pgids:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
    time.sleep(3)
for path in cleanup:
    shutil.rmtree(path, ignore_errors=True)
"""


class ManagedProcess:
    """A child process in its own process group, logging to a file."""

    def __init__(self, name: str, argv: Sequence[str], log_path: Path, env: dict[str, str] | None = None):
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            log.write(
                f"\n===== {time.strftime('%H:%M:%S')} starting {name}: {' '.join(self.argv)}\n".encode()
            )
            log.flush()
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: killpg reaches any children
                preexec_fn=_set_pdeathsig,
                env=env,
                close_fds=True,
            )
        self.pid = self.popen.pid
        self.pgid = self.pid
        # Set by LocalControlPlane.start_kube_scheduler for scheduler processes.
        self.healthz_url: str | None = None

    def poll(self) -> int | None:
        return self.popen.poll()

    @property
    def running(self) -> bool:
        return self.popen.poll() is None

    def log_tail(self, lines: int = _LOG_TAIL_LINES) -> str:
        return tail(self.log_path, lines)

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM the process group, SIGKILL it after ``timeout`` seconds."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pgid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=timeout)
        # Also reap anything left in the group (and the leader, if still alive).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)
        try:
            return self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable
            return None

    def __repr__(self) -> str:
        return f"<ManagedProcess {self.name} pid={self.pid} rc={self.popen.poll()}>"


# ---------------------------------------------------------------------------
# PKI
# ---------------------------------------------------------------------------


class _Pki:
    """CA, apiserver serving certificate and service-account key pair."""

    def __init__(self, directory: Path, hosts: Sequence[str]):
        self.dir = directory
        self.ca_cert = directory / "ca.crt"
        self.ca_key = directory / "ca.key"
        self.serving_cert = directory / "apiserver.crt"
        self.serving_key = directory / "apiserver.key"
        self.sa_key = directory / "sa.key"
        self.sa_pub = directory / "sa.pub"
        directory.mkdir(parents=True, exist_ok=True)
        try:
            import cryptography  # noqa: F401
        except ImportError:
            if not shutil.which("openssl"):
                raise ControlPlaneError(
                    "need the 'cryptography' package or the openssl CLI to make certificates"
                ) from None
            self._with_openssl(hosts)
        else:
            self._with_cryptography(hosts)
        for key in (self.ca_key, self.serving_key, self.sa_key):
            key.chmod(0o600)

    def _with_cryptography(self, hosts: Sequence[str]) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        now = datetime.datetime.now(datetime.UTC)
        not_before = now - datetime.timedelta(hours=1)
        not_after = now + datetime.timedelta(days=7)

        def pem_key(key: Any) -> bytes:
            return key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )

        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeberth-e2e-ca")])
        ca_cert = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_after)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )

        sans: list[x509.GeneralName] = []
        for host in hosts:
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                sans.append(x509.DNSName(host))
        srv_key = ec.generate_private_key(ec.SECP256R1())
        srv_cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name)
            .public_key(srv_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before)
            .not_valid_after(not_after)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=True,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=False,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
            )
            .sign(ca_key, hashes.SHA256())
        )

        sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

        self.ca_cert.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        self.ca_key.write_bytes(pem_key(ca_key))
        self.serving_cert.write_bytes(srv_cert.public_bytes(serialization.Encoding.PEM))
        self.serving_key.write_bytes(pem_key(srv_key))
        self.sa_key.write_bytes(pem_key(sa_key))
        self.sa_pub.write_bytes(
            sa_key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )

    def _with_openssl(self, hosts: Sequence[str]) -> None:
        def run(*args: str) -> None:
            subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

        sans = []
        for host in hosts:
            try:
                ipaddress.ip_address(host)
                sans.append(f"IP:{host}")
            except ValueError:
                sans.append(f"DNS:{host}")
        ext = self.dir / "apiserver.ext"
        ext.write_text(
            "basicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=serverAuth\n"
            f"subjectAltName={','.join(sans)}\n"
        )
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        run(
            "req",
            "-x509",
            *ec,
            "-keyout",
            str(self.ca_key),
            "-out",
            str(self.ca_cert),
            "-days",
            "7",
            "-subj",
            "/CN=kubeberth-e2e-ca",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
        )
        csr = self.dir / "apiserver.csr"
        run(
            "req",
            "-new",
            *ec,
            "-keyout",
            str(self.serving_key),
            "-out",
            str(csr),
            "-subj",
            "/CN=kube-apiserver",
        )
        run(
            "x509",
            "-req",
            "-in",
            str(csr),
            "-CA",
            str(self.ca_cert),
            "-CAkey",
            str(self.ca_key),
            "-CAcreateserial",
            "-days",
            "7",
            "-extfile",
            str(ext),
            "-out",
            str(self.serving_cert),
        )
        run("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(self.sa_key))
        run("pkey", "-in", str(self.sa_key), "-pubout", "-out", str(self.sa_pub))


# ---------------------------------------------------------------------------
# the control plane
# ---------------------------------------------------------------------------


class LocalControlPlane:
    """etcd + kube-apiserver (+ kube-scheduler on demand) on 127.0.0.1.

    Use as a context manager, or call :meth:`start` / :meth:`stop`.

    Attributes available after start: ``server`` (https URL), ``ca_file``,
    ``admin_kubeconfig``, ``admin_token``, ``etcd_url``, ``bin_dir``,
    ``binaries``, ``workdir`` (logs are in ``workdir/logs``).
    """

    def __init__(
        self,
        *,
        binaries: dict[str, Path] | None = None,
        workdir: str | os.PathLike[str] | None = None,
        keep_workdir: bool | None = None,
        admission_plugins: Sequence[str] = DEFAULT_ADMISSION_PLUGINS,
        extra_apiserver_args: Sequence[str] = (),
        extra_etcd_args: Sequence[str] = (),
        startup_timeout: float = 90.0,
        max_lifetime: float | None = None,
    ):
        self._binaries_override = binaries
        self._requested_workdir = Path(workdir) if workdir else None
        if keep_workdir is None:
            keep_workdir = os.environ.get("KUBEBERTH_E2E_KEEP", "") not in ("", "0")
        self.keep_workdir = keep_workdir
        self.admission_plugins = tuple(admission_plugins)
        self.extra_apiserver_args = list(extra_apiserver_args)
        self.extra_etcd_args = list(extra_etcd_args)
        self.startup_timeout = startup_timeout
        if max_lifetime is None:
            max_lifetime = float(os.environ.get("KUBEBERTH_E2E_MAX_LIFETIME", 3 * 3600))
        self.max_lifetime = max_lifetime

        self.binaries: dict[str, Path] = {}
        self.workdir: Path | None = None
        self.server = ""
        self.ca_file = ""
        self.admin_kubeconfig = ""
        self.admin_token = ""
        self.etcd_url = ""
        self.apiserver_port = 0
        self.etcd: ManagedProcess | None = None
        self.apiserver: ManagedProcess | None = None
        self.schedulers: list[ManagedProcess] = []
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._pki: _Pki | None = None
        self._etcd_data: Path | None = None
        self._etcd_data_is_external = False
        self._apiserver_argv: list[str] = []
        self._ssl: ssl.SSLContext | None = None
        self._started = False

    # -- context manager ---------------------------------------------------

    def __enter__(self) -> LocalControlPlane:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def bin_dir(self) -> Path:
        return self.binaries["kube-apiserver"].parent

    @property
    def log_dir(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "logs"

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> LocalControlPlane:
        if self._started:
            return self
        self.binaries = dict(self._binaries_override or find_binaries())
        if self._requested_workdir:
            self._requested_workdir.mkdir(parents=True, exist_ok=True)
            self.workdir = self._requested_workdir
        else:
            self.workdir = Path(tempfile.mkdtemp(prefix="kubeberth-e2e-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._started = True
        try:
            self._start_watchdog()
            self._pki = _Pki(
                self.workdir / "pki",
                hosts=[
                    LOOPBACK,
                    "localhost",
                    "kubernetes",
                    "kubernetes.default",
                    "kubernetes.default.svc",
                    "kubernetes.default.svc.cluster.local",
                    str(next(ipaddress.ip_network(SERVICE_CIDR).hosts())),
                ],
            )
            self.ca_file = str(self._pki.ca_cert)
            self._ssl = ssl.create_default_context(cafile=self.ca_file)
            self.admin_token = secrets.token_hex(24)
            tokens = self.workdir / "tokens.csv"
            tokens.write_text(f'{self.admin_token},{ADMIN_USER},{ADMIN_USER},"system:masters"\n')
            tokens.chmod(0o600)
            self._start_etcd()
            self._start_apiserver(fresh_port=True)
            self.admin_kubeconfig = str(
                self.write_kubeconfig(
                    self.workdir / "admin.kubeconfig", token=self.admin_token, user=ADMIN_USER
                )
            )
        except BaseException:
            # Keep the logs of a failed start for inspection.
            self.keep_workdir = True
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop every process (schedulers, apiserver, etcd) and clean up."""
        if not self._started:
            return
        self._started = False
        for proc in [*reversed(self.schedulers), self.apiserver, self.etcd]:
            if proc is not None:
                proc.stop(timeout=5)
        self.schedulers = []
        if self._watchdog is not None and self._watchdog.poll() is None:
            self._watchdog.kill()
            self._watchdog.wait(timeout=10)
        self._watchdog = None
        if self._etcd_data_is_external and self._etcd_data is not None:
            shutil.rmtree(self._etcd_data.parent, ignore_errors=True)
        if self.workdir is not None and not self.keep_workdir and self._requested_workdir is None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # -- processes ---------------------------------------------------------

    def _pgid_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "pgids"

    def _register(self, proc: ManagedProcess) -> ManagedProcess:
        with open(self._pgid_file(), "a") as fh:
            fh.write(f"{proc.pgid}\n")
        return proc

    def _cleanup_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "cleanup"

    def _add_cleanup(self, path: Path) -> None:
        """Directories the watchdog removes if the test process dies first."""
        with open(self._cleanup_file(), "a") as fh:
            fh.write(f"{path}\n")

    def _start_watchdog(self) -> None:
        """Kill every child (and tidy up) when this process dies or max_lifetime passes."""
        self._pgid_file().write_text("")
        self._cleanup_file().write_text("")
        if not self.keep_workdir and self._requested_workdir is None:
            self._add_cleanup(self.workdir)  # type: ignore[arg-type]
        deadline = time.time() + self.max_lifetime
        self._watchdog = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WATCHDOG,
                str(os.getpid()),
                str(deadline),
                str(self._pgid_file()),
                str(self._cleanup_file()),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )

    def _wait_until(
        self, proc: ManagedProcess, check: Callable[[], bool], what: str, timeout: float | None = None
    ) -> None:
        deadline = time.monotonic() + (timeout or self.startup_timeout)
        last_error = ""
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ControlPlaneError(
                    f"{proc.name} exited with code {proc.poll()} while waiting for {what}; "
                    f"last lines of {proc.log_path}:\n{proc.log_tail()}"
                )
            try:
                if check():
                    return
            except Exception as exc:  # noqa: BLE001 - keep polling
                last_error = f"{type(exc).__name__}: {exc}"
            time.sleep(0.25)
        raise ControlPlaneError(
            f"timed out after {timeout or self.startup_timeout:.0f}s waiting for {what} "
            f"(last error: {last_error or 'none'}); last lines of {proc.log_path}:\n{proc.log_tail()}"
        )

    def _start_etcd(self) -> None:
        assert self.workdir is not None
        etcd = self.binaries["etcd"]
        major_minor = _etcd_version(etcd)
        # etcd fsyncs every write; on tmpfs that costs nothing. etcd >= 3.5 can
        # also be told not to fsync at all.
        shm = Path("/dev/shm")
        data_parent = self.workdir
        if shm.is_dir() and os.access(shm, os.W_OK):
            st = os.statvfs(shm)
            if st.f_bavail * st.f_frsize >= 1 << 30:
                data_parent = Path(tempfile.mkdtemp(prefix="kubeberth-e2e-etcd-", dir=shm))
                self._etcd_data_is_external = True
                self._add_cleanup(data_parent)
        self._etcd_data = data_parent / "etcd-data"
        extra = list(self.extra_etcd_args)
        if major_minor >= (3, 5) and not self._etcd_data_is_external:
            extra.append("--unsafe-no-fsync")

        last: ControlPlaneError | None = None
        for _attempt in range(3):
            client_port = free_port()
            peer_port = free_port(avoid={client_port})
            self.etcd_url = f"http://{LOOPBACK}:{client_port}"
            peer_url = f"http://{LOOPBACK}:{peer_port}"
            argv = [
                str(etcd),
                "--name=kubeberth-e2e",
                f"--data-dir={self._etcd_data}",
                f"--listen-client-urls={self.etcd_url}",
                f"--advertise-client-urls={self.etcd_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=kubeberth-e2e={peer_url}",
                "--initial-cluster-state=new",
                "--initial-cluster-token=kubeberth-e2e",
                "--logger=zap",
                "--log-level=warn",
                *extra,
            ]
            proc = self._register(ManagedProcess("etcd", argv, self.log_dir / "etcd.log"))
            self.etcd = proc
            try:
                self._wait_until(proc, self._etcd_healthy, "etcd /health")
                return
            except ControlPlaneError as exc:
                proc.stop(timeout=5)
                last = exc
                if "address already in use" not in proc.log_tail():
                    raise
                shutil.rmtree(self._etcd_data, ignore_errors=True)
        assert last is not None
        raise last

    def _etcd_healthy(self) -> bool:
        with urllib.request.urlopen(f"{self.etcd_url}/health", timeout=2) as resp:
            return json.loads(resp.read()).get("health") in (True, "true")

    def _known_admission_plugins(self) -> set[str]:
        """The admission plugins on by default in this kube-apiserver, from its --help."""
        out = subprocess.run(
            [str(self.binaries["kube-apiserver"]), "--help"], capture_output=True, text=True, timeout=60
        ).stdout
        m = re.search(
            r"--disable-admission-plugins strings\s+admission plugins that should be disabled "
            r"although they are in the default enabled plugins list \(([^)]*)\)",
            out,
        )
        if not m:
            raise ControlPlaneError(
                "cannot read the default admission plugins from `kube-apiserver --help`; "
                "the --disable-admission-plugins help text has changed"
            )
        return {p.strip() for p in m.group(1).split(",") if p.strip()}

    def _apiserver_args(self) -> list[str]:
        assert self._pki is not None and self.workdir is not None
        default_on = self._known_admission_plugins()
        disable = sorted(default_on - set(self.admission_plugins))
        args = [
            str(self.binaries["kube-apiserver"]),
            f"--bind-address={LOOPBACK}",
            f"--advertise-address={LOOPBACK}",
            f"--secure-port={self.apiserver_port}",
            f"--etcd-servers={self.etcd_url}",
            f"--tls-cert-file={self._pki.serving_cert}",
            f"--tls-private-key-file={self._pki.serving_key}",
            f"--client-ca-file={self._pki.ca_cert}",
            f"--token-auth-file={self.workdir / 'tokens.csv'}",
            "--authorization-mode=Node,RBAC",
            f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
            f"--service-account-key-file={self._pki.sa_pub}",
            f"--service-account-signing-key-file={self._pki.sa_key}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            f"--enable-admission-plugins={','.join(self.admission_plugins)}",
            # The "kubernetes" service endpoints would point at 127.0.0.1,
            # which endpoint validation rejects; nothing here needs them.
            "--endpoint-reconciler-type=none",
            f"--cert-dir={self.workdir / 'apiserver-certs'}",
            "--profiling=false",
            "--v=1",
        ]
        if disable:
            args.append(f"--disable-admission-plugins={','.join(disable)}")
        return args + self.extra_apiserver_args

    def _start_apiserver(self, fresh_port: bool) -> None:
        attempts = 3 if fresh_port else 1
        last: ControlPlaneError | None = None
        for _attempt in range(attempts):
            if fresh_port:
                self.apiserver_port = free_port()
                self._apiserver_argv = self._apiserver_args()
            self.server = f"https://{LOOPBACK}:{self.apiserver_port}"
            proc = self._register(
                ManagedProcess("kube-apiserver", self._apiserver_argv, self.log_dir / "kube-apiserver.log")
            )
            self.apiserver = proc
            try:
                self._wait_until(proc, self._apiserver_ready, "kube-apiserver /readyz")
                return
            except ControlPlaneError as exc:
                proc.stop(timeout=5)
                last = exc
                if not fresh_port or "address already in use" not in proc.log_tail():
                    raise
        assert last is not None
        raise last

    def _apiserver_ready(self) -> bool:
        status, _ = self.request("GET", "/readyz")
        return status == 200

    def restart_apiserver(self, downtime: float = 0.0, grace_period: float = 5.0) -> None:
        """Stop kube-apiserver and start it again on the same port, keeping etcd.

        ``downtime`` seconds are waited between stop and start. Returns once
        the new apiserver reports ready. See :meth:`stop_apiserver` for
        ``grace_period``.
        """
        if self.apiserver is None:
            raise ControlPlaneError("control plane is not running")
        self.stop_apiserver(grace_period=grace_period)
        if downtime > 0:
            time.sleep(downtime)
        self.start_apiserver()

    def stop_apiserver(self, grace_period: float = 5.0) -> None:
        """SIGTERM kube-apiserver, SIGKILL it after ``grace_period`` seconds.

        A graceful shutdown with clients holding watch connections open (a
        running scheduler, say) waits for them for up to --request-timeout
        (60s), hence the short default; all state is in etcd, so a hard kill
        loses nothing. Use ``grace_period=0`` to simulate a crash.
        """
        if self.apiserver is not None:
            if grace_period <= 0:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.apiserver.pgid, signal.SIGKILL)
            self.apiserver.stop(timeout=grace_period)

    def start_apiserver(self) -> None:
        """Start kube-apiserver again after :meth:`stop_apiserver` (same port and flags)."""
        if self.apiserver is not None and self.apiserver.running:
            return
        self._start_apiserver(fresh_port=False)

    # -- kube-scheduler ----------------------------------------------------

    def start_kube_scheduler(
        self,
        config_path: str | os.PathLike[str] | None = None,
        *,
        extra_args: Sequence[str] = (),
        wait_healthy: bool = True,
        name: str | None = None,
    ) -> ManagedProcess:
        """Start kube-scheduler against this apiserver and return its process.

        It authenticates with the admin kubeconfig, leader election is off, and
        its secure (health/metrics) port is a free port on 127.0.0.1
        (``proc.healthz_url``). With ``config_path`` (a
        KubeSchedulerConfiguration file) the file is copied and, when PyYAML
        is available, ``clientConnection.kubeconfig`` is filled in (kube-scheduler
        ignores --kubeconfig when --config is given) and leader election turned
        off. The process is stopped by :meth:`stop` at the latest.
        """
        if not self._started or self.workdir is None:
            raise ControlPlaneError("control plane is not running")
        index = len(self.schedulers)
        name = name or f"kube-scheduler-{index}"
        port = free_port(avoid={self.apiserver_port})
        args = [
            str(self.binaries["kube-scheduler"]),
            f"--kubeconfig={self.admin_kubeconfig}",
            f"--authentication-kubeconfig={self.admin_kubeconfig}",
            f"--authorization-kubeconfig={self.admin_kubeconfig}",
            "--leader-elect=false",
            f"--bind-address={LOOPBACK}",
            f"--secure-port={port}",
            f"--cert-dir={self.workdir / (name + '-certs')}",
            "--v=2",
        ]
        if config_path is not None:
            args.append(f"--config={self._prepare_scheduler_config(Path(config_path), name)}")
        args.extend(extra_args)
        proc = self._register(ManagedProcess(name, args, self.log_dir / f"{name}.log"))
        proc.healthz_url = f"https://{LOOPBACK}:{port}/healthz"
        self.schedulers.append(proc)
        if wait_healthy:
            unverified = ssl._create_unverified_context()  # self-signed serving cert of the scheduler

            def healthy() -> bool:
                with urllib.request.urlopen(proc.healthz_url, timeout=2, context=unverified) as resp:
                    return resp.status == 200

            try:
                self._wait_until(proc, healthy, f"{name} /healthz")
            except ControlPlaneError:
                proc.stop(timeout=5)
                raise
        return proc

    def _prepare_scheduler_config(self, src: Path, name: str) -> Path:
        assert self.workdir is not None
        text = src.read_text()
        dst = self.workdir / f"{name}-config.yaml"
        try:
            import yaml
        except ImportError:
            dst.write_text(text)
            return dst
        cfg = yaml.safe_load(text) or {}
        client = cfg.setdefault("clientConnection", {})
        client.setdefault("kubeconfig", self.admin_kubeconfig)
        cfg.setdefault("leaderElection", {})["leaderElect"] = False
        dst.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return dst

    # -- API access ----------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, Any]:
        """Minimal JSON REST call against the apiserver (admin token by default).

        Returns (status, decoded body); HTTP errors are returned, not raised.
        """
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {token or self.admin_token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self._ssl) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        try:
            decoded: Any = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode("utf-8", "replace")
        return status, decoded

    def _ensure(self, path: str, create_path: str, obj: dict[str, Any]) -> None:
        status, body = self.request("GET", path)
        if status == 200:
            return
        status, body = self.request("POST", create_path, obj)
        if status not in (200, 201, 409):
            raise ControlPlaneError(f"creating {create_path} failed: {status} {body}")

    def create_service_account_token(
        self,
        namespace: str,
        name: str,
        *,
        expiration_seconds: int = 3600,
        audiences: Sequence[str] | None = None,
        create: bool = True,
    ) -> str:
        """A token for ServiceAccount ``namespace/name`` from the TokenRequest API.

        With ``create`` the namespace and service account are created first if
        they do not exist.
        """
        if create:
            self._ensure(
                f"/api/v1/namespaces/{namespace}",
                "/api/v1/namespaces",
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
            )
            self._ensure(
                f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}",
                f"/api/v1/namespaces/{namespace}/serviceaccounts",
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}},
            )
        spec: dict[str, Any] = {"expirationSeconds": expiration_seconds}
        if audiences:
            spec["audiences"] = list(audiences)
        status, body = self.request(
            "POST",
            f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec},
        )
        if status not in (200, 201):
            raise ControlPlaneError(f"TokenRequest for {namespace}/{name} failed: {status} {body}")
        return str(body["status"]["token"])

    def kubeconfig_for_service_account(
        self, namespace: str, name: str, *, path: str | os.PathLike[str] | None = None, **token_kwargs: Any
    ) -> str:
        """Write a kubeconfig that authenticates as ServiceAccount ``namespace/name``.

        The token comes from the TokenRequest API, so requests made with it go
        through real service-account authentication and RBAC. Returns the path.
        """
        assert self.workdir is not None
        token = self.create_service_account_token(namespace, name, **token_kwargs)
        target = Path(path) if path else self.workdir / f"sa-{namespace}-{name}.kubeconfig"
        return str(
            self.write_kubeconfig(target, token=token, user=f"system:serviceaccount:{namespace}:{name}")
        )

    def write_kubeconfig(self, path: str | os.PathLike[str], *, token: str, user: str = "user") -> Path:
        """Write a kubeconfig (JSON, which is valid YAML) for ``token``."""
        ca_data = base64.b64encode(Path(self.ca_file).read_bytes()).decode()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "kubeberth-e2e",
                    "cluster": {"server": self.server, "certificate-authority-data": ca_data},
                }
            ],
            "users": [{"name": user, "user": {"token": token}}],
            "contexts": [{"name": "kubeberth-e2e", "context": {"cluster": "kubeberth-e2e", "user": user}}],
            "current-context": "kubeberth-e2e",
        }
        target = Path(path)
        target.write_text(json.dumps(config, indent=2) + "\n")
        target.chmod(0o600)
        return target

    def kubectl(
        self,
        *args: str,
        kubeconfig: str | None = None,
        check: bool = True,
        timeout: float = 60.0,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run kubectl against this control plane (admin kubeconfig by default)."""
        return subprocess.run(
            [str(self.binaries["kubectl"]), f"--kubeconfig={kubeconfig or self.admin_kubeconfig}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
            input=input,
        )


if __name__ == "__main__":  # manual use: python tests/e2e/cluster.py
    t0 = time.monotonic()
    with LocalControlPlane() as cp:
        print(f"control plane ready in {time.monotonic() - t0:.1f}s")
        print(f"server:     {cp.server}")
        print(f"kubeconfig: {cp.admin_kubeconfig}")
        print(f"logs:       {cp.log_dir}")
        print("Ctrl-C to stop")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass

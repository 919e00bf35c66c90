"""The etcd claims store (backends/etcd_claims.py, docs/scale-out.md) against a real etcd on
loopback (Debian's etcd-server, which the e2e suite provisions): the commit as a transaction on the
key's mod revision, the shared ClaimStore's checks over it, the prefix watch (previous values,
resume after a broken stream, a new list after compaction) and the start's one-line errors.
The whole race between two `kubeberth run` replicas is tests/e2e/test_scale_out_e2e.py's."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("etcd3gw", reason="the etcd extra (kubeberth[etcd]) is not installed")

from kubeberth.backends.claims_store import DOMAIN_WINDOW_SECONDS, Claims, ClaimStore, domain_record  # noqa: E402
from kubeberth.backends.etcd_claims import EtcdClaimRecords, EtcdOptions, _b64  # noqa: E402
from kubeberth.cache.podinfo import PodInfo  # noqa: E402
from kubeberth.errors import ConfigError  # noqa: E402
from kubeberth.scheduling.ownership import ClaimFilter  # noqa: E402

ETCD = shutil.which("etcd") or "/usr/bin/etcd"
pytestmark = pytest.mark.skipif(not Path(ETCD).exists(), reason="no etcd binary (scripts/provision-k8s.sh installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Etcd:
    """One etcd member on 127.0.0.1, its data in a temporary folder; restartable on the same data."""

    def __init__(self, tls: dict[str, Path] | None = None) -> None:
        shm = Path("/dev/shm")
        self.data = Path(tempfile.mkdtemp(prefix="kubeberth-etcd-claims-", dir=shm if shm.is_dir() else None))
        self.port, self.peer = free_port(), free_port()
        self.tls = tls
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = [ETCD, f"--data-dir={self.data}/etcd", f"--listen-client-urls={self.url}", f"--advertise-client-urls={self.url}",
                f"--listen-peer-urls=http://127.0.0.1:{self.peer}", f"--initial-advertise-peer-urls=http://127.0.0.1:{self.peer}",
                f"--initial-cluster=default=http://127.0.0.1:{self.peer}", "--log-level=error"]
        if self.tls:  # clients must present a certificate the CA signed
            argv += [f"--cert-file={self.tls['server_cert']}", f"--key-file={self.tls['server_key']}",
                     "--client-cert-auth", f"--trusted-ca-file={self.tls['ca']}"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            assert self.proc.poll() is None, f"etcd exited with {self.proc.returncode}"
            if self.tls is None:
                try:
                    with urllib.request.urlopen(f"{self.url}/health", timeout=1) as resp:
                        if b"true" in resp.read():
                            return
                except OSError:
                    pass
            else:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", self.port)) == 0:
                        return
            time.sleep(0.05)
        raise AssertionError("etcd did not become healthy in 30 s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None

    def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(f"{self.url}/v3/{path}", data=orjson.dumps(body), method="POST")
        with urllib.request.urlopen(req, timeout=10) as resp:
            out: dict[str, Any] = orjson.loads(resp.read())
            return out


@pytest.fixture(scope="module")
def etcd() -> Iterator[Etcd]:
    server = Etcd()
    server.start()
    yield server
    server.stop()
    shutil.rmtree(server.data, ignore_errors=True)


@pytest.fixture
def make_records(etcd: Etcd, request: pytest.FixtureRequest) -> Iterator[Callable[..., EtcdClaimRecords]]:
    prefix = f"/test/{request.node.name}"
    made: list[EtcdClaimRecords] = []

    def make(identity: str, watch: bool = True) -> EtcdClaimRecords:
        records = EtcdClaimRecords(EtcdOptions((etcd.url,), prefix), identity, pool_size=4)
        records.connect()
        if watch:
            records.start()
        made.append(records)
        return records

    yield make
    for records in made:
        records.stop()


def pod(name: str, cpu: int = 1000) -> PodInfo:
    return PodInfo.from_dict({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": f"{cpu}m"}}}]}})


def wait(cond: Callable[[], bool], timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_commit_is_a_transaction_on_the_mod_revision(etcd: Etcd, make_records: Callable[..., EtcdClaimRecords]) -> None:
    a_records = make_records("a")
    b_records = make_records("b", watch=False)  # B's copy stays as listed: its first write is refused
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 1000, "pods": 10}  # what the cycle saw left on n1 after its own pod

    assert a.commit(pod("p1"), "n1", frozenset(), room, False, ClaimFilter())[0] == "ok"
    stored = etcd.call("kv/range", {"key": _b64(a_records.key("n1"))})["kvs"][0]
    assert int(stored["create_revision"]) == int(stored["mod_revision"])  # created by the create_revision == 0 compare
    # B placed p2 on n1 without knowing p1: its transaction fails on the mod revision, the failure
    # branch hands back the key, and p1 (1 cpu) fits beside p2 in the room B's cycle saw.
    assert b.commit(pod("p2"), "n1", frozenset(), room, False, ClaimFilter())[0] == "ok"
    assert b.stats.snapshot()["retries"] == 1 and b.stats.snapshot()["absorbed"] == 1
    # A third pod, placed by a cycle that knew p1 and saw half a cpu left: p2 does not fit beside it.
    outcome, message = a.commit(pod("p3"), "n1", frozenset({"uid-p1"}), {"cpu": 500, "pods": 10}, False, ClaimFilter())
    assert outcome == "conflict" and "cpu claimed meanwhile by b" in message, message
    wait(lambda: set(a_records.read("n1").claims) == {"uid-p1", "uid-p2"})
    # A failed bind drops its claim at once.
    b_records.read("n1")
    b.finished(pod("p2"), "n1", bound=False)
    assert set(b_records.read("n1").claims) == {"uid-p1"} and b.stats.snapshot()["releases"] == 1
    snap = b.stats.snapshot()
    assert snap["claim_writes"] == snap["commits"] + snap["releases"] == 2


def test_a_preemptors_reservation_holds_the_room_its_victims_free_until_it_commits(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """Before its victims are deleted, a preemptor's node is claimed for it (strict, no capacity
    check): another replica's commit there that did not know the claim conflicts, however much
    room it saw. The preemptor's own commit on the node keeps it; a commit elsewhere drops it."""
    a_records, b_records = make_records("a"), make_records("b")
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    assert a.reserve(pod("high"), "r1") == ("ok", "")
    assert a.reserve(pod("high"), "r1") == ("ok", "")  # again: already there, no second write
    assert a.stats.snapshot()["reservations"] == 1 and a_records.read("r1").claims["uid-high"][3] == 1
    wait(lambda: "uid-high" in b_records.read("r1").claims)
    outcome, message = b.commit(pod("other"), "r1", frozenset(), room, False, ClaimFilter())
    assert outcome == "conflict" and "constraints beyond resources" in message, message
    # The preemptor placed on its node: its claim becomes the placement's.
    assert a.commit(pod("high"), "r1", frozenset(), room, False, ClaimFilter())[0] == "ok"
    assert set(a_records.read("r1").claims) == {"uid-high"}
    # Another preemptor reserved r2 but was placed on r3: r2 is free again.
    assert a.reserve(pod("moved"), "r2")[0] == "ok"
    assert a.commit(pod("moved"), "r3", frozenset(), room, False, ClaimFilter())[0] == "ok"
    assert "uid-moved" not in a_records.read("r2").claims
    snap = a.stats.snapshot()
    assert snap["releases"] == 1
    assert snap["claim_writes"] == snap["commits"] + snap["releases"] + snap["reservations"] == 5


def test_a_preemptor_that_preempts_again_elsewhere_keeps_one_reservation(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """A preemptor whose first node did not work out preempts on another: its reservation moves
    there. Left behind, the first would refuse every other replica's commit on that node for the
    claim TTL (a strict claim they cannot count: they assume the pod on one node only), and this
    replica's own commits there for want of room; a preemption wave of 12 preemptors across 3
    replicas ended with none bound."""
    a_records, b_records = make_records("a"), make_records("b")
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    assert a.reserve(pod("high", 8000), "q1") == ("ok", "")
    assert a.reserve(pod("high", 8000), "q2") == ("ok", "")
    assert "uid-high" not in a_records.read("q1").claims and "uid-high" in a_records.read("q2").claims
    wait(lambda: "uid-high" not in b_records.read("q1").claims and "uid-high" in b_records.read("q2").claims)
    assert b.commit(pod("other"), "q1", frozenset(), room, False, ClaimFilter())[0] == "ok"
    assert a.commit(pod("mine", 8000), "q1", frozenset({"uid-other"}), {"cpu": 0, "pods": 9}, False,
                    ClaimFilter())[0] == "ok"
    snap = a.stats.snapshot()
    assert snap["reservations"] == 2 and snap["releases"] == 1


def test_a_reservation_made_after_the_preemptor_was_placed_elsewhere_is_not_left_behind(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """Async preemption: a second preemption's thread reserves its node after the preemptor's commit on its first
    node (a CI run: the reservation stayed, and another replica's preemptor conflicted on that node for the claim TTL
    and was never bound). The reservation is refused and removed, so its victims stay; once a bind fails, the pod
    may reserve again."""
    a_records, b_records = make_records("a"), make_records("b")
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    assert a.reserve(pod("high", 8000), "v1") == ("ok", "")
    assert a.commit(pod("high", 8000), "v1", frozenset(), room, False, ClaimFilter())[0] == "ok"
    outcome, message = a.reserve(pod("high", 8000), "v2")  # the late thread of a second preemption
    assert outcome == "conflict" and "placed on node v1" in message, message
    assert "uid-high" not in a_records.read("v2").claims
    wait(lambda: b_records.read("v2").version == a_records.read("v2").version)  # B has seen both writes to v2
    assert b.commit(pod("other", 8000), "v2", frozenset(), room, True, ClaimFilter())[0] == "ok"
    a.finished(pod("high", 8000), "v1", bound=False)
    assert a.reserve(pod("high", 8000), "v3") == ("ok", "")


def test_a_reservation_on_a_node_another_replica_claimed_unseen_is_refused(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """Two replicas' preemptors choosing one node at once: the second reservation finds the
    first, which its replica's view did not count, and is refused, so its victims stay; once the
    view counts it (`known`), reserving there is allowed again."""
    a_records, b_records = make_records("a"), make_records("b")
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    assert a.reserve(pod("first", 8000), "w1", frozenset(), ClaimFilter()) == ("ok", "")
    wait(lambda: "uid-first" in b_records.read("w1").claims)
    outcome, message = b.reserve(pod("second", 8000), "w1", frozenset(), ClaimFilter())
    assert outcome == "conflict" and "replica a" in message and "a reservation" in message, message
    assert "uid-second" not in b_records.read("w1").claims and b.stats.snapshot()["reservations"] == 0
    assert b.reserve(pod("second", 8000), "w1", frozenset({"uid-first"}), ClaimFilter())[0] == "ok"


def test_watch_tells_others_claims_with_previous_values(make_records: Callable[..., EtcdClaimRecords]) -> None:
    a_records, b_records = make_records("a"), make_records("b")
    heard: list[tuple[str, Claims]] = []
    lock = threading.Lock()

    def listen(node: str, claims: Claims) -> None:
        with lock:
            heard.append((node, claims))

    b_records.listeners.append(listen)
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    assert a.commit(pod("x1"), "n2", frozenset(), room, False, ClaimFilter())[0] == "ok"
    wait(lambda: any(set(c) == {"uid-x1"} for n, c in heard))
    # B's own commit on n2 changes only B's claims (prev_kv shows it): B's loop is not told.
    assert b.commit(pod("x2"), "n2", frozenset({"uid-x1"}), room, False, ClaimFilter())[0] == "ok"
    assert a.commit(pod("x3"), "n3", frozenset(), room, False, ClaimFilter())[0] == "ok"
    wait(lambda: any(n == "n3" for n, _ in heard))
    with lock:
        assert [n for n, _ in heard] == ["n2", "n3"], heard


def test_resume_after_a_break_and_a_new_list_after_compaction(etcd: Etcd, make_records: Callable[..., EtcdClaimRecords]
                                                             ) -> None:
    a_records, c_records = make_records("a"), make_records("c", watch=False)
    a = ClaimStore(a_records, "a")
    room = {"cpu": 64000, "pods": 100}
    for i in range(3):
        assert a.commit(pod(f"c{i}"), "n4", frozenset(), room, False, ClaimFilter())[0] == "ok"
    # C listed before those writes; its history is compacted away before its watch starts.
    revision = int(etcd.call("kv/range", {"key": _b64("/")})["header"]["revision"])
    etcd.call("kv/compaction", {"revision": revision, "physical": True})
    c_records.start()
    wait(lambda: len(c_records.read("n4").claims) == 3)
    assert c_records.relists == 1
    # A broken stream (etcd restarted on its data) resumes from the last revision: nothing missed.
    resumes = c_records.resumes
    etcd.stop()
    etcd.start()
    wait(lambda: c_records.resumes > resumes, 15)
    assert a.commit(pod("c9"), "n4", frozenset({f"uid-c{i}" for i in range(3)}), room, False, ClaimFilter())[0] == "ok"
    wait(lambda: len(c_records.read("n4").claims) == 4, 15)
    assert c_records.relists == 1
    started = time.monotonic()
    c_records.stop()
    assert time.monotonic() - started < 2  # stop unblocks the watch's read


def test_unreachable_etcd_and_missing_flags_are_one_line_errors() -> None:
    from kubeberth.backends.etcd_claims import parse_endpoints

    records = EtcdClaimRecords(EtcdOptions((f"http://127.0.0.1:{free_port()}",), "/x"), "a")
    with pytest.raises(ConfigError, match=r"--scale-out-etcd-endpoints: no etcd answered \(http://127.0.0.1:\d+: "):
        records.connect()
    with pytest.raises(ConfigError, match="needs --scale-out-etcd-endpoints"):
        parse_endpoints("")
    with pytest.raises(ConfigError, match="expected http"):
        parse_endpoints("127.0.0.1:2379")


def write_tls(folder: Path) -> dict[str, Path]:
    """A CA, etcd's serving certificate for 127.0.0.1 and a client certificate, signed by it."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.UTC)

    def issue(cn: str, key: Any, issuer: Any, signer: Any, ca: bool = False, san: bool = False) -> Any:
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
        builder = (x509.CertificateBuilder().subject_name(name).issuer_name(issuer or name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
                   .not_valid_after(now + dt.timedelta(hours=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            builder = builder.add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        if san:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        return builder.sign(signer, hashes.SHA256())

    pem = serialization.Encoding.PEM
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = issue("test-ca", ca_key, None, ca_key, ca=True)
    files = {"ca": folder / "ca.crt"}
    files["ca"].write_bytes(ca.public_bytes(pem))
    for who, san in (("server", True), ("client", False)):
        key = ec.generate_private_key(ec.SECP256R1())
        files[f"{who}_cert"], files[f"{who}_key"] = folder / f"{who}.crt", folder / f"{who}.key"
        files[f"{who}_cert"].write_bytes(issue(who, key, ca.subject, ca_key, san=san).public_bytes(pem))
        files[f"{who}_key"].write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    return files


def test_tls_with_a_client_certificate(tmp_path: Path) -> None:
    """--scale-out-etcd-cafile/-certfile/-keyfile against an etcd that requires client certificates."""
    tls = write_tls(tmp_path)
    server = Etcd(tls)
    server.start()
    records = None
    try:
        options = EtcdOptions((server.url,), "/tls", cafile=tls["ca"], certfile=tls["client_cert"],
                              keyfile=tls["client_key"])
        records = EtcdClaimRecords(options, "a")
        records.connect()
        records.start()
        store = ClaimStore(records, "a")
        assert store.commit(pod("t1"), "n1", frozenset(), {"cpu": 1000, "pods": 1}, False, ClaimFilter())[0] == "ok"
        wait(lambda: records is not None and records.read("n1").version is not None)
        # The CA alone (no client certificate) is refused by etcd: one line at the start.
        bare = EtcdClaimRecords(EtcdOptions((server.url,), "/tls", cafile=tls["ca"]), "b")
        with pytest.raises(ConfigError, match="no etcd answered"):
            bare.connect()
    finally:
        if records is not None:
            records.stop()
        server.stop()
        shutil.rmtree(server.data, ignore_errors=True)


def test_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubeberth.api.extras import MissingExtraError

    monkeypatch.setitem(sys.modules, "etcd3gw.client", None)  # as if kubeberth[etcd] were not installed
    with pytest.raises(MissingExtraError, match=r"^--scale-out-store=etcd needs the 'etcd' extra: pip install "
                       r"'kubeberth\[etcd\]'$"):
        EtcdClaimRecords(EtcdOptions(("http://127.0.0.1:2379",), "/x"), "a")


def test_flags_of_the_etcd_store_are_checked_at_start(tmp_path: Path) -> None:
    from kubeberth.apps.scale_out_run import etcd_records
    from kubeberth.runtime.config import Settings

    def settings(**kw: Any) -> Settings:
        return Settings(replicas_mode="active-active", scale_out_store="etcd", **kw)

    cert = tmp_path / "client.crt"
    cert.write_text("x")
    with pytest.raises(ConfigError, match=r"--scale-out-etcd-cafile=.*missing.crt: no such file"):
        etcd_records(settings(scale_out_etcd_endpoints="http://127.0.0.1:1", scale_out_etcd_cafile=tmp_path / "missing.crt"),
                     "g", "a", 4)
    with pytest.raises(ConfigError, match="give both"):
        etcd_records(settings(scale_out_etcd_endpoints="http://127.0.0.1:1", scale_out_etcd_certfile=cert), "g", "a", 4)
    with pytest.raises(ConfigError, match="absolute key prefix"):
        etcd_records(settings(scale_out_etcd_endpoints="http://127.0.0.1:1", scale_out_etcd_prefix="x"), "g", "a", 4)


def test_a_constrained_pod_claimed_meanwhile_elsewhere_in_the_domain_is_a_conflict(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """A pod whose constraints span nodes (zone spread, zone anti-affinity) commits against the other nodes of its
    topology domain too: another replica's constrained pod claimed on one of them since the cycle looked is a
    conflict; one the cycle knew, or a plain pod, is not."""
    a_records, b_records = make_records("a"), make_records("b")
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    assert b.commit(pod("spread-b"), "n1", frozenset(), room, True, ClaimFilter())[0] == "ok"
    assert b.commit(pod("plain-b"), "n3", frozenset(), room, False, ClaimFilter())[0] == "ok"
    wait(lambda: set(a_records.read("n1").claims) == {"uid-spread-b"} and bool(a_records.read("n3").claims))
    outcome, message = a.commit(pod("spread-a"), "n2", frozenset(), room, True, ClaimFilter(), {"n1": frozenset()})
    assert outcome == "conflict" and "node n1 of the pod's topology domain" in message and "replica b" in message
    assert "uid-spread-a" not in a_records.read("n2").claims
    assert a.commit(pod("spread-a"), "n2", frozenset(), room, True, ClaimFilter(),
                    {"n1": frozenset({"uid-spread-b"}), "n3": frozenset()})[0] == "ok"
    assert a.stats.snapshot()["conflicts"] == 1


def test_constrained_pods_entering_one_domain_take_turns_whatever_the_watch_shows(
        make_records: Callable[..., EtcdClaimRecords]) -> None:
    """The domain record (docs/scale-out.md): a pod whose constraints span nodes enters its zone's record under the
    record's revision before its node's claims. A replica whose watch has not delivered the other's claim (here: no
    watch at all) is refused by the record itself; an entry the cycle knew, or one older than the window, is not a
    conflict; a placement refused on its node leaves no entry behind; the loop never hears of the record."""
    told: list[str] = []
    b_records = make_records("b")
    b_records.listeners.append(lambda node, claims: told.append(node))
    a_records = make_records("a", watch=False)  # A's copy stays as listed: it never sees B's claims by watch
    a, b = ClaimStore(a_records, "a"), ClaimStore(b_records, "b")
    room = {"cpu": 8000, "pods": 10}
    zone = domain_record("topology.kubernetes.io/zone", "z1")
    assert b.commit(pod("spread-b"), "n1", frozenset(), room, True, ClaimFilter(), {"n2": frozenset()},
                    {zone: frozenset()})[0] == "ok"
    assert set(b_records.read(zone).claims) == {"uid-spread-b"}
    assert not a_records.read("n1").claims  # the gap: A's copy of n1 lacks B's claim
    outcome, message = a.commit(pod("spread-a"), "n2", frozenset(), room, True, ClaimFilter(), {"n1": frozenset()},
                                {zone: frozenset()})
    assert outcome == "conflict" and "topology.kubernetes.io/zone=z1" in message and "replica b" in message
    assert set(a_records.read(zone).claims) == {"uid-spread-b"}  # the refused write read the record back
    assert "uid-spread-a" not in a_records.read("n2").claims
    # The cycle that knew spread-b (its claim counted in the view) enters after it.
    assert a.commit(pod("spread-a"), "n2", frozenset(), room, True, ClaimFilter(), {"n1": frozenset({"uid-spread-b"})},
                    {zone: frozenset({"uid-spread-b"})})[0] == "ok"
    assert set(a_records.read(zone).claims) == {"uid-spread-b", "uid-spread-a"}
    # Past the window an entry no longer counts (the node claims, kept longer, have reached every watch).
    later = ClaimStore(a_records, "a", clock=lambda: time.time() + DOMAIN_WINDOW_SECONDS + 1)
    assert later.commit(pod("late"), "n3", frozenset(), room, True, ClaimFilter(), None, {zone: frozenset()})[0] == "ok"
    # Refused on its node (B's strict claim there, unknown to the cycle): its domain entry is dropped again.
    outcome, _ = a.commit(pod("blocked"), "n1", frozenset(), room, True, ClaimFilter(), None,
                          {zone: frozenset({"uid-spread-b"})})
    assert outcome == "conflict" and "uid-blocked" not in a_records.read(zone).claims
    wait(lambda: b_records.read(zone).claims == a_records.read(zone).claims)  # B's watch has had every write
    assert told and not [n for n in told if n.startswith("domain:")]

"""The secure port's serving certificate: the given one, or a self-signed one made at start.

Mirrors SecureServingOptions.MaybeDefaultWithSelfSignedCerts as kube-scheduler calls it (pair
name kube-scheduler, hosts localhost and 127.0.0.1, in memory unless --cert-dir is set):
without --tls-cert-file, a CA and a serving certificate it signs (one year) are generated; with
--cert-dir they are kept there as kubeberth.crt (certificate + CA) and kubeberth.key and reused
on the next start. Python's ssl module loads a certificate only from a file, so the in-memory
case goes through a private 0700 temporary folder that is removed once loaded.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import shutil
import socket
import ssl
import tempfile
from pathlib import Path
from typing import Any

from ...errors import KubeberthError

PAIR_NAME = "kubeberth"
HOSTS = ("localhost", "127.0.0.1", "::1")
VALIDITY = dt.timedelta(days=365)


def server_context(cert_file: str | None, key_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """A TLS server context (TLS 1.2 or later, as kube-scheduler's default minimum)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if cert_file:
        _load(context, cert_file, key_file or cert_file, "--tls-cert-file/--tls-private-key-file")
    elif cert_dir:
        folder = Path(cert_dir)
        crt, key = folder / f"{PAIR_NAME}.crt", folder / f"{PAIR_NAME}.key"
        if not (crt.is_file() and key.is_file()):
            try:
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                write_self_signed(crt, key)
            except OSError as exc:
                raise KubeberthError(f"--cert-dir {cert_dir}: cannot write the serving certificate: {exc}") from None
        _load(context, str(crt), str(key), "--cert-dir")
    else:
        folder = Path(tempfile.mkdtemp(prefix="kubeberth-serving-"))  # 0700
        try:
            crt, key = folder / f"{PAIR_NAME}.crt", folder / f"{PAIR_NAME}.key"
            write_self_signed(crt, key)
            _load(context, str(crt), str(key), "self-signed certificate")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return context


def _load(context: ssl.SSLContext, cert: str, key: str, flag: str) -> None:
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise KubeberthError(f"{flag}: cannot load {cert} with {key}: {exc}") from None


def write_self_signed(cert_path: Path, key_path: Path, hosts: tuple[str, ...] = HOSTS) -> None:
    """A CA and a serving certificate for `hosts` signed by it (certutil.GenerateSelfSignedCertKey):
    `cert_path` holds the certificate then the CA, `key_path` the serving key (mode 0600)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = dt.datetime.now(dt.UTC)
    stamp = int(now.timestamp())
    host = socket.gethostname() or "localhost"
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{host}-ca@{stamp}")])
    ca = (
        _builder(ca_name, ca_name, ca_key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for h in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{host}@{stamp}")])
    cert = (
        _builder(subject, ca_name, key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_pem)
    cert_path.write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))


def _builder(subject: Any, issuer: Any, public_key: Any, now: dt.datetime) -> Any:
    from cryptography import x509

    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
    )


def _usage(cert_sign: bool) -> Any:
    from cryptography import x509

    return x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
        key_agreement=False, key_cert_sign=cert_sign, crl_sign=False, encipher_only=False, decipher_only=False,
    )

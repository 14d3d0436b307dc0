"""A throw-away certificate authority, made with `cryptography`: for the TLS broker tests, and
the https model host of the tests and the demo's first start."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class ThrowawayPki:
    ca_cert: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    @classmethod
    def create(cls, folder: Path) -> ThrowawayPki:
        now = datetime.now(UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "BotPsy test CA")])
        ca = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=1))
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
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
            )
            .sign(ca_key, hashes.SHA256())
        )

        def leaf(name: str, usage: x509.ObjectIdentifier) -> tuple[bytes, bytes]:
            key = ec.generate_private_key(ec.SECP256R1())
            builder = (
                x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
                .issuer_name(ca_name)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - timedelta(minutes=5))
                .not_valid_after(now + timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                .add_extension(
                    x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                    critical=False,
                )
            )
            if usage == ExtendedKeyUsageOID.SERVER_AUTH:
                builder = builder.add_extension(
                    x509.SubjectAlternativeName(
                        [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName(name)]
                    ),
                    critical=False,
                )
            cert = builder.sign(ca_key, hashes.SHA256())
            key_pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            return cert.public_bytes(serialization.Encoding.PEM), key_pem

        server_pem, server_key_pem = leaf("localhost", ExtendedKeyUsageOID.SERVER_AUTH)
        client_pem, client_key_pem = leaf("botpsy-agent", ExtendedKeyUsageOID.CLIENT_AUTH)
        files = {
            "ca.pem": ca.public_bytes(serialization.Encoding.PEM),
            "server.pem": server_pem,
            "server.key": server_key_pem,
            "client.pem": client_pem,
            "client.key": client_key_pem,
        }
        for name, data in files.items():
            (folder / name).write_bytes(data)
        return cls(
            folder / "ca.pem",
            folder / "server.pem",
            folder / "server.key",
            folder / "client.pem",
            folder / "client.key",
        )

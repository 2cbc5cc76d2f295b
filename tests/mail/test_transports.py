"""The transports for real: SMTP with STARTTLS and a log-in, SMTPS, a certificate nobody vouches for, and
development's folder of .eml files."""

import datetime
import email
import ipaddress
import logging
import ssl
from email import policy

import pytest
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from clinicrecords.mail.settings import parse_smtp_url
from clinicrecords.mail.transports import Outgoing, SendFailed, SmtpTransport
from tests.common.mail import SmtpServer
from tests.mail.support import rows, send


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1: (certificate file, key file)."""
    folder = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def _server_context(certificate):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*map(str, certificate))
    return context


def _outgoing(to="ann@example.org"):
    content = (f"From: no-reply@clinicrecords.test\r\nTo: {to}\r\nSubject: TLS\r\n\r\nover TLS\r\n").encode()
    return Outgoing("id", "no-reply@clinicrecords.test", to, "TLS", content)


def _transport(url):
    return SmtpTransport(parse_smtp_url(url), timeout_seconds=2)


def test_starttls_then_the_log_in_with_the_urls_user_and_password(certificate, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))  # the system's trust store, plus this certificate
    logins = []

    def authenticate(server, session, envelope, mechanism, auth_data):
        logins.append((mechanism, auth_data.login, auth_data.password, session.ssl is not None))
        return AuthResult(success=auth_data.password == b"p@ss:word/1")

    options = dict(tls_context=_server_context(certificate), require_starttls=True, authenticator=authenticate,
                   auth_require_tls=True)
    with SmtpServer(**options) as server:
        _transport(f"smtp://relay%40clinic:p%40ss%3Aword%2F1@127.0.0.1:{server.port}?starttls=true").send(_outgoing())
        [message] = server.inbox.wait_for(1)
        with pytest.raises(SendFailed) as wrong:
            _transport(f"smtp://relay%40clinic:wrong@127.0.0.1:{server.port}?starttls=true").send(_outgoing())
    assert message.to == ["ann@example.org"] and message.text.strip() == "over TLS"
    assert [login[1:] for login in logins] == [(b"relay@clinic", b"p@ss:word/1", True),
                                               (b"relay@clinic", b"wrong", True)]
    assert len(server.inbox.messages()) == 1 and not wrong.value.permanent, "a log-in refused is retried later"


def test_smtps_is_tls_from_the_first_byte(certificate, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    with SmtpServer(ssl_context=_server_context(certificate)) as server:
        assert server.url.startswith("smtps://")
        _transport(server.url).send(_outgoing())
        assert server.inbox.wait_for(1)[0].text.strip() == "over TLS"


def test_a_certificate_nobody_vouches_for_is_refused_and_retried_later(certificate):
    with SmtpServer(ssl_context=_server_context(certificate)) as server:
        with pytest.raises(SendFailed) as failed:
            _transport(server.url).send(_outgoing())
        assert server.inbox.messages() == []
    assert failed.value.error == "SSLCertVerificationError" and not failed.value.permanent


def test_a_server_that_does_not_offer_starttls_gets_nothing(app):
    with SmtpServer() as server:
        with pytest.raises(SendFailed) as failed:
            _transport(f"smtp://user:secret@127.0.0.1:{server.port}?starttls=true").send(_outgoing())
        assert server.inbox.messages() == []
    assert failed.value.error == "SMTPNotSupportedError"


def test_development_writes_each_message_to_a_file_and_logs_its_path(app, engine, make_app, monkeypatch,
                                                                                   tmp_path, caplog, mail):
    monkeypatch.delenv("CLINICRECORDS_SMTP_URL")
    folder = tmp_path / "mail"
    registry = make_app(**{"mail.smtp_url": "", "mail.directory": str(folder)}).registry
    with caplog.at_level(logging.INFO, logger="clinicrecords.mail.outbox"):
        first = send(registry, to="one@example.org")
        second = send(registry, to="two@example.org")
    files = sorted(folder.iterdir())
    assert [path.name for path in files] == sorted(f"{queued.id}.eml" for queued in (first, second))
    parsed = {path.name: email.message_from_bytes(path.read_bytes(), policy=policy.default) for path in files}
    assert parsed[f"{first.id}.eml"]["To"] == "one@example.org"
    assert parsed[f"{second.id}.eml"]["Message-ID"] == second.message_id
    assert parsed[f"{first.id}.eml"].get_body(("plain",)).get_content().startswith("This is a test message")
    logged = [record.getMessage() for record in caplog.records if record.name == "clinicrecords.mail.outbox"]
    assert logged == [f"mail {queued.id} (test) written to {folder / f'{queued.id}.eml'}"
                      for queued in (first, second)]
    assert [row.status for row in rows(engine)] == ["sent", "sent"] and mail.messages() == []

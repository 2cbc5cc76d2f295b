"""Webhook failures in words (decision 0039): a host that does not resolve, a refused connection, a receiver
that does not speak TLS, a self-signed certificate, a redirect and a 5xx each read as a sentence on the webhook
pages (the form's message, a test event's answer, the deliveries log), never as `[Errno -2] Name or service not
known` or an exception's name. Real servers on 127.0.0.1 play each receiver."""

import datetime
import ipaddress
import re
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.common.ports import free_port
from tests.events.support import Receiver
from tests.portal.helpers import error_summary, with_workspace
from tests.portal.test_webhooks import add_endpoint, endpoint_of, press

# What the words replaced: errno numbers, exception names, OpenSSL's reason codes.
TECHNICAL = re.compile(r"Errno|Error\b|Exception|\[SSL|CERTIFICATE_VERIFY|WRONG_VERSION|HTTP \d{3}")


def _self_signed(folder):
    """A certificate and key for 127.0.0.1 that no authority signed (files in `folder`)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "receiver.pem", folder / "receiver.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _words_shown(client, workspace_id, url):
    """Add an endpoint for `url`, send a test event; (the answer's words, the deliveries log's words)."""
    endpoint_id = endpoint_of(add_endpoint(client, workspace_id, url))
    page = press(client, f"/portal/workspaces/{workspace_id}/webhooks/{endpoint_id}", "send-test")
    assert "Test event not delivered" in page.html.find("h1").get_text()
    assert not TECHNICAL.search(page.html.find(id="main").get_text())
    logged = page.html.find("tr", class_="attempt").find(class_="attempt-error").get_text(strip=True)
    return page.html.find(id="test-error").get_text(strip=True), logged


def test_a_host_that_does_not_resolve_is_refused_in_words(app):
    client, workspace_id = with_workspace(app)
    refused = add_endpoint(client, workspace_id, "https://nothing-here.invalid/hooks", status=400)
    [message] = error_summary(refused)
    assert message in ("No server named nothing-here.invalid was found: check the spelling, or that its DNS "
                       "record is published.",
                       "The name servers did not answer for nothing-here.invalid just now; try again later.")
    assert refused.html.find(id="url-error").get_text(strip=True).endswith(message)
    assert "Errno" not in refused.text and "Name or service not known" not in refused.text


def test_a_refused_connection_and_a_receiver_without_tls_in_words(app):
    client, workspace_id = with_workspace(app)
    port = free_port()
    answer, logged = _words_shown(client, workspace_id, f"http://127.0.0.1:{port}/hooks")
    assert answer == logged == f"127.0.0.1 refused the connection: nothing accepts connections on port {port}."

    with Receiver(default=200) as plain:
        port = plain.server.server_address[1]
        answer, logged = _words_shown(client, workspace_id, f"https://127.0.0.1:{port}/hooks")
    assert answer == logged == (f"The secure connection (TLS) to 127.0.0.1:{port} failed: the receiver may not "
                                "speak https on this port.")


def test_a_self_signed_certificate_in_words(app, tmp_path):
    cert_path, key_path = _self_signed(tmp_path)
    with Receiver(default=200) as receiver:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)
        receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
        client, workspace_id = with_workspace(app)
        port = receiver.server.server_address[1]
        answer, logged = _words_shown(client, workspace_id, f"https://127.0.0.1:{port}/hooks")
    assert answer == logged == "The receiver's TLS certificate is not trusted: it is self-signed."


@pytest.mark.parametrize("status, words", [
    (302, "The receiver answered 302 Found, a redirect: redirects are not followed, so give the address it "
          "redirects to."),
    (503, "The receiver answered 503 Service Unavailable: only a 2xx answer counts as delivered."),
])
def test_an_answer_other_than_2xx_in_words(app, status, words):
    client, workspace_id = with_workspace(app)
    with Receiver(default=status) as receiver:
        assert _words_shown(client, workspace_id, receiver.url) == (words, words)

"""What is never mailed: refused before anything is written (no outbox row, nothing sent), with a message that
names the rule and never repeats the value. What the caller got wrong (an address, a template, a record or a
value named as a secret) raises MailRefused; a message refused as rendered (a key's shape, a secret, a link off
the portal: often from a name someone typed) is withheld, the answer saying why, so the change that would have
sent it completes (tests/portal/test_names_with_links.py)."""

import pytest

from clinicrecords.mail.interfaces import MailRefused
from tests.common.cli import refused
from tests.mail.support import link, row_count, send

API_KEY = "ehr_live_3f9a8c2d_" + "s" * 40
WEBHOOK_SECRET = "whsec_" + "A" * 43


def _refused(registry, engine, mail, **kwargs):
    with pytest.raises(MailRefused) as raised:
        send(registry, **kwargs)
    assert row_count(engine) == 0 and mail.messages() == []
    return str(raised.value)


def _withheld(registry, engine, mail, **kwargs):
    queued = send(registry, **kwargs)
    assert queued.withheld is not None and queued.id is None and queued.message_id is None
    assert row_count(engine) == 0 and mail.messages() == []
    return queued.withheld


@pytest.mark.parametrize("value", [API_KEY, API_KEY.replace("live", "test"), WEBHOOK_SECRET,
                                   f"your key is {API_KEY.upper()}"],
                         ids=["live-key", "test-key", "webhook-secret", "inside-text"])
def test_a_value_shaped_like_a_key_or_a_signing_secret_is_refused(app, registry, engine, mail, probe, value):
    message = _withheld(registry, engine, mail, template=probe, title="Your key", line=value)
    assert "shaped like an API key or a webhook signing secret" in message and value not in message


def test_one_of_the_services_own_secrets_is_refused(app, registry, engine, mail, probe, settings):
    for secret in (settings["secrets.cursor"], settings["secrets.webhook_keys"].partition(":")[2]):
        message = _withheld(registry, engine, mail, template=probe, title="Hello", line=f"see {secret}")
        assert message == "the message contains one of the service's secrets"


@pytest.mark.parametrize("name", ["password", "new_password", "secret", "signing_secret", "api_key", "apikey"])
def test_a_value_named_as_a_password_or_secret_is_refused(app, registry, engine, mail, probe, name):
    message = _refused(registry, engine, mail, template=probe, title="Hello", line="x", **{name: "hunter2"})
    assert "never carries a password or a secret" in message


def test_a_record_is_refused_only_text_and_numbers_are_mailed(app, registry, engine, mail, probe):
    for record in ({"given_name": "Ada", "birth_date": "1980-01-01"}, object(), [{"nested": 1}]):
        message = _refused(registry, engine, mail, template=probe, title="Hello", line=record)
        assert "only text and numbers" in message


def test_a_link_to_anywhere_but_the_portal_is_refused(app, registry, engine, mail, probe):
    for foreign in ("https://evil.example/portal/invitations?token=x", "http://localhost:6543/portalx/reset",
                    "http://localhost:6543/v1/me"):
        message = _withheld(registry, engine, mail, template=probe, title="Hello", line="Open", link=foreign)
        assert message.startswith("a link in the message does not start with the portal's address")
    send(registry, template=probe, title="Hello", line="Open", link=link(registry, "/reset", token="t"))
    assert mail.wait_for(1)[0].link("/reset") == "http://localhost:6543/portal/reset?token=t"


@pytest.mark.parametrize("address", [
    "", "   ", "not-an-address", "two@example.org, three@example.org", "Ann <ann@example.org>",
    "ann@example.org\r\nBcc: eve@example.org", "ann@example.org\nSubject: hi", "ann@localhost", "ann@@example.org",
    "ann@example.org>", "ünïcode@example.org", "a" * 250 + "@example.org", "ann(x)@example.org",
    "ann@example.org (Ann)", "a" * 65 + "@example.org",
], ids=["empty", "blank", "no-at", "list", "display-name", "crlf-bcc", "lf-subject", "no-dot", "double-at",
        "trailing-angle", "non-ascii-local", "too-long", "comment", "trailing-comment", "local-part-too-long"])
def test_a_recipient_that_is_not_one_plain_address_is_refused(app, registry, engine, mail, address):
    message = _refused(registry, engine, mail, to=address)
    assert message.startswith("the recipient must be one email address")


def test_an_international_domain_is_sent_in_its_ascii_form(app, registry, mail):
    queued = send(registry, to="ann@bücher.example")
    assert queued.to == "ann@xn--bcher-kva.example"
    assert mail.wait_for(1)[0].to == ["ann@xn--bcher-kva.example"]


def test_a_subject_is_one_line_whatever_its_values_hold(app, registry, mail, probe):
    send(registry, template=probe, title="Welcome\r\nBcc: eve@example.org\n\nbody", line="x")
    [message] = mail.wait_for(1)
    assert message.subject == "Welcome Bcc: eve@example.org body"
    assert message.message["Bcc"] is None and message.to == ["someone@example.org"]


def test_every_message_names_what_it_is_about_and_the_template_must_exist(app, registry, engine, mail, probe):
    assert "names the workspace or clinic" in _refused(registry, engine, mail, regarding="  ")
    assert _refused(registry, engine, mail, template="no-such") == "no mail template 'no-such'"


def test_the_operator_command_refuses_a_bad_address_and_writes_nothing(app, engine, mail):
    error = refused("mail", "test", "--to", "ops@example.org, eve@example.org")
    assert error.startswith("clinicrecords-admin: error: the recipient must be one email address")
    assert row_count(engine) == 0 and mail.messages() == []

"""Mail through the outbox to a real SMTP server on loopback: what arrives, to whom, from whom; nothing while
the transaction is open and nothing when it rolls back; the content erased once sent."""

import email.utils
import re
import uuid

import pytest

from clinicrecords.mail.interfaces import IMail
from clinicrecords.mail.models import OutgoingMail
from clinicrecords.mail.services import MailService
from clinicrecords.mail.tasks import queue_sends
from clinicrecords.tasks import prepared_request
from tests.common.cli import ok
from tests.mail.support import link, row_count, rows, send


def test_the_operators_test_message_arrives_with_a_text_and_an_html_part(app, engine, mail):
    printed = ok("mail", "test", "--to", "Ops@Example.org")
    assert printed["to"] == "Ops@example.org" and printed["queued"] is True
    [message] = mail.wait_for(1)
    assert message.mail_from == "no-reply@clinicrecords.test"
    assert message.to == ["Ops@example.org"]
    headers = message.message
    assert headers["From"] == "Clinic Records <no-reply@clinicrecords.test>"
    assert headers["To"] == "Ops@example.org"
    assert headers["Message-ID"] == printed["message_id"]
    assert re.fullmatch(r"<[^<>@\s]+@clinicrecords\.test>", printed["message_id"])
    assert email.utils.parsedate_to_datetime(headers["Date"]).tzinfo is not None
    assert headers["Auto-Submitted"] == "auto-generated"
    assert message.subject == "Test message from Clinic Records"
    assert headers.get_content_type() == "multipart/alternative"
    assert "mail from Clinic Records reaches Ops@example.org" in message.text
    assert "mail from Clinic Records reaches Ops@example.org" in message.html
    assert "This message is about a test of this service's mail." in message.text
    [row] = rows(engine)
    assert (row.status, row.attempts, row.message_id, row.content) == ("sent", 1, printed["message_id"], None)


def test_links_use_the_portals_public_address_and_name_the_workspace(app, engine, mail, probe, make_app):
    registry = make_app(**{"portal.url": "https://developers.example.org"}).registry
    invitation = link(registry, "/invitations", token="once-only token")
    assert invitation == "https://developers.example.org/invitations?token=once-only+token"
    send(registry, probe, regarding="the workspace Acme\r\nBcc: x@evil.example", title="You are invited",
         line="Open the link to join.", link=invitation)
    [message] = mail.wait_for(1)
    assert message.link("/invitations") == invitation
    assert message.links() == [invitation, "https://developers.example.org"]
    assert 'href="https://developers.example.org/invitations?token=once-only+token"' in message.html
    assert "This message is about the workspace Acme Bcc: x@evil.example." in message.text
    assert message.message["Bcc"] is None and message.to == ["someone@example.org"]


# Commits for real: another connection must not see the row while the transaction is open, and the suite's
# rolled-back transaction shares one connection. Nothing it writes outlives it (both transactions roll back).
@pytest.mark.commits
def test_nothing_leaves_before_the_commit_and_nothing_when_the_transaction_rolls_back(app, registry, engine, mail):
    with prepared_request(registry) as request:
        with pytest.raises(RuntimeError):
            with request.tm:
                request.find_service(IMail).send("test", "first@example.org", regarding="the clinic Northside")
                assert row_count(engine) == 0, "the row is the transaction's own until it commits"
                assert mail.messages() == []
                raise RuntimeError("the request failed after queueing its mail")
    assert row_count(engine) == 0 and mail.messages() == []

    with prepared_request(registry) as request:
        request.tm.begin()
        request.find_service(IMail).send("test", "second@example.org", regarding="the clinic Northside")
        request.db.flush()
        assert mail.messages() == []
        request.tm.abort()
    assert row_count(engine) == 0 and mail.messages() == []


def test_each_message_goes_to_its_own_recipient_only(app, registry, mail):
    with prepared_request(registry) as request:
        with request.tm:
            for to in ("a@example.org", "b@example.org"):
                request.find_service(IMail).send("test", to, regarding="the workspace Acme")
    received = mail.wait_for(2)
    assert sorted(message.to[0] for message in received) == ["a@example.org", "b@example.org"]
    assert all(len(message.to) == 1 and message.message["To"] == message.to[0] for message in received)
    assert len({message.message["Message-ID"] for message in received}) == 2


def test_the_service_writes_in_the_session_it_is_given_and_leaves_sending_to_the_commit(registry, engine, mail):
    """Built without a request: a session, the settings and the after-commit queueing its factory passes."""
    asked = []
    with registry["db.session_factory"].begin() as db:
        service = MailService(db, registry["mail.settings"], lambda function, *args: asked.append((function, args)))
        queued = service.send("test", "unit@example.org", regarding="the clinic Northside")
        row = db.get(OutgoingMail, uuid.UUID(queued.id))
        assert (row.status, row.recipient, row.template, row.attempts) == ("pending", "unit@example.org", "test", 0)
        assert row.content.startswith(b"From: Clinic Records <no-reply@clinicrecords.test>\r\n")
    assert asked == [(queue_sends, ([row.id],))]
    assert mail.messages() == [], "the service queues nothing itself: its factory's enqueue does, after the commit"

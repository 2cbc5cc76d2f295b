"""Decision 0095: a workspace's owners are mailed when its business profile's review ends (approved or
refused) and when its verified domain lapses; developers, other workspaces' owners and owners who turned the
notification off are not. Nothing is mailed when the transaction that ended the review rolls back."""

import datetime
import uuid

import pytest
from sqlalchemy import select

from clinicrecords.mail.models import OutgoingMail
from clinicrecords.onboarding.interfaces import IBusinessProfile
from tests.common.cli import ok
from tests.notifications.helpers import joined, only_message, recipients, settings_link_in, turn_off
from tests.onboarding.dns_server import authoritative_server
from tests.onboarding.helpers import domain_service, unique_domain
from tests.portal.helpers import with_workspace

REVIEWED = "notifications/profile_reviewed"
MIN, DAY = datetime.timedelta(minutes=1), datetime.timedelta(days=1)
SUBMIT = ("--legal-name", "Acme Health Ltd", "--website", "https://acme.example", "--country", "GB",
          "--contact-email", "dev@acme.example", "--intended-use", "Appointment reminders for our clinics.")


def _email(client):
    return client.get("/portal/account/email").html.find(id="email-status").strong.get_text()


def _team(app, name):
    """(workspace id, the owners' emails who want notices, the emails who must get none, an owner's browser)."""
    owner, workspace_id = with_workspace(app, name=name)
    _, second = joined(app, owner, workspace_id, "owner")
    quiet_owner, quiet = joined(app, owner, workspace_id, "owner")
    _, developer = joined(app, owner, workspace_id, "developer")
    return workspace_id, sorted([_email(owner), second]), {quiet, developer}, quiet_owner


def _submitted(world, workspace_id):
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    ok("workspace", "profile", "submit", "--workspace", workspace_id, *SUBMIT)


def test_owners_learn_the_review_ended_approved_or_refused(app, world, mail):
    workspace_id, owners, silent, quiet_owner = _team(app, "Acme Health")
    turn_off(quiet_owner, "profile_reviewed")
    stranger, other_id = with_workspace(app, name="Other Org")
    _submitted(world, workspace_id)
    _submitted(world, other_id)
    mail.clear()

    ok("workspace", "profile", "review", "--workspace", workspace_id, "--reject", "--reason",
       "The website does not name the company.")
    mail.wait_for(2)
    refused = "The business profile of Acme Health was not approved"
    assert recipients(mail, refused) == owners
    assert not (silent | {_email(stranger)}) & set(recipients(mail))
    message = only_message(mail, owners[0], refused)
    assert "The profile page says why" in message.text
    assert "does not name the company" not in message.text, "the reason is on the page, not in the email"
    assert message.link(f"/workspaces/{workspace_id}/profile")
    assert "This message is about the workspace Acme Health" in message.text
    settings_link_in(message)

    ok("workspace", "profile", "submit", "--workspace", workspace_id, *SUBMIT)
    mail.clear()
    ok("workspace", "profile", "review", "--workspace", workspace_id, "--approve")
    mail.wait_for(2)
    assert recipients(mail, "The business profile of Acme Health was approved") == owners
    assert len(mail.messages()) == 2


def test_nothing_is_mailed_when_the_review_s_transaction_rolls_back(app, world, engine, mail):
    workspace_id, owners, _, _ = _team(app, "Rolled Back Org")
    _submitted(world, workspace_id)
    mail.clear()
    with pytest.raises(RuntimeError):
        with world.request() as request:
            request.find_service(IBusinessProfile).review(uuid.UUID(workspace_id), approve=True)
            with engine.connect() as connection:  # (the test's connection: it sees the uncommitted rows)
                written = connection.scalars(select(OutgoingMail.recipient).where(
                    OutgoingMail.recipient.in_(owners), OutgoingMail.template == REVIEWED)).all()
            assert sorted(written) == owners, "the messages were written in the review's transaction"
            raise RuntimeError("the operator's command failed after the review")
    with engine.connect() as connection:
        assert connection.scalars(select(OutgoingMail.id).where(
            OutgoingMail.recipient.in_(owners), OutgoingMail.template == REVIEWED)).all() == []
    assert mail.messages() == []
    assert ok("workspace", "profile", "show", "--workspace", workspace_id)["status"] == "submitted"


@pytest.fixture
def dns():
    with authoritative_server() as (zone, address):
        zone.address = address
        yield zone


def test_owners_are_mailed_once_when_the_verified_domain_lapses(app, world, mail, dns):
    workspace_id, owners, silent, quiet_owner = _team(app, "Lapsing Org")
    turn_off(quiet_owner, "domain_lapsed")
    workspace = uuid.UUID(workspace_id)
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    domain = unique_domain()
    with domain_service(world, dns.address) as service:
        status = service.set_domain(workspace, domain, now=now)
    dns.publish(status.txt_host, status.txt_value)

    def check(at):
        with domain_service(world, dns.address) as service:
            return service.check_if_due(workspace, now=at)

    assert check(now + 5 * MIN).state == "verified"
    dns.remove(status.txt_host)
    mail.clear()
    assert check(now + 5 * MIN + DAY).state == "verified"
    assert check(now + 5 * MIN + 2 * DAY).state == "verified"
    assert mail.messages() == [], "an absent record alone is no lapse"
    assert check(now + 5 * MIN + 3 * DAY).state == "lapsed"
    mail.wait_for(2)
    lapsed = f"The domain {domain} of Lapsing Org is no longer verified"
    assert recipients(mail, lapsed) == owners
    assert not silent & set(recipients(mail))
    message = only_message(mail, owners[0], lapsed)
    assert message.link(f"/workspaces/{workspace_id}/domain") and "Check now" in message.text
    settings_link_in(message)
    assert check(now + 5 * MIN + 3 * DAY + 5 * MIN).state == "lapsed"
    assert len(mail.messages()) == 2, "told once"

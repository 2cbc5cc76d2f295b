"""Decision 0095: when a webhook endpoint starts failing (the first failed attempt after a success, not each
failed attempt) and when it is disabled, its owners are mailed: a clinic's admins for the clinic's own
endpoint, a workspace's owners for the workspace's. Clinicians, developers and whoever turned it off are not."""

import datetime

from sqlalchemy import update

from clinicrecords.events.models import WebhookEndpoint
from clinicrecords.events.tasks import sweep_deliveries
from tests.common.cli import ok
from tests.events.support import Receiver, emit_events, make_due
from tests.notifications.helpers import joined, only_message, recipients, settings_link_in, turn_off
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import with_workspace


def _email(client):
    return client.get("/portal/account/email").html.find(id="email-status").strong.get_text()


def test_a_clinic_s_admins_learn_its_endpoint_is_failing_once_per_streak_then_disabled(app, world, engine, mail):
    clinic_id = world.clinic(name="Riverside Clinic")
    _, admin = staff_browser(app, clinic_id, "admin")
    quiet_admin, quiet = staff_browser(app, clinic_id, "admin")
    _, clinician = staff_browser(app, clinic_id, "clinician")
    turn_off(quiet_admin, "webhook_failing")
    with Receiver(default=500) as receiver:
        endpoint_id, _ = world.webhook(clinic_id=clinic_id, url=receiver.url)
        mail.clear()

        emit_events(world, clinic_id)
        failing = "A webhook endpoint of Riverside Clinic is failing"
        assert recipients(mail, failing) == [admin]
        message = only_message(mail, admin, failing)
        assert "at 127.0.0.1" in message.text and "The receiver answered 500 Internal Server Error" in message.text
        assert receiver.url not in message.text, "never the receiver's URL (its path may carry a token)"
        assert message.link(f"/clinics/{clinic_id}/webhooks/{endpoint_id}")
        assert "This message is about the clinic Riverside Clinic" in message.text
        settings_link_in(message)

        emit_events(world, clinic_id)
        make_due(engine, endpoint_id)
        sweep_deliveries()
        assert len(receiver.requests) >= 2, "failed again"
        assert recipients(mail, failing) == [admin], "each failed attempt of the streak tells nothing more"

        receiver.default = 200
        make_due(engine, endpoint_id)
        sweep_deliveries()
        receiver.default = 503
        emit_events(world, clinic_id)
        assert recipients(mail, failing) == [admin, admin], "a success ends the streak; the next failure tells"

        with engine.begin() as connection:
            connection.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id).values(
                failing_since=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=5, minutes=1)))
        make_due(engine, endpoint_id)
        sweep_deliveries()
    disabled = "A webhook endpoint of Riverside Clinic was disabled"
    assert recipients(mail, disabled) == sorted([admin, quiet]), "turning one notice off keeps the other"
    text = only_message(mail, admin, disabled).text
    assert "A live webhook endpoint of Riverside Clinic, at 127.0.0.1," in text
    assert "was disabled: nothing more is sent to it" in text
    assert clinician not in recipients(mail)


def test_a_workspace_s_owners_learn_a_failed_test_event_started_a_failing_streak(app, world, mail):
    owner, workspace_id = with_workspace(app, name="Acme Health")
    _, developer = joined(app, owner, workspace_id, "developer")
    _, other_owner = with_workspace(app, name="Other Org")
    with Receiver(default=502) as receiver:
        endpoint_id, _ = world.webhook(workspace_id=workspace_id, mode="test", url=receiver.url)
        mail.clear()
        result = ok("webhook", "test", str(endpoint_id))
        assert result["delivered"] is False
        failing = "A webhook endpoint of Acme Health is failing"
        assert recipients(mail, failing) == [_email(owner)]
        message = only_message(mail, _email(owner), failing)
        assert "A test webhook endpoint of Acme Health" in message.text
        assert message.link(f"/workspaces/{workspace_id}/webhooks/{endpoint_id}")
        ok("webhook", "test", str(endpoint_id))
        assert recipients(mail, failing) == [_email(owner)]
    assert developer not in recipients(mail) and other_owner not in recipients(mail)

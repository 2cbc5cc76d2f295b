"""Names people type go into emails, and the mail guard refuses a message holding a web address off the portal
or something shaped like a key (it judges the whole message, on purpose). So a name holding one is refused
where it is typed (workspace, organization, clinic, key and passkey names), rows that hold one are cleaned by a
migration, and a message the guard still refuses never turns into a 500: the change completes, the page says
the email could not be sent, and the log says why."""

import importlib.util
import logging
import uuid

import pytest
from sqlalchemy import select, text, update

from clinicrecords.access.models import ApiKey, Workspace
from clinicrecords.clinics.models import Clinic
from clinicrecords.db import migrations
from clinicrecords.identity.models import Invitation, Passkey
from clinicrecords.onboarding.models import BusinessProfile
from tests.common.cli import ok, refused
from tests.common.mail import outbox_rows
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.helpers import add_passkey, create_key, error_summary, signed_up, submit, unique_email, with_workspace

NAMES = ["Acme https://acme.example", "Acme http://acme.example", "Acme www.acme.example", "Acme ehr_live_ sync",
         "Acme EHR_TEST_ sync", "Acme whsec_ hooks"]
IDS = ["https", "http", "www", "live-key", "test-key", "signing-secret"]
REFUSED = "cannot contain a web address (://, www.) or text shaped like an API key or a signing secret"


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_a_workspace_name_holding_a_link_or_a_key_shape_is_refused_with_the_forms_message(app, engine, name):
    client, _ = signed_up(app)
    refused_page = submit(client.get("/portal/workspaces/new"), "workspace", name=name, status=400)
    assert error_summary(refused_page) == [f"A workspace's name {REFUSED}"]
    assert refused_page.html.find(id="name")["value"] == name
    with engine.connect() as connection:
        assert connection.scalar(select(Workspace.id).where(Workspace.name == name)) is None


def test_the_operators_workspace_and_clinic_commands_refuse_such_names_too(app):
    assert f"a workspace's name {REFUSED}" in refused("workspace", "create", "--name", NAMES[0])
    assert f"a clinic's name {REFUSED}" in refused("clinic", "create", "--name", "Clinic www.clinic.example")


@pytest.mark.parametrize("name", NAMES[:1] + NAMES[3:4], ids=IDS[:1] + IDS[3:4])
def test_a_key_name_holding_a_link_or_a_key_shape_is_refused(app, engine, name):
    client, workspace_id = with_workspace(app)
    page = create_key(client, workspace_id, name=name, status=400)
    assert error_summary(page) == [f"A key's name {REFUSED}"]
    with engine.connect() as connection:
        assert connection.execute(select(ApiKey).where(ApiKey.workspace_id == uuid.UUID(workspace_id))).first() \
            is None


def test_a_passkey_name_holding_a_link_is_refused_when_added_and_when_renamed(app, engine, mail):
    client, _ = signed_up(app)
    page = add_passkey(client, SoftwareAuthenticator(), name="Laptop https://laptop.example", status=400)
    assert error_summary(page) == [f"A passkey's name {REFUSED}"]
    add_passkey(client, SoftwareAuthenticator(), name="Laptop")
    with engine.connect() as connection:
        passkey_id = connection.scalar(select(Passkey.id))
    item = client.get(f"/portal/account/two-factor/passkeys/{passkey_id}")
    page = submit(item, "rename-passkey", name="Laptop ehr_live_", status=400)
    assert error_summary(page) == [f"A passkey's name {REFUSED}"]


@pytest.mark.parametrize("name", NAMES[:1] + NAMES[3:4], ids=IDS[:1] + IDS[3:4])
def test_an_organization_s_legal_name_holding_a_link_or_a_key_shape_is_refused(app, world, engine, name):
    """The business profile's legal name is the organization's name a clinic's admins are mailed."""
    client, workspace_id = with_workspace(app)
    world.set_workspace(uuid.UUID(workspace_id), verified=True)
    page = submit(client.get(f"/portal/workspaces/{workspace_id}/profile"), "profile", status=400,
                  legal_name=name, website="https://acme.example", country="gb", contact_email="dev@acme.example",
                  intended_use="Appointment reminders for our clinics.")
    assert error_summary(page) == [f"Legal name {REFUSED.replace('cannot contain', 'must not contain')}"]
    assert page.html.find(id="legal_name")["value"] == name
    with engine.connect() as connection:
        assert connection.scalar(select(BusinessProfile.workspace_id).where(
            BusinessProfile.workspace_id == uuid.UUID(workspace_id))) is None


def _cleaning_migration():
    path = migrations.ALEMBIC_DIR / "control" / "versions"
    [found] = [script for script in path.glob("*.py") if "names_without_links" in script.name]
    spec = importlib.util.spec_from_file_location("names_without_links", found)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _named_so(engine, workspace_id, name):
    """A workspace named before the rule (a row the migration would clean): its name set directly."""
    with engine.begin() as connection:
        connection.execute(update(Workspace).where(Workspace.id == uuid.UUID(workspace_id)).values(name=name))


def test_an_invitation_the_guard_withholds_still_invites_and_the_page_says_the_email_was_not_sent(
        app, engine, mail, caplog):
    owner, workspace_id = with_workspace(app)
    _named_so(engine, workspace_id, "Acme https://acme.example")
    before = len(outbox_rows(engine))
    email = unique_email("invitee")
    with caplog.at_level(logging.WARNING, logger="clinicrecords.mail.services"):
        answer = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                        role="developer", status=303)
    assert "mail=not-sent" in answer.location
    page = answer.follow()
    notice = " ".join(page.html.find(id="mail-not-sent").get_text(" ").split())
    assert "an email it would have sent could not be sent" in notice
    assert "could not be emailed: pass its link" in page.text and "We emailed" not in page.text
    assert len(outbox_rows(engine)) == before
    with engine.connect() as connection:
        invitation = connection.execute(select(Invitation).where(Invitation.email == email)).one()
    assert invitation.emailed_at is None, "a withheld message is not counted as emailed"
    [record] = [record for record in caplog.records if "withheld" in record.getMessage()]
    assert "'invitation' withheld: a link in the message does not start with the portal's address" \
        in record.getMessage()
    assert "acme.example" not in record.getMessage() and email not in record.getMessage()


def test_the_operators_invite_link_command_completes_for_such_a_workspace(app, engine, mail):
    owner, workspace_id = with_workspace(app)
    _named_so(engine, workspace_id, "Acme ehr_live_ sync")
    answer = ok("portal", "invite-link", "--workspace", workspace_id, "--email", unique_email("by-operator"),
                "--role", "developer")
    assert answer["emailed"] is False and "/invitations?token=" in answer["invitation_url"]


def test_a_passkey_named_before_the_rule_is_removed_and_the_page_says_the_email_was_not_sent(app, engine, mail):
    client, email = signed_up(app)
    add_passkey(client, SoftwareAuthenticator(), name="Laptop")
    add_passkey(client, SoftwareAuthenticator(), name="Phone")
    with engine.begin() as connection:
        passkey_id = connection.scalar(select(Passkey.id).where(Passkey.name == "Laptop"))
        connection.execute(update(Passkey).where(Passkey.id == passkey_id).values(name="Laptop https://x.example"))
    item = client.get(f"/portal/account/two-factor/passkeys/{passkey_id}")
    answer = submit(item, "remove-passkey", status=303)
    assert answer.follow().html.find(id="mail-not-sent") is not None
    client.get(f"/portal/account/two-factor/passkeys/{passkey_id}", status=404)


def test_the_migration_cleans_the_names_that_hold_a_link_or_a_key_shape(app, engine, world):
    workspace_id, _ = world.workspace(name="Plain name")
    with engine.begin() as connection:
        connection.execute(update(Workspace).where(Workspace.id == workspace_id)
                           .values(name="Acme https://acme.example www.acme.example"))
        connection.execute(update(Clinic).where(Clinic.sandbox_of_workspace_id == workspace_id)
                           .values(name="ehr_live_ whsec_"))
        cleaned = _cleaning_migration().clean_names(connection)
        name = connection.scalar(select(Workspace.name).where(Workspace.id == workspace_id))
        sandbox = connection.scalar(select(Clinic.name).where(Clinic.sandbox_of_workspace_id == workspace_id))
        left = connection.scalar(text(
            "SELECT count(*) FROM control.workspaces WHERE name ~* '://|\\mwww\\.|ehr_(live|test)_|whsec_'"))
    assert name == "Acme https acme.example www acme.example"
    assert sandbox == "ehr live whsec"
    assert cleaned["workspaces.name"] >= 1 and cleaned["clinics.name"] >= 1 and left == 0


def test_a_name_without_such_text_is_kept_as_it_is(app, engine):
    client, workspace_id = with_workspace(app, name="Acme: wwwide health, ehr tools")
    assert client.get(f"/portal/workspaces/{workspace_id}").status_int == 200
    with engine.connect() as connection:
        assert connection.scalar(select(Workspace.name).where(Workspace.id == uuid.UUID(workspace_id))) == \
            "Acme: wwwide health, ehr tools"

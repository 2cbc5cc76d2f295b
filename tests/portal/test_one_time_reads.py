"""Decision 0045: a successful portal POST answers with a redirect, and a secret reaches the page it
redirects to through a one-time read: sealed server-side, bound to the session, read once. A reload shows
that it was shown once, never the secret again, and creates nothing."""

import datetime
import re
import uuid

from sqlalchemy import func, select, text

from clinicrecords.access.models import ApiKey
from clinicrecords.portal.web.models import OneTimeRead
from clinicrecords.portal.web.once import LIFETIME
from clinicrecords.portal.web.tasks import prune
from clinicrecords.settings import PortalSettings
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import PASSWORD, browser, secret_of, signed_up, submit, with_workspace

SECRET = re.compile(r"ehr_(test|live)_[0-9a-f]{16}_[0-9a-f]{48}")


def _keys_of(engine, workspace_id):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(ApiKey).where(
            ApiKey.workspace_id == uuid.UUID(workspace_id)))


def test_key_created_is_a_redirect_and_a_reload_shows_it_was_shown_once(app, engine):
    client, workspace_id = with_workspace(app)
    answer = submit(client.get(f"/portal/workspaces/{workspace_id}/keys/new"), "new-key", mode="test", status=303)
    assert "/keys/created?once=key." in answer.location
    assert not SECRET.search(answer.text)
    page = answer.follow()
    secret = secret_of(page)
    assert SECRET.fullmatch(secret) and page.headers["Cache-Control"] == "no-store"
    again = client.get(answer.location)
    assert "shown once" in again.text and not SECRET.search(again.text) and again.html.find(id="secret") is None
    assert _keys_of(engine, workspace_id) == 1


def test_the_stash_is_sealed_and_bound_to_the_session(app, engine):
    client, workspace_id = with_workspace(app)
    answer = submit(client.get(f"/portal/workspaces/{workspace_id}/keys/new"), "new-key", mode="test", status=303)
    with engine.connect() as connection:
        sealed = connection.scalar(select(OneTimeRead.sealed))
        dump = repr(connection.execute(text("SELECT * FROM control.portal_one_time_reads")).all())
    assert sealed and not SECRET.search(sealed.decode("latin-1")) and not SECRET.search(dump)
    # The same account signed in on another browser: another session, so nothing to read there.
    email = client.get("/portal/").html.find(class_="who").get_text().strip()
    other = browser(app)
    submit(other.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)
    elsewhere = other.get(answer.location)
    assert "shown once" in elsewhere.text and not SECRET.search(elsewhere.text)
    # ... and the owner of the stash still reads it once.
    assert SECRET.fullmatch(secret_of(answer.follow()))


def test_a_stash_lives_minutes_and_is_pruned(app, engine, world):
    client, workspace_id = with_workspace(app)
    submit(client.get(f"/portal/workspaces/{workspace_id}/keys/new"), "new-key", mode="test", status=303)
    with world.db() as db:
        later = datetime.datetime.now(datetime.UTC) + LIFETIME + datetime.timedelta(seconds=1)
        assert prune(db, PortalSettings(), now=later)["one_time_reads"] == 1
        assert db.scalar(select(func.count()).select_from(OneTimeRead)) == 0


def test_a_broken_once_parameter_shows_it_was_shown_once(app):
    client, workspace_id = with_workspace(app)
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/created?once=key.not-a-uuid")
    assert "shown once" in page.text


def test_an_invitation_link_is_shown_once_after_a_redirect(app):
    owner, workspace_id = with_workspace(app)
    _, email = signed_up(app)
    answer = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                    role="developer", status=303)
    page = answer.follow()
    link = page.html.find(id="invitation-link").get_text().strip()
    assert "/portal/invitations?token=" in link and page.headers["Cache-Control"] == "no-store"
    again = owner.get(answer.location)
    assert again.html.find(id="invitation-link") is None and "shown once" in again.text
    assert link.split("token=")[1] not in again.text


def test_a_staff_invitation_link_is_shown_once_after_a_redirect(app, world):
    clinic_id = world.clinic()
    admin, _ = staff_browser(app, clinic_id, "admin")
    answer = submit(admin.get(f"/portal/clinics/{clinic_id}/staff"), "invite", email="new@example.org",
                    role="clinician", status=303)
    link = answer.follow().html.find(id="invitation-link").get_text().strip()
    assert "/portal/staff-invitations?token=" in link
    again = admin.get(answer.location)
    assert again.html.find(id="invitation-link") is None and "shown once" in again.text

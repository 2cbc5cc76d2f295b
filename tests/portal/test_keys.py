"""Keys in the portal: create (secret once), the live gate (same as the CLI's), list, revoke, roll, IP
allow-list; another workspace's keys are 404; the audit trail never holds a secret."""

import datetime
import uuid

import pytest
from sqlalchemy import select

from clinicrecords.access.models import ApiKey
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.common.cli import admin
from tests.portal.helpers import create_key, error_summary, portal_path, secret_of, submit, with_workspace


def _bearer(key):
    return {"Authorization": f"Bearer {key}"}


def _key_id(secret):
    return secret.split("_")[2]


def _workspace_uuid(workspace_id):
    return uuid.UUID(workspace_id)


def _make_ready(world, workspace_id, **skip):
    """Every live condition met except those named in `skip`."""
    workspace = _workspace_uuid(workspace_id)
    world.set_workspace(workspace, verified=True, paid="paid" not in skip)
    if "profile" not in skip:
        world.approve_profile(workspace)  # needs the domain verified, so before unverifying it
    if "terms" not in skip:
        world.accept_terms(workspace)
    if "verified" in skip:
        world.set_workspace(workspace, verified=False)


def test_the_secret_is_shown_once_and_never_again(app, testapp, engine):
    client, workspace_id = with_workspace(app)
    page = create_key(client, workspace_id)
    secret = secret_of(page)
    assert secret.startswith("ehr_test_")
    assert page.headers["Cache-Control"] == "no-store"
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200
    key_id = _key_id(secret)
    listing = client.get(f"/portal/workspaces/{workspace_id}/keys")
    assert f"ehr_test_{key_id[:4]}" in listing.text
    for path in ("", "/keys", "/activity", f"/keys/{key_id}/roll", f"/keys/{key_id}/revoke",
                 f"/keys/{key_id}/ip-allow"):
        text = client.get(f"/portal/workspaces/{workspace_id}{path}").text
        assert secret not in text and secret.split("_")[3] not in text and key_id not in text.replace(
            f"/keys/{key_id}/", "")
    with engine.connect() as connection:
        audit = connection.execute(select(PortalAuditEntry.target, PortalAuditEntry.details).where(
            PortalAuditEntry.workspace_id == _workspace_uuid(workspace_id))).all()
    assert audit and secret.split("_")[3] not in repr(audit)


def test_a_live_key_names_every_missing_condition(app, world, engine):
    client, workspace_id = with_workspace(app)
    page = create_key(client, workspace_id, mode="live", status=400)
    assert error_summary(page) == ["A live key needs a verified domain, an approved business profile, the current "
                                   "API Terms accepted and the paid plan"]
    assert page.html.find("input", attrs={"name": "mode", "checked": True})["value"] == "live"
    with engine.connect() as connection:
        assert connection.scalar(select(ApiKey.id).where(ApiKey.workspace_id == _workspace_uuid(workspace_id))) is None


@pytest.mark.parametrize("missing, words, code", [
    ("verified", "a verified domain", "not_verified"),
    ("profile", "an approved business profile", "profile_not_approved"),
    ("terms", "the current API Terms accepted", "terms_not_accepted"),
    ("paid", "the paid plan", "plan_not_paid"),
])
def test_the_same_gate_in_the_portal_and_the_cli(app, world, missing, words, code):
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id, **{missing: True})
    assert error_summary(create_key(client, workspace_id, mode="live", status=400)) == [f"A live key needs {words}"]
    status, _, err = admin("key", "create", "--workspace", workspace_id, "--mode", "live")
    assert status == 2 and err.strip().endswith(f"a live key needs {words} ({code})")


def test_a_live_key_once_every_condition_is_met(app, world, testapp):
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    assert "Everything live keys need is in place" in client.get(f"/portal/workspaces/{workspace_id}").text
    secret = secret_of(create_key(client, workspace_id, mode="live"))
    assert testapp.get("/v1/me", headers=_bearer(secret)).json["data"]["mode"] == "live"
    status, result, _ = admin("key", "create", "--workspace", workspace_id, "--mode", "live")
    assert status == 0 and result["key"].startswith("ehr_live_")


def test_in_the_portal_a_live_key_also_needs_the_members_email_verified(app, world, mail):
    client, workspace_id = with_workspace(app, verified=False)
    _make_ready(world, workspace_id)
    overview = client.get(f"/portal/workspaces/{workspace_id}")
    [line] = [item for item in overview.html.find(class_="checklist")("li") if "email" in item.get_text()]
    assert line.get_text().startswith("Your email address is verified (missing)")
    assert line.find("a", string="verify it")["href"] == "/portal/account/email"
    assert len(overview.html.find(class_="checklist")("li")) == 5
    assert error_summary(create_key(client, workspace_id, mode="live", status=400)) == [
        "A live key needs your email address verified"]
    secret_of(create_key(client, workspace_id, mode="test"))  # test keys work unverified
    status, result, _ = admin("key", "create", "--workspace", workspace_id, "--mode", "live")
    assert status == 0 and result["key"].startswith("ehr_live_"), "the operator's command keeps four conditions"
    [message] = [m for m in mail.wait_for(1) if m.subject == "Verify your email address for Clinic Records"]
    submit(client.get(portal_path(message.link("/verify-email"))), "verify-email", status=303)
    assert "Everything live keys need is in place" in client.get(f"/portal/workspaces/{workspace_id}").text
    assert secret_of(create_key(client, workspace_id, mode="live")).startswith("ehr_live_")


def test_an_older_terms_acceptance_does_not_open_live_keys(app, world):
    from clinicrecords.identity.models import TermsAcceptance

    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id, terms=True)
    with world.db() as db:
        db.add(TermsAcceptance(workspace_id=_workspace_uuid(workspace_id), version="2025-06",
                               accepted_by_name="operator"))
    assert error_summary(create_key(client, workspace_id, mode="live", status=400)) == [
        "A live key needs the current API Terms accepted"]


def test_ip_allow_list_on_creation_and_edit(app, testapp):
    client, workspace_id = with_workspace(app)
    bad = create_key(client, workspace_id, ip_allow="10.0.0.0/8\nnot-an-ip", status=400)
    assert error_summary(bad) == ["“not-an-ip” is not an IP address or CIDR range, like 203.0.113.0/24"]
    assert bad.html.find(id="ip_allow").get_text() == "10.0.0.0/8\nnot-an-ip"
    secret = secret_of(create_key(client, workspace_id, ip_allow="10.0.0.0/8, 192.168.1.7"))
    assert testapp.get("/v1/me", headers=_bearer(secret), status=403).json["code"] == "ip_not_allowed"
    key_id = _key_id(secret)
    listing = client.get(f"/portal/workspaces/{workspace_id}/keys")
    assert "10.0.0.0/8, 192.168.1.7/32" in listing.text
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/ip-allow")
    refused = submit(page, "ip-allow", ip_allow="300.1.1.1", status=400)
    assert "“300.1.1.1” is not an IP address" in error_summary(refused)[0]
    submit(page, "ip-allow", ip_allow="127.0.0.0/8", status=303)
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200
    submit(client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/ip-allow"), "ip-allow", ip_allow="",
           status=303)
    assert "any address" in client.get(f"/portal/workspaces/{workspace_id}/keys").text


def test_revoke_asks_first_naming_the_key(app, testapp):
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    key_id = _key_id(secret)
    confirm = client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/revoke")
    assert f"Revoke key ehr_test_{key_id[:4]}" in confirm.text
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200  # asking changed nothing
    done = submit(confirm, "revoke", status=303).follow()
    assert f"Key ehr_test_{key_id[:4]}************ revoked" in done.html.find(id="notice").get_text()
    assert testapp.get("/v1/me", headers=_bearer(secret), status=401).json["code"] == "invalid_key"
    client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/revoke", status=404)


@pytest.mark.parametrize("overlap, hours", [("1h", 1), ("24h", 24), ("7d", 168)])
def test_roll_keeps_the_old_key_for_the_chosen_overlap(app, testapp, engine, overlap, hours):
    client, workspace_id = with_workspace(app)
    old = secret_of(create_key(client, workspace_id))
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/{_key_id(old)}/roll")
    before = datetime.datetime.now(datetime.UTC)
    answer = submit(page, "roll", overlap=overlap, status=303).follow()
    new = secret_of(answer)
    assert new != old and answer.headers["Cache-Control"] == "no-store"
    assert "keeps working until" in answer.text and "Automatic acceptance" in answer.text
    for key in (old, new):
        assert testapp.get("/v1/me", headers=_bearer(key)).status_int == 200
    with engine.connect() as connection:
        rows = {row.key_id: row for row in connection.execute(select(ApiKey).where(
            ApiKey.key_id.in_([_key_id(old), _key_id(new)])))}
    expires = rows[_key_id(old)].expires_at
    assert datetime.timedelta(hours=hours) <= expires - before <= datetime.timedelta(hours=hours, minutes=1)
    assert rows[_key_id(new)].expires_at is None and rows[_key_id(new)].rolled_from_id == rows[_key_id(old)].id


def test_roll_now_stops_the_old_key_at_once_and_a_bad_choice_changes_nothing(app, testapp):
    client, workspace_id = with_workspace(app)
    old = secret_of(create_key(client, workspace_id))
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/{_key_id(old)}/roll")
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    bad = client.post(f"/portal/workspaces/{workspace_id}/keys/{_key_id(old)}/roll",
                      {"csrf_token": token, "overlap": "forever"}, status=400)
    assert error_summary(bad) == ["Choose when the old key stops working"]
    assert len(client.get(f"/portal/workspaces/{workspace_id}/keys").html.find("tbody").find_all("tr")) == 1
    new = secret_of(submit(page, "roll", overlap="now", status=303).follow())
    assert testapp.get("/v1/me", headers=_bearer(old), status=401).json["code"] == "invalid_key"
    assert testapp.get("/v1/me", headers=_bearer(new)).status_int == 200


def test_the_list_shows_last_use_and_its_address(app, testapp):
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    assert "never" in client.get(f"/portal/workspaces/{workspace_id}/keys").text
    testapp.get("/v1/me", headers=_bearer(secret), extra_environ={"REMOTE_ADDR": "127.0.0.5"})
    row = client.get(f"/portal/workspaces/{workspace_id}/keys").html.find("tbody").find("tr")
    assert "from 127.0.0.5" in row.get_text()


def test_another_workspaces_keys_are_404(app, testapp):
    owner, theirs = with_workspace(app)
    secret = secret_of(create_key(owner, theirs))
    client, mine = with_workspace(app)
    token = client.get(f"/portal/workspaces/{mine}/keys").html.find("input", attrs={"name": "csrf_token"})["value"]
    for action in ("revoke", "roll", "ip-allow"):
        client.get(f"/portal/workspaces/{mine}/keys/{_key_id(secret)}/{action}", status=404)
        client.post(f"/portal/workspaces/{mine}/keys/{_key_id(secret)}/{action}",
                    {"csrf_token": token, "overlap": "now", "ip_allow": "10.0.0.0/8"}, status=404)
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200


def test_key_forms_need_their_csrf_token(app, testapp):
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    client.post(f"/portal/workspaces/{workspace_id}/keys/new", {"mode": "test"}, status=403)
    client.post(f"/portal/workspaces/{workspace_id}/keys/{_key_id(secret)}/revoke", {}, status=403)
    assert testapp.get("/v1/me", headers=_bearer(secret)).status_int == 200
    assert len(client.get(f"/portal/workspaces/{workspace_id}/keys").html.find("tbody").find_all("tr")) == 1


def test_key_actions_are_in_the_workspaces_activity(app):
    client, workspace_id = with_workspace(app)
    secret = secret_of(create_key(client, workspace_id))
    submit(client.get(f"/portal/workspaces/{workspace_id}/keys/{_key_id(secret)}/roll"), "roll", overlap="1h")
    activity = client.get(f"/portal/workspaces/{workspace_id}/activity").text
    for sentence in ("Created the workspace", "Created the test key", "Rolled the key"):
        assert sentence in activity


def test_a_rolled_key_starts_with_automatic_acceptance_off(app, testapp):
    from clinicrecords.sandbox.interfaces import sandbox_id

    client, workspace_id = with_workspace(app)
    overview = client.get(f"/portal/workspaces/{workspace_id}").html
    sandbox = overview.find("dt", string="Sandbox clinic id").find_next("dd").get_text().strip()
    old = secret_of(create_key(client, workspace_id))
    status, _, err = admin("auto-accept", "set", "--clinic", sandbox, "--key", _key_id(old), "--kinds", "allergy",
                           "--on")
    assert status == 0, err
    new = secret_of(submit(client.get(f"/portal/workspaces/{workspace_id}/keys/{_key_id(old)}/roll"), "roll",
                           overlap="24h", status=303).follow())

    def send(key, substance):
        body = {"patient_id": str(sandbox_id("patient:1")), "substance": {"text": substance}}
        return testapp.post_json(f"/v1/clinics/{sandbox}/allergies", body,
                                 headers={**_bearer(key), "Idempotency-Key": str(uuid.uuid4())},
                                 status=202).json["data"]["review_status"]

    assert send(old, "Peanut") == "confirmed"
    assert send(new, "Latex") == "pending"


def _roll(client, workspace_id, key_id, overlap="1h", status=303):
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/roll")
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    return client.post(f"/portal/workspaces/{workspace_id}/keys/{key_id}/roll",
                       {"csrf_token": token, "overlap": overlap}, status=status)


def _workspace_keys(engine, workspace_id):
    with engine.connect() as connection:
        return connection.execute(select(ApiKey).where(ApiKey.workspace_id == _workspace_uuid(workspace_id))
                                  .order_by(ApiKey.created_at)).all()


def test_a_key_is_rolled_once_and_its_old_end_never_moves(app, engine):
    """Decision 0044: rolling the same key again made one more key each time."""
    client, workspace_id = with_workspace(app)
    old = _key_id(secret_of(create_key(client, workspace_id)))
    new = _key_id(secret_of(_roll(client, workspace_id, old, overlap="1h").follow()))
    ends = {row.key_id: row.expires_at for row in _workspace_keys(engine, workspace_id)}
    for overlap in ("7d", "24h"):
        refused = _roll(client, workspace_id, old, overlap=overlap, status=400)
        assert error_summary(refused) == [
            f"This key was rolled already: roll the key that replaced it, ehr_test_{new[:4]}************, instead"]
    rows = _workspace_keys(engine, workspace_id)
    assert len(rows) == 2 and {row.key_id: row.expires_at for row in rows} == ends
    listing = client.get(f"/portal/workspaces/{workspace_id}/keys").html.find(id="keys")
    assert [a["href"].split("/")[-2] for a in listing.find_all("a", string="Roll")] == [new]
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/{old}/roll")
    assert page.html.find(id="rolled") is not None and "roll" not in page.forms
    _roll(client, workspace_id, new, overlap="now")  # the replacement rolls, once


def test_rolling_a_live_key_is_gated_like_creating_one(app, world, engine):
    """Decision 0044: with the profile back in review, rolling a live key made new live keys."""
    client, workspace_id = with_workspace(app)
    _make_ready(world, workspace_id)
    live = _key_id(secret_of(create_key(client, workspace_id, mode="live")))
    with world.request() as request:  # the profile is resubmitted: in review again
        from clinicrecords.onboarding.interfaces import IBusinessProfile

        profiles = request.find_service(IBusinessProfile)
        current = profiles.profile(_workspace_uuid(workspace_id))
        profiles.submit(_workspace_uuid(workspace_id), legal_name=current.legal_name, website=current.website,
                        country=current.country, contact_email=current.contact_email,
                        intended_use=current.intended_use + " Also reminders.")
    refused = _roll(client, workspace_id, live, status=400)
    assert error_summary(refused) == [
        "Rolling makes a new live key, and a live key needs an approved business profile"]
    assert len(_workspace_keys(engine, workspace_id)) == 1
    test_key = _key_id(secret_of(create_key(client, workspace_id)))
    _roll(client, workspace_id, test_key)  # a test key needs no gate
    world.approve_profile(_workspace_uuid(workspace_id))
    assert secret_of(_roll(client, workspace_id, live).follow()).startswith("ehr_live_")


def test_the_ip_allow_list_names_every_bad_line(app):
    """Decision 0048: only the first bad line was reported."""
    client, workspace_id = with_workspace(app)
    typed = "10.0.0.0/8\nnot-an-ip\n192.168.1.7, 300.1.1.1\n\nfe80::/10\nlocalhost"
    page = create_key(client, workspace_id, ip_allow=typed, status=400)
    assert error_summary(page) == [
        "3 entries are not IP addresses or CIDR ranges, like 203.0.113.0/24: “not-an-ip” (line 2), "
        "“300.1.1.1” (line 3), “localhost” (line 6)"]
    assert page.html.find(id="ip_allow").get_text() == typed
    key_id = _key_id(secret_of(create_key(client, workspace_id)))
    edit = client.get(f"/portal/workspaces/{workspace_id}/keys/{key_id}/ip-allow")
    refused = submit(edit, "ip-allow", ip_allow="a\nb", status=400)
    assert error_summary(refused) == [
        "2 entries are not IP addresses or CIDR ranges, like 203.0.113.0/24: “a” (line 1), “b” (line 2)"]

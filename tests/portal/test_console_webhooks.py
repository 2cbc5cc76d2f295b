"""Webhooks for the clinic's own key in the clinic console (decision 0033): the developer portal's webhook
pages on the clinic's face, /portal/clinics/{id}/webhooks, for its admins. Endpoints are live only; every form
works (add, secret, test event, deliveries, resend, recover, rotate, disable, enable, delete) and is audited
with the clinic and the staff member, never a secret; a clinician is refused as on the key pages; another
owner's endpoint id answers 404 on either face; a forged form changes nothing."""

import datetime
import uuid
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from clinicrecords.events.models import WebhookEndpoint
from clinicrecords.identity.models import Account
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.events.support import emit_events, signed_by
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, secret_of, submit, with_workspace
from tests.portal.test_webhooks import (
    ACTIONS,
    FORMS,
    add_endpoint,
    add_endpoint_at,
    deliveries_of,
    endpoint_count,
    endpoint_of,
    filled_form,
    press,
)

FORBIDDEN = "Your role on the staff of this clinic does not include this page."


def add_clinic_endpoint(admin, clinic_id, url, types=(), status=303):
    return add_endpoint_at(admin, f"/portal/clinics/{clinic_id}/webhooks/new", url, types, status)


def with_clinic_endpoint(app, world, url, **kwargs):
    """A clinic, its admin's browser and one endpoint of the clinic: .clinic_id, .admin, .email, .endpoint_id,
    .here (the endpoint's page)."""
    clinic_id = world.clinic()
    admin, email = staff_browser(app, clinic_id, "admin")
    endpoint_id = endpoint_of(add_clinic_endpoint(admin, clinic_id, url, **kwargs))
    return SimpleNamespace(clinic_id=clinic_id, admin=admin, email=email, endpoint_id=endpoint_id,
                           here=f"/portal/clinics/{clinic_id}/webhooks/{endpoint_id}")


@pytest.fixture
def console(app, world, receiver):
    return with_clinic_endpoint(app, world, receiver.url)


def audit_of(engine, clinic_id):
    """The clinic's webhook audit rows, oldest first: (action, target, details, the staff member's email)."""
    with engine.connect() as connection:
        return connection.execute(
            select(PortalAuditEntry.action, PortalAuditEntry.target, PortalAuditEntry.details, Account.email)
            .join(Account, Account.id == PortalAuditEntry.account_id)
            .where(PortalAuditEntry.clinic_id == clinic_id, PortalAuditEntry.action.like("webhook.%"))
            .order_by(PortalAuditEntry.at, PortalAuditEntry.id)).all()


def webhook_actions(engine, clinic_id):
    return [row.action for row in audit_of(engine, clinic_id)]


def state(engine, console, receiver):
    """Everything a webhook page could change: the endpoints, the console endpoint's secret, status and
    deliveries, what the receiver got, the clinic's webhook audit rows."""
    with engine.connect() as connection:
        endpoint = connection.execute(select(WebhookEndpoint.secret_sealed, WebhookEndpoint.disabled_at)
                                      .where(WebhookEndpoint.id == uuid.UUID(console.endpoint_id))).one()
    return (endpoint_count(engine), tuple(endpoint), deliveries_of(engine, console.endpoint_id),
            len(receiver.requests), webhook_actions(engine, console.clinic_id))


def test_an_admin_adds_a_live_endpoint_of_the_clinic(app, world, engine, receiver):
    clinic_id = world.clinic()
    admin, email = staff_browser(app, clinic_id, "admin")
    tab = admin.get(f"/portal/clinics/{clinic_id}").html.find("a", string="Webhooks")
    assert tab["href"] == f"/portal/clinics/{clinic_id}/webhooks"
    empty = admin.get(tab["href"])
    assert "No live endpoints yet" in empty.text and "Test endpoints" not in empty.text
    assert empty.html.find("a", attrs={"aria-current": "page"}).get_text() == "Webhooks"
    new = empty.click("Add a live endpoint")
    assert "mode" not in new.forms["new-endpoint"].fields and "A live endpoint" in new.text
    answer = add_clinic_endpoint(admin, clinic_id, receiver.url, types=("inventory.item.created",
                                                                        "submission.decided"))
    endpoint_id = endpoint_of(answer)
    assert answer.location.endswith(f"/portal/clinics/{clinic_id}/webhooks/{endpoint_id}?added=1")
    page = answer.follow()
    assert "Endpoint added" in page.text and "inventory.item.created, submission.decided" in page.text
    assert page.html.find("span", class_="tag--live").get_text() == "live"
    listing = admin.get(f"/portal/clinics/{clinic_id}/webhooks")
    assert receiver.url in listing.text and endpoint_id in listing.text
    with engine.connect() as connection:
        row = connection.execute(select(WebhookEndpoint)
                                 .where(WebhookEndpoint.id == uuid.UUID(endpoint_id))).one()
    assert (row.clinic_id, row.workspace_id, row.mode) == (clinic_id, None, "live")
    [added] = audit_of(engine, clinic_id)
    assert (added.action, added.target, added.email) == ("webhook.added", receiver.url, email)
    assert added.details["mode"] == "live" and added.details["endpoint_id"] == endpoint_id


def test_bad_input_is_named_by_its_field_and_changes_nothing(app, world, engine, console):
    clinic_id, admin = console.clinic_id, console.admin
    before = endpoint_count(engine)
    refused = add_clinic_endpoint(admin, clinic_id, "ftp://example.org/hooks", status=400)
    assert error_summary(refused) == ["The URL must be http(s)://host/..."]
    assert refused.html.find(id="url")["value"] == "ftp://example.org/hooks"
    assert error_summary(add_clinic_endpoint(admin, clinic_id, "", status=400)) == [
        "Enter the URL that receives the events"]
    token = admin.get(console.here).html.find("input", attrs={"name": "csrf_token"})["value"]
    forged_mode = admin.post(f"/portal/clinics/{clinic_id}/webhooks/new", {
        "csrf_token": token, "mode": "test", "url": "http://127.0.0.1:9/hooks"}, status=400)
    assert error_summary(forged_mode) == ["A clinic's endpoints are live"]
    assert endpoint_count(engine) == before
    bad_overlap = admin.post(console.here + "/rotate", {"csrf_token": token, "overlap": "forever"},
                             status=400)
    assert error_summary(bad_overlap) == ["Choose how long the current secret keeps signing"]
    bad_since = press(admin, console.here + "/recover", "recover", status=400, since="yesterday")
    assert error_summary(bad_since) == ["Enter a time like 2026-11-24T08:00 (UTC)"]
    assert webhook_actions(engine, clinic_id) == ["webhook.added"]


def test_the_secret_signs_test_events_and_the_clinics_events(app, world, engine, console, receiver):
    here, admin = console.here, console.admin
    assert "whsec_" not in admin.get(here).text
    revealed = press(admin, here, "reveal-secret")
    secret = secret_of(revealed)
    assert secret.startswith("whsec_") and revealed.headers["Cache-Control"] == "no-store"
    tested = press(admin, here, "send-test")
    assert "Test event delivered" in tested.html.find("h1").get_text()
    assert '{"received": true}' in tested.html.find(id="test-answer").get_text()
    assert signed_by(receiver.requests[-1], [secret])["type"] == "webhook.ping"

    emitted = emit_events(world, console.clinic_id, count=2)  # recorded: the clinic has an endpoint now
    assert all(event is not None for event in emitted)
    received = [signed_by(request, [secret]) for request in receiver.requests[1:]]
    assert [payload["id"] for payload in received] == [str(event.id) for event in emitted]
    log = admin.get(here).html.find_all("tr", class_="delivery")
    assert [row.find("td", class_="mono").contents[0].strip() for row in log] == [
        "inventory.item.created", "inventory.item.created", "webhook.ping"]
    assert all("delivered" in row.get_text() for row in log)
    assert len(admin.get(here + "?status=failed").html.find_all("tr", class_="delivery")) == 0
    rows = audit_of(engine, console.clinic_id)
    assert [row.action for row in rows] == ["webhook.added", "webhook.secret_revealed", "webhook.test_sent"]
    assert secret.removeprefix("whsec_") not in repr(rows)


def test_resend_recover_rotate_disable_enable_and_delete(app, world, engine, console, receiver):
    here, admin, clinic_id = console.here, console.admin, console.clinic_id
    old = secret_of(press(admin, here, "reveal-secret"))
    page = press(admin, here, "send-test")
    delivery_id = page.html.find("tr", class_="delivery")["id"].removeprefix("delivery-")
    resent = submit(page, f"resend-{delivery_id}", status=303)
    assert resent.location.startswith(f"http://localhost/portal/clinics/{clinic_id}/webhooks/")
    assert "Delivery sent again" in resent.follow().text
    assert deliveries_of(engine, console.endpoint_id) == 2

    emit_events(world, clinic_id, count=2)
    since = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    recovered = press(admin, here + "/recover", "recover", status=303, since=since).follow()
    assert "2 event(s) queued again" in recovered.text
    assert deliveries_of(engine, console.endpoint_id) == 6

    rotated = submit(admin.get(here + "/rotate"), "rotate", overlap="1h", status=303).follow()
    new = secret_of(rotated)
    assert new != old and rotated.headers["Cache-Control"] == "no-store"
    assert rotated.click("Back to the endpoint").request.path == here
    press(admin, here, "send-test")
    signed_by(receiver.requests[-1], [old, new])

    disabled = press(admin, here, "disable", status=303).follow()
    assert "Endpoint disabled" in disabled.text and "disabled by its owner" in disabled.text
    enabled = submit(disabled, "enable", status=303).follow()
    assert "Endpoint enabled" in enabled.text

    confirm = admin.get(here + "/delete")
    assert f"Delete webhook endpoint {receiver.url}?" in confirm.html.find("h1").get_text()
    done = submit(confirm, "delete", status=303)
    assert done.location == f"http://localhost/portal/clinics/{clinic_id}/webhooks?once=" + done.location.split(
        "once=")[1]
    assert f"Webhook endpoint {receiver.url} deleted" in done.follow().html.find(id="notice").get_text()
    admin.get(here, status=404)
    assert deliveries_of(engine, console.endpoint_id) == 0

    rows = audit_of(engine, clinic_id)
    assert [row.action.removeprefix("webhook.") for row in rows] == [
        "added", "secret_revealed", "test_sent", "resent", "recovered", "secret_rotated", "test_sent",
        "disabled", "enabled", "deleted"]
    assert {row.email for row in rows} == {console.email} and {row.target for row in rows} == {receiver.url}
    assert all(secret.removeprefix("whsec_") not in repr(rows) for secret in (old, new))
    activity = admin.get(f"/portal/clinics/{clinic_id}/activity").text
    assert "Rotated the signing secret of the webhook" in activity and activity.count(console.email) >= len(rows)


def test_a_clinician_is_refused_as_on_the_key_pages(app, world, engine, console, receiver):
    clinic_id = console.clinic_id
    clinician, _ = staff_browser(app, clinic_id, "clinician")
    overview = clinician.get(f"/portal/clinics/{clinic_id}")
    assert overview.html.find("a", string="Webhooks") is None
    token = overview.forms["logout"]["csrf_token"].value
    before = state(engine, console, receiver)
    base = f"/portal/clinics/{clinic_id}/webhooks"
    for path in (base, base + "/new", console.here, console.here + "/rotate", console.here + "/recover",
                 console.here + "/delete"):
        assert FORBIDDEN in clinician.get(path, status=403).text
    clinician.post(base + "/new", {"csrf_token": token, "url": "http://127.0.0.1:9/hooks"}, status=403)
    for action, fields in ACTIONS.items():
        clinician.post(f"{console.here}/{action}", {"csrf_token": token, **fields}, status=403)
    assert state(engine, console, receiver) == before


def _refused_everywhere(client, endpoint_path, token):
    client.get(endpoint_path, status=404)
    for page in ("rotate", "recover", "delete"):
        client.get(f"{endpoint_path}/{page}", status=404)
    for action, fields in ACTIONS.items():
        client.post(f"{endpoint_path}/{action}", {"csrf_token": token, **fields}, status=404)


def test_another_owners_endpoint_is_404_on_either_face(app, world, engine, console, receiver):
    other = with_clinic_endpoint(app, world, receiver.url + "/other")
    developer, workspace_id = with_workspace(app)
    theirs = endpoint_of(add_endpoint(developer, workspace_id, receiver.url + "/workspace"))
    admin, mine = console.admin, f"/portal/clinics/{console.clinic_id}/webhooks"
    token = admin.get(mine).html.find("input", attrs={"name": "csrf_token"})["value"]
    developer_token = developer.get(f"/portal/workspaces/{workspace_id}/webhooks").html.find(
        "input", attrs={"name": "csrf_token"})["value"]
    before = state(engine, console, receiver)
    for endpoint_id in (other.endpoint_id, theirs, "not-a-uuid"):
        _refused_everywhere(admin, f"{mine}/{endpoint_id}", token)
    _refused_everywhere(admin, other.here, token)
    _refused_everywhere(developer, f"/portal/workspaces/{workspace_id}/webhooks/{console.endpoint_id}",
                        developer_token)
    assert state(engine, console, receiver) == before
    assert other.endpoint_id not in admin.get(mine).text


def test_a_developer_never_opens_a_clinics_webhooks_nor_staff_a_workspaces(app, world, console):
    developer, workspace_id = with_workspace(app)
    for path in ("", "/new", f"/{console.endpoint_id}"):
        developer.get(f"/portal/clinics/{console.clinic_id}/webhooks{path}", status=404)
    for path in ("", "/new"):
        console.admin.get(f"/portal/workspaces/{workspace_id}/webhooks{path}", status=404)


@pytest.mark.parametrize("forgery", ["no token", "other origin"])
@pytest.mark.parametrize("form_id", sorted(FORMS))
def test_a_forged_webhook_form_changes_nothing(app, world, engine, receiver, form_id, forgery):
    console = with_clinic_endpoint(app, world, receiver.url)
    new_page = f"/portal/clinics/{console.clinic_id}/webhooks/new"
    form = filled_form(console.admin, console.here, new_page, form_id)
    submitted = dict(form.submit_fields())
    headers = {}
    if forgery == "no token":
        submitted.pop("csrf_token")
    else:
        headers["Origin"] = "https://attacker.example"
    before = state(engine, console, receiver)
    answer = console.admin.post(form.action, submitted, headers=headers, status=403)
    assert "Nothing was changed" in answer.text
    assert state(engine, console, receiver) == before

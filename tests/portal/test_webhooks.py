"""Webhooks in the portal: add (per mode, checked by the events service), the endpoint's page (secret only by
a POST, test event with the receiver's answer, deliveries log with filter and paging), resend, recover, rotate
with both signatures during the overlap, disable, enable, delete; another workspace's endpoints are 404; every
form needs its CSRF token; every action is in the audit trail, never a secret."""

import datetime
import re
import uuid

import pytest
from sqlalchemy import func, select

from clinicrecords.events.models import WebhookDelivery, WebhookEndpoint
from clinicrecords.portal.web.models import PortalAuditEntry
from tests.events.support import signed_by
from tests.portal.helpers import error_summary, secret_of, signed_up, submit, with_workspace


def add_endpoint(client, workspace_id, url, mode="test", types=(), status=303):
    return add_endpoint_at(client, f"/portal/workspaces/{workspace_id}/webhooks/new?mode={mode}", url, types,
                           status)


def add_endpoint_at(client, new_page, url, types=(), status=303):
    """Fill the "Add a webhook endpoint" form at `new_page` (either face) and submit it."""
    form = client.get(new_page).forms["new-endpoint"]
    form["url"] = url
    for box in form.fields.get("types", ()):
        box.checked = box._value in types
    return form.submit(status=status)


def endpoint_of(answer):
    return re.search(r"/webhooks/([0-9a-f-]{36})", answer.location).group(1)


def with_endpoint(app, url, **kwargs):
    client, workspace_id = with_workspace(app)
    endpoint_id = endpoint_of(add_endpoint(client, workspace_id, url, **kwargs))
    return client, workspace_id, endpoint_id, f"/portal/workspaces/{workspace_id}/webhooks/{endpoint_id}"


def press(client, page_url, form_id, status=200, **fields):
    """Submit the form on the page; by default the page its POST redirects to (status 200 after the 303)."""
    if status == 200:
        return submit(client.get(page_url), form_id, status=303, **fields).follow()
    return submit(client.get(page_url), form_id, status=status, **fields)


def audit_of(engine, workspace_id):
    with engine.connect() as connection:
        return connection.execute(select(PortalAuditEntry.action, PortalAuditEntry.target,
                                         PortalAuditEntry.details, PortalAuditEntry.account_id)
                                  .where(PortalAuditEntry.workspace_id == uuid.UUID(workspace_id))
                                  .order_by(PortalAuditEntry.at, PortalAuditEntry.id)).all()


def endpoint_count(engine):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(WebhookEndpoint))


def test_an_endpoint_is_added_per_mode_with_its_event_types(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(
        app, receiver.url, types=("inventory.item.created", "submission.decided"))
    page = client.get(here + "?added=1")
    assert "Endpoint added" in page.text and receiver.url in page.text
    assert "inventory.item.created, submission.decided" in page.text
    listing = client.get(f"/portal/workspaces/{workspace_id}/webhooks?mode=test")
    assert receiver.url in listing.text and endpoint_id in listing.text
    assert receiver.url not in client.get(f"/portal/workspaces/{workspace_id}/webhooks?mode=live").text
    live_id = endpoint_of(add_endpoint(client, workspace_id, receiver.url + "/live", mode="live"))
    assert "every event type" in client.get(f"/portal/workspaces/{workspace_id}/webhooks/{live_id}").text
    assert receiver.url + "/live" in client.get(f"/portal/workspaces/{workspace_id}/webhooks?mode=live").text
    added = [row for row in audit_of(engine, workspace_id) if row.action == "webhook.added"]
    assert [(row.target, row.details["mode"]) for row in added] == [(receiver.url, "test"),
                                                                     (receiver.url + "/live", "live")]
    assert added[0].details["types"] == ["inventory.item.created", "submission.decided"]
    assert added[0].account_id is not None


@pytest.mark.parametrize("url, message", [
    ("", "Enter the URL that receives the events"),
    ("ftp://example.org/hooks", "The URL must be http(s)://host/..."),
    ("http://93.184.215.14/hooks",
     "Plain http is accepted only to a loopback address (development); use https"),
    ("https://user:pw@example.org/hooks", "The URL may not carry credentials"),
])
def test_a_refused_url_is_named_by_its_field_and_nothing_is_added(app, engine, url, message):
    client, workspace_id = with_workspace(app)
    before = endpoint_count(engine)
    page = add_endpoint(client, workspace_id, url, status=400, types=("inventory.item.created",))
    assert error_summary(page) == [message]
    assert message in page.html.find(id="url-error").get_text()
    assert page.html.find(id="url")["value"] == url
    ticked = page.html.find_all("input", attrs={"name": "types", "checked": True})
    assert [box["value"] for box in ticked] == ["inventory.item.created"]
    assert endpoint_count(engine) == before


def test_an_unknown_event_type_or_mode_is_refused(app, engine, receiver):
    client, workspace_id = with_workspace(app)
    page = client.get(f"/portal/workspaces/{workspace_id}/webhooks/new")
    token = page.html.find("input", attrs={"name": "csrf_token"})["value"]
    before = endpoint_count(engine)
    answer = client.post(f"/portal/workspaces/{workspace_id}/webhooks/new",
                         [("csrf_token", token), ("mode", "test"), ("url", receiver.url),
                          ("types", "no.such.type")],
                         status=400)
    assert error_summary(answer)[0].startswith("Unknown event type(s): no.such.type")
    assert answer.html.find(id="types-error") is not None
    answer = client.post(f"/portal/workspaces/{workspace_id}/webhooks/new",
                         {"csrf_token": token, "mode": "staging", "url": receiver.url}, status=400)
    assert error_summary(answer) == ["Choose test or live"]
    assert endpoint_count(engine) == before


def test_the_secret_is_revealed_only_by_a_post_and_signs_the_deliveries(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    page = client.get(here)
    assert page.html.find(id="secret") is None and "whsec_" not in page.text
    revealed = press(client, here, "reveal-secret")
    secret = secret_of(revealed)
    assert secret.startswith("whsec_") and revealed.headers["Cache-Control"] == "no-store"
    press(client, here, "send-test")
    assert signed_by(receiver.requests[-1], [secret])["type"] == "webhook.ping"
    rows = audit_of(engine, workspace_id)
    assert "webhook.secret_revealed" in [row.action for row in rows]
    assert secret.removeprefix("whsec_") not in repr(rows)


def test_a_test_event_shows_the_answer_and_lands_in_the_deliveries_log(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    receiver.body = b"x" * 3000
    page = press(client, here, "send-test")
    answer = page.html.find(id="test-answer")
    assert "Test event delivered" in page.html.find("h1").get_text()
    assert "200" in answer.get_text() and " ms" in answer.get_text()
    assert answer.find("pre").get_text() == "x" * 1024
    delivery = page.html.find("tr", class_="delivery")
    assert "webhook.ping" in delivery.get_text() and "delivered" in delivery.get_text()
    attempt = page.html.find("tr", class_="attempt")
    assert "200" in attempt.get_text() and attempt.find("pre").get_text() == "x" * 1024
    assert "webhook.test_sent" in [row.action for row in audit_of(engine, workspace_id)]

    receiver.default = 500
    refused = press(client, here, "send-test")
    assert "Test event not delivered" in refused.html.find("h1").get_text()
    assert "500" in refused.html.find(id="test-answer").get_text()
    failed = client.get(here + "?status=failed").html.find_all("tr", class_="delivery")
    assert len(failed) == 1 and "500" in failed[0].find_next_sibling("tr", class_="attempt").get_text()
    assert not client.get(here + "?status=pending").html.find_all("tr", class_="delivery")
    delivered = client.get(here + "?status=delivered").html.find_all("tr", class_="delivery")
    assert len(delivered) == 1
    assert len(client.get(here + "?status=nonsense").html.find_all("tr", class_="delivery")) == 2


def test_the_deliveries_log_pages_newest_first(app, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    for _ in range(21):
        press(client, here, "send-test")
    first = client.get(here)
    assert len(first.html.find_all("tr", class_="delivery")) == 20
    older = first.click("Older deliveries")
    rows = older.html.find_all("tr", class_="delivery")
    assert len(rows) == 1 and "Older deliveries" not in older.text
    assert rows[0]["id"] not in {row["id"] for row in first.html.find_all("tr", class_="delivery")}
    assert len(older.click("Newest deliveries").html.find_all("tr", class_="delivery")) == 20


def test_resend_makes_a_new_delivery_of_the_same_event(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    page = press(client, here, "send-test")
    delivery_id = page.html.find("tr", class_="delivery")["id"].removeprefix("delivery-")
    answer = submit(page, f"resend-{delivery_id}", status=303)
    assert "Delivery sent again" in answer.follow().text
    with engine.connect() as connection:
        events = connection.execute(select(WebhookDelivery.event_id).where(
            WebhookDelivery.endpoint_id == uuid.UUID(endpoint_id))).scalars().all()
    assert len(events) == 2 and events[0] == events[1]
    resent = [row for row in audit_of(engine, workspace_id) if row.action == "webhook.resent"]
    assert resent[0].details["delivery_id"] == delivery_id

    press(client, here, "disable", status=303)
    refused = submit(client.get(here), f"resend-{delivery_id}", status=400)
    assert error_summary(refused) == [
        "The endpoint is disabled: enable it (or send a successful test event) first"]


# Ids of their own: a time in a test's id would differ between worker processes that collect a minute apart.
@pytest.mark.parametrize("since, message", [
    pytest.param("", "Enter a time like 2026-11-24T08:00 (UTC)", id="empty"),
    pytest.param("yesterday", "Enter a time like 2026-11-24T08:00 (UTC)", id="words"),
    pytest.param((datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=40)).strftime("%Y-%m-%dT%H:%M"),
                 "The time must be within the last 30 days (events are kept that long)", id="40-days-ago"),
])
def test_recover_refuses_a_bad_time_by_its_field(app, engine, receiver, since, message):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    page = press(client, here + "/recover", "recover", status=400, since=since)
    assert error_summary(page) == [message] and page.html.find(id="since-error") is not None
    assert "webhook.recovered" not in [row.action for row in audit_of(engine, workspace_id)]


def test_recover_queues_the_kept_events_since_a_time(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    since = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    answer = press(client, here + "/recover", "recover", status=303, since=since)
    assert "event(s) queued again" in answer.follow().text
    recovered = [row for row in audit_of(engine, workspace_id) if row.action == "webhook.recovered"]
    assert recovered[0].details["since"].startswith(since)


def test_rotation_signs_with_both_secrets_during_the_overlap(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    old = secret_of(press(client, here, "reveal-secret"))
    confirm = client.get(here + "/rotate")
    assert "both signatures" in confirm.text and receiver.url in confirm.text
    token = confirm.html.find("input", attrs={"name": "csrf_token"})["value"]
    bad = client.post(here + "/rotate", {"csrf_token": token, "overlap": "forever"}, status=400)
    assert error_summary(bad) == ["Choose how long the current secret keeps signing"]
    assert secret_of(press(client, here, "reveal-secret")) == old

    rotated = submit(confirm, "rotate", overlap="24h", status=303).follow()
    new = secret_of(rotated)
    assert new != old and rotated.headers["Cache-Control"] == "no-store"
    assert "every delivery carries both signatures" in rotated.text
    assert secret_of(press(client, here, "reveal-secret")) == new
    assert "also signs until" in client.get(here).text
    press(client, here, "send-test")
    signed_by(receiver.requests[-1], [old, new])

    submit(client.get(here + "/rotate"), "rotate", overlap="now")
    newest = secret_of(press(client, here, "reveal-secret"))
    press(client, here, "send-test")
    signed_by(receiver.requests[-1], [newest], not_by=[old, new])
    rows = [row for row in audit_of(engine, workspace_id) if row.action == "webhook.secret_rotated"]
    assert [row.details["overlap"] for row in rows] == ["24h", "now"]
    audit = repr(audit_of(engine, workspace_id))
    assert all(secret.removeprefix("whsec_") not in audit for secret in (old, new, newest))


def test_disable_says_why_and_enable_resumes(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    disabled = press(client, here, "disable", status=303).follow()
    assert "Endpoint disabled" in disabled.text and "disabled by its owner" in disabled.text
    assert "enable" in disabled.forms and "disable" not in disabled.forms
    enabled = submit(disabled, "enable", status=303).follow()
    assert "Endpoint enabled" in enabled.text and "disable" in enabled.forms
    actions = [row.action for row in audit_of(engine, workspace_id)]
    assert actions.count("webhook.disabled") == 1 and actions.count("webhook.enabled") == 1


def test_delete_asks_naming_the_endpoint_then_deletes_it(app, engine, receiver):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    press(client, here, "send-test")
    confirm = client.get(here + "/delete")
    assert f"Delete webhook endpoint {receiver.url}?" in confirm.html.find("h1").get_text()
    done = submit(confirm, "delete", status=303).follow()
    assert f"Webhook endpoint {receiver.url} deleted" in done.html.find(id="notice").get_text()
    assert "deleted" not in client.get(done.request.url).text  # a notice is shown once
    client.get(here, status=404)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(WebhookDelivery).where(
            WebhookDelivery.endpoint_id == uuid.UUID(endpoint_id))) == 0
    deleted = [row for row in audit_of(engine, workspace_id) if row.action == "webhook.deleted"]
    assert deleted[0].target == receiver.url


def test_a_developer_manages_webhooks_and_the_audit_names_them(app, engine, receiver):
    owner, workspace_id = with_workspace(app)
    developer, email = signed_up(app)
    link = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                  role="developer", status=303).follow().html.find(id="invitation-link").get_text().strip()
    submit(developer.get(link), "join", status=303)
    endpoint_id = endpoint_of(add_endpoint(developer, workspace_id, receiver.url))
    here = f"/portal/workspaces/{workspace_id}/webhooks/{endpoint_id}"
    assert secret_of(press(developer, here, "reveal-secret")).startswith("whsec_")
    submit(developer.get(here + "/rotate"), "rotate", overlap="1h")
    submit(developer.get(here + "/delete"), "delete")
    activity = owner.get(f"/portal/workspaces/{workspace_id}/activity").text
    for sentence in ("Added the webhook", "Revealed the signing secret of the webhook",
                     "Rotated the signing secret of the webhook", "Deleted the webhook"):
        assert sentence in activity
    assert activity.count(email) >= 4


ACTIONS = {"secret": {}, "test": {}, "disable": {}, "enable": {}, "resend": {"delivery_id": ""},
           "recover": {"since": "2026-11-24T08:00"}, "rotate": {"overlap": "now"}, "delete": {}}


def test_another_workspaces_endpoints_are_404(app, engine, receiver):
    _, _, endpoint_id, theirs = with_endpoint(app, receiver.url)
    client, mine = with_workspace(app)
    listing = client.get(f"/portal/workspaces/{mine}/webhooks")
    token = listing.html.find("input", attrs={"name": "csrf_token"})["value"]
    before = endpoint_count(engine)
    for path in (f"/portal/workspaces/{mine}/webhooks/{endpoint_id}", theirs,
                 f"/portal/workspaces/{mine}/webhooks/not-a-uuid"):
        client.get(path, status=404)
        for page in ("rotate", "recover", "delete"):
            client.get(f"{path}/{page}", status=404)
        for action, fields in ACTIONS.items():
            client.post(f"{path}/{action}", {"csrf_token": token, **fields}, status=404)
    assert endpoint_count(engine) == before
    assert receiver.requests == []


FORMS = {"new-endpoint": ("/new", {"url": "http://127.0.0.1:9/hooks"}), "reveal-secret": ("", {}),
         "send-test": ("", {}), "disable": ("", {}), "enable": ("", {}), "resend": ("", {}),
         "rotate": ("/rotate", {"overlap": "now"}), "recover": ("/recover", {"since": "2026-11-24T08:00"}),
         "delete": ("/delete", {})}


def deliveries_of(engine, endpoint_id):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(WebhookDelivery).where(
            WebhookDelivery.endpoint_id == uuid.UUID(endpoint_id)))


def filled_form(client, here, new_page, form_id):
    """The webhook form `form_id` (FORMS) filled in on its page, after what it needs (an endpoint to enable is
    disabled first, one to resend a delivery of has a test event); `here` is the endpoint's page."""
    path, fields = FORMS[form_id]
    if form_id == "enable":
        press(client, here, "disable", status=303)
    if form_id == "resend":
        press(client, here, "send-test")
    page = client.get(new_page if form_id == "new-endpoint" else here + path)
    form = page.forms[next(name for name in page.forms if str(name).startswith(form_id))]
    for name, value in fields.items():
        form[name] = value
    return form


@pytest.mark.parametrize("form_id", sorted(FORMS))
def test_every_webhook_form_needs_its_csrf_token(app, engine, receiver, form_id):
    client, workspace_id, endpoint_id, here = with_endpoint(app, receiver.url)
    form = filled_form(client, here, f"/portal/workspaces/{workspace_id}/webhooks/new", form_id)
    submitted = dict(form.submit_fields())
    submitted.pop("csrf_token")

    def state():
        """Everything a webhook form could change; the reveal's own audit row is not counted."""
        audit = len(audit_of(engine, workspace_id))
        return (endpoint_count(engine), deliveries_of(engine, endpoint_id), len(receiver.requests), audit,
                secret_of(press(client, here, "reveal-secret")),
                client.get(here).html.find("dl", class_="summary").get_text())

    before = state()
    answer = client.post(form.action, submitted, status=403)
    assert "Nothing was changed" in answer.text
    after = state()
    assert after[:3] == before[:3] and after[4:] == before[4:]
    assert after[3] == before[3] + 1  # the reveal inside the first state() only

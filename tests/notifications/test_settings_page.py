"""Decision 0095: each person sets their notifications on /account/notifications (GOV.UK checkboxes, no
script needed), every one on until turned off; a partner sees the workspace's, clinic staff the clinic's.
Bad values are a message by the field with what was ticked kept; a forged form changes nothing."""

from sqlalchemy import text

from tests.notifications.helpers import turn_off
from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import error_summary, signed_up

PAGE = "/portal/account/notifications"
WORKSPACE_KINDS = ["connection_changed", "profile_reviewed", "domain_lapsed", "webhook_failing", "webhook_disabled"]
CLINIC_KINDS = ["connection_requested", "webhook_failing", "webhook_disabled", "review_digest"]


def _boxes(page):
    return {box._value: box.checked for box in page.forms["notifications"].fields["notify"]}


def _turned_off(engine, email):
    with engine.connect() as connection:
        return sorted(connection.scalars(text(
            "SELECT kind FROM control.notifications_turned_off JOIN control.accounts ON accounts.id = account_id "
            "WHERE accounts.email = :email"), {"email": email}))


def test_a_partner_sees_the_workspace_s_notifications_all_on_and_turns_some_off(app, engine):
    client, email = signed_up(app)
    page = client.get(PAGE)
    assert page.html.find("h1").get_text() == "Notifications"
    assert _boxes(page) == {name: True for name in WORKSPACE_KINDS}
    assert "Sent to the workspace's owners" in page.html.get_text()
    assert page.html.find("a", href=PAGE).get_text() == "Notifications", "the masthead links to the page"

    saved = turn_off(client, "domain_lapsed", "webhook_failing").follow()
    assert saved.html.find(id="saved").h1.get_text() == "Notifications saved"
    assert _boxes(saved) == {name: name not in ("domain_lapsed", "webhook_failing") for name in WORKSPACE_KINDS}
    assert _turned_off(engine, email) == ["domain_lapsed", "webhook_failing"]

    form = saved.forms["notifications"]
    for box in form.fields["notify"]:
        box.checked = box._value == "webhook_failing"
    form.submit(status=303)
    assert _turned_off(engine, email) == ["connection_changed", "domain_lapsed", "profile_reviewed",
                                          "webhook_disabled"]
    assert [name for name, on in _boxes(client.get(PAGE)).items() if on] == ["webhook_failing"]


def test_clinic_staff_see_the_clinic_s_notifications(app, world, engine):
    clinic_id = world.clinic()
    client, email = staff_browser(app, clinic_id, "clinician")
    page = client.get(PAGE)
    assert _boxes(page) == {name: True for name in CLINIC_KINDS}
    assert "Sent to the clinic's clinicians each morning" in page.html.get_text()
    turn_off(client, "review_digest")
    assert _turned_off(engine, email) == ["review_digest"]


def test_a_value_not_on_the_page_is_a_message_and_changes_nothing(app, engine):
    client, email = signed_up(app)
    page = client.get(PAGE)
    csrf = page.forms["notifications"]["csrf_token"].value
    for bad in (["review_digest"], ["no_such_notification"], ["connection_changed", "x" * 5000]):
        answer = client.post(PAGE, [("csrf_token", csrf), *(("notify", value) for value in bad)], status=400)
        assert error_summary(answer) == ["Choose only among the notifications listed"]
        assert answer.html.find(id="notify-error") is not None
        kept = _boxes(answer)
        assert kept["connection_changed"] is ("connection_changed" in bad)
        assert not any(kept[name] for name in WORKSPACE_KINDS if name not in bad), "what was ticked is kept"
    nul = client.post(PAGE, [("csrf_token", csrf), ("notify", "connection_changed\x00")], status=400)
    assert error_summary(nul)[0].startswith("This contains a NUL character")
    assert _turned_off(engine, email) == []


def test_a_forged_form_changes_nothing(app, engine):
    client, email = signed_up(app)
    client.get(PAGE)
    answer = client.post(PAGE, {"notify": "webhook_failing"}, status=403)
    assert "Nothing was changed" in answer.text
    csrf = client.get(PAGE).forms["notifications"]["csrf_token"].value
    client.post(PAGE, {"csrf_token": csrf, "notify": "webhook_failing"},
                headers={"Origin": "https://attacker.example"}, status=403)
    assert _turned_off(engine, email) == []


def test_signed_out_the_page_asks_to_log_in(app):
    from tests.portal.helpers import browser

    answer = browser(app).get(PAGE, status=302)
    assert "/portal/login" in answer.location

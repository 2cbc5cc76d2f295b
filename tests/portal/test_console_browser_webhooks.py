"""The clinic's own webhooks in a real browser (the same headless chromium as test_browser.py): a clinic admin
adds an endpoint pointing at a receiver this test runs on 127.0.0.1, reveals its signing secret, sends a test
event, and the receiver gets it with a signature the `standardwebhooks` library verifies against the secret
read from the page; an event of the clinic follows, and the endpoint's deliveries log shows both. Every page
visited is saved as a screenshot (docs/portal.md describes them)."""

import re

from selenium.webdriver.common.by import By

from tests.common.cli import ok
from tests.events.support import Receiver, emit_events, signed_by
from tests.portal.helpers import PASSWORD, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)
from tests.portal.test_browser_webhooks import add_reveal_and_test


def test_a_clinic_admin_receives_signed_webhooks_of_the_clinic(served, chrome, tmp_path, world):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)
    clinic_id = world.clinic("Harbour Clinic")
    link = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", unique_email("admin"),
              "--role", "admin")["set_password_url"]
    chrome.get(served + re.sub(r"^https?://[^/]+", "", link))
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")

    with Receiver(default=200, body=b'{"received": true}') as receiver:
        visit.follow("Webhooks")
        assert "No live endpoints yet" in chrome.page_source and "Test endpoints" not in chrome.page_source
        visit.shot("console-webhooks-empty")
        visit.follow("Add a live endpoint")
        assert "A live endpoint" in chrome.page_source and not chrome.find_elements(By.NAME, "mode")
        secret = add_reveal_and_test(visit, receiver, prefix="console-")

        [event] = emit_events(world, clinic_id)  # the clinic's own change, as its till or staff would make
        assert signed_by(receiver.requests[-1], [secret])["id"] == str(event.id)
        visit.follow("Webhooks")
        assert "enabled" in chrome.find_element(By.TAG_NAME, "table").text.lower()
        visit.shot("console-webhooks")
        visit.follow(receiver.url)
        rows = chrome.find_elements(By.CSS_SELECTOR, "tr.delivery")
        assert [row.text.split()[2] for row in rows] == ["inventory.item.created", "webhook.ping"]
        visit.shot("console-webhook-deliveries")
        visit.follow("Activity")
        activity = chrome.find_element(By.ID, "activity").text
        assert "Sent a test event to the webhook" in activity and "Revealed the signing secret" in activity
        visit.shot("console-webhook-activity")
    assert visit.saved() == 8

"""Webhooks in a real browser (the same headless chromium as test_browser.py): a developer adds an endpoint
pointing at a receiver this test runs on 127.0.0.1, reveals its signing secret, sends a test event and finds
it in the deliveries log, rotates the secret with a 24-hour overlap, and the next delivery carries both
signatures, each verified with the `standardwebhooks` library against the secrets read from the pages.
Every page visited is saved as a screenshot (docs/portal.md describes them)."""

from selenium.webdriver.common.by import By

from tests.events.support import Receiver, signed_by
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def add_reveal_and_test(visit, receiver, prefix="", types=()):
    """On the "Add a webhook endpoint" page (either face): a refused URL, then the receiver's (ticking
    `types`); reveal the secret and send a test event, which the receiver gets signed by it. Returns the
    secret; saves `<prefix>webhook-new-errors`, `-added`, `-secret` and `-tested`."""
    driver = visit.driver
    visit.fill(url="ftp://example.org/hooks")
    visit.press("Add endpoint")
    assert "The URL must be http(s)://host/..." in driver.find_element(By.ID, "url-error").text
    visit.shot(prefix + "webhook-new-errors")
    visit.fill(url=receiver.url)
    for name in types:
        driver.find_element(By.CSS_SELECTOR, f"input[value='{name}']").click()
    visit.press("Add endpoint")
    assert "Endpoint added" in driver.page_source and "whsec_" not in driver.page_source
    visit.shot(prefix + "webhook-added")

    visit.press("Reveal signing secret")
    secret = driver.find_element(By.ID, "secret").text.strip()
    assert secret.startswith("whsec_")
    visit.shot(prefix + "webhook-secret")
    visit.press("Send test event")
    assert "Test event delivered" in driver.find_element(By.TAG_NAME, "h1").text
    assert '{"received": true}' in driver.find_element(By.ID, "test-answer").text
    log = driver.find_element(By.CLASS_NAME, "deliveries").text.lower()
    assert "webhook.ping" in log and "delivered" in log
    assert signed_by(receiver.requests[-1], [secret])["type"] == "webhook.ping"
    visit.shot(prefix + "webhook-tested")
    return secret


def test_a_developer_receives_signed_webhooks_across_a_rotation(served, chrome, tmp_path):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "hooks")

    with Receiver(default=200, body=b'{"received": true}') as receiver:
        visit.follow("Webhooks")
        assert "No test endpoints yet" in chrome.page_source
        visit.shot("webhooks-empty")
        visit.follow("Add a test endpoint")
        old = add_reveal_and_test(visit, receiver, types=("inventory.item.created", "inventory.item.updated"))

        visit.follow("Rotate the secret")
        assert "both signatures" in chrome.page_source
        visit.shot("webhook-rotate")
        visit.press("Rotate secret")
        new = chrome.find_element(By.ID, "secret").text.strip()
        assert new.startswith("whsec_") and new != old
        visit.shot("webhook-rotated")
        visit.follow("Back to the endpoint")
        visit.press("Send test event")
        assert "Test event delivered" in chrome.find_element(By.TAG_NAME, "h1").text
        signed_by(receiver.requests[-1], [old, new])  # both signatures in webhook-signature, each verified
        assert len(chrome.find_elements(By.CSS_SELECTOR, "tr.delivery")) == 2
        visit.shot("webhook-deliveries")

        visit.follow("Recover events since…")
        visit.shot("webhook-recover")
        visit.follow("Cancel")
        visit.press("Disable endpoint")
        assert "disabled by its owner" in chrome.page_source
        visit.shot("webhook-disabled")
        visit.follow("Delete endpoint")
        assert f"Delete webhook endpoint {receiver.url}?" in chrome.find_element(By.TAG_NAME, "h1").text
        visit.shot("webhook-delete")
        visit.follow("Activity")
        assert "Rotated the signing secret of the webhook" in chrome.page_source
        assert "Added the webhook" in chrome.page_source
        visit.shot("webhook-activity")
    print(f"screenshots: {folder}")
    assert visit.saved() == 12

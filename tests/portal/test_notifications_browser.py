"""Decision 0095 in a real browser (headless chromium against the real application on 127.0.0.1): a new
partner opens their notification settings from the masthead, every notification ticked; unticks two and saves;
a value the page does not offer is refused with the GOV.UK error summary. No script on the page: the form
posts as plain HTML. Screenshots at 1280 and 375 px, as tests/portal/test_browser.py saves them."""

from selenium.webdriver.common.by import By

from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)


def _ticked(driver):
    return {box.get_attribute("value"): box.is_selected()
            for box in driver.find_elements(By.CSS_SELECTOR, "input[name=notify]")}


def test_a_partner_turns_two_notifications_off(served, chrome, tmp_path):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "notices", name="Acme Health")
    visit.follow("Account")
    visit.follow("Notifications")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Notifications"
    assert chrome.find_elements(By.TAG_NAME, "script") == []
    assert set(_ticked(chrome).values()) == {True} and len(_ticked(chrome)) == 5
    visit.shot("notifications")

    for name in ("domain_lapsed", "webhook_failing"):  # a click on the label, as people do
        box = chrome.find_element(By.CSS_SELECTOR, f"input[value={name}]")
        chrome.find_element(By.CSS_SELECTOR, f"label[for='{box.get_attribute('id')}']").click()
    visit.press("Save notifications")
    assert "Notifications saved" in chrome.find_element(By.ID, "saved").text
    assert [name for name, on in _ticked(chrome).items() if not on] == ["domain_lapsed", "webhook_failing"]
    visit.shot("notifications-saved")

    chrome.execute_script("document.querySelector('input[value=connection_changed]').value = 'review_digest'")
    visit.press("Save notifications")
    summary = chrome.find_element(By.CLASS_NAME, "error-summary")
    assert "Choose only among the notifications listed" in summary.text
    assert chrome.find_element(By.ID, "notify-error").is_displayed()
    visit.shot("notifications-refused")
    print(f"screenshots: {folder}")
    assert visit.saved() == 3

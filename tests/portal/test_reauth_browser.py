"""Decisions 0091 and 0092 in a real browser (headless chromium against the real application on 127.0.0.1):
past the 10 minutes, inviting an owner leads to "Confirm it's you", a wrong password is refused by the field, the
right one comes to "Continue where you were" with the invitation as typed, which one button sends; the
sessions page lists this browser and a phone, and ends the
phone's session. Screenshots at 1280 and 375 px, as tests/portal/test_browser.py saves them."""

import webtest
from selenium.webdriver.common.by import By

from tests.portal.helpers import PASSWORD, submit
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)

CHROME_ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.6478.122 Mobile Safari/537.36")


def _invite_owner(visit, email):
    visit.fill(email=email)
    visit.driver.find_element(By.CSS_SELECTOR, "input[name=role][value=owner]").click()
    visit.press("Send invitation")


def test_confirm_its_you_then_the_sessions_page(app, served, chrome, tmp_path, session_clock):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "sudo")
    members = chrome.current_url.split("?")[0] + "/members"
    email = chrome.find_element(By.CLASS_NAME, "who").text
    phone = webtest.TestApp(app, extra_environ={"REMOTE_ADDR": "203.0.113.5", "HTTP_USER_AGENT": CHROME_ANDROID})
    submit(phone.get("/portal/login"), "login", email=email, password=PASSWORD, status=303)

    session_clock.move(minutes=11)
    chrome.get(members)
    _invite_owner(visit, "second-owner@example.org")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Confirm it's you"
    visit.shot("confirm")
    visit.fill(password="not the password at all")
    visit.press("Confirm")
    assert "Your password is not right" in chrome.find_element(By.ID, "password-error").text
    visit.shot("confirm-error")
    visit.fill(password=PASSWORD)
    visit.press("Confirm")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Continue where you were"
    typed = chrome.find_element(By.ID, "as-typed").text
    assert "second-owner@example.org" in typed and "owner" in typed
    assert chrome.find_element(By.ID, "back-to-form").get_attribute("href") == members
    visit.shot("continue-where-you-were")
    visit.press("Continue")
    assert "Invitation sent" in chrome.page_source

    chrome.get(f"{served}/portal/account/sessions")
    cards = [card.find_element(By.TAG_NAME, "h2").text for card in chrome.find_elements(By.CLASS_NAME, "session")]
    assert len(cards) == 2 and "Chrome 126 on Android" in cards
    assert any(card.lower().endswith("this session") for card in cards)  # the tag is set in capitals
    visit.shot("sessions")
    visit.press("End this session")
    assert chrome.find_element(By.CSS_SELECTOR, "#ended h1").text == "Session ended"
    visit.shot("sessions-ended")
    assert "/portal/login" in phone.get("/portal/", status=302).location
    print(f"screenshots: {folder}")
    assert visit.saved() == 5

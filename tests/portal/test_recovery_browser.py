"""Decision 0089 in a real browser (headless chromium against the real application on 127.0.0.1, the
mail read from the real SMTP server on loopback): sign-up → the emailed link → verified; forgot password →
the emailed link → a new password → every old session gone. Screenshots at 1280 and 375 px, as
tests/portal/test_browser.py saves them."""

from selenium.webdriver.common.by import By

from tests.portal.helpers import PASSWORD, mailed_to, portal_path, signed_up, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)

NEW_PASSWORD = "a brand new passphrase 271"


def _open(driver, served, link):
    """An emailed link, opened on the server under test (links name the portal's public address)."""
    driver.get(served + portal_path(link))


def test_sign_up_then_the_emailed_link_verifies_the_address(served, chrome, tmp_path, mail):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    email = unique_email("verify")
    chrome.get(f"{served}/portal/signup")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Create account")
    assert f"We sent a link to {email}" in chrome.find_element(By.ID, "sent").text
    visit.shot("signup-sent")
    visit.log_in(email)
    chrome.get(f"{served}/portal/account/email")
    assert "not verified yet" in chrome.find_element(By.ID, "email-status").text
    visit.shot("email-unverified")

    message = mailed_to(mail, email, "Verify your email address for Clinic Records")
    _open(chrome, served, message.link("/verify-email"))
    assert email in chrome.page_source
    visit.shot("verify-email")
    visit.press("Verify my address")
    assert "Email address verified" in chrome.find_element(By.ID, "verified").text
    visit.shot("verified")
    chrome.get(f"{served}/portal/account/email")
    assert chrome.find_element(By.ID, "email-status").text == f"{email}: verified."
    _open(chrome, served, message.link("/verify-email"))
    assert "expired or was already used" in chrome.find_element(By.ID, "link-problem").text
    visit.shot("verify-used")
    print(f"screenshots: {folder}")
    assert visit.saved() == 5


def test_forgot_password_then_a_new_password_ends_the_old_sessions(app, served, chrome, tmp_path, mail):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    elsewhere, email = signed_up(app)  # signed in on another browser
    assert elsewhere.get("/portal/").status_int == 200
    chrome.get(f"{served}/portal/login")
    visit.follow("Forgot your password?")
    visit.shot("forgot-password")
    visit.fill(email=email)
    visit.press("Send the link")
    assert f"We sent a message to {email}" in chrome.find_element(By.ID, "sent").text
    visit.shot("forgot-sent")

    _open(chrome, served, mailed_to(mail, email, "Reset your Clinic Records password").link("/reset-password"))
    visit.shot("reset-password")
    visit.fill(password="short")
    visit.press("Set the new password")
    assert "12 characters" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("reset-errors")
    visit.fill(password=NEW_PASSWORD)
    visit.press("Set the new password")
    assert "Password changed" in chrome.find_element(By.ID, "reset-done").text
    visit.shot("reset-done")

    assert elsewhere.get("/portal/", status=302).location.startswith("http://localhost/portal/login")
    assert "signed out" in mailed_to(mail, email, "Your Clinic Records password was changed").text
    visit.fill(email=email, password=NEW_PASSWORD)
    visit.press("Log in")
    assert email in chrome.find_element(By.CLASS_NAME, "who").text
    print(f"screenshots: {folder}")
    assert visit.saved() == 5

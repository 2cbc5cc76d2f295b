"""Second factors in a real browser (decision 0096), headless chromium against the real server: an authenticator app
set up from the page's secret as text (the code computed as an app would, with pyotp) and a sign-in with a code;
a passkey registered with Chrome's virtual authenticator, then signing in with it alone and as the second step
(the portal browsed as `localhost`: WebAuthn refuses IP addresses); a clinician without a factor led to set one
up before the review queue opens. Each page is saved at 1280 and 375 px (docs/portal.md, "Screenshots")."""

import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

from tests.common.cli import ok
from tests.portal.helpers import PASSWORD, totp_code, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def _visit(chrome, tmp_path):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    return Visit(chrome, folder)


def _signed_up(visit, base_url):
    visit.driver.get(f"{base_url}/portal/signup")
    email = unique_email("factors")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Create account")
    visit.log_in(email)
    return email


def test_an_authenticator_app_from_the_secret_as_text_then_a_sign_in_with_a_code(served, chrome, tmp_path):  # noqa: F811
    visit = _visit(chrome, tmp_path)
    email = _signed_up(visit, served)
    visit.follow("Account")
    visit.follow("Two-factor")
    assert chrome.find_element(By.ID, "status").text == "OFF"
    visit.shot("two-factor-off")
    visit.press("Set up an authenticator app")
    assert chrome.find_element(By.CSS_SELECTOR, "#qr svg").is_displayed()
    secret = chrome.find_element(By.ID, "secret-text").text.replace(" ", "")
    visit.fill(code="000000" if totp_code(secret) != "000000" else "111111")
    visit.press("Confirm the app")
    assert "The code is not right" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("two-factor-app-wrong-code")
    visit.fill(code=totp_code(secret))
    visit.press("Confirm the app")
    codes = [item.text for item in chrome.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]
    assert len(codes) == 10
    visit.shot("recovery-codes")
    visit.follow("I have saved them: back to two-factor authentication")
    assert chrome.find_element(By.ID, "status").text == "ON"
    visit.shot("two-factor-on")

    visit.press("Log out")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Log in")
    assert "/portal/login/second-step" in chrome.current_url and chrome.find_elements(By.ID, "second-step")
    visit.shot("second-step")
    visit.fill(code=totp_code(secret, 1))
    visit.press("Continue")
    assert chrome.find_element(By.CLASS_NAME, "who").text == email

    # Five wrong codes, and the sixth is refused unchecked with when to try again.
    visit.press("Log out")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Log in")
    for _ in range(6):
        visit.fill(code="000000" if totp_code(secret) != "000000" else "111111")
        visit.press("Continue")
    assert "Too many wrong codes. Try again in 15 minutes" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("second-step-too-many-codes")
    assert visit.saved() == 6


def test_a_passkey_registered_then_signing_in_alone_and_as_the_second_step(served, chrome, tmp_path):  # noqa: F811
    base_url = served.replace("127.0.0.1", "localhost")
    chrome.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True, has_user_verification=True,
        is_user_consenting=True, is_user_verified=True))
    try:
        visit = _visit(chrome, tmp_path)
        email = _signed_up(visit, base_url)
        chrome.get(f"{base_url}/portal/account/two-factor")
        visit.follow("Add a passkey")
        visit.shot("passkey-new")
        visit.fill(name="This laptop")
        visit.press("Add a passkey")
        assert len(chrome.find_elements(By.CSS_SELECTOR, "#recovery-codes li")) == 10
        visit.follow("I have saved them: back to two-factor authentication")
        assert "This laptop" in chrome.find_element(By.ID, "passkeys").text
        visit.shot("two-factor-passkey")
        assert len(chrome.get_credentials()) == 1 and chrome.get_credentials()[0].is_resident_credential

        visit.press("Log out")
        visit.shot("login-with-passkey")
        visit.press("Sign in with a passkey")  # options fetched at the press; no email, no password
        assert chrome.find_element(By.CLASS_NAME, "who").text == email

        visit.press("Log out")
        visit.fill(email=email, password=PASSWORD)
        visit.press("Log in")
        visit.shot("second-step-passkey")
        visit.press("Use a passkey")
        assert chrome.find_element(By.CLASS_NAME, "who").text == email
        assert visit.saved() == 4
    finally:
        chrome.remove_virtual_authenticator()


def test_a_clinician_without_a_factor_is_led_to_set_one_up_before_the_queue(served, chrome, tmp_path,  # noqa: F811
                                                                            world):
    visit = _visit(chrome, tmp_path)
    clinic_id = world.clinic(name="Harbour Clinic")
    link = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", unique_email("clinician"),
              "--role", "clinician")["set_password_url"]
    chrome.get(served + re.sub(r"^https?://[^/]+", "", link))
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    visit.follow("Review queue")
    assert "required=patient_data" in chrome.current_url
    assert "before any page that shows patient data opens" in chrome.find_element(By.ID, "required").text
    visit.shot("staff-led-to-two-factor")
    visit.set_up_app(shots=("enrol", "codes"))
    WebDriverWait(chrome, 30).until(lambda driver: driver.current_url.endswith(f"/clinics/{clinic_id}/queue"))
    assert "Review queue" in chrome.page_source
    visit.shot("queue-after-two-factor")
    assert visit.saved() == 4

"""Refusals (decisions 0067, 0068) as a browser shows them, at 1280 and 375 pixels wide: "Check now" pressed again at
once (429, the message by the button), and the review queue's filter given text it cannot take (400, the
message by the field and what was typed without the NUL). Screenshots under the test's temporary folder."""

import re

from selenium.webdriver.common.by import By

from tests.common.cli import ok
from tests.onboarding.helpers import unique_domain
from tests.portal.helpers import PASSWORD, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def test_check_now_pressed_twice_and_a_refused_filter(served, chrome, tmp_path, world):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "refusals")
    visit.follow("Domain")
    visit.fill(domain=unique_domain())
    visit.press("Show the record to publish")
    visit.press("Check now")
    assert "Checked just now" in chrome.page_source
    visit.press("Check now")
    message = chrome.find_element(By.ID, "check-error").text
    assert "The domain was checked moments ago: check again in" in message
    assert "There is a problem" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("domain-check-refused")

    connected = world.connected()
    link = ok("clinic", "staff", "add", "--clinic", connected.clinic_id, "--email", unique_email("clinician"),
              "--role", "clinician")["set_password_url"]
    chrome.set_window_size(1280, 1000)
    visit.press("Log out")
    chrome.get(served + re.sub(r"^https?://[^/]+", "", link))
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    chrome.get(f"{served}/portal/account/two-factor")
    visit.set_up_app()  # staff open the queue with a second factor (decision 0086)
    chrome.get(f"{served}/portal/clinics/{connected.clinic_id}/queue?patient=Ada%00Quill")
    assert chrome.find_element(By.ID, "patient").get_attribute("value") == "AdaQuill"
    assert "NUL character" in chrome.find_element(By.ID, "patient-error").text
    visit.shot("queue-filter-refused")
    assert visit.saved() == 2

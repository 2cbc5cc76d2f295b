"""Roles combine, in a real browser (headless chromium against the real server on 127.0.0.1): an operator's
link makes a clinic's admin, who invites a colleague as "Admin and clinician" from the staff page (no script);
the colleague sets a password by the link and finds both the admin's tabs and the review queue, which opens.
Each page is saved as a screenshot at 1280 and 375 px."""

import re

from selenium.webdriver.common.by import By

from tests.common.cli import ok
from tests.portal.helpers import PASSWORD, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def _local(served, link):
    return served + re.sub(r"^https?://[^/]+", "", link)


def test_an_admin_invites_a_colleague_as_admin_and_clinician(served, chrome, tmp_path, world):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)
    clinic_id = world.clinic(name="Solo Practice")
    link = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", unique_email("admin"),
              "--role", "admin")["set_password_url"]
    chrome.get(_local(served, link))
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    tabs = {element.text for element in chrome.find_elements(By.CSS_SELECTOR, "nav.subnav a")}
    assert "Review queue" not in tabs and "Staff" in tabs  # an admin alone

    visit.follow("Staff")
    colleague = unique_email("both")
    visit.fill(email=colleague)
    chrome.find_element(By.CSS_SELECTOR, "input[name='role'][value='admin,clinician']").click()
    visit.press("Send invitation")
    invitation = chrome.find_element(By.ID, "invitation-link").text.strip()
    assert "admin and clinician" in chrome.find_element(By.TAG_NAME, "main").text
    visit.shot("staff-invited-both")

    chrome.delete_all_cookies()
    chrome.get(_local(served, invitation))
    assert "as admin and clinician" in chrome.page_source
    visit.shot("join-both")
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    assert "admin and clinician" in chrome.find_element(By.TAG_NAME, "main").text
    tabs = {element.text for element in chrome.find_elements(By.CSS_SELECTOR, "nav.subnav a")}
    assert {"Review queue", "API keys", "Staff", "Who read what"} <= tabs
    visit.shot("overview-both")
    visit.follow("Review queue")
    assert "/account/two-factor?required=patient_data" in chrome.current_url  # staff enrol first (decision 0086)
    visit.set_up_app()
    assert chrome.current_url.endswith(f"/clinics/{clinic_id}/queue")
    assert "does not include this page" not in chrome.page_source
    visit.shot("queue-both")
    assert visit.saved() == 4

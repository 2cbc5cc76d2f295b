"""A partner's "Your requests" in a real browser (Debian chromium, headless, against a real waitress server):
a new developer asks a clinic for two permissions, sees them listed with "Withdraw the request" (a tampered id
gets the page again with its one message), and withdraws it. Each page is saved at 1280 and 375 px
(docs/portal.md)."""

from selenium.webdriver.common.by import By

from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def test_a_partner_withdraws_a_request_in_the_browser(served, chrome, tmp_path, world):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)
    clinic_id = world.clinic(name="Harbour Clinic")
    visit.new_workspace(served, "partner", name="Beacon Labs")
    workspace_url = chrome.current_url.split("?")[0].rstrip("/")
    chrome.get(f"{workspace_url}/connection-requests")
    visit.fill(clinic_id=str(clinic_id))
    for scope in ("patients:read", "allergies:read"):
        chrome.find_element(By.XPATH, f"//input[@value='{scope}']").click()
    visit.press("Send the request")
    requests = chrome.find_element(By.ID, "requests").text
    assert "See the allergies on patients' charts" in requests and "Harbour Clinic" not in chrome.page_source
    visit.shot("connection-requests-waiting")
    # A tampered id gets the page again with its one message, the request still waiting.
    chrome.execute_script("document.querySelector('input[name=request_id]').value = 'not-an-id'")
    visit.press("Withdraw the request")
    assert "not waiting for an answer" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("connection-requests-withdraw-refused")
    visit.press("Withdraw the request")
    assert "Request withdrawn" in chrome.page_source
    assert "Withdrawn" in chrome.find_element(By.ID, "requests").text
    visit.shot("connection-requests-withdrawn")
    assert visit.saved() == 3

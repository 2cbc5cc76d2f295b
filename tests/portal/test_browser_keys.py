"""Keys in a real browser (the same headless chromium as test_browser.py): decision 0045. Reloading "Key created"
makes no second key and shows the secret no more (the POST redirected; the secret was a one-time read); a key
gets a name and a restriction; a rolled key is not offered a roll again. Each page is saved as a screenshot at
1280 and at 375 pixels wide (docs/portal.md describes them)."""

import json
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)


def _call(served, secret, path):
    request = urllib.request.Request(f"{served}{path}", headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def _keys_listed(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#keys tbody tr")


def test_reloading_key_created_makes_no_second_key_and_shows_no_secret(served, chrome, tmp_path):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "keys")
    sandbox = chrome.find_element(By.XPATH, "//dt[.='Sandbox clinic id']/following-sibling::dd").text.strip()
    visit.follow("API keys")
    visit.follow("Create a key")
    visit.fill(name="n" * 101, ip_allow="10.0.0.0/8\nnot-an-ip\n300.1.1.1")
    chrome.find_element(By.CSS_SELECTOR, "input[name='access'][value='restricted']").click()
    visit.press("Create key")
    summary = chrome.find_element(By.CLASS_NAME, "error-summary").text
    assert "at most 100 characters" in summary and "Tick at least one permission" in summary
    assert "“not-an-ip” (line 2), “300.1.1.1” (line 3)" in summary
    visit.shot("key-new-errors")

    visit.fill(name="Billing server", ip_allow="")
    chrome.find_element(By.CSS_SELECTOR, "input[name='scopes'][value='patients:read']").click()
    visit.press("Create key")
    assert "/keys/created?once=" in chrome.current_url
    secret = chrome.find_element(By.ID, "secret").text.strip()
    assert secret.startswith("ehr_test_") and "Billing server" in chrome.page_source
    visit.shot("key-created-named")

    page = chrome.find_element(By.TAG_NAME, "html")
    chrome.refresh()  # the page is a GET: the browser does not post the form again
    assert chrome.find_element(By.TAG_NAME, "html") != page
    assert "This key was shown once" in chrome.page_source and secret not in chrome.page_source
    assert not chrome.find_elements(By.ID, "secret")
    visit.shot("key-created-reloaded")

    visit.follow("Back to keys")
    [row] = _keys_listed(chrome)
    assert row.text.startswith("Billing server") and "restricted" in row.text.lower() and "patients:read" in row.text
    assert _call(served, secret, f"/v1/clinics/{sandbox}/patients")[0] == 200
    assert _call(served, secret, f"/v1/clinics/{sandbox}/allergies")[1]["code"] == "scope_missing"
    visit.shot("keys-named")

    visit.follow("Roll")
    chrome.find_element(By.CSS_SELECTOR, "input[name='overlap'][value='1h']").click()
    visit.press("Roll key")
    new = chrome.find_element(By.ID, "secret").text.strip()
    assert new != secret and "keeps working until" in chrome.page_source
    chrome.refresh()
    assert "This key was shown once" in chrome.page_source and new not in chrome.page_source
    visit.follow("Back to keys")
    rows = _keys_listed(chrome)
    assert len(rows) == 2 and all(row.text.startswith("Billing server") for row in rows)
    assert len(chrome.find_elements(By.LINK_TEXT, "Roll")) == 1 and "Rolled" in rows[1].text
    visit.shot("keys-rolled")
    print(f"screenshots: {folder}")

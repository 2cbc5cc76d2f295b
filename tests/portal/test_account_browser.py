"""Finding the way and keeping what is shown once, in a real browser (headless chromium against the real
application on 127.0.0.1): a new partner opens the Account page from the masthead and its Two-factor tab, copies
the app's setup key with its button and downloads the recovery codes as text; invites two people, copies the
link, and at 375 px sees every member's and invitation's action without scrolling; finds Security and a
verified Domain among the workspace's tabs; closes a second workspace, whose card list keeps its distance from
the closed ones. New clinic staff join by their link (no developer sign-up offered), idle 16 minutes and land on
the console's log-in, which says why. Screenshots at 1280 and 375 px, as tests/portal/test_browser.py saves them
(which also checks, on every page, that no band, card row or panel touches the next block)."""

import time

from selenium.webdriver.common.by import By

from tests.common.cli import ok
from tests.portal.console_helpers import path_of, set_password_link
from tests.portal.helpers import PASSWORD, totp_code, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)


def _clipboard(driver):
    return driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('!' + e))")


def _copy(visit, band):
    """Press the band's copy button: what the clipboard then holds."""
    driver = visit.driver
    button = driver.find_element(By.CSS_SELECTOR, f"button[data-copy='{band}']")
    assert button.is_displayed(), "the copy script shows the button"
    button.click()
    for _ in range(100):
        if driver.find_element(By.ID, f"{band}-copied").text:
            break
        time.sleep(0.05)
    assert driver.find_element(By.ID, f"{band}-copied").text == "Copied"
    return _clipboard(driver)


def _allow_clipboard_and_downloads(driver, origin, folder):
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin,
                                                        "permissions": ["clipboardReadWrite",
                                                                        "clipboardSanitizedWrite"]})
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})


def _downloaded(folder, name):
    path = folder / name
    for _ in range(200):
        if path.exists() and not list(folder.glob("*.crdownload")):
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{name} was not downloaded: {list(folder.iterdir())}")


def _fits_a_phone(driver, table_id):
    """At the window's width, the table's container does not scroll and each of its links and buttons is in
    sight: their names, when one is not."""
    return driver.execute_script("""
        const table = document.getElementById(arguments[0]);
        const box = table.closest(".scroll-x");
        const out = Array.from(table.querySelectorAll("a, button"))
          .filter(e => e.getBoundingClientRect().right > box.getBoundingClientRect().right + 0.5)
          .map(e => e.textContent.trim());
        return box.scrollWidth > box.clientWidth ? ["the container scrolls"].concat(out) : out;""", table_id)


def test_a_partner_finds_the_account_copies_what_is_shown_once_and_the_team_fits_a_phone(
        served, chrome, tmp_path):  # noqa: F811
    folder, downloads = tmp_path / "screenshots", tmp_path / "downloads"
    folder.mkdir()
    downloads.mkdir()
    visit = Visit(chrome, folder)
    _allow_clipboard_and_downloads(chrome, served, downloads)
    visit.new_workspace(served, "account", "Acme Health")
    email = chrome.find_element(By.CLASS_NAME, "who").text.strip()

    visit.follow("Account")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Your account"
    assert email in chrome.find_element(By.ID, "account-email").text
    visit.shot("account")
    visit.follow("Two-factor")
    visit.press("Set up an authenticator app")
    secret = chrome.find_element(By.ID, "secret-text").text.replace(" ", "")
    assert _copy(visit, "secret-text") == secret
    visit.shot("two-factor-app")
    visit.fill(code=totp_code(secret))
    visit.press("Confirm the app")
    codes = [item.text for item in chrome.find_elements(By.CSS_SELECTOR, "#recovery-codes li")]
    chrome.find_element(By.ID, "download-codes").click()
    text = _downloaded(downloads, "clinic-records-recovery-codes.txt")
    assert text.splitlines()[0] == f"Clinic Records recovery codes for {email}" and text.split()[-10:] == codes
    visit.shot("recovery-codes")
    visit._navigating(chrome.find_element(By.ID, "saved"))

    chrome.get(f"{served}/portal/")
    visit.follow("Acme Health")
    workspace_id = chrome.current_url.split("/workspaces/")[1].split("/")[0].split("?")[0]
    visit.follow("Members")
    invitees = [unique_email("a-rather-long-invitee-name"), unique_email("second")]
    for invitee in invitees:
        visit.fill(email=invitee)
        visit.press("Send invitation")
    link = chrome.find_element(By.ID, "invitation-link").text.strip()
    assert _copy(visit, "invitation-link") == link and "/invitations?token=" in link
    visit.shot("members-invited")
    chrome.set_window_size(375, 800)
    assert _fits_a_phone(chrome, "team") == [] and _fits_a_phone(chrome, "invitations") == []
    assert chrome.find_elements(By.XPATH, "//button[normalize-space()='Cancel invitation']")[0].is_displayed()
    chrome.set_window_size(1280, 1000)

    visit.follow("Security")
    assert chrome.find_element(By.CSS_SELECTOR, ".tabs a[aria-current='page']").text == "Security"
    visit.shot("security")
    ok("workspace", "set", workspace_id, "--verified")
    visit.follow("Domain")
    assert "Your workspace is verified" in chrome.find_element(By.ID, "workspace-verified").text
    visit.shot("domain-verified")

    # A second workspace, closed: the list shows the first one's card, then the closed one below.
    chrome.get(f"{served}/portal/workspaces/new")
    visit.fill(name="Old Practice")
    visit.press("Create workspace")
    visit.follow("Close this workspace")
    visit.fill(name="Old Practice")
    visit.press("Close this workspace")
    chrome.get(f"{served}/portal/")
    assert "Old Practice" in chrome.find_element(By.ID, "closed-workspaces").text
    visit.shot("workspaces-with-closed")
    print(f"screenshots: {folder}")
    assert visit.saved() == 7


def test_new_staff_join_without_developer_sign_up_and_idle_land_on_the_console_log_in(
        served, chrome, tmp_path, world, session_clock):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    clinic_id = world.clinic("Harbour Clinic")
    link, email = set_password_link(str(clinic_id), "admin")
    chrome.get(served + path_of(link))
    assert chrome.find_elements(By.XPATH, "//a[contains(@href, '/signup')]") == []
    visit.shot("staff-invitation")
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    assert "/portal/clinics/" in chrome.current_url
    session_clock.move(minutes=16)
    chrome.refresh()
    assert "/portal/login" in chrome.current_url
    said = chrome.find_element(By.ID, "signed-out").text
    assert "after 15 minutes without activity" in said
    assert chrome.find_element(By.CLASS_NAME, "brand").text == "Clinic Records clinic console"
    assert chrome.find_elements(By.XPATH, "//a[contains(@href, '/signup')]") == []
    visit.shot("console-log-in-after-idle")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Log in")
    assert f"/portal/clinics/{clinic_id}" in chrome.current_url
    print(f"screenshots: {folder}")
    assert visit.saved() == 2

"""The portal in a real browser: Debian's chromium driven by selenium through chromium-driver, headless,
against a real waitress server of the application on 127.0.0.1. A new developer signs up, creates a
workspace and a test key, reads the secret from the page and calls /v1/me with it from the server side.
Every page visited is saved as a screenshot under the test's temporary folder (docs/portal.md describes them).
"""

import json
import shutil
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.portal.helpers import PASSWORD, unique_email


@pytest.fixture
def chrome():
    # Required, not skipped: scripts/test installs Debian's chromium and chromium-driver when missing.
    binary = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert binary and driver_path, "install Debian's chromium and chromium-driver (scripts/test does it)"
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--window-size=1280,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _gone(element):
    """The page that held `element` has been replaced. Selenium's staleness_of knows only the stale-element
    error; chromium also answers "Node with given id does not belong to the document" for a node of a page
    that has just gone."""
    def check(driver):
        try:
            element.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                return True
            raise
        return False
    return check


# Each page is looked at as a laptop (1280 px) and a phone (375 px) show it.
WIDTHS = (1280, 375)
# The containers that scroll sideways by themselves when a phone is too narrow for a table.
SCROLLERS = ".scroll-x"
_NAME = 'e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "")'
# The elements wider than the window (outside a scrolling container), named in the failure's message.
_WIDER_THAN_THE_WINDOW = f"""
return Array.from(document.querySelectorAll("body *"))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5
               && !(e.parentElement && e.parentElement.closest("{SCROLLERS}")))
  .slice(0, 5).map({_NAME});
"""
# The scrolling containers whose content is wider than they are, and a tab bar folded onto several rows.
_SCROLLING = f"""
const bars = Array.from(document.querySelectorAll(".tabs"))
  .filter(bar => new Set(Array.from(bar.children, item => item.getBoundingClientRect().top)).size > 1);
return Array.from(document.querySelectorAll("{SCROLLERS}"))
  .filter(e => e.scrollWidth > e.clientWidth).concat(bars).map({_NAME});
"""

# A band shown once, a row of cards, a panel: each keeps its distance from the block after it (the first one
# with a height: a script tag or a hidden input is not a block). Its name and the gap, in px, when under 8 px.
_TOUCHING = f"""
const blocks = Array.from(document.querySelectorAll("main .copyable, main .secret, main .cards, main .panel"))
  .filter(e => !e.closest("td") && !e.parentElement.closest(".copyable"));
return blocks.map(e => {{
  let next = e.nextElementSibling;
  while (next && next.getBoundingClientRect().height === 0) next = next.nextElementSibling;
  return [e, next ? next.getBoundingClientRect().top - e.getBoundingClientRect().bottom : null];
}}).filter(([e, gap]) => gap !== null && gap < 8).map(([e, gap]) => ({_NAME})(e) + " " + Math.round(gap));
"""


class Visit:
    """Each page the browser shows, saved as two numbered screenshots (`NN-name-1280.png`, `NN-name-375.png`),
    after checking that at either width the document does not scroll sideways: what is wider than a phone
    (a wide table, the tab bar) scrolls inside its own container, and that no band shown once, row of cards or
    panel touches the block after it."""

    def __init__(self, driver, folder):
        self.driver = driver
        self.folder = folder
        self.count = 0

    def _fits(self, name, width):
        driver = self.driver
        scroll_width, inner_width = driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width, (
            f"{name} at {width} px scrolls sideways ({scroll_width} > {inner_width} px): "
            f"{driver.execute_script(_WIDER_THAN_THE_WINDOW)}")
        if width == WIDTHS[0]:  # on a laptop nothing scrolls sideways, not even inside its container
            assert driver.execute_script(_SCROLLING) == [], f"{name} at {width} px does not fit"
        assert driver.execute_script(_TOUCHING) == [], f"{name} at {width} px: blocks touch the next one"

    def shot(self, name):
        self.count += 1
        for width in WIDTHS:
            self.driver.set_window_size(width, 800)
            self._fits(name, width)
            height = self.driver.execute_script("return document.documentElement.scrollHeight")
            self.driver.set_window_size(width, max(800, min(height + 40, 4000)))
            self.driver.save_screenshot(str(self.folder / f"{self.count:02d}-{name}-{width}.png"))
        self.driver.set_window_size(WIDTHS[0], 1000)

    def saved(self):
        """How many pages were saved, each at every width."""
        for width in WIDTHS:
            assert len(list(self.folder.glob(f"*-{width}.png"))) == self.count
        return self.count

    def fill(self, **fields):
        for name, value in fields.items():
            element = self.driver.find_element(By.NAME, name)
            element.clear()
            element.send_keys(value)

    def _navigating(self, element):
        """Click and wait for the next page: a click returns before the browser has loaded it."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        WebDriverWait(self.driver, 60).until(_gone(page))
        WebDriverWait(self.driver, 60).until(
            lambda driver: driver.execute_script("return document.readyState") == "complete")

    def press(self, text):
        self._navigating(self.driver.find_element(By.XPATH, f"//button[normalize-space()='{text}']"))

    def follow(self, text):
        self._navigating(self.driver.find_element(By.LINK_TEXT, text))

    def new_workspace(self, base_url, who, name="Acme Health"):
        """Sign up as a new member and create a workspace; the browser stays on the workspace's overview."""
        self.driver.get(f"{base_url}/portal/signup")
        email = unique_email(who)
        self.fill(email=email, password=PASSWORD)
        self.press("Create account")
        self.log_in(email)
        self.follow("Create a workspace")
        self.fill(name=name)
        self.press("Create workspace")

    def log_in(self, email, password=PASSWORD):
        """From a page with a "log in" link (the sign-up's "check your email" page)."""
        self.follow("log in")
        self.fill(email=email, password=password)
        self.press("Log in")

    def set_up_app(self, shots=()):
        """On the two-factor page (where a page that needs a second factor leads): set up an authenticator app
        from the secret as text, with the code it shows, and go on past the recovery codes. Pages named in
        `shots` ("enrol", "codes") are saved. Returns the secret."""
        from tests.portal.helpers import totp_code

        self.press("Set up an authenticator app")
        secret = self.driver.find_element(By.ID, "secret-text").text.replace(" ", "")
        if "enrol" in shots:
            self.shot("two-factor-app")
        self.fill(code=totp_code(secret))
        self.press("Confirm the app")
        if "codes" in shots:
            self.shot("recovery-codes")
        self._navigating(self.driver.find_element(By.ID, "saved"))
        return secret

    def back(self):
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.back()
        WebDriverWait(self.driver, 60).until(_gone(page))


def test_a_new_developer_gets_a_working_test_key_in_the_browser(served, chrome, tmp_path, world):
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    chrome.get(f"{served}/portal/")
    assert chrome.current_url.startswith(f"{served}/portal/login")
    visit.shot("login")

    visit.follow("Create an account")
    visit.fill(email="not-an-email", password="short")
    visit.press("Create account")
    summary = chrome.find_element(By.CLASS_NAME, "error-summary").text
    assert "right format" in summary and "at least 12 characters" in summary
    visit.shot("signup-errors")
    email = unique_email("browser")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Create account")
    assert f"We sent a link to {email}" in chrome.find_element(By.ID, "sent").text
    visit.shot("signup-sent")
    visit.log_in(email)
    assert email in chrome.find_element(By.CLASS_NAME, "who").text
    visit.shot("workspaces-empty")

    visit.follow("Create a workspace")
    visit.shot("workspace-new")
    visit.fill(name="Acme Health")
    visit.press("Create workspace")
    assert "Workspace created" in chrome.page_source
    visit.shot("workspace-overview")

    visit.follow("Create a test key")
    visit.shot("key-new")
    visit.press("Create key")
    secret = chrome.find_element(By.ID, "secret").text.strip()
    assert secret.startswith("ehr_test_")
    visit.shot("key-created")

    # Server to server, as a partner's backend calls it: no Origin header, the key in Authorization.
    request = urllib.request.Request(f"{served}/v1/me", headers={"Authorization": f"Bearer {secret}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        me = json.loads(answer.read())["data"]
    assert me["mode"] == "test" and me["owner"]["name"] == "Acme Health"

    visit.follow("I have copied it: back to keys")
    assert secret not in chrome.page_source
    visit.shot("keys")
    visit.follow("Roll")
    visit.shot("key-roll")
    visit.back()
    visit.follow("Revoke")
    assert "Revoke key ehr_test_" in chrome.page_source
    visit.shot("key-revoke")
    visit.back()
    # Two clinics connect the workspace (as their staff would), so the connections page has its table.
    workspace_id = uuid.UUID(chrome.current_url.split("/workspaces/")[1].split("/")[0])
    world.grant(workspace_id, world.clinic("Harbour Clinic"), {"patients:read", "allergies:read", "allergies:write"})
    world.grant(workspace_id, world.clinic("Hill Pharmacy"), {"patients:read"})
    for link, name in (("Members", "members"), ("API Terms", "terms"), ("Plan and usage", "plan"),
                       ("Connections", "connections"), ("Activity", "activity")):
        visit.follow(link)
        visit.shot(name)
    assert "Created the test key" in chrome.page_source
    visit.follow("Connections")
    assert "Harbour Clinic" in chrome.page_source and "allergies:write" in chrome.page_source
    print(f"screenshots: {folder}")
    assert visit.saved() == 16

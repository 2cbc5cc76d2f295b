"""What a browser shows of the rules for names and addresses that go into mail, at 1280 and 375 pixels wide: a
workspace name holding a web address refused by its field, an invitation whose email the mail guard withheld
(done, and the page says the email could not be sent), an address the mailer would rewrite refused on sign-up,
and a form's body the portal cannot read. Screenshots under the test's temporary folder."""

import re
import urllib.error
import urllib.request
import uuid

from selenium.webdriver.common.by import By
from sqlalchemy import update

from clinicrecords.access.models import Workspace
from tests.portal.helpers import PASSWORD, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the fixture)

def test_names_and_addresses_that_mail_refuses(served, chrome, tmp_path, engine):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    print(f"\nscreenshots: {folder}")
    visit = Visit(chrome, folder)

    chrome.get(f"{served}/portal/signup")
    visit.fill(email="f(x)@example.org", password=PASSWORD)
    visit.press("Create account")
    assert "Enter an email address in the right format" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("signup-address-refused")

    visit.new_workspace(served, "names", name="Acme https://acme.example")
    assert "cannot contain a web address" in chrome.find_element(By.ID, "name-error").text
    visit.shot("workspace-name-refused")
    visit.fill(name="Acme Health")
    visit.press("Create workspace")
    workspace_id = re.search(r"/portal/workspaces/([0-9a-f-]{36})", chrome.current_url).group(1)
    with engine.begin() as connection:  # a name from before the rule, as the cleaning migration finds it
        connection.execute(update(Workspace).where(Workspace.id == uuid.UUID(workspace_id))
                           .values(name="Acme https://acme.example"))
    chrome.get(f"{served}/portal/workspaces/{workspace_id}/members")
    visit.fill(email=unique_email("invitee"))
    chrome.find_element(By.CSS_SELECTOR, "input[name=role][value=developer]").click()
    visit.press("Send invitation")
    assert "mail=not-sent" in chrome.current_url
    assert "could not be sent" in chrome.find_element(By.ID, "mail-not-sent").text
    assert "Invitation made" in chrome.page_source and "We emailed" not in chrome.page_source
    visit.shot("invitation-mail-not-sent")
    with engine.begin() as connection:
        connection.execute(update(Workspace).where(Workspace.id == uuid.UUID(workspace_id)).values(name="Acme"))

    # A POST whose multipart body names no boundary (a browser's own forms always name one): its answer is
    # written into the log-in page's place, as the browser would show it.
    try:
        urllib.request.urlopen(urllib.request.Request(f"{served}/portal/login", data=b"email=x", method="POST",
                                                      headers={"Content-Type": "multipart/form-data"}))
    except urllib.error.HTTPError as answer:
        status, html = answer.code, answer.read().decode()
    assert status == 400, html
    chrome.get(f"{served}/portal/login")
    chrome.execute_script("document.open(); document.write(arguments[0]); document.close();", html)
    assert chrome.find_element(By.TAG_NAME, "h1").text == "The form could not be read"
    visit.shot("form-unreadable")
    assert visit.saved() == 4

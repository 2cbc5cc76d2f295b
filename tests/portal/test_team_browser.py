"""Decision 0094 in a real browser (headless chromium against the real application on 127.0.0.1, the mail
read from the real SMTP server on loopback): an owner invites by email, the invitee follows the emailed link,
signs up with the address already filled in and joins, is made owner, and the first owner leaves. Screenshots
at 1280 and 375 px, as tests/portal/test_browser.py saves them."""

from selenium.webdriver.common.by import By

from tests.portal.helpers import PASSWORD, mailed_to, portal_path, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)

NAME = "Acme Health"


def _row_link(visit, email):
    """Follow the link in the members table's row of `email`."""
    visit._navigating(visit.driver.find_element(By.XPATH, f"//tr[td[normalize-space()='{email}']]//a"))


def test_an_owner_invites_by_email_the_invitee_joins_becomes_owner_and_the_first_owner_leaves(
        served, chrome, tmp_path, mail):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)
    visit.new_workspace(served, "first-owner", NAME)
    owner = chrome.find_element(By.CLASS_NAME, "who").text.strip()
    visit.follow("Members")
    invitee = unique_email("invitee")
    visit.fill(email="not an email")
    visit.press("Send invitation")
    assert "right format" in chrome.find_element(By.CLASS_NAME, "error-summary").text
    visit.shot("members-invite-errors")
    visit.fill(email=invitee)
    visit.press("Send invitation")
    assert "Invitation sent" in chrome.page_source
    assert invitee in chrome.find_element(By.ID, "invitations").text
    visit.shot("members-invited")

    message = mailed_to(mail, invitee, f"You are invited to join the workspace {NAME} on Clinic Records")
    assert f"{owner} invited you" in message.text
    visit.press("Log out")
    chrome.get(served + portal_path(message.link("/invitations")))
    assert f"Join the workspace {NAME}" in chrome.find_element(By.TAG_NAME, "h1").text
    visit.shot("invitation")
    visit.follow("Create an account")
    assert chrome.find_element(By.NAME, "email").get_attribute("value") == invitee
    visit.shot("signup-from-invitation")
    visit.fill(password=PASSWORD)
    visit.press("Create account")
    # The invitation proved the address: no "check your email", the way back to the invitation instead.
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Log in to join"
    visit.shot("signed-up-from-invitation")
    visit.follow("Log in and join")
    visit.fill(email=invitee, password=PASSWORD)
    visit.press("Log in")
    assert invitee in chrome.page_source  # back on the invitation, signed in
    visit.press("Join the workspace")
    assert NAME in chrome.page_source
    visit.shot("joined")
    visit.press("Log out")

    chrome.get(f"{served}/portal/login")
    visit.fill(email=owner, password=PASSWORD)
    visit.press("Log in")
    visit.follow(NAME)
    visit.follow("Members")
    _row_link(visit, invitee)
    visit.shot("member")
    chrome.find_element(By.XPATH, "//input[@name='role' and @value='owner']").click()
    visit.press("Save the role")
    assert f"{invitee} is now owner" in chrome.find_element(By.ID, "notice").text
    visit.shot("member-made-owner")
    assert f"{owner} changed your role in the workspace {NAME} on Clinic Records from developer to owner" in \
        mailed_to(mail, invitee, f"You are now an owner of the workspace {NAME}").text

    visit.follow("Leave")
    visit.shot("leave")
    visit.press(f"Leave the workspace {NAME}")
    assert f"You left the workspace {NAME}" in chrome.find_element(By.ID, "notice").text
    assert NAME not in chrome.find_element(By.TAG_NAME, "main").text.replace(f"You left the workspace {NAME}", "")
    visit.shot("left")
    invitation_link = served + portal_path(message.link("/invitations"))
    chrome.get(invitation_link)
    assert chrome.find_element(By.TAG_NAME, "h1").text == "This invitation was already used"
    visit.shot("invitation-used")
    visit.press("Log out")

    # The one owner left: their Leave page says what to do first, with no button.
    chrome.get(f"{served}/portal/login")
    visit.fill(email=invitee, password=PASSWORD)
    visit.press("Log in")
    visit.follow(NAME)
    visit.follow("Members")
    visit.follow("Leave")
    assert "only owner" in chrome.find_element(By.ID, "leave-refusal").text
    assert not chrome.find_elements(By.XPATH, f"//button[normalize-space()='Leave the workspace {NAME}']")
    visit.shot("leave-only-owner")
    print(f"screenshots: {folder}")
    assert visit.saved() == 12

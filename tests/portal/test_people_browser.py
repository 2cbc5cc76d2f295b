"""The people layer's changed pages in a real browser (headless chromium against the real application on
127.0.0.1, the mail read from the real SMTP server on loopback): "Email address verified" with its link readable
on the green panel; a staff link used once, then opened again; a workspace invitation followed as clinic staff,
which offers to switch account. Screenshots at 1280 and 375 px, as tests/portal/test_browser.py saves them."""

from selenium.webdriver.common.by import By

from tests.portal.console_helpers import path_of, set_password_link
from tests.portal.helpers import PASSWORD, mailed_to, portal_path, unique_email
from tests.portal.test_browser import Visit, chrome  # noqa: F401  (the browser fixture)
from tests.portal.test_contrast import AA_TEXT, contrast


def _rgb_hex(css_colour):
    # "rgba(255, 255, 255, 1)" -> "#ffffff"
    parts = css_colour[css_colour.index("(") + 1:css_colour.index(")")].split(",")[:3]
    return "#" + "".join(f"{int(part.strip()):02x}" for part in parts)


def test_verified_used_link_and_switching_account_pages(served, chrome, tmp_path, world, mail):  # noqa: F811
    folder = tmp_path / "screenshots"
    folder.mkdir()
    visit = Visit(chrome, folder)

    # A developer signs up and verifies the address: the panel's link reads at AA on its green.
    email = unique_email("verify")
    chrome.get(f"{served}/portal/signup")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Create account")
    chrome.get(served + portal_path(mailed_to(mail, email, "Verify your email address for Clinic Records")
                                    .link("/verify-email")))
    visit.press("Verify my address")
    link = chrome.find_element(By.ID, "continue")
    panel = chrome.find_element(By.ID, "verified")
    colours = [_rgb_hex(link.value_of_css_property("color")),
               _rgb_hex(panel.value_of_css_property("background-color"))]
    assert contrast(*colours) >= AA_TEXT, colours
    visit.shot("email-verified")

    # An owner's workspace invitation, for a developer.
    chrome.get(f"{served}/portal/login")
    visit.fill(email=email, password=PASSWORD)
    visit.press("Log in")
    visit.follow("Create a workspace")
    visit.fill(name="Acme Health")
    visit.press("Create workspace")
    visit.follow("Members")
    invited = unique_email("dev")
    visit.fill(email=invited)
    visit.press("Send invitation")
    workspace_link = portal_path(mailed_to(
        mail, invited, "You are invited to join the workspace Acme Health on Clinic Records").link("/invitations"))
    visit.press("Log out")

    # A clinic's staff link: used once, then opened again.
    staff_link, staff_email = set_password_link(world.clinic(name="Harbour View Clinic"), "clinician")
    chrome.get(served + path_of(staff_link))
    visit.fill(password=PASSWORD)
    visit.press("Set password and join")
    chrome.get(served + path_of(staff_link))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "This invitation was already used"
    visit.shot("staff-invitation-used")

    # Signed in as that staff member, the workspace's link says what is wrong and offers to switch.
    chrome.get(served + workspace_link)
    message = chrome.find_element(By.ID, "error-message").text
    assert "clinic staff account" in message and invited in message
    visit.shot("workspace-invitation-as-staff")
    visit.press("Log out and switch account")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Log in"
    assert "next=" in chrome.current_url
    print(f"screenshots: {folder}")
    assert visit.saved() == 3

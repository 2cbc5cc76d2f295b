"""Decision 0089, email changes: when an email changes, the old address is told, with the
new one masked and nothing to click; the verify page's "Continue" leads to the person's own face (a staff member's
clinic console)."""

from tests.portal.console_helpers import staff_browser
from tests.portal.helpers import PASSWORD, browser, mailed_to, portal_path, signed_up, submit, unique_email

CHANGED = "The email address of your Clinic Records account changed"


def _change(client, new):
    submit(client.get("/portal/account/email"), "email-change", email=new, password=PASSWORD, status=303)


def test_the_old_address_is_told_with_the_new_one_masked_once_it_is_verified(app, mail):
    client, old = signed_up(app)
    new = "juniper-" + unique_email("moved")
    _change(client, new)
    link = mailed_to(mail, new, "Verify your new email address for Clinic Records").link("/verify-email")
    assert not [message for message in mail.messages() if message.subject == CHANGED]  # not before it counts
    page = submit(browser(app).get(portal_path(link)), "verify-email", status=303).follow()
    assert page.html.find(id="continue")["href"] == "/portal/"
    notice = mailed_to(mail, old, CHANGED)
    masked = "j***@" + new.split("@")[1]
    assert masked in notice.text and masked in notice.html
    assert new not in notice.text and new not in notice.html
    assert all("token" not in link for link in notice.links())  # a notice: nothing to click that acts


def test_a_staff_member_continues_to_their_clinic_console(app, world, mail):
    clinic_id = world.clinic()
    staff, _ = staff_browser(app, clinic_id, "clinician")
    new = unique_email("nurse")
    _change(staff, new)
    link = mailed_to(mail, new, "Verify your new email address for Clinic Records").link("/verify-email")
    page = submit(browser(app).get(portal_path(link)), "verify-email", status=303).follow()
    assert page.html.find(id="continue")["href"] == f"/portal/clinics/{clinic_id}"
    assert "clinic console" in page.html.find(class_="brand").get_text()
    assert "Continue to the clinic console" in page.text

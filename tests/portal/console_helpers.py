"""The clinic console as staff drive it: an operator adds a staff member, who sets a password by the link."""

import re

from tests.common.cli import ok
from tests.portal.helpers import PASSWORD, browser, enrol_app, submit, unique_email


def set_password_link(clinic_id, role, email=None):
    email = email or unique_email("staff")
    result = ok("clinic", "staff", "add", "--clinic", clinic_id, "--email", email, "--role", role)
    return result["set_password_url"], email


def path_of(link):
    return re.sub(r"^https?://[^/]+", "", link)


def staff_browser(app, clinic_id, role="clinician", second_factor=True):
    """A browser signed in as a new staff member of the clinic, on its overview. Returns (browser, email). With
    `second_factor` (the default) the member has set up an authenticator app, as staff must before pages that
    show patient data open (decision 0086; tests/portal/test_second_factor_required.py is the rule's)."""
    link, email = set_password_link(clinic_id, role)
    client = browser(app)
    page = client.get(path_of(link))
    answer = submit(page, "join", password=PASSWORD, status=303)
    assert answer.location.endswith(f"/portal/clinics/{clinic_id}?joined=1")
    if second_factor:
        enrol_app(client)
    return client, email

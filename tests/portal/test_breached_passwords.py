"""Breached passwords are refused by every form that sets a portal password (sign-up, password change, a staff
member's set-password link) with the field's message (ASVS 2.1.7); nothing is written."""

import pytest
from sqlalchemy import func, select

from clinicrecords.identity.models import Account
from clinicrecords.identity.passwords import password_problem
from tests.portal.console_helpers import path_of, set_password_link
from tests.portal.helpers import PASSWORD, browser, error_summary, signed_up, submit, unique_email

MESSAGE = "Choose a different password: this one is known from data breaches, and attackers try those first"
# On the shipped lists, yet 12 characters or more and on no list the portal refused before.
BREACHED = ["trustno1trustno1", "Liverpool1892", "QAZWSXEDCRFV", "mustang20242024"]


def _accounts(engine, email):
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(Account).where(Account.email == email))


@pytest.mark.parametrize("password", BREACHED)
def test_sign_up_refuses_a_breached_password(app, engine, password):
    email = unique_email()
    answer = submit(browser(app).get("/portal/signup"), "signup", email=email, password=password, status=400)
    assert error_summary(answer) == [MESSAGE]
    assert answer.html.find(id="password-error").get_text(" ", strip=True).endswith(MESSAGE)
    assert answer.html.find(id="email")["value"] == email
    assert _accounts(engine, email) == 0


def test_a_password_change_to_a_breached_password_is_refused(app):
    client, email = signed_up(app)
    page = client.get("/portal/account/password")
    refused = submit(page, "password-change", current_password=PASSWORD, new_password="trustno1trustno1",
                     status=400)
    assert error_summary(refused) == [MESSAGE]
    assert refused.html.find(id="new_password-error") is not None
    assert submit(browser(app).get("/portal/login"), "login", email=email, password=PASSWORD, status=303)


def test_a_staff_members_set_password_link_refuses_a_breached_password(app, world, engine):
    link, email = set_password_link(world.clinic(), "clinician")
    client = browser(app)
    refused = submit(client.get(path_of(link)), "join", password="mustang20242024", status=400)
    assert error_summary(refused) == [MESSAGE]
    assert _accounts(engine, email) == 0
    submit(refused, "join", password=PASSWORD, status=303)  # the link still works


@pytest.mark.parametrize("password", BREACHED)
def test_the_password_policy_refuses_them_with_the_message(password):
    assert password_problem(password, "ana@example.com") == MESSAGE


def test_the_policys_earlier_rules_answer_first():
    assert "less common" in password_problem("Password1234", "ana@example.com")
    assert "at least 12" in password_problem("trustno1", "ana@example.com")
    assert "your email" in password_problem("trustno1trustno1", "trustno1trustno1@example.com")
    assert password_problem(PASSWORD, "ana@example.com") is None

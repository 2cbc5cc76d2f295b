"""Wrong second-step codes are counted apart from passwords and a right password never clears them: five for an
account from one address in 15 minutes refuse that pair's codes; twenty for the account in an hour, from all
addresses together, refuse the authenticator app's codes from everywhere (a passkey and a recovery code still
work) and mail the owner that someone holding their password is guessing. The "Confirm it's you" page's codes
count in the same throttle, and confirming with the password clears nothing of it."""

from sqlalchemy import func, select

from clinicrecords.identity.models import Account
from tests.identity.software_authenticator import SoftwareAuthenticator
from tests.portal.helpers import (PASSKEY_ORIGIN, PASSWORD, add_passkey, browser, enrol_app, error_summary,
                                  log_in_to_second_step, mailed_to, signed_up, submit, totp_code)

GUESSING = "Someone who has your Clinic Records password is guessing your codes"
PAIR_REFUSED = "Too many wrong codes. Try again in "
ACCOUNT_REFUSED = "Too many wrong codes for this account: use a passkey or a recovery code, or try again in "


def _wrong(secret):
    """Six digits the app shows at none of the steps the server accepts now."""
    shown = {totp_code(secret, steps) for steps in range(-2, 3)}
    return next(code for code in ("000000", "111111", "222222") if code not in shown)


def _failures(engine, email):
    from clinicrecords.identity.models import SecondStepFailure

    with engine.connect() as connection:
        account_id = connection.scalar(select(Account.id).where(Account.email == email))
        return connection.scalar(select(func.count()).select_from(SecondStepFailure).where(
            SecondStepFailure.account_id == account_id))


def test_logging_in_again_never_clears_the_wrong_codes(app, engine):
    """The trial's way around the throttle: four wrong codes, the password again, four more, ..."""
    client, email = signed_up(app)
    secret, codes = enrol_app(client)
    wrong = _wrong(secret)
    _, step = log_in_to_second_step(app, email, address="10.44.0.1")
    for _ in range(4):
        step = submit(step, "second-step", code=wrong, status=400)
        assert "not right" in error_summary(step)[0]
    # The password again (accepted: wrong codes are no failed passwords), and the count goes on.
    half, step = log_in_to_second_step(app, email, address="10.44.0.1")
    step = submit(step, "second-step", code=wrong, status=400)
    assert "not right" in error_summary(step)[0]
    for code in (wrong, totp_code(secret, 1), codes[0]):  # refused unchecked: the right ones too
        refused = submit(step, "second-step", code=code, status=400)
        assert error_summary(refused)[0].startswith(PAIR_REFUSED + "15 minutes")
    assert _failures(engine, email) == 5  # a refused code is not counted
    half.get("/portal/", status=302)
    # Logging in once more changes nothing.
    _, step = log_in_to_second_step(app, email, address="10.44.0.1")
    assert error_summary(submit(step, "second-step", code=totp_code(secret, 1), status=400))[0].startswith(
        PAIR_REFUSED)
    # Only that pair: the owner elsewhere signs in with their app.
    owner, step = log_in_to_second_step(app, email, address="10.44.0.2")
    submit(step, "second-step", code=totp_code(secret, 1), status=303)
    assert owner.get("/portal/").status_int == 200
    assert _failures(engine, email) == 5  # and signing in cleared none of them


def test_twenty_wrong_codes_refuse_the_app_everywhere_and_tell_the_owner(app, engine, mail):
    client, email = signed_up(app)
    secret, codes = enrol_app(client)
    key = SoftwareAuthenticator()
    add_passkey(client, key)
    wrong = _wrong(secret)
    for n in range(4):  # five from each of four addresses: no pair's limit refuses any of them
        _, step = log_in_to_second_step(app, email, address=f"10.45.0.{n}")
        for _ in range(5):
            step = submit(step, "second-step", code=wrong, status=400)
            assert "not right" in error_summary(step)[0]
    notice = mailed_to(mail, email, GUESSING)
    assert "20 wrong codes" in notice.text and "reset your password now" in notice.text
    assert notice.link("/forgot-password")

    # From a fifth address the app's right code is refused unchecked ...
    half, step = log_in_to_second_step(app, email, address="10.45.0.9")
    refused = submit(step, "second-step", code=totp_code(secret, 1), status=400)
    assert error_summary(refused)[0].startswith(ACCOUNT_REFUSED + "60 minutes")
    half.get("/portal/", status=302)
    # ... a recovery code signs in ...
    submit(refused, "second-step", code=codes[0], status=303)
    assert half.get("/portal/").status_int == 200
    # ... and so does a passkey.
    other, step = log_in_to_second_step(app, email, address="10.45.0.10")
    form = step.forms["second-step-passkey"]
    form["credential"] = key.get(step.html.find(id="second-step-passkey")["data-passkey-options"], PASSKEY_ORIGIN)
    form.submit(status=303)
    assert other.get("/portal/").status_int == 200
    # The owner was told once, not at every refusal after.
    _, step = log_in_to_second_step(app, email, address="10.45.0.11")
    submit(step, "second-step", code="9999999999", status=400)  # shaped as a recovery code: checked, counted
    assert [message.subject for message in mail.messages() if message.to == [email]].count(GUESSING) == 1


def test_the_confirm_page_counts_its_codes_in_the_same_throttle_and_the_password_clears_none(app):
    client, email = signed_up(app)
    secret, _ = enrol_app(client)
    wrong = _wrong(secret)
    for _ in range(5):
        page = submit(client.get("/portal/confirm?next=/portal/"), "confirm-code", code=wrong, status=400)
        assert "not right" in error_summary(page)[0]
    submit(client.get("/portal/confirm?next=/portal/"), "confirm-password", password=PASSWORD, status=303)
    refused = submit(client.get("/portal/confirm?next=/portal/"), "confirm-code", code=totp_code(secret, 1),
                     status=400)
    assert error_summary(refused)[0].startswith(PAIR_REFUSED)
    # The second step from the same address is refused too: one throttle for codes.
    address = client.extra_environ["REMOTE_ADDR"]
    _, step = log_in_to_second_step(app, email, address=address)
    assert error_summary(submit(step, "second-step", code=totp_code(secret, 1), status=400))[0].startswith(
        PAIR_REFUSED)
    assert browser(app, address).get("/portal/login").status_int == 200

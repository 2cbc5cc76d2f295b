"""What the identity context's messages share: what they are about, the portal pages they link to, and the
notices more than one service sends."""

# What every one of these messages is about: a person's own account concerns no workspace or clinic.
REGARDING = "your Clinic Records account"
# Paths of the portal's pages the messages link to (the portal serves them: portal/accounts).
VERIFY_PATH, RESET_PATH, LOG_IN_PATH, FORGOT_PATH, SIGN_UP_PATH, SESSIONS_PATH = (
    "/verify-email", "/reset-password", "/login", "/forgot-password", "/signup", "/account/sessions")


def send_password_changed(mail, email, *, how, signed_out):
    """The notice of a new password (a reset link's or the password page's), to the account's address."""
    mail.send("password_changed", email, regarding=REGARDING, how=how, signed_out=signed_out,
              reset_link=mail.link(FORGOT_PATH))


def send_codes_guessed(mail, email, *, count, minutes):
    """The notice that someone past the password step typed `count` wrong codes in `minutes`: whoever it was
    has the password (the second step's and the confirm page's throttle, `identity/throttle.py`)."""
    mail.send("codes_guessed", email, regarding=REGARDING, count=count, minutes=minutes,
              reset_link=mail.link(FORGOT_PATH))

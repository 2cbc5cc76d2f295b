"""Driving the portal as a browser would, through its own forms (WebTest parses them, CSRF token included)."""

import itertools
import re
import time

import webtest
from sqlalchemy import func, update

from clinicrecords.identity.models import Account

PASSWORD = "correct horse battery staple 42"
_numbers = itertools.count()


def unique_email(name="dev"):
    return f"{name}{next(_numbers)}-{id(_numbers)}@example.org"


def browser(app, address="127.0.0.1"):
    return webtest.TestApp(app, extra_environ={"REMOTE_ADDR": address})


# Each account the helpers sign up comes from an address of its own (TEST-NET-2): sign-ups are throttled per client
# address (identity/recovery.py), and a suite signs up far more accounts an hour than one person could.
_SIGN_UP_ADDRESSES = (f"198.51.100.{n % 254 + 1}" for n in itertools.count())


def submit(page, form_id, status=None, **fields):
    """Fill the page's form `form_id` (every portal form has an id) and submit it."""
    form = page.forms[form_id]
    for name, value in fields.items():
        form[name] = value
    return form.submit(status=status)


def signed_up(app, email=None, password=PASSWORD, verified=True):
    """A browser with a new account, signed in. Returns (browser, email). Its email counts as verified unless
    `verified` is False (the link's own flow is tests/portal/test_sign_up_verification.py's)."""
    client = browser(app, next(_SIGN_UP_ADDRESSES))
    email = email or unique_email()
    page = client.get("/portal/signup")
    submit(page, "signup", email=email, password=password, status=303)
    if verified:
        with app.registry["db.engine"].begin() as connection:
            connection.execute(update(Account).where(Account.email == email).values(email_verified_at=func.now()))
    submit(client.get("/portal/login"), "login", email=email, password=password, status=303)
    return client, email


def with_workspace(app, name="Acme Health", verified=True):
    """A signed-in browser and the id of a workspace it owns."""
    client, email = signed_up(app, verified=verified)
    page = client.get("/portal/workspaces/new")
    answer = submit(page, "workspace", name=name, status=303)
    workspace_id = re.search(r"/portal/workspaces/([0-9a-f-]{36})", answer.location).group(1)
    return client, workspace_id


def create_key(client, workspace_id, mode="test", ip_allow="", status=200, **fields):
    """The "Key created" page (the POST redirects to it), or with another `status` the POST's own answer."""
    page = client.get(f"/portal/workspaces/{workspace_id}/keys/new")
    if status == 200:
        return submit(page, "new-key", mode=mode, ip_allow=ip_allow, status=303, **fields).follow()
    return submit(page, "new-key", mode=mode, ip_allow=ip_allow, status=status, **fields)


def secret_of(page):
    return page.html.find(id="secret").get_text().strip()


def error_summary(page):
    """The messages of the page's error summary, in order."""
    summary = page.html.find(class_="error-summary")
    return [item.get_text().strip() for item in summary.find_all("li")] if summary else []


def joined_as_developer(app, owner, workspace_id):
    """A new account invited by `owner` as a developer of the workspace, signed in and joined."""
    developer, email = signed_up(app)
    url = submit(owner.get(f"/portal/workspaces/{workspace_id}/members"), "invite", email=email,
                 role="developer", status=303).follow().html.find(id="invitation-link").get_text().strip()
    submit(developer.get(url), "join", status=303)
    return developer


def mailed_to(mail, to, subject, timeout=30):
    """The newest message with this subject the SMTP server received for `to` (waiting for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [message for message in mail.messages() if message.to == [to] and message.subject == subject]
        if found:
            return found[-1]
        time.sleep(0.05)
    raise AssertionError(f"no message {subject!r} for {to}")


def portal_path(link):
    """An emailed link's path and query, for a WebTest browser (the link is on the portal's public address)."""
    return link[link.index("/portal/"):]


def confirm_its_you(refused, password=PASSWORD, status=303):
    """Follow a sensitive action's refusal to "Confirm it's you" and confirm with the password: the answer (by
    default the 303 back to where the person was going)."""
    assert "/portal/confirm?next=" in refused.location, refused.location
    return submit(refused.follow(), "confirm-password", password=password, status=status)


# Second factors (docs/decisions/0086-second-factor-building-blocks.md).


def totp_code(secret, steps=0):
    """The code an authenticator app shows for `secret`, `steps` 30 s steps from now (the server accepts one
    step either side of its own, so a code of step +1 is good now and is a new code after one of step 0)."""
    import pyotp

    return pyotp.TOTP(secret).at(time.time() + 30 * steps)


def enrol_app(client):
    """Set up an authenticator app through the pages, confirmed with a code of the current step: (the secret as
    typed from the page, the ten recovery codes shown once)."""
    page = submit(client.get("/portal/account/two-factor"), "start-app", status=303).follow()
    secret = page.html.find(id="secret-text").get_text().replace(" ", "")
    codes_page = submit(page, "confirm-app", code=totp_code(secret), status=303).follow()
    return secret, [item.get_text(strip=True) for item in codes_page.html.select("#recovery-codes li")]


def log_in_to_second_step(app, email, password=PASSWORD, address=None):
    """A new browser past the password of an account with a second factor, on the second step's page."""
    client = browser(app, address or "127.0.0.1")
    answer = submit(client.get("/portal/login"), "login", email=email, password=password, status=303)
    assert "/portal/login/second-step" in answer.location
    return client, answer.follow()


# WebTest's host: the passkeys' relying party is `localhost`, as on a developer's machine.
PASSKEY_ORIGIN = "http://localhost"


def add_passkey(client, authenticator, name="Work laptop", status=303):
    """Add a passkey through its page, `authenticator` (tests/identity/software_authenticator.py) answering the
    page's own options as a browser would: the POST's answer."""
    page = client.get("/portal/account/two-factor/passkeys")
    form = page.forms["add-passkey"]
    form["name"] = name
    form["credential"] = authenticator.create(page.html.find(id="add-passkey")["data-passkey-options"],
                                              PASSKEY_ORIGIN)
    return form.submit(status=status)

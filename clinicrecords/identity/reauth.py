"""Re-authentication ("sudo mode"): before a sensitive action a person proves again that it is them, and the
proof holds for REAUTH_WINDOW on that session, renewed by each sensitive action done within it. Signing in
opens the window (`sessions.SessionService.start`).

A way to prove it is a method: a name and a verifier (`IReauthVerifier`), registered with
`add_reauth_method(config, name, factory)` as a named service; the password is the first, an authenticator
app's code or a passkey plug in the same way. The order of registration is the order the page offers them.
"""

import datetime

from sqlalchemy import select, update
from zope.interface import implementer

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.interfaces import IReauthentication, IReauthVerifier
from clinicrecords.identity.models import Account, Session
from clinicrecords.identity.passwords import Passwords
from clinicrecords.identity.sessions import SESSION_RULES
from clinicrecords.identity.throttle import LoginThrottle, ThrottleRules, whole_minutes

REAUTH_WINDOW = datetime.timedelta(minutes=10)
# [method name] in the order registered, kept in the registry by `add_reauth_method`.
REAUTH_METHODS = "identity.reauth_methods"
NO_METHOD = "Choose a way to confirm it's you"
PASSWORD = "password"
WRONG_PASSWORD = "Your password is not right"


def add_reauth_method(config, name, factory):
    """A way to confirm it's you: `factory(context, request)` builds its `IReauthVerifier`."""
    config.register_service_factory(factory, iface=IReauthVerifier, name=name)
    methods = config.registry.setdefault(REAUTH_METHODS, [])
    if name not in methods:
        methods.append(name)


@implementer(IReauthentication)
class Reauthentication:
    window = REAUTH_WINDOW

    def __init__(self, db, verifiers, clock):
        self.db = db
        self.verifiers = verifiers
        self.clock = clock

    def methods(self, account_id):
        return [name for name, verifier in self.verifiers.items() if verifier.available(account_id)]

    def is_fresh(self, session):
        at = session.reauthenticated_at
        return at is not None and self.clock() - at < self.window

    def fresh_until(self, session):
        return None if not self.is_fresh(session) else session.reauthenticated_at + self.window

    def confirm(self, session, method, proof, address):
        verifier = self.verifiers.get(method)
        if verifier is None or not verifier.available(session.account_id):
            raise FieldErrors("method", NO_METHOD)
        verifier.verify(session.account_id, proof, address)
        self.renew(session)

    def renew(self, session):
        self.db.execute(update(Session).where(Session.id == session.session_id, Session.ended_at.is_(None))
                        .values(reauthenticated_at=self.clock()))


@implementer(IReauthVerifier)
class PasswordVerifier:
    """The account's password, throttled as log-in is (the same failures count: the confirm page is no way
    around the log-in throttle)."""

    fields = ("password",)

    def __init__(self, db, passwords, throttle):
        self.db = db
        self.passwords = passwords
        self.throttle = throttle

    def available(self, account_id):
        return True

    def verify(self, account_id, proof, address):
        email, password_hash = self.db.execute(
            select(Account.email, Account.password_hash).where(Account.id == account_id)).one()
        wait = self.throttle.wait(email, address)
        if wait is not None:
            minutes = whole_minutes(wait)
            raise FieldErrors("password", f"Too many wrong passwords. Try again in {minutes} minute"
                                          f"{'s' if minutes != 1 else ''}")
        if not self.passwords.verify(password_hash, proof.get("password") or ""):
            self.throttle.fail(email, address)
            raise FieldErrors("password", WRONG_PASSWORD)
        self.throttle.succeed(email, address)


def password_verifier_factory(settings):
    """`settings`: the application's settings (`app_settings`)."""
    passwords = Passwords.from_settings(settings.portal)
    rules = ThrottleRules.from_settings(settings.portal)

    def factory(context, request):
        clock = request.registry[SESSION_RULES].clock
        return PasswordVerifier(request.db, passwords, LoginThrottle(request.db, rules, clock))

    return factory


def reauthentication_factory(context, request):
    verifiers = {name: request.find_service(IReauthVerifier, name=name)
                 for name in request.registry.get(REAUTH_METHODS, ())}
    return Reauthentication(request.db, verifiers, request.registry[SESSION_RULES].clock)

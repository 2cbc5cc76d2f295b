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
from clinicrecords.identity.interfaces import IFactorService, IReauthentication, IReauthVerifier
from clinicrecords.identity.models import Account, Session
from clinicrecords.identity.passwords import Passwords
from clinicrecords.identity.sessions import SESSION_RULES
from clinicrecords.identity.second_step import checked_code
from clinicrecords.identity.throttle import CodeRules, CodeThrottle, LoginThrottle, ThrottleRules, throttled_proof
from clinicrecords.mail.interfaces import IMail

REAUTH_WINDOW = datetime.timedelta(minutes=10)
# [method name] in the order registered, kept in the registry by `add_reauth_method`.
REAUTH_METHODS = "identity.reauth_methods"
NO_METHOD = "Choose a way to confirm it's you"
PASSWORD = "password"
WRONG_PASSWORD = "Your password is not right"
CODE = "code"


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
        throttled_proof(self.throttle, email, address, "password", "passwords", WRONG_PASSWORD,
                        lambda: self.passwords.verify(password_hash, proof.get("password") or ""))


@implementer(IReauthVerifier)
class FactorCodeVerifier:
    """A code of the person's authenticator app (accepted once) or one of their recovery codes (used up, and the
    person mailed, as at sign-in), counted in the second step's throttle of wrong codes (`CodeThrottle`): the
    confirm page is no way around it, and confirming never clears it."""

    fields = ("code",)

    def __init__(self, db, factors, codes, mail):
        self.db = db
        self.factors = factors
        self.codes = codes
        self.mail = mail

    def available(self, account_id):
        return self.factors.has_second_factor(account_id)

    def verify(self, account_id, proof, address):
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        code = proof.get("code") or ""
        if not code.strip():
            raise FieldErrors("code", "Enter a code from your authenticator app, or a recovery code")
        checked_code(self.codes, self.factors, self.mail, account_id, email, code, address)


def password_verifier_factory(settings):
    """`settings`: the application's settings (`app_settings`)."""
    passwords = Passwords.from_settings(settings.portal)
    rules = ThrottleRules.from_settings(settings.portal)

    def factory(context, request):
        clock = request.registry[SESSION_RULES].clock
        return PasswordVerifier(request.db, passwords, LoginThrottle(request.db, rules, clock))

    return factory


def code_verifier_factory(settings):
    def factory(context, request):
        clock = request.registry[SESSION_RULES].clock
        return FactorCodeVerifier(request.db, request.find_service(IFactorService),
                                  CodeThrottle(request.db, CodeRules(), clock), request.find_service(IMail))

    return factory


def reauthentication_factory(context, request):
    verifiers = {name: request.find_service(IReauthVerifier, name=name)
                 for name in request.registry.get(REAUTH_METHODS, ())}
    return Reauthentication(request.db, verifiers, request.registry[SESSION_RULES].clock)

"""Sign-up that proves the address and tells no one who has an account, email change, and password reset
(docs/decisions/0089-sign-up-verification-password-reset.md).

The sign-up and forgotten-password forms answer the same whether or not the address has an account, and do the
same work either way (sign-up: a password hash, one outbox row; forgotten password: the same statements, each
finding the account or not by itself): the mail says what the form cannot. Each link's token is random and only
its hash is stored (`AccountLink`); it works once, consumed in the transaction that makes its change, until it
expires; a reset link also stops working when a newer one is sent, the password changes or the address does.
Every form that sends mail counts in one throttle (`mail_throttle.MailThrottle`); every form that asks for the password
again counts in the log-in throttle, as the "Confirm it's you" page does.
"""

import datetime
import uuid
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.accounts import email_problem, normal_email
from clinicrecords.identity.interfaces import IAuditTrail, IRecoveryService
from clinicrecords.identity.links import password_changed, void_reset_links
from clinicrecords.identity.mail_throttle import MailRequestRules, MailThrottle
from clinicrecords.identity.models import Account, AccountLink, MailRequest, Session
from clinicrecords.identity.notices import (FORGOT_PATH, LOG_IN_PATH, REGARDING, RESET_PATH, SIGN_UP_PATH,
                                            VERIFY_PATH, send_password_changed)
from clinicrecords.identity.passwords import Passwords, password_problem
from clinicrecords.identity.throttle import LoginThrottle, ThrottleRules, throttled_proof
from clinicrecords.identity.tokens import new_token, token_hash
from clinicrecords.mail.interfaces import IMail

VERIFY_FOR = datetime.timedelta(hours=24)
RESET_FOR = datetime.timedelta(hours=1)


def masked_email(email):
    """j***@example.org: enough for its owner to recognise, not enough for anyone else to learn it."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}***@{domain}"


@dataclass(frozen=True)
class IssuedLink:
    email: str
    token: str
    expires_at: datetime.datetime


@dataclass(frozen=True)
class ResetLink:
    """A reset link an operator hands over."""

    email: str
    url: str
    expires_at: datetime.datetime


@implementer(IRecoveryService)
class RecoveryService:
    def __init__(self, db, passwords, mail, audit, rules=MailRequestRules(), clock=now,
                 throttle_rules=ThrottleRules()):
        self.db = db
        self.passwords = passwords
        self.mail = mail
        self.audit = audit
        self.mail_throttle = MailThrottle(db, rules, clock)
        self.clock = clock
        self.throttle = LoginThrottle(db, throttle_rules, clock)

    # Links.

    def _issue(self, account, purpose, email, lifetime):
        token = new_token()
        link = AccountLink(account_id=account.id, purpose=purpose, email=email, token_hash=token_hash(token),
                           created_at=self.clock(), expires_at=self.clock() + lifetime)
        self.db.add(link)
        return IssuedLink(email, token, link.expires_at)

    def _open(self, token, purpose, lock=False):
        if not token:
            return None
        query = select(AccountLink).where(
            AccountLink.token_hash == token_hash(token), AccountLink.purpose == purpose,
            AccountLink.used_at.is_(None), AccountLink.void_at.is_(None), AccountLink.expires_at > self.clock())
        return self.db.scalar(query.with_for_update() if lock else query)

    def _void_resets(self, account_id):
        void_reset_links(self.db, account_id, self.clock())

    def _link(self, path, token):
        return self.mail.link(path, token=token)

    # Sign-up and verification.

    def sign_up(self, email, password, address, invited=False):
        email = normal_email(email)
        problems = {field: message for field, message in (
            ("email", email_problem(email)), ("password", password_problem(password, email))) if message}
        # Counted before it is judged: a refused request counts as one asked for (and the view's answer commits).
        self.mail_throttle.count(email, address)
        if problems:
            raise FieldErrors(errors=problems)
        # Hashed for a known address too: both answers take the same time.
        password_hash = self.passwords.hash(password)
        account = self._new_account(email, password_hash)
        if account is None:
            self.mail.send("account_exists", email, regarding=REGARDING, log_in_link=self.mail.link(LOG_IN_PATH),
                           reset_link=self.mail.link(FORGOT_PATH))
        elif invited:
            account.email_verified_at = self.clock()  # the invitation's emailed link reached this address
        else:
            self._send_verification(account, email)
        return email

    def _new_account(self, email, password_hash):
        """A new unverified account, or None when the address has one (also one made a moment ago by a
        concurrent sign-up)."""
        if self.db.scalar(select(func.count()).select_from(Account).where(Account.email == email)):
            return None
        account = Account(email=email, password_hash=password_hash)
        try:
            with self.db.begin_nested():
                self.db.add(account)
                self.db.flush()
        except IntegrityError:
            return None
        return account

    def _send_verification(self, account, email):
        # To a new address of an existing account, the message says it is a change, not a sign-up.
        issued = self._issue(account, "verify_email", email, VERIFY_FOR)
        self.mail.send("verify_email", email, regarding=REGARDING, link=self._link(VERIFY_PATH, issued.token),
                       hours=int(VERIFY_FOR.total_seconds() // 3600), changing=email != account.email)

    def resend_verification(self, account_id, address):
        account = self.db.get(Account, account_id)
        if account.email_verified_at is not None:
            raise FieldErrors("resend", "Your email address is already verified")
        try:
            self.mail_throttle.count(account.email, address, by_owner=True)
        except FieldErrors as exc:
            raise FieldErrors("resend", exc.errors["email"]) from None
        self._send_verification(account, account.email)
        return account.email

    def verification(self, token):
        link = self._open(token, "verify_email")
        return None if link is None else link.email

    def verify_email(self, token):
        link = self._open(token, "verify_email", lock=True)
        if link is None:
            raise FieldErrors("token", "This link has expired or was already used")
        account = self.db.get(Account, link.account_id, with_for_update=True)
        if account.email != link.email:
            # An email change: the new address is the account's once proven, if no one took it meanwhile.
            if self.db.scalar(select(func.count()).select_from(Account).where(Account.email == link.email)):
                raise FieldErrors("token", "This address now belongs to another account")
            # The old address is told, with the new one masked: a notice, nothing to click.
            self.mail.send("email_changed", account.email, regarding=REGARDING, new_email=masked_email(link.email))
            account.email = link.email
            # A reset link mailed to the old address must not outlive the change: whoever reads that inbox now
            # is not the account's owner any more.
            self._void_resets(account.id)
        now = self.clock()
        account.email_verified_at = now
        link.used_at = now
        # Any other open link (an older address's, another change asked for) would move the address again.
        self.db.execute(update(AccountLink).where(
            AccountLink.account_id == account.id, AccountLink.purpose == "verify_email", AccountLink.id != link.id,
            AccountLink.used_at.is_(None), AccountLink.void_at.is_(None)).values(void_at=now))
        return account

    def is_verified(self, account_id):
        return self.db.scalar(select(Account.email_verified_at).where(Account.id == account_id)) is not None

    def change_email(self, account_id, password, new_email, address):
        account = self.db.get(Account, account_id)
        new_email = normal_email(new_email)
        throttled_proof(self.throttle, account.email, address, "password", "passwords", "Your password is not right",
                        lambda: self.passwords.verify(account.password_hash, password or ""))
        problem = email_problem(new_email)
        if problem is None and new_email == account.email:
            problem = "This is already your email address"
        # Mail to an address its sender does not own yet: counted as a stranger's request for it, before it is
        # judged (a refused request counts as one asked for).
        self.mail_throttle.count(new_email, address)
        if problem:
            raise FieldErrors("email", problem)
        # The same answer whether or not another account has the address: its owner is told instead.
        if self.db.scalar(select(func.count()).select_from(Account).where(Account.email == new_email)):
            self.mail.send("account_exists", new_email, regarding=REGARDING,
                           log_in_link=self.mail.link(LOG_IN_PATH), reset_link=self.mail.link(FORGOT_PATH))
        else:
            self._send_verification(account, new_email)
        return new_email

    # Password reset.

    def request_reset(self, email, address):
        email = normal_email(email)
        problem = email_problem(email)
        self.mail_throttle.count(email, address)
        if problem:
            raise FieldErrors("email", problem)
        # The same statements whether or not the address has an account, so the answer's time says nothing:
        # the older links are voided and the new one written each by one statement that finds the account (or
        # not) itself, then one outbox row either way.
        now = self.clock()
        token = new_token()
        account_id = select(Account.id).where(Account.email == email).scalar_subquery()
        self.db.execute(update(AccountLink).where(
            AccountLink.account_id == account_id, AccountLink.purpose == "reset_password",
            AccountLink.used_at.is_(None), AccountLink.void_at.is_(None)).values(void_at=now))
        issued = self.db.execute(insert(AccountLink).from_select(
            ["id", "account_id", "purpose", "email", "token_hash", "created_at", "expires_at"],
            select(literal(uuid.uuid4()), Account.id, literal("reset_password"), Account.email,
                   literal(token_hash(token)), literal(now), literal(now + RESET_FOR))
            .where(Account.email == email)).returning(AccountLink.id)).first()
        if issued is None:
            self.mail.send("no_account", email, regarding=REGARDING, sign_up_link=self.mail.link(SIGN_UP_PATH))
        else:
            self.mail.send("reset_password", email, regarding=REGARDING, link=self._link(RESET_PATH, token),
                           minutes=int(RESET_FOR.total_seconds() // 60))
        return email

    def _new_reset(self, account):
        """A new reset link; the older ones stop working."""
        self._void_resets(account.id)
        return self._issue(account, "reset_password", account.email, RESET_FOR)

    def reset_request(self, token):
        link = self._open(token, "reset_password")
        return None if link is None else link.email

    def reset_password(self, token, new_password):
        link = self._open(token, "reset_password", lock=True)
        if link is None:
            raise FieldErrors("token", "This link has expired, was already used or a newer one was sent")
        account = self.db.get(Account, link.account_id, with_for_update=True)
        problem = password_problem(new_password, account.email)
        if problem:
            raise FieldErrors("password", problem)
        now = self.clock()
        account.password_hash = self.passwords.hash(new_password)
        account.password_changed_at = now
        # The link reached the inbox: the address is proven too.
        account.email_verified_at = account.email_verified_at or now
        link.used_at = now
        password_changed(self.db, account.id, now)
        self.db.execute(update(Session).where(Session.account_id == account.id, Session.ended_at.is_(None))
                        .values(ended_at=now))
        send_password_changed(self.mail, account.email, how="with a reset link",
                              signed_out="Every browser that was signed in has been signed out.")
        return account

    def operator_reset_link(self, email):
        account = self.db.scalar(select(Account).where(Account.email == normal_email(email)))
        if account is None:
            raise FieldErrors("email", f"No account has the email {normal_email(email)}")
        issued = self._new_reset(account)
        self.audit.record("account.reset_link_issued", account_id=None, target=account.email,
                          expires_at=issued.expires_at.isoformat())
        return ResetLink(account.email, self._link(RESET_PATH, issued.token), issued.expires_at)


def prune_recovery(db, now_=None):
    """Removes links past their expiry by a day and mail requests past the throttle's window by a day."""
    at = now_ or now()
    links = db.execute(delete(AccountLink).where(AccountLink.expires_at < at - datetime.timedelta(days=1))).rowcount
    requests = db.execute(delete(MailRequest).where(
        MailRequest.at < at - MailRequestRules.window - datetime.timedelta(days=1))).rowcount
    return {"account_links": links, "mail_requests": requests}


def recovery_service_factory(settings):
    passwords = Passwords.from_settings(settings.portal)
    throttle_rules = ThrottleRules.from_settings(settings.portal)

    def factory(context, request):
        return RecoveryService(request.db, passwords, request.find_service(IMail),
                               request.find_service(IAuditTrail), throttle_rules=throttle_rules)

    return factory

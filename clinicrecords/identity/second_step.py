"""Signing in with a second factor (decision 0097): after the password, a person with a factor is a pending
sign-in, not a session. The browser carries the pending sign-in's token in a cookie of its own (only its hash is
stored), which opens the second step's page and nothing else; a code of the app, a recovery code or a passkey
turns it into a session. A passkey alone signs in too (password-free): the log-in page's ceremony is a pending
sign-in without an account, whose challenge the answer must carry.

Wrong codes count in the second step's own throttle (`identity/throttle.py`, `CodeThrottle`), apart from the
password's failures and never cleared by a right password: five for an account and address in 15 minutes refuse
that pair's codes, twenty for the account in an hour refuse the app's codes from everywhere (a passkey and a
recovery code still work) and tell the owner someone holding their password is guessing. Refused passkeys (no
guess: a passkey cannot be forged) count as failed log-ins of the pair, as before. A pending sign-in lasts
`LIFETIME`; each challenge is used once; a new password (reset or changed) ends every one of the account's.
The password-free ceremony is asked for without signing in: its unanswered challenges expire within minutes
(`PASSWORD_FREE_LIFETIME`) and are deleted as new ones are asked for, and a client address holds at most
`PASSWORD_FREE_PER_ADDRESS` of them at once.
"""

import datetime
from dataclasses import dataclass

from sqlalchemy import delete, select
from zope.interface import implementer

from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.accounts import throttled
from clinicrecords.identity.factors import NO_SUCH_CODE
from clinicrecords.identity.interfaces import IFactorService, ISignInSteps
from clinicrecords.identity.models import Account, PendingSignIn
from clinicrecords.identity.notices import send_codes_guessed
from clinicrecords.identity.throttle import CodeRules, CodeThrottle, LoginThrottle, ThrottleRules, limit_reached_at
from clinicrecords.identity.totp import normal_code
from clinicrecords.identity.tokens import new_token, token_hash
from clinicrecords.mail.interfaces import IMail

# Time enough to find a phone or a security key; the password step is asked again after.
LIFETIME = datetime.timedelta(minutes=10)
# A password-free ceremony nobody answered is gone after the ceremony's own time-out (the browser gives up then),
# and one client address holds at most this many unanswered at once: the log-in page asks for one per visit.
PASSWORD_FREE_LIFETIME = datetime.timedelta(minutes=5)
PASSWORD_FREE_PER_ADDRESS = 10
# Where failed password-free attempts are counted: no email is known before the passkey names its account.
PASSWORD_FREE = "(passkey)"
PASSKEY_REFUSED = "That passkey did not sign you in: try again, or use your authenticator app or a recovery code"
PASSKEY_ALONE_REFUSED = "That passkey did not sign you in: try again, or log in with your email and password"


@dataclass(frozen=True)
class PendingStep:
    """A browser past the password step: whose second step is due, and whether they have passkeys."""

    account_id: object
    email: str
    expires_at: datetime.datetime


@implementer(ISignInSteps)
class SignInSteps:
    def __init__(self, db, factors, mail, throttle_rules=ThrottleRules(), code_rules=CodeRules(), clock=now):
        self.db = db
        self.factors = factors
        self.mail = mail
        self.clock = clock
        self.throttle = LoginThrottle(db, throttle_rules, clock)
        self.codes = CodeThrottle(db, code_rules, clock)

    def begin(self, account_id):
        token = new_token()
        self.db.add(PendingSignIn(token_hash=token_hash(token), account_id=account_id, created_at=self.clock(),
                                  expires_at=self.clock() + LIFETIME))
        self.db.flush()
        return token

    def _row(self, token, lock=False, password_free=False):
        if not token:
            return None
        statement = select(PendingSignIn).where(PendingSignIn.token_hash == token_hash(token),
                                                PendingSignIn.expires_at > self.clock())
        statement = statement.where(PendingSignIn.account_id.is_(None) if password_free
                                    else PendingSignIn.account_id.is_not(None))
        return self.db.scalar(statement.with_for_update() if lock else statement)

    def pending(self, token):
        row = self._row(token)
        if row is None:
            return None
        email = self.db.scalar(select(Account.email).where(Account.id == row.account_id))
        return PendingStep(row.account_id, email, row.expires_at)

    def passkey_options(self, token, rp):
        row = self._row(token, lock=True)
        if row is None:
            return None
        ceremony = self.factors.second_step_options(row.account_id, rp)
        row.challenge = ceremony.challenge if ceremony else None
        return ceremony

    def with_code(self, token, code, address):
        row, email = self._pending_row(token, "code")
        if not (code or "").strip():
            raise FieldErrors("code", "Enter a code from your authenticator app, or a recovery code")
        checked_code(self.codes, self.factors, self.mail, row.account_id, email, code, address)
        return self._done(row, email, address)

    def with_passkey(self, token, response, rp, address):
        row, email = self._checked(token, address, "credential")
        challenge, row.challenge = row.challenge, None
        if not self.factors.verify_passkey(row.account_id, rp, response, challenge):
            self.throttle.fail(email, address)
            raise FieldErrors("credential", PASSKEY_REFUSED)
        return self._done(row, email, address)

    def password_free_options(self, rp, address):
        now_ = self.clock()
        # Challenges nobody answered in time go as new ones are asked for: the table holds the live ones only.
        self.db.execute(delete(PendingSignIn).where(PendingSignIn.account_id.is_(None),
                                                    PendingSignIn.expires_at <= now_))
        kept_until = self.db.scalar(select(limit_reached_at(
            PendingSignIn.expires_at, PASSWORD_FREE_PER_ADDRESS, now_,
            PendingSignIn.account_id.is_(None), PendingSignIn.address == address[:64])))
        if kept_until is not None:
            raise FieldErrors("credential", throttled(kept_until - now_))
        token = new_token()
        ceremony = self.factors.password_free_options(rp)
        self.db.add(PendingSignIn(token_hash=token_hash(token), account_id=None, challenge=ceremony.challenge,
                                  address=address[:64], created_at=now_, expires_at=now_ + PASSWORD_FREE_LIFETIME))
        self.db.flush()
        return token, ceremony

    def password_free(self, token, response, rp, address):
        wait = self.throttle.wait(PASSWORD_FREE, address)
        if wait is not None:
            raise FieldErrors("credential", throttled(wait))
        row = self._row(token, lock=True, password_free=True)
        challenge = row.challenge if row else None
        if row is not None:
            self.db.delete(row)  # its challenge is used, whatever comes of it
        account_id = self.factors.passkey_sign_in(rp, response, challenge)
        if account_id is None:
            self.throttle.fail(PASSWORD_FREE, address)
            raise FieldErrors("credential", PASSKEY_ALONE_REFUSED)
        return account_id

    def end(self, token):
        if token:
            self.db.execute(delete(PendingSignIn).where(PendingSignIn.token_hash == token_hash(token)))

    def _pending_row(self, token, field):
        row = self._row(token, lock=True)
        if row is None:
            raise FieldErrors(field, "Your sign-in was left too long: log in again")
        return row, self.db.scalar(select(Account.email).where(Account.id == row.account_id))

    def _checked(self, token, address, field):
        row, email = self._pending_row(token, field)
        wait = self.throttle.wait(email, address)
        if wait is not None:
            raise FieldErrors(field, throttled(wait))
        return row, email

    def _done(self, row, email, address):
        self.throttle.succeed(email, address)
        self.db.delete(row)
        return row.account_id


def checked_code(codes, factors, mail, account_id, email, code, address):
    """A code of the app or a recovery code, through the wrong codes' throttle (`codes`, a CodeThrottle): returns
    what `factors.verify_code` answered, or raises FieldErrors "code" (refused unchecked, or wrong and counted;
    the wrong code that reaches the account's limit mails its owner)."""
    refusal = codes.refusal(account_id, address, app_code=normal_code(code) is not None)
    if refusal is not None:
        raise FieldErrors("code", refusal)
    used = factors.verify_code(account_id, code)
    if used is None:
        if codes.fail(account_id, address):
            send_codes_guessed(mail, email, count=codes.rules.per_account,
                               minutes=int(codes.rules.account_window.total_seconds() // 60))
        raise FieldErrors("code", NO_SUCH_CODE)
    return used


def prune_pending_sign_ins(db, now_=None):
    """Pending sign-ins past their time (left at the second step): {"pending_sign_ins": n}."""
    at = now_ or now()
    return {"pending_sign_ins": db.execute(delete(PendingSignIn).where(PendingSignIn.expires_at <= at)).rowcount}


def sign_in_steps_factory(settings):
    rules = ThrottleRules.from_settings(settings.portal)

    def factory(context, request):
        return SignInSteps(request.db, request.find_service(IFactorService), request.find_service(IMail), rules)

    return factory

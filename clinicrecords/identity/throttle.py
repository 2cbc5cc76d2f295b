"""Log-in throttling, counted in the database so it holds across processes.

Failures count per account and address (the email typed, known or not, from one client address) and per
address. Too many for the pair refuses that pair only: whoever knows an owner's email cannot keep the owner
out, as the owner's right password from another address still works. Too many from an address refuses that
address for every account. A refused attempt is answered at once with how long to wait (no server thread is
ever put to sleep), before the password is checked, and with the same words for either limit.

Wrong codes (the second step of signing in, the "Confirm it's you" page) are counted apart (`CodeThrottle`), per
account, since only a person past the password reaches them, and a right password never clears them: otherwise
whoever holds the password would log in again after every few guesses and guess on without end.
"""

import datetime
import math
from dataclasses import dataclass

from sqlalchemy import delete, func, select

from clinicrecords.errors import FieldErrors
from clinicrecords.identity.models import LoginFailure, SecondStepFailure
from clinicrecords.settings import PortalSettings


@dataclass(frozen=True)
class ThrottleRules:
    per_account_and_address: int = PortalSettings.login_failures_per_account_and_address
    per_address: int = PortalSettings.login_failures_per_address
    window: datetime.timedelta = datetime.timedelta(minutes=PortalSettings.login_throttle_minutes)

    @classmethod
    def from_settings(cls, settings):
        """From the `portal.*` settings (a PortalSettings)."""
        return cls(settings.login_failures_per_account_and_address, settings.login_failures_per_address,
                   datetime.timedelta(minutes=settings.login_throttle_minutes))


def whole_minutes(wait):
    """A wait as the minutes to tell a person: rounded up, at least one."""
    return max(1, math.ceil(wait / datetime.timedelta(minutes=1)))


def limit_reached_at(stamp, limit, since, *conditions):
    """When the row that keeps `limit` of them after `since` was stamped (`stamp`: the rows' time column; the
    limit-th newest), or None while fewer than `limit` are there. A scalar subquery: every limit a throttle has is
    read in one statement."""
    return (select(stamp).where(stamp > since, *conditions)
            .order_by(stamp.desc()).offset(limit - 1).limit(1).scalar_subquery())


class LoginThrottle:
    def __init__(self, db, rules, clock):
        self.db = db
        self.rules = rules
        self.clock = clock

    def wait(self, email, address):
        """How long until this email may try again from this address, or None when it may now."""
        now = self.clock()
        since = now - self.rules.window
        pair, by_address = self.db.execute(select(
            limit_reached_at(LoginFailure.at, self.rules.per_account_and_address, since,
                             LoginFailure.email == email, LoginFailure.address == address),
            limit_reached_at(LoginFailure.at, self.rules.per_address, since, LoginFailure.address == address),
        )).one()
        kept_until = [at + self.rules.window for at in (pair, by_address) if at is not None]
        return max(kept_until) - now if kept_until else None

    def fail(self, email, address):
        self.db.add(LoginFailure(email=email, address=address, at=self.clock()))

    def succeed(self, email, address):
        """A successful log-in clears the failures of its own account and address, not another address's."""
        self.db.execute(delete(LoginFailure).where(LoginFailure.email == email, LoginFailure.address == address))


def throttled_proof(throttle, email, address, field, plural, wrong, proves):
    """A password asked again of a signed-in person (the "Confirm it's you" page, the password and email pages),
    counted as a log-in of (email, address) is: refused at once while the pair or the address is throttled
    ("Too many wrong passwords ..."), a wrong one counted, a right one clearing the pair's password failures."""
    wait = throttle.wait(email, address)
    if wait is not None:
        minutes = whole_minutes(wait)
        raise FieldErrors(field, f"Too many wrong {plural}. Try again in {_in(minutes)}")
    if not proves():
        throttle.fail(email, address)
        raise FieldErrors(field, wrong)
    throttle.succeed(email, address)


@dataclass(frozen=True)
class CodeRules:
    """Wrong codes: `per_account_and_address` in `pair_window` refuse that pair's codes; `per_account` in
    `account_window`, from all addresses together, refuse the authenticator app's codes from every address (a
    passkey and a recovery code, which cannot be guessed, still work)."""

    per_account_and_address: int = 5
    pair_window: datetime.timedelta = datetime.timedelta(minutes=15)
    per_account: int = 20
    account_window: datetime.timedelta = datetime.timedelta(hours=1)


def _in(minutes):
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class CodeThrottle:
    """Wrong codes per (account, address) and per account, never cleared: they leave the count with time."""

    def __init__(self, db, rules, clock):
        self.db = db
        self.rules = rules
        self.clock = clock

    def refusal(self, account_id, address, app_code):
        """Why a code from this address is refused before it is checked (the words to show), or None.
        `app_code`: the code typed is shaped as the authenticator app's (six digits), the guessable kind."""
        now = self.clock()
        rules = self.rules

        def kept_by(limit, window, *conditions):
            return limit_reached_at(SecondStepFailure.at, limit, now - window,
                                    SecondStepFailure.account_id == account_id, *conditions)

        pair, account = self.db.execute(select(
            kept_by(rules.per_account_and_address, rules.pair_window, SecondStepFailure.address == address),
            kept_by(rules.per_account, rules.account_window))).one()
        if pair is not None:
            return f"Too many wrong codes. Try again in {_in(whole_minutes(pair + rules.pair_window - now))}"
        if account is not None and app_code:
            minutes = whole_minutes(account + rules.account_window - now)
            return ("Too many wrong codes for this account: use a passkey or a recovery code, or try again in "
                    f"{_in(minutes)}")
        return None

    def fail(self, account_id, address):
        """Counts a wrong code; True when it is the one that reaches the account's limit (its owner is told
        once, not at every refusal after)."""
        now = self.clock()
        self.db.add(SecondStepFailure(account_id=account_id, address=address, at=now))
        self.db.flush()
        count = self.db.scalar(select(func.count()).select_from(SecondStepFailure).where(
            SecondStepFailure.account_id == account_id, SecondStepFailure.at > now - self.rules.account_window))
        return count == self.rules.per_account

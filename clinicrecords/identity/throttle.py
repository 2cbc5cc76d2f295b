"""Log-in throttling, counted in the database so it holds across processes.

Failures count per account and address (the email typed, known or not, from one client address) and per
address. Too many for the pair refuses that pair only: whoever knows an owner's email cannot keep the owner
out, as the owner's right password from another address still works. Too many from an address refuses that
address for every account. A refused attempt is answered at once with how long to wait (no server thread is
ever put to sleep), before the password is checked, and with the same words for either limit.
"""

import datetime
import math
from dataclasses import dataclass

from sqlalchemy import delete, select

from clinicrecords.identity.models import LoginFailure
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


def _kept_by(limit, *conditions, since):
    """When the failure that keeps `limit` of them in the window was made (the limit-th newest), or None while
    fewer than `limit` are in the window."""
    return (select(LoginFailure.at).where(LoginFailure.at > since, *conditions)
            .order_by(LoginFailure.at.desc()).offset(limit - 1).limit(1).scalar_subquery())


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
            _kept_by(self.rules.per_account_and_address, LoginFailure.email == email,
                          LoginFailure.address == address, since=since),
            _kept_by(self.rules.per_address, LoginFailure.address == address, since=since),
        )).one()
        kept_until = [at + self.rules.window for at in (pair, by_address) if at is not None]
        return max(kept_until) - now if kept_until else None

    def fail(self, email, address):
        self.db.add(LoginFailure(email=email, address=address, at=self.clock()))

    def succeed(self, email, address):
        """A successful log-in clears the failures of its own account and address, not another address's."""
        self.db.execute(delete(LoginFailure).where(LoginFailure.email == email, LoginFailure.address == address))

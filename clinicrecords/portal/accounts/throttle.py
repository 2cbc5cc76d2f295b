"""Log-in throttling: after too many failures in a window, further attempts for that email (known or not)
or from that address are refused before the password is even checked, with the same words either way."""

import datetime
from dataclasses import dataclass

from sqlalchemy import delete, func, or_, select

from clinicrecords.portal.accounts.models import LoginFailure


@dataclass(frozen=True)
class ThrottleRules:
    per_account: int = 5
    per_address: int = 20
    window: datetime.timedelta = datetime.timedelta(minutes=15)

    @classmethod
    def from_settings(cls, settings):
        return cls(int(settings.get("portal.login_failures_per_account", cls.per_account)),
                   int(settings.get("portal.login_failures_per_address", cls.per_address)),
                   datetime.timedelta(minutes=int(settings.get("portal.login_throttle_minutes", 15))))


class LoginThrottle:
    def __init__(self, db, rules, clock):
        self.db = db
        self.rules = rules
        self.clock = clock

    def blocked(self, email, address):
        since = self.clock() - self.rules.window
        by_email, by_address = self.db.execute(select(
            func.count().filter(LoginFailure.email == email),
            func.count().filter(LoginFailure.address == address),
        ).where(LoginFailure.at > since, or_(LoginFailure.email == email, LoginFailure.address == address))).one()
        return by_email >= self.rules.per_account or by_address >= self.rules.per_address

    def fail(self, email, address):
        self.db.add(LoginFailure(email=email, address=address, at=self.clock()))

    def succeed(self, email):
        """A successful log-in clears the account's failures (not the address's)."""
        self.db.execute(delete(LoginFailure).where(LoginFailure.email == email))

"""The browsers an account signed in from, so its person learns of a sign-in from a new one (decision 0093).

A browser carries a random id in a long-lived cookie (the portal's `portal/web/devices.py`); each account
remembers the SHA-256 of the ids it signed in with. A sign-in whose browser carries no id this account knows
mails the person ("New sign-in to your account": browser, system, address, time). An account's very first
sign-in mails nothing: there is no earlier device to tell it from.
"""

import re

from sqlalchemy import exists, select, update
from sqlalchemy.dialects.postgresql import insert
from zope.interface import implementer

from clinicrecords.identity.interfaces import IKnownDevices
from clinicrecords.identity.models import Account, KnownDevice
from clinicrecords.identity.notices import FORGOT_PATH, REGARDING, SESSIONS_PATH
from clinicrecords.identity.sessions import SESSION_RULES
from clinicrecords.identity.tokens import new_token, token_hash
from clinicrecords.identity.user_agents import describe
from clinicrecords.mail.interfaces import IMail

# What `new_token` makes: anything else a cookie carries is not one of ours.
_DEVICE_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")


@implementer(IKnownDevices)
class KnownDevices:
    def __init__(self, db, mail, clock):
        self.db = db
        self.mail = mail
        self.clock = clock

    def signed_in(self, account_id, device_id, user_agent, address):
        device_id = device_id if device_id and _DEVICE_ID.match(device_id) else new_token()
        now, hashed = self.clock(), token_hash(device_id)
        known = self.db.execute(update(KnownDevice).where(
            KnownDevice.account_id == account_id, KnownDevice.device_hash == hashed).values(last_seen_at=now))
        if known.rowcount:
            return device_id
        if self.db.scalar(select(exists().where(KnownDevice.account_id == account_id))):
            self._tell(account_id, user_agent, address, now)
        # Two sign-ins of one new browser at once remember it once.
        self.db.execute(insert(KnownDevice).values(account_id=account_id, device_hash=hashed, first_seen_at=now,
                                                   last_seen_at=now).on_conflict_do_nothing())
        return device_id

    def _tell(self, account_id, user_agent, address, at):
        browser = describe(user_agent)
        email = self.db.scalar(select(Account.email).where(Account.id == account_id))
        self.mail.send("new_sign_in", email, regarding=REGARDING, browser=browser.name, system=browser.system,
                       address=address or "an unknown address", at=at.strftime("%Y-%m-%d %H:%M UTC"),
                       sessions_link=self.mail.link(SESSIONS_PATH), reset_link=self.mail.link(FORGOT_PATH))


def known_devices_factory(context, request):
    return KnownDevices(request.db, request.find_service(IMail), request.registry[SESSION_RULES].clock)

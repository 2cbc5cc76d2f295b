"""The one throttle of every form that sends mail (sign-up, forgotten password, email change, sending the link
again, the invitation forms), counted in the database so it holds across processes
(docs/decisions/0111-one-mail-throttle-owners-requests-apart.md).

A stranger's request (anyone but the signed-in owner of the email) counts against the strangers' requests for that
email from that client address, for that email from all addresses, and from that address; an invitation form's is
a stranger's that neither meets nor counts toward the address's limit. The owner's own requests count apart and
are never refused by what strangers asked. A request let through is counted before the form judges it, so one
then refused for what was typed counts too; one the throttle refuses is not stored.
"""

import datetime
from dataclasses import dataclass

from sqlalchemy import select

from clinicrecords.clock import now
from clinicrecords.errors import FieldErrors
from clinicrecords.identity.accounts import MAX_EMAIL
from clinicrecords.identity.models import MailRequest
from clinicrecords.identity.throttle import limit_reached_at, whole_minutes


@dataclass(frozen=True)
class MailRequestRules:
    """How many messages may be asked for in `window`: per email and client address; per email from all addresses
    together (nobody's inbox is flooded); per client address (one client cannot mail many people). What the
    signed-in owner of an address asks for it is counted apart, `per_owner`."""

    per_email_and_address: int = 3
    per_email: int = 10
    per_address: int = 20
    per_owner: int = 3
    window: datetime.timedelta = datetime.timedelta(hours=1)


def too_many(wait):
    minutes = whole_minutes(wait)
    return f"Too many requests for email. Try again in {minutes} minute{'s' if minutes != 1 else ''}"


class MailThrottle:
    def __init__(self, db, rules=MailRequestRules(), clock=now):
        self.db = db
        self.rules = rules
        self.clock = clock

    def count(self, email, address, by_owner=False, by_inviter=False):
        """Counts one request for mail to `email` from client `address`, or FieldErrors "email" when it was asked
        too often: a stranger's against the strangers' requests for that email and from that address, the owner's
        (`by_owner`) against the owner's own. An invitation form's (`by_inviter`) is a stranger's with no
        per-address limit, neither applied to it nor counted toward it: an admin may invite a whole team from one
        office, and the office's colleagues still sign up and reset their passwords."""
        email = email[:MAX_EMAIL]  # an over-long one, refused, is counted by what the column holds of it
        now_ = self.clock()
        rules = self.rules
        since = now_ - rules.window

        def kept_by(limit, *conditions):
            return limit_reached_at(MailRequest.at, limit, since, *conditions)

        if by_owner:
            limits = [kept_by(rules.per_owner, MailRequest.email == email, MailRequest.by_owner.is_(True))]
        else:
            strangers = MailRequest.by_owner.is_(False)
            limits = [kept_by(rules.per_email_and_address, MailRequest.email == email, MailRequest.address == address,
                              strangers),
                      kept_by(rules.per_email, MailRequest.email == email, strangers)]
            if not by_inviter:
                limits.append(kept_by(rules.per_address, MailRequest.address == address, strangers,
                                      MailRequest.by_inviter.is_(False)))
        kept_until = [at + rules.window for at in self.db.execute(select(*limits)).one() if at is not None]
        if kept_until:
            raise FieldErrors("email", too_many(max(kept_until) - now_))
        self.db.add(MailRequest(email=email, address=address, at=now_, by_owner=by_owner, by_inviter=by_inviter))
